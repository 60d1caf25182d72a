/* A header whose field is a struct of bit vectors: extracted, written, emitted and matched on. */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  a;
    bit<8>  b;
    bit<16> c;
    bit<32> d;
}

struct pair_t { bit<8> x; bit<16> y; }
header w_t { pair_t p; bit<8> z; }

struct headers_t {
    h_t h;
    w_t w;
}

struct metadata_t {

}

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
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
    action set_a(bit<8> v) { hdr.h.a = v; }
    table pick {
        key = { hdr.w.p.y : exact; }
        actions = { set_a; }
        const entries = { 0x1234 : set_a(0x77); }
        default_action = set_a(0);
    }
    apply {
        hdr.w.p.x = hdr.w.p.x + 1;
        hdr.w.z = hdr.w.p.y[7:0];
        pick.apply();
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
        pkt.emit(hdr.w);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
