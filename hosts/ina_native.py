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
runs, with one line saying so. Quantization stays in numpy.
"""
from __future__ import annotations

import errno
import functools
import socket
import struct
import sys
from pathlib import Path

import numpy as np

from hosts.ina_session import AggregationTimeout, Exchange
from testbed.errors import TrainetError
from testbed.proto import ina

SOURCE = Path(__file__).with_name("ina_client.c")
CLIENTS = ("auto", "native", "python")


@functools.lru_cache(maxsize=1)
def _library():
    from testbed.p4.native.build import interface, load
    source = SOURCE.read_text()
    return load(source, declarations=interface(source))


def check(client: str) -> str:
    if client not in CLIENTS:
        raise TrainetError(f"INA client {client!r}: choose one of {', '.join(CLIENTS)}")
    return client


@functools.lru_cache(maxsize=None)
def loop(client: str = "auto") -> "NativeLoop | None":
    """The C loop for ``client`` (auto, native, python): None for python, and for auto
    on a machine that cannot build it (said once, on stderr)."""
    if check(client) == "python":
        return None
    from testbed.p4.native.build import NoCompiler
    try:
        return NativeLoop(*_library())
    except NoCompiler as e:
        if client == "native":
            raise
        print(f"note: {e}; the INA client runs its window loop in Python", file=sys.stderr)
        return None


class NativeLoop:
    name = "native"

    def __init__(self, ffi, lib):
        self.ffi, self.lib = ffi, lib

    def run(self, exchange: Exchange, sock: socket.socket, peer: tuple) -> Exchange:
        """Drive ``exchange`` to completion on ``sock`` towards ``peer`` (IPv4, port)."""
        ffi, s = self.ffi, exchange.stream
        x = ffi.new("ina_xchg_t *")
        x.job_id, x.worker_id, x.slots = s.job_id, s.worker_id, s.slots
        x.timeout_s, x.max_timeout_s, x.give_up_s = s.timeout_s, s.max_timeout_s, s.give_up_s
        x.has_srtt = s.srtt is not None
        x.srtt, x.rttvar = s.srtt or 0.0, s.rttvar
        x.quiet_until, x.backoff = s.quiet_until, s.backoff
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
        rc = self.lib.ina_run(x, sock.fileno(), ip, socket.htons(peer[1]), lanes, values,
                              out(exchange.exponents, "int8_t[]"),
                              ffi.from_buffer("int8_t[]", exchange.next_exponents),
                              out(exchange.result, "int32_t[]"),
                              out(exchange.result_exponents, "int8_t[]"),
                              out(exchange.result_next, "int8_t[]"),
                              out(exchange.result_flags, "uint8_t[]"))
        s.srtt = x.srtt if x.has_srtt else None
        s.rttvar, s.quiet_until, s.backoff = x.rttvar, x.quiet_until, x.backoff
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
            raise OSError(-rc, f"INA client: the UDP socket failed towards {peer[0]}:{peer[1]}")
        return exchange
