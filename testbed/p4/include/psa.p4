/* The Portable Switch Architecture (P4.org PSA specification, version 1.2) for trainet's
 * target: its types, metadata, actions, externs and the PSA_Switch package. Written for
 * trainet from the specification's text; the widths are those BMv2's psa_switch uses, so
 * programs written for psa_switch compile unchanged. trainet treats a `type` declaration
 * as a typedef: values of PortId_t and bit<32> mix freely, and P4Runtime carries them as
 * plain 32-bit values. */
#ifndef _TRAINET_PSA_P4_
#define _TRAINET_PSA_P4_

#include <core.p4>

/* Numeric types: the <name>Uint_t typedefs give the width of each <name>_t. */
typedef bit<32> PortIdUint_t;
typedef bit<32> MulticastGroupUint_t;
typedef bit<16> CloneSessionIdUint_t;
typedef bit<8>  ClassOfServiceUint_t;
typedef bit<16> PacketLengthUint_t;
typedef bit<16> EgressInstanceUint_t;
typedef bit<64> TimestampUint_t;

@p4runtime_translation("p4.org/psa/v1/PortId_t", 32)
type PortIdUint_t         PortId_t;
@p4runtime_translation("p4.org/psa/v1/MulticastGroup_t", 32)
type MulticastGroupUint_t MulticastGroup_t;
@p4runtime_translation("p4.org/psa/v1/CloneSessionId_t", 16)
type CloneSessionIdUint_t CloneSessionId_t;
@p4runtime_translation("p4.org/psa/v1/ClassOfService_t", 8)
type ClassOfServiceUint_t ClassOfService_t;
@p4runtime_translation("p4.org/psa/v1/PacketLength_t", 16)
type PacketLengthUint_t   PacketLength_t;
@p4runtime_translation("p4.org/psa/v1/EgressInstance_t", 16)
type EgressInstanceUint_t EgressInstance_t;
@p4runtime_translation("p4.org/psa/v1/Timestamp_t", 64)
type TimestampUint_t      Timestamp_t;
typedef error ParserError_t;

/// Egress port of a packet that egress sends back to the ingress parser.
const PortId_t PSA_PORT_RECIRCULATE = (PortId_t) 0xfffffffa;
/// The port towards the control plane (packet-in and packet-out).
const PortId_t PSA_PORT_CPU = (PortId_t) 0xfffffffd;
/// The clone session the control plane reserves for copies to the CPU port.
const CloneSessionId_t PSA_CLONE_SESSION_TO_CPU = (CloneSessionId_t) 0;

/* Types of the same widths for values carried in packet headers (to and from the CPU). */
typedef bit<32> PortIdInHeaderUint_t;
typedef bit<32> MulticastGroupInHeaderUint_t;
typedef bit<16> CloneSessionIdInHeaderUint_t;
typedef bit<8>  ClassOfServiceInHeaderUint_t;
typedef bit<16> PacketLengthInHeaderUint_t;
typedef bit<16> EgressInstanceInHeaderUint_t;
typedef bit<64> TimestampInHeaderUint_t;
type PortIdInHeaderUint_t         PortIdInHeader_t;
type MulticastGroupInHeaderUint_t MulticastGroupInHeader_t;
type CloneSessionIdInHeaderUint_t CloneSessionIdInHeader_t;
type ClassOfServiceInHeaderUint_t ClassOfServiceInHeader_t;
type PacketLengthInHeaderUint_t   PacketLengthInHeader_t;
type EgressInstanceInHeaderUint_t EgressInstanceInHeader_t;
type TimestampInHeaderUint_t      TimestampInHeader_t;

