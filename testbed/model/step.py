"""``predict``: one training step of a registered strategy on a fabric, from what the
strategy declares (its pattern, hosts/strategies/pattern.py, and its timing,
hosts/strategies/timing.py): nothing here names a strategy.

Compute is the shadow workers' model (hosts/shadow.py: 6 x parameters x tokens FLOPs at
the device's peak times the MFU, forward a third and backward two thirds), split over a
replica's ranks; each collective is timed on the fabric (testbed/model/collectives.py)
and placed against the compute as the strategy overlaps it
(testbed/model/schedule.py, or testbed/model/pipeline.py for pipelines). Collectives on
the GPU (ring routes) slow the compute they overlap by the interference factor, and an
offloaded optimizer adds its host time, as in the shadow workers.
"""
from __future__ import annotations

import dataclasses
import itertools
from collections import defaultdict

from hosts import footprint, shadow
from hosts.strategies import registry
from hosts.strategies.pattern import Collective
from hosts.strategies.timing import Overlap, Placement, Timing
from testbed.errors import TrainetError
from testbed.model import collectives, pipeline, schedule
from testbed.model.calibration import DEFAULT, Calibration
from testbed.model.prediction import Event, Role, StepPrediction

LAYOUT_KINDS = ("tp", "pp", "dp", "row", "column", "depth")


@dataclasses.dataclass(frozen=True)
class Workload:
    model: shadow.ShadowModel
    device: shadow.Device
    global_batch: int                   # sequences per step, every replica together
    mfu: float = shadow.DEFAULT_MFU
    flops: object = None                # (model, tokens) -> FLOPs; default 6 P T
    recompute: bool = True              # activations recomputed (memory only)
    gpus_per_host: int | None = None

    def step_flops(self, tokens: int) -> float:
        if self.flops is not None:
            return self.flops(self.model, tokens)
        return shadow.step_flops(self.model.params, tokens)

    def compute_s(self, tokens: int) -> float:
        if not 0 < self.mfu <= 1:
            raise TrainetError(f"--mfu {self.mfu}: the utilisation must be in (0, 1], "
                               "e.g. 0.4")
        return self.step_flops(tokens) / (self.device.peak_flops * self.mfu)


def predict(strategy: str, workload: Workload, fabric, world: int, options: dict | None = None,
            calibration: Calibration = DEFAULT, sizes: dict | None = None,
            label: str | None = None) -> StepPrediction:
    """The step of ``strategy`` (with ``options``) on ``world`` ranks of ``fabric``."""
    info = registry.get(strategy)
    parsed = info.parse_options(options or {}, where=f"strategy {strategy}")
    if fabric.max_ranks is not None and world > fabric.max_ranks:
        raise TrainetError(f"fabric {fabric.name} has {fabric.max_ranks} GPUs for {world} "
                           f"ranks; give --gpus {fabric.max_ranks} or less")
    sizes = sizes or _tier_sizes(fabric, world)
    model = workload.model
    timing = info.step_timing(world, options=parsed, sizes=sizes, model=model,
                              device=workload.device)
    if workload.global_batch % timing.replicas:
        raise TrainetError(f"strategy {strategy}: a global batch of {workload.global_batch} "
                           f"sequences does not split over its {timing.replicas} replicas; "
                           f"give --batch a multiple of {timing.replicas}")
    replica_batch = workload.global_batch // timing.replicas
    pattern = info.collectives(shadow.model_bytes(model.params), world, model.layers,
                               options=parsed, sizes=sizes, model=model, batch=replica_batch)
    replica_compute = workload.compute_s(replica_batch * model.seq)
    rank_compute = replica_compute * timing.replicas / world
    overlaps = timing.overlap(pattern)
    if timing.pipeline is None:
        roles, comm_s = _data_parallel(pattern, overlaps, timing, rank_compute, fabric, world,
                                       calibration)
    else:
        roles, comm_s = _pipelined(pattern, overlaps, timing, replica_compute / world
                                   * timing.replicas, fabric, world, calibration, model)
    slowest = max(roles, key=lambda r: r.step_s)
    compute = sum(e.duration_s for e in slowest.compute())
    waited = slowest.step_s - compute
    ring = any(c.route == "ring" for c in pattern)
    interference = calibration.interference * min(max(0.0, comm_s - waited), compute) \
        if ring else 0.0
    host = timing.host_s(calibration.cpu_adam_rate, workload.gpus_per_host) \
        if timing.host_s else 0.0
    step = slowest.step_s + interference + host
    by_tier = defaultdict(float)
    for e in slowest.collectives():
        by_tier[e.tier] += e.exposed_s
    if slowest.bubble_s:
        by_tier[slowest.bubble_tier] += slowest.bubble_s
    fp = _footprint(info, model, world, replica_batch, timing, workload.recompute, parsed,
                    sizes)
    fit = footprint.check(fp, workload.device, workload.gpus_per_host)
    tflops = workload.step_flops(workload.global_batch * model.seq) / world / step / 1e12
    return StepPrediction(
        strategy=info.name, label=label or info.name, layout=_layout(timing),
        options=parsed.model_dump(exclude_defaults=True), model=model.name,
        device=workload.device.name, fabric=fabric.name, calibration=calibration.name,
        world=world, global_batch=workload.global_batch, replicas=timing.replicas,
        step_s=step, compute_s=compute, exposed_s=waited, bubble_s=slowest.bubble_s,
        interference_s=interference, host_s=host, comm_s=comm_s,
        exposed_by_tier={k: v for k, v in by_tier.items() if v > 0},
        tflops_per_gpu=tflops, memory_per_gpu_B=fp.device,
        memory_capacity_B=workload.device.memory_bytes, memory_verdict=fit.verdict(),
        roles=tuple(roles),
        placement={k: (v.size, v.stride) for k, v in timing.groups.items()},
        stage_order=tuple(_order(timing, fabric, world)))


