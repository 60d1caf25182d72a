/* Serializable enum members in const entries: keys of the enum type (matched by members or by values of the underlying type, masked) and bit<W> keys matched by members. */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  a;
    bit<8>  b;
    bit<16> c;
    bit<32> d;
}

enum bit<8> Kind { ONE = 1, TWO = 2, TEN = 10 }

struct headers_t {
    h_t h;
}

struct metadata_t {
    Kind k;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {

    }
}

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t sm) {
    action set_b(bit<8> v) { hdr.h.b = v; }
    action set_c(bit<16> v) { hdr.h.c = v; }
    table by_enum {
        key = { meta.k : exact; }
        actions = { set_b; }
        const entries = {
            Kind.ONE : set_b(0x11);
            Kind.TWO : set_b(0x22);
        }
        default_action = set_b(0);
    }
    action set_d(bit<32> v) { hdr.h.d = v; }
    table by_underlying {
        key = { meta.k : ternary; }
        actions = { set_d; }
        const entries = {
            Kind.ONE : set_d(1);
            8w0x08 &&& 8w0x08 : set_d(2);
            (bit<8>)Kind.TWO &&& 0xFF : set_d(3);
        }
        default_action = set_d(0);
    }
    table by_bits {
        key = { hdr.h.a : ternary; }
        actions = { set_c; }
        const entries = {
            Kind.TEN : set_c(0x1010);
            (bit<8>)Kind.TWO : set_c(0x2020);
        }
        default_action = set_c(0);
    }
    apply {
        meta.k = (Kind)hdr.h.a;
        by_enum.apply();
        by_bits.apply();
        by_underlying.apply();
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t sm) {
    apply { }
}

control MyComputeChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {

    }
}

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.h);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