PortId_t psa_PortId_header_to_int(in PortIdInHeader_t x) {
    return (PortId_t) (PortIdUint_t) (PortIdInHeaderUint_t) x;
}
PortIdInHeader_t psa_PortId_int_to_header(in PortId_t x) {
    return (PortIdInHeader_t) (PortIdInHeaderUint_t) (PortIdUint_t) x;
}
MulticastGroup_t psa_MulticastGroup_header_to_int(in MulticastGroupInHeader_t x) {
    return (MulticastGroup_t) (MulticastGroupUint_t) (MulticastGroupInHeaderUint_t) x;
}
MulticastGroupInHeader_t psa_MulticastGroup_int_to_header(in MulticastGroup_t x) {
    return (MulticastGroupInHeader_t) (MulticastGroupInHeaderUint_t) (MulticastGroupUint_t) x;
}
CloneSessionId_t psa_CloneSessionId_header_to_int(in CloneSessionIdInHeader_t x) {
    return (CloneSessionId_t) (CloneSessionIdUint_t) (CloneSessionIdInHeaderUint_t) x;
}
CloneSessionIdInHeader_t psa_CloneSessionId_int_to_header(in CloneSessionId_t x) {
    return (CloneSessionIdInHeader_t) (CloneSessionIdInHeaderUint_t) (CloneSessionIdUint_t) x;
}
ClassOfService_t psa_ClassOfService_header_to_int(in ClassOfServiceInHeader_t x) {
    return (ClassOfService_t) (ClassOfServiceUint_t) (ClassOfServiceInHeaderUint_t) x;
}
ClassOfServiceInHeader_t psa_ClassOfService_int_to_header(in ClassOfService_t x) {
    return (ClassOfServiceInHeader_t) (ClassOfServiceInHeaderUint_t) (ClassOfServiceUint_t) x;
}
PacketLength_t psa_PacketLength_header_to_int(in PacketLengthInHeader_t x) {
    return (PacketLength_t) (PacketLengthUint_t) (PacketLengthInHeaderUint_t) x;
}
PacketLengthInHeader_t psa_PacketLength_int_to_header(in PacketLength_t x) {
    return (PacketLengthInHeader_t) (PacketLengthInHeaderUint_t) (PacketLengthUint_t) x;
}
EgressInstance_t psa_EgressInstance_header_to_int(in EgressInstanceInHeader_t x) {
    return (EgressInstance_t) (EgressInstanceUint_t) (EgressInstanceInHeaderUint_t) x;
}
EgressInstanceInHeader_t psa_EgressInstance_int_to_header(in EgressInstance_t x) {
    return (EgressInstanceInHeader_t) (EgressInstanceInHeaderUint_t) (EgressInstanceUint_t) x;
}
Timestamp_t psa_Timestamp_header_to_int(in TimestampInHeader_t x) {
    return (Timestamp_t) (TimestampUint_t) (TimestampInHeaderUint_t) x;
}
TimestampInHeader_t psa_Timestamp_int_to_header(in Timestamp_t x) {
    return (TimestampInHeader_t) (TimestampInHeaderUint_t) (TimestampUint_t) x;
}

/// Values of the psa_idle_timeout table property.
enum PSA_IdleTimeout_t {
    NO_TIMEOUT,
    NOTIFY_CONTROL
}

/// How a packet reached the parser that sees it.
enum PSA_PacketPath_t {
    NORMAL,           /// received from a port (ingress)
    NORMAL_UNICAST,   /// sent by ingress to one port (egress)
    NORMAL_MULTICAST, /// one copy of a multicast group (egress)
    CLONE_I2E,        /// a copy made by a clone at the end of ingress (egress)
    CLONE_E2E,        /// a copy made by a clone at the end of egress (egress)
    RESUBMIT,         /// sent back to ingress by a resubmit (ingress)
    RECIRCULATE       /// sent back to ingress through PSA_PORT_RECIRCULATE (ingress)
}

struct psa_ingress_parser_input_metadata_t {
    PortId_t         ingress_port;
    PSA_PacketPath_t packet_path;
}

struct psa_egress_parser_input_metadata_t {
    PortId_t         egress_port;
    PSA_PacketPath_t packet_path;
}

/// Set by the architecture before the Ingress control runs.
struct psa_ingress_input_metadata_t {
    PortId_t         ingress_port;
    PSA_PacketPath_t packet_path;
    Timestamp_t      ingress_timestamp;
    ParserError_t    parser_error;
}

/// What the Ingress control decides; each field starts as noted.
struct psa_ingress_output_metadata_t {
    ClassOfService_t class_of_service;   /// 0
    bool             clone;              /// false
    CloneSessionId_t clone_session_id;   /// undefined (0 here)
    bool             drop;               /// true: a packet goes nowhere unless sent
    bool             resubmit;           /// false
    MulticastGroup_t multicast_group;    /// 0: not multicast
    PortId_t         egress_port;        /// undefined (0 here)
}

