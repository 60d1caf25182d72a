/* bool locals and header fields, ! on bool, error-typed locals compared with error constants. */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bool    f;
    bit<7>  pad;
    bit<8>  b;
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
        bool big = hdr.h.b > 8w5;
        error e = sm.parser_error;
        hdr.h.f = !hdr.h.f;
        if (e == error.NoError && big) {
            hdr.h.pad = 7w0x55;
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
