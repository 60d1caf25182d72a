/* A stack of header unions filled by extracting into hus.next.MEMBER: each extract
 * fills the next union and moves nextIndex on. */
#include <core.p4>
#include <v1model.p4>

header a_t {
    bit<8> kind;
    bit<8> v;
}

header b_t {
    bit<8>  kind;
    bit<16> w;
}

header_union u_t {
    a_t a;
    b_t b;
}

struct headers_t {
    u_t[2] hus;
}

struct metadata_t {
}

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t sm) {
    state start {
        transition select(pkt.lookahead<bit<8>>()) {
            1: first_a;
            default: first_b;
        }
    }
    state first_a {
        pkt.extract(hdr.hus.next.a);
        transition second;
    }
    state first_b {
        pkt.extract(hdr.hus.next.b);
        transition second;
    }
    state second {
        transition select(pkt.lookahead<bit<8>>()) {
            1: second_a;
            default: second_b;
        }
    }
    state second_a {
        pkt.extract(hdr.hus.next.a);
        transition accept;
    }
    state second_b {
        pkt.extract(hdr.hus.next.b);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t sm) {
    apply {
        if (hdr.hus[0].a.isValid()) {
            hdr.hus[0].a.v = hdr.hus[0].a.v + 1;
        } else {
            hdr.hus[0].b.w = hdr.hus[0].b.w + 1;
        }
        if (hdr.hus[1].b.isValid()) {
            hdr.hus[1].b.setInvalid();
        }
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t sm) {
    apply { }
}

control MyComputeChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.hus);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
