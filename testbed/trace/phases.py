"""What one rank does in a step, as a list of phases: the interface between what
describes a step (a measured timeline, a model of the step) and the trace writer.

A phase is compute for a duration, a collective over a group of ranks, or one side of a
point-to-point transfer. ``after`` lists the phases (indices into the same rank's list)
it cannot start before; the list is in the order the rank issued its phases, so every
index in ``after`` is smaller than the phase's own. Durations and start times are in
seconds; ``nbytes`` is the payload as hosts/strategies/pattern.py counts it, in nominal
bytes: the whole tensor of a ring collective or an all-to-all, the message of a send.
"""
from __future__ import annotations

from dataclasses import dataclass

KINDS = ("compute", "collective", "send", "recv")


@dataclass(frozen=True)
class Phase:
    kind: str
    name: str
    duration_s: float
    after: tuple[int, ...] = ()
    start_s: float | None = None
    op: str | None = None               # collectives: all-reduce, all-gather, ..., push-pull
    group: tuple[int, ...] = ()         # the ranks taking part, in the group's order
    nbytes: float = 0.0
    peer: int | None = None             # send: the receiver; recv: the sender
    route: str = "ring"                 # ring, switch or server (hosts/strategies/pattern.py)

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"phase {self.name!r} of kind {self.kind!r}: kinds are "
                             f"{', '.join(KINDS)}")


def compute(duration_s: float, after=(), name: str = "compute",
            start_s: float | None = None) -> Phase:
    return Phase("compute", name, duration_s, tuple(after), start_s)


def collective(op: str, group, nbytes: float, duration_s: float, after=(),
               route: str = "ring", start_s: float | None = None,
               name: str | None = None) -> Phase:
    return Phase("collective", name or op, duration_s, tuple(after), start_s, op,
                 tuple(group), nbytes, route=route)


def transfer(kind: str, peer: int, nbytes: float, duration_s: float, after=(),
             start_s: float | None = None, name: str | None = None) -> Phase:
    """A ``send`` to ``peer`` or a ``recv`` from it."""
    return Phase(kind, name or f"{kind} {'to' if kind == 'send' else 'from'} rank {peer}",
                 duration_s, tuple(after), start_s, peer=peer, nbytes=nbytes)
