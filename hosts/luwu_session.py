"""Worker-side protocol of LuWu, independent of how a strategy uses it.

:class:`PushPull` pushes a bucket of gradients: one round on the job's INA exponent job
agrees on the bucket's block exponent, then the fixed-point gradient chunks go to the
gradient job of p4/luwu.p4, whose complete slots the switch hands to the optimizer node
(:mod:`hosts.optimizer_node`). The optimizer node answers with the bucket's updated fp32
parameters, multicast back by the switch, or, to workers that stream their parameters,
with a header-only acknowledgement; p4/luwu_sgd.p4 answers with fixed-point parameters
(flag FIXED, value = lane * 2^exponent). :class:`Puller` asks for chunks of parameters
on the pull job with header-only requests (see :mod:`hosts.luwu_layout` for which chunk
a request names). :class:`Streams` runs pushes and pulls of a streaming worker on two
lanes of its Comm at once, over one UDP socket whose answers a :class:`Demux` hands to
the lane of their job, and accounts the bytes they hold.

Lane width (``lane_bits``, the job's; :mod:`hosts.luwu_layout` says what a chunk holds):
fp32 workers push 32-bit lanes at one exponent per bucket and get fp32 parameters back;
bf16 workers push 16-bit lanes, ``2 * LANES`` values a packet, each packet's block at its
own exponent (INA's block scaling, :mod:`hosts.ina_allreduce`): the workers agree on all
of a bucket's block exponents at once in FLAG_MAX rounds on the exponent job (one packet
per ``LANES`` blocks, the round trip the bucket's one exponent took), and quantize each
block with :func:`hosts.ina_fixedpoint.quantize_blocks`, so the optimizer node's sum is
INA's :func:`hosts.ina_allreduce.reference_sum` rule, bit for bit. Their parameters come
back as bf16 copies of the node's fp32 values (rounded to nearest even), two per word.
Each exponent is the largest of the workers' own for the block, so no block can overflow
it; one that does anyway (the values changed after they were announced) is an error,
never clipped nor summed.

With the optimizer in the switch (p4/luwu_sgd.p4, ``chunk_values`` = ``LANES``) a chunk
is ``LANES`` values at either width: bf16 workers push each chunk's block in 16-bit
lanes at its agreed exponent in half the words, and the switch answers with its int32
fixed-point parameters, ``LANES`` words, which a bf16 worker holds rounded to bf16.
"""
from __future__ import annotations

import collections
import queue
import threading

import numpy as np

from hosts import ina_fixedpoint as fx
from hosts.ina_allreduce import InaAllReduce, UdpTransport, run_exchange
from hosts.ina_session import Exchange, JobStream
from testbed.errors import TrainetError
from testbed.proto import ina


class ParamsExchange(Exchange):
    """Gradient chunks out; each is answered by the optimizer node's parameters (float32
    bit patterns), the switch's (fixed point), or an acknowledgement (header only: the
    worker streams its parameters)."""

    answer_flag = ina.FLAG_PARAMS
    decode = staticmethod(ina.decode_any)
    missing_hint = ("check that the optimizer node (hosts/optimizer_node.py) is running and "
                    "reachable from the switch, the switch runs luwu.p4 with the job set up "
                    "(controllers/luwu.py), and every worker of the job is running (with "
                    "luwu_sgd.p4: the job set up by controllers/luwu_sgd.py, and its "
                    "counters show no bad_exponent drops)")
    fixed_point = False
    acknowledged = False
    answer_words = ina.LANES      # an answer's words, whatever the width of the pushes
    narrow_answers = True         # every answer with lanes was flagged FLAG_LANES16
    native_loop = False           # the C loop reads ina.p4's answers only

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.result = np.zeros((self.n, self.answer_words), dtype=np.int32)

    def decode(self, payload: bytes, words: int):
        return ina.decode_any(payload, self.answer_words)

    def on_payload(self, payload: bytes, now: float) -> list[bytes]:
        # only this job's answers tell how to read the answers (the exponent job's max
        # rounds share FLAG_FIXED's bit, and their late copies may arrive here)
        flags = ina.peek_flags(payload)
        if payload[:1] != bytes([self.stream.job_id]) or not flags & ina.FLAG_PARAMS:
            pass
        elif len(payload) == ina.HEADER_BYTES:
            self.acknowledged = True
        else:
            self.fixed_point |= bool(flags & ina.FLAG_FIXED)
            self.narrow_answers &= bool(flags & ina.FLAG_LANES16)
        return super().on_payload(payload, now)

    def values(self) -> np.ndarray:
        """The answers' parameters as float32: fp32 bit patterns, bf16 copies (16-bit
        lanes) or the switch's fixed point (rounded to bf16 for 16-bit workers)."""
        if self.fixed_point:
            values = np.ldexp(self.result.reshape(-1).astype(np.float64),
                              self.result_exponent).astype(np.float32)
            return values if self.lane_bits == 32 else round_to_bf16(values)
        if self.lane_bits == 32:
            return self.result.reshape(-1).view(np.float32)
        if not self.narrow_answers:
            raise TrainetError(f"job {self.stream.job_id}: the optimizer node answered "
                               "bf16 workers with 32-bit parameters; start it with the "
                               "job's --lane-bits 16")
        return bf16_to_float32(ina.unpack16(self.result).reshape(-1))


