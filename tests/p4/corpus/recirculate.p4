/* recirculate_preserving_field_list in egress: the deparsed packet re-enters the parser with instance_type 4; the first pass leaves nothing. */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  a;
    bit<8>  b;
    bit<16> c;
    bit<32> d;
}

struct headers_t {
    h_t h;
}

struct metadata_t {
    @field_list(1)
    bit<8> n;
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
        if (sm.instance_type == 4) {
            hdr.h.b = meta.n;
            sm.egress_spec = 2;
        } else {
            sm.egress_spec = 0;
        }
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t sm) {
    apply {
        if (sm.instance_type == 0) {
            meta.n = 7;
            hdr.h.a = 8w0x33;
            recirculate_preserving_field_list(1);
        }
    }
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
