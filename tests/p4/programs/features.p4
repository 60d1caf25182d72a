/* Language-coverage program for the frontend tests: most P4_16 constructs a v1model
 * program uses, in one place. */
#include <core.p4>
#include <v1model.p4>

#define ETH_IPV4 0x0800
#define MAX_LABELS 4
#define SUM(a, b) ((a) + (b))

#if defined(MAX_LABELS) && MAX_LABELS > 2
const bit<8> LABEL_DEPTH = MAX_LABELS;
#else
const bit<8> LABEL_DEPTH = 1;
#endif

typedef bit<48> mac_t;
type bit<32> ip_t;
typedef bit<9> port_t;

enum bit<8> Proto { TCP = 6, UDP = 17, ICMP = 0x1 }
enum Verdict { Pass, Drop, Punt }

error { BadLabel, TooManyLabels }

const bit<16> SUMMED = SUM(16w1, 2);
const int<8> NEG = -8s1;
const bit<32> BIG = 32w0xDEAD_BEEF;
const bool FLAG = true && !false;

@controller_header("packet_in")
header packet_in_h {
    bit<9> ingress_port;
    bit<7> _pad;
}

@controller_header("packet_out")
header packet_out_h {
    bit<9> egress_port;
    bit<7> _pad;
}

header ethernet_h {
    mac_t    dst;
    mac_t    src;
    bit<16>  ether_type;
}

header label_h {
    bit<20> label;
    bit<3>  tc;
    bit<1>  bos;
    bit<8>  ttl;
}

header ipv4_h {
    bit<4>  version;
    bit<4>  ihl;
    bit<8>  tos;
    bit<16> total_len;
    bit<16> id;
    bit<3>  flags;
    bit<13> frag;
    bit<8>  ttl;
    Proto   protocol;
    bit<16> checksum;
    bit<32> src;
    bit<32> dst;
}

header opts_h {
    varbit<320> data;
}

header tcp_h { bit<16> sport; bit<16> dport; bit<32> seq; }
header udp_h { bit<16> sport; bit<16> dport; bit<16> len; bit<16> csum; }

header_union l4_u {
    tcp_h tcp;
    udp_h udp;
}

struct digest_t {
    mac_t  src;
    port_t port;
}

struct meta_t {
    bit<32>  hash_val;
    bit<8>   color;
    bit<16>  counter_idx;
    bool     seen;
    Verdict  verdict;
    int<16>  signed_val;
    bit<32>  reg_val;
    @field_list(1) bit<8> preserved;
}

struct headers_t {
    packet_out_h         cpu_out;
    packet_in_h          cpu_in;
    ethernet_h           eth;
    label_h[MAX_LABELS]  labels;
    ipv4_h               ipv4;
    opts_h               opts;
    l4_u                 l4;
}

parser FeatureParser(packet_in pkt,
                     out headers_t hdr,
                     inout meta_t meta,
                     inout standard_metadata_t std) {
    value_set<bit<16>>(4) custom_types;
    bit<8> depth = 0;

    state start {
        transition select(std.ingress_port) {
            9w64: parse_cpu;
            default: parse_eth;
        }
    }

    state parse_cpu {
        pkt.extract(hdr.cpu_out);
        transition parse_eth;
    }

    state parse_eth {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.ether_type) {
            0x8847 &&& 0xFFFF: parse_label;
            ETH_IPV4: parse_ipv4;
            0x9000 .. 0x90FF: accept;
            custom_types: accept;
            _: reject;
        }
    }

    state parse_label {
        pkt.extract(hdr.labels.next);
        depth = depth + 1;
        verify(depth <= LABEL_DEPTH, error.TooManyLabels);
        transition select(hdr.labels.last.bos) {
            1w0: parse_label;
            1w1: check_ip;
        }
    }

    state check_ip {
        bit<4> version = pkt.lookahead<bit<4>>();
        transition select(version, pkt.lookahead<ipv4_h>().ihl) {
            (4, 5): parse_ipv4;
            (4, 6 .. 15): parse_ipv4_opts;
            (_, _): reject;
        }
    }

    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition select(hdr.ipv4.protocol) {
            Proto.TCP: parse_tcp;
            Proto.UDP: parse_udp;
            default: accept;
        }
    }

    state parse_ipv4_opts {
        pkt.extract(hdr.ipv4);
        pkt.extract(hdr.opts, (bit<32>)(hdr.ipv4.ihl - 5) * 32);
        transition accept;
    }

    state parse_tcp {
        pkt.extract(hdr.l4.tcp);
        transition accept;
    }

    state parse_udp {
        pkt.extract(hdr.l4.udp);
        pkt.advance(32w0);
        transition accept;
    }
}

