/* Values of 65 to 128 bits: constants over 64 bits, slices and slice assignments across
   the 64-bit boundary, concatenation, widening casts, shifts of 64 or more, a
   function and an action taking and returning them, lookahead, a parser select with an
   exact and a masked case, and a hash over one. */
#include <core.p4>
#include <v1model.p4>

header addr_t {
    bit<128> a;
    bit<72>  b;
    bit<8>   s;      // a shift amount
}

header res_t {
    bit<128> c;
    bit<96>  d;
    bit<64>  lo;
    bit<16>  h;
    bit<8>   flags;
}

struct headers_t {
    addr_t addr;
    res_t  res;
}

struct metadata_t {
    bit<128> peek;
    bit<8>   sel;
}

bit<128> mix(in bit<128> x, inout bit<72> y) {
    y = y + 1;
    return x ^ (bit<128>)y;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t sm) {
    state start {
        meta.peek = pkt.lookahead<bit<128>>();
        pkt.extract(hdr.addr);
        pkt.extract(hdr.res);
        transition select(hdr.addr.a) {
            0x80000000000000000000000000000001: exact_match;
            0x00110000000000000000000000000000 &&& 0xffff0000000000000000000000000000: masked;
            default: accept;
        }
    }
    state exact_match {
        meta.sel = 2;
        transition accept;
    }
    state masked {
        meta.sel = 1;
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t sm) {
    bit<128> acc;

    action fold(bit<8> n) {
        acc = (hdr.addr.a << n) | (hdr.addr.a >> (8w128 - n));
    }

    apply {
        int<32> minus_two = -2;
        acc = 128w0x0123456789abcdef_fedcba9876543210;
        fold(hdr.addr.s);
        hdr.res.c = acc + 128w0xffffffffffffffff;
        hdr.res.d = hdr.addr.a[95:64] ++ hdr.addr.b[63:0];
        hdr.res.lo = hdr.addr.a[99:36];
        hdr.res.c[71:60] = 12w0xabc;
        hdr.res.c = hdr.res.c + (bit<128>)(bit<32>)minus_two;
        hdr.res.d = hdr.res.d >> hdr.addr.s;
        bit<128> m = mix(hdr.addr.a, hdr.addr.b);
        hash(hdr.res.h, HashAlgorithm.crc16, 16w0, { m, hdr.addr.b }, 32w65536);
        hdr.res.flags = (meta.peek == hdr.addr.a ? 8w1 : 8w0)
                      | (hdr.addr.a > hdr.res.c ? 8w2 : 8w0)
                      | ((hdr.addr.a << 64) == 0 ? 8w4 : 8w0)
                      | (meta.sel << 3);
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
