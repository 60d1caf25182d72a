// Types the controller sees translated (@p4runtime_translation): ports as 32-bit SDN
// numbers, VRFs as strings; the data plane holds bit<9> and bit<8>.
#include <core.p4>
#include <v1model.p4>

@p4runtime_translation("trainet.example/port_t", 32)
type bit<9> port_t;
@p4runtime_translation("trainet.example/vrf_t", string)
type bit<8> vrf_t;
type bit<12> zone_t;

@controller_header("packet_in")
header packet_in_t {
    port_t ingress_port;
    bit<7> _pad;
}

@controller_header("packet_out")
header packet_out_t {
    port_t egress_port;
    bit<7> _pad;
}

header ethernet_t {
    bit<48> dstAddr;
    bit<48> srcAddr;
    bit<16> etherType;
}

struct headers_t {
    packet_in_t  packet_in;
    packet_out_t packet_out;
    ethernet_t   ethernet;
}

struct metadata_t {
    port_t in_port;
    vrf_t  vrf;
    zone_t zone;
}

parser MyParser(packet_in packet, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t standard_metadata) {
    state start {
        transition select(standard_metadata.ingress_port) {
            255: parse_packet_out;
            default: parse_ethernet;
        }
    }
    state parse_packet_out {
        packet.extract(hdr.packet_out);
        transition parse_ethernet;
    }
    state parse_ethernet {
        packet.extract(hdr.ethernet);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    action forward(port_t port) {
        standard_metadata.egress_spec = (bit<9>) port;
    }
    action to_cpu() {
        standard_metadata.egress_spec = 255;
        hdr.packet_in.setValid();
        hdr.packet_in.ingress_port = meta.in_port;
    }
    action drop() { mark_to_drop(standard_metadata); }
    table routes {
        key = {
            meta.in_port: exact;
            meta.vrf: exact;
            meta.zone: ternary;
        }
        actions = { forward; to_cpu; drop; }
        default_action = drop();
    }
    apply {
        if (hdr.packet_out.isValid()) {
            standard_metadata.egress_spec = (bit<9>) hdr.packet_out.egress_port;
            hdr.packet_out.setInvalid();
        } else {
            meta.in_port = (port_t) standard_metadata.ingress_port;
            meta.vrf = (vrf_t) hdr.ethernet.etherType[7:0];
            meta.zone = (zone_t) hdr.ethernet.etherType[15:4];
            routes.apply();
        }
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t standard_metadata) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.packet_in);
        packet.emit(hdr.ethernet);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
