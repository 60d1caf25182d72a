/* The v1model traffic manager over the generated blocks, in the order of
 * testbed/p4/python/target.py (itself BMv2's simple_switch): ingress passes (received,
 * resubmitted, recirculated) and egress jobs (unicast, multicast replicas, clones) run
 * from two FIFO queues until both are empty; then the entry points of the control plane. */
#include <sys/epoll.h>
#include <time.h>

#define DROP_PORT 511
#define MAX_PASSES 16
enum { NORMAL = 0, I2E_T = 1, E2E_T = 2, RECIRC = 4, REPLICATION = 5, RESUBMIT = 6 };

/* ``group``: the multicast fan-out a replica belongs to (0: not a replica). */
typedef struct { hdr_t hdr; meta_t meta; sm_t sm; const uint8_t *payload;
                 uint32_t payload_len, port, group; uint64_t trunc; } job_t;
typedef struct { const uint8_t *frame; uint32_t len, port, itype; int fl; meta_t kept; } pass_t;

typedef struct {
    job_t *jobs; uint32_t jhead, jtail, jcap;
    pass_t *passes; uint32_t phead, ptail, pcap;
    uint8_t **owned; uint32_t nowned, ocap;   /* recirculated frames, freed per call */
    /* replicas (PATCH_REPLICAS): the fan-outs so far, and the group whose first deparsed
     * replica is kept, tmpl_len bytes at tmpl_off in the output arena or in tmpl */
    uint32_t groups, tmpl_group, tmpl_len, tmpl_arena;
    size_t tmpl_off, tmpl_cap;
    uint8_t *tmpl;
} queues_t;

static __thread queues_t Q;   /* one call at a time per thread */

static job_t *push_job(void) {
    if (Q.jtail == Q.jcap) {
        Q.jcap = Q.jcap ? Q.jcap * 2 : 8;
        Q.jobs = realloc(Q.jobs, sizeof(job_t) * Q.jcap);
    }
    return &Q.jobs[Q.jtail++];
}

static pass_t *push_pass(void) {
    if (Q.ptail == Q.pcap) {
        Q.pcap = Q.pcap ? Q.pcap * 2 : 4;
        Q.passes = realloc(Q.passes, sizeof(pass_t) * Q.pcap);
    }
    return &Q.passes[Q.ptail++];
}

static void fail(sw_t *S, pkt_t *P) {
    if (P->failed == FAILED_STACK) {
        S->base.drops[DROP_STACK]++;
        return;
    }
    S->base.drops[DROP_ASSERT]++;
    S->base.failed_at = P->failed;
}

static void fresh_state(pkt_t *P) {
    memset(P->colors, 0, sizeof P->colors);
    P->stop = 0;
    P->failed = 0;
    P->clone_type = 0;
    P->clone_fl = P->resubmit_fl = P->recirc_fl = -1;
    P->clone_session = P->trunc = P->checksum_error = 0;
}

/* A freshly parsed packet, its metadata restored from ``kept`` (field list ``fl``). */
static void parsed(sw_t *S, pkt_t *P, const uint8_t *frame, uint32_t len, uint32_t port,
                   uint32_t itype, int fl, const meta_t *kept) {
    memset(P, 0, sizeof *P);
    P->S = S;
    fresh_state(P);
    P->sm.f_ingress_port = port;
    P->sm.f_packet_length = len;
    P->sm.f_instance_type = itype;
    P->sm.f_ingress_global_timestamp = S->base.now;
    if (kept) restore_fields(fl, &P->meta, kept);
    P->sm.f_parser_error = parse(P, frame, len * 8);
    P->plen = len;
    P->payload = frame + (P->off >> 3);
    P->payload_len = len - (P->off >> 3);
}

static job_t *egress_job(pkt_t *P, uint32_t port, uint64_t trunc) {
    job_t *j = push_job();
    j->hdr = P->hdr;
    j->meta = P->meta;
    j->sm = P->sm;
    j->payload = P->payload;
    j->payload_len = P->payload_len;
    j->port = port;
    j->group = 0;
    j->trunc = trunc;
    return j;
}

static void egress_packet(sw_t *S, pkt_t *P, uint32_t port, uint64_t jtrunc, uint32_t group);
static void replicate_in_place(sw_t *S, pkt_t *P, const group_t *g, uint32_t group);

