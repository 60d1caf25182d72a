/* p4/basic.p4 written by hand in C: the benchmark's baseline for the native backend.
 * Ethernet, IPv4 longest-prefix match (an open-addressing hash per prefix length, the
 * lengths in use tried longest first), next-hop MAC rewrite, TTL decrement, header
 * checksum recomputed; frames without a route are dropped, non-IPv4 frames leave on
 * port 0 unchanged, as the P4 program does. Built like the generated pipelines. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct { uint32_t prefix, used; uint16_t port; uint8_t mac[6]; } route_t;
typedef struct { route_t *slots; uint32_t cap, n; } level_t;

static level_t levels[33];
static int order[33], norder;
static uint8_t out[2048];

static uint32_t slot_of(uint32_t key, uint32_t cap) {
    return (key * 2654435761u) & (cap - 1);
}

static route_t *find(level_t *l, uint32_t prefix) {
    for (uint32_t i = slot_of(prefix, l->cap);; i = (i + 1) & (l->cap - 1)) {
        route_t *r = &l->slots[i];
        if (!r->used || r->prefix == prefix) return r;
    }
}

static void grow(level_t *l) {
    level_t old = *l;
    l->cap = old.cap ? old.cap * 2 : 16;
    l->slots = calloc(l->cap, sizeof(route_t));
    for (uint32_t i = 0; i < old.cap; i++)
        if (old.slots[i].used) *find(l, old.slots[i].prefix) = old.slots[i];
    free(old.slots);
}

void fwd_add(uint32_t prefix, uint32_t plen, uint16_t port, uint64_t mac) {
    level_t *l = &levels[plen];
    if (2 * (l->n + 1) > l->cap) grow(l);
    uint32_t mask = plen ? ~0u << (32 - plen) : 0;
    route_t *r = find(l, prefix & mask);
    if (!r->used) l->n++;
    r->used = 1;
    r->prefix = prefix & mask;
    r->port = port;
    for (int i = 0; i < 6; i++) r->mac[i] = mac >> (40 - 8 * i);
    norder = 0;
    for (int p = 32; p >= 0; p--)
        if (levels[p].n) order[norder++] = p;
}

/* The egress port of one frame, its output in ``out``; -1: dropped. */
static int forward(const uint8_t *f, uint32_t len) {
    if (len < 14) return -1;
    if (f[12] != 0x08 || f[13] != 0x00) {
        memcpy(out, f, len);
        return 0;
    }
    if (len < 34) return -1;
    uint32_t dst = (uint32_t)f[30] << 24 | f[31] << 16 | f[32] << 8 | f[33];
    route_t *r = NULL;
    for (int i = 0; i < norder && !r; i++) {
        int p = order[i];
        route_t *c = find(&levels[p], p ? dst & (~0u << (32 - p)) : 0);
        if (c->used) r = c;
    }
    if (!r) return -1;
    memcpy(out, r->mac, 6);
    memcpy(out + 6, f, 6);
    memcpy(out + 12, f + 12, len - 12);
    uint8_t *ip = out + 14;
    ip[8]--;
    ip[10] = ip[11] = 0;
    uint32_t sum = 0;
    for (int i = 0; i < 20; i += 2) sum += ip[i] << 8 | ip[i + 1];
    while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
    sum = ~sum & 0xFFFF;
    ip[10] = sum >> 8;
    ip[11] = sum;
    return r->port;
}

int fwd_one(const uint8_t *frame, uint32_t len, uint8_t **data) {
    *data = out;
    return forward(frame, len);
}

/* ``n`` frames, each ``repeat`` times; the number that left. */
uint64_t fwd_batch(const uint8_t *data, const uint32_t *offs, const uint32_t *lens,
                   uint32_t n, uint32_t repeat) {
    uint64_t sent = 0;
    for (uint32_t r = 0; r < repeat; r++)
        for (uint32_t i = 0; i < n; i++)
            sent += forward(data + offs[i], lens[i]) >= 0;
    return sent;
}
