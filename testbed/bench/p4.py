"""``trainet bench p4``: pipeline-only packet rate of the P4 target.

The P4 program is p4/basic.p4 (IPv4 LPM forwarding, TTL decrement, checksum verify and
update) with 1000 LPM entries. The same-run baseline is a hand-written Python forwarder
doing the same work on the same packets (struct parse, per-prefix-length dict lookup,
TTL decrement, checksum, rebuild), so the ratio says what the generality of the P4
pipeline costs on this machine, whatever its speed. The pipelines take turns in chunks
of 500 packets and each rate is that of its fastest chunk (wall clock), which filters
out interference from other processes on a shared machine. When p4/ina.p4 is present,
its aggregation path is measured too: 4 workers contribute 32-lane gradient packets, every 4th packet completes
a slot and is multicast back to the 4 workers.

The INA job is set up by ``controllers.ina``, as on a real switch.

When the native backend loads (a C compiler is present), basic.p4 and the INA program
run on it too, next to basic.p4 written by hand in C (``p4_native``).
"""
from __future__ import annotations

import json
import struct
import time
from pathlib import Path

from testbed.errors import TrainetError
from testbed.p4 import entries as E
from controllers.jobs import TargetDevice

REPO = Path(__file__).resolve().parents[2]
BASIC = REPO / "p4" / "basic.p4"
INA = REPO / "p4" / "ina.p4"
N_ROUTES = 1000
N_FRAMES = 1000
CHUNK = 500


def _routes() -> list:
    """(prefix, prefix_len, port, next-hop MAC): 1000 routes of mixed prefix lengths."""
    routes = []
    for i in range(N_ROUTES - 20):
        routes.append(((10 << 24) | (i << 8), 24, i % 8, 0x020000000000 + i))
    for i in range(16):
        routes.append(((172 << 24) | ((16 + i) << 16), 16, i % 8, 0x020000100000 + i))
    for i in range(4):
        routes.append(((20 + i) << 24, 8, i, 0x020000200000 + i))
    return routes


def _frames() -> list:
    """UDP/IPv4 frames of 100 bytes to destinations spread over the routes."""
    frames = []
    for i in range(N_FRAMES):
        if i % 10 == 9:
            dst = (172 << 24) | ((16 + i % 16) << 16) | i
        else:
            dst = (10 << 24) | ((i % (N_ROUTES - 20)) << 8) | 7
        payload = bytes(58)
        udp = struct.pack("!HHHH", 4000, 5000, 8 + len(payload), 0) + payload
        ip = bytearray(struct.pack("!BBHHHBBH4sI", 0x45, 0, 20 + len(udp), i, 0, 64, 17, 0,
                                   bytes([192, 168, 0, 1]), dst))
        ip[10:12] = struct.pack("!H", _checksum(bytes(ip)))
        eth = bytes.fromhex("00aabbccddee") + bytes.fromhex("001122334455") + b"\x08\x00"
        frames.append(eth + bytes(ip) + udp)
    return frames


def _checksum(header: bytes) -> int:
    s = sum(struct.unpack(f"!{len(header) // 2}H", header))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


class Baseline:
    """Hand-written IPv4 forwarder: what a Python program specialised to the task does.

    It drops what basic.p4 would not (non-IPv4 frames, bad checksums); the benchmark
    frames contain neither, and the self-check compares the outputs."""

    def __init__(self, routes: list):
        by_len = {}
        for prefix, plen, port, mac in routes:
            by_len.setdefault(plen, {})[prefix] = (port, mac.to_bytes(6, "big"))
        self.tables = [(0xFFFFFFFF ^ ((1 << (32 - p)) - 1), by_len[p])
                       for p in sorted(by_len, reverse=True)]

    def process(self, frame: bytes, port: int) -> list:
        if frame[12:14] != b"\x08\x00" or len(frame) < 34:
            return []
        ip = frame[14:34]
        if _checksum(ip) != 0:
            return []
        dst = int.from_bytes(ip[16:20], "big")
        for mask, table in self.tables:
            hit = table.get(dst & mask)
            if hit is not None:
                break
        else:
            return []
        out_port, mac = hit
        ip = bytearray(ip)
        ip[8] = (ip[8] - 1) & 0xFF
        ip[10:12] = b"\0\0"
        ip[10:12] = _checksum(bytes(ip)).to_bytes(2, "big")
        return [(out_port, mac + frame[0:6] + frame[12:14] + bytes(ip) + frame[34:])]


