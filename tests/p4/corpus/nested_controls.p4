/* A control instantiating another control that owns a table (name Outer.inner.t), and an action calling another action. */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  a;
    bit<8>  b;
    bit<16> c;
    bit<32> d;
}

control Inner(inout bit<8> v) {
    action set(bit<8> n) {
        v = n;
    }

    table t {
        key = { v : exact; }
        actions = { set; NoAction; }
        default_action = NoAction();
    }

    apply {
        t.apply();
    }
}

control Outer(inout bit<8> v) {
    Inner() inner;

    action bump() {
        v = v + 1;
    }

    action bump_twice() {
        bump();
        bump();
    }

    apply {
        bump_twice();
        inner.apply(v);
    }
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
    Outer() outer;

    apply {
        outer.apply(hdr.h.a);
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
