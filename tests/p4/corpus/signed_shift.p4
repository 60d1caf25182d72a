/* Shifts of int<8>: right shifts keep the sign, also by the full width or more; left shifts drop bits. */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> x;
    bit<8> n;
    bit<8> r0;
    bit<8> r1;
    bit<8> r2;
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
        int<8> s = (int<8>)hdr.h.x;
        hdr.h.r0 = (bit<8>)(s >> hdr.h.n);
        hdr.h.r1 = (bit<8>)(s << hdr.h.n);
        hdr.h.r2 = hdr.h.x >> hdr.h.n;
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