def _best_rates(runs: list, packets: int) -> list:
    """Packets/s of each (process, frames) in ``runs``: every run handles ``packets``
    frames in chunks of CHUNK, the runs taking turns chunk by chunk, and the rate is
    that of the fastest chunk -- the speed of one core when no other process preempts
    it, which a loaded machine otherwise hides."""
    best = [float("inf")] * len(runs)
    for start in range(0, packets, CHUNK):
        for k, (process, frames) in enumerate(runs):
            n = len(frames)
            count = min(CHUNK, packets - start)
            t0 = time.perf_counter()
            for i in range(start, start + count):
                port, frame = frames[i % n]
                process(frame, port)
            best[k] = min(best[k], (time.perf_counter() - t0) / count)
    return [1.0 / b for b in best]


def _basic(packets: int) -> tuple:
    from testbed.p4.lowering.program import load_program
    from testbed.p4.python.target import Target

    if not BASIC.exists():
        raise TrainetError(f"{BASIC}: the benchmark program is missing; restore p4/basic.p4")
    routes = _routes()
    target = Target(load_program(str(BASIC)))
    for prefix, plen, port, mac in routes:
        target.table_insert(E.TableEntry("MyIngress.ipv4_lpm", (E.Lpm(prefix, plen),),
                                         E.ActionCall("MyIngress.ipv4_forward",
                                                      {"dstAddr": mac, "port": port})))
    frames = [(1, f) for f in _frames()]
    baseline = Baseline(routes)
    for _, f in frames[:50]:
        if target.process(f, 1) != baseline.process(f, 1):
            raise TrainetError("benchmark self-check failed: the P4 target and the baseline "
                               "forward a frame differently")
    return (target.process, frames), (baseline.process, frames), len(routes)