def bf16_to_float32(bits: np.ndarray) -> np.ndarray:
    """float32 values of bf16 bit patterns (int16 or uint16), exactly."""
    return (bits.view(np.uint16).astype(np.uint32) << 16).view(np.float32)


def round_to_bf16(values: np.ndarray) -> np.ndarray:
    """Finite float32 ``values`` rounded to bf16 (to nearest, ties to even), as float32:
    what ``torch.Tensor.to(torch.bfloat16)`` gives."""
    bits = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32)
    bits = bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))
    return (bits & np.uint32(0xFFFF0000)).view(np.float32)


class PullExchange(ParamsExchange):
    """Header-only requests for ``n`` chunks of parameters out, the parameters back."""

    def __init__(self, stream: JobStream, n: int, lane_bits: int = 32):
        super().__init__(stream, np.zeros((n, ina.LANES), dtype=np.int32), 0, lane_bits)

    def _payload(self, i: int, flags: int, first_send: bool = False) -> bytes:
        chunk = self.first + i
        s = self.stream
        return ina.encode(s.job_id, s.worker_id, flags | ina.FLAG_PULL, s.slot_of(chunk), 0,
                          chunk, None)


class Demux:
    """One transport for exchanges that run on several threads at once: a receiver
    thread hands each payload to the channel of its job."""

    def __init__(self, transport):
        self.transport = transport
        self._queues: dict[int, queue.Queue] = {}
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._receive, daemon=True, name="luwu-demux")
        self._thread.start()

    def channel(self, *job_ids: int) -> "Channel":
        q = queue.Queue()
        for job in job_ids:
            self._queues[job] = q
        return Channel(self.transport, q)

    def _receive(self) -> None:
        while not self._closed.is_set():
            try:
                payload = self.transport.recv(0.2)
            except OSError:               # the socket was closed under us
                return
            if payload and payload[0] in self._queues:
                self._queues[payload[0]].put(payload)

    def close(self) -> None:
        self._closed.set()
        self._thread.join(2.0)


class Channel:
    """The transport interface of :func:`run_exchange` for the jobs of one lane."""

    def __init__(self, transport, inbox: queue.Queue):
        self.transport, self.inbox = transport, inbox

    def send(self, payload: bytes) -> None:
        self.transport.send(payload)

    def recv(self, timeout_s: float) -> bytes | None:
        try:
            return self.inbox.get(timeout=max(timeout_s, 1e-4))
        except queue.Empty:
            return None


class Puller:
    """A worker's pulls: ``puller(n)`` asks for the next ``n`` chunks of its pull stream
    and returns their parameters (float32; bf16 values with 16-bit lanes)."""

    def __init__(self, transport, job_id: int, worker_id: int, slots: int,
                 give_up_s: float = 30.0, lane_bits: int = 32):
        self.transport, self.lane_bits = transport, lane_bits
        self.stream = JobStream(job_id, worker_id, slots, give_up_s=give_up_s)

    def __call__(self, n: int) -> np.ndarray:
        return run_exchange(PullExchange(self.stream, n, self.lane_bits),
                            self.transport).values()


class PushPull:
    """One worker's side of a LuWu job over one transport."""

    def __init__(self, transport, job_id: int, exponent_job_id: int, worker_id: int,
                 n_workers: int, slots: int, exponent_slots: int = 2,
                 give_up_s: float = 30.0, lane_bits: int = 32,
                 chunk_values: int | None = None):
        """``chunk_values``: values a chunk holds, by default what a packet of
        ``lane_bits``-bit lanes carries (p4/luwu.p4's chunks); ``LANES`` at either width
        for the switch's optimizer (p4/luwu_sgd.p4)."""
        widest = ina.lanes_per_packet(lane_bits)
        self.chunk_values = chunk_values or widest
        if self.chunk_values not in (widest, ina.LANES):
            raise ValueError(f"{self.chunk_values} values per chunk: {lane_bits}-bit "
                             f"lanes carry {widest} a packet, or {ina.LANES} for the "
                             "switch's optimizer")
        self.transport, self.n_workers, self.lane_bits = transport, n_workers, lane_bits
        self.stream = JobStream(job_id, worker_id, slots, give_up_s=give_up_s)
        self.exponents = InaAllReduce(transport, exponent_job_id, worker_id, n_workers,
                                      exponent_slots)
        self.exponents.stream.give_up_s = give_up_s

    def wire_bytes(self, values: int) -> tuple[int, int]:
        """Bytes of lanes a push of ``values`` gradient values sends, and its answer
        brings back (``LANES`` words a chunk in every answer)."""
        return values * self.lane_bits // 8, values // self.chunk_values * ina.LANES * 4

    def __call__(self, flat: np.ndarray) -> np.ndarray | None:
        """The new parameters (float32) for the gradient chunks ``flat``, or None when the
        optimizer node acknowledged them (the worker pulls its parameters)."""
        if self.lane_bits == 32:
            exponent = self.exponents.agree_exponent(float(np.max(np.abs(flat))))
            words = fx.quantize(flat, exponent, self.n_workers).reshape(-1, ina.LANES)
        else:
            blocks = flat.reshape(-1, self.chunk_values)
            exponent = self.exponents.agree_block_exponents(fx.block_exponents(blocks))
            q, fits = fx.quantize_blocks(blocks, exponent, self.n_workers, self.lane_bits)
            if not fits:
                raise TrainetError(f"job {self.stream.job_id}: a gradient block exceeds "
                                   "the exponent the workers agreed on for it (its values "
                                   "changed after they were announced)")
            words = ina.pack16(q)
        ex = run_exchange(ParamsExchange(self.stream, words, exponent, self.lane_bits),
                          self.transport)
        return None if ex.acknowledged else ex.values()


