/* varbit<W> field extracted with a run-time length, re-emitted unchanged. */
#include <core.p4>
#include <v1model.p4>

header len_t {
    bit<8> len;
}

header opt_t {
    varbit<32> data;
}

header h_t {
    bit<8> a;
    bit<8> b;
}

struct headers_t {
    len_t l;
    opt_t opt;
    h_t h;
}

struct metadata_t {

}

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.l);
        pkt.extract(hdr.opt, (bit<32>)hdr.l.len * 8);
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
        hdr.h.b = hdr.h.a + hdr.l.len;
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
        pkt.emit(hdr.l);
        pkt.emit(hdr.opt);
        pkt.emit(hdr.h);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