def _order(timing: Timing, fabric, world: int) -> list[int]:
    pipe = timing.pipeline
    if pipe is None:
        return []
    return _stage_order(fabric, world, pipe.stages) if pipe.reorder else list(range(pipe.stages))


def _tier_sizes(fabric, world: int) -> dict:
    """Ranks per GPU package and per node as the fabric has them (hierarchical
    strategies place their partitions by these)."""
    if hasattr(fabric, "tier_sizes"):
        return fabric.tier_sizes(world)
    return {}


def _footprint(info, model, world: int, replica_batch: int, timing: Timing, recompute: bool,
               options, sizes) -> footprint.Footprint:
    """The strategy's footprint (hosts/footprint.py); a pipeline stage holds the
    activations of at most ``stages`` micro-batches of its ``layers / stages`` layers,
    split over its tensor-parallel ranks: one micro-batch through every layer, over
    the ranks a stage's layers are split across."""
    fp = footprint.footprint(info, model, world, replica_batch, recompute, options, sizes)
    pipe = timing.pipeline
    if pipe is None:
        return fp
    micro = max(1, replica_batch // pipe.micro_batches)
    split = world // timing.replicas // pipe.stages
    return dataclasses.replace(fp, activations=footprint.activation_bytes(model, micro,
                                                                          recompute) / split)


def _layout(timing: Timing) -> str:
    parts = [f"{k}{p.size}" for k, p in timing.groups.items()
             if k in LAYOUT_KINDS and p.size > 1]
    return " x ".join(parts) or f"{timing.replicas} replicas"


def _instances(overlap: Overlap, chunks: int) -> int:
    if overlap.mode in ("before", "after"):
        return 1
    if overlap.mode == "backward":
        return chunks
    return chunks * len(overlap.passes)


def _event_fields(c: Collective, cost: collectives.Cost, nbytes: float, size: int) -> dict:
    return {"op": c.op, "group": c.group, "group_size": size, "nbytes": nbytes,
            "route": c.route, "algorithm": cost.algorithm, "tier": cost.route.tier}


def _placement(timing: Timing, c: Collective, world: int) -> Placement:
    kind = timing.groups.get(c.group, Placement(world))
    return Placement(c.size or kind.size, kind.stride)


def _data_parallel(pattern, overlaps, timing: Timing, compute_s: float, fabric, world: int,
                   calibration) -> tuple[list[Role], float]:
    items = []
    for c, o in zip(pattern, overlaps):
        n = _instances(o, timing.chunks)
        one = dataclasses.replace(c, nbytes=c.nbytes / n)
        kind = _placement(timing, c, world)
        cost = collectives.cost(one, kind, fabric, world, calibration)
        items.append(schedule.Item(f"{c.op} {c.group}", o, n, cost.seconds,
                                   _event_fields(c, cost, one.nbytes, kind.size)))
    sim = schedule.simulate(compute_s / 3, compute_s * 2 / 3, timing.chunks, items)
    return [Role("every rank", world, sim.step_s, sim.events)], sim.comm_s


# ---------------------------------------------------------------- pipelines
def _stage_groups(kind: Placement, world: int, stage: int, stage_span: int) -> list[list[int]]:
    return [g for g in kind.groups(world) if g[0] // stage_span == stage]


def _stage_route_cost(c: Collective, kind: Placement, fabric, world: int, calibration,
                      groups: list[list[int]] | None) -> collectives.Cost:
    """The collective over this stage's groups only where the fabric tells them apart."""
    if groups and kind.size > 1:
        bps, latency, profile = fabric.group_bandwidth(groups)
        route = calibration.adjust(collectives.Route(profile, bps, latency, profile))
        return collectives.ring(c.op, c.nbytes, kind.size, route,
                                calibration.efficiency(c.op, c.route)) \
            if c.op != "send-recv" else collectives.point(c.nbytes, route, 1.0)
    return collectives.cost(c, kind, fabric, world, calibration)


def _pipelined(pattern, overlaps, timing: Timing, rank_compute_even: float, fabric,
               world: int, calibration, model) -> tuple[list[Role], float]:
    pipe = timing.pipeline
    p, m = pipe.stages, pipe.micro_batches
    span = world // p                              # ranks per stage (tp x dp)
    by_mode = {o.mode: (c, o) for c, o in zip(pattern, overlaps)}
    order = _stage_order(fabric, world, p) if pipe.reorder else list(range(p))
    stage_compute = rank_compute_even * p          # a rank's compute if it held every layer

    def per_stage(mode: str, scale: float) -> list[tuple[float, dict]]:
        if mode not in by_mode:
            return [(0.0, {})] * p
        c, _ = by_mode[mode]
        kind = _placement(timing, c, world)
        out = []
        for s in range(p):
            one = dataclasses.replace(c, nbytes=c.nbytes * scale)
            groups = _stage_groups(kind, world, order[s], span) \
                if span > 1 and hasattr(fabric, "group_bandwidth") else None
            cost = _stage_route_cost(one, kind, fabric, world, calibration, groups)
            out.append((cost.seconds, _event_fields(c, cost, one.nbytes, kind.size)))
        return out

    inline_layer = [t / (model.layers / p) for t, _ in per_stage("inline", 1 / (2 * m))]
    after_layer = [t / (model.layers / p) for t, _ in per_stage("after", 1.0)]
    per_layer = [(stage_compute / model.layers + 2 * inline_layer[s]) * (m + p - 1) / m
                 + after_layer[s] for s in range(p)]
    layers = _balanced(per_layer, model.layers) if pipe.balanced else \
        [model.layers // p + (1 if s < model.layers % p else 0) for s in range(p)]
    share = [n / model.layers for n in layers]
    inline = per_stage("inline", 1 / (2 * m))
    after = per_stage("after", 1.0)
    forward = [stage_compute * share[s] / 3 / m for s in range(p)]
    backward = [stage_compute * share[s] * 2 / 3 / m for s in range(p)]
    transfer, transfer_events = _transfers(by_mode.get("pipeline"), p, m, world, span, order,
                                           fabric, calibration,
                                           max(f + b for f, b in zip(forward, backward)), pipe)
    times = pipeline.StageTimes(forward, backward,
                                [inline[s][0] * n / (model.layers / p)
                                 for s, n in enumerate(layers)],
                                transfer, 0.0, m, pipe.schedule)
    inline_fields = [fields for _, fields in inline] if inline[0][1] else None
    steps = pipeline.simulate(times, inline_fields, transfer_events)
    roles, busy = [], 0.0
    for s, st in enumerate(steps):
        t_after, after_fields = after[s]
        t_after *= share[s] * p
        events = list(st.events)
        end = st.end_s
        slowest_link = max(range(p - 1), key=lambda b: transfer[b]) if p > 1 else None
        tier = transfer_events[slowest_link]["tier"] if slowest_link is not None else ""
        if t_after:
            events.append(Event("collective", f"{after_fields['op']} {after_fields['group']}",
                                "step", end, t_after, lane="comm", exposed_s=t_after,
                                after=(len(events) - 1,) if events else (),
                                **{**after_fields, "nbytes": after_fields["nbytes"]
                                   * share[s] * p}))
            end += t_after
        comm = sum(e.duration_s for e in events if e.kind == "collective" and e.op != "recv")
        busy = max(busy, comm)
        roles.append(Role(f"stage {s}", span, end, tuple(events), s, st.bubble_s, tier))
    return roles, busy


def _balanced(per_layer: list[float], layers: int) -> list[int]:
    """Layers per stage minimising the slowest stage's time, each stage at least one
    (greedy on linear costs: optimal for a min-max of n_s x cost_s)."""
    counts = [1] * len(per_layer)
    for _ in range(layers - len(per_layer)):
        s = min(range(len(counts)), key=lambda i: (counts[i] + 1) * per_layer[i])
        counts[s] += 1
    return counts


def _transfers(item, p: int, m: int, world: int, span: int, order: list[int], fabric,
               calibration, budget_s: float, pipe) -> tuple[list[float], list[dict]]:
    """Seconds per message and event fields of each boundary; compressed as declared."""
    if item is None or p < 2:
        return [0.0] * max(0, p - 1), [{}] * max(0, p - 1)
    c, _ = item
    message = c.nbytes * p / (2 * (p - 1) * m)          # the pattern holds the mean
    seconds, fields = [], []
    for b in range(p - 1):
        pairs = [(order[b] * span + r, order[b + 1] * span + r) for r in range(span)]
        route = calibration.adjust(fabric.transfer(pairs, world))
        efficiency = calibration.efficiency(c.op, c.route)
        kept = _kept(message, route, efficiency, budget_s, pipe)
        cost = collectives.point(message * kept, route, efficiency)
        seconds.append(cost.seconds)
        fields.append(_event_fields(c, cost, message * kept, p))
    return seconds, fields


INDEX_BYTES, VALUE_BYTES = 4, 2


def _kept(message: float, route, efficiency: float, budget_s: float, pipe) -> float:
    """The wire bytes per dense byte of a boundary message under the declared
    compression (top-k: kept values and their int32 indices)."""
    if pipe.compress_to is None:
        return 1.0
    wire = (VALUE_BYTES + INDEX_BYTES) / VALUE_BYTES
    if pipe.compress_all:
        fraction = pipe.compress_to
    else:
        dense_s = message * 8 / (route.bps * efficiency) + route.latency_s
        if dense_s <= budget_s:
            return 1.0
        room = budget_s * route.bps * efficiency / 8
        fraction = max(pipe.compress_to, min(1.0, room / (message * wire)))
    return fraction * wire if fraction * wire < 1 else 1.0


def _stage_order(fabric, world: int, stages: int) -> list[int]:
    """The stages' ranks in the order that keeps the slowest links out of the pipeline:
    ranks grouped into clusters of fast links (within 4x of the fastest from each),
    clusters tried in every order, the order whose slowest boundary is fastest taken."""
    if not hasattr(fabric, "group_bandwidth") or stages < 3:
        return list(range(stages))
    bps = [[fabric.transfer([(a, b)], world).bps if a != b else float("inf")
            for b in range(stages)] for a in range(stages)]
    clusters: list[list[int]] = []
    for r in range(stages):
        home = next((c for c in clusters if bps[r][c[0]] * 4 >= max(
            x for x in bps[c[0]] if x != float("inf"))), None)
        if home is None:
            clusters.append([r])
        else:
            home.append(r)
    if len(clusters) > 6:
        return list(range(stages))
    best, best_key = None, None
    for perm in itertools.permutations(clusters):
        chain = [r for c in perm for r in c]
        links = [bps[a][b] for a, b in zip(chain, chain[1:])]
        key = (min(links), -sum(1 / x for x in links))
        if best_key is None or key > best_key:
            best, best_key = chain, key
    return best
