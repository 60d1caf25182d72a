"""``trainet inspect``: what the in-network aggregation protocol did, read from captures.

Input: pcap files, typically the software switch's ``<iface>_in.pcap`` / ``_out.pcap``.
Ethernet, IPv4 and UDP are read with ``struct``; the INA header with the scapy layer of
:mod:`testbed.proto.ina` (only the 13 header bytes: dissecting the lanes with scapy
would cost ten times as much and the summary does not need them). A packet of any
whole number of lane groups counts; one whose header's group count is not its
length's is malformed, as the switch drops it.

The same packet is often captured twice, e.g. on the switch's ingress port and on a host.
A *transmission* is therefore identified by (kind, job, worker, chunk, flags, source,
destination) and by how many times that identity occurred before in the same file: the
n-th occurrence in one file and the n-th in another are the same transmission, seen at
the earliest of its timestamps. Over transmissions:

- retransmissions: gradients carrying FLAG_RETRANSMIT (the worker's timer fired);
- duplicates: a gradient of a (job, worker, chunk) already sent, without the retransmit
  flag (the network copied it), and a result of a (job, chunk) sent again to the same
  destination (a late original plus the answer to a retransmission);
- completion latency of a round (job, chunk): first gradient to first result; with
  ``--worker`` the worker's own first gradient to the first result addressed to it.

A result's ``worker_id`` is that of the worker that completed the slot, so results are
attributed to a worker by destination address, learnt from the source of its gradients.
"""
from __future__ import annotations

import json
import socket
import statistics
import struct
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from testbed.errors import TrainetError
from testbed.proto import ina
from testbed.units import format_duration, format_rate, format_size

ETH_IPV4 = 0x0800
ETH_VLAN = 0x8100
PROTO_UDP = 17


@dataclass(frozen=True)
class InaPacket:
    file: str
    time_s: float
    src: str
    dst: str
    job: int
    worker: int
    flags: int
    slot: int
    chunk: int
    wire_bytes: int

    @property
    def is_result(self) -> bool:
        return bool(self.flags & (ina.FLAG_RESULT | ina.FLAG_PARAMS))   # LuWu: parameters

    @property
    def is_retransmit(self) -> bool:
        return bool(self.flags & ina.FLAG_RETRANSMIT) and not self.is_result


@dataclass
class CaptureStats:
    """Traffic of one capture file, i.e. one interface in one direction."""

    file: str
    interface: str
    direction: str | None             # "in", "out" (switch captures) or None
    frames: int = 0
    wire_bytes: int = 0
    ina_frames: int = 0
    ina_bytes: int = 0
    malformed: int = 0                # to the INA port, but not a whole INA payload
    first_s: float | None = None
    last_s: float | None = None

    @property
    def duration_s(self) -> float:
        return (self.last_s - self.first_s) if self.first_s is not None else 0.0

    def as_dict(self) -> dict:
        rate = self.wire_bytes * 8 / self.duration_s if self.duration_s > 0 else None
        return {"file": self.file, "interface": self.interface, "direction": self.direction,
                "frames": self.frames, "bytes": self.wire_bytes, "ina_frames": self.ina_frames,
                "ina_bytes": self.ina_bytes, "malformed": self.malformed,
                "duration_s": self.duration_s, "mean_rate_bps": rate}


def _interface_of(path: Path) -> tuple[str, str | None]:
    stem = path.stem
    for direction in ("in", "out"):
        if stem.endswith(f"_{direction}"):
            return stem[: -len(direction) - 1], direction
    return stem, None


def _udp_payload(frame: bytes) -> tuple[str, str, int, bytes] | None:
    """(source, destination, destination port, payload) of an Ethernet/IPv4/UDP frame."""
    offset = 12
    ethertype = int.from_bytes(frame[offset:offset + 2], "big")
    while ethertype == ETH_VLAN and len(frame) >= offset + 6:
        offset += 4
        ethertype = int.from_bytes(frame[offset:offset + 2], "big")
    offset += 2
    if ethertype != ETH_IPV4 or len(frame) < offset + 20:
        return None
    ihl = (frame[offset] & 0x0F) * 4
    if frame[offset + 9] != PROTO_UDP or len(frame) < offset + ihl + 8:
        return None
    src = socket.inet_ntoa(frame[offset + 12:offset + 16])
    dst = socket.inet_ntoa(frame[offset + 16:offset + 20])
    udp = offset + ihl
    dport, length = struct.unpack_from("!2xHH", frame, udp)
    return src, dst, dport, frame[udp + 8:udp + max(length, 8)]


