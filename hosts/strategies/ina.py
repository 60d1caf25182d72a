"""Data parallelism whose gradient all-reduce runs in the network (p4/ina.p4).

The same bucketing and overlap as :mod:`hosts.strategies.ddp`; each bucket is summed by
the switch through :class:`hosts.ina_allreduce.InaAllReduce` (fixed-point, one exponent
per bucket) instead of gloo's ring. Each worker sends its bucket once and receives the
sum once: M out and M in per step, whatever the number of workers, where bf16 values
travel in 16-bit lanes (the job's ``lane_bits``, 16 by default; with 32 each bf16 value
takes a 32-bit lane, 2M each way). The switch must run ina.p4 with the job set up
(controllers/ina.py) before the workers start.
"""
from __future__ import annotations

import dataclasses

import torch

from hosts import shadow
from hosts.collectives.pattern import Collective
from hosts.ina_allreduce import InaAllReduce, UdpTransport, lane_bits_for
from hosts.strategies.ddp import DDP, BucketOptions, ShadowDDP, timing
from hosts.strategies.registry import StrategyInfo, SwitchJob, register


class InaComm:
    """What DDP asks of its comm for an all-reduce, done by the switch."""

    def __init__(self, comm, reducer: InaAllReduce):
        self.comm, self.reducer = comm, reducer

    def all_reduce(self, tensor):
        bits = self.reducer.lane_bits or lane_bits_for(tensor.dtype)
        nbytes = tensor.numel() * bits // 8
        return self.comm.submit("in-network all-reduce", self.reducer.all_reduce, tensor,
                                sent=nbytes, recv=nbytes, op="all-reduce", route="switch")

    def __getattr__(self, name):
        return getattr(self.comm, name)


def switch_comm(context) -> tuple[InaComm, UdpTransport]:
    """The rank's comm with its all-reduces done by the context's switch job."""
    transport = UdpTransport(context.job.aggregator)
    # with 16-bit lanes each tensor goes in the lanes of its type; else all in 32 bits
    reducer = InaAllReduce(transport, context.job.job, context.comm.rank, context.comm.world,
                           context.job.slots,
                           lane_bits=None if context.job.lane_bits == 16 else 32,
                           lanes=context.job.lanes)
    reducer.stream.give_up_s = context.timeout_s
    return InaComm(context.comm, reducer), transport


class InaDDP(DDP):
    def __init__(self, context):
        comm, self.transport = switch_comm(context)
        super().__init__(comm, context.lr, bucket_bytes=context.options.bucket_bytes)

    def close(self) -> None:
        self.transport.close()
        super().close()


class ShadowIna(ShadowDDP):
    """ShadowDDP whose buckets the switch sums: one lane per bf16 value, of 16 bits (a
    bf16 buffer) or, where the job says 32, of 32 bits (an fp32 buffer)."""

    model_bytes_per_element = 2

    def __init__(self, context):
        comm, self.transport = switch_comm(context)
        self.lane_bits = context.job.lane_bits
        super().__init__(dataclasses.replace(context, comm=comm))

    def setup(self, model=None) -> None:
        self.buffer = torch.zeros(self.elements, dtype=torch.bfloat16
                                  if self.lane_bits == 16 else torch.float32)

    def close(self) -> None:
        self.transport.close()
        super().close()


def pattern(model_bytes: float, world: int, layers: int | None) -> list[Collective]:
    """One 16-bit lane per bf16 value, out to the switch and the sum back: M each way."""
    return [Collective("all-reduce", model_bytes, "switch")]


INFO = register(StrategyInfo(
    name="ina",
    description="data parallelism whose gradient all-reduce the switch computes "
                "(p4/ina.p4, SwitchML/ATP class)",
    real=InaDDP,
    shadow=ShadowIna,
    pattern=pattern,
    memory=lambda params, world, layers: shadow.adam_memory(params),
    options=BucketOptions,
    timing=timing,
    gloo=False,
    switch_job=SwitchJob(section="ina", controller="controllers.ina", program="p4/ina.p4",
                         lane_bits=16)))
