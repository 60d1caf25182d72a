"""``trainet plan``: rank every valid layout of a model on a fabric by predicted step time.

The candidates are every AxoNN grid G_r x G_c x G_d x G_data of the world (strategy
``axonn``) and every Megatron-LM 1D tensor x data layout, TP x DP (strategy
``megatron``, no pipeline), all at the same global batch. Each layout's step is its
strategy's declared pattern (hosts/strategies/pattern.py) timed on the fabric:

* **placement**: rank ``i`` runs on the fabric's ``i``-th GPU (the topology's workers in
  file order, or GPU ``i % g`` of node ``i // g`` of a nominal fabric);
* **bandwidth per group placement**: every group of a kind (all the row groups, say) runs
  its ring at once; each ring hop takes the fabric's path between its two ranks, and a
  link shared by ``k`` of the kind's hops gives each ``1/k`` of its bandwidth. A group's
  bandwidth is its slowest hop's share, the kind's the slowest group's, so groups that
  stay inside a node get the node's bandwidth and groups spread over nodes share NICs;
* **time**: a collective's bytes per rank (:meth:`Collective.per_worker`) over its
  kind's bandwidth, plus a latency per ring step (2 (n-1) for an all-reduce, n-1
  otherwise) of its slowest hop's path;
* **step**: the compute model (``hosts/shadow.py``: 6 P tokens FLOPs at the device's
  peak times the MFU) split over the ranks of a replica, plus the communication that
  cannot hide behind it. For ``axonn`` the depth group's all-gathers and reduce-scatters
  overlap compute (what ``overlap_all_gather`` and ``overlap_reduce_scatter`` do), so
  only what exceeds the compute is exposed; every other collective is exposed.

A nominal fabric is ``gpus`` GPUs in nodes of ``gpus_per_node``: inside a node every GPU
reaches the node's switch at ``intra`` (NVLink-like), and has a NIC of ``inter`` into one
non-blocking core. A topology file is read as it is: its links' bandwidths and delays.
"""
from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass
from pathlib import Path

from hosts import shadow
from hosts.strategies import registry
from hosts.strategies.grid import Grid, fits, grids
from hosts.strategies.layout import ParallelLayout
from hosts.strategies.pattern import Collective
from testbed.errors import TrainetError
from testbed.topology.spec import Topology

OVERLAPPED = {("all-gather", "depth"), ("reduce-scatter", "depth")}


class Fabric:
    """A graph of nodes joined by links (bit/s, one-way delay); ``gpus`` are the nodes that
    run ranks, in rank order."""

    def __init__(self, name: str, gpus: tuple[str, ...], links: dict):
        self.name, self.gpus, self.links = name, gpus, links   # (a, b) -> (bit/s, delay s)
        self._adjacent: dict = {}
        for a, b in links:
            self._adjacent.setdefault(a, []).append(b)
        self._paths: dict = {}

    def first(self, world: int) -> "Fabric":
        """The same fabric with ranks on its first ``world`` GPUs only."""
        fabric = Fabric(self.name, self.gpus[:world], {})
        fabric.links, fabric._adjacent, fabric._paths = self.links, self._adjacent, self._paths
        return fabric

    def path(self, a: str, b: str) -> list[tuple[str, str]]:
        """The hops of a shortest path (fewest links) from ``a`` to ``b``."""
        if (a, b) not in self._paths:
            self._paths[a, b] = self._search(a, b)
        return self._paths[a, b]

    def _search(self, a: str, b: str) -> list[tuple[str, str]]:
        before, queue = {a: None}, deque([a])
        while queue and b not in before:
            node = queue.popleft()
            for nxt in self._adjacent.get(node, ()):
                if nxt not in before:
                    before[nxt] = node
                    queue.append(nxt)
        if b not in before:
            raise TrainetError(f"fabric {self.name}: no path from {a} to {b}; link every "
                               "worker host to the network")
        hops, node = [], b
        while before[node] is not None:
            hops.append((before[node], node))
            node = before[node]
        return hops[::-1]


