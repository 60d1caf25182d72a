/* The data-phase window loop of an INA worker (hosts/ina_session.py's Exchange driven by
 * hosts/ina_allreduce.py's run_exchange) in C: the same packets (testbed/proto/ina.py),
 * the same window, the same retransmission rules, batched with sendmmsg/recvmmsg on the
 * worker's UDP socket. The Python Exchange is the reference; see its docstring for why
 * each rule is there. In short:
 *   - chunk c + slots is sent once chunk c's result is in (the window is `slots` wide;
 *     see below for how it opens);
 *   - a chunk's timeout is the stream's RTO when first sent (SRTT + 4 RTTVAR from chunks
 *     sent once, RFC 6298, within [timeout_s, max_timeout_s], times the back-off), and
 *     doubles on each retransmission after a timeout; a chunk is due when no result at
 *     all came for its timeout: at max(its send, the last result) + its timeout;
 *   - timeouts within one RTO of each other are one event and double the back-off once;
 *   - a chunk still missing when FAST_AFTER later chunks have their results is resent
 *     at once, once, its timer restarted as it was (fast retransmit);
 *   - after a retransmission, no result for give_up_s seconds ends the exchange;
 *   - each chunk carries its own exponent and next_exponent; with `piggyback` the
 *     exponent of chunk i + slots is the next_exponent of chunk i's result;
 *   - given float `values` instead of `lanes`, a chunk is quantized when sent
 *     (hosts/ina_fixedpoint.py: q = rint(v * K / 2^e), K = (2^(bits-1) - 1) / n_workers);
 *     a chunk with some |q| > K goes flagged FLAG_OVERFLOW with zero lanes and the
 *     exponent its values need (BlockExchange);
 *   - the last chunk carries `tail_words` words (whole groups), the others `words`; the
 *     header's group count says how many (testbed/proto/ina.py groups_of).
 * Results are taken between batches, not between single packets. ina_allreduce runs a
 * whole all-reduce of hosts/ina_allreduce.py's InaAllReduce in one call: each block's
 * exponent, the exponent round (FLAG_MAX), the data exchange with its exponents agreed
 * a round ahead, and the sums dequantized and rounded into the tensor's type, reading
 * and writing the tensor's memory (bf16, fp16, fp32) where it lies; a block that
 * overflowed its exponent is left to Python's re-send path. Two differences from
 * the Python loop: when, within one batch of received packets, sends leave; and chunks
 * leave in chunk order and the window opens like TCP's slow start: START_CHUNKS at
 * first, one more per result, up to `slots` (never more than the window allows).
 * Eight workers on two cores all burst their window the moment the exponent round
 * answers; the last one to get a core then sends its first chunk, which the first
 * result waits for, behind everyone's whole window of sends. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

/* lane words a packet may carry (testbed/proto/ina.py); a job's count is x->words */
#define MAX_LANES 8160
#define HEADER_BYTES 13
/* lane words per group of the header's count */
#define GROUP_WORDS 32
#define FLAG_GRADIENT 0x01
#define FLAG_RESULT 0x02
#define FLAG_RETRANSMIT 0x04
#define FLAG_MAX 0x10
#define FLAG_LANES16 0x40
#define FLAG_OVERFLOW 0x80
#define EXPONENT_MIN (-126)
#define EXPONENT_MAX 127
#define SHADOW_BIT 0x8000
#define FAST_AFTER 3
#define BATCH 64
#define START_CHUNKS 4                 /* chunks in flight at an exchange's start */

/* what hosts/ina_native.py declares to cffi (testbed/p4/native/build.py interface) */
/* interface begin */
typedef struct {
    /* the job stream, read and written back */
    uint8_t job_id, worker_id;
    uint32_t slots;
    double timeout_s, max_timeout_s, give_up_s;
    int has_srtt;
    double srtt, rttvar, quiet_until;
    int64_t backoff;
    /* this exchange */
    uint64_t first;
    uint32_t n;
    uint32_t words;                       /* 32-bit lane words per packet, 1..MAX_LANES */
    uint32_t tail_words;                  /* the last chunk's, 1..words */
    uint8_t lane_flags;                   /* FLAG_LANES16, FLAG_MAX or 0, on every packet */
    uint32_t n_workers;                   /* sets the scale of quantized values */
    int piggyback;
    uint64_t overflows;                   /* chunks sent flagged FLAG_OVERFLOW */
    /* outcome */
    int32_t result_exponent;
    int has_result_exponent;
    uint64_t sent_packets, retransmissions;
    uint32_t remaining;
    double stalled_s;
    uint64_t next_chunk;                  /* ina_allreduce: the stream's next chunk after it */
} ina_xchg_t;
/* buffers kept from one exchange to the next (one per socket; never shared by threads) */
typedef struct ina_ctx ina_ctx_t;
ina_ctx_t *ina_ctx_new(void);
void ina_ctx_free(ina_ctx_t *c);
int ina_run(ina_ctx_t *c, ina_xchg_t *x, int fd, uint32_t peer_ip, uint16_t peer_port,
            const int32_t *lanes, const float *values, int8_t *exponents,
            const int8_t *next_exponents, int32_t *result, int8_t *result_exponents,
            int8_t *result_next, uint8_t *result_flags);
