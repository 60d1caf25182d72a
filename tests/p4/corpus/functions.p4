/* Functions with return values, early returns and an out parameter. */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  a;
    bit<8>  b;
    bit<16> c;
    bit<32> d;
}

bit<16> max16(in bit<16> x, in bit<16> y) {
    return x > y ? x : y;
}

bit<8> classify(in bit<8> v) {
    if (v < 10) {
        return 1;
    }
    if (v < 100) {
        return 2;
    }
    return 3;
}

bool split(in bit<32> v, out bit<16> hi) {
    hi = v[31:16];
    return v[15:0] == 0;
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
        hdr.h.c = max16(hdr.h.c, (bit<16>)hdr.h.a);
        hdr.h.b = classify(hdr.h.a);
        bit<16> hi;
        if (split(hdr.h.d, hi)) {
            hdr.h.d = (bit<32>)hi;
        }
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
