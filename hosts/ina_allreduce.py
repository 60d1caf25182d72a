"""All-reduce of torch float tensors through an in-network aggregation switch (p4/ina.p4).

Exponent scheme: one per block (the values of one packet), SwitchML's block scaling.
The workers of a job must quantize a block with the same exponent, the largest of their
local ones (2^e >= max|v| of the block), before any of them can see the others' values.
SwitchML's paper describes agreeing on it one round ahead, in prose; this is our
reconstruction: each packet of chunk c carries, besides its lanes at the agreed exponent
of c, the sender's local exponent of the block it will send next in the same slot
(``next_exponent``, for chunk c + slots); the switch keeps the largest of the round and
returns it with the result of c, and the window lets chunk c + slots go only once that
result is in, so its agreed exponent is there when it is quantized. The first window's
blocks have no earlier round: an exponent round announces them first, one lane per
block in a packet flagged FLAG_MAX, of which the switch keeps each lane's largest value
(one round trip and one packet per tensor for up to 256 slots, of as few lane groups as
the blocks need). The scale ``floor((2^(b-1) - 1) / n) / 2^e`` (:mod:`hosts.ina_fixedpoint`)
keeps the sum of ``n`` workers within a b-bit lane, and each block keeps that many
steps below its own largest magnitude, not the tensor's.

Overflow: a block whose values do not fit the agreed exponent (values changed after
their exponent was announced, or a worker announced too little) is never clipped nor
summed: its sender flags it FLAG_OVERFLOW with zero lanes and the exponent it needs, the
switch marks the result and carries the largest exponent, and every worker (they all see
the same result) sends those blocks again, in block order, at the result's exponent
(``resent_blocks`` counts them).

Lane width: bf16 and fp16 tensors travel in 16-bit lanes (512 values per packet, half
the bytes of 32-bit lanes), others in 32-bit lanes; ``lane_bits`` fixes one width for
every tensor instead (with 16 bits and 8 workers, 4095 steps between 0 and the block's
largest magnitude: about the 8-bit mantissa of bf16 plus 4 bits).

Lanes per packet: a job's packets carry the lane count of the switch's program
(``lanes``, 32-bit words; p4/ina.p4's 256 by default, a program rendered for a link's MTU
more: ``ina.lanes_for_mtu``); the job's set-up (controllers/ina.py) says which, and
refuses a job that asks for another. A block is always that many words' values; a
tensor's last packet carries only the lane groups (``ina.GROUP_WORDS`` words each) its
values occupy, and an exponent round only those of its blocks' exponents.

Two-level aggregation (racks, then a spine) needs nothing different here: a worker talks
to its rack switch's aggregator address with its rack job id and worker id, and passes
the total number of workers across racks as ``n_workers`` (it sets the scale).

Each exchange's window loop runs in C where the machine has a C compiler, else in Python
(:mod:`hosts.ina_native`; ``client`` of :class:`UdpTransport`, ``--client`` below); with C,
a bf16, fp16 or fp32 tensor's whole all-reduce is one call, which reads and writes the
tensor's memory and sends the same packets as the steps below.

Run as a program on an emulated host::

    python -m hosts.ina_allreduce --job 1 --worker 0 --workers 2 --aggregator 10.0.255.1 \
        --elements 1048576 --rounds 3
"""
from __future__ import annotations

import argparse
import hashlib
import json
import select
import socket
import sys
import time

import numpy as np
import torch

from hosts import ina_fixedpoint as fx
from hosts import ina_native
from hosts.addresses import local_address
from hosts.ina_session import BlockExchange, Exchange, JobStream
from hosts.round_timing import DTYPES, timed_rounds
from testbed.errors import TrainetError
from testbed.proto import ina


RECV_BYTES = 65536             # any UDP payload: a packet of the job's lanes or another


