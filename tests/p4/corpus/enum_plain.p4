/* Plain (non-serializable) enum local, assignment, equality and switch on it. */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  a;
    bit<8>  b;
    bit<16> c;
    bit<32> d;
}

enum Color_t {
    Red,
    Green,
    Blue
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
        Color_t col = Color_t.Red;
        if (hdr.h.a == 1) {
            col = Color_t.Green;
        } else if (hdr.h.a == 2) {
            col = Color_t.Blue;
        }
        switch (col) {
            Color_t.Red: { hdr.h.b = 1; }
            Color_t.Green: { hdr.h.b = 2; }
            default: { hdr.h.b = 3; }
        }
        if (col == Color_t.Blue) {
            hdr.h.c = 0xB;
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
