"""The INA worker's window loop in C (hosts/ina_client.c), for exchanges on a UDP socket.

The Python loop (:func:`hosts.ina_allreduce.run_exchange` over
:class:`hosts.ina_session.Exchange`) costs 25-29 us of CPU per packet (encode, send,
receive, decode, timers); eight workers on two cores then spend more time in it than on
the links. The C loop sends and receives the same packets with the same window and
retransmission rules, a batch per system call (its chunks leave in order, and its window
opens four chunks first, one more per result: see hosts/ina_client.c), and keeps the
stream's RTT estimate and
back-off in the :class:`~hosts.ina_session.JobStream`, so Python and C exchanges can
follow one another on one stream. It is built like the switch's native backend (the
machine's C compiler, cached, loaded through cffi); without a compiler the Python loop
runs, with one line saying so.

A whole all-reduce (:meth:`NativeLoop.all_reduce`) is one call too: the blocks'
exponents, the exponent round, the data exchange and the sums rounded into the tensor,
read and written where the tensor lies. Between the exponent round's answer and the
first data chunk no Python runs, and a round allocates nothing once its socket's buffers
(:meth:`NativeLoop.context`) have grown to its size: eight workers on two cores spent
more CPU per round in Python and numpy around the exchanges than in them.
"""
from __future__ import annotations

import errno
import functools
import socket
import struct
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from hosts.ina_session import AggregationTimeout, Exchange, JobStream, stalled_message
from testbed.errors import TrainetError
from testbed.proto import ina

SOURCE = Path(__file__).with_name("ina_client.c")
CLIENTS = ("auto", "native", "python")


_LOADING = threading.Lock()     # one library per process, though threads ask at once


@functools.lru_cache(maxsize=1)
def _library():
    from testbed.p4.native.build import interface, load
    source = SOURCE.read_text()
    return load(source, declarations=interface(source))


def check(client: str) -> str:
    if client not in CLIENTS:
        raise TrainetError(f"INA client {client!r}: choose one of {', '.join(CLIENTS)}")
    return client


def loop(client: str = "auto") -> "NativeLoop | None":
    """The C loop for ``client`` (auto, native, python): None for python, and for auto
    on a machine that cannot build it (said once, on stderr)."""
    if check(client) == "python":
        return None
    with _LOADING:
        return _loop(client)


@functools.lru_cache(maxsize=None)
def _loop(client: str) -> "NativeLoop | None":
    from testbed.p4.native.build import NoCompiler
    try:
        return NativeLoop(*_library())
    except NoCompiler as e:
        if client == "native":
            raise
        print(f"note: {e}; the INA client runs its window loop in Python", file=sys.stderr)
        return None


@dataclass
class AllReduced:
    """What :meth:`NativeLoop.all_reduce` did: ``status`` ``done`` (the sums are in the
    tensor), ``overflowed`` (a block overflowed its agreed exponent; the tensor is
    untouched and ``data`` holds the data exchange's arrays for the re-sends),
    ``not_max`` (the switch summed the exponent round), ``disagree`` (a result came back
    at another exponent than the agreed one) or ``bad_values`` (a value not finite or too
    large: nothing was sent); the packets it sent, its retransmissions, and the wall-clock
    times the exponent round and the data began and the data ended."""
    status: str
    sent_packets: int
    retransmissions: int
    stamps: tuple
    data: SimpleNamespace | None = None


STATUS = {0: "done", 2: "overflowed", 3: "not_max", 4: "disagree", -errno.EDOM: "bad_values"}
DTYPE_CODES = {"fp32": 0, "bf16": 1, "fp16": 2}      # ina_client.c's INA_F32, ...


