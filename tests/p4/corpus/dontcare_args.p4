/* DontCare (_) as an out argument of functions and actions, beside out arguments that are stack elements at run-time indexes and slices. */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  a;
    bit<8>  b;
    bit<16> c;
    bit<32> d;
}

header e_t { bit<8> v; }
void put(out bit<8> o, in bit<8> v) { o = v; }
bit<8> twice(out bit<8> x) { x = 4; return x + x; }
struct headers_t {
    h_t h;
    e_t[2] s;
    e_t x;
}

struct metadata_t {

}

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        pkt.extract(hdr.s.next);
        pkt.extract(hdr.s.next);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {

    }
}

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t sm) {
    action bump(out bit<8> o, bit<1> j) {
        o = hdr.s[j].v + 1;
        hdr.s[j].v = hdr.s[j].v + 0x10;
    }
    apply {
        put(_, 3);
        hdr.h.a = twice(_);
        bit<1> i = hdr.h.b[0:0];
        put(hdr.s[i].v, 9);
        hdr.h.b = twice(hdr.s[i ^ 1].v);
        bump(_, i);
        bump(hdr.h.c[7:0], i);
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
        pkt.emit(hdr.s);
        pkt.emit(hdr.x);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
