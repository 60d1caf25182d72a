"""A pipelined step: every stage runs its schedule (hosts/parallelism/pipeline.py) and
waits for its neighbours' activations and gradients.

Per stage ``s`` and micro-batch: a forward of ``forward_s[s]`` and a backward of
``backward_s[s]`` seconds, each followed by the stage's blocking tensor-parallel
collectives (``inline_s[s]`` per pass). A stage sends each output on as soon as it is
computed, on its link to the neighbour (one transfer at a time per direction, each of
``transfer_s[s]`` seconds for boundary ``s``, between stages ``s`` and ``s + 1``); a
pass waits until its input has arrived: that wait is the stage's *bubble*. After its
last backward a stage runs its ``after`` collectives (the data-parallel gradient
all-reduce). The step is the slowest stage's.

Up to :data:`SIMULATED` passes in all the schedule is played op by op; beyond, equal
stages and links follow the closed form of a flushed pipeline,
``(m - 1) max(f + b, x) + p (f + b) + 2 (p - 1) x`` (Narayanan et al. 2021, sec. 2.2.1,
with the transfers ``x`` added), with the slowest stage and link standing for all.
"""
from __future__ import annotations

from dataclasses import dataclass

from hosts.parallelism.pipeline import schedule
from testbed.model.prediction import Event

SIMULATED = 20000


@dataclass(frozen=True)
class StageTimes:
    forward_s: list[float]          # per micro-batch, per stage
    backward_s: list[float]
    inline_s: list[float]           # blocking collectives per pass, per stage
    transfer_s: list[float]         # per boundary (stages - 1), per message
    after_s: float                  # after the last backward, every stage
    micro_batches: int
    kind: str = "1f1b"


@dataclass(frozen=True)
class StageStep:
    end_s: float                    # the stage's step
    bubble_s: float
    events: tuple[Event, ...]


def simulate(t: StageTimes, inline_event: list[dict] | None = None,
             transfer_event: list[dict] | None = None) -> list[StageStep]:
    """Every stage's step; ``inline_event`` (per stage) and ``transfer_event`` (per
    boundary) are the Event fields of its collectives, None: compute events only."""
    p, m = len(t.forward_s), t.micro_batches
    if 2 * p * m > SIMULATED:
        return _closed_form(t)
    orders = [schedule(t.kind, s, p, m) for s in range(p)]
    arrive = {}                                 # (stage, op, micro) -> input arrival
    link_free = {}                              # (boundary, direction) -> free at
    clock, position, bubble = [0.0] * p, [0] * p, [0.0] * p
    stages = [_Stage() for _ in range(p)]
    remaining = sum(len(o) for o in orders)
    while remaining:
        progressed = False
        for s in range(p):
            while position[s] < len(orders[s]):
                op, i = orders[s][position[s]]
                needs = (op == "F" and s > 0) or (op == "B" and s + 1 < p)
                if needs and (s, op, i) not in arrive:
                    break
                start = max(clock[s], arrive.get((s, op, i), 0.0))
                bubble[s] += start - clock[s]
                phase = "forward" if op == "F" else "backward"
                stage = stages[s]
                stage.add(_Draft("compute", f"{phase} {i + 1}/{m}", phase, start,
                                 t.forward_s[s] if op == "F" else t.backward_s[s]),
                          [stage.last, stage.received.pop((op, i), None)], last=True)
                end = start + stage.events[-1].duration_s
                if t.inline_s[s] and inline_event:
                    fields = inline_event[s]
                    stage.add(_Draft("collective", f"{fields['op']} {fields['group']}", phase,
                                     end, t.inline_s[s], exposed_s=t.inline_s[s],
                                     lane="comm", **fields), [stage.last], last=True)
                end += t.inline_s[s]
                clock[s] = end
                _send(t, s, op, i, end, p, link_free, arrive, stages, transfer_event)
                position[s] += 1
                remaining -= 1
                progressed = True
        if not progressed:
            raise RuntimeError("pipeline schedule deadlocked")
    return [StageStep(clock[s] + t.after_s, bubble[s], stages[s].linked()) for s in range(p)]


class _Draft:
    """An event whose dependencies are not known yet (Event is frozen)."""

    def __init__(self, kind, name, phase, start_s, duration_s, **fields):
        self.kind, self.name, self.phase = kind, name, phase
        self.start_s, self.duration_s = start_s, duration_s
        self.__dict__.update(fields)


class _Stage:
    """A stage's events in the order they happen, each with the events (by that order)
    it follows on this rank: a pass the previous pass (with its blocking collective)
    and the receive of its input; a blocking collective or a send the pass before it. A
    receive follows nothing on its own rank (its sender is ``peer``)."""

    def __init__(self):
        self.events, self.deps = [], []
        self.last = None
        self.received = {}              # (op, micro) -> the receive of that input

    def add(self, event, deps, last: bool = False) -> int:
        self.events.append(event)
        self.deps.append([d for d in deps if d is not None])
        if last:
            self.last = len(self.events) - 1
        return len(self.events) - 1

    def linked(self) -> tuple[Event, ...]:
        order = sorted(range(len(self.events)),
                       key=lambda k: (self.events[k].start_s, self.events[k].kind != "compute", k))
        where = {k: n for n, k in enumerate(order)}
        out = []
        for k in order:
            e = self.events[k]
            e.after = tuple(sorted(where[d] for d in self.deps[k]))
            out.append(Event(**e.__dict__))
        return tuple(out)


def _send(t, s, op, i, end, p, link_free, arrive, stages, transfer_event) -> None:
    """The pass's output to the next stage (forward) or the previous (backward)."""
    to = s + 1 if op == "F" else s - 1
    if not 0 <= to < p:
        return
    boundary = min(s, to)
    start = max(end, link_free.get((boundary, op), 0.0))
    arrival = start + t.transfer_s[boundary]
    link_free[boundary, op] = arrival
    arrive[to, op, i] = arrival
    if transfer_event is not None:
        phase = "forward" if op == "F" else "backward"
        for who, kind, peer in ((s, "send", to), (to, "recv", s)):
            fields = {**transfer_event[boundary], "op": kind, "peer": peer,
                      "lane": f"pp-{kind}"}
            event = _Draft("collective", f"{kind} {phase} {i + 1}", phase, start,
                           t.transfer_s[boundary], **fields)
            if kind == "send":
                stages[who].add(event, [stages[who].last])
            else:
                stages[who].received[op, i] = stages[who].add(event, [])


def _closed_form(t: StageTimes) -> list[StageStep]:
    p, m = len(t.forward_s), t.micro_batches
    per_micro = max(f + b + 2 * x for f, b, x in zip(t.forward_s, t.backward_s, t.inline_s))
    link = max(t.transfer_s, default=0.0)
    step = (m - 1) * max(per_micro, link) + p * per_micro + 2 * (p - 1) * link
    out = []
    for s in range(p):
        own = m * (t.forward_s[s] + t.backward_s[s] + 2 * t.inline_s[s])
        events = (Event("compute", f"forward x{m}", "forward", 0.0, m * t.forward_s[s]),
                  Event("compute", f"backward x{m}", "backward", m * t.forward_s[s],
                        m * t.backward_s[s], after=(0,)))
        out.append(StageStep(step + t.after_s, step - own, events))
    return out
