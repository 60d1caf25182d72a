/* A PSA ingress-to-egress clone carries the packet as the ingress parser received it,
 * not the ingress deparser's output: ingress rewrites the destination MAC address and
 * removes a tag header from the original, while each CLONE_I2E copy still has both.
 * A packet dropped in ingress is cloned too. Egress marks clones in the EtherType and
 * writes the class of service it sees into the EtherType's (clones) or the source MAC
 * address's (originals) last byte: the original's is ingress's, 5; a clone's is the
 * one its clone session configures. */
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dstAddr;
    bit<48> srcAddr;
    bit<16> etherType;
}

header tag_t { bit<32> value; }

struct headers_t { ethernet_t ethernet; tag_t tag; }
struct empty_t {}

parser IngressParserImpl(packet_in pkt, out headers_t hdr, inout empty_t meta,
                         in psa_ingress_parser_input_metadata_t istd,
                         in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.tag);
        transition accept;
    }
}

control IngressImpl(inout headers_t hdr, inout empty_t meta,
                    in psa_ingress_input_metadata_t istd,
                    inout psa_ingress_output_metadata_t ostd) {
    apply {
        ostd.clone = true;
        ostd.clone_session_id = (CloneSessionId_t) 4;
        if (hdr.tag.value == 0) {
            ingress_drop(ostd);
        } else {
            send_to_port(ostd, (PortId_t) hdr.tag.value);
            ostd.class_of_service = (ClassOfService_t) 5;
            hdr.ethernet.dstAddr = 0xAAAAAAAAAAAA;
            hdr.tag.setInvalid();
        }
    }
}

control IngressDeparserImpl(packet_out pkt, out empty_t clone_i2e_meta,
                            out empty_t resubmit_meta, out empty_t normal_meta,
                            inout headers_t hdr, in empty_t meta,
                            in psa_ingress_output_metadata_t istd) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.tag);
    }
}

parser EgressParserImpl(packet_in pkt, out headers_t hdr, inout empty_t meta,
                        in psa_egress_parser_input_metadata_t istd, in empty_t normal_meta,
                        in empty_t clone_i2e_meta, in empty_t clone_e2e_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        transition accept;
    }
}

control EgressImpl(inout headers_t hdr, inout empty_t meta,
                   in psa_egress_input_metadata_t istd,
                   inout psa_egress_output_metadata_t ostd) {
    apply {
        bit<8> cos = (ClassOfServiceUint_t) istd.class_of_service;
        if (istd.packet_path == PSA_PacketPath_t.CLONE_I2E) {
            hdr.ethernet.etherType = 8w0xC1 ++ cos;
        } else {
            hdr.ethernet.srcAddr[7:0] = cos;
        }
    }
}

control EgressDeparserImpl(packet_out pkt, out empty_t clone_e2e_meta,
                           out empty_t recirculate_meta, inout headers_t hdr,
                           in empty_t meta, in psa_egress_output_metadata_t istd,
                           in psa_egress_deparser_input_metadata_t edstd) {
    apply {
        pkt.emit(hdr.ethernet);
    }
}

IngressPipeline(IngressParserImpl(), IngressImpl(), IngressDeparserImpl()) ip;
EgressPipeline(EgressParserImpl(), EgressImpl(), EgressDeparserImpl()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