static void traffic_manager(sw_t *S, pkt_t *P, const uint8_t *frame, uint32_t len,
                            uint32_t port) {
    if (P->clone_type == I2E_T) {
        group_t *g = session_find(&S->base, P->clone_session);
        if (!g) S->base.drops[DROP_CLONE]++;
        for (uint32_t i = 0; g && i < g->n; i++) {
            pkt_t c;
            parsed(S, &c, frame, len, port, I2E_T, P->clone_fl, &P->meta);
            c.sm.f_egress_rid = g->rids[i];
            egress_job(&c, g->ports[i], g->trunc);
        }
    }
    if (P->resubmit_fl >= 0) {
        pass_t *p = push_pass();
        *p = (pass_t){frame, len, port, RESUBMIT, P->resubmit_fl, P->meta};
        return;
    }
    if (P->sm.f_mcast_grp) {
        group_t *g = &S->base.mc[P->sm.f_mcast_grp];
        if (!g->ports) {
            S->base.drops[DROP_MCAST]++;
            return;
        }
        sm_t sm = P->sm;
        if (!++Q.groups) ++Q.groups;
#if PATCH_REPLICAS
        if (Q.jhead == Q.jtail)     /* nothing queued before them: egress now, in place */
            return replicate_in_place(S, P, g, Q.groups);
#endif
        for (uint32_t i = 0; i < g->n; i++) {
            P->sm = sm;
            P->sm.f_egress_rid = g->rids[i];
            P->sm.f_instance_type = REPLICATION;
            egress_job(P, g->ports[i], P->trunc)->group = Q.groups;
        }
        return;
    }
    if (P->sm.f_egress_spec == DROP_PORT) {
        S->base.drops[DROP_INGRESS]++;
        return;
    }
    if (Q.jhead == Q.jtail)       /* nothing queued before it: egress now, in place */
        egress_packet(S, P, P->sm.f_egress_spec, P->trunc, 0);
    else
        egress_job(P, P->sm.f_egress_spec, P->trunc);
}

static void run_ingress(sw_t *S, const uint8_t *frame, uint32_t len, uint32_t port,
                        uint32_t itype, int fl, const meta_t *kept) {
    pkt_t P;
    uint32_t digests = S->base.digests.len;   /* a failed packet sends none */
    parsed(S, &P, frame, len, port, itype, fl, kept);
    ctl_verify_checksum(&P);
    if (P.failed) return fail(S, &P);
    P.sm.f_checksum_error = P.checksum_error;
    P.stop = 0;
    ctl_ingress(&P);
    if (P.failed) {
        S->base.digests.len = digests;
        return fail(S, &P);
    }
    traffic_manager(S, &P, frame, len, port);
}

/* The packet deparsed into ``data``, its length returned. A multicast replica whose
 * group's first replica is kept is that replica's bytes with the header fields egress and
 * compute_checksum may write stored again (deparse_patch: the programs where nothing else
 * can differ between replicas, cgen_replicas.py); any other is deparsed in full. */
static uint32_t deparse_replica(sw_t *S, pkt_t *P, uint8_t *data, uint32_t group) {
#if PATCH_REPLICAS
    if (group && group == Q.tmpl_group) {
        memcpy(data, Q.tmpl_arena ? S->base.out_data + Q.tmpl_off : Q.tmpl, Q.tmpl_len);
        S->base.replicas[1]++;
        return deparse_patch(P, data);
    }
#endif
    S->base.replicas[0] += group != 0;
    return deparse(P, data);
}

/* Keeps a group's first deparsed replica, ``n`` bytes at ``data``: by its place in the
 * output arena when it is committed there whole (``in_arena``), else copied. */
static void keep_replica(sw_t *S, uint32_t group, const uint8_t *data, uint32_t n,
                         int in_arena) {
#if PATCH_REPLICAS
    if (!group || group == Q.tmpl_group) return;
    Q.tmpl_group = group;
    Q.tmpl_len = n;
    Q.tmpl_arena = in_arena;
    if (in_arena) {
        Q.tmpl_off = data - S->base.out_data;
        return;
    }
    if (n > Q.tmpl_cap) {
        Q.tmpl_cap = n;
        Q.tmpl = realloc(Q.tmpl, n);
    }
    memcpy(Q.tmpl, data, n);
#else
    (void)S; (void)group; (void)data; (void)n; (void)in_arena;
#endif
}

/* Egress of a packet whose headers, metadata, standard metadata and payload are set,
 * towards ``port``, truncated to ``jtrunc`` bytes (0: whole) by its clone session;
 * ``group``: its multicast fan-out, 0 if it is not a replica. */