/* a tensor's element type: INA_F32, INA_BF16, INA_F16 */
enum { INA_F32 = 0, INA_BF16 = 1, INA_F16 = 2 };
/* what ina_allreduce returns besides 0 (done) and -errno */
enum { INA_GAVE_UP = 1, INA_OVERFLOWED = 2, INA_NOT_MAX = 3, INA_DISAGREE = 4 };
int ina_allreduce(ina_ctx_t *c, ina_xchg_t *x, int fd, uint32_t peer_ip, uint16_t peer_port,
                  const void *src, void *dst, uint64_t size, int dtype, uint32_t lane_bits,
                  int short_packets, const int8_t *announced, double *stamps);
void ina_data_results(const ina_ctx_t *c, int32_t *result, int8_t *exponents,
                      int8_t *result_exponents, uint8_t *result_flags);
void ina_load(int dtype, const void *src, float *out, uint64_t n);
void ina_store(int dtype, const double *in, void *dst, uint64_t n);
/* interface end */

typedef struct {
    ina_xchg_t *x;
    int fd;
    struct sockaddr_in peer;
    const int32_t *lanes;
    const void *values;                   /* the values blocks are quantized from, */
    int dtype;                            /* their type (INA_F32, ...), */
    uint64_t size;                        /* how many (beyond: zeros) */
    int8_t *exponents;
    const int8_t *next_exponents;
    int32_t *result;
    int8_t *result_exponents, *result_next;
    uint8_t *result_flags;
    double *timeout, *sent_at, *started;  /* sent_at NAN: retransmitted, no RTT sample */
    uint32_t *pos;                        /* index in `outstanding`, or UINT32_MAX */
    uint32_t *outstanding, n_out;
    uint32_t fast_checked;
    uint32_t next_new;                    /* the first chunk not sent yet */
    uint32_t cwnd;                        /* chunks in flight allowed now, <= slots */
    double last_progress;
    size_t payload_bytes;                 /* HEADER_BYTES + 4 * words: a full packet */
    size_t recv_bytes;                    /* one more: a longer datagram is not ours */
    uint8_t *sendbuf, *recvbuf;           /* BATCH payloads each */
    struct mmsghdr smsg[BATCH];
    struct iovec siov[BATCH];
    uint32_t n_send;
} loop_t;

/* One allocation that grows to the largest exchange seen and is carved into the arrays
 * of each call: an all-reduce allocates nothing once its socket has run one of its size. */
struct ina_ctx {
    uint8_t *arena;
    size_t capacity;
    size_t used;
    loop_t L;
    /* ina_allreduce's data exchange, kept for ina_data_results */
    uint32_t n, words;
    int32_t *result;
    int8_t *exponents, *result_exponents;
    uint8_t *result_flags;
};

ina_ctx_t *ina_ctx_new(void) {
    return calloc(1, sizeof(ina_ctx_t));
}

void ina_ctx_free(ina_ctx_t *c) {
    if (c)
        free(c->arena);
    free(c);
}

/* Room for `bytes` in the arena (aligned to 16) from `c->used` on; NULL when the arena,
 * sized beforehand by reserve(), is too small. */
static void *carve(ina_ctx_t *c, size_t bytes) {
    size_t at = c->used;
    c->used += (bytes + 15) & ~(size_t)15;
    return c->used <= c->capacity ? c->arena + at : NULL;
}

static int reserve(ina_ctx_t *c, size_t bytes) {
    if (bytes <= c->capacity)
        return 0;
    uint8_t *grown = malloc(bytes);
    if (!grown)
        return -ENOMEM;
    free(c->arena);
    c->arena = grown;
    c->capacity = bytes;
    return 0;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double wall_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double rto(const ina_xchg_t *x) {
    double base = x->has_srtt ? x->srtt + 4 * x->rttvar : x->timeout_s;
    double t = (base > x->timeout_s ? base : x->timeout_s) * (double)x->backoff;
    return t < x->max_timeout_s ? t : x->max_timeout_s;
}

static void rtt_sample(ina_xchg_t *x, double rtt) {
    x->backoff = 1;
    if (!x->has_srtt) {
        x->has_srtt = 1;
        x->srtt = rtt;
        x->rttvar = rtt / 2;
    } else {
        x->rttvar = 0.75 * x->rttvar + 0.25 * fabs(x->srtt - rtt);
        x->srtt = 0.875 * x->srtt + 0.125 * rtt;
    }
}

static void timed_out(ina_xchg_t *x, double now) {
    if (now < x->quiet_until)
        return;
    if (rto(x) < x->max_timeout_s)
        x->backoff *= 2;
    x->quiet_until = now + rto(x);
}

static int wait_fd(int fd, short events, double seconds) {
    struct pollfd p = {.fd = fd, .events = events};
    if (seconds < 0)
        seconds = 0;
    struct timespec ts = {.tv_sec = (time_t)seconds,
                          .tv_nsec = (long)((seconds - (time_t)seconds) * 1e9)};
    int r = ppoll(&p, 1, &ts, NULL);
    if (r < 0)      /* a signal: look again (Python runs its handler after the call) */
        return errno == EINTR ? 0 : -errno;
    return r;
}

/* Send every queued packet; a full socket buffer is waited for, as the Python
 * transport waits. Returns 0 or -errno. */
static int flush(loop_t *L) {
    uint32_t done = 0;
    while (done < L->n_send) {
        int r = sendmmsg(L->fd, L->smsg + done, L->n_send - done, MSG_DONTWAIT);
        if (r < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS) {
                int w = wait_fd(L->fd, POLLOUT, 1.0);
                if (w < 0)
                    return w;
                continue;
            }
            if (errno == EINTR)
                continue;
            return -errno;
        }
        done += (uint32_t)r;
    }
    L->n_send = 0;
    return 0;
}

