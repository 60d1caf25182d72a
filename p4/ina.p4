/* In-network aggregation (SwitchML / ATP class) on v1model, plus IPv4 forwarding.
 *
 * Workers send UDP packets to port 0xBEE0 of an aggregator address owned by this switch.
 * Each packet carries up to 256 int32 fixed-point lanes (two's complement, kept in
 * bit<32>) of one chunk of a tensor, in groups of 32 words (ina_group_t; the
 * header's `groups` says how many, 1 to 8: a tensor's last block and an exponent
 * round carry only the groups they need), or, flagged FLAG_LANES16, twice as many int16
 * lanes in the same words (two per word, added as two 16-bit halves: for bf16/fp16
 * gradients, whose workers scale them so that the job's sum fits 16 bits), the chunk's
 * sequence number, the block's exponent, the sender's exponent of the block it sends
 * next in the same slot (next_exponent: block scaling agreed one round ahead, as
 * SwitchML does) and the slot
 * (pool index) that aggregates it; the slot's most significant bit selects one of two
 * shadow sets. A slot completes when every worker of the job has contributed; the sum,
 * the largest exponent, the largest next_exponent and, if any contribution was flagged
 * FLAG_OVERFLOW (a worker whose block did not fit the agreed exponent: its lanes are
 * zero, the workers send the block again at the result's exponent), that flag then go to
 * every worker of the job (multicast group of the job; egress rewrites the addresses per
 * replica from its egress_rid).
 *
 * Per packet, against the slot (set, index) it names:
 *   slot empty, or the packet's chunk is newer than the slot's -> start a new round
 *   same chunk, worker bit clear, slot incomplete            -> add the lanes
 *   same chunk, worker bit set, slot complete                -> retransmission: unicast
 *                                                               the result to the worker
 *   same chunk, worker bit set, slot incomplete              -> duplicate: drop
 *   older chunk, or worker bit clear on a complete slot      -> stale: drop
 * A contribution to one set clears the worker's bit in the other set of the same slot
 * (the worker has the other set's result, so it acknowledges it).
 *
 * Jobs own disjoint slot ranges [base, base + count) of a pool of POOL slots per set.
 * A job is either aggregated here (results multicast to its workers), aggregated here
 * and forwarded upstream as one worker of a parent job on another switch (two-level
 * aggregation across racks), or relayed: results of a parent job addressed to this
 * switch are multicast to the workers of the local job.
 * Bad input (wrong length, unknown job, worker or slot out of range, wrong message
 * type) is dropped before any register is touched, and counted by reason. A length is
 * wrong when the group count is 0 or above 8, or the IPv4 / UDP lengths are not
 * those of that many groups. A round has one length, its first contribution's: a
 * contribution or retransmission of another group count is dropped as a bad length (the
 * groups present are the ones aggregated, so a shorter packet would leave a partial sum).
 * A contribution whose lane width differs from the one that opened its slot's round is
 * dropped as a bad type: lanes of two widths are never added. A round flagged FLAG_MAX
 * (32-bit lanes only) keeps the largest of each lane instead of the sum: the workers
 * agree on the exponents of many blocks at once that way; it is never mixed with a
 * summing round either.
 *
 * The lane count (256, what SwitchML hosts put in a packet) is LANES of
 * testbed/proto/ina.py; the group headers, their parser states, the lane registers and
 * the lane actions (one per group and kind, applied to the groups present) repeat one
 * line per lane or group, so p4/ina.p4 is rendered from the template p4/ina.p4.in
 * (python -m testbed.proto.ina_p4 > p4/ina.p4): edit the template, not the output.
 * Only standard v1model externs are used and each table is applied once, so p4c
 * compiles the program for BMv2 as well.
 */
#include <core.p4>
#include <v1model.p4>

const bit<16> TYPE_IPV4 = 0x0800;
const bit<8>  PROTO_UDP = 17;
const bit<16> INA_PORT = 0xBEE0;
const bit<8> INA_GROUPS = 8;      /* groups of 32 lane words a packet may carry */
const bit<16> INA_GROUP_BYTES = 128;
/* 8 (UDP) + 13 (ina_t), and INA_GROUP_BYTES a group */
const bit<16> INA_UDP_BASE = 21;
const bit<16> INA_IP_BASE = 41;      /* 20 (IPv4 without options) + INA_UDP_BASE */

const bit<8> FLAG_GRADIENT = 0x01;
const bit<8> FLAG_RESULT = 0x02;
const bit<8> FLAG_RETRANSMIT = 0x04;
const bit<8> FLAG_LANES16 = 0x40;
const bit<8> FLAG_OVERFLOW = 0x80;
const bit<8> FLAG_MAX = 0x10;           /* lanes: signed values, the switch keeps the max */

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

/* indices of the ina_handled counter */
const bit<32> HANDLED_ABSORBED = 0;     /* added to an incomplete slot, nothing sent */
const bit<32> HANDLED_MULTICAST = 1;    /* completed a slot: result to all workers */
const bit<32> HANDLED_UNICAST = 2;      /* retransmission on a complete slot */
const bit<32> HANDLED_UPSTREAM = 3;     /* partial aggregate sent to the parent job */
const bit<32> HANDLED_RELAYED = 4;      /* parent job's result multicast to local workers */

const bit<2> JOB_UNKNOWN = 0;
const bit<2> JOB_AGGREGATE = 1;
const bit<2> JOB_RELAY = 2;

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

header ina_group_t {
    bit<32> w00;
    bit<32> w01;
    bit<32> w02;
    bit<32> w03;
    bit<32> w04;
    bit<32> w05;
    bit<32> w06;
    bit<32> w07;
    bit<32> w08;
    bit<32> w09;
    bit<32> w10;
    bit<32> w11;
    bit<32> w12;
    bit<32> w13;
    bit<32> w14;
    bit<32> w15;
    bit<32> w16;
    bit<32> w17;
    bit<32> w18;
    bit<32> w19;
    bit<32> w20;
    bit<32> w21;
    bit<32> w22;
    bit<32> w23;
    bit<32> w24;
    bit<32> w25;
    bit<32> w26;
    bit<32> w27;
    bit<32> w28;
    bit<32> w29;
    bit<32> w30;
    bit<32> w31;
}

struct metadata {
    bit<1>    local;        /* the packet is addressed to one of our aggregator addresses */
    bit<2>    job_kind;
    bit<32>   slot_base;
    bit<32>   slot_count;
    bit<8>    n_workers;
    bit<16>   mcast_grp;
    bit<1>    upstream;
    ip4Addr_t up_addr;
    bit<8>    up_job;
    bit<8>    up_worker;
    bit<8>    relay_job;
    bit<32>   idx;          /* register cell of the slot the packet names */
    bit<32>   other_idx;    /* the same slot in the other shadow set */
}

struct headers {
    ethernet_t ethernet;
    ipv4_t     ipv4;
    udp_t      udp;
    ina_t      ina;
    ina_group_t g00;
    ina_group_t g01;
    ina_group_t g02;
    ina_group_t g03;
    ina_group_t g04;
    ina_group_t g05;
    ina_group_t g06;
    ina_group_t g07;
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

    /* As many groups as the header says, at most INA_GROUPS; ingress drops a packet
     * whose count or length is wrong. */
    state parse_ina {
        packet.extract(hdr.ina);
        transition select(hdr.ina.groups) {
            0: accept;
            default: parse_g00;
        }
    }

    state parse_g00 {
        packet.extract(hdr.g00);
        transition select(hdr.ina.groups) {
            1: accept;
            default: parse_g01;
        }
    }

    state parse_g01 {
        packet.extract(hdr.g01);
        transition select(hdr.ina.groups) {
            2: accept;
            default: parse_g02;
        }
    }

    state parse_g02 {
        packet.extract(hdr.g02);
        transition select(hdr.ina.groups) {
            3: accept;
            default: parse_g03;
        }
    }

    state parse_g03 {
        packet.extract(hdr.g03);
        transition select(hdr.ina.groups) {
            4: accept;
            default: parse_g04;
        }
    }

    state parse_g04 {
        packet.extract(hdr.g04);
        transition select(hdr.ina.groups) {
            5: accept;
            default: parse_g05;
        }
    }

    state parse_g05 {
        packet.extract(hdr.g05);
        transition select(hdr.ina.groups) {
            6: accept;
            default: parse_g06;
        }
    }

    state parse_g06 {
        packet.extract(hdr.g06);
        transition select(hdr.ina.groups) {
            7: accept;
            default: parse_g07;
        }
    }

    state parse_g07 {
        packet.extract(hdr.g07);
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
    register<bit<8>>(REG_CELLS) slot_lanes;       /* the round's FLAG_LANES16 / FLAG_MAX bits */
    register<bit<8>>(REG_CELLS) slot_next_exponent;   /* max next_exponent of the round */
    register<bit<8>>(REG_CELLS) slot_overflow;    /* FLAG_OVERFLOW if a contribution had it */
    register<bit<8>>(REG_CELLS) slot_groups;      /* the round's group count */
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
        meta.upstream = 0;
    }

    action ina_aggregate_upstream(bit<32> slot_base, bit<32> slot_count, bit<8> n_workers,
                                  ip4Addr_t up_addr, bit<8> up_job, bit<8> up_worker) {
        meta.job_kind = JOB_AGGREGATE;
        meta.slot_base = slot_base;
        meta.slot_count = slot_count;
        meta.n_workers = n_workers;
        meta.upstream = 1;
        meta.up_addr = up_addr;
        meta.up_job = up_job;
        meta.up_worker = up_worker;
    }

    action ina_relay(bit<8> local_job, bit<16> mcast_grp) {
        meta.job_kind = JOB_RELAY;
        meta.relay_job = local_job;
        meta.mcast_grp = mcast_grp;
    }

    table ina_job {
        key = {
            hdr.ipv4.dstAddr: exact;
            hdr.ina.job_id: exact;
        }
        actions = {
            ina_aggregate;
            ina_aggregate_upstream;
            ina_relay;
            NoAction;
        }
        size = 256;
        default_action = NoAction();
    }

    /* Per group: store (a round's first contribution), add (32-bit lanes), add16 (two
     * int16 lanes per word), max (FLAG_MAX rounds), load (a retransmission's result). */
    action lanes_store_g00() {
        lane_v00.write(meta.idx, hdr.g00.w00);
        lane_v01.write(meta.idx, hdr.g00.w01);
        lane_v02.write(meta.idx, hdr.g00.w02);
        lane_v03.write(meta.idx, hdr.g00.w03);
        lane_v04.write(meta.idx, hdr.g00.w04);
        lane_v05.write(meta.idx, hdr.g00.w05);
        lane_v06.write(meta.idx, hdr.g00.w06);
        lane_v07.write(meta.idx, hdr.g00.w07);
        lane_v08.write(meta.idx, hdr.g00.w08);
        lane_v09.write(meta.idx, hdr.g00.w09);
        lane_v10.write(meta.idx, hdr.g00.w10);
        lane_v11.write(meta.idx, hdr.g00.w11);
        lane_v12.write(meta.idx, hdr.g00.w12);
        lane_v13.write(meta.idx, hdr.g00.w13);
        lane_v14.write(meta.idx, hdr.g00.w14);
        lane_v15.write(meta.idx, hdr.g00.w15);
        lane_v16.write(meta.idx, hdr.g00.w16);
        lane_v17.write(meta.idx, hdr.g00.w17);
        lane_v18.write(meta.idx, hdr.g00.w18);
        lane_v19.write(meta.idx, hdr.g00.w19);
        lane_v20.write(meta.idx, hdr.g00.w20);
        lane_v21.write(meta.idx, hdr.g00.w21);
        lane_v22.write(meta.idx, hdr.g00.w22);
        lane_v23.write(meta.idx, hdr.g00.w23);
        lane_v24.write(meta.idx, hdr.g00.w24);
        lane_v25.write(meta.idx, hdr.g00.w25);
        lane_v26.write(meta.idx, hdr.g00.w26);
        lane_v27.write(meta.idx, hdr.g00.w27);
        lane_v28.write(meta.idx, hdr.g00.w28);
        lane_v29.write(meta.idx, hdr.g00.w29);
        lane_v30.write(meta.idx, hdr.g00.w30);
        lane_v31.write(meta.idx, hdr.g00.w31);
    }

    action lanes_add_g00() {
        lane_v00.read(acc, meta.idx); acc = acc + hdr.g00.w00; lane_v00.write(meta.idx, acc); hdr.g00.w00 = acc;
        lane_v01.read(acc, meta.idx); acc = acc + hdr.g00.w01; lane_v01.write(meta.idx, acc); hdr.g00.w01 = acc;
        lane_v02.read(acc, meta.idx); acc = acc + hdr.g00.w02; lane_v02.write(meta.idx, acc); hdr.g00.w02 = acc;
        lane_v03.read(acc, meta.idx); acc = acc + hdr.g00.w03; lane_v03.write(meta.idx, acc); hdr.g00.w03 = acc;
        lane_v04.read(acc, meta.idx); acc = acc + hdr.g00.w04; lane_v04.write(meta.idx, acc); hdr.g00.w04 = acc;
        lane_v05.read(acc, meta.idx); acc = acc + hdr.g00.w05; lane_v05.write(meta.idx, acc); hdr.g00.w05 = acc;
        lane_v06.read(acc, meta.idx); acc = acc + hdr.g00.w06; lane_v06.write(meta.idx, acc); hdr.g00.w06 = acc;
        lane_v07.read(acc, meta.idx); acc = acc + hdr.g00.w07; lane_v07.write(meta.idx, acc); hdr.g00.w07 = acc;
        lane_v08.read(acc, meta.idx); acc = acc + hdr.g00.w08; lane_v08.write(meta.idx, acc); hdr.g00.w08 = acc;
        lane_v09.read(acc, meta.idx); acc = acc + hdr.g00.w09; lane_v09.write(meta.idx, acc); hdr.g00.w09 = acc;
        lane_v10.read(acc, meta.idx); acc = acc + hdr.g00.w10; lane_v10.write(meta.idx, acc); hdr.g00.w10 = acc;
        lane_v11.read(acc, meta.idx); acc = acc + hdr.g00.w11; lane_v11.write(meta.idx, acc); hdr.g00.w11 = acc;
        lane_v12.read(acc, meta.idx); acc = acc + hdr.g00.w12; lane_v12.write(meta.idx, acc); hdr.g00.w12 = acc;
        lane_v13.read(acc, meta.idx); acc = acc + hdr.g00.w13; lane_v13.write(meta.idx, acc); hdr.g00.w13 = acc;
        lane_v14.read(acc, meta.idx); acc = acc + hdr.g00.w14; lane_v14.write(meta.idx, acc); hdr.g00.w14 = acc;
        lane_v15.read(acc, meta.idx); acc = acc + hdr.g00.w15; lane_v15.write(meta.idx, acc); hdr.g00.w15 = acc;
        lane_v16.read(acc, meta.idx); acc = acc + hdr.g00.w16; lane_v16.write(meta.idx, acc); hdr.g00.w16 = acc;
        lane_v17.read(acc, meta.idx); acc = acc + hdr.g00.w17; lane_v17.write(meta.idx, acc); hdr.g00.w17 = acc;
        lane_v18.read(acc, meta.idx); acc = acc + hdr.g00.w18; lane_v18.write(meta.idx, acc); hdr.g00.w18 = acc;
        lane_v19.read(acc, meta.idx); acc = acc + hdr.g00.w19; lane_v19.write(meta.idx, acc); hdr.g00.w19 = acc;
        lane_v20.read(acc, meta.idx); acc = acc + hdr.g00.w20; lane_v20.write(meta.idx, acc); hdr.g00.w20 = acc;
        lane_v21.read(acc, meta.idx); acc = acc + hdr.g00.w21; lane_v21.write(meta.idx, acc); hdr.g00.w21 = acc;
        lane_v22.read(acc, meta.idx); acc = acc + hdr.g00.w22; lane_v22.write(meta.idx, acc); hdr.g00.w22 = acc;
        lane_v23.read(acc, meta.idx); acc = acc + hdr.g00.w23; lane_v23.write(meta.idx, acc); hdr.g00.w23 = acc;
        lane_v24.read(acc, meta.idx); acc = acc + hdr.g00.w24; lane_v24.write(meta.idx, acc); hdr.g00.w24 = acc;
        lane_v25.read(acc, meta.idx); acc = acc + hdr.g00.w25; lane_v25.write(meta.idx, acc); hdr.g00.w25 = acc;
        lane_v26.read(acc, meta.idx); acc = acc + hdr.g00.w26; lane_v26.write(meta.idx, acc); hdr.g00.w26 = acc;
        lane_v27.read(acc, meta.idx); acc = acc + hdr.g00.w27; lane_v27.write(meta.idx, acc); hdr.g00.w27 = acc;
        lane_v28.read(acc, meta.idx); acc = acc + hdr.g00.w28; lane_v28.write(meta.idx, acc); hdr.g00.w28 = acc;
        lane_v29.read(acc, meta.idx); acc = acc + hdr.g00.w29; lane_v29.write(meta.idx, acc); hdr.g00.w29 = acc;
        lane_v30.read(acc, meta.idx); acc = acc + hdr.g00.w30; lane_v30.write(meta.idx, acc); hdr.g00.w30 = acc;
        lane_v31.read(acc, meta.idx); acc = acc + hdr.g00.w31; lane_v31.write(meta.idx, acc); hdr.g00.w31 = acc;
    }

