/* A varbit field between fixed fields at a bit offset that is not a byte boundary:
   extracted with a run-time size (a size over the maximum is HeaderTooShort), compared
   with another header's, copied with its header, hashed with the fields around it and
   emitted at its extracted width. */
#include <core.p4>
#include <v1model.p4>

header pre_t {
    bit<4> len;       // bytes of each option's data
    bit<4> tag;
}

header opt_t {
    bit<4>     kind;
    varbit<64> data;
    bit<4>     after;
}

header out_t {
    bit<8>  same;
    bit<16> sum;
    bit<8>  err;
}

struct headers_t {
    pre_t pre;
    opt_t a;
    opt_t b;
    out_t res;
}

struct metadata_t {
}

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.pre);
        pkt.extract(hdr.a, (bit<32>)hdr.pre.len * 8);
        pkt.extract(hdr.b, (bit<32>)hdr.pre.len * 8);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t sm) {
    apply {
        hdr.res.setValid();
        if (sm.parser_error == error.HeaderTooShort) {
            hdr.res.err = 1;
        } else if (sm.parser_error == error.PacketTooShort) {
            hdr.res.err = 2;
        }
        opt_t copy = hdr.a;
        hdr.res.same = hdr.a.data == hdr.b.data ? 8w1 : 8w0;
        if (copy.data != hdr.b.data) {
            hdr.res.same = hdr.res.same | 8w2;
        }
        hash(hdr.res.sum, HashAlgorithm.csum16, 16w0,
             { copy.kind, copy.data, copy.after }, 32w65536);
        if (hdr.pre.tag == 1) {
            hdr.b.data = hdr.a.data;
        }
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t sm) { apply { } }

control MyCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
