"""A parallel layout: DP x PP x TP coordinates for every rank, the groups they imply, and
the placement that maps them to the launched workers.

A layout is data. Its *logical* ranks are numbered in Megatron-LM's default order,
tensor-parallel fastest, then data-parallel, then pipeline (``initialize_model_parallel``
with order ``tp-dp-pp``): logical rank ``l`` has ``tp = l % TP``,
``dp = (l // TP) % DP``, ``pp = l // (TP * DP)``. A *placement* is the list that says
which launched worker (the rank the launcher started on a host) plays each logical rank;
the identity is Megatron's placement, Holmes picks another (hosts/strategies/holmes.py).

Groups are lists of launched ranks: the tensor-parallel group of a rank holds the ranks
with its ``dp`` and ``pp``, in ``tp`` order; the data-parallel group those with its
``tp`` and ``pp``; the pipeline group those with its ``tp`` and ``dp``, stage by stage.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from testbed.errors import TrainetError


@dataclass(frozen=True)
class Coordinates:
    dp: int
    pp: int
    tp: int


@dataclass(frozen=True)
class ParallelLayout:
    dp: int
    pp: int
    tp: int
    placement: tuple[int, ...] = field(default=())   # logical rank -> launched rank

    def __post_init__(self):
        for name in ("dp", "pp", "tp"):
            if getattr(self, name) < 1:
                raise TrainetError(f"layout: {name}={getattr(self, name)}; every degree "
                                   "is a whole number of at least 1")
        world = self.dp * self.pp * self.tp
        if not self.placement:
            object.__setattr__(self, "placement", tuple(range(world)))
        if sorted(self.placement) != list(range(world)):
            raise TrainetError(f"layout placement {list(self.placement)}: give each of the "
                               f"{world} ranks exactly once")

    @classmethod
    def fit(cls, world: int, dp: int | None, pp: int | None, tp: int | None,
            strategy: str) -> "ParallelLayout":
        """The layout with the given degrees; one left out (None) takes the rest of the
        world, the others default to 1."""
        given = {"dp": dp, "pp": pp, "tp": tp}
        free = [k for k, v in given.items() if v is None]
        known = 1
        for v in given.values():
            known *= v or 1
        if len(free) > 1:
            for k in free[1:]:
                given[k] = 1
        if free:
            if world % known:
                raise TrainetError(f"strategy {strategy}: {_text(given)} does not divide "
                                   f"the {world} workers; choose degrees whose product "
                                   f"divides {world}")
            given[free[0]] = world // known
        layout = cls(given["dp"], given["pp"], given["tp"])
        if layout.world != world:
            raise TrainetError(f"strategy {strategy}: dp x pp x tp = {_text(given)} = "
                               f"{layout.world} ranks, but there are {world} workers; "
                               f"choose degrees whose product is {world}")
        return layout

    @property
    def world(self) -> int:
        return self.dp * self.pp * self.tp

    def placed(self, placement) -> "ParallelLayout":
        return ParallelLayout(self.dp, self.pp, self.tp, tuple(placement))

    # ------------------------------------------------------------ coordinates
    def logical(self, c: Coordinates) -> int:
        return (c.pp * self.dp + c.dp) * self.tp + c.tp

    def coordinates_of_logical(self, logical: int) -> Coordinates:
        return Coordinates(dp=(logical // self.tp) % self.dp, pp=logical // (self.tp * self.dp),
                           tp=logical % self.tp)

    def coordinates(self, rank: int) -> Coordinates:
        """The coordinates of launched rank ``rank``."""
        return self.coordinates_of_logical(self.placement.index(rank))

    def rank_at(self, c: Coordinates) -> int:
        return self.placement[self.logical(c)]

    # ------------------------------------------------------------ groups
    def tp_group(self, rank: int) -> list[int]:
        c = self.coordinates(rank)
        return [self.rank_at(Coordinates(c.dp, c.pp, t)) for t in range(self.tp)]

    def dp_group(self, rank: int) -> list[int]:
        c = self.coordinates(rank)
        return [self.rank_at(Coordinates(d, c.pp, c.tp)) for d in range(self.dp)]

    def pp_group(self, rank: int) -> list[int]:
        c = self.coordinates(rank)
        return [self.rank_at(Coordinates(c.dp, p, c.tp)) for p in range(self.pp)]

    def groups(self, kind: str) -> list[list[int]]:
        """Every group of ``kind`` (``tp``, ``dp``, ``pp``), each once."""
        of = {"tp": self.tp_group, "dp": self.dp_group, "pp": self.pp_group}[kind]
        seen: list[list[int]] = []
        for r in range(self.world):
            g = of(r)
            if g not in seen:
                seen.append(g)
        return seen

    def describe(self) -> str:
        return f"dp={self.dp} x pp={self.pp} x tp={self.tp}"


def _text(given: dict) -> str:
    return " x ".join(f"{k}={v if v is not None else '?'}" for k, v in given.items())


def split_units(units: int, stages: int, strategy: str,
                counts: list[int] | None = None) -> list[range]:
    """The units of each pipeline stage: ``counts`` per stage when given (Holmes' partition),
    else as even as possible, earlier stages taking the remainder."""
    if stages > units:
        raise TrainetError(f"strategy {strategy}: pp={stages} stages for a model of {units} "
                           f"units (layers); choose pp of at most {units}")
    if counts is None:
        base, extra = divmod(units, stages)
        counts = [base + (1 if s < extra else 0) for s in range(stages)]
    if len(counts) != stages or sum(counts) != units or min(counts) < 1:
        raise TrainetError(f"strategy {strategy}: stage sizes {counts} must be {stages} "
                           f"counts of at least 1 that add up to {units} units")
    out, start = [], 0
    for n in counts:
        out.append(range(start, start + n))
        start += n
    return out
