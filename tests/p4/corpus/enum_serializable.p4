/* Serializable enum as a header field: select on members, comparison, cast to bit, unknown values kept. */
#include <core.p4>
#include <v1model.p4>

enum bit<8> Kind_t {
    A = 1,
    B = 2,
    C = 7
}

header h_t {
    Kind_t k;
    bit<8> v;
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
        transition select(hdr.h.k) {
            Kind_t.A: accept;
            Kind_t.B: accept;
            default: accept;
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
        if (hdr.h.k == Kind_t.A) {
            hdr.h.v = 8w0x10;
        } else if (hdr.h.k == Kind_t.B) {
            hdr.h.k = Kind_t.C;
            hdr.h.v = 8w0x20;
        } else {
            hdr.h.v = (bit<8>)hdr.h.k;
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
