"""FusionLLM's workload estimator and OP-Fence scheduler (a reconstruction from the prose
of arXiv 2410.12707, not the paper's code).

* **Estimator.** A :class:`Workload` holds each operator's compute time (forward and
  backward of one micro-batch) on each device, profiled on the host in real mode or
  from the device model in shadow mode, and the bytes crossing each cut point. A
  :class:`Fabric` holds the bandwidth and latency between every two devices, measured at
  start by the workers or read from a topology (:func:`fabric_of`: the slowest link and
  the summed delays of the fewest-hop path); an edge's transfer time is
  ``latency + bytes / bandwidth``.
* **OP-Fence.** Devices are grouped into clusters: two devices are in one cluster when a
  chain of links at least ``1 / gap`` as fast as the fabric's fastest joins them (sites
  of well-connected machines). The pipeline visits the clusters one after another, so
  only the boundaries between clusters cross slow links. For every order of the clusters
  (tried exhaustively up to ``MAX_ORDERS``; beyond, nearest-fastest neighbour first), a
  dynamic program cuts the operators' topological order into one contiguous segment per
  device minimising the pipeline's bottleneck per micro-batch: the larger of the slowest
  stage's compute and the longest a boundary's message holds its link (among equal
  bottlenecks, the one with the least compute on its slowest stage). A boundary on a slow link thus
  lands where the cut is small (between blocks, where only the residual stream
  crosses) and the order that avoids the slowest links wins.
"""
from __future__ import annotations

import itertools
import math
from collections import deque
from dataclasses import dataclass

from testbed.errors import TrainetError
from testbed.topology.spec import Topology

MAX_ORDERS = 720               # every order of up to 6 clusters


@dataclass(frozen=True)
class Fabric:
    bandwidth: list[list[float]]     # bytes/s from device a to device b
    latency: list[list[float]]       # seconds

    @property
    def devices(self) -> int:
        return len(self.bandwidth)

    def transfer_s(self, nbytes: float, a: int, b: int) -> float:
        return self.latency[a][b] + self.occupancy_s(nbytes, a, b)

    def occupancy_s(self, nbytes: float, a: int, b: int) -> float:
        """How long the message holds the link: what limits a pipeline's throughput,
        whose messages are in flight together (the latency counts once, filling it)."""
        return nbytes / self.bandwidth[a][b]

    def check(self) -> None:
        for a in range(self.devices):
            for b in range(self.devices):
                if a != b and not self.bandwidth[a][b] > 0:
                    raise TrainetError(f"op-fence: no route from rank {a} to rank {b} "
                                       "(measured bandwidth 0); every worker must reach "
                                       "every other before the pipeline starts")


def fabric_of(topology: Topology, hosts: list[str]) -> Fabric:
    """The nominal fabric between ``hosts`` (in rank order): per pair, the fewest-hop
    path's slowest link (unshaped links count as infinitely fast) and summed delay."""
    edges: dict[str, list[tuple[str, float, float]]] = {}
    for link in topology.links:
        a, b = (e.node for e in topology.endpoints(link))
        params = topology.link_params(link)
        rate = params.bw_bps / 8 if params.bw_bps else float("inf")
        edges.setdefault(a, []).append((b, rate, params.delay_s))
        edges.setdefault(b, []).append((a, rate, params.delay_s))
    n = len(hosts)
    bandwidth = [[float("inf")] * n for _ in range(n)]
    latency = [[0.0] * n for _ in range(n)]
    for i, src in enumerate(hosts):
        reached = {src: (float("inf"), 0.0)}
        queue = deque([src])
        while queue:
            node = queue.popleft()
            rate, delay = reached[node]
            for peer, r, d in edges.get(node, []):
                if peer not in reached:
                    reached[peer] = (min(rate, r), delay + d)
                    queue.append(peer)
        for j, dst in enumerate(hosts):
            if i != j:
                bandwidth[i][j], latency[i][j] = reached.get(dst, (0.0, 0.0))
    return Fabric(bandwidth, latency)


@dataclass(frozen=True)
class Workload:
    op_seconds: list[list[float]]    # device -> operator -> forward + backward seconds
    cut_bytes: dict[int, float]      # cut position -> bytes crossing it, one direction

    @property
    def operators(self) -> int:
        return len(self.op_seconds[0])


@dataclass(frozen=True)
class Plan:
    clusters: list[list[int]]
    order: list[int]                 # the devices in pipeline order
    cuts: list[int]                  # the positions between consecutive stages
    stage_s: list[float]             # compute per micro-batch of each stage
    link_s: list[float]              # transfer per micro-batch of each boundary, latency
    bottleneck_s: float              # included; the bottleneck counts link occupancy

    def segments(self, operators: int) -> list[tuple[int, int]]:
        bounds = [0, *self.cuts, operators]
        return list(zip(bounds, bounds[1:]))

    def step_s(self, micro_batches: int) -> float:
        """A flushed pipeline's step: fill and drain once, then one bottleneck per
        further micro-batch."""
        return sum(self.stage_s) + sum(self.link_s) \
            + (micro_batches - 1) * self.bottleneck_s


