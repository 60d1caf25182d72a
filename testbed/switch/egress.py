"""Per-port egress model: what a link adds after the switch decides a packet's port.

A packet handed to :meth:`EgressPort.enqueue` goes through, in order:

1. random loss (``loss``, probability per packet);
2. the shaper queue: a FIFO drained by a token bucket (``rate_bps`` with ``burst_bytes``);
   a packet arriving while the queue already holds ``queue_packets`` packets (or would
   exceed ``queue_bytes``) is tail-dropped;
3. the delay line: each packet leaves ``delay_ns`` plus a jitter sample (normal, standard
   deviation ``jitter_ns``, the total truncated at 0) after it leaves the shaper.
   Jitter never reorders packets (a packet is not released before its predecessor);
   reordering is explicit: with probability ``reorder`` a packet skips the delay line.

Rates count Ethernet frame bytes as the switch sends them (no preamble, FCS or gap).
With one queue everything is computed when the packet arrives: the token bucket is FIFO,
so a packet's shaper departure time is known at enqueue.

With ``queues`` > 1 (simple_switch's ``--priority-queues``) a shaped port has one queue
per priority, each holding up to ``queue_packets``/``queue_bytes``, served in strict
priority (the highest first) as a tbf over a prio qdisc serves them: when the bucket has
the tokens for the head of the highest non-empty queue it leaves; a packet of higher
priority that arrives while that head waits for tokens goes first. So departures are
decided as time passes (:meth:`pop_due`), not at enqueue. Priority does not matter on a
port without a rate: nothing waits there. Releases are kept in a heap ordered by time;
the switch's loop asks :meth:`next_release_ns` for its poll timeout and calls
:meth:`pop_due` to get the frames to transmit.
"""
from __future__ import annotations

import heapq
import random
from collections import deque
from dataclasses import dataclass


@dataclass(frozen=True)
class Shape:
    rate_bps: int = 0             # 0: unlimited
    burst_bytes: int = 0          # 0: default (see EgressPort)
    delay_ns: int = 0
    jitter_ns: int = 0
    loss: float = 0.0             # probability in [0, 1]
    reorder: float = 0.0          # probability in [0, 1] that a packet skips the delay line
    queue_packets: int = 1000     # shaper queue limit in packets
    queue_bytes: int = 0          # shaper queue limit in bytes; 0: no byte limit

    @property
    def passthrough(self) -> bool:
        """True when the model adds nothing: frames can be sent immediately."""
        return (self.rate_bps == 0 and self.delay_ns == 0 and self.jitter_ns == 0
                and self.loss == 0.0)


NO_SHAPE = Shape()

# Default burst: 1 ms worth of the rate, at least two full-size frames.
_MIN_BURST_BYTES = 2 * 1514