/* exponent_for of hosts/ina_fixedpoint.py: smallest e with 2^e >= max_abs */
static int exponent_for(double max_abs) {
    if (!(max_abs > 0.0))
        return EXPONENT_MIN;
    if (isinf(max_abs))
        return EXPONENT_MAX;
    int e;
    double m = frexp(max_abs, &e);
    if (m == 0.5)
        e -= 1;
    if (e > EXPONENT_MAX)
        e = EXPONENT_MAX;
    return e < EXPONENT_MIN ? EXPONENT_MIN : e;
}

#define INLINE static inline __attribute__((always_inline))

/* ---- element types: every value read exactly as float, sums rounded as torch rounds
 * a float64 tensor to the type (to float first, then to nearest even again) */
INLINE float from_bits(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}

INLINE uint32_t to_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

INLINE float half_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1F, m = h & 0x3FF;
    if (e == 0)                                   /* zero or subnormal: m * 2^-24 */
        return sign ? -ldexpf((float)m, -24) : ldexpf((float)m, -24);
    if (e == 31)                                  /* inf, NaN */
        return from_bits(sign | 0x7F800000 | m << 13);
    return from_bits(sign | (e + 127 - 15) << 23 | m << 13);
}

/* `q` shifted right by `s` bits (1..31), rounded to nearest, ties to even */
INLINE uint32_t shift_rounded(uint32_t q, int s) {
    uint32_t kept = q >> s, rest = q & ((1u << s) - 1), half = 1u << (s - 1);
    return kept + (rest > half || (rest == half && (kept & 1)));
}

INLINE uint16_t float_to_half(float f) {
    uint32_t u = to_bits(f), sign = (u >> 16) & 0x8000, a = u & 0x7FFFFFFF;
    if (a > 0x7F800000)
        return sign | 0x7E00;                     /* NaN */
    if (a >= 0x477FF000)                          /* 65520 and up round to inf */
        return sign | 0x7C00;
    int e = (int)(a >> 23) - 127;
    if (e >= -14)                                 /* normal: 13 bits dropped; a carry
                                                   * moves into the exponent, as it should */
        return sign | (uint16_t)shift_rounded(((uint32_t)(e + 15) << 23) | (a & 0x7FFFFF), 13);
    if (e < -25)                                  /* below half the smallest subnormal */
        return sign;
    /* subnormal: the significand (with its leading 1) in units of 2^-24 */
    return sign | (uint16_t)shift_rounded((a & 0x7FFFFF) | 0x800000, -1 - e);
}

INLINE uint16_t float_to_bf16(float f) {          /* finite or inf: no NaN to keep */
    uint32_t u = to_bits(f);
    return (uint16_t)((u + 0x7FFF + ((u >> 16) & 1)) >> 16);
}

/* value k of `values` of `dtype`, as float (exact) */
INLINE float load_value(const void *values, int dtype, uint64_t k) {
    if (dtype == INA_BF16)
        return from_bits((uint32_t)((const uint16_t *)values)[k] << 16);
    if (dtype == INA_F16)
        return half_to_float(((const uint16_t *)values)[k]);
    return ((const float *)values)[k];
}

/* `v` rounded to `dtype`, written as value k of `dst` */
INLINE void store_value(void *dst, int dtype, uint64_t k, double v) {
    float f = (float)v;
    if (dtype == INA_BF16)
        ((uint16_t *)dst)[k] = float_to_bf16(f);
    else if (dtype == INA_F16)
        ((uint16_t *)dst)[k] = float_to_half(f);
    else
        ((float *)dst)[k] = f;
}

void ina_load(int dtype, const void *src, float *out, uint64_t n) {
    for (uint64_t k = 0; k < n; k++)
        out[k] = load_value(src, dtype, k);
}

void ina_store(int dtype, const double *in, void *dst, uint64_t n) {
    for (uint64_t k = 0; k < n; k++)
        store_value(dst, dtype, k, in[k]);
}