static void egress_packet(sw_t *S, pkt_t *P, uint32_t port, uint64_t jtrunc,
                          uint32_t group) {
    if (P->sm.f_priority >= 1) {          /* one egress queue: as BMv2, no queue, dropped */
        S->base.drops[DROP_PRIORITY]++;
        return;
    }
    fresh_state(P);
    P->sm.f_egress_port = port;
    P->sm.f_egress_spec = 0;
    P->sm.f_enq_timestamp = S->base.now & 0xFFFFFFFFu;
    P->sm.f_egress_global_timestamp = S->base.now;
    P->plen = P->sm.f_packet_length;
    ctl_egress(P);
    if (P->failed) return fail(S, P);
    if (P->clone_type == E2E_T) {
        group_t *g = session_find(&S->base, P->clone_session);
        if (!g) S->base.drops[DROP_CLONE]++;
        for (uint32_t i = 0; g && i < g->n; i++) {
            pkt_t c;
            memset(&c, 0, sizeof c);
            c.hdr = P->hdr;
            restore_fields(P->clone_fl, &c.meta, &P->meta);
            c.sm.f_ingress_port = P->sm.f_ingress_port;
            c.sm.f_packet_length = P->sm.f_packet_length;
            c.sm.f_ingress_global_timestamp = P->sm.f_ingress_global_timestamp;
            c.sm.f_instance_type = E2E_T;
            c.sm.f_egress_rid = g->rids[i];
            c.payload = P->payload;
            c.payload_len = P->payload_len;
            egress_job(&c, g->ports[i], g->trunc);
        }
    }
    if (P->sm.f_egress_spec == DROP_PORT) {
        S->base.drops[DROP_EGRESS]++;
        return;
    }
    P->stop = 0;
    ctl_compute_checksum(P);
    if (P->failed) return fail(S, P);
    uint8_t *data = out_reserve(&S->base, HDR_BYTES + P->payload_len);
    uint32_t n = deparse_replica(S, P, data, group);
    if (P->recirc_fl >= 0) {
        keep_replica(S, group, data, n, 0);
        uint8_t *copy = malloc(n ? n : 1);
        memcpy(copy, data, n);
        if (Q.nowned == Q.ocap) {
            Q.ocap = Q.ocap ? Q.ocap * 2 : 4;
            Q.owned = realloc(Q.owned, sizeof(uint8_t *) * Q.ocap);
        }
        Q.owned[Q.nowned++] = copy;
        pass_t *p = push_pass();
        *p = (pass_t){copy, n, P->sm.f_ingress_port, RECIRC, P->recirc_fl, P->meta};
        return;
    }
    uint64_t limit = P->trunc && jtrunc ? (P->trunc < jtrunc ? P->trunc : jtrunc)
                                         : (P->trunc ? P->trunc : jtrunc);
    keep_replica(S, group, data, n, !limit || limit >= n);
    if (limit && limit < n) n = limit;
    out_commit(&S->base, port, n);
}

#if PATCH_REPLICAS
/* The replicas of multicast group ``g`` one after another on the ingress's packet ``P``,
 * as run_egress would run their jobs (which would be next in the queue), without a copy
 * of the headers per replica: the fields egress may write (cgen_replicas.py) are put back
 * before each next replica, the metadata and standard metadata copied, the rest of the
 * packet's state zeroed. */
static void replicate_in_place(sw_t *S, pkt_t *P, const group_t *g, uint32_t group) {
    replica_kept_t kept;
    replica_keep(&P->hdr, &kept);
    meta_t meta = P->meta;
    sm_t sm = P->sm;
    const uint8_t *payload = P->payload;
    uint32_t payload_len = P->payload_len;
    uint64_t trunc = P->trunc;
    size_t tail = offsetof(pkt_t, sm) + sizeof P->sm;
    for (uint32_t i = 0; i < g->n; i++) {
        if (i) {
            replica_restore(&P->hdr, &kept);
            P->meta = meta;
        }
        memset((uint8_t *)P + tail, 0, sizeof *P - tail);
        P->payload = payload;
        P->payload_len = payload_len;
        P->sm = sm;
        P->sm.f_egress_rid = g->rids[i];
        P->sm.f_instance_type = REPLICATION;
        egress_packet(S, P, g->ports[i], trunc, group);
    }
}
#endif

/* ``j`` may move when egress queues more jobs: it is read before egress starts. */
static void run_egress(sw_t *S, const job_t *j) {
    pkt_t P;
    size_t kept = offsetof(pkt_t, sm) + sizeof P.sm;     /* the job's; the rest zeroed */
    memset((uint8_t *)&P + kept, 0, sizeof P - kept);
    P.S = S;
    P.hdr = j->hdr;
    P.meta = j->meta;
    P.sm = j->sm;
    P.payload = j->payload;
    P.payload_len = j->payload_len;
    egress_packet(S, &P, j->port, j->trunc, j->group);
}

