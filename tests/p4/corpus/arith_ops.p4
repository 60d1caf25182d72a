/* Arithmetic operators on bit<16>: + - * / % unary minus << >> wrap modulo 2^16. */
#include <core.p4>
#include <v1model.p4>

header in_t {
    bit<16> x;
    bit<16> y;
}

header out_t {
    bit<16> r0;
    bit<16> r1;
    bit<16> r2;
    bit<16> r3;
    bit<16> r4;
    bit<16> r5;
    bit<16> r6;
    bit<16> r7;
}

struct headers_t {
    in_t i;
    out_t o;
}

struct metadata_t {

}

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.i);
        pkt.extract(hdr.o);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {

    }
}

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t sm) {
    apply {
        hdr.o.r0 = hdr.i.x + hdr.i.y;
        hdr.o.r1 = hdr.i.y - hdr.i.x;
        hdr.o.r2 = hdr.i.x * hdr.i.y;
        hdr.o.r3 = hdr.i.x / 16w7;
        hdr.o.r4 = hdr.i.x % 16w7;
        hdr.o.r5 = -hdr.i.x;
        hdr.o.r6 = hdr.i.x << 3;
        hdr.o.r7 = hdr.i.y >> 2;
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
        pkt.emit(hdr.i);
        pkt.emit(hdr.o);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
