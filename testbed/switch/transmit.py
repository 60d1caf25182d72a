"""Batched transmit: sendmmsg from native code, one system call per batch of frames.

The C is the native backend's ``packet_io.c``, compiled on its own by the same build
machinery (testbed/p4/native/build.py, cached on disk). A native pipeline has the same
code built in and sends what leaves by a port straight from its output arena
(``NativeTarget.send_directly``); this module serves the frames Python holds (the
python backend, the egress model's releases) and the traffic generator.

:func:`choose` is the probe a switch runs at start: the library loads (a C compiler and
cffi are there) and the kernel takes sendmmsg on the port's socket, else one ``send``
per frame; either way one line says which.
"""
from __future__ import annotations

import os
from functools import lru_cache
from itertools import accumulate
from pathlib import Path

from testbed.errors import TrainetError

PER_FRAME = "transmit: one send() per frame, not batched"


class BatchTransmit:
    """sendmmsg on AF_PACKET sockets (any socket taking datagrams)."""

    def __init__(self, ffi, lib):
        self.ffi, self.lib = ffi, lib
        self._counts = ffi.new("uint64_t[4]")
        self._elapsed = ffi.new("double *")

    def send(self, fd: int, frames: list) -> tuple:
        """Send ``frames`` on ``fd`` in order without blocking; (frames sent, frames the
        kernel refused)."""
        lens = [len(f) for f in frames]
        counts = self._counts
        counts[0] = counts[1] = counts[2] = counts[3] = 0
        self.lib.io_send(fd, b"".join(frames), [0, *accumulate(lens)], lens,
                         self.ffi.NULL, len(frames), counts)
        return counts[0], counts[2]

    def generate(self, fd: int, frame: bytes, seconds: float, rate_pps: float = 0) -> tuple:
        """``frame`` over and over for ``seconds`` (at ``rate_pps`` frames/s, 0: as fast
        as the socket takes them); (frames sent, seconds taken)."""
        sent = self.lib.io_generate(fd, frame, len(frame), seconds, rate_pps, self._elapsed)
        return sent, self._elapsed[0]


@lru_cache(maxsize=1)
def library() -> BatchTransmit:
    """The compiled ``packet_io.c``; raises TrainetError (NoCompiler) when it cannot be
    built on this machine."""
    from testbed.p4.native import build
    source = (Path(build.__file__).with_name("packet_io.c")).read_text()
    return BatchTransmit(*build.load(source, declarations=build.interface(source)))


def choose(fd: int) -> tuple:
    """(BatchTransmit or None, one line saying which transmit path sockets like ``fd``
    get and, for the fallback, why)."""
    try:
        tx = library()
    except TrainetError as e:
        return None, f"{PER_FRAME}: {str(e).splitlines()[0]}"
    err = tx.lib.io_probe(fd)
    if err:
        return None, f"{PER_FRAME}: the kernel refuses sendmmsg ({os.strerror(err)})"
    return tx, "transmit: batched, sendmmsg from native code (one system call per batch)"