def default_burst(rate_bps: int) -> int:
    return max(_MIN_BURST_BYTES, rate_bps // 8 // 1000)


class EgressPort:
    """The egress model of one port. Not thread-safe: the switch calls it under its lock."""

    def __init__(self, shape: Shape = NO_SHAPE, rng: random.Random | None = None,
                 queues: int = 1):
        self.shape = shape
        self.rng = rng or random.Random()
        self.burst = shape.burst_bytes or default_burst(shape.rate_bps)
        # Token bucket state: tokens (bytes) available at time _tb_time_ns.
        self._tokens = float(self.burst)
        self._tb_time_ns = 0
        self._tb_started = False
        self._shaper_backlog: deque = deque()   # (departure_ns, size) still in the shaper
        self._backlog_bytes = 0
        self._last_release_ns = 0
        self._heap: list = []                   # (release_ns, seq, frame)
        self._seq = 0
        self.sent_packets = 0
        self.sent_bytes = 0
        self.drops = {"loss": 0, "tail_drop": 0}
        # strict priority: per priority a deque of (arrival_ns, frame) and its bytes
        self._prio = [deque() for _ in range(queues)] if queues > 1 and shape.rate_bps \
            else None
        self._prio_bytes = [0] * queues
        self._decide_at = None           # when the next departure is decided, if queued

    # ------------------------------------------------------------ enqueue
    def enqueue(self, frame: bytes, now_ns: int, priority: int = 0) -> bool:
        """Admit ``frame`` at time ``now_ns``; False when it is dropped (counted).
        ``priority`` (0 lowest) chooses the queue when the port has several."""
        shape = self.shape
        if shape.loss and self.rng.random() < shape.loss:
            self.drops["loss"] += 1
            return False
        size = len(frame)
        if self._prio is not None:
            return self._enqueue_priority(frame, size, now_ns, priority)
        if shape.rate_bps:
            self._expire_backlog(now_ns)
            backlog = self._shaper_backlog
            if len(backlog) >= shape.queue_packets or (
                    shape.queue_bytes and self._backlog_bytes + size > shape.queue_bytes):
                self.drops["tail_drop"] += 1
                return False
            depart = self._shaper_departure(size, now_ns)
            backlog.append((depart, size))
            self._backlog_bytes += size
        else:
            depart = now_ns
        self._to_delay_line(frame, depart)
        return True

    def _delay_sample(self) -> int:
        shape = self.shape
        if not shape.jitter_ns:
            return shape.delay_ns
        return max(0, int(self.rng.gauss(shape.delay_ns, shape.jitter_ns)))

    def _expire_backlog(self, now_ns: int) -> None:
        backlog = self._shaper_backlog
        while backlog and backlog[0][0] <= now_ns:
            self._backlog_bytes -= backlog.popleft()[1]

    def _shaper_departure(self, size: int, now_ns: int) -> int:
        """Departure time from the token bucket of a packet arriving at ``now_ns``
        behind everything already queued (FIFO)."""
        rate = self.shape.rate_bps
        start = max(now_ns, self._tb_time_ns) if self._tb_started else now_ns
        if self._tb_started:
            refill = (start - self._tb_time_ns) * rate / 8e9
            tokens = min(float(self.burst), self._tokens + refill)
        else:
            tokens = float(self.burst)
            self._tb_started = True
        need = min(size, self.burst)
        if tokens >= need:
            depart = start
            tokens -= need
        else:
            depart = start + int((need - tokens) * 8e9 / rate + 0.5)
            tokens = 0.0
        self._tokens = tokens
        self._tb_time_ns = depart
        return depart

    def _to_delay_line(self, frame: bytes, depart: int) -> None:
        shape = self.shape
        if shape.reorder and self.rng.random() < shape.reorder:
            release = depart
        else:
            release = max(depart + self._delay_sample(), self._last_release_ns)
            self._last_release_ns = release
        self._seq += 1
        heapq.heappush(self._heap, (release, self._seq, frame))

    # ------------------------------------------------------------ strict priority
    def _enqueue_priority(self, frame: bytes, size: int, now_ns: int, priority: int) -> bool:
        self._schedule(now_ns)
        queue, shape = self._prio[priority], self.shape
        if len(queue) >= shape.queue_packets or (
                shape.queue_bytes and self._prio_bytes[priority] + size > shape.queue_bytes):
            self.drops["tail_drop"] += 1
            return False
        queue.append((now_ns, frame))
        self._prio_bytes[priority] += size
        self._schedule(now_ns)
        return True

    def _tokens_at(self, t: int) -> float:
        if not self._tb_started:
            return float(self.burst)
        refill = (t - self._tb_time_ns) * self.shape.rate_bps / 8e9
        return min(float(self.burst), self._tokens + refill)

    def _schedule(self, until_ns: int) -> None:
        """Send into the delay line every packet whose departure is decided by
        ``until_ns``; remember when the next one will be."""
        queues = self._prio
        self._decide_at = None
        while True:
            heads = [(q[0][0], p) for p, q in enumerate(queues) if q]
            if not heads:
                return
            t = min(a for a, _ in heads)
            if self._tb_started:
                t = max(t, self._tb_time_ns)
            while True:       # the head chosen at t may have to wait for its tokens
                p = max(p for a, p in heads if a <= t)
                need = min(len(queues[p][0][1]), self.burst)
                tokens = self._tokens_at(t)
                if tokens >= need:
                    break
                t += max(1, int((need - tokens) * 8e9 / self.shape.rate_bps + 0.5))
            if t > until_ns:
                self._decide_at = t
                return
            _, frame = queues[p].popleft()
            self._prio_bytes[p] -= len(frame)
            self._tokens, self._tb_time_ns, self._tb_started = tokens - need, t, True
            self._to_delay_line(frame, t)

    # ------------------------------------------------------------ release
    def next_release_ns(self) -> int | None:
        times = [t for t in (self._heap[0][0] if self._heap else None, self._decide_at)
                 if t is not None]
        return min(times) if times else None

    def pop_due(self, now_ns: int) -> list:
        """Frames whose release time has come, in release order (counted as sent)."""
        if self._prio is not None:
            self._schedule(now_ns)
        heap = self._heap
        out = []
        while heap and heap[0][0] <= now_ns:
            frame = heapq.heappop(heap)[2]
            out.append(frame)
            self.sent_packets += 1
            self.sent_bytes += len(frame)
        return out

    def pending(self) -> int:
        """Packets admitted but not yet released (shaper queues plus delay line)."""
        return len(self._heap) + sum(len(q) for q in self._prio or ())

    def count_passthrough(self, packets: int, nbytes: int) -> None:
        """Count frames sent without entering the model (passthrough shape)."""
        self.sent_packets += packets
        self.sent_bytes += nbytes