class NominalFabric(Fabric):
    """Nodes of ``per_node`` GPUs: a GPU reaches its node's switch at ``intra`` and the
    core through its own NIC at ``inter``."""

    def __init__(self, gpus: int, per_node: int, intra_bps: float, inter_bps: float,
                 latency_s: float):
        if gpus < 1 or per_node < 1 or gpus % per_node:
            raise TrainetError(f"nominal fabric: {gpus} GPUs in nodes of {per_node}; give "
                               "a GPU count that is a multiple of --gpus-per-node")
        links = {}
        for g in range(gpus):
            name, node = f"gpu{g}", f"node{g // per_node}"
            for a, b, bps in ((name, node, intra_bps), (name, "core", inter_bps)):
                links[a, b] = links[b, a] = (bps, latency_s)
        super().__init__(f"{gpus} GPUs, {per_node} per node", tuple(f"gpu{g}" for g in
                                                                    range(gpus)), links)
        self.per_node = per_node

    def _search(self, a: str, b: str) -> list[tuple[str, str]]:
        na, nb = (f"node{int(x[3:]) // self.per_node}" for x in (a, b))
        via = na if na == nb else "core"
        return [(a, via), (via, b)]


def topology_fabric(topology: Topology) -> Fabric:
    """The topology's workers and links; an unshaped link counts as 100 Gb/s."""
    links = {}
    for link in topology.links:
        params = topology.link_params(link)
        a, b = (end.node for end in topology.endpoints(link))
        links[a, b] = links[b, a] = (params.bw_bps or 100e9, params.delay_s)
    workers = tuple(h.name for h in topology.hosts if h.role == "worker")
    return Fabric(topology.name, workers, links)


def group_bandwidth(fabric: Fabric, groups: list[list[int]]) -> tuple[float, float]:
    """(bit/s, latency s per ring step) of the slowest of ``groups`` when all run their
    rings at once over ``fabric``."""
    rings = [[(fabric.gpus[g[i]], fabric.gpus[g[(i + 1) % len(g)]]) for i in range(len(g))]
             for g in groups if len(g) > 1]
    paths = {hop: fabric.path(*hop) for ring in rings for hop in ring}
    load = Counter(link for path in paths.values() for link in path)
    worst_bps, worst_latency = float("inf"), 0.0
    for path in paths.values():
        worst_bps = min(worst_bps, min(fabric.links[ln][0] / load[ln] for ln in path))
        worst_latency = max(worst_latency, sum(fabric.links[ln][1] for ln in path))
    return worst_bps, worst_latency


@dataclass(frozen=True)
class Prediction:
    strategy: str
    layout: str
    options: dict
    compute_s: float
    comm_s: float              # every collective, one after another
    exposed_s: float           # what the compute does not hide
    step_s: float
    tflops_per_gpu: float
    bandwidths: dict           # group -> bit/s


def _layout_groups(strategy: str, options: dict, world: int) -> dict[str, list[list[int]]]:
    if strategy == "axonn":
        grid = Grid(options["g_r"], options["g_c"], options["g_d"], options["g_data"])
        kinds = {"row": "row", "column": "column", "depth": "depth", "dp": "data",
                 "batch": "batch"}
        return {k: grid.groups(v) for k, v in kinds.items()}
    layout = ParallelLayout(dp=options["dp"], pp=1, tp=options["tp"])
    return {k: layout.groups(k) for k in ("tp", "dp")}