control FeatureVerify(inout headers_t hdr, inout meta_t meta) {
    apply {
        verify_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.tos, hdr.ipv4.total_len,
              hdr.ipv4.id, hdr.ipv4.flags, hdr.ipv4.frag, hdr.ipv4.ttl,
              hdr.ipv4.protocol, hdr.ipv4.src, hdr.ipv4.dst },
            hdr.ipv4.checksum, HashAlgorithm.csum16);
    }
}

bit<16> fold16(in bit<32> x) {
    bit<32> s = (x >> 16) + (x & 0xFFFF);
    return s[15:0] |+| 16w0;
}

action global_set_verdict(inout meta_t m, Verdict v) {
    m.verdict = v;
}

control Counting(inout meta_t meta, in bit<16> idx)(bit<32> size) {
    counter(size, CounterType.packets_and_bytes) hits;
    direct_counter(CounterType.packets) t_hits;

    action count_it() {
        hits.count((bit<32>)idx);
    }

    table count_tbl {
        key = { idx: exact @name("index"); }
        actions = { count_it; @defaultonly NoAction; }
        counters = t_hits;
        const default_action = NoAction();
    }

    apply {
        count_tbl.apply();
    }
}

control FeatureIngress(inout headers_t hdr,
                       inout meta_t meta,
                       inout standard_metadata_t std) {
    register<bit<32>>(1024) flow_reg;
    meter(32w64, MeterType.bytes) port_meter;
    direct_meter<bit<8>>(MeterType.packets) lpm_meter;
    action_profile(128) nh_profile;
    Counting(32w256) counting;
    bit<16> tmp;

    action drop() {
        mark_to_drop(std);
        exit;
    }

    @name("set_port")
    action forward(port_t port, @name("smac") mac_t src_mac) {
        std.egress_spec = port;
        hdr.eth.src = src_mac;
        hdr.ipv4.ttl = hdr.ipv4.ttl |-| 1;
        lpm_meter.read(meta.color);
    }

    action to_cpu() {
        std.egress_spec = 64;
        hdr.cpu_in.setValid();
        hdr.cpu_in.ingress_port = std.ingress_port;
        clone3(CloneType.I2E, 32w100, { std.ingress_port });
    }

    action nh(bit<32> idx) {
        meta.hash_val = idx;
    }

    table ipv4_lpm {
        key = {
            hdr.ipv4.dst: lpm;
            hdr.ipv4.isValid(): exact;
        }
        actions = {
            forward;
            drop;
            to_cpu;
        }
        meters = lpm_meter;
        size = 2048;
        default_action = drop();
    }

    table acl {
        key = {
            hdr.eth.src      : ternary;
            hdr.ipv4.protocol: exact;
            hdr.l4.tcp.dport : range;
            meta.seen        : optional;
        }
        actions = { drop; NoAction; }
        const entries = {
            (48w0x0000_0000_0001 &&& 48w0xFFFF_FFFF_FFFF, Proto.TCP, 0 .. 1023, true): drop();
            @priority(5) (_, Proto.UDP, _, _): drop();
            priority = 7: (_, Proto.ICMP, 80 .. 80, false): NoAction();
        }
        largest_priority_wins = false;
        priority_delta = 10;
        default_action = NoAction;
    }

    table nexthop {
        key = {
            hdr.ipv4.src: exact;
            hdr.ipv4.dst[7:0]: exact;
        }
        actions = { nh; }
        implementation = nh_profile;
        support_timeout = true;
    }

    table switched {
        key = { meta.color: exact; }
        actions = { drop; forward; to_cpu; NoAction; }
        default_action = forward(1, 48w0xAABBCCDDEEFF);
    }

    apply {
        if (hdr.cpu_out.isValid()) {
            std.egress_spec = hdr.cpu_out.egress_port;
            hdr.cpu_out.setInvalid();
            exit;
        }
        tmp = fold16(hdr.ipv4.src ^ hdr.ipv4.dst);
        meta.counter_idx = tmp;
        counting.apply(meta, tmp);
        hash(meta.hash_val, HashAlgorithm.crc32, 32w0,
             { hdr.ipv4.src, hdr.ipv4.dst, hdr.ipv4.protocol }, 32w65536);
        flow_reg.read(meta.reg_val, meta.hash_val & 1023);
        flow_reg.write(meta.hash_val & 1023, meta.reg_val + 1);
        port_meter.execute_meter((bit<32>)std.ingress_port, meta.color);
        random(meta.preserved, 0, 255);
        meta.signed_val = (int<16>)(bit<16>)hdr.ipv4.ttl - 16s300;
        meta.seen = hdr.l4.tcp.isValid() || hdr.l4.udp.isValid() ? true : false;
        if (hdr.l4.isValid() && hdr.labels[0].isValid()) {
            hdr.labels.pop_front(1);
        } else if (!hdr.labels[MAX_LABELS - 1].isValid()) {
            hdr.labels.push_front(1);
            hdr.labels[0].setValid();
            hdr.labels[0] = { 20w16, 3w0, 1w1, 8w64 };
        }
        switch (ipv4_lpm.apply().action_run) {
            forward:
            to_cpu: {
                meta.verdict = Verdict.Pass;
            }
            drop: {
                global_set_verdict(meta, Verdict.Drop);
            }
        }
        if (acl.apply().hit) {
            nexthop.apply();
        }
        switch (meta.verdict) {
            Verdict.Punt: { to_cpu(); }
            default: { }
        }
        switch (hdr.ipv4.tos) {
            0: { hdr.ipv4.tos = (bit<8>)(SUMMED ++ 8w0)[15:8]; }
            1:
            2: { hdr.ipv4.tos = 8w1 << 2 >> 1; }
        }
        if (meta.verdict == Verdict.Pass) {
            digest<digest_t>(1, { hdr.eth.src, std.ingress_port });
            log_msg("forwarding port {}", { std.egress_spec });
        }
        switched.apply();
        clone_preserving_field_list(CloneType.I2E, 32w5, 1);
        resubmit_preserving_field_list(1);
        recirculate_preserving_field_list(1);
        truncate(32w64);
        assert(std.egress_spec != 511);
        assume(true);
        log_msg("done");
    }
}

