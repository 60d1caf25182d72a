"""What one collective costs: alpha-beta per ring step, by algorithm.

For a group of ``n`` ranks whose ring hop gets ``B`` bytes/s with ``alpha`` s per step
(:class:`~testbed.model.fabric.Route`), a payload of ``S`` bytes (as the pattern gives
it, hosts/collectives/pattern.py) and the collective's efficiency ``e`` (the share of
``B`` it reaches; 1 uncalibrated, see testbed/model/calibration.py):

===================== ============================================================
ring all-reduce       2 (n-1)/n S / (e B) + 2 (n-1) alpha
tree all-reduce       2 S / (e B) + 2 ceil(log2 n) alpha  (pipelined binary trees)
hierarchical a.-r.    reduce-scatter inside the inner domains, all-reduce of S/m across
                      them, all-gather inside (m members per inner domain)
ring all-gather,      (n-1)/n S / (e B) + (n-1) alpha; hierarchical: across the inner
reduce-scatter        domains with S/m, then inside (or the reverse)
all-to-all            (n-1)/n S / (e B) + (n-1) alpha (pairwise exchanges)
send-recv             S / (e B) + alpha
switch (all-reduce,   S / (e B) + 2 alpha: every rank streams its S to the switch and
push, pull)           gets S back at line rate (aggregation or multicast in the switch)
server (push, pull)   n S / (e B) + alpha: the server's link carries every rank's S
===================== ============================================================

For all-reduce the fastest of ring, tree and (on a tiered fabric) hierarchical is
taken, as NCCL picks by size; all-gather and reduce-scatter take ring or hierarchical.
On a fabric with a measured bandwidth table (testbed/model/measured.py), an all-reduce,
all-gather or reduce-scatter whose placement the table has is its entry's line instead:
measured latency plus the ring's share of the payload at the measured bus bandwidth.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from hosts.collectives.pattern import Collective
from hosts.collectives.timing import Placement
from testbed.model.fabric import Route


@dataclass(frozen=True)
class Cost:
    seconds: float
    algorithm: str
    route: Route              # what limits it (tier, profile, bandwidth)
    bandwidth_s: float        # the bytes' part
    latency_s: float          # the steps' part


def ring(op: str, nbytes: float, n: int, route: Route, efficiency: float) -> Cost:
    if n <= 1 or nbytes <= 0:
        return Cost(0.0, "none", route, 0.0, 0.0)
    share = (n - 1) / n
    factor, steps = (2 * share, 2 * (n - 1)) if op == "all-reduce" else (share, n - 1)
    data = factor * nbytes * 8 / (route.bps * efficiency)
    lat = steps * route.latency_s + route.call_s
    return Cost(data + lat, "ring", route, data, lat)


def tree(nbytes: float, n: int, route: Route, efficiency: float) -> Cost:
    data = 2 * nbytes * 8 / (route.bps * efficiency)
    lat = 2 * math.ceil(math.log2(n)) * route.latency_s + route.call_s
    return Cost(data + lat, "tree", route, data, lat)


def point(nbytes: float, route: Route, efficiency: float, hops: int = 1,
          algorithm: str = "p2p") -> Cost:
    data = nbytes * 8 / (route.bps * efficiency)
    lat = hops * route.latency_s + route.call_s
    return Cost(data + lat, algorithm, route, data, lat)


def cost(c: Collective, kind: Placement, fabric, world: int, calibration) -> Cost:
    """The collective ``c`` over groups placed as ``kind`` on ``fabric``."""
    n = c.size or kind.size
    kind = Placement(n, kind.stride)
    efficiency = calibration.efficiency(c.op, c.route)
    if c.route == "server":
        route = calibration.adjust(fabric.server_route())
        return point(n * c.nbytes, route, efficiency, algorithm="server")
    if c.route == "switch":            # every rank's own link, and the server's if any
        route = calibration.adjust(min(fabric.edge_route(), fabric.server_route(),
                                       key=lambda r: r.bps))
        return point(c.nbytes, route, efficiency, hops=2, algorithm="switch")
    if n <= 1 or c.nbytes <= 0:
        return Cost(0.0, "none", calibration.adjust(fabric.route(kind, world)), 0.0, 0.0)
    route = calibration.adjust(fabric.route(kind, world))
    found = measured(c, kind, fabric, world, route)
    if found is not None:
        return found
    if c.op == "send-recv":
        return point(c.nbytes, route, efficiency)
    options = [ring(c.op, c.nbytes, n, route, efficiency)]
    if c.op == "all-reduce":
        options.append(tree(c.nbytes, n, route, efficiency))
    split = fabric.split(kind)
    if split is not None and c.op in ("all-reduce", "all-gather", "reduce-scatter"):
        options.append(hierarchical(c.op, c.nbytes, split, fabric, world, calibration,
                                    efficiency))
    return min(options, key=lambda x: x.seconds)


def measured(c: Collective, kind: Placement, fabric, world: int, route: Route) -> Cost | None:
    """``c`` as the fabric's bandwidth table measured its placement, or None when the
    fabric has no table or the table lacks it."""
    entry = fabric.table.entry(c.op, kind, world) if fabric.table else None
    if entry is None:
        return None
    latency, data = entry.seconds(c.nbytes)
    return Cost(latency + data, "measured", route, data, latency)


def hierarchical(op: str, nbytes: float, split: tuple[Placement, Placement], fabric,
                 world: int, calibration, efficiency: float) -> Cost:
    inner, outer = split
    r_in = calibration.adjust(fabric.route(inner, world))
    r_out = calibration.adjust(fabric.route(outer, world))
    m = inner.size
    if op == "all-reduce":
        parts = [ring("reduce-scatter", nbytes, m, r_in, efficiency),
                 ring("all-reduce", nbytes / m, outer.size, r_out, efficiency),
                 ring("all-gather", nbytes, m, r_in, efficiency)]
    else:
        parts = [ring(op, nbytes / m, outer.size, r_out, efficiency),
                 ring(op, nbytes, m, r_in, efficiency)]
    slowest = min((r_in, r_out), key=lambda r: r.bps)
    # one call: the parts' fixed costs once
    extra = sum(p.route.call_s for p in parts) - max(p.route.call_s for p in parts)
    return Cost(sum(p.seconds for p in parts) - extra, "hierarchical", slowest,
                sum(p.bandwidth_s for p in parts), sum(p.latency_s for p in parts) - extra)


def event_fields(c: Collective, cost: Cost, nbytes: float, size: int) -> dict:
    """The Event fields (testbed/model/prediction.py) of one instance of ``c``."""
    return {"op": c.op, "group": c.group, "group_size": size, "nbytes": nbytes,
            "route": c.route, "algorithm": cost.algorithm, "tier": cost.route.tier}


def placement_of(groups: dict, c: Collective, world: int) -> Placement:
    """Where ``c``'s groups sit: its kind's placement (a strategy's timing), its own
    size when it gives one."""
    kind = groups.get(c.group, Placement(world))
    return Placement(c.size or kind.size, kind.stride)
