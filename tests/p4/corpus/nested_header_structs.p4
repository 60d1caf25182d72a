/* A struct of headers nested in the headers struct: extract, modify and emit through two levels. */
#include <core.p4>
#include <v1model.p4>

header a_t {
    bit<8> x;
}

header b_t {
    bit<16> y;
}

struct inner_t {
    a_t a;
    b_t b;
}

struct headers_t {
    inner_t outer;
    a_t last;
}

struct metadata_t {

}

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.outer.a);
        pkt.extract(hdr.outer.b);
        pkt.extract(hdr.last);
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
        hdr.outer.b.y = hdr.outer.b.y + (bit<16>)hdr.outer.a.x;
        hdr.last.x = hdr.outer.a.x + 1;
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
        pkt.emit(hdr.outer);
        pkt.emit(hdr.last);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
