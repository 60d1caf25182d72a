/* A sub-parser applied from the main parser; a sub-control with a constructor argument and its own table, instantiated twice. */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  a;
    bit<8>  b;
    bit<16> c;
    bit<32> d;
}

header tail_t {
    bit<8> t;
}

parser TailParser(packet_in pkt, out tail_t tail) {
    state start {
        pkt.extract(tail);
        transition accept;
    }
}

control Adder(inout bit<8> x)(bit<8> amount) {
    action set_x(bit<8> v) {
        x = v;
    }

    table t {
        key = { x : exact; }
        actions = { set_x; NoAction; }
        default_action = NoAction();
    }

    apply {
        x = x + amount;
        t.apply();
    }
}

struct headers_t {
    h_t h;
    tail_t tail;
}

struct metadata_t {

}

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t sm) {
    TailParser() tail_parser;

    state start {
        pkt.extract(hdr.h);
        tail_parser.apply(pkt, hdr.tail);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {

    }
}

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t sm) {
    Adder(8w1) add1;
    Adder(8w10) add10;

    apply {
        add1.apply(hdr.h.a);
        add10.apply(hdr.h.b);
        hdr.tail.t = hdr.tail.t + 1;
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
        pkt.emit(hdr.tail);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