class UdpTransport:
    """The worker's UDP socket: sends to the aggregator address, port 0xBEE0, and receives
    on ``bind``, by default the host's own address towards the aggregator (the switch
    sends results there), not every interface. ``client`` says who runs the window loop
    of an exchange on it (:mod:`hosts.ina_native`): ``native`` (C), ``python``, or
    ``auto`` (C where the machine can build it)."""

    def __init__(self, aggregator: str, bind: str | None = None, port: int = ina.UDP_PORT,
                 client: str = "auto"):
        self.client = ina_native.check(client)
        self.peer = (aggregator, port)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        self.sock.bind((bind or local_address(aggregator), port))
        self._context = None

    def send(self, payload: bytes) -> None:
        # recv() leaves a timeout on the socket; on a slow shaped link the socket's send
        # buffer fills and sendto times out with it: wait until it drains instead.
        while True:
            try:
                self.sock.sendto(payload, self.peer)
                return
            except (socket.timeout, BlockingIOError):
                select.select([], [self.sock], [], 1.0)

    def recv(self, timeout_s: float) -> bytes | None:
        self.sock.settimeout(max(timeout_s, 0.0) or 1e-6)
        try:
            return self.sock.recv(RECV_BYTES)
        except (socket.timeout, BlockingIOError):
            return None

    @property
    def native(self):
        """The C loop for this socket's exchanges, or None (built on first use)."""
        return ina_native.loop(self.client)

    @property
    def context(self):
        """The C loop's buffers for this socket, kept from one exchange to the next."""
        if self._context is None:
            self._context = self.native.context()
        return self._context

    def close(self) -> None:
        self.sock.close()


def run_exchange(exchange: Exchange, transport, clock=time.monotonic) -> Exchange:
    """Drive one exchange to completion over ``transport`` (send / recv(timeout)), in C
    when the transport offers the native loop and the exchange reads ina.p4's answers."""
    native = getattr(transport, "native", None) if exchange.native_loop else None
    if native is not None:
        return native.run(exchange, transport.sock, transport.peer, transport.context)
    for payload in exchange.start(clock()):
        transport.send(payload)
    while not exchange.done:
        deadline = exchange.next_deadline()
        payload = transport.recv(deadline - clock() if deadline is not None else 1.0)
        now = clock()
        out = exchange.on_payload(payload, now) if payload is not None else []
        deadline = exchange.next_deadline()
        if deadline is not None and deadline <= now:
            out += exchange.poll(now)
        for p in out:
            transport.send(p)
    return exchange


def lane_bits_for(dtype: torch.dtype) -> int:
    """The lane width a tensor of ``dtype`` travels in: 16 bits for bf16/fp16, else 32."""
    return 16 if dtype in (torch.bfloat16, torch.float16) else 32


MAX_RESENDS = 3                # overflowed blocks sent again at most this many times
NOT_MAX = ("the switch summed the exponent round instead of keeping each lane's max: it "
           "runs a program without FLAG_MAX rounds; run p4/ina.p4")
DISAGREE = "the switch returned other exponents than the agreed ones: workers disagree on the job"
# the tensor types whose memory the C client reads and writes (ina_native.DTYPE_CODES)
NATIVE_DTYPES = {torch.float32: "fp32", torch.bfloat16: "bf16", torch.float16: "fp16"}


