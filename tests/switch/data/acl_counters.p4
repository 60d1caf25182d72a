// An IPv4 router with a source-address block list and per-slot counters, shaped like the
// p4lang tutorials' exercises (MyIngress.*, hdr.ipv4.*): what their runtime JSON programs.
#include <core.p4>
#include <v1model.p4>

header ethernet_h { bit<48> dst; bit<48> src; bit<16> ether_type; }
header ipv4_h {
    bit<4> version; bit<4> ihl; bit<8> diffserv; bit<16> totalLen; bit<16> identification;
    bit<3> flags; bit<13> fragOffset; bit<8> ttl; bit<8> protocol; bit<16> hdrChecksum;
    bit<32> srcAddr; bit<32> dstAddr;
}
struct headers { ethernet_h ethernet; ipv4_h ipv4; }
struct metadata { }

parser MyParser(packet_in pkt, out headers hdr, inout metadata meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) { 0x0800: ipv4; default: accept; }
    }
    state ipv4 { pkt.extract(hdr.ipv4); transition accept; }
}

control MyVerifyChecksum(inout headers hdr, inout metadata meta) { apply { } }

control MyIngress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    counter(64, CounterType.packets_and_bytes) forwarded;
    counter(64, CounterType.packets_and_bytes) blocked;

    action drop() { mark_to_drop(sm); }
    action block(bit<32> slot) { blocked.count(slot); mark_to_drop(sm); }
    action route(bit<48> dstAddr, bit<9> port) {
        sm.egress_spec = port;
        hdr.ethernet.src = hdr.ethernet.dst;
        hdr.ethernet.dst = dstAddr;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
        forwarded.count((bit<32>)port);
    }
    table acl {
        key = { hdr.ipv4.srcAddr: exact; }
        actions = { block; NoAction; }
        default_action = NoAction();
    }
    table ipv4_lpm {
        key = { hdr.ipv4.dstAddr: lpm; }
        actions = { route; drop; NoAction; }
        default_action = NoAction();
    }
    apply {
        if (hdr.ipv4.isValid()) {
            switch (acl.apply().action_run) {
                block: { }
                default: { ipv4_lpm.apply(); }
            }
        }
    }
}

control MyEgress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply { }
}

control MyComputeChecksum(inout headers hdr, inout metadata meta) { apply { } }

control MyDeparser(packet_out pkt, in headers hdr) {
    apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.ipv4); }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
