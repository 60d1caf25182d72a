"""Traces of a step at any scale, from what the strategy registry declares: its
collectives per step (hosts/strategies/pattern.py) with their groups and payloads, and
the compute of the device model (hosts/shadow.py).

Each rank computes its share of the step's FLOPs (6 x parameters x tokens of the global
batch over the GPUs, at the device's peak times the MFU), then runs the pattern's
collectives one after another, each over the group of its kind that holds the rank. A
pipeline's ``send-recv`` becomes the transfers between neighbouring stages: forward,
receive from the previous stage and send to the next; backward, the other way. This
schedule does not overlap communication with compute: a simulator reading the trace
times the collectives itself; the durations written here are a first estimate on a
nominal fabric (``trainet plan``'s: GPUs in nodes behind an intra-node switch, one NIC
each into a non-blocking core), a ring's bytes per rank over the bandwidth its group
gets when every group of its kind runs at once, plus a latency per ring step.

Groups follow the ranks' order of their kind: node by node for the tiers (``gpu``,
``node``; ``inter-node`` joins the ranks at the same place in every node), Megatron-LM's
order for ``tp``, ``dp`` and ``pp`` (hosts/strategies/layout.py), AxoNN's grid for
``row``, ``column``, ``depth``, ``batch`` and its ``dp`` (hosts/strategies/grid.py).
"""
from __future__ import annotations

from dataclasses import dataclass

from hosts import shadow
from hosts.strategies import registry
from hosts.strategies.grid import Grid
from hosts.strategies.layout import Coordinates, ParallelLayout
from hosts.strategies.pattern import Collective
from testbed.errors import TrainetError
from testbed.experiment.plan import NominalFabric, group_bandwidth
from testbed.trace.phases import Phase, collective, compute, transfer

GRID_KINDS = ("row", "column", "depth", "batch")
LAYOUT_KINDS = ("tp", "dp", "pp")
MODEL_PARALLEL = ("tp", "pp", "row", "column", "depth")


@dataclass(frozen=True)
class Setup:
    """What a modelled trace stands for."""

    model: str
    gpus: int
    strategy: str
    options: dict
    batch: int | None = None            # global batch in sequences; default 2 per GPU
    device: str = "a100"
    mfu: float = shadow.DEFAULT_MFU
    layers: int | None = None
    gpus_per_node: int = 8
    gcds_per_gpu: int = 1
    intra_bps: float = 1.6e12
    inter_bps: float = 200e9
    latency_s: float = 2e-6


def _sizes(pattern: list[Collective], world: int) -> dict[str, int]:
    return {c.group: c.size or world for c in pattern}


def _blocks(world: int, size: int) -> list[list[int]]:
    return [list(range(s, s + size)) for s in range(0, world, size)]