class InaAllReduce:
    """Sum of a tensor over the ``n_workers`` workers of a job, in place. Without
    ``short_packets`` every packet is full size (LuWu's programs take only those)."""

    def __init__(self, transport, job_id: int, worker_id: int, n_workers: int,
                 slots: int = 32, timeout_s: float = 0.01, lane_bits: int | None = None,
                 lanes: int = ina.LANES, trace: bool = False, short_packets: bool = True):
        if not 1 <= n_workers <= 255:
            raise ValueError(f"n_workers must be within 1..255, got {n_workers}")
        if lane_bits is not None:
            ina.lanes_per_packet(lane_bits)
        self.lane_bits = lane_bits
        self.lanes = ina.check_lanes(lanes)       # 32-bit lane words per packet
        self.short_packets = short_packets
        self.transport = transport
        self.n_workers = n_workers
        self.stream = JobStream(job_id, worker_id, slots, timeout_s=timeout_s)
        self.packets = 0
        self.retransmissions = 0
        self.resent_blocks = 0        # blocks sent again after an overflow
        # with ``trace``, (phase, wall-clock time) of each all-reduce's phases: to lay
        # them beside a capture's timestamps (the same clock, CLOCK_REALTIME)
        self.stamps: list | None = [] if trace else None

    def _stamp(self, phase: str) -> None:
        if self.stamps is not None:
            self.stamps.append((phase, time.time()))

    def _run(self, exchange: Exchange) -> Exchange:
        ex = run_exchange(exchange, self.transport)
        self.packets += ex.sent_packets
        self.retransmissions += ex.retransmissions
        return ex

    def agree_exponent(self, max_abs: float) -> int:
        """The job's largest exponent of ``max_abs``: a one-group round."""
        words = min(ina.GROUP_WORDS, self.lanes) if self.short_packets else self.lanes
        ex = self._run(Exchange(self.stream, np.zeros((1, words), dtype=np.int32),
                                fx.exponent_for(max_abs)))
        return ex.result_exponent

    def block_exponents(self, blocks: np.ndarray) -> np.ndarray:
        """This worker's exponent of each block (row), the one it announces."""
        return fx.block_exponents(blocks)

    def agree_block_exponents(self, local: np.ndarray) -> np.ndarray:
        """The job's exponents of the blocks whose local exponents are ``local``: one lane
        per block in packets flagged FLAG_MAX, of which the switch keeps each lane's max
        (one packet for up to ``lanes`` blocks)."""
        n, per = len(local), self.lanes
        lanes = np.full(-(-n // per) * per, fx.EXPONENT_MIN, np.int32)
        lanes[:n] = local
        ex = self._run(Exchange(self.stream, lanes.reshape(-1, per), fx.EXPONENT_MIN,
                                flags=ina.FLAG_MAX,
                                tail_words=self._tail(n - (len(lanes) - per))))
        if not np.all(ex.result_flags & ina.FLAG_MAX):
            raise TrainetError(NOT_MAX)
        return ex.result.reshape(-1)[:n].astype(np.int8)

    def _tail(self, words: int) -> int | None:
        """The words of an exchange's last packet for ``words`` in use (None: full)."""
        return words if self.short_packets else None

    def _block_tail(self, blocks: np.ndarray, bits: int, size: int) -> int | None:
        """:meth:`_tail` of ``blocks`` of ``bits``-bit values of which ``size`` are in use."""
        in_last = size - (len(blocks) - 1) * blocks.shape[1]
        return self._tail(-(-in_last * bits // 32))

    def sum_blocks(self, blocks: np.ndarray, bits: int,
                   size: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The job's integer sums of ``blocks`` (one row of values per packet) and the
        exponent each block was summed at; overflowed blocks are sent again. ``size``:
        the values in use (the last block's beyond them are padding and stay off the
        wire, up to a whole lane group); all by default."""
        n, slots = len(blocks), self.stream.slots
        per = blocks.shape[1]
        tail = self._block_tail(blocks, bits, n * per if size is None else size)
        local = self.block_exponents(blocks)
        exponents = np.full(n, fx.EXPONENT_MIN, np.int8)
        head = min(slots, n)
        self._stamp("exponents")
        exponents[:head] = self.agree_block_exponents(local[:head])
        self._stamp("data")
        announce = np.full(n, fx.EXPONENT_MIN, np.int8)
        announce[:n - head] = local[head:]          # chunk c announces block c + slots
        ex = self._run(BlockExchange(self.stream, blocks, exponents, self.n_workers, bits,
                                     announce, piggyback=True, words=self.lanes,
                                     tail_words=tail))
        self._stamp("sums")
        return self._resend_overflowed(blocks, bits, tail, ex)

    def _resend_overflowed(self, blocks: np.ndarray, bits: int, tail: int | None,
                           ex) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`sum_blocks`' sums and exponents once its data exchange ``ex`` (its
        ``n``, ``result``, ``exponents``, ``result_exponents``, ``result_flags``) is
        over: the blocks that overflowed their exponent are sent again at the one their
        result carries, until none does."""
        n = len(blocks)
        sums = ex.result if bits == 32 else ina.unpack16(ex.result)
        used = ex.exponents.copy()
        pending = np.arange(n)        # the block of each chunk of `ex`
        for resend in range(MAX_RESENDS + 1):
            over = np.flatnonzero(ex.result_flags & ina.FLAG_OVERFLOW)
            fine = np.setdiff1d(np.arange(ex.n), over)
            if np.any(ex.result_exponents[fine] != ex.exponents[fine]):
                raise TrainetError(DISAGREE)
            if over.size == 0:
                return sums, used
            if resend == MAX_RESENDS:
                break
            pending = pending[over]
            self.resent_blocks += pending.size
            ex = self._run(BlockExchange(self.stream, blocks[pending],
                                         ex.result_exponents[over], self.n_workers, bits,
                                         words=self.lanes,
                                         tail_words=tail if pending[-1] == n - 1 else None))
            sums[pending] = ex.result if bits == 32 else ina.unpack16(ex.result)
            used[pending] = ex.exponents
        raise TrainetError(f"blocks kept overflowing their exponent after {MAX_RESENDS} "
                           "re-sends: their values change while they are aggregated")

    def all_reduce(self, tensor: torch.Tensor) -> torch.Tensor:
        if not tensor.is_floating_point():
            raise TypeError(f"all_reduce needs a float tensor, got {tensor.dtype}")
        self._stamp("start")
        if tensor.numel() == 0:
            return tensor
        bits = self.lane_bits or lane_bits_for(tensor.dtype)
        if not self._all_reduce_native(tensor, bits):
            values = float32_values(tensor)
            blocks = as_blocks(values, bits, self.lanes)
            self._store(tensor, *self.sum_blocks(blocks, bits, values.size), bits)
        self._stamp("end")
        return tensor

    def _store(self, tensor: torch.Tensor, sums: np.ndarray,
               exponents: np.ndarray, bits: int) -> None:
        summed = (sums / fx.block_scales(exponents, self.n_workers, bits)).reshape(-1)
        store_rounded(tensor, summed[:tensor.numel()])

    def _all_reduce_native(self, tensor: torch.Tensor, bits: int) -> bool:
        """The all-reduce in one call of the C client (:meth:`ina_native.NativeLoop.
        all_reduce`), the same packets and sums as the steps of :meth:`sum_blocks`, where
        the transport runs the C loop and the tensor's memory can be read where it lies
        (bf16, fp16 or fp32, contiguous, on the CPU); False where it cannot, or where a
        value is not finite or too large (nothing sent: the steps then say which).
        Blocks that overflowed their exponent are sent again by :meth:`sum_blocks`'
        rule. A :meth:`block_exponents` other than this class's announces its exponents."""
        native = getattr(self.transport, "native", None)
        dtype = NATIVE_DTYPES.get(tensor.dtype)
        if native is None or dtype is None or tensor.device.type != "cpu" \
                or not tensor.is_contiguous():
            return False
        announced = None
        if getattr(self.block_exponents, "__func__", None) is not InaAllReduce.block_exponents:
            announced = self.block_exponents(as_blocks(float32_values(tensor), bits,
                                                       self.lanes))
        t = self.transport
        out = native.all_reduce(t.context, self.stream, t.sock, t.peer,
                                address=tensor.data_ptr(), size=tensor.numel(), dtype=dtype,
                                lane_bits=bits, words=self.lanes, n_workers=self.n_workers,
                                short_packets=self.short_packets, announced=announced)
        self.packets += out.sent_packets
        self.retransmissions += out.retransmissions
        if out.status == "bad_values":
            return False
        if self.stamps is not None:
            self.stamps += list(zip(("exponents", "data", "sums"), out.stamps))
        if out.status == "not_max":
            raise TrainetError(NOT_MAX)
        if out.status == "disagree":
            raise TrainetError(DISAGREE)
        if out.status == "overflowed":
            blocks = as_blocks(float32_values(tensor), bits, self.lanes)
            tail = self._block_tail(blocks, bits, tensor.numel())
            self._store(tensor, *self._resend_overflowed(blocks, bits, tail, out.data),
                        bits)
        return True


# Tensor <-> numpy without torch's kernels: torch runs an element-wise copy of more than
# 32768 elements on its OpenMP threads, whose spin-wait after each parallel region keeps
# another core busy for a while (a worker with two threads spent as much CPU in it per
# round of 64 kB of bf16 as in the rest of the round). numpy's run on the calling thread.
_RAW16 = {torch.bfloat16: torch.int16, torch.float16: torch.float16}


def _numpy_view(tensor: torch.Tensor, as_type: torch.dtype) -> np.ndarray | None:
    """A flat numpy view of ``tensor``'s memory as ``as_type``, or None where there is
    none (not contiguous, not on the CPU)."""
    if tensor.device.type != "cpu" or not tensor.is_contiguous():
        return None
    return tensor.detach().view(as_type).reshape(-1).numpy()


def float32_values(tensor: torch.Tensor) -> np.ndarray:
    """``tensor``'s values as a flat float32 array: exact for bf16, fp16 and fp32; other
    types rounded to float32 (as_blocks' rule)."""
    raw = _numpy_view(tensor, _RAW16.get(tensor.dtype, tensor.dtype)) \
        if tensor.dtype in (torch.bfloat16, torch.float16, torch.float32) else None
    if raw is None:
        return tensor.detach().reshape(-1).to(torch.float32).cpu().numpy()
    if tensor.dtype == torch.bfloat16:      # a bf16 value is a float32's upper half
        return (raw.astype(np.uint32) << 16).view(np.float32)
    return raw.astype(np.float32)


def store_rounded(tensor: torch.Tensor, summed: np.ndarray) -> None:
    """Write float64 ``summed`` into ``tensor``, rounded to its type as torch rounds a
    float64 tensor to it: to float32 first, then (bf16, fp16) to nearest even again."""
    raw = _numpy_view(tensor, _RAW16.get(tensor.dtype, tensor.dtype)) \
        if tensor.dtype in (torch.bfloat16, torch.float16, torch.float32) else None
    if raw is None:
        tensor.copy_(torch.from_numpy(summed).view(tensor.shape).to(tensor.dtype))
        return
    single = summed.astype(np.float32)
    if tensor.dtype == torch.bfloat16:      # the sums are finite: no NaN to keep
        u = single.view(np.uint32)
        raw[:] = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16).view(np.int16)
    else:
        with np.errstate(over="ignore"):    # beyond fp16's range: inf, as torch gives
            raw[:] = single


def as_blocks(values: np.ndarray, lane_bits: int, lanes: int = ina.LANES) -> np.ndarray:
    """``values`` as float32 rows of one packet's lanes each (packets of ``lanes`` words),
    the last padded with zeros (bf16/fp16/fp32 values are exact in float32; float64 ones
    are rounded to it, which the C client needs too)."""
    per_packet = ina.lanes_per_packet(lane_bits, lanes)
    n = -(-values.size // per_packet)
    out = np.zeros(n * per_packet, np.float32)
    out[:values.size] = values
    return out.reshape(n, per_packet)


def reference_sum(inputs: list, n_workers: int, lane_bits: int,
                  lanes: int = ina.LANES) -> torch.Tensor:
    """What the switch's sum of ``inputs`` (one tensor per worker) comes to on every worker:
    each block (one packet's values) quantized with the largest of the workers' exponents
    of that block into ``lane_bits``-bit lanes, added as integers, dequantized and rounded
    to the inputs' type, on the host (packets of ``lanes`` words)."""
    blocks = [as_blocks(x.float().numpy().reshape(-1), lane_bits, lanes) for x in inputs]
    exponents = np.max([fx.block_exponents(b) for b in blocks], axis=0)
    total = 0
    for b in blocks:
        total = total + np.rint(b.astype(np.float64) * fx.block_scales(
            exponents, n_workers, lane_bits)).astype(np.int64)
    summed = (total / fx.block_scales(exponents, n_workers, lane_bits)).reshape(-1)
    return torch.from_numpy(summed[:inputs[0].numel()]).view(inputs[0].shape).to(
        inputs[0].dtype)


def _lanes_arg(text: str) -> int:
    try:
        return ina.check_lanes(int(text))
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m hosts.ina_allreduce",
                                description="time all-reduces through an INA switch")
    p.add_argument("--job", type=int, required=True)
    p.add_argument("--worker", type=int, required=True)
    p.add_argument("--workers", type=int, required=True, help="total workers (all racks)")
    p.add_argument("--aggregator", required=True, help="the switch's aggregator IPv4 address")
    p.add_argument("--elements", type=int, default=1 << 20)
    p.add_argument("--rounds", type=int, default=1, help="timed rounds, back to back")
    p.add_argument("--warmup", type=int, default=0, help="untimed rounds before them")
    p.add_argument("--dtype", choices=sorted(DTYPES), default="fp32",
                   help="the tensor's element type (default fp32)")
    p.add_argument("--lane-bits", choices=["auto", "16", "32"], default="auto",
                   help="lane width: auto (16 for bf16/fp16, 32 for fp32; default), 16 or 32")
    p.add_argument("--lanes", type=_lanes_arg, default=ina.LANES,
                   help=f"32-bit lane words per packet, the switch program's (default "
                   f"{ina.LANES}, p4/ina.p4's)")
    p.add_argument("--slots", type=int, default=32)
    p.add_argument("--timeout-ms", type=float, default=10.0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--rank", type=int, help="index of this worker's data among all workers "
                   "(default: --worker; differs from it across racks)")
    p.add_argument("--check", action="store_true",
                   help="also compute the exact sum locally and report the largest error, "
                   "and the switch's sum computed on the host: the result must equal it")
    p.add_argument("--client", choices=ina_native.CLIENTS, default="auto",
                   help="who runs the window loop: native (C), python, or auto (C where "
                   "a C compiler is present; default)")
    p.add_argument("--trace", action="store_true",
                   help="report each all-reduce's phases (start, exponent round, data, "
                   "sums, end) as wall-clock times, beside a capture's")
    args = p.parse_args(argv)
    rank = args.worker if args.rank is None else args.rank
    dtype = DTYPES[args.dtype]
    transport = UdpTransport(args.aggregator, client=args.client)
    lane_bits = None if args.lane_bits == "auto" else int(args.lane_bits)
    reducer = InaAllReduce(transport, args.job, args.worker, args.workers, args.slots,
                           args.timeout_ms / 1000, lane_bits, args.lanes, args.trace)
    bits = lane_bits or lane_bits_for(dtype)
    gens = [torch.Generator().manual_seed(args.seed * 1000 + w) for w in range(args.workers)]
    # every round's inputs before the clock starts: all workers' with --check, else ours
    inputs = [[torch.randn(args.elements, generator=g).to(dtype)
               for w, g in enumerate(gens) if args.check or w == rank]
              for _ in range(args.rounds)]
    tensors = [(xs[rank] if args.check else xs[0]).clone() for xs in inputs]
    report = timed_rounds(reducer.all_reduce, tensors, lambda: reducer.agree_exponent(0.0),
                          args.warmup)
    digest = hashlib.sha256(tensors[-1].view(torch.uint8).numpy().tobytes()).hexdigest() \
        if tensors else ""
    errors, bounds, matches = [], [], []
    for xs, t in zip(inputs, tensors) if args.check else ():
        exact = torch.stack([x.double() for x in xs]).sum(0)
        errors.append(float((t.double() - exact).abs().max()))
        e = fx.exponent_for(float(max(x.abs().max() for x in xs)))
        # fixed-point bound plus rounding the float64 sum to the tensor's type
        bounds.append(fx.error_bound(e, args.workers, bits)
                      + float(exact.abs().max()) * torch.finfo(dtype).eps / 2)
        bits_of = {2: torch.int16, 4: torch.int32}[dtype.itemsize]     # bit for bit
        matches.append(torch.equal(reference_sum(xs, args.workers, bits,
                                                 args.lanes).view(bits_of),
                                   t.view(bits_of)))
    # An untimed round as a barrier: it completes only once every worker has finished
    # its timed rounds, so none exits (a torch interpreter's exit takes tens of ms of
    # CPU) while another still times one.
    reducer.agree_exponent(0.0)
    transport.close()
    json.dump({"worker": args.worker, "dtype": args.dtype, **report, "packets": reducer.packets,
               "retransmissions": reducer.retransmissions,
               "resent_blocks": reducer.resent_blocks, "result_sha256": digest,
               "max_error": errors, "error_bound": bounds, "matches_reference": matches,
               "lane_bits": bits, "lanes": args.lanes,
               **({"stamps": reducer.stamps} if args.trace else {}),
               "srtt_s": reducer.stream.srtt, "rto_s": reducer.stream.rto,
               "client": "python" if transport.native is None else "native"}, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