def read_capture(path: str | Path) -> tuple[CaptureStats, list[InaPacket]]:
    from scapy.error import Scapy_Exception
    from scapy.utils import RawPcapReader

    path = Path(path)
    interface, direction = _interface_of(path)
    stats = CaptureStats(str(path), interface, direction)
    packets: list[InaPacket] = []
    try:
        reader = RawPcapReader(str(path))
    except FileNotFoundError:
        raise TrainetError(f"{path}: no such capture file") from None
    except (Scapy_Exception, OSError) as err:
        raise TrainetError(f"{path}: not a pcap or pcapng capture ({err}); give a file "
                           "written by the switch's --pcap or by tcpdump -w") from None
    with reader:
        for data, meta in reader:
            t = _timestamp(meta)
            wire = getattr(meta, "wirelen", None) or len(data)
            stats.frames += 1
            stats.wire_bytes += wire
            stats.first_s = t if stats.first_s is None else min(stats.first_s, t)
            stats.last_s = t if stats.last_s is None else max(stats.last_s, t)
            udp = _udp_payload(data)
            if udp is None or udp[2] != ina.UDP_PORT:
                continue
            src, dst, _, payload = udp
            # a packet of any lane count, or a header (LuWu: pulls), its group count its own
            words = 0 if len(payload) == ina.HEADER_BYTES else ina.lanes_of_payload(len(payload))
            header = ina.INA(payload[:ina.HEADER_BYTES]) if words is not None else None
            if header is None or header.groups != ina.groups_of(words):
                stats.malformed += 1
                continue
            stats.ina_frames += 1
            stats.ina_bytes += wire
            packets.append(InaPacket(str(path), t, src, dst, header.job_id, header.worker_id,
                                     header.flags, header.slot, header.chunk, wire))
    return stats, packets


def _timestamp(meta) -> float:
    if hasattr(meta, "sec"):                     # classic pcap
        return meta.sec + meta.usec / 1e6
    high, low, resolution = meta.tshigh, meta.tslow, meta.tsresol   # pcapng
    return ((high << 32) | low) / resolution


@dataclass
class _Round:
    """One use of a slot: the chunk ``chunk`` of job ``job``."""
    slot: int
    first_gradient_s: dict = field(default_factory=dict)   # worker -> time
    first_result_s: dict = field(default_factory=dict)     # destination -> time


@dataclass
class _Tally:
    gradients: int = 0
    results: int = 0
    retransmissions: int = 0
    duplicates: int = 0
    bytes: int = 0
    latencies_s: list = field(default_factory=list)
    rounds: int = 0
    incomplete: int = 0

    def as_dict(self) -> dict:
        lat = sorted(self.latencies_s)
        latency = None
        if lat:
            latency = {"mean": statistics.fmean(lat), "p50": statistics.median(lat),
                       "p99": lat[min(len(lat) - 1, int(len(lat) * 0.99))], "max": lat[-1]}
        return {"rounds": self.rounds, "incomplete_rounds": self.incomplete,
                "gradients": self.gradients, "results": self.results,
                "retransmissions": self.retransmissions, "duplicates": self.duplicates,
                "bytes": self.bytes, "latency_s": latency}


def transmissions(packets: list[InaPacket]) -> list[InaPacket]:
    """One packet per transmission (see the module docstring), in time order."""
    seen_in_file: Counter = Counter()
    first: dict = {}
    for p in sorted(packets, key=lambda p: p.time_s):
        identity = (p.is_result, p.job, p.worker, p.chunk, p.flags, p.src, p.dst)
        n = seen_in_file[(p.file, identity)]
        seen_in_file[(p.file, identity)] += 1
        if (identity, n) not in first:
            first[(identity, n)] = p
    return sorted(first.values(), key=lambda p: p.time_s)