/* One frame through the pipeline, its outputs appended to the output arena. */
static void run_frame(sw_t *S, const uint8_t *frame, uint32_t len, uint32_t port) {
    Q.jhead = Q.jtail = Q.phead = Q.ptail = 0;
    Q.tmpl_group = 0;
    run_ingress(S, frame, len, port, NORMAL, -1, NULL);
    int count = 1;
    while (Q.jhead < Q.jtail || Q.phead < Q.ptail) {
        while (Q.jhead < Q.jtail) run_egress(S, &Q.jobs[Q.jhead++]);
        if (Q.phead == Q.ptail) break;
        if (++count > MAX_PASSES) {
            S->base.drops[DROP_LOOP]++;
            break;
        }
        pass_t p = Q.passes[Q.phead++];
        run_ingress(S, p.frame, p.len, p.port, p.itype, p.fl, &p.kept);
    }
    for (uint32_t i = 0; i < Q.nowned; i++) free(Q.owned[i]);
    Q.nowned = 0;
}

static void out_clear(sw_t *S, uint64_t now) {
    S->base.now = now;
    S->base.out_n = 0;
    S->base.out_len = 0;
    S->base.digests.len = S->base.logs.len = 0;
}

/* The outputs towards a port with a socket of its own (sw_direct) leave on it, batched
 * (packet_io.c), are counted and taken out of the output arena; the caller gets the
 * others, in their order. A batch across ports goes port by port (a multicast result's
 * copies are not interleaved), so the receiving side of each port is scheduled once per
 * batch rather than once per frame. */
static void send_direct(sw_t *S) {
    base_t *b = &S->base;
    if (!b->ndirect || !b->out_n) return;
    if (b->out_n > b->pick_cap) {
        b->pick_cap = b->out_n * 2;
        b->pick = realloc(b->pick, sizeof(uint32_t) * b->pick_cap);
    }
    uint32_t m = 0;
    for (uint32_t d = 0; d < b->ndirect; d++) {       /* port by port, in order within one */
        uint32_t port = b->direct_ports[d], first = m;
        for (uint32_t i = 0; i < b->out_n; i++)
            if (b->out_port[i] == port) b->pick[m++] = i;
        if (b->ifindex[port] < 0) {                  /* its interface is gone: refused */
            b->direct[port][2] += m - first;
            for (uint32_t k = first; k < m; k++) b->direct[port][3] += b->out_size[b->pick[k]];
            m = first;
        } else if (b->shared_fd < 0 && m > first) {   /* each port on its own socket */
            io_send(b->direct_fd[port], b->out_data, b->out_off, b->out_size, b->pick + first,
                    m - first, b->direct[port]);
            m = first;
        }
    }
    if (m)                                           /* every direct port's frames in one batch */
        io_send_ports(b->shared_fd, b->out_data, b->out_off, b->out_size, b->pick, m,
                      b->out_port, b->ifindex, b->direct);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < b->out_n; i++) {
        uint32_t port = b->out_port[i];
        if (port < NPORTS && b->direct_fd[port] >= 0) continue;
        b->out_port[kept] = port;
        b->out_off[kept] = b->out_off[i];
        b->out_size[kept++] = b->out_size[i];
    }
    b->out_n = kept;
}

/* From now on ``port``'s outputs of sw_process_many and sw_process_rings leave on the
 * socket ``fd`` (-1: they stay in the output arena again). */
void sw_direct(sw_t *S, uint32_t port, int32_t fd) {
    base_t *b = &S->base;
    if (port >= NPORTS) return;
    b->direct_fd[port] = fd;
    b->ndirect = 0;
    for (uint32_t p = 0; p < NPORTS; p++)
        if (b->direct_fd[p] >= 0) b->direct_ports[b->ndirect++] = p;
}

/* From now on the outputs of the ports sending directly leave together on ``fd``, a
 * packet socket bound to no interface, port p's to interface ifindex[p] (given by
 * sw_ifindex); -1: each on its port's own socket again. */
void sw_direct_shared(sw_t *S, int32_t fd) { S->base.shared_fd = fd; }

/* ifindex -1: the port's interface is gone; its frames are counted as refused, not sent
 * (no system call per frame for an interface that cannot take them). */
void sw_ifindex(sw_t *S, uint32_t port, int32_t ifindex) {
    if (port < NPORTS) S->base.ifindex[port] = ifindex;
}

/* Per port: frames sent on its socket, their bytes, frames the kernel refused, their
 * bytes. */
uint64_t *sw_direct_counts(sw_t *S) { return &S->base.direct[0][0]; }

