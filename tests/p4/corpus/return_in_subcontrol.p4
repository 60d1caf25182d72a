/* return in an instantiated control's apply block ends that block only: after an if,
 * inside a loop, in a switch case; each apply of it starts afresh. */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  a;
    bit<8>  b;
    bit<16> c;
    bit<32> d;
}

control early(inout bit<8> v, inout bit<16> trace) {
    apply {
        trace = trace + 1;
        if (v == 1) {
            return;
        }
        for (bit<8> i = 0; i < 8; i = i + 1) {
            if (i == v) {
                trace = trace + 0x100;
                return;
            }
        }
        switch (v) {
            0x30: { trace = trace + 0x10; return; }
            default: { }
        }
        v = 0xEE;
        return;
        v = 0xFF;
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
    early() first;
    early() second;
    apply {
        first.apply(hdr.h.a, hdr.h.c);
        second.apply(hdr.h.b, hdr.h.c);
        hdr.h.d = 32w7;
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