/* ---- one exchange */

static int lane_bits_of(const ina_xchg_t *x) {
    return (x->lane_flags & FLAG_LANES16) ? 16 : 32;
}

/* the lane words chunk i's packets carry */
static uint32_t chunk_words(const loop_t *L, uint32_t i) {
    return i + 1 == L->x->n ? L->x->tail_words : L->x->words;
}

/* the values of block i (`per` of them from value i * per) before the tensor ends */
static uint64_t present(const loop_t *L, uint32_t i, uint64_t per) {
    uint64_t first = (uint64_t)i * per;
    return first >= L->size ? 0 : (L->size - first < per ? L->size - first : per);
}

/* x rounded to the nearest integer, ties to even, as nearbyint in the default rounding
 * mode, for |x| < 2^51: x + 1.5 * 2^52 has no bits below 1 */
INLINE double round_even(double x) {
    const double shift = 6755399441055744.0;
    return (x + shift) - shift;
}

/* Chunk i's values (the first `words` words' worth) quantized at `exponent` into the
 * payload's lanes (big-endian); 0 when some value does not fit, the lanes then all zero. */
static int quantize(const loop_t *L, uint32_t i, uint32_t words, int exponent, uint8_t *dst) {
    int bits = lane_bits_of(L->x);
    uint64_t per = (uint64_t)words * 32 / bits;
    uint64_t row = (uint64_t)L->x->words * 32 / bits;
    uint64_t have = present(L, i, row), first = (uint64_t)i * row;
    if (have > per)
        have = per;
    double k = (double)((((int64_t)1 << (bits - 1)) - 1) / L->x->n_workers);
    double scale = k / ldexp(1.0, exponent);
    const void *values = L->values;
    int dtype = L->dtype;
    for (uint64_t j = 0; j < have; j++) {
        double v = (double)load_value(values, dtype, first + j) * scale;
        double q = round_even(v);
        if (!(fabs(v) < 0x1p51) || fabs(q) > k) {      /* NaN too */
            memset(dst, 0, 4 * (size_t)words);
            return 0;
        }
        int32_t w = (int32_t)q;
        if (bits == 16) {
            dst[2 * j] = (uint8_t)((uint16_t)w >> 8);
            dst[2 * j + 1] = (uint8_t)(w & 0xFF);
        } else {
            uint32_t u = __builtin_bswap32((uint32_t)w);
            memcpy(dst + 4 * j, &u, 4);
        }
    }
    memset(dst + have * bits / 8, 0, (per - have) * bits / 8);
    return 1;
}

/* The largest magnitude of block i's values; NAN if one is not finite. Magnitudes of
 * IEEE values order as their bits without the sign: the largest is found on integers. */
static double block_max(const loop_t *L, uint32_t i) {
    uint64_t per = (uint64_t)L->x->words * 32 / lane_bits_of(L->x);
    uint64_t have = present(L, i, per), first = (uint64_t)i * per;
    if (L->dtype == INA_F32) {
        const uint32_t *v = (const uint32_t *)L->values + first;
        uint32_t m = 0;
        for (uint64_t j = 0; j < have; j++) {
            uint32_t a = v[j] & 0x7FFFFFFF;
            m = a > m ? a : m;
        }
        return m >= 0x7F800000 ? NAN : (double)from_bits(m);
    }
    const uint16_t *v = (const uint16_t *)L->values + first;
    uint16_t m = 0;
    for (uint64_t j = 0; j < have; j++) {
        uint16_t a = v[j] & 0x7FFF;
        m = a > m ? a : m;
    }
    if (L->dtype == INA_BF16)
        return m >= 0x7F80 ? NAN : (double)from_bits((uint32_t)m << 16);
    return m >= 0x7C00 ? NAN : (double)half_to_float(m);
}

