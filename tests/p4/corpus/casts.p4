/* Casts: widening and narrowing bit<W>, bit<1> to bool and back, sign extension through int<W>. */
#include <core.p4>
#include <v1model.p4>

header in_t {
    bit<8>  a;
    bit<32> d;
}

header out_t {
    bit<16> widened;
    bit<8>  narrowed;
    bit<4>  nibble;
    bit<3>  pad;
    bool    flag;
    bit<32> sext;
    bit<16> pos;
    bit<8>  from_bool;
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
        hdr.o.widened = (bit<16>)hdr.i.a;
        hdr.o.narrowed = (bit<8>)hdr.i.d;
        hdr.o.nibble = (bit<4>)hdr.i.a;
        hdr.o.pad = 0;
        hdr.o.flag = (bool)hdr.i.a[0:0];
        hdr.o.sext = (bit<32>)(int<32>)(int<8>)hdr.i.a;
        hdr.o.pos = (bit<16>)(int<16>)(int<8>)8w0x7F;
        hdr.o.from_bool = (bit<8>)(bit<1>)(hdr.i.a > 8w0x80);
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
