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

With ``offload_optimizer`` (and ``offload_param``), DeepSpeed's ZeRO-Offload and
ZeRO-Infinity options, the optimizer state lives in host memory or on NVMe and the step
pays for the transfers and the CPU optimizer (hosts/offload.py): a real run really steps
AdamW on the CPU (it always does here) and sleeps the transfers at the device's host
profile's rates; a shadow run sleeps the whole modeled cost.

With ``micro_batch_size`` the step accumulates as DeepSpeed's ZeRO-3 does with
gradient_accumulation_steps: every micro-batch gathers each unit's parameters for its
forward and again for its backward and reduce-scatters the unit's gradient, which
each rank adds to its shard's gradient (divided by the count); the optimizer steps once.
The parameter and gradient traffic thus grows with the number of micro-batches:
DeepSpeed keeps no unpartitioned gradient across micro-batches and refuses its
``no_sync`` under ZeRO stages 2 and 3 (its engine asserts that gradient partitioning
is incompatible with it), so ZeRO-3 has no once-per-step reduction to defer to.

The recomputation makes this ZeRO-3 with per-unit activation checkpointing: the
communication is ZeRO-3's (two parameter all-gathers and one gradient reduce-scatter,
3 M (N-1)/N per rank) and, AdamW being element-wise, the parameters after each step are
those of single-process training on the global batch.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Literal

import torch
from pydantic import Field, model_validator

from hosts import devices, offload, shadow
from hosts.collectives.pattern import Collective
from hosts.collectives.timing import Overlap, data_parallel
from hosts.devices import Host
from hosts.strategies.base import (Memory, Strategy, micro_batch_count, optimizer_bytes,
                                   recompute_backward, split_batch, tensor_bytes)
from hosts.strategies.registry import AccumulationOptions, Options, StrategyInfo, register

Tier = Literal["none", "cpu", "nvme"]


@dataclass(frozen=True)
class Offload:
    """Where a rank keeps its optimizer state and parameters, and the host it moves
    them over."""

    optimizer: str
    param: str
    host: Host
    share: int                  # GPUs sharing the host


def offload_of(context) -> Offload | None:
    """The context's offload tiers (options ``offload_optimizer``, ``offload_param``),
    None without offloading."""
    tier = getattr(context.options, "offload_optimizer", "none")
    if tier == "none":
        return None
    host = devices.host_of(context.device or devices.device(devices.DEFAULT))
    return Offload(tier, context.options.offload_param, host,
                   context.gpus_per_host or host.gpus)


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

    name = "zero3"

    def __init__(self, comm, lr: float = 1e-3, offload: Offload | None = None,
                 micro_batch_size: int | None = None):
        super().__init__(comm, lr)
        self.offload = offload
        self.micro_batch_size = micro_batch_size

    def setup(self, model) -> None:
        self.model = model
        world, rank = self.comm.world, self.comm.rank
        self.units = [_Unit(m, rank, world) for m in model.units]
        self.optimizer = self.optimizer_for([u.shard for u in self.units])
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
        micro = split_batch(batch, micro_batch_count(len(batch[0]), self.micro_batch_size,
                                                     self.name))
        self._live_bytes = 0
        self.optimizer.zero_grad(set_to_none=True)
        self._before_forward()
        loss = sum(self._micro_step(x, y, len(micro)) for x, y in micro) / len(micro)
        if self.offload is None:
            self.optimizer.step()
        else:
            self._offloaded_step()
        return loss

    def _micro_step(self, x, y, count: int) -> float:
        """Forward and backward of one of ``count`` micro-batches; its gradient, reduced
        and divided by the ranks and ``count``, added to the shards'. Returns its loss."""
        units, last = self.units, len(self.units) - 1
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
            part = self.comm.wait(future) / (self.comm.world * count)
            shard = units[i].shard
            shard.grad = part if shard.grad is None else shard.grad + part
        return loss.item()

    def transfers(self) -> offload.OffloadCost:
        """The modeled transfers of one offloaded step (fp32 here), without the CPU
        optimizer, which runs for real."""
        o = self.offload
        return offload.cost(sum(u.shard.numel() for u in self.units), o.host, o.share,
                            math.inf, o.optimizer, o.param, bytes_per_param=4)

    def _offloaded_step(self) -> None:
        start = time.perf_counter()
        time.sleep(self.transfers().total_s)
        self.optimizer.step()
        self.offload_s += time.perf_counter() - start

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

    def __init__(self, context):
        super().__init__(context)
        where = offload_of(context)
        self.offload_cost = None
        if where is not None:
            rate = context.cpu_adam_rate or offload.measure_cpu_adam()
            self.offload_cost = offload.cost(
                self.target.params / self.comm.world, where.host, where.share,
                devices.cpu_adam_rate(where.host, rate, where.share), where.optimizer,
                where.param)

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
        micro_s = self.compute_s / self.micro_batches
        for _ in range(self.micro_batches):     # each gathers and reduces (DeepSpeed's)
            self._gather_pass(range(shadow.CHUNKS), micro_s / 3, backward=False)
            for f in self._gather_pass(range(shadow.CHUNKS - 1, -1, -1), micro_s * 2 / 3,
                                       backward=True):
                self.comm.wait(f)
        if self.offload_cost is not None:
            start = time.perf_counter()
            time.sleep(self.offload_cost.total_s)
            self.offload_s += time.perf_counter() - start


