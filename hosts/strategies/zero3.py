"""ZeRO-3: parameters, gradients and optimizer state partitioned across ranks.

Each unit of the model (``model.units``: embedding, each block, the head) is flattened,
padded to a multiple of the world size and split; rank ``r`` keeps only chunk ``r`` of
every unit, as an fp32 shard with its gradient and AdamW state. A step:

* forward: for each unit, all-gather its parameters (the next unit's gather is started
  before this one runs, so it overlaps compute), run it without autograd, keep only its
  input activation, free the parameters;
* backward, last unit first: all-gather the unit again, recompute its forward from the
  saved input with autograd on, backpropagate the output gradient, free the parameters,
  and start a reduce-scatter of the unit's gradient (it overlaps the next unit's
  backward); the head unit is gathered once, for both its forward and its backward;
* each rank applies AdamW to its own shards with the averaged gradient chunk.

The recomputation makes this ZeRO-3 with per-unit activation checkpointing: the
communication is ZeRO-3's (two parameter all-gathers and one gradient reduce-scatter,
3 M (N-1)/N per rank) and, AdamW being element-wise, the parameters after each step are
those of single-process training on the global batch.
"""
from __future__ import annotations

import time

import torch

from hosts import shadow
from hosts.strategies.base import (Memory, Strategy, optimizer_bytes, recompute_backward,
                                   tensor_bytes)
from hosts.strategies.pattern import Collective
from hosts.strategies.registry import StrategyInfo, register