/* One frame through the pipeline; the frames that leave are in the output arena. */
uint32_t sw_process(sw_t *S, const uint8_t *frame, uint32_t len, uint32_t port,
                    uint64_t now) {
    out_clear(S, now);
    run_frame(S, frame, len, port);
    return S->base.out_n;
}

/* ``n`` frames received on ``port`` (frame i at data + offs[i], lens[i] bytes), in
 * order; the frames that leave, but those sent on a port's own socket, are in the output
 * arena. */
uint32_t sw_process_many(sw_t *S, const uint8_t *data, const uint32_t *offs,
                         const uint32_t *lens, uint32_t n, uint32_t port, uint64_t now) {
    out_clear(S, now);
    for (uint32_t i = 0; i < n; i++) run_frame(S, data + offs[i], lens[i], port);
    send_direct(S);
    return S->base.out_n;
}

/* A PACKET_MMAP receive ring (TPACKET_V2) of ``slots`` slots of ``slot_bytes`` is read
 * in place: each frame run through the pipeline where it lies (a VLAN tag the kernel
 * took out put back first), its slot handed back to the kernel; frames cut by the ring
 * (larger than a slot) are skipped. testbed/switch/ports.py reads the same ring in
 * Python. */
typedef struct { uint32_t status, len, snaplen; uint16_t mac, net; uint32_t sec, nsec;
                 uint16_t tci, tpid; } tpacket2_t;
enum { TP_USER = 1, TP_VLAN_VALID = 0x10, TP_VLAN_TPID_VALID = 0x40 };

/* The frames of one ring from slot *next on, at most ``limit``, run into the output
 * arena; counts[0] += frames run, counts[1] += frames skipped. Returns the slots it
 * handed back. */
static uint32_t ring_run(sw_t *S, uint8_t *ring, uint32_t slot_bytes, uint32_t slots,
                         uint32_t *next, uint32_t limit, uint32_t port, uint32_t *counts) {
    uint32_t i = *next, k = 0;
    for (; k < limit; k++) {
        tpacket2_t *h = (tpacket2_t *)(ring + (size_t)i * slot_bytes);
        uint32_t status = __atomic_load_n(&h->status, __ATOMIC_ACQUIRE);
        if (!(status & TP_USER)) break;
        const uint8_t *frame = (const uint8_t *)h + h->mac;
        uint32_t len = h->snaplen;
        if (len != h->len) {
            counts[1]++;
        } else {
            if (status & TP_VLAN_VALID && len >= 12) {
                uint16_t tpid = status & TP_VLAN_TPID_VALID ? h->tpid : 0x8100;
                uint8_t *tagged = scratch(&S->base, len + 4);
                memcpy(tagged, frame, 12);
                tagged[12] = tpid >> 8; tagged[13] = (uint8_t)tpid;
                tagged[14] = h->tci >> 8; tagged[15] = (uint8_t)h->tci;
                memcpy(tagged + 16, frame + 12, len - 12);
                frame = tagged;
                len += 4;
            }
            run_frame(S, frame, len, port);
            counts[0]++;
        }
        __atomic_store_n(&h->status, 0, __ATOMIC_RELEASE);
        i = i + 1 < slots ? i + 1 : 0;
    }
    *next = i;
    return k;
}

/* CPU time of the calling thread in nanoseconds (not wall time: a call preempted by the
 * machine's other load is not charged for the wait). */
static uint64_t thread_cpu_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (uint64_t)t.tv_sec * 1000000000u + t.tv_nsec;
}

/* send_direct, what it sent counted into the loop's statistics, and its CPU time from
 * ``t0`` (the thread's CPU clock when the sweep's pipeline work ended); returns the clock
 * after it, where the next sweep's pipeline time starts: one clock read per phase, each
 * a system call. */
static uint64_t send_direct_timed(sw_t *S, uint64_t t0) {
    uint64_t *st = S->base.loop_stats;
    uint32_t before = S->base.out_n;
    send_direct(S);
    uint64_t t1 = thread_cpu_ns();
    st[ST_SEND_NS] += t1 - t0;
    st[ST_FRAMES_OUT] += before - S->base.out_n;
    st[ST_SENDS] += before != S->base.out_n;
    return t1;
}

/* Sweeps of every ring (ring r: rings[r], slot_bytes[r], slots[r], next slot next[r],
 * received on ports[r]) in order, at most ``limit`` frames from each per sweep, what a
 * sweep sent to ports with a socket leaving after it, one sendmmsg per IO_BATCH frames
 * across ports; sweeps repeat while one finds frames and fewer than ``budget`` have run.
 * counts[2r], counts[2r+1]: += ring r's frames run and skipped. One native call in the
 * loop's statistics; returns the frames run. */