static int send_chunk(loop_t *L, uint32_t i, double now, int retransmit, int back_off) {
    ina_xchg_t *x = L->x;
    if (retransmit) {
        x->retransmissions++;
        L->sent_at[i] = NAN;
        if (back_off) {
            double t = L->timeout[i] * 2;
            L->timeout[i] = t < x->max_timeout_s ? t : x->max_timeout_s;
            timed_out(x, now);
        }
    } else {
        L->timeout[i] = rto(x);
        L->sent_at[i] = now;
        L->pos[i] = L->n_out;
        L->outstanding[L->n_out++] = i;
    }
    L->started[i] = now;
    x->sent_packets++;
    if (L->n_send == BATCH) {
        int r = flush(L);
        if (r < 0)
            return r;
    }
    uint8_t *p = L->sendbuf + L->n_send * L->payload_bytes;
    uint32_t words = chunk_words(L, i);
    L->siov[L->n_send].iov_len = HEADER_BYTES + 4 * (size_t)words;
    uint64_t chunk = x->first + i;
    uint16_t slot = (uint16_t)(chunk % x->slots) | (((chunk / x->slots) & 1) ? SHADOW_BIT : 0);
    uint32_t c32 = (uint32_t)chunk;
    int exponent = L->exponents[i];
    uint8_t flags = FLAG_GRADIENT | (retransmit ? FLAG_RETRANSMIT : 0) | x->lane_flags;
    if (L->lanes) {
        const int32_t *src = L->lanes + (size_t)i * x->words;
        for (uint32_t k = 0; k < words; k++) {
            uint32_t u = __builtin_bswap32((uint32_t)src[k]);
            memcpy(p + HEADER_BYTES + 4 * k, &u, 4);
        }
    } else if (!quantize(L, i, words, exponent, p + HEADER_BYTES)) {
        flags |= FLAG_OVERFLOW;
        exponent = exponent_for(block_max(L, i));
        if (!retransmit)
            x->overflows++;
    }
    p[0] = x->job_id;
    p[1] = x->worker_id;
    p[2] = flags;
    p[3] = 0;
    p[4] = slot >> 8;
    p[5] = slot & 0xFF;
    p[6] = (uint8_t)(int8_t)exponent;
    p[7] = (uint8_t)L->next_exponents[i];
    p[8] = c32 >> 24;
    p[9] = (c32 >> 16) & 0xFF;
    p[10] = (c32 >> 8) & 0xFF;
    p[11] = c32 & 0xFF;
    p[12] = (uint8_t)((words + GROUP_WORDS - 1) / GROUP_WORDS);
    L->n_send++;
    return 0;
}

/* Send the chunks not sent yet, in order, while fewer than cwnd are in flight and the
 * window allows the next one: chunk j once chunk j - slots has its result. */
static int send_new(loop_t *L, double now) {
    ina_xchg_t *x = L->x;
    while (L->next_new < x->n && L->n_out < L->cwnd
           && (L->next_new < x->slots || L->pos[L->next_new - x->slots] == UINT32_MAX)) {
        int r = send_chunk(L, L->next_new++, now, 0, 0);
        if (r < 0)
            return r;
    }
    return 0;
}

static void answered(loop_t *L, uint32_t i) {
    uint32_t at = L->pos[i], last = L->outstanding[--L->n_out];
    L->outstanding[at] = last;
    L->pos[last] = at;
    L->pos[i] = UINT32_MAX;
}

/* One received payload (Exchange.on_payload). */
static int on_payload(loop_t *L, const uint8_t *p, uint32_t len, double now) {
    ina_xchg_t *x = L->x;
    if (len < HEADER_BYTES || p[0] != x->job_id || !(p[2] & FLAG_RESULT))
        return 0;
    uint32_t chunk = (uint32_t)p[8] << 24 | (uint32_t)p[9] << 16 | (uint32_t)p[10] << 8 | p[11];
    uint32_t i = chunk - (uint32_t)x->first;
    if (i >= x->n || L->pos[i] == UINT32_MAX)
        return 0;                       /* not ours, or a duplicate of a result we have */
    uint32_t words = chunk_words(L, i);
    if (len != HEADER_BYTES + 4 * (size_t)words
        || p[12] != (words + GROUP_WORDS - 1) / GROUP_WORDS)
        return 0;                       /* not of this chunk's length */
    answered(L, i);
    if (!isnan(L->sent_at[i]))
        rtt_sample(x, now - L->sent_at[i]);
    int32_t *dst = L->result + (size_t)i * x->words;
    for (uint32_t k = 0; k < words; k++) {
        uint32_t u;
        memcpy(&u, p + HEADER_BYTES + 4 * k, 4);
        dst[k] = (int32_t)__builtin_bswap32(u);
    }
    int32_t e = (int8_t)p[6];
    if (!x->has_result_exponent || e > x->result_exponent) {
        x->result_exponent = e;
        x->has_result_exponent = 1;
    }
    L->result_exponents[i] = (int8_t)p[6];
    L->result_next[i] = (int8_t)p[7];
    L->result_flags[i] = p[2];
    if (x->piggyback && (uint64_t)i + x->slots < x->n)
        L->exponents[i + x->slots] = (int8_t)p[7];
    x->remaining--;
    L->last_progress = now;
    while (L->fast_checked + FAST_AFTER <= i) {
        uint32_t hole = L->fast_checked++;
        if (L->pos[hole] != UINT32_MAX) {
            int r = send_chunk(L, hole, now, 1, 0);
            if (r < 0)
                return r;
        }
    }
    if (L->cwnd < x->slots)
        L->cwnd++;
    return send_new(L, now);
}

/* When the first outstanding chunk is due (Exchange.next_deadline): its timeout after
 * its send or after the last result, whichever is later. */
static double next_deadline(const loop_t *L) {
    double best = INFINITY;
    for (uint32_t k = 0; k < L->n_out; k++) {
        uint32_t i = L->outstanding[k];
        double from = L->started[i] > L->last_progress ? L->started[i] : L->last_progress;
        double due = from + L->timeout[i];
        if (due < best)
            best = due;
    }
    return best;
}

