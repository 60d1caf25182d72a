"""Helpers of the INA tests on emulated fabrics: a two-level topology (racks under a spine)
with its jobs and host commands, and reordering on a running switch."""
from __future__ import annotations

import sys
import time

from controllers import ina as ctl
from testbed.errors import TrainetError
from testbed.bench.allreduce import INA_P4
from testbed.experiment.jobs import job_workers
from testbed.net.topology import blueprint_from_topology
from testbed.topology.routing import switch_mac
from testbed.topology.spec import Topology

SPINE_AGGREGATOR = "10.0.255.1"       # the spine's aggregator, outside every rack's subnet
SPINE_JOB = 100


def two_level_topology(racks: int, per_rack: int, bw: str, scale: float,
                       loss_pct: float = 0.0, delay: str | None = None) -> Topology:
    """Rack switches r1..rK (hosts hRW on ports 1.., the spine on port 9) under the spine
    s<K+1> (rack r on port r; Mininet wants a digit in every switch name). Hosts of rack
    r live in 10.0.r.0/24 (group rack: rR); the rack switch's gateway address 10.0.r.254
    is also its aggregator address."""
    link = {"bw": bw, **({"loss": loss_pct} if loss_pct else {}),
            **({"delay": delay} if delay else {})}
    hosts, links = [], []
    for r in range(1, racks + 1):
        for w in range(per_rack):
            name = f"h{r}{w}"
            hosts.append({"name": name, "ip": f"10.0.{r}.{w + 1}/24",
                          "mac": f"08:00:00:00:{r:02x}:{w + 1:02x}", "groups": {"rack": f"r{r}"},
                          "gateway": f"10.0.{r}.254", "gateway_mac": switch_mac(r - 1)})
            links.append({"a": name, "b": f"r{r}-p{w + 1}", **link})
        links.append({"a": f"r{r}-p9", "b": f"s{racks + 1}-p{r}", **link})
    return Topology.from_data({
        "name": f"ina-2level-{racks}x{per_rack}", "scale": scale, "program": str(INA_P4),
        "routing": "shortest-path", "hosts": hosts,
        "switches": [{"name": f"r{r}"} for r in range(1, racks + 1)]
        + [{"name": f"s{racks + 1}"}],
        "links": links})


def _uplink(topo: Topology, rack: str, spine: str) -> tuple[int, int]:
    """(port on the rack switch, port on the spine) of the link between them."""
    for link in topo.links:
        ends = {e.node: e.port for e in topo.endpoints(link)}
        if set(ends) == {rack, spine}:
            return ends[rack], ends[spine]
    raise AssertionError(f"no link between {rack} and {spine}")


def two_level_jobs(topo: Topology, slots: int) -> dict:
    """Switch name -> (job, extra /32 routes (ip, mac, port)), read from ``topo``: rack
    job r aggregates its rack's hosts at their gateway and sends each sum to the spine job
    as its worker r - 1; the spine multicasts to the rack switches."""
    names = [s.name for s in topo.switches]
    spine, racks = names[-1], names[:-1]
    plan = blueprint_from_topology(topo)
    out, spine_workers = {}, []
    for r, rack in enumerate(racks):
        hosts = topo.group("rack", rack)
        aggregator = str(topo.host(hosts[0]).gateway)
        uplink, spine_port = _uplink(topo, rack, spine)
        out[rack] = (ctl.Job(r + 1, aggregator, job_workers(plan, rack, hosts), 0, slots,
                             upstream=ctl.Upstream(SPINE_AGGREGATOR, SPINE_JOB, r)),
                     [(SPINE_AGGREGATOR, switch_mac(names.index(spine)), uplink)])
        spine_workers.append(ctl.Worker(r, spine_port, switch_mac(names.index(rack)),
                                        aggregator))
    out[spine] = (ctl.Job(SPINE_JOB, SPINE_AGGREGATOR, spine_workers, 0, slots),
                  [(w.ip, w.mac, w.port) for w in spine_workers])
    return out


def two_level_commands(topo: Topology, jobs: dict, elements: int, rounds: int,
                       seed: int = 0, check: bool = False) -> dict:
    """Each host runs the all-reduce in its rack's job; ranks count across racks."""
    rack_jobs = [(rack, job) for rack, (job, _) in jobs.items() if job.upstream is not None]
    total = sum(len(job.workers) for _, job in rack_jobs)
    out, rank = {}, 0
    for rack, job in rack_jobs:
        for w, host in enumerate(topo.group("rack", rack)):
            out[host] = [sys.executable, "-m", "hosts.ina_allreduce", "--job", str(job.job_id),
                         "--worker", str(w), "--rank", str(rank), "--workers", str(total),
                         "--aggregator", job.aggregator_ip, "--elements", str(elements),
                         "--rounds", str(rounds), "--slots", str(job.slot_count),
                         "--seed", str(seed)] + (["--check"] if check else [])
            rank += 1
    return out


def add_reordering(net, switch: str, fraction: float) -> None:
    """Make every egress port of ``switch`` reorder ``fraction`` of its packets (they skip
    the delay line, so the ports need a delay). Topology specs have no reordering field,
    so this restarts the switch process with it and reinstalls its runtime config; set
    jobs up afterwards."""
    from controllers.runtime_config import program_switch
    from testbed.net.nodes import READY_TIMEOUT_S
    node = net.net[switch]
    spec = next(s for s in net.blueprint.switches if s.name == switch)
    for port in node.data_ports():
        shape = node.shapes.get(port, "")
        if "delay=" not in shape:
            raise TrainetError(f"{switch} port {port}: reordering needs a link delay; give "
                               "the links a delay (e.g. delay: 1ms)")
        node.shapes[port] = f"{shape},reorder={fraction * 100:g}%"
    node.stop_process()
    node.start(None)
    node.wait_ready(time.monotonic() + READY_TIMEOUT_S)
    net.state.switches[switch] = node.process.pid
    net.state.save()
    program_switch(node.grpc_address, spec.p4, net.runtime_configs[switch], spec.device_id,
                   p4info=net.p4infos[spec.p4])
