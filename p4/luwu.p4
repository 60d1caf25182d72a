/* LuWu-style model-in-network data parallelism on v1model, plus IPv4 forwarding.
 *
 * Workers push gradient chunks exactly as to p4/ina.p4 (UDP port 0xBEE0, 256 int32
 * fixed-point lanes, slot with a shadow-set bit, chunk sequence number, block exponent).
 * A LuWu job (ina_job action luwu_aggregate) differs from an INA job in where a complete
 * slot goes: not back to the workers but, as one packet (flags RESULT), to the job's
 * optimizer node (opt_addr, routed by ipv4_lpm). The optimizer node owns the parameters
 * and optimizer state; it answers with a parameter packet (flags PARAMS) for the same
 * job, slot and chunk, sent from opt_addr to the aggregator address. The switch stores
 * the parameters in the slot's lanes (they replace the gradient sum), marks the slot
 * answered and multicasts the packet to the job's workers (egress rewrites the addresses
 * per replica from its egress_rid). Parameters travel as raw IEEE-754 float32 bit
 * patterns in the lanes: the switch only stores and copies them, so workers receive the
 * optimizer's fp32 values bit for bit.
 *
 * Per gradient packet, against the slot (set, index) it names:
 *   slot empty, or the packet's chunk is newer than the slot's -> start a new round
 *   same chunk, worker bit clear, slot incomplete            -> add the lanes
 *   the contribution completes the slot                      -> sum to the optimizer node
 *   same chunk, worker bit set, slot complete and answered   -> retransmission: unicast
 *                                                               the parameters to the worker
 *   same chunk, worker bit set, slot complete, unanswered    -> the sum or the optimizer's
 *       answer was lost (or is still on its way): send the sum to the optimizer node again
 *       (flags RESULT | RETRANSMIT); the optimizer node applies each chunk once and answers
 *       a repeated chunk with the parameters it computed for it
 *   same chunk, worker bit set, slot incomplete              -> duplicate: drop
 *   older chunk, or worker bit clear on a complete slot      -> stale: drop
 * Per parameter packet: it must come from the job's optimizer address (else not_optimizer)
 * and name a complete slot holding the same chunk (else stale); a repeated answer is
 * multicast again (workers ignore results they already have).
 * A contribution to one set clears the worker's bit in the other set of the same slot.
 *
 * Parameters streamed to workers that do not keep them (LuWu's pull): a worker asks for
 * a chunk of parameters with a header-only packet (flags GRADIENT | PULL, no lanes) on
 * the job's pull job, another luwu_aggregate job. The switch counts requests exactly as
 * contributions, without touching the lanes, and hands the complete slot, header only,
 * to the optimizer node (flags RESULT | PULL), whose parameter answer it stores and
 * multicasts as above: each parameter chunk crosses the optimizer's link once per pull
 * whatever the number of workers. The optimizer node may also answer a gradient chunk
 * with a header-only parameter packet, an acknowledgement (the workers will pull the
 * parameters when they need them); the switch remembers that the slot was acknowledged
 * and multicasts the acknowledgement. A retransmission on an answered slot gets by
 * unicast what the slot's answer was, parameters or acknowledgement, resized to it.
 *
 * Lane widths: a job of bf16 workers sends its gradients flagged FLAG_LANES16, twice as
 * many int16 lanes in the same words (two per word, added as two 16-bit halves, as
 * p4/ina.p4 adds them), and its chunk is the 2 * 256 values of one such packet in
 * every direction: the optimizer node answers a chunk with its 2 * 256 parameters as
 * bf16 copies, two per word, flagged FLAG_LANES16 too (the switch stores and copies the
 * words, whatever their width); a sum and a pull keep the flag on the way to the
 * optimizer node. A contribution whose width differs from the one that opened its
 * slot's round is dropped as a bad type.
 *
 * Plain INA jobs (ina_aggregate: results multicast to the workers) run on the same
 * switch; LuWu workers use one to agree on the block exponents of a bucket before they
 * push its gradients: one exponent for the bucket (32-bit lanes), or, flagged FLAG_MAX
 * (32-bit lanes of plain INA jobs only), one lane per block of which the switch keeps
 * the largest (16-bit lanes: one exponent per packet's block, as p4/ina.p4 agrees them). Bad input is dropped before any register is touched, and counted
 * by reason (LUWU_DROP_REASONS of testbed/proto/ina.py).
 *
 * p4/luwu.p4 is rendered from this template (python -m testbed.proto.luwu_p4 >
 * p4/luwu.p4) with the lane count of testbed/proto/ina.py: edit the template.
 */
#include <core.p4>
#include <v1model.p4>

const bit<16> TYPE_IPV4 = 0x0800;
const bit<8>  PROTO_UDP = 17;
const bit<16> INA_PORT = 0xBEE0;
const bit<16> INA_UDP_LEN = 1045;     /* 8 (UDP) + 13 (ina_t) + 4 * 256 lanes */
const bit<16> INA_IP_LEN = 1065;      /* 20 (IPv4 without options) + INA_UDP_LEN */
const bit<16> INA_HDR_UDP_LEN = 21;     /* header-only: pulls and acknowledgements */
const bit<16> INA_HDR_IP_LEN = 41;
/* ina_t's group count: full-size packets only here (p4/ina.p4 also takes shorter ones) */
const bit<8> INA_GROUPS = 8;

const bit<8> FLAG_GRADIENT = 0x01;
const bit<8> FLAG_RESULT = 0x02;
const bit<8> FLAG_RETRANSMIT = 0x04;
const bit<8> FLAG_PARAMS = 0x08;
const bit<8> FLAG_PULL = 0x20;
const bit<8> FLAG_LANES16 = 0x40;
const bit<8> FLAG_MAX = 0x10;

/* slot_answered: what the optimizer node answered the slot's round with */
const bit<2> ANSWER_NONE = 0;
const bit<2> ANSWER_PARAMS = 1;         /* parameters, stored in the slot's lanes */
const bit<2> ANSWER_ACK = 2;            /* an acknowledgement, header only */

#define POOL 1024
#define REG_CELLS 2048                  /* two shadow sets of POOL slots */

/* indices of the ina_dropped counter */
const bit<32> DROP_BAD_LENGTH = 0;
const bit<32> DROP_UNKNOWN_JOB = 1;
const bit<32> DROP_BAD_TYPE = 2;
const bit<32> DROP_BAD_WORKER = 3;
const bit<32> DROP_BAD_SLOT = 4;
const bit<32> DROP_STALE = 5;
const bit<32> DROP_DUPLICATE = 6;
const bit<32> DROP_NOT_OPTIMIZER = 7;

/* indices of the ina_handled counter */
const bit<32> HANDLED_ABSORBED = 0;     /* added to an incomplete slot, nothing sent */
const bit<32> HANDLED_MULTICAST = 1;    /* INA job completed a slot: result to all workers */
const bit<32> HANDLED_UNICAST = 2;      /* INA job: retransmission on a complete slot */
const bit<32> HANDLED_TO_OPTIMIZER = 3; /* LuWu job completed a slot: sum to the optimizer */
const bit<32> HANDLED_REFORWARDED = 4;  /* retransmission on an unanswered slot: sum again */
const bit<32> HANDLED_PARAMS_MULTICAST = 5;  /* optimizer's parameters to all workers */
const bit<32> HANDLED_PARAMS_UNICAST = 6;    /* retransmission on an answered slot */
const bit<32> HANDLED_ACK_UNICAST = 7;       /* retransmission on an acknowledged slot */

const bit<2> JOB_UNKNOWN = 0;
const bit<2> JOB_AGGREGATE = 1;
const bit<2> JOB_LUWU = 2;

typedef bit<9>  egressSpec_t;
typedef bit<48> macAddr_t;
typedef bit<32> ip4Addr_t;

header ethernet_t {
    macAddr_t dstAddr;
    macAddr_t srcAddr;
    bit<16>   etherType;
}

header ipv4_t {
    bit<4>    version;
    bit<4>    ihl;
    bit<8>    diffserv;
    bit<16>   totalLen;
    bit<16>   identification;
    bit<3>    flags;
    bit<13>   fragOffset;
    bit<8>    ttl;
    bit<8>    protocol;
    bit<16>   hdrChecksum;
    ip4Addr_t srcAddr;
    ip4Addr_t dstAddr;
}

header udp_t {
    bit<16> srcPort;
    bit<16> dstPort;
    bit<16> length;
    bit<16> checksum;
}

header ina_t {
    bit<8> job_id;
    bit<8> worker_id;
    bit<8> flags;           /* FLAG_GRADIENT / FLAG_RESULT / ..., RETRANSMIT, LANES16, MAX, OVERFLOW */
    bit<8> n_workers;       /* in results: how many contributions the sum holds */
    bit<16> slot;           /* bit 15: shadow set; bits 14..0: slot index in the job */
    int<8> exponent;        /* block exponent e: |value| <= 2^e; results carry the max */
    int<8> next_exponent;   /* sender's exponent of its block for chunk + slots; results: the max */
    bit<32> chunk;          /* sequence number of the chunk in the job's stream */
    bit<8> groups;          /* lane groups the packet carries (0: header only) */
}

header ina_data_t {
    bit<32> v00;
    bit<32> v01;
    bit<32> v02;
    bit<32> v03;
    bit<32> v04;
    bit<32> v05;
    bit<32> v06;
    bit<32> v07;
    bit<32> v08;
    bit<32> v09;
    bit<32> v10;
    bit<32> v11;
    bit<32> v12;
    bit<32> v13;
    bit<32> v14;
    bit<32> v15;
    bit<32> v16;
    bit<32> v17;
    bit<32> v18;
    bit<32> v19;
    bit<32> v20;
    bit<32> v21;
    bit<32> v22;
    bit<32> v23;
    bit<32> v24;
    bit<32> v25;
    bit<32> v26;
    bit<32> v27;
    bit<32> v28;
    bit<32> v29;
    bit<32> v30;
    bit<32> v31;
    bit<32> v32;
    bit<32> v33;
    bit<32> v34;
    bit<32> v35;
    bit<32> v36;
    bit<32> v37;
    bit<32> v38;
    bit<32> v39;
    bit<32> v40;
    bit<32> v41;
    bit<32> v42;
    bit<32> v43;
    bit<32> v44;
    bit<32> v45;
    bit<32> v46;
    bit<32> v47;
    bit<32> v48;
    bit<32> v49;
    bit<32> v50;
    bit<32> v51;
    bit<32> v52;
    bit<32> v53;
    bit<32> v54;
    bit<32> v55;
    bit<32> v56;
    bit<32> v57;
    bit<32> v58;
    bit<32> v59;
    bit<32> v60;
    bit<32> v61;
    bit<32> v62;
    bit<32> v63;
    bit<32> v64;
    bit<32> v65;
    bit<32> v66;
    bit<32> v67;
    bit<32> v68;
    bit<32> v69;
    bit<32> v70;
    bit<32> v71;
    bit<32> v72;
    bit<32> v73;
    bit<32> v74;
    bit<32> v75;
    bit<32> v76;
    bit<32> v77;
    bit<32> v78;
    bit<32> v79;
    bit<32> v80;
    bit<32> v81;
    bit<32> v82;
    bit<32> v83;
    bit<32> v84;
    bit<32> v85;
    bit<32> v86;
    bit<32> v87;
    bit<32> v88;
    bit<32> v89;
    bit<32> v90;
    bit<32> v91;
    bit<32> v92;
    bit<32> v93;
    bit<32> v94;
    bit<32> v95;
    bit<32> v96;
    bit<32> v97;
    bit<32> v98;
    bit<32> v99;
    bit<32> v100;
    bit<32> v101;
    bit<32> v102;
    bit<32> v103;
    bit<32> v104;
    bit<32> v105;
    bit<32> v106;
    bit<32> v107;
    bit<32> v108;
    bit<32> v109;
    bit<32> v110;
    bit<32> v111;
    bit<32> v112;
    bit<32> v113;
    bit<32> v114;
    bit<32> v115;
    bit<32> v116;
    bit<32> v117;
    bit<32> v118;
    bit<32> v119;
    bit<32> v120;
    bit<32> v121;
    bit<32> v122;
    bit<32> v123;
    bit<32> v124;
    bit<32> v125;
    bit<32> v126;
    bit<32> v127;
    bit<32> v128;
    bit<32> v129;
    bit<32> v130;
    bit<32> v131;
    bit<32> v132;
    bit<32> v133;
    bit<32> v134;
    bit<32> v135;
    bit<32> v136;
    bit<32> v137;
    bit<32> v138;
    bit<32> v139;
    bit<32> v140;
    bit<32> v141;
    bit<32> v142;
    bit<32> v143;
    bit<32> v144;
    bit<32> v145;
    bit<32> v146;
    bit<32> v147;
    bit<32> v148;
    bit<32> v149;
    bit<32> v150;
    bit<32> v151;
    bit<32> v152;
    bit<32> v153;
    bit<32> v154;
    bit<32> v155;
    bit<32> v156;
    bit<32> v157;
    bit<32> v158;
    bit<32> v159;
    bit<32> v160;
    bit<32> v161;
    bit<32> v162;
    bit<32> v163;
    bit<32> v164;
    bit<32> v165;
    bit<32> v166;
    bit<32> v167;
    bit<32> v168;
    bit<32> v169;
    bit<32> v170;
    bit<32> v171;
    bit<32> v172;
    bit<32> v173;
    bit<32> v174;
    bit<32> v175;
    bit<32> v176;
    bit<32> v177;
    bit<32> v178;
    bit<32> v179;
    bit<32> v180;
    bit<32> v181;
    bit<32> v182;
    bit<32> v183;
    bit<32> v184;
    bit<32> v185;
    bit<32> v186;
    bit<32> v187;
    bit<32> v188;
    bit<32> v189;
    bit<32> v190;
    bit<32> v191;
    bit<32> v192;
    bit<32> v193;
    bit<32> v194;
    bit<32> v195;
    bit<32> v196;
    bit<32> v197;
    bit<32> v198;
    bit<32> v199;
    bit<32> v200;
    bit<32> v201;
    bit<32> v202;
    bit<32> v203;
    bit<32> v204;
    bit<32> v205;
    bit<32> v206;
    bit<32> v207;
    bit<32> v208;
    bit<32> v209;
    bit<32> v210;
    bit<32> v211;
    bit<32> v212;
    bit<32> v213;
    bit<32> v214;
    bit<32> v215;
    bit<32> v216;
    bit<32> v217;
    bit<32> v218;
    bit<32> v219;
    bit<32> v220;
    bit<32> v221;
    bit<32> v222;
    bit<32> v223;
    bit<32> v224;
    bit<32> v225;
    bit<32> v226;
    bit<32> v227;
    bit<32> v228;
    bit<32> v229;
    bit<32> v230;
    bit<32> v231;
    bit<32> v232;
    bit<32> v233;
    bit<32> v234;
    bit<32> v235;
    bit<32> v236;
    bit<32> v237;
    bit<32> v238;
    bit<32> v239;
    bit<32> v240;
    bit<32> v241;
    bit<32> v242;
    bit<32> v243;
    bit<32> v244;
    bit<32> v245;
    bit<32> v246;
    bit<32> v247;
    bit<32> v248;
    bit<32> v249;
    bit<32> v250;
    bit<32> v251;
    bit<32> v252;
    bit<32> v253;
    bit<32> v254;
    bit<32> v255;
}

struct metadata {
    bit<1>    local;        /* the packet is addressed to one of our aggregator addresses */
    bit<2>    job_kind;
    bit<32>   slot_base;
    bit<32>   slot_count;
    bit<8>    n_workers;
    bit<16>   mcast_grp;
    ip4Addr_t opt_addr;     /* LuWu job: the optimizer node's address */
    bit<32>   idx;          /* register cell of the slot the packet names */
    bit<32>   other_idx;    /* the same slot in the other shadow set */
}

struct headers {
    ethernet_t ethernet;
    ipv4_t     ipv4;
    udp_t      udp;
    ina_t      ina;
    ina_data_t ina_data;
}

parser MyParser(packet_in packet,
                out headers hdr,
                inout metadata meta,
                inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            TYPE_IPV4: parse_ipv4;
            default: accept;
        }
    }

    state parse_ipv4 {
        packet.extract(hdr.ipv4);
        transition select(hdr.ipv4.protocol) {
            PROTO_UDP: parse_udp;
            default: accept;
        }
    }

    state parse_udp {
        packet.extract(hdr.udp);
        transition select(hdr.udp.dstPort) {
            INA_PORT: parse_ina;
            default: accept;
        }
    }

    /* A payload of any other length leaves ina_data invalid; ingress drops it. */
    state parse_ina {
        packet.extract(hdr.ina);
        transition select(hdr.udp.length) {
            INA_UDP_LEN: parse_ina_data;
            default: accept;
        }
    }

    state parse_ina_data {
        packet.extract(hdr.ina_data);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers hdr, inout metadata meta) {
    apply {
        verify_checksum(
            hdr.ipv4.isValid(),
            { hdr.ipv4.version,
              hdr.ipv4.ihl,
              hdr.ipv4.diffserv,
              hdr.ipv4.totalLen,
              hdr.ipv4.identification,
              hdr.ipv4.flags,
              hdr.ipv4.fragOffset,
              hdr.ipv4.ttl,
              hdr.ipv4.protocol,
              hdr.ipv4.srcAddr,
              hdr.ipv4.dstAddr },
            hdr.ipv4.hdrChecksum,
            HashAlgorithm.csum16);
    }
}

