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

With ``chunks`` model chunks per stage the schedule is interleaved 1F1B
(hosts/parallelism/pipeline.py): each pass is a chunk's share of the stage, the last
stage sends each forward on to the first stage's next chunk (and the first stage each
backward back to the last stage's previous chunk).

Every schedule is played op by op, so the bubble is what the schedule and the stages'
own times give: with equal stages and no transfers the first stage idles
``(p - 1)(f + b)``, divided by ``v`` when interleaved (Narayanan et al. 2021, sec. 2.2.1
and 2.2.2); a slower last stage (the logits and loss) holds every stage back by its extra
time per micro-batch; transfers the compute does not hide add ``2 (p - 1)`` of them every
``p`` micro-batches in 1F1B (the first stage's backward waits for a gradient that crossed
every link there and back). Up to :data:`SIMULATED` passes in all each pass is an event;
beyond, the same play keeps only the times, and each stage's compute is two events (its
forwards, then its backwards).
"""
from __future__ import annotations

from dataclasses import dataclass

from hosts.parallelism.pipeline import interleaved, schedule
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
    chunks: int = 1                 # model chunks per stage (interleaved 1F1B)


@dataclass(frozen=True)
class StageStep:
    end_s: float                    # the stage's step
    bubble_s: float
    events: tuple[Event, ...]


def simulate(t: StageTimes, inline_event: list[dict] | None = None,
             transfer_event: list[dict] | None = None) -> list[StageStep]:
    """Every stage's step; ``inline_event`` (per stage) and ``transfer_event`` (per
    boundary) are the Event fields of its collectives, None: compute events only."""
    p, m, v = len(t.forward_s), t.micro_batches, t.chunks
    record = 2 * p * m * v <= SIMULATED
    if not record:
        inline_event = transfer_event = None
    orders = [interleaved(s, p, m, v) if v > 1 else
              [(op, i, 0) for op, i in schedule(t.kind, s, p, m)] for s in range(p)]
    arrive = {}                                 # (stage, op, micro, chunk) -> arrival
    link_free = {}                              # (boundary, direction) -> free at
    clock, position, bubble = [0.0] * p, [0] * p, [0.0] * p
    stages = [_Stage() for _ in range(p)]
    remaining = sum(len(o) for o in orders)
    while remaining:
        progressed = False
        for s in range(p):
            while position[s] < len(orders[s]):
                op, i, c = orders[s][position[s]]
                needs = (op == "F" and (s > 0 or c > 0)) or \
                    (op == "B" and (s + 1 < p or c + 1 < v))
                if needs and (s, op, i, c) not in arrive:
                    break
                start = max(clock[s], arrive.get((s, op, i, c), 0.0))
                bubble[s] += start - clock[s]
                end = start + (t.forward_s[s] if op == "F" else t.backward_s[s]) / v
                if record:
                    _record(stages[s], op, i, c, m, v, start, end - start)
                if t.inline_s[s] and inline_event:
                    phase = "forward" if op == "F" else "backward"
                    stage = stages[s]
                    fields = inline_event[s]
                    stage.add(_Draft("collective", f"{fields['op']} {fields['group']}", phase,
                                     end, t.inline_s[s] / v, exposed_s=t.inline_s[s] / v,
                                     lane="comm", **fields), [stage.last], last=True)
                end += t.inline_s[s] / v
                clock[s] = end
                _send(t, s, op, i, c, end, p, link_free, arrive, stages, transfer_event)
                position[s] += 1
                remaining -= 1
                progressed = True
        if not progressed:
            raise RuntimeError("pipeline schedule deadlocked")
    return [StageStep(clock[s] + t.after_s, bubble[s],
                      stages[s].linked() if record else _summary(t, s)) for s in range(p)]


def _record(stage: "_Stage", op: str, i: int, c: int, m: int, v: int, start: float,
            duration: float) -> None:
    """A pass as an event, after the stage's previous one and its input's receive."""
    phase = "forward" if op == "F" else "backward"
    name = f"{phase} {i + 1}/{m}" + (f" chunk {c + 1}" if v > 1 else "")
    stage.add(_Draft("compute", name, phase, start, duration),
              [stage.last, stage.received.pop((op, i, c), None)], last=True)


def _summary(t: StageTimes, s: int) -> tuple[Event, ...]:
    """A long pipeline's stage as two compute events: its forwards, then its backwards."""
    m = t.micro_batches
    return (Event("compute", f"forward x{m}", "forward", 0.0, m * t.forward_s[s]),
            Event("compute", f"backward x{m}", "backward", m * t.forward_s[s],
                  m * t.backward_s[s], after=(0,)))


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


def _send(t, s, op, i, c, end, p, link_free, arrive, stages, transfer_event) -> None:
    """The pass's output to the next stage (forward) or the previous (backward); with
    interleaving, from the last stage to the first for the next chunk (and back), over
    the slowest boundary's time (the wrap-around link is not one of the boundaries)."""
    v = t.chunks
    if op == "F":
        to, chunk = (s + 1, c) if s + 1 < p else (0, c + 1)
    else:
        to, chunk = (s - 1, c) if s > 0 else (p - 1, c - 1)
    if not 0 <= chunk < v or to == s:
        return
    wrap = abs(to - s) != 1
    boundary = "wrap" if wrap else min(s, to)
    seconds = max(t.transfer_s, default=0.0) if wrap else t.transfer_s[boundary]
    start = max(end, link_free.get((boundary, op), 0.0))
    arrival = start + seconds
    link_free[boundary, op] = arrival
    arrive[to, op, i, chunk] = arrival
    if transfer_event is not None:
        fields_of = transfer_event[max(range(len(t.transfer_s)), key=lambda b: t.transfer_s[b])] \
            if wrap else transfer_event[boundary]
        phase = "forward" if op == "F" else "backward"
        for who, kind, peer in ((s, "send", to), (to, "recv", s)):
            fields = {**fields_of, "op": kind, "peer": peer, "lane": f"pp-{kind}"}
            event = _Draft("collective", f"{kind} {phase} {i + 1}", phase, start, seconds,
                           **fields)
            if kind == "send":
                stages[who].add(event, [stages[who].last])
            else:
                stages[who].received[op, i, chunk] = stages[who].add(event, [])
