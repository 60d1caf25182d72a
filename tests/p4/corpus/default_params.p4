/* Parameters with default values: a function argument and a control's constructor
   argument left out (the default used), given positionally and by name. */
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

bit<8> add(in bit<8> x, in bit<8> y = 10) {
    return x + y;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control Bump(inout bit<8> v)(bit<8> step = 2, bit<8> times = 1) {
    apply {
        v = v + step * times;
    }
}

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t sm) {
    Bump() by_default;
    Bump(5) by_five;
    Bump(times = 3) three_times;
    apply {
        hdr.h.b = add(hdr.h.a);
        hdr.h.c = add(y = 1, x = hdr.h.c);
        by_default.apply(hdr.h.b);
        by_five.apply(hdr.h.a);
        three_times.apply(hdr.h.c);
        sm.egress_spec = 3;
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