control MyIngress(inout headers hdr,
                  inout metadata meta,
                  inout standard_metadata_t standard_metadata) {
    register<bit<32>>(REG_CELLS) slot_bitmap;
    register<bit<8>>(REG_CELLS) slot_count;
    register<bit<8>>(REG_CELLS) slot_exponent;
    register<bit<32>>(REG_CELLS) slot_chunk;
    register<bit<2>>(REG_CELLS) slot_answered;   /* LuWu: ANSWER_* */
    register<bit<8>>(REG_CELLS) slot_lanes;      /* the round's FLAG_LANES16 / FLAG_MAX bits */
    register<bit<32>>(REG_CELLS) lane_v00;
    register<bit<32>>(REG_CELLS) lane_v01;
    register<bit<32>>(REG_CELLS) lane_v02;
    register<bit<32>>(REG_CELLS) lane_v03;
    register<bit<32>>(REG_CELLS) lane_v04;
    register<bit<32>>(REG_CELLS) lane_v05;
    register<bit<32>>(REG_CELLS) lane_v06;
    register<bit<32>>(REG_CELLS) lane_v07;
    register<bit<32>>(REG_CELLS) lane_v08;
    register<bit<32>>(REG_CELLS) lane_v09;
    register<bit<32>>(REG_CELLS) lane_v10;
    register<bit<32>>(REG_CELLS) lane_v11;
    register<bit<32>>(REG_CELLS) lane_v12;
    register<bit<32>>(REG_CELLS) lane_v13;
    register<bit<32>>(REG_CELLS) lane_v14;
    register<bit<32>>(REG_CELLS) lane_v15;
    register<bit<32>>(REG_CELLS) lane_v16;
    register<bit<32>>(REG_CELLS) lane_v17;
    register<bit<32>>(REG_CELLS) lane_v18;
    register<bit<32>>(REG_CELLS) lane_v19;
    register<bit<32>>(REG_CELLS) lane_v20;
    register<bit<32>>(REG_CELLS) lane_v21;
    register<bit<32>>(REG_CELLS) lane_v22;
    register<bit<32>>(REG_CELLS) lane_v23;
    register<bit<32>>(REG_CELLS) lane_v24;
    register<bit<32>>(REG_CELLS) lane_v25;
    register<bit<32>>(REG_CELLS) lane_v26;
    register<bit<32>>(REG_CELLS) lane_v27;
    register<bit<32>>(REG_CELLS) lane_v28;
    register<bit<32>>(REG_CELLS) lane_v29;
    register<bit<32>>(REG_CELLS) lane_v30;
    register<bit<32>>(REG_CELLS) lane_v31;
    register<bit<32>>(REG_CELLS) lane_v32;
    register<bit<32>>(REG_CELLS) lane_v33;
    register<bit<32>>(REG_CELLS) lane_v34;
    register<bit<32>>(REG_CELLS) lane_v35;
    register<bit<32>>(REG_CELLS) lane_v36;
    register<bit<32>>(REG_CELLS) lane_v37;
    register<bit<32>>(REG_CELLS) lane_v38;
    register<bit<32>>(REG_CELLS) lane_v39;
    register<bit<32>>(REG_CELLS) lane_v40;
    register<bit<32>>(REG_CELLS) lane_v41;
    register<bit<32>>(REG_CELLS) lane_v42;
    register<bit<32>>(REG_CELLS) lane_v43;
    register<bit<32>>(REG_CELLS) lane_v44;
    register<bit<32>>(REG_CELLS) lane_v45;
    register<bit<32>>(REG_CELLS) lane_v46;
    register<bit<32>>(REG_CELLS) lane_v47;
    register<bit<32>>(REG_CELLS) lane_v48;
    register<bit<32>>(REG_CELLS) lane_v49;
    register<bit<32>>(REG_CELLS) lane_v50;
    register<bit<32>>(REG_CELLS) lane_v51;
    register<bit<32>>(REG_CELLS) lane_v52;
    register<bit<32>>(REG_CELLS) lane_v53;
    register<bit<32>>(REG_CELLS) lane_v54;
    register<bit<32>>(REG_CELLS) lane_v55;
    register<bit<32>>(REG_CELLS) lane_v56;
    register<bit<32>>(REG_CELLS) lane_v57;
    register<bit<32>>(REG_CELLS) lane_v58;
    register<bit<32>>(REG_CELLS) lane_v59;
    register<bit<32>>(REG_CELLS) lane_v60;
    register<bit<32>>(REG_CELLS) lane_v61;
    register<bit<32>>(REG_CELLS) lane_v62;
    register<bit<32>>(REG_CELLS) lane_v63;
    register<bit<32>>(REG_CELLS) lane_v64;
    register<bit<32>>(REG_CELLS) lane_v65;
    register<bit<32>>(REG_CELLS) lane_v66;
    register<bit<32>>(REG_CELLS) lane_v67;
    register<bit<32>>(REG_CELLS) lane_v68;
    register<bit<32>>(REG_CELLS) lane_v69;
    register<bit<32>>(REG_CELLS) lane_v70;
    register<bit<32>>(REG_CELLS) lane_v71;
    register<bit<32>>(REG_CELLS) lane_v72;
    register<bit<32>>(REG_CELLS) lane_v73;
    register<bit<32>>(REG_CELLS) lane_v74;
    register<bit<32>>(REG_CELLS) lane_v75;
    register<bit<32>>(REG_CELLS) lane_v76;
    register<bit<32>>(REG_CELLS) lane_v77;
    register<bit<32>>(REG_CELLS) lane_v78;
    register<bit<32>>(REG_CELLS) lane_v79;
    register<bit<32>>(REG_CELLS) lane_v80;
    register<bit<32>>(REG_CELLS) lane_v81;
    register<bit<32>>(REG_CELLS) lane_v82;
    register<bit<32>>(REG_CELLS) lane_v83;
    register<bit<32>>(REG_CELLS) lane_v84;
    register<bit<32>>(REG_CELLS) lane_v85;
    register<bit<32>>(REG_CELLS) lane_v86;
    register<bit<32>>(REG_CELLS) lane_v87;
    register<bit<32>>(REG_CELLS) lane_v88;
    register<bit<32>>(REG_CELLS) lane_v89;
    register<bit<32>>(REG_CELLS) lane_v90;
    register<bit<32>>(REG_CELLS) lane_v91;
    register<bit<32>>(REG_CELLS) lane_v92;
    register<bit<32>>(REG_CELLS) lane_v93;
    register<bit<32>>(REG_CELLS) lane_v94;
    register<bit<32>>(REG_CELLS) lane_v95;
    register<bit<32>>(REG_CELLS) lane_v96;
    register<bit<32>>(REG_CELLS) lane_v97;
    register<bit<32>>(REG_CELLS) lane_v98;
    register<bit<32>>(REG_CELLS) lane_v99;
    register<bit<32>>(REG_CELLS) lane_v100;
    register<bit<32>>(REG_CELLS) lane_v101;
    register<bit<32>>(REG_CELLS) lane_v102;
    register<bit<32>>(REG_CELLS) lane_v103;
    register<bit<32>>(REG_CELLS) lane_v104;
    register<bit<32>>(REG_CELLS) lane_v105;
    register<bit<32>>(REG_CELLS) lane_v106;
    register<bit<32>>(REG_CELLS) lane_v107;
    register<bit<32>>(REG_CELLS) lane_v108;
    register<bit<32>>(REG_CELLS) lane_v109;
    register<bit<32>>(REG_CELLS) lane_v110;
    register<bit<32>>(REG_CELLS) lane_v111;
    register<bit<32>>(REG_CELLS) lane_v112;
    register<bit<32>>(REG_CELLS) lane_v113;
    register<bit<32>>(REG_CELLS) lane_v114;
    register<bit<32>>(REG_CELLS) lane_v115;
    register<bit<32>>(REG_CELLS) lane_v116;
    register<bit<32>>(REG_CELLS) lane_v117;
    register<bit<32>>(REG_CELLS) lane_v118;
    register<bit<32>>(REG_CELLS) lane_v119;
    register<bit<32>>(REG_CELLS) lane_v120;
    register<bit<32>>(REG_CELLS) lane_v121;
    register<bit<32>>(REG_CELLS) lane_v122;
    register<bit<32>>(REG_CELLS) lane_v123;
    register<bit<32>>(REG_CELLS) lane_v124;
    register<bit<32>>(REG_CELLS) lane_v125;
    register<bit<32>>(REG_CELLS) lane_v126;
    register<bit<32>>(REG_CELLS) lane_v127;
    register<bit<32>>(REG_CELLS) lane_v128;
    register<bit<32>>(REG_CELLS) lane_v129;
    register<bit<32>>(REG_CELLS) lane_v130;
    register<bit<32>>(REG_CELLS) lane_v131;
    register<bit<32>>(REG_CELLS) lane_v132;
    register<bit<32>>(REG_CELLS) lane_v133;
    register<bit<32>>(REG_CELLS) lane_v134;
    register<bit<32>>(REG_CELLS) lane_v135;
    register<bit<32>>(REG_CELLS) lane_v136;
    register<bit<32>>(REG_CELLS) lane_v137;
    register<bit<32>>(REG_CELLS) lane_v138;
    register<bit<32>>(REG_CELLS) lane_v139;
    register<bit<32>>(REG_CELLS) lane_v140;
    register<bit<32>>(REG_CELLS) lane_v141;
    register<bit<32>>(REG_CELLS) lane_v142;
    register<bit<32>>(REG_CELLS) lane_v143;
    register<bit<32>>(REG_CELLS) lane_v144;
    register<bit<32>>(REG_CELLS) lane_v145;
    register<bit<32>>(REG_CELLS) lane_v146;
    register<bit<32>>(REG_CELLS) lane_v147;
    register<bit<32>>(REG_CELLS) lane_v148;
    register<bit<32>>(REG_CELLS) lane_v149;
    register<bit<32>>(REG_CELLS) lane_v150;
    register<bit<32>>(REG_CELLS) lane_v151;
    register<bit<32>>(REG_CELLS) lane_v152;
    register<bit<32>>(REG_CELLS) lane_v153;
    register<bit<32>>(REG_CELLS) lane_v154;
    register<bit<32>>(REG_CELLS) lane_v155;
    register<bit<32>>(REG_CELLS) lane_v156;
    register<bit<32>>(REG_CELLS) lane_v157;
    register<bit<32>>(REG_CELLS) lane_v158;
    register<bit<32>>(REG_CELLS) lane_v159;
    register<bit<32>>(REG_CELLS) lane_v160;
    register<bit<32>>(REG_CELLS) lane_v161;
    register<bit<32>>(REG_CELLS) lane_v162;
    register<bit<32>>(REG_CELLS) lane_v163;
    register<bit<32>>(REG_CELLS) lane_v164;
    register<bit<32>>(REG_CELLS) lane_v165;
    register<bit<32>>(REG_CELLS) lane_v166;
    register<bit<32>>(REG_CELLS) lane_v167;
    register<bit<32>>(REG_CELLS) lane_v168;
    register<bit<32>>(REG_CELLS) lane_v169;
    register<bit<32>>(REG_CELLS) lane_v170;
    register<bit<32>>(REG_CELLS) lane_v171;
    register<bit<32>>(REG_CELLS) lane_v172;
    register<bit<32>>(REG_CELLS) lane_v173;
    register<bit<32>>(REG_CELLS) lane_v174;
    register<bit<32>>(REG_CELLS) lane_v175;
    register<bit<32>>(REG_CELLS) lane_v176;
    register<bit<32>>(REG_CELLS) lane_v177;
    register<bit<32>>(REG_CELLS) lane_v178;
    register<bit<32>>(REG_CELLS) lane_v179;
    register<bit<32>>(REG_CELLS) lane_v180;
    register<bit<32>>(REG_CELLS) lane_v181;
    register<bit<32>>(REG_CELLS) lane_v182;
    register<bit<32>>(REG_CELLS) lane_v183;
    register<bit<32>>(REG_CELLS) lane_v184;
    register<bit<32>>(REG_CELLS) lane_v185;
    register<bit<32>>(REG_CELLS) lane_v186;
    register<bit<32>>(REG_CELLS) lane_v187;
    register<bit<32>>(REG_CELLS) lane_v188;
    register<bit<32>>(REG_CELLS) lane_v189;
    register<bit<32>>(REG_CELLS) lane_v190;
    register<bit<32>>(REG_CELLS) lane_v191;
    register<bit<32>>(REG_CELLS) lane_v192;
    register<bit<32>>(REG_CELLS) lane_v193;
    register<bit<32>>(REG_CELLS) lane_v194;
    register<bit<32>>(REG_CELLS) lane_v195;
    register<bit<32>>(REG_CELLS) lane_v196;
    register<bit<32>>(REG_CELLS) lane_v197;
    register<bit<32>>(REG_CELLS) lane_v198;
    register<bit<32>>(REG_CELLS) lane_v199;
    register<bit<32>>(REG_CELLS) lane_v200;
    register<bit<32>>(REG_CELLS) lane_v201;
    register<bit<32>>(REG_CELLS) lane_v202;
    register<bit<32>>(REG_CELLS) lane_v203;
    register<bit<32>>(REG_CELLS) lane_v204;
    register<bit<32>>(REG_CELLS) lane_v205;
    register<bit<32>>(REG_CELLS) lane_v206;
    register<bit<32>>(REG_CELLS) lane_v207;
    register<bit<32>>(REG_CELLS) lane_v208;
    register<bit<32>>(REG_CELLS) lane_v209;
    register<bit<32>>(REG_CELLS) lane_v210;
    register<bit<32>>(REG_CELLS) lane_v211;
    register<bit<32>>(REG_CELLS) lane_v212;
    register<bit<32>>(REG_CELLS) lane_v213;
    register<bit<32>>(REG_CELLS) lane_v214;
    register<bit<32>>(REG_CELLS) lane_v215;
    register<bit<32>>(REG_CELLS) lane_v216;
    register<bit<32>>(REG_CELLS) lane_v217;
    register<bit<32>>(REG_CELLS) lane_v218;
    register<bit<32>>(REG_CELLS) lane_v219;
    register<bit<32>>(REG_CELLS) lane_v220;
    register<bit<32>>(REG_CELLS) lane_v221;
    register<bit<32>>(REG_CELLS) lane_v222;
    register<bit<32>>(REG_CELLS) lane_v223;
    register<bit<32>>(REG_CELLS) lane_v224;
    register<bit<32>>(REG_CELLS) lane_v225;
    register<bit<32>>(REG_CELLS) lane_v226;
    register<bit<32>>(REG_CELLS) lane_v227;
    register<bit<32>>(REG_CELLS) lane_v228;
    register<bit<32>>(REG_CELLS) lane_v229;
    register<bit<32>>(REG_CELLS) lane_v230;
    register<bit<32>>(REG_CELLS) lane_v231;
    register<bit<32>>(REG_CELLS) lane_v232;
    register<bit<32>>(REG_CELLS) lane_v233;
    register<bit<32>>(REG_CELLS) lane_v234;
    register<bit<32>>(REG_CELLS) lane_v235;
    register<bit<32>>(REG_CELLS) lane_v236;
    register<bit<32>>(REG_CELLS) lane_v237;
    register<bit<32>>(REG_CELLS) lane_v238;
    register<bit<32>>(REG_CELLS) lane_v239;
    register<bit<32>>(REG_CELLS) lane_v240;
    register<bit<32>>(REG_CELLS) lane_v241;
    register<bit<32>>(REG_CELLS) lane_v242;
    register<bit<32>>(REG_CELLS) lane_v243;
    register<bit<32>>(REG_CELLS) lane_v244;
    register<bit<32>>(REG_CELLS) lane_v245;
    register<bit<32>>(REG_CELLS) lane_v246;
    register<bit<32>>(REG_CELLS) lane_v247;
    register<bit<32>>(REG_CELLS) lane_v248;
    register<bit<32>>(REG_CELLS) lane_v249;
    register<bit<32>>(REG_CELLS) lane_v250;
    register<bit<32>>(REG_CELLS) lane_v251;
    register<bit<32>>(REG_CELLS) lane_v252;
    register<bit<32>>(REG_CELLS) lane_v253;
    register<bit<32>>(REG_CELLS) lane_v254;
    register<bit<32>>(REG_CELLS) lane_v255;
    counter(8, CounterType.packets) ina_dropped;
    counter(8, CounterType.packets_and_bytes) ina_handled;

    bit<32> acc;

    action drop() {
        mark_to_drop(standard_metadata);
    }

    action ipv4_forward(macAddr_t dstAddr, egressSpec_t port) {
        standard_metadata.egress_spec = port;
        hdr.ethernet.srcAddr = hdr.ethernet.dstAddr;
        hdr.ethernet.dstAddr = dstAddr;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
    }

    table ipv4_lpm {
        key = {
            hdr.ipv4.dstAddr: lpm;
        }
        actions = {
            ipv4_forward;
            drop;
            NoAction;
        }
        size = 1024;
        default_action = drop();
    }

    action aggregator_address() {
        meta.local = 1;
    }

    /* Addresses this switch aggregates for; INA packets to other addresses are forwarded. */
    table ina_aggregator {
        key = {
            hdr.ipv4.dstAddr: exact;
        }
        actions = {
            aggregator_address;
            NoAction;
        }
        size = 64;
        default_action = NoAction();
    }

    action ina_aggregate(bit<32> slot_base, bit<32> slot_count, bit<8> n_workers,
                         bit<16> mcast_grp) {
        meta.job_kind = JOB_AGGREGATE;
        meta.slot_base = slot_base;
        meta.slot_count = slot_count;
        meta.n_workers = n_workers;
        meta.mcast_grp = mcast_grp;
    }

    action luwu_aggregate(bit<32> slot_base, bit<32> slot_count, bit<8> n_workers,
                          bit<16> mcast_grp, ip4Addr_t opt_addr) {
        meta.job_kind = JOB_LUWU;
        meta.slot_base = slot_base;
        meta.slot_count = slot_count;
        meta.n_workers = n_workers;
        meta.mcast_grp = mcast_grp;
        meta.opt_addr = opt_addr;
    }

    table ina_job {
        key = {
            hdr.ipv4.dstAddr: exact;
            hdr.ina.job_id: exact;
        }
        actions = {
            ina_aggregate;
            luwu_aggregate;
            NoAction;
        }
        size = 256;
        default_action = NoAction();
    }

    action lanes_store() {
        lane_v00.write(meta.idx, hdr.ina_data.v00);
        lane_v01.write(meta.idx, hdr.ina_data.v01);
        lane_v02.write(meta.idx, hdr.ina_data.v02);
        lane_v03.write(meta.idx, hdr.ina_data.v03);
        lane_v04.write(meta.idx, hdr.ina_data.v04);
        lane_v05.write(meta.idx, hdr.ina_data.v05);
        lane_v06.write(meta.idx, hdr.ina_data.v06);
        lane_v07.write(meta.idx, hdr.ina_data.v07);
        lane_v08.write(meta.idx, hdr.ina_data.v08);
        lane_v09.write(meta.idx, hdr.ina_data.v09);
        lane_v10.write(meta.idx, hdr.ina_data.v10);
        lane_v11.write(meta.idx, hdr.ina_data.v11);
        lane_v12.write(meta.idx, hdr.ina_data.v12);
        lane_v13.write(meta.idx, hdr.ina_data.v13);
        lane_v14.write(meta.idx, hdr.ina_data.v14);
        lane_v15.write(meta.idx, hdr.ina_data.v15);
        lane_v16.write(meta.idx, hdr.ina_data.v16);
        lane_v17.write(meta.idx, hdr.ina_data.v17);
        lane_v18.write(meta.idx, hdr.ina_data.v18);
        lane_v19.write(meta.idx, hdr.ina_data.v19);
        lane_v20.write(meta.idx, hdr.ina_data.v20);
        lane_v21.write(meta.idx, hdr.ina_data.v21);
        lane_v22.write(meta.idx, hdr.ina_data.v22);
        lane_v23.write(meta.idx, hdr.ina_data.v23);
        lane_v24.write(meta.idx, hdr.ina_data.v24);
        lane_v25.write(meta.idx, hdr.ina_data.v25);
        lane_v26.write(meta.idx, hdr.ina_data.v26);
        lane_v27.write(meta.idx, hdr.ina_data.v27);
        lane_v28.write(meta.idx, hdr.ina_data.v28);
        lane_v29.write(meta.idx, hdr.ina_data.v29);
        lane_v30.write(meta.idx, hdr.ina_data.v30);
        lane_v31.write(meta.idx, hdr.ina_data.v31);
        lane_v32.write(meta.idx, hdr.ina_data.v32);
        lane_v33.write(meta.idx, hdr.ina_data.v33);
        lane_v34.write(meta.idx, hdr.ina_data.v34);
        lane_v35.write(meta.idx, hdr.ina_data.v35);
        lane_v36.write(meta.idx, hdr.ina_data.v36);
        lane_v37.write(meta.idx, hdr.ina_data.v37);
        lane_v38.write(meta.idx, hdr.ina_data.v38);
        lane_v39.write(meta.idx, hdr.ina_data.v39);
        lane_v40.write(meta.idx, hdr.ina_data.v40);
        lane_v41.write(meta.idx, hdr.ina_data.v41);
        lane_v42.write(meta.idx, hdr.ina_data.v42);
        lane_v43.write(meta.idx, hdr.ina_data.v43);
        lane_v44.write(meta.idx, hdr.ina_data.v44);
        lane_v45.write(meta.idx, hdr.ina_data.v45);
        lane_v46.write(meta.idx, hdr.ina_data.v46);
        lane_v47.write(meta.idx, hdr.ina_data.v47);
        lane_v48.write(meta.idx, hdr.ina_data.v48);
        lane_v49.write(meta.idx, hdr.ina_data.v49);
        lane_v50.write(meta.idx, hdr.ina_data.v50);
        lane_v51.write(meta.idx, hdr.ina_data.v51);
        lane_v52.write(meta.idx, hdr.ina_data.v52);
        lane_v53.write(meta.idx, hdr.ina_data.v53);
        lane_v54.write(meta.idx, hdr.ina_data.v54);
        lane_v55.write(meta.idx, hdr.ina_data.v55);
        lane_v56.write(meta.idx, hdr.ina_data.v56);
        lane_v57.write(meta.idx, hdr.ina_data.v57);
        lane_v58.write(meta.idx, hdr.ina_data.v58);
        lane_v59.write(meta.idx, hdr.ina_data.v59);
        lane_v60.write(meta.idx, hdr.ina_data.v60);
        lane_v61.write(meta.idx, hdr.ina_data.v61);
        lane_v62.write(meta.idx, hdr.ina_data.v62);
        lane_v63.write(meta.idx, hdr.ina_data.v63);
        lane_v64.write(meta.idx, hdr.ina_data.v64);
        lane_v65.write(meta.idx, hdr.ina_data.v65);
        lane_v66.write(meta.idx, hdr.ina_data.v66);
        lane_v67.write(meta.idx, hdr.ina_data.v67);
        lane_v68.write(meta.idx, hdr.ina_data.v68);
        lane_v69.write(meta.idx, hdr.ina_data.v69);
        lane_v70.write(meta.idx, hdr.ina_data.v70);
        lane_v71.write(meta.idx, hdr.ina_data.v71);
        lane_v72.write(meta.idx, hdr.ina_data.v72);
        lane_v73.write(meta.idx, hdr.ina_data.v73);
        lane_v74.write(meta.idx, hdr.ina_data.v74);
        lane_v75.write(meta.idx, hdr.ina_data.v75);
        lane_v76.write(meta.idx, hdr.ina_data.v76);
        lane_v77.write(meta.idx, hdr.ina_data.v77);
        lane_v78.write(meta.idx, hdr.ina_data.v78);
        lane_v79.write(meta.idx, hdr.ina_data.v79);
        lane_v80.write(meta.idx, hdr.ina_data.v80);
        lane_v81.write(meta.idx, hdr.ina_data.v81);
        lane_v82.write(meta.idx, hdr.ina_data.v82);
        lane_v83.write(meta.idx, hdr.ina_data.v83);
        lane_v84.write(meta.idx, hdr.ina_data.v84);
        lane_v85.write(meta.idx, hdr.ina_data.v85);
        lane_v86.write(meta.idx, hdr.ina_data.v86);
        lane_v87.write(meta.idx, hdr.ina_data.v87);
        lane_v88.write(meta.idx, hdr.ina_data.v88);
        lane_v89.write(meta.idx, hdr.ina_data.v89);
        lane_v90.write(meta.idx, hdr.ina_data.v90);
        lane_v91.write(meta.idx, hdr.ina_data.v91);
        lane_v92.write(meta.idx, hdr.ina_data.v92);
        lane_v93.write(meta.idx, hdr.ina_data.v93);
        lane_v94.write(meta.idx, hdr.ina_data.v94);
        lane_v95.write(meta.idx, hdr.ina_data.v95);
        lane_v96.write(meta.idx, hdr.ina_data.v96);
        lane_v97.write(meta.idx, hdr.ina_data.v97);
        lane_v98.write(meta.idx, hdr.ina_data.v98);
        lane_v99.write(meta.idx, hdr.ina_data.v99);
        lane_v100.write(meta.idx, hdr.ina_data.v100);
        lane_v101.write(meta.idx, hdr.ina_data.v101);
        lane_v102.write(meta.idx, hdr.ina_data.v102);
        lane_v103.write(meta.idx, hdr.ina_data.v103);
        lane_v104.write(meta.idx, hdr.ina_data.v104);
        lane_v105.write(meta.idx, hdr.ina_data.v105);
        lane_v106.write(meta.idx, hdr.ina_data.v106);
        lane_v107.write(meta.idx, hdr.ina_data.v107);
        lane_v108.write(meta.idx, hdr.ina_data.v108);
        lane_v109.write(meta.idx, hdr.ina_data.v109);
        lane_v110.write(meta.idx, hdr.ina_data.v110);
        lane_v111.write(meta.idx, hdr.ina_data.v111);
        lane_v112.write(meta.idx, hdr.ina_data.v112);
        lane_v113.write(meta.idx, hdr.ina_data.v113);
        lane_v114.write(meta.idx, hdr.ina_data.v114);
        lane_v115.write(meta.idx, hdr.ina_data.v115);
        lane_v116.write(meta.idx, hdr.ina_data.v116);
        lane_v117.write(meta.idx, hdr.ina_data.v117);
        lane_v118.write(meta.idx, hdr.ina_data.v118);
        lane_v119.write(meta.idx, hdr.ina_data.v119);
        lane_v120.write(meta.idx, hdr.ina_data.v120);
        lane_v121.write(meta.idx, hdr.ina_data.v121);
        lane_v122.write(meta.idx, hdr.ina_data.v122);
        lane_v123.write(meta.idx, hdr.ina_data.v123);
        lane_v124.write(meta.idx, hdr.ina_data.v124);
        lane_v125.write(meta.idx, hdr.ina_data.v125);
        lane_v126.write(meta.idx, hdr.ina_data.v126);
        lane_v127.write(meta.idx, hdr.ina_data.v127);
        lane_v128.write(meta.idx, hdr.ina_data.v128);
        lane_v129.write(meta.idx, hdr.ina_data.v129);
        lane_v130.write(meta.idx, hdr.ina_data.v130);
        lane_v131.write(meta.idx, hdr.ina_data.v131);
        lane_v132.write(meta.idx, hdr.ina_data.v132);
        lane_v133.write(meta.idx, hdr.ina_data.v133);
        lane_v134.write(meta.idx, hdr.ina_data.v134);
        lane_v135.write(meta.idx, hdr.ina_data.v135);
        lane_v136.write(meta.idx, hdr.ina_data.v136);
        lane_v137.write(meta.idx, hdr.ina_data.v137);
        lane_v138.write(meta.idx, hdr.ina_data.v138);
        lane_v139.write(meta.idx, hdr.ina_data.v139);
        lane_v140.write(meta.idx, hdr.ina_data.v140);
        lane_v141.write(meta.idx, hdr.ina_data.v141);
        lane_v142.write(meta.idx, hdr.ina_data.v142);
        lane_v143.write(meta.idx, hdr.ina_data.v143);
        lane_v144.write(meta.idx, hdr.ina_data.v144);
        lane_v145.write(meta.idx, hdr.ina_data.v145);
        lane_v146.write(meta.idx, hdr.ina_data.v146);
        lane_v147.write(meta.idx, hdr.ina_data.v147);
        lane_v148.write(meta.idx, hdr.ina_data.v148);
        lane_v149.write(meta.idx, hdr.ina_data.v149);
        lane_v150.write(meta.idx, hdr.ina_data.v150);
        lane_v151.write(meta.idx, hdr.ina_data.v151);
        lane_v152.write(meta.idx, hdr.ina_data.v152);
        lane_v153.write(meta.idx, hdr.ina_data.v153);
        lane_v154.write(meta.idx, hdr.ina_data.v154);
        lane_v155.write(meta.idx, hdr.ina_data.v155);
        lane_v156.write(meta.idx, hdr.ina_data.v156);
        lane_v157.write(meta.idx, hdr.ina_data.v157);
        lane_v158.write(meta.idx, hdr.ina_data.v158);
        lane_v159.write(meta.idx, hdr.ina_data.v159);
        lane_v160.write(meta.idx, hdr.ina_data.v160);
        lane_v161.write(meta.idx, hdr.ina_data.v161);
        lane_v162.write(meta.idx, hdr.ina_data.v162);
        lane_v163.write(meta.idx, hdr.ina_data.v163);
        lane_v164.write(meta.idx, hdr.ina_data.v164);
        lane_v165.write(meta.idx, hdr.ina_data.v165);
        lane_v166.write(meta.idx, hdr.ina_data.v166);
        lane_v167.write(meta.idx, hdr.ina_data.v167);
        lane_v168.write(meta.idx, hdr.ina_data.v168);
        lane_v169.write(meta.idx, hdr.ina_data.v169);
        lane_v170.write(meta.idx, hdr.ina_data.v170);
        lane_v171.write(meta.idx, hdr.ina_data.v171);
        lane_v172.write(meta.idx, hdr.ina_data.v172);
        lane_v173.write(meta.idx, hdr.ina_data.v173);
        lane_v174.write(meta.idx, hdr.ina_data.v174);
        lane_v175.write(meta.idx, hdr.ina_data.v175);
        lane_v176.write(meta.idx, hdr.ina_data.v176);
        lane_v177.write(meta.idx, hdr.ina_data.v177);
        lane_v178.write(meta.idx, hdr.ina_data.v178);
        lane_v179.write(meta.idx, hdr.ina_data.v179);
        lane_v180.write(meta.idx, hdr.ina_data.v180);
        lane_v181.write(meta.idx, hdr.ina_data.v181);
        lane_v182.write(meta.idx, hdr.ina_data.v182);
        lane_v183.write(meta.idx, hdr.ina_data.v183);
        lane_v184.write(meta.idx, hdr.ina_data.v184);
        lane_v185.write(meta.idx, hdr.ina_data.v185);
        lane_v186.write(meta.idx, hdr.ina_data.v186);
        lane_v187.write(meta.idx, hdr.ina_data.v187);
        lane_v188.write(meta.idx, hdr.ina_data.v188);
        lane_v189.write(meta.idx, hdr.ina_data.v189);
        lane_v190.write(meta.idx, hdr.ina_data.v190);
        lane_v191.write(meta.idx, hdr.ina_data.v191);
        lane_v192.write(meta.idx, hdr.ina_data.v192);
        lane_v193.write(meta.idx, hdr.ina_data.v193);
        lane_v194.write(meta.idx, hdr.ina_data.v194);
        lane_v195.write(meta.idx, hdr.ina_data.v195);
        lane_v196.write(meta.idx, hdr.ina_data.v196);
        lane_v197.write(meta.idx, hdr.ina_data.v197);
        lane_v198.write(meta.idx, hdr.ina_data.v198);
        lane_v199.write(meta.idx, hdr.ina_data.v199);
        lane_v200.write(meta.idx, hdr.ina_data.v200);
        lane_v201.write(meta.idx, hdr.ina_data.v201);
        lane_v202.write(meta.idx, hdr.ina_data.v202);
        lane_v203.write(meta.idx, hdr.ina_data.v203);
        lane_v204.write(meta.idx, hdr.ina_data.v204);
        lane_v205.write(meta.idx, hdr.ina_data.v205);
        lane_v206.write(meta.idx, hdr.ina_data.v206);
        lane_v207.write(meta.idx, hdr.ina_data.v207);
        lane_v208.write(meta.idx, hdr.ina_data.v208);
        lane_v209.write(meta.idx, hdr.ina_data.v209);
        lane_v210.write(meta.idx, hdr.ina_data.v210);
        lane_v211.write(meta.idx, hdr.ina_data.v211);
        lane_v212.write(meta.idx, hdr.ina_data.v212);
        lane_v213.write(meta.idx, hdr.ina_data.v213);
        lane_v214.write(meta.idx, hdr.ina_data.v214);
        lane_v215.write(meta.idx, hdr.ina_data.v215);
        lane_v216.write(meta.idx, hdr.ina_data.v216);
        lane_v217.write(meta.idx, hdr.ina_data.v217);
        lane_v218.write(meta.idx, hdr.ina_data.v218);
        lane_v219.write(meta.idx, hdr.ina_data.v219);
        lane_v220.write(meta.idx, hdr.ina_data.v220);
        lane_v221.write(meta.idx, hdr.ina_data.v221);
        lane_v222.write(meta.idx, hdr.ina_data.v222);
        lane_v223.write(meta.idx, hdr.ina_data.v223);
        lane_v224.write(meta.idx, hdr.ina_data.v224);
        lane_v225.write(meta.idx, hdr.ina_data.v225);
        lane_v226.write(meta.idx, hdr.ina_data.v226);
        lane_v227.write(meta.idx, hdr.ina_data.v227);
        lane_v228.write(meta.idx, hdr.ina_data.v228);
        lane_v229.write(meta.idx, hdr.ina_data.v229);
        lane_v230.write(meta.idx, hdr.ina_data.v230);
        lane_v231.write(meta.idx, hdr.ina_data.v231);
        lane_v232.write(meta.idx, hdr.ina_data.v232);
        lane_v233.write(meta.idx, hdr.ina_data.v233);
        lane_v234.write(meta.idx, hdr.ina_data.v234);
        lane_v235.write(meta.idx, hdr.ina_data.v235);
        lane_v236.write(meta.idx, hdr.ina_data.v236);
        lane_v237.write(meta.idx, hdr.ina_data.v237);
        lane_v238.write(meta.idx, hdr.ina_data.v238);
        lane_v239.write(meta.idx, hdr.ina_data.v239);
        lane_v240.write(meta.idx, hdr.ina_data.v240);
        lane_v241.write(meta.idx, hdr.ina_data.v241);
        lane_v242.write(meta.idx, hdr.ina_data.v242);
        lane_v243.write(meta.idx, hdr.ina_data.v243);
        lane_v244.write(meta.idx, hdr.ina_data.v244);
        lane_v245.write(meta.idx, hdr.ina_data.v245);
        lane_v246.write(meta.idx, hdr.ina_data.v246);
        lane_v247.write(meta.idx, hdr.ina_data.v247);
        lane_v248.write(meta.idx, hdr.ina_data.v248);
        lane_v249.write(meta.idx, hdr.ina_data.v249);
        lane_v250.write(meta.idx, hdr.ina_data.v250);
        lane_v251.write(meta.idx, hdr.ina_data.v251);
        lane_v252.write(meta.idx, hdr.ina_data.v252);
        lane_v253.write(meta.idx, hdr.ina_data.v253);
        lane_v254.write(meta.idx, hdr.ina_data.v254);
        lane_v255.write(meta.idx, hdr.ina_data.v255);
    }

    action lanes_add() {
        lane_v00.read(acc, meta.idx); acc = acc + hdr.ina_data.v00; lane_v00.write(meta.idx, acc); hdr.ina_data.v00 = acc;
        lane_v01.read(acc, meta.idx); acc = acc + hdr.ina_data.v01; lane_v01.write(meta.idx, acc); hdr.ina_data.v01 = acc;
        lane_v02.read(acc, meta.idx); acc = acc + hdr.ina_data.v02; lane_v02.write(meta.idx, acc); hdr.ina_data.v02 = acc;
        lane_v03.read(acc, meta.idx); acc = acc + hdr.ina_data.v03; lane_v03.write(meta.idx, acc); hdr.ina_data.v03 = acc;
        lane_v04.read(acc, meta.idx); acc = acc + hdr.ina_data.v04; lane_v04.write(meta.idx, acc); hdr.ina_data.v04 = acc;
        lane_v05.read(acc, meta.idx); acc = acc + hdr.ina_data.v05; lane_v05.write(meta.idx, acc); hdr.ina_data.v05 = acc;
        lane_v06.read(acc, meta.idx); acc = acc + hdr.ina_data.v06; lane_v06.write(meta.idx, acc); hdr.ina_data.v06 = acc;
        lane_v07.read(acc, meta.idx); acc = acc + hdr.ina_data.v07; lane_v07.write(meta.idx, acc); hdr.ina_data.v07 = acc;
        lane_v08.read(acc, meta.idx); acc = acc + hdr.ina_data.v08; lane_v08.write(meta.idx, acc); hdr.ina_data.v08 = acc;
        lane_v09.read(acc, meta.idx); acc = acc + hdr.ina_data.v09; lane_v09.write(meta.idx, acc); hdr.ina_data.v09 = acc;
        lane_v10.read(acc, meta.idx); acc = acc + hdr.ina_data.v10; lane_v10.write(meta.idx, acc); hdr.ina_data.v10 = acc;
        lane_v11.read(acc, meta.idx); acc = acc + hdr.ina_data.v11; lane_v11.write(meta.idx, acc); hdr.ina_data.v11 = acc;
        lane_v12.read(acc, meta.idx); acc = acc + hdr.ina_data.v12; lane_v12.write(meta.idx, acc); hdr.ina_data.v12 = acc;
        lane_v13.read(acc, meta.idx); acc = acc + hdr.ina_data.v13; lane_v13.write(meta.idx, acc); hdr.ina_data.v13 = acc;
        lane_v14.read(acc, meta.idx); acc = acc + hdr.ina_data.v14; lane_v14.write(meta.idx, acc); hdr.ina_data.v14 = acc;
        lane_v15.read(acc, meta.idx); acc = acc + hdr.ina_data.v15; lane_v15.write(meta.idx, acc); hdr.ina_data.v15 = acc;
        lane_v16.read(acc, meta.idx); acc = acc + hdr.ina_data.v16; lane_v16.write(meta.idx, acc); hdr.ina_data.v16 = acc;
        lane_v17.read(acc, meta.idx); acc = acc + hdr.ina_data.v17; lane_v17.write(meta.idx, acc); hdr.ina_data.v17 = acc;
        lane_v18.read(acc, meta.idx); acc = acc + hdr.ina_data.v18; lane_v18.write(meta.idx, acc); hdr.ina_data.v18 = acc;
        lane_v19.read(acc, meta.idx); acc = acc + hdr.ina_data.v19; lane_v19.write(meta.idx, acc); hdr.ina_data.v19 = acc;
        lane_v20.read(acc, meta.idx); acc = acc + hdr.ina_data.v20; lane_v20.write(meta.idx, acc); hdr.ina_data.v20 = acc;
        lane_v21.read(acc, meta.idx); acc = acc + hdr.ina_data.v21; lane_v21.write(meta.idx, acc); hdr.ina_data.v21 = acc;
        lane_v22.read(acc, meta.idx); acc = acc + hdr.ina_data.v22; lane_v22.write(meta.idx, acc); hdr.ina_data.v22 = acc;
        lane_v23.read(acc, meta.idx); acc = acc + hdr.ina_data.v23; lane_v23.write(meta.idx, acc); hdr.ina_data.v23 = acc;
        lane_v24.read(acc, meta.idx); acc = acc + hdr.ina_data.v24; lane_v24.write(meta.idx, acc); hdr.ina_data.v24 = acc;
        lane_v25.read(acc, meta.idx); acc = acc + hdr.ina_data.v25; lane_v25.write(meta.idx, acc); hdr.ina_data.v25 = acc;
        lane_v26.read(acc, meta.idx); acc = acc + hdr.ina_data.v26; lane_v26.write(meta.idx, acc); hdr.ina_data.v26 = acc;
        lane_v27.read(acc, meta.idx); acc = acc + hdr.ina_data.v27; lane_v27.write(meta.idx, acc); hdr.ina_data.v27 = acc;
        lane_v28.read(acc, meta.idx); acc = acc + hdr.ina_data.v28; lane_v28.write(meta.idx, acc); hdr.ina_data.v28 = acc;
        lane_v29.read(acc, meta.idx); acc = acc + hdr.ina_data.v29; lane_v29.write(meta.idx, acc); hdr.ina_data.v29 = acc;
        lane_v30.read(acc, meta.idx); acc = acc + hdr.ina_data.v30; lane_v30.write(meta.idx, acc); hdr.ina_data.v30 = acc;
        lane_v31.read(acc, meta.idx); acc = acc + hdr.ina_data.v31; lane_v31.write(meta.idx, acc); hdr.ina_data.v31 = acc;
        lane_v32.read(acc, meta.idx); acc = acc + hdr.ina_data.v32; lane_v32.write(meta.idx, acc); hdr.ina_data.v32 = acc;
        lane_v33.read(acc, meta.idx); acc = acc + hdr.ina_data.v33; lane_v33.write(meta.idx, acc); hdr.ina_data.v33 = acc;
        lane_v34.read(acc, meta.idx); acc = acc + hdr.ina_data.v34; lane_v34.write(meta.idx, acc); hdr.ina_data.v34 = acc;
        lane_v35.read(acc, meta.idx); acc = acc + hdr.ina_data.v35; lane_v35.write(meta.idx, acc); hdr.ina_data.v35 = acc;
        lane_v36.read(acc, meta.idx); acc = acc + hdr.ina_data.v36; lane_v36.write(meta.idx, acc); hdr.ina_data.v36 = acc;
        lane_v37.read(acc, meta.idx); acc = acc + hdr.ina_data.v37; lane_v37.write(meta.idx, acc); hdr.ina_data.v37 = acc;
        lane_v38.read(acc, meta.idx); acc = acc + hdr.ina_data.v38; lane_v38.write(meta.idx, acc); hdr.ina_data.v38 = acc;
        lane_v39.read(acc, meta.idx); acc = acc + hdr.ina_data.v39; lane_v39.write(meta.idx, acc); hdr.ina_data.v39 = acc;
        lane_v40.read(acc, meta.idx); acc = acc + hdr.ina_data.v40; lane_v40.write(meta.idx, acc); hdr.ina_data.v40 = acc;
        lane_v41.read(acc, meta.idx); acc = acc + hdr.ina_data.v41; lane_v41.write(meta.idx, acc); hdr.ina_data.v41 = acc;
        lane_v42.read(acc, meta.idx); acc = acc + hdr.ina_data.v42; lane_v42.write(meta.idx, acc); hdr.ina_data.v42 = acc;
        lane_v43.read(acc, meta.idx); acc = acc + hdr.ina_data.v43; lane_v43.write(meta.idx, acc); hdr.ina_data.v43 = acc;
        lane_v44.read(acc, meta.idx); acc = acc + hdr.ina_data.v44; lane_v44.write(meta.idx, acc); hdr.ina_data.v44 = acc;
        lane_v45.read(acc, meta.idx); acc = acc + hdr.ina_data.v45; lane_v45.write(meta.idx, acc); hdr.ina_data.v45 = acc;
        lane_v46.read(acc, meta.idx); acc = acc + hdr.ina_data.v46; lane_v46.write(meta.idx, acc); hdr.ina_data.v46 = acc;
        lane_v47.read(acc, meta.idx); acc = acc + hdr.ina_data.v47; lane_v47.write(meta.idx, acc); hdr.ina_data.v47 = acc;
        lane_v48.read(acc, meta.idx); acc = acc + hdr.ina_data.v48; lane_v48.write(meta.idx, acc); hdr.ina_data.v48 = acc;
        lane_v49.read(acc, meta.idx); acc = acc + hdr.ina_data.v49; lane_v49.write(meta.idx, acc); hdr.ina_data.v49 = acc;
        lane_v50.read(acc, meta.idx); acc = acc + hdr.ina_data.v50; lane_v50.write(meta.idx, acc); hdr.ina_data.v50 = acc;
        lane_v51.read(acc, meta.idx); acc = acc + hdr.ina_data.v51; lane_v51.write(meta.idx, acc); hdr.ina_data.v51 = acc;
        lane_v52.read(acc, meta.idx); acc = acc + hdr.ina_data.v52; lane_v52.write(meta.idx, acc); hdr.ina_data.v52 = acc;
        lane_v53.read(acc, meta.idx); acc = acc + hdr.ina_data.v53; lane_v53.write(meta.idx, acc); hdr.ina_data.v53 = acc;
        lane_v54.read(acc, meta.idx); acc = acc + hdr.ina_data.v54; lane_v54.write(meta.idx, acc); hdr.ina_data.v54 = acc;
        lane_v55.read(acc, meta.idx); acc = acc + hdr.ina_data.v55; lane_v55.write(meta.idx, acc); hdr.ina_data.v55 = acc;
        lane_v56.read(acc, meta.idx); acc = acc + hdr.ina_data.v56; lane_v56.write(meta.idx, acc); hdr.ina_data.v56 = acc;
        lane_v57.read(acc, meta.idx); acc = acc + hdr.ina_data.v57; lane_v57.write(meta.idx, acc); hdr.ina_data.v57 = acc;
        lane_v58.read(acc, meta.idx); acc = acc + hdr.ina_data.v58; lane_v58.write(meta.idx, acc); hdr.ina_data.v58 = acc;
        lane_v59.read(acc, meta.idx); acc = acc + hdr.ina_data.v59; lane_v59.write(meta.idx, acc); hdr.ina_data.v59 = acc;
        lane_v60.read(acc, meta.idx); acc = acc + hdr.ina_data.v60; lane_v60.write(meta.idx, acc); hdr.ina_data.v60 = acc;
        lane_v61.read(acc, meta.idx); acc = acc + hdr.ina_data.v61; lane_v61.write(meta.idx, acc); hdr.ina_data.v61 = acc;
        lane_v62.read(acc, meta.idx); acc = acc + hdr.ina_data.v62; lane_v62.write(meta.idx, acc); hdr.ina_data.v62 = acc;
        lane_v63.read(acc, meta.idx); acc = acc + hdr.ina_data.v63; lane_v63.write(meta.idx, acc); hdr.ina_data.v63 = acc;
        lane_v64.read(acc, meta.idx); acc = acc + hdr.ina_data.v64; lane_v64.write(meta.idx, acc); hdr.ina_data.v64 = acc;
        lane_v65.read(acc, meta.idx); acc = acc + hdr.ina_data.v65; lane_v65.write(meta.idx, acc); hdr.ina_data.v65 = acc;
        lane_v66.read(acc, meta.idx); acc = acc + hdr.ina_data.v66; lane_v66.write(meta.idx, acc); hdr.ina_data.v66 = acc;
        lane_v67.read(acc, meta.idx); acc = acc + hdr.ina_data.v67; lane_v67.write(meta.idx, acc); hdr.ina_data.v67 = acc;
        lane_v68.read(acc, meta.idx); acc = acc + hdr.ina_data.v68; lane_v68.write(meta.idx, acc); hdr.ina_data.v68 = acc;
        lane_v69.read(acc, meta.idx); acc = acc + hdr.ina_data.v69; lane_v69.write(meta.idx, acc); hdr.ina_data.v69 = acc;
        lane_v70.read(acc, meta.idx); acc = acc + hdr.ina_data.v70; lane_v70.write(meta.idx, acc); hdr.ina_data.v70 = acc;
        lane_v71.read(acc, meta.idx); acc = acc + hdr.ina_data.v71; lane_v71.write(meta.idx, acc); hdr.ina_data.v71 = acc;
        lane_v72.read(acc, meta.idx); acc = acc + hdr.ina_data.v72; lane_v72.write(meta.idx, acc); hdr.ina_data.v72 = acc;
        lane_v73.read(acc, meta.idx); acc = acc + hdr.ina_data.v73; lane_v73.write(meta.idx, acc); hdr.ina_data.v73 = acc;
        lane_v74.read(acc, meta.idx); acc = acc + hdr.ina_data.v74; lane_v74.write(meta.idx, acc); hdr.ina_data.v74 = acc;
        lane_v75.read(acc, meta.idx); acc = acc + hdr.ina_data.v75; lane_v75.write(meta.idx, acc); hdr.ina_data.v75 = acc;
        lane_v76.read(acc, meta.idx); acc = acc + hdr.ina_data.v76; lane_v76.write(meta.idx, acc); hdr.ina_data.v76 = acc;
        lane_v77.read(acc, meta.idx); acc = acc + hdr.ina_data.v77; lane_v77.write(meta.idx, acc); hdr.ina_data.v77 = acc;
        lane_v78.read(acc, meta.idx); acc = acc + hdr.ina_data.v78; lane_v78.write(meta.idx, acc); hdr.ina_data.v78 = acc;
        lane_v79.read(acc, meta.idx); acc = acc + hdr.ina_data.v79; lane_v79.write(meta.idx, acc); hdr.ina_data.v79 = acc;
        lane_v80.read(acc, meta.idx); acc = acc + hdr.ina_data.v80; lane_v80.write(meta.idx, acc); hdr.ina_data.v80 = acc;
        lane_v81.read(acc, meta.idx); acc = acc + hdr.ina_data.v81; lane_v81.write(meta.idx, acc); hdr.ina_data.v81 = acc;
        lane_v82.read(acc, meta.idx); acc = acc + hdr.ina_data.v82; lane_v82.write(meta.idx, acc); hdr.ina_data.v82 = acc;
        lane_v83.read(acc, meta.idx); acc = acc + hdr.ina_data.v83; lane_v83.write(meta.idx, acc); hdr.ina_data.v83 = acc;
        lane_v84.read(acc, meta.idx); acc = acc + hdr.ina_data.v84; lane_v84.write(meta.idx, acc); hdr.ina_data.v84 = acc;
        lane_v85.read(acc, meta.idx); acc = acc + hdr.ina_data.v85; lane_v85.write(meta.idx, acc); hdr.ina_data.v85 = acc;
        lane_v86.read(acc, meta.idx); acc = acc + hdr.ina_data.v86; lane_v86.write(meta.idx, acc); hdr.ina_data.v86 = acc;
        lane_v87.read(acc, meta.idx); acc = acc + hdr.ina_data.v87; lane_v87.write(meta.idx, acc); hdr.ina_data.v87 = acc;
        lane_v88.read(acc, meta.idx); acc = acc + hdr.ina_data.v88; lane_v88.write(meta.idx, acc); hdr.ina_data.v88 = acc;
        lane_v89.read(acc, meta.idx); acc = acc + hdr.ina_data.v89; lane_v89.write(meta.idx, acc); hdr.ina_data.v89 = acc;
        lane_v90.read(acc, meta.idx); acc = acc + hdr.ina_data.v90; lane_v90.write(meta.idx, acc); hdr.ina_data.v90 = acc;
        lane_v91.read(acc, meta.idx); acc = acc + hdr.ina_data.v91; lane_v91.write(meta.idx, acc); hdr.ina_data.v91 = acc;
        lane_v92.read(acc, meta.idx); acc = acc + hdr.ina_data.v92; lane_v92.write(meta.idx, acc); hdr.ina_data.v92 = acc;
        lane_v93.read(acc, meta.idx); acc = acc + hdr.ina_data.v93; lane_v93.write(meta.idx, acc); hdr.ina_data.v93 = acc;
        lane_v94.read(acc, meta.idx); acc = acc + hdr.ina_data.v94; lane_v94.write(meta.idx, acc); hdr.ina_data.v94 = acc;
        lane_v95.read(acc, meta.idx); acc = acc + hdr.ina_data.v95; lane_v95.write(meta.idx, acc); hdr.ina_data.v95 = acc;
        lane_v96.read(acc, meta.idx); acc = acc + hdr.ina_data.v96; lane_v96.write(meta.idx, acc); hdr.ina_data.v96 = acc;
        lane_v97.read(acc, meta.idx); acc = acc + hdr.ina_data.v97; lane_v97.write(meta.idx, acc); hdr.ina_data.v97 = acc;
        lane_v98.read(acc, meta.idx); acc = acc + hdr.ina_data.v98; lane_v98.write(meta.idx, acc); hdr.ina_data.v98 = acc;
        lane_v99.read(acc, meta.idx); acc = acc + hdr.ina_data.v99; lane_v99.write(meta.idx, acc); hdr.ina_data.v99 = acc;
        lane_v100.read(acc, meta.idx); acc = acc + hdr.ina_data.v100; lane_v100.write(meta.idx, acc); hdr.ina_data.v100 = acc;
        lane_v101.read(acc, meta.idx); acc = acc + hdr.ina_data.v101; lane_v101.write(meta.idx, acc); hdr.ina_data.v101 = acc;
        lane_v102.read(acc, meta.idx); acc = acc + hdr.ina_data.v102; lane_v102.write(meta.idx, acc); hdr.ina_data.v102 = acc;
        lane_v103.read(acc, meta.idx); acc = acc + hdr.ina_data.v103; lane_v103.write(meta.idx, acc); hdr.ina_data.v103 = acc;
        lane_v104.read(acc, meta.idx); acc = acc + hdr.ina_data.v104; lane_v104.write(meta.idx, acc); hdr.ina_data.v104 = acc;
        lane_v105.read(acc, meta.idx); acc = acc + hdr.ina_data.v105; lane_v105.write(meta.idx, acc); hdr.ina_data.v105 = acc;
        lane_v106.read(acc, meta.idx); acc = acc + hdr.ina_data.v106; lane_v106.write(meta.idx, acc); hdr.ina_data.v106 = acc;
        lane_v107.read(acc, meta.idx); acc = acc + hdr.ina_data.v107; lane_v107.write(meta.idx, acc); hdr.ina_data.v107 = acc;
        lane_v108.read(acc, meta.idx); acc = acc + hdr.ina_data.v108; lane_v108.write(meta.idx, acc); hdr.ina_data.v108 = acc;
        lane_v109.read(acc, meta.idx); acc = acc + hdr.ina_data.v109; lane_v109.write(meta.idx, acc); hdr.ina_data.v109 = acc;
        lane_v110.read(acc, meta.idx); acc = acc + hdr.ina_data.v110; lane_v110.write(meta.idx, acc); hdr.ina_data.v110 = acc;
        lane_v111.read(acc, meta.idx); acc = acc + hdr.ina_data.v111; lane_v111.write(meta.idx, acc); hdr.ina_data.v111 = acc;
        lane_v112.read(acc, meta.idx); acc = acc + hdr.ina_data.v112; lane_v112.write(meta.idx, acc); hdr.ina_data.v112 = acc;
        lane_v113.read(acc, meta.idx); acc = acc + hdr.ina_data.v113; lane_v113.write(meta.idx, acc); hdr.ina_data.v113 = acc;
        lane_v114.read(acc, meta.idx); acc = acc + hdr.ina_data.v114; lane_v114.write(meta.idx, acc); hdr.ina_data.v114 = acc;
        lane_v115.read(acc, meta.idx); acc = acc + hdr.ina_data.v115; lane_v115.write(meta.idx, acc); hdr.ina_data.v115 = acc;
        lane_v116.read(acc, meta.idx); acc = acc + hdr.ina_data.v116; lane_v116.write(meta.idx, acc); hdr.ina_data.v116 = acc;
        lane_v117.read(acc, meta.idx); acc = acc + hdr.ina_data.v117; lane_v117.write(meta.idx, acc); hdr.ina_data.v117 = acc;
        lane_v118.read(acc, meta.idx); acc = acc + hdr.ina_data.v118; lane_v118.write(meta.idx, acc); hdr.ina_data.v118 = acc;
        lane_v119.read(acc, meta.idx); acc = acc + hdr.ina_data.v119; lane_v119.write(meta.idx, acc); hdr.ina_data.v119 = acc;
        lane_v120.read(acc, meta.idx); acc = acc + hdr.ina_data.v120; lane_v120.write(meta.idx, acc); hdr.ina_data.v120 = acc;
        lane_v121.read(acc, meta.idx); acc = acc + hdr.ina_data.v121; lane_v121.write(meta.idx, acc); hdr.ina_data.v121 = acc;
        lane_v122.read(acc, meta.idx); acc = acc + hdr.ina_data.v122; lane_v122.write(meta.idx, acc); hdr.ina_data.v122 = acc;
        lane_v123.read(acc, meta.idx); acc = acc + hdr.ina_data.v123; lane_v123.write(meta.idx, acc); hdr.ina_data.v123 = acc;
        lane_v124.read(acc, meta.idx); acc = acc + hdr.ina_data.v124; lane_v124.write(meta.idx, acc); hdr.ina_data.v124 = acc;
        lane_v125.read(acc, meta.idx); acc = acc + hdr.ina_data.v125; lane_v125.write(meta.idx, acc); hdr.ina_data.v125 = acc;
        lane_v126.read(acc, meta.idx); acc = acc + hdr.ina_data.v126; lane_v126.write(meta.idx, acc); hdr.ina_data.v126 = acc;
        lane_v127.read(acc, meta.idx); acc = acc + hdr.ina_data.v127; lane_v127.write(meta.idx, acc); hdr.ina_data.v127 = acc;
        lane_v128.read(acc, meta.idx); acc = acc + hdr.ina_data.v128; lane_v128.write(meta.idx, acc); hdr.ina_data.v128 = acc;
        lane_v129.read(acc, meta.idx); acc = acc + hdr.ina_data.v129; lane_v129.write(meta.idx, acc); hdr.ina_data.v129 = acc;
        lane_v130.read(acc, meta.idx); acc = acc + hdr.ina_data.v130; lane_v130.write(meta.idx, acc); hdr.ina_data.v130 = acc;
        lane_v131.read(acc, meta.idx); acc = acc + hdr.ina_data.v131; lane_v131.write(meta.idx, acc); hdr.ina_data.v131 = acc;
        lane_v132.read(acc, meta.idx); acc = acc + hdr.ina_data.v132; lane_v132.write(meta.idx, acc); hdr.ina_data.v132 = acc;
        lane_v133.read(acc, meta.idx); acc = acc + hdr.ina_data.v133; lane_v133.write(meta.idx, acc); hdr.ina_data.v133 = acc;
        lane_v134.read(acc, meta.idx); acc = acc + hdr.ina_data.v134; lane_v134.write(meta.idx, acc); hdr.ina_data.v134 = acc;
        lane_v135.read(acc, meta.idx); acc = acc + hdr.ina_data.v135; lane_v135.write(meta.idx, acc); hdr.ina_data.v135 = acc;
        lane_v136.read(acc, meta.idx); acc = acc + hdr.ina_data.v136; lane_v136.write(meta.idx, acc); hdr.ina_data.v136 = acc;
        lane_v137.read(acc, meta.idx); acc = acc + hdr.ina_data.v137; lane_v137.write(meta.idx, acc); hdr.ina_data.v137 = acc;
        lane_v138.read(acc, meta.idx); acc = acc + hdr.ina_data.v138; lane_v138.write(meta.idx, acc); hdr.ina_data.v138 = acc;
        lane_v139.read(acc, meta.idx); acc = acc + hdr.ina_data.v139; lane_v139.write(meta.idx, acc); hdr.ina_data.v139 = acc;
        lane_v140.read(acc, meta.idx); acc = acc + hdr.ina_data.v140; lane_v140.write(meta.idx, acc); hdr.ina_data.v140 = acc;
        lane_v141.read(acc, meta.idx); acc = acc + hdr.ina_data.v141; lane_v141.write(meta.idx, acc); hdr.ina_data.v141 = acc;
        lane_v142.read(acc, meta.idx); acc = acc + hdr.ina_data.v142; lane_v142.write(meta.idx, acc); hdr.ina_data.v142 = acc;
        lane_v143.read(acc, meta.idx); acc = acc + hdr.ina_data.v143; lane_v143.write(meta.idx, acc); hdr.ina_data.v143 = acc;
        lane_v144.read(acc, meta.idx); acc = acc + hdr.ina_data.v144; lane_v144.write(meta.idx, acc); hdr.ina_data.v144 = acc;
        lane_v145.read(acc, meta.idx); acc = acc + hdr.ina_data.v145; lane_v145.write(meta.idx, acc); hdr.ina_data.v145 = acc;
        lane_v146.read(acc, meta.idx); acc = acc + hdr.ina_data.v146; lane_v146.write(meta.idx, acc); hdr.ina_data.v146 = acc;
        lane_v147.read(acc, meta.idx); acc = acc + hdr.ina_data.v147; lane_v147.write(meta.idx, acc); hdr.ina_data.v147 = acc;
        lane_v148.read(acc, meta.idx); acc = acc + hdr.ina_data.v148; lane_v148.write(meta.idx, acc); hdr.ina_data.v148 = acc;
        lane_v149.read(acc, meta.idx); acc = acc + hdr.ina_data.v149; lane_v149.write(meta.idx, acc); hdr.ina_data.v149 = acc;
        lane_v150.read(acc, meta.idx); acc = acc + hdr.ina_data.v150; lane_v150.write(meta.idx, acc); hdr.ina_data.v150 = acc;
        lane_v151.read(acc, meta.idx); acc = acc + hdr.ina_data.v151; lane_v151.write(meta.idx, acc); hdr.ina_data.v151 = acc;
        lane_v152.read(acc, meta.idx); acc = acc + hdr.ina_data.v152; lane_v152.write(meta.idx, acc); hdr.ina_data.v152 = acc;
        lane_v153.read(acc, meta.idx); acc = acc + hdr.ina_data.v153; lane_v153.write(meta.idx, acc); hdr.ina_data.v153 = acc;
        lane_v154.read(acc, meta.idx); acc = acc + hdr.ina_data.v154; lane_v154.write(meta.idx, acc); hdr.ina_data.v154 = acc;
        lane_v155.read(acc, meta.idx); acc = acc + hdr.ina_data.v155; lane_v155.write(meta.idx, acc); hdr.ina_data.v155 = acc;
        lane_v156.read(acc, meta.idx); acc = acc + hdr.ina_data.v156; lane_v156.write(meta.idx, acc); hdr.ina_data.v156 = acc;
        lane_v157.read(acc, meta.idx); acc = acc + hdr.ina_data.v157; lane_v157.write(meta.idx, acc); hdr.ina_data.v157 = acc;
        lane_v158.read(acc, meta.idx); acc = acc + hdr.ina_data.v158; lane_v158.write(meta.idx, acc); hdr.ina_data.v158 = acc;
        lane_v159.read(acc, meta.idx); acc = acc + hdr.ina_data.v159; lane_v159.write(meta.idx, acc); hdr.ina_data.v159 = acc;
        lane_v160.read(acc, meta.idx); acc = acc + hdr.ina_data.v160; lane_v160.write(meta.idx, acc); hdr.ina_data.v160 = acc;
        lane_v161.read(acc, meta.idx); acc = acc + hdr.ina_data.v161; lane_v161.write(meta.idx, acc); hdr.ina_data.v161 = acc;
        lane_v162.read(acc, meta.idx); acc = acc + hdr.ina_data.v162; lane_v162.write(meta.idx, acc); hdr.ina_data.v162 = acc;
        lane_v163.read(acc, meta.idx); acc = acc + hdr.ina_data.v163; lane_v163.write(meta.idx, acc); hdr.ina_data.v163 = acc;
        lane_v164.read(acc, meta.idx); acc = acc + hdr.ina_data.v164; lane_v164.write(meta.idx, acc); hdr.ina_data.v164 = acc;
        lane_v165.read(acc, meta.idx); acc = acc + hdr.ina_data.v165; lane_v165.write(meta.idx, acc); hdr.ina_data.v165 = acc;
        lane_v166.read(acc, meta.idx); acc = acc + hdr.ina_data.v166; lane_v166.write(meta.idx, acc); hdr.ina_data.v166 = acc;
        lane_v167.read(acc, meta.idx); acc = acc + hdr.ina_data.v167; lane_v167.write(meta.idx, acc); hdr.ina_data.v167 = acc;
        lane_v168.read(acc, meta.idx); acc = acc + hdr.ina_data.v168; lane_v168.write(meta.idx, acc); hdr.ina_data.v168 = acc;
        lane_v169.read(acc, meta.idx); acc = acc + hdr.ina_data.v169; lane_v169.write(meta.idx, acc); hdr.ina_data.v169 = acc;
        lane_v170.read(acc, meta.idx); acc = acc + hdr.ina_data.v170; lane_v170.write(meta.idx, acc); hdr.ina_data.v170 = acc;
        lane_v171.read(acc, meta.idx); acc = acc + hdr.ina_data.v171; lane_v171.write(meta.idx, acc); hdr.ina_data.v171 = acc;
        lane_v172.read(acc, meta.idx); acc = acc + hdr.ina_data.v172; lane_v172.write(meta.idx, acc); hdr.ina_data.v172 = acc;
        lane_v173.read(acc, meta.idx); acc = acc + hdr.ina_data.v173; lane_v173.write(meta.idx, acc); hdr.ina_data.v173 = acc;
        lane_v174.read(acc, meta.idx); acc = acc + hdr.ina_data.v174; lane_v174.write(meta.idx, acc); hdr.ina_data.v174 = acc;
        lane_v175.read(acc, meta.idx); acc = acc + hdr.ina_data.v175; lane_v175.write(meta.idx, acc); hdr.ina_data.v175 = acc;
        lane_v176.read(acc, meta.idx); acc = acc + hdr.ina_data.v176; lane_v176.write(meta.idx, acc); hdr.ina_data.v176 = acc;
        lane_v177.read(acc, meta.idx); acc = acc + hdr.ina_data.v177; lane_v177.write(meta.idx, acc); hdr.ina_data.v177 = acc;
        lane_v178.read(acc, meta.idx); acc = acc + hdr.ina_data.v178; lane_v178.write(meta.idx, acc); hdr.ina_data.v178 = acc;
        lane_v179.read(acc, meta.idx); acc = acc + hdr.ina_data.v179; lane_v179.write(meta.idx, acc); hdr.ina_data.v179 = acc;
        lane_v180.read(acc, meta.idx); acc = acc + hdr.ina_data.v180; lane_v180.write(meta.idx, acc); hdr.ina_data.v180 = acc;
        lane_v181.read(acc, meta.idx); acc = acc + hdr.ina_data.v181; lane_v181.write(meta.idx, acc); hdr.ina_data.v181 = acc;
        lane_v182.read(acc, meta.idx); acc = acc + hdr.ina_data.v182; lane_v182.write(meta.idx, acc); hdr.ina_data.v182 = acc;
        lane_v183.read(acc, meta.idx); acc = acc + hdr.ina_data.v183; lane_v183.write(meta.idx, acc); hdr.ina_data.v183 = acc;
        lane_v184.read(acc, meta.idx); acc = acc + hdr.ina_data.v184; lane_v184.write(meta.idx, acc); hdr.ina_data.v184 = acc;
        lane_v185.read(acc, meta.idx); acc = acc + hdr.ina_data.v185; lane_v185.write(meta.idx, acc); hdr.ina_data.v185 = acc;
        lane_v186.read(acc, meta.idx); acc = acc + hdr.ina_data.v186; lane_v186.write(meta.idx, acc); hdr.ina_data.v186 = acc;
        lane_v187.read(acc, meta.idx); acc = acc + hdr.ina_data.v187; lane_v187.write(meta.idx, acc); hdr.ina_data.v187 = acc;
        lane_v188.read(acc, meta.idx); acc = acc + hdr.ina_data.v188; lane_v188.write(meta.idx, acc); hdr.ina_data.v188 = acc;
        lane_v189.read(acc, meta.idx); acc = acc + hdr.ina_data.v189; lane_v189.write(meta.idx, acc); hdr.ina_data.v189 = acc;
        lane_v190.read(acc, meta.idx); acc = acc + hdr.ina_data.v190; lane_v190.write(meta.idx, acc); hdr.ina_data.v190 = acc;
        lane_v191.read(acc, meta.idx); acc = acc + hdr.ina_data.v191; lane_v191.write(meta.idx, acc); hdr.ina_data.v191 = acc;
        lane_v192.read(acc, meta.idx); acc = acc + hdr.ina_data.v192; lane_v192.write(meta.idx, acc); hdr.ina_data.v192 = acc;
        lane_v193.read(acc, meta.idx); acc = acc + hdr.ina_data.v193; lane_v193.write(meta.idx, acc); hdr.ina_data.v193 = acc;
        lane_v194.read(acc, meta.idx); acc = acc + hdr.ina_data.v194; lane_v194.write(meta.idx, acc); hdr.ina_data.v194 = acc;
        lane_v195.read(acc, meta.idx); acc = acc + hdr.ina_data.v195; lane_v195.write(meta.idx, acc); hdr.ina_data.v195 = acc;
        lane_v196.read(acc, meta.idx); acc = acc + hdr.ina_data.v196; lane_v196.write(meta.idx, acc); hdr.ina_data.v196 = acc;
        lane_v197.read(acc, meta.idx); acc = acc + hdr.ina_data.v197; lane_v197.write(meta.idx, acc); hdr.ina_data.v197 = acc;
        lane_v198.read(acc, meta.idx); acc = acc + hdr.ina_data.v198; lane_v198.write(meta.idx, acc); hdr.ina_data.v198 = acc;
        lane_v199.read(acc, meta.idx); acc = acc + hdr.ina_data.v199; lane_v199.write(meta.idx, acc); hdr.ina_data.v199 = acc;
        lane_v200.read(acc, meta.idx); acc = acc + hdr.ina_data.v200; lane_v200.write(meta.idx, acc); hdr.ina_data.v200 = acc;
        lane_v201.read(acc, meta.idx); acc = acc + hdr.ina_data.v201; lane_v201.write(meta.idx, acc); hdr.ina_data.v201 = acc;
        lane_v202.read(acc, meta.idx); acc = acc + hdr.ina_data.v202; lane_v202.write(meta.idx, acc); hdr.ina_data.v202 = acc;
        lane_v203.read(acc, meta.idx); acc = acc + hdr.ina_data.v203; lane_v203.write(meta.idx, acc); hdr.ina_data.v203 = acc;
        lane_v204.read(acc, meta.idx); acc = acc + hdr.ina_data.v204; lane_v204.write(meta.idx, acc); hdr.ina_data.v204 = acc;
        lane_v205.read(acc, meta.idx); acc = acc + hdr.ina_data.v205; lane_v205.write(meta.idx, acc); hdr.ina_data.v205 = acc;
        lane_v206.read(acc, meta.idx); acc = acc + hdr.ina_data.v206; lane_v206.write(meta.idx, acc); hdr.ina_data.v206 = acc;
        lane_v207.read(acc, meta.idx); acc = acc + hdr.ina_data.v207; lane_v207.write(meta.idx, acc); hdr.ina_data.v207 = acc;
        lane_v208.read(acc, meta.idx); acc = acc + hdr.ina_data.v208; lane_v208.write(meta.idx, acc); hdr.ina_data.v208 = acc;
        lane_v209.read(acc, meta.idx); acc = acc + hdr.ina_data.v209; lane_v209.write(meta.idx, acc); hdr.ina_data.v209 = acc;
        lane_v210.read(acc, meta.idx); acc = acc + hdr.ina_data.v210; lane_v210.write(meta.idx, acc); hdr.ina_data.v210 = acc;
        lane_v211.read(acc, meta.idx); acc = acc + hdr.ina_data.v211; lane_v211.write(meta.idx, acc); hdr.ina_data.v211 = acc;
        lane_v212.read(acc, meta.idx); acc = acc + hdr.ina_data.v212; lane_v212.write(meta.idx, acc); hdr.ina_data.v212 = acc;
        lane_v213.read(acc, meta.idx); acc = acc + hdr.ina_data.v213; lane_v213.write(meta.idx, acc); hdr.ina_data.v213 = acc;
        lane_v214.read(acc, meta.idx); acc = acc + hdr.ina_data.v214; lane_v214.write(meta.idx, acc); hdr.ina_data.v214 = acc;
        lane_v215.read(acc, meta.idx); acc = acc + hdr.ina_data.v215; lane_v215.write(meta.idx, acc); hdr.ina_data.v215 = acc;
        lane_v216.read(acc, meta.idx); acc = acc + hdr.ina_data.v216; lane_v216.write(meta.idx, acc); hdr.ina_data.v216 = acc;
        lane_v217.read(acc, meta.idx); acc = acc + hdr.ina_data.v217; lane_v217.write(meta.idx, acc); hdr.ina_data.v217 = acc;
        lane_v218.read(acc, meta.idx); acc = acc + hdr.ina_data.v218; lane_v218.write(meta.idx, acc); hdr.ina_data.v218 = acc;
        lane_v219.read(acc, meta.idx); acc = acc + hdr.ina_data.v219; lane_v219.write(meta.idx, acc); hdr.ina_data.v219 = acc;
        lane_v220.read(acc, meta.idx); acc = acc + hdr.ina_data.v220; lane_v220.write(meta.idx, acc); hdr.ina_data.v220 = acc;
        lane_v221.read(acc, meta.idx); acc = acc + hdr.ina_data.v221; lane_v221.write(meta.idx, acc); hdr.ina_data.v221 = acc;
        lane_v222.read(acc, meta.idx); acc = acc + hdr.ina_data.v222; lane_v222.write(meta.idx, acc); hdr.ina_data.v222 = acc;
        lane_v223.read(acc, meta.idx); acc = acc + hdr.ina_data.v223; lane_v223.write(meta.idx, acc); hdr.ina_data.v223 = acc;
        lane_v224.read(acc, meta.idx); acc = acc + hdr.ina_data.v224; lane_v224.write(meta.idx, acc); hdr.ina_data.v224 = acc;
        lane_v225.read(acc, meta.idx); acc = acc + hdr.ina_data.v225; lane_v225.write(meta.idx, acc); hdr.ina_data.v225 = acc;
        lane_v226.read(acc, meta.idx); acc = acc + hdr.ina_data.v226; lane_v226.write(meta.idx, acc); hdr.ina_data.v226 = acc;
        lane_v227.read(acc, meta.idx); acc = acc + hdr.ina_data.v227; lane_v227.write(meta.idx, acc); hdr.ina_data.v227 = acc;
        lane_v228.read(acc, meta.idx); acc = acc + hdr.ina_data.v228; lane_v228.write(meta.idx, acc); hdr.ina_data.v228 = acc;
        lane_v229.read(acc, meta.idx); acc = acc + hdr.ina_data.v229; lane_v229.write(meta.idx, acc); hdr.ina_data.v229 = acc;
        lane_v230.read(acc, meta.idx); acc = acc + hdr.ina_data.v230; lane_v230.write(meta.idx, acc); hdr.ina_data.v230 = acc;
        lane_v231.read(acc, meta.idx); acc = acc + hdr.ina_data.v231; lane_v231.write(meta.idx, acc); hdr.ina_data.v231 = acc;
        lane_v232.read(acc, meta.idx); acc = acc + hdr.ina_data.v232; lane_v232.write(meta.idx, acc); hdr.ina_data.v232 = acc;
        lane_v233.read(acc, meta.idx); acc = acc + hdr.ina_data.v233; lane_v233.write(meta.idx, acc); hdr.ina_data.v233 = acc;
        lane_v234.read(acc, meta.idx); acc = acc + hdr.ina_data.v234; lane_v234.write(meta.idx, acc); hdr.ina_data.v234 = acc;
        lane_v235.read(acc, meta.idx); acc = acc + hdr.ina_data.v235; lane_v235.write(meta.idx, acc); hdr.ina_data.v235 = acc;
        lane_v236.read(acc, meta.idx); acc = acc + hdr.ina_data.v236; lane_v236.write(meta.idx, acc); hdr.ina_data.v236 = acc;
        lane_v237.read(acc, meta.idx); acc = acc + hdr.ina_data.v237; lane_v237.write(meta.idx, acc); hdr.ina_data.v237 = acc;
        lane_v238.read(acc, meta.idx); acc = acc + hdr.ina_data.v238; lane_v238.write(meta.idx, acc); hdr.ina_data.v238 = acc;
        lane_v239.read(acc, meta.idx); acc = acc + hdr.ina_data.v239; lane_v239.write(meta.idx, acc); hdr.ina_data.v239 = acc;
        lane_v240.read(acc, meta.idx); acc = acc + hdr.ina_data.v240; lane_v240.write(meta.idx, acc); hdr.ina_data.v240 = acc;
        lane_v241.read(acc, meta.idx); acc = acc + hdr.ina_data.v241; lane_v241.write(meta.idx, acc); hdr.ina_data.v241 = acc;
        lane_v242.read(acc, meta.idx); acc = acc + hdr.ina_data.v242; lane_v242.write(meta.idx, acc); hdr.ina_data.v242 = acc;
        lane_v243.read(acc, meta.idx); acc = acc + hdr.ina_data.v243; lane_v243.write(meta.idx, acc); hdr.ina_data.v243 = acc;
        lane_v244.read(acc, meta.idx); acc = acc + hdr.ina_data.v244; lane_v244.write(meta.idx, acc); hdr.ina_data.v244 = acc;
        lane_v245.read(acc, meta.idx); acc = acc + hdr.ina_data.v245; lane_v245.write(meta.idx, acc); hdr.ina_data.v245 = acc;
        lane_v246.read(acc, meta.idx); acc = acc + hdr.ina_data.v246; lane_v246.write(meta.idx, acc); hdr.ina_data.v246 = acc;
        lane_v247.read(acc, meta.idx); acc = acc + hdr.ina_data.v247; lane_v247.write(meta.idx, acc); hdr.ina_data.v247 = acc;
        lane_v248.read(acc, meta.idx); acc = acc + hdr.ina_data.v248; lane_v248.write(meta.idx, acc); hdr.ina_data.v248 = acc;
        lane_v249.read(acc, meta.idx); acc = acc + hdr.ina_data.v249; lane_v249.write(meta.idx, acc); hdr.ina_data.v249 = acc;
        lane_v250.read(acc, meta.idx); acc = acc + hdr.ina_data.v250; lane_v250.write(meta.idx, acc); hdr.ina_data.v250 = acc;
        lane_v251.read(acc, meta.idx); acc = acc + hdr.ina_data.v251; lane_v251.write(meta.idx, acc); hdr.ina_data.v251 = acc;
        lane_v252.read(acc, meta.idx); acc = acc + hdr.ina_data.v252; lane_v252.write(meta.idx, acc); hdr.ina_data.v252 = acc;
        lane_v253.read(acc, meta.idx); acc = acc + hdr.ina_data.v253; lane_v253.write(meta.idx, acc); hdr.ina_data.v253 = acc;
        lane_v254.read(acc, meta.idx); acc = acc + hdr.ina_data.v254; lane_v254.write(meta.idx, acc); hdr.ina_data.v254 = acc;
        lane_v255.read(acc, meta.idx); acc = acc + hdr.ina_data.v255; lane_v255.write(meta.idx, acc); hdr.ina_data.v255 = acc;
    }

    action lanes_add16() {
        lane_v00.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v00 & 0xFFFF0000)) | ((acc + hdr.ina_data.v00) & 0xFFFF); lane_v00.write(meta.idx, acc); hdr.ina_data.v00 = acc;
        lane_v01.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v01 & 0xFFFF0000)) | ((acc + hdr.ina_data.v01) & 0xFFFF); lane_v01.write(meta.idx, acc); hdr.ina_data.v01 = acc;
        lane_v02.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v02 & 0xFFFF0000)) | ((acc + hdr.ina_data.v02) & 0xFFFF); lane_v02.write(meta.idx, acc); hdr.ina_data.v02 = acc;
        lane_v03.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v03 & 0xFFFF0000)) | ((acc + hdr.ina_data.v03) & 0xFFFF); lane_v03.write(meta.idx, acc); hdr.ina_data.v03 = acc;
        lane_v04.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v04 & 0xFFFF0000)) | ((acc + hdr.ina_data.v04) & 0xFFFF); lane_v04.write(meta.idx, acc); hdr.ina_data.v04 = acc;
        lane_v05.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v05 & 0xFFFF0000)) | ((acc + hdr.ina_data.v05) & 0xFFFF); lane_v05.write(meta.idx, acc); hdr.ina_data.v05 = acc;
        lane_v06.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v06 & 0xFFFF0000)) | ((acc + hdr.ina_data.v06) & 0xFFFF); lane_v06.write(meta.idx, acc); hdr.ina_data.v06 = acc;
        lane_v07.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v07 & 0xFFFF0000)) | ((acc + hdr.ina_data.v07) & 0xFFFF); lane_v07.write(meta.idx, acc); hdr.ina_data.v07 = acc;
        lane_v08.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v08 & 0xFFFF0000)) | ((acc + hdr.ina_data.v08) & 0xFFFF); lane_v08.write(meta.idx, acc); hdr.ina_data.v08 = acc;
        lane_v09.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v09 & 0xFFFF0000)) | ((acc + hdr.ina_data.v09) & 0xFFFF); lane_v09.write(meta.idx, acc); hdr.ina_data.v09 = acc;
        lane_v10.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v10 & 0xFFFF0000)) | ((acc + hdr.ina_data.v10) & 0xFFFF); lane_v10.write(meta.idx, acc); hdr.ina_data.v10 = acc;
        lane_v11.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v11 & 0xFFFF0000)) | ((acc + hdr.ina_data.v11) & 0xFFFF); lane_v11.write(meta.idx, acc); hdr.ina_data.v11 = acc;
        lane_v12.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v12 & 0xFFFF0000)) | ((acc + hdr.ina_data.v12) & 0xFFFF); lane_v12.write(meta.idx, acc); hdr.ina_data.v12 = acc;
        lane_v13.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v13 & 0xFFFF0000)) | ((acc + hdr.ina_data.v13) & 0xFFFF); lane_v13.write(meta.idx, acc); hdr.ina_data.v13 = acc;
        lane_v14.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v14 & 0xFFFF0000)) | ((acc + hdr.ina_data.v14) & 0xFFFF); lane_v14.write(meta.idx, acc); hdr.ina_data.v14 = acc;
        lane_v15.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v15 & 0xFFFF0000)) | ((acc + hdr.ina_data.v15) & 0xFFFF); lane_v15.write(meta.idx, acc); hdr.ina_data.v15 = acc;
        lane_v16.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v16 & 0xFFFF0000)) | ((acc + hdr.ina_data.v16) & 0xFFFF); lane_v16.write(meta.idx, acc); hdr.ina_data.v16 = acc;
        lane_v17.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v17 & 0xFFFF0000)) | ((acc + hdr.ina_data.v17) & 0xFFFF); lane_v17.write(meta.idx, acc); hdr.ina_data.v17 = acc;
        lane_v18.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v18 & 0xFFFF0000)) | ((acc + hdr.ina_data.v18) & 0xFFFF); lane_v18.write(meta.idx, acc); hdr.ina_data.v18 = acc;
        lane_v19.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v19 & 0xFFFF0000)) | ((acc + hdr.ina_data.v19) & 0xFFFF); lane_v19.write(meta.idx, acc); hdr.ina_data.v19 = acc;
        lane_v20.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v20 & 0xFFFF0000)) | ((acc + hdr.ina_data.v20) & 0xFFFF); lane_v20.write(meta.idx, acc); hdr.ina_data.v20 = acc;
        lane_v21.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v21 & 0xFFFF0000)) | ((acc + hdr.ina_data.v21) & 0xFFFF); lane_v21.write(meta.idx, acc); hdr.ina_data.v21 = acc;
        lane_v22.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v22 & 0xFFFF0000)) | ((acc + hdr.ina_data.v22) & 0xFFFF); lane_v22.write(meta.idx, acc); hdr.ina_data.v22 = acc;
        lane_v23.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v23 & 0xFFFF0000)) | ((acc + hdr.ina_data.v23) & 0xFFFF); lane_v23.write(meta.idx, acc); hdr.ina_data.v23 = acc;
        lane_v24.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v24 & 0xFFFF0000)) | ((acc + hdr.ina_data.v24) & 0xFFFF); lane_v24.write(meta.idx, acc); hdr.ina_data.v24 = acc;
        lane_v25.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v25 & 0xFFFF0000)) | ((acc + hdr.ina_data.v25) & 0xFFFF); lane_v25.write(meta.idx, acc); hdr.ina_data.v25 = acc;
        lane_v26.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v26 & 0xFFFF0000)) | ((acc + hdr.ina_data.v26) & 0xFFFF); lane_v26.write(meta.idx, acc); hdr.ina_data.v26 = acc;
        lane_v27.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v27 & 0xFFFF0000)) | ((acc + hdr.ina_data.v27) & 0xFFFF); lane_v27.write(meta.idx, acc); hdr.ina_data.v27 = acc;
        lane_v28.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v28 & 0xFFFF0000)) | ((acc + hdr.ina_data.v28) & 0xFFFF); lane_v28.write(meta.idx, acc); hdr.ina_data.v28 = acc;
        lane_v29.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v29 & 0xFFFF0000)) | ((acc + hdr.ina_data.v29) & 0xFFFF); lane_v29.write(meta.idx, acc); hdr.ina_data.v29 = acc;
        lane_v30.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v30 & 0xFFFF0000)) | ((acc + hdr.ina_data.v30) & 0xFFFF); lane_v30.write(meta.idx, acc); hdr.ina_data.v30 = acc;
        lane_v31.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v31 & 0xFFFF0000)) | ((acc + hdr.ina_data.v31) & 0xFFFF); lane_v31.write(meta.idx, acc); hdr.ina_data.v31 = acc;
        lane_v32.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v32 & 0xFFFF0000)) | ((acc + hdr.ina_data.v32) & 0xFFFF); lane_v32.write(meta.idx, acc); hdr.ina_data.v32 = acc;
        lane_v33.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v33 & 0xFFFF0000)) | ((acc + hdr.ina_data.v33) & 0xFFFF); lane_v33.write(meta.idx, acc); hdr.ina_data.v33 = acc;
        lane_v34.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v34 & 0xFFFF0000)) | ((acc + hdr.ina_data.v34) & 0xFFFF); lane_v34.write(meta.idx, acc); hdr.ina_data.v34 = acc;
        lane_v35.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v35 & 0xFFFF0000)) | ((acc + hdr.ina_data.v35) & 0xFFFF); lane_v35.write(meta.idx, acc); hdr.ina_data.v35 = acc;
        lane_v36.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v36 & 0xFFFF0000)) | ((acc + hdr.ina_data.v36) & 0xFFFF); lane_v36.write(meta.idx, acc); hdr.ina_data.v36 = acc;
        lane_v37.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v37 & 0xFFFF0000)) | ((acc + hdr.ina_data.v37) & 0xFFFF); lane_v37.write(meta.idx, acc); hdr.ina_data.v37 = acc;
        lane_v38.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v38 & 0xFFFF0000)) | ((acc + hdr.ina_data.v38) & 0xFFFF); lane_v38.write(meta.idx, acc); hdr.ina_data.v38 = acc;
        lane_v39.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v39 & 0xFFFF0000)) | ((acc + hdr.ina_data.v39) & 0xFFFF); lane_v39.write(meta.idx, acc); hdr.ina_data.v39 = acc;
        lane_v40.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v40 & 0xFFFF0000)) | ((acc + hdr.ina_data.v40) & 0xFFFF); lane_v40.write(meta.idx, acc); hdr.ina_data.v40 = acc;
        lane_v41.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v41 & 0xFFFF0000)) | ((acc + hdr.ina_data.v41) & 0xFFFF); lane_v41.write(meta.idx, acc); hdr.ina_data.v41 = acc;
        lane_v42.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v42 & 0xFFFF0000)) | ((acc + hdr.ina_data.v42) & 0xFFFF); lane_v42.write(meta.idx, acc); hdr.ina_data.v42 = acc;
        lane_v43.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v43 & 0xFFFF0000)) | ((acc + hdr.ina_data.v43) & 0xFFFF); lane_v43.write(meta.idx, acc); hdr.ina_data.v43 = acc;
        lane_v44.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v44 & 0xFFFF0000)) | ((acc + hdr.ina_data.v44) & 0xFFFF); lane_v44.write(meta.idx, acc); hdr.ina_data.v44 = acc;
        lane_v45.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v45 & 0xFFFF0000)) | ((acc + hdr.ina_data.v45) & 0xFFFF); lane_v45.write(meta.idx, acc); hdr.ina_data.v45 = acc;
        lane_v46.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v46 & 0xFFFF0000)) | ((acc + hdr.ina_data.v46) & 0xFFFF); lane_v46.write(meta.idx, acc); hdr.ina_data.v46 = acc;
        lane_v47.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v47 & 0xFFFF0000)) | ((acc + hdr.ina_data.v47) & 0xFFFF); lane_v47.write(meta.idx, acc); hdr.ina_data.v47 = acc;
        lane_v48.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v48 & 0xFFFF0000)) | ((acc + hdr.ina_data.v48) & 0xFFFF); lane_v48.write(meta.idx, acc); hdr.ina_data.v48 = acc;
        lane_v49.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v49 & 0xFFFF0000)) | ((acc + hdr.ina_data.v49) & 0xFFFF); lane_v49.write(meta.idx, acc); hdr.ina_data.v49 = acc;
        lane_v50.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v50 & 0xFFFF0000)) | ((acc + hdr.ina_data.v50) & 0xFFFF); lane_v50.write(meta.idx, acc); hdr.ina_data.v50 = acc;
        lane_v51.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v51 & 0xFFFF0000)) | ((acc + hdr.ina_data.v51) & 0xFFFF); lane_v51.write(meta.idx, acc); hdr.ina_data.v51 = acc;
        lane_v52.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v52 & 0xFFFF0000)) | ((acc + hdr.ina_data.v52) & 0xFFFF); lane_v52.write(meta.idx, acc); hdr.ina_data.v52 = acc;
        lane_v53.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v53 & 0xFFFF0000)) | ((acc + hdr.ina_data.v53) & 0xFFFF); lane_v53.write(meta.idx, acc); hdr.ina_data.v53 = acc;
        lane_v54.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v54 & 0xFFFF0000)) | ((acc + hdr.ina_data.v54) & 0xFFFF); lane_v54.write(meta.idx, acc); hdr.ina_data.v54 = acc;
        lane_v55.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v55 & 0xFFFF0000)) | ((acc + hdr.ina_data.v55) & 0xFFFF); lane_v55.write(meta.idx, acc); hdr.ina_data.v55 = acc;
        lane_v56.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v56 & 0xFFFF0000)) | ((acc + hdr.ina_data.v56) & 0xFFFF); lane_v56.write(meta.idx, acc); hdr.ina_data.v56 = acc;
        lane_v57.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v57 & 0xFFFF0000)) | ((acc + hdr.ina_data.v57) & 0xFFFF); lane_v57.write(meta.idx, acc); hdr.ina_data.v57 = acc;
        lane_v58.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v58 & 0xFFFF0000)) | ((acc + hdr.ina_data.v58) & 0xFFFF); lane_v58.write(meta.idx, acc); hdr.ina_data.v58 = acc;
        lane_v59.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v59 & 0xFFFF0000)) | ((acc + hdr.ina_data.v59) & 0xFFFF); lane_v59.write(meta.idx, acc); hdr.ina_data.v59 = acc;
        lane_v60.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v60 & 0xFFFF0000)) | ((acc + hdr.ina_data.v60) & 0xFFFF); lane_v60.write(meta.idx, acc); hdr.ina_data.v60 = acc;
        lane_v61.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v61 & 0xFFFF0000)) | ((acc + hdr.ina_data.v61) & 0xFFFF); lane_v61.write(meta.idx, acc); hdr.ina_data.v61 = acc;
        lane_v62.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v62 & 0xFFFF0000)) | ((acc + hdr.ina_data.v62) & 0xFFFF); lane_v62.write(meta.idx, acc); hdr.ina_data.v62 = acc;
        lane_v63.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v63 & 0xFFFF0000)) | ((acc + hdr.ina_data.v63) & 0xFFFF); lane_v63.write(meta.idx, acc); hdr.ina_data.v63 = acc;
        lane_v64.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v64 & 0xFFFF0000)) | ((acc + hdr.ina_data.v64) & 0xFFFF); lane_v64.write(meta.idx, acc); hdr.ina_data.v64 = acc;
        lane_v65.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v65 & 0xFFFF0000)) | ((acc + hdr.ina_data.v65) & 0xFFFF); lane_v65.write(meta.idx, acc); hdr.ina_data.v65 = acc;
        lane_v66.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v66 & 0xFFFF0000)) | ((acc + hdr.ina_data.v66) & 0xFFFF); lane_v66.write(meta.idx, acc); hdr.ina_data.v66 = acc;
        lane_v67.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v67 & 0xFFFF0000)) | ((acc + hdr.ina_data.v67) & 0xFFFF); lane_v67.write(meta.idx, acc); hdr.ina_data.v67 = acc;
        lane_v68.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v68 & 0xFFFF0000)) | ((acc + hdr.ina_data.v68) & 0xFFFF); lane_v68.write(meta.idx, acc); hdr.ina_data.v68 = acc;
        lane_v69.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v69 & 0xFFFF0000)) | ((acc + hdr.ina_data.v69) & 0xFFFF); lane_v69.write(meta.idx, acc); hdr.ina_data.v69 = acc;
        lane_v70.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v70 & 0xFFFF0000)) | ((acc + hdr.ina_data.v70) & 0xFFFF); lane_v70.write(meta.idx, acc); hdr.ina_data.v70 = acc;
        lane_v71.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v71 & 0xFFFF0000)) | ((acc + hdr.ina_data.v71) & 0xFFFF); lane_v71.write(meta.idx, acc); hdr.ina_data.v71 = acc;
        lane_v72.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v72 & 0xFFFF0000)) | ((acc + hdr.ina_data.v72) & 0xFFFF); lane_v72.write(meta.idx, acc); hdr.ina_data.v72 = acc;
        lane_v73.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v73 & 0xFFFF0000)) | ((acc + hdr.ina_data.v73) & 0xFFFF); lane_v73.write(meta.idx, acc); hdr.ina_data.v73 = acc;
        lane_v74.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v74 & 0xFFFF0000)) | ((acc + hdr.ina_data.v74) & 0xFFFF); lane_v74.write(meta.idx, acc); hdr.ina_data.v74 = acc;
        lane_v75.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v75 & 0xFFFF0000)) | ((acc + hdr.ina_data.v75) & 0xFFFF); lane_v75.write(meta.idx, acc); hdr.ina_data.v75 = acc;
        lane_v76.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v76 & 0xFFFF0000)) | ((acc + hdr.ina_data.v76) & 0xFFFF); lane_v76.write(meta.idx, acc); hdr.ina_data.v76 = acc;
        lane_v77.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v77 & 0xFFFF0000)) | ((acc + hdr.ina_data.v77) & 0xFFFF); lane_v77.write(meta.idx, acc); hdr.ina_data.v77 = acc;
        lane_v78.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v78 & 0xFFFF0000)) | ((acc + hdr.ina_data.v78) & 0xFFFF); lane_v78.write(meta.idx, acc); hdr.ina_data.v78 = acc;
        lane_v79.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v79 & 0xFFFF0000)) | ((acc + hdr.ina_data.v79) & 0xFFFF); lane_v79.write(meta.idx, acc); hdr.ina_data.v79 = acc;
        lane_v80.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v80 & 0xFFFF0000)) | ((acc + hdr.ina_data.v80) & 0xFFFF); lane_v80.write(meta.idx, acc); hdr.ina_data.v80 = acc;
        lane_v81.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v81 & 0xFFFF0000)) | ((acc + hdr.ina_data.v81) & 0xFFFF); lane_v81.write(meta.idx, acc); hdr.ina_data.v81 = acc;
        lane_v82.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v82 & 0xFFFF0000)) | ((acc + hdr.ina_data.v82) & 0xFFFF); lane_v82.write(meta.idx, acc); hdr.ina_data.v82 = acc;
        lane_v83.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v83 & 0xFFFF0000)) | ((acc + hdr.ina_data.v83) & 0xFFFF); lane_v83.write(meta.idx, acc); hdr.ina_data.v83 = acc;
        lane_v84.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v84 & 0xFFFF0000)) | ((acc + hdr.ina_data.v84) & 0xFFFF); lane_v84.write(meta.idx, acc); hdr.ina_data.v84 = acc;
        lane_v85.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v85 & 0xFFFF0000)) | ((acc + hdr.ina_data.v85) & 0xFFFF); lane_v85.write(meta.idx, acc); hdr.ina_data.v85 = acc;
        lane_v86.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v86 & 0xFFFF0000)) | ((acc + hdr.ina_data.v86) & 0xFFFF); lane_v86.write(meta.idx, acc); hdr.ina_data.v86 = acc;
        lane_v87.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v87 & 0xFFFF0000)) | ((acc + hdr.ina_data.v87) & 0xFFFF); lane_v87.write(meta.idx, acc); hdr.ina_data.v87 = acc;
        lane_v88.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v88 & 0xFFFF0000)) | ((acc + hdr.ina_data.v88) & 0xFFFF); lane_v88.write(meta.idx, acc); hdr.ina_data.v88 = acc;
        lane_v89.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v89 & 0xFFFF0000)) | ((acc + hdr.ina_data.v89) & 0xFFFF); lane_v89.write(meta.idx, acc); hdr.ina_data.v89 = acc;
        lane_v90.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v90 & 0xFFFF0000)) | ((acc + hdr.ina_data.v90) & 0xFFFF); lane_v90.write(meta.idx, acc); hdr.ina_data.v90 = acc;
        lane_v91.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v91 & 0xFFFF0000)) | ((acc + hdr.ina_data.v91) & 0xFFFF); lane_v91.write(meta.idx, acc); hdr.ina_data.v91 = acc;
        lane_v92.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v92 & 0xFFFF0000)) | ((acc + hdr.ina_data.v92) & 0xFFFF); lane_v92.write(meta.idx, acc); hdr.ina_data.v92 = acc;
        lane_v93.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v93 & 0xFFFF0000)) | ((acc + hdr.ina_data.v93) & 0xFFFF); lane_v93.write(meta.idx, acc); hdr.ina_data.v93 = acc;
        lane_v94.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v94 & 0xFFFF0000)) | ((acc + hdr.ina_data.v94) & 0xFFFF); lane_v94.write(meta.idx, acc); hdr.ina_data.v94 = acc;
        lane_v95.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v95 & 0xFFFF0000)) | ((acc + hdr.ina_data.v95) & 0xFFFF); lane_v95.write(meta.idx, acc); hdr.ina_data.v95 = acc;
        lane_v96.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v96 & 0xFFFF0000)) | ((acc + hdr.ina_data.v96) & 0xFFFF); lane_v96.write(meta.idx, acc); hdr.ina_data.v96 = acc;
        lane_v97.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v97 & 0xFFFF0000)) | ((acc + hdr.ina_data.v97) & 0xFFFF); lane_v97.write(meta.idx, acc); hdr.ina_data.v97 = acc;
        lane_v98.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v98 & 0xFFFF0000)) | ((acc + hdr.ina_data.v98) & 0xFFFF); lane_v98.write(meta.idx, acc); hdr.ina_data.v98 = acc;
        lane_v99.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v99 & 0xFFFF0000)) | ((acc + hdr.ina_data.v99) & 0xFFFF); lane_v99.write(meta.idx, acc); hdr.ina_data.v99 = acc;
        lane_v100.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v100 & 0xFFFF0000)) | ((acc + hdr.ina_data.v100) & 0xFFFF); lane_v100.write(meta.idx, acc); hdr.ina_data.v100 = acc;
        lane_v101.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v101 & 0xFFFF0000)) | ((acc + hdr.ina_data.v101) & 0xFFFF); lane_v101.write(meta.idx, acc); hdr.ina_data.v101 = acc;
        lane_v102.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v102 & 0xFFFF0000)) | ((acc + hdr.ina_data.v102) & 0xFFFF); lane_v102.write(meta.idx, acc); hdr.ina_data.v102 = acc;
        lane_v103.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v103 & 0xFFFF0000)) | ((acc + hdr.ina_data.v103) & 0xFFFF); lane_v103.write(meta.idx, acc); hdr.ina_data.v103 = acc;
        lane_v104.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v104 & 0xFFFF0000)) | ((acc + hdr.ina_data.v104) & 0xFFFF); lane_v104.write(meta.idx, acc); hdr.ina_data.v104 = acc;
        lane_v105.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v105 & 0xFFFF0000)) | ((acc + hdr.ina_data.v105) & 0xFFFF); lane_v105.write(meta.idx, acc); hdr.ina_data.v105 = acc;
        lane_v106.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v106 & 0xFFFF0000)) | ((acc + hdr.ina_data.v106) & 0xFFFF); lane_v106.write(meta.idx, acc); hdr.ina_data.v106 = acc;
        lane_v107.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v107 & 0xFFFF0000)) | ((acc + hdr.ina_data.v107) & 0xFFFF); lane_v107.write(meta.idx, acc); hdr.ina_data.v107 = acc;
        lane_v108.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v108 & 0xFFFF0000)) | ((acc + hdr.ina_data.v108) & 0xFFFF); lane_v108.write(meta.idx, acc); hdr.ina_data.v108 = acc;
        lane_v109.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v109 & 0xFFFF0000)) | ((acc + hdr.ina_data.v109) & 0xFFFF); lane_v109.write(meta.idx, acc); hdr.ina_data.v109 = acc;
        lane_v110.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v110 & 0xFFFF0000)) | ((acc + hdr.ina_data.v110) & 0xFFFF); lane_v110.write(meta.idx, acc); hdr.ina_data.v110 = acc;
        lane_v111.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v111 & 0xFFFF0000)) | ((acc + hdr.ina_data.v111) & 0xFFFF); lane_v111.write(meta.idx, acc); hdr.ina_data.v111 = acc;
        lane_v112.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v112 & 0xFFFF0000)) | ((acc + hdr.ina_data.v112) & 0xFFFF); lane_v112.write(meta.idx, acc); hdr.ina_data.v112 = acc;
        lane_v113.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v113 & 0xFFFF0000)) | ((acc + hdr.ina_data.v113) & 0xFFFF); lane_v113.write(meta.idx, acc); hdr.ina_data.v113 = acc;
        lane_v114.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v114 & 0xFFFF0000)) | ((acc + hdr.ina_data.v114) & 0xFFFF); lane_v114.write(meta.idx, acc); hdr.ina_data.v114 = acc;
        lane_v115.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v115 & 0xFFFF0000)) | ((acc + hdr.ina_data.v115) & 0xFFFF); lane_v115.write(meta.idx, acc); hdr.ina_data.v115 = acc;
        lane_v116.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v116 & 0xFFFF0000)) | ((acc + hdr.ina_data.v116) & 0xFFFF); lane_v116.write(meta.idx, acc); hdr.ina_data.v116 = acc;
        lane_v117.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v117 & 0xFFFF0000)) | ((acc + hdr.ina_data.v117) & 0xFFFF); lane_v117.write(meta.idx, acc); hdr.ina_data.v117 = acc;
        lane_v118.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v118 & 0xFFFF0000)) | ((acc + hdr.ina_data.v118) & 0xFFFF); lane_v118.write(meta.idx, acc); hdr.ina_data.v118 = acc;
        lane_v119.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v119 & 0xFFFF0000)) | ((acc + hdr.ina_data.v119) & 0xFFFF); lane_v119.write(meta.idx, acc); hdr.ina_data.v119 = acc;
        lane_v120.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v120 & 0xFFFF0000)) | ((acc + hdr.ina_data.v120) & 0xFFFF); lane_v120.write(meta.idx, acc); hdr.ina_data.v120 = acc;
        lane_v121.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v121 & 0xFFFF0000)) | ((acc + hdr.ina_data.v121) & 0xFFFF); lane_v121.write(meta.idx, acc); hdr.ina_data.v121 = acc;
        lane_v122.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v122 & 0xFFFF0000)) | ((acc + hdr.ina_data.v122) & 0xFFFF); lane_v122.write(meta.idx, acc); hdr.ina_data.v122 = acc;
        lane_v123.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v123 & 0xFFFF0000)) | ((acc + hdr.ina_data.v123) & 0xFFFF); lane_v123.write(meta.idx, acc); hdr.ina_data.v123 = acc;
        lane_v124.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v124 & 0xFFFF0000)) | ((acc + hdr.ina_data.v124) & 0xFFFF); lane_v124.write(meta.idx, acc); hdr.ina_data.v124 = acc;
        lane_v125.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v125 & 0xFFFF0000)) | ((acc + hdr.ina_data.v125) & 0xFFFF); lane_v125.write(meta.idx, acc); hdr.ina_data.v125 = acc;
        lane_v126.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v126 & 0xFFFF0000)) | ((acc + hdr.ina_data.v126) & 0xFFFF); lane_v126.write(meta.idx, acc); hdr.ina_data.v126 = acc;
        lane_v127.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v127 & 0xFFFF0000)) | ((acc + hdr.ina_data.v127) & 0xFFFF); lane_v127.write(meta.idx, acc); hdr.ina_data.v127 = acc;
        lane_v128.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v128 & 0xFFFF0000)) | ((acc + hdr.ina_data.v128) & 0xFFFF); lane_v128.write(meta.idx, acc); hdr.ina_data.v128 = acc;
        lane_v129.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v129 & 0xFFFF0000)) | ((acc + hdr.ina_data.v129) & 0xFFFF); lane_v129.write(meta.idx, acc); hdr.ina_data.v129 = acc;
        lane_v130.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v130 & 0xFFFF0000)) | ((acc + hdr.ina_data.v130) & 0xFFFF); lane_v130.write(meta.idx, acc); hdr.ina_data.v130 = acc;
        lane_v131.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v131 & 0xFFFF0000)) | ((acc + hdr.ina_data.v131) & 0xFFFF); lane_v131.write(meta.idx, acc); hdr.ina_data.v131 = acc;
        lane_v132.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v132 & 0xFFFF0000)) | ((acc + hdr.ina_data.v132) & 0xFFFF); lane_v132.write(meta.idx, acc); hdr.ina_data.v132 = acc;
        lane_v133.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v133 & 0xFFFF0000)) | ((acc + hdr.ina_data.v133) & 0xFFFF); lane_v133.write(meta.idx, acc); hdr.ina_data.v133 = acc;
        lane_v134.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v134 & 0xFFFF0000)) | ((acc + hdr.ina_data.v134) & 0xFFFF); lane_v134.write(meta.idx, acc); hdr.ina_data.v134 = acc;
        lane_v135.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v135 & 0xFFFF0000)) | ((acc + hdr.ina_data.v135) & 0xFFFF); lane_v135.write(meta.idx, acc); hdr.ina_data.v135 = acc;
        lane_v136.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v136 & 0xFFFF0000)) | ((acc + hdr.ina_data.v136) & 0xFFFF); lane_v136.write(meta.idx, acc); hdr.ina_data.v136 = acc;
        lane_v137.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v137 & 0xFFFF0000)) | ((acc + hdr.ina_data.v137) & 0xFFFF); lane_v137.write(meta.idx, acc); hdr.ina_data.v137 = acc;
        lane_v138.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v138 & 0xFFFF0000)) | ((acc + hdr.ina_data.v138) & 0xFFFF); lane_v138.write(meta.idx, acc); hdr.ina_data.v138 = acc;
        lane_v139.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v139 & 0xFFFF0000)) | ((acc + hdr.ina_data.v139) & 0xFFFF); lane_v139.write(meta.idx, acc); hdr.ina_data.v139 = acc;
        lane_v140.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v140 & 0xFFFF0000)) | ((acc + hdr.ina_data.v140) & 0xFFFF); lane_v140.write(meta.idx, acc); hdr.ina_data.v140 = acc;
        lane_v141.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v141 & 0xFFFF0000)) | ((acc + hdr.ina_data.v141) & 0xFFFF); lane_v141.write(meta.idx, acc); hdr.ina_data.v141 = acc;
        lane_v142.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v142 & 0xFFFF0000)) | ((acc + hdr.ina_data.v142) & 0xFFFF); lane_v142.write(meta.idx, acc); hdr.ina_data.v142 = acc;
        lane_v143.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v143 & 0xFFFF0000)) | ((acc + hdr.ina_data.v143) & 0xFFFF); lane_v143.write(meta.idx, acc); hdr.ina_data.v143 = acc;
        lane_v144.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v144 & 0xFFFF0000)) | ((acc + hdr.ina_data.v144) & 0xFFFF); lane_v144.write(meta.idx, acc); hdr.ina_data.v144 = acc;
        lane_v145.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v145 & 0xFFFF0000)) | ((acc + hdr.ina_data.v145) & 0xFFFF); lane_v145.write(meta.idx, acc); hdr.ina_data.v145 = acc;
        lane_v146.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v146 & 0xFFFF0000)) | ((acc + hdr.ina_data.v146) & 0xFFFF); lane_v146.write(meta.idx, acc); hdr.ina_data.v146 = acc;
        lane_v147.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v147 & 0xFFFF0000)) | ((acc + hdr.ina_data.v147) & 0xFFFF); lane_v147.write(meta.idx, acc); hdr.ina_data.v147 = acc;
        lane_v148.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v148 & 0xFFFF0000)) | ((acc + hdr.ina_data.v148) & 0xFFFF); lane_v148.write(meta.idx, acc); hdr.ina_data.v148 = acc;
        lane_v149.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v149 & 0xFFFF0000)) | ((acc + hdr.ina_data.v149) & 0xFFFF); lane_v149.write(meta.idx, acc); hdr.ina_data.v149 = acc;
        lane_v150.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v150 & 0xFFFF0000)) | ((acc + hdr.ina_data.v150) & 0xFFFF); lane_v150.write(meta.idx, acc); hdr.ina_data.v150 = acc;
        lane_v151.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v151 & 0xFFFF0000)) | ((acc + hdr.ina_data.v151) & 0xFFFF); lane_v151.write(meta.idx, acc); hdr.ina_data.v151 = acc;
        lane_v152.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v152 & 0xFFFF0000)) | ((acc + hdr.ina_data.v152) & 0xFFFF); lane_v152.write(meta.idx, acc); hdr.ina_data.v152 = acc;
        lane_v153.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v153 & 0xFFFF0000)) | ((acc + hdr.ina_data.v153) & 0xFFFF); lane_v153.write(meta.idx, acc); hdr.ina_data.v153 = acc;
        lane_v154.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v154 & 0xFFFF0000)) | ((acc + hdr.ina_data.v154) & 0xFFFF); lane_v154.write(meta.idx, acc); hdr.ina_data.v154 = acc;
        lane_v155.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v155 & 0xFFFF0000)) | ((acc + hdr.ina_data.v155) & 0xFFFF); lane_v155.write(meta.idx, acc); hdr.ina_data.v155 = acc;
        lane_v156.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v156 & 0xFFFF0000)) | ((acc + hdr.ina_data.v156) & 0xFFFF); lane_v156.write(meta.idx, acc); hdr.ina_data.v156 = acc;
        lane_v157.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v157 & 0xFFFF0000)) | ((acc + hdr.ina_data.v157) & 0xFFFF); lane_v157.write(meta.idx, acc); hdr.ina_data.v157 = acc;
        lane_v158.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v158 & 0xFFFF0000)) | ((acc + hdr.ina_data.v158) & 0xFFFF); lane_v158.write(meta.idx, acc); hdr.ina_data.v158 = acc;
        lane_v159.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v159 & 0xFFFF0000)) | ((acc + hdr.ina_data.v159) & 0xFFFF); lane_v159.write(meta.idx, acc); hdr.ina_data.v159 = acc;
        lane_v160.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v160 & 0xFFFF0000)) | ((acc + hdr.ina_data.v160) & 0xFFFF); lane_v160.write(meta.idx, acc); hdr.ina_data.v160 = acc;
        lane_v161.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v161 & 0xFFFF0000)) | ((acc + hdr.ina_data.v161) & 0xFFFF); lane_v161.write(meta.idx, acc); hdr.ina_data.v161 = acc;
        lane_v162.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v162 & 0xFFFF0000)) | ((acc + hdr.ina_data.v162) & 0xFFFF); lane_v162.write(meta.idx, acc); hdr.ina_data.v162 = acc;
        lane_v163.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v163 & 0xFFFF0000)) | ((acc + hdr.ina_data.v163) & 0xFFFF); lane_v163.write(meta.idx, acc); hdr.ina_data.v163 = acc;
        lane_v164.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v164 & 0xFFFF0000)) | ((acc + hdr.ina_data.v164) & 0xFFFF); lane_v164.write(meta.idx, acc); hdr.ina_data.v164 = acc;
        lane_v165.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v165 & 0xFFFF0000)) | ((acc + hdr.ina_data.v165) & 0xFFFF); lane_v165.write(meta.idx, acc); hdr.ina_data.v165 = acc;
        lane_v166.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v166 & 0xFFFF0000)) | ((acc + hdr.ina_data.v166) & 0xFFFF); lane_v166.write(meta.idx, acc); hdr.ina_data.v166 = acc;
        lane_v167.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v167 & 0xFFFF0000)) | ((acc + hdr.ina_data.v167) & 0xFFFF); lane_v167.write(meta.idx, acc); hdr.ina_data.v167 = acc;
        lane_v168.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v168 & 0xFFFF0000)) | ((acc + hdr.ina_data.v168) & 0xFFFF); lane_v168.write(meta.idx, acc); hdr.ina_data.v168 = acc;
        lane_v169.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v169 & 0xFFFF0000)) | ((acc + hdr.ina_data.v169) & 0xFFFF); lane_v169.write(meta.idx, acc); hdr.ina_data.v169 = acc;
        lane_v170.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v170 & 0xFFFF0000)) | ((acc + hdr.ina_data.v170) & 0xFFFF); lane_v170.write(meta.idx, acc); hdr.ina_data.v170 = acc;
        lane_v171.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v171 & 0xFFFF0000)) | ((acc + hdr.ina_data.v171) & 0xFFFF); lane_v171.write(meta.idx, acc); hdr.ina_data.v171 = acc;
        lane_v172.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v172 & 0xFFFF0000)) | ((acc + hdr.ina_data.v172) & 0xFFFF); lane_v172.write(meta.idx, acc); hdr.ina_data.v172 = acc;
        lane_v173.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v173 & 0xFFFF0000)) | ((acc + hdr.ina_data.v173) & 0xFFFF); lane_v173.write(meta.idx, acc); hdr.ina_data.v173 = acc;
        lane_v174.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v174 & 0xFFFF0000)) | ((acc + hdr.ina_data.v174) & 0xFFFF); lane_v174.write(meta.idx, acc); hdr.ina_data.v174 = acc;
        lane_v175.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v175 & 0xFFFF0000)) | ((acc + hdr.ina_data.v175) & 0xFFFF); lane_v175.write(meta.idx, acc); hdr.ina_data.v175 = acc;
        lane_v176.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v176 & 0xFFFF0000)) | ((acc + hdr.ina_data.v176) & 0xFFFF); lane_v176.write(meta.idx, acc); hdr.ina_data.v176 = acc;
        lane_v177.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v177 & 0xFFFF0000)) | ((acc + hdr.ina_data.v177) & 0xFFFF); lane_v177.write(meta.idx, acc); hdr.ina_data.v177 = acc;
        lane_v178.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v178 & 0xFFFF0000)) | ((acc + hdr.ina_data.v178) & 0xFFFF); lane_v178.write(meta.idx, acc); hdr.ina_data.v178 = acc;
        lane_v179.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v179 & 0xFFFF0000)) | ((acc + hdr.ina_data.v179) & 0xFFFF); lane_v179.write(meta.idx, acc); hdr.ina_data.v179 = acc;
        lane_v180.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v180 & 0xFFFF0000)) | ((acc + hdr.ina_data.v180) & 0xFFFF); lane_v180.write(meta.idx, acc); hdr.ina_data.v180 = acc;
        lane_v181.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v181 & 0xFFFF0000)) | ((acc + hdr.ina_data.v181) & 0xFFFF); lane_v181.write(meta.idx, acc); hdr.ina_data.v181 = acc;
        lane_v182.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v182 & 0xFFFF0000)) | ((acc + hdr.ina_data.v182) & 0xFFFF); lane_v182.write(meta.idx, acc); hdr.ina_data.v182 = acc;
        lane_v183.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v183 & 0xFFFF0000)) | ((acc + hdr.ina_data.v183) & 0xFFFF); lane_v183.write(meta.idx, acc); hdr.ina_data.v183 = acc;
        lane_v184.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v184 & 0xFFFF0000)) | ((acc + hdr.ina_data.v184) & 0xFFFF); lane_v184.write(meta.idx, acc); hdr.ina_data.v184 = acc;
        lane_v185.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v185 & 0xFFFF0000)) | ((acc + hdr.ina_data.v185) & 0xFFFF); lane_v185.write(meta.idx, acc); hdr.ina_data.v185 = acc;
        lane_v186.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v186 & 0xFFFF0000)) | ((acc + hdr.ina_data.v186) & 0xFFFF); lane_v186.write(meta.idx, acc); hdr.ina_data.v186 = acc;
        lane_v187.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v187 & 0xFFFF0000)) | ((acc + hdr.ina_data.v187) & 0xFFFF); lane_v187.write(meta.idx, acc); hdr.ina_data.v187 = acc;
        lane_v188.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v188 & 0xFFFF0000)) | ((acc + hdr.ina_data.v188) & 0xFFFF); lane_v188.write(meta.idx, acc); hdr.ina_data.v188 = acc;
        lane_v189.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v189 & 0xFFFF0000)) | ((acc + hdr.ina_data.v189) & 0xFFFF); lane_v189.write(meta.idx, acc); hdr.ina_data.v189 = acc;
        lane_v190.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v190 & 0xFFFF0000)) | ((acc + hdr.ina_data.v190) & 0xFFFF); lane_v190.write(meta.idx, acc); hdr.ina_data.v190 = acc;
        lane_v191.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v191 & 0xFFFF0000)) | ((acc + hdr.ina_data.v191) & 0xFFFF); lane_v191.write(meta.idx, acc); hdr.ina_data.v191 = acc;
        lane_v192.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v192 & 0xFFFF0000)) | ((acc + hdr.ina_data.v192) & 0xFFFF); lane_v192.write(meta.idx, acc); hdr.ina_data.v192 = acc;
        lane_v193.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v193 & 0xFFFF0000)) | ((acc + hdr.ina_data.v193) & 0xFFFF); lane_v193.write(meta.idx, acc); hdr.ina_data.v193 = acc;
        lane_v194.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v194 & 0xFFFF0000)) | ((acc + hdr.ina_data.v194) & 0xFFFF); lane_v194.write(meta.idx, acc); hdr.ina_data.v194 = acc;
        lane_v195.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v195 & 0xFFFF0000)) | ((acc + hdr.ina_data.v195) & 0xFFFF); lane_v195.write(meta.idx, acc); hdr.ina_data.v195 = acc;
        lane_v196.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v196 & 0xFFFF0000)) | ((acc + hdr.ina_data.v196) & 0xFFFF); lane_v196.write(meta.idx, acc); hdr.ina_data.v196 = acc;
        lane_v197.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v197 & 0xFFFF0000)) | ((acc + hdr.ina_data.v197) & 0xFFFF); lane_v197.write(meta.idx, acc); hdr.ina_data.v197 = acc;
        lane_v198.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v198 & 0xFFFF0000)) | ((acc + hdr.ina_data.v198) & 0xFFFF); lane_v198.write(meta.idx, acc); hdr.ina_data.v198 = acc;
        lane_v199.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v199 & 0xFFFF0000)) | ((acc + hdr.ina_data.v199) & 0xFFFF); lane_v199.write(meta.idx, acc); hdr.ina_data.v199 = acc;
        lane_v200.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v200 & 0xFFFF0000)) | ((acc + hdr.ina_data.v200) & 0xFFFF); lane_v200.write(meta.idx, acc); hdr.ina_data.v200 = acc;
        lane_v201.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v201 & 0xFFFF0000)) | ((acc + hdr.ina_data.v201) & 0xFFFF); lane_v201.write(meta.idx, acc); hdr.ina_data.v201 = acc;
        lane_v202.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v202 & 0xFFFF0000)) | ((acc + hdr.ina_data.v202) & 0xFFFF); lane_v202.write(meta.idx, acc); hdr.ina_data.v202 = acc;
        lane_v203.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v203 & 0xFFFF0000)) | ((acc + hdr.ina_data.v203) & 0xFFFF); lane_v203.write(meta.idx, acc); hdr.ina_data.v203 = acc;
        lane_v204.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v204 & 0xFFFF0000)) | ((acc + hdr.ina_data.v204) & 0xFFFF); lane_v204.write(meta.idx, acc); hdr.ina_data.v204 = acc;
        lane_v205.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v205 & 0xFFFF0000)) | ((acc + hdr.ina_data.v205) & 0xFFFF); lane_v205.write(meta.idx, acc); hdr.ina_data.v205 = acc;
        lane_v206.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v206 & 0xFFFF0000)) | ((acc + hdr.ina_data.v206) & 0xFFFF); lane_v206.write(meta.idx, acc); hdr.ina_data.v206 = acc;
        lane_v207.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v207 & 0xFFFF0000)) | ((acc + hdr.ina_data.v207) & 0xFFFF); lane_v207.write(meta.idx, acc); hdr.ina_data.v207 = acc;
        lane_v208.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v208 & 0xFFFF0000)) | ((acc + hdr.ina_data.v208) & 0xFFFF); lane_v208.write(meta.idx, acc); hdr.ina_data.v208 = acc;
        lane_v209.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v209 & 0xFFFF0000)) | ((acc + hdr.ina_data.v209) & 0xFFFF); lane_v209.write(meta.idx, acc); hdr.ina_data.v209 = acc;
        lane_v210.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v210 & 0xFFFF0000)) | ((acc + hdr.ina_data.v210) & 0xFFFF); lane_v210.write(meta.idx, acc); hdr.ina_data.v210 = acc;
        lane_v211.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v211 & 0xFFFF0000)) | ((acc + hdr.ina_data.v211) & 0xFFFF); lane_v211.write(meta.idx, acc); hdr.ina_data.v211 = acc;
        lane_v212.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v212 & 0xFFFF0000)) | ((acc + hdr.ina_data.v212) & 0xFFFF); lane_v212.write(meta.idx, acc); hdr.ina_data.v212 = acc;
        lane_v213.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v213 & 0xFFFF0000)) | ((acc + hdr.ina_data.v213) & 0xFFFF); lane_v213.write(meta.idx, acc); hdr.ina_data.v213 = acc;
        lane_v214.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v214 & 0xFFFF0000)) | ((acc + hdr.ina_data.v214) & 0xFFFF); lane_v214.write(meta.idx, acc); hdr.ina_data.v214 = acc;
        lane_v215.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v215 & 0xFFFF0000)) | ((acc + hdr.ina_data.v215) & 0xFFFF); lane_v215.write(meta.idx, acc); hdr.ina_data.v215 = acc;
        lane_v216.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v216 & 0xFFFF0000)) | ((acc + hdr.ina_data.v216) & 0xFFFF); lane_v216.write(meta.idx, acc); hdr.ina_data.v216 = acc;
        lane_v217.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v217 & 0xFFFF0000)) | ((acc + hdr.ina_data.v217) & 0xFFFF); lane_v217.write(meta.idx, acc); hdr.ina_data.v217 = acc;
        lane_v218.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v218 & 0xFFFF0000)) | ((acc + hdr.ina_data.v218) & 0xFFFF); lane_v218.write(meta.idx, acc); hdr.ina_data.v218 = acc;
        lane_v219.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v219 & 0xFFFF0000)) | ((acc + hdr.ina_data.v219) & 0xFFFF); lane_v219.write(meta.idx, acc); hdr.ina_data.v219 = acc;
        lane_v220.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v220 & 0xFFFF0000)) | ((acc + hdr.ina_data.v220) & 0xFFFF); lane_v220.write(meta.idx, acc); hdr.ina_data.v220 = acc;
        lane_v221.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v221 & 0xFFFF0000)) | ((acc + hdr.ina_data.v221) & 0xFFFF); lane_v221.write(meta.idx, acc); hdr.ina_data.v221 = acc;
        lane_v222.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v222 & 0xFFFF0000)) | ((acc + hdr.ina_data.v222) & 0xFFFF); lane_v222.write(meta.idx, acc); hdr.ina_data.v222 = acc;
        lane_v223.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v223 & 0xFFFF0000)) | ((acc + hdr.ina_data.v223) & 0xFFFF); lane_v223.write(meta.idx, acc); hdr.ina_data.v223 = acc;
        lane_v224.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v224 & 0xFFFF0000)) | ((acc + hdr.ina_data.v224) & 0xFFFF); lane_v224.write(meta.idx, acc); hdr.ina_data.v224 = acc;
        lane_v225.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v225 & 0xFFFF0000)) | ((acc + hdr.ina_data.v225) & 0xFFFF); lane_v225.write(meta.idx, acc); hdr.ina_data.v225 = acc;
        lane_v226.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v226 & 0xFFFF0000)) | ((acc + hdr.ina_data.v226) & 0xFFFF); lane_v226.write(meta.idx, acc); hdr.ina_data.v226 = acc;
        lane_v227.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v227 & 0xFFFF0000)) | ((acc + hdr.ina_data.v227) & 0xFFFF); lane_v227.write(meta.idx, acc); hdr.ina_data.v227 = acc;
        lane_v228.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v228 & 0xFFFF0000)) | ((acc + hdr.ina_data.v228) & 0xFFFF); lane_v228.write(meta.idx, acc); hdr.ina_data.v228 = acc;
        lane_v229.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v229 & 0xFFFF0000)) | ((acc + hdr.ina_data.v229) & 0xFFFF); lane_v229.write(meta.idx, acc); hdr.ina_data.v229 = acc;
        lane_v230.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v230 & 0xFFFF0000)) | ((acc + hdr.ina_data.v230) & 0xFFFF); lane_v230.write(meta.idx, acc); hdr.ina_data.v230 = acc;
        lane_v231.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v231 & 0xFFFF0000)) | ((acc + hdr.ina_data.v231) & 0xFFFF); lane_v231.write(meta.idx, acc); hdr.ina_data.v231 = acc;
        lane_v232.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v232 & 0xFFFF0000)) | ((acc + hdr.ina_data.v232) & 0xFFFF); lane_v232.write(meta.idx, acc); hdr.ina_data.v232 = acc;
        lane_v233.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v233 & 0xFFFF0000)) | ((acc + hdr.ina_data.v233) & 0xFFFF); lane_v233.write(meta.idx, acc); hdr.ina_data.v233 = acc;
        lane_v234.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v234 & 0xFFFF0000)) | ((acc + hdr.ina_data.v234) & 0xFFFF); lane_v234.write(meta.idx, acc); hdr.ina_data.v234 = acc;
        lane_v235.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v235 & 0xFFFF0000)) | ((acc + hdr.ina_data.v235) & 0xFFFF); lane_v235.write(meta.idx, acc); hdr.ina_data.v235 = acc;
        lane_v236.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v236 & 0xFFFF0000)) | ((acc + hdr.ina_data.v236) & 0xFFFF); lane_v236.write(meta.idx, acc); hdr.ina_data.v236 = acc;
        lane_v237.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v237 & 0xFFFF0000)) | ((acc + hdr.ina_data.v237) & 0xFFFF); lane_v237.write(meta.idx, acc); hdr.ina_data.v237 = acc;
        lane_v238.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v238 & 0xFFFF0000)) | ((acc + hdr.ina_data.v238) & 0xFFFF); lane_v238.write(meta.idx, acc); hdr.ina_data.v238 = acc;
        lane_v239.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v239 & 0xFFFF0000)) | ((acc + hdr.ina_data.v239) & 0xFFFF); lane_v239.write(meta.idx, acc); hdr.ina_data.v239 = acc;
        lane_v240.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v240 & 0xFFFF0000)) | ((acc + hdr.ina_data.v240) & 0xFFFF); lane_v240.write(meta.idx, acc); hdr.ina_data.v240 = acc;
        lane_v241.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v241 & 0xFFFF0000)) | ((acc + hdr.ina_data.v241) & 0xFFFF); lane_v241.write(meta.idx, acc); hdr.ina_data.v241 = acc;
        lane_v242.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v242 & 0xFFFF0000)) | ((acc + hdr.ina_data.v242) & 0xFFFF); lane_v242.write(meta.idx, acc); hdr.ina_data.v242 = acc;
        lane_v243.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v243 & 0xFFFF0000)) | ((acc + hdr.ina_data.v243) & 0xFFFF); lane_v243.write(meta.idx, acc); hdr.ina_data.v243 = acc;
        lane_v244.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v244 & 0xFFFF0000)) | ((acc + hdr.ina_data.v244) & 0xFFFF); lane_v244.write(meta.idx, acc); hdr.ina_data.v244 = acc;
        lane_v245.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v245 & 0xFFFF0000)) | ((acc + hdr.ina_data.v245) & 0xFFFF); lane_v245.write(meta.idx, acc); hdr.ina_data.v245 = acc;
        lane_v246.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v246 & 0xFFFF0000)) | ((acc + hdr.ina_data.v246) & 0xFFFF); lane_v246.write(meta.idx, acc); hdr.ina_data.v246 = acc;
        lane_v247.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v247 & 0xFFFF0000)) | ((acc + hdr.ina_data.v247) & 0xFFFF); lane_v247.write(meta.idx, acc); hdr.ina_data.v247 = acc;
        lane_v248.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v248 & 0xFFFF0000)) | ((acc + hdr.ina_data.v248) & 0xFFFF); lane_v248.write(meta.idx, acc); hdr.ina_data.v248 = acc;
        lane_v249.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v249 & 0xFFFF0000)) | ((acc + hdr.ina_data.v249) & 0xFFFF); lane_v249.write(meta.idx, acc); hdr.ina_data.v249 = acc;
        lane_v250.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v250 & 0xFFFF0000)) | ((acc + hdr.ina_data.v250) & 0xFFFF); lane_v250.write(meta.idx, acc); hdr.ina_data.v250 = acc;
        lane_v251.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v251 & 0xFFFF0000)) | ((acc + hdr.ina_data.v251) & 0xFFFF); lane_v251.write(meta.idx, acc); hdr.ina_data.v251 = acc;
        lane_v252.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v252 & 0xFFFF0000)) | ((acc + hdr.ina_data.v252) & 0xFFFF); lane_v252.write(meta.idx, acc); hdr.ina_data.v252 = acc;
        lane_v253.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v253 & 0xFFFF0000)) | ((acc + hdr.ina_data.v253) & 0xFFFF); lane_v253.write(meta.idx, acc); hdr.ina_data.v253 = acc;
        lane_v254.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v254 & 0xFFFF0000)) | ((acc + hdr.ina_data.v254) & 0xFFFF); lane_v254.write(meta.idx, acc); hdr.ina_data.v254 = acc;
        lane_v255.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.ina_data.v255 & 0xFFFF0000)) | ((acc + hdr.ina_data.v255) & 0xFFFF); lane_v255.write(meta.idx, acc); hdr.ina_data.v255 = acc;
    }

    action lanes_max() {
        lane_v00.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v00 > (int<32>)acc) ? hdr.ina_data.v00 : acc; lane_v00.write(meta.idx, acc); hdr.ina_data.v00 = acc;
        lane_v01.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v01 > (int<32>)acc) ? hdr.ina_data.v01 : acc; lane_v01.write(meta.idx, acc); hdr.ina_data.v01 = acc;
        lane_v02.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v02 > (int<32>)acc) ? hdr.ina_data.v02 : acc; lane_v02.write(meta.idx, acc); hdr.ina_data.v02 = acc;
        lane_v03.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v03 > (int<32>)acc) ? hdr.ina_data.v03 : acc; lane_v03.write(meta.idx, acc); hdr.ina_data.v03 = acc;
        lane_v04.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v04 > (int<32>)acc) ? hdr.ina_data.v04 : acc; lane_v04.write(meta.idx, acc); hdr.ina_data.v04 = acc;
        lane_v05.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v05 > (int<32>)acc) ? hdr.ina_data.v05 : acc; lane_v05.write(meta.idx, acc); hdr.ina_data.v05 = acc;
        lane_v06.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v06 > (int<32>)acc) ? hdr.ina_data.v06 : acc; lane_v06.write(meta.idx, acc); hdr.ina_data.v06 = acc;
        lane_v07.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v07 > (int<32>)acc) ? hdr.ina_data.v07 : acc; lane_v07.write(meta.idx, acc); hdr.ina_data.v07 = acc;
        lane_v08.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v08 > (int<32>)acc) ? hdr.ina_data.v08 : acc; lane_v08.write(meta.idx, acc); hdr.ina_data.v08 = acc;
        lane_v09.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v09 > (int<32>)acc) ? hdr.ina_data.v09 : acc; lane_v09.write(meta.idx, acc); hdr.ina_data.v09 = acc;
        lane_v10.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v10 > (int<32>)acc) ? hdr.ina_data.v10 : acc; lane_v10.write(meta.idx, acc); hdr.ina_data.v10 = acc;
        lane_v11.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v11 > (int<32>)acc) ? hdr.ina_data.v11 : acc; lane_v11.write(meta.idx, acc); hdr.ina_data.v11 = acc;
        lane_v12.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v12 > (int<32>)acc) ? hdr.ina_data.v12 : acc; lane_v12.write(meta.idx, acc); hdr.ina_data.v12 = acc;
        lane_v13.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v13 > (int<32>)acc) ? hdr.ina_data.v13 : acc; lane_v13.write(meta.idx, acc); hdr.ina_data.v13 = acc;
        lane_v14.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v14 > (int<32>)acc) ? hdr.ina_data.v14 : acc; lane_v14.write(meta.idx, acc); hdr.ina_data.v14 = acc;
        lane_v15.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v15 > (int<32>)acc) ? hdr.ina_data.v15 : acc; lane_v15.write(meta.idx, acc); hdr.ina_data.v15 = acc;
        lane_v16.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v16 > (int<32>)acc) ? hdr.ina_data.v16 : acc; lane_v16.write(meta.idx, acc); hdr.ina_data.v16 = acc;
        lane_v17.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v17 > (int<32>)acc) ? hdr.ina_data.v17 : acc; lane_v17.write(meta.idx, acc); hdr.ina_data.v17 = acc;
        lane_v18.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v18 > (int<32>)acc) ? hdr.ina_data.v18 : acc; lane_v18.write(meta.idx, acc); hdr.ina_data.v18 = acc;
        lane_v19.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v19 > (int<32>)acc) ? hdr.ina_data.v19 : acc; lane_v19.write(meta.idx, acc); hdr.ina_data.v19 = acc;
        lane_v20.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v20 > (int<32>)acc) ? hdr.ina_data.v20 : acc; lane_v20.write(meta.idx, acc); hdr.ina_data.v20 = acc;
        lane_v21.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v21 > (int<32>)acc) ? hdr.ina_data.v21 : acc; lane_v21.write(meta.idx, acc); hdr.ina_data.v21 = acc;
        lane_v22.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v22 > (int<32>)acc) ? hdr.ina_data.v22 : acc; lane_v22.write(meta.idx, acc); hdr.ina_data.v22 = acc;
        lane_v23.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v23 > (int<32>)acc) ? hdr.ina_data.v23 : acc; lane_v23.write(meta.idx, acc); hdr.ina_data.v23 = acc;
        lane_v24.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v24 > (int<32>)acc) ? hdr.ina_data.v24 : acc; lane_v24.write(meta.idx, acc); hdr.ina_data.v24 = acc;
        lane_v25.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v25 > (int<32>)acc) ? hdr.ina_data.v25 : acc; lane_v25.write(meta.idx, acc); hdr.ina_data.v25 = acc;
        lane_v26.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v26 > (int<32>)acc) ? hdr.ina_data.v26 : acc; lane_v26.write(meta.idx, acc); hdr.ina_data.v26 = acc;
        lane_v27.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v27 > (int<32>)acc) ? hdr.ina_data.v27 : acc; lane_v27.write(meta.idx, acc); hdr.ina_data.v27 = acc;
        lane_v28.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v28 > (int<32>)acc) ? hdr.ina_data.v28 : acc; lane_v28.write(meta.idx, acc); hdr.ina_data.v28 = acc;
        lane_v29.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v29 > (int<32>)acc) ? hdr.ina_data.v29 : acc; lane_v29.write(meta.idx, acc); hdr.ina_data.v29 = acc;
        lane_v30.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v30 > (int<32>)acc) ? hdr.ina_data.v30 : acc; lane_v30.write(meta.idx, acc); hdr.ina_data.v30 = acc;
        lane_v31.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v31 > (int<32>)acc) ? hdr.ina_data.v31 : acc; lane_v31.write(meta.idx, acc); hdr.ina_data.v31 = acc;
        lane_v32.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v32 > (int<32>)acc) ? hdr.ina_data.v32 : acc; lane_v32.write(meta.idx, acc); hdr.ina_data.v32 = acc;
        lane_v33.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v33 > (int<32>)acc) ? hdr.ina_data.v33 : acc; lane_v33.write(meta.idx, acc); hdr.ina_data.v33 = acc;
        lane_v34.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v34 > (int<32>)acc) ? hdr.ina_data.v34 : acc; lane_v34.write(meta.idx, acc); hdr.ina_data.v34 = acc;
        lane_v35.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v35 > (int<32>)acc) ? hdr.ina_data.v35 : acc; lane_v35.write(meta.idx, acc); hdr.ina_data.v35 = acc;
        lane_v36.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v36 > (int<32>)acc) ? hdr.ina_data.v36 : acc; lane_v36.write(meta.idx, acc); hdr.ina_data.v36 = acc;
        lane_v37.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v37 > (int<32>)acc) ? hdr.ina_data.v37 : acc; lane_v37.write(meta.idx, acc); hdr.ina_data.v37 = acc;
        lane_v38.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v38 > (int<32>)acc) ? hdr.ina_data.v38 : acc; lane_v38.write(meta.idx, acc); hdr.ina_data.v38 = acc;
        lane_v39.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v39 > (int<32>)acc) ? hdr.ina_data.v39 : acc; lane_v39.write(meta.idx, acc); hdr.ina_data.v39 = acc;
        lane_v40.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v40 > (int<32>)acc) ? hdr.ina_data.v40 : acc; lane_v40.write(meta.idx, acc); hdr.ina_data.v40 = acc;
        lane_v41.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v41 > (int<32>)acc) ? hdr.ina_data.v41 : acc; lane_v41.write(meta.idx, acc); hdr.ina_data.v41 = acc;
        lane_v42.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v42 > (int<32>)acc) ? hdr.ina_data.v42 : acc; lane_v42.write(meta.idx, acc); hdr.ina_data.v42 = acc;
        lane_v43.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v43 > (int<32>)acc) ? hdr.ina_data.v43 : acc; lane_v43.write(meta.idx, acc); hdr.ina_data.v43 = acc;
        lane_v44.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v44 > (int<32>)acc) ? hdr.ina_data.v44 : acc; lane_v44.write(meta.idx, acc); hdr.ina_data.v44 = acc;
        lane_v45.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v45 > (int<32>)acc) ? hdr.ina_data.v45 : acc; lane_v45.write(meta.idx, acc); hdr.ina_data.v45 = acc;
        lane_v46.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v46 > (int<32>)acc) ? hdr.ina_data.v46 : acc; lane_v46.write(meta.idx, acc); hdr.ina_data.v46 = acc;
        lane_v47.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v47 > (int<32>)acc) ? hdr.ina_data.v47 : acc; lane_v47.write(meta.idx, acc); hdr.ina_data.v47 = acc;
        lane_v48.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v48 > (int<32>)acc) ? hdr.ina_data.v48 : acc; lane_v48.write(meta.idx, acc); hdr.ina_data.v48 = acc;
        lane_v49.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v49 > (int<32>)acc) ? hdr.ina_data.v49 : acc; lane_v49.write(meta.idx, acc); hdr.ina_data.v49 = acc;
        lane_v50.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v50 > (int<32>)acc) ? hdr.ina_data.v50 : acc; lane_v50.write(meta.idx, acc); hdr.ina_data.v50 = acc;
        lane_v51.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v51 > (int<32>)acc) ? hdr.ina_data.v51 : acc; lane_v51.write(meta.idx, acc); hdr.ina_data.v51 = acc;
        lane_v52.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v52 > (int<32>)acc) ? hdr.ina_data.v52 : acc; lane_v52.write(meta.idx, acc); hdr.ina_data.v52 = acc;
        lane_v53.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v53 > (int<32>)acc) ? hdr.ina_data.v53 : acc; lane_v53.write(meta.idx, acc); hdr.ina_data.v53 = acc;
        lane_v54.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v54 > (int<32>)acc) ? hdr.ina_data.v54 : acc; lane_v54.write(meta.idx, acc); hdr.ina_data.v54 = acc;
        lane_v55.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v55 > (int<32>)acc) ? hdr.ina_data.v55 : acc; lane_v55.write(meta.idx, acc); hdr.ina_data.v55 = acc;
        lane_v56.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v56 > (int<32>)acc) ? hdr.ina_data.v56 : acc; lane_v56.write(meta.idx, acc); hdr.ina_data.v56 = acc;
        lane_v57.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v57 > (int<32>)acc) ? hdr.ina_data.v57 : acc; lane_v57.write(meta.idx, acc); hdr.ina_data.v57 = acc;
        lane_v58.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v58 > (int<32>)acc) ? hdr.ina_data.v58 : acc; lane_v58.write(meta.idx, acc); hdr.ina_data.v58 = acc;
        lane_v59.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v59 > (int<32>)acc) ? hdr.ina_data.v59 : acc; lane_v59.write(meta.idx, acc); hdr.ina_data.v59 = acc;
        lane_v60.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v60 > (int<32>)acc) ? hdr.ina_data.v60 : acc; lane_v60.write(meta.idx, acc); hdr.ina_data.v60 = acc;
        lane_v61.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v61 > (int<32>)acc) ? hdr.ina_data.v61 : acc; lane_v61.write(meta.idx, acc); hdr.ina_data.v61 = acc;
        lane_v62.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v62 > (int<32>)acc) ? hdr.ina_data.v62 : acc; lane_v62.write(meta.idx, acc); hdr.ina_data.v62 = acc;
        lane_v63.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v63 > (int<32>)acc) ? hdr.ina_data.v63 : acc; lane_v63.write(meta.idx, acc); hdr.ina_data.v63 = acc;
        lane_v64.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v64 > (int<32>)acc) ? hdr.ina_data.v64 : acc; lane_v64.write(meta.idx, acc); hdr.ina_data.v64 = acc;
        lane_v65.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v65 > (int<32>)acc) ? hdr.ina_data.v65 : acc; lane_v65.write(meta.idx, acc); hdr.ina_data.v65 = acc;
        lane_v66.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v66 > (int<32>)acc) ? hdr.ina_data.v66 : acc; lane_v66.write(meta.idx, acc); hdr.ina_data.v66 = acc;
        lane_v67.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v67 > (int<32>)acc) ? hdr.ina_data.v67 : acc; lane_v67.write(meta.idx, acc); hdr.ina_data.v67 = acc;
        lane_v68.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v68 > (int<32>)acc) ? hdr.ina_data.v68 : acc; lane_v68.write(meta.idx, acc); hdr.ina_data.v68 = acc;
        lane_v69.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v69 > (int<32>)acc) ? hdr.ina_data.v69 : acc; lane_v69.write(meta.idx, acc); hdr.ina_data.v69 = acc;
        lane_v70.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v70 > (int<32>)acc) ? hdr.ina_data.v70 : acc; lane_v70.write(meta.idx, acc); hdr.ina_data.v70 = acc;
        lane_v71.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v71 > (int<32>)acc) ? hdr.ina_data.v71 : acc; lane_v71.write(meta.idx, acc); hdr.ina_data.v71 = acc;
        lane_v72.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v72 > (int<32>)acc) ? hdr.ina_data.v72 : acc; lane_v72.write(meta.idx, acc); hdr.ina_data.v72 = acc;
        lane_v73.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v73 > (int<32>)acc) ? hdr.ina_data.v73 : acc; lane_v73.write(meta.idx, acc); hdr.ina_data.v73 = acc;
        lane_v74.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v74 > (int<32>)acc) ? hdr.ina_data.v74 : acc; lane_v74.write(meta.idx, acc); hdr.ina_data.v74 = acc;
        lane_v75.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v75 > (int<32>)acc) ? hdr.ina_data.v75 : acc; lane_v75.write(meta.idx, acc); hdr.ina_data.v75 = acc;
        lane_v76.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v76 > (int<32>)acc) ? hdr.ina_data.v76 : acc; lane_v76.write(meta.idx, acc); hdr.ina_data.v76 = acc;
        lane_v77.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v77 > (int<32>)acc) ? hdr.ina_data.v77 : acc; lane_v77.write(meta.idx, acc); hdr.ina_data.v77 = acc;
        lane_v78.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v78 > (int<32>)acc) ? hdr.ina_data.v78 : acc; lane_v78.write(meta.idx, acc); hdr.ina_data.v78 = acc;
        lane_v79.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v79 > (int<32>)acc) ? hdr.ina_data.v79 : acc; lane_v79.write(meta.idx, acc); hdr.ina_data.v79 = acc;
        lane_v80.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v80 > (int<32>)acc) ? hdr.ina_data.v80 : acc; lane_v80.write(meta.idx, acc); hdr.ina_data.v80 = acc;
        lane_v81.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v81 > (int<32>)acc) ? hdr.ina_data.v81 : acc; lane_v81.write(meta.idx, acc); hdr.ina_data.v81 = acc;
        lane_v82.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v82 > (int<32>)acc) ? hdr.ina_data.v82 : acc; lane_v82.write(meta.idx, acc); hdr.ina_data.v82 = acc;
        lane_v83.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v83 > (int<32>)acc) ? hdr.ina_data.v83 : acc; lane_v83.write(meta.idx, acc); hdr.ina_data.v83 = acc;
        lane_v84.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v84 > (int<32>)acc) ? hdr.ina_data.v84 : acc; lane_v84.write(meta.idx, acc); hdr.ina_data.v84 = acc;
        lane_v85.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v85 > (int<32>)acc) ? hdr.ina_data.v85 : acc; lane_v85.write(meta.idx, acc); hdr.ina_data.v85 = acc;
        lane_v86.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v86 > (int<32>)acc) ? hdr.ina_data.v86 : acc; lane_v86.write(meta.idx, acc); hdr.ina_data.v86 = acc;
        lane_v87.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v87 > (int<32>)acc) ? hdr.ina_data.v87 : acc; lane_v87.write(meta.idx, acc); hdr.ina_data.v87 = acc;
        lane_v88.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v88 > (int<32>)acc) ? hdr.ina_data.v88 : acc; lane_v88.write(meta.idx, acc); hdr.ina_data.v88 = acc;
        lane_v89.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v89 > (int<32>)acc) ? hdr.ina_data.v89 : acc; lane_v89.write(meta.idx, acc); hdr.ina_data.v89 = acc;
        lane_v90.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v90 > (int<32>)acc) ? hdr.ina_data.v90 : acc; lane_v90.write(meta.idx, acc); hdr.ina_data.v90 = acc;
        lane_v91.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v91 > (int<32>)acc) ? hdr.ina_data.v91 : acc; lane_v91.write(meta.idx, acc); hdr.ina_data.v91 = acc;
        lane_v92.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v92 > (int<32>)acc) ? hdr.ina_data.v92 : acc; lane_v92.write(meta.idx, acc); hdr.ina_data.v92 = acc;
        lane_v93.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v93 > (int<32>)acc) ? hdr.ina_data.v93 : acc; lane_v93.write(meta.idx, acc); hdr.ina_data.v93 = acc;
        lane_v94.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v94 > (int<32>)acc) ? hdr.ina_data.v94 : acc; lane_v94.write(meta.idx, acc); hdr.ina_data.v94 = acc;
        lane_v95.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v95 > (int<32>)acc) ? hdr.ina_data.v95 : acc; lane_v95.write(meta.idx, acc); hdr.ina_data.v95 = acc;
        lane_v96.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v96 > (int<32>)acc) ? hdr.ina_data.v96 : acc; lane_v96.write(meta.idx, acc); hdr.ina_data.v96 = acc;
        lane_v97.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v97 > (int<32>)acc) ? hdr.ina_data.v97 : acc; lane_v97.write(meta.idx, acc); hdr.ina_data.v97 = acc;
        lane_v98.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v98 > (int<32>)acc) ? hdr.ina_data.v98 : acc; lane_v98.write(meta.idx, acc); hdr.ina_data.v98 = acc;
        lane_v99.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v99 > (int<32>)acc) ? hdr.ina_data.v99 : acc; lane_v99.write(meta.idx, acc); hdr.ina_data.v99 = acc;
        lane_v100.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v100 > (int<32>)acc) ? hdr.ina_data.v100 : acc; lane_v100.write(meta.idx, acc); hdr.ina_data.v100 = acc;
        lane_v101.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v101 > (int<32>)acc) ? hdr.ina_data.v101 : acc; lane_v101.write(meta.idx, acc); hdr.ina_data.v101 = acc;
        lane_v102.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v102 > (int<32>)acc) ? hdr.ina_data.v102 : acc; lane_v102.write(meta.idx, acc); hdr.ina_data.v102 = acc;
        lane_v103.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v103 > (int<32>)acc) ? hdr.ina_data.v103 : acc; lane_v103.write(meta.idx, acc); hdr.ina_data.v103 = acc;
        lane_v104.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v104 > (int<32>)acc) ? hdr.ina_data.v104 : acc; lane_v104.write(meta.idx, acc); hdr.ina_data.v104 = acc;
        lane_v105.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v105 > (int<32>)acc) ? hdr.ina_data.v105 : acc; lane_v105.write(meta.idx, acc); hdr.ina_data.v105 = acc;
        lane_v106.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v106 > (int<32>)acc) ? hdr.ina_data.v106 : acc; lane_v106.write(meta.idx, acc); hdr.ina_data.v106 = acc;
        lane_v107.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v107 > (int<32>)acc) ? hdr.ina_data.v107 : acc; lane_v107.write(meta.idx, acc); hdr.ina_data.v107 = acc;
        lane_v108.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v108 > (int<32>)acc) ? hdr.ina_data.v108 : acc; lane_v108.write(meta.idx, acc); hdr.ina_data.v108 = acc;
        lane_v109.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v109 > (int<32>)acc) ? hdr.ina_data.v109 : acc; lane_v109.write(meta.idx, acc); hdr.ina_data.v109 = acc;
        lane_v110.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v110 > (int<32>)acc) ? hdr.ina_data.v110 : acc; lane_v110.write(meta.idx, acc); hdr.ina_data.v110 = acc;
        lane_v111.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v111 > (int<32>)acc) ? hdr.ina_data.v111 : acc; lane_v111.write(meta.idx, acc); hdr.ina_data.v111 = acc;
        lane_v112.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v112 > (int<32>)acc) ? hdr.ina_data.v112 : acc; lane_v112.write(meta.idx, acc); hdr.ina_data.v112 = acc;
        lane_v113.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v113 > (int<32>)acc) ? hdr.ina_data.v113 : acc; lane_v113.write(meta.idx, acc); hdr.ina_data.v113 = acc;
        lane_v114.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v114 > (int<32>)acc) ? hdr.ina_data.v114 : acc; lane_v114.write(meta.idx, acc); hdr.ina_data.v114 = acc;
        lane_v115.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v115 > (int<32>)acc) ? hdr.ina_data.v115 : acc; lane_v115.write(meta.idx, acc); hdr.ina_data.v115 = acc;
        lane_v116.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v116 > (int<32>)acc) ? hdr.ina_data.v116 : acc; lane_v116.write(meta.idx, acc); hdr.ina_data.v116 = acc;
        lane_v117.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v117 > (int<32>)acc) ? hdr.ina_data.v117 : acc; lane_v117.write(meta.idx, acc); hdr.ina_data.v117 = acc;
        lane_v118.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v118 > (int<32>)acc) ? hdr.ina_data.v118 : acc; lane_v118.write(meta.idx, acc); hdr.ina_data.v118 = acc;
        lane_v119.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v119 > (int<32>)acc) ? hdr.ina_data.v119 : acc; lane_v119.write(meta.idx, acc); hdr.ina_data.v119 = acc;
        lane_v120.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v120 > (int<32>)acc) ? hdr.ina_data.v120 : acc; lane_v120.write(meta.idx, acc); hdr.ina_data.v120 = acc;
        lane_v121.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v121 > (int<32>)acc) ? hdr.ina_data.v121 : acc; lane_v121.write(meta.idx, acc); hdr.ina_data.v121 = acc;
        lane_v122.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v122 > (int<32>)acc) ? hdr.ina_data.v122 : acc; lane_v122.write(meta.idx, acc); hdr.ina_data.v122 = acc;
        lane_v123.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v123 > (int<32>)acc) ? hdr.ina_data.v123 : acc; lane_v123.write(meta.idx, acc); hdr.ina_data.v123 = acc;
        lane_v124.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v124 > (int<32>)acc) ? hdr.ina_data.v124 : acc; lane_v124.write(meta.idx, acc); hdr.ina_data.v124 = acc;
        lane_v125.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v125 > (int<32>)acc) ? hdr.ina_data.v125 : acc; lane_v125.write(meta.idx, acc); hdr.ina_data.v125 = acc;
        lane_v126.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v126 > (int<32>)acc) ? hdr.ina_data.v126 : acc; lane_v126.write(meta.idx, acc); hdr.ina_data.v126 = acc;
        lane_v127.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v127 > (int<32>)acc) ? hdr.ina_data.v127 : acc; lane_v127.write(meta.idx, acc); hdr.ina_data.v127 = acc;
        lane_v128.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v128 > (int<32>)acc) ? hdr.ina_data.v128 : acc; lane_v128.write(meta.idx, acc); hdr.ina_data.v128 = acc;
        lane_v129.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v129 > (int<32>)acc) ? hdr.ina_data.v129 : acc; lane_v129.write(meta.idx, acc); hdr.ina_data.v129 = acc;
        lane_v130.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v130 > (int<32>)acc) ? hdr.ina_data.v130 : acc; lane_v130.write(meta.idx, acc); hdr.ina_data.v130 = acc;
        lane_v131.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v131 > (int<32>)acc) ? hdr.ina_data.v131 : acc; lane_v131.write(meta.idx, acc); hdr.ina_data.v131 = acc;
        lane_v132.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v132 > (int<32>)acc) ? hdr.ina_data.v132 : acc; lane_v132.write(meta.idx, acc); hdr.ina_data.v132 = acc;
        lane_v133.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v133 > (int<32>)acc) ? hdr.ina_data.v133 : acc; lane_v133.write(meta.idx, acc); hdr.ina_data.v133 = acc;
        lane_v134.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v134 > (int<32>)acc) ? hdr.ina_data.v134 : acc; lane_v134.write(meta.idx, acc); hdr.ina_data.v134 = acc;
        lane_v135.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v135 > (int<32>)acc) ? hdr.ina_data.v135 : acc; lane_v135.write(meta.idx, acc); hdr.ina_data.v135 = acc;
        lane_v136.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v136 > (int<32>)acc) ? hdr.ina_data.v136 : acc; lane_v136.write(meta.idx, acc); hdr.ina_data.v136 = acc;
        lane_v137.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v137 > (int<32>)acc) ? hdr.ina_data.v137 : acc; lane_v137.write(meta.idx, acc); hdr.ina_data.v137 = acc;
        lane_v138.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v138 > (int<32>)acc) ? hdr.ina_data.v138 : acc; lane_v138.write(meta.idx, acc); hdr.ina_data.v138 = acc;
        lane_v139.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v139 > (int<32>)acc) ? hdr.ina_data.v139 : acc; lane_v139.write(meta.idx, acc); hdr.ina_data.v139 = acc;
        lane_v140.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v140 > (int<32>)acc) ? hdr.ina_data.v140 : acc; lane_v140.write(meta.idx, acc); hdr.ina_data.v140 = acc;
        lane_v141.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v141 > (int<32>)acc) ? hdr.ina_data.v141 : acc; lane_v141.write(meta.idx, acc); hdr.ina_data.v141 = acc;
        lane_v142.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v142 > (int<32>)acc) ? hdr.ina_data.v142 : acc; lane_v142.write(meta.idx, acc); hdr.ina_data.v142 = acc;
        lane_v143.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v143 > (int<32>)acc) ? hdr.ina_data.v143 : acc; lane_v143.write(meta.idx, acc); hdr.ina_data.v143 = acc;
        lane_v144.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v144 > (int<32>)acc) ? hdr.ina_data.v144 : acc; lane_v144.write(meta.idx, acc); hdr.ina_data.v144 = acc;
        lane_v145.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v145 > (int<32>)acc) ? hdr.ina_data.v145 : acc; lane_v145.write(meta.idx, acc); hdr.ina_data.v145 = acc;
        lane_v146.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v146 > (int<32>)acc) ? hdr.ina_data.v146 : acc; lane_v146.write(meta.idx, acc); hdr.ina_data.v146 = acc;
        lane_v147.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v147 > (int<32>)acc) ? hdr.ina_data.v147 : acc; lane_v147.write(meta.idx, acc); hdr.ina_data.v147 = acc;
        lane_v148.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v148 > (int<32>)acc) ? hdr.ina_data.v148 : acc; lane_v148.write(meta.idx, acc); hdr.ina_data.v148 = acc;
        lane_v149.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v149 > (int<32>)acc) ? hdr.ina_data.v149 : acc; lane_v149.write(meta.idx, acc); hdr.ina_data.v149 = acc;
        lane_v150.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v150 > (int<32>)acc) ? hdr.ina_data.v150 : acc; lane_v150.write(meta.idx, acc); hdr.ina_data.v150 = acc;
        lane_v151.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v151 > (int<32>)acc) ? hdr.ina_data.v151 : acc; lane_v151.write(meta.idx, acc); hdr.ina_data.v151 = acc;
        lane_v152.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v152 > (int<32>)acc) ? hdr.ina_data.v152 : acc; lane_v152.write(meta.idx, acc); hdr.ina_data.v152 = acc;
        lane_v153.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v153 > (int<32>)acc) ? hdr.ina_data.v153 : acc; lane_v153.write(meta.idx, acc); hdr.ina_data.v153 = acc;
        lane_v154.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v154 > (int<32>)acc) ? hdr.ina_data.v154 : acc; lane_v154.write(meta.idx, acc); hdr.ina_data.v154 = acc;
        lane_v155.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v155 > (int<32>)acc) ? hdr.ina_data.v155 : acc; lane_v155.write(meta.idx, acc); hdr.ina_data.v155 = acc;
        lane_v156.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v156 > (int<32>)acc) ? hdr.ina_data.v156 : acc; lane_v156.write(meta.idx, acc); hdr.ina_data.v156 = acc;
        lane_v157.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v157 > (int<32>)acc) ? hdr.ina_data.v157 : acc; lane_v157.write(meta.idx, acc); hdr.ina_data.v157 = acc;
        lane_v158.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v158 > (int<32>)acc) ? hdr.ina_data.v158 : acc; lane_v158.write(meta.idx, acc); hdr.ina_data.v158 = acc;
        lane_v159.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v159 > (int<32>)acc) ? hdr.ina_data.v159 : acc; lane_v159.write(meta.idx, acc); hdr.ina_data.v159 = acc;
        lane_v160.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v160 > (int<32>)acc) ? hdr.ina_data.v160 : acc; lane_v160.write(meta.idx, acc); hdr.ina_data.v160 = acc;
        lane_v161.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v161 > (int<32>)acc) ? hdr.ina_data.v161 : acc; lane_v161.write(meta.idx, acc); hdr.ina_data.v161 = acc;
        lane_v162.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v162 > (int<32>)acc) ? hdr.ina_data.v162 : acc; lane_v162.write(meta.idx, acc); hdr.ina_data.v162 = acc;
        lane_v163.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v163 > (int<32>)acc) ? hdr.ina_data.v163 : acc; lane_v163.write(meta.idx, acc); hdr.ina_data.v163 = acc;
        lane_v164.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v164 > (int<32>)acc) ? hdr.ina_data.v164 : acc; lane_v164.write(meta.idx, acc); hdr.ina_data.v164 = acc;
        lane_v165.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v165 > (int<32>)acc) ? hdr.ina_data.v165 : acc; lane_v165.write(meta.idx, acc); hdr.ina_data.v165 = acc;
        lane_v166.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v166 > (int<32>)acc) ? hdr.ina_data.v166 : acc; lane_v166.write(meta.idx, acc); hdr.ina_data.v166 = acc;
        lane_v167.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v167 > (int<32>)acc) ? hdr.ina_data.v167 : acc; lane_v167.write(meta.idx, acc); hdr.ina_data.v167 = acc;
        lane_v168.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v168 > (int<32>)acc) ? hdr.ina_data.v168 : acc; lane_v168.write(meta.idx, acc); hdr.ina_data.v168 = acc;
        lane_v169.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v169 > (int<32>)acc) ? hdr.ina_data.v169 : acc; lane_v169.write(meta.idx, acc); hdr.ina_data.v169 = acc;
        lane_v170.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v170 > (int<32>)acc) ? hdr.ina_data.v170 : acc; lane_v170.write(meta.idx, acc); hdr.ina_data.v170 = acc;
        lane_v171.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v171 > (int<32>)acc) ? hdr.ina_data.v171 : acc; lane_v171.write(meta.idx, acc); hdr.ina_data.v171 = acc;
        lane_v172.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v172 > (int<32>)acc) ? hdr.ina_data.v172 : acc; lane_v172.write(meta.idx, acc); hdr.ina_data.v172 = acc;
        lane_v173.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v173 > (int<32>)acc) ? hdr.ina_data.v173 : acc; lane_v173.write(meta.idx, acc); hdr.ina_data.v173 = acc;
        lane_v174.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v174 > (int<32>)acc) ? hdr.ina_data.v174 : acc; lane_v174.write(meta.idx, acc); hdr.ina_data.v174 = acc;
        lane_v175.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v175 > (int<32>)acc) ? hdr.ina_data.v175 : acc; lane_v175.write(meta.idx, acc); hdr.ina_data.v175 = acc;
        lane_v176.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v176 > (int<32>)acc) ? hdr.ina_data.v176 : acc; lane_v176.write(meta.idx, acc); hdr.ina_data.v176 = acc;
        lane_v177.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v177 > (int<32>)acc) ? hdr.ina_data.v177 : acc; lane_v177.write(meta.idx, acc); hdr.ina_data.v177 = acc;
        lane_v178.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v178 > (int<32>)acc) ? hdr.ina_data.v178 : acc; lane_v178.write(meta.idx, acc); hdr.ina_data.v178 = acc;
        lane_v179.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v179 > (int<32>)acc) ? hdr.ina_data.v179 : acc; lane_v179.write(meta.idx, acc); hdr.ina_data.v179 = acc;
        lane_v180.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v180 > (int<32>)acc) ? hdr.ina_data.v180 : acc; lane_v180.write(meta.idx, acc); hdr.ina_data.v180 = acc;
        lane_v181.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v181 > (int<32>)acc) ? hdr.ina_data.v181 : acc; lane_v181.write(meta.idx, acc); hdr.ina_data.v181 = acc;
        lane_v182.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v182 > (int<32>)acc) ? hdr.ina_data.v182 : acc; lane_v182.write(meta.idx, acc); hdr.ina_data.v182 = acc;
        lane_v183.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v183 > (int<32>)acc) ? hdr.ina_data.v183 : acc; lane_v183.write(meta.idx, acc); hdr.ina_data.v183 = acc;
        lane_v184.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v184 > (int<32>)acc) ? hdr.ina_data.v184 : acc; lane_v184.write(meta.idx, acc); hdr.ina_data.v184 = acc;
        lane_v185.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v185 > (int<32>)acc) ? hdr.ina_data.v185 : acc; lane_v185.write(meta.idx, acc); hdr.ina_data.v185 = acc;
        lane_v186.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v186 > (int<32>)acc) ? hdr.ina_data.v186 : acc; lane_v186.write(meta.idx, acc); hdr.ina_data.v186 = acc;
        lane_v187.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v187 > (int<32>)acc) ? hdr.ina_data.v187 : acc; lane_v187.write(meta.idx, acc); hdr.ina_data.v187 = acc;
        lane_v188.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v188 > (int<32>)acc) ? hdr.ina_data.v188 : acc; lane_v188.write(meta.idx, acc); hdr.ina_data.v188 = acc;
        lane_v189.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v189 > (int<32>)acc) ? hdr.ina_data.v189 : acc; lane_v189.write(meta.idx, acc); hdr.ina_data.v189 = acc;
        lane_v190.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v190 > (int<32>)acc) ? hdr.ina_data.v190 : acc; lane_v190.write(meta.idx, acc); hdr.ina_data.v190 = acc;
        lane_v191.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v191 > (int<32>)acc) ? hdr.ina_data.v191 : acc; lane_v191.write(meta.idx, acc); hdr.ina_data.v191 = acc;
        lane_v192.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v192 > (int<32>)acc) ? hdr.ina_data.v192 : acc; lane_v192.write(meta.idx, acc); hdr.ina_data.v192 = acc;
        lane_v193.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v193 > (int<32>)acc) ? hdr.ina_data.v193 : acc; lane_v193.write(meta.idx, acc); hdr.ina_data.v193 = acc;
        lane_v194.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v194 > (int<32>)acc) ? hdr.ina_data.v194 : acc; lane_v194.write(meta.idx, acc); hdr.ina_data.v194 = acc;
        lane_v195.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v195 > (int<32>)acc) ? hdr.ina_data.v195 : acc; lane_v195.write(meta.idx, acc); hdr.ina_data.v195 = acc;
        lane_v196.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v196 > (int<32>)acc) ? hdr.ina_data.v196 : acc; lane_v196.write(meta.idx, acc); hdr.ina_data.v196 = acc;
        lane_v197.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v197 > (int<32>)acc) ? hdr.ina_data.v197 : acc; lane_v197.write(meta.idx, acc); hdr.ina_data.v197 = acc;
        lane_v198.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v198 > (int<32>)acc) ? hdr.ina_data.v198 : acc; lane_v198.write(meta.idx, acc); hdr.ina_data.v198 = acc;
        lane_v199.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v199 > (int<32>)acc) ? hdr.ina_data.v199 : acc; lane_v199.write(meta.idx, acc); hdr.ina_data.v199 = acc;
        lane_v200.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v200 > (int<32>)acc) ? hdr.ina_data.v200 : acc; lane_v200.write(meta.idx, acc); hdr.ina_data.v200 = acc;
        lane_v201.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v201 > (int<32>)acc) ? hdr.ina_data.v201 : acc; lane_v201.write(meta.idx, acc); hdr.ina_data.v201 = acc;
        lane_v202.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v202 > (int<32>)acc) ? hdr.ina_data.v202 : acc; lane_v202.write(meta.idx, acc); hdr.ina_data.v202 = acc;
        lane_v203.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v203 > (int<32>)acc) ? hdr.ina_data.v203 : acc; lane_v203.write(meta.idx, acc); hdr.ina_data.v203 = acc;
        lane_v204.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v204 > (int<32>)acc) ? hdr.ina_data.v204 : acc; lane_v204.write(meta.idx, acc); hdr.ina_data.v204 = acc;
        lane_v205.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v205 > (int<32>)acc) ? hdr.ina_data.v205 : acc; lane_v205.write(meta.idx, acc); hdr.ina_data.v205 = acc;
        lane_v206.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v206 > (int<32>)acc) ? hdr.ina_data.v206 : acc; lane_v206.write(meta.idx, acc); hdr.ina_data.v206 = acc;
        lane_v207.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v207 > (int<32>)acc) ? hdr.ina_data.v207 : acc; lane_v207.write(meta.idx, acc); hdr.ina_data.v207 = acc;
        lane_v208.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v208 > (int<32>)acc) ? hdr.ina_data.v208 : acc; lane_v208.write(meta.idx, acc); hdr.ina_data.v208 = acc;
        lane_v209.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v209 > (int<32>)acc) ? hdr.ina_data.v209 : acc; lane_v209.write(meta.idx, acc); hdr.ina_data.v209 = acc;
        lane_v210.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v210 > (int<32>)acc) ? hdr.ina_data.v210 : acc; lane_v210.write(meta.idx, acc); hdr.ina_data.v210 = acc;
        lane_v211.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v211 > (int<32>)acc) ? hdr.ina_data.v211 : acc; lane_v211.write(meta.idx, acc); hdr.ina_data.v211 = acc;
        lane_v212.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v212 > (int<32>)acc) ? hdr.ina_data.v212 : acc; lane_v212.write(meta.idx, acc); hdr.ina_data.v212 = acc;
        lane_v213.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v213 > (int<32>)acc) ? hdr.ina_data.v213 : acc; lane_v213.write(meta.idx, acc); hdr.ina_data.v213 = acc;
        lane_v214.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v214 > (int<32>)acc) ? hdr.ina_data.v214 : acc; lane_v214.write(meta.idx, acc); hdr.ina_data.v214 = acc;
        lane_v215.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v215 > (int<32>)acc) ? hdr.ina_data.v215 : acc; lane_v215.write(meta.idx, acc); hdr.ina_data.v215 = acc;
        lane_v216.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v216 > (int<32>)acc) ? hdr.ina_data.v216 : acc; lane_v216.write(meta.idx, acc); hdr.ina_data.v216 = acc;
        lane_v217.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v217 > (int<32>)acc) ? hdr.ina_data.v217 : acc; lane_v217.write(meta.idx, acc); hdr.ina_data.v217 = acc;
        lane_v218.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v218 > (int<32>)acc) ? hdr.ina_data.v218 : acc; lane_v218.write(meta.idx, acc); hdr.ina_data.v218 = acc;
        lane_v219.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v219 > (int<32>)acc) ? hdr.ina_data.v219 : acc; lane_v219.write(meta.idx, acc); hdr.ina_data.v219 = acc;
        lane_v220.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v220 > (int<32>)acc) ? hdr.ina_data.v220 : acc; lane_v220.write(meta.idx, acc); hdr.ina_data.v220 = acc;
        lane_v221.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v221 > (int<32>)acc) ? hdr.ina_data.v221 : acc; lane_v221.write(meta.idx, acc); hdr.ina_data.v221 = acc;
        lane_v222.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v222 > (int<32>)acc) ? hdr.ina_data.v222 : acc; lane_v222.write(meta.idx, acc); hdr.ina_data.v222 = acc;
        lane_v223.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v223 > (int<32>)acc) ? hdr.ina_data.v223 : acc; lane_v223.write(meta.idx, acc); hdr.ina_data.v223 = acc;
        lane_v224.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v224 > (int<32>)acc) ? hdr.ina_data.v224 : acc; lane_v224.write(meta.idx, acc); hdr.ina_data.v224 = acc;
        lane_v225.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v225 > (int<32>)acc) ? hdr.ina_data.v225 : acc; lane_v225.write(meta.idx, acc); hdr.ina_data.v225 = acc;
        lane_v226.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v226 > (int<32>)acc) ? hdr.ina_data.v226 : acc; lane_v226.write(meta.idx, acc); hdr.ina_data.v226 = acc;
        lane_v227.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v227 > (int<32>)acc) ? hdr.ina_data.v227 : acc; lane_v227.write(meta.idx, acc); hdr.ina_data.v227 = acc;
        lane_v228.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v228 > (int<32>)acc) ? hdr.ina_data.v228 : acc; lane_v228.write(meta.idx, acc); hdr.ina_data.v228 = acc;
        lane_v229.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v229 > (int<32>)acc) ? hdr.ina_data.v229 : acc; lane_v229.write(meta.idx, acc); hdr.ina_data.v229 = acc;
        lane_v230.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v230 > (int<32>)acc) ? hdr.ina_data.v230 : acc; lane_v230.write(meta.idx, acc); hdr.ina_data.v230 = acc;
        lane_v231.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v231 > (int<32>)acc) ? hdr.ina_data.v231 : acc; lane_v231.write(meta.idx, acc); hdr.ina_data.v231 = acc;
        lane_v232.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v232 > (int<32>)acc) ? hdr.ina_data.v232 : acc; lane_v232.write(meta.idx, acc); hdr.ina_data.v232 = acc;
        lane_v233.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v233 > (int<32>)acc) ? hdr.ina_data.v233 : acc; lane_v233.write(meta.idx, acc); hdr.ina_data.v233 = acc;
        lane_v234.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v234 > (int<32>)acc) ? hdr.ina_data.v234 : acc; lane_v234.write(meta.idx, acc); hdr.ina_data.v234 = acc;
        lane_v235.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v235 > (int<32>)acc) ? hdr.ina_data.v235 : acc; lane_v235.write(meta.idx, acc); hdr.ina_data.v235 = acc;
        lane_v236.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v236 > (int<32>)acc) ? hdr.ina_data.v236 : acc; lane_v236.write(meta.idx, acc); hdr.ina_data.v236 = acc;
        lane_v237.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v237 > (int<32>)acc) ? hdr.ina_data.v237 : acc; lane_v237.write(meta.idx, acc); hdr.ina_data.v237 = acc;
        lane_v238.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v238 > (int<32>)acc) ? hdr.ina_data.v238 : acc; lane_v238.write(meta.idx, acc); hdr.ina_data.v238 = acc;
        lane_v239.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v239 > (int<32>)acc) ? hdr.ina_data.v239 : acc; lane_v239.write(meta.idx, acc); hdr.ina_data.v239 = acc;
        lane_v240.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v240 > (int<32>)acc) ? hdr.ina_data.v240 : acc; lane_v240.write(meta.idx, acc); hdr.ina_data.v240 = acc;
        lane_v241.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v241 > (int<32>)acc) ? hdr.ina_data.v241 : acc; lane_v241.write(meta.idx, acc); hdr.ina_data.v241 = acc;
        lane_v242.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v242 > (int<32>)acc) ? hdr.ina_data.v242 : acc; lane_v242.write(meta.idx, acc); hdr.ina_data.v242 = acc;
        lane_v243.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v243 > (int<32>)acc) ? hdr.ina_data.v243 : acc; lane_v243.write(meta.idx, acc); hdr.ina_data.v243 = acc;
        lane_v244.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v244 > (int<32>)acc) ? hdr.ina_data.v244 : acc; lane_v244.write(meta.idx, acc); hdr.ina_data.v244 = acc;
        lane_v245.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v245 > (int<32>)acc) ? hdr.ina_data.v245 : acc; lane_v245.write(meta.idx, acc); hdr.ina_data.v245 = acc;
        lane_v246.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v246 > (int<32>)acc) ? hdr.ina_data.v246 : acc; lane_v246.write(meta.idx, acc); hdr.ina_data.v246 = acc;
        lane_v247.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v247 > (int<32>)acc) ? hdr.ina_data.v247 : acc; lane_v247.write(meta.idx, acc); hdr.ina_data.v247 = acc;
        lane_v248.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v248 > (int<32>)acc) ? hdr.ina_data.v248 : acc; lane_v248.write(meta.idx, acc); hdr.ina_data.v248 = acc;
        lane_v249.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v249 > (int<32>)acc) ? hdr.ina_data.v249 : acc; lane_v249.write(meta.idx, acc); hdr.ina_data.v249 = acc;
        lane_v250.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v250 > (int<32>)acc) ? hdr.ina_data.v250 : acc; lane_v250.write(meta.idx, acc); hdr.ina_data.v250 = acc;
        lane_v251.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v251 > (int<32>)acc) ? hdr.ina_data.v251 : acc; lane_v251.write(meta.idx, acc); hdr.ina_data.v251 = acc;
        lane_v252.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v252 > (int<32>)acc) ? hdr.ina_data.v252 : acc; lane_v252.write(meta.idx, acc); hdr.ina_data.v252 = acc;
        lane_v253.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v253 > (int<32>)acc) ? hdr.ina_data.v253 : acc; lane_v253.write(meta.idx, acc); hdr.ina_data.v253 = acc;
        lane_v254.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v254 > (int<32>)acc) ? hdr.ina_data.v254 : acc; lane_v254.write(meta.idx, acc); hdr.ina_data.v254 = acc;
        lane_v255.read(acc, meta.idx); acc = ((int<32>)hdr.ina_data.v255 > (int<32>)acc) ? hdr.ina_data.v255 : acc; lane_v255.write(meta.idx, acc); hdr.ina_data.v255 = acc;
    }

    action lanes_load() {
        lane_v00.read(hdr.ina_data.v00, meta.idx);
        lane_v01.read(hdr.ina_data.v01, meta.idx);
        lane_v02.read(hdr.ina_data.v02, meta.idx);
        lane_v03.read(hdr.ina_data.v03, meta.idx);
        lane_v04.read(hdr.ina_data.v04, meta.idx);
        lane_v05.read(hdr.ina_data.v05, meta.idx);
        lane_v06.read(hdr.ina_data.v06, meta.idx);
        lane_v07.read(hdr.ina_data.v07, meta.idx);
        lane_v08.read(hdr.ina_data.v08, meta.idx);
        lane_v09.read(hdr.ina_data.v09, meta.idx);
        lane_v10.read(hdr.ina_data.v10, meta.idx);
        lane_v11.read(hdr.ina_data.v11, meta.idx);
        lane_v12.read(hdr.ina_data.v12, meta.idx);
        lane_v13.read(hdr.ina_data.v13, meta.idx);
        lane_v14.read(hdr.ina_data.v14, meta.idx);
        lane_v15.read(hdr.ina_data.v15, meta.idx);
        lane_v16.read(hdr.ina_data.v16, meta.idx);
        lane_v17.read(hdr.ina_data.v17, meta.idx);
        lane_v18.read(hdr.ina_data.v18, meta.idx);
        lane_v19.read(hdr.ina_data.v19, meta.idx);
        lane_v20.read(hdr.ina_data.v20, meta.idx);
        lane_v21.read(hdr.ina_data.v21, meta.idx);
        lane_v22.read(hdr.ina_data.v22, meta.idx);
        lane_v23.read(hdr.ina_data.v23, meta.idx);
        lane_v24.read(hdr.ina_data.v24, meta.idx);
        lane_v25.read(hdr.ina_data.v25, meta.idx);
        lane_v26.read(hdr.ina_data.v26, meta.idx);
        lane_v27.read(hdr.ina_data.v27, meta.idx);
        lane_v28.read(hdr.ina_data.v28, meta.idx);
        lane_v29.read(hdr.ina_data.v29, meta.idx);
        lane_v30.read(hdr.ina_data.v30, meta.idx);
        lane_v31.read(hdr.ina_data.v31, meta.idx);
        lane_v32.read(hdr.ina_data.v32, meta.idx);
        lane_v33.read(hdr.ina_data.v33, meta.idx);
        lane_v34.read(hdr.ina_data.v34, meta.idx);
        lane_v35.read(hdr.ina_data.v35, meta.idx);
        lane_v36.read(hdr.ina_data.v36, meta.idx);
        lane_v37.read(hdr.ina_data.v37, meta.idx);
        lane_v38.read(hdr.ina_data.v38, meta.idx);
        lane_v39.read(hdr.ina_data.v39, meta.idx);
        lane_v40.read(hdr.ina_data.v40, meta.idx);
        lane_v41.read(hdr.ina_data.v41, meta.idx);
        lane_v42.read(hdr.ina_data.v42, meta.idx);
        lane_v43.read(hdr.ina_data.v43, meta.idx);
        lane_v44.read(hdr.ina_data.v44, meta.idx);
        lane_v45.read(hdr.ina_data.v45, meta.idx);
        lane_v46.read(hdr.ina_data.v46, meta.idx);
        lane_v47.read(hdr.ina_data.v47, meta.idx);
        lane_v48.read(hdr.ina_data.v48, meta.idx);
        lane_v49.read(hdr.ina_data.v49, meta.idx);
        lane_v50.read(hdr.ina_data.v50, meta.idx);
        lane_v51.read(hdr.ina_data.v51, meta.idx);
        lane_v52.read(hdr.ina_data.v52, meta.idx);
        lane_v53.read(hdr.ina_data.v53, meta.idx);
        lane_v54.read(hdr.ina_data.v54, meta.idx);
        lane_v55.read(hdr.ina_data.v55, meta.idx);
        lane_v56.read(hdr.ina_data.v56, meta.idx);
        lane_v57.read(hdr.ina_data.v57, meta.idx);
        lane_v58.read(hdr.ina_data.v58, meta.idx);
        lane_v59.read(hdr.ina_data.v59, meta.idx);
        lane_v60.read(hdr.ina_data.v60, meta.idx);
        lane_v61.read(hdr.ina_data.v61, meta.idx);
        lane_v62.read(hdr.ina_data.v62, meta.idx);
        lane_v63.read(hdr.ina_data.v63, meta.idx);
        lane_v64.read(hdr.ina_data.v64, meta.idx);
        lane_v65.read(hdr.ina_data.v65, meta.idx);
        lane_v66.read(hdr.ina_data.v66, meta.idx);
        lane_v67.read(hdr.ina_data.v67, meta.idx);
        lane_v68.read(hdr.ina_data.v68, meta.idx);
        lane_v69.read(hdr.ina_data.v69, meta.idx);
        lane_v70.read(hdr.ina_data.v70, meta.idx);
        lane_v71.read(hdr.ina_data.v71, meta.idx);
        lane_v72.read(hdr.ina_data.v72, meta.idx);
        lane_v73.read(hdr.ina_data.v73, meta.idx);
        lane_v74.read(hdr.ina_data.v74, meta.idx);
        lane_v75.read(hdr.ina_data.v75, meta.idx);
        lane_v76.read(hdr.ina_data.v76, meta.idx);
        lane_v77.read(hdr.ina_data.v77, meta.idx);
        lane_v78.read(hdr.ina_data.v78, meta.idx);
        lane_v79.read(hdr.ina_data.v79, meta.idx);
        lane_v80.read(hdr.ina_data.v80, meta.idx);
        lane_v81.read(hdr.ina_data.v81, meta.idx);
        lane_v82.read(hdr.ina_data.v82, meta.idx);
        lane_v83.read(hdr.ina_data.v83, meta.idx);
        lane_v84.read(hdr.ina_data.v84, meta.idx);
        lane_v85.read(hdr.ina_data.v85, meta.idx);
        lane_v86.read(hdr.ina_data.v86, meta.idx);
        lane_v87.read(hdr.ina_data.v87, meta.idx);
        lane_v88.read(hdr.ina_data.v88, meta.idx);
        lane_v89.read(hdr.ina_data.v89, meta.idx);
        lane_v90.read(hdr.ina_data.v90, meta.idx);
        lane_v91.read(hdr.ina_data.v91, meta.idx);
        lane_v92.read(hdr.ina_data.v92, meta.idx);
        lane_v93.read(hdr.ina_data.v93, meta.idx);
        lane_v94.read(hdr.ina_data.v94, meta.idx);
        lane_v95.read(hdr.ina_data.v95, meta.idx);
        lane_v96.read(hdr.ina_data.v96, meta.idx);
        lane_v97.read(hdr.ina_data.v97, meta.idx);
        lane_v98.read(hdr.ina_data.v98, meta.idx);
        lane_v99.read(hdr.ina_data.v99, meta.idx);
        lane_v100.read(hdr.ina_data.v100, meta.idx);
        lane_v101.read(hdr.ina_data.v101, meta.idx);
        lane_v102.read(hdr.ina_data.v102, meta.idx);
        lane_v103.read(hdr.ina_data.v103, meta.idx);
        lane_v104.read(hdr.ina_data.v104, meta.idx);
        lane_v105.read(hdr.ina_data.v105, meta.idx);
        lane_v106.read(hdr.ina_data.v106, meta.idx);
        lane_v107.read(hdr.ina_data.v107, meta.idx);
        lane_v108.read(hdr.ina_data.v108, meta.idx);
        lane_v109.read(hdr.ina_data.v109, meta.idx);
        lane_v110.read(hdr.ina_data.v110, meta.idx);
        lane_v111.read(hdr.ina_data.v111, meta.idx);
        lane_v112.read(hdr.ina_data.v112, meta.idx);
        lane_v113.read(hdr.ina_data.v113, meta.idx);
        lane_v114.read(hdr.ina_data.v114, meta.idx);
        lane_v115.read(hdr.ina_data.v115, meta.idx);
        lane_v116.read(hdr.ina_data.v116, meta.idx);
        lane_v117.read(hdr.ina_data.v117, meta.idx);
        lane_v118.read(hdr.ina_data.v118, meta.idx);
        lane_v119.read(hdr.ina_data.v119, meta.idx);
        lane_v120.read(hdr.ina_data.v120, meta.idx);
        lane_v121.read(hdr.ina_data.v121, meta.idx);
        lane_v122.read(hdr.ina_data.v122, meta.idx);
        lane_v123.read(hdr.ina_data.v123, meta.idx);
        lane_v124.read(hdr.ina_data.v124, meta.idx);
        lane_v125.read(hdr.ina_data.v125, meta.idx);
        lane_v126.read(hdr.ina_data.v126, meta.idx);
        lane_v127.read(hdr.ina_data.v127, meta.idx);
        lane_v128.read(hdr.ina_data.v128, meta.idx);
        lane_v129.read(hdr.ina_data.v129, meta.idx);
        lane_v130.read(hdr.ina_data.v130, meta.idx);
        lane_v131.read(hdr.ina_data.v131, meta.idx);
        lane_v132.read(hdr.ina_data.v132, meta.idx);
        lane_v133.read(hdr.ina_data.v133, meta.idx);
        lane_v134.read(hdr.ina_data.v134, meta.idx);
        lane_v135.read(hdr.ina_data.v135, meta.idx);
        lane_v136.read(hdr.ina_data.v136, meta.idx);
        lane_v137.read(hdr.ina_data.v137, meta.idx);
        lane_v138.read(hdr.ina_data.v138, meta.idx);
        lane_v139.read(hdr.ina_data.v139, meta.idx);
        lane_v140.read(hdr.ina_data.v140, meta.idx);
        lane_v141.read(hdr.ina_data.v141, meta.idx);
        lane_v142.read(hdr.ina_data.v142, meta.idx);
        lane_v143.read(hdr.ina_data.v143, meta.idx);
        lane_v144.read(hdr.ina_data.v144, meta.idx);
        lane_v145.read(hdr.ina_data.v145, meta.idx);
        lane_v146.read(hdr.ina_data.v146, meta.idx);
        lane_v147.read(hdr.ina_data.v147, meta.idx);
        lane_v148.read(hdr.ina_data.v148, meta.idx);
        lane_v149.read(hdr.ina_data.v149, meta.idx);
        lane_v150.read(hdr.ina_data.v150, meta.idx);
        lane_v151.read(hdr.ina_data.v151, meta.idx);
        lane_v152.read(hdr.ina_data.v152, meta.idx);
        lane_v153.read(hdr.ina_data.v153, meta.idx);
        lane_v154.read(hdr.ina_data.v154, meta.idx);
        lane_v155.read(hdr.ina_data.v155, meta.idx);
        lane_v156.read(hdr.ina_data.v156, meta.idx);
        lane_v157.read(hdr.ina_data.v157, meta.idx);
        lane_v158.read(hdr.ina_data.v158, meta.idx);
        lane_v159.read(hdr.ina_data.v159, meta.idx);
        lane_v160.read(hdr.ina_data.v160, meta.idx);
        lane_v161.read(hdr.ina_data.v161, meta.idx);
        lane_v162.read(hdr.ina_data.v162, meta.idx);
        lane_v163.read(hdr.ina_data.v163, meta.idx);
        lane_v164.read(hdr.ina_data.v164, meta.idx);
        lane_v165.read(hdr.ina_data.v165, meta.idx);
        lane_v166.read(hdr.ina_data.v166, meta.idx);
        lane_v167.read(hdr.ina_data.v167, meta.idx);
        lane_v168.read(hdr.ina_data.v168, meta.idx);
        lane_v169.read(hdr.ina_data.v169, meta.idx);
        lane_v170.read(hdr.ina_data.v170, meta.idx);
        lane_v171.read(hdr.ina_data.v171, meta.idx);
        lane_v172.read(hdr.ina_data.v172, meta.idx);
        lane_v173.read(hdr.ina_data.v173, meta.idx);
        lane_v174.read(hdr.ina_data.v174, meta.idx);
        lane_v175.read(hdr.ina_data.v175, meta.idx);
        lane_v176.read(hdr.ina_data.v176, meta.idx);
        lane_v177.read(hdr.ina_data.v177, meta.idx);
        lane_v178.read(hdr.ina_data.v178, meta.idx);
        lane_v179.read(hdr.ina_data.v179, meta.idx);
        lane_v180.read(hdr.ina_data.v180, meta.idx);
        lane_v181.read(hdr.ina_data.v181, meta.idx);
        lane_v182.read(hdr.ina_data.v182, meta.idx);
        lane_v183.read(hdr.ina_data.v183, meta.idx);
        lane_v184.read(hdr.ina_data.v184, meta.idx);
        lane_v185.read(hdr.ina_data.v185, meta.idx);
        lane_v186.read(hdr.ina_data.v186, meta.idx);
        lane_v187.read(hdr.ina_data.v187, meta.idx);
        lane_v188.read(hdr.ina_data.v188, meta.idx);
        lane_v189.read(hdr.ina_data.v189, meta.idx);
        lane_v190.read(hdr.ina_data.v190, meta.idx);
        lane_v191.read(hdr.ina_data.v191, meta.idx);
        lane_v192.read(hdr.ina_data.v192, meta.idx);
        lane_v193.read(hdr.ina_data.v193, meta.idx);
        lane_v194.read(hdr.ina_data.v194, meta.idx);
        lane_v195.read(hdr.ina_data.v195, meta.idx);
        lane_v196.read(hdr.ina_data.v196, meta.idx);
        lane_v197.read(hdr.ina_data.v197, meta.idx);
        lane_v198.read(hdr.ina_data.v198, meta.idx);
        lane_v199.read(hdr.ina_data.v199, meta.idx);
        lane_v200.read(hdr.ina_data.v200, meta.idx);
        lane_v201.read(hdr.ina_data.v201, meta.idx);
        lane_v202.read(hdr.ina_data.v202, meta.idx);
        lane_v203.read(hdr.ina_data.v203, meta.idx);
        lane_v204.read(hdr.ina_data.v204, meta.idx);
        lane_v205.read(hdr.ina_data.v205, meta.idx);
        lane_v206.read(hdr.ina_data.v206, meta.idx);
        lane_v207.read(hdr.ina_data.v207, meta.idx);
        lane_v208.read(hdr.ina_data.v208, meta.idx);
        lane_v209.read(hdr.ina_data.v209, meta.idx);
        lane_v210.read(hdr.ina_data.v210, meta.idx);
        lane_v211.read(hdr.ina_data.v211, meta.idx);
        lane_v212.read(hdr.ina_data.v212, meta.idx);
        lane_v213.read(hdr.ina_data.v213, meta.idx);
        lane_v214.read(hdr.ina_data.v214, meta.idx);
        lane_v215.read(hdr.ina_data.v215, meta.idx);
        lane_v216.read(hdr.ina_data.v216, meta.idx);
        lane_v217.read(hdr.ina_data.v217, meta.idx);
        lane_v218.read(hdr.ina_data.v218, meta.idx);
        lane_v219.read(hdr.ina_data.v219, meta.idx);
        lane_v220.read(hdr.ina_data.v220, meta.idx);
        lane_v221.read(hdr.ina_data.v221, meta.idx);
        lane_v222.read(hdr.ina_data.v222, meta.idx);
        lane_v223.read(hdr.ina_data.v223, meta.idx);
        lane_v224.read(hdr.ina_data.v224, meta.idx);
        lane_v225.read(hdr.ina_data.v225, meta.idx);
        lane_v226.read(hdr.ina_data.v226, meta.idx);
        lane_v227.read(hdr.ina_data.v227, meta.idx);
        lane_v228.read(hdr.ina_data.v228, meta.idx);
        lane_v229.read(hdr.ina_data.v229, meta.idx);
        lane_v230.read(hdr.ina_data.v230, meta.idx);
        lane_v231.read(hdr.ina_data.v231, meta.idx);
        lane_v232.read(hdr.ina_data.v232, meta.idx);
        lane_v233.read(hdr.ina_data.v233, meta.idx);
        lane_v234.read(hdr.ina_data.v234, meta.idx);
        lane_v235.read(hdr.ina_data.v235, meta.idx);
        lane_v236.read(hdr.ina_data.v236, meta.idx);
        lane_v237.read(hdr.ina_data.v237, meta.idx);
        lane_v238.read(hdr.ina_data.v238, meta.idx);
        lane_v239.read(hdr.ina_data.v239, meta.idx);
        lane_v240.read(hdr.ina_data.v240, meta.idx);
        lane_v241.read(hdr.ina_data.v241, meta.idx);
        lane_v242.read(hdr.ina_data.v242, meta.idx);
        lane_v243.read(hdr.ina_data.v243, meta.idx);
        lane_v244.read(hdr.ina_data.v244, meta.idx);
        lane_v245.read(hdr.ina_data.v245, meta.idx);
        lane_v246.read(hdr.ina_data.v246, meta.idx);
        lane_v247.read(hdr.ina_data.v247, meta.idx);
        lane_v248.read(hdr.ina_data.v248, meta.idx);
        lane_v249.read(hdr.ina_data.v249, meta.idx);
        lane_v250.read(hdr.ina_data.v250, meta.idx);
        lane_v251.read(hdr.ina_data.v251, meta.idx);
        lane_v252.read(hdr.ina_data.v252, meta.idx);
        lane_v253.read(hdr.ina_data.v253, meta.idx);
        lane_v254.read(hdr.ina_data.v254, meta.idx);
        lane_v255.read(hdr.ina_data.v255, meta.idx);
    }

    /* The packet leaves as a result from this aggregator address: UDP checksum 0 (none),
     * since the payload changed. */
    action result_from_aggregator() {
        hdr.ina.flags = FLAG_RESULT | (hdr.ina.flags & (FLAG_LANES16 | FLAG_MAX));
        hdr.ipv4.ttl = 64;
        hdr.udp.srcPort = INA_PORT;
        hdr.udp.dstPort = INA_PORT;
        hdr.udp.checksum = 0;
    }

    action send_multicast() {
        result_from_aggregator();
        hdr.ipv4.srcAddr = hdr.ipv4.dstAddr;
        hdr.ethernet.srcAddr = hdr.ethernet.dstAddr;
        standard_metadata.mcast_grp = meta.mcast_grp;
    }

    /* Back to the sender; ipv4_lpm then routes it. */
    action send_unicast() {
        result_from_aggregator();
        ip4Addr_t aggregator = hdr.ipv4.dstAddr;
        hdr.ipv4.dstAddr = hdr.ipv4.srcAddr;
        hdr.ipv4.srcAddr = aggregator;
        ina_handled.count(HANDLED_UNICAST);
    }

    /* The slot's sum leaves for the optimizer node; ipv4_lpm then routes it. */
    action send_to_optimizer(bit<8> flags) {
        hdr.ina.flags = flags | (hdr.ina.flags & FLAG_LANES16);
        hdr.ipv4.srcAddr = hdr.ipv4.dstAddr;
        hdr.ipv4.dstAddr = meta.opt_addr;
        hdr.ipv4.ttl = 64;
        hdr.udp.srcPort = INA_PORT;
        hdr.udp.dstPort = INA_PORT;
        hdr.udp.checksum = 0;
    }

    /* Parameters from the aggregator address to every worker of the job. */
    action send_params_multicast() {
        hdr.ina.flags = FLAG_PARAMS | (hdr.ina.flags & FLAG_LANES16);
        hdr.ina.n_workers = meta.n_workers;
        hdr.ipv4.ttl = 64;
        hdr.ipv4.srcAddr = hdr.ipv4.dstAddr;
        hdr.ethernet.srcAddr = hdr.ethernet.dstAddr;
        hdr.udp.checksum = 0;
        standard_metadata.mcast_grp = meta.mcast_grp;
        ina_handled.count(HANDLED_PARAMS_MULTICAST);
    }

    /* The slot's answer back to a retransmitting worker; ipv4_lpm then routes it. */
    action answer_unicast() {
        hdr.ina.flags = FLAG_PARAMS | (hdr.ina.flags & FLAG_LANES16);
        hdr.ina.exponent = 0;
        hdr.ina.n_workers = meta.n_workers;
        ip4Addr_t aggregator = hdr.ipv4.dstAddr;
        hdr.ipv4.dstAddr = hdr.ipv4.srcAddr;
        hdr.ipv4.srcAddr = aggregator;
        hdr.ipv4.ttl = 64;
        hdr.udp.checksum = 0;
    }

    /* Stored parameters, with lanes whatever the request carried. */
    action send_params_unicast() {
        hdr.ina_data.setValid();
        hdr.ina.groups = INA_GROUPS;
        hdr.ipv4.totalLen = INA_IP_LEN;
        hdr.udp.length = INA_UDP_LEN;
        lanes_load();
        answer_unicast();
        ina_handled.count(HANDLED_PARAMS_UNICAST);
    }

    /* The acknowledgement, header only. */
    action send_ack_unicast() {
        hdr.ina_data.setInvalid();
        hdr.ina.groups = 0;
        hdr.ipv4.totalLen = INA_HDR_IP_LEN;
        hdr.udp.length = INA_HDR_UDP_LEN;
        answer_unicast();
        ina_handled.count(HANDLED_ACK_UNICAST);
    }

    action count_drop(bit<32> reason) {
        ina_dropped.count(reason);
        mark_to_drop(standard_metadata);
    }

    action absorb() {
        ina_handled.count(HANDLED_ABSORBED);
        mark_to_drop(standard_metadata);
    }

    apply {
        /* Every packet that leaves by unicast is routed by ipv4_lpm, applied once below. */
        bool route = false;
        if (hdr.ipv4.isValid()) {
            meta.local = 0;
            if (hdr.ina.isValid()) {
                ina_aggregator.apply();
            }
            if (meta.local == 0) {
                route = true;
            } else if (hdr.ipv4.ihl != 5 || standard_metadata.parser_error != error.NoError
                       || !((hdr.ina_data.isValid() && hdr.ipv4.totalLen == INA_IP_LEN
                             && hdr.ina.groups == INA_GROUPS)
                            || (!hdr.ina_data.isValid() && hdr.ipv4.totalLen == INA_HDR_IP_LEN
                                && hdr.udp.length == INA_HDR_UDP_LEN && hdr.ina.groups == 0))) {
                count_drop(DROP_BAD_LENGTH);
            } else {
                bool pull = (hdr.ina.flags & FLAG_PULL) != 0;
                meta.job_kind = JOB_UNKNOWN;
                ina_job.apply();
                if (meta.job_kind == JOB_UNKNOWN) {
                    count_drop(DROP_UNKNOWN_JOB);
                } else if ((hdr.ina.flags & FLAG_PARAMS) != 0) {
                    if (meta.job_kind != JOB_LUWU || hdr.ipv4.srcAddr != meta.opt_addr) {
                        count_drop(DROP_NOT_OPTIMIZER);
                    } else if ((bit<32>)hdr.ina.slot[14:0] >= meta.slot_count) {
                        count_drop(DROP_BAD_SLOT);
                    } else {
                        bit<32> p_idx = meta.slot_base + (bit<32>)hdr.ina.slot[14:0];
                        if (hdr.ina.slot[15:15] == 1) {
                            p_idx = p_idx + POOL;
                        }
                        meta.idx = p_idx;
                        bit<8> p_count;
                        bit<32> p_chunk;
                        slot_count.read(p_count, meta.idx);
                        slot_chunk.read(p_chunk, meta.idx);
                        if (p_count != meta.n_workers || p_chunk != hdr.ina.chunk) {
                            count_drop(DROP_STALE);
                        } else {
                            if (hdr.ina_data.isValid()) {
                                lanes_store();
                                slot_answered.write(meta.idx, ANSWER_PARAMS);
                            } else {
                                slot_answered.write(meta.idx, ANSWER_ACK);
                            }
                            send_params_multicast();
                        }
                    }
                } else if ((hdr.ina.flags & (FLAG_GRADIENT | FLAG_RESULT)) != FLAG_GRADIENT
                           || pull == hdr.ina_data.isValid()
                           || (pull && meta.job_kind != JOB_LUWU)
                           || (hdr.ina.flags & (FLAG_LANES16 | FLAG_MAX))
                              == (FLAG_LANES16 | FLAG_MAX)
                           || ((hdr.ina.flags & FLAG_MAX) != 0
                               && meta.job_kind != JOB_AGGREGATE)) {
                    /* gradients carry lanes, pulls do not and go to LuWu jobs only; max
                     * rounds are 32-bit rounds of plain INA jobs */
                    count_drop(DROP_BAD_TYPE);
                } else if (hdr.ina.worker_id >= meta.n_workers) {
                    count_drop(DROP_BAD_WORKER);
                } else if ((bit<32>)hdr.ina.slot[14:0] >= meta.slot_count) {
                    count_drop(DROP_BAD_SLOT);
                } else {
                    bit<32> in_set = meta.slot_base + (bit<32>)hdr.ina.slot[14:0];
                    if (hdr.ina.slot[15:15] == 1) {
                        meta.idx = in_set + POOL;
                        meta.other_idx = in_set;
                    } else {
                        meta.idx = in_set;
                        meta.other_idx = in_set + POOL;
                    }
                    bit<32> wbit = (bit<32>)1 << hdr.ina.worker_id;
                    bit<32> bitmap;
                    bit<8> count;
                    bit<8> exponent;
                    bit<32> chunk;
                    bit<8> lanes;
                    bit<8> packet_lanes = hdr.ina.flags & (FLAG_LANES16 | FLAG_MAX);
                    slot_lanes.read(lanes, meta.idx);
                    slot_bitmap.read(bitmap, meta.idx);
                    slot_count.read(count, meta.idx);
                    slot_exponent.read(exponent, meta.idx);
                    slot_chunk.read(chunk, meta.idx);
                    bit<32> age = hdr.ina.chunk - chunk;
                    bool contributes = false;
                    if (count == 0 || (age != 0 && age < 0x80000000)) {
                        /* first contribution of a new round: reset the slot */
                        if (!pull) {
                            lanes_store();
                        }
                        bitmap = wbit;
                        count = 1;
                        slot_exponent.write(meta.idx, (bit<8>)hdr.ina.exponent);
                        slot_chunk.write(meta.idx, hdr.ina.chunk);
                        slot_answered.write(meta.idx, ANSWER_NONE);
                        slot_lanes.write(meta.idx, packet_lanes);
                        contributes = true;
                    } else if (age != 0) {
                        count_drop(DROP_STALE);
                    } else if ((bitmap & wbit) == 0) {
                        if (count == meta.n_workers) {
                            count_drop(DROP_STALE);
                        } else if (packet_lanes != lanes) {
                            count_drop(DROP_BAD_TYPE);
                        } else {
                            if (pull) {
                                /* a request: no lanes to add */
                            } else if (packet_lanes == FLAG_MAX) {
                                lanes_max();
                            } else if (packet_lanes != 0) {
                                lanes_add16();
                            } else {
                                lanes_add();
                            }
                            bitmap = bitmap | wbit;
                            count = count + 1;
                            if (hdr.ina.exponent > (int<8>)exponent) {
                                slot_exponent.write(meta.idx, (bit<8>)hdr.ina.exponent);
                            } else {
                                hdr.ina.exponent = (int<8>)exponent;
                            }
                            contributes = true;
                        }
                    } else if (count == meta.n_workers) {
                        /* retransmission after completion: the worker missed the answer */
                        bit<2> answered;
                        slot_answered.read(answered, meta.idx);
                        if (meta.job_kind == JOB_LUWU && answered == ANSWER_PARAMS) {
                            send_params_unicast();
                        } else if (meta.job_kind == JOB_LUWU && answered == ANSWER_ACK) {
                            send_ack_unicast();
                        } else {
                            if (!pull) {
                                lanes_load();
                            }
                            hdr.ina.exponent = (int<8>)exponent;
                            hdr.ina.n_workers = count;
                            if (meta.job_kind == JOB_LUWU) {
                                send_to_optimizer(FLAG_RESULT | FLAG_RETRANSMIT
                                                  | (hdr.ina.flags & FLAG_PULL));
                                ina_handled.count(HANDLED_REFORWARDED);
                            } else {
                                send_unicast();
                            }
                        }
                        route = true;
                    } else {
                        count_drop(DROP_DUPLICATE);
                    }
                    if (contributes) {
                        slot_bitmap.write(meta.idx, bitmap);
                        slot_count.write(meta.idx, count);
                        bit<32> other;
                        slot_bitmap.read(other, meta.other_idx);
                        slot_bitmap.write(meta.other_idx, other & ~wbit);
                        hdr.ina.n_workers = count;
                        if (count != meta.n_workers) {
                            absorb();
                        } else if (meta.job_kind == JOB_LUWU) {
                            send_to_optimizer(FLAG_RESULT | (hdr.ina.flags & FLAG_PULL));
                            ina_handled.count(HANDLED_TO_OPTIMIZER);
                            route = true;
                        } else {
                            send_multicast();
                            ina_handled.count(HANDLED_MULTICAST);
                        }
                    }
                }
            }
        }
        if (route) {
            ipv4_lpm.apply();
        }
    }
}

