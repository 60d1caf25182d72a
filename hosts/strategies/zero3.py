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

import torch

from hosts.strategies.base import (Memory, Strategy, optimizer_bytes, recompute_backward,
                                   tensor_bytes)


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
    name = "zero3"

    def setup(self, model) -> None:
        self.model = model
        world, rank = self.comm.world, self.comm.rank
        self.units = [_Unit(m, rank, world) for m in model.units]
        self.optimizer = self.adamw([u.shard for u in self.units])
        self.peak_gathered_bytes = 0

    def _gather(self, i: int):
        return self.comm.all_gather(self.units[i].shard.detach())

    def _use(self, i: int, future) -> None:
        full = self.comm.wait(future)
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
        inputs = [x]
        gathers = {0: self._gather(0)}
        with torch.no_grad():
            for i in range(last):
                self._use(i, gathers.pop(i))
                gathers[i + 1] = self._gather(i + 1)
                inputs.append(units[i].module(inputs[-1]))
                self._release(i)
        reductions, grad_out, loss = {}, None, None
        for i in range(last, -1, -1):
            self._use(i, gathers.pop(i))
            if i > 0:
                gathers[i - 1] = self._gather(i - 1)
            grad_out, unit_loss = recompute_backward(self.model, units[i].module, inputs[i], y,
                                                     grad_out, i == last)
            if i == last:
                loss = unit_loss
            flat = torch.zeros(units[i].chunk * self.comm.world)
            flat[:units[i].numel] = torch.cat([p.grad.reshape(-1) for p in units[i].params])
            self._release(i)
            reductions[i] = self.comm.reduce_scatter(flat)
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
        for i, u in enumerate(self.units):
            full = self.comm.wait(self._gather(i))[:u.numel]
            offset = 0
            for shape in u.shapes:
                out.append(full[offset:offset + shape.numel()].view(shape).clone())
                offset += shape.numel()
        return out