def summarize(captures: list[tuple[CaptureStats, list[InaPacket]]], job: int | None = None,
              worker: int | None = None) -> dict:
    """The summary ``trainet inspect --json`` prints."""
    everything = [p for _, packets in captures for p in packets]
    sent = transmissions(everything)
    address_of = {}                                   # (job, worker) -> source address
    for p in sent:
        if not p.is_result:
            address_of.setdefault((p.job, p.worker), p.src)
    worker_at = {(j, a): w for (j, w), a in address_of.items()}

    jobs: dict = defaultdict(lambda: {"tally": _Tally(), "slots": defaultdict(_Tally),
                                      "workers": set(), "rounds": {}})
    sent_gradient: set = set()
    got_result: set = set()
    for p in sent:
        if job is not None and p.job != job:
            continue
        w = worker_at.get((p.job, p.dst)) if p.is_result else p.worker
        if worker is not None and w != worker:
            continue
        j = jobs[p.job]
        if not p.is_result:
            j["workers"].add(p.worker)
        index = p.slot & ina.MAX_SLOTS
        tallies = (j["tally"], j["slots"][index])
        rnd = j["rounds"].setdefault(p.chunk, _Round(index))
        for t in tallies:
            t.bytes += p.wire_bytes
        if p.is_result:
            key = (p.job, p.chunk, p.dst)
            duplicate = key in got_result
            got_result.add(key)
            rnd.first_result_s.setdefault(p.dst, p.time_s)
            for t in tallies:
                t.results += 1
                t.duplicates += duplicate
        else:
            key = (p.job, p.worker, p.chunk)
            duplicate = key in sent_gradient and not p.is_retransmit
            sent_gradient.add(key)
            rnd.first_gradient_s.setdefault(p.worker, p.time_s)
            for t in tallies:
                t.gradients += 1
                t.retransmissions += p.is_retransmit
                t.duplicates += duplicate
    out_jobs = []
    for job_id in sorted(jobs):
        j = jobs[job_id]
        for rnd in j["rounds"].values():
            tallies = (j["tally"], j["slots"][rnd.slot])
            latency = _latency(rnd)
            for t in tallies:
                t.rounds += 1
                if latency is None:
                    t.incomplete += 1
                else:
                    t.latencies_s.append(latency)
        out_jobs.append({"job": job_id, "workers": sorted(j["workers"]),
                         **j["tally"].as_dict(),
                         "slots": [{"slot": s, **j["slots"][s].as_dict()}
                                   for s in sorted(j["slots"])]})
    stats = [s for s, _ in captures]
    return {"filters": {"job": job, "worker": worker},
            "captures": [s.as_dict() for s in stats],
            "malformed": sum(s.malformed for s in stats),
            "jobs": out_jobs}


def _latency(rnd: _Round) -> float | None:
    if not rnd.first_gradient_s or not rnd.first_result_s:
        return None
    return min(rnd.first_result_s.values()) - min(rnd.first_gradient_s.values())


def _latency_text(latency: dict | None) -> str:
    if latency is None:
        return "-"
    return (f"{format_duration(latency['mean'])} mean, {format_duration(latency['p50'])} p50,"
            f" {format_duration(latency['max'])} max")


def render(summary: dict, slots: bool = True) -> str:
    from testbed.net.commands import table
    lines = []
    links = [[c["interface"], c["direction"] or "-", str(c["frames"]),
              format_size(c["bytes"]), str(c["ina_frames"]), format_size(c["ina_bytes"]),
              format_duration(c["duration_s"]),
              format_rate(c["mean_rate_bps"]) if c["mean_rate_bps"] else "-"]
             for c in summary["captures"]]
    lines += ["bytes per link (capture file):",
              table(links, ["interface", "dir", "frames", "bytes", "INA frames", "INA bytes",
                            "span", "mean rate"]), ""]
    if summary["malformed"]:
        lines += [f"{summary['malformed']} packet(s) to UDP port {ina.UDP_PORT} were not "
                  f"INA payloads ({ina.HEADER_BYTES} B and 4 B a lane, the header counting "
                  f"its {ina.GROUP_WORDS}-lane groups) or {ina.HEADER_BYTES} B headers "
                  "(the switch drops them)", ""]
    filters = ", ".join(f"{k} {v}" for k, v in summary["filters"].items() if v is not None)
    if not summary["jobs"]:
        lines.append("no INA packets" + (f" for {filters}" if filters else ""))
        return "\n".join(lines)
    for j in summary["jobs"]:
        lines.append(f"job {j['job']}{' (' + filters + ')' if filters else ''}: workers "
                     f"{', '.join(map(str, j['workers'])) or '-'}; {j['rounds']} rounds "
                     f"({j['incomplete_rounds']} without a result), {j['gradients']} "
                     f"gradient and {j['results']} result packets, "
                     f"{j['retransmissions']} retransmissions, {j['duplicates']} duplicates, "
                     f"{format_size(j['bytes'])}; completion latency "
                     f"{_latency_text(j['latency_s'])}")
        if slots:
            rows = [[str(s["slot"]), str(s["rounds"]), str(s["incomplete_rounds"]),
                     str(s["gradients"]), str(s["results"]), str(s["retransmissions"]),
                     str(s["duplicates"]), _latency_text(s["latency_s"])]
                    for s in j["slots"]]
            lines += [table(rows, ["slot", "rounds", "no result", "gradients", "results",
                                   "retransmits", "duplicates", "completion latency"]), ""]
    return "\n".join(lines).rstrip()


def main(args) -> int:
    captures = [read_capture(path) for path in args.captures]
    summary = summarize(captures, job=args.job, worker=args.worker)
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(render(summary))
    return 0
