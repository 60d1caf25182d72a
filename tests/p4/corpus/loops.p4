/* P4_16 1.2.4 loops and compound assignments: three-clause loops with break and
 * continue, a range loop ending at the type's maximum, nested loops (the loop over a
 * header stack is in tests/p4/test_v1model_constructs.py). */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  n;
    bit<8>  a;
    bit<16> b;
    bit<32> c;
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

control MyIngress(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        hdr.h.a = 0;
        for (bit<8> i = 0; i < hdr.h.n; i += 1) {
            if (i == 6) {
                break;
            }
            if (i % 2 == 0) {
                continue;
            }
            hdr.h.a += i;
        }
        hdr.h.b = 0;
        for (bit<8> k in 250 .. 255) {
            hdr.h.b += 1;
        }
        hdr.h.c = 0;
        for (bit<8> i = 0; i < 3; i += 1) {
            for (bit<8> j = 0; j < hdr.h.n; j += 1) {
                if (j == 2) {
                    break;
                }
                hdr.h.c |+|= 0x10;
            }
        }
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    apply {

    }
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
