/* Batched transmit on AF_PACKET sockets with sendmmsg: one system call for up to IO_BATCH
 * frames. Part of every generated pipeline (which sends its outputs with it) and compiled
 * on its own for the switch's Python path and the traffic generator
 * (testbed/switch/transmit.py).
 *
 * sendmmsg, not a PACKET_MMAP TX ring: on a veth (kernel 6.18) a C sender offered 64-byte
 * frames at 830-860 kpps with sendmmsg against 720-770 kpps with a TX ring, at 1500 bytes
 * 810 against 660 kpps, batches of 16 to 256 frames, with and without
 * PACKET_QDISC_BYPASS. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/if_packet.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#define IO_BATCH 64

/* what testbed/switch/transmit.py declares to cffi (build.py interface) */
/* interface begin */
uint32_t io_send(int fd, const uint8_t *data, const uint32_t *offs, const uint32_t *sizes,
                 const uint32_t *pick, uint32_t n, uint64_t *counts);
int io_probe(int fd);
uint64_t io_generate(int fd, const uint8_t *frame, uint32_t len, double seconds,
                     double rate_pps, double *elapsed);
/* interface end */

/* Frames pick[0..n) (or 0..n) of the arena (frame i at data + offs[i], sizes[i] bytes)
 * on ``fd`` in order, without blocking. A frame the kernel refuses (the call's first
 * fails) is skipped; counts: frames sent, their bytes, frames refused, their bytes. */
uint32_t io_send(int fd, const uint8_t *data, const uint32_t *offs, const uint32_t *sizes,
                 const uint32_t *pick, uint32_t n, uint64_t *counts) {
    struct mmsghdr msgs[IO_BATCH];
    struct iovec iov[IO_BATCH];
    uint32_t done = 0, sent = 0;
    while (done < n) {
        uint32_t m = n - done < IO_BATCH ? n - done : IO_BATCH;
        memset(msgs, 0, sizeof(struct mmsghdr) * m);
        for (uint32_t k = 0; k < m; k++) {
            uint32_t i = pick ? pick[done + k] : done + k;
            iov[k].iov_base = (void *)(data + offs[i]);
            iov[k].iov_len = sizes[i];
            msgs[k].msg_hdr.msg_iov = &iov[k];
            msgs[k].msg_hdr.msg_iovlen = 1;
        }
        int r = sendmmsg(fd, msgs, m, MSG_DONTWAIT);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {                 /* never 0 for m > 0; a refusal if it were */
            counts[2]++;
            counts[3] += iov[0].iov_len;
            done++;
            continue;
        }
        for (int k = 0; k < r; k++) counts[1] += iov[k].iov_len;
        counts[0] += r;
        sent += r;
        done += r;
    }
    return sent;
}

/* Frames pick[0..n) of the arena, frame i to the interface ifindex[port[i]], through
 * ``fd``, one packet socket bound to no interface (each message names its own): one
 * system call per IO_BATCH frames whatever their ports, where io_send takes one per
 * port. A result multicast to eight ports thus costs one call, not eight. counts[p]:
 * port p's counts as io_send's. */
uint32_t io_send_ports(int fd, const uint8_t *data, const uint32_t *offs,
                       const uint32_t *sizes, const uint32_t *pick, uint32_t n,
                       const uint32_t *port, const int32_t *ifindex, uint64_t (*counts)[4]) {
    struct mmsghdr msgs[IO_BATCH];
    struct iovec iov[IO_BATCH];
    struct sockaddr_ll to[IO_BATCH];
    uint32_t where[IO_BATCH];
    uint32_t done = 0, sent = 0;
    while (done < n) {
        uint32_t m = n - done < IO_BATCH ? n - done : IO_BATCH;
        memset(msgs, 0, sizeof(struct mmsghdr) * m);
        for (uint32_t k = 0; k < m; k++) {
            uint32_t i = pick[done + k];
            where[k] = port[i];
            memset(&to[k], 0, sizeof to[k]);
            to[k].sll_family = AF_PACKET;
            to[k].sll_ifindex = ifindex[port[i]];
            iov[k].iov_base = (void *)(data + offs[i]);
            iov[k].iov_len = sizes[i];
            msgs[k].msg_hdr.msg_name = &to[k];
            msgs[k].msg_hdr.msg_namelen = sizeof to[k];
            msgs[k].msg_hdr.msg_iov = &iov[k];
            msgs[k].msg_hdr.msg_iovlen = 1;
        }
        int r = sendmmsg(fd, msgs, m, MSG_DONTWAIT);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            counts[where[0]][2]++;
            counts[where[0]][3] += iov[0].iov_len;
            done++;
            continue;
        }
        for (int k = 0; k < r; k++) {
            counts[where[k]][0]++;
            counts[where[k]][1] += iov[k].iov_len;
        }
        sent += r;
        done += r;
    }
    return sent;
}

/* Whether sendmmsg works on ``fd``: 0, else the errno (a call of no messages sends
 * nothing). */
int io_probe(int fd) {
    struct mmsghdr none;
    return sendmmsg(fd, &none, 0, MSG_DONTWAIT) < 0 ? errno : 0;
}

static uint64_t mono_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + t.tv_nsec;
}

/* ``frame`` over and over on ``fd`` for ``seconds``, at ``rate_pps`` frames/s (0: as
 * fast as the socket takes them); the frames sent. ``elapsed``: the seconds it took. */
uint64_t io_generate(int fd, const uint8_t *frame, uint32_t len, double seconds,
                     double rate_pps, double *elapsed) {
    struct mmsghdr msgs[IO_BATCH];
    struct iovec iov = {(void *)frame, len};
    memset(msgs, 0, sizeof msgs);
    for (int k = 0; k < IO_BATCH; k++) {
        msgs[k].msg_hdr.msg_iov = &iov;
        msgs[k].msg_hdr.msg_iovlen = 1;
    }
    uint64_t start = mono_ns(), end = start + (uint64_t)(seconds * 1e9), now, sent = 0;
    while ((now = mono_ns()) < end) {
        uint32_t m = IO_BATCH;
        if (rate_pps > 0) {
            int64_t owed = (int64_t)((now - start) * rate_pps / 1e9) - (int64_t)sent;
            if (owed <= 0) {
                double gap = 1e9 / rate_pps;
                struct timespec nap = {0, (long)(gap < 500000 ? gap : 500000)};
                nanosleep(&nap, NULL);
                continue;
            }
            if (owed < m) m = (uint32_t)owed;
        }
        int r = sendmmsg(fd, msgs, m, 0);
        if (r > 0) sent += r;
    }
    *elapsed = (mono_ns() - start) / 1e9;
    return sent;
}
