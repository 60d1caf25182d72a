/* The v1model architecture (BMv2 simple_switch) for P4_16 programs: its metadata,
 * externs and the V1Switch package. Signatures follow the architecture's documented
 * interface so programs written for BMv2 compile unchanged. Define V1MODEL_VERSION to
 * 20200408 or later before including this file for the generic counter/meter/register
 * index types. */
#ifndef _V1_MODEL_P4_
#define _V1_MODEL_P4_

#include "core.p4"

#ifndef V1MODEL_VERSION
#define V1MODEL_VERSION 20180101
#endif

match_kind {
    range,
    optional,
    selector
}

const bit<32> __v1model_version = V1MODEL_VERSION;

typedef bit<9> PortId_t;

@metadata @name("standard_metadata")
struct standard_metadata_t {
    PortId_t ingress_port;
    PortId_t egress_spec;
    PortId_t egress_port;
    bit<32>  instance_type;
    bit<32>  packet_length;
    @alias("queueing_metadata.enq_timestamp") bit<32> enq_timestamp;
    @alias("queueing_metadata.enq_qdepth") bit<19> enq_qdepth;
    @alias("queueing_metadata.deq_timedelta") bit<32> deq_timedelta;
    @alias("queueing_metadata.deq_qdepth") bit<19> deq_qdepth;
    @alias("intrinsic_metadata.ingress_global_timestamp") bit<48> ingress_global_timestamp;
    @alias("intrinsic_metadata.egress_global_timestamp") bit<48> egress_global_timestamp;
    @alias("intrinsic_metadata.mcast_grp") bit<16> mcast_grp;
    @alias("intrinsic_metadata.egress_rid") bit<16> egress_rid;
    /// 1 when a verify_checksum call found a wrong checksum.
    bit<1>   checksum_error;
    /// The error the parser ended with.
    error    parser_error;
    @alias("intrinsic_metadata.priority") bit<3> priority;
}

enum CounterType {
    packets,
    bytes,
    packets_and_bytes
}

enum MeterType {
    packets,
    bytes
}

#if V1MODEL_VERSION >= 20200408
extern counter<I> {
    counter(bit<32> size, CounterType type);
    void count(in I index);
}
#else
extern counter {
    /// An array of `size` counters.
    counter(bit<32> size, CounterType type);
    /// Count the current packet in element `index` (no effect when index >= size).
    void count(in bit<32> index);
}
#endif

extern direct_counter {
    /// A counter per entry of the table whose `counters` property names this instance.
    direct_counter(CounterType type);
    void count();
}

#define V1MODEL_METER_COLOR_GREEN  0
#define V1MODEL_METER_COLOR_YELLOW 1
#define V1MODEL_METER_COLOR_RED    2

#if V1MODEL_VERSION >= 20200408
extern meter<I> {
    meter(bit<32> size, MeterType type);
    void execute_meter<T>(in I index, out T result);
}
#else
extern meter {
    /// An array of `size` two-rate three-color meters.
    meter(bit<32> size, MeterType type);
    /// Meter the packet with element `index`; result: 0 green, 1 yellow, 2 red.
    void execute_meter<T>(in bit<32> index, out T result);
}
#endif

extern direct_meter<T> {
    /// A meter per entry of the table whose `meters` property names this instance.
    direct_meter(MeterType type);
    /// The color of the matched entry's meter: 0 green, 1 yellow, 2 red.
    void read(out T result);
}

#if V1MODEL_VERSION >= 20200408
extern register<T, I> {
    register(bit<32> size);
    @noSideEffects
    void read(out T result, in I index);
    void write(in I index, in T value);
}
#else
extern register<T> {
    /// An array of `size` values of type T, kept across packets.
    register(bit<32> size);
    @noSideEffects
    void read(out T result, in bit<32> index);
    void write(in bit<32> index, in T value);
}
#endif

/// Table implementation: entries share a pool of `size` action members.
extern action_profile {
    action_profile(bit<32> size);
}

/// A uniformly distributed random number in [lo, hi].
extern void random<T>(out T result, in T lo, in T hi);

