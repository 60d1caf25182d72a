/* Every construct P4Info describes: @id/@name/@hidden, all match kinds, scoped action
 * references, direct and indirect counters and meters, registers, an action profile and
 * an action selector with the indirect tables that use them,
 * value sets, a digest and the packet-in/packet-out controller headers. Port 255 is the
 * CPU port: frames from it carry packet_out, frames to it get packet_in. */
#include <core.p4>
#include <v1model.p4>

const bit<9> CPU_PORT = 255;

@controller_header("packet_in")
header packet_in_t {
    bit<9> ingress_port;
    bit<7> _pad;
}

@controller_header("packet_out")
header packet_out_t {
    bit<9> egress_port;
    @id(5) bit<7> _pad;
}

header ethernet_t {
    bit<48> dstAddr;
    bit<48> srcAddr;
    bit<16> etherType;
}

struct learn_t {
    bit<48> srcAddr;
    bit<9>  port;
}

struct pvs_t {
    @match(ternary) bit<16> etherType;
    bit<8> tag;
}

struct metadata { bit<8> tag; }

struct headers {
    packet_out_t packet_out;
    packet_in_t  packet_in;
    ethernet_t   ethernet;
}

parser MyParser(packet_in packet, out headers hdr, inout metadata meta,
                inout standard_metadata_t standard_metadata) {
    value_set<pvs_t>(4) pvs;
    value_set<bit<16>>(2) ether_vs;
    state start {
        transition select(standard_metadata.ingress_port) {
            CPU_PORT: parse_packet_out;
            default: parse_ethernet;
        }
    }
    state parse_packet_out {
        packet.extract(hdr.packet_out);
        transition parse_ethernet;
    }
    state parse_ethernet {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            ether_vs: marked;
            default: accept;
        }
    }
    state marked {
        meta.tag = 7;
        transition accept;
    }
}

control MyVerifyChecksum(inout headers hdr, inout metadata meta) { apply { } }

control MyIngress(inout headers hdr, inout metadata meta,
                  inout standard_metadata_t standard_metadata) {
    direct_counter(CounterType.packets_and_bytes) fwd_counter;
    direct_meter<bit<2>>(MeterType.bytes) fwd_meter;
    counter(64, CounterType.packets) port_counter;
    meter(32, MeterType.packets) port_meter;
    register<bit<32>>(128) last_seen;
    @name("flows") register<bit<64>>(16) flow_reg;
    action_profile(256) ap;
    @max_group_size(4) action_selector(HashAlgorithm.crc16, 32w16, 32w8) spread_sel;
    bit<2> color;

    action drop() { mark_to_drop(standard_metadata); }

    @id(0x01000010) action forward(bit<9> port, @id(7) bit<48> mac) {
        standard_metadata.egress_spec = port;
        hdr.ethernet.dstAddr = mac;
        fwd_meter.read(color);
    }

    action learn() {
        digest<learn_t>(1, {hdr.ethernet.srcAddr, standard_metadata.ingress_port});
        standard_metadata.egress_spec = CPU_PORT;
        hdr.packet_in.setValid();
        hdr.packet_in.ingress_port = standard_metadata.ingress_port;
    }

    @name("set_tag") action tag_it(bit<8> tag) { meta.tag = tag; }
    @hidden action hidden_action() { }

    table fwd {
        key = {
            hdr.ethernet.dstAddr: exact;
            hdr.ethernet.srcAddr: ternary @name("src");
            hdr.ethernet.etherType: range;
            standard_metadata.ingress_port: optional;
        }
        actions = { forward; @defaultonly drop; @tableonly learn; }
        default_action = drop();
        counters = fwd_counter;
        meters = fwd_meter;
        size = 512;
    }

    @id(0x02000100) table routes {
        key = { hdr.ethernet.dstAddr: lpm; }
        actions = { forward; NoAction; }
        const default_action = NoAction();
    }

    table tagger {
        key = { hdr.ethernet.etherType: exact; }
        actions = { tag_it; }
    }

    table tag_profiled {
        key = { hdr.ethernet.etherType: exact; }
        actions = { tag_it; }
        implementation = ap;
    }

    table spread {
        key = { hdr.ethernet.dstAddr: exact; hdr.ethernet.srcAddr: selector; }
        actions = { tag_it; NoAction; }
        implementation = spread_sel;
    }

    @name(".classify") table classify_t {
        key = { hdr.ethernet.etherType: exact; }
        actions = { tag_it; NoAction; }
        const entries = {
            0x0800: tag_it(1);
            0x86dd: tag_it(2);
        }
    }

    @hidden table hidden_t {
        actions = { hidden_action; }
        default_action = hidden_action();
    }

    apply {
        if (hdr.packet_out.isValid()) {
            standard_metadata.egress_spec = hdr.packet_out.egress_port;
            hdr.packet_out.setInvalid();
        } else {
            fwd.apply();
            routes.apply();
            classify_t.apply();
            tag_profiled.apply();
            spread.apply();
            hidden_t.apply();
            port_counter.count((bit<32>)standard_metadata.ingress_port);
            port_meter.execute_meter((bit<32>)standard_metadata.ingress_port, color);
            last_seen.write(0, 1);
            flow_reg.write(0, 1);
            if (meta.tag == 7) {
                standard_metadata.egress_spec = 7;
            }
        }
    }
}

control MyEgress(inout headers hdr, inout metadata meta,
                 inout standard_metadata_t standard_metadata) { apply { } }

control MyComputeChecksum(inout headers hdr, inout metadata meta) { apply { } }

control MyDeparser(packet_out packet, in headers hdr) {
    apply {
        packet.emit(hdr.packet_in);
        packet.emit(hdr.ethernet);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
