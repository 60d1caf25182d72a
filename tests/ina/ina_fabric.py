"""An in-process fabric for INA tests: Targets running p4/ina.p4 wired to worker
protocol state machines, with seeded loss and reordering, in virtual time.

Frames move one at a time; time advances only when nothing is in flight, to the next
retransmission deadline, so runs are deterministic and fast.
"""
from __future__ import annotations

import functools
import random
from dataclasses import dataclass, field
from pathlib import Path

from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from controllers import ina as ctl
from controllers.jobs import TargetDevice
from hosts.ina_session import Exchange
from testbed.proto import ina
from testbed.topology.routing import route_entry

REPO = Path(__file__).resolve().parents[2]
INA_P4 = REPO / "p4" / "ina.p4"
SWITCH_MAC = "08:00:00:00:ff:00"


# lanes of a 4096 B MTU (the roce-100g profile's): the larger count the tests add
JUMBO_LANES = ina.lanes_for_mtu(4096)


@functools.lru_cache(maxsize=None)
def load_ina_program(lanes: int = ina.LANES):
    """p4/ina.p4, or the program rendered from its template for ``lanes`` words."""
    from testbed.p4.lowering.program import load_program, load_source
    if lanes == ina.LANES:
        return load_program(str(INA_P4))
    from testbed.proto import ina_p4
    return load_source(ina_p4.render(lanes), filename=f"ina{lanes}.p4")


def new_target(program, backend: str = "python"):
    from testbed.p4.targets import make_target
    return make_target(program, backend)


def worker_ip(rack: int, w: int) -> str:
    return f"10.0.{rack}.{w + 1}"


def worker_mac(rack: int, w: int) -> str:
    return f"08:00:00:00:{rack:02x}:{w + 1:02x}"


def route(target, ip: str, mac: str, port: int) -> None:
    target.table_insert(route_entry(ip, mac, port))


def route_to_workers(target, job) -> None:
    """/32 routes from the switch back to each of ``job``'s workers."""
    for x in job.workers:
        route(target, x.ip, x.mac, x.port)


def single_switch_job(target, job_id=1, n_workers=3, slot_base=0, slot_count=8, rack=1,
                      aggregator="10.0.255.1", lanes=ina.LANES) -> ctl.Job:
    """Set up a job whose worker w sits on port ``w + 1`` (+ routes back to each worker)."""
    workers = [ctl.Worker(w, w + 1 + 8 * (rack - 1), worker_mac(rack, w), worker_ip(rack, w))
               for w in range(n_workers)]
    job = ctl.Job(job_id, aggregator, workers, slot_base, slot_count, lanes=lanes)
    ctl.setup(TargetDevice(target), job)
    route_to_workers(target, job)
    return job


@dataclass
class WorkerNode:
    ip: str
    mac: str
    aggregator: str
    exchange: Exchange | None = None
    received: list = field(default_factory=list)    # every payload delivered to it


class Fabric:
    """Nodes are Targets (by name) and workers (by name); ``links`` joins (node, port)
    pairs both ways; a worker has one port, 0."""

    def __init__(self, loss: float = 0.0, reorder: float = 0.0, seed: int = 1):
        self.targets: dict = {}
        self.workers: dict = {}
        self.peer: dict = {}
        self.loss = loss
        self.reorder = reorder
        self.rng = random.Random(seed)
        self.in_flight: list = []            # (node, port, frame)
        self.now = 0.0
        self.delivered = 0
        self.lost = 0

    def link(self, a: tuple, b: tuple) -> None:
        self.peer[a] = b
        self.peer[b] = a

    def _emit(self, node: str, port: int, frame: bytes) -> None:
        dest = self.peer.get((node, port))
        if dest is not None:
            self.in_flight.append((dest[0], dest[1], frame))

    def send_payloads(self, name: str, payloads) -> None:
        w = self.workers[name]
        for p in payloads:
            self._emit(name, 0, ina.frame(w.mac, SWITCH_MAC, w.ip, w.aggregator, p))

    def step(self) -> None:
        if self.reorder and len(self.in_flight) > 1 and self.rng.random() < self.reorder:
            node, port, frame = self.in_flight.pop(self.rng.randrange(len(self.in_flight)))
        else:
            node, port, frame = self.in_flight.pop(0)
        if self.loss and self.rng.random() < self.loss:
            self.lost += 1
            return
        self.delivered += 1
        if node in self.targets:
            for out_port, out in self.targets[node].process(frame, port):
                self._emit(node, out_port, out)
            return
        w = self.workers[node]
        assert ina.frame_addresses(frame)[1] == w.ip, "result addressed to another worker"
        payload = frame[ina.FRAME_OFFSET:]
        w.received.append(payload)
        if w.exchange is not None:
            self.send_payloads(node, w.exchange.on_payload(payload, self.now))

    def run(self, exchanges: dict, max_steps: int = 2_000_000) -> None:
        """Run one exchange per worker (name -> Exchange) to completion."""
        for name, ex in exchanges.items():
            self.workers[name].exchange = ex
            self.send_payloads(name, ex.start(self.now))
        for _ in range(max_steps):
            if all(ex.done for ex in exchanges.values()):
                return
            if self.in_flight:
                self.step()
                continue
            deadlines = [ex.next_deadline() for ex in exchanges.values() if not ex.done]
            self.now = max(self.now, min(d for d in deadlines if d is not None))
            for name, ex in exchanges.items():
                if not ex.done:
                    self.send_payloads(name, ex.poll(self.now))
        raise AssertionError(f"no completion after {max_steps} steps")


def decoded(out):
    """(port, dst ip, dst mac, header, lanes or None for a header-only packet) of each
    frame out; checks the IPv4 checksum and that the IPv4 and UDP lengths are the frame's."""
    got = []
    for port, frame in out:
        pkt = Ether(frame)
        assert pkt[UDP].dport == ina.UDP_PORT and pkt[UDP].chksum == 0
        fresh = IP(bytes(pkt[IP]))
        del fresh.chksum
        assert IP(bytes(fresh)).chksum == pkt[IP].chksum
        assert pkt[IP].len == len(frame) - 14 and pkt[UDP].len == len(frame) - 34
        payload = frame[ina.FRAME_OFFSET:]
        header, values = ina.decode_any(payload, ina.lanes_of_payload(len(payload)) or ina.LANES)
        got.append((port, pkt[IP].dst, pkt[Ether].dst, header, values))
    return got
