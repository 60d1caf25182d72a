"""LuWu: data parallelism whose parameters and optimizer state live in the network.

Workers keep only the working copy of the parameters that forward and backward need: no
optimizer state, no master weights, and no gradients after they left. As soon as
backward has produced every gradient of a bucket (the buckets of
:mod:`hosts.luwu_layout`), the communication thread pushes it: one round on the job's
INA exponent job agrees on the bucket's block exponent, then the fixed-point gradient
chunks go to the gradient job of p4/luwu.p4, whose complete slots the switch hands to
the optimizer node (:mod:`hosts.optimizer_node`). Its answers, the bucket's updated fp32
parameters, come back by multicast and are the pull: after backward the worker waits
for every bucket and copies them into the model. Push and pull of a bucket overlap the
rest of backward. The switch must run luwu.p4 with the job set up (controllers/luwu.py)
and the optimizer node must be running before the workers start; or the switch runs
p4/luwu_sgd.p4, applies SGD with momentum itself and answers with fixed-point parameters
(flag FIXED, value = lane * 2^exponent), the job set up by controllers/luwu_sgd.py. The
worker is the same for both.
"""
from __future__ import annotations

import numpy as np

from hosts import ina_fixedpoint as fx
from hosts.ina_allreduce import InaAllReduce, UdpTransport, run_exchange
from hosts.ina_session import Exchange, JobStream
from hosts.luwu_layout import DEFAULT_BUCKET_BYTES, Layout
from hosts.strategies.base import Memory, Strategy, tensor_bytes
from testbed.proto import ina


class ParamsExchange(Exchange):
    """Gradient chunks out; each is answered by the optimizer node's parameters (float32
    bit patterns) or the switch's (fixed point)."""

    answer_flag = ina.FLAG_PARAMS
    missing_hint = ("check that the optimizer node (hosts/optimizer_node.py) is running and "
                    "reachable from the switch, the switch runs luwu.p4 with the job set up "
                    "(controllers/luwu.py), and every worker of the job is running (with "
                    "luwu_sgd.p4: the job set up by controllers/luwu_sgd.py, and its "
                    "counters show no bad_exponent drops)")
    fixed_point = False

    def on_payload(self, payload: bytes, now: float) -> list[bytes]:
        if ina.peek_flags(payload) & ina.FLAG_FIXED:
            self.fixed_point = True
        return super().on_payload(payload, now)


class PushPull:
    """One worker's side of a LuWu job over one transport."""

    def __init__(self, transport, job_id: int, exponent_job_id: int, worker_id: int,
                 n_workers: int, slots: int, exponent_slots: int = 2,
                 give_up_s: float = 30.0):
        self.transport, self.n_workers = transport, n_workers
        self.stream = JobStream(job_id, worker_id, slots, give_up_s=give_up_s)
        self.exponents = InaAllReduce(transport, exponent_job_id, worker_id, n_workers,
                                      exponent_slots)
        self.exponents.stream.give_up_s = give_up_s
        self.packets = 0
        self.retransmissions = 0

    def __call__(self, flat: np.ndarray) -> np.ndarray:
        """The new parameters (float32) for the gradient chunks ``flat``."""
        exponent = self.exponents.agree_exponent(float(np.max(np.abs(flat))))
        q = fx.quantize(flat, exponent, self.n_workers).reshape(-1, ina.LANES)
        ex = run_exchange(ParamsExchange(self.stream, q, exponent), self.transport)
        self.packets += ex.sent_packets + self.exponents.packets
        self.retransmissions += ex.retransmissions + self.exponents.retransmissions
        self.exponents.packets = self.exponents.retransmissions = 0
        values = ex.result.reshape(-1)
        if ex.fixed_point:
            return np.ldexp(values.astype(np.float64), ex.result_exponent).astype(np.float32)
        return values.view(np.float32)


class Luwu(Strategy):
    name = "luwu"

    def __init__(self, comm, push_pull, bucket_bytes: int = DEFAULT_BUCKET_BYTES,
                 transport=None):
        super().__init__(comm)
        self.push_pull, self.bucket_bytes, self.transport = push_pull, bucket_bytes, transport

    @classmethod
    def over_udp(cls, comm, aggregator: str, job: int, exponent_job: int, slots: int,
                 timeout_s: float, bucket_bytes: int = DEFAULT_BUCKET_BYTES) -> "Luwu":
        transport = UdpTransport(aggregator)
        push_pull = PushPull(transport, job, exponent_job, comm.rank, comm.world, slots,
                             give_up_s=timeout_s)
        return cls(comm, push_pull, bucket_bytes, transport)

    def setup(self, model) -> None:
        self.model = model
        self.params = [p for p in model.parameters() if p.requires_grad]
        self.layout = Layout.of(self.params, self.bucket_bytes)
        self._bucket_of = {id(self.params[i]): b
                           for b, bucket in enumerate(self.layout.buckets) for i in bucket}
        for p in self.params:
            p.register_post_accumulate_grad_hook(self._grad_ready)

    def _grad_ready(self, p) -> None:
        b = self._bucket_of[id(p)]
        self._pending[b] -= 1
        if self._pending[b] == 0:
            flat = self.layout.flatten_bucket(b, [q.grad for q in self.params])
            for i in self.layout.buckets[b]:
                self.params[i].grad = None        # gone to the network: not kept here
            nbytes = flat.size * 4
            self._futures[b] = self.comm.submit("LuWu push-pull", self.push_pull, flat,
                                                sent=nbytes, recv=nbytes)

    def _step(self, batch) -> float:
        x, y = batch
        self._pending = [len(b) for b in self.layout.buckets]
        self._futures = [None] * len(self.layout.buckets)
        loss = self.model.loss(self.model(x), y)
        loss.backward()
        for b, future in enumerate(self._futures):
            self.layout.scatter(b, self.comm.wait(future), self.params)
        return loss.item()

    def memory(self) -> Memory:
        return Memory(tensor_bytes(self.params), tensor_bytes(p.grad for p in self.params), 0)

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()
        super().close()