def kind_groups(c: Collective, world: int, sizes: dict[str, int]) -> list[list[int]]:
    """Every group of ``c``'s kind and size, each rank in exactly one."""
    size = c.size or world
    if world % size:
        raise TrainetError(f"{world} GPUs do not split into {c.group} groups of {size}; "
                           f"choose a GPU count that is a multiple of {size}")
    if c.group == "world":
        return [list(range(world))]
    if c.group in ("gpu", "node"):
        return _blocks(world, size)
    if c.group == "inter-node":
        per_node = world // size
        return [[i + k * per_node for k in range(size)] for i in range(per_node)]
    if c.group in GRID_KINDS or (c.group == "dp" and any(k in sizes for k in GRID_KINDS)):
        g_d = sizes.get("depth", 1)
        g_data = sizes.get("dp", sizes.get("batch", g_d) // g_d)
        grid = Grid(sizes.get("row", 1), sizes.get("column", 1), g_d, g_data)
        _check(grid.world, world, grid.describe())
        return grid.groups("data" if c.group == "dp" else c.group)
    layout = ParallelLayout(sizes.get("dp", 1), sizes.get("pp", 1), sizes.get("tp", 1))
    _check(layout.world, world, layout.describe())
    return _layout_groups(layout, c.group)


def _check(have: int, world: int, text: str) -> None:
    if have != world:
        raise TrainetError(f"the layout {text} holds {have} ranks, not the {world} GPUs "
                           "asked for; choose degrees whose product is the GPU count")


def _layout_groups(layout: ParallelLayout, kind: str) -> list[list[int]]:
    """Megatron-LM's groups in linear time (ParallelLayout.groups searches)."""
    def at(d, p, t):
        return layout.logical(Coordinates(d, p, t))
    if kind == "tp":
        return [[at(d, p, t) for t in range(layout.tp)] for p in range(layout.pp)
                for d in range(layout.dp)]
    if kind == "dp":
        return [[at(d, p, t) for d in range(layout.dp)] for p in range(layout.pp)
                for t in range(layout.tp)]
    return [[at(d, p, t) for p in range(layout.pp)] for d in range(layout.dp)
            for t in range(layout.tp)]


def ring_seconds(c: Collective, size: int, bps: float, latency: float) -> float:
    """A collective's time: its bytes per rank over ``bps`` plus a latency per step."""
    if c.route != "ring":
        return c.nbytes * 8 / bps + 2 * latency
    steps = 2 * (size - 1) if c.op == "all-reduce" else size - 1
    return c.per_worker(size)[0] * 8 / bps + steps * latency


def pattern_of(setup: Setup) -> tuple[list[Collective], int, shadow.ShadowModel]:
    """The strategy's collectives for the setup, and the global batch."""
    target = shadow.shadow_model(setup.model, setup.layers)
    info = registry.get(setup.strategy)
    options = info.parse_options(setup.options, "--option")
    world = setup.gpus
    if world < 1:
        raise TrainetError(f"--gpus {world}: give at least one GPU")
    node = min(setup.gpus_per_node, world)
    if world % node or node % setup.gcds_per_gpu:
        raise TrainetError(f"--gpus {world} in nodes of {setup.gpus_per_node} GPUs of "
                           f"{setup.gcds_per_gpu} GCDs: give a GPU count that fills whole "
                           "nodes, and GPUs per node a multiple of GCDs per GPU")
    batch = setup.batch or 2 * world
    given = dict(options=options, sizes={"node": node, "gpu": setup.gcds_per_gpu},
                 model=target)
    model_bytes = shadow.model_bytes(target.params)
    try:
        first = info.collectives(model_bytes, world, target.layers, batch=batch, **given)
        sizes = _sizes(first, world)
        replicas = sizes.get("dp", 1) if any(k in sizes for k in MODEL_PARALLEL) or \
            "dp" in sizes else world
        if batch % replicas:
            raise TrainetError(f"--batch {batch}: {replicas} replicas cannot split it; give "
                               f"a global batch that is a multiple of {replicas}")
        pattern = info.collectives(model_bytes, world, target.layers,
                                   batch=batch // replicas, **given)
    except ValueError as err:
        raise TrainetError(f"strategy {setup.strategy} on {world} GPUs: {err}") from None
    return pattern, batch, target


def phases(setup: Setup) -> tuple[dict[int, list[Phase]], dict]:
    """Every rank's phases of one step, and what the trace stands for."""
    pattern, batch, target = pattern_of(setup)
    world = setup.gpus
    dev = shadow.device(setup.device)
    compute_s = shadow.compute_time_s(target.params, batch * target.seq, dev, setup.mfu) / world
    sizes = _sizes(pattern, world)
    fabric = NominalFabric(world, min(setup.gpus_per_node, world), setup.intra_bps,
                           setup.inter_bps, setup.latency_s)
    steps = []      # per collective: (its groups by rank, seconds)
    for c in pattern:
        groups = kind_groups(c, world, sizes)
        member = {r: tuple(g) for g in groups for r in g}
        size = c.size or world
        if c.route != "ring":
            bps, latency = setup.inter_bps, setup.latency_s
        else:
            bps, latency = group_bandwidth(fabric, groups) if size > 1 else (float("inf"), 0)
        seconds = ring_seconds(c, size, bps, latency) if size > 1 else 0.0
        steps.append((c, member, seconds, bps, latency))
    ranks = {r: _rank(r, compute_s, steps) for r in range(world)}
    metadata = {"source": "trainet registry pattern", "model": target.name,
                "params": float(target.params), "strategy": setup.strategy,
                "options": " ".join(f"{k}={v}" for k, v in setup.options.items()) or "none",
                "gpus": world, "batch_sequences": batch,
                "seq": target.seq, "device": dev.name, "mfu": setup.mfu,
                "gpus_per_node": min(setup.gpus_per_node, world),
                "fabric": fabric.name + f", {setup.intra_bps / 1e9:g} Gb/s in a node, "
                f"{setup.inter_bps / 1e9:g} Gb/s NICs, {setup.latency_s * 1e6:g} us a link",
                "schedule": "compute, then the collectives one after another",
                "time_units": "nominal"}
    return ranks, metadata


def _rank(rank: int, compute_s: float, steps) -> list[Phase]:
    out = [compute(compute_s, name="forward and backward")]
    for c, member, seconds, bps, latency in steps:
        group = member[rank]
        if c.op != "send-recv":
            out.append(collective(c.op, group, c.nbytes, seconds, [len(out) - 1], c.route,
                                  name=f"{c.op} over {c.group}"))
            continue
        n, i = len(group), group.index(rank)
        if n == 1:
            continue
        edge = c.nbytes * n / (2 * (n - 1))     # one message; a middle stage moves 2 each way
        each = edge * 8 / bps + latency
        moves = ([("recv", group[i - 1])] if i > 0 else []) + \
            ([("send", group[i + 1])] if i < n - 1 else []) + \
            ([("recv", group[i + 1])] if i < n - 1 else []) + \
            ([("send", group[i - 1])] if i > 0 else [])
        for op, peer in moves:
            out.append(transfer(op, rank, peer, edge, each, [len(out) - 1]))
    return out