class _Unit:
    """One unit: this rank's fp32 shard of its flattened parameters, and the module whose
    parameters hold the full values only while gathered (empty otherwise)."""

    def __init__(self, module, rank: int, world: int):
        self.module = module
        self.params = [p for p in module.parameters() if p.requires_grad]
        self.shapes = [p.shape for p in self.params]
        self.numel = sum(p.numel() for p in self.params)
        self.chunk = -(-self.numel // world)
        flat = torch.zeros(self.chunk * world)
        flat[:self.numel] = torch.cat([p.detach().reshape(-1) for p in self.params])
        self.shard = torch.nn.Parameter(flat[rank * self.chunk:(rank + 1) * self.chunk].clone())
        self.free()

    def materialize(self, full: torch.Tensor) -> None:
        offset = 0
        for p, shape in zip(self.params, self.shapes):
            n = shape.numel()
            p.data = full[offset:offset + n].view(shape)
            offset += n

    def free(self) -> None:
        for p in self.params:
            p.data = torch.empty(0)
            p.grad = None


class Zero3(Strategy):
    """ZeRO-3 on the units of a real model. Subclasses change where a unit's parameters
    come from (:meth:`_gather`) and how its gradient is reduced (:meth:`_reduce`)."""

    def setup(self, model) -> None:
        self.model = model
        world, rank = self.comm.world, self.comm.rank
        self.units = [_Unit(m, rank, world) for m in model.units]
        self.optimizer = self.adamw([u.shard for u in self.units])
        self.peak_gathered_bytes = 0

    def _gather(self, i: int, backward: bool):
        """(future, unpack): ``unpack(future's result)`` is unit ``i``'s full flat
        parameters, for its forward or, with ``backward``, its backward."""
        return self.comm.all_gather(self.units[i].shard.detach()), lambda full: full

    def _reduce(self, i: int, flat: torch.Tensor):
        """A future of this rank's chunk of the sum over ranks of unit ``i``'s gradient."""
        return self.comm.reduce_scatter(flat)

    def _before_forward(self) -> None:
        """Called at the start of every step."""

    def _use(self, i: int, pending) -> None:
        future, unpack = pending
        full = unpack(self.comm.wait(future))
        self.units[i].materialize(full)
        self._live_bytes += full.numel() * full.element_size()
        self.peak_gathered_bytes = max(self.peak_gathered_bytes, self._live_bytes)

    def _release(self, i: int) -> None:
        self.units[i].free()
        self._live_bytes -= self.units[i].chunk * self.comm.world * 4

    def _step(self, batch) -> float:
        x, y = batch
        units, last = self.units, len(self.units) - 1
        self._live_bytes = 0
        self.optimizer.zero_grad(set_to_none=True)
        self._before_forward()
        inputs = [x]
        gathers = {0: self._gather(0, backward=False)}
        with torch.no_grad():
            for i in range(last):
                self._use(i, gathers.pop(i))
                gathers[i + 1] = self._gather(i + 1, backward=False)
                inputs.append(units[i].module(inputs[-1]))
                self._release(i)
        reductions, grad_out, loss = {}, None, None
        for i in range(last, -1, -1):
            self._use(i, gathers.pop(i))
            if i > 0:
                gathers[i - 1] = self._gather(i - 1, backward=True)
            grad_out, unit_loss = recompute_backward(self.model, units[i].module, inputs[i], y,
                                                     grad_out, i == last)
            if i == last:
                loss = unit_loss
            flat = torch.zeros(units[i].chunk * self.comm.world)
            flat[:units[i].numel] = torch.cat([p.grad.reshape(-1) for p in units[i].params])
            self._release(i)
            reductions[i] = self._reduce(i, flat)
        for i, future in reductions.items():
            units[i].shard.grad = self.comm.wait(future) / self.comm.world
        self.optimizer.step()
        return loss.item()

    def memory(self) -> Memory:
        shards = [u.shard for u in self.units]
        return Memory(tensor_bytes(shards) + self.peak_gathered_bytes,
                      tensor_bytes(s.grad for s in shards), optimizer_bytes(self.optimizer))

    def full_parameters(self) -> list[torch.Tensor]:
        out = []
        for u in self.units:
            full = self.comm.wait(self.comm.all_gather(u.shard.detach()))[:u.numel]
            offset = 0
            for shape in u.shapes:
                out.append(full[offset:offset + shape.numel()].view(shape).clone())
                offset += shape.numel()
        return out


class ShadowZero3(shadow.ShadowStrategy):
    """ZeRO-3 for a nominal model: each of the ``CHUNKS`` layer groups is gathered
    (prefetched one group ahead) for forward and again for backward, and its gradients
    reduce-scattered after its share of backward. Subclasses change the gathers
    (:meth:`_gather`) and the reduction (:meth:`_reduce`)."""

    def setup(self, model=None) -> None:
        super().setup()
        self.shard = torch.zeros(self.chunk // self.comm.world)

    def _gather(self, backward: bool):
        return self.comm.all_gather(self.shard)

    def _reduce(self, k: int):
        return self.comm.reduce_scatter(self.buffer[k * self.chunk:(k + 1) * self.chunk])

    def _gather_pass(self, order, seconds: float, backward: bool) -> list:
        reductions = []
        pending = self._gather(backward)
        for n, k in enumerate(order):
            self.comm.wait(pending)
            if n + 1 < len(order):
                pending = self._gather(backward)
            time.sleep(seconds / shadow.CHUNKS)
            if backward:                                    # the group's gradients
                reductions.append(self._reduce(k))
        return reductions

    def _step(self, batch) -> None:
        self._gather_pass(range(shadow.CHUNKS), self.compute_s / 3, backward=False)
        for f in self._gather_pass(range(shadow.CHUNKS - 1, -1, -1), self.compute_s * 2 / 3,
                                   backward=True):
            self.comm.wait(f)


def pattern(model_bytes: float, world: int, layers: int | None) -> list[Collective]:
    """A parameter all-gather in forward and again in backward, a gradient
    reduce-scatter: 3 (N-1)/N M per worker."""
    return [Collective("all-gather", model_bytes), Collective("all-gather", model_bytes),
            Collective("reduce-scatter", model_bytes)]


def memory(params: float, world: int, layers: int | None) -> Memory:
    """Parameters, gradients and optimizer state partitioned (the ZeRO paper's
    P_os+g+p, sec. 5.3): (2P + 2P + 12P) / N."""
    return shadow.adam_memory(params / world)


INFO = register(StrategyInfo(
    name="zero3",
    description="ZeRO-3: parameters, gradients and AdamW state sharded; all-gather before "
                "forward and backward, ring reduce-scatter of gradients",
    real=lambda c: Zero3(c.comm, lr=c.lr),
    shadow=ShadowZero3,
    pattern=pattern,
    memory=memory))