/// Set by the architecture before the Egress control runs.
struct psa_egress_input_metadata_t {
    ClassOfService_t class_of_service;
    PortId_t         egress_port;
    PSA_PacketPath_t packet_path;
    EgressInstance_t instance;           /// the replica's instance from the PRE (0 unicast)
    Timestamp_t      egress_timestamp;
    ParserError_t    parser_error;
}

/// The egress deparser's view of where the packet goes.
struct psa_egress_deparser_input_metadata_t {
    PortId_t egress_port;
}

/// What the Egress control decides; each field starts as noted.
struct psa_egress_output_metadata_t {
    bool             clone;              /// false
    CloneSessionId_t clone_session_id;   /// undefined (0 here)
    bool             drop;               /// false
}

/// In the IngressDeparser: true when an ingress-to-egress clone is made.
extern bool psa_clone_i2e(in psa_ingress_output_metadata_t istd);
/// In the IngressDeparser: true when the packet is resubmitted (!drop && resubmit).
extern bool psa_resubmit(in psa_ingress_output_metadata_t istd);
/// In the IngressDeparser: true when the packet goes to egress as unicast or multicast
/// (!drop && !resubmit).
extern bool psa_normal(in psa_ingress_output_metadata_t istd);
/// In the EgressDeparser: true when an egress-to-egress clone is made.
extern bool psa_clone_e2e(in psa_egress_output_metadata_t istd);
/// In the EgressDeparser: true when the packet is recirculated
/// (!drop && egress_port == PSA_PORT_RECIRCULATE).
extern bool psa_recirculate(in psa_egress_output_metadata_t istd,
                            in psa_egress_deparser_input_metadata_t edstd);

/// Checked at run time: a false check drops the packet and logs where.
extern void assert(in bool check);
extern void assume(in bool check);

match_kind {
    range,     /// lo..hi intervals
    selector   /// the keys an ActionSelector hashes
}

/// Send the packet to egress_port (unicast); clone and resubmit decisions stay.
action send_to_port(inout psa_ingress_output_metadata_t meta, in PortId_t egress_port) {
    meta.drop = false;
    meta.multicast_group = (MulticastGroup_t) 0;
    meta.egress_port = egress_port;
}

/// Send one copy of the packet per member of multicast_group.
action multicast(inout psa_ingress_output_metadata_t meta,
                 in MulticastGroup_t multicast_group) {
    meta.drop = false;
    meta.multicast_group = multicast_group;
}

/// Send no packet to normal egress processing (a clone still happens; no resubmit).
action ingress_drop(inout psa_ingress_output_metadata_t meta) {
    meta.drop = true;
}

/// Send no packet out of the device (a clone still happens).
action egress_drop(inout psa_egress_output_metadata_t meta) {
    meta.drop = true;
}

/// The multicast groups and clone sessions; configured by the control plane.
extern PacketReplicationEngine {
    PacketReplicationEngine();
}

/// The queues between ingress and egress.
extern BufferingQueueingEngine {
    BufferingQueueingEngine();
}

enum PSA_HashAlgorithm_t {
    IDENTITY,
    CRC32,
    CRC32_CUSTOM,
    CRC16,
    CRC16_CUSTOM,
    ONES_COMPLEMENT16,  /// the Internet checksum's one's-complement sum
    TARGET_DEFAULT      /// CRC32 on trainet
}

extern Hash<O> {
    Hash(PSA_HashAlgorithm_t algo);
    /// The hash of data, in O's width.
    O get_hash<D>(in D data);
    /// base + (hash of data) % max.
    O get_hash<T, D>(in T base, in D data, in T max);
}

/// A checksum over the data given since the last clear(); cleared each time the block
/// holding it runs.
extern Checksum<W> {
    Checksum(PSA_HashAlgorithm_t hash);
    void clear();
    void update<T>(in T data);
    W get();
}

/// The Internet checksum (RFC 1071) with incremental updates (RFC 1624); data must be
/// a multiple of 16 bits. Cleared each time the block holding it runs.
extern InternetChecksum {
    InternetChecksum();
    void clear();
    void add<T>(in T data);
    void subtract<T>(in T data);
    bit<16> get();
    bit<16> get_state();
    void set_state(in bit<16> checksum_state);
}

enum PSA_CounterType_t {
    PACKETS,
    BYTES,
    PACKETS_AND_BYTES
}

/// n_counters counters; the control plane reads them as 64-bit values.
extern Counter<W, S> {
    Counter(bit<32> n_counters, PSA_CounterType_t type);
    void count(in S index);
}

