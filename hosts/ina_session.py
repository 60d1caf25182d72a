"""Worker-side protocol of in-network aggregation, independent of any transport.

A :class:`JobStream` numbers the chunks a worker sends in a job, across all-reduce calls;
every worker of the job makes the same calls in the same order, so chunk numbers agree.
Chunk ``c`` uses slot ``c % slots`` in shadow set ``(c // slots) % 2``. A worker sends
chunk ``c + slots`` only after it has the result of chunk ``c`` (same slot, other set):
then every worker has contributed to ``c``, hence has the result of ``c - slots``, so the
switch may reuse that set. This makes the window of outstanding chunks ``slots`` wide.

An :class:`Exchange` aggregates one array of ``(chunks, lanes)`` int32 values (``lanes``
words per packet: the job's, ``ina.LANES`` by default; the last packet carries only the
whole groups of words it needs, ``tail_words``): it emits
payloads to send, consumes result payloads, and retransmits chunks whose result is late.
The timeout adapts like TCP's (RFC 6298): smoothed round-trip time plus four deviations,
sampled only from chunks sent once (Karn), never below ``timeout_s`` (SwitchML's 10 ms)
nor above ``max_timeout_s``. It doubles for a chunk on each retransmission of it, and a
timeout also doubles the timeout of chunks sent afterwards until a new sample arrives
(else the samples, which only chunks that did not time out give, keep it too short);
timeouts within one timeout of each other count as one event and double it once. As
with TCP's single retransmission timer (RFC 6298, 5.3), every result that arrives
restarts the timers of the chunks still outstanding: a chunk times out only when no
result at all has come for its timeout. A window sent at once into a slow link queues
in front of it, so the k-th chunk's round trip is k serialization times longer than the
first's; timers from the send times alone fire for the back of the window while its
results are still arriving one by one, and the spurious retransmissions eat the link.
A software switch on a loaded machine answers in tens of milliseconds, and a fixed 10 ms
would retransmit nearly everything. A chunk still unanswered when ``FAST_AFTER`` later
chunks have their results is retransmitted at once, once (TCP's fast retransmit, RFC
5681): every worker sends its chunks in the same order, so slots complete in order and
a hole means a lost packet; waiting a whole timeout for it, with timeouts that include
the wait for the slowest worker, would stall every worker for each loss. If the hole
was another worker's loss, the switch drops this copy as a duplicate. The ceiling is
high (5 s) because on a slow shaped
link a full window queues for a long time: 32 chunks of 1 kB at 1 Mb/s wait 0.28 s
before the last one leaves, and a lower ceiling retransmits every chunk of the window.
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np

from hosts import ina_fixedpoint as fx
from testbed.errors import TrainetError
from testbed.proto import ina


class AggregationTimeout(TrainetError):
    """No progress for too long: the switch, a link or another worker is gone."""


@dataclass
class JobStream:
    job_id: int
    worker_id: int
    slots: int
    timeout_s: float = 0.01
    max_timeout_s: float = 5.0
    give_up_s: float = 30.0
    next_chunk: int = 0
    srtt: float | None = None
    rttvar: float = 0.0
    backoff: int = 1
    quiet_until: float = 0.0

    def __post_init__(self):
        if not 1 <= self.slots <= ina.MAX_SLOTS:
            raise ValueError(f"slots must be within 1..{ina.MAX_SLOTS}, got {self.slots}")

    def rtt_sample(self, rtt: float) -> None:
        self.backoff = 1
        if self.srtt is None:
            self.srtt, self.rttvar = rtt, rtt / 2
        else:
            self.rttvar = 0.75 * self.rttvar + 0.25 * abs(self.srtt - rtt)
            self.srtt = 0.875 * self.srtt + 0.125 * rtt

    @property
    def rto(self) -> float:
        base = self.timeout_s if self.srtt is None else self.srtt + 4 * self.rttvar
        return min(max(self.timeout_s, base) * self.backoff, self.max_timeout_s)

    def timed_out(self, now: float) -> None:
        """A chunk timed out at ``now``. Chunks that time out within one timeout of the
        last back-off are the same loss event (a burst, or a whole window stalled behind
        one loss) and back off once, as TCP's one retransmission timer does; else each
        of them would double the timeout, and with a high ceiling one lossy window
        would stall the stream for seconds."""
        if now < self.quiet_until:
            return
        if self.rto < self.max_timeout_s:
            self.backoff *= 2
        self.quiet_until = now + self.rto

    def slot_of(self, chunk: int) -> int:
        return ina.slot_field(chunk % self.slots, (chunk // self.slots) % 2)


FAST_AFTER = 3


class Exchange:
    # the flag of the packets that answer a chunk: the sum (ina.p4) or, for a LuWu
    # gradient job (luwu.p4), the optimizer node's parameters
    answer_flag = ina.FLAG_RESULT
    # what to check when no answer comes
    missing_hint = ("check that the switch runs ina.p4, the job is set up (controllers/ina.py) "
                    "with at least this worker's number of slots, and every worker of the "
                    "job is running")
    # how answers are read: (header, lanes); LuWu answers may be header only (lanes None)
    decode = staticmethod(ina.decode)
    # hosts/ina_client.c runs this class's loop (ina.p4's answers); subclasses that read
    # answers differently turn it off
    native_loop = True

    def __init__(self, stream: JobStream, lanes: np.ndarray | None, exponent,
                 lane_bits: int = 32, next_exponents=0, piggyback: bool = False,
                 chunks: int | None = None, flags: int = 0, words: int = ina.LANES,
                 tail_words: int | None = None):
        """``lanes``: (chunks, words) int32 words (with 16-bit lanes two per word, see
        ina.pack16), or None for a subclass that makes each chunk's words when it sends
        it (``chunks`` of them, ``words`` each; with ``lanes`` its shape says). ``exponent`` and ``next_exponents``: the header fields,
        one for all chunks or one per chunk. With ``piggyback`` the exponent of chunk
        ``i + slots`` is the ``next_exponent`` of chunk i's result (which arrives before
        the window lets chunk ``i + slots`` go: block scaling agreed a round ahead).
        ``flags`` go on every packet besides the lane width's (FLAG_MAX). ``tail_words``:
        the words the last chunk sends, in whole groups (``ina.group_words``; default
        ``words``): its result fills that many words of the row, the rest stays 0."""
        if lanes is not None:
            if lanes.ndim != 2:
                raise ValueError(f"lanes must have shape (chunks, words), got {lanes.shape}")
            words = lanes.shape[1]
        self.words = ina.check_lanes(words)      # lane words per packet
        self.tail_words = (self.words if tail_words is None
                           else min(ina.group_words(tail_words), self.words))
        self.stream = stream
        self.lanes = lanes            # 32-bit words; with 16-bit lanes two per word (pack16)
        self.lane_bits = lane_bits
        self.lane_flags = ina.lane_flag(lane_bits) | flags
        self.first = stream.next_chunk
        self.n = lanes.shape[0] if lanes is not None else chunks
        stream.next_chunk += self.n
        self.exponents = np.zeros(self.n, np.int8) + np.asarray(exponent, np.int8)
        self.next_exponents = np.zeros(self.n, np.int8) + np.asarray(next_exponents, np.int8)
        self.piggyback = piggyback
        self.result = np.zeros((self.n, self.words), dtype=np.int32)
        self.result_exponent: int | None = None
        # per chunk, from its result: exponent, next_exponent and flags
        self.result_exponents = np.zeros(self.n, np.int8)
        self.result_next = np.zeros(self.n, np.int8)
        self.result_flags = np.zeros(self.n, np.uint8)
        self.overflows = 0            # chunks this worker sent flagged FLAG_OVERFLOW
        self.remaining = self.n
        self.sent_packets = 0
        self.retransmissions = 0
        self._timeout = {}            # chunk index -> current timeout
        self._sent_at = {}            # chunk index -> time of its only send (no retransmit)
        self._deadline = {}           # chunk index -> deadline of the outstanding send
        self._started = {}            # chunk index -> time of the outstanding send
        self._heap = []               # (deadline, chunk index), lazily pruned
        self._last_progress = None
        self._fast_checked = 0        # chunks below this had their chance of a fast retransmit

    @property
    def done(self) -> bool:
        return self.remaining == 0

    def chunk_words(self, i: int) -> int:
        """The lane words chunk ``i``'s packets carry."""
        return self.tail_words if i == self.n - 1 else self.words

    def answer_words_of(self, i: int) -> int:
        """The lane words of chunk ``i``'s answer: its own, or the width of the result's
        rows where a subclass made them wider than what it sends (LuWu-SGD answers 16-bit
        pushes with 32-bit parameters)."""
        width = self.result.shape[1]
        return self.chunk_words(i) if width == self.words else width

    def _block(self, i: int, first_send: bool) -> tuple[np.ndarray, int, int]:
        """Chunk ``i``'s words, header exponent and extra flags."""
        return self.lanes[i], int(self.exponents[i]), 0

    def _payload(self, i: int, flags: int, first_send: bool = False) -> bytes:
        chunk = self.first + i
        s = self.stream
        words, exponent, extra = self._block(i, first_send)
        return ina.encode(s.job_id, s.worker_id, flags | extra, s.slot_of(chunk), exponent,
                          chunk, words[:self.chunk_words(i)],
                          next_exponent=int(self.next_exponents[i]))

    def _send(self, i: int, now: float, retransmit: bool, back_off: bool = True) -> bytes:
        """Send chunk ``i``; a retransmission after a timeout backs its timer off, a fast
        retransmission (``back_off`` False) restarts it as it was."""
        if retransmit:
            self.retransmissions += 1
            self._sent_at.pop(i, None)
            if back_off:
                self._timeout[i] = min(self._timeout[i] * 2, self.stream.max_timeout_s)
                self.stream.timed_out(now)
        else:
            self._timeout[i] = self.stream.rto
            self._sent_at[i] = now
        self._started[i] = now
        deadline = now + self._timeout[i]
        self._deadline[i] = deadline
        heapq.heappush(self._heap, (deadline, i))
        self.sent_packets += 1
        flags = ina.FLAG_GRADIENT | (ina.FLAG_RETRANSMIT if retransmit else 0)
        return self._payload(i, flags | self.lane_flags, first_send=not retransmit)

    def start(self, now: float) -> list[bytes]:
        self._last_progress = now
        return [self._send(i, now, False) for i in range(min(self.stream.slots, self.n))]

    def on_payload(self, payload: bytes, now: float) -> list[bytes]:
        """Consume one received payload; return what to send next."""
        try:
            header, lanes = self.decode(payload, self.words)
        except ValueError:
            return []
        i = (header.chunk - self.first) & 0xFFFFFFFF
        if (header.job_id != self.stream.job_id or not header.flags & self.answer_flag
                or i >= self.n or i not in self._deadline
                or (lanes is not None and len(lanes) != self.answer_words_of(i))):
            return []                 # not ours, or a duplicate of a result we have
        del self._deadline[i]
        del self._started[i]
        sent = self._sent_at.pop(i, None)
        if sent is not None:
            self.stream.rtt_sample(now - sent)
        if lanes is not None:
            self.result[i, :len(lanes)] = lanes
        if self.result_exponent is None or header.exponent > self.result_exponent:
            self.result_exponent = header.exponent
        self.result_exponents[i] = header.exponent
        self.result_next[i] = header.next_exponent
        self.result_flags[i] = header.flags
        if self.piggyback and i + self.stream.slots < self.n:
            self.exponents[i + self.stream.slots] = header.next_exponent
        self.remaining -= 1
        self._last_progress = now
        out = []
        while self._fast_checked + FAST_AFTER <= i:
            hole = self._fast_checked
            self._fast_checked += 1
            if hole in self._deadline:
                out.append(self._send(hole, now, True, back_off=False))
        nxt = i + self.stream.slots
        if nxt < self.n:
            out.append(self._send(nxt, now, False))
        return out

    def next_deadline(self) -> float | None:
        """When the first outstanding chunk times out: its timeout after its send or
        after the last result, whichever is later (deadlines move lazily, only ever
        later, since the last result only ever gets later)."""
        heap, deadlines = self._heap, self._deadline
        while heap:
            deadline, i = heap[0]
            if deadlines.get(i) != deadline:
                heapq.heappop(heap)       # answered, or pushed back: a stale entry
                continue
            due = max(self._started[i], self._last_progress) + self._timeout[i]
            if due <= deadline:
                return deadline
            deadlines[i] = due
            heapq.heapreplace(heap, (due, i))
        return None

    def poll(self, now: float) -> list[bytes]:
        """Retransmit every chunk whose result is overdue."""
        out = []
        while True:
            deadline = self.next_deadline()
            if deadline is None or deadline > now:
                break
            _, i = heapq.heappop(self._heap)
            out.append(self._send(i, now, True))
        if out and now - self._last_progress > self.stream.give_up_s:
            raise AggregationTimeout(self.give_up_message(now - self._last_progress))
        return out

    def give_up_message(self, stalled_s: float) -> str:
        return stalled_message(self.stream, self.remaining, self.n, stalled_s,
                               self.missing_hint)


