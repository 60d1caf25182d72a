/* Nested structs in metadata, struct assignment, named-field initializers, header copy with validity. */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  a;
    bit<8>  b;
    bit<16> c;
}

struct pair_t {
    bit<8> x;
    bit<8> y;
}

struct both_t {
    pair_t first;
    pair_t second;
}

struct headers_t {
    h_t h;
    h_t h2;
}

struct metadata_t {
    both_t p;
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
        meta.p.first = { hdr.h.a, hdr.h.b };
        meta.p.second = meta.p.first;
        meta.p.second.x = meta.p.second.x + 1;
        pair_t named = { y = 8w0x20, x = 8w0x10 };
        hdr.h.c = meta.p.first.x ++ meta.p.second.x;
        hdr.h2 = hdr.h;
        hdr.h2.a = named.x;
        hdr.h2.b = named.y;
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
        pkt.emit(hdr.h2);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