/* Retransmit every overdue chunk (Exchange.poll); 1 when the exchange gives up. */
static int poll_overdue(loop_t *L, double now) {
    int resent = 0;
    for (uint32_t k = 0; k < L->n_out; k++) {
        uint32_t i = L->outstanding[k];
        double from = L->started[i] > L->last_progress ? L->started[i] : L->last_progress;
        if (from + L->timeout[i] <= now) {
            int r = send_chunk(L, i, now, 1, 1);
            if (r < 0)
                return r;
            resent = 1;
        }
    }
    if (resent && now - L->last_progress > L->x->give_up_s) {
        L->x->stalled_s = now - L->last_progress;
        return 1;
    }
    return 0;
}

static int receive(loop_t *L, struct mmsghdr *msgs) {
    int got = recvmmsg(L->fd, msgs, BATCH, MSG_DONTWAIT, NULL);
    if (got < 0)
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -errno;
    double now = now_s();
    for (int k = 0; k < got; k++) {
        int r = on_payload(L, L->recvbuf + k * L->recv_bytes, msgs[k].msg_len, now);
        if (r < 0)
            return r;
    }
    return got;
}

static int drive(loop_t *L) {
    ina_xchg_t *x = L->x;
    struct mmsghdr rmsg[BATCH];
    struct iovec riov[BATCH];
    for (int k = 0; k < BATCH; k++) {
        riov[k].iov_base = L->recvbuf + k * L->recv_bytes;
        riov[k].iov_len = L->recv_bytes;
        memset(&rmsg[k], 0, sizeof rmsg[k]);
        rmsg[k].msg_hdr.msg_iov = &riov[k];
        rmsg[k].msg_hdr.msg_iovlen = 1;
    }
    double now = now_s();
    L->last_progress = now;
    L->cwnd = START_CHUNKS < x->slots ? START_CHUNKS : x->slots;
    int r = send_new(L, now);
    if (r < 0)
        return r;
    r = flush(L);
    if (r < 0)
        return r;
    while (x->remaining > 0) {
        double deadline = next_deadline(L);
        double wait = isinf(deadline) ? 1.0 : deadline - now_s();
        int ready = wait_fd(L->fd, POLLIN, wait);
        if (ready < 0)
            return ready;
        if (ready > 0) {
            /* drain what is there, a batch at a time, before looking at the timers */
            int got;
            do {
                got = receive(L, rmsg);
                if (got < 0)
                    return got;
            } while (got == BATCH && x->remaining > 0);
        }
        now = now_s();
        if (x->remaining > 0 && next_deadline(L) <= now) {
            r = poll_overdue(L, now);
            if (r != 0) {
                int f = flush(L);
                return f < 0 ? f : r;
            }
        }
        r = flush(L);
        if (r < 0)
            return r;
    }
    return 0;
}

/* Set up `c->L` for an exchange of x->n chunks of x->words words and run it on the UDP
 * socket `fd` towards peer_ip:peer_port (network order): 0 when every result is in
 * `result`, 1 when it gave up (x->remaining and x->stalled_s say what is missing),
 * -errno on a socket error, -ENOMEM, -EINVAL for a lane count outside 1..MAX_LANES or a
 * last chunk's outside 1..words. The chunks' arrays are carved from the arena at
 * `c->used`: a caller that keeps arrays of its own there carves them first. */
static int run(ina_ctx_t *c, ina_xchg_t *x, int fd, uint32_t peer_ip, uint16_t peer_port) {
    if (x->words < 1 || x->words > MAX_LANES || x->tail_words < 1 || x->tail_words > x->words)
        return -EINVAL;
    loop_t *L = &c->L;
    size_t n = x->n ? x->n : 1;
    L->payload_bytes = HEADER_BYTES + 4 * (size_t)x->words;
    L->recv_bytes = L->payload_bytes + 1;
    L->timeout = carve(c, n * sizeof(double));
    L->sent_at = carve(c, n * sizeof(double));
    L->started = carve(c, n * sizeof(double));
    L->pos = carve(c, n * sizeof(uint32_t));
    L->outstanding = carve(c, n * sizeof(uint32_t));
    L->sendbuf = carve(c, BATCH * L->payload_bytes);
    L->recvbuf = carve(c, BATCH * L->recv_bytes);
    if (c->used > c->capacity)
        return -ENOMEM;                 /* the caller reserved too little: a bug */
    L->x = x;
    L->fd = fd;
    L->n_out = L->fast_checked = L->next_new = L->n_send = 0;
    L->peer.sin_family = AF_INET;
    L->peer.sin_addr.s_addr = peer_ip;
    L->peer.sin_port = peer_port;
    for (size_t i = 0; i < n; i++)
        L->pos[i] = UINT32_MAX;
    for (int k = 0; k < BATCH; k++) {
        L->siov[k].iov_base = L->sendbuf + k * L->payload_bytes;
        L->siov[k].iov_len = L->payload_bytes;
        L->smsg[k].msg_hdr.msg_name = &L->peer;
        L->smsg[k].msg_hdr.msg_namelen = sizeof L->peer;
        L->smsg[k].msg_hdr.msg_iov = &L->siov[k];
        L->smsg[k].msg_hdr.msg_iovlen = 1;
    }
    x->remaining = x->n;
    x->sent_packets = x->retransmissions = x->overflows = 0;
    x->has_result_exponent = 0;
    x->stalled_s = 0;
    return drive(L);
}