static uint32_t sweep_rings(sw_t *S, uint32_t n, uint8_t **rings, const uint32_t *slot_bytes,
                            const uint32_t *slots, uint32_t *next, const uint32_t *ports,
                            uint32_t limit, uint32_t budget, uint32_t *counts) {
    uint64_t *st = S->base.loop_stats;
    uint32_t total = 0, taken;
    uint64_t t = thread_cpu_ns();
    st[ST_CALLS]++;
    do {
        taken = 0;
        for (uint32_t r = 0; r < n; r++) {
            uint32_t before = counts[2 * r];
            taken += ring_run(S, rings[r], slot_bytes[r], slots[r], &next[r], limit, ports[r],
                              counts + 2 * r);
            st[ST_FRAMES_IN] += counts[2 * r] - before;
        }
        if (!taken) {
            st[ST_EMPTY_CALLS] += total == 0;
            break;
        }
        st[ST_SWEEPS]++;
        uint64_t piped = thread_cpu_ns();
        st[ST_PIPELINE_NS] += piped - t;
        total += taken;
        t = send_direct_timed(S, piped);
    } while (total < budget);
    return total;
}

/* Every port's ring in one call (sweep_rings), ``counts`` zeroed first. The outputs for
 * other ports stay in the output arena, in order. */
uint32_t sw_process_rings(sw_t *S, uint32_t n, uint8_t **rings, const uint32_t *slot_bytes,
                          const uint32_t *slots, uint32_t *next, const uint32_t *ports,
                          uint32_t limit, uint32_t budget, uint64_t now, uint32_t *counts) {
    out_clear(S, now);
    memset(counts, 0, sizeof(uint32_t) * 2 * n);
    sweep_rings(S, n, rings, slot_bytes, slots, next, ports, limit, budget, counts);
    return S->base.out_n;
}

/* The switch's packet loop in native code (called with Python's GIL released, holding
 * the switch's lock): sweep the rings as sw_process_rings, then wait in epoll_wait() on
 * ``epoll_fd`` (the rings' sockets and the switch's wake-up pipe ``wake_fd``, registered
 * once, not on every wait as poll() does), and
 * again, until Python has work: outputs the pipeline could not send itself (a packet-in, a
 * port without a socket), a digest or a log_msg line, a packet an assert or a header stack
 * dropped (Python logs them), the wake-up pipe readable (a writer waiting for the lock, a
 * stats request, stop, a packet-out) or a signal. The timestamps count microseconds of
 * CLOCK_MONOTONIC since ``t0_ns`` (the target's clock, when that is time.monotonic), the
 * meters its seconds. counts[2r], counts[2r+1]: += ring r's frames run and skipped;
 * loop[0] += the waits that returned, loop[1] = why it returned (LOOP_*), loop[2] = with
 * LOOP_PORT_ERROR, the ring socket that reported an error or a hang-up (its interface
 * down or deleted: epoll reports it on every wait until the error is read, so the loop
 * leaves it to Python rather than spin). Returns the number of outputs for Python, in
 * the output arena. */
enum { LOOP_PYTHON = 1, LOOP_WAKE = 2, LOOP_PORT_ERROR = 3 };

uint32_t sw_loop(sw_t *S, uint32_t n, uint8_t **rings, const uint32_t *slot_bytes,
                 const uint32_t *slots, uint32_t *next, const uint32_t *ports,
                 int32_t epoll_fd, int32_t wake_fd, uint32_t limit, uint32_t budget,
                 int64_t t0_ns, uint32_t *counts, uint64_t *loop) {
    struct epoll_event ready[n + 1];
    uint64_t *drops = S->base.drops;
    uint64_t asserts = drops[DROP_ASSERT], stack = drops[DROP_STACK];
    for (;;) {
        uint64_t ns = mono_ns();
        out_clear(S, ((ns - t0_ns) / 1000) & 0xFFFFFFFFFFFFull);
        S->base.secs = ns / 1e9;
        uint32_t ran = sweep_rings(S, n, rings, slot_bytes, slots, next, ports, limit, budget,
                                   counts);
        if (S->base.out_n || S->base.digests.len || S->base.logs.len
                || drops[DROP_ASSERT] != asserts || drops[DROP_STACK] != stack) {
            loop[1] = LOOP_PYTHON;
            return S->base.out_n;
        }
        /* a sweep that ran its whole budget may have left frames: look, do not wait */
        int got = epoll_wait(epoll_fd, ready, n + 1, ran >= budget ? 0 : -1);
        if (got < 0) {                     /* a signal (its handler is Python's): EINTR */
            loop[1] = LOOP_WAKE;
            return 0;
        }
        loop[0]++;
        for (int i = 0; i < got; i++) {
            if (ready[i].data.fd == wake_fd) {
                loop[1] = LOOP_WAKE;
                return 0;
            }
            if (ready[i].events & (EPOLLERR | EPOLLHUP)) {
                loop[1] = LOOP_PORT_ERROR;
                loop[2] = (uint64_t)ready[i].data.fd;
                return 0;
            }
        }
    }
}