def stalled_message(stream: JobStream, remaining: int, n: int, stalled_s: float,
                    hint: str = Exchange.missing_hint) -> str:
    """Why an exchange of ``n`` chunks gave up with ``remaining`` of them unanswered."""
    return (f"job {stream.job_id} worker {stream.worker_id}: no result for {stalled_s:.1f} s "
            f"({remaining} of {n} chunks missing); {hint}")


class BlockExchange(Exchange):
    """An exchange of float values, each chunk quantized when it is first sent at the
    exponent agreed for it (:mod:`hosts.ina_fixedpoint`): ``values`` has one row of
    ``lanes_per_packet(lane_bits)`` values per chunk. A chunk whose values do not fit
    its exponent (a rounded magnitude above K, which the agreement rules out unless the
    values changed since, or a worker announced less than it has) is never clipped: it
    goes flagged FLAG_OVERFLOW with zero lanes and the exponent it needs, and the
    caller sends it again at the result's exponent."""

    def __init__(self, stream: JobStream, values: np.ndarray, exponent, n_workers: int,
                 lane_bits: int, next_exponents=0, piggyback: bool = False,
                 words: int = ina.LANES, tail_words: int | None = None):
        if values.ndim != 2 or values.shape[1] != ina.lanes_per_packet(lane_bits, words):
            raise ValueError(f"values must have shape (chunks, "
                             f"{ina.lanes_per_packet(lane_bits, words)}), got {values.shape}")
        super().__init__(stream, None, exponent, lane_bits, next_exponents, piggyback,
                         chunks=values.shape[0], words=words, tail_words=tail_words)
        self.values = np.ascontiguousarray(values, dtype=np.float32)
        self.n_workers = n_workers

    def _block(self, i: int, first_send: bool) -> tuple[np.ndarray, int, int]:
        exponent = int(self.exponents[i])
        q, fits = fx.quantize_checked(self.values[i], exponent, self.n_workers,
                                      self.lane_bits)
        if not fits:
            if first_send:
                self.overflows += 1
            needed = fx.exponent_for(float(np.max(np.abs(self.values[i].astype(np.float64)))))
            return np.zeros(self.words, np.int32), needed, ina.FLAG_OVERFLOW
        return (q if self.lane_bits == 32 else ina.pack16(q)), exponent, 0