class NativeLoop:
    name = "native"

    def __init__(self, ffi, lib):
        self.ffi, self.lib = ffi, lib

    def context(self):
        """Buffers for one socket's exchanges, kept from one to the next (freed with the
        object); a context is never used by two threads at once."""
        return self.ffi.gc(self.lib.ina_ctx_new(), self.lib.ina_ctx_free)

    def _stream_in(self, s: JobStream):
        x = self.ffi.new("ina_xchg_t *")
        x.job_id, x.worker_id, x.slots = s.job_id, s.worker_id, s.slots
        x.timeout_s, x.max_timeout_s, x.give_up_s = s.timeout_s, s.max_timeout_s, s.give_up_s
        x.has_srtt = s.srtt is not None
        x.srtt, x.rttvar = s.srtt or 0.0, s.rttvar
        x.quiet_until, x.backoff = s.quiet_until, s.backoff
        return x

    @staticmethod
    def _stream_out(x, s: JobStream) -> None:
        s.srtt = x.srtt if x.has_srtt else None
        s.rttvar, s.quiet_until, s.backoff = x.rttvar, x.quiet_until, x.backoff

    @staticmethod
    def _failed(rc: int, peer: tuple) -> OSError:
        return OSError(-rc, f"INA client: the UDP socket failed towards {peer[0]}:{peer[1]}")

    def run(self, exchange: Exchange, sock: socket.socket, peer: tuple,
            context=None) -> Exchange:
        """Drive ``exchange`` to completion on ``sock`` towards ``peer`` (IPv4, port), in
        ``context``'s buffers (a new one without it)."""
        ffi, s = self.ffi, exchange.stream
        x = self._stream_in(s)
        x.first, x.n, x.words = exchange.first, exchange.n, exchange.words
        x.tail_words = exchange.tail_words
        x.lane_flags = exchange.lane_flags
        x.n_workers = getattr(exchange, "n_workers", 1)
        x.piggyback = exchange.piggyback
        if exchange.lanes is not None:
            lanes = ffi.from_buffer("int32_t[]",
                                    np.ascontiguousarray(exchange.lanes, dtype=np.int32))
            values = ffi.NULL
        else:
            lanes, values = ffi.NULL, ffi.from_buffer("float[]", exchange.values)

        def out(array, kind):
            return ffi.from_buffer(kind, array, require_writable=True)
        ip = struct.unpack("=I", socket.inet_aton(peer[0]))[0]
        rc = self.lib.ina_run(context if context is not None else self.context(), x,
                              sock.fileno(), ip, socket.htons(peer[1]), lanes, values,
                              out(exchange.exponents, "int8_t[]"),
                              ffi.from_buffer("int8_t[]", exchange.next_exponents),
                              out(exchange.result, "int32_t[]"),
                              out(exchange.result_exponents, "int8_t[]"),
                              out(exchange.result_next, "int8_t[]"),
                              out(exchange.result_flags, "uint8_t[]"))
        self._stream_out(x, s)
        exchange.sent_packets += x.sent_packets
        exchange.retransmissions += x.retransmissions
        exchange.overflows += x.overflows
        exchange.remaining = x.remaining
        if x.has_result_exponent:
            exchange.result_exponent = x.result_exponent
        if rc == 1:
            raise AggregationTimeout(exchange.give_up_message(x.stalled_s))
        if rc == -errno.EINVAL:
            raise ValueError(f"INA client: {exchange.words} lanes per packet, "
                             f"{exchange.tail_words} in the last; accepted 1..{ina.MAX_LANES}, "
                             "the last's at most the others'")
        if rc < 0:
            raise self._failed(rc, peer)
        return exchange

    def all_reduce(self, context, stream: JobStream, sock: socket.socket, peer: tuple, *,
                   address: int, size: int, dtype: str, lane_bits: int, words: int,
                   n_workers: int, short_packets: bool,
                   announced: np.ndarray | None = None) -> AllReduced:
        """Sum the ``size`` values of ``dtype`` (fp32, bf16, fp16) at memory ``address``
        over the job, in place, as hosts/ina_allreduce.py's InaAllReduce does step by
        step: in lanes of ``lane_bits`` bits, packets of ``words`` words (the tensor's
        last packet and the exponent round only of the groups they need with
        ``short_packets``), each block at the exponent its values need (``announced``:
        the exponents to announce instead, one per block), on the stream's next chunks."""
        ffi = self.ffi
        x = self._stream_in(stream)
        x.first, x.words, x.n_workers = stream.next_chunk, words, n_workers
        stamps = ffi.new("double[3]")
        announce = ffi.NULL if announced is None else ffi.from_buffer(
            "int8_t[]", np.ascontiguousarray(announced, dtype=np.int8))
        memory = ffi.cast("void *", address)
        rc = self.lib.ina_allreduce(context, x, sock.fileno(),
                                    struct.unpack("=I", socket.inet_aton(peer[0]))[0],
                                    socket.htons(peer[1]), memory, memory, size,
                                    DTYPE_CODES[dtype], lane_bits, short_packets, announce,
                                    stamps)
        self._stream_out(x, stream)
        stream.next_chunk = x.next_chunk
        if rc == 1:
            raise AggregationTimeout(stalled_message(stream, x.remaining, x.n, x.stalled_s))
        if rc < 0 and rc != -errno.EDOM:
            raise ValueError(f"INA client: {words} lanes per packet of {lane_bits}-bit lanes; "
                             f"accepted 1..{ina.MAX_LANES} words of 16 or 32 bits") \
                if rc == -errno.EINVAL else self._failed(rc, peer)
        done = AllReduced(STATUS[rc], x.sent_packets, x.retransmissions, tuple(stamps))
        if done.status == "overflowed":
            n = -(-size // ina.lanes_per_packet(lane_bits, words))
            data = SimpleNamespace(n=n, result=np.zeros((n, words), np.int32),
                                   exponents=np.zeros(n, np.int8),
                                   result_exponents=np.zeros(n, np.int8),
                                   result_flags=np.zeros(n, np.uint8))
            self.lib.ina_data_results(
                context, ffi.from_buffer("int32_t[]", data.result, require_writable=True),
                *(ffi.from_buffer(kind, a, require_writable=True) for kind, a in (
                    ("int8_t[]", data.exponents), ("int8_t[]", data.result_exponents),
                    ("uint8_t[]", data.result_flags))))
            done.data = data
        return done
