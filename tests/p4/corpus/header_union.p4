/* header_union chosen by a lookahead; isValid of members and of the union. */
#include <core.p4>
#include <v1model.p4>

header v4_t {
    bit<8>  kind;
    bit<16> a;
}

header v6_t {
    bit<8>  kind;
    bit<32> b;
}

header_union u_t {
    v4_t v4;
    v6_t v6;
}

header mark_t {
    bit<8> m;
}

struct headers_t {
    mark_t mark;
    u_t u;
}

struct metadata_t {

}

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t sm) {
    state start {
        transition select(pkt.lookahead<bit<8>>()) {
            8w4: parse_v4;
            8w6: parse_v6;
            default: accept;
        }
    }

    state parse_v4 {
        pkt.extract(hdr.u.v4);
        transition accept;
    }

    state parse_v6 {
        pkt.extract(hdr.u.v6);
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
        hdr.mark.setValid();
        hdr.mark.m = 0;
        if (hdr.u.v4.isValid()) {
            hdr.u.v4.a = hdr.u.v4.a + 1;
            hdr.mark.m = 4;
        } else if (hdr.u.v6.isValid()) {
            hdr.u.v6.b = ~hdr.u.v6.b;
            hdr.mark.m = 6;
        }
        if (!hdr.u.isValid()) {
            hdr.mark.m = 0xFF;
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
        pkt.emit(hdr.u);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