class Streams:
    """A streaming worker's two lanes on its Comm, and the bytes they hold: pulled
    parameters from arrival to :meth:`release`, pushed gradients until the optimizer
    node has them. At most ``max_pushes`` pushes are in flight: a worker whose backward
    outruns its uplink waits rather than hold ever more gradients."""

    max_pushes = 2

    def __init__(self, comm, push_pull, puller, demux: Demux | None = None, transport=None):
        self.comm, self.push_pull, self.puller = comm, push_pull, puller
        self.demux, self.transport = demux, transport
        self._in_flight = collections.deque()
        self._lock = threading.Lock()
        self.params_bytes = self.grads_bytes = 0
        self.peak_params_bytes = self.peak_grads_bytes = 0

    @classmethod
    def over_udp(cls, comm, aggregator: str, job: int, exponent_job: int, pull_job: int,
                 slots: int, timeout_s: float, lane_bits: int = 32) -> "Streams":
        transport = UdpTransport(aggregator)
        demux = Demux(transport)
        push_pull = PushPull(demux.channel(job, exponent_job), job, exponent_job, comm.rank,
                             comm.world, slots, give_up_s=timeout_s, lane_bits=lane_bits)
        puller = Puller(demux.channel(pull_job), pull_job, comm.rank, slots,
                        give_up_s=timeout_s, lane_bits=lane_bits)
        return cls(comm, push_pull, puller, demux, transport)

    def _account(self, params: int = 0, grads: int = 0) -> None:
        with self._lock:
            self.params_bytes += params
            self.grads_bytes += grads
            self.peak_params_bytes = max(self.peak_params_bytes, self.params_bytes)
            self.peak_grads_bytes = max(self.peak_grads_bytes, self.grads_bytes)

    def pull(self, chunks: int):
        """Future of the next ``chunks`` chunks of parameters (float32)."""
        nbytes = chunks * ina.LANES * 4       # a chunk: LANES words, fp32 or 2 bf16 each

        def pull():
            flat = self.puller(chunks)
            self._account(params=nbytes)
            return flat
        return self.comm.submit("LuWu pull", pull, recv=nbytes, lane="pull", op="pull",
                                route="switch")

    def prefetch(self, chunks: list[int], depth: int = 2) -> "Prefetch":
        """Pulls of ``chunks[0]``, ``chunks[1]``, ... chunks, ``depth`` ahead of use."""
        return Prefetch(self, chunks, depth)

    def release(self, chunks: int) -> None:
        self._account(params=-chunks * ina.LANES * 4)

    def push(self, flat: np.ndarray, returns_params: bool = False):
        """Future of pushing the gradient chunks ``flat``: None, or with
        ``returns_params`` (a resident unit's) their updated parameters."""
        while len(self._in_flight) >= self.max_pushes:
            self.comm.wait(self._in_flight.popleft())
        nbytes, answer = self.push_pull.wire_bytes(flat.size)
        self._account(grads=nbytes)

        def push():
            try:
                return self.push_pull(flat)
            finally:
                self._account(grads=-nbytes)
        future = self.comm.submit("LuWu push", push, sent=nbytes,
                                  recv=answer if returns_params else 0, lane="push",
                                  op="push-pull" if returns_params else "push", nbytes=nbytes,
                                  route="switch")
        self._in_flight.append(future)
        return future

    def close(self) -> None:
        if self.demux is not None:
            self.demux.close()
        if self.transport is not None:
            self.transport.close()


class Prefetch:
    """Pulls in a fixed order, each started ``depth`` uses ahead of its own: the pull
    lane never waits for the training thread to ask, at the price of holding up to
    ``depth`` units more than the one in use."""

    def __init__(self, streams: Streams, chunks: list[int], depth: int):
        self.streams, self.chunks, self.depth = streams, list(chunks), depth
        self.futures = collections.deque()
        self.started = 0
        self._fill()

    def _fill(self) -> None:
        while self.started < len(self.chunks) and len(self.futures) < self.depth:
            self.futures.append(self.streams.pull(self.chunks[self.started]))
            self.started += 1

    def take(self):
        """The future of the next pull in order."""
        future = self.futures.popleft()
        self._fill()
        return future
