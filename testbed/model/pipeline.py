"""A pipelined step: every stage runs its schedule (hosts/strategies/pipeline.py) and
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

from hosts.strategies.pipeline import schedule
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


def simulate(t: StageTimes, inline_event: dict | None = None,
             transfer_event: dict | None = None) -> list[StageStep]:
    p, m = len(t.forward_s), t.micro_batches
    if 2 * p * m > SIMULATED:
        return _closed_form(t)
    orders = [schedule(t.kind, s, p, m) for s in range(p)]
    done = {}                                   # (stage, op, micro) -> end time
    arrive = {}                                 # (stage, op, micro) -> input arrival
    link_free = {}                              # (boundary, direction) -> free at
    clock, position = [0.0] * p, [0] * p
    bubble = [0.0] * p
    events: list[list[Event]] = [[] for _ in range(p)]
    remaining = sum(len(o) for o in orders)
    while remaining:
        progressed = False
        for s in range(p):
            while position[s] < len(orders[s]):
                op, i = orders[s][position[s]]
                needs = (s - 1, "F", i) if op == "F" and s > 0 else \
                    (s + 1, "B", i) if op == "B" and s + 1 < p else None
                if needs is not None and (s, op, i) not in arrive:
                    break
                ready = arrive.get((s, op, i), 0.0)
                start = max(clock[s], ready)
                bubble[s] += start - clock[s]
                compute = t.forward_s[s] if op == "F" else t.backward_s[s]
                name = f"{'forward' if op == 'F' else 'backward'} {i + 1}/{m}"
                phase = "forward" if op == "F" else "backward"
                events[s].append(Event("compute", name, phase, start, compute))
                end = start + compute
                if t.inline_s[s] and inline_event:
                    events[s].append(Event("collective", f"{inline_event['op']} "
                                           f"{inline_event['group']}", phase, end,
                                           t.inline_s[s], exposed_s=t.inline_s[s],
                                           lane="comm", **inline_event))
                end += t.inline_s[s]
                clock[s], done[s, op, i] = end, end
                _send(t, s, op, i, end, p, link_free, arrive, events, transfer_event)
                position[s] += 1
                remaining -= 1
                progressed = True
        if not progressed:
            raise RuntimeError("pipeline schedule deadlocked")
    out = []
    for s in range(p):
        events[s].sort(key=lambda e: (e.start_s, e.kind != "compute"))
        out.append(StageStep(clock[s] + t.after_s, bubble[s], tuple(events[s])))
    return out


def _send(t, s, op, i, end, p, link_free, arrive, events, transfer_event) -> None:
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
            events[who].append(Event("collective", f"{kind} {phase} {i + 1}", phase, start,
                                     t.transfer_s[boundary], **fields))


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
                        m * t.backward_s[s]))
        out.append(StageStep(step + t.after_s, step - own, events))
    return out
