/* Entry priorities as p4c gives them: @priority(N) (BMv2's order), priority = N with priority_delta, and largest_priority_wins = false. */
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
    action set_a(bit<8> v) { hdr.h.a = v; }
    action set_b(bit<8> v) { hdr.h.b = v; }
    action set_c(bit<16> v) { hdr.h.c = v; }
    // @priority after the action, as BMv2 reads it: the smaller wins; unannotated
    // entries count 1, 2, 3 by position
    table legacy {
        key = { hdr.h.c : ternary; }
        actions = { set_a; }
        const entries = {
            0x1111 &&& 0x000F : set_a(1) @priority(3);
            0x1181            : set_a(2);
            0x1181 &&& 0xF00F : set_a(3) @priority(1);
        }
        default_action = set_a(0);
    }
    // priority = N: later entries without one count down by priority_delta
    table ordered {
        key = { hdr.h.d : ternary; }
        actions = { set_b; }
        priority_delta = 10;
        entries = {
            priority = 100: 32w0 &&& 32w0xFFFFFF00 : set_b(1);
            32w0 &&& 32w0xFFFF0000 : set_b(2);
            priority = 95: 32w0 &&& 32w0xFF000000 : set_b(3);
        }
        default_action = set_b(0);
    }
    // largest_priority_wins = false: the smaller wins, counting up
    table smallest {
        key = { hdr.h.d : ternary; }
        actions = { set_c; }
        largest_priority_wins = false;
        entries = {
            priority = 20: 32w0 &&& 32w0xFFFFFF00 : set_c(1);
            32w0 &&& 32w0xFFFF0000 : set_c(2);
            priority = 25: 32w0 &&& 32w0xFF000000 : set_c(3);
        }
        default_action = set_c(0);
    }
    apply {
        legacy.apply();
        ordered.apply();
        smallest.apply();
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
