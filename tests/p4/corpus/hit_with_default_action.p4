/* On a miss the default action runs but .hit is false, and action_run names the default action. */
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

    action fallback() {
        hdr.h.b = 8w0xFB;
    }

    table t {
        key = { hdr.h.a : exact; }
        actions = { set_b; fallback; }
        default_action = fallback();
    }

    action set_d(bit<32> v) {
        hdr.h.d = v;
    }

    action fallback_d() {
        hdr.h.d = 32w0xFB;
    }

    table u {
        key = { hdr.h.a : exact; }
        actions = { set_d; fallback_d; }
        default_action = fallback_d();
    }

    apply {
        if (t.apply().hit) {
            hdr.h.c = 1;
        } else {
            hdr.h.c = 2;
        }
        switch (u.apply().action_run) {
            fallback_d: { hdr.h.c = hdr.h.c + 0x100; }
            set_d: { hdr.h.c = hdr.h.c + 0x200; }
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
