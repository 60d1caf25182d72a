/* Arithmetic, shifts and comparison on bit<128> and bit<64> values. */
#include <core.p4>
#include <v1model.p4>

header w_t {
    bit<128> x;
    bit<128> y;
    bit<64>  m;
    bit<8>   flag;
}

struct headers_t {
    w_t w;
}

struct metadata_t {

}

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.w);
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
        hdr.w.x = hdr.w.x + hdr.w.y;
        hdr.w.y = (hdr.w.x ^ hdr.w.y) >> 65;
        hdr.w.m = hdr.w.m * hdr.w.m;
        hdr.w.flag = hdr.w.x > hdr.w.y ? 8w1 : 8w0;
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
        pkt.emit(hdr.w);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
