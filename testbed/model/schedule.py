"""One rank's step as the shadow workers run it: compute in layer groups, collectives
issued on communication lanes as the strategy's overlap declaration says
(hosts/collectives/timing.py), waited for where the strategy waits.

A lane runs its collectives one after another in issue order (hosts/collectives/comm.py);
lanes run at the same time. Waiting for a collective blocks the compute until it ends;
that time is *exposed*, and is charged to the collectives the lane ran meanwhile (the
one waited for and those queued before it), so the exposed time adds up by tier.

Each event lists what it cannot start before (``Event.after``, indices into the role's
events): a compute phase the previous compute phase and the collectives waited for
before it; a collective the compute phase it was issued after, the collective before it
on its lane and the collectives waited for since that compute phase.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from testbed.model.prediction import Event


@dataclass
class Item:
    """A collective of the pattern with its overlap and the cost of one instance."""

    name: str
    overlap: object                 # hosts.collectives.timing.Overlap
    instances: int                  # per step
    seconds: float                  # one instance
    event: dict                     # Event fields shared by its instances


@dataclass
class _Issued:
    item: Item
    start: float
    end: float
    exposed: float = 0.0
    deps: list = field(default_factory=list)


@dataclass
class _Compute:
    event: Event
    deps: list


@dataclass
class Lanes:
    free: dict = field(default_factory=dict)
    issued: list = field(default_factory=list)
    by_lane: dict = field(default_factory=dict)
    last_compute: object = None
    waited: list = field(default_factory=list)

    def issue(self, item: Item, t: float) -> _Issued:
        lane = item.overlap.lane
        start = max(t, self.free.get(lane, 0.0))
        before = self.by_lane.get(lane, [])[-1:]
        deps = [d for d in [self.last_compute, *before, *self.waited] if d is not None]
        done = _Issued(item, start, start + item.seconds, deps=deps)
        self.free[lane] = done.end
        self.issued.append(done)
        self.by_lane.setdefault(lane, []).append(done)
        return done

    def wait(self, done: _Issued, t: float) -> float:
        """The time the waiting compute resumes; the wait charged to the lane's work."""
        if done not in self.waited:
            self.waited.append(done)
        if done.end <= t:
            return t
        for other in self.by_lane[done.item.overlap.lane]:
            lo, hi = max(other.start, t), min(other.end, done.end)
            if hi > lo:
                other.exposed += hi - lo
        return done.end

    def busy_s(self) -> float:
        spans = sorted((d.start, d.end) for d in self.issued if d.end > d.start)
        total, until = 0.0, float("-inf")
        for lo, hi in spans:
            if hi > until:
                total += hi - max(lo, until)
                until = hi
        return total


@dataclass(frozen=True)
class Simulated:
    step_s: float
    compute_s: float
    exposed_s: float
    comm_s: float
    events: tuple[Event, ...]


def simulate(forward_s: float, backward_s: float, chunks: int, items: list[Item]) -> Simulated:
    """One step: forward then backward, each in ``chunks`` layer groups."""
    lanes, compute, t = Lanes(), [], 0.0
    pending = [lanes.issue(i, 0.0) for i in items if i.overlap.mode == "before"]
    for phase, seconds in (("forward", forward_s), ("backward", backward_s)):
        prefetch = [i for i in items if i.overlap.mode == "prefetch" and phase in i.overlap.passes]
        inline = [i for i in items if i.overlap.mode == "inline" and phase in i.overlap.passes]
        after_each = [i for i in items if i.overlap.mode == "backward"] \
            if phase == "backward" else []
        queued = {id(i): [lanes.issue(i, t) for _ in range(min(i.overlap.ahead, chunks))]
                  for i in prefetch}
        running: list[_Issued] = []
        for k in range(chunks):
            for i in prefetch:
                if not queued[id(i)]:
                    queued[id(i)].append(lanes.issue(i, t))
                t = lanes.wait(queued[id(i)].pop(0), t)
                if k + len(queued[id(i)]) + 1 < chunks and i.overlap.ahead:
                    queued[id(i)].append(lanes.issue(i, t))
            node = _Compute(Event("compute", f"{phase} {k + 1}/{chunks}", phase, t,
                                  seconds / chunks),
                            [d for d in [lanes.last_compute, *lanes.waited] if d is not None])
            compute.append(node)
            lanes.last_compute, lanes.waited = node, []
            t += seconds / chunks
            for done in running:
                t = lanes.wait(done, t)
            running = []
            for i in inline:
                done = lanes.issue(i, t)
                if phase in i.overlap.lagged:
                    running.append(done)
                else:
                    t = lanes.wait(done, t)
            pending += [lanes.issue(i, t) for i in after_each]
        for done in running:
            t = lanes.wait(done, t)
    for done in pending:
        t = lanes.wait(done, t)
    for i in items:
        if i.overlap.mode == "after":
            t = lanes.wait(lanes.issue(i, t), t)
    computed = forward_s + backward_s
    return Simulated(t, computed, t - computed, lanes.busy_s(), _events(compute, lanes.issued))


def _events(compute: list[_Compute], issued: list[_Issued]) -> tuple[Event, ...]:
    """Every node as an Event, by start time, with its dependencies as indices. Among
    nodes starting at once, one comes after those it depends on (a compute phase after
    a collective of no duration it waited for), else compute first."""
    depth = _depths([*compute, *issued])
    nodes = [(n.event.start_s, 0, n) for n in compute] + \
        [(d.start, 1, d) for d in issued]
    nodes.sort(key=lambda x: (x[0], depth[id(x[2])], x[1]))
    index = {id(n): i for i, (_, _, n) in enumerate(nodes)}
    out = []
    for _, _, n in nodes:
        after = tuple(sorted({index[id(d)] for d in n.deps}))
        if isinstance(n, _Compute):
            out.append(dataclasses.replace(n.event, after=after))
        else:
            out.append(Event("collective", n.item.name, _phase(n), n.start, n.end - n.start,
                             exposed_s=n.exposed, lane=n.item.overlap.lane, after=after,
                             **n.item.event))
    return tuple(out)


def _depths(nodes: list) -> dict[int, int]:
    """Per node (by id) the longest chain of dependencies ending at it; a node depends
    only on nodes made before it, so there is no cycle."""
    depth: dict[int, int] = {}
    for root in nodes:
        stack = [root]
        while stack:
            node = stack[-1]
            todo = [d for d in node.deps if id(d) not in depth]
            if todo:
                stack.extend(todo)
                continue
            depth[id(node)] = 1 + max((depth[id(d)] for d in node.deps), default=0)
            stack.pop()
    return depth


def _phase(done: _Issued) -> str:
    last = next((d for d in done.deps if isinstance(d, _Compute)), None)
    if done.item.overlap.mode in ("before", "after") or last is None:
        return "step"
    return last.event.phase
