"""``trainet model measure``: a bandwidth table measured on the emulated fabric.

The fabric of a topology or experiment file is brought up as ``trainet run`` brings it
up (its links co-scaled by the file's ``scale``), and every worker host runs
hosts/collective_probe.py: the comm layer's all-reduce, all-gather and reduce-scatter
(the code the strategies run, over gloo) over every regular group placement of the
ranks, each group of a placement at once, at a few nominal payloads (``scale`` times
that emulated, fp32 zeros as shadow workers send), in steady state (back to back after
an untimed one, see the probe). A point is the median over the rounds of the slowest
rank's time per collective; each placement and collective's points become an entry of
testbed/model/measured.py's table (latency and bus bandwidth fitted by least squares).

Regular placements of ``W`` ranks are every ``size x stride`` with ``size > 1`` and
``size x stride`` dividing ``W``: the only ones the strategies declare (row, column,
depth, data and batch groups of AxoNN's grids, Megatron's TP and DP groups), each group
of ``size`` ranks ``stride`` apart in launch order, rank ``i`` on the ``i``-th worker.
"""
from __future__ import annotations

import json
import os
import random
import statistics
import sys
from pathlib import Path

from hosts.collective_probe import OPS, key
from hosts.collectives.timing import Placement
from testbed.errors import TrainetError
from testbed.model.measured import BandwidthTable, fit_entry
from testbed.net.host_programs import run_json
from testbed.units import parse_size

REPO = Path(__file__).resolve().parents[2]
DEFAULT_SIZES = ("64MiB", "256MiB", "1GiB")      # nominal; axonn.yaml's span 150 MB-1.2 GB
BYTES_PER_ELEMENT = 4                             # fp32, as shadow workers send


def placements(world: int) -> list[tuple[int, int]]:
    """Every regular placement of ``world`` ranks (see the module's docstring)."""
    return [(size, stride) for size in range(2, world + 1) if world % size == 0
            for stride in range(1, world // size + 1) if (world // size) % stride == 0]


def fabric_of(path: str):
    """(topology with its co-scaling, worker hosts in launch order) of a topology or
    experiment file."""
    from testbed.model.fabric import fabric_topology, is_experiment, read_fabric_file
    if is_experiment(read_fabric_file(path)):
        from testbed.experiment.spec import load_experiment
        experiment = load_experiment(path)
        return experiment.topology, experiment.workers
    topology = fabric_topology(path)
    return topology, [h.name for h in topology.hosts if h.role == "worker"]


def describe(size: int, stride: int, hosts: list[str]) -> str:
    """The placement on the fabric: its first group's hosts and how many run at once."""
    groups = Placement(size, stride).groups(len(hosts))
    return f"{','.join(hosts[r] for r in groups[0])} and {len(groups) - 1} more at once"


def points_of(outputs: dict, size: int, stride: int, op: str, elements: list[int],
              scale: float) -> list[tuple[float, float]]:
    """(nominal bytes, seconds) per element count: the median over the rounds of the
    slowest rank's time."""
    out = []
    for n in elements:
        n = max(size, n // size * size)
        rounds = zip(*(o["times_s"][key(size, stride, op, n)] for o in outputs.values()))
        slowest = [max(r) for r in rounds]
        out.append((n * BYTES_PER_ELEMENT / scale, statistics.median(slowest)))
    return out


def run_probes(net, hosts: list[str], plan: dict, timeout_s: float) -> dict:
    """hosts/collective_probe.py on every host at once; host -> its JSON line."""
    port = random.randint(20000, 29999)
    master = f"{net.net[hosts[0]].IP()}:{port}"
    commands = {h: [sys.executable, "-m", "hosts.collective_probe", "--rank", str(rank),
                    "--world", str(len(hosts)), "--master", master, "--plan", json.dumps(plan)]
                for rank, h in enumerate(hosts)}
    return run_json(net, commands, timeout_s, hint="give fewer --sizes or --rounds")


def measure(path: str, world: int | None, sizes: list[float], rounds: int, repeat: int,
            out_dir: Path, log=print, timeout_s: float = 900) -> BandwidthTable:
    from testbed.net.network import Network
    from testbed.net.topology import blueprint_from_topology
    topology, workers = fabric_of(path)
    world = world or len(workers)
    if not 2 <= world <= len(workers):
        raise TrainetError(f"--gpus {world}: {path} has {len(workers)} worker hosts; give "
                           f"2 to {len(workers)} ranks")
    if rounds < 1 or repeat < 1:
        raise TrainetError(f"--rounds {rounds} --repeat {repeat}: give 1 or more of each")
    hosts, scale = workers[:world], topology.scale
    elements = [max(1, round(s * scale / BYTES_PER_ELEMENT)) for s in sizes]
    kinds = placements(world)
    plan = {"placements": kinds, "ops": list(OPS), "elements": elements, "rounds": rounds,
            "repeat": repeat}
    log(f"measuring {len(kinds)} placements x {len(OPS)} collectives x {len(sizes)} sizes "
        f"on {world} workers of {path} (co-scaling {scale:g}) ...")
    with Network(blueprint_from_topology(topology, path), out_dir, log=log) as net:
        outputs = run_probes(net, hosts, plan, timeout_s)
    entries = {}
    for size, stride in kinds:
        for op in OPS:
            e = fit_entry(op, size, stride, points_of(outputs, size, stride, op, elements,
                                                     scale), describe(size, stride, hosts))
            entries[BandwidthTable.key(op, size, stride)] = e
    return BandwidthTable(str(path), tuple(hosts), scale, entries, source=str(path))


def print_table(table: BandwidthTable) -> None:
    print(f"{'placement':<10}{'collective':<16}{'latency':>10}{'bus bandwidth':>16}  "
          f"points (nominal size: time)  groups")
    for e in table.entries.values():
        points = ", ".join(f"{b / 2**20:.0f}MiB: {t * 1e3:.1f}ms" for b, t in e.points)
        print(f"{e.size}x{e.stride:<8}{e.op:<16}{e.latency_s * 1e3:>8.2f}ms"
              f"{e.bandwidth_Bps * 8 / 1e9:>11.1f} Gb/s  {points}  {e.groups}")


def main(args) -> int:
    if os.geteuid() != 0:
        raise TrainetError("trainet model measure brings up the emulated fabric (Mininet): "
                           "run it as root")
    sizes = [parse_size(s) for s in (args.sizes or DEFAULT_SIZES)]
    out_dir = Path(args.output).with_suffix("")
    table = measure(args.fabric, args.world, sizes, args.rounds, args.repeat,
                    out_dir.parent / (out_dir.name + "-net"))
    table.save(Path(args.output))
    print_table(table)
    print(f"written to {args.output}; use it with --bandwidth-table {args.output}")
    return 0