/* What sw_process_rings did so far, in runtime.c's LOOP_STATS order. */
uint64_t *sw_loop_stats(sw_t *S) { return S->base.loop_stats; }

/* ``n`` frames, each ``repeat`` times; the number of frames that left. */
uint64_t sw_process_batch(sw_t *S, const uint8_t *data, const uint32_t *offs,
                          const uint32_t *lens, const uint32_t *ports, uint32_t n,
                          uint32_t repeat, uint64_t now) {
    uint64_t sent = 0;
    for (uint32_t r = 0; r < repeat; r++)
        for (uint32_t i = 0; i < n; i++)
            sent += sw_process(S, data + offs[i], lens[i], ports[i], now);
    return sent;
}

void sw_outputs(sw_t *S, uint32_t **ports, uint32_t **offs, uint32_t **sizes,
                uint8_t **data) {
    *ports = S->base.out_port;
    *offs = S->base.out_off;
    *sizes = S->base.out_size;
    *data = S->base.out_data;
}

sw_t *sw_new(void) {
    sw_t *S = calloc(1, sizeof(sw_t));
    for (int i = 0; i < NPORTS; i++) S->base.direct_fd[i] = -1;
    S->base.shared_fd = -1;
    init_tables(S);
    return S;
}

void sw_free(sw_t *S) {
    for (int i = 0; i < NTABLES; i++) {
        for (int j = 0; j < S->tables[i].size; j++) free(S->tables[i].slots[j].choice);
        free(S->tables[i].slots);
        free(S->tables[i].order);
        free(S->tables[i].hidx);
    }
    for (int i = 0; i < 65536; i++) {
        free(S->base.mc[i].ports);
        free(S->base.mc[i].rids);
    }
    for (int i = 0; i < S->base.nsessions; i++) {
        free(S->base.sessions[i].g.ports);
        free(S->base.sessions[i].g.rids);
    }
    free(S->base.sessions);
    for (int i = 0; sw_vset(S, i); i++) free(sw_vset(S, i)->m);
    free(S->base.scratch);
    free(S->base.pick);
    free(S->base.digests.v);
    free(S->base.logs.v);
    free(S->base.out_data);
    free(S->base.out_port);
    free(S->base.out_off);
    free(S->base.out_size);
    free(S);
}

void sw_tbl_put(sw_t *S, int t, int slot, const uint64_t *v, const uint64_t *m,
                const uint64_t *hi, const uint8_t *range, int64_t prio, uint32_t plen,
                int action, const uint64_t *args, int keep, const double *meter,
                double now) {
    table_t *tb = &S->tables[t];
    entry_t *e = &tb->slots[slot];
    uint64_t packets = keep ? e->packets : 0, bytes = keep ? e->bytes : 0;
    meter_t kept = e->meter;
    uint64_t seq = keep ? e->seq : ++tb->seq;
    free(e->choice);                   /* an indirect entry's choices follow (sw_tbl_choices) */
    memset(e, 0, sizeof *e);
    memcpy(e->v, v, sizeof(uint64_t) * tb->nkeys);
    memcpy(e->m, m, sizeof(uint64_t) * tb->nkeys);
    memcpy(e->hi, hi, sizeof(uint64_t) * tb->nkeys);
    memcpy(e->range, range, tb->nkeys);
    memcpy(e->args, args, sizeof e->args);
    e->prio = prio;
    e->plen = plen;
    e->action = action;
    e->used = 1;
    e->seq = seq;
    e->packets = packets;
    e->bytes = bytes;
    if (meter)            /* (cir, cburst, pir, pburst): a fresh configured meter */
        e->meter = (meter_t){meter[0], meter[1], meter[2], meter[3], meter[1], meter[3], now, 1};
    else if (keep)
        e->meter = kept;
    tb->dirty = 1;
}

/* n fresh entries of table t in one call (a batch of inserts): entry i's slot slots[i],
   its keys at v, m, hi, range + i * (the table's key count), its action data at
   args + i * MAXA. */
