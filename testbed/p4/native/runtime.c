/* Run-time support of the generated v1model pipeline: bit access, hash and checksum
 * algorithms, match-action tables, multicast groups, clone sessions and the output arena.
 * The generated program follows this file in one translation unit. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MASK(w) ((w) >= 64 ? ~UINT64_C(0) : ((UINT64_C(1) << (w)) - 1))
#define SX(x, w) ((w) >= 64 ? (int64_t)(x) : \
                  (int64_t)((uint64_t)(x) << (64 - (w))) >> (64 - (w)))

static inline uint64_t get_bits(const uint8_t *d, uint32_t bit, unsigned w) {
    const uint8_t *p = d + (bit >> 3);
    if (!(bit & 7) && w == 32) {                 /* an aligned word: one load */
        uint32_t v;
        memcpy(&v, p, 4);
        return __builtin_bswap32(v);
    }
    if (!(bit & 7) && !(w & 7) && w <= 64) {     /* whole bytes: the common case */
        uint64_t v = 0;
        for (unsigned i = 0; i < w / 8; i++) v = (v << 8) | p[i];
        return v;
    }
    unsigned s = bit & 7, nb = (s + w + 7) >> 3;
    unsigned __int128 acc = 0;
    for (unsigned i = 0; i < nb; i++) acc = (acc << 8) | p[i];
    return (uint64_t)(acc >> (nb * 8 - s - w)) & MASK(w);
}

#define ALWAYS_INLINE static inline __attribute__((always_inline))

ALWAYS_INLINE uint64_t ld16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2);
                                                return __builtin_bswap16(v); }
ALWAYS_INLINE uint64_t ld32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4);
                                                return __builtin_bswap32(v); }
ALWAYS_INLINE void st16(uint8_t *p, uint64_t v) { uint16_t b = __builtin_bswap16(v);
                                                  memcpy(p, &b, 2); }
ALWAYS_INLINE void st32(uint8_t *p, uint64_t v) { uint32_t b = __builtin_bswap32(v);
                                                  memcpy(p, &b, 4); }

/* The big-endian number in the n (1..8) bytes at p; n is a constant where the generated
 * code calls it, so each call is one to three loads. */
ALWAYS_INLINE uint64_t get_bytes(const uint8_t *p, unsigned n) {
    uint64_t d;
    switch (n) {
    case 1: return p[0];
    case 2: return ld16(p);
    case 3: return ld16(p) << 8 | p[2];
    case 4: return ld32(p);
    case 5: return ld32(p) << 8 | p[4];
    case 6: return ld32(p) << 16 | ld16(p + 4);
    case 7: return ld32(p) << 24 | ld16(p + 4) << 8 | p[6];
    default: memcpy(&d, p, 8); return __builtin_bswap64(d);
    }
}

/* Stores the low 8n bits of v big-endian in the n (1..8) bytes at p. */
ALWAYS_INLINE void put_bytes(uint8_t *p, unsigned n, uint64_t v) {
    uint64_t d;
    switch (n) {
    case 1: p[0] = (uint8_t)v; return;
    case 2: st16(p, v); return;
    case 3: st16(p, v >> 8); p[2] = (uint8_t)v; return;
    case 4: st32(p, v); return;
    case 5: st32(p, v >> 8); p[4] = (uint8_t)v; return;
    case 6: st32(p, v >> 16); st16(p + 4, v); return;
    case 7: st32(p, v >> 24); st16(p + 4, v >> 8); p[6] = (uint8_t)v; return;
    default: d = __builtin_bswap64(v); memcpy(p, &d, 8); return;
    }
}

/* ORs the low w bits of v into a zeroed buffer at bit offset ``bit``. */
static inline void put_bits(uint8_t *d, uint32_t bit, unsigned w, uint64_t v) {
    uint8_t *p = d + (bit >> 3);
    if (!(bit & 7) && w == 32) {                 /* an aligned word: one store */
        uint32_t be = __builtin_bswap32((uint32_t)v);
        memcpy(p, &be, 4);
        return;
    }
    if (!(bit & 7) && !(w & 7) && w <= 64) {     /* whole bytes: stored, not ORed */
        for (unsigned i = w / 8; i-- > 0; v >>= 8) p[i] = (uint8_t)v;
        return;
    }
    unsigned s = bit & 7, nb = (s + w + 7) >> 3;
    unsigned __int128 acc = (unsigned __int128)(v & MASK(w)) << (nb * 8 - s - w);
    for (int i = nb - 1; i >= 0; i--) { p[i] |= (uint8_t)acc; acc >>= 8; }
}

