/* A header stack overflow in the parser: parser_error is StackOutOfBounds, the elements extracted so far stay valid, the rest stays payload. */
#include <core.p4>
#include <v1model.p4>

header tag_t {
    bit<7> val;
    bit<1> bos;
}

header mark_t {
    bit<8> m;
}

struct headers_t {
    mark_t mark;
    tag_t[2] tags;
}

struct metadata_t {

}

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.tags.next);
        transition select(hdr.tags.last.bos) {
            1w0: start;
            1w1: accept;
        }
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {

    }
}

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t sm) {
    apply {
        hdr.mark.setValid();
        hdr.mark.m = 0;
        if (sm.parser_error == error.StackOutOfBounds) {
            hdr.mark.m = 8w0xEB;
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
        pkt.emit(hdr.mark);
        pkt.emit(hdr.tags);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