/// One counter per entry of the table whose psa_direct_counter property names it.
extern DirectCounter<W> {
    DirectCounter(PSA_CounterType_t type);
    void count();
}

enum PSA_MeterType_t {
    PACKETS,
    BYTES
}

enum PSA_MeterColor_t { RED, GREEN, YELLOW }

/// n_meters two-rate three-color markers (RFC 2698).
extern Meter<S> {
    Meter(bit<32> n_meters, PSA_MeterType_t type);
    /// Colour-aware: the result is never better than color.
    PSA_MeterColor_t execute(in S index, in PSA_MeterColor_t color);
    /// Colour-blind.
    PSA_MeterColor_t execute(in S index);
}

/// One meter per entry of the table whose psa_direct_meter property names it.
extern DirectMeter {
    DirectMeter(PSA_MeterType_t type);
    PSA_MeterColor_t execute(in PSA_MeterColor_t color);
    PSA_MeterColor_t execute();
}

/// size values of type T kept across packets.
extern Register<T, S> {
    Register(bit<32> size);
    Register(bit<32> size, T initial_value);
    T read(in S index);
    void write(in S index, in T value);
}

/// A uniformly distributed value in [min, max].
extern Random<T> {
    Random(T min, T max);
    T read();
}

/// Table implementation: entries share a pool of size action members.
extern ActionProfile {
    ActionProfile(bit<32> size);
}

/// Table implementation: an action profile whose member is chosen by a hash of the
/// selector keys.
extern ActionSelector {
    ActionSelector(PSA_HashAlgorithm_t algo, bit<32> size, bit<32> outputWidth);
}

/// A stream of data to the control plane.
extern Digest<T> {
    Digest();
    void pack(in T data);
}

parser IngressParser<H, M, RESUBM, RECIRCM>(
    packet_in buffer,
    out H parsed_hdr,
    inout M user_meta,
    in psa_ingress_parser_input_metadata_t istd,
    in RESUBM resubmit_meta,
    in RECIRCM recirculate_meta);

control Ingress<H, M>(
    inout H hdr, inout M user_meta,
    in    psa_ingress_input_metadata_t  istd,
    inout psa_ingress_output_metadata_t ostd);

control IngressDeparser<H, M, CI2EM, RESUBM, NM>(
    packet_out buffer,
    out CI2EM clone_i2e_meta,
    out RESUBM resubmit_meta,
    out NM normal_meta,
    inout H hdr,
    in M meta,
    in psa_ingress_output_metadata_t istd);

parser EgressParser<H, M, NM, CI2EM, CE2EM>(
    packet_in buffer,
    out H parsed_hdr,
    inout M user_meta,
    in psa_egress_parser_input_metadata_t istd,
    in NM normal_meta,
    in CI2EM clone_i2e_meta,
    in CE2EM clone_e2e_meta);

control Egress<H, M>(
    inout H hdr, inout M user_meta,
    in    psa_egress_input_metadata_t  istd,
    inout psa_egress_output_metadata_t ostd);

control EgressDeparser<H, M, CE2EM, RECIRCM>(
    packet_out buffer,
    out CE2EM clone_e2e_meta,
    out RECIRCM recirculate_meta,
    inout H hdr,
    in M meta,
    in psa_egress_output_metadata_t istd,
    in psa_egress_deparser_input_metadata_t edstd);

package IngressPipeline<IH, IM, NM, CI2EM, RESUBM, RECIRCM>(
    IngressParser<IH, IM, RESUBM, RECIRCM> ip,
    Ingress<IH, IM> ig,
    IngressDeparser<IH, IM, CI2EM, RESUBM, NM> id);

package EgressPipeline<EH, EM, NM, CI2EM, CE2EM, RECIRCM>(
    EgressParser<EH, EM, NM, CI2EM, CE2EM> ep,
    Egress<EH, EM> eg,
    EgressDeparser<EH, EM, CE2EM, RECIRCM> ed);

package PSA_Switch<IH, IM, EH, EM, NM, CI2EM, CE2EM, RESUBM, RECIRCM>(
    IngressPipeline<IH, IM, NM, CI2EM, RESUBM, RECIRCM> ingress,
    PacketReplicationEngine pre,
    EgressPipeline<EH, EM, NM, CI2EM, CE2EM, RECIRCM> egress,
    BufferingQueueingEngine bqe);

#endif
