/* Headers assigned through struct members and stack elements at run-time indexes; an invalid header assigned makes its target invalid. */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  a;
    bit<8>  b;
    bit<16> c;
    bit<32> d;
}

header e_t { bit<8> v; }
struct pair_t { e_t one; e_t two; }
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
    apply {
        bit<1> i = hdr.h.b[0:0];
        pair_t p;
        p.one = hdr.s[i];
        p.two = p.one;
        p.two.v = p.two.v + 1;
        hdr.s[i ^ 1] = p.two;
        hdr.x = hdr.s[0];
        hdr.s[1] = p.one;
        hdr.s[1].setInvalid();
        p.one = hdr.s[1];
        hdr.s[0] = p.one;
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
