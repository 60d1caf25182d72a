/* A parser loop driven by lookahead that counts and sums TLVs in metadata before the end marker. */
#include <core.p4>
#include <v1model.p4>

header tlv_t {
    bit<8> type;
    bit<8> len;
    bit<8> val;
}

header end_t {
    bit<8> count;
    bit<8> sum;
}

struct headers_t {
    tlv_t[3] tlvs;
    end_t end;
}

struct metadata_t {
    bit<8> count;
    bit<8> sum;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t sm) {
    state start {
        transition select(pkt.lookahead<bit<8>>()) {
            8w0: parse_end;
            default: parse_tlv;
        }
    }

    state parse_tlv {
        pkt.extract(hdr.tlvs.next);
        meta.count = meta.count + 1;
        meta.sum = meta.sum + hdr.tlvs.last.val;
        transition start;
    }

    state parse_end {
        pkt.extract(hdr.end);
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
        hdr.end.count = meta.count;
        hdr.end.sum = meta.sum;
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
        pkt.emit(hdr.tlvs);
        pkt.emit(hdr.end);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