void sw_tbl_put_many(sw_t *S, int t, uint32_t n, const uint32_t *slots, const uint64_t *v,
                     const uint64_t *m, const uint64_t *hi, const uint8_t *range,
                     const int64_t *prio, const uint32_t *plen, const uint32_t *action,
                     const uint64_t *args, double now) {
    size_t nk = S->tables[t].nkeys;
    for (uint32_t i = 0; i < n; i++)
        sw_tbl_put(S, t, slots[i], v + i * nk, m + i * nk, hi + i * nk, range + i * nk,
                   prio[i], plen[i], action[i], args + (size_t)i * MAXA, 0, NULL, now);
}

void sw_tbl_del(sw_t *S, int t, int slot) {
    entry_t *e = &S->tables[t].slots[slot];
    free(e->choice);
    e->choice = NULL;
    e->nchoice = e->indirect = e->used = 0;
    S->tables[t].dirty = 1;
}

/* What an indirect table's entry may run: n actions, their data MAXA words each. */
void sw_tbl_choices(sw_t *S, int t, int slot, uint32_t n, const uint32_t *actions,
                    const uint64_t *args) {
    entry_t *e = &S->tables[t].slots[slot];
    free(e->choice);
    e->choice = n ? malloc(sizeof(choice_t) * n) : NULL;
    for (uint32_t i = 0; i < n; i++) {
        e->choice[i].action = actions[i];
        memcpy(e->choice[i].args, args + (size_t)i * MAXA, sizeof e->choice[i].args);
    }
    e->nchoice = n;
    e->indirect = 1;
}

void sw_tbl_default(sw_t *S, int t, int action, const uint64_t *args) {
    S->tables[t].deflt.action = action;
    memcpy(S->tables[t].deflt.args, args, sizeof S->tables[t].deflt.args);
}

uint64_t *sw_tbl_counters(sw_t *S, int t, int slot) {
    return &S->tables[t].slots[slot].packets;
}

void sw_mc_set(sw_t *S, uint32_t gid, uint32_t n, const uint16_t *ports,
               const uint16_t *rids) {
    group_fill(&S->base.mc[gid], n, ports, rids);
}

void sw_mc_del(sw_t *S, uint32_t gid) {
    free(S->base.mc[gid].ports);
    free(S->base.mc[gid].rids);
    S->base.mc[gid].ports = S->base.mc[gid].rids = NULL;
}

void sw_clone_set(sw_t *S, uint64_t id, uint32_t n, const uint16_t *ports,
                  const uint16_t *rids, uint32_t trunc) {
    group_t *g = session_find(&S->base, id);
    if (!g) {
        S->base.sessions = realloc(S->base.sessions,
                                   sizeof(session_t) * (S->base.nsessions + 1));
        session_t *s = &S->base.sessions[S->base.nsessions++];
        memset(s, 0, sizeof *s);
        s->id = id;
        g = &s->g;
    }
    group_fill(g, n, ports, rids);
    g->trunc = trunc;
}

void sw_clone_del(sw_t *S, uint64_t id) {
    for (int i = 0; i < S->base.nsessions; i++) {
        if (S->base.sessions[i].id != id) continue;
        free(S->base.sessions[i].g.ports);
        free(S->base.sessions[i].g.rids);
        S->base.sessions[i] = S->base.sessions[--S->base.nsessions];
        return;
    }
}

void sw_vset_set(sw_t *S, int id, uint32_t n, uint32_t nkeys, const uint8_t *kinds,
                 const uint64_t *a, const uint64_t *b) {
    vset_t *vs = sw_vset(S, id);
    vs->m = realloc(vs->m, sizeof(vmember_t) * (n ? n : 1));
    vs->n = n;
    vs->nkeys = nkeys;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < nkeys; k++) {
            vs->m[i].kind[k] = kinds[i * nkeys + k];
            vs->m[i].a[k] = a[i * nkeys + k];
            vs->m[i].b[k] = b[i * nkeys + k];
        }
}

void sw_clock(sw_t *S, double secs) { S->base.secs = secs; }

void sw_meter_set(sw_t *S, int id, uint32_t index, double cir, double cburst, double pir,
                  double pburst, double now) {
    meter_t *m = &sw_meter(S, id)[index];
    *m = (meter_t){cir, cburst, pir, pburst, cburst, pburst, now, 1};
}

uint32_t sw_events(sw_t *S, int logs, uint64_t **v) {
    events_t *e = logs ? &S->base.logs : &S->base.digests;
    *v = e->v;
    return e->len;
}

uint64_t *sw_drops(sw_t *S) { return S->base.drops; }

/* Multicast replicas so far: deparsed in full, patched over their group's first. */
uint64_t *sw_replicas(sw_t *S) { return S->base.replicas; }
uint32_t sw_failed_at(sw_t *S) { return S->base.failed_at; }