/* Values of 65 to 128 bits (bit<W> only) are unsigned __int128, read and written as two
   words. */
typedef unsigned __int128 u128;
#define MASK128(w) ((w) >= 128 ? ~(u128)0 : (((u128)1 << (w)) - 1))

static inline u128 get_wide(const uint8_t *d, uint32_t bit, unsigned w) {
    return ((u128)get_bits(d, bit, w - 64) << 64) | get_bits(d, bit + w - 64, 64);
}

static inline void put_wide(uint8_t *d, uint32_t bit, unsigned w, u128 v) {
    put_bits(d, bit, w - 64, (uint64_t)(v >> 64));
    put_bits(d, bit + w - 64, 64, (uint64_t)v);
}

/* Stores the low w bits of v at bit offset ``bit`` of bytes that already hold a value,
 * the bits around them kept (a multicast replica patched over another's bytes). */
static inline void set_bits(uint8_t *d, uint32_t bit, unsigned w, uint64_t v) {
    uint8_t *p = d + (bit >> 3);
    unsigned s = bit & 7, nb = (s + w + 7) >> 3, shift = nb * 8 - s - w;
    unsigned __int128 m = (unsigned __int128)MASK(w) << shift;
    unsigned __int128 acc = (unsigned __int128)(v & MASK(w)) << shift;
    for (int i = nb - 1; i >= 0; i--) {
        p[i] = (uint8_t)((p[i] & ~(uint8_t)m) | (uint8_t)acc);
        acc >>= 8;
        m >>= 8;
    }
}

static inline void set_wide(uint8_t *d, uint32_t bit, unsigned w, u128 v) {
    set_bits(d, bit, w - 64, (uint64_t)(v >> 64));
    set_bits(d, bit + w - 64, 64, (uint64_t)v);
}

/* A varbit value is held right-aligned in nb bytes (its unused high bits zero). */
static inline void get_varbit(const uint8_t *d, uint32_t bit, uint32_t w, uint8_t *dst,
                              uint32_t nb) {
    memset(dst, 0, nb);
    uint32_t at = nb * 8 - w;
    for (uint32_t i = 0; i < w; i += 56) {
        unsigned c = w - i < 56 ? w - i : 56;
        put_bits(dst, at + i, c, get_bits(d, bit + i, c));
    }
}

/* Writes the low w bits of a varbit value into a zeroed buffer at bit offset ``bit``. */
static inline void put_varbit(uint8_t *d, uint32_t bit, uint32_t w, const uint8_t *src,
                              uint32_t nb) {
    uint32_t at = nb * 8 - w;
    for (uint32_t i = 0; i < w; i += 56) {
        unsigned c = w - i < 56 ? w - i : 56;
        put_bits(d, bit + i, c, get_bits(src, at + i, c));
    }
}

static inline uint64_t sat_add_u(uint64_t a, uint64_t b, unsigned w) {
    uint64_t r;
    if (__builtin_add_overflow(a, b, &r) || r > MASK(w)) return MASK(w);
    return r;
}

