"""AxoNN's 3D tensor-parallel linear layers and the transformer block built from them
(Singh et al. 2023, "A 4D Hybrid Algorithm to Scale Parallel Training to Thousands of
GPUs", arXiv 2305.13525, sec. III; a reconstruction written from the paper and the
behaviour of the public axonn package, not its code).

A linear layer's weight (out x in) is cut into a G_c x G_r grid of blocks: a *normal*
layer splits its input features over the row group and its output features over the
column group; a *transposed* layer the other way round, so a normal layer followed by a
transposed one (QKV then projection, MLP up then down) hands its output on without
re-distribution. Rank (r, c) keeps 1/G_d of its block, flattened, the rest is on the
other ranks of its depth group, which split the replica's batch between them. Per layer:

* forward: all-gather the block over the depth group; multiply the local input (its
  share of the input features, its share of the batch); all-reduce the partial outputs
  over the group that split the input features;
* backward: all-gather the block again (it was not kept); the input's gradient is a
  partial sum over the output features, all-reduced over the other group; the block's
  gradient, from the local batch, is reduce-scattered over the depth group, which both
  sums the batch shares and leaves each rank its 1/G_d.

Overlap (each a switch): ``all_gather`` issues every layer's weight all-gathers ahead, in
the order forward and backward will need them, so they run during the compute of the
layers before; ``all_reduce`` computes the weight gradient while the input gradient's
all-reduce runs; ``reduce_scatter`` leaves the weight gradients' reduce-scatters running
until the optimizer needs them. The depth group's collectives run on a lane of their
own (``DEPTH_LANE``), the row and column groups' on the comm's default one, each in the
same order on every rank: a depth group shares no rank but itself with a row or column
group, so the lanes never exchange messages with the same peer at once, and a prefetched
all-gather does not hold up the all-reduce of the layer before it.

The residual stream, layer norms, attention's softmax, the embedding and the head stay
replicated over the grid (what AxoNN leaves to data parallelism): a block slices the
normed input to its row share before a normal layer (backward: all-gather of the
gradient over the row group) and all-gathers a transposed layer's output over the row
group (backward: the slice). Biases are sharded like their layer's outputs.
"""
from __future__ import annotations

from collections import deque

import torch
import torch.nn.functional as F
from torch import nn

from hosts.models import Block

DEPTH_LANE = "depth"


class Overlap:
    """Which collectives a rank leaves running while it computes."""

    def __init__(self, all_reduce: bool, reduce_scatter: bool, all_gather: bool):
        self.all_reduce, self.reduce_scatter, self.all_gather = \
            all_reduce, reduce_scatter, all_gather


def _all_reduce(comm, t: torch.Tensor, ranks: list[int]):
    """A future of the sum over ``ranks``, or None for a group of one."""
    return comm.all_reduce(t.contiguous(), ranks) if len(ranks) > 1 else None


def _reduced(comm, t, future):
    return t if future is None else comm.wait(future)


def gather_features(comm, t: torch.Tensor, ranks: list[int]) -> torch.Tensor:
    """The group's shares of the last dimension, concatenated in group order."""
    if len(ranks) == 1:
        return t
    parts = comm.wait(comm.all_gather(t.movedim(-1, 0).contiguous(), ranks))
    return parts.view(len(ranks) * t.shape[-1], *t.shape[:-1]).movedim(0, -1)


def share(t: torch.Tensor, ranks: list[int], rank: int) -> torch.Tensor:
    n = len(ranks)
    part = t.shape[-1] // n
    i = ranks.index(rank)
    return t[..., i * part:(i + 1) * part]


class _Split(torch.autograd.Function):
    """Forward: this rank's share of the features; backward: all-gather of the gradient."""

    @staticmethod
    def forward(ctx, x, comm, ranks):
        ctx.comm, ctx.ranks = comm, ranks
        return share(x, ranks, comm.rank).contiguous()

    @staticmethod
    def backward(ctx, grad):
        return gather_features(ctx.comm, grad, ctx.ranks), None, None


class _Join(torch.autograd.Function):
    """Forward: all-gather of the features; backward: this rank's share."""

    @staticmethod
    def forward(ctx, x, comm, ranks):
        ctx.comm, ctx.ranks = comm, ranks
        return gather_features(comm, x, ranks)

    @staticmethod
    def backward(ctx, grad):
        return share(grad, ctx.ranks, ctx.comm.rank).contiguous(), None, None