/* the arena bytes run() carves for n chunks of `words` words */
static size_t run_bytes(uint32_t n, uint32_t words) {
    size_t payload = HEADER_BYTES + 4 * (size_t)words;
    return (n ? n : 1) * (3 * sizeof(double) + 2 * sizeof(uint32_t)) + BATCH * (2 * payload + 1)
           + 7 * 16;
}

/* One exchange of the arrays given (hosts/ina_native.py's NativeLoop.run). */
int ina_run(ina_ctx_t *c, ina_xchg_t *x, int fd, uint32_t peer_ip, uint16_t peer_port,
            const int32_t *lanes, const float *values, int8_t *exponents,
            const int8_t *next_exponents, int32_t *result, int8_t *result_exponents,
            int8_t *result_next, uint8_t *result_flags) {
    if (x->words < 1 || x->words > MAX_LANES)
        return -EINVAL;
    int r = reserve(c, run_bytes(x->n, x->words));
    if (r < 0)
        return r;
    c->used = 0;
    loop_t *L = &c->L;
    L->lanes = lanes;
    L->values = values;
    L->dtype = INA_F32;
    L->size = (uint64_t)x->n * x->words * 32 / lane_bits_of(x);
    L->exponents = exponents;
    L->next_exponents = next_exponents;
    L->result = result;
    L->result_exponents = result_exponents;
    L->result_next = result_next;
    L->result_flags = result_flags;
    return run(c, x, fd, peer_ip, peer_port);
}

static uint32_t whole_groups(uint64_t words) {
    return (uint32_t)((words + GROUP_WORDS - 1) / GROUP_WORDS * GROUP_WORDS);
}

/* The all-reduce of InaAllReduce.all_reduce (hosts/ina_allreduce.py) of `size` values
 * of `dtype` at `src` into `dst` (the same memory or another), in lanes of `lane_bits`
 * bits, x->words words a packet, the stream's chunks from x->first (x->next_chunk says
 * where it ended). Each block's exponent is the one its values need, or `announced`'s
 * when given; the first window's are agreed in a FLAG_MAX round (its packets only of
 * the groups needed with `short_packets`, as the tensor's last data packet), the others
 * a round ahead in `next_exponent`. `stamps` gets the wall-clock times the exponent
 * round and the data began and the data ended. Returns 0 with the sums in `dst`;
 * INA_GAVE_UP as ina_run's 1 (x->n and x->remaining of the exchange that stalled);
 * INA_OVERFLOWED when a block overflowed its agreed exponent (dst untouched; the data
 * exchange's arrays from ina_data_results); INA_NOT_MAX when the switch summed the
 * exponent round; INA_DISAGREE when a result came back at another exponent than the one
 * agreed; -EDOM for a value that is not finite or beyond 2^EXPONENT_MAX (nothing sent);
 * -errno. */
