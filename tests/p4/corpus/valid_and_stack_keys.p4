/* Table keys on isValid() and on a header stack element, named in STF as X.$valid$ / X.valid and stack$0.field. */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
}

header tag_t {
    bit<8> val;
}

header extra_t {
    bit<8> x;
}

struct headers_t {
    h_t h;
    tag_t[2] tags;
    extra_t e;
}

struct metadata_t {

}

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        pkt.extract(hdr.tags.next);
        transition select(hdr.h.a) {
            8w1: parse_extra;
            default: accept;
        }
    }

    state parse_extra {
        pkt.extract(hdr.e);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {

    }
}

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t sm) {
    action set_b(bit<8> v) {
        hdr.h.b = v;
    }

    table t {
        key = {
            hdr.e.isValid() : exact;
            hdr.tags[0].val : exact;
        }
        actions = { set_b; NoAction; }
        default_action = NoAction();
    }

    apply {
        t.apply();
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
        pkt.emit(hdr.tags);
        pkt.emit(hdr.e);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
