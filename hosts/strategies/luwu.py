"""LuWu: data parallelism whose parameters and optimizer state live in the network.

Neither strategy holds optimizer state, master weights, or gradients after they left:
each pushes a bucket of gradients as soon as backward has produced it
(:class:`hosts.luwu_session.PushPull`). They differ in how they hold the parameters.
:class:`Luwu` (strategy ``luwu-resident``) keeps the working copy that forward and
backward need; the answers to its gradients are the bucket's updated parameters, which
it copies into the model after backward. :class:`LuwuStreamed` (strategy ``luwu``)
keeps none: like ZeRO-3 it fetches each unit of the model for forward and again for
backward and drops it after use, but it pulls the unit from the network (the switch
multicasts each chunk the optimizer node sends once to every worker of the job) instead
of gathering shards from its peers, and pushes its gradients once, to the switch, while
the next unit's pull runs (:class:`hosts.luwu_session.Streams`).

The switch must run luwu.p4 with the job set up (controllers/luwu.py) and the optimizer
node must be running before the workers start; or, for :class:`Luwu`, the switch runs
p4/luwu_sgd.p4 and applies SGD with momentum itself, the job set up by
controllers/luwu_sgd.py.
"""
from __future__ import annotations

import torch

from hosts.ina_allreduce import UdpTransport
from hosts.luwu_layout import DEFAULT_BUCKET_BYTES, Layout
from hosts.luwu_session import PushPull, Streams
from hosts.strategies.base import Memory, Strategy, recompute_backward, tensor_bytes
from testbed.errors import TrainetError


class Luwu(Strategy):
    name = "luwu-resident"

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


class LuwuStreamed(Strategy):
    """LuWu with the parameters streamed: see the module docstring. ``model.units`` run
    in sequence make the model (as for ZeRO-3); each is pulled before its forward,
    recomputed from its saved input with autograd for backward (pulled again), and
    dropped after; its gradients leave for the switch as soon as backward produced
    them. Pulls run two units ahead of their use."""

    name = "luwu"

    def __init__(self, comm, streams: Streams):
        super().__init__(comm)
        self.streams = streams

    def setup(self, model) -> None:
        if not hasattr(model, "units"):
            raise TrainetError(f"strategy luwu pulls the model unit by unit: "
                               f"{type(model).__name__} needs model.units, modules that "
                               "run in sequence make the model (as for zero3); or use "
                               "luwu-resident")
        self.model = model
        self.units = list(model.units)
        self.params = [p for p in model.parameters() if p.requires_grad]
        self.layout = Layout.of_units(self.params, self.units)
        self.shapes = [p.shape for p in self.params]
        for p in self.params:
            p.data = torch.empty(0)           # the optimizer node holds them

    def _chunks(self, u: int) -> int:
        return self.layout.bucket_chunks(len(self.units) - 1 - u)

    def _use(self, u: int, future) -> None:
        flat = torch.from_numpy(self.comm.wait(future))
        at = 0
        for i in self.layout.buckets[len(self.units) - 1 - u]:
            n = self.shapes[i].numel()
            self.params[i].data = flat[at:at + n].view(self.shapes[i])
            at += n

    def _release(self, u: int) -> None:
        for i in self.layout.buckets[len(self.units) - 1 - u]:
            self.params[i].data = torch.empty(0)
            self.params[i].grad = None
        self.streams.release(self._chunks(u))

    def _step(self, batch) -> float:
        x, y = batch
        units, last, streams = self.units, len(self.units) - 1, self.streams
        order = list(range(last)) + list(range(last, -1, -1))    # the layout's pull order
        pulls, inputs, pushes = streams.prefetch([self._chunks(u) for u in order]), [x], []
        with torch.no_grad():
            for u in range(last):
                self._use(u, pulls.take())
                inputs.append(units[u](inputs[-1]))
                self._release(u)
        grad_out = loss = None
        for u in range(last, -1, -1):
            self._use(u, pulls.take())
            grad_out, unit_loss = recompute_backward(self.model, units[u], inputs[u], y,
                                                     grad_out, u == last)
            if u == last:
                loss = unit_loss
            pushes.append(streams.push(self.layout.flatten_bucket(
                last - u, [p.grad for p in self.params])))
            self._release(u)
        for future in pushes:             # the next pulls need this step's updates
            self.comm.wait(future)
        return loss.item()

    def memory(self) -> Memory:
        return Memory(self.streams.peak_params_bytes, self.streams.peak_grads_bytes, 0)

    def close(self) -> None:
        self.streams.close()
        super().close()