static inline uint64_t sat_sub_u(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

static inline uint64_t sat_signed(__int128 v, unsigned w) {
    __int128 hi = ((__int128)1 << (w - 1)) - 1, lo = -((__int128)1 << (w - 1));
    if (v > hi) v = hi;
    if (v < lo) v = lo;
    return (uint64_t)v & MASK(w);
}

/* Floor division and modulo, as the reference backend computes on signed values;
 * x / 0 and x % 0 are 0. */
static inline int64_t floor_div(int64_t a, int64_t b) {
    if (!b) return 0;
    int64_t q = a / b;
    if ((a % b) && ((a < 0) != (b < 0))) q--;
    return q;
}

static inline int64_t floor_mod(int64_t a, int64_t b) {
    if (!b) return 0;
    int64_t r = a % b;
    if (r && ((r < 0) != (b < 0))) r += b;
    return r;
}

/* push_front/pop_front of a header stack of ``size`` elements of ``elem`` bytes each
 and its ``next`` (P4's nextIndex): shifted ``count`` places, the vacated
 * elements zeroed (invalid). */
static void stack_move(void *elements, uint32_t *next, size_t elem, uint32_t size,
                       uint64_t count, int push) {
    uint8_t *h = elements;
    if (count > size) count = size;
    size_t keep = elem * (size - count), moved = elem * count;
    if (push) {
        memmove(h + moved, h, keep);
        memset(h, 0, moved);
        *next = *next + count > size ? size : *next + (uint32_t)count;
    } else {
        memmove(h, h + moved, keep);
        memset(h + keep, 0, moved);
        *next = *next > count ? *next - (uint32_t)count : 0;
    }
}
#define stack_push_front(st, elem, size, count) \
    stack_move((st)->h, &(st)->next, elem, size, count, 1)
#define stack_pop_front(st, elem, size, count) \
    stack_move((st)->h, &(st)->next, elem, size, count, 0)

/* ------------------------------------------------------------------ hash algorithms */
enum { ALG_CRC16, ALG_CRC32, ALG_CSUM16, ALG_XOR16, ALG_IDENTITY };

static uint64_t alg_crc16(const uint8_t *d, size_t n) {
    uint32_t crc = 0;
    for (size_t i = 0; i < n; i++) {
        crc ^= d[i];
        for (int k = 0; k < 8; k++) crc = (crc & 1) ? (crc >> 1) ^ 0xA001 : crc >> 1;
    }
    return crc;
}

static uint64_t alg_crc32(const uint8_t *d, size_t n) {
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        crc ^= d[i];
        for (int k = 0; k < 8; k++) crc = (crc & 1) ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
    }
    return crc ^ 0xFFFFFFFFu;
}

static uint64_t alg_csum16(const uint8_t *d, size_t n) {
    uint64_t s = 0;
    for (size_t i = 0; i + 1 < n; i += 2) s += (uint64_t)d[i] << 8 | d[i + 1];
    if (n & 1) s += (uint64_t)d[n - 1] << 8;
    while (s >> 16) s = (s & 0xFFFF) + (s >> 16);
    return 0xFFFF ^ s;
}

static uint64_t alg_xor16(const uint8_t *d, size_t n) {
    uint64_t h = 0;
    for (size_t i = 0; i + 1 < n; i += 2) h ^= (uint64_t)d[i] << 8 | d[i + 1];
    if (n & 1) h ^= (uint64_t)d[n - 1] << 8;
    return h;
}

/* The low 64 bits of the big-endian number, or the number modulo ``mod`` when mod > 0. */
static uint64_t alg_identity(const uint8_t *d, size_t n, uint64_t mod) {
    unsigned __int128 acc = 0;
    for (size_t i = 0; i < n; i++) {
        acc = (acc << 8) | d[i];
        if (mod) acc %= mod; else acc = (uint64_t)acc;
    }
    return (uint64_t)acc;
}

static uint64_t run_alg(int alg, const uint8_t *d, size_t n) {
    switch (alg) {
    case ALG_CRC16: return alg_crc16(d, n);
    case ALG_CRC32: return alg_crc32(d, n);
    case ALG_CSUM16: return alg_csum16(d, n);
    case ALG_XOR16: return alg_xor16(d, n);
    default: return alg_identity(d, n, 0);
    }
}

/* hash(): base + (h mod max) when max > 0, else base + h. */
static uint64_t hash_value(int alg, const uint8_t *d, size_t n, uint64_t base, uint64_t max) {
    if (alg == ALG_IDENTITY) return base + alg_identity(d, n, max);
    uint64_t h = run_alg(alg, d, n);
    return max ? base + h % max : base + h;
}

/* A two-rate three-color marker (RFC 2698, colour-blind) in the reference's arithmetic
 * (testbed/p4/python/externs.py TokenMeter): rates in units per second, bursts in units, an
 * unconfigured cell marks GREEN (0); YELLOW 1, RED 2. */
typedef struct { double cir, cburst, pir, pburst, tc, tp, last; int on; } meter_t;

static uint64_t meter_execute(meter_t *m, double amount, double now) {
    if (!m->on) return 0;
    double elapsed = now > m->last ? now - m->last : 0.0;
    m->last = now;
    double tc = m->tc + elapsed * m->cir, tp = m->tp + elapsed * m->pir;
    m->tc = m->cburst < tc ? m->cburst : tc;
    m->tp = m->pburst < tp ? m->pburst : tp;
    if (m->tp < amount) return 2;
    m->tp -= amount;
    if (m->tc < amount) return 1;
    m->tc -= amount;
    return 0;
}

