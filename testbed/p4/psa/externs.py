"""Run-time objects of PSA's externs that v1model has no counterpart for: the checksum
units, and the mapping of meter colours to PSA_MeterColor_t.

Registers, counters and meters are v1model's objects (``externs``): the same cells, the
same control-plane reads and writes. The checksum units keep per-packet state; the
generated code clears them each time the parser or control holding them starts, as the
specification asks ("as if clear() had been called").
"""
from __future__ import annotations

from testbed.p4.python import externs

# PSA_HashAlgorithm_t member -> externs.ALGORITHMS name. The *_CUSTOM algorithms run
# with their default parameters (no control-plane API sets them), as on BMv2.
# TARGET_DEFAULT is CRC32 on this target.
HASH_ALGORITHMS = {"IDENTITY": "identity", "CRC32": "crc32", "CRC32_CUSTOM": "crc32",
                   "CRC16": "crc16", "CRC16_CUSTOM": "crc16",
                   "ONES_COMPLEMENT16": "csum16", "TARGET_DEFAULT": "crc32"}


class Checksum:
    """``Checksum<W>``: the hash algorithm over the bytes given since the last clear."""

    def __init__(self, algorithm: str):
        self.fn = externs.ALGORITHMS[algorithm]
        self.data = b""

    def clear(self) -> None:
        self.data = b""

    def update(self, data: bytes) -> None:
        self.data += data

    def get(self) -> int:
        return self.fn(self.data)


def _fold(value: int) -> int:
    while value >> 16:
        value = (value & 0xFFFF) + (value >> 16)
    return value


class InternetChecksum:
    """``InternetChecksum``: the one's-complement sum of 16-bit words (RFC 1071), which
    ``subtract`` updates incrementally (RFC 1624: adding a word's complement removes it).
    ``state`` is the running sum; ``get`` its complement."""

    def __init__(self):
        self.state = 0

    def clear(self) -> None:
        self.state = 0

    def add(self, data: bytes) -> None:
        self.state = _fold(self.state + sum(int.from_bytes(data[i:i + 2], "big")
                                            for i in range(0, len(data), 2)))

    def subtract(self, data: bytes) -> None:
        self.state = _fold(self.state + sum(0xFFFF ^ int.from_bytes(data[i:i + 2], "big")
                                            for i in range(0, len(data), 2)))

    def get(self) -> int:
        return 0xFFFF ^ self.state

    def set_state(self, state: int) -> None:
        self.state = state & 0xFFFF


def meter_color(color: int, psa: tuple, before: int | None = None) -> int:
    """A v1model meter colour (0 green, 1 yellow, 2 red) as a PSA_MeterColor_t value;
    ``psa`` holds the enum values of GREEN, YELLOW and RED. Colour-aware execution
    (``before``, a PSA value) never returns a better colour than the packet had."""
    if before is not None and before in psa:
        color = max(color, psa.index(before))
    return psa[color]
