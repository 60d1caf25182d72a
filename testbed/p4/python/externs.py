"""v1model externs: stateful objects (register, counter, meter) and the hash/checksum
algorithms, with BMv2's semantics.

Hash inputs are the concatenation of the listed fields, most significant bit first,
padded with zero bits at the end to whole bytes (how BMv2 serialises a field list).
``crc16`` is BMv2's CRC-16 (the ARC variant: polynomial 0x8005 reflected, init 0),
``crc32`` is zlib's CRC-32, ``csum16`` the Internet checksum (RFC 1071) and ``xor16``
the XOR of the 16-bit words.
"""
from __future__ import annotations

import random as _random
import time
import zlib

GREEN, YELLOW, RED = 0, 1, 2


class Register:
    """A register array; out-of-range reads give 0 and out-of-range writes are ignored."""

    def __init__(self, name: str, size: int, width: int, signed: bool = False):
        self.name = name
        self.size = size
        self.width = width
        self.signed = signed
        self.cells = [0] * size       # generated code indexes this list directly


class Counter:
    """Indexed counter; ``kind`` is packets, bytes or packets_and_bytes (both are kept)."""

    def __init__(self, name: str, size: int, kind: str):
        self.name = name
        self.size = size
        self.kind = kind
        self.packets = [0] * size
        self.bytes = [0] * size

    def count(self, index: int, length: int) -> None:
        if 0 <= index < self.size:
            self.packets[index] += 1
            self.bytes[index] += length


class TokenMeter:
    """One two-rate three-color marker (RFC 2698, colour-blind), as BMv2's meters.

    Rates are units per second, bursts are units (packets or bytes). An unconfigured
    meter marks everything GREEN.
    """

    __slots__ = ("cir", "cburst", "pir", "pburst", "tc", "tp", "last")

    def __init__(self):
        self.cir = None
        self.cburst = self.pir = self.pburst = 0
        self.tc = self.tp = 0.0
        self.last = 0.0

    def configure(self, cir: int, cburst: int, pir: int, pburst: int, now: float) -> None:
        self.cir, self.cburst, self.pir, self.pburst = cir, cburst, pir, pburst
        self.tc, self.tp, self.last = float(cburst), float(pburst), now

    def execute(self, amount: int, now: float) -> int:
        if self.cir is None:
            return GREEN
        elapsed = max(now - self.last, 0.0)
        self.last = now
        self.tc = min(self.cburst, self.tc + elapsed * self.cir)
        self.tp = min(self.pburst, self.tp + elapsed * self.pir)
        if self.tp < amount:
            return RED
        if self.tc < amount:
            self.tp -= amount
            return YELLOW
        self.tp -= amount
        self.tc -= amount
        return GREEN


class Meter:
    """Indexed meter array; ``kind`` is packets or bytes."""

    def __init__(self, name: str, size: int, kind: str, clock=time.monotonic):
        self.name = name
        self.size = size
        self.kind = kind
        self.clock = clock
        self.cells = [TokenMeter() for _ in range(size)]

    def execute(self, index: int, length: int) -> int:
        if not 0 <= index < self.size:
            return GREEN
        return self.cells[index].execute(1 if self.kind == "packets" else length, self.clock())


# ------------------------------------------------------------------ hash algorithms
def _crc16_table() -> list:
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xA001 if crc & 1 else crc >> 1
        table.append(crc)
    return table


_CRC16 = _crc16_table()


def crc16(data: bytes) -> int:
    crc = 0
    for b in data:
        crc = (crc >> 8) ^ _CRC16[(crc ^ b) & 0xFF]
    return crc


def crc32(data: bytes) -> int:
    return zlib.crc32(data)


def csum16(data: bytes) -> int:
    if len(data) & 1:
        data += b"\0"
    return csum16_int(int.from_bytes(data, "big"))


def csum16_int(value: int) -> int:
    """Internet checksum of the 16-bit words of ``value``: the one's-complement sum of
    the words is ``value`` mod 0xFFFF (2**16 = 1 mod 0xFFFF), with 0xFFFF for a
    non-zero multiple."""
    s = value % 0xFFFF
    if s == 0 and value:
        s = 0xFFFF
    return 0xFFFF ^ s


def xor16(data: bytes) -> int:
    if len(data) & 1:
        data += b"\0"
    h = 0
    for i in range(0, len(data), 2):
        h ^= (data[i] << 8) | data[i + 1]
    return h


def identity(data: bytes) -> int:
    return int.from_bytes(data, "big")


def random_hash(data: bytes) -> int:
    return _random.getrandbits(32)


ALGORITHMS = {
    "crc16": crc16,
    "crc32": crc32,
    "csum16": csum16,
    "xor16": xor16,
    "identity": identity,
    "random": random_hash,
}


def to_bytes(value: int, bits: int) -> bytes:
    """Field-list bits (``bits`` wide) as bytes, zero-padded at the end."""
    pad = -bits % 8
    return (value << pad).to_bytes((bits + pad) // 8, "big")


def hash_value(algo: str, value: int, bits: int, base: int, maximum: int) -> int:
    h = ALGORITHMS[algo](to_bytes(value, bits))
    return base + (h % maximum) if maximum > 0 else base + h


def random_between(lo: int, hi: int) -> int:
    return _random.randint(lo, hi) if hi >= lo else lo


def format_log(fmt: str, values: tuple) -> str:
    """``log_msg`` formatting: each ``{}`` takes the next value (decimal)."""
    parts = fmt.split("{}")
    out = [parts[0]]
    for i, part in enumerate(parts[1:]):
        out.append(str(values[i]) if i < len(values) else "{}")
        out.append(part)
    return "".join(out)