def _ina(packets: int) -> tuple:
    """(programmed, frames) for p4/ina.p4: ``programmed(Target class)`` is a target
    with the job set up; one frame per packet of the measurement, since the slots
    remember the chunks they have aggregated."""
    import numpy as np

    from controllers import ina as ctl
    from testbed.p4.lowering.program import load_program
    from testbed.p4.python.target import Target
    from testbed.proto import ina

    program = load_program(str(INA))
    n_workers, slots = 4, 64
    workers = [ctl.Worker(w, w + 1, f"08:00:00:00:01:{w + 1:02x}", f"10.0.1.{w + 1}")
               for w in range(n_workers)]
    job = ctl.Job(1, "10.0.255.1", workers, 0, slots)
    lanes = np.arange(ina.LANES, dtype=np.int32)
    frames = []
    for i in range(packets):
        chunk, w = divmod(i, n_workers)
        slot = ina.slot_field(chunk % slots, (chunk // slots) % 2)
        payload = ina.encode(1, w, ina.FLAG_GRADIENT, slot, 0, chunk, lanes)
        frames.append((w + 1, ina.frame(workers[w].mac, "08:00:00:00:ff:00", workers[w].ip,
                                        job.aggregator_ip, payload)))

    def programmed(target_class=Target):
        target = target_class(program)
        ctl.setup(TargetDevice(target), job)
        return target

    check = programmed()
    outs = [check.process(f, p) for p, f in frames[:n_workers]]
    if outs[:-1] != [[]] * (n_workers - 1) or len(outs[-1]) != n_workers:
        raise TrainetError("benchmark self-check failed: p4/ina.p4 did not multicast a "
                           "completed slot to every worker")
    return programmed, frames


def run(packets: int) -> dict:
    p4_run, base_run, n_routes = _basic(packets)
    runs = [p4_run, base_run]
    ina_programmed = None
    if INA.exists():
        ina_programmed, ina_frames = _ina(packets)
        runs.append((ina_programmed().process, ina_frames))
    rates = _best_rates(runs, packets)
    result = {
        "program": str(BASIC.relative_to(REPO)),
        "lpm_entries": n_routes,
        "packets": packets,
        "frame_bytes": len(p4_run[1][0][1]),
        "p4_kpps": round(rates[0] / 1e3, 1),
        "p4_us_per_packet": round(1e6 / rates[0], 2),
        "baseline_kpps": round(rates[1] / 1e3, 1),
        "baseline_us_per_packet": round(1e6 / rates[1], 2),
        "ratio_p4_to_baseline": round(rates[0] / rates[1], 2),
    }
    from testbed.bench import p4_native
    native = p4_native.rates(BASIC, packets, _routes(), p4_run[1],
                             (ina_programmed, ina_frames) if ina_programmed else None)
    if native is not None:
        result["native_kpps"] = round(native["native"] / 1e3, 1)
        result["native_us_per_packet"] = round(1e6 / native["native"], 3)
        result["ratio_native_to_python"] = round(native["native"] / rates[0], 1)
        result["c_kpps"] = round(native["c"] / 1e3, 1)
        result["c_us_per_packet"] = round(1e6 / native["c"], 3)
        result["ratio_native_to_c"] = round(native["native"] / native["c"], 2)
    if len(rates) > 2:
        result["ina"] = {"program": str(INA.relative_to(REPO)), "workers": 4,
                         "frame_bytes": len(runs[2][1][0][1]),
                         "kpps": round(rates[2] / 1e3, 1),
                         "us_per_packet": round(1e6 / rates[2], 2)}
        if native is not None and "ina" in native:
            from testbed.proto.ina import LANES
            result["ina"].update(native_kpps=round(native["ina"] / 1e3, 1),
                                 lanes=LANES,
                                 native_m_elements_per_s=round(native["ina"] * LANES / 1e6, 1),
                                 m_elements_per_s=round(rates[2] * LANES / 1e6, 2))
    return result


def main(args) -> int:
    if args.packets <= 0:
        raise TrainetError(f"--packets {args.packets}: give a positive number of packets")
    result = run(args.packets)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"P4 pipeline benchmark: {result['program']}, {result['lpm_entries']} LPM entries, "
          f"{result['packets']} packets of {result['frame_bytes']} B, "
          f"fastest {CHUNK}-packet chunk")
    print(f"{'pipeline':<28}{'rate':>14}{'per packet':>16}")
    print(f"{'P4 target (v1model)':<28}{result['p4_kpps']:>10.1f} kpps"
          f"{result['p4_us_per_packet']:>13.2f} µs")
    if "native_kpps" in result:
        print(f"{'P4 target, native backend':<28}{result['native_kpps']:>10.1f} kpps"
              f"{result['native_us_per_packet']:>13.3f} µs")
    if "c_kpps" in result:
        print(f"{'hand-written C':<28}{result['c_kpps']:>10.1f} kpps"
              f"{result['c_us_per_packet']:>13.3f} µs")
    print(f"{'hand-written Python':<28}{result['baseline_kpps']:>10.1f} kpps"
          f"{result['baseline_us_per_packet']:>13.2f} µs")
    if "ina" in result:
        ina = result["ina"]
        print(f"{'P4 target, ' + ina['program']:<28}{ina['kpps']:>10.1f} kpps"
              f"{ina['us_per_packet']:>13.2f} µs   ({ina['workers']} workers, "
              f"{ina['frame_bytes']} B gradient packets in)")
        if "native_kpps" in ina:
            print(f"{'  native backend':<28}{ina['native_kpps']:>10.1f} kpps"
                  f"{1e3 / ina['native_kpps']:>13.3f} µs")
            print(f"INA aggregation ({ina['lanes']} lanes a packet): python "
                  f"{ina['m_elements_per_s']:.2f} M elements/s, native "
                  f"{ina['native_m_elements_per_s']:.1f} M elements/s")
    print(f"P4 target / hand-written (basic.p4): {result['ratio_p4_to_baseline']:.2f}x")
    if "native_kpps" in result:
        print(f"native / python backend (basic.p4): {result['ratio_native_to_python']:.1f}x")
        print(f"native backend / hand-written C (basic.p4): {result['ratio_native_to_c']:.2f}x")
    return 0
