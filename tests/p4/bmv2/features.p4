/* The source of features.json: header stacks, masked and lookahead transitions,
 * registers, counters, a direct counter, hash, if/else inside an action, switch on the
 * action run, hit/miss, exit, digests, ternary const entries with priorities. */
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header vlan_t { bit<3> pcp; bit<1> cfi; bit<12> vid; bit<16> etherType; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> diffserv; bit<16> totalLen; bit<16> identification;
    bit<3> flags; bit<13> fragOffset; bit<8> ttl; bit<8> protocol; bit<16> hdrChecksum;
    bit<32> srcAddr; bit<32> dstAddr;
}
header tag_t { bit<8> kind; bit<8> value; }

struct learn_t { bit<48> src; bit<9> port; }
struct metadata { bit<16> hash; bit<8> path; bit<32> seen; bit<8> peek; }
struct headers { ethernet_t ethernet; vlan_t[2] vlans; ipv4_t ipv4; tag_t tag; }

parser MyParser(packet_in packet, out headers hdr, inout metadata meta,
                inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            0x8100 &&& 0xEFFF: parse_vlan;
            0x0800: parse_ipv4;
            default: accept;
        }
    }
    state parse_vlan {
        packet.extract(hdr.vlans.next);
        transition select(hdr.vlans.last.etherType) {
            0x8100: parse_vlan;
            0x0800: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        packet.extract(hdr.ipv4);
        meta.peek = packet.lookahead<bit<8>>();
        transition select(hdr.ipv4.protocol, packet.lookahead<bit<8>>()) {
            (253, 0x01 &&& 0x0F): parse_tag;
            default: accept;
        }
    }
    state parse_tag {
        packet.extract(hdr.tag);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers hdr, inout metadata meta) { apply { } }

control MyIngress(inout headers hdr, inout metadata meta,
                  inout standard_metadata_t standard_metadata) {
    register<bit<32>>(16) seen;
    counter(4, CounterType.packets_and_bytes) by_path;
    direct_counter(CounterType.packets_and_bytes) fwd_hits;

    action drop() { mark_to_drop(standard_metadata); }
    action forward(bit<9> port) { standard_metadata.egress_spec = port; }
    action set_path(bit<8> path) { meta.path = path; }
    action hash_and_count() {
        hash(meta.hash, HashAlgorithm.crc16, 16w0, { hdr.ipv4.srcAddr, hdr.ipv4.dstAddr },
             32w1024);
        seen.read(meta.seen, (bit<32>)meta.path);
        meta.seen = meta.seen + 1;
        seen.write((bit<32>)meta.path, meta.seen);
        by_path.count((bit<32>)meta.path);
    }
    action retag() {
        if (hdr.tag.isValid()) {
            hdr.tag.value = hdr.tag.value + 5;
        } else {
            hdr.tag.setValid();
            hdr.tag.kind = 7;
            hdr.tag.value = (bit<8>)meta.hash;
        }
    }
    action learn() { digest<learn_t>(1, { hdr.ethernet.src, standard_metadata.ingress_port }); }
    action pop_vlan() {
        hdr.ethernet.etherType = hdr.vlans[1].etherType;
        hdr.vlans.pop_front(1);
    }

    table classify {
        key = { hdr.ipv4.protocol: ternary; }
        actions = { set_path; NoAction; }
        const entries = {
            17 &&& 0xFF: set_path(1);
            0x10 &&& 0xF0: set_path(2);
        }
        default_action = NoAction();
    }
    table learned {
        key = { hdr.ethernet.src: exact; }
        actions = { NoAction; learn; }
        default_action = learn();
    }
    table fwd {
        key = { hdr.ethernet.dst: exact; hdr.vlans[0].vid: ternary; }
        actions = { forward; drop; }
        default_action = drop();
        counters = fwd_hits;
    }

    apply {
        if (hdr.ipv4.isValid()) {
            switch (classify.apply().action_run) {
                set_path: { hash_and_count(); }
            }
            if (meta.path == 1) {
                hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
            } else {
                retag();
            }
        }
        if (hdr.vlans[0].isValid() && hdr.vlans[0].vid == 0xFFF) {
            exit;
        }
        learned.apply();
        if (fwd.apply().hit) {
            if (hdr.vlans[1].isValid()) {
                pop_vlan();
            }
        } else {
            by_path.count(3);
        }
    }
}

control MyEgress(inout headers hdr, inout metadata meta,
                 inout standard_metadata_t standard_metadata) {
    action mark(bit<8> dscp) { hdr.ipv4.diffserv = dscp << 2; }
    apply {
        if (hdr.ipv4.isValid() && standard_metadata.egress_port == 2) {
            mark(46);
        }
    }
}

control MyComputeChecksum(inout headers hdr, inout metadata meta) {
    apply {
        update_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.totalLen,
              hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.fragOffset, hdr.ipv4.ttl,
              hdr.ipv4.protocol, hdr.ipv4.srcAddr, hdr.ipv4.dstAddr },
            hdr.ipv4.hdrChecksum, HashAlgorithm.csum16);
    }
}

control MyDeparser(packet_out packet, in headers hdr) {
    apply {
        packet.emit(hdr.ethernet);
        packet.emit(hdr.vlans);
        packet.emit(hdr.ipv4);
        packet.emit(hdr.tag);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
