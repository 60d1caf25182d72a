#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> f; }
struct H { h_t h; h_t[2] s; }
struct M {}
parser P(packet_in p, out H hdr, inout M m, inout standard_metadata_t sm) { state start { p.extract(hdr.h); transition accept; } }
control C(inout H hdr, inout M m) { apply {} }
control I(inout H hdr, inout M m, inout standard_metadata_t sm) {
  action a(bit<8> x) { hdr.h.f = x; }
  table t { key = { hdr.h.isValid(): exact; hdr.s[1].isValid(): exact; hdr.h.f: ternary; } actions = { a; NoAction; } default_action = a(3); }
  table u { key = { hdr.h.f: exact; } actions = { a; } }
  apply { t.apply(); u.apply(); }
}
control E(inout H hdr, inout M m, inout standard_metadata_t sm) { apply {} }
control D(packet_out p, in H hdr) { apply { p.emit(hdr.h); } }
V1Switch(P(), C(), I(), E(), C(), D()) main;