/// Send `data` to the control plane (receiver 1 is the usual choice).
extern void digest<T>(in bit<32> receiver, in T data);

enum HashAlgorithm {
    crc32,
    crc32_custom,
    crc16,
    crc16_custom,
    random,
    identity,
    csum16,
    xor16
}

@deprecated("Please use mark_to_drop(standard_metadata) instead.")
extern void mark_to_drop();

/// Drop the packet at the end of this pipeline: egress_spec := drop port, mcast_grp := 0.
@pure
extern void mark_to_drop(inout standard_metadata_t standard_metadata);

/// result := base + (hash(data) % max) when max >= 1, else base.
@pure
extern void hash<O, T, D, M>(out O result, in HashAlgorithm algo, in T base, in D data, in M max);

/// Table implementation: an action profile whose member is chosen by a hash of the
/// `selector` keys.
extern action_selector {
    action_selector(HashAlgorithm algorithm, bit<32> size, bit<32> outputWidth);
}

enum CloneType {
    I2E,
    E2E
}

@deprecated("Please use verify_checksum/update_checksum instead.")
extern Checksum16 {
    Checksum16();
    bit<16> get<D>(in D data);
}

/// When condition holds and the checksum of data differs from checksum, set
/// standard_metadata.checksum_error.
extern void verify_checksum<T, O>(in bool condition, in T data, in O checksum, HashAlgorithm algo);

/// When condition holds, checksum := checksum of data.
@pure
extern void update_checksum<T, O>(in bool condition, in T data, inout O checksum, HashAlgorithm algo);

/// As verify_checksum, with the unparsed payload appended to data.
extern void verify_checksum_with_payload<T, O>(in bool condition, in T data, in O checksum, HashAlgorithm algo);

/// As update_checksum, with the unparsed payload appended to data.
@noSideEffects
extern void update_checksum_with_payload<T, O>(in bool condition, in T data, inout O checksum, HashAlgorithm algo);

/// Send the packet back to the start of ingress after ingress ends.
extern void resubmit<T>(in T data);
/// Same, preserving the user metadata fields annotated @field_list(index).
extern void resubmit_preserving_field_list(bit<8> index);

/// Send the packet back to the start of ingress after the deparser.
extern void recirculate<T>(in T data);
/// Same, preserving the user metadata fields annotated @field_list(index).
extern void recirculate_preserving_field_list(bit<8> index);

/// Clone the packet to the egress of the ports of clone session `session`.
extern void clone(in CloneType type, in bit<32> session);
extern void clone3<T>(in CloneType type, in bit<32> session, in T data);
/// Same, preserving the user metadata fields annotated @field_list(index).
extern void clone_preserving_field_list(in CloneType type, in bit<32> session, bit<8> index);

/// Keep only the first `length` bytes of the packet when it is sent.
extern void truncate(in bit<32> length);

/// Stop (in a debugging target) when check is false.
extern void assert(in bool check);
/// Assumed true by verification tools; checked like assert by BMv2.
extern void assume(in bool check);

/// Log a message; "{}" in msg is replaced by the elements of data.
extern void log_msg(string msg);
extern void log_msg<T>(string msg, in T data);

parser Parser<H, M>(packet_in b,
                    out H parsedHdr,
                    inout M meta,
                    inout standard_metadata_t standard_metadata);

control VerifyChecksum<H, M>(inout H hdr,
                             inout M meta);

@pipeline
control Ingress<H, M>(inout H hdr,
                      inout M meta,
                      inout standard_metadata_t standard_metadata);

@pipeline
control Egress<H, M>(inout H hdr,
                     inout M meta,
                     inout standard_metadata_t standard_metadata);

control ComputeChecksum<H, M>(inout H hdr,
                              inout M meta);

@deparser
control Deparser<H>(packet_out b, in H hdr);

package V1Switch<H, M>(Parser<H, M> p,
                       VerifyChecksum<H, M> vr,
                       Ingress<H, M> ig,
                       Egress<H, M> eg,
                       ComputeChecksum<H, M> ck,
                       Deparser<H> dep);

#endif
