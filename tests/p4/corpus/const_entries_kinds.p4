/* const entries on lpm (mask form, longest prefix wins) and range keys (earlier entry wins). */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  a;
    bit<8>  b;
    bit<16> c;
    bit<32> d;
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
    action set_b(bit<8> v) {
        hdr.h.b = v;
    }

    action set_d(bit<32> v) {
        hdr.h.d = v;
    }

    table routes {
        key = {
            hdr.h.a : exact;
            hdr.h.d : lpm;
        }
        actions = { set_b; }
        const entries = {
            (8w1, 32w0x0A000000 &&& 32w0xFF000000) : set_b(8w8);
            (8w1, 32w0x0A010000 &&& 32w0xFFFF0000) : set_b(8w16);
            (8w2, _) : set_b(8w0x20);
        }
        default_action = set_b(8w0);
    }

    table ranges {
        key = { hdr.h.c : range; }
        actions = { set_d; NoAction; }
        const entries = {
            16w1 .. 16w10 : set_d(32w1);
            16w5 .. 16w20 : set_d(32w2);
        }
        default_action = NoAction();
    }

    apply {
        routes.apply();
        ranges.apply();
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
