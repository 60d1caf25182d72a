/* == and != on headers, structs, header stacks and varbit fields: two invalid headers are
   equal whatever their fields, stacks compare element by element (not nextIndex), and
   varbit values are equal only at equal widths. */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
}

header v_t {
    bit<8>     len;
    varbit<16> data;
}

struct pair_t {
    h_t    first;
    bit<8> tag;
}

struct headers_t {
    h_t    x;
    h_t    y;
    v_t    v1;
    v_t    v2;
    h_t    res;
}

struct metadata_t {
}

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.x);
        pkt.extract(hdr.y);
        bit<8> n = pkt.lookahead<bit<8>>();
        pkt.extract(hdr.v1, (bit<32>)n * 8);
        n = pkt.lookahead<bit<8>>();
        pkt.extract(hdr.v2, (bit<32>)n * 8);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t sm) {
    apply {
        bit<8> r = 0;
        if (hdr.x == hdr.y) { r = r | 1; }
        h_t ix = hdr.x;
        h_t iy = hdr.y;
        ix.setInvalid();
        iy.setInvalid();
        if (ix == iy) { r = r | 2; }                      // both invalid: equal
        if (ix != hdr.x) { r = r | 4; }                   // validity differs
        h_t[2] s1;
        h_t[2] s2;
        s1[0] = hdr.x;
        s1[1] = hdr.y;
        s2.push_front(1);
        s2[0] = hdr.y;
        s2.push_front(1);
        s2[0] = hdr.x;                                     // same elements, other nextIndex
        if (s1 == s2) { r = r | 8; }
        pair_t p1 = { hdr.x, 7 };
        pair_t p2 = { hdr.y, 7 };
        if (p1 == p2) { r = r | 16; }
        if (hdr.v1.data == hdr.v2.data) { r = r | 32; }
        if (hdr.v1 == hdr.v2) { r = r | 64; }
        hdr.res.setValid();
        hdr.res.a = r;
        hdr.res.b = 0;
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t sm) { apply { } }

control MyCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
