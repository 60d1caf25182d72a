"""Minimal pcap writer (classic libpcap format, microsecond timestamps, Ethernet).

Written directly rather than through scapy: a header pack and a buffered write per frame
keep capture cheap enough for the packet path.
"""
from __future__ import annotations

import struct
import time

_GLOBAL_HEADER = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 1)  # LINKTYPE_ETHERNET
_RECORD = struct.Struct("<IIII")


class PcapWriter:
    def __init__(self, path: str):
        self.path = path
        self._file = open(path, "wb", buffering=1 << 20)
        self._file.write(_GLOBAL_HEADER)

    def write(self, frame: bytes, ts_ns: int | None = None) -> None:
        if ts_ns is None:
            ts_ns = time.time_ns()
        sec, nsec = divmod(ts_ns, 1_000_000_000)
        n = len(frame)
        self._file.write(_RECORD.pack(sec, nsec // 1000, n, n))
        self._file.write(frame)

    def flush(self) -> None:
        self._file.flush()

    def close(self) -> None:
        if not self._file.closed:
            self._file.close()
