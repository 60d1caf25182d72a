/* PSA replication: unicast, multicast, ingress-to-egress and egress-to-egress clones,
 * ingress and egress drops. Egress writes what it saw into the source MAC address:
 * bits 47..40 the packet path, 39..24 the PRE instance, 23..16 the tag the ingress or
 * egress deparser handed over in normal_meta / clone_i2e_meta / clone_e2e_meta. */
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dstAddr;
    bit<48> srcAddr;
    bit<16> etherType;
}

struct headers_t { ethernet_t ethernet; }
struct metadata_t { bit<8> tag; }
struct tag_t { bit<8> tag; }
struct empty_t {}

parser IngressParserImpl(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                         in psa_ingress_parser_input_metadata_t istd,
                         in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        transition accept;
    }
}

control IngressImpl(inout headers_t hdr, inout metadata_t meta,
                    in psa_ingress_input_metadata_t istd,
                    inout psa_ingress_output_metadata_t ostd) {
    apply {
        if (hdr.ethernet.dstAddr[47:40] == 0x01) {
            multicast(ostd, (MulticastGroup_t) (MulticastGroupUint_t) hdr.ethernet.dstAddr[15:0]);
        } else if (hdr.ethernet.dstAddr[7:0] == 9) {
            ingress_drop(ostd);
        } else {
            send_to_port(ostd, (PortId_t) (PortIdUint_t) hdr.ethernet.dstAddr[7:0]);
        }
        if (hdr.ethernet.srcAddr[7:0] != 0) {
            ostd.clone = true;
            ostd.clone_session_id = (CloneSessionId_t) (bit<16>) hdr.ethernet.srcAddr[7:0];
        }
    }
}

control IngressDeparserImpl(packet_out pkt, out tag_t clone_i2e_meta,
                            out empty_t resubmit_meta, out tag_t normal_meta,
                            inout headers_t hdr, in metadata_t meta,
                            in psa_ingress_output_metadata_t istd) {
    apply {
        if (psa_clone_i2e(istd)) {
            clone_i2e_meta.tag = 0xC1;
        }
        if (psa_normal(istd)) {
            normal_meta.tag = 0x4E;
        }
        pkt.emit(hdr.ethernet);
    }
}

parser EgressParserImpl(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                        in psa_egress_parser_input_metadata_t istd, in tag_t normal_meta,
                        in tag_t clone_i2e_meta, in tag_t clone_e2e_meta) {
    state start {
        meta.tag = normal_meta.tag | clone_i2e_meta.tag | clone_e2e_meta.tag;
        pkt.extract(hdr.ethernet);
        transition accept;
    }
}

control EgressImpl(inout headers_t hdr, inout metadata_t meta,
                   in psa_egress_input_metadata_t istd,
                   inout psa_egress_output_metadata_t ostd) {
    apply {
        bit<8> path = 0;
        if (istd.packet_path == PSA_PacketPath_t.NORMAL_UNICAST) { path = 0x11; }
        else if (istd.packet_path == PSA_PacketPath_t.NORMAL_MULTICAST) { path = 0x3C; }
        else if (istd.packet_path == PSA_PacketPath_t.CLONE_I2E) { path = 0xC1; }
        else if (istd.packet_path == PSA_PacketPath_t.CLONE_E2E) { path = 0xE2; }
        hdr.ethernet.srcAddr[47:16] = path ++ (bit<16>) istd.instance ++ meta.tag;
        if (istd.egress_port == (PortId_t) 7) {
            egress_drop(ostd);
        }
        if (istd.egress_port == (PortId_t) 4
                && istd.packet_path == PSA_PacketPath_t.NORMAL_UNICAST) {
            ostd.clone = true;
            ostd.clone_session_id = (CloneSessionId_t) 9;
        }
    }
}

control EgressDeparserImpl(packet_out pkt, out tag_t clone_e2e_meta,
                           out empty_t recirculate_meta, inout headers_t hdr,
                           in metadata_t meta, in psa_egress_output_metadata_t istd,
                           in psa_egress_deparser_input_metadata_t edstd) {
    apply {
        if (psa_clone_e2e(istd)) {
            clone_e2e_meta.tag = 0xE2;
        }
        pkt.emit(hdr.ethernet);
    }
}

IngressPipeline(IngressParserImpl(), IngressImpl(), IngressDeparserImpl()) ip;
EgressPipeline(EgressParserImpl(), EgressImpl(), EgressDeparserImpl()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