int ina_allreduce(ina_ctx_t *c, ina_xchg_t *x, int fd, uint32_t peer_ip, uint16_t peer_port,
                  const void *src, void *dst, uint64_t size, int dtype, uint32_t lane_bits,
                  int short_packets, const int8_t *announced, double *stamps) {
    uint32_t words = x->words;
    x->next_chunk = x->first;
    if (words < 1 || words > MAX_LANES || (lane_bits != 16 && lane_bits != 32) || size == 0
        || x->slots < 1)
        return -EINVAL;
    uint64_t per = (uint64_t)words * 32 / lane_bits;
    uint64_t blocks = (size + per - 1) / per;
    if (blocks > UINT32_MAX / 2)
        return -EINVAL;
    uint32_t n = (uint32_t)blocks, head = n < x->slots ? n : x->slots;
    uint32_t rows = (head + words - 1) / words;
    size_t need = run_bytes(n, words) + 6 * ((size_t)n + 16) + 2 * (4 * (size_t)n * words + 16);
    int r = reserve(c, need);
    if (r < 0)
        return r;
    c->used = 0;
    int8_t *local = carve(c, n), *exponents = carve(c, n), *next = carve(c, n);
    int8_t *result_exponents = carve(c, n), *result_next = carve(c, n);
    uint8_t *result_flags = carve(c, n);
    int32_t *result = carve(c, 4 * (size_t)n * words);
    int32_t *max_lanes = carve(c, 4 * (size_t)rows * words);
    if (c->used > c->capacity)
        return -ENOMEM;
    loop_t *L = &c->L;
    L->x = x;
    L->values = src;
    L->dtype = dtype;
    L->size = size;
    x->lane_flags = lane_bits == 16 ? FLAG_LANES16 : 0;    /* block_max's block size */
    for (uint32_t i = 0; i < n; i++) {
        if (announced) {
            local[i] = announced[i];
            continue;
        }
        double m = block_max(L, i);
        int e;
        if (isnan(m) || (frexp(m, &e) == 0.5 ? e - 1 : e) > EXPONENT_MAX)
            return -EDOM;
        local[i] = (int8_t)exponent_for(m);
    }
    uint64_t first = x->first, sent = 0, resent = 0;
    c->n = n;
    c->words = words;
    c->result = result;
    c->exponents = exponents;
    c->result_exponents = result_exponents;
    c->result_flags = result_flags;
    size_t mark = c->used;

    /* the exponent round: one lane per block of the first window, the switch keeps
     * each lane's largest (lanes past the blocks: the smallest exponent) */
    stamps[0] = wall_s();
    for (size_t k = 0; k < (size_t)rows * words; k++)
        max_lanes[k] = k < head ? local[k] : EXPONENT_MIN;
    memset(exponents, EXPONENT_MIN, n);
    memset(next, 0, n);
    x->n = rows;
    x->tail_words = short_packets ? whole_groups(head - (uint64_t)(rows - 1) * words) : words;
    if (x->tail_words > words)
        x->tail_words = words;
    x->lane_flags = FLAG_MAX;
    x->piggyback = 0;
    L->lanes = max_lanes;
    L->exponents = exponents;
    L->next_exponents = next;
    L->result = result;
    L->result_exponents = result_exponents;
    L->result_next = result_next;
    L->result_flags = result_flags;
    r = run(c, x, fd, peer_ip, peer_port);
    sent += x->sent_packets;
    resent += x->retransmissions;
    x->next_chunk = first + rows;
    if (r != 0) {
        x->sent_packets = sent;
        x->retransmissions = resent;
        return r == 1 ? INA_GAVE_UP : r;
    }
    for (uint32_t k = 0; k < rows; k++)
        if (!(result_flags[k] & FLAG_MAX)) {
            x->sent_packets = sent;
            x->retransmissions = resent;
            return INA_NOT_MAX;
        }
    /* the data: the first window at the agreed exponents, chunk i announcing block
     * i + head's, whose agreed exponent comes back with chunk i's result */
    for (uint32_t i = 0; i < n; i++) {
        exponents[i] = i < head ? (int8_t)result[i] : EXPONENT_MIN;
        next[i] = i + head < n ? local[i + head] : EXPONENT_MIN;
    }
    memset(result, 0, 4 * (size_t)n * words);
    c->used = mark;
    stamps[1] = wall_s();
    x->first = first + rows;
    x->n = n;
    uint64_t tail_values = size - (uint64_t)(n - 1) * per;
    x->tail_words = short_packets ? whole_groups((tail_values * lane_bits + 31) / 32) : words;
    if (x->tail_words > words)
        x->tail_words = words;
    x->lane_flags = lane_bits == 16 ? FLAG_LANES16 : 0;
    x->piggyback = 1;
    L->lanes = NULL;
    r = run(c, x, fd, peer_ip, peer_port);
    stamps[2] = wall_s();
    x->first = first;
    x->next_chunk = first + rows + n;
    x->sent_packets += sent;
    x->retransmissions += resent;
    if (r != 0)
        return r == 1 ? INA_GAVE_UP : r;
    int overflowed = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (result_flags[i] & FLAG_OVERFLOW)
            overflowed = 1;
        else if (result_exponents[i] != exponents[i])
            return INA_DISAGREE;
    }
    if (overflowed)
        return INA_OVERFLOWED;
    /* the sums, dequantized at each block's scale (hosts/ina_fixedpoint.py block_scales)
     * and rounded to the tensor's type */
    int64_t k_max = (((int64_t)1 << (lane_bits - 1)) - 1) / x->n_workers;
    for (uint32_t i = 0; i < n; i++) {
        double scale = (double)k_max / ldexp(1.0, exponents[i]);
        const int32_t *row = result + (size_t)i * words;
        uint64_t at = (uint64_t)i * per, count = i + 1 < n ? per : tail_values;
        for (uint64_t j = 0; j < count; j++) {
            int32_t sum = lane_bits == 32 ? row[j]
                          : (int16_t)(j & 1 ? row[j / 2] & 0xFFFF : (uint32_t)row[j / 2] >> 16);
            store_value(dst, dtype, at + j, (double)sum / scale);
        }
    }
    return 0;
}

/* After INA_OVERFLOWED: the data exchange's sums (n rows of `words` words), the
 * exponents its chunks were sent at, and its results' exponents and flags. */
void ina_data_results(const ina_ctx_t *c, int32_t *result, int8_t *exponents,
                      int8_t *result_exponents, uint8_t *result_flags) {
    memcpy(result, c->result, 4 * (size_t)c->n * c->words);
    memcpy(exponents, c->exponents, c->n);
    memcpy(result_exponents, c->result_exponents, c->n);
    memcpy(result_flags, c->result_flags, c->n);
}
