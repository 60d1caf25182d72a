"""AxoNN's 4D hybrid parallelism (Singh et al. 2023, arXiv 2305.13525): the transformer
blocks' linear layers in 3D tensor parallelism over a G_r x G_c x G_d grid
(hosts/parallelism/grid_layers.py), times G_data data-parallel replicas
(hosts/parallelism/grid.py).

One step on one rank: the replica's batch (``--batch`` samples, the same on every rank
of the replica) is cut into G_d shares, one per depth coordinate; the rank runs its
blocks' pieces on its share; then the gradients are summed and averaged over the
G_d x G_data shares: a layer's weight shard over the data group (the depth group's sum
was the reduce-scatter), the replicated parameters (embedding, layer norms, head, the
biases) over the depth and data groups together. The loss a rank reports is its share's.

Communication per step and rank (:func:`pattern`), for a replica batch of B sequences
of S tokens, hidden size h, L layers and m = B S / G_d tokens per rank; each of a
layer's four linear layers (k inputs, n outputs: QKV h x 3h and MLP h x 4h normal,
projection h x h and MLP 4h x h transposed) moves, in bf16:

* depth group: two all-gathers (forward, backward) and one reduce-scatter of its block,
  k n / (G_r G_c) each;
* the group that splits its inputs (row for normal layers, column for transposed ones):
  a forward all-reduce of the partial outputs, m n / G_out;
* the group that splits its outputs: a backward all-reduce of the input's gradient,
  m k / G_in;
* data group: an all-reduce of its shard's gradient, k n / (G_r G_c G_d).

Summed over the four layers: the row group all-reduces 12 m h / G_c per layer, the
column group 4 m h / G_r, the depth group gathers twice and reduce-scatters once
12 h^2 / (G_r G_c), the data group all-reduces 12 h^2 / (G_r G_c G_d). Besides, the
replicated layer norms cost four all-gathers of m h over the row group per layer (the
two normed inputs' gradients backward, the two transposed outputs forward), and the
replicated parameters (embedding, head: the model less its 12 L h^2 layer weights) an
all-reduce over the depth and data groups.

The paper's model (arXiv 2305.13525, sec. V, its notation: input m x k, weight k x n,
grid G_x x G_y x G_z x G_data, m the replica's tokens) charges one layer
t_AG,z = (G_z - 1)/G_z k n / (G_x G_y) / beta_z for the weights' all-gather, the same
for the reduce-scatter, t_AR,x = 2 (G_x - 1)/G_x m n / (G_y G_z) / beta_x for the
outputs, t_AR,y = 2 (G_y - 1)/G_y m k / (G_x G_z) / beta_y for the input gradients and
t_AR,data = 2 (G_data - 1)/G_data k n / (G_x G_y G_z) / beta_data, with one bandwidth
beta per group from where its ranks sit. Ours are the same volumes with G_x = G_r,
G_y = G_c and m / G_z our m, plus the second all-gather (the axonn package gathers the
weights again in backward rather than keep them) and the row group's feature gathers
around the replicated layer norms; the times come from the same per-group bandwidths
(testbed/experiment/plan.py).
"""
from __future__ import annotations

import torch
from pydantic import Field
from torch import nn

import time

from hosts import shadow
from hosts.collectives.pattern import Collective
from hosts.collectives.timing import Overlap as CommOverlap, Placement, Timing
from hosts.models import Block
from hosts.parallelism.grid import Grid, fits, grid_of, grid_text, grids
from hosts.parallelism.grid_layers import DEPTH_LANE, GridBlock, Overlap
from hosts.strategies.base import Memory, Strategy, optimizer_bytes, tensor_bytes
from hosts.strategies.registry import LayoutChoice, Options, StrategyInfo, register
from testbed.errors import TrainetError


class AxonnOptions(Options):
    g_r: int = Field(default=1, ge=1, description="row group: a normal layer's input "
                     "features split this many ways")
    g_c: int = Field(default=1, ge=1, description="column group: its output features")
    g_d: int = Field(default=1, ge=1, description="depth group: each weight block and the "
                     "replica's batch split this many ways")
    g_data: int | None = Field(default=None, ge=1, description="data-parallel replicas "
                               "(default: the workers the grid leaves)")
    overlap_all_reduce: bool = Field(default=True, description="compute the weight "
                                     "gradient during the input gradient's all-reduce")
    overlap_reduce_scatter: bool = Field(default=True, description="leave the weight "
                                         "gradients' reduce-scatters running until the "
                                         "optimizer step")
    overlap_all_gather: bool = Field(default=True, description="issue the weight "
                                     "all-gathers ahead of the layers that need them")


def grid_for(options: AxonnOptions, world: int) -> Grid:
    return grid_of(options.g_r, options.g_c, options.g_d, options.g_data, world)


