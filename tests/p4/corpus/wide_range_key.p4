/* A range match on a 128-bit key. The native backend compares a range within one 64-bit
   word, so it refuses this key by name (auto falls back to the python backend, which
   runs it). */
#include <core.p4>
#include <v1model.p4>

header id_t {
    bit<128> id;
    bit<8>   class;
}

struct headers_t {
    id_t t;
}

struct metadata_t {
}

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.t);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t sm) {
    action classify(bit<8> c) {
        hdr.t.class = c;
        sm.egress_spec = 1;
    }
    table bands {
        key = { hdr.t.id : range; }
        actions = { classify; NoAction; }
        default_action = classify(0xff);
    }
    apply {
        bands.apply();
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t sm) { apply { } }

control MyCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.t);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
