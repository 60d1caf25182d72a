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
 * Results are taken between batches, not between single packets. Two differences from
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
#define GROUP_WORDS 32                    /* lane words per group of the header's count */
#define FLAG_GRADIENT 0x01
#define FLAG_RESULT 0x02
#define FLAG_RETRANSMIT 0x04
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
} ina_xchg_t;
int ina_run(ina_xchg_t *x, int fd, uint32_t peer_ip, uint16_t peer_port,
            const int32_t *lanes, const float *values, int8_t *exponents,
            const int8_t *next_exponents, int32_t *result, int8_t *result_exponents,
            int8_t *result_next, uint8_t *result_flags);
/* interface end */

typedef struct {
    ina_xchg_t *x;
    int fd;
    struct sockaddr_in peer;
    const int32_t *lanes;
    const float *values;
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

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
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
    if (max_abs <= 0.0)
        return EXPONENT_MIN;
    int e;
    double m = frexp(max_abs, &e);
    if (m == 0.5)
        e -= 1;
    if (e > EXPONENT_MAX)
        e = EXPONENT_MAX;
    return e < EXPONENT_MIN ? EXPONENT_MIN : e;
}

/* the lane words chunk i's packets carry */
static uint32_t chunk_words(const loop_t *L, uint32_t i) {
    return i + 1 == L->x->n ? L->x->tail_words : L->x->words;
}

/* Chunk i's values (the first `words` words' worth) quantized at `exponent` into the
 * payload's lanes (big-endian); 0 when some value does not fit, the lanes then all zero. */
static int quantize(const loop_t *L, uint32_t i, uint32_t words, int exponent, uint8_t *dst) {
    int bits = (L->x->lane_flags & FLAG_LANES16) ? 16 : 32;
    int per = (int)words * 32 / bits;
    int row = (int)L->x->words * 32 / bits;
    double k = (double)((((int64_t)1 << (bits - 1)) - 1) / L->x->n_workers);
    double scale = k / ldexp(1.0, exponent);
    const float *v = L->values + (size_t)i * row;
    for (int j = 0; j < per; j++) {
        double q = nearbyint((double)v[j] * scale);
        if (fabs(q) > k) {
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
    return 1;
}

static double block_max(const loop_t *L, uint32_t i) {
    int per = (int)L->x->words * ((L->x->lane_flags & FLAG_LANES16) ? 2 : 1);
    const float *v = L->values + (size_t)i * per;
    double m = 0.0;
    for (int j = 0; j < per; j++)
        if (fabs((double)v[j]) > m)
            m = fabs((double)v[j]);
    return m;
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

/* Run one exchange on the UDP socket `fd` towards peer_ip:peer_port (network order):
 * 0 when every result is in `result`, 1 when it gave up (x->remaining and x->stalled_s
 * say what is missing), -errno on a socket error, -ENOMEM, -EINVAL for a lane count
 * outside 1..MAX_LANES or a last chunk's outside 1..words. */
int ina_run(ina_xchg_t *x, int fd, uint32_t peer_ip, uint16_t peer_port,
            const int32_t *lanes, const float *values, int8_t *exponents,
            const int8_t *next_exponents, int32_t *result, int8_t *result_exponents,
            int8_t *result_next, uint8_t *result_flags) {
    if (x->words < 1 || x->words > MAX_LANES || x->tail_words < 1 || x->tail_words > x->words)
        return -EINVAL;
    loop_t *L = calloc(1, sizeof *L);
    if (!L)
        return -ENOMEM;
    L->payload_bytes = HEADER_BYTES + 4 * (size_t)x->words;
    L->recv_bytes = L->payload_bytes + 1;
    L->sendbuf = malloc(BATCH * L->payload_bytes);
    L->recvbuf = malloc(BATCH * L->recv_bytes);
    size_t n = x->n ? x->n : 1;
    L->timeout = malloc(n * sizeof(double));
    L->sent_at = malloc(n * sizeof(double));
    L->started = malloc(n * sizeof(double));
    L->pos = malloc(n * sizeof(uint32_t));
    L->outstanding = malloc(n * sizeof(uint32_t));
    int r = -ENOMEM;
    if (L->timeout && L->sent_at && L->started && L->pos && L->outstanding && L->sendbuf
        && L->recvbuf) {
        L->x = x;
        L->fd = fd;
        L->lanes = lanes;
        L->values = values;
        L->exponents = exponents;
        L->next_exponents = next_exponents;
        L->result = result;
        L->result_exponents = result_exponents;
        L->result_next = result_next;
        L->result_flags = result_flags;
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
        r = drive(L);
    }
    free(L->timeout);
    free(L->sent_at);
    free(L->started);
    free(L->pos);
    free(L->outstanding);
    free(L->sendbuf);
    free(L->recvbuf);
    free(L);
    return r;
}