def check_fits(grid: Grid, hidden: int, heads: int | None = None) -> None:
    why = fits(grid, hidden, heads)
    if why:
        valid = [g for g in grids(grid.world) if fits(g, hidden, heads) is None]
        model = f"hidden size {hidden}" + (f", {heads} heads" if heads else "")
        raise TrainetError(f"strategy axonn: grid {grid.describe()}: {why}; for this model "
                           f"({model}) choose among "
                           f"{grid_text(valid)}")


def overlap_of(options: AxonnOptions) -> Overlap:
    return Overlap(options.overlap_all_reduce, options.overlap_reduce_scatter,
                   options.overlap_all_gather)


class AxonnTraining(Strategy):
    """Real mode on the project's GPT."""

    name = "axonn"

    def __init__(self, comm, options: AxonnOptions, lr: float = 1e-3):
        super().__init__(comm, lr)
        self.options, self.grid = options, grid_for(options, comm.world)
        self.at = self.grid.coordinates(comm.rank)
        self.groups = {k: self.grid.group(comm.rank, k)
                       for k in ("row", "column", "depth", "data", "batch")}

    def data_shard(self) -> tuple[int, int]:
        return self.at[3], self.grid.g_data

    def setup(self, model) -> None:
        blocks = [u for u in model.units if isinstance(u, Block)]
        if self.grid.tensor > 1:
            if not blocks:
                raise TrainetError(f"strategy axonn: grid {self.grid.describe()} splits "
                                   "transformer blocks; train --model gpt")
            check_fits(self.grid, blocks[0].qkv.in_features, blocks[0].heads)
        overlap = overlap_of(self.options)
        self.model = nn.ModuleList(GridBlock(u, self.comm, self.groups, overlap)
                                   if isinstance(u, Block) else u for u in model.units)
        self.loss_of = model.loss
        self.linears = [lin for u in self.model if isinstance(u, GridBlock)
                        for lin in u.linears]
        self.sharded = [lin.weight for lin in self.linears]
        ids = {id(p) for p in self.sharded}
        self.replicated = [p for p in self.model.parameters() if id(p) not in ids]
        self.optimizer = self.optimizer_for(list(self.model.parameters()))

    def _step(self, batch) -> float:
        x, y = batch
        g_d, d = self.grid.g_d, self.at[2]
        if len(x) % g_d:
            raise TrainetError(f"strategy axonn: a replica's batch of {len(x)} samples "
                               f"does not split over g_d={g_d}; give --batch a multiple "
                               f"of {g_d}")
        share = len(x) // g_d
        x, y = x[d * share:(d + 1) * share], y[d * share:(d + 1) * share]
        self.optimizer.zero_grad(set_to_none=True)
        gather_ahead = self.options.overlap_all_gather
        if gather_ahead:
            for lin in self.linears:
                lin.prefetch()
        h = x
        for unit in self.model:
            h = unit(h)
        loss = self.loss_of(h, y)
        if gather_ahead:
            for lin in reversed(self.linears):
                lin.prefetch()
        loss.backward()
        for lin in self.linears:
            lin.finish_gradient()
        self._average_gradients()
        self.optimizer.step()
        return loss.item()

    def _average_gradients(self) -> None:
        """Sum the shares' gradients (weight shards over the data group, the rest over
        depth and data) and divide by the number of shares."""
        shares = self.grid.g_d * self.grid.g_data
        if shares == 1:
            return
        pending = []
        for params, group in ((self.sharded, self.groups["data"]),
                              (self.replicated, self.groups["batch"])):
            for p in params:
                if p.grad is None:
                    p.grad = torch.zeros_like(p)
            if params and len(group) > 1:
                flat = torch.cat([p.grad.reshape(-1) for p in params])
                pending.append((params, self.comm.all_reduce(flat, group)))
        for params, future in pending:
            flat, offset = self.comm.wait(future), 0
            for p in params:
                p.grad.copy_(flat[offset:offset + p.numel()].view_as(p))
                offset += p.numel()
        for p in self.model.parameters():
            p.grad /= shares

    def memory(self) -> Memory:
        params = list(self.model.parameters())
        return Memory(tensor_bytes(params), tensor_bytes(p.grad for p in params),
                      optimizer_bytes(self.optimizer))


# ---------------------------------------------------------------- the pattern
BF16 = 2


def nominal(model_bytes: float, layers: int | None, model) -> shadow.ShadowModel:
    if model is not None:
        return model
    params = model_bytes / shadow.BYTES_PER_PARAM
    layers = layers or shadow.gpt3_layers(params)
    return shadow.ShadowModel("nominal", params, 2048, layers, f"{params:.3g} parameters")


