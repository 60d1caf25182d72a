"""``trainet bench p4``'s native part: basic.p4 on the native backend against
``basic_forwarder.c``, the same program written by hand in C and built the same way
(the machine's compiler, the same flags, loaded through cffi), on the same frames and
routes. Both run whole batches in one call and take turns; each rate is that of its
fastest batch. The aggregation program (p4/ina.p4) runs natively too, on a freshly
programmed switch per round, reported in packets and gradient elements per second.
"""
from __future__ import annotations

import sys
import time
from itertools import accumulate
from pathlib import Path

from testbed.errors import TrainetError

ROUNDS = 5
FORWARDER = Path(__file__).with_name("basic_forwarder.c")
FORWARDER_API = """
void fwd_add(uint32_t prefix, uint32_t plen, uint16_t port, uint64_t mac);
int fwd_one(const uint8_t *frame, uint32_t len, uint8_t **data);
uint64_t fwd_batch(const uint8_t *data, const uint32_t *offs, const uint32_t *lens,
                   uint32_t n, uint32_t repeat);
"""


class HandWritten:
    """basic_forwarder.c loaded with ``routes`` (prefix, length, port, next-hop MAC)."""

    def __init__(self, routes: list):
        from testbed.p4.native.build import load
        self.ffi, self.lib = load(FORWARDER.read_text(), declarations=FORWARDER_API)
        for prefix, plen, port, mac in routes:
            self.lib.fwd_add(prefix, plen, port, mac)
        self._data = self.ffi.new("uint8_t **")

    def process(self, frame: bytes, port: int) -> list:
        out = self.lib.fwd_one(frame, len(frame), self._data)
        return [] if out < 0 else [(out, self.ffi.buffer(self._data[0], len(frame))[:])]

    def process_batch(self, frames: list, repeat: int = 1) -> int:
        lens = [len(f) for _, f in frames]
        return self.lib.fwd_batch(b"".join(f for _, f in frames), [0, *accumulate(lens)],
                                  lens, len(frames), repeat)


def _fastest(run, rounds: int = ROUNDS) -> float:
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - t0)
    return best


def rates(basic: Path, packets: int, routes: list, frames: list, ina=None) -> dict | None:
    """Packets/s of ``basic`` (p4/basic.p4) natively and by hand in C (and of the INA
    program when ``ina`` = (programmed, frames)), or None when the native backend does
    not load."""
    from testbed.p4 import entries as E
    from testbed.p4.lowering.program import load_program
    from testbed.p4.native.target import NativeTarget

    try:
        target = NativeTarget(load_program(str(basic)))
        hand = HandWritten(routes)
    except TrainetError as e:
        print(f"native backend unavailable: {str(e).splitlines()[0]}", file=sys.stderr)
        return None
    for prefix, plen, port, mac in routes:
        target.table_insert(E.TableEntry("MyIngress.ipv4_lpm", (E.Lpm(prefix, plen),),
                                         E.ActionCall("MyIngress.ipv4_forward",
                                                      {"dstAddr": mac, "port": port})))
    for port, f in frames[:50]:
        if target.process(f, port) != hand.process(f, port):
            raise TrainetError("benchmark self-check failed: the native backend and the "
                               "hand-written C forward a frame differently")
    repeat = max(packets // len(frames), 1)
    total = repeat * len(frames)
    best = {"native": float("inf"), "c": float("inf")}
    for _ in range(ROUNDS):
        for name, run in (("native", target), ("c", hand)):
            t0 = time.perf_counter()
            sent = run.process_batch(frames, repeat)
            best[name] = min(best[name], time.perf_counter() - t0)
            if sent != total:
                raise TrainetError(f"benchmark self-check failed: {name} sent {sent} of "
                                   f"{total} frames")
    result = {"native": total / best["native"], "c": total / best["c"]}
    if ina is not None:
        programmed, ina_frames = ina
        targets = [programmed(NativeTarget) for _ in range(3)]
        result["ina"] = len(ina_frames) / _fastest(
            lambda: targets.pop().process_batch(ina_frames), rounds=3)
    return result
