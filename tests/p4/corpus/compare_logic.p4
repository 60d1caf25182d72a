/* Comparisons, && || ! and nested ?: producing flag bytes. */
#include <core.p4>
#include <v1model.p4>

header in_t {
    bit<8> x;
    bit<8> y;
}

header out_t {
    bit<8> lt;
    bit<8> le;
    bit<8> gt;
    bit<8> ge;
    bit<8> eq;
    bit<8> ne;
    bit<8> land;
    bit<8> lor;
    bit<8> lnot;
    bit<8> nested;
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
        hdr.o.lt = hdr.i.x < hdr.i.y ? 8w1 : 8w0;
        hdr.o.le = hdr.i.x <= hdr.i.y ? 8w1 : 8w0;
        hdr.o.gt = hdr.i.x > hdr.i.y ? 8w1 : 8w0;
        hdr.o.ge = hdr.i.x >= hdr.i.y ? 8w1 : 8w0;
        hdr.o.eq = hdr.i.x == hdr.i.y ? 8w1 : 8w0;
        hdr.o.ne = hdr.i.x != hdr.i.y ? 8w1 : 8w0;
        hdr.o.land = (hdr.i.x > 8w10 && hdr.i.y > 8w10) ? 8w1 : 8w0;
        hdr.o.lor = (hdr.i.x > 8w10 || hdr.i.y > 8w10) ? 8w1 : 8w0;
        hdr.o.lnot = !(hdr.i.x == 8w5) ? 8w1 : 8w0;
        hdr.o.nested = hdr.i.x > hdr.i.y ? (hdr.i.x > 8w100 ? 8w1 : 8w2) : 8w3;
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
