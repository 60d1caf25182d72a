/* Replication for the switch tests: EtherType 0x88b5 frames go to multicast group 1;
 * 0x88b6 frames go out of port 2 and a copy goes to clone session 100; everything
 * else is forwarded by the exact-match table "fwd" on the ingress port. */
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dstAddr;
    bit<48> srcAddr;
    bit<16> etherType;
}

struct headers { ethernet_t ethernet; }
struct metadata { }

parser P(packet_in pkt, out headers hdr, inout metadata meta,
         inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.ethernet);
        transition accept;
    }
}

control VC(inout headers hdr, inout metadata meta) { apply { } }

control Ing(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    action forward(bit<9> port) { sm.egress_spec = port; }
    action drop() { mark_to_drop(sm); }
    table fwd {
        key = { sm.ingress_port: exact; }
        actions = { forward; drop; }
        default_action = drop();
    }
    apply {
        if (hdr.ethernet.etherType == 0x88b5) {
            sm.mcast_grp = 1;
        } else if (hdr.ethernet.etherType == 0x88b6) {
            sm.egress_spec = 2;
            clone(CloneType.I2E, 32w100);
        } else {
            fwd.apply();
        }
    }
}

control Eg(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        if (sm.instance_type == 1) {   // ingress clone: mark the copy
            hdr.ethernet.srcAddr = 0xc10c10c10c10;
        }
    }
}

control CC(inout headers hdr, inout metadata meta) { apply { } }

control D(packet_out pkt, in headers hdr) {
    apply { pkt.emit(hdr.ethernet); }
}

V1Switch(P(), VC(), Ing(), Eg(), CC(), D()) main;