/* ------------------------------------------------------------------ tables */
#define MAXK 8
#define MAXA 16
enum { MODE_NONE, MODE_EXACT, MODE_LPM, MODE_SCAN };

typedef struct {
    uint64_t v[MAXK], m[MAXK], hi[MAXK];   /* value, mask (0: wildcard); hi for ranges */
    uint8_t range[MAXK];
    int64_t prio;
    uint64_t seq;                          /* insertion order, the tie-break of a scan */
    uint32_t plen;
    uint16_t action;
    uint8_t used;
    uint64_t args[MAXA];
    uint64_t packets, bytes;
    meter_t meter;                         /* the table's direct meter, if it has one */
    struct choice *choice;                 /* an indirect table's entry: what it may run */
    uint32_t nchoice;
    uint8_t indirect;
} entry_t;

/* One action an indirect entry may run: its member, or one of its group's members (a
 * member as many times as its weight), or one action of its one-shot set. */
typedef struct choice {
    uint32_t action;
    uint64_t args[MAXA];
} choice_t;

/* The choice a packet runs for an indirect entry: its only one, or the one the selector's
 * hash over the selector keys picks. The keys' bits are concatenated and zero-padded at
 * the end, as the Python target's to_bytes does; NULL for an empty group (the table's
 * default action runs, as a miss). */
static inline const choice_t *pick_choice(const entry_t *e, const uint64_t *k,
                                          const uint8_t *pos, const uint8_t *widths,
                                          int nsel, int alg, uint64_t mask) {
    if (!e->nchoice) return NULL;
    if (e->nchoice == 1) return e->choice;
    uint8_t buf[MAXK * 8] = {0};
    unsigned bit = 0;
    for (int i = 0; i < nsel; i++)
        for (int b = widths[i] - 1; b >= 0; b--, bit++)
            if (k[pos[i]] >> b & 1) buf[bit >> 3] |= 0x80 >> (bit & 7);
    uint64_t h = bit ? run_alg(alg, buf, (bit + 7) / 8) & mask : 0;
    return &e->choice[h % e->nchoice];
}

typedef struct {
    int nkeys, mode, lpm_pos, size;
    uint8_t widths[MAXK];
    entry_t *slots;
    entry_t deflt;
    int dirty;
    uint64_t seq;
    int32_t *hidx;                         /* slot + 1, 0: empty */
    uint32_t hcap;
    int nlens;
    uint32_t lens[65];
    int32_t *order;
    int norder;
} table_t;

static inline uint64_t key_hash(const uint64_t *k, int n, uint32_t plen) {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ plen;
    for (int i = 0; i < n; i++) {
        h ^= k[i];
        h *= 0xBF58476D1CE4E5B9ull;
        h ^= h >> 31;
    }
    return h;
}

static table_t *cmp_table;