def candidates(model: shadow.ShadowModel, world: int, batch: int) -> list[tuple[str, dict]]:
    """(strategy, options) of every layout that splits the model and the global batch of
    ``batch`` sequences evenly."""
    hidden = shadow.hidden_size(model)
    out = []
    for g in grids(world):
        replica = batch // g.g_data
        if batch % g.g_data == 0 and replica % g.g_d == 0 and fits(g, hidden) is None:
            out.append(("axonn", {"g_r": g.g_r, "g_c": g.g_c, "g_d": g.g_d,
                                  "g_data": g.g_data}))
    for tp in (n for n in range(1, world + 1) if world % n == 0):
        if batch % (world // tp) == 0 and hidden % tp == 0:
            out.append(("megatron", {"tp": tp, "dp": world // tp, "pp": 1,
                                     "micro_batches": 1}))
    return out


def predict(fabric: Fabric, model: shadow.ShadowModel, strategy: str, options: dict,
            batch: int, device: shadow.Device, mfu: float) -> Prediction:
    world = len(fabric.gpus)
    info = registry.get(strategy)
    parsed = info.parse_options(options)
    replicas = options.get("g_data", options.get("dp"))
    per_replica = batch // replicas
    pattern: list[Collective] = info.collectives(shadow.model_bytes(model.params), world,
                                                 model.layers, options=parsed, model=model,
                                                 batch=per_replica)
    groups = _layout_groups(strategy, options, world)
    bandwidths = {k: group_bandwidth(fabric, v) for k, v in groups.items()
                  if any(len(g) > 1 for g in v)}
    compute = shadow.compute_time_s(model.params, per_replica * model.seq, device, mfu) \
        / (world // replicas)
    total = hidden = 0.0
    for c in pattern:
        bps, latency = bandwidths[c.group]
        steps = 2 * (c.size - 1) if c.op == "all-reduce" else c.size - 1
        seconds = c.per_worker(world)[0] * 8 / bps + steps * latency
        total += seconds
        if (c.op, c.group) in OVERLAPPED:
            hidden += seconds
    exposed = total - hidden + max(0.0, hidden - compute)
    step = compute + exposed
    flops = shadow.step_flops(model.params, batch * model.seq)
    layout = (Grid(**options).describe() if strategy == "axonn"
              else f"tp{options['tp']} x dp{options['dp']}")
    return Prediction(strategy, layout, options, compute, total, exposed, step,
                      flops / world / step / 1e12, {k: v[0] for k, v in bandwidths.items()})


def plan(fabric: Fabric, model: shadow.ShadowModel, world: int, batch: int,
         device: shadow.Device, mfu: float) -> list[Prediction]:
    """Every valid layout's prediction, fastest step first."""
    if len(fabric.gpus) < world:
        raise TrainetError(f"fabric {fabric.name} has {len(fabric.gpus)} worker hosts for "
                           f"{world} ranks; choose a world of at most {len(fabric.gpus)} "
                           "or a fabric with more workers")
    fabric = fabric.first(world)
    layouts = candidates(model, world, batch)
    if not layouts:
        raise TrainetError(f"no layout of {world} ranks splits a global batch of {batch} "
                           f"sequences; give a batch that is a multiple of {world}")
    out = [predict(fabric, model, s, o, batch, device, mfu) for s, o in layouts]
    return sorted(out, key=lambda p: p.step_s)


def fabric_topology(path: str) -> Topology:
    """The topology of a topology file, or of an experiment file (it has strategies)."""
    import yaml

    from testbed.experiment.spec import load_experiment
    from testbed.topology.load import load_topology
    try:
        data = yaml.safe_load(Path(path).read_text())
    except (OSError, yaml.YAMLError) as err:
        raise TrainetError(f"{path}: cannot read it as YAML: {err}; give a topology or "
                           "experiment file") from None
    if isinstance(data, dict) and "strategies" in data:
        return load_experiment(path).topology
    return load_topology(path)


def main(args) -> int:
    if args.check:
        from testbed.experiment import plan_check
        return plan_check.main(args)
    if not args.world:
        raise TrainetError("trainet plan: give --world N, the ranks to place (or --check "
                           "RESULTS)")
    from rich.console import Console
    from rich.table import Table

    from testbed.units import parse_duration, parse_rate

    model = shadow.shadow_model(args.model, args.layers)
    if args.topology:
        fabric = topology_fabric(fabric_topology(args.topology))
    else:
        fabric = NominalFabric(args.world, args.gpus_per_node, parse_rate(args.intra),
                               parse_rate(args.inter), parse_duration(args.latency))
    batch = args.batch or 2 * args.world
    predictions = plan(fabric, model, args.world, batch, shadow.device(args.device),
                       args.mfu)
    console = Console(highlight=False, width=150)
    console.print(f"{model.name}: {model.source}; {args.world} ranks on {fabric.name}; "
                  f"global batch {batch} sequences; {args.device} at MFU {args.mfu}; "
                  f"{len(predictions)} valid layouts")
    console.print("axonn layouts are G_r x G_c x G_d x G_data; times per step; group "
                  "bandwidths in Gb/s when every group of the kind runs at once")
    table = Table("#", "strategy", "layout", "compute", "comm", "exposed", "step",
                  "TFLOP/s/GPU", "group bandwidths (Gb/s)")
    for i, p in enumerate(predictions[:args.top], 1):
        bws = " ".join(f"{k} {v / 1e9:g}" for k, v in p.bandwidths.items())
        table.add_row(str(i), p.strategy, p.layout, f"{p.compute_s * 1e3:.1f} ms",
                      f"{p.comm_s * 1e3:.1f} ms", f"{p.exposed_s * 1e3:.1f} ms",
                      f"{p.step_s * 1e3:.1f} ms", f"{p.tflops_per_gpu:.1f}", bws)
    console.print(table)
    best = next((p for p in predictions if p.strategy == "megatron"), None)
    if best:
        console.print(f"best megatron (TP x DP): {best.layout}, step "
                      f"{best.step_s * 1e3:.1f} ms; best overall {predictions[0].strategy} "
                      f"{predictions[0].layout}, {best.step_s / predictions[0].step_s:.2f}x "
                      "faster")
    return 0