control FeatureEgress(inout headers_t hdr,
                      inout meta_t meta,
                      inout standard_metadata_t std) {
    apply {
        if (std.instance_type == 1) {
            hdr.ipv4.tos = 0;
        }
    }
}

control FeatureCompute(inout headers_t hdr, inout meta_t meta) {
    apply {
        update_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.tos, hdr.ipv4.total_len,
              hdr.ipv4.id, hdr.ipv4.flags, hdr.ipv4.frag, hdr.ipv4.ttl,
              hdr.ipv4.protocol, hdr.ipv4.src, hdr.ipv4.dst },
            hdr.ipv4.checksum, HashAlgorithm.csum16);
        update_checksum_with_payload(hdr.l4.udp.isValid(),
            { hdr.ipv4.src, hdr.ipv4.dst, 8w0, hdr.ipv4.protocol, hdr.l4.udp.len },
            hdr.l4.udp.csum, HashAlgorithm.csum16);
    }
}

control FeatureDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.cpu_in);
        pkt.emit(hdr.eth);
        pkt.emit(hdr.labels);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.opts);
        pkt.emit(hdr.l4);
    }
}

V1Switch(FeatureParser(), FeatureVerify(), FeatureIngress(), FeatureEgress(),
         FeatureCompute(), FeatureDeparser()) main;
