/* const entries with ternary/default keys: without priorities the earlier entry wins; explicit priority= overrides order. */
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

    table first_wins {
        key = {
            hdr.h.a : ternary;
            hdr.h.c : exact;
        }
        actions = { set_b; }
        const entries = {
            (8w0x10 &&& 8w0xF0, 16w1) : set_b(8w1);
            (8w0x12, 16w1) : set_b(8w2);
            (_, 16w1) : set_b(8w3);
        }
        default_action = set_b(8w0);
    }

    table by_priority {
        key = { hdr.h.a : ternary; }
        actions = { set_b; NoAction; }
        const entries = {
            priority = 10 : 8w0x20 &&& 8w0xF0 : set_b(8w0x20);
            priority = 50 : 8w0x22 : set_b(8w0x22);
        }
        default_action = NoAction();
    }

    apply {
        if (hdr.h.c == 1) {
            first_wins.apply();
        } else {
            by_priority.apply();
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
