/* Functions with type parameters, specialized per distinct type argument: inferred from
   the arguments, given explicitly, and inferred from the use of the result. */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  a;
    bit<16> b;
    bit<8>  c;
}

struct headers_t {
    h_t h;
}

struct metadata_t {
}

T pick<T>(in bool cond, in T x, in T y) {
    T r = y;
    if (cond) {
        r = x;
    }
    return r;
}

void swap<T>(inout T x, inout T y) {
    T t = x;
    x = y;
    y = t;
}

T ones<T>() {
    return ~(T)0;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t sm) {
    apply {
        hdr.h.a = pick(hdr.h.a > 1, hdr.h.a, 8w7);
        hdr.h.b = pick<bit<16>>(false, 1, hdr.h.b + 1);
        bit<8> port = 9;
        swap(hdr.h.a, port);
        bit<8> all = ones();
        hdr.h.c = hdr.h.c ^ all;
        sm.egress_spec = (bit<9>)port;
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
