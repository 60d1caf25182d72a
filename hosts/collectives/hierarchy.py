"""Ranks on a tiered machine: which ranks share a GPU package or a node, and collectives
that run tier by tier.

A strategy that places its partitions by tier declares the host group kinds it needs
(``StrategyInfo.tiers``, e.g. ``("node",)``); the runner passes each rank's group labels
from the topology's host groups (the frontier generator sets ``gpu`` and ``node``), the
worker takes them as ``--tiers node=n1,n1,n2,n2``. Ranks are numbered tier by tier (the
ranks of a group are consecutive and every group of a kind has as many ranks), so a
rank's groups follow from the group sizes alone.

A hierarchical collective runs over *levels*, innermost first: the ranks of this rank's
innermost group, then the ranks of the next wider group that sit at this rank's position
in their inner groups, and so on up to the world. With 2 nodes of 2 ranks the levels of
rank 3 are [2, 3] (its node) and [1, 3] (the second rank of every node).
"""
from __future__ import annotations

from dataclasses import dataclass

from testbed.errors import TrainetError

KINDS = ("gpu", "node")      # innermost first
LABELS = KINDS + ("cluster", "nic")   # also a rank's cluster and NIC profile (Holmes)


def parse_tiers(text: str | None) -> dict[str, list[str]]:
    """``node=n1,n1,n2,n2;gpu=p0,p0,p1,p1`` -> {kind: label per rank}."""
    out = {}
    for part in filter(None, (text or "").split(";")):
        kind, _, labels = part.partition("=")
        if kind not in LABELS or not labels:
            raise TrainetError(f"--tiers {text!r}: write KIND=LABEL,LABEL,... per kind "
                               f"({', '.join(LABELS)}), one label per rank, kinds "
                               "separated by ';'")
        out[kind] = labels.split(",")
    return out


def format_tiers(tiers: dict[str, list[str]]) -> str:
    return ";".join(f"{kind}={','.join(labels)}" for kind, labels in tiers.items())


def group_size(labels: list[str], kind: str) -> int:
    """The ranks per group, checking that every group is one run of consecutive ranks of
    the same length."""
    runs: list[list] = []
    for label in labels:
        if runs and runs[-1][0] == label:
            runs[-1][1] += 1
        else:
            runs.append([label, 1])
    names = [name for name, _ in runs]
    if len(set(names)) != len(names) or len({n for _, n in runs}) != 1:
        raise TrainetError(f"{kind} groups {', '.join(f'{a}x{n}' for a, n in runs)}: "
                           f"give every {kind} the same number of workers and list the "
                           f"workers {kind} by {kind}")
    return runs[0][1]


@dataclass(frozen=True)
class Layout:
    """This rank's place: ``sizes`` maps a group kind to its ranks per group."""

    rank: int
    world: int
    sizes: dict

    @classmethod
    def of(cls, rank: int, world: int, tiers: dict[str, list[str]] | None,
           needs: tuple[str, ...], strategy: str) -> "Layout":
        tiers = tiers or {}
        sizes = {}
        for kind in needs:
            if kind not in tiers:
                raise TrainetError(f"strategy {strategy} places its partitions by {kind}; "
                                   f"give each rank's {kind} (--tiers {kind}=LABEL,...; "
                                   "trainet run takes them from the topology's host groups)")
            if len(tiers[kind]) != world:
                raise TrainetError(f"--tiers {kind}: {len(tiers[kind])} labels for "
                                   f"{world} ranks; give one per rank")
            if kind in KINDS:
                sizes[kind] = group_size(tiers[kind], kind)
        if "gpu" in sizes and "node" in sizes and sizes["node"] % sizes["gpu"]:
            raise TrainetError(f"a node of {sizes['node']} ranks cannot hold GPU packages "
                               f"of {sizes['gpu']}; give every GPU of a node as many ranks")
        return cls(rank, world, sizes)

    def group(self, size: int) -> list[int]:
        """The ``size`` consecutive ranks this rank is one of."""
        base = self.rank - self.rank % size
        return list(range(base, base + size))

    def across(self, inner: int, outer: int) -> list[int]:
        """The ranks of this rank's ``outer``-group at its position in their
        ``inner``-groups (``outer`` a multiple of ``inner``)."""
        base = self.rank - self.rank % outer
        return list(range(base + self.rank % inner, base + outer, inner))

    def levels(self, sizes: list[int]) -> list[list[int]]:
        """The levels over groups of ``sizes`` ranks (innermost first), up to the world."""
        bounds = [1] + [s for s in sizes if 1 < s < self.world] + [self.world]
        return [self.across(inner, outer) for inner, outer in zip(bounds, bounds[1:])
                if outer > inner]


def hierarchical(stage, pg, levels: list[list[int]], rank: int, flat):
    """Reduce-scatter ``flat`` level by level with ``stage(pg, ranks, rank, flat)`` (a
    reduce-scatter over one group); this rank ends with chunk ``rank`` of the sum. At
    each level the chunks are ordered so that the piece for the member at position
    ``i`` holds every chunk whose owner sits at position ``i`` of that level."""
    sizes = [len(ranks) for ranks in levels]
    x = flat.reshape(*reversed(sizes), -1)
    for ranks in levels:
        x = x.movedim(-2, 0).contiguous()
        shape = x.shape[1:]
        x = stage(pg, ranks, rank, x.reshape(-1)).view(shape)
    return x.reshape(-1)


def hierarchical_bytes(numel: int, levels: list[list[int]], wire) -> int:
    """Bytes one rank sends in :func:`hierarchical`; ``wire(numel)`` is the size of a
    piece of ``numel`` elements on the wire."""
    total = 0
    for ranks in levels:
        n = len(ranks)
        total += (n - 1) * wire(numel // n)
        numel //= n
    return total
