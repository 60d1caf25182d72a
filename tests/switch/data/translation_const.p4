// Translated types (@p4runtime_translation) in what the program itself holds (a table's
// const entries and initial default action), in a digest whose struct carries them and
// in a parser value set of controller ports.
#include <core.p4>
#include <v1model.p4>

@p4runtime_translation("trainet.example/port_t", 32)
type bit<9> port_t;
@p4runtime_translation("trainet.example/vrf_t", string)
type bit<8> vrf_t;

header ethernet_t {
    bit<48> dstAddr;
    bit<48> srcAddr;
    bit<16> etherType;
}

struct headers_t {
    ethernet_t ethernet;
}

struct learn_t {
    port_t port;
    vrf_t  vrf;
    bit<8> hops;
}

struct metadata_t {
    port_t in_port;
    vrf_t  vrf;
    bit<1> watched;
}

parser MyParser(packet_in packet, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t standard_metadata) {
    value_set<port_t>(4) watched_ports;
    state start {
        packet.extract(hdr.ethernet);
        transition select((port_t) standard_metadata.ingress_port) {
            watched_ports: watched;
            default: accept;
        }
    }
    state watched {
        meta.watched = 1;
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    action forward(port_t port) {
        standard_metadata.egress_spec = (bit<9>) port;
    }
    action learn() {
        digest<learn_t>(1, {meta.in_port, meta.vrf, 3});
        mark_to_drop(standard_metadata);
    }
    table ports {
        key = {
            meta.in_port: exact;
        }
        actions = { forward; learn; }
        const entries = {
            (port_t) 1 : forward((port_t) 2);
            (port_t) 5 : forward((port_t) 6);
        }
        default_action = forward((port_t) 3);
    }
    table vrfs {
        key = {
            meta.vrf: exact;
        }
        actions = { learn; NoAction; }
        default_action = NoAction();
    }
    apply {
        if (meta.watched == 1) {
            standard_metadata.egress_spec = 8;
        } else {
            meta.in_port = (port_t) standard_metadata.ingress_port;
            meta.vrf = (vrf_t) hdr.ethernet.etherType[7:0];
            vrfs.apply();
            ports.apply();
        }
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t standard_metadata) { apply { } }

control MyComputeChecksum(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.ethernet);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
