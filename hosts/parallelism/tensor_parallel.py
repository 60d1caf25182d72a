"""Tensor parallelism in the style of Megatron-LM (Shoeybi et al. 2019, "Megatron-LM:
Training Multi-Billion Parameter Language Models Using Model Parallelism", sec. 3).

A transformer block's attention and MLP each become a column-parallel linear layer (the
QKV projection split by heads, the MLP's first layer by output features) followed by a
row-parallel one (the attention output projection and the MLP's second layer split by
input features). Each member of the tensor-parallel group computes its part of the block;
two operators join them:

* ``f`` before a column-parallel layer: identity forward, all-reduce of the gradient
  backward (every member's part of the input gradient is summed);
* ``g`` after a row-parallel layer: all-reduce forward (the partial outputs are summed),
  identity backward.

So a block costs two all-reduces of the activation in forward and two in backward. The
row-parallel layers' biases are added once, after ``g``. Layer norms, the embedding and
the LM head are replicated (Megatron also splits the embedding by vocabulary; this model's
256-byte vocabulary does not need it): every member computes them on the same input, so
their gradients agree without communication.

A member's shard is cut from the full block that every rank builds from the same seed, so
training matches single-process training of the same model.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from hosts.models import Block
from testbed.errors import TrainetError


class _Reduce(torch.autograd.Function):
    """All-reduce over the group in one direction of autograd, identity in the other."""

    @staticmethod
    def forward(ctx, x, comm, ranks, in_forward):
        ctx.comm, ctx.ranks, ctx.in_forward = comm, ranks, in_forward
        return comm.wait(comm.all_reduce(x.clone(), ranks)) if in_forward else x.view_as(x)

    @staticmethod
    def backward(ctx, grad):
        if not ctx.in_forward:
            grad = ctx.comm.wait(ctx.comm.all_reduce(grad.contiguous().clone(), ctx.ranks))
        return grad, None, None, None


def copy_to_group(x, comm, ranks):
    """Megatron's ``f``."""
    return _Reduce.apply(x, comm, ranks, False)


def reduce_from_group(x, comm, ranks):
    """Megatron's ``g``."""
    return _Reduce.apply(x, comm, ranks, True)


def check_tensor_parallel(heads: int, d_model: int, tp: int, strategy: str) -> None:
    if heads % tp or d_model % tp:
        raise TrainetError(f"strategy {strategy}: tp={tp} does not divide the model's "
                           f"{heads} attention heads (hidden size {d_model}); choose a tp "
                           f"that divides {heads}")


def _rows(weight: torch.Tensor, parts: list[tuple[int, int]]) -> nn.Parameter:
    return nn.Parameter(torch.cat([weight[a:b] for a, b in parts]).detach().clone())


class ParallelBlock(nn.Module):
    """Member ``index`` of ``len(ranks)`` of one :class:`hosts.models.Block`."""

    def __init__(self, block: Block, comm, ranks: list[int]):
        super().__init__()
        n, t = len(ranks), ranks.index(comm.rank)
        d = block.qkv.in_features
        check_tensor_parallel(block.heads, d, n, "tensor parallel")
        self.comm, self.ranks = comm, ranks
        self.heads = block.heads // n
        self.ln1, self.ln2 = block.ln1, block.ln2
        part = d // n
        qkv = [(k * d + t * part, k * d + (t + 1) * part) for k in range(3)]
        self.qkv_w, self.qkv_b = _rows(block.qkv.weight, qkv), _rows(block.qkv.bias, qkv)
        self.proj_w = nn.Parameter(block.proj.weight[:, t * part:(t + 1) * part].detach().clone())
        self.proj_b = block.proj.bias
        hidden = block.fc.out_features // n
        fc = [(t * hidden, (t + 1) * hidden)]
        self.fc_w, self.fc_b = _rows(block.fc.weight, fc), _rows(block.fc.bias, fc)
        self.out_w = nn.Parameter(block.out.weight[:, t * hidden:(t + 1) * hidden].detach().clone())
        self.out_b = block.out.bias

    def forward(self, h):
        b, t, _ = h.shape
        x = copy_to_group(self.ln1(h), self.comm, self.ranks)
        q, k, v = F.linear(x, self.qkv_w, self.qkv_b).chunk(3, dim=2)
        q, k, v = (z.view(b, t, self.heads, -1).transpose(1, 2) for z in (q, k, v))
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        a = F.linear(a.transpose(1, 2).reshape(b, t, -1), self.proj_w)
        h = h + reduce_from_group(a, self.comm, self.ranks) + self.proj_b
        x = copy_to_group(self.ln2(h), self.comm, self.ranks)
        m = F.linear(F.gelu(F.linear(x, self.fc_w, self.fc_b)), self.out_w)
        return h + reduce_from_group(m, self.comm, self.ranks) + self.out_b


def shard(unit: nn.Module, comm, ranks: list[int]) -> nn.Module:
    """``unit`` as this member of the tensor-parallel group ``ranks`` runs it: a block
    split, anything else replicated."""
    if len(ranks) > 1 and isinstance(unit, Block):
        return ParallelBlock(unit, comm, ranks)
    return unit