def clusters(fabric: Fabric, gap: float) -> list[list[int]]:
    """Devices joined by chains of links within ``gap`` of the fastest link."""
    if gap < 1:
        raise TrainetError(f"op-fence: cluster_gap {gap} must be at least 1")
    n = fabric.devices
    fastest = max((fabric.bandwidth[a][b] for a in range(n) for b in range(n) if a != b),
                  default=1.0)
    parent = list(range(n))

    def root(a):
        while parent[a] != a:
            a = parent[a]
        return a

    for a in range(n):
        for b in range(n):
            if a != b and min(fabric.bandwidth[a][b], fabric.bandwidth[b][a]) * gap >= fastest:
                parent[root(a)] = root(b)
    groups: dict[int, list[int]] = {}
    for a in range(n):
        groups.setdefault(root(a), []).append(a)
    return sorted(groups.values())


def schedule(work: Workload, fabric: Fabric, gap: float = 4.0) -> Plan:
    fabric.check()
    if len(work.op_seconds) != fabric.devices:
        raise TrainetError(f"op-fence: compute times for {len(work.op_seconds)} devices, "
                           f"bandwidths for {fabric.devices}")
    if len(work.cut_bytes) < fabric.devices - 1:
        raise TrainetError(f"op-fence: {fabric.devices} devices need {fabric.devices - 1} "
                           f"cuts, but the model has {len(work.cut_bytes)} cut points; "
                           "use fewer workers or a model with more operators")
    groups = clusters(fabric, gap)
    best = None
    for order in _cluster_orders(groups, fabric):
        plan = _partition(work, fabric, groups, [d for g in order for d in g])
        if best is None or plan.bottleneck_s < best.bottleneck_s:
            best = plan
    return best


def _cluster_orders(groups: list[list[int]], fabric: Fabric):
    if math.factorial(len(groups)) <= MAX_ORDERS:
        yield from itertools.permutations(groups)
        return
    left, order = list(groups[1:]), [groups[0]]
    while left:                      # next: the cluster best connected to the last one
        tail = order[-1][-1]
        nxt = max(left, key=lambda g: fabric.bandwidth[tail][g[0]])
        order.append(nxt)
        left.remove(nxt)
    yield order


def _partition(work: Workload, fabric: Fabric, groups, order: list[int]) -> Plan:
    """The contiguous split minimising the bottleneck, by dynamic programming over the
    cut points (``bounds[i]``: a position; the first is 0, the last the end)."""
    stages, n = len(order), work.operators
    bounds = [0, *sorted(work.cut_bytes), n]
    prefix = []
    for d in order:
        running, row = 0.0, [0.0]
        for t in work.op_seconds[d]:
            running += t
            row.append(running)
        prefix.append(row)
    worst = (float("inf"), float("inf"))
    best = [[worst] * len(bounds) for _ in range(stages + 1)]
    back = [[0] * len(bounds) for _ in range(stages + 1)]
    best[0][0] = (0.0, 0.0)
    for s in range(1, stages + 1):
        last = len(bounds) - 1
        ends = [last] if s == stages else range(s, last - (stages - s) + 1)
        for j in ends:
            for i in range(s - 1, j):
                if best[s - 1][i] == worst:
                    continue
                compute = prefix[s - 1][bounds[j]] - prefix[s - 1][bounds[i]]
                link = fabric.occupancy_s(work.cut_bytes[bounds[i]], order[s - 2],
                                          order[s - 1]) if s > 1 else 0.0
                cost = (max(best[s - 1][i][0], compute, link), max(best[s - 1][i][1], compute))
                if cost < best[s][j]:
                    best[s][j], back[s][j] = cost, i
    picks, j = [], len(bounds) - 1
    for s in range(stages, 0, -1):
        picks.append(j)
        j = back[s][j]
    ends = [bounds[k] for k in reversed(picks)]
    starts = [0] + ends[:-1]
    stage_s = [prefix[s][e] - prefix[s][b] for s, (b, e) in enumerate(zip(starts, ends))]
    link_s = [fabric.transfer_s(work.cut_bytes[c], order[s], order[s + 1])
              for s, c in enumerate(ends[:-1])]
    return Plan(groups, order, ends[:-1], stage_s, link_s, best[stages][len(bounds) - 1][0])


def save(path, plan: Plan, fabric: Fabric, operators: int) -> None:
    """The plan and the fabric it was made on, for other runs to replay (JSON)."""
    import json
    from dataclasses import asdict
    from pathlib import Path
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    partial = Path(f"{path}.partial")     # renamed into place: a reader never sees half
    partial.write_text(json.dumps({"operators": operators, "plan": asdict(plan),
                                   "fabric": asdict(fabric)}, indent=1) + "\n")
    partial.replace(path)


def load(path, operators: int, devices: int) -> tuple[Plan, Fabric]:
    """A saved plan, checked against the DAG's operators and the number of devices."""
    import json
    from pathlib import Path
    try:
        saved = json.loads(Path(path).read_text())
        plan, fabric = Plan(**saved["plan"]), Fabric(**saved["fabric"])
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise TrainetError(f"op-fence plan {path}: not a saved plan ({e})") from None
    if saved["operators"] != operators or len(plan.order) != devices:
        raise TrainetError(f"op-fence plan {path}: made for {saved['operators']} operators "
                           f"on {len(plan.order)} devices, not {operators} on {devices}; "
                           "replay it with the same model, batch and workers")
    return plan, fabric
