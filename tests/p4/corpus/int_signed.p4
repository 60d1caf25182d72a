/* int<W>: arithmetic shift right, wrap-around add/mul, signed comparison, sign extension by cast. */
#include <core.p4>
#include <v1model.p4>

header in_t {
    bit<8> x;
}

header out_t {
    bit<8>  shr;
    bit<8>  add;
    bit<8>  neg_flag;
    bit<16> ext;
    bit<8>  negate;
    bit<8>  mul;
    bit<8>  slt;
}

struct headers_t {
    in_t i;
    out_t o;
}

struct metadata_t {

}

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.i);
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
        int<8> sx = (int<8>)hdr.i.x;
        hdr.o.shr = (bit<8>)(sx >> 2);
        hdr.o.add = (bit<8>)(sx + 8s20);
        hdr.o.neg_flag = sx < 8s0 ? 8w1 : 8w0;
        hdr.o.ext = (bit<16>)(int<16>)sx;
        hdr.o.negate = (bit<8>)(-sx);
        hdr.o.mul = (bit<8>)(sx * 8s3);
        hdr.o.slt = sx < 8s10 ? 8w1 : 8w0;
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
        pkt.emit(hdr.i);
        pkt.emit(hdr.o);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