def pattern(model_bytes: float, world: int, layers: int | None) -> list[Collective]:
    """A parameter all-gather in forward and again in backward, a gradient
    reduce-scatter: 3 (N-1)/N M per worker."""
    return [Collective("all-gather", model_bytes), Collective("all-gather", model_bytes),
            Collective("reduce-scatter", model_bytes)]


GATHERS = [Overlap("prefetch", passes=("forward",)), Overlap("prefetch", passes=("backward",))]


def overlap(pattern: list[Collective]) -> list[Overlap]:
    """The forward and the backward gathers each prefetched one layer group ahead; the
    rest (the gradient reductions) after each backward layer group."""
    return GATHERS + [Overlap("backward")] * (len(pattern) - 2)


def timing(world: int, options=None, sizes: dict | None = None, model=None, device=None):
    """Every rank a replica; with the optimizer offloaded, the host's share of the step
    (hosts/offload.py) after it."""
    host_s = None
    if getattr(options, "offload_optimizer", "none") != "none" and model is not None:
        host = devices.host_of(device or devices.device(devices.DEFAULT))

        def host_s(rate: float, share: int | None) -> float:
            share = share or host.gpus
            return offload.cost(model.params / world, host, share,
                                devices.cpu_adam_rate(host, rate, share),
                                options.offload_optimizer, options.offload_param).total_s
    return data_parallel(world, sizes, overlap, host_s=host_s, per_micro_batch=every_micro_batch)


def every_micro_batch(pattern: list[Collective]) -> list[bool]:
    """Accumulating, every gather and reduction runs once per micro-batch (DeepSpeed)."""
    return [True] * len(pattern)


class OffloadOptions(Options):
    offload_optimizer: Tier = Field(
        default="none", description="DeepSpeed's offload_optimizer device: AdamW state and "
        "its step on the host (cpu, ZeRO-Offload) or on NVMe (nvme, ZeRO-Infinity)")
    offload_param: Tier = Field(
        default="none", description="DeepSpeed's offload_param device: the parameter "
        "partition on the host or NVMe, brought to the GPU before each gather")

    @model_validator(mode="after")
    def _param_follows_optimizer(self):
        if self.offload_param != "none" and self.offload_optimizer == "none":
            raise ValueError("offload_param: parameters on the host are updated there; set "
                             "offload_optimizer too")
        return self


class Zero3Options(AccumulationOptions, OffloadOptions):
    """ZeRO-3's offloading and gradient accumulation."""


def memory(params: float, world: int, layers: int | None,
           options: Zero3Options | None = None) -> Memory:
    """Parameters, gradients and optimizer state partitioned (the ZeRO paper's
    P_os+g+p, sec. 5.3): (2P + 2P + 12P) / N on the device. With the optimizer offloaded
    the fp32 gradient partition (4P/N) is on the host and the optimizer state (12P/N) on
    the host or NVMe; with the parameters offloaded their partition (2P/N) too, and the
    device holds the two layers being gathered (one computing, one prefetched)."""
    options = options or Zero3Options()
    shard = shadow.adam_memory(params / world)
    if options.offload_optimizer == "none":
        return shard
    elsewhere = {"cpu": 0, "nvme": 0}
    elsewhere["cpu"] += round(4 * params / world)
    elsewhere[options.offload_optimizer] += shard.optimizer_bytes
    on_device = shard.params_bytes
    if options.offload_param != "none":
        elsewhere[options.offload_param] += shard.params_bytes
        on_device = round(2 * params * shadow.BYTES_PER_PARAM / layers) if layers else 0
    return Memory(on_device, 0, 0, host_bytes=elsewhere["cpu"], nvme_bytes=elsewhere["nvme"])


INFO = register(StrategyInfo(
    name="zero3",
    description="ZeRO-3: parameters, gradients and AdamW state sharded; all-gather before "
                "forward and backward, ring reduce-scatter of gradients; optionally "
                "offloaded to host memory or NVMe (ZeRO-Offload, ZeRO-Infinity)",
    real=lambda c: Zero3(c.comm, lr=c.lr, offload=offload_of(c),
                         micro_batch_size=c.options.micro_batch_size),
    shadow=ShadowZero3,
    pattern=pattern,
    memory=memory,
    options=Zero3Options,
    timing=timing))
