/* Actions with in/inout/out parameters called directly, and a table action binding a directional argument plus action data. */
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
    action combine(in bit<8> x, inout bit<16> y, out bit<8> z) {
        y = y + (bit<16>)x;
        z = x ^ 8w0xFF;
    }

    action add_data(inout bit<32> target, bit<32> amount) {
        target = target + amount;
    }

    table t {
        key = { hdr.h.a : exact; }
        actions = { add_data(hdr.h.d); NoAction; }
        default_action = NoAction();
    }

    apply {
        combine(hdr.h.a, hdr.h.c, hdr.h.b);
        t.apply();
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