def layer_weights(target: shadow.ShadowModel) -> float:
    """Parameters of the layers' linear weights, 12 h^2 per layer (at most the model)."""
    return min(target.params, 12 * target.layers * shadow.hidden_size(target) ** 2)


def step_volumes(grid: Grid, target: shadow.ShadowModel, batch: int) -> dict:
    """Bytes per step and rank: {(operation, group): payload}, the module's docstring's
    sums; a group of one rank moves nothing and is left out."""
    h, layers = shadow.hidden_size(target), target.layers
    check_fits(grid, h)
    m = batch * target.seq / grid.g_d
    weights = layer_weights(target) * BF16 / (grid.g_r * grid.g_c)
    rest = (target.params - layer_weights(target)) * BF16
    sizes = {"row": grid.g_r, "column": grid.g_c, "depth": grid.g_d, "dp": grid.g_data,
             "batch": grid.g_d * grid.g_data}
    volumes = {("all-reduce", "row"): layers * 12 * m * h / grid.g_c * BF16,
               ("all-gather", "row"): layers * 4 * m * h * BF16,
               ("all-reduce", "column"): layers * 4 * m * h / grid.g_r * BF16,
               ("all-gather", "depth"): 2 * weights,
               ("reduce-scatter", "depth"): weights,
               ("all-reduce", "dp"): weights / grid.g_d,
               ("all-reduce", "batch"): rest}
    return {k: v for k, v in volumes.items() if sizes[k[1]] > 1 and v > 0}, sizes


def pattern(model_bytes: float, world: int, layers: int | None, options=None, model=None,
            batch: int = 8) -> list[Collective]:
    """The collectives of a step (see the module's docstring)."""
    grid = grid_for(options or AxonnOptions(), world)
    volumes, sizes = step_volumes(grid, nominal(model_bytes, layers, model), batch)
    return [Collective(op, nbytes, group=group, size=sizes[group])
            for (op, group), nbytes in volumes.items()]


def memory(params: float, world: int, layers: int | None, options=None) -> Memory:
    """Mixed-precision Adam state of a rank: its 1/(G_r G_c G_d) of the layers' weights
    and the whole of the replicated rest."""
    grid = grid_for(options or AxonnOptions(), world)
    target = nominal(params * BF16, layers, None)
    weights = layer_weights(target)
    return shadow.adam_memory(weights / grid.tensor + params - weights)


def timing(world: int, options=None) -> Timing:
    """Replicas: G_data; groups in the grid's rank order (row fastest, then column, depth,
    data). Per layer group: the depth all-gathers prefetched on their own lane (all of a
    pass's at its start with ``overlap_all_gather``, else each when needed), the row and
    column collectives after the group's compute (in backward waited for after the next
    group with ``overlap_all_reduce``), the depth reduce-scatters left running on the
    depth lane (``overlap_reduce_scatter``) or waited for; the data and batch all-reduces
    after the step."""
    o = options or AxonnOptions()
    g = grid_for(o, world)
    groups = {"row": Placement(g.g_r), "column": Placement(g.g_c, g.g_r),
              "depth": Placement(g.g_d, g.g_r * g.g_c),
              "dp": Placement(g.g_data, g.tensor),
              "batch": Placement(g.g_d * g.g_data, g.g_r * g.g_c)}
    outputs = CommOverlap("inline", lagged=("backward",) if o.overlap_all_reduce else ())
    overlaps = {("all-gather", "depth"): CommOverlap("prefetch", lane=DEPTH_LANE,
                                                 ahead=shadow.CHUNKS if o.overlap_all_gather
                                                 else 0),
                ("reduce-scatter", "depth"): CommOverlap("backward", lane=DEPTH_LANE)
                if o.overlap_reduce_scatter else CommOverlap("inline", passes=("backward",)),
                ("all-reduce", "row"): outputs, ("all-reduce", "column"): outputs,
                ("all-gather", "row"): outputs}
    return Timing(g.g_data, groups,
                  lambda pattern: [overlaps.get((c.op, c.group), CommOverlap("after"))
                                   for c in pattern])


