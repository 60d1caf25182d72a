/* Short-circuit evaluation with side effects: a function with an inout argument runs only when ||, && or ?: evaluates it. */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  a;
    bit<8>  b;
    bit<16> c;
    bit<32> d;
}

bool mark(inout bit<8> v, in bit<8> to) {
    v = to;
    return to != 0;
}

struct headers_t {
    h_t h;
}

struct metadata_t {

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
    apply {
        bool t;
        t = hdr.h.a == 0xAA || mark(hdr.h.a, 1);
        t = hdr.h.b == 0 && mark(hdr.h.b, 2);
        t = hdr.h.b != 0 && mark(hdr.h.c[7:0], 3);
        hdr.h.d = (hdr.h.a == 0 ? mark(hdr.h.d[31:24], 4) : mark(hdr.h.d[7:0], 5)) ? 24w0 ++ hdr.h.d[7:0] : 32w9;
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
