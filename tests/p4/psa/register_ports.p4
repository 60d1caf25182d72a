/* PSA registers steering packets: ingress counts the packets seen per ingress port in a
 * register, keeps a per-program "next hop" register the control plane writes, and sends
 * each packet to the port that register holds. send_to_port clears the drop flag PSA
 * sets before ingress; an ingress_drop after it drops again (destination MAC 0). The
 * egress parser extracts Ethernet again and the egress deparser emits it, so the frame
 * leaves whole; egress writes the packet count it read into the source MAC address. */
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dstAddr;
    bit<48> srcAddr;
    bit<16> etherType;
}

struct headers_t { ethernet_t ethernet; }
struct empty_t {}
struct count_t { bit<16> seen; }

parser IngressParserImpl(packet_in pkt, out headers_t hdr, inout count_t meta,
                         in psa_ingress_parser_input_metadata_t istd,
                         in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        pkt.extract(hdr.ethernet);
        transition accept;
    }
}

control IngressImpl(inout headers_t hdr, inout count_t meta,
                    in psa_ingress_input_metadata_t istd,
                    inout psa_ingress_output_metadata_t ostd) {
    Register<bit<16>, PortId_t>(8) per_port;
    Register<bit<32>, bit<1>>(1, 3) next_hop;

    apply {
        bit<16> seen = per_port.read(istd.ingress_port) + 1;
        per_port.write(istd.ingress_port, seen);
        meta.seen = seen;
        send_to_port(ostd, (PortId_t) next_hop.read(0));
        if (hdr.ethernet.dstAddr == 0) {
            ingress_drop(ostd);
        }
    }
}

control IngressDeparserImpl(packet_out pkt, out empty_t clone_i2e_meta,
                            out empty_t resubmit_meta, out count_t normal_meta,
                            inout headers_t hdr, in count_t meta,
                            in psa_ingress_output_metadata_t istd) {
    apply {
        normal_meta.seen = meta.seen;
        pkt.emit(hdr.ethernet);
    }
}

parser EgressParserImpl(packet_in pkt, out headers_t hdr, inout count_t meta,
                        in psa_egress_parser_input_metadata_t istd, in count_t normal_meta,
                        in empty_t clone_i2e_meta, in empty_t clone_e2e_meta) {
    state start {
        meta.seen = normal_meta.seen;
        pkt.extract(hdr.ethernet);
        transition accept;
    }
}

control EgressImpl(inout headers_t hdr, inout count_t meta,
                   in psa_egress_input_metadata_t istd,
                   inout psa_egress_output_metadata_t ostd) {
    apply {
        hdr.ethernet.srcAddr[15:0] = meta.seen;
    }
}

control EgressDeparserImpl(packet_out pkt, out empty_t clone_e2e_meta,
                           out empty_t recirculate_meta, inout headers_t hdr,
                           in count_t meta, in psa_egress_output_metadata_t istd,
                           in psa_egress_deparser_input_metadata_t edstd) {
    apply {
        pkt.emit(hdr.ethernet);
    }
}

IngressPipeline(IngressParserImpl(), IngressImpl(), IngressDeparserImpl()) ip;
EgressPipeline(EgressParserImpl(), EgressImpl(), EgressDeparserImpl()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
