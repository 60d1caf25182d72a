/* A PSA ActionSelector: table t picks a member by a CRC16 hash of the source address. */
#include <core.p4>
#include <psa.p4>
header ethernet_t { bit<48> dstAddr; bit<48> srcAddr; bit<16> etherType; }
struct headers_t { ethernet_t ethernet; }
struct metadata_t { }
struct empty_t { }
parser IngressParserImpl(packet_in pkt, out headers_t hdr, inout metadata_t meta,
    in psa_ingress_parser_input_metadata_t istd, in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start { pkt.extract(hdr.ethernet); transition accept; }
}
control ingress(inout headers_t hdr, inout metadata_t meta,
                in psa_ingress_input_metadata_t istd, inout psa_ingress_output_metadata_t ostd) {
    ActionSelector(PSA_HashAlgorithm_t.CRC16, 32w16, 32w10) sel;
    action fwd(PortId_t port) { send_to_port(ostd, port); }
    table t {
        key = { hdr.ethernet.dstAddr: exact; hdr.ethernet.srcAddr: selector; }
        actions = { fwd; NoAction; }
        psa_implementation = sel;
        default_action = NoAction();
    }
    apply { t.apply(); }
}
parser EgressParserImpl(packet_in buffer, out headers_t hdr, inout metadata_t meta,
    in psa_egress_parser_input_metadata_t istd, in empty_t normal_meta, in empty_t clone_i2e_meta, in empty_t clone_e2e_meta) {
    state start { buffer.extract(hdr.ethernet); transition accept; }
}
control egress(inout headers_t hdr, inout metadata_t meta, in psa_egress_input_metadata_t istd, inout psa_egress_output_metadata_t ostd) { apply { } }
control IngressDeparserImpl(packet_out buffer, out empty_t clone_i2e_meta, out empty_t resubmit_meta, out empty_t normal_meta,
    inout headers_t hdr, in metadata_t meta, in psa_ingress_output_metadata_t istd) { apply { buffer.emit(hdr.ethernet); } }
control EgressDeparserImpl(packet_out buffer, out empty_t clone_e2e_meta, out empty_t recirculate_meta,
    inout headers_t hdr, in metadata_t meta, in psa_egress_output_metadata_t istd, in psa_egress_deparser_input_metadata_t edstd) { apply { buffer.emit(hdr.ethernet); } }
IngressPipeline(IngressParserImpl(), ingress(), IngressDeparserImpl()) ip;
EgressPipeline(EgressParserImpl(), egress(), EgressDeparserImpl()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
