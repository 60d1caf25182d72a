/* Header stack: constant and run-time indexes, pop_front, emit of the whole stack. */
#include <core.p4>
#include <v1model.p4>

header tag_t {
    bit<7> val;
    bit<1> bos;
}

header out_t {
    bit<8> x;
    bit<8> y;
    bit<8> idx;
}

struct headers_t {
    tag_t[4] tags;
    out_t o;
}

struct metadata_t {
    bit<8> last_val;
    bit<32> last_index;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t sm) {
    state start {
        transition parse_tag;
    }

    state parse_tag {
        pkt.extract(hdr.tags.next);
        meta.last_val = (bit<8>)hdr.tags.last.val;
        meta.last_index = hdr.tags.lastIndex;
        transition select(hdr.tags.last.bos) {
            1w0: parse_tag;
            1w1: parse_out;
        }
    }

    state parse_out {
        pkt.extract(hdr.o);
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
        hdr.o.x = (bit<8>)hdr.tags[1].val;
        hdr.o.y = (bit<8>)hdr.tags[hdr.o.idx].val;
        hdr.tags.pop_front(1);
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
        pkt.emit(hdr.tags);
        pkt.emit(hdr.o);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
