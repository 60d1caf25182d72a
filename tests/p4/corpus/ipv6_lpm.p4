/* Tables keyed on 128-bit (IPv6) addresses: longest-prefix routing beside an exact key,
   and a ternary ACL on the source address that may rewrite it with a 128-bit action
   parameter, and a digest carrying a source address. The native backend holds such a
   key, parameter or digest field in two 64-bit words. */
#include <core.p4>
#include <v1model.p4>

header ipv6_t {
    bit<4>   version;
    bit<8>   traffic_class;
    bit<20>  flow_label;
    bit<16>  payload_len;
    bit<8>   next_hdr;
    bit<8>   hop_limit;
    bit<128> src;
    bit<128> dst;
}

struct headers_t {
    ipv6_t ipv6;
}

struct metadata_t {
}

struct learn6_t {
    bit<128> src;
    bit<9>   port;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.ipv6);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t sm) {
    action forward(bit<9> port) {
        sm.egress_spec = port;
        hdr.ipv6.hop_limit = hdr.ipv6.hop_limit - 1;
    }
    action drop() {
        mark_to_drop(sm);
    }
    action mark(bit<8> tc) {
        hdr.ipv6.traffic_class = tc;
    }
    action rewrite(bit<128> src, bit<9> port) {
        hdr.ipv6.src = src;
        sm.egress_spec = port;
    }
    table routes {
        key = {
            hdr.ipv6.next_hdr : exact;
            hdr.ipv6.dst      : lpm;
        }
        actions = { forward; drop; }
        default_action = drop();
    }
    table acl {
        key = { hdr.ipv6.src : ternary; }
        actions = { mark; rewrite; NoAction; }
        default_action = NoAction();
    }
    apply {
        if (hdr.ipv6.hop_limit == 1) {
            digest<learn6_t>(1, { hdr.ipv6.src, sm.ingress_port });
        }
        routes.apply();
        acl.apply();
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t sm) { apply { } }

control MyCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ipv6);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
