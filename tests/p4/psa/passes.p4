/* PSA resubmit and recirculate. Every ingress pass adds 1 to dstAddr[15:8]; ethertype
 * 0x0001 resubmits twice, 0x0002 recirculates three times, the pass count travelling in
 * resubmit_meta / recirculate_meta. A resubmitted packet is the packet as received, so
 * its count of ingress edits stays 1; a recirculated packet is egress's output, so its
 * edits add up. The last pass writes into srcAddr: [23:16] the ingress port's low byte,
 * [15:8] the packet path it arrived on, [7:0] the pass count. */
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dstAddr;
    bit<48> srcAddr;
    bit<16> etherType;
}

struct headers_t { ethernet_t ethernet; }
struct metadata_t { bit<8> passes; }
struct count_t { bit<8> passes; }
struct empty_t {}

parser IngressParserImpl(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                         in psa_ingress_parser_input_metadata_t istd,
                         in count_t resubmit_meta, in count_t recirculate_meta) {
    state start {
        meta.passes = resubmit_meta.passes + recirculate_meta.passes;
        pkt.extract(hdr.ethernet);
        transition accept;
    }
}

control IngressImpl(inout headers_t hdr, inout metadata_t meta,
                    in psa_ingress_input_metadata_t istd,
                    inout psa_ingress_output_metadata_t ostd) {
    apply {
        hdr.ethernet.dstAddr[15:8] = hdr.ethernet.dstAddr[15:8] + 1;
        bit<8> path = 0x00;
        if (istd.packet_path == PSA_PacketPath_t.RESUBMIT) { path = 0x5B; }
        if (istd.packet_path == PSA_PacketPath_t.RECIRCULATE) { path = 0x7C; }
        if (hdr.ethernet.etherType == 1 && meta.passes < 2) {
            ostd.drop = false;
            ostd.resubmit = true;
        } else if (hdr.ethernet.etherType == 2 && meta.passes < 3) {
            send_to_port(ostd, PSA_PORT_RECIRCULATE);
        } else {
            hdr.ethernet.srcAddr[23:0] = (bit<8>) (PortIdUint_t) istd.ingress_port ++ path
                                         ++ meta.passes;
            send_to_port(ostd, (PortId_t) 1);
        }
    }
}

control IngressDeparserImpl(packet_out pkt, out empty_t clone_i2e_meta,
                            out count_t resubmit_meta, out count_t normal_meta,
                            inout headers_t hdr, in metadata_t meta,
                            in psa_ingress_output_metadata_t istd) {
    apply {
        if (psa_resubmit(istd)) {
            resubmit_meta.passes = meta.passes + 1;
        }
        if (psa_normal(istd)) {
            normal_meta.passes = meta.passes;
        }
        pkt.emit(hdr.ethernet);
    }
}

parser EgressParserImpl(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                        in psa_egress_parser_input_metadata_t istd, in count_t normal_meta,
                        in empty_t clone_i2e_meta, in empty_t clone_e2e_meta) {
    state start {
        meta.passes = normal_meta.passes;
        pkt.extract(hdr.ethernet);
        transition accept;
    }
}

control EgressImpl(inout headers_t hdr, inout metadata_t meta,
                   in psa_egress_input_metadata_t istd,
                   inout psa_egress_output_metadata_t ostd) {
    apply { }
}

control EgressDeparserImpl(packet_out pkt, out empty_t clone_e2e_meta,
                           out count_t recirculate_meta, inout headers_t hdr,
                           in metadata_t meta, in psa_egress_output_metadata_t istd,
                           in psa_egress_deparser_input_metadata_t edstd) {
    apply {
        if (psa_recirculate(istd, edstd)) {
            recirculate_meta.passes = meta.passes + 1;
        }
        pkt.emit(hdr.ethernet);
    }
}

IngressPipeline(IngressParserImpl(), IngressImpl(), IngressDeparserImpl()) ip;
EgressPipeline(EgressParserImpl(), EgressImpl(), EgressDeparserImpl()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
