/* setValid adds a header (encapsulation), setInvalid removes one; deparser emits only valid headers. */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  a;
    bit<8>  b;
}

header tunnel_t {
    bit<16> id;
}

struct headers_t {
    h_t h;
    tunnel_t t;
}

struct metadata_t {

}

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition select(hdr.h.a) {
            8w0xEE: parse_tunnel;
            default: accept;
        }
    }

    state parse_tunnel {
        pkt.extract(hdr.t);
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
        if (hdr.t.isValid()) {
            hdr.t.setInvalid();
            hdr.h.a = 0;
        } else {
            hdr.t.setValid();
            hdr.t.id = 16w0xBEEF;
            hdr.h.a = 8w0xEE;
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
        pkt.emit(hdr.t);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