def layouts(world: int, model=None, batch: int = 8, every: bool = False) -> list[dict]:
    """Every power-of-two grid (``every``: every grid) that splits the model's hidden
    size and heads and whose replicas and depth split the global batch (AxoNN's search,
    arXiv 2305.13525, sec. V)."""
    hidden = shadow.hidden_size(model) if model is not None else 128
    heads = model.attention_heads if model is not None else None
    out = []
    for g in grids(world):
        if not every and any(x & (x - 1) for x in (g.g_r, g.g_c, g.g_d, g.g_data)):
            continue
        if batch % g.g_data or (batch // g.g_data) % g.g_d or fits(g, hidden, heads):
            continue
        out.append(_degrees(g))
    return out


def _degrees(g: Grid) -> dict:
    return {"g_r": g.g_r, "g_c": g.g_c, "g_d": g.g_d, "g_data": g.g_data}


def layout(world: int, options: AxonnOptions) -> LayoutChoice:
    g = grid_for(options, world)
    return LayoutChoice(_degrees(g), g.describe(), "G_r x G_c x G_d x G_data")


# ---------------------------------------------------------------- shadow mode
class ShadowAxonn(shadow.ShadowStrategy):
    """A nominal model's step: per pass, ``shadow.CHUNKS`` groups of layers, each
    sleeping its share of the rank's compute (1/(G_r G_c G_d) of the replica's, forward
    a third, backward two thirds) and moving its share of the pattern's volumes, co-scaled;
    the overlap switches say which collectives run on while the next group computes."""

    def __init__(self, context):
        super().__init__(context)
        self.grid = grid_for(self.options, self.comm.world)
        self.groups = {k: self.grid.group(self.comm.rank, k)
                       for k in ("row", "column", "depth", "batch")}
        self.groups["dp"] = self.grid.group(self.comm.rank, "data")
        self.batch = context.batch

    def data_shard(self) -> tuple[int, int]:
        return self.grid.coordinates(self.comm.rank)[3], self.grid.g_data

    def _elements(self, nbytes: float, group: str, parts: int) -> int:
        """fp32 elements standing for ``nbytes`` nominal bytes in ``parts`` pieces,
        a multiple of the group's size."""
        n = len(self.groups[group])
        per = nbytes * self.scale / self.model_bytes_per_element / parts
        return max(n, round(per / n) * n)

    def setup(self, model=None) -> None:
        volumes, _ = step_volumes(self.grid, self.target, self.batch)
        chunks = shadow.CHUNKS
        share = self.compute_s / self.grid.tensor / chunks
        self.forward_s, self.backward_s = share / 3, share * 2 / 3
        self.tensors = {}
        for (op, group), nbytes in volumes.items():
            per_pass = {("all-gather", "depth"): 2 * chunks, ("all-gather", "row"): 2 * chunks,
                        ("all-reduce", "row"): 2 * chunks, ("all-reduce", "column"): 2 * chunks,
                        ("reduce-scatter", "depth"): chunks}.get((op, group), 1)
            n = self._elements(nbytes, group, per_pass)
            self.tensors[op, group] = torch.zeros(n // len(self.groups[group])
                                                  if op == "all-gather" else n)

    def _issue(self, op: str, group: str):
        t = self.tensors.get((op, group))
        if t is None:
            return None
        if op == "all-reduce":
            return self.comm.all_reduce(t, self.groups[group])
        collective = self.comm.all_gather if op == "all-gather" else self.comm.reduce_scatter
        return collective(t, self.groups[group],
                          lane=DEPTH_LANE if group == "depth" else "comm")

    def _wait(self, *futures) -> None:
        for f in futures:
            if f is not None:
                self.comm.wait(f)

    def _pass(self, seconds: float, backward: bool) -> list:
        """One pass; returns the reduce-scatters left running."""
        o, chunks = self.options, shadow.CHUNKS
        ahead = [self._issue("all-gather", "depth") for _ in range(chunks)] \
            if o.overlap_all_gather else []
        running, scatters = [], []
        for i in range(chunks):
            self._wait(ahead[i] if ahead else self._issue("all-gather", "depth"))
            time.sleep(seconds)
            self._wait(*running)
            outputs = [self._issue("all-reduce", "row"), self._issue("all-reduce", "column"),
                       self._issue("all-gather", "row")]
            if backward:
                scatter = self._issue("reduce-scatter", "depth")
                if o.overlap_reduce_scatter:
                    scatters.append(scatter)
                else:
                    self._wait(scatter)
            running = outputs if backward and o.overlap_all_reduce else []
            if not running:
                self._wait(*outputs)
        self._wait(*running)
        return scatters

    def _step(self, batch) -> None:
        self._pass(self.forward_s, backward=False)
        self._wait(*self._pass(self.backward_s, backward=True))
        self._wait(self._issue("all-reduce", "dp"), self._issue("all-reduce", "batch"))

    def memory(self) -> Memory:
        return Memory(tensor_bytes(self.tensors.values()), 0, 0)


register(StrategyInfo(
    name="axonn", description="AxoNN's 4D hybrid parallelism: the blocks' linear layers "
    "over a G_r x G_c x G_d grid (weights all-gathered over depth, outputs all-reduced over "
    "rows or columns, gradients reduce-scattered over depth) times G_data replicas, "
    "collectives overlapped with compute",
    real=lambda c: AxonnTraining(c.comm, c.options, lr=c.lr),
    shadow=ShadowAxonn, pattern=pattern, memory=memory, options=AxonnOptions,
    timing=timing, layouts=layouts, layout=layout))