    action lanes_add16_g00() {
        lane_v00.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g00.w00 & 0xFFFF0000)) | ((acc + hdr.g00.w00) & 0xFFFF); lane_v00.write(meta.idx, acc); hdr.g00.w00 = acc;
        lane_v01.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g00.w01 & 0xFFFF0000)) | ((acc + hdr.g00.w01) & 0xFFFF); lane_v01.write(meta.idx, acc); hdr.g00.w01 = acc;
        lane_v02.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g00.w02 & 0xFFFF0000)) | ((acc + hdr.g00.w02) & 0xFFFF); lane_v02.write(meta.idx, acc); hdr.g00.w02 = acc;
        lane_v03.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g00.w03 & 0xFFFF0000)) | ((acc + hdr.g00.w03) & 0xFFFF); lane_v03.write(meta.idx, acc); hdr.g00.w03 = acc;
        lane_v04.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g00.w04 & 0xFFFF0000)) | ((acc + hdr.g00.w04) & 0xFFFF); lane_v04.write(meta.idx, acc); hdr.g00.w04 = acc;
        lane_v05.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g00.w05 & 0xFFFF0000)) | ((acc + hdr.g00.w05) & 0xFFFF); lane_v05.write(meta.idx, acc); hdr.g00.w05 = acc;
        lane_v06.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g00.w06 & 0xFFFF0000)) | ((acc + hdr.g00.w06) & 0xFFFF); lane_v06.write(meta.idx, acc); hdr.g00.w06 = acc;
        lane_v07.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g00.w07 & 0xFFFF0000)) | ((acc + hdr.g00.w07) & 0xFFFF); lane_v07.write(meta.idx, acc); hdr.g00.w07 = acc;
        lane_v08.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g00.w08 & 0xFFFF0000)) | ((acc + hdr.g00.w08) & 0xFFFF); lane_v08.write(meta.idx, acc); hdr.g00.w08 = acc;
        lane_v09.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g00.w09 & 0xFFFF0000)) | ((acc + hdr.g00.w09) & 0xFFFF); lane_v09.write(meta.idx, acc); hdr.g00.w09 = acc;
        lane_v10.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g00.w10 & 0xFFFF0000)) | ((acc + hdr.g00.w10) & 0xFFFF); lane_v10.write(meta.idx, acc); hdr.g00.w10 = acc;
        lane_v11.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g00.w11 & 0xFFFF0000)) | ((acc + hdr.g00.w11) & 0xFFFF); lane_v11.write(meta.idx, acc); hdr.g00.w11 = acc;
        lane_v12.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g00.w12 & 0xFFFF0000)) | ((acc + hdr.g00.w12) & 0xFFFF); lane_v12.write(meta.idx, acc); hdr.g00.w12 = acc;
        lane_v13.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g00.w13 & 0xFFFF0000)) | ((acc + hdr.g00.w13) & 0xFFFF); lane_v13.write(meta.idx, acc); hdr.g00.w13 = acc;
        lane_v14.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g00.w14 & 0xFFFF0000)) | ((acc + hdr.g00.w14) & 0xFFFF); lane_v14.write(meta.idx, acc); hdr.g00.w14 = acc;
        lane_v15.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g00.w15 & 0xFFFF0000)) | ((acc + hdr.g00.w15) & 0xFFFF); lane_v15.write(meta.idx, acc); hdr.g00.w15 = acc;
        lane_v16.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g00.w16 & 0xFFFF0000)) | ((acc + hdr.g00.w16) & 0xFFFF); lane_v16.write(meta.idx, acc); hdr.g00.w16 = acc;
        lane_v17.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g00.w17 & 0xFFFF0000)) | ((acc + hdr.g00.w17) & 0xFFFF); lane_v17.write(meta.idx, acc); hdr.g00.w17 = acc;
        lane_v18.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g00.w18 & 0xFFFF0000)) | ((acc + hdr.g00.w18) & 0xFFFF); lane_v18.write(meta.idx, acc); hdr.g00.w18 = acc;
        lane_v19.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g00.w19 & 0xFFFF0000)) | ((acc + hdr.g00.w19) & 0xFFFF); lane_v19.write(meta.idx, acc); hdr.g00.w19 = acc;
        lane_v20.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g00.w20 & 0xFFFF0000)) | ((acc + hdr.g00.w20) & 0xFFFF); lane_v20.write(meta.idx, acc); hdr.g00.w20 = acc;
        lane_v21.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g00.w21 & 0xFFFF0000)) | ((acc + hdr.g00.w21) & 0xFFFF); lane_v21.write(meta.idx, acc); hdr.g00.w21 = acc;
        lane_v22.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g00.w22 & 0xFFFF0000)) | ((acc + hdr.g00.w22) & 0xFFFF); lane_v22.write(meta.idx, acc); hdr.g00.w22 = acc;
        lane_v23.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g00.w23 & 0xFFFF0000)) | ((acc + hdr.g00.w23) & 0xFFFF); lane_v23.write(meta.idx, acc); hdr.g00.w23 = acc;
        lane_v24.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g00.w24 & 0xFFFF0000)) | ((acc + hdr.g00.w24) & 0xFFFF); lane_v24.write(meta.idx, acc); hdr.g00.w24 = acc;
        lane_v25.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g00.w25 & 0xFFFF0000)) | ((acc + hdr.g00.w25) & 0xFFFF); lane_v25.write(meta.idx, acc); hdr.g00.w25 = acc;
        lane_v26.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g00.w26 & 0xFFFF0000)) | ((acc + hdr.g00.w26) & 0xFFFF); lane_v26.write(meta.idx, acc); hdr.g00.w26 = acc;
        lane_v27.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g00.w27 & 0xFFFF0000)) | ((acc + hdr.g00.w27) & 0xFFFF); lane_v27.write(meta.idx, acc); hdr.g00.w27 = acc;
        lane_v28.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g00.w28 & 0xFFFF0000)) | ((acc + hdr.g00.w28) & 0xFFFF); lane_v28.write(meta.idx, acc); hdr.g00.w28 = acc;
        lane_v29.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g00.w29 & 0xFFFF0000)) | ((acc + hdr.g00.w29) & 0xFFFF); lane_v29.write(meta.idx, acc); hdr.g00.w29 = acc;
        lane_v30.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g00.w30 & 0xFFFF0000)) | ((acc + hdr.g00.w30) & 0xFFFF); lane_v30.write(meta.idx, acc); hdr.g00.w30 = acc;
        lane_v31.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g00.w31 & 0xFFFF0000)) | ((acc + hdr.g00.w31) & 0xFFFF); lane_v31.write(meta.idx, acc); hdr.g00.w31 = acc;
    }

    action lanes_max_g00() {
        lane_v00.read(acc, meta.idx); acc = ((int<32>)hdr.g00.w00 > (int<32>)acc) ? hdr.g00.w00 : acc; lane_v00.write(meta.idx, acc); hdr.g00.w00 = acc;
        lane_v01.read(acc, meta.idx); acc = ((int<32>)hdr.g00.w01 > (int<32>)acc) ? hdr.g00.w01 : acc; lane_v01.write(meta.idx, acc); hdr.g00.w01 = acc;
        lane_v02.read(acc, meta.idx); acc = ((int<32>)hdr.g00.w02 > (int<32>)acc) ? hdr.g00.w02 : acc; lane_v02.write(meta.idx, acc); hdr.g00.w02 = acc;
        lane_v03.read(acc, meta.idx); acc = ((int<32>)hdr.g00.w03 > (int<32>)acc) ? hdr.g00.w03 : acc; lane_v03.write(meta.idx, acc); hdr.g00.w03 = acc;
        lane_v04.read(acc, meta.idx); acc = ((int<32>)hdr.g00.w04 > (int<32>)acc) ? hdr.g00.w04 : acc; lane_v04.write(meta.idx, acc); hdr.g00.w04 = acc;
        lane_v05.read(acc, meta.idx); acc = ((int<32>)hdr.g00.w05 > (int<32>)acc) ? hdr.g00.w05 : acc; lane_v05.write(meta.idx, acc); hdr.g00.w05 = acc;
        lane_v06.read(acc, meta.idx); acc = ((int<32>)hdr.g00.w06 > (int<32>)acc) ? hdr.g00.w06 : acc; lane_v06.write(meta.idx, acc); hdr.g00.w06 = acc;
        lane_v07.read(acc, meta.idx); acc = ((int<32>)hdr.g00.w07 > (int<32>)acc) ? hdr.g00.w07 : acc; lane_v07.write(meta.idx, acc); hdr.g00.w07 = acc;
        lane_v08.read(acc, meta.idx); acc = ((int<32>)hdr.g00.w08 > (int<32>)acc) ? hdr.g00.w08 : acc; lane_v08.write(meta.idx, acc); hdr.g00.w08 = acc;
        lane_v09.read(acc, meta.idx); acc = ((int<32>)hdr.g00.w09 > (int<32>)acc) ? hdr.g00.w09 : acc; lane_v09.write(meta.idx, acc); hdr.g00.w09 = acc;
        lane_v10.read(acc, meta.idx); acc = ((int<32>)hdr.g00.w10 > (int<32>)acc) ? hdr.g00.w10 : acc; lane_v10.write(meta.idx, acc); hdr.g00.w10 = acc;
        lane_v11.read(acc, meta.idx); acc = ((int<32>)hdr.g00.w11 > (int<32>)acc) ? hdr.g00.w11 : acc; lane_v11.write(meta.idx, acc); hdr.g00.w11 = acc;
        lane_v12.read(acc, meta.idx); acc = ((int<32>)hdr.g00.w12 > (int<32>)acc) ? hdr.g00.w12 : acc; lane_v12.write(meta.idx, acc); hdr.g00.w12 = acc;
        lane_v13.read(acc, meta.idx); acc = ((int<32>)hdr.g00.w13 > (int<32>)acc) ? hdr.g00.w13 : acc; lane_v13.write(meta.idx, acc); hdr.g00.w13 = acc;
        lane_v14.read(acc, meta.idx); acc = ((int<32>)hdr.g00.w14 > (int<32>)acc) ? hdr.g00.w14 : acc; lane_v14.write(meta.idx, acc); hdr.g00.w14 = acc;
        lane_v15.read(acc, meta.idx); acc = ((int<32>)hdr.g00.w15 > (int<32>)acc) ? hdr.g00.w15 : acc; lane_v15.write(meta.idx, acc); hdr.g00.w15 = acc;
        lane_v16.read(acc, meta.idx); acc = ((int<32>)hdr.g00.w16 > (int<32>)acc) ? hdr.g00.w16 : acc; lane_v16.write(meta.idx, acc); hdr.g00.w16 = acc;
        lane_v17.read(acc, meta.idx); acc = ((int<32>)hdr.g00.w17 > (int<32>)acc) ? hdr.g00.w17 : acc; lane_v17.write(meta.idx, acc); hdr.g00.w17 = acc;
        lane_v18.read(acc, meta.idx); acc = ((int<32>)hdr.g00.w18 > (int<32>)acc) ? hdr.g00.w18 : acc; lane_v18.write(meta.idx, acc); hdr.g00.w18 = acc;
        lane_v19.read(acc, meta.idx); acc = ((int<32>)hdr.g00.w19 > (int<32>)acc) ? hdr.g00.w19 : acc; lane_v19.write(meta.idx, acc); hdr.g00.w19 = acc;
        lane_v20.read(acc, meta.idx); acc = ((int<32>)hdr.g00.w20 > (int<32>)acc) ? hdr.g00.w20 : acc; lane_v20.write(meta.idx, acc); hdr.g00.w20 = acc;
        lane_v21.read(acc, meta.idx); acc = ((int<32>)hdr.g00.w21 > (int<32>)acc) ? hdr.g00.w21 : acc; lane_v21.write(meta.idx, acc); hdr.g00.w21 = acc;
        lane_v22.read(acc, meta.idx); acc = ((int<32>)hdr.g00.w22 > (int<32>)acc) ? hdr.g00.w22 : acc; lane_v22.write(meta.idx, acc); hdr.g00.w22 = acc;
        lane_v23.read(acc, meta.idx); acc = ((int<32>)hdr.g00.w23 > (int<32>)acc) ? hdr.g00.w23 : acc; lane_v23.write(meta.idx, acc); hdr.g00.w23 = acc;
        lane_v24.read(acc, meta.idx); acc = ((int<32>)hdr.g00.w24 > (int<32>)acc) ? hdr.g00.w24 : acc; lane_v24.write(meta.idx, acc); hdr.g00.w24 = acc;
        lane_v25.read(acc, meta.idx); acc = ((int<32>)hdr.g00.w25 > (int<32>)acc) ? hdr.g00.w25 : acc; lane_v25.write(meta.idx, acc); hdr.g00.w25 = acc;
        lane_v26.read(acc, meta.idx); acc = ((int<32>)hdr.g00.w26 > (int<32>)acc) ? hdr.g00.w26 : acc; lane_v26.write(meta.idx, acc); hdr.g00.w26 = acc;
        lane_v27.read(acc, meta.idx); acc = ((int<32>)hdr.g00.w27 > (int<32>)acc) ? hdr.g00.w27 : acc; lane_v27.write(meta.idx, acc); hdr.g00.w27 = acc;
        lane_v28.read(acc, meta.idx); acc = ((int<32>)hdr.g00.w28 > (int<32>)acc) ? hdr.g00.w28 : acc; lane_v28.write(meta.idx, acc); hdr.g00.w28 = acc;
        lane_v29.read(acc, meta.idx); acc = ((int<32>)hdr.g00.w29 > (int<32>)acc) ? hdr.g00.w29 : acc; lane_v29.write(meta.idx, acc); hdr.g00.w29 = acc;
        lane_v30.read(acc, meta.idx); acc = ((int<32>)hdr.g00.w30 > (int<32>)acc) ? hdr.g00.w30 : acc; lane_v30.write(meta.idx, acc); hdr.g00.w30 = acc;
        lane_v31.read(acc, meta.idx); acc = ((int<32>)hdr.g00.w31 > (int<32>)acc) ? hdr.g00.w31 : acc; lane_v31.write(meta.idx, acc); hdr.g00.w31 = acc;
    }

    action lanes_load_g00() {
        lane_v00.read(hdr.g00.w00, meta.idx);
        lane_v01.read(hdr.g00.w01, meta.idx);
        lane_v02.read(hdr.g00.w02, meta.idx);
        lane_v03.read(hdr.g00.w03, meta.idx);
        lane_v04.read(hdr.g00.w04, meta.idx);
        lane_v05.read(hdr.g00.w05, meta.idx);
        lane_v06.read(hdr.g00.w06, meta.idx);
        lane_v07.read(hdr.g00.w07, meta.idx);
        lane_v08.read(hdr.g00.w08, meta.idx);
        lane_v09.read(hdr.g00.w09, meta.idx);
        lane_v10.read(hdr.g00.w10, meta.idx);
        lane_v11.read(hdr.g00.w11, meta.idx);
        lane_v12.read(hdr.g00.w12, meta.idx);
        lane_v13.read(hdr.g00.w13, meta.idx);
        lane_v14.read(hdr.g00.w14, meta.idx);
        lane_v15.read(hdr.g00.w15, meta.idx);
        lane_v16.read(hdr.g00.w16, meta.idx);
        lane_v17.read(hdr.g00.w17, meta.idx);
        lane_v18.read(hdr.g00.w18, meta.idx);
        lane_v19.read(hdr.g00.w19, meta.idx);
        lane_v20.read(hdr.g00.w20, meta.idx);
        lane_v21.read(hdr.g00.w21, meta.idx);
        lane_v22.read(hdr.g00.w22, meta.idx);
        lane_v23.read(hdr.g00.w23, meta.idx);
        lane_v24.read(hdr.g00.w24, meta.idx);
        lane_v25.read(hdr.g00.w25, meta.idx);
        lane_v26.read(hdr.g00.w26, meta.idx);
        lane_v27.read(hdr.g00.w27, meta.idx);
        lane_v28.read(hdr.g00.w28, meta.idx);
        lane_v29.read(hdr.g00.w29, meta.idx);
        lane_v30.read(hdr.g00.w30, meta.idx);
        lane_v31.read(hdr.g00.w31, meta.idx);
    }

    action lanes_store_g01() {
        lane_v32.write(meta.idx, hdr.g01.w00);
        lane_v33.write(meta.idx, hdr.g01.w01);
        lane_v34.write(meta.idx, hdr.g01.w02);
        lane_v35.write(meta.idx, hdr.g01.w03);
        lane_v36.write(meta.idx, hdr.g01.w04);
        lane_v37.write(meta.idx, hdr.g01.w05);
        lane_v38.write(meta.idx, hdr.g01.w06);
        lane_v39.write(meta.idx, hdr.g01.w07);
        lane_v40.write(meta.idx, hdr.g01.w08);
        lane_v41.write(meta.idx, hdr.g01.w09);
        lane_v42.write(meta.idx, hdr.g01.w10);
        lane_v43.write(meta.idx, hdr.g01.w11);
        lane_v44.write(meta.idx, hdr.g01.w12);
        lane_v45.write(meta.idx, hdr.g01.w13);
        lane_v46.write(meta.idx, hdr.g01.w14);
        lane_v47.write(meta.idx, hdr.g01.w15);
        lane_v48.write(meta.idx, hdr.g01.w16);
        lane_v49.write(meta.idx, hdr.g01.w17);
        lane_v50.write(meta.idx, hdr.g01.w18);
        lane_v51.write(meta.idx, hdr.g01.w19);
        lane_v52.write(meta.idx, hdr.g01.w20);
        lane_v53.write(meta.idx, hdr.g01.w21);
        lane_v54.write(meta.idx, hdr.g01.w22);
        lane_v55.write(meta.idx, hdr.g01.w23);
        lane_v56.write(meta.idx, hdr.g01.w24);
        lane_v57.write(meta.idx, hdr.g01.w25);
        lane_v58.write(meta.idx, hdr.g01.w26);
        lane_v59.write(meta.idx, hdr.g01.w27);
        lane_v60.write(meta.idx, hdr.g01.w28);
        lane_v61.write(meta.idx, hdr.g01.w29);
        lane_v62.write(meta.idx, hdr.g01.w30);
        lane_v63.write(meta.idx, hdr.g01.w31);
    }

    action lanes_add_g01() {
        lane_v32.read(acc, meta.idx); acc = acc + hdr.g01.w00; lane_v32.write(meta.idx, acc); hdr.g01.w00 = acc;
        lane_v33.read(acc, meta.idx); acc = acc + hdr.g01.w01; lane_v33.write(meta.idx, acc); hdr.g01.w01 = acc;
        lane_v34.read(acc, meta.idx); acc = acc + hdr.g01.w02; lane_v34.write(meta.idx, acc); hdr.g01.w02 = acc;
        lane_v35.read(acc, meta.idx); acc = acc + hdr.g01.w03; lane_v35.write(meta.idx, acc); hdr.g01.w03 = acc;
        lane_v36.read(acc, meta.idx); acc = acc + hdr.g01.w04; lane_v36.write(meta.idx, acc); hdr.g01.w04 = acc;
        lane_v37.read(acc, meta.idx); acc = acc + hdr.g01.w05; lane_v37.write(meta.idx, acc); hdr.g01.w05 = acc;
        lane_v38.read(acc, meta.idx); acc = acc + hdr.g01.w06; lane_v38.write(meta.idx, acc); hdr.g01.w06 = acc;
        lane_v39.read(acc, meta.idx); acc = acc + hdr.g01.w07; lane_v39.write(meta.idx, acc); hdr.g01.w07 = acc;
        lane_v40.read(acc, meta.idx); acc = acc + hdr.g01.w08; lane_v40.write(meta.idx, acc); hdr.g01.w08 = acc;
        lane_v41.read(acc, meta.idx); acc = acc + hdr.g01.w09; lane_v41.write(meta.idx, acc); hdr.g01.w09 = acc;
        lane_v42.read(acc, meta.idx); acc = acc + hdr.g01.w10; lane_v42.write(meta.idx, acc); hdr.g01.w10 = acc;
        lane_v43.read(acc, meta.idx); acc = acc + hdr.g01.w11; lane_v43.write(meta.idx, acc); hdr.g01.w11 = acc;
        lane_v44.read(acc, meta.idx); acc = acc + hdr.g01.w12; lane_v44.write(meta.idx, acc); hdr.g01.w12 = acc;
        lane_v45.read(acc, meta.idx); acc = acc + hdr.g01.w13; lane_v45.write(meta.idx, acc); hdr.g01.w13 = acc;
        lane_v46.read(acc, meta.idx); acc = acc + hdr.g01.w14; lane_v46.write(meta.idx, acc); hdr.g01.w14 = acc;
        lane_v47.read(acc, meta.idx); acc = acc + hdr.g01.w15; lane_v47.write(meta.idx, acc); hdr.g01.w15 = acc;
        lane_v48.read(acc, meta.idx); acc = acc + hdr.g01.w16; lane_v48.write(meta.idx, acc); hdr.g01.w16 = acc;
        lane_v49.read(acc, meta.idx); acc = acc + hdr.g01.w17; lane_v49.write(meta.idx, acc); hdr.g01.w17 = acc;
        lane_v50.read(acc, meta.idx); acc = acc + hdr.g01.w18; lane_v50.write(meta.idx, acc); hdr.g01.w18 = acc;
        lane_v51.read(acc, meta.idx); acc = acc + hdr.g01.w19; lane_v51.write(meta.idx, acc); hdr.g01.w19 = acc;
        lane_v52.read(acc, meta.idx); acc = acc + hdr.g01.w20; lane_v52.write(meta.idx, acc); hdr.g01.w20 = acc;
        lane_v53.read(acc, meta.idx); acc = acc + hdr.g01.w21; lane_v53.write(meta.idx, acc); hdr.g01.w21 = acc;
        lane_v54.read(acc, meta.idx); acc = acc + hdr.g01.w22; lane_v54.write(meta.idx, acc); hdr.g01.w22 = acc;
        lane_v55.read(acc, meta.idx); acc = acc + hdr.g01.w23; lane_v55.write(meta.idx, acc); hdr.g01.w23 = acc;
        lane_v56.read(acc, meta.idx); acc = acc + hdr.g01.w24; lane_v56.write(meta.idx, acc); hdr.g01.w24 = acc;
        lane_v57.read(acc, meta.idx); acc = acc + hdr.g01.w25; lane_v57.write(meta.idx, acc); hdr.g01.w25 = acc;
        lane_v58.read(acc, meta.idx); acc = acc + hdr.g01.w26; lane_v58.write(meta.idx, acc); hdr.g01.w26 = acc;
        lane_v59.read(acc, meta.idx); acc = acc + hdr.g01.w27; lane_v59.write(meta.idx, acc); hdr.g01.w27 = acc;
        lane_v60.read(acc, meta.idx); acc = acc + hdr.g01.w28; lane_v60.write(meta.idx, acc); hdr.g01.w28 = acc;
        lane_v61.read(acc, meta.idx); acc = acc + hdr.g01.w29; lane_v61.write(meta.idx, acc); hdr.g01.w29 = acc;
        lane_v62.read(acc, meta.idx); acc = acc + hdr.g01.w30; lane_v62.write(meta.idx, acc); hdr.g01.w30 = acc;
        lane_v63.read(acc, meta.idx); acc = acc + hdr.g01.w31; lane_v63.write(meta.idx, acc); hdr.g01.w31 = acc;
    }

    action lanes_add16_g01() {
        lane_v32.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g01.w00 & 0xFFFF0000)) | ((acc + hdr.g01.w00) & 0xFFFF); lane_v32.write(meta.idx, acc); hdr.g01.w00 = acc;
        lane_v33.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g01.w01 & 0xFFFF0000)) | ((acc + hdr.g01.w01) & 0xFFFF); lane_v33.write(meta.idx, acc); hdr.g01.w01 = acc;
        lane_v34.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g01.w02 & 0xFFFF0000)) | ((acc + hdr.g01.w02) & 0xFFFF); lane_v34.write(meta.idx, acc); hdr.g01.w02 = acc;
        lane_v35.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g01.w03 & 0xFFFF0000)) | ((acc + hdr.g01.w03) & 0xFFFF); lane_v35.write(meta.idx, acc); hdr.g01.w03 = acc;
        lane_v36.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g01.w04 & 0xFFFF0000)) | ((acc + hdr.g01.w04) & 0xFFFF); lane_v36.write(meta.idx, acc); hdr.g01.w04 = acc;
        lane_v37.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g01.w05 & 0xFFFF0000)) | ((acc + hdr.g01.w05) & 0xFFFF); lane_v37.write(meta.idx, acc); hdr.g01.w05 = acc;
        lane_v38.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g01.w06 & 0xFFFF0000)) | ((acc + hdr.g01.w06) & 0xFFFF); lane_v38.write(meta.idx, acc); hdr.g01.w06 = acc;
        lane_v39.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g01.w07 & 0xFFFF0000)) | ((acc + hdr.g01.w07) & 0xFFFF); lane_v39.write(meta.idx, acc); hdr.g01.w07 = acc;
        lane_v40.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g01.w08 & 0xFFFF0000)) | ((acc + hdr.g01.w08) & 0xFFFF); lane_v40.write(meta.idx, acc); hdr.g01.w08 = acc;
        lane_v41.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g01.w09 & 0xFFFF0000)) | ((acc + hdr.g01.w09) & 0xFFFF); lane_v41.write(meta.idx, acc); hdr.g01.w09 = acc;
        lane_v42.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g01.w10 & 0xFFFF0000)) | ((acc + hdr.g01.w10) & 0xFFFF); lane_v42.write(meta.idx, acc); hdr.g01.w10 = acc;
        lane_v43.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g01.w11 & 0xFFFF0000)) | ((acc + hdr.g01.w11) & 0xFFFF); lane_v43.write(meta.idx, acc); hdr.g01.w11 = acc;
        lane_v44.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g01.w12 & 0xFFFF0000)) | ((acc + hdr.g01.w12) & 0xFFFF); lane_v44.write(meta.idx, acc); hdr.g01.w12 = acc;
        lane_v45.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g01.w13 & 0xFFFF0000)) | ((acc + hdr.g01.w13) & 0xFFFF); lane_v45.write(meta.idx, acc); hdr.g01.w13 = acc;
        lane_v46.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g01.w14 & 0xFFFF0000)) | ((acc + hdr.g01.w14) & 0xFFFF); lane_v46.write(meta.idx, acc); hdr.g01.w14 = acc;
        lane_v47.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g01.w15 & 0xFFFF0000)) | ((acc + hdr.g01.w15) & 0xFFFF); lane_v47.write(meta.idx, acc); hdr.g01.w15 = acc;
        lane_v48.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g01.w16 & 0xFFFF0000)) | ((acc + hdr.g01.w16) & 0xFFFF); lane_v48.write(meta.idx, acc); hdr.g01.w16 = acc;
        lane_v49.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g01.w17 & 0xFFFF0000)) | ((acc + hdr.g01.w17) & 0xFFFF); lane_v49.write(meta.idx, acc); hdr.g01.w17 = acc;
        lane_v50.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g01.w18 & 0xFFFF0000)) | ((acc + hdr.g01.w18) & 0xFFFF); lane_v50.write(meta.idx, acc); hdr.g01.w18 = acc;
        lane_v51.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g01.w19 & 0xFFFF0000)) | ((acc + hdr.g01.w19) & 0xFFFF); lane_v51.write(meta.idx, acc); hdr.g01.w19 = acc;
        lane_v52.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g01.w20 & 0xFFFF0000)) | ((acc + hdr.g01.w20) & 0xFFFF); lane_v52.write(meta.idx, acc); hdr.g01.w20 = acc;
        lane_v53.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g01.w21 & 0xFFFF0000)) | ((acc + hdr.g01.w21) & 0xFFFF); lane_v53.write(meta.idx, acc); hdr.g01.w21 = acc;
        lane_v54.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g01.w22 & 0xFFFF0000)) | ((acc + hdr.g01.w22) & 0xFFFF); lane_v54.write(meta.idx, acc); hdr.g01.w22 = acc;
        lane_v55.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g01.w23 & 0xFFFF0000)) | ((acc + hdr.g01.w23) & 0xFFFF); lane_v55.write(meta.idx, acc); hdr.g01.w23 = acc;
        lane_v56.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g01.w24 & 0xFFFF0000)) | ((acc + hdr.g01.w24) & 0xFFFF); lane_v56.write(meta.idx, acc); hdr.g01.w24 = acc;
        lane_v57.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g01.w25 & 0xFFFF0000)) | ((acc + hdr.g01.w25) & 0xFFFF); lane_v57.write(meta.idx, acc); hdr.g01.w25 = acc;
        lane_v58.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g01.w26 & 0xFFFF0000)) | ((acc + hdr.g01.w26) & 0xFFFF); lane_v58.write(meta.idx, acc); hdr.g01.w26 = acc;
        lane_v59.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g01.w27 & 0xFFFF0000)) | ((acc + hdr.g01.w27) & 0xFFFF); lane_v59.write(meta.idx, acc); hdr.g01.w27 = acc;
        lane_v60.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g01.w28 & 0xFFFF0000)) | ((acc + hdr.g01.w28) & 0xFFFF); lane_v60.write(meta.idx, acc); hdr.g01.w28 = acc;
        lane_v61.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g01.w29 & 0xFFFF0000)) | ((acc + hdr.g01.w29) & 0xFFFF); lane_v61.write(meta.idx, acc); hdr.g01.w29 = acc;
        lane_v62.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g01.w30 & 0xFFFF0000)) | ((acc + hdr.g01.w30) & 0xFFFF); lane_v62.write(meta.idx, acc); hdr.g01.w30 = acc;
        lane_v63.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g01.w31 & 0xFFFF0000)) | ((acc + hdr.g01.w31) & 0xFFFF); lane_v63.write(meta.idx, acc); hdr.g01.w31 = acc;
    }

    action lanes_max_g01() {
        lane_v32.read(acc, meta.idx); acc = ((int<32>)hdr.g01.w00 > (int<32>)acc) ? hdr.g01.w00 : acc; lane_v32.write(meta.idx, acc); hdr.g01.w00 = acc;
        lane_v33.read(acc, meta.idx); acc = ((int<32>)hdr.g01.w01 > (int<32>)acc) ? hdr.g01.w01 : acc; lane_v33.write(meta.idx, acc); hdr.g01.w01 = acc;
        lane_v34.read(acc, meta.idx); acc = ((int<32>)hdr.g01.w02 > (int<32>)acc) ? hdr.g01.w02 : acc; lane_v34.write(meta.idx, acc); hdr.g01.w02 = acc;
        lane_v35.read(acc, meta.idx); acc = ((int<32>)hdr.g01.w03 > (int<32>)acc) ? hdr.g01.w03 : acc; lane_v35.write(meta.idx, acc); hdr.g01.w03 = acc;
        lane_v36.read(acc, meta.idx); acc = ((int<32>)hdr.g01.w04 > (int<32>)acc) ? hdr.g01.w04 : acc; lane_v36.write(meta.idx, acc); hdr.g01.w04 = acc;
        lane_v37.read(acc, meta.idx); acc = ((int<32>)hdr.g01.w05 > (int<32>)acc) ? hdr.g01.w05 : acc; lane_v37.write(meta.idx, acc); hdr.g01.w05 = acc;
        lane_v38.read(acc, meta.idx); acc = ((int<32>)hdr.g01.w06 > (int<32>)acc) ? hdr.g01.w06 : acc; lane_v38.write(meta.idx, acc); hdr.g01.w06 = acc;
        lane_v39.read(acc, meta.idx); acc = ((int<32>)hdr.g01.w07 > (int<32>)acc) ? hdr.g01.w07 : acc; lane_v39.write(meta.idx, acc); hdr.g01.w07 = acc;
        lane_v40.read(acc, meta.idx); acc = ((int<32>)hdr.g01.w08 > (int<32>)acc) ? hdr.g01.w08 : acc; lane_v40.write(meta.idx, acc); hdr.g01.w08 = acc;
        lane_v41.read(acc, meta.idx); acc = ((int<32>)hdr.g01.w09 > (int<32>)acc) ? hdr.g01.w09 : acc; lane_v41.write(meta.idx, acc); hdr.g01.w09 = acc;
        lane_v42.read(acc, meta.idx); acc = ((int<32>)hdr.g01.w10 > (int<32>)acc) ? hdr.g01.w10 : acc; lane_v42.write(meta.idx, acc); hdr.g01.w10 = acc;
        lane_v43.read(acc, meta.idx); acc = ((int<32>)hdr.g01.w11 > (int<32>)acc) ? hdr.g01.w11 : acc; lane_v43.write(meta.idx, acc); hdr.g01.w11 = acc;
        lane_v44.read(acc, meta.idx); acc = ((int<32>)hdr.g01.w12 > (int<32>)acc) ? hdr.g01.w12 : acc; lane_v44.write(meta.idx, acc); hdr.g01.w12 = acc;
        lane_v45.read(acc, meta.idx); acc = ((int<32>)hdr.g01.w13 > (int<32>)acc) ? hdr.g01.w13 : acc; lane_v45.write(meta.idx, acc); hdr.g01.w13 = acc;
        lane_v46.read(acc, meta.idx); acc = ((int<32>)hdr.g01.w14 > (int<32>)acc) ? hdr.g01.w14 : acc; lane_v46.write(meta.idx, acc); hdr.g01.w14 = acc;
        lane_v47.read(acc, meta.idx); acc = ((int<32>)hdr.g01.w15 > (int<32>)acc) ? hdr.g01.w15 : acc; lane_v47.write(meta.idx, acc); hdr.g01.w15 = acc;
        lane_v48.read(acc, meta.idx); acc = ((int<32>)hdr.g01.w16 > (int<32>)acc) ? hdr.g01.w16 : acc; lane_v48.write(meta.idx, acc); hdr.g01.w16 = acc;
        lane_v49.read(acc, meta.idx); acc = ((int<32>)hdr.g01.w17 > (int<32>)acc) ? hdr.g01.w17 : acc; lane_v49.write(meta.idx, acc); hdr.g01.w17 = acc;
        lane_v50.read(acc, meta.idx); acc = ((int<32>)hdr.g01.w18 > (int<32>)acc) ? hdr.g01.w18 : acc; lane_v50.write(meta.idx, acc); hdr.g01.w18 = acc;
        lane_v51.read(acc, meta.idx); acc = ((int<32>)hdr.g01.w19 > (int<32>)acc) ? hdr.g01.w19 : acc; lane_v51.write(meta.idx, acc); hdr.g01.w19 = acc;
        lane_v52.read(acc, meta.idx); acc = ((int<32>)hdr.g01.w20 > (int<32>)acc) ? hdr.g01.w20 : acc; lane_v52.write(meta.idx, acc); hdr.g01.w20 = acc;
        lane_v53.read(acc, meta.idx); acc = ((int<32>)hdr.g01.w21 > (int<32>)acc) ? hdr.g01.w21 : acc; lane_v53.write(meta.idx, acc); hdr.g01.w21 = acc;
        lane_v54.read(acc, meta.idx); acc = ((int<32>)hdr.g01.w22 > (int<32>)acc) ? hdr.g01.w22 : acc; lane_v54.write(meta.idx, acc); hdr.g01.w22 = acc;
        lane_v55.read(acc, meta.idx); acc = ((int<32>)hdr.g01.w23 > (int<32>)acc) ? hdr.g01.w23 : acc; lane_v55.write(meta.idx, acc); hdr.g01.w23 = acc;
        lane_v56.read(acc, meta.idx); acc = ((int<32>)hdr.g01.w24 > (int<32>)acc) ? hdr.g01.w24 : acc; lane_v56.write(meta.idx, acc); hdr.g01.w24 = acc;
        lane_v57.read(acc, meta.idx); acc = ((int<32>)hdr.g01.w25 > (int<32>)acc) ? hdr.g01.w25 : acc; lane_v57.write(meta.idx, acc); hdr.g01.w25 = acc;
        lane_v58.read(acc, meta.idx); acc = ((int<32>)hdr.g01.w26 > (int<32>)acc) ? hdr.g01.w26 : acc; lane_v58.write(meta.idx, acc); hdr.g01.w26 = acc;
        lane_v59.read(acc, meta.idx); acc = ((int<32>)hdr.g01.w27 > (int<32>)acc) ? hdr.g01.w27 : acc; lane_v59.write(meta.idx, acc); hdr.g01.w27 = acc;
        lane_v60.read(acc, meta.idx); acc = ((int<32>)hdr.g01.w28 > (int<32>)acc) ? hdr.g01.w28 : acc; lane_v60.write(meta.idx, acc); hdr.g01.w28 = acc;
        lane_v61.read(acc, meta.idx); acc = ((int<32>)hdr.g01.w29 > (int<32>)acc) ? hdr.g01.w29 : acc; lane_v61.write(meta.idx, acc); hdr.g01.w29 = acc;
        lane_v62.read(acc, meta.idx); acc = ((int<32>)hdr.g01.w30 > (int<32>)acc) ? hdr.g01.w30 : acc; lane_v62.write(meta.idx, acc); hdr.g01.w30 = acc;
        lane_v63.read(acc, meta.idx); acc = ((int<32>)hdr.g01.w31 > (int<32>)acc) ? hdr.g01.w31 : acc; lane_v63.write(meta.idx, acc); hdr.g01.w31 = acc;
    }

    action lanes_load_g01() {
        lane_v32.read(hdr.g01.w00, meta.idx);
        lane_v33.read(hdr.g01.w01, meta.idx);
        lane_v34.read(hdr.g01.w02, meta.idx);
        lane_v35.read(hdr.g01.w03, meta.idx);
        lane_v36.read(hdr.g01.w04, meta.idx);
        lane_v37.read(hdr.g01.w05, meta.idx);
        lane_v38.read(hdr.g01.w06, meta.idx);
        lane_v39.read(hdr.g01.w07, meta.idx);
        lane_v40.read(hdr.g01.w08, meta.idx);
        lane_v41.read(hdr.g01.w09, meta.idx);
        lane_v42.read(hdr.g01.w10, meta.idx);
        lane_v43.read(hdr.g01.w11, meta.idx);
        lane_v44.read(hdr.g01.w12, meta.idx);
        lane_v45.read(hdr.g01.w13, meta.idx);
        lane_v46.read(hdr.g01.w14, meta.idx);
        lane_v47.read(hdr.g01.w15, meta.idx);
        lane_v48.read(hdr.g01.w16, meta.idx);
        lane_v49.read(hdr.g01.w17, meta.idx);
        lane_v50.read(hdr.g01.w18, meta.idx);
        lane_v51.read(hdr.g01.w19, meta.idx);
        lane_v52.read(hdr.g01.w20, meta.idx);
        lane_v53.read(hdr.g01.w21, meta.idx);
        lane_v54.read(hdr.g01.w22, meta.idx);
        lane_v55.read(hdr.g01.w23, meta.idx);
        lane_v56.read(hdr.g01.w24, meta.idx);
        lane_v57.read(hdr.g01.w25, meta.idx);
        lane_v58.read(hdr.g01.w26, meta.idx);
        lane_v59.read(hdr.g01.w27, meta.idx);
        lane_v60.read(hdr.g01.w28, meta.idx);
        lane_v61.read(hdr.g01.w29, meta.idx);
        lane_v62.read(hdr.g01.w30, meta.idx);
        lane_v63.read(hdr.g01.w31, meta.idx);
    }

    action lanes_store_g02() {
        lane_v64.write(meta.idx, hdr.g02.w00);
        lane_v65.write(meta.idx, hdr.g02.w01);
        lane_v66.write(meta.idx, hdr.g02.w02);
        lane_v67.write(meta.idx, hdr.g02.w03);
        lane_v68.write(meta.idx, hdr.g02.w04);
        lane_v69.write(meta.idx, hdr.g02.w05);
        lane_v70.write(meta.idx, hdr.g02.w06);
        lane_v71.write(meta.idx, hdr.g02.w07);
        lane_v72.write(meta.idx, hdr.g02.w08);
        lane_v73.write(meta.idx, hdr.g02.w09);
        lane_v74.write(meta.idx, hdr.g02.w10);
        lane_v75.write(meta.idx, hdr.g02.w11);
        lane_v76.write(meta.idx, hdr.g02.w12);
        lane_v77.write(meta.idx, hdr.g02.w13);
        lane_v78.write(meta.idx, hdr.g02.w14);
        lane_v79.write(meta.idx, hdr.g02.w15);
        lane_v80.write(meta.idx, hdr.g02.w16);
        lane_v81.write(meta.idx, hdr.g02.w17);
        lane_v82.write(meta.idx, hdr.g02.w18);
        lane_v83.write(meta.idx, hdr.g02.w19);
        lane_v84.write(meta.idx, hdr.g02.w20);
        lane_v85.write(meta.idx, hdr.g02.w21);
        lane_v86.write(meta.idx, hdr.g02.w22);
        lane_v87.write(meta.idx, hdr.g02.w23);
        lane_v88.write(meta.idx, hdr.g02.w24);
        lane_v89.write(meta.idx, hdr.g02.w25);
        lane_v90.write(meta.idx, hdr.g02.w26);
        lane_v91.write(meta.idx, hdr.g02.w27);
        lane_v92.write(meta.idx, hdr.g02.w28);
        lane_v93.write(meta.idx, hdr.g02.w29);
        lane_v94.write(meta.idx, hdr.g02.w30);
        lane_v95.write(meta.idx, hdr.g02.w31);
    }

    action lanes_add_g02() {
        lane_v64.read(acc, meta.idx); acc = acc + hdr.g02.w00; lane_v64.write(meta.idx, acc); hdr.g02.w00 = acc;
        lane_v65.read(acc, meta.idx); acc = acc + hdr.g02.w01; lane_v65.write(meta.idx, acc); hdr.g02.w01 = acc;
        lane_v66.read(acc, meta.idx); acc = acc + hdr.g02.w02; lane_v66.write(meta.idx, acc); hdr.g02.w02 = acc;
        lane_v67.read(acc, meta.idx); acc = acc + hdr.g02.w03; lane_v67.write(meta.idx, acc); hdr.g02.w03 = acc;
        lane_v68.read(acc, meta.idx); acc = acc + hdr.g02.w04; lane_v68.write(meta.idx, acc); hdr.g02.w04 = acc;
        lane_v69.read(acc, meta.idx); acc = acc + hdr.g02.w05; lane_v69.write(meta.idx, acc); hdr.g02.w05 = acc;
        lane_v70.read(acc, meta.idx); acc = acc + hdr.g02.w06; lane_v70.write(meta.idx, acc); hdr.g02.w06 = acc;
        lane_v71.read(acc, meta.idx); acc = acc + hdr.g02.w07; lane_v71.write(meta.idx, acc); hdr.g02.w07 = acc;
        lane_v72.read(acc, meta.idx); acc = acc + hdr.g02.w08; lane_v72.write(meta.idx, acc); hdr.g02.w08 = acc;
        lane_v73.read(acc, meta.idx); acc = acc + hdr.g02.w09; lane_v73.write(meta.idx, acc); hdr.g02.w09 = acc;
        lane_v74.read(acc, meta.idx); acc = acc + hdr.g02.w10; lane_v74.write(meta.idx, acc); hdr.g02.w10 = acc;
        lane_v75.read(acc, meta.idx); acc = acc + hdr.g02.w11; lane_v75.write(meta.idx, acc); hdr.g02.w11 = acc;
        lane_v76.read(acc, meta.idx); acc = acc + hdr.g02.w12; lane_v76.write(meta.idx, acc); hdr.g02.w12 = acc;
        lane_v77.read(acc, meta.idx); acc = acc + hdr.g02.w13; lane_v77.write(meta.idx, acc); hdr.g02.w13 = acc;
        lane_v78.read(acc, meta.idx); acc = acc + hdr.g02.w14; lane_v78.write(meta.idx, acc); hdr.g02.w14 = acc;
        lane_v79.read(acc, meta.idx); acc = acc + hdr.g02.w15; lane_v79.write(meta.idx, acc); hdr.g02.w15 = acc;
        lane_v80.read(acc, meta.idx); acc = acc + hdr.g02.w16; lane_v80.write(meta.idx, acc); hdr.g02.w16 = acc;
        lane_v81.read(acc, meta.idx); acc = acc + hdr.g02.w17; lane_v81.write(meta.idx, acc); hdr.g02.w17 = acc;
        lane_v82.read(acc, meta.idx); acc = acc + hdr.g02.w18; lane_v82.write(meta.idx, acc); hdr.g02.w18 = acc;
        lane_v83.read(acc, meta.idx); acc = acc + hdr.g02.w19; lane_v83.write(meta.idx, acc); hdr.g02.w19 = acc;
        lane_v84.read(acc, meta.idx); acc = acc + hdr.g02.w20; lane_v84.write(meta.idx, acc); hdr.g02.w20 = acc;
        lane_v85.read(acc, meta.idx); acc = acc + hdr.g02.w21; lane_v85.write(meta.idx, acc); hdr.g02.w21 = acc;
        lane_v86.read(acc, meta.idx); acc = acc + hdr.g02.w22; lane_v86.write(meta.idx, acc); hdr.g02.w22 = acc;
        lane_v87.read(acc, meta.idx); acc = acc + hdr.g02.w23; lane_v87.write(meta.idx, acc); hdr.g02.w23 = acc;
        lane_v88.read(acc, meta.idx); acc = acc + hdr.g02.w24; lane_v88.write(meta.idx, acc); hdr.g02.w24 = acc;
        lane_v89.read(acc, meta.idx); acc = acc + hdr.g02.w25; lane_v89.write(meta.idx, acc); hdr.g02.w25 = acc;
        lane_v90.read(acc, meta.idx); acc = acc + hdr.g02.w26; lane_v90.write(meta.idx, acc); hdr.g02.w26 = acc;
        lane_v91.read(acc, meta.idx); acc = acc + hdr.g02.w27; lane_v91.write(meta.idx, acc); hdr.g02.w27 = acc;
        lane_v92.read(acc, meta.idx); acc = acc + hdr.g02.w28; lane_v92.write(meta.idx, acc); hdr.g02.w28 = acc;
        lane_v93.read(acc, meta.idx); acc = acc + hdr.g02.w29; lane_v93.write(meta.idx, acc); hdr.g02.w29 = acc;
        lane_v94.read(acc, meta.idx); acc = acc + hdr.g02.w30; lane_v94.write(meta.idx, acc); hdr.g02.w30 = acc;
        lane_v95.read(acc, meta.idx); acc = acc + hdr.g02.w31; lane_v95.write(meta.idx, acc); hdr.g02.w31 = acc;
    }

    action lanes_add16_g02() {
        lane_v64.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g02.w00 & 0xFFFF0000)) | ((acc + hdr.g02.w00) & 0xFFFF); lane_v64.write(meta.idx, acc); hdr.g02.w00 = acc;
        lane_v65.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g02.w01 & 0xFFFF0000)) | ((acc + hdr.g02.w01) & 0xFFFF); lane_v65.write(meta.idx, acc); hdr.g02.w01 = acc;
        lane_v66.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g02.w02 & 0xFFFF0000)) | ((acc + hdr.g02.w02) & 0xFFFF); lane_v66.write(meta.idx, acc); hdr.g02.w02 = acc;
        lane_v67.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g02.w03 & 0xFFFF0000)) | ((acc + hdr.g02.w03) & 0xFFFF); lane_v67.write(meta.idx, acc); hdr.g02.w03 = acc;
        lane_v68.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g02.w04 & 0xFFFF0000)) | ((acc + hdr.g02.w04) & 0xFFFF); lane_v68.write(meta.idx, acc); hdr.g02.w04 = acc;
        lane_v69.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g02.w05 & 0xFFFF0000)) | ((acc + hdr.g02.w05) & 0xFFFF); lane_v69.write(meta.idx, acc); hdr.g02.w05 = acc;
        lane_v70.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g02.w06 & 0xFFFF0000)) | ((acc + hdr.g02.w06) & 0xFFFF); lane_v70.write(meta.idx, acc); hdr.g02.w06 = acc;
        lane_v71.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g02.w07 & 0xFFFF0000)) | ((acc + hdr.g02.w07) & 0xFFFF); lane_v71.write(meta.idx, acc); hdr.g02.w07 = acc;
        lane_v72.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g02.w08 & 0xFFFF0000)) | ((acc + hdr.g02.w08) & 0xFFFF); lane_v72.write(meta.idx, acc); hdr.g02.w08 = acc;
        lane_v73.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g02.w09 & 0xFFFF0000)) | ((acc + hdr.g02.w09) & 0xFFFF); lane_v73.write(meta.idx, acc); hdr.g02.w09 = acc;
        lane_v74.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g02.w10 & 0xFFFF0000)) | ((acc + hdr.g02.w10) & 0xFFFF); lane_v74.write(meta.idx, acc); hdr.g02.w10 = acc;
        lane_v75.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g02.w11 & 0xFFFF0000)) | ((acc + hdr.g02.w11) & 0xFFFF); lane_v75.write(meta.idx, acc); hdr.g02.w11 = acc;
        lane_v76.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g02.w12 & 0xFFFF0000)) | ((acc + hdr.g02.w12) & 0xFFFF); lane_v76.write(meta.idx, acc); hdr.g02.w12 = acc;
        lane_v77.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g02.w13 & 0xFFFF0000)) | ((acc + hdr.g02.w13) & 0xFFFF); lane_v77.write(meta.idx, acc); hdr.g02.w13 = acc;
        lane_v78.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g02.w14 & 0xFFFF0000)) | ((acc + hdr.g02.w14) & 0xFFFF); lane_v78.write(meta.idx, acc); hdr.g02.w14 = acc;
        lane_v79.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g02.w15 & 0xFFFF0000)) | ((acc + hdr.g02.w15) & 0xFFFF); lane_v79.write(meta.idx, acc); hdr.g02.w15 = acc;
        lane_v80.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g02.w16 & 0xFFFF0000)) | ((acc + hdr.g02.w16) & 0xFFFF); lane_v80.write(meta.idx, acc); hdr.g02.w16 = acc;
        lane_v81.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g02.w17 & 0xFFFF0000)) | ((acc + hdr.g02.w17) & 0xFFFF); lane_v81.write(meta.idx, acc); hdr.g02.w17 = acc;
        lane_v82.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g02.w18 & 0xFFFF0000)) | ((acc + hdr.g02.w18) & 0xFFFF); lane_v82.write(meta.idx, acc); hdr.g02.w18 = acc;
        lane_v83.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g02.w19 & 0xFFFF0000)) | ((acc + hdr.g02.w19) & 0xFFFF); lane_v83.write(meta.idx, acc); hdr.g02.w19 = acc;
        lane_v84.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g02.w20 & 0xFFFF0000)) | ((acc + hdr.g02.w20) & 0xFFFF); lane_v84.write(meta.idx, acc); hdr.g02.w20 = acc;
        lane_v85.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g02.w21 & 0xFFFF0000)) | ((acc + hdr.g02.w21) & 0xFFFF); lane_v85.write(meta.idx, acc); hdr.g02.w21 = acc;
        lane_v86.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g02.w22 & 0xFFFF0000)) | ((acc + hdr.g02.w22) & 0xFFFF); lane_v86.write(meta.idx, acc); hdr.g02.w22 = acc;
        lane_v87.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g02.w23 & 0xFFFF0000)) | ((acc + hdr.g02.w23) & 0xFFFF); lane_v87.write(meta.idx, acc); hdr.g02.w23 = acc;
        lane_v88.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g02.w24 & 0xFFFF0000)) | ((acc + hdr.g02.w24) & 0xFFFF); lane_v88.write(meta.idx, acc); hdr.g02.w24 = acc;
        lane_v89.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g02.w25 & 0xFFFF0000)) | ((acc + hdr.g02.w25) & 0xFFFF); lane_v89.write(meta.idx, acc); hdr.g02.w25 = acc;
        lane_v90.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g02.w26 & 0xFFFF0000)) | ((acc + hdr.g02.w26) & 0xFFFF); lane_v90.write(meta.idx, acc); hdr.g02.w26 = acc;
        lane_v91.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g02.w27 & 0xFFFF0000)) | ((acc + hdr.g02.w27) & 0xFFFF); lane_v91.write(meta.idx, acc); hdr.g02.w27 = acc;
        lane_v92.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g02.w28 & 0xFFFF0000)) | ((acc + hdr.g02.w28) & 0xFFFF); lane_v92.write(meta.idx, acc); hdr.g02.w28 = acc;
        lane_v93.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g02.w29 & 0xFFFF0000)) | ((acc + hdr.g02.w29) & 0xFFFF); lane_v93.write(meta.idx, acc); hdr.g02.w29 = acc;
        lane_v94.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g02.w30 & 0xFFFF0000)) | ((acc + hdr.g02.w30) & 0xFFFF); lane_v94.write(meta.idx, acc); hdr.g02.w30 = acc;
        lane_v95.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g02.w31 & 0xFFFF0000)) | ((acc + hdr.g02.w31) & 0xFFFF); lane_v95.write(meta.idx, acc); hdr.g02.w31 = acc;
    }

    action lanes_max_g02() {
        lane_v64.read(acc, meta.idx); acc = ((int<32>)hdr.g02.w00 > (int<32>)acc) ? hdr.g02.w00 : acc; lane_v64.write(meta.idx, acc); hdr.g02.w00 = acc;
        lane_v65.read(acc, meta.idx); acc = ((int<32>)hdr.g02.w01 > (int<32>)acc) ? hdr.g02.w01 : acc; lane_v65.write(meta.idx, acc); hdr.g02.w01 = acc;
        lane_v66.read(acc, meta.idx); acc = ((int<32>)hdr.g02.w02 > (int<32>)acc) ? hdr.g02.w02 : acc; lane_v66.write(meta.idx, acc); hdr.g02.w02 = acc;
        lane_v67.read(acc, meta.idx); acc = ((int<32>)hdr.g02.w03 > (int<32>)acc) ? hdr.g02.w03 : acc; lane_v67.write(meta.idx, acc); hdr.g02.w03 = acc;
        lane_v68.read(acc, meta.idx); acc = ((int<32>)hdr.g02.w04 > (int<32>)acc) ? hdr.g02.w04 : acc; lane_v68.write(meta.idx, acc); hdr.g02.w04 = acc;
        lane_v69.read(acc, meta.idx); acc = ((int<32>)hdr.g02.w05 > (int<32>)acc) ? hdr.g02.w05 : acc; lane_v69.write(meta.idx, acc); hdr.g02.w05 = acc;
        lane_v70.read(acc, meta.idx); acc = ((int<32>)hdr.g02.w06 > (int<32>)acc) ? hdr.g02.w06 : acc; lane_v70.write(meta.idx, acc); hdr.g02.w06 = acc;
        lane_v71.read(acc, meta.idx); acc = ((int<32>)hdr.g02.w07 > (int<32>)acc) ? hdr.g02.w07 : acc; lane_v71.write(meta.idx, acc); hdr.g02.w07 = acc;
        lane_v72.read(acc, meta.idx); acc = ((int<32>)hdr.g02.w08 > (int<32>)acc) ? hdr.g02.w08 : acc; lane_v72.write(meta.idx, acc); hdr.g02.w08 = acc;
        lane_v73.read(acc, meta.idx); acc = ((int<32>)hdr.g02.w09 > (int<32>)acc) ? hdr.g02.w09 : acc; lane_v73.write(meta.idx, acc); hdr.g02.w09 = acc;
        lane_v74.read(acc, meta.idx); acc = ((int<32>)hdr.g02.w10 > (int<32>)acc) ? hdr.g02.w10 : acc; lane_v74.write(meta.idx, acc); hdr.g02.w10 = acc;
        lane_v75.read(acc, meta.idx); acc = ((int<32>)hdr.g02.w11 > (int<32>)acc) ? hdr.g02.w11 : acc; lane_v75.write(meta.idx, acc); hdr.g02.w11 = acc;
        lane_v76.read(acc, meta.idx); acc = ((int<32>)hdr.g02.w12 > (int<32>)acc) ? hdr.g02.w12 : acc; lane_v76.write(meta.idx, acc); hdr.g02.w12 = acc;
        lane_v77.read(acc, meta.idx); acc = ((int<32>)hdr.g02.w13 > (int<32>)acc) ? hdr.g02.w13 : acc; lane_v77.write(meta.idx, acc); hdr.g02.w13 = acc;
        lane_v78.read(acc, meta.idx); acc = ((int<32>)hdr.g02.w14 > (int<32>)acc) ? hdr.g02.w14 : acc; lane_v78.write(meta.idx, acc); hdr.g02.w14 = acc;
        lane_v79.read(acc, meta.idx); acc = ((int<32>)hdr.g02.w15 > (int<32>)acc) ? hdr.g02.w15 : acc; lane_v79.write(meta.idx, acc); hdr.g02.w15 = acc;
        lane_v80.read(acc, meta.idx); acc = ((int<32>)hdr.g02.w16 > (int<32>)acc) ? hdr.g02.w16 : acc; lane_v80.write(meta.idx, acc); hdr.g02.w16 = acc;
        lane_v81.read(acc, meta.idx); acc = ((int<32>)hdr.g02.w17 > (int<32>)acc) ? hdr.g02.w17 : acc; lane_v81.write(meta.idx, acc); hdr.g02.w17 = acc;
        lane_v82.read(acc, meta.idx); acc = ((int<32>)hdr.g02.w18 > (int<32>)acc) ? hdr.g02.w18 : acc; lane_v82.write(meta.idx, acc); hdr.g02.w18 = acc;
        lane_v83.read(acc, meta.idx); acc = ((int<32>)hdr.g02.w19 > (int<32>)acc) ? hdr.g02.w19 : acc; lane_v83.write(meta.idx, acc); hdr.g02.w19 = acc;
        lane_v84.read(acc, meta.idx); acc = ((int<32>)hdr.g02.w20 > (int<32>)acc) ? hdr.g02.w20 : acc; lane_v84.write(meta.idx, acc); hdr.g02.w20 = acc;
        lane_v85.read(acc, meta.idx); acc = ((int<32>)hdr.g02.w21 > (int<32>)acc) ? hdr.g02.w21 : acc; lane_v85.write(meta.idx, acc); hdr.g02.w21 = acc;
        lane_v86.read(acc, meta.idx); acc = ((int<32>)hdr.g02.w22 > (int<32>)acc) ? hdr.g02.w22 : acc; lane_v86.write(meta.idx, acc); hdr.g02.w22 = acc;
        lane_v87.read(acc, meta.idx); acc = ((int<32>)hdr.g02.w23 > (int<32>)acc) ? hdr.g02.w23 : acc; lane_v87.write(meta.idx, acc); hdr.g02.w23 = acc;
        lane_v88.read(acc, meta.idx); acc = ((int<32>)hdr.g02.w24 > (int<32>)acc) ? hdr.g02.w24 : acc; lane_v88.write(meta.idx, acc); hdr.g02.w24 = acc;
        lane_v89.read(acc, meta.idx); acc = ((int<32>)hdr.g02.w25 > (int<32>)acc) ? hdr.g02.w25 : acc; lane_v89.write(meta.idx, acc); hdr.g02.w25 = acc;
        lane_v90.read(acc, meta.idx); acc = ((int<32>)hdr.g02.w26 > (int<32>)acc) ? hdr.g02.w26 : acc; lane_v90.write(meta.idx, acc); hdr.g02.w26 = acc;
        lane_v91.read(acc, meta.idx); acc = ((int<32>)hdr.g02.w27 > (int<32>)acc) ? hdr.g02.w27 : acc; lane_v91.write(meta.idx, acc); hdr.g02.w27 = acc;
        lane_v92.read(acc, meta.idx); acc = ((int<32>)hdr.g02.w28 > (int<32>)acc) ? hdr.g02.w28 : acc; lane_v92.write(meta.idx, acc); hdr.g02.w28 = acc;
        lane_v93.read(acc, meta.idx); acc = ((int<32>)hdr.g02.w29 > (int<32>)acc) ? hdr.g02.w29 : acc; lane_v93.write(meta.idx, acc); hdr.g02.w29 = acc;
        lane_v94.read(acc, meta.idx); acc = ((int<32>)hdr.g02.w30 > (int<32>)acc) ? hdr.g02.w30 : acc; lane_v94.write(meta.idx, acc); hdr.g02.w30 = acc;
        lane_v95.read(acc, meta.idx); acc = ((int<32>)hdr.g02.w31 > (int<32>)acc) ? hdr.g02.w31 : acc; lane_v95.write(meta.idx, acc); hdr.g02.w31 = acc;
    }

    action lanes_load_g02() {
        lane_v64.read(hdr.g02.w00, meta.idx);
        lane_v65.read(hdr.g02.w01, meta.idx);
        lane_v66.read(hdr.g02.w02, meta.idx);
        lane_v67.read(hdr.g02.w03, meta.idx);
        lane_v68.read(hdr.g02.w04, meta.idx);
        lane_v69.read(hdr.g02.w05, meta.idx);
        lane_v70.read(hdr.g02.w06, meta.idx);
        lane_v71.read(hdr.g02.w07, meta.idx);
        lane_v72.read(hdr.g02.w08, meta.idx);
        lane_v73.read(hdr.g02.w09, meta.idx);
        lane_v74.read(hdr.g02.w10, meta.idx);
        lane_v75.read(hdr.g02.w11, meta.idx);
        lane_v76.read(hdr.g02.w12, meta.idx);
        lane_v77.read(hdr.g02.w13, meta.idx);
        lane_v78.read(hdr.g02.w14, meta.idx);
        lane_v79.read(hdr.g02.w15, meta.idx);
        lane_v80.read(hdr.g02.w16, meta.idx);
        lane_v81.read(hdr.g02.w17, meta.idx);
        lane_v82.read(hdr.g02.w18, meta.idx);
        lane_v83.read(hdr.g02.w19, meta.idx);
        lane_v84.read(hdr.g02.w20, meta.idx);
        lane_v85.read(hdr.g02.w21, meta.idx);
        lane_v86.read(hdr.g02.w22, meta.idx);
        lane_v87.read(hdr.g02.w23, meta.idx);
        lane_v88.read(hdr.g02.w24, meta.idx);
        lane_v89.read(hdr.g02.w25, meta.idx);
        lane_v90.read(hdr.g02.w26, meta.idx);
        lane_v91.read(hdr.g02.w27, meta.idx);
        lane_v92.read(hdr.g02.w28, meta.idx);
        lane_v93.read(hdr.g02.w29, meta.idx);
        lane_v94.read(hdr.g02.w30, meta.idx);
        lane_v95.read(hdr.g02.w31, meta.idx);
    }

    action lanes_store_g03() {
        lane_v96.write(meta.idx, hdr.g03.w00);
        lane_v97.write(meta.idx, hdr.g03.w01);
        lane_v98.write(meta.idx, hdr.g03.w02);
        lane_v99.write(meta.idx, hdr.g03.w03);
        lane_v100.write(meta.idx, hdr.g03.w04);
        lane_v101.write(meta.idx, hdr.g03.w05);
        lane_v102.write(meta.idx, hdr.g03.w06);
        lane_v103.write(meta.idx, hdr.g03.w07);
        lane_v104.write(meta.idx, hdr.g03.w08);
        lane_v105.write(meta.idx, hdr.g03.w09);
        lane_v106.write(meta.idx, hdr.g03.w10);
        lane_v107.write(meta.idx, hdr.g03.w11);
        lane_v108.write(meta.idx, hdr.g03.w12);
        lane_v109.write(meta.idx, hdr.g03.w13);
        lane_v110.write(meta.idx, hdr.g03.w14);
        lane_v111.write(meta.idx, hdr.g03.w15);
        lane_v112.write(meta.idx, hdr.g03.w16);
        lane_v113.write(meta.idx, hdr.g03.w17);
        lane_v114.write(meta.idx, hdr.g03.w18);
        lane_v115.write(meta.idx, hdr.g03.w19);
        lane_v116.write(meta.idx, hdr.g03.w20);
        lane_v117.write(meta.idx, hdr.g03.w21);
        lane_v118.write(meta.idx, hdr.g03.w22);
        lane_v119.write(meta.idx, hdr.g03.w23);
        lane_v120.write(meta.idx, hdr.g03.w24);
        lane_v121.write(meta.idx, hdr.g03.w25);
        lane_v122.write(meta.idx, hdr.g03.w26);
        lane_v123.write(meta.idx, hdr.g03.w27);
        lane_v124.write(meta.idx, hdr.g03.w28);
        lane_v125.write(meta.idx, hdr.g03.w29);
        lane_v126.write(meta.idx, hdr.g03.w30);
        lane_v127.write(meta.idx, hdr.g03.w31);
    }

    action lanes_add_g03() {
        lane_v96.read(acc, meta.idx); acc = acc + hdr.g03.w00; lane_v96.write(meta.idx, acc); hdr.g03.w00 = acc;
        lane_v97.read(acc, meta.idx); acc = acc + hdr.g03.w01; lane_v97.write(meta.idx, acc); hdr.g03.w01 = acc;
        lane_v98.read(acc, meta.idx); acc = acc + hdr.g03.w02; lane_v98.write(meta.idx, acc); hdr.g03.w02 = acc;
        lane_v99.read(acc, meta.idx); acc = acc + hdr.g03.w03; lane_v99.write(meta.idx, acc); hdr.g03.w03 = acc;
        lane_v100.read(acc, meta.idx); acc = acc + hdr.g03.w04; lane_v100.write(meta.idx, acc); hdr.g03.w04 = acc;
        lane_v101.read(acc, meta.idx); acc = acc + hdr.g03.w05; lane_v101.write(meta.idx, acc); hdr.g03.w05 = acc;
        lane_v102.read(acc, meta.idx); acc = acc + hdr.g03.w06; lane_v102.write(meta.idx, acc); hdr.g03.w06 = acc;
        lane_v103.read(acc, meta.idx); acc = acc + hdr.g03.w07; lane_v103.write(meta.idx, acc); hdr.g03.w07 = acc;
        lane_v104.read(acc, meta.idx); acc = acc + hdr.g03.w08; lane_v104.write(meta.idx, acc); hdr.g03.w08 = acc;
        lane_v105.read(acc, meta.idx); acc = acc + hdr.g03.w09; lane_v105.write(meta.idx, acc); hdr.g03.w09 = acc;
        lane_v106.read(acc, meta.idx); acc = acc + hdr.g03.w10; lane_v106.write(meta.idx, acc); hdr.g03.w10 = acc;
        lane_v107.read(acc, meta.idx); acc = acc + hdr.g03.w11; lane_v107.write(meta.idx, acc); hdr.g03.w11 = acc;
        lane_v108.read(acc, meta.idx); acc = acc + hdr.g03.w12; lane_v108.write(meta.idx, acc); hdr.g03.w12 = acc;
        lane_v109.read(acc, meta.idx); acc = acc + hdr.g03.w13; lane_v109.write(meta.idx, acc); hdr.g03.w13 = acc;
        lane_v110.read(acc, meta.idx); acc = acc + hdr.g03.w14; lane_v110.write(meta.idx, acc); hdr.g03.w14 = acc;
        lane_v111.read(acc, meta.idx); acc = acc + hdr.g03.w15; lane_v111.write(meta.idx, acc); hdr.g03.w15 = acc;
        lane_v112.read(acc, meta.idx); acc = acc + hdr.g03.w16; lane_v112.write(meta.idx, acc); hdr.g03.w16 = acc;
        lane_v113.read(acc, meta.idx); acc = acc + hdr.g03.w17; lane_v113.write(meta.idx, acc); hdr.g03.w17 = acc;
        lane_v114.read(acc, meta.idx); acc = acc + hdr.g03.w18; lane_v114.write(meta.idx, acc); hdr.g03.w18 = acc;
        lane_v115.read(acc, meta.idx); acc = acc + hdr.g03.w19; lane_v115.write(meta.idx, acc); hdr.g03.w19 = acc;
        lane_v116.read(acc, meta.idx); acc = acc + hdr.g03.w20; lane_v116.write(meta.idx, acc); hdr.g03.w20 = acc;
        lane_v117.read(acc, meta.idx); acc = acc + hdr.g03.w21; lane_v117.write(meta.idx, acc); hdr.g03.w21 = acc;
        lane_v118.read(acc, meta.idx); acc = acc + hdr.g03.w22; lane_v118.write(meta.idx, acc); hdr.g03.w22 = acc;
        lane_v119.read(acc, meta.idx); acc = acc + hdr.g03.w23; lane_v119.write(meta.idx, acc); hdr.g03.w23 = acc;
        lane_v120.read(acc, meta.idx); acc = acc + hdr.g03.w24; lane_v120.write(meta.idx, acc); hdr.g03.w24 = acc;
        lane_v121.read(acc, meta.idx); acc = acc + hdr.g03.w25; lane_v121.write(meta.idx, acc); hdr.g03.w25 = acc;
        lane_v122.read(acc, meta.idx); acc = acc + hdr.g03.w26; lane_v122.write(meta.idx, acc); hdr.g03.w26 = acc;
        lane_v123.read(acc, meta.idx); acc = acc + hdr.g03.w27; lane_v123.write(meta.idx, acc); hdr.g03.w27 = acc;
        lane_v124.read(acc, meta.idx); acc = acc + hdr.g03.w28; lane_v124.write(meta.idx, acc); hdr.g03.w28 = acc;
        lane_v125.read(acc, meta.idx); acc = acc + hdr.g03.w29; lane_v125.write(meta.idx, acc); hdr.g03.w29 = acc;
        lane_v126.read(acc, meta.idx); acc = acc + hdr.g03.w30; lane_v126.write(meta.idx, acc); hdr.g03.w30 = acc;
        lane_v127.read(acc, meta.idx); acc = acc + hdr.g03.w31; lane_v127.write(meta.idx, acc); hdr.g03.w31 = acc;
    }

    action lanes_add16_g03() {
        lane_v96.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g03.w00 & 0xFFFF0000)) | ((acc + hdr.g03.w00) & 0xFFFF); lane_v96.write(meta.idx, acc); hdr.g03.w00 = acc;
        lane_v97.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g03.w01 & 0xFFFF0000)) | ((acc + hdr.g03.w01) & 0xFFFF); lane_v97.write(meta.idx, acc); hdr.g03.w01 = acc;
        lane_v98.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g03.w02 & 0xFFFF0000)) | ((acc + hdr.g03.w02) & 0xFFFF); lane_v98.write(meta.idx, acc); hdr.g03.w02 = acc;
        lane_v99.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g03.w03 & 0xFFFF0000)) | ((acc + hdr.g03.w03) & 0xFFFF); lane_v99.write(meta.idx, acc); hdr.g03.w03 = acc;
        lane_v100.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g03.w04 & 0xFFFF0000)) | ((acc + hdr.g03.w04) & 0xFFFF); lane_v100.write(meta.idx, acc); hdr.g03.w04 = acc;
        lane_v101.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g03.w05 & 0xFFFF0000)) | ((acc + hdr.g03.w05) & 0xFFFF); lane_v101.write(meta.idx, acc); hdr.g03.w05 = acc;
        lane_v102.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g03.w06 & 0xFFFF0000)) | ((acc + hdr.g03.w06) & 0xFFFF); lane_v102.write(meta.idx, acc); hdr.g03.w06 = acc;
        lane_v103.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g03.w07 & 0xFFFF0000)) | ((acc + hdr.g03.w07) & 0xFFFF); lane_v103.write(meta.idx, acc); hdr.g03.w07 = acc;
        lane_v104.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g03.w08 & 0xFFFF0000)) | ((acc + hdr.g03.w08) & 0xFFFF); lane_v104.write(meta.idx, acc); hdr.g03.w08 = acc;
        lane_v105.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g03.w09 & 0xFFFF0000)) | ((acc + hdr.g03.w09) & 0xFFFF); lane_v105.write(meta.idx, acc); hdr.g03.w09 = acc;
        lane_v106.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g03.w10 & 0xFFFF0000)) | ((acc + hdr.g03.w10) & 0xFFFF); lane_v106.write(meta.idx, acc); hdr.g03.w10 = acc;
        lane_v107.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g03.w11 & 0xFFFF0000)) | ((acc + hdr.g03.w11) & 0xFFFF); lane_v107.write(meta.idx, acc); hdr.g03.w11 = acc;
        lane_v108.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g03.w12 & 0xFFFF0000)) | ((acc + hdr.g03.w12) & 0xFFFF); lane_v108.write(meta.idx, acc); hdr.g03.w12 = acc;
        lane_v109.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g03.w13 & 0xFFFF0000)) | ((acc + hdr.g03.w13) & 0xFFFF); lane_v109.write(meta.idx, acc); hdr.g03.w13 = acc;
        lane_v110.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g03.w14 & 0xFFFF0000)) | ((acc + hdr.g03.w14) & 0xFFFF); lane_v110.write(meta.idx, acc); hdr.g03.w14 = acc;
        lane_v111.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g03.w15 & 0xFFFF0000)) | ((acc + hdr.g03.w15) & 0xFFFF); lane_v111.write(meta.idx, acc); hdr.g03.w15 = acc;
        lane_v112.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g03.w16 & 0xFFFF0000)) | ((acc + hdr.g03.w16) & 0xFFFF); lane_v112.write(meta.idx, acc); hdr.g03.w16 = acc;
        lane_v113.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g03.w17 & 0xFFFF0000)) | ((acc + hdr.g03.w17) & 0xFFFF); lane_v113.write(meta.idx, acc); hdr.g03.w17 = acc;
        lane_v114.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g03.w18 & 0xFFFF0000)) | ((acc + hdr.g03.w18) & 0xFFFF); lane_v114.write(meta.idx, acc); hdr.g03.w18 = acc;
        lane_v115.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g03.w19 & 0xFFFF0000)) | ((acc + hdr.g03.w19) & 0xFFFF); lane_v115.write(meta.idx, acc); hdr.g03.w19 = acc;
        lane_v116.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g03.w20 & 0xFFFF0000)) | ((acc + hdr.g03.w20) & 0xFFFF); lane_v116.write(meta.idx, acc); hdr.g03.w20 = acc;
        lane_v117.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g03.w21 & 0xFFFF0000)) | ((acc + hdr.g03.w21) & 0xFFFF); lane_v117.write(meta.idx, acc); hdr.g03.w21 = acc;
        lane_v118.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g03.w22 & 0xFFFF0000)) | ((acc + hdr.g03.w22) & 0xFFFF); lane_v118.write(meta.idx, acc); hdr.g03.w22 = acc;
        lane_v119.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g03.w23 & 0xFFFF0000)) | ((acc + hdr.g03.w23) & 0xFFFF); lane_v119.write(meta.idx, acc); hdr.g03.w23 = acc;
        lane_v120.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g03.w24 & 0xFFFF0000)) | ((acc + hdr.g03.w24) & 0xFFFF); lane_v120.write(meta.idx, acc); hdr.g03.w24 = acc;
        lane_v121.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g03.w25 & 0xFFFF0000)) | ((acc + hdr.g03.w25) & 0xFFFF); lane_v121.write(meta.idx, acc); hdr.g03.w25 = acc;
        lane_v122.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g03.w26 & 0xFFFF0000)) | ((acc + hdr.g03.w26) & 0xFFFF); lane_v122.write(meta.idx, acc); hdr.g03.w26 = acc;
        lane_v123.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g03.w27 & 0xFFFF0000)) | ((acc + hdr.g03.w27) & 0xFFFF); lane_v123.write(meta.idx, acc); hdr.g03.w27 = acc;
        lane_v124.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g03.w28 & 0xFFFF0000)) | ((acc + hdr.g03.w28) & 0xFFFF); lane_v124.write(meta.idx, acc); hdr.g03.w28 = acc;
        lane_v125.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g03.w29 & 0xFFFF0000)) | ((acc + hdr.g03.w29) & 0xFFFF); lane_v125.write(meta.idx, acc); hdr.g03.w29 = acc;
        lane_v126.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g03.w30 & 0xFFFF0000)) | ((acc + hdr.g03.w30) & 0xFFFF); lane_v126.write(meta.idx, acc); hdr.g03.w30 = acc;
        lane_v127.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g03.w31 & 0xFFFF0000)) | ((acc + hdr.g03.w31) & 0xFFFF); lane_v127.write(meta.idx, acc); hdr.g03.w31 = acc;
    }

    action lanes_max_g03() {
        lane_v96.read(acc, meta.idx); acc = ((int<32>)hdr.g03.w00 > (int<32>)acc) ? hdr.g03.w00 : acc; lane_v96.write(meta.idx, acc); hdr.g03.w00 = acc;
        lane_v97.read(acc, meta.idx); acc = ((int<32>)hdr.g03.w01 > (int<32>)acc) ? hdr.g03.w01 : acc; lane_v97.write(meta.idx, acc); hdr.g03.w01 = acc;
        lane_v98.read(acc, meta.idx); acc = ((int<32>)hdr.g03.w02 > (int<32>)acc) ? hdr.g03.w02 : acc; lane_v98.write(meta.idx, acc); hdr.g03.w02 = acc;
        lane_v99.read(acc, meta.idx); acc = ((int<32>)hdr.g03.w03 > (int<32>)acc) ? hdr.g03.w03 : acc; lane_v99.write(meta.idx, acc); hdr.g03.w03 = acc;
        lane_v100.read(acc, meta.idx); acc = ((int<32>)hdr.g03.w04 > (int<32>)acc) ? hdr.g03.w04 : acc; lane_v100.write(meta.idx, acc); hdr.g03.w04 = acc;
        lane_v101.read(acc, meta.idx); acc = ((int<32>)hdr.g03.w05 > (int<32>)acc) ? hdr.g03.w05 : acc; lane_v101.write(meta.idx, acc); hdr.g03.w05 = acc;
        lane_v102.read(acc, meta.idx); acc = ((int<32>)hdr.g03.w06 > (int<32>)acc) ? hdr.g03.w06 : acc; lane_v102.write(meta.idx, acc); hdr.g03.w06 = acc;
        lane_v103.read(acc, meta.idx); acc = ((int<32>)hdr.g03.w07 > (int<32>)acc) ? hdr.g03.w07 : acc; lane_v103.write(meta.idx, acc); hdr.g03.w07 = acc;
        lane_v104.read(acc, meta.idx); acc = ((int<32>)hdr.g03.w08 > (int<32>)acc) ? hdr.g03.w08 : acc; lane_v104.write(meta.idx, acc); hdr.g03.w08 = acc;
        lane_v105.read(acc, meta.idx); acc = ((int<32>)hdr.g03.w09 > (int<32>)acc) ? hdr.g03.w09 : acc; lane_v105.write(meta.idx, acc); hdr.g03.w09 = acc;
        lane_v106.read(acc, meta.idx); acc = ((int<32>)hdr.g03.w10 > (int<32>)acc) ? hdr.g03.w10 : acc; lane_v106.write(meta.idx, acc); hdr.g03.w10 = acc;
        lane_v107.read(acc, meta.idx); acc = ((int<32>)hdr.g03.w11 > (int<32>)acc) ? hdr.g03.w11 : acc; lane_v107.write(meta.idx, acc); hdr.g03.w11 = acc;
        lane_v108.read(acc, meta.idx); acc = ((int<32>)hdr.g03.w12 > (int<32>)acc) ? hdr.g03.w12 : acc; lane_v108.write(meta.idx, acc); hdr.g03.w12 = acc;
        lane_v109.read(acc, meta.idx); acc = ((int<32>)hdr.g03.w13 > (int<32>)acc) ? hdr.g03.w13 : acc; lane_v109.write(meta.idx, acc); hdr.g03.w13 = acc;
        lane_v110.read(acc, meta.idx); acc = ((int<32>)hdr.g03.w14 > (int<32>)acc) ? hdr.g03.w14 : acc; lane_v110.write(meta.idx, acc); hdr.g03.w14 = acc;
        lane_v111.read(acc, meta.idx); acc = ((int<32>)hdr.g03.w15 > (int<32>)acc) ? hdr.g03.w15 : acc; lane_v111.write(meta.idx, acc); hdr.g03.w15 = acc;
        lane_v112.read(acc, meta.idx); acc = ((int<32>)hdr.g03.w16 > (int<32>)acc) ? hdr.g03.w16 : acc; lane_v112.write(meta.idx, acc); hdr.g03.w16 = acc;
        lane_v113.read(acc, meta.idx); acc = ((int<32>)hdr.g03.w17 > (int<32>)acc) ? hdr.g03.w17 : acc; lane_v113.write(meta.idx, acc); hdr.g03.w17 = acc;
        lane_v114.read(acc, meta.idx); acc = ((int<32>)hdr.g03.w18 > (int<32>)acc) ? hdr.g03.w18 : acc; lane_v114.write(meta.idx, acc); hdr.g03.w18 = acc;
        lane_v115.read(acc, meta.idx); acc = ((int<32>)hdr.g03.w19 > (int<32>)acc) ? hdr.g03.w19 : acc; lane_v115.write(meta.idx, acc); hdr.g03.w19 = acc;
        lane_v116.read(acc, meta.idx); acc = ((int<32>)hdr.g03.w20 > (int<32>)acc) ? hdr.g03.w20 : acc; lane_v116.write(meta.idx, acc); hdr.g03.w20 = acc;
        lane_v117.read(acc, meta.idx); acc = ((int<32>)hdr.g03.w21 > (int<32>)acc) ? hdr.g03.w21 : acc; lane_v117.write(meta.idx, acc); hdr.g03.w21 = acc;
        lane_v118.read(acc, meta.idx); acc = ((int<32>)hdr.g03.w22 > (int<32>)acc) ? hdr.g03.w22 : acc; lane_v118.write(meta.idx, acc); hdr.g03.w22 = acc;
        lane_v119.read(acc, meta.idx); acc = ((int<32>)hdr.g03.w23 > (int<32>)acc) ? hdr.g03.w23 : acc; lane_v119.write(meta.idx, acc); hdr.g03.w23 = acc;
        lane_v120.read(acc, meta.idx); acc = ((int<32>)hdr.g03.w24 > (int<32>)acc) ? hdr.g03.w24 : acc; lane_v120.write(meta.idx, acc); hdr.g03.w24 = acc;
        lane_v121.read(acc, meta.idx); acc = ((int<32>)hdr.g03.w25 > (int<32>)acc) ? hdr.g03.w25 : acc; lane_v121.write(meta.idx, acc); hdr.g03.w25 = acc;
        lane_v122.read(acc, meta.idx); acc = ((int<32>)hdr.g03.w26 > (int<32>)acc) ? hdr.g03.w26 : acc; lane_v122.write(meta.idx, acc); hdr.g03.w26 = acc;
        lane_v123.read(acc, meta.idx); acc = ((int<32>)hdr.g03.w27 > (int<32>)acc) ? hdr.g03.w27 : acc; lane_v123.write(meta.idx, acc); hdr.g03.w27 = acc;
        lane_v124.read(acc, meta.idx); acc = ((int<32>)hdr.g03.w28 > (int<32>)acc) ? hdr.g03.w28 : acc; lane_v124.write(meta.idx, acc); hdr.g03.w28 = acc;
        lane_v125.read(acc, meta.idx); acc = ((int<32>)hdr.g03.w29 > (int<32>)acc) ? hdr.g03.w29 : acc; lane_v125.write(meta.idx, acc); hdr.g03.w29 = acc;
        lane_v126.read(acc, meta.idx); acc = ((int<32>)hdr.g03.w30 > (int<32>)acc) ? hdr.g03.w30 : acc; lane_v126.write(meta.idx, acc); hdr.g03.w30 = acc;
        lane_v127.read(acc, meta.idx); acc = ((int<32>)hdr.g03.w31 > (int<32>)acc) ? hdr.g03.w31 : acc; lane_v127.write(meta.idx, acc); hdr.g03.w31 = acc;
    }

    action lanes_load_g03() {
        lane_v96.read(hdr.g03.w00, meta.idx);
        lane_v97.read(hdr.g03.w01, meta.idx);
        lane_v98.read(hdr.g03.w02, meta.idx);
        lane_v99.read(hdr.g03.w03, meta.idx);
        lane_v100.read(hdr.g03.w04, meta.idx);
        lane_v101.read(hdr.g03.w05, meta.idx);
        lane_v102.read(hdr.g03.w06, meta.idx);
        lane_v103.read(hdr.g03.w07, meta.idx);
        lane_v104.read(hdr.g03.w08, meta.idx);
        lane_v105.read(hdr.g03.w09, meta.idx);
        lane_v106.read(hdr.g03.w10, meta.idx);
        lane_v107.read(hdr.g03.w11, meta.idx);
        lane_v108.read(hdr.g03.w12, meta.idx);
        lane_v109.read(hdr.g03.w13, meta.idx);
        lane_v110.read(hdr.g03.w14, meta.idx);
        lane_v111.read(hdr.g03.w15, meta.idx);
        lane_v112.read(hdr.g03.w16, meta.idx);
        lane_v113.read(hdr.g03.w17, meta.idx);
        lane_v114.read(hdr.g03.w18, meta.idx);
        lane_v115.read(hdr.g03.w19, meta.idx);
        lane_v116.read(hdr.g03.w20, meta.idx);
        lane_v117.read(hdr.g03.w21, meta.idx);
        lane_v118.read(hdr.g03.w22, meta.idx);
        lane_v119.read(hdr.g03.w23, meta.idx);
        lane_v120.read(hdr.g03.w24, meta.idx);
        lane_v121.read(hdr.g03.w25, meta.idx);
        lane_v122.read(hdr.g03.w26, meta.idx);
        lane_v123.read(hdr.g03.w27, meta.idx);
        lane_v124.read(hdr.g03.w28, meta.idx);
        lane_v125.read(hdr.g03.w29, meta.idx);
        lane_v126.read(hdr.g03.w30, meta.idx);
        lane_v127.read(hdr.g03.w31, meta.idx);
    }

    action lanes_store_g04() {
        lane_v128.write(meta.idx, hdr.g04.w00);
        lane_v129.write(meta.idx, hdr.g04.w01);
        lane_v130.write(meta.idx, hdr.g04.w02);
        lane_v131.write(meta.idx, hdr.g04.w03);
        lane_v132.write(meta.idx, hdr.g04.w04);
        lane_v133.write(meta.idx, hdr.g04.w05);
        lane_v134.write(meta.idx, hdr.g04.w06);
        lane_v135.write(meta.idx, hdr.g04.w07);
        lane_v136.write(meta.idx, hdr.g04.w08);
        lane_v137.write(meta.idx, hdr.g04.w09);
        lane_v138.write(meta.idx, hdr.g04.w10);
        lane_v139.write(meta.idx, hdr.g04.w11);
        lane_v140.write(meta.idx, hdr.g04.w12);
        lane_v141.write(meta.idx, hdr.g04.w13);
        lane_v142.write(meta.idx, hdr.g04.w14);
        lane_v143.write(meta.idx, hdr.g04.w15);
        lane_v144.write(meta.idx, hdr.g04.w16);
        lane_v145.write(meta.idx, hdr.g04.w17);
        lane_v146.write(meta.idx, hdr.g04.w18);
        lane_v147.write(meta.idx, hdr.g04.w19);
        lane_v148.write(meta.idx, hdr.g04.w20);
        lane_v149.write(meta.idx, hdr.g04.w21);
        lane_v150.write(meta.idx, hdr.g04.w22);
        lane_v151.write(meta.idx, hdr.g04.w23);
        lane_v152.write(meta.idx, hdr.g04.w24);
        lane_v153.write(meta.idx, hdr.g04.w25);
        lane_v154.write(meta.idx, hdr.g04.w26);
        lane_v155.write(meta.idx, hdr.g04.w27);
        lane_v156.write(meta.idx, hdr.g04.w28);
        lane_v157.write(meta.idx, hdr.g04.w29);
        lane_v158.write(meta.idx, hdr.g04.w30);
        lane_v159.write(meta.idx, hdr.g04.w31);
    }

    action lanes_add_g04() {
        lane_v128.read(acc, meta.idx); acc = acc + hdr.g04.w00; lane_v128.write(meta.idx, acc); hdr.g04.w00 = acc;
        lane_v129.read(acc, meta.idx); acc = acc + hdr.g04.w01; lane_v129.write(meta.idx, acc); hdr.g04.w01 = acc;
        lane_v130.read(acc, meta.idx); acc = acc + hdr.g04.w02; lane_v130.write(meta.idx, acc); hdr.g04.w02 = acc;
        lane_v131.read(acc, meta.idx); acc = acc + hdr.g04.w03; lane_v131.write(meta.idx, acc); hdr.g04.w03 = acc;
        lane_v132.read(acc, meta.idx); acc = acc + hdr.g04.w04; lane_v132.write(meta.idx, acc); hdr.g04.w04 = acc;
        lane_v133.read(acc, meta.idx); acc = acc + hdr.g04.w05; lane_v133.write(meta.idx, acc); hdr.g04.w05 = acc;
        lane_v134.read(acc, meta.idx); acc = acc + hdr.g04.w06; lane_v134.write(meta.idx, acc); hdr.g04.w06 = acc;
        lane_v135.read(acc, meta.idx); acc = acc + hdr.g04.w07; lane_v135.write(meta.idx, acc); hdr.g04.w07 = acc;
        lane_v136.read(acc, meta.idx); acc = acc + hdr.g04.w08; lane_v136.write(meta.idx, acc); hdr.g04.w08 = acc;
        lane_v137.read(acc, meta.idx); acc = acc + hdr.g04.w09; lane_v137.write(meta.idx, acc); hdr.g04.w09 = acc;
        lane_v138.read(acc, meta.idx); acc = acc + hdr.g04.w10; lane_v138.write(meta.idx, acc); hdr.g04.w10 = acc;
        lane_v139.read(acc, meta.idx); acc = acc + hdr.g04.w11; lane_v139.write(meta.idx, acc); hdr.g04.w11 = acc;
        lane_v140.read(acc, meta.idx); acc = acc + hdr.g04.w12; lane_v140.write(meta.idx, acc); hdr.g04.w12 = acc;
        lane_v141.read(acc, meta.idx); acc = acc + hdr.g04.w13; lane_v141.write(meta.idx, acc); hdr.g04.w13 = acc;
        lane_v142.read(acc, meta.idx); acc = acc + hdr.g04.w14; lane_v142.write(meta.idx, acc); hdr.g04.w14 = acc;
        lane_v143.read(acc, meta.idx); acc = acc + hdr.g04.w15; lane_v143.write(meta.idx, acc); hdr.g04.w15 = acc;
        lane_v144.read(acc, meta.idx); acc = acc + hdr.g04.w16; lane_v144.write(meta.idx, acc); hdr.g04.w16 = acc;
        lane_v145.read(acc, meta.idx); acc = acc + hdr.g04.w17; lane_v145.write(meta.idx, acc); hdr.g04.w17 = acc;
        lane_v146.read(acc, meta.idx); acc = acc + hdr.g04.w18; lane_v146.write(meta.idx, acc); hdr.g04.w18 = acc;
        lane_v147.read(acc, meta.idx); acc = acc + hdr.g04.w19; lane_v147.write(meta.idx, acc); hdr.g04.w19 = acc;
        lane_v148.read(acc, meta.idx); acc = acc + hdr.g04.w20; lane_v148.write(meta.idx, acc); hdr.g04.w20 = acc;
        lane_v149.read(acc, meta.idx); acc = acc + hdr.g04.w21; lane_v149.write(meta.idx, acc); hdr.g04.w21 = acc;
        lane_v150.read(acc, meta.idx); acc = acc + hdr.g04.w22; lane_v150.write(meta.idx, acc); hdr.g04.w22 = acc;
        lane_v151.read(acc, meta.idx); acc = acc + hdr.g04.w23; lane_v151.write(meta.idx, acc); hdr.g04.w23 = acc;
        lane_v152.read(acc, meta.idx); acc = acc + hdr.g04.w24; lane_v152.write(meta.idx, acc); hdr.g04.w24 = acc;
        lane_v153.read(acc, meta.idx); acc = acc + hdr.g04.w25; lane_v153.write(meta.idx, acc); hdr.g04.w25 = acc;
        lane_v154.read(acc, meta.idx); acc = acc + hdr.g04.w26; lane_v154.write(meta.idx, acc); hdr.g04.w26 = acc;
        lane_v155.read(acc, meta.idx); acc = acc + hdr.g04.w27; lane_v155.write(meta.idx, acc); hdr.g04.w27 = acc;
        lane_v156.read(acc, meta.idx); acc = acc + hdr.g04.w28; lane_v156.write(meta.idx, acc); hdr.g04.w28 = acc;
        lane_v157.read(acc, meta.idx); acc = acc + hdr.g04.w29; lane_v157.write(meta.idx, acc); hdr.g04.w29 = acc;
        lane_v158.read(acc, meta.idx); acc = acc + hdr.g04.w30; lane_v158.write(meta.idx, acc); hdr.g04.w30 = acc;
        lane_v159.read(acc, meta.idx); acc = acc + hdr.g04.w31; lane_v159.write(meta.idx, acc); hdr.g04.w31 = acc;
    }

    action lanes_add16_g04() {
        lane_v128.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g04.w00 & 0xFFFF0000)) | ((acc + hdr.g04.w00) & 0xFFFF); lane_v128.write(meta.idx, acc); hdr.g04.w00 = acc;
        lane_v129.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g04.w01 & 0xFFFF0000)) | ((acc + hdr.g04.w01) & 0xFFFF); lane_v129.write(meta.idx, acc); hdr.g04.w01 = acc;
        lane_v130.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g04.w02 & 0xFFFF0000)) | ((acc + hdr.g04.w02) & 0xFFFF); lane_v130.write(meta.idx, acc); hdr.g04.w02 = acc;
        lane_v131.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g04.w03 & 0xFFFF0000)) | ((acc + hdr.g04.w03) & 0xFFFF); lane_v131.write(meta.idx, acc); hdr.g04.w03 = acc;
        lane_v132.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g04.w04 & 0xFFFF0000)) | ((acc + hdr.g04.w04) & 0xFFFF); lane_v132.write(meta.idx, acc); hdr.g04.w04 = acc;
        lane_v133.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g04.w05 & 0xFFFF0000)) | ((acc + hdr.g04.w05) & 0xFFFF); lane_v133.write(meta.idx, acc); hdr.g04.w05 = acc;
        lane_v134.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g04.w06 & 0xFFFF0000)) | ((acc + hdr.g04.w06) & 0xFFFF); lane_v134.write(meta.idx, acc); hdr.g04.w06 = acc;
        lane_v135.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g04.w07 & 0xFFFF0000)) | ((acc + hdr.g04.w07) & 0xFFFF); lane_v135.write(meta.idx, acc); hdr.g04.w07 = acc;
        lane_v136.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g04.w08 & 0xFFFF0000)) | ((acc + hdr.g04.w08) & 0xFFFF); lane_v136.write(meta.idx, acc); hdr.g04.w08 = acc;
        lane_v137.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g04.w09 & 0xFFFF0000)) | ((acc + hdr.g04.w09) & 0xFFFF); lane_v137.write(meta.idx, acc); hdr.g04.w09 = acc;
        lane_v138.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g04.w10 & 0xFFFF0000)) | ((acc + hdr.g04.w10) & 0xFFFF); lane_v138.write(meta.idx, acc); hdr.g04.w10 = acc;
        lane_v139.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g04.w11 & 0xFFFF0000)) | ((acc + hdr.g04.w11) & 0xFFFF); lane_v139.write(meta.idx, acc); hdr.g04.w11 = acc;
        lane_v140.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g04.w12 & 0xFFFF0000)) | ((acc + hdr.g04.w12) & 0xFFFF); lane_v140.write(meta.idx, acc); hdr.g04.w12 = acc;
        lane_v141.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g04.w13 & 0xFFFF0000)) | ((acc + hdr.g04.w13) & 0xFFFF); lane_v141.write(meta.idx, acc); hdr.g04.w13 = acc;
        lane_v142.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g04.w14 & 0xFFFF0000)) | ((acc + hdr.g04.w14) & 0xFFFF); lane_v142.write(meta.idx, acc); hdr.g04.w14 = acc;
        lane_v143.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g04.w15 & 0xFFFF0000)) | ((acc + hdr.g04.w15) & 0xFFFF); lane_v143.write(meta.idx, acc); hdr.g04.w15 = acc;
        lane_v144.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g04.w16 & 0xFFFF0000)) | ((acc + hdr.g04.w16) & 0xFFFF); lane_v144.write(meta.idx, acc); hdr.g04.w16 = acc;
        lane_v145.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g04.w17 & 0xFFFF0000)) | ((acc + hdr.g04.w17) & 0xFFFF); lane_v145.write(meta.idx, acc); hdr.g04.w17 = acc;
        lane_v146.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g04.w18 & 0xFFFF0000)) | ((acc + hdr.g04.w18) & 0xFFFF); lane_v146.write(meta.idx, acc); hdr.g04.w18 = acc;
        lane_v147.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g04.w19 & 0xFFFF0000)) | ((acc + hdr.g04.w19) & 0xFFFF); lane_v147.write(meta.idx, acc); hdr.g04.w19 = acc;
        lane_v148.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g04.w20 & 0xFFFF0000)) | ((acc + hdr.g04.w20) & 0xFFFF); lane_v148.write(meta.idx, acc); hdr.g04.w20 = acc;
        lane_v149.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g04.w21 & 0xFFFF0000)) | ((acc + hdr.g04.w21) & 0xFFFF); lane_v149.write(meta.idx, acc); hdr.g04.w21 = acc;
        lane_v150.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g04.w22 & 0xFFFF0000)) | ((acc + hdr.g04.w22) & 0xFFFF); lane_v150.write(meta.idx, acc); hdr.g04.w22 = acc;
        lane_v151.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g04.w23 & 0xFFFF0000)) | ((acc + hdr.g04.w23) & 0xFFFF); lane_v151.write(meta.idx, acc); hdr.g04.w23 = acc;
        lane_v152.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g04.w24 & 0xFFFF0000)) | ((acc + hdr.g04.w24) & 0xFFFF); lane_v152.write(meta.idx, acc); hdr.g04.w24 = acc;
        lane_v153.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g04.w25 & 0xFFFF0000)) | ((acc + hdr.g04.w25) & 0xFFFF); lane_v153.write(meta.idx, acc); hdr.g04.w25 = acc;
        lane_v154.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g04.w26 & 0xFFFF0000)) | ((acc + hdr.g04.w26) & 0xFFFF); lane_v154.write(meta.idx, acc); hdr.g04.w26 = acc;
        lane_v155.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g04.w27 & 0xFFFF0000)) | ((acc + hdr.g04.w27) & 0xFFFF); lane_v155.write(meta.idx, acc); hdr.g04.w27 = acc;
        lane_v156.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g04.w28 & 0xFFFF0000)) | ((acc + hdr.g04.w28) & 0xFFFF); lane_v156.write(meta.idx, acc); hdr.g04.w28 = acc;
        lane_v157.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g04.w29 & 0xFFFF0000)) | ((acc + hdr.g04.w29) & 0xFFFF); lane_v157.write(meta.idx, acc); hdr.g04.w29 = acc;
        lane_v158.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g04.w30 & 0xFFFF0000)) | ((acc + hdr.g04.w30) & 0xFFFF); lane_v158.write(meta.idx, acc); hdr.g04.w30 = acc;
        lane_v159.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g04.w31 & 0xFFFF0000)) | ((acc + hdr.g04.w31) & 0xFFFF); lane_v159.write(meta.idx, acc); hdr.g04.w31 = acc;
    }

    action lanes_max_g04() {
        lane_v128.read(acc, meta.idx); acc = ((int<32>)hdr.g04.w00 > (int<32>)acc) ? hdr.g04.w00 : acc; lane_v128.write(meta.idx, acc); hdr.g04.w00 = acc;
        lane_v129.read(acc, meta.idx); acc = ((int<32>)hdr.g04.w01 > (int<32>)acc) ? hdr.g04.w01 : acc; lane_v129.write(meta.idx, acc); hdr.g04.w01 = acc;
        lane_v130.read(acc, meta.idx); acc = ((int<32>)hdr.g04.w02 > (int<32>)acc) ? hdr.g04.w02 : acc; lane_v130.write(meta.idx, acc); hdr.g04.w02 = acc;
        lane_v131.read(acc, meta.idx); acc = ((int<32>)hdr.g04.w03 > (int<32>)acc) ? hdr.g04.w03 : acc; lane_v131.write(meta.idx, acc); hdr.g04.w03 = acc;
        lane_v132.read(acc, meta.idx); acc = ((int<32>)hdr.g04.w04 > (int<32>)acc) ? hdr.g04.w04 : acc; lane_v132.write(meta.idx, acc); hdr.g04.w04 = acc;
        lane_v133.read(acc, meta.idx); acc = ((int<32>)hdr.g04.w05 > (int<32>)acc) ? hdr.g04.w05 : acc; lane_v133.write(meta.idx, acc); hdr.g04.w05 = acc;
        lane_v134.read(acc, meta.idx); acc = ((int<32>)hdr.g04.w06 > (int<32>)acc) ? hdr.g04.w06 : acc; lane_v134.write(meta.idx, acc); hdr.g04.w06 = acc;
        lane_v135.read(acc, meta.idx); acc = ((int<32>)hdr.g04.w07 > (int<32>)acc) ? hdr.g04.w07 : acc; lane_v135.write(meta.idx, acc); hdr.g04.w07 = acc;
        lane_v136.read(acc, meta.idx); acc = ((int<32>)hdr.g04.w08 > (int<32>)acc) ? hdr.g04.w08 : acc; lane_v136.write(meta.idx, acc); hdr.g04.w08 = acc;
        lane_v137.read(acc, meta.idx); acc = ((int<32>)hdr.g04.w09 > (int<32>)acc) ? hdr.g04.w09 : acc; lane_v137.write(meta.idx, acc); hdr.g04.w09 = acc;
        lane_v138.read(acc, meta.idx); acc = ((int<32>)hdr.g04.w10 > (int<32>)acc) ? hdr.g04.w10 : acc; lane_v138.write(meta.idx, acc); hdr.g04.w10 = acc;
        lane_v139.read(acc, meta.idx); acc = ((int<32>)hdr.g04.w11 > (int<32>)acc) ? hdr.g04.w11 : acc; lane_v139.write(meta.idx, acc); hdr.g04.w11 = acc;
        lane_v140.read(acc, meta.idx); acc = ((int<32>)hdr.g04.w12 > (int<32>)acc) ? hdr.g04.w12 : acc; lane_v140.write(meta.idx, acc); hdr.g04.w12 = acc;
        lane_v141.read(acc, meta.idx); acc = ((int<32>)hdr.g04.w13 > (int<32>)acc) ? hdr.g04.w13 : acc; lane_v141.write(meta.idx, acc); hdr.g04.w13 = acc;
        lane_v142.read(acc, meta.idx); acc = ((int<32>)hdr.g04.w14 > (int<32>)acc) ? hdr.g04.w14 : acc; lane_v142.write(meta.idx, acc); hdr.g04.w14 = acc;
        lane_v143.read(acc, meta.idx); acc = ((int<32>)hdr.g04.w15 > (int<32>)acc) ? hdr.g04.w15 : acc; lane_v143.write(meta.idx, acc); hdr.g04.w15 = acc;
        lane_v144.read(acc, meta.idx); acc = ((int<32>)hdr.g04.w16 > (int<32>)acc) ? hdr.g04.w16 : acc; lane_v144.write(meta.idx, acc); hdr.g04.w16 = acc;
        lane_v145.read(acc, meta.idx); acc = ((int<32>)hdr.g04.w17 > (int<32>)acc) ? hdr.g04.w17 : acc; lane_v145.write(meta.idx, acc); hdr.g04.w17 = acc;
        lane_v146.read(acc, meta.idx); acc = ((int<32>)hdr.g04.w18 > (int<32>)acc) ? hdr.g04.w18 : acc; lane_v146.write(meta.idx, acc); hdr.g04.w18 = acc;
        lane_v147.read(acc, meta.idx); acc = ((int<32>)hdr.g04.w19 > (int<32>)acc) ? hdr.g04.w19 : acc; lane_v147.write(meta.idx, acc); hdr.g04.w19 = acc;
        lane_v148.read(acc, meta.idx); acc = ((int<32>)hdr.g04.w20 > (int<32>)acc) ? hdr.g04.w20 : acc; lane_v148.write(meta.idx, acc); hdr.g04.w20 = acc;
        lane_v149.read(acc, meta.idx); acc = ((int<32>)hdr.g04.w21 > (int<32>)acc) ? hdr.g04.w21 : acc; lane_v149.write(meta.idx, acc); hdr.g04.w21 = acc;
        lane_v150.read(acc, meta.idx); acc = ((int<32>)hdr.g04.w22 > (int<32>)acc) ? hdr.g04.w22 : acc; lane_v150.write(meta.idx, acc); hdr.g04.w22 = acc;
        lane_v151.read(acc, meta.idx); acc = ((int<32>)hdr.g04.w23 > (int<32>)acc) ? hdr.g04.w23 : acc; lane_v151.write(meta.idx, acc); hdr.g04.w23 = acc;
        lane_v152.read(acc, meta.idx); acc = ((int<32>)hdr.g04.w24 > (int<32>)acc) ? hdr.g04.w24 : acc; lane_v152.write(meta.idx, acc); hdr.g04.w24 = acc;
        lane_v153.read(acc, meta.idx); acc = ((int<32>)hdr.g04.w25 > (int<32>)acc) ? hdr.g04.w25 : acc; lane_v153.write(meta.idx, acc); hdr.g04.w25 = acc;
        lane_v154.read(acc, meta.idx); acc = ((int<32>)hdr.g04.w26 > (int<32>)acc) ? hdr.g04.w26 : acc; lane_v154.write(meta.idx, acc); hdr.g04.w26 = acc;
        lane_v155.read(acc, meta.idx); acc = ((int<32>)hdr.g04.w27 > (int<32>)acc) ? hdr.g04.w27 : acc; lane_v155.write(meta.idx, acc); hdr.g04.w27 = acc;
        lane_v156.read(acc, meta.idx); acc = ((int<32>)hdr.g04.w28 > (int<32>)acc) ? hdr.g04.w28 : acc; lane_v156.write(meta.idx, acc); hdr.g04.w28 = acc;
        lane_v157.read(acc, meta.idx); acc = ((int<32>)hdr.g04.w29 > (int<32>)acc) ? hdr.g04.w29 : acc; lane_v157.write(meta.idx, acc); hdr.g04.w29 = acc;
        lane_v158.read(acc, meta.idx); acc = ((int<32>)hdr.g04.w30 > (int<32>)acc) ? hdr.g04.w30 : acc; lane_v158.write(meta.idx, acc); hdr.g04.w30 = acc;
        lane_v159.read(acc, meta.idx); acc = ((int<32>)hdr.g04.w31 > (int<32>)acc) ? hdr.g04.w31 : acc; lane_v159.write(meta.idx, acc); hdr.g04.w31 = acc;
    }

    action lanes_load_g04() {
        lane_v128.read(hdr.g04.w00, meta.idx);
        lane_v129.read(hdr.g04.w01, meta.idx);
        lane_v130.read(hdr.g04.w02, meta.idx);
        lane_v131.read(hdr.g04.w03, meta.idx);
        lane_v132.read(hdr.g04.w04, meta.idx);
        lane_v133.read(hdr.g04.w05, meta.idx);
        lane_v134.read(hdr.g04.w06, meta.idx);
        lane_v135.read(hdr.g04.w07, meta.idx);
        lane_v136.read(hdr.g04.w08, meta.idx);
        lane_v137.read(hdr.g04.w09, meta.idx);
        lane_v138.read(hdr.g04.w10, meta.idx);
        lane_v139.read(hdr.g04.w11, meta.idx);
        lane_v140.read(hdr.g04.w12, meta.idx);
        lane_v141.read(hdr.g04.w13, meta.idx);
        lane_v142.read(hdr.g04.w14, meta.idx);
        lane_v143.read(hdr.g04.w15, meta.idx);
        lane_v144.read(hdr.g04.w16, meta.idx);
        lane_v145.read(hdr.g04.w17, meta.idx);
        lane_v146.read(hdr.g04.w18, meta.idx);
        lane_v147.read(hdr.g04.w19, meta.idx);
        lane_v148.read(hdr.g04.w20, meta.idx);
        lane_v149.read(hdr.g04.w21, meta.idx);
        lane_v150.read(hdr.g04.w22, meta.idx);
        lane_v151.read(hdr.g04.w23, meta.idx);
        lane_v152.read(hdr.g04.w24, meta.idx);
        lane_v153.read(hdr.g04.w25, meta.idx);
        lane_v154.read(hdr.g04.w26, meta.idx);
        lane_v155.read(hdr.g04.w27, meta.idx);
        lane_v156.read(hdr.g04.w28, meta.idx);
        lane_v157.read(hdr.g04.w29, meta.idx);
        lane_v158.read(hdr.g04.w30, meta.idx);
        lane_v159.read(hdr.g04.w31, meta.idx);
    }

    action lanes_store_g05() {
        lane_v160.write(meta.idx, hdr.g05.w00);
        lane_v161.write(meta.idx, hdr.g05.w01);
        lane_v162.write(meta.idx, hdr.g05.w02);
        lane_v163.write(meta.idx, hdr.g05.w03);
        lane_v164.write(meta.idx, hdr.g05.w04);
        lane_v165.write(meta.idx, hdr.g05.w05);
        lane_v166.write(meta.idx, hdr.g05.w06);
        lane_v167.write(meta.idx, hdr.g05.w07);
        lane_v168.write(meta.idx, hdr.g05.w08);
        lane_v169.write(meta.idx, hdr.g05.w09);
        lane_v170.write(meta.idx, hdr.g05.w10);
        lane_v171.write(meta.idx, hdr.g05.w11);
        lane_v172.write(meta.idx, hdr.g05.w12);
        lane_v173.write(meta.idx, hdr.g05.w13);
        lane_v174.write(meta.idx, hdr.g05.w14);
        lane_v175.write(meta.idx, hdr.g05.w15);
        lane_v176.write(meta.idx, hdr.g05.w16);
        lane_v177.write(meta.idx, hdr.g05.w17);
        lane_v178.write(meta.idx, hdr.g05.w18);
        lane_v179.write(meta.idx, hdr.g05.w19);
        lane_v180.write(meta.idx, hdr.g05.w20);
        lane_v181.write(meta.idx, hdr.g05.w21);
        lane_v182.write(meta.idx, hdr.g05.w22);
        lane_v183.write(meta.idx, hdr.g05.w23);
        lane_v184.write(meta.idx, hdr.g05.w24);
        lane_v185.write(meta.idx, hdr.g05.w25);
        lane_v186.write(meta.idx, hdr.g05.w26);
        lane_v187.write(meta.idx, hdr.g05.w27);
        lane_v188.write(meta.idx, hdr.g05.w28);
        lane_v189.write(meta.idx, hdr.g05.w29);
        lane_v190.write(meta.idx, hdr.g05.w30);
        lane_v191.write(meta.idx, hdr.g05.w31);
    }

    action lanes_add_g05() {
        lane_v160.read(acc, meta.idx); acc = acc + hdr.g05.w00; lane_v160.write(meta.idx, acc); hdr.g05.w00 = acc;
        lane_v161.read(acc, meta.idx); acc = acc + hdr.g05.w01; lane_v161.write(meta.idx, acc); hdr.g05.w01 = acc;
        lane_v162.read(acc, meta.idx); acc = acc + hdr.g05.w02; lane_v162.write(meta.idx, acc); hdr.g05.w02 = acc;
        lane_v163.read(acc, meta.idx); acc = acc + hdr.g05.w03; lane_v163.write(meta.idx, acc); hdr.g05.w03 = acc;
        lane_v164.read(acc, meta.idx); acc = acc + hdr.g05.w04; lane_v164.write(meta.idx, acc); hdr.g05.w04 = acc;
        lane_v165.read(acc, meta.idx); acc = acc + hdr.g05.w05; lane_v165.write(meta.idx, acc); hdr.g05.w05 = acc;
        lane_v166.read(acc, meta.idx); acc = acc + hdr.g05.w06; lane_v166.write(meta.idx, acc); hdr.g05.w06 = acc;
        lane_v167.read(acc, meta.idx); acc = acc + hdr.g05.w07; lane_v167.write(meta.idx, acc); hdr.g05.w07 = acc;
        lane_v168.read(acc, meta.idx); acc = acc + hdr.g05.w08; lane_v168.write(meta.idx, acc); hdr.g05.w08 = acc;
        lane_v169.read(acc, meta.idx); acc = acc + hdr.g05.w09; lane_v169.write(meta.idx, acc); hdr.g05.w09 = acc;
        lane_v170.read(acc, meta.idx); acc = acc + hdr.g05.w10; lane_v170.write(meta.idx, acc); hdr.g05.w10 = acc;
        lane_v171.read(acc, meta.idx); acc = acc + hdr.g05.w11; lane_v171.write(meta.idx, acc); hdr.g05.w11 = acc;
        lane_v172.read(acc, meta.idx); acc = acc + hdr.g05.w12; lane_v172.write(meta.idx, acc); hdr.g05.w12 = acc;
        lane_v173.read(acc, meta.idx); acc = acc + hdr.g05.w13; lane_v173.write(meta.idx, acc); hdr.g05.w13 = acc;
        lane_v174.read(acc, meta.idx); acc = acc + hdr.g05.w14; lane_v174.write(meta.idx, acc); hdr.g05.w14 = acc;
        lane_v175.read(acc, meta.idx); acc = acc + hdr.g05.w15; lane_v175.write(meta.idx, acc); hdr.g05.w15 = acc;
        lane_v176.read(acc, meta.idx); acc = acc + hdr.g05.w16; lane_v176.write(meta.idx, acc); hdr.g05.w16 = acc;
        lane_v177.read(acc, meta.idx); acc = acc + hdr.g05.w17; lane_v177.write(meta.idx, acc); hdr.g05.w17 = acc;
        lane_v178.read(acc, meta.idx); acc = acc + hdr.g05.w18; lane_v178.write(meta.idx, acc); hdr.g05.w18 = acc;
        lane_v179.read(acc, meta.idx); acc = acc + hdr.g05.w19; lane_v179.write(meta.idx, acc); hdr.g05.w19 = acc;
        lane_v180.read(acc, meta.idx); acc = acc + hdr.g05.w20; lane_v180.write(meta.idx, acc); hdr.g05.w20 = acc;
        lane_v181.read(acc, meta.idx); acc = acc + hdr.g05.w21; lane_v181.write(meta.idx, acc); hdr.g05.w21 = acc;
        lane_v182.read(acc, meta.idx); acc = acc + hdr.g05.w22; lane_v182.write(meta.idx, acc); hdr.g05.w22 = acc;
        lane_v183.read(acc, meta.idx); acc = acc + hdr.g05.w23; lane_v183.write(meta.idx, acc); hdr.g05.w23 = acc;
        lane_v184.read(acc, meta.idx); acc = acc + hdr.g05.w24; lane_v184.write(meta.idx, acc); hdr.g05.w24 = acc;
        lane_v185.read(acc, meta.idx); acc = acc + hdr.g05.w25; lane_v185.write(meta.idx, acc); hdr.g05.w25 = acc;
        lane_v186.read(acc, meta.idx); acc = acc + hdr.g05.w26; lane_v186.write(meta.idx, acc); hdr.g05.w26 = acc;
        lane_v187.read(acc, meta.idx); acc = acc + hdr.g05.w27; lane_v187.write(meta.idx, acc); hdr.g05.w27 = acc;
        lane_v188.read(acc, meta.idx); acc = acc + hdr.g05.w28; lane_v188.write(meta.idx, acc); hdr.g05.w28 = acc;
        lane_v189.read(acc, meta.idx); acc = acc + hdr.g05.w29; lane_v189.write(meta.idx, acc); hdr.g05.w29 = acc;
        lane_v190.read(acc, meta.idx); acc = acc + hdr.g05.w30; lane_v190.write(meta.idx, acc); hdr.g05.w30 = acc;
        lane_v191.read(acc, meta.idx); acc = acc + hdr.g05.w31; lane_v191.write(meta.idx, acc); hdr.g05.w31 = acc;
    }

    action lanes_add16_g05() {
        lane_v160.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g05.w00 & 0xFFFF0000)) | ((acc + hdr.g05.w00) & 0xFFFF); lane_v160.write(meta.idx, acc); hdr.g05.w00 = acc;
        lane_v161.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g05.w01 & 0xFFFF0000)) | ((acc + hdr.g05.w01) & 0xFFFF); lane_v161.write(meta.idx, acc); hdr.g05.w01 = acc;
        lane_v162.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g05.w02 & 0xFFFF0000)) | ((acc + hdr.g05.w02) & 0xFFFF); lane_v162.write(meta.idx, acc); hdr.g05.w02 = acc;
        lane_v163.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g05.w03 & 0xFFFF0000)) | ((acc + hdr.g05.w03) & 0xFFFF); lane_v163.write(meta.idx, acc); hdr.g05.w03 = acc;
        lane_v164.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g05.w04 & 0xFFFF0000)) | ((acc + hdr.g05.w04) & 0xFFFF); lane_v164.write(meta.idx, acc); hdr.g05.w04 = acc;
        lane_v165.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g05.w05 & 0xFFFF0000)) | ((acc + hdr.g05.w05) & 0xFFFF); lane_v165.write(meta.idx, acc); hdr.g05.w05 = acc;
        lane_v166.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g05.w06 & 0xFFFF0000)) | ((acc + hdr.g05.w06) & 0xFFFF); lane_v166.write(meta.idx, acc); hdr.g05.w06 = acc;
        lane_v167.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g05.w07 & 0xFFFF0000)) | ((acc + hdr.g05.w07) & 0xFFFF); lane_v167.write(meta.idx, acc); hdr.g05.w07 = acc;
        lane_v168.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g05.w08 & 0xFFFF0000)) | ((acc + hdr.g05.w08) & 0xFFFF); lane_v168.write(meta.idx, acc); hdr.g05.w08 = acc;
        lane_v169.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g05.w09 & 0xFFFF0000)) | ((acc + hdr.g05.w09) & 0xFFFF); lane_v169.write(meta.idx, acc); hdr.g05.w09 = acc;
        lane_v170.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g05.w10 & 0xFFFF0000)) | ((acc + hdr.g05.w10) & 0xFFFF); lane_v170.write(meta.idx, acc); hdr.g05.w10 = acc;
        lane_v171.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g05.w11 & 0xFFFF0000)) | ((acc + hdr.g05.w11) & 0xFFFF); lane_v171.write(meta.idx, acc); hdr.g05.w11 = acc;
        lane_v172.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g05.w12 & 0xFFFF0000)) | ((acc + hdr.g05.w12) & 0xFFFF); lane_v172.write(meta.idx, acc); hdr.g05.w12 = acc;
        lane_v173.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g05.w13 & 0xFFFF0000)) | ((acc + hdr.g05.w13) & 0xFFFF); lane_v173.write(meta.idx, acc); hdr.g05.w13 = acc;
        lane_v174.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g05.w14 & 0xFFFF0000)) | ((acc + hdr.g05.w14) & 0xFFFF); lane_v174.write(meta.idx, acc); hdr.g05.w14 = acc;
        lane_v175.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g05.w15 & 0xFFFF0000)) | ((acc + hdr.g05.w15) & 0xFFFF); lane_v175.write(meta.idx, acc); hdr.g05.w15 = acc;
        lane_v176.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g05.w16 & 0xFFFF0000)) | ((acc + hdr.g05.w16) & 0xFFFF); lane_v176.write(meta.idx, acc); hdr.g05.w16 = acc;
        lane_v177.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g05.w17 & 0xFFFF0000)) | ((acc + hdr.g05.w17) & 0xFFFF); lane_v177.write(meta.idx, acc); hdr.g05.w17 = acc;
        lane_v178.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g05.w18 & 0xFFFF0000)) | ((acc + hdr.g05.w18) & 0xFFFF); lane_v178.write(meta.idx, acc); hdr.g05.w18 = acc;
        lane_v179.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g05.w19 & 0xFFFF0000)) | ((acc + hdr.g05.w19) & 0xFFFF); lane_v179.write(meta.idx, acc); hdr.g05.w19 = acc;
        lane_v180.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g05.w20 & 0xFFFF0000)) | ((acc + hdr.g05.w20) & 0xFFFF); lane_v180.write(meta.idx, acc); hdr.g05.w20 = acc;
        lane_v181.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g05.w21 & 0xFFFF0000)) | ((acc + hdr.g05.w21) & 0xFFFF); lane_v181.write(meta.idx, acc); hdr.g05.w21 = acc;
        lane_v182.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g05.w22 & 0xFFFF0000)) | ((acc + hdr.g05.w22) & 0xFFFF); lane_v182.write(meta.idx, acc); hdr.g05.w22 = acc;
        lane_v183.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g05.w23 & 0xFFFF0000)) | ((acc + hdr.g05.w23) & 0xFFFF); lane_v183.write(meta.idx, acc); hdr.g05.w23 = acc;
        lane_v184.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g05.w24 & 0xFFFF0000)) | ((acc + hdr.g05.w24) & 0xFFFF); lane_v184.write(meta.idx, acc); hdr.g05.w24 = acc;
        lane_v185.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g05.w25 & 0xFFFF0000)) | ((acc + hdr.g05.w25) & 0xFFFF); lane_v185.write(meta.idx, acc); hdr.g05.w25 = acc;
        lane_v186.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g05.w26 & 0xFFFF0000)) | ((acc + hdr.g05.w26) & 0xFFFF); lane_v186.write(meta.idx, acc); hdr.g05.w26 = acc;
        lane_v187.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g05.w27 & 0xFFFF0000)) | ((acc + hdr.g05.w27) & 0xFFFF); lane_v187.write(meta.idx, acc); hdr.g05.w27 = acc;
        lane_v188.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g05.w28 & 0xFFFF0000)) | ((acc + hdr.g05.w28) & 0xFFFF); lane_v188.write(meta.idx, acc); hdr.g05.w28 = acc;
        lane_v189.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g05.w29 & 0xFFFF0000)) | ((acc + hdr.g05.w29) & 0xFFFF); lane_v189.write(meta.idx, acc); hdr.g05.w29 = acc;
        lane_v190.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g05.w30 & 0xFFFF0000)) | ((acc + hdr.g05.w30) & 0xFFFF); lane_v190.write(meta.idx, acc); hdr.g05.w30 = acc;
        lane_v191.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g05.w31 & 0xFFFF0000)) | ((acc + hdr.g05.w31) & 0xFFFF); lane_v191.write(meta.idx, acc); hdr.g05.w31 = acc;
    }

    action lanes_max_g05() {
        lane_v160.read(acc, meta.idx); acc = ((int<32>)hdr.g05.w00 > (int<32>)acc) ? hdr.g05.w00 : acc; lane_v160.write(meta.idx, acc); hdr.g05.w00 = acc;
        lane_v161.read(acc, meta.idx); acc = ((int<32>)hdr.g05.w01 > (int<32>)acc) ? hdr.g05.w01 : acc; lane_v161.write(meta.idx, acc); hdr.g05.w01 = acc;
        lane_v162.read(acc, meta.idx); acc = ((int<32>)hdr.g05.w02 > (int<32>)acc) ? hdr.g05.w02 : acc; lane_v162.write(meta.idx, acc); hdr.g05.w02 = acc;
        lane_v163.read(acc, meta.idx); acc = ((int<32>)hdr.g05.w03 > (int<32>)acc) ? hdr.g05.w03 : acc; lane_v163.write(meta.idx, acc); hdr.g05.w03 = acc;
        lane_v164.read(acc, meta.idx); acc = ((int<32>)hdr.g05.w04 > (int<32>)acc) ? hdr.g05.w04 : acc; lane_v164.write(meta.idx, acc); hdr.g05.w04 = acc;
        lane_v165.read(acc, meta.idx); acc = ((int<32>)hdr.g05.w05 > (int<32>)acc) ? hdr.g05.w05 : acc; lane_v165.write(meta.idx, acc); hdr.g05.w05 = acc;
        lane_v166.read(acc, meta.idx); acc = ((int<32>)hdr.g05.w06 > (int<32>)acc) ? hdr.g05.w06 : acc; lane_v166.write(meta.idx, acc); hdr.g05.w06 = acc;
        lane_v167.read(acc, meta.idx); acc = ((int<32>)hdr.g05.w07 > (int<32>)acc) ? hdr.g05.w07 : acc; lane_v167.write(meta.idx, acc); hdr.g05.w07 = acc;
        lane_v168.read(acc, meta.idx); acc = ((int<32>)hdr.g05.w08 > (int<32>)acc) ? hdr.g05.w08 : acc; lane_v168.write(meta.idx, acc); hdr.g05.w08 = acc;
        lane_v169.read(acc, meta.idx); acc = ((int<32>)hdr.g05.w09 > (int<32>)acc) ? hdr.g05.w09 : acc; lane_v169.write(meta.idx, acc); hdr.g05.w09 = acc;
        lane_v170.read(acc, meta.idx); acc = ((int<32>)hdr.g05.w10 > (int<32>)acc) ? hdr.g05.w10 : acc; lane_v170.write(meta.idx, acc); hdr.g05.w10 = acc;
        lane_v171.read(acc, meta.idx); acc = ((int<32>)hdr.g05.w11 > (int<32>)acc) ? hdr.g05.w11 : acc; lane_v171.write(meta.idx, acc); hdr.g05.w11 = acc;
        lane_v172.read(acc, meta.idx); acc = ((int<32>)hdr.g05.w12 > (int<32>)acc) ? hdr.g05.w12 : acc; lane_v172.write(meta.idx, acc); hdr.g05.w12 = acc;
        lane_v173.read(acc, meta.idx); acc = ((int<32>)hdr.g05.w13 > (int<32>)acc) ? hdr.g05.w13 : acc; lane_v173.write(meta.idx, acc); hdr.g05.w13 = acc;
        lane_v174.read(acc, meta.idx); acc = ((int<32>)hdr.g05.w14 > (int<32>)acc) ? hdr.g05.w14 : acc; lane_v174.write(meta.idx, acc); hdr.g05.w14 = acc;
        lane_v175.read(acc, meta.idx); acc = ((int<32>)hdr.g05.w15 > (int<32>)acc) ? hdr.g05.w15 : acc; lane_v175.write(meta.idx, acc); hdr.g05.w15 = acc;
        lane_v176.read(acc, meta.idx); acc = ((int<32>)hdr.g05.w16 > (int<32>)acc) ? hdr.g05.w16 : acc; lane_v176.write(meta.idx, acc); hdr.g05.w16 = acc;
        lane_v177.read(acc, meta.idx); acc = ((int<32>)hdr.g05.w17 > (int<32>)acc) ? hdr.g05.w17 : acc; lane_v177.write(meta.idx, acc); hdr.g05.w17 = acc;
        lane_v178.read(acc, meta.idx); acc = ((int<32>)hdr.g05.w18 > (int<32>)acc) ? hdr.g05.w18 : acc; lane_v178.write(meta.idx, acc); hdr.g05.w18 = acc;
        lane_v179.read(acc, meta.idx); acc = ((int<32>)hdr.g05.w19 > (int<32>)acc) ? hdr.g05.w19 : acc; lane_v179.write(meta.idx, acc); hdr.g05.w19 = acc;
        lane_v180.read(acc, meta.idx); acc = ((int<32>)hdr.g05.w20 > (int<32>)acc) ? hdr.g05.w20 : acc; lane_v180.write(meta.idx, acc); hdr.g05.w20 = acc;
        lane_v181.read(acc, meta.idx); acc = ((int<32>)hdr.g05.w21 > (int<32>)acc) ? hdr.g05.w21 : acc; lane_v181.write(meta.idx, acc); hdr.g05.w21 = acc;
        lane_v182.read(acc, meta.idx); acc = ((int<32>)hdr.g05.w22 > (int<32>)acc) ? hdr.g05.w22 : acc; lane_v182.write(meta.idx, acc); hdr.g05.w22 = acc;
        lane_v183.read(acc, meta.idx); acc = ((int<32>)hdr.g05.w23 > (int<32>)acc) ? hdr.g05.w23 : acc; lane_v183.write(meta.idx, acc); hdr.g05.w23 = acc;
        lane_v184.read(acc, meta.idx); acc = ((int<32>)hdr.g05.w24 > (int<32>)acc) ? hdr.g05.w24 : acc; lane_v184.write(meta.idx, acc); hdr.g05.w24 = acc;
        lane_v185.read(acc, meta.idx); acc = ((int<32>)hdr.g05.w25 > (int<32>)acc) ? hdr.g05.w25 : acc; lane_v185.write(meta.idx, acc); hdr.g05.w25 = acc;
        lane_v186.read(acc, meta.idx); acc = ((int<32>)hdr.g05.w26 > (int<32>)acc) ? hdr.g05.w26 : acc; lane_v186.write(meta.idx, acc); hdr.g05.w26 = acc;
        lane_v187.read(acc, meta.idx); acc = ((int<32>)hdr.g05.w27 > (int<32>)acc) ? hdr.g05.w27 : acc; lane_v187.write(meta.idx, acc); hdr.g05.w27 = acc;
        lane_v188.read(acc, meta.idx); acc = ((int<32>)hdr.g05.w28 > (int<32>)acc) ? hdr.g05.w28 : acc; lane_v188.write(meta.idx, acc); hdr.g05.w28 = acc;
        lane_v189.read(acc, meta.idx); acc = ((int<32>)hdr.g05.w29 > (int<32>)acc) ? hdr.g05.w29 : acc; lane_v189.write(meta.idx, acc); hdr.g05.w29 = acc;
        lane_v190.read(acc, meta.idx); acc = ((int<32>)hdr.g05.w30 > (int<32>)acc) ? hdr.g05.w30 : acc; lane_v190.write(meta.idx, acc); hdr.g05.w30 = acc;
        lane_v191.read(acc, meta.idx); acc = ((int<32>)hdr.g05.w31 > (int<32>)acc) ? hdr.g05.w31 : acc; lane_v191.write(meta.idx, acc); hdr.g05.w31 = acc;
    }

    action lanes_load_g05() {
        lane_v160.read(hdr.g05.w00, meta.idx);
        lane_v161.read(hdr.g05.w01, meta.idx);
        lane_v162.read(hdr.g05.w02, meta.idx);
        lane_v163.read(hdr.g05.w03, meta.idx);
        lane_v164.read(hdr.g05.w04, meta.idx);
        lane_v165.read(hdr.g05.w05, meta.idx);
        lane_v166.read(hdr.g05.w06, meta.idx);
        lane_v167.read(hdr.g05.w07, meta.idx);
        lane_v168.read(hdr.g05.w08, meta.idx);
        lane_v169.read(hdr.g05.w09, meta.idx);
        lane_v170.read(hdr.g05.w10, meta.idx);
        lane_v171.read(hdr.g05.w11, meta.idx);
        lane_v172.read(hdr.g05.w12, meta.idx);
        lane_v173.read(hdr.g05.w13, meta.idx);
        lane_v174.read(hdr.g05.w14, meta.idx);
        lane_v175.read(hdr.g05.w15, meta.idx);
        lane_v176.read(hdr.g05.w16, meta.idx);
        lane_v177.read(hdr.g05.w17, meta.idx);
        lane_v178.read(hdr.g05.w18, meta.idx);
        lane_v179.read(hdr.g05.w19, meta.idx);
        lane_v180.read(hdr.g05.w20, meta.idx);
        lane_v181.read(hdr.g05.w21, meta.idx);
        lane_v182.read(hdr.g05.w22, meta.idx);
        lane_v183.read(hdr.g05.w23, meta.idx);
        lane_v184.read(hdr.g05.w24, meta.idx);
        lane_v185.read(hdr.g05.w25, meta.idx);
        lane_v186.read(hdr.g05.w26, meta.idx);
        lane_v187.read(hdr.g05.w27, meta.idx);
        lane_v188.read(hdr.g05.w28, meta.idx);
        lane_v189.read(hdr.g05.w29, meta.idx);
        lane_v190.read(hdr.g05.w30, meta.idx);
        lane_v191.read(hdr.g05.w31, meta.idx);
    }

    action lanes_store_g06() {
        lane_v192.write(meta.idx, hdr.g06.w00);
        lane_v193.write(meta.idx, hdr.g06.w01);
        lane_v194.write(meta.idx, hdr.g06.w02);
        lane_v195.write(meta.idx, hdr.g06.w03);
        lane_v196.write(meta.idx, hdr.g06.w04);
        lane_v197.write(meta.idx, hdr.g06.w05);
        lane_v198.write(meta.idx, hdr.g06.w06);
        lane_v199.write(meta.idx, hdr.g06.w07);
        lane_v200.write(meta.idx, hdr.g06.w08);
        lane_v201.write(meta.idx, hdr.g06.w09);
        lane_v202.write(meta.idx, hdr.g06.w10);
        lane_v203.write(meta.idx, hdr.g06.w11);
        lane_v204.write(meta.idx, hdr.g06.w12);
        lane_v205.write(meta.idx, hdr.g06.w13);
        lane_v206.write(meta.idx, hdr.g06.w14);
        lane_v207.write(meta.idx, hdr.g06.w15);
        lane_v208.write(meta.idx, hdr.g06.w16);
        lane_v209.write(meta.idx, hdr.g06.w17);
        lane_v210.write(meta.idx, hdr.g06.w18);
        lane_v211.write(meta.idx, hdr.g06.w19);
        lane_v212.write(meta.idx, hdr.g06.w20);
        lane_v213.write(meta.idx, hdr.g06.w21);
        lane_v214.write(meta.idx, hdr.g06.w22);
        lane_v215.write(meta.idx, hdr.g06.w23);
        lane_v216.write(meta.idx, hdr.g06.w24);
        lane_v217.write(meta.idx, hdr.g06.w25);
        lane_v218.write(meta.idx, hdr.g06.w26);
        lane_v219.write(meta.idx, hdr.g06.w27);
        lane_v220.write(meta.idx, hdr.g06.w28);
        lane_v221.write(meta.idx, hdr.g06.w29);
        lane_v222.write(meta.idx, hdr.g06.w30);
        lane_v223.write(meta.idx, hdr.g06.w31);
    }

    action lanes_add_g06() {
        lane_v192.read(acc, meta.idx); acc = acc + hdr.g06.w00; lane_v192.write(meta.idx, acc); hdr.g06.w00 = acc;
        lane_v193.read(acc, meta.idx); acc = acc + hdr.g06.w01; lane_v193.write(meta.idx, acc); hdr.g06.w01 = acc;
        lane_v194.read(acc, meta.idx); acc = acc + hdr.g06.w02; lane_v194.write(meta.idx, acc); hdr.g06.w02 = acc;
        lane_v195.read(acc, meta.idx); acc = acc + hdr.g06.w03; lane_v195.write(meta.idx, acc); hdr.g06.w03 = acc;
        lane_v196.read(acc, meta.idx); acc = acc + hdr.g06.w04; lane_v196.write(meta.idx, acc); hdr.g06.w04 = acc;
        lane_v197.read(acc, meta.idx); acc = acc + hdr.g06.w05; lane_v197.write(meta.idx, acc); hdr.g06.w05 = acc;
        lane_v198.read(acc, meta.idx); acc = acc + hdr.g06.w06; lane_v198.write(meta.idx, acc); hdr.g06.w06 = acc;
        lane_v199.read(acc, meta.idx); acc = acc + hdr.g06.w07; lane_v199.write(meta.idx, acc); hdr.g06.w07 = acc;
        lane_v200.read(acc, meta.idx); acc = acc + hdr.g06.w08; lane_v200.write(meta.idx, acc); hdr.g06.w08 = acc;
        lane_v201.read(acc, meta.idx); acc = acc + hdr.g06.w09; lane_v201.write(meta.idx, acc); hdr.g06.w09 = acc;
        lane_v202.read(acc, meta.idx); acc = acc + hdr.g06.w10; lane_v202.write(meta.idx, acc); hdr.g06.w10 = acc;
        lane_v203.read(acc, meta.idx); acc = acc + hdr.g06.w11; lane_v203.write(meta.idx, acc); hdr.g06.w11 = acc;
        lane_v204.read(acc, meta.idx); acc = acc + hdr.g06.w12; lane_v204.write(meta.idx, acc); hdr.g06.w12 = acc;
        lane_v205.read(acc, meta.idx); acc = acc + hdr.g06.w13; lane_v205.write(meta.idx, acc); hdr.g06.w13 = acc;
        lane_v206.read(acc, meta.idx); acc = acc + hdr.g06.w14; lane_v206.write(meta.idx, acc); hdr.g06.w14 = acc;
        lane_v207.read(acc, meta.idx); acc = acc + hdr.g06.w15; lane_v207.write(meta.idx, acc); hdr.g06.w15 = acc;
        lane_v208.read(acc, meta.idx); acc = acc + hdr.g06.w16; lane_v208.write(meta.idx, acc); hdr.g06.w16 = acc;
        lane_v209.read(acc, meta.idx); acc = acc + hdr.g06.w17; lane_v209.write(meta.idx, acc); hdr.g06.w17 = acc;
        lane_v210.read(acc, meta.idx); acc = acc + hdr.g06.w18; lane_v210.write(meta.idx, acc); hdr.g06.w18 = acc;
        lane_v211.read(acc, meta.idx); acc = acc + hdr.g06.w19; lane_v211.write(meta.idx, acc); hdr.g06.w19 = acc;
        lane_v212.read(acc, meta.idx); acc = acc + hdr.g06.w20; lane_v212.write(meta.idx, acc); hdr.g06.w20 = acc;
        lane_v213.read(acc, meta.idx); acc = acc + hdr.g06.w21; lane_v213.write(meta.idx, acc); hdr.g06.w21 = acc;
        lane_v214.read(acc, meta.idx); acc = acc + hdr.g06.w22; lane_v214.write(meta.idx, acc); hdr.g06.w22 = acc;
        lane_v215.read(acc, meta.idx); acc = acc + hdr.g06.w23; lane_v215.write(meta.idx, acc); hdr.g06.w23 = acc;
        lane_v216.read(acc, meta.idx); acc = acc + hdr.g06.w24; lane_v216.write(meta.idx, acc); hdr.g06.w24 = acc;
        lane_v217.read(acc, meta.idx); acc = acc + hdr.g06.w25; lane_v217.write(meta.idx, acc); hdr.g06.w25 = acc;
        lane_v218.read(acc, meta.idx); acc = acc + hdr.g06.w26; lane_v218.write(meta.idx, acc); hdr.g06.w26 = acc;
        lane_v219.read(acc, meta.idx); acc = acc + hdr.g06.w27; lane_v219.write(meta.idx, acc); hdr.g06.w27 = acc;
        lane_v220.read(acc, meta.idx); acc = acc + hdr.g06.w28; lane_v220.write(meta.idx, acc); hdr.g06.w28 = acc;
        lane_v221.read(acc, meta.idx); acc = acc + hdr.g06.w29; lane_v221.write(meta.idx, acc); hdr.g06.w29 = acc;
        lane_v222.read(acc, meta.idx); acc = acc + hdr.g06.w30; lane_v222.write(meta.idx, acc); hdr.g06.w30 = acc;
        lane_v223.read(acc, meta.idx); acc = acc + hdr.g06.w31; lane_v223.write(meta.idx, acc); hdr.g06.w31 = acc;
    }

    action lanes_add16_g06() {
        lane_v192.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g06.w00 & 0xFFFF0000)) | ((acc + hdr.g06.w00) & 0xFFFF); lane_v192.write(meta.idx, acc); hdr.g06.w00 = acc;
        lane_v193.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g06.w01 & 0xFFFF0000)) | ((acc + hdr.g06.w01) & 0xFFFF); lane_v193.write(meta.idx, acc); hdr.g06.w01 = acc;
        lane_v194.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g06.w02 & 0xFFFF0000)) | ((acc + hdr.g06.w02) & 0xFFFF); lane_v194.write(meta.idx, acc); hdr.g06.w02 = acc;
        lane_v195.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g06.w03 & 0xFFFF0000)) | ((acc + hdr.g06.w03) & 0xFFFF); lane_v195.write(meta.idx, acc); hdr.g06.w03 = acc;
        lane_v196.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g06.w04 & 0xFFFF0000)) | ((acc + hdr.g06.w04) & 0xFFFF); lane_v196.write(meta.idx, acc); hdr.g06.w04 = acc;
        lane_v197.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g06.w05 & 0xFFFF0000)) | ((acc + hdr.g06.w05) & 0xFFFF); lane_v197.write(meta.idx, acc); hdr.g06.w05 = acc;
        lane_v198.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g06.w06 & 0xFFFF0000)) | ((acc + hdr.g06.w06) & 0xFFFF); lane_v198.write(meta.idx, acc); hdr.g06.w06 = acc;
        lane_v199.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g06.w07 & 0xFFFF0000)) | ((acc + hdr.g06.w07) & 0xFFFF); lane_v199.write(meta.idx, acc); hdr.g06.w07 = acc;
        lane_v200.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g06.w08 & 0xFFFF0000)) | ((acc + hdr.g06.w08) & 0xFFFF); lane_v200.write(meta.idx, acc); hdr.g06.w08 = acc;
        lane_v201.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g06.w09 & 0xFFFF0000)) | ((acc + hdr.g06.w09) & 0xFFFF); lane_v201.write(meta.idx, acc); hdr.g06.w09 = acc;
        lane_v202.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g06.w10 & 0xFFFF0000)) | ((acc + hdr.g06.w10) & 0xFFFF); lane_v202.write(meta.idx, acc); hdr.g06.w10 = acc;
        lane_v203.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g06.w11 & 0xFFFF0000)) | ((acc + hdr.g06.w11) & 0xFFFF); lane_v203.write(meta.idx, acc); hdr.g06.w11 = acc;
        lane_v204.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g06.w12 & 0xFFFF0000)) | ((acc + hdr.g06.w12) & 0xFFFF); lane_v204.write(meta.idx, acc); hdr.g06.w12 = acc;
        lane_v205.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g06.w13 & 0xFFFF0000)) | ((acc + hdr.g06.w13) & 0xFFFF); lane_v205.write(meta.idx, acc); hdr.g06.w13 = acc;
        lane_v206.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g06.w14 & 0xFFFF0000)) | ((acc + hdr.g06.w14) & 0xFFFF); lane_v206.write(meta.idx, acc); hdr.g06.w14 = acc;
        lane_v207.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g06.w15 & 0xFFFF0000)) | ((acc + hdr.g06.w15) & 0xFFFF); lane_v207.write(meta.idx, acc); hdr.g06.w15 = acc;
        lane_v208.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g06.w16 & 0xFFFF0000)) | ((acc + hdr.g06.w16) & 0xFFFF); lane_v208.write(meta.idx, acc); hdr.g06.w16 = acc;
        lane_v209.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g06.w17 & 0xFFFF0000)) | ((acc + hdr.g06.w17) & 0xFFFF); lane_v209.write(meta.idx, acc); hdr.g06.w17 = acc;
        lane_v210.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g06.w18 & 0xFFFF0000)) | ((acc + hdr.g06.w18) & 0xFFFF); lane_v210.write(meta.idx, acc); hdr.g06.w18 = acc;
        lane_v211.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g06.w19 & 0xFFFF0000)) | ((acc + hdr.g06.w19) & 0xFFFF); lane_v211.write(meta.idx, acc); hdr.g06.w19 = acc;
        lane_v212.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g06.w20 & 0xFFFF0000)) | ((acc + hdr.g06.w20) & 0xFFFF); lane_v212.write(meta.idx, acc); hdr.g06.w20 = acc;
        lane_v213.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g06.w21 & 0xFFFF0000)) | ((acc + hdr.g06.w21) & 0xFFFF); lane_v213.write(meta.idx, acc); hdr.g06.w21 = acc;
        lane_v214.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g06.w22 & 0xFFFF0000)) | ((acc + hdr.g06.w22) & 0xFFFF); lane_v214.write(meta.idx, acc); hdr.g06.w22 = acc;
        lane_v215.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g06.w23 & 0xFFFF0000)) | ((acc + hdr.g06.w23) & 0xFFFF); lane_v215.write(meta.idx, acc); hdr.g06.w23 = acc;
        lane_v216.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g06.w24 & 0xFFFF0000)) | ((acc + hdr.g06.w24) & 0xFFFF); lane_v216.write(meta.idx, acc); hdr.g06.w24 = acc;
        lane_v217.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g06.w25 & 0xFFFF0000)) | ((acc + hdr.g06.w25) & 0xFFFF); lane_v217.write(meta.idx, acc); hdr.g06.w25 = acc;
        lane_v218.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g06.w26 & 0xFFFF0000)) | ((acc + hdr.g06.w26) & 0xFFFF); lane_v218.write(meta.idx, acc); hdr.g06.w26 = acc;
        lane_v219.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g06.w27 & 0xFFFF0000)) | ((acc + hdr.g06.w27) & 0xFFFF); lane_v219.write(meta.idx, acc); hdr.g06.w27 = acc;
        lane_v220.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g06.w28 & 0xFFFF0000)) | ((acc + hdr.g06.w28) & 0xFFFF); lane_v220.write(meta.idx, acc); hdr.g06.w28 = acc;
        lane_v221.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g06.w29 & 0xFFFF0000)) | ((acc + hdr.g06.w29) & 0xFFFF); lane_v221.write(meta.idx, acc); hdr.g06.w29 = acc;
        lane_v222.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g06.w30 & 0xFFFF0000)) | ((acc + hdr.g06.w30) & 0xFFFF); lane_v222.write(meta.idx, acc); hdr.g06.w30 = acc;
        lane_v223.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g06.w31 & 0xFFFF0000)) | ((acc + hdr.g06.w31) & 0xFFFF); lane_v223.write(meta.idx, acc); hdr.g06.w31 = acc;
    }

    action lanes_max_g06() {
        lane_v192.read(acc, meta.idx); acc = ((int<32>)hdr.g06.w00 > (int<32>)acc) ? hdr.g06.w00 : acc; lane_v192.write(meta.idx, acc); hdr.g06.w00 = acc;
        lane_v193.read(acc, meta.idx); acc = ((int<32>)hdr.g06.w01 > (int<32>)acc) ? hdr.g06.w01 : acc; lane_v193.write(meta.idx, acc); hdr.g06.w01 = acc;
        lane_v194.read(acc, meta.idx); acc = ((int<32>)hdr.g06.w02 > (int<32>)acc) ? hdr.g06.w02 : acc; lane_v194.write(meta.idx, acc); hdr.g06.w02 = acc;
        lane_v195.read(acc, meta.idx); acc = ((int<32>)hdr.g06.w03 > (int<32>)acc) ? hdr.g06.w03 : acc; lane_v195.write(meta.idx, acc); hdr.g06.w03 = acc;
        lane_v196.read(acc, meta.idx); acc = ((int<32>)hdr.g06.w04 > (int<32>)acc) ? hdr.g06.w04 : acc; lane_v196.write(meta.idx, acc); hdr.g06.w04 = acc;
        lane_v197.read(acc, meta.idx); acc = ((int<32>)hdr.g06.w05 > (int<32>)acc) ? hdr.g06.w05 : acc; lane_v197.write(meta.idx, acc); hdr.g06.w05 = acc;
        lane_v198.read(acc, meta.idx); acc = ((int<32>)hdr.g06.w06 > (int<32>)acc) ? hdr.g06.w06 : acc; lane_v198.write(meta.idx, acc); hdr.g06.w06 = acc;
        lane_v199.read(acc, meta.idx); acc = ((int<32>)hdr.g06.w07 > (int<32>)acc) ? hdr.g06.w07 : acc; lane_v199.write(meta.idx, acc); hdr.g06.w07 = acc;
        lane_v200.read(acc, meta.idx); acc = ((int<32>)hdr.g06.w08 > (int<32>)acc) ? hdr.g06.w08 : acc; lane_v200.write(meta.idx, acc); hdr.g06.w08 = acc;
        lane_v201.read(acc, meta.idx); acc = ((int<32>)hdr.g06.w09 > (int<32>)acc) ? hdr.g06.w09 : acc; lane_v201.write(meta.idx, acc); hdr.g06.w09 = acc;
        lane_v202.read(acc, meta.idx); acc = ((int<32>)hdr.g06.w10 > (int<32>)acc) ? hdr.g06.w10 : acc; lane_v202.write(meta.idx, acc); hdr.g06.w10 = acc;
        lane_v203.read(acc, meta.idx); acc = ((int<32>)hdr.g06.w11 > (int<32>)acc) ? hdr.g06.w11 : acc; lane_v203.write(meta.idx, acc); hdr.g06.w11 = acc;
        lane_v204.read(acc, meta.idx); acc = ((int<32>)hdr.g06.w12 > (int<32>)acc) ? hdr.g06.w12 : acc; lane_v204.write(meta.idx, acc); hdr.g06.w12 = acc;
        lane_v205.read(acc, meta.idx); acc = ((int<32>)hdr.g06.w13 > (int<32>)acc) ? hdr.g06.w13 : acc; lane_v205.write(meta.idx, acc); hdr.g06.w13 = acc;
        lane_v206.read(acc, meta.idx); acc = ((int<32>)hdr.g06.w14 > (int<32>)acc) ? hdr.g06.w14 : acc; lane_v206.write(meta.idx, acc); hdr.g06.w14 = acc;
        lane_v207.read(acc, meta.idx); acc = ((int<32>)hdr.g06.w15 > (int<32>)acc) ? hdr.g06.w15 : acc; lane_v207.write(meta.idx, acc); hdr.g06.w15 = acc;
        lane_v208.read(acc, meta.idx); acc = ((int<32>)hdr.g06.w16 > (int<32>)acc) ? hdr.g06.w16 : acc; lane_v208.write(meta.idx, acc); hdr.g06.w16 = acc;
        lane_v209.read(acc, meta.idx); acc = ((int<32>)hdr.g06.w17 > (int<32>)acc) ? hdr.g06.w17 : acc; lane_v209.write(meta.idx, acc); hdr.g06.w17 = acc;
        lane_v210.read(acc, meta.idx); acc = ((int<32>)hdr.g06.w18 > (int<32>)acc) ? hdr.g06.w18 : acc; lane_v210.write(meta.idx, acc); hdr.g06.w18 = acc;
        lane_v211.read(acc, meta.idx); acc = ((int<32>)hdr.g06.w19 > (int<32>)acc) ? hdr.g06.w19 : acc; lane_v211.write(meta.idx, acc); hdr.g06.w19 = acc;
        lane_v212.read(acc, meta.idx); acc = ((int<32>)hdr.g06.w20 > (int<32>)acc) ? hdr.g06.w20 : acc; lane_v212.write(meta.idx, acc); hdr.g06.w20 = acc;
        lane_v213.read(acc, meta.idx); acc = ((int<32>)hdr.g06.w21 > (int<32>)acc) ? hdr.g06.w21 : acc; lane_v213.write(meta.idx, acc); hdr.g06.w21 = acc;
        lane_v214.read(acc, meta.idx); acc = ((int<32>)hdr.g06.w22 > (int<32>)acc) ? hdr.g06.w22 : acc; lane_v214.write(meta.idx, acc); hdr.g06.w22 = acc;
        lane_v215.read(acc, meta.idx); acc = ((int<32>)hdr.g06.w23 > (int<32>)acc) ? hdr.g06.w23 : acc; lane_v215.write(meta.idx, acc); hdr.g06.w23 = acc;
        lane_v216.read(acc, meta.idx); acc = ((int<32>)hdr.g06.w24 > (int<32>)acc) ? hdr.g06.w24 : acc; lane_v216.write(meta.idx, acc); hdr.g06.w24 = acc;
        lane_v217.read(acc, meta.idx); acc = ((int<32>)hdr.g06.w25 > (int<32>)acc) ? hdr.g06.w25 : acc; lane_v217.write(meta.idx, acc); hdr.g06.w25 = acc;
        lane_v218.read(acc, meta.idx); acc = ((int<32>)hdr.g06.w26 > (int<32>)acc) ? hdr.g06.w26 : acc; lane_v218.write(meta.idx, acc); hdr.g06.w26 = acc;
        lane_v219.read(acc, meta.idx); acc = ((int<32>)hdr.g06.w27 > (int<32>)acc) ? hdr.g06.w27 : acc; lane_v219.write(meta.idx, acc); hdr.g06.w27 = acc;
        lane_v220.read(acc, meta.idx); acc = ((int<32>)hdr.g06.w28 > (int<32>)acc) ? hdr.g06.w28 : acc; lane_v220.write(meta.idx, acc); hdr.g06.w28 = acc;
        lane_v221.read(acc, meta.idx); acc = ((int<32>)hdr.g06.w29 > (int<32>)acc) ? hdr.g06.w29 : acc; lane_v221.write(meta.idx, acc); hdr.g06.w29 = acc;
        lane_v222.read(acc, meta.idx); acc = ((int<32>)hdr.g06.w30 > (int<32>)acc) ? hdr.g06.w30 : acc; lane_v222.write(meta.idx, acc); hdr.g06.w30 = acc;
        lane_v223.read(acc, meta.idx); acc = ((int<32>)hdr.g06.w31 > (int<32>)acc) ? hdr.g06.w31 : acc; lane_v223.write(meta.idx, acc); hdr.g06.w31 = acc;
    }

    action lanes_load_g06() {
        lane_v192.read(hdr.g06.w00, meta.idx);
        lane_v193.read(hdr.g06.w01, meta.idx);
        lane_v194.read(hdr.g06.w02, meta.idx);
        lane_v195.read(hdr.g06.w03, meta.idx);
        lane_v196.read(hdr.g06.w04, meta.idx);
        lane_v197.read(hdr.g06.w05, meta.idx);
        lane_v198.read(hdr.g06.w06, meta.idx);
        lane_v199.read(hdr.g06.w07, meta.idx);
        lane_v200.read(hdr.g06.w08, meta.idx);
        lane_v201.read(hdr.g06.w09, meta.idx);
        lane_v202.read(hdr.g06.w10, meta.idx);
        lane_v203.read(hdr.g06.w11, meta.idx);
        lane_v204.read(hdr.g06.w12, meta.idx);
        lane_v205.read(hdr.g06.w13, meta.idx);
        lane_v206.read(hdr.g06.w14, meta.idx);
        lane_v207.read(hdr.g06.w15, meta.idx);
        lane_v208.read(hdr.g06.w16, meta.idx);
        lane_v209.read(hdr.g06.w17, meta.idx);
        lane_v210.read(hdr.g06.w18, meta.idx);
        lane_v211.read(hdr.g06.w19, meta.idx);
        lane_v212.read(hdr.g06.w20, meta.idx);
        lane_v213.read(hdr.g06.w21, meta.idx);
        lane_v214.read(hdr.g06.w22, meta.idx);
        lane_v215.read(hdr.g06.w23, meta.idx);
        lane_v216.read(hdr.g06.w24, meta.idx);
        lane_v217.read(hdr.g06.w25, meta.idx);
        lane_v218.read(hdr.g06.w26, meta.idx);
        lane_v219.read(hdr.g06.w27, meta.idx);
        lane_v220.read(hdr.g06.w28, meta.idx);
        lane_v221.read(hdr.g06.w29, meta.idx);
        lane_v222.read(hdr.g06.w30, meta.idx);
        lane_v223.read(hdr.g06.w31, meta.idx);
    }

    action lanes_store_g07() {
        lane_v224.write(meta.idx, hdr.g07.w00);
        lane_v225.write(meta.idx, hdr.g07.w01);
        lane_v226.write(meta.idx, hdr.g07.w02);
        lane_v227.write(meta.idx, hdr.g07.w03);
        lane_v228.write(meta.idx, hdr.g07.w04);
        lane_v229.write(meta.idx, hdr.g07.w05);
        lane_v230.write(meta.idx, hdr.g07.w06);
        lane_v231.write(meta.idx, hdr.g07.w07);
        lane_v232.write(meta.idx, hdr.g07.w08);
        lane_v233.write(meta.idx, hdr.g07.w09);
        lane_v234.write(meta.idx, hdr.g07.w10);
        lane_v235.write(meta.idx, hdr.g07.w11);
        lane_v236.write(meta.idx, hdr.g07.w12);
        lane_v237.write(meta.idx, hdr.g07.w13);
        lane_v238.write(meta.idx, hdr.g07.w14);
        lane_v239.write(meta.idx, hdr.g07.w15);
        lane_v240.write(meta.idx, hdr.g07.w16);
        lane_v241.write(meta.idx, hdr.g07.w17);
        lane_v242.write(meta.idx, hdr.g07.w18);
        lane_v243.write(meta.idx, hdr.g07.w19);
        lane_v244.write(meta.idx, hdr.g07.w20);
        lane_v245.write(meta.idx, hdr.g07.w21);
        lane_v246.write(meta.idx, hdr.g07.w22);
        lane_v247.write(meta.idx, hdr.g07.w23);
        lane_v248.write(meta.idx, hdr.g07.w24);
        lane_v249.write(meta.idx, hdr.g07.w25);
        lane_v250.write(meta.idx, hdr.g07.w26);
        lane_v251.write(meta.idx, hdr.g07.w27);
        lane_v252.write(meta.idx, hdr.g07.w28);
        lane_v253.write(meta.idx, hdr.g07.w29);
        lane_v254.write(meta.idx, hdr.g07.w30);
        lane_v255.write(meta.idx, hdr.g07.w31);
    }

    action lanes_add_g07() {
        lane_v224.read(acc, meta.idx); acc = acc + hdr.g07.w00; lane_v224.write(meta.idx, acc); hdr.g07.w00 = acc;
        lane_v225.read(acc, meta.idx); acc = acc + hdr.g07.w01; lane_v225.write(meta.idx, acc); hdr.g07.w01 = acc;
        lane_v226.read(acc, meta.idx); acc = acc + hdr.g07.w02; lane_v226.write(meta.idx, acc); hdr.g07.w02 = acc;
        lane_v227.read(acc, meta.idx); acc = acc + hdr.g07.w03; lane_v227.write(meta.idx, acc); hdr.g07.w03 = acc;
        lane_v228.read(acc, meta.idx); acc = acc + hdr.g07.w04; lane_v228.write(meta.idx, acc); hdr.g07.w04 = acc;
        lane_v229.read(acc, meta.idx); acc = acc + hdr.g07.w05; lane_v229.write(meta.idx, acc); hdr.g07.w05 = acc;
        lane_v230.read(acc, meta.idx); acc = acc + hdr.g07.w06; lane_v230.write(meta.idx, acc); hdr.g07.w06 = acc;
        lane_v231.read(acc, meta.idx); acc = acc + hdr.g07.w07; lane_v231.write(meta.idx, acc); hdr.g07.w07 = acc;
        lane_v232.read(acc, meta.idx); acc = acc + hdr.g07.w08; lane_v232.write(meta.idx, acc); hdr.g07.w08 = acc;
        lane_v233.read(acc, meta.idx); acc = acc + hdr.g07.w09; lane_v233.write(meta.idx, acc); hdr.g07.w09 = acc;
        lane_v234.read(acc, meta.idx); acc = acc + hdr.g07.w10; lane_v234.write(meta.idx, acc); hdr.g07.w10 = acc;
        lane_v235.read(acc, meta.idx); acc = acc + hdr.g07.w11; lane_v235.write(meta.idx, acc); hdr.g07.w11 = acc;
        lane_v236.read(acc, meta.idx); acc = acc + hdr.g07.w12; lane_v236.write(meta.idx, acc); hdr.g07.w12 = acc;
        lane_v237.read(acc, meta.idx); acc = acc + hdr.g07.w13; lane_v237.write(meta.idx, acc); hdr.g07.w13 = acc;
        lane_v238.read(acc, meta.idx); acc = acc + hdr.g07.w14; lane_v238.write(meta.idx, acc); hdr.g07.w14 = acc;
        lane_v239.read(acc, meta.idx); acc = acc + hdr.g07.w15; lane_v239.write(meta.idx, acc); hdr.g07.w15 = acc;
        lane_v240.read(acc, meta.idx); acc = acc + hdr.g07.w16; lane_v240.write(meta.idx, acc); hdr.g07.w16 = acc;
        lane_v241.read(acc, meta.idx); acc = acc + hdr.g07.w17; lane_v241.write(meta.idx, acc); hdr.g07.w17 = acc;
        lane_v242.read(acc, meta.idx); acc = acc + hdr.g07.w18; lane_v242.write(meta.idx, acc); hdr.g07.w18 = acc;
        lane_v243.read(acc, meta.idx); acc = acc + hdr.g07.w19; lane_v243.write(meta.idx, acc); hdr.g07.w19 = acc;
        lane_v244.read(acc, meta.idx); acc = acc + hdr.g07.w20; lane_v244.write(meta.idx, acc); hdr.g07.w20 = acc;
        lane_v245.read(acc, meta.idx); acc = acc + hdr.g07.w21; lane_v245.write(meta.idx, acc); hdr.g07.w21 = acc;
        lane_v246.read(acc, meta.idx); acc = acc + hdr.g07.w22; lane_v246.write(meta.idx, acc); hdr.g07.w22 = acc;
        lane_v247.read(acc, meta.idx); acc = acc + hdr.g07.w23; lane_v247.write(meta.idx, acc); hdr.g07.w23 = acc;
        lane_v248.read(acc, meta.idx); acc = acc + hdr.g07.w24; lane_v248.write(meta.idx, acc); hdr.g07.w24 = acc;
        lane_v249.read(acc, meta.idx); acc = acc + hdr.g07.w25; lane_v249.write(meta.idx, acc); hdr.g07.w25 = acc;
        lane_v250.read(acc, meta.idx); acc = acc + hdr.g07.w26; lane_v250.write(meta.idx, acc); hdr.g07.w26 = acc;
        lane_v251.read(acc, meta.idx); acc = acc + hdr.g07.w27; lane_v251.write(meta.idx, acc); hdr.g07.w27 = acc;
        lane_v252.read(acc, meta.idx); acc = acc + hdr.g07.w28; lane_v252.write(meta.idx, acc); hdr.g07.w28 = acc;
        lane_v253.read(acc, meta.idx); acc = acc + hdr.g07.w29; lane_v253.write(meta.idx, acc); hdr.g07.w29 = acc;
        lane_v254.read(acc, meta.idx); acc = acc + hdr.g07.w30; lane_v254.write(meta.idx, acc); hdr.g07.w30 = acc;
        lane_v255.read(acc, meta.idx); acc = acc + hdr.g07.w31; lane_v255.write(meta.idx, acc); hdr.g07.w31 = acc;
    }

    action lanes_add16_g07() {
        lane_v224.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g07.w00 & 0xFFFF0000)) | ((acc + hdr.g07.w00) & 0xFFFF); lane_v224.write(meta.idx, acc); hdr.g07.w00 = acc;
        lane_v225.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g07.w01 & 0xFFFF0000)) | ((acc + hdr.g07.w01) & 0xFFFF); lane_v225.write(meta.idx, acc); hdr.g07.w01 = acc;
        lane_v226.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g07.w02 & 0xFFFF0000)) | ((acc + hdr.g07.w02) & 0xFFFF); lane_v226.write(meta.idx, acc); hdr.g07.w02 = acc;
        lane_v227.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g07.w03 & 0xFFFF0000)) | ((acc + hdr.g07.w03) & 0xFFFF); lane_v227.write(meta.idx, acc); hdr.g07.w03 = acc;
        lane_v228.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g07.w04 & 0xFFFF0000)) | ((acc + hdr.g07.w04) & 0xFFFF); lane_v228.write(meta.idx, acc); hdr.g07.w04 = acc;
        lane_v229.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g07.w05 & 0xFFFF0000)) | ((acc + hdr.g07.w05) & 0xFFFF); lane_v229.write(meta.idx, acc); hdr.g07.w05 = acc;
        lane_v230.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g07.w06 & 0xFFFF0000)) | ((acc + hdr.g07.w06) & 0xFFFF); lane_v230.write(meta.idx, acc); hdr.g07.w06 = acc;
        lane_v231.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g07.w07 & 0xFFFF0000)) | ((acc + hdr.g07.w07) & 0xFFFF); lane_v231.write(meta.idx, acc); hdr.g07.w07 = acc;
        lane_v232.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g07.w08 & 0xFFFF0000)) | ((acc + hdr.g07.w08) & 0xFFFF); lane_v232.write(meta.idx, acc); hdr.g07.w08 = acc;
        lane_v233.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g07.w09 & 0xFFFF0000)) | ((acc + hdr.g07.w09) & 0xFFFF); lane_v233.write(meta.idx, acc); hdr.g07.w09 = acc;
        lane_v234.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g07.w10 & 0xFFFF0000)) | ((acc + hdr.g07.w10) & 0xFFFF); lane_v234.write(meta.idx, acc); hdr.g07.w10 = acc;
        lane_v235.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g07.w11 & 0xFFFF0000)) | ((acc + hdr.g07.w11) & 0xFFFF); lane_v235.write(meta.idx, acc); hdr.g07.w11 = acc;
        lane_v236.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g07.w12 & 0xFFFF0000)) | ((acc + hdr.g07.w12) & 0xFFFF); lane_v236.write(meta.idx, acc); hdr.g07.w12 = acc;
        lane_v237.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g07.w13 & 0xFFFF0000)) | ((acc + hdr.g07.w13) & 0xFFFF); lane_v237.write(meta.idx, acc); hdr.g07.w13 = acc;
        lane_v238.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g07.w14 & 0xFFFF0000)) | ((acc + hdr.g07.w14) & 0xFFFF); lane_v238.write(meta.idx, acc); hdr.g07.w14 = acc;
        lane_v239.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g07.w15 & 0xFFFF0000)) | ((acc + hdr.g07.w15) & 0xFFFF); lane_v239.write(meta.idx, acc); hdr.g07.w15 = acc;
        lane_v240.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g07.w16 & 0xFFFF0000)) | ((acc + hdr.g07.w16) & 0xFFFF); lane_v240.write(meta.idx, acc); hdr.g07.w16 = acc;
        lane_v241.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g07.w17 & 0xFFFF0000)) | ((acc + hdr.g07.w17) & 0xFFFF); lane_v241.write(meta.idx, acc); hdr.g07.w17 = acc;
        lane_v242.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g07.w18 & 0xFFFF0000)) | ((acc + hdr.g07.w18) & 0xFFFF); lane_v242.write(meta.idx, acc); hdr.g07.w18 = acc;
        lane_v243.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g07.w19 & 0xFFFF0000)) | ((acc + hdr.g07.w19) & 0xFFFF); lane_v243.write(meta.idx, acc); hdr.g07.w19 = acc;
        lane_v244.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g07.w20 & 0xFFFF0000)) | ((acc + hdr.g07.w20) & 0xFFFF); lane_v244.write(meta.idx, acc); hdr.g07.w20 = acc;
        lane_v245.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g07.w21 & 0xFFFF0000)) | ((acc + hdr.g07.w21) & 0xFFFF); lane_v245.write(meta.idx, acc); hdr.g07.w21 = acc;
        lane_v246.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g07.w22 & 0xFFFF0000)) | ((acc + hdr.g07.w22) & 0xFFFF); lane_v246.write(meta.idx, acc); hdr.g07.w22 = acc;
        lane_v247.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g07.w23 & 0xFFFF0000)) | ((acc + hdr.g07.w23) & 0xFFFF); lane_v247.write(meta.idx, acc); hdr.g07.w23 = acc;
        lane_v248.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g07.w24 & 0xFFFF0000)) | ((acc + hdr.g07.w24) & 0xFFFF); lane_v248.write(meta.idx, acc); hdr.g07.w24 = acc;
        lane_v249.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g07.w25 & 0xFFFF0000)) | ((acc + hdr.g07.w25) & 0xFFFF); lane_v249.write(meta.idx, acc); hdr.g07.w25 = acc;
        lane_v250.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g07.w26 & 0xFFFF0000)) | ((acc + hdr.g07.w26) & 0xFFFF); lane_v250.write(meta.idx, acc); hdr.g07.w26 = acc;
        lane_v251.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g07.w27 & 0xFFFF0000)) | ((acc + hdr.g07.w27) & 0xFFFF); lane_v251.write(meta.idx, acc); hdr.g07.w27 = acc;
        lane_v252.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g07.w28 & 0xFFFF0000)) | ((acc + hdr.g07.w28) & 0xFFFF); lane_v252.write(meta.idx, acc); hdr.g07.w28 = acc;
        lane_v253.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g07.w29 & 0xFFFF0000)) | ((acc + hdr.g07.w29) & 0xFFFF); lane_v253.write(meta.idx, acc); hdr.g07.w29 = acc;
        lane_v254.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g07.w30 & 0xFFFF0000)) | ((acc + hdr.g07.w30) & 0xFFFF); lane_v254.write(meta.idx, acc); hdr.g07.w30 = acc;
        lane_v255.read(acc, meta.idx); acc = ((acc & 0xFFFF0000) + (hdr.g07.w31 & 0xFFFF0000)) | ((acc + hdr.g07.w31) & 0xFFFF); lane_v255.write(meta.idx, acc); hdr.g07.w31 = acc;
    }

    action lanes_max_g07() {
        lane_v224.read(acc, meta.idx); acc = ((int<32>)hdr.g07.w00 > (int<32>)acc) ? hdr.g07.w00 : acc; lane_v224.write(meta.idx, acc); hdr.g07.w00 = acc;
        lane_v225.read(acc, meta.idx); acc = ((int<32>)hdr.g07.w01 > (int<32>)acc) ? hdr.g07.w01 : acc; lane_v225.write(meta.idx, acc); hdr.g07.w01 = acc;
        lane_v226.read(acc, meta.idx); acc = ((int<32>)hdr.g07.w02 > (int<32>)acc) ? hdr.g07.w02 : acc; lane_v226.write(meta.idx, acc); hdr.g07.w02 = acc;
        lane_v227.read(acc, meta.idx); acc = ((int<32>)hdr.g07.w03 > (int<32>)acc) ? hdr.g07.w03 : acc; lane_v227.write(meta.idx, acc); hdr.g07.w03 = acc;
        lane_v228.read(acc, meta.idx); acc = ((int<32>)hdr.g07.w04 > (int<32>)acc) ? hdr.g07.w04 : acc; lane_v228.write(meta.idx, acc); hdr.g07.w04 = acc;
        lane_v229.read(acc, meta.idx); acc = ((int<32>)hdr.g07.w05 > (int<32>)acc) ? hdr.g07.w05 : acc; lane_v229.write(meta.idx, acc); hdr.g07.w05 = acc;
        lane_v230.read(acc, meta.idx); acc = ((int<32>)hdr.g07.w06 > (int<32>)acc) ? hdr.g07.w06 : acc; lane_v230.write(meta.idx, acc); hdr.g07.w06 = acc;
        lane_v231.read(acc, meta.idx); acc = ((int<32>)hdr.g07.w07 > (int<32>)acc) ? hdr.g07.w07 : acc; lane_v231.write(meta.idx, acc); hdr.g07.w07 = acc;
        lane_v232.read(acc, meta.idx); acc = ((int<32>)hdr.g07.w08 > (int<32>)acc) ? hdr.g07.w08 : acc; lane_v232.write(meta.idx, acc); hdr.g07.w08 = acc;
        lane_v233.read(acc, meta.idx); acc = ((int<32>)hdr.g07.w09 > (int<32>)acc) ? hdr.g07.w09 : acc; lane_v233.write(meta.idx, acc); hdr.g07.w09 = acc;
        lane_v234.read(acc, meta.idx); acc = ((int<32>)hdr.g07.w10 > (int<32>)acc) ? hdr.g07.w10 : acc; lane_v234.write(meta.idx, acc); hdr.g07.w10 = acc;
        lane_v235.read(acc, meta.idx); acc = ((int<32>)hdr.g07.w11 > (int<32>)acc) ? hdr.g07.w11 : acc; lane_v235.write(meta.idx, acc); hdr.g07.w11 = acc;
        lane_v236.read(acc, meta.idx); acc = ((int<32>)hdr.g07.w12 > (int<32>)acc) ? hdr.g07.w12 : acc; lane_v236.write(meta.idx, acc); hdr.g07.w12 = acc;
        lane_v237.read(acc, meta.idx); acc = ((int<32>)hdr.g07.w13 > (int<32>)acc) ? hdr.g07.w13 : acc; lane_v237.write(meta.idx, acc); hdr.g07.w13 = acc;
        lane_v238.read(acc, meta.idx); acc = ((int<32>)hdr.g07.w14 > (int<32>)acc) ? hdr.g07.w14 : acc; lane_v238.write(meta.idx, acc); hdr.g07.w14 = acc;
        lane_v239.read(acc, meta.idx); acc = ((int<32>)hdr.g07.w15 > (int<32>)acc) ? hdr.g07.w15 : acc; lane_v239.write(meta.idx, acc); hdr.g07.w15 = acc;
        lane_v240.read(acc, meta.idx); acc = ((int<32>)hdr.g07.w16 > (int<32>)acc) ? hdr.g07.w16 : acc; lane_v240.write(meta.idx, acc); hdr.g07.w16 = acc;
        lane_v241.read(acc, meta.idx); acc = ((int<32>)hdr.g07.w17 > (int<32>)acc) ? hdr.g07.w17 : acc; lane_v241.write(meta.idx, acc); hdr.g07.w17 = acc;
        lane_v242.read(acc, meta.idx); acc = ((int<32>)hdr.g07.w18 > (int<32>)acc) ? hdr.g07.w18 : acc; lane_v242.write(meta.idx, acc); hdr.g07.w18 = acc;
        lane_v243.read(acc, meta.idx); acc = ((int<32>)hdr.g07.w19 > (int<32>)acc) ? hdr.g07.w19 : acc; lane_v243.write(meta.idx, acc); hdr.g07.w19 = acc;
        lane_v244.read(acc, meta.idx); acc = ((int<32>)hdr.g07.w20 > (int<32>)acc) ? hdr.g07.w20 : acc; lane_v244.write(meta.idx, acc); hdr.g07.w20 = acc;
        lane_v245.read(acc, meta.idx); acc = ((int<32>)hdr.g07.w21 > (int<32>)acc) ? hdr.g07.w21 : acc; lane_v245.write(meta.idx, acc); hdr.g07.w21 = acc;
        lane_v246.read(acc, meta.idx); acc = ((int<32>)hdr.g07.w22 > (int<32>)acc) ? hdr.g07.w22 : acc; lane_v246.write(meta.idx, acc); hdr.g07.w22 = acc;
        lane_v247.read(acc, meta.idx); acc = ((int<32>)hdr.g07.w23 > (int<32>)acc) ? hdr.g07.w23 : acc; lane_v247.write(meta.idx, acc); hdr.g07.w23 = acc;
        lane_v248.read(acc, meta.idx); acc = ((int<32>)hdr.g07.w24 > (int<32>)acc) ? hdr.g07.w24 : acc; lane_v248.write(meta.idx, acc); hdr.g07.w24 = acc;
        lane_v249.read(acc, meta.idx); acc = ((int<32>)hdr.g07.w25 > (int<32>)acc) ? hdr.g07.w25 : acc; lane_v249.write(meta.idx, acc); hdr.g07.w25 = acc;
        lane_v250.read(acc, meta.idx); acc = ((int<32>)hdr.g07.w26 > (int<32>)acc) ? hdr.g07.w26 : acc; lane_v250.write(meta.idx, acc); hdr.g07.w26 = acc;
        lane_v251.read(acc, meta.idx); acc = ((int<32>)hdr.g07.w27 > (int<32>)acc) ? hdr.g07.w27 : acc; lane_v251.write(meta.idx, acc); hdr.g07.w27 = acc;
        lane_v252.read(acc, meta.idx); acc = ((int<32>)hdr.g07.w28 > (int<32>)acc) ? hdr.g07.w28 : acc; lane_v252.write(meta.idx, acc); hdr.g07.w28 = acc;
        lane_v253.read(acc, meta.idx); acc = ((int<32>)hdr.g07.w29 > (int<32>)acc) ? hdr.g07.w29 : acc; lane_v253.write(meta.idx, acc); hdr.g07.w29 = acc;
        lane_v254.read(acc, meta.idx); acc = ((int<32>)hdr.g07.w30 > (int<32>)acc) ? hdr.g07.w30 : acc; lane_v254.write(meta.idx, acc); hdr.g07.w30 = acc;
        lane_v255.read(acc, meta.idx); acc = ((int<32>)hdr.g07.w31 > (int<32>)acc) ? hdr.g07.w31 : acc; lane_v255.write(meta.idx, acc); hdr.g07.w31 = acc;
    }

    action lanes_load_g07() {
        lane_v224.read(hdr.g07.w00, meta.idx);
        lane_v225.read(hdr.g07.w01, meta.idx);
        lane_v226.read(hdr.g07.w02, meta.idx);
        lane_v227.read(hdr.g07.w03, meta.idx);
        lane_v228.read(hdr.g07.w04, meta.idx);
        lane_v229.read(hdr.g07.w05, meta.idx);
        lane_v230.read(hdr.g07.w06, meta.idx);
        lane_v231.read(hdr.g07.w07, meta.idx);
        lane_v232.read(hdr.g07.w08, meta.idx);
        lane_v233.read(hdr.g07.w09, meta.idx);
        lane_v234.read(hdr.g07.w10, meta.idx);
        lane_v235.read(hdr.g07.w11, meta.idx);
        lane_v236.read(hdr.g07.w12, meta.idx);
        lane_v237.read(hdr.g07.w13, meta.idx);
        lane_v238.read(hdr.g07.w14, meta.idx);
        lane_v239.read(hdr.g07.w15, meta.idx);
        lane_v240.read(hdr.g07.w16, meta.idx);
        lane_v241.read(hdr.g07.w17, meta.idx);
        lane_v242.read(hdr.g07.w18, meta.idx);
        lane_v243.read(hdr.g07.w19, meta.idx);
        lane_v244.read(hdr.g07.w20, meta.idx);
        lane_v245.read(hdr.g07.w21, meta.idx);
        lane_v246.read(hdr.g07.w22, meta.idx);
        lane_v247.read(hdr.g07.w23, meta.idx);
        lane_v248.read(hdr.g07.w24, meta.idx);
        lane_v249.read(hdr.g07.w25, meta.idx);
        lane_v250.read(hdr.g07.w26, meta.idx);
        lane_v251.read(hdr.g07.w27, meta.idx);
        lane_v252.read(hdr.g07.w28, meta.idx);
        lane_v253.read(hdr.g07.w29, meta.idx);
        lane_v254.read(hdr.g07.w30, meta.idx);
        lane_v255.read(hdr.g07.w31, meta.idx);
    }

    /* The packet leaves as a result from this aggregator address: UDP checksum 0 (none),
     * since the payload changed. */
    action result_from_aggregator() {
        hdr.ina.flags = FLAG_RESULT | (hdr.ina.flags & (FLAG_LANES16 | FLAG_MAX | FLAG_OVERFLOW));
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

    /* The complete slot becomes one worker's gradient in the parent job. */
    action send_upstream(bit<8> flags) {
        hdr.ina.flags = flags | (hdr.ina.flags & (FLAG_LANES16 | FLAG_MAX | FLAG_OVERFLOW));
        hdr.ina.job_id = meta.up_job;
        hdr.ina.worker_id = meta.up_worker;
        hdr.ipv4.srcAddr = hdr.ipv4.dstAddr;
        hdr.ipv4.dstAddr = meta.up_addr;
        hdr.ipv4.ttl = 64;
        hdr.udp.srcPort = INA_PORT;
        hdr.udp.dstPort = INA_PORT;
        hdr.udp.checksum = 0;
        ina_handled.count(HANDLED_UPSTREAM);
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
            } else if (hdr.ina.groups == 0 || hdr.ina.groups > INA_GROUPS
                       || hdr.ipv4.ihl != 5
                       || hdr.ipv4.totalLen
                          != INA_IP_BASE + (bit<16>)hdr.ina.groups * INA_GROUP_BYTES
                       || hdr.udp.length
                          != INA_UDP_BASE + (bit<16>)hdr.ina.groups * INA_GROUP_BYTES
                       || standard_metadata.parser_error != error.NoError) {
                count_drop(DROP_BAD_LENGTH);
            } else {
                meta.job_kind = JOB_UNKNOWN;
                ina_job.apply();
                if (meta.job_kind == JOB_UNKNOWN) {
                    count_drop(DROP_UNKNOWN_JOB);
                } else if (meta.job_kind == JOB_RELAY) {
                    if ((hdr.ina.flags & FLAG_RESULT) == 0) {
                        count_drop(DROP_BAD_TYPE);
                    } else {
                        hdr.ina.job_id = meta.relay_job;
                        send_multicast();
                        ina_handled.count(HANDLED_RELAYED);
                    }
                } else if ((hdr.ina.flags & (FLAG_GRADIENT | FLAG_RESULT)) != FLAG_GRADIENT
                           || (hdr.ina.flags & (FLAG_LANES16 | FLAG_MAX))
                              == (FLAG_LANES16 | FLAG_MAX)) {
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
                    bit<8> next_exponent;
                    bit<8> overflow;
                    bit<8> groups;
                    bit<8> packet_lanes = hdr.ina.flags & (FLAG_LANES16 | FLAG_MAX);
                    slot_bitmap.read(bitmap, meta.idx);
                    slot_lanes.read(lanes, meta.idx);
                    slot_count.read(count, meta.idx);
                    slot_exponent.read(exponent, meta.idx);
                    slot_chunk.read(chunk, meta.idx);
                    slot_next_exponent.read(next_exponent, meta.idx);
                    slot_overflow.read(overflow, meta.idx);
                    slot_groups.read(groups, meta.idx);
                    bit<32> age = hdr.ina.chunk - chunk;
                    bool contributes = false;
                    if (count == 0 || (age != 0 && age < 0x80000000)) {
                        /* first contribution of a new round: reset the slot */
                        if (hdr.g00.isValid()) { lanes_store_g00(); }
                        if (hdr.g01.isValid()) { lanes_store_g01(); }
                        if (hdr.g02.isValid()) { lanes_store_g02(); }
                        if (hdr.g03.isValid()) { lanes_store_g03(); }
                        if (hdr.g04.isValid()) { lanes_store_g04(); }
                        if (hdr.g05.isValid()) { lanes_store_g05(); }
                        if (hdr.g06.isValid()) { lanes_store_g06(); }
                        if (hdr.g07.isValid()) { lanes_store_g07(); }
                        bitmap = wbit;
                        count = 1;
                        slot_exponent.write(meta.idx, (bit<8>)hdr.ina.exponent);
                        slot_chunk.write(meta.idx, hdr.ina.chunk);
                        slot_lanes.write(meta.idx, packet_lanes);
                        slot_next_exponent.write(meta.idx, (bit<8>)hdr.ina.next_exponent);
                        slot_overflow.write(meta.idx, hdr.ina.flags & FLAG_OVERFLOW);
                        slot_groups.write(meta.idx, hdr.ina.groups);
                        contributes = true;
                    } else if (age != 0) {
                        count_drop(DROP_STALE);
                    } else if (hdr.ina.groups != groups) {
                        count_drop(DROP_BAD_LENGTH);      /* the round has another length */
                    } else if ((bitmap & wbit) == 0) {
                        if (count == meta.n_workers) {
                            count_drop(DROP_STALE);
                        } else if (packet_lanes != lanes) {
                            count_drop(DROP_BAD_TYPE);
                        } else {
                            if (packet_lanes == FLAG_MAX) {
                                if (hdr.g00.isValid()) { lanes_max_g00(); }
                                if (hdr.g01.isValid()) { lanes_max_g01(); }
                                if (hdr.g02.isValid()) { lanes_max_g02(); }
                                if (hdr.g03.isValid()) { lanes_max_g03(); }
                                if (hdr.g04.isValid()) { lanes_max_g04(); }
                                if (hdr.g05.isValid()) { lanes_max_g05(); }
                                if (hdr.g06.isValid()) { lanes_max_g06(); }
                                if (hdr.g07.isValid()) { lanes_max_g07(); }
                            } else if (packet_lanes != 0) {
                                if (hdr.g00.isValid()) { lanes_add16_g00(); }
                                if (hdr.g01.isValid()) { lanes_add16_g01(); }
                                if (hdr.g02.isValid()) { lanes_add16_g02(); }
                                if (hdr.g03.isValid()) { lanes_add16_g03(); }
                                if (hdr.g04.isValid()) { lanes_add16_g04(); }
                                if (hdr.g05.isValid()) { lanes_add16_g05(); }
                                if (hdr.g06.isValid()) { lanes_add16_g06(); }
                                if (hdr.g07.isValid()) { lanes_add16_g07(); }
                            } else {
                                if (hdr.g00.isValid()) { lanes_add_g00(); }
                                if (hdr.g01.isValid()) { lanes_add_g01(); }
                                if (hdr.g02.isValid()) { lanes_add_g02(); }
                                if (hdr.g03.isValid()) { lanes_add_g03(); }
                                if (hdr.g04.isValid()) { lanes_add_g04(); }
                                if (hdr.g05.isValid()) { lanes_add_g05(); }
                                if (hdr.g06.isValid()) { lanes_add_g06(); }
                                if (hdr.g07.isValid()) { lanes_add_g07(); }
                            }
                            bitmap = bitmap | wbit;
                            count = count + 1;
                            if (hdr.ina.exponent > (int<8>)exponent) {
                                slot_exponent.write(meta.idx, (bit<8>)hdr.ina.exponent);
                            } else {
                                hdr.ina.exponent = (int<8>)exponent;
                            }
                            if (hdr.ina.next_exponent > (int<8>)next_exponent) {
                                slot_next_exponent.write(meta.idx,
                                                         (bit<8>)hdr.ina.next_exponent);
                            } else {
                                hdr.ina.next_exponent = (int<8>)next_exponent;
                            }
                            if ((hdr.ina.flags & FLAG_OVERFLOW) != 0) {
                                slot_overflow.write(meta.idx, FLAG_OVERFLOW);
                            } else {
                                hdr.ina.flags = hdr.ina.flags | overflow;
                            }
                            contributes = true;
                        }
                    } else if (count == meta.n_workers) {
                        /* retransmission after completion: the worker missed the result */
                        if (hdr.g00.isValid()) { lanes_load_g00(); }
                        if (hdr.g01.isValid()) { lanes_load_g01(); }
                        if (hdr.g02.isValid()) { lanes_load_g02(); }
                        if (hdr.g03.isValid()) { lanes_load_g03(); }
                        if (hdr.g04.isValid()) { lanes_load_g04(); }
                        if (hdr.g05.isValid()) { lanes_load_g05(); }
                        if (hdr.g06.isValid()) { lanes_load_g06(); }
                        if (hdr.g07.isValid()) { lanes_load_g07(); }
                        hdr.ina.exponent = (int<8>)exponent;
                        hdr.ina.next_exponent = (int<8>)next_exponent;
                        hdr.ina.flags = (hdr.ina.flags & ~FLAG_OVERFLOW) | overflow;
                        hdr.ina.n_workers = count;
                        if (meta.upstream == 1) {
                            send_upstream(FLAG_GRADIENT | FLAG_RETRANSMIT);
                        } else {
                            send_unicast();
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
                        } else if (meta.upstream == 1) {
                            send_upstream(FLAG_GRADIENT);
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
        packet.emit(hdr.g00);
        packet.emit(hdr.g01);
        packet.emit(hdr.g02);
        packet.emit(hdr.g03);
        packet.emit(hdr.g04);
        packet.emit(hdr.g05);
        packet.emit(hdr.g06);
        packet.emit(hdr.g07);
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
