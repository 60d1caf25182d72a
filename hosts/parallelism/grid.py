"""AxoNN's 4D layout: a G_r x G_c x G_d tensor-parallel grid times G_data data-parallel
replicas, as data (coordinates, groups, the valid choices for a world and a model).

Ranks are numbered row fastest, then column, then depth, then data:
``rank = ((data * G_d + d) * G_c + c) * G_r + r``, so the group that all-reduces most
often (the row group, every layer's outputs) holds neighbouring ranks.

* the **row** group of a rank: the ranks that differ only in ``r``;
* the **column** group: only in ``c``;
* the **depth** group: only in ``d`` (a weight shard is split further across it, and the
  replica's batch too);
* the **data** group: only in ``data``;
* the **batch** group: in ``d`` and ``data``, the ranks that hold the same replicated
  parameters (layer norms, embeddings, head) but see different samples.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import product

from testbed.errors import TrainetError

DIMENSIONS = ("g_r", "g_c", "g_d", "g_data")


@dataclass(frozen=True)
class Grid:
    g_r: int
    g_c: int
    g_d: int
    g_data: int

    @property
    def world(self) -> int:
        return self.g_r * self.g_c * self.g_d * self.g_data

    @property
    def tensor(self) -> int:
        """Ranks that hold one replica of the model: G_r x G_c x G_d."""
        return self.g_r * self.g_c * self.g_d

    def coordinates(self, rank: int) -> tuple[int, int, int, int]:
        """(r, c, d, data) of ``rank``."""
        r, rest = rank % self.g_r, rank // self.g_r
        c, rest = rest % self.g_c, rest // self.g_c
        return r, c, rest % self.g_d, rest // self.g_d

    def rank(self, r: int, c: int, d: int, data: int) -> int:
        return ((data * self.g_d + d) * self.g_c + c) * self.g_r + r

    def group(self, rank: int, kind: str) -> list[int]:
        """The ranks of ``rank``'s group of ``kind`` (row, column, depth, data, batch), in
        coordinate order."""
        r, c, d, data = self.coordinates(rank)
        if kind == "row":
            return [self.rank(i, c, d, data) for i in range(self.g_r)]
        if kind == "column":
            return [self.rank(r, i, d, data) for i in range(self.g_c)]
        if kind == "depth":
            return [self.rank(r, c, i, data) for i in range(self.g_d)]
        if kind == "data":
            return [self.rank(r, c, d, i) for i in range(self.g_data)]
        if kind == "batch":
            return [self.rank(r, c, i, j) for j in range(self.g_data) for i in range(self.g_d)]
        raise ValueError(f"no group {kind!r}: row, column, depth, data or batch")

    def groups(self, kind: str) -> list[list[int]]:
        """Every group of ``kind``, each once, by its first rank."""
        first = {"row": (0,), "column": (1,), "depth": (2,), "data": (3,), "batch": (2, 3)}
        if kind not in first:
            raise ValueError(f"no group {kind!r}: {', '.join(first)}")
        return [self.group(rank, kind) for rank in range(self.world)
                if all(self.coordinates(rank)[i] == 0 for i in first[kind])]

    def describe(self) -> str:
        return f"{self.g_r}x{self.g_c}x{self.g_d}x{self.g_data}"


def grids(world: int) -> list[Grid]:
    """Every G_r x G_c x G_d x G_data whose product is ``world``."""
    divisors = [n for n in range(1, world + 1) if world % n == 0]
    return [Grid(r, c, d, world // (r * c * d)) for r, c, d in product(divisors, repeat=3)
            if world % (r * c * d) == 0]


def fits(grid: Grid, hidden: int, heads: int | None = None) -> str | None:
    """Why ``grid`` cannot split a transformer of ``hidden`` features and ``heads`` heads
    (None when it can; a nominal model gives no heads): the heads and the features of
    every linear layer (QKV h -> 3h, projection h -> h, MLP h -> 4h -> h) must split
    evenly over rows and columns, and every local weight block evenly over the depth
    group."""
    if heads is not None and heads % grid.g_c:
        return f"g_c={grid.g_c} does not divide the {heads} attention heads"
    for name in ("g_r", "g_c"):
        if hidden % getattr(grid, name):
            return f"{name}={getattr(grid, name)} does not divide the hidden size {hidden}"
    for k, n in ((hidden, 3 * hidden), (hidden, hidden), (hidden, 4 * hidden)):
        block = (k // grid.g_r) * (n // grid.g_c)
        if block % grid.g_d:
            return (f"g_d={grid.g_d} does not divide a weight block of {block} elements "
                    f"({k}x{n} over {grid.g_r}x{grid.g_c})")
    return None


def grid_text(choices: list[Grid], limit: int = 24) -> str:
    text = ", ".join(g.describe() for g in choices[:limit])
    return text + (f" and {len(choices) - limit} more" if len(choices) > limit else "")


def grid_of(g_r: int, g_c: int, g_d: int, g_data: int | None, world: int,
            strategy: str = "axonn") -> Grid:
    """The grid of the options; ``g_data`` None takes the workers the tensor grid leaves."""
    tensor = g_r * g_c * g_d
    if g_data is None:
        g_data = world // tensor if world % tensor == 0 else 0
    grid = Grid(g_r, g_c, g_d, g_data)
    if g_data < 1 or grid.world != world:
        given = f"g_r={g_r} x g_c={g_c} x g_d={g_d} x g_data={g_data or '?'}"
        raise TrainetError(f"strategy {strategy}: {given} is not {world} workers; choose "
                           f"G_r x G_c x G_d x G_data among {grid_text(grids(world))}")
    return grid
