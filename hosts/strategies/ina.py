"""Data parallelism whose gradient all-reduce runs in the network (p4/ina.p4).

The same bucketing and overlap as :mod:`hosts.strategies.ddp`; each bucket is summed by
the switch through :class:`hosts.ina_allreduce.InaAllReduce` (fixed-point, one exponent
per bucket) instead of gloo's ring. Each worker sends its bucket once and receives the
sum once: M out and M in per step, whatever the number of workers. The switch must run
ina.p4 with the job set up (controllers/ina.py) before the workers start.
"""
from __future__ import annotations

from hosts.ina_allreduce import InaAllReduce, UdpTransport
from hosts.strategies.ddp import DEFAULT_BUCKET_BYTES, DDP


class InaComm:
    """What DDP asks of its comm for an all-reduce, done by the switch."""

    def __init__(self, comm, reducer: InaAllReduce):
        self.comm, self.reducer = comm, reducer

    def all_reduce(self, tensor):
        nbytes = tensor.numel() * 4
        return self.comm.submit("in-network all-reduce", self.reducer.all_reduce, tensor,
                                sent=nbytes, recv=nbytes)

    def __getattr__(self, name):
        return getattr(self.comm, name)


class InaDDP(DDP):
    name = "ina"

    def __init__(self, comm, aggregator: str, job: int, slots: int, timeout_s: float,
                 lr=1e-3, weight_decay=0.01, bucket_bytes=DEFAULT_BUCKET_BYTES):
        self.transport = UdpTransport(aggregator)
        reducer = InaAllReduce(self.transport, job, comm.rank, comm.world, slots)
        reducer.stream.give_up_s = timeout_s
        super().__init__(InaComm(comm, reducer), lr, weight_decay, bucket_bytes)

    def close(self) -> None:
        self.transport.close()
        super().close()
