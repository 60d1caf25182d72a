/* PSA externs: Counter, DirectCounter, Register with an initial value, Hash, Meter,
 * Random, Digest, and InternetChecksum verifying the IPv4 checksum in the parser and
 * computing it again in the deparser (add, subtract, get_state and set_state). */
#include <core.p4>
#include <psa.p4>

error { BadIPv4Checksum }

header ethernet_t {
    bit<48> dstAddr;
    bit<48> srcAddr;
    bit<16> etherType;
}

header ipv4_t {
    bit<4>  version;
    bit<4>  ihl;
    bit<8>  diffserv;
    bit<16> totalLen;
    bit<16> identification;
    bit<3>  flags;
    bit<13> fragOffset;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> hdrChecksum;
    bit<32> srcAddr;
    bit<32> dstAddr;
}

struct headers_t {
    ethernet_t ethernet;
    ipv4_t     ipv4;
}

struct learn_t {
    bit<48> mac;
    bit<32> port;
}

struct metadata_t {
    bit<32> in_port;
}

struct empty_t {}

parser IngressParserImpl(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                         in psa_ingress_parser_input_metadata_t istd,
                         in empty_t resubmit_meta, in empty_t recirculate_meta) {
    InternetChecksum() ck;
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.ipv4);
        ck.add({hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.totalLen,
                hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.fragOffset, hdr.ipv4.ttl,
                hdr.ipv4.protocol, hdr.ipv4.hdrChecksum, hdr.ipv4.srcAddr, hdr.ipv4.dstAddr});
        verify(ck.get() == 0, error.BadIPv4Checksum);
        transition accept;
    }
}

control IngressImpl(inout headers_t hdr, inout metadata_t meta,
                    in psa_ingress_input_metadata_t istd,
                    inout psa_ingress_output_metadata_t ostd) {
    Counter<bit<64>, bit<8>>(8, PSA_CounterType_t.PACKETS_AND_BYTES) port_packets;
    DirectCounter<bit<64>>(PSA_CounterType_t.PACKETS) per_entry;
    Register<bit<16>, bit<8>>(4, 7) seen;
    Hash<bit<16>>(PSA_HashAlgorithm_t.CRC16) crc16;
    Hash<bit<8>>(PSA_HashAlgorithm_t.CRC32) crc32;
    Meter<bit<8>>(2, PSA_MeterType_t.PACKETS) rate;
    Random<bit<8>>(5, 5) five;

    action send(PortId_t port) {
        send_to_port(ostd, port);
    }
    table fwd {
        key = { hdr.ethernet.dstAddr: exact; }
        actions = { send; NoAction; }
        default_action = NoAction();
        psa_direct_counter = per_entry;
    }
    apply {
        port_packets.count((bit<8>) (PortIdUint_t) istd.ingress_port);
        meta.in_port = (PortIdUint_t) istd.ingress_port;
        if (istd.parser_error != error.NoError) {
            hdr.ethernet.etherType = 0xBAD0;
            send_to_port(ostd, (PortId_t) 9);
            return;
        }
        fwd.apply();
        bit<16> n = seen.read(1);
        seen.write(1, n + 1);
        hdr.ipv4.identification = crc16.get_hash({hdr.ipv4.srcAddr, hdr.ipv4.dstAddr});
        hdr.ipv4.diffserv = crc32.get_hash(8w10, {hdr.ipv4.srcAddr}, 8w4);
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
        PSA_MeterColor_t color = rate.execute(1);
        bit<8> code = 0;
        if (color == PSA_MeterColor_t.GREEN) { code = 1; }
        else if (color == PSA_MeterColor_t.YELLOW) { code = 2; }
        else if (color == PSA_MeterColor_t.RED) { code = 3; }
        hdr.ethernet.srcAddr[15:0] = five.read() ++ code;
    }
}

control IngressDeparserImpl(packet_out pkt, out empty_t clone_i2e_meta,
                            out empty_t resubmit_meta, out empty_t normal_meta,
                            inout headers_t hdr, in metadata_t meta,
                            in psa_ingress_output_metadata_t istd) {
    InternetChecksum() ck;
    InternetChecksum() copy;
    Digest<learn_t>() learned;
    apply {
        if (hdr.ethernet.etherType == 0x0800) {
            learned.pack({hdr.ethernet.srcAddr, meta.in_port});
        }
        if (hdr.ipv4.isValid()) {
            ck.add({hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.totalLen,
                    hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.fragOffset,
                    hdr.ipv4.ttl, hdr.ipv4.protocol, hdr.ethernet.etherType,
                    hdr.ipv4.srcAddr, hdr.ipv4.dstAddr});
            ck.subtract(hdr.ethernet.etherType);
            copy.set_state(ck.get_state());
            hdr.ipv4.hdrChecksum = copy.get();
        }
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv4);
    }
}

parser EgressParserImpl(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                        in psa_egress_parser_input_metadata_t istd, in empty_t normal_meta,
                        in empty_t clone_i2e_meta, in empty_t clone_e2e_meta) {
    state start {
        transition accept;
    }
}

control EgressImpl(inout headers_t hdr, inout metadata_t meta,
                   in psa_egress_input_metadata_t istd,
                   inout psa_egress_output_metadata_t ostd) {
    apply { }
}

control EgressDeparserImpl(packet_out pkt, out empty_t clone_e2e_meta,
                           out empty_t recirculate_meta, inout headers_t hdr,
                           in metadata_t meta, in psa_egress_output_metadata_t istd,
                           in psa_egress_deparser_input_metadata_t edstd) {
    apply { }
}

IngressPipeline(IngressParserImpl(), IngressImpl(), IngressDeparserImpl()) ip;
EgressPipeline(EgressParserImpl(), EgressImpl(), EgressDeparserImpl()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
