"""A pipelined strategy's stages (``Timing.pipeline``): layers per stage (as even as
possible, as the strategy's partition declares them, or balanced on each stage's cost
per layer; the slowest stage sets the pipeline's pace), each stage's tensor-parallel and
data-parallel collectives over its own groups (a topology tells stages on different
NICs apart), the transfers between neighbours (compressed as the strategy declares),
the stages' order (reordered to skip the slowest links when declared), then the
schedule played by testbed/model/pipeline.py.
"""
from __future__ import annotations

import dataclasses
import itertools

from hosts.collectives.pattern import Collective
from hosts.collectives.timing import Placement, Timing
from testbed.model import collectives, pipeline
from testbed.model.prediction import Event, Role


def _stage_groups(kind: Placement, world: int, stage: int, stage_span: int) -> list[list[int]]:
    return [g for g in kind.groups(world) if g[0] // stage_span == stage]


def _stage_route_cost(c: Collective, kind: Placement, fabric, world: int, calibration,
                      groups: list[list[int]] | None) -> collectives.Cost:
    """The collective over this stage's groups only where the fabric tells them apart;
    a measured bandwidth table's entry for the kind's placement (every stage's groups
    at once, as the stages run) where it has one."""
    if groups and kind.size > 1:
        bps, latency, profile, hops = fabric.group_bandwidth(groups)
        route = calibration.adjust(collectives.Route(profile, bps, latency, profile, hops))
        found = collectives.measured(c, Placement(c.size or kind.size, kind.stride), fabric,
                                     world, route)
        if found is not None:
            return found
        return collectives.ring(c.op, c.nbytes, kind.size, route,
                                calibration.efficiency(c.op, c.route)) \
            if c.op != "send-recv" else collectives.point(c.nbytes, route, 1.0)
    return collectives.cost(c, kind, fabric, world, calibration)


def pipelined(pattern, overlaps, timing: Timing, passes, fabric, world: int, calibration,
              model, virtual: int = 1, overlap_grad: bool = False
              ) -> tuple[list[Role], float, float]:
    """``passes``: (one layer, the head) per micro-batch on one rank of a stage
    (hosts/compute.Pass). ``virtual`` model chunks per stage: interleaved 1F1B, played
    by testbed/model/pipeline.py. ``overlap_grad``: the
    data-parallel gradient all-reduce runs during the stage's last backward (Megatron-LM's
    --overlap-grad-reduce), only what outlasts it exposed."""
    layer, head = passes
    pipe = timing.pipeline
    p, m = pipe.stages, pipe.micro_batches
    span = world // p                              # ranks per stage (tp x dp)
    by_mode = {o.mode: (c, o) for c, o in zip(pattern, overlaps) if o.mode != "after"}
    # after the flush: the gradient reduction, then (distributed optimizer) the updated
    # parameters' all-gather, which follows the optimizer step and is never hidden
    after_all = [c for c, o in zip(pattern, overlaps) if o.mode == "after"]
    order = stage_order(fabric, world, p) if pipe.reorder else list(range(p))

    def per_stage(mode: str, scale: float, c=None) -> list[tuple[float, dict]]:
        if c is None and mode not in by_mode:
            return [(0.0, {})] * p
        c = c or by_mode[mode][0]
        kind = collectives.placement_of(timing.groups, c, world)
        out = []
        calls = max(1, round(c.calls * scale))      # each call pays its fixed cost
        for s in range(p):
            one = dataclasses.replace(c, nbytes=c.nbytes * scale)
            call = dataclasses.replace(one, nbytes=one.nbytes / calls)
            groups = _stage_groups(kind, world, order[s], span) \
                if span > 1 and hasattr(fabric, "group_bandwidth") else None
            cost = _stage_route_cost(call, kind, fabric, world, calibration, groups)
            out.append((cost.seconds * calls,
                        collectives.event_fields(c, cost, one.nbytes, kind.size)))
        return out

    inline_layer = [t / (model.layers / p) for t, _ in per_stage("inline", 1 / (2 * m))]
    afters = [per_stage("after", 1.0, c) for c in after_all]
    after_layer = [sum(a[s][0] for a in afters) / (model.layers / p) for s in range(p)]
    per_layer = [(layer.seconds + 2 * inline_layer[s]) * (m + p - 1) + after_layer[s]
                 for s in range(p)]
    if pipe.balanced:
        layers = _balanced(per_layer, model.layers)
    elif pipe.layers is not None:
        layers = list(pipe.layers)
    else:
        layers = [model.layers // p + (1 if s < model.layers % p else 0) for s in range(p)]
    share = [n / model.layers for n in layers]
    inline = per_stage("inline", 1 / (2 * m))
    last = p - 1
    forward = [layers[s] * layer.forward_s + (head.forward_s if s == last else 0.0)
               for s in range(p)]
    backward = [layers[s] * layer.backward_s + (head.backward_s if s == last else 0.0)
                for s in range(p)]
    transfer, transfer_events = _transfers(by_mode.get("pipeline"), p, m * virtual, world,
                                           span, order, fabric, calibration,
                                           max(f + b for f, b in zip(forward, backward)), pipe)
    times = pipeline.StageTimes(forward, backward,
                                [inline[s][0] * n / (model.layers / p)
                                 for s, n in enumerate(layers)],
                                transfer, 0.0, m, pipe.schedule, virtual)
    inline_fields = [fields for _, fields in inline] if inline[0][1] else None
    steps = pipeline.simulate(times, inline_fields, transfer_events)
    roles, busy, active = [], [], []
    for s, st in enumerate(steps):
        events = list(st.events)
        end = st.end_s
        slowest_link = max(range(p - 1), key=lambda b: transfer[b]) if p > 1 else None
        tier = transfer_events[slowest_link]["tier"] if slowest_link is not None else ""
        for c, after in zip(after_all, afters):
            t_after, after_fields = after[s]
            t_after *= share[s] * p
            if not t_after:
                continue
            gather = c.op == "all-gather"
            hidden = min(t_after, backward[s]) if overlap_grad and not gather else 0.0
            events.append(Event("collective", f"{after_fields['op']} {after_fields['group']}",
                                "step", end - hidden, t_after, lane="comm",
                                exposed_s=t_after - hidden,
                                after=(len(events) - 1,) if gather else
                                _grad_after(events, hidden),
                                **{**after_fields, "nbytes": after_fields["nbytes"]
                                   * share[s] * p}))
            end += t_after - hidden
        busy.append(_busy(events, posted=True))
        active.append(_busy(events, posted=False))
        roles.append(Role(f"stage {s}", span, end, tuple(events), s, st.bubble_s, tier))
    return roles, sum(busy) / len(busy), sum(active) / len(active)


def _grad_after(events: list[Event], hidden: float) -> tuple[int, ...]:
    """What the gradient all-reduce follows: the stage's last event, or, overlapped
    with the last backward, what that backward follows."""
    if not events:
        return ()
    if hidden <= 0:
        return (len(events) - 1,)
    last = max(i for i, e in enumerate(events) if e.kind == "compute")
    return events[last].after


def _busy(events: list[Event], posted: bool) -> float:
    """The time some communication of the stage runs; with ``posted`` a receive runs
    from the start of the step (every receive is posted ahead,
    hosts/strategies/parallel.py, and the workers count it as running) until its
    message arrives, else only while its message moves."""
    spans = sorted((0.0 if posted and e.op == "recv" else e.start_s, e.end_s)
                   for e in events if e.kind == "collective")
    total, until = 0.0, 0.0
    for lo, hi in spans:
        if hi > until:
            total += hi - max(lo, until)
            until = hi
    return total


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
        fields.append(collectives.event_fields(c, cost, message * kept, p))
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


def stage_order(fabric, world: int, stages: int) -> list[int]:
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
