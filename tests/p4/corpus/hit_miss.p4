/* t.apply().hit and .miss in conditions. */
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
    table t {
        key = { hdr.h.a : exact; }
        actions = { NoAction; }
        default_action = NoAction();
    }

    table u {
        key = { hdr.h.b : exact; }
        actions = { NoAction; }
        default_action = NoAction();
    }

    apply {
        if (t.apply().hit) {
            hdr.h.c = 1;
        } else {
            hdr.h.c = 2;
        }
        if (u.apply().miss) {
            hdr.h.d = 3;
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
