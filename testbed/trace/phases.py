"""What one rank does in a step, as a list of phases: the interface between what
describes a step (a measured timeline, a model of the step) and the trace writer.

A phase is compute for a duration or a collective over a group of ranks; a collective
of op ``send`` or ``recv`` is one side of a point-to-point transfer with ``peer``. The
fields follow the events of testbed/model's step prediction (kind, name, start_s,
duration_s, op, nbytes, route, lane, peer, after), with the group as the ranks
themselves. ``after`` lists the phases (indices into the same rank's list) it cannot
start before; the list is in the order the rank issued its phases, so every index in
``after`` is smaller than the phase's own. Durations and start times are in seconds;
``nbytes`` is the payload as hosts/collectives/pattern.py counts it, in nominal bytes:
the whole tensor of a ring collective or an all-to-all, the message of a send.
"""
from __future__ import annotations

from dataclasses import dataclass

KINDS = ("compute", "collective")
TRANSFERS = ("send", "recv")


class Group(tuple):
    """The ranks of a group, hashed once: the ranks of a group share one, and a trace
    looks up its communicator for every collective of every rank (a world of 16384
    ranks would otherwise hash 16384 numbers each time)."""

    def __hash__(self):
        if "hash" not in self.__dict__:
            self.__dict__["hash"] = tuple.__hash__(self)
        return self.__dict__["hash"]


@dataclass(frozen=True)
class Phase:
    kind: str
    name: str
    duration_s: float
    after: tuple[int, ...] = ()
    start_s: float | None = None
    op: str = ""                        # collectives: all-reduce, ..., push-pull, send, recv
    group: tuple[int, ...] = ()         # the ranks taking part, in the group's order
    nbytes: float = 0.0
    peer: int | None = None             # send: the receiver; recv: the sender
    route: str = "ring"                 # ring, switch or server (hosts/collectives/pattern.py)
    lane: str = ""                      # the communication thread it runs on

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"phase {self.name!r} of kind {self.kind!r}: kinds are "
                             f"{', '.join(KINDS)}")


def compute(duration_s: float, after=(), name: str = "compute",
            start_s: float | None = None) -> Phase:
    return Phase("compute", name, duration_s, tuple(after), start_s)


def collective(op: str, group, nbytes: float, duration_s: float, after=(),
               route: str = "ring", start_s: float | None = None,
               name: str | None = None, lane: str = "") -> Phase:
    return Phase("collective", name or op, duration_s, tuple(after), start_s, op,
                 group if isinstance(group, Group) else Group(group), nbytes, route=route,
                 lane=lane)


def transfer(op: str, rank: int, peer: int, nbytes: float, duration_s: float, after=(),
             start_s: float | None = None, name: str | None = None, lane: str = "") -> Phase:
    """Rank ``rank``'s ``send`` to ``peer`` or ``recv`` from it."""
    if op not in TRANSFERS:
        raise ValueError(f"transfer {op!r}: a transfer is a send or a recv")
    group = (rank, peer) if op == "send" else (peer, rank)
    return Phase("collective", name or f"{op} {'to' if op == 'send' else 'from'} rank {peer}",
                 duration_s, tuple(after), start_s, op, group, nbytes, peer, lane=lane)
