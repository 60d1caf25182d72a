/* A control's constructor parameter passed on as the constructor argument of the
   controls it instantiates (two levels down), beside a constant, a local initialised
   from it, an enum local and a top-level action. */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
    bit<8> c;
}

struct headers_t {
    h_t h;
}

struct metadata_t {
}

const bit<8> K = 3;

enum Mode { PLAIN, BUMP }

action set_marker(inout bit<8> v) {
    v = 0x42;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control Leaf(inout bit<8> x)(bit<8> add) {
    bit<8> local = add;
    action bump() {
        x = x + local + K;
    }
    table t {
        key = { x : exact; }
        actions = { bump; NoAction; }
        default_action = bump();
    }
    apply {
        t.apply();
    }
}

control Middle(inout headers_t hdr)(bit<8> n) {
    Leaf(n) from_param;
    Leaf(1) from_literal;
    apply {
        Mode mode = Mode.BUMP;
        from_param.apply(hdr.h.a);
        if (mode == Mode.BUMP) {
            from_literal.apply(hdr.h.b);
        }
        set_marker(hdr.h.c);
    }
}

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t sm) {
    Middle(10) middle;
    apply {
        middle.apply(hdr);
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t sm) { apply { } }

control MyCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.h);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