static int by_priority(const void *a, const void *b) {
    const entry_t *x = &cmp_table->slots[*(const int32_t *)a];
    const entry_t *y = &cmp_table->slots[*(const int32_t *)b];
    if (x->prio != y->prio) return x->prio > y->prio ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void tbl_rebuild(table_t *t) {
    t->dirty = 0;
    t->norder = 0;
    for (int i = 0; i < t->size; i++)
        if (t->slots[i].used) t->order[t->norder++] = i;
    if (t->mode == MODE_SCAN) {
        cmp_table = t;
        qsort(t->order, t->norder, sizeof(int32_t), by_priority);
        return;
    }
    memset(t->hidx, 0, sizeof(int32_t) * t->hcap);
    int seen[65] = {0};
    t->nlens = 0;
    for (int j = 0; j < t->norder; j++) {
        entry_t *e = &t->slots[t->order[j]];
        uint32_t pos = key_hash(e->v, t->nkeys, e->plen) & (t->hcap - 1);
        while (t->hidx[pos]) pos = (pos + 1) & (t->hcap - 1);
        t->hidx[pos] = t->order[j] + 1;
        seen[e->plen] = 1;
    }
    for (int p = 64; p >= 0; p--)
        if (seen[p]) t->lens[t->nlens++] = p;
}

static inline entry_t *tbl_probe(table_t *t, const uint64_t *k, uint32_t plen) {
    uint32_t pos = key_hash(k, t->nkeys, plen) & (t->hcap - 1);
    for (;;) {
        int32_t s = t->hidx[pos];
        if (!s) return NULL;
        entry_t *e = &t->slots[s - 1];
        if (e->plen == plen && !memcmp(e->v, k, sizeof(uint64_t) * t->nkeys)) return e;
        pos = (pos + 1) & (t->hcap - 1);
    }
}

static inline entry_t *tbl_lookup(table_t *t, const uint64_t *key) {
    if (t->dirty) tbl_rebuild(t);
    if (t->mode == MODE_EXACT) return tbl_probe(t, key, 0);
    if (t->mode == MODE_LPM) {
        uint64_t k[MAXK];
        memcpy(k, key, sizeof(uint64_t) * t->nkeys);
        unsigned w = t->widths[t->lpm_pos];
        for (int i = 0; i < t->nlens; i++) {
            uint32_t p = t->lens[i];
            k[t->lpm_pos] = key[t->lpm_pos] & (MASK(w) ^ MASK(w - p));
            entry_t *e = tbl_probe(t, k, p);
            if (e) return e;
        }
        return NULL;
    }
    for (int j = 0; j < t->norder; j++) {
        entry_t *e = &t->slots[t->order[j]];
        int i = 0;
        for (; i < t->nkeys; i++) {
            if (e->range[i] ? (key[i] < e->v[i] || key[i] > e->hi[i])
                            : ((key[i] & e->m[i]) != e->v[i])) break;
        }
        if (i == t->nkeys) return e;
    }
    return NULL;
}

/* ------------------------------------------------------------------ switch state */
typedef struct { uint32_t n; uint16_t *ports; uint16_t *rids; uint32_t trunc; } group_t;
typedef struct { uint64_t id; group_t g; } session_t;

#define NPORTS 512                   /* egress ports are 9 bits */
enum { DROP_ASSERT, DROP_LOOP, DROP_MCAST, DROP_INGRESS, DROP_EGRESS, DROP_CLONE, DROP_STACK,
       DROP_PRIORITY, NDROPS };
#define FAILED_STACK UINT32_MAX      /* pkt_t.failed: a stack index out of bounds */

/* A parser value_set: members of up to MAXK fields, each field matched exactly
 * (kind 0: a), by mask (1: key & b == a, as the reference compares), by range (2: a <= key <= b) or not at all (3). */
typedef struct { uint8_t kind[MAXK]; uint64_t a[MAXK], b[MAXK]; } vmember_t;
typedef struct { vmember_t *m; uint32_t n, nkeys; } vset_t;

static int vset_match(const vset_t *vs, const uint64_t *key) {
    for (uint32_t i = 0; i < vs->n; i++) {
        const vmember_t *m = &vs->m[i];
        uint32_t k = 0;
        for (; k < vs->nkeys; k++) {
            uint64_t x = key[k];
            if (m->kind[k] == 0 ? x != m->a[k] : m->kind[k] == 1 ? (x & m->b[k]) != m->a[k]
                : m->kind[k] == 2 ? x < m->a[k] || x > m->b[k] : 0) break;
        }
        if (k == vs->nkeys) return 1;
    }
    return 0;
}

/* The counters of sw_process_rings (testbed/p4/native/target.py's LOOP_STATS): calls,
 * sweeps that found frames, frames run, frames sent on the ports' sockets, the thread's
 * CPU nanoseconds in the pipeline and in sending (the kernel's part of a send included),
 * sweeps that sent, calls that found every ring empty. */
enum { ST_CALLS, ST_SWEEPS, ST_FRAMES_IN, ST_FRAMES_OUT, ST_PIPELINE_NS, ST_SEND_NS,
       ST_SENDS, ST_EMPTY_CALLS, NSTATS };

/* Records for the control plane, collected during one call: id, count, values. */
typedef struct { uint64_t *v; uint32_t len, cap; } events_t;

static void event_push(events_t *e, uint64_t id, uint32_t n, const uint64_t *vals) {
    if (e->len + n + 2 > e->cap) {
        e->cap = (e->len + n + 2) * 2;
        e->v = realloc(e->v, sizeof(uint64_t) * e->cap);
    }
    e->v[e->len++] = id;
    e->v[e->len++] = n;
    memcpy(e->v + e->len, vals, sizeof(uint64_t) * n);
    e->len += n;
}

/* What every program's switch holds besides its tables and externs: multicast groups
 * (ports == NULL: not set), clone sessions, the frames that left during one call, drops
 * by reason. */
typedef struct {
    group_t mc[65536];
    session_t *sessions;
    int nsessions;
    uint8_t *out_data;
    size_t out_cap, out_len;
    uint32_t out_n, out_max;
    uint32_t *out_port, *out_off, *out_size;
    uint64_t drops[NDROPS];
    uint32_t failed_at;                   /* the assert of the last failure, 1-based */
    uint64_t now;
    double secs;                          /* the meters' clock, seconds */
    uint8_t *scratch;                     /* a received frame with its VLAN tag back */
    size_t scratch_cap;
    events_t digests, logs;
    uint64_t rng;                         /* random()'s xorshift state */
    int32_t direct_fd[NPORTS];            /* a socket the port's frames leave on, or -1 */
    int32_t shared_fd;                    /* one socket for every such port, or -1 */
    int32_t ifindex[NPORTS];              /* the port's interface, for shared_fd */
    uint64_t direct[NPORTS][4];           /* per port: io_send's counts */
    uint16_t direct_ports[NPORTS];        /* the ports with a socket, ndirect of them */
    uint32_t ndirect, *pick, pick_cap;
    uint64_t loop_stats[NSTATS];          /* sw_process_rings' counters */
    uint64_t replicas[2];                 /* multicast replicas deparsed, patched */
} base_t;

/* random(lo, hi): uniform in [lo, hi]; lo when hi < lo, as the reference backend. */
static uint64_t random_between(base_t *b, uint64_t lo, uint64_t hi) {
    if (hi <= lo) return lo;
    uint64_t x = b->rng ? b->rng : UINT64_C(0x9E3779B97F4A7C15);
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    b->rng = x;
    uint64_t span = hi - lo + 1;
    return span ? lo + x % span : x;
}

static void group_fill(group_t *g, uint32_t n, const uint16_t *ports, const uint16_t *rids) {
    free(g->ports);
    free(g->rids);
    g->n = n;
    g->ports = malloc(sizeof(uint16_t) * (n ? n : 1));
    g->rids = malloc(sizeof(uint16_t) * (n ? n : 1));
    memcpy(g->ports, ports, sizeof(uint16_t) * n);
    memcpy(g->rids, rids, sizeof(uint16_t) * n);
}

static group_t *session_find(base_t *b, uint64_t id) {
    for (int i = 0; i < b->nsessions; i++)
        if (b->sessions[i].id == id) return &b->sessions[i].g;
    return NULL;
}

static uint8_t *scratch(base_t *b, size_t n) {
    if (n > b->scratch_cap) {
        b->scratch_cap = n;
        b->scratch = realloc(b->scratch, n);
    }
    return b->scratch;
}

static uint8_t *out_reserve(base_t *b, size_t n) {
    if (b->out_len + n > b->out_cap) {
        b->out_cap = (b->out_len + n) * 2;
        b->out_data = realloc(b->out_data, b->out_cap);
    }
    return b->out_data + b->out_len;
}

static void out_commit(base_t *b, uint32_t port, size_t n) {
    if (b->out_n == b->out_max) {
        b->out_max = b->out_max ? b->out_max * 2 : 16;
        b->out_port = realloc(b->out_port, sizeof(uint32_t) * b->out_max);
        b->out_off = realloc(b->out_off, sizeof(uint32_t) * b->out_max);
        b->out_size = realloc(b->out_size, sizeof(uint32_t) * b->out_max);
    }
    b->out_port[b->out_n] = port;
    b->out_off[b->out_n] = b->out_len;
    b->out_size[b->out_n] = n;
    b->out_n++;
    b->out_len += n;
}

static void tbl_init(table_t *t, int nkeys, int mode, int lpm_pos, int size,
                     const uint8_t *widths) {
    t->nkeys = nkeys;
    t->mode = mode;
    t->lpm_pos = lpm_pos;
    t->size = size;
    memcpy(t->widths, widths, nkeys);
    t->slots = calloc(size ? size : 1, sizeof(entry_t));
    t->order = calloc(size ? size : 1, sizeof(int32_t));
    t->hcap = 2;
    while (t->hcap < 2 * (uint32_t)size + 2) t->hcap <<= 1;
    t->hidx = calloc(t->hcap, sizeof(int32_t));
}
