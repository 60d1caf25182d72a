/* hash() with crc16, crc32, csum16, identity and xor16 over the same three fields, with a base and a modulus. */
#include <core.p4>
#include <v1model.p4>

header in_t {
    bit<16> x;
    bit<16> y;
    bit<32> z;
}

header out_t {
    bit<16> crc16;
    bit<32> crc32;
    bit<16> csum16;
    bit<32> identity;
    bit<16> xor16;
    bit<16> bounded;
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
        hash(hdr.o.crc16, HashAlgorithm.crc16, 16w0, { hdr.i.x, hdr.i.y, hdr.i.z }, 32w65536);
        hash(hdr.o.crc32, HashAlgorithm.crc32, 32w0, { hdr.i.x, hdr.i.y, hdr.i.z }, 64w0x100000000);
        hash(hdr.o.csum16, HashAlgorithm.csum16, 16w0, { hdr.i.x, hdr.i.y, hdr.i.z }, 32w65536);
        hash(hdr.o.identity, HashAlgorithm.identity, 32w0, { hdr.i.z }, 64w0x100000000);
        hash(hdr.o.xor16, HashAlgorithm.xor16, 16w0, { hdr.i.x, hdr.i.y, hdr.i.z }, 32w65536);
        hash(hdr.o.bounded, HashAlgorithm.crc16, 16w100, { hdr.i.x, hdr.i.y, hdr.i.z }, 32w10);
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
