"""Data parallelism with bucketed gradient all-reduce (gloo's ring over the links).

Every rank holds the whole model and optimizer. Parameters are grouped into buckets of
about ``bucket_bytes`` in reverse registration order (roughly the order backward
produces their gradients); as soon as backward has produced every gradient of a bucket,
the bucket is flattened and its all-reduce starts on the communication thread, so it
overlaps the rest of backward. After backward the rank waits for all buckets, averages,
and takes an AdamW step identical on every rank.

With ``micro_batch_size`` the step accumulates: each micro-batch runs forward and
backward with its loss divided by the count, the gradients add up in place, and the
buckets' all-reduces start only in the last micro-batch's backward (torch's
``DistributedDataParallel.no_sync`` for the others): one all-reduce of each bucket per
step, whatever the number of micro-batches.
"""
from __future__ import annotations

import time

import torch
from pydantic import Field, model_validator

from hosts import shadow
from hosts.collectives.pattern import Collective
from hosts.collectives.timing import Overlap, data_parallel, each
from hosts.strategies.base import (Memory, Strategy, micro_batch_count, optimizer_bytes,
                                   split_batch, tensor_bytes)
from hosts.strategies.registry import AccumulationOptions, Options, StrategyInfo, register

MIB = 1 << 20
DEFAULT_BUCKET_BYTES = 256 * 1024


class DDP(Strategy):
    name = "ddp"

    def __init__(self, comm, lr=1e-3, weight_decay=0.01, bucket_bytes=DEFAULT_BUCKET_BYTES,
                 micro_batch_size: int | None = None):
        super().__init__(comm, lr, weight_decay)
        self.bucket_bytes = bucket_bytes
        self.micro_batch_size = micro_batch_size

    def setup(self, model) -> None:
        self.model = model
        self.params = [p for p in model.parameters() if p.requires_grad]
        self.optimizer = self.optimizer_for(self.params)
        self.buckets: list[list[torch.nn.Parameter]] = [[]]
        size = 0
        for p in reversed(self.params):
            if self.buckets[-1] and size + p.numel() * p.element_size() > self.bucket_bytes:
                self.buckets.append([])
                size = 0
            self.buckets[-1].append(p)
            size += p.numel() * p.element_size()
        self._bucket_of = {id(p): i for i, b in enumerate(self.buckets) for p in b}
        for p in self.params:
            p.register_post_accumulate_grad_hook(self._grad_ready)

    def _grad_ready(self, p) -> None:
        if self._pending is None:                   # accumulating: no_sync
            return
        i = self._bucket_of[id(p)]
        self._pending[i] -= 1
        if self._pending[i] == 0:
            flat = torch.cat([q.grad.reshape(-1) for q in self.buckets[i]])
            self._futures[i] = self.comm.all_reduce(flat)

    def _step(self, batch) -> float:
        micro = split_batch(batch, micro_batch_count(len(batch[0]), self.micro_batch_size,
                                                     self.name))
        self._futures = [None] * len(self.buckets)
        self.optimizer.zero_grad(set_to_none=True)
        loss = 0.0
        for n, (x, y) in enumerate(micro):
            last = n == len(micro) - 1
            self._pending = [len(b) for b in self.buckets] if last else None
            part = self.model.loss(self.model(x), y) / len(micro)
            part.backward()
            loss += part.item()
        for bucket, future in zip(self.buckets, self._futures):
            flat = self.comm.wait(future) / self.comm.world
            offset = 0
            for p in bucket:
                p.grad.copy_(flat[offset:offset + p.numel()].view_as(p))
                offset += p.numel()
        self.optimizer.step()
        return loss

    def memory(self) -> Memory:
        return Memory(tensor_bytes(self.params), tensor_bytes(p.grad for p in self.params),
                      optimizer_bytes(self.optimizer))


class ShadowDDP(shadow.ShadowStrategy):
    """DDP for a nominal model: the buffer's ``CHUNKS`` layer groups are the buckets,
    each all-reduced as soon as its share of backward has been slept."""

    def _step(self, batch) -> None:
        micro_s = self.compute_s / self.micro_batches
        time.sleep(micro_s * (self.micro_batches - 1))    # accumulating: no_sync
        time.sleep(micro_s / 3)                             # forward
        futures = []
        for k in range(shadow.CHUNKS):                      # backward, bucket by bucket
            time.sleep(micro_s * 2 / 3 / shadow.CHUNKS)
            futures.append(self.comm.all_reduce(self.buffer[k * self.chunk:(k + 1) * self.chunk]))
        for f in futures:
            self.comm.wait(f)


class BucketOptions(Options):
    bucket_cap_mb: float = Field(default=DEFAULT_BUCKET_BYTES / MIB, gt=0,
                                 description="gradient bucket size in MiB as PyTorch's DDP "
                                 f"takes it, real mode (shadow mode: {shadow.CHUNKS} layer "
                                 "groups)")

    @model_validator(mode="before")
    @classmethod
    def _renamed(cls, data):
        if isinstance(data, dict) and "bucket" in data:
            raise ValueError("option bucket is now bucket_cap_mb, in MiB as PyTorch's DDP "
                             "takes it (e.g. bucket_cap_mb: 4)")
        return data

    @property
    def bucket_bytes(self) -> int:
        return round(self.bucket_cap_mb * MIB)


class DdpOptions(AccumulationOptions, BucketOptions):
    """DDP's buckets and gradient accumulation."""


def pattern(model_bytes: float, world: int, layers: int | None) -> list[Collective]:
    return [Collective("all-reduce", model_bytes)]


def timing(world: int):
    """Every rank a replica; each layer group's gradients all-reduced after its backward."""
    return data_parallel(world, overlap=each(Overlap("backward")))


INFO = register(StrategyInfo(
    name="ddp",
    description="data parallelism: bucketed gradient all-reduce (gloo's ring), "
                "overlapped with backward",
    real=lambda c: DDP(c.comm, lr=c.lr, bucket_bytes=c.options.bucket_bytes,
                       micro_batch_size=c.options.micro_batch_size),
    shadow=ShadowDDP,
    pattern=pattern,
    memory=lambda params, world, layers: shadow.adam_memory(params),
    options=DdpOptions,
    timing=timing))
