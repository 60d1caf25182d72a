/* p4c's tests include PSA as "bmv2/psa.p4"; trainet has one psa.p4, with psa_switch's widths. */
#include <psa.p4>