control MyEgress(inout headers hdr,
                 inout metadata meta,
                 inout standard_metadata_t standard_metadata) {
    action set_worker_address(macAddr_t dstMac, ip4Addr_t dstAddr) {
        hdr.ethernet.dstAddr = dstMac;
        hdr.ipv4.dstAddr = dstAddr;
    }

    /* One entry per worker replica of a job's multicast group (egress_rid -> worker). */
    table ina_worker {
        key = {
            standard_metadata.egress_rid: exact;
        }
        actions = {
            set_worker_address;
            NoAction;
        }
        size = 1024;
        default_action = NoAction();
    }

    apply {
        if (hdr.ina.isValid() && standard_metadata.egress_rid != 0) {
            ina_worker.apply();
        }
    }
}

control MyComputeChecksum(inout headers hdr, inout metadata meta) {
    apply {
        update_checksum(
            hdr.ipv4.isValid(),
            { hdr.ipv4.version,
              hdr.ipv4.ihl,
              hdr.ipv4.diffserv,
              hdr.ipv4.totalLen,
              hdr.ipv4.identification,
              hdr.ipv4.flags,
              hdr.ipv4.fragOffset,
              hdr.ipv4.ttl,
              hdr.ipv4.protocol,
              hdr.ipv4.srcAddr,
              hdr.ipv4.dstAddr },
            hdr.ipv4.hdrChecksum,
            HashAlgorithm.csum16);
    }
}

control MyDeparser(packet_out packet, in headers hdr) {
    apply {
        packet.emit(hdr.ethernet);
        packet.emit(hdr.ipv4);
        packet.emit(hdr.udp);
        packet.emit(hdr.ina);
        packet.emit(hdr.ina_data);
    }
}

V1Switch(
    MyParser(),
    MyVerifyChecksum(),
    MyIngress(),
    MyEgress(),
    MyComputeChecksum(),
    MyDeparser()
) main;
