/* Checksums over a varbit field: verify_checksum sets checksum_error when the packet's does not match, update_checksum writes it; csum16 pads the odd byte. */
#include <core.p4>
#include <v1model.p4>

header len_t {
    bit<8> len;
}

header opt_t {
    varbit<32> data;
}

header h_t {
    bit<16> csum;
    bit<8>  err;
}

struct headers_t {
    len_t l;
    opt_t opt;
    h_t h;
}

struct metadata_t {

}

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.l);
        pkt.extract(hdr.opt, (bit<32>)hdr.l.len * 8);
        pkt.extract(hdr.h);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {
        verify_checksum(hdr.h.isValid(), { hdr.l.len, hdr.opt.data }, hdr.h.csum,
                        HashAlgorithm.csum16);
    }
}

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t sm) {
    apply {
        hdr.h.err = (bit<8>)sm.checksum_error;
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t sm) {
    apply { }
}

control MyComputeChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {
        update_checksum(hdr.h.isValid(), { hdr.l.len, hdr.opt.data }, hdr.h.csum,
                        HashAlgorithm.csum16);
    }
}

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.l);
        pkt.emit(hdr.opt);
        pkt.emit(hdr.h);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
