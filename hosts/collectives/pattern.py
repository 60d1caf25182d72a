"""What a strategy moves in one step: a list of collectives, each with its operation,
its group, the route it takes and its payload.

One description, several readers: the shadow workers' volumes, the nominal bytes in the
reports, the link bound of ``trainet bench train``, the cross-node volume the measured
one is held against. ``nbytes`` is the payload of the collective as the algorithm sees
it: the whole tensor for ring collectives and all-to-alls (each rank then moves a
fraction of it, below), what one worker sends or receives for pushes and pulls.

``group`` names the ranks a collective runs over: ``world`` (every rank), or a tier of a
hierarchical fabric, ``gpu`` (the ranks of one GPU package), ``node`` (of one node; also
a part of a node, such as a ZeRO++ secondary partition), ``inter-node`` (one rank per
node), or a group of a parallel layout, ``tp``, ``dp``, ``pp`` (hosts/parallelism/layout.py)
or of AxoNN's grid, ``row``, ``column``, ``depth``, ``batch`` (hosts/parallelism/grid.py);
``size`` is its number of ranks (default: the world's).

Per worker and collective, for a group of N ranks:

============== ======== ==================== =====================
operation      route    sent                 received
============== ======== ==================== =====================
all-reduce     ring     2 (N-1)/N x nbytes   2 (N-1)/N x nbytes
all-gather     ring     (N-1)/N x nbytes     (N-1)/N x nbytes
reduce-scatter ring     (N-1)/N x nbytes     (N-1)/N x nbytes
all-to-all     ring     (N-1)/N x nbytes     (N-1)/N x nbytes
all-reduce     switch   nbytes               nbytes (the sum, multicast)
push           any      nbytes               0
pull           any      0                    nbytes
send-recv      ring     nbytes               nbytes
============== ======== ==================== =====================

``send-recv`` is the traffic between pipeline neighbours: a middle stage sends its
activations on and its input gradients back, and receives as much.

A collective routed through a ``server`` (a host of its own) loads the server's link
with N times what one worker sends or receives.
"""
from __future__ import annotations

from dataclasses import dataclass

OPERATIONS = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all", "push", "pull",
              "send-recv")
ROUTES = ("ring", "switch", "server")
GROUPS = ("world", "gpu", "node", "inter-node", "tp", "dp", "pp", "row", "column", "depth",
          "batch")


@dataclass(frozen=True)
class Collective:
    op: str
    nbytes: float
    route: str = "ring"
    group: str = "world"
    size: int | None = None
    calls: int = 1              # separate calls the step's bytes go in (each pays the fixed cost)

    def __post_init__(self):
        if self.group not in GROUPS:
            raise ValueError(f"collective over group {self.group!r}: groups are "
                             f"{', '.join(GROUPS)}")
        if self.op not in OPERATIONS or self.route not in ROUTES:
            raise ValueError(f"collective {self.op} via {self.route}: operations are "
                             f"{', '.join(OPERATIONS)}, routes {', '.join(ROUTES)}")
        if self.route == "ring" and self.op in ("push", "pull"):
            raise ValueError(f"a {self.op} goes to a switch or a server, not around a ring")

    def per_worker(self, world: int) -> tuple[float, float]:
        """(sent, received) bytes of one worker; the group has ``size`` ranks, or
        ``world`` when it does not say."""
        world = self.size or world
        if self.op == "push":
            return self.nbytes, 0.0
        if self.op == "pull":
            return 0.0, self.nbytes
        if self.route != "ring" or self.op == "send-recv":
            return self.nbytes, self.nbytes
        share = (world - 1) / world * self.nbytes
        return (2 * share, 2 * share) if self.op == "all-reduce" else (share, share)


def per_worker(pattern: list[Collective], world: int) -> tuple[float, float]:
    """(sent, received) bytes of one worker in a step."""
    sent = recv = 0.0
    for c in pattern:
        s, r = c.per_worker(world)
        sent, recv = sent + s, recv + r
    return sent, recv


def cross_node(pattern: list[Collective], world: int, node: int) -> float:
    """Bytes per step leaving one node (one direction of its inter-node link) when ranks
    are numbered node by node, ``node`` ranks each. A ring over the world crosses each
    node's boundary once per direction, so the link carries one ring hop: what one rank
    sends, but a world all-to-all sends each rank's chunks for other nodes straight out;
    ``inter-node`` collectives cross with every rank of the node; ``gpu`` and ``node``
    collectives stay inside."""
    if world <= node:
        return 0.0
    out = 0.0
    for c in pattern:
        if c.route != "ring" or c.group in ("gpu", "node"):
            continue
        sent = c.per_worker(world)[0]
        if c.group == "world" and c.op == "all-to-all":
            out += node * c.nbytes * (world - node) / world
        else:
            out += sent if c.group == "world" else node * sent
    return out


def busiest_link(pattern: list[Collective], world: int) -> float:
    """Bytes per step, one direction, on the most loaded link: a worker's, or a
    server's, which carries every worker's share of the collectives routed through it."""
    sent, recv = per_worker(pattern, world)
    served = per_worker([c for c in pattern if c.route == "server"], world)
    return max(sent, recv, world * served[0], world * served[1])