class _GridMatmul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, shard, layer):
        ctx.save_for_backward(x)
        ctx.layer = layer
        out = x @ layer.block().t()
        return _reduced(layer.comm, out, _all_reduce(layer.comm, out, layer.in_group))

    @staticmethod
    def backward(ctx, grad):
        (x,), layer = ctx.saved_tensors, ctx.layer
        comm, overlap = layer.comm, layer.overlap
        grad_x = grad @ layer.block()
        pending = _all_reduce(comm, grad_x, layer.out_group)
        if not overlap.all_reduce:
            grad_x, pending = _reduced(comm, grad_x, pending), None
        grad_w = (grad.reshape(-1, grad.shape[-1]).t() @ x.reshape(-1, x.shape[-1])).reshape(-1)
        grad_shard = None
        if len(layer.depth) > 1:
            scatter = comm.reduce_scatter(grad_w, layer.depth, lane=DEPTH_LANE)
            if overlap.reduce_scatter:
                layer.pending_grads.append(scatter)
            else:
                grad_shard = comm.wait(scatter)
        else:
            grad_shard = grad_w
        return _reduced(comm, grad_x, pending), grad_shard, None


class GridLinear(nn.Module):
    """Rank (r, c, d)'s piece of ``linear``: ``rows`` of its outputs and ``cols`` of its
    inputs (index lists), the block's ``d``-th 1/G_d flattened; ``in_group`` splits the
    input features, ``out_group`` the outputs."""

    def __init__(self, linear: nn.Linear, rows: list[int], cols: list[int], comm,
                 in_group: list[int], out_group: list[int], depth: list[int],
                 overlap: Overlap):
        super().__init__()
        self.comm, self.in_group, self.out_group, self.depth = comm, in_group, out_group, depth
        self.overlap = overlap
        block = linear.weight.detach()[rows][:, cols]
        self.shape = tuple(block.shape)
        part = block.numel() // len(depth)
        i = depth.index(comm.rank)
        self.weight = nn.Parameter(block.reshape(-1)[i * part:(i + 1) * part].clone())
        self.bias = nn.Parameter(linear.bias.detach()[rows].clone())
        self.gathered: deque = deque()        # prefetched all-gathers, in order of use
        self.pending_grads: list = []         # running reduce-scatters of the gradient

    def prefetch(self) -> None:
        if len(self.depth) > 1:
            self.gathered.append(self.comm.all_gather(self.weight.detach(), self.depth,
                                                      lane=DEPTH_LANE))

    def block(self) -> torch.Tensor:
        """The whole (rows x cols) block: the prefetched all-gather, or one now."""
        if len(self.depth) == 1:
            return self.weight.detach().view(self.shape)
        future = self.gathered.popleft() if self.gathered else \
            self.comm.all_gather(self.weight.detach(), self.depth, lane=DEPTH_LANE)
        return self.comm.wait(future).view(self.shape)

    def finish_gradient(self) -> None:
        """Add the overlapped reduce-scatters' results to the weight's gradient."""
        for future in self.pending_grads:
            g = self.comm.wait(future)
            self.weight.grad = g if self.weight.grad is None else self.weight.grad + g
        self.pending_grads.clear()

    def forward(self, x):
        return _GridMatmul.apply(x, self.weight, self) + self.bias


class GridBlock(nn.Module):
    """One :class:`hosts.models.Block` on rank (r, c, d) of the grid ``groups`` (the
    rank's row, column and depth groups)."""

    def __init__(self, block: Block, comm, groups: dict[str, list[int]], overlap: Overlap):
        super().__init__()
        row, column, depth = groups["row"], groups["column"], groups["depth"]
        r, c = row.index(comm.rank), column.index(comm.rank)
        d = block.qkv.in_features
        self.comm, self.row = comm, row
        self.heads = block.heads // len(column)
        self.ln1, self.ln2 = block.ln1, block.ln2

        def part(size: int, n: int, i: int, offset: int = 0) -> list[int]:
            return list(range(offset + i * size // n, offset + (i + 1) * size // n))

        in_r, in_c = part(d, len(row), r), part(d, len(column), c)
        qkv_rows = [j for k in range(3) for j in part(d, len(column), c, k * d)]
        hidden = block.fc.out_features
        normal = dict(comm=comm, in_group=row, out_group=column, depth=depth, overlap=overlap)
        transposed = dict(comm=comm, in_group=column, out_group=row, depth=depth,
                          overlap=overlap)
        self.qkv = GridLinear(block.qkv, qkv_rows, in_r, **normal)
        self.proj = GridLinear(block.proj, in_r, in_c, **transposed)
        self.fc = GridLinear(block.fc, part(hidden, len(column), c), in_r, **normal)
        self.out = GridLinear(block.out, in_r, part(hidden, len(column), c), **transposed)
        self.linears = [self.qkv, self.proj, self.fc, self.out]

    def forward(self, h):
        b, t, _ = h.shape
        x = _Split.apply(self.ln1(h), self.comm, self.row)
        q, k, v = self.qkv(x).chunk(3, dim=2)
        q, k, v = (z.view(b, t, self.heads, -1).transpose(1, 2) for z in (q, k, v))
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        h = h + _Join.apply(self.proj(a.transpose(1, 2).reshape(b, t, -1)), self.comm,
                            self.row)
        x = _Split.apply(self.ln2(h), self.comm, self.row)
        return h + _Join.apply(self.out(F.gelu(self.fc(x))), self.comm, self.row)
