/* Generic headers, structs and header unions, specialized by their type arguments:
   the same declaration used at two widths, in a stack, in a union, in metadata. */
#include <core.p4>
#include <v1model.p4>

header tag_t<T> {
    T       value;
    bit<8>  kind;
}

struct pair_t<A, B> {
    A first;
    B second;
}

header_union either_t<T> {
    tag_t<T>       wide;
    tag_t<bit<8>>  narrow;
}

struct headers_t {
    tag_t<bit<16>>     t16;
    tag_t<bit<8>>[2]   t8;
    either_t<bit<24>>  u;
}

struct metadata_t {
    pair_t<bit<8>, bit<16>> p;
    pair_t<bit<16>, bool>   q;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.t16);
        pkt.extract(hdr.t8.next);
        pkt.extract(hdr.t8.next);
        transition select(hdr.t16.kind) {
            1: wide;
            default: narrow;
        }
    }
    state wide {
        pkt.extract(hdr.u.wide);
        transition accept;
    }
    state narrow {
        pkt.extract(hdr.u.narrow);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t sm) {
    apply {
        meta.p.first = hdr.t8[0].value;
        meta.p.second = hdr.t16.value;
        meta.q = { meta.p.second + (bit<16>)meta.p.first, hdr.u.wide.isValid() };
        hdr.t16.value = meta.q.first;
        if (meta.q.second) {
            hdr.u.wide.value = hdr.u.wide.value + 1;
        } else {
            hdr.u.narrow.value = hdr.t8[1].value;
        }
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t sm) { apply { } }

control MyCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
