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

The job's ``lane_bits`` says what kind of worker they are: 32, fp32 workers (gradients in
32-bit lanes, fp32 parameters back); 16, bf16 workers (gradients in 16-bit lanes with an
exponent per packet's block, parameters back as bf16 copies of the optimizer node's fp32
values, :mod:`hosts.luwu_session`). Shadow workers stand for bf16 models, whose values
then travel as they are (bf16 elements, 512 a packet) instead of as fp32 elements each
standing for two; a real model, fp32 on the CPU, then holds bf16 values: its parameters
are rounded to bf16 at set-up and replaced by the bf16 answers after every step.

The switch must run luwu.p4 with the job set up (controllers/luwu.py) and the optimizer
node must be running before the workers start; or, for :class:`Luwu` (strategy
``luwu-sgd``), the switch runs p4/luwu_sgd.p4 and applies SGD with momentum itself, the
job set up by controllers/luwu_sgd.py with the workers' initial parameters (a chunk is
then ``LANES`` values at either width, 16-bit gradients in half the words, the
parameters back as int32 fixed point, which bf16 workers hold rounded to bf16).
"""
from __future__ import annotations

import dataclasses
import time

import numpy as np
import torch
from pydantic import Field

from hosts import shadow
from hosts.collectives.pattern import Collective
from hosts.collectives.timing import Overlap, data_parallel
from hosts.ina_allreduce import UdpTransport
from hosts.luwu_layout import (DEFAULT_BUCKET_BYTES, Layout, initial_parameters,
                               layers_resident, resident_units, shadow_layout,
                               units_resident)
from hosts.luwu_session import PushPull, Streams
from hosts.strategies.base import Memory, Strategy, recompute_backward, tensor_bytes
from hosts.strategies.registry import (Options, Service, Size, StrategyInfo, SwitchJob,
                                       register)
from testbed.errors import TrainetError
from testbed.proto import ina


class Luwu(Strategy):
    def __init__(self, comm, push_pull, bucket_bytes: int = DEFAULT_BUCKET_BYTES,
                 transport=None):
        super().__init__(comm)
        self.push_pull, self.bucket_bytes, self.transport = push_pull, bucket_bytes, transport

    @classmethod
    def over_udp(cls, comm, aggregator: str, job: int, exponent_job: int, slots: int,
                 timeout_s: float, bucket_bytes: int = DEFAULT_BUCKET_BYTES,
                 lane_bits: int = 32, chunk_values: int | None = None) -> "Luwu":
        transport = UdpTransport(aggregator)
        push_pull = PushPull(transport, job, exponent_job, comm.rank, comm.world, slots,
                             give_up_s=timeout_s, lane_bits=lane_bits,
                             chunk_values=chunk_values)
        return cls(comm, push_pull, bucket_bytes, transport)

    def setup(self, model) -> None:
        self.model = model
        self.params = [p for p in model.parameters() if p.requires_grad]
        bits = self.push_pull.lane_bits
        as_worker_holds(self.params, bits)
        self.layout = Layout.of(self.params, self.bucket_bytes, self.push_pull.chunk_values)
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
            sent, recv = self.push_pull.wire_bytes(flat.size)
            self._futures[b] = self.comm.submit("LuWu push-pull", self.push_pull, flat,
                                                sent=sent, recv=recv, op="push-pull",
                                                route="switch")

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
    them. Pulls run two units ahead of their use. The last units that fit in
    ``memory_budget`` bytes stay resident: never pulled, updated by the parameters the
    network answers their gradients with (hosts/luwu_layout.py)."""

    def __init__(self, comm, streams: Streams, memory_budget: int | None = None):
        super().__init__(comm)
        self.streams, self.memory_budget = streams, memory_budget

    def setup(self, model) -> None:
        if not hasattr(model, "units"):
            raise TrainetError(f"strategy luwu pulls the model unit by unit: "
                               f"{type(model).__name__} needs model.units, modules that "
                               "run in sequence make the model (as for zero3); or use "
                               "luwu-resident")
        self.model = model
        self.units = list(model.units)
        self.params = [p for p in model.parameters() if p.requires_grad]
        bits = self.streams.push_pull.lane_bits
        self.layout = Layout.of_units(self.params, self.units,
                                      units_resident(self.units, self.memory_budget),
                                      ina.lanes_per_packet(bits))
        as_worker_holds(self.params, bits)
        self.shapes = [p.shape for p in self.params]
        self.resident_bytes = 0
        for u in range(len(self.units)):
            for i in self.layout.buckets[len(self.units) - 1 - u]:
                if self._resident(u):
                    self.resident_bytes += self.params[i].numel() * 4
                else:
                    self.params[i].data = torch.empty(0)   # the optimizer node holds them

    def _resident(self, u: int) -> bool:
        return len(self.units) - 1 - u < self.layout.resident

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
        order = [u for u in list(range(last)) + list(range(last, -1, -1))
                 if not self._resident(u)]                     # the layout's pull order
        pulls, inputs, pushes = streams.prefetch([self._chunks(u) for u in order]), [x], {}
        with torch.no_grad():
            for u in range(last):
                if not self._resident(u):
                    self._use(u, pulls.take())
                inputs.append(units[u](inputs[-1]))
                if not self._resident(u):
                    self._release(u)
        grad_out = loss = None
        for u in range(last, -1, -1):
            if not self._resident(u):
                self._use(u, pulls.take())
            grad_out, unit_loss = recompute_backward(self.model, units[u], inputs[u], y,
                                                     grad_out, u == last)
            if u == last:
                loss = unit_loss
            pushes[u] = streams.push(self.layout.flatten_bucket(
                last - u, [p.grad for p in self.params]), returns_params=self._resident(u))
            if self._resident(u):
                for i in self.layout.buckets[last - u]:
                    self.params[i].grad = None     # gone to the network
            else:
                self._release(u)
        for u, future in pushes.items():     # the next pulls need this step's updates
            answer = self.comm.wait(future)
            if self._resident(u):
                self.layout.scatter(last - u, answer, self.params)
        return loss.item()

    def memory(self) -> Memory:
        return Memory(self.streams.peak_params_bytes + self.resident_bytes,
                      self.streams.peak_grads_bytes, 0)

    def close(self) -> None:
        self.streams.close()
        super().close()


def as_worker_holds(params, lane_bits: int) -> None:
    """Round ``params`` to the values a worker of ``lane_bits``-bit lanes holds: bf16
    ones for 16 (kept in the model's fp32 tensors), as they are for 32."""
    if lane_bits == 16:
        with torch.no_grad():
            for p in params:
                p.copy_(p.to(torch.bfloat16))


class ShadowLuwuResident(shadow.ShadowStrategy):
    """LuWu in shadow mode, parameters resident: after each layer group of backward the
    worker pushes that group's gradients through p4/luwu.p4 to the optimizer node and
    pulls the group's updated parameters, multicast back by the switch
    (hosts/luwu_session.py's PushPull). The parameter buffer stands for M, one group's
    gradient buffer for M / CHUNKS; there is no optimizer state on the worker. With
    16-bit lanes both are bf16, the target model's own values."""

    def __init__(self, context):
        super().__init__(context)
        self.lane_bits = context.job.lane_bits
        chunk_values = context.options.chunk_values()
        layout = shadow_layout(self.target, self.scale, streamed=False,
                               lane_bits=self.lane_bits, chunk_values=chunk_values)
        self.elements = layout.chunks_per_step * layout.chunk_values
        self.chunk = self.elements // shadow.CHUNKS
        self.transport = UdpTransport(context.job.aggregator)
        self.push_pull = PushPull(self.transport, context.job.job,
                                  context.options.exponent_job_of(context.job.job),
                                  self.comm.rank, self.comm.world, context.job.slots,
                                  give_up_s=context.timeout_s, lane_bits=self.lane_bits,
                                  chunk_values=chunk_values)

    def setup(self, model=None) -> None:
        dtype = torch.bfloat16 if self.lane_bits == 16 else torch.float32
        self.buffer = torch.zeros(self.elements, dtype=dtype)
        self.grads = torch.full((self.chunk,), 1e-3, dtype=dtype)

    def _step(self, batch) -> None:
        time.sleep(self.compute_s / 3)                      # forward
        sent, recv = self.push_pull.wire_bytes(self.chunk)
        futures = []
        for k in range(shadow.CHUNKS):                      # backward, group by group
            time.sleep(self.compute_s * 2 / 3 / shadow.CHUNKS)
            futures.append(self.comm.submit("LuWu push-pull", self.push_pull,
                                            self.grads.float().numpy(), sent=sent,
                                            recv=recv, op="push-pull", route="switch"))
        for k, future in enumerate(futures):
            params = torch.from_numpy(self.comm.wait(future))
            self.buffer[k * self.chunk:(k + 1) * self.chunk].copy_(params)

    def memory(self) -> Memory:
        return Memory(tensor_bytes([self.buffer]), tensor_bytes([self.grads]), 0)

    def close(self) -> None:
        self.transport.close()
        super().close()


class ShadowLuwu(shadow.ShadowStrategy):
    """LuWu in shadow mode, parameters streamed (:class:`LuwuStreamed`): layer by layer,
    the worker pulls the layer's parameters (prefetched two layers ahead), sleeps its
    share of the compute and drops them; in backward it pulls them again and pushes the
    layer's gradients. What it holds is measured: the pulled layers until dropped, the
    gradients until the optimizer node has them. With 16-bit lanes the layers' values are
    bf16, the target model's own."""

    def __init__(self, context):
        super().__init__(context)
        self.layout = shadow_layout(self.target, self.scale, streamed=True,
                                    resident=layers_resident(self.target,
                                                             context.options.memory_budget),
                                    lane_bits=context.job.lane_bits)
        self.layers = self.target.layers
        self.layer_chunks = self.layout.bucket_chunks(0)
        self.streams = streams(context)

    def setup(self, model=None) -> None:
        self.grads = np.full(self.layer_chunks * self.layout.chunk_values, 1e-3,
                             dtype=np.float32)

    def _resident(self, k: int) -> bool:
        return self.layers - 1 - k < self.layout.resident

    def _step(self, batch) -> None:
        streams, last, chunks = self.streams, self.layers - 1, self.layer_chunks
        forward, backward = self.compute_s / 3 / self.layers, self.compute_s * 2 / 3 / self.layers
        pulled = [k for k in list(range(last)) + list(range(last, -1, -1))
                  if not self._resident(k)]
        pulls, pushes = streams.prefetch([chunks] * len(pulled)), []
        for k in range(last):
            if not self._resident(k):
                self.comm.wait(pulls.take())
            time.sleep(forward)
            if not self._resident(k):
                streams.release(chunks)
        for k in range(last, -1, -1):
            if not self._resident(k):
                self.comm.wait(pulls.take())
            time.sleep(backward + (forward if k == last else 0))
            pushes.append(streams.push(self.grads, returns_params=self._resident(k)))
            if not self._resident(k):
                streams.release(chunks)
        for future in pushes:
            self.comm.wait(future)

    def memory(self) -> Memory:
        resident = self.layout.resident * self.layer_chunks * ina.LANES * 4   # LANES words
        return Memory(self.streams.peak_params_bytes + resident,
                      self.streams.peak_grads_bytes, 0)

    def nominal_memory(self) -> Memory:
        """The measured peaks, in nominal bytes (an emulated fp32 element stands for
        4 / scale bytes of the bf16 model)."""
        m = self.memory()
        return Memory(round(m.params_bytes / self.scale), round(m.grads_bytes / self.scale), 0)

    def close(self) -> None:
        self.streams.close()
        super().close()


class LuwuOptions(Options):
    exponent_job: int | None = Field(default=None, ge=0, le=255,
                                     description="INA exponent job id, default: job + 1")

    def exponent_job_of(self, job: int) -> int:
        return self.exponent_job if self.exponent_job is not None else (job + 1) % 256


class ResidentOptions(LuwuOptions):
    def chunk_values(self) -> int | None:
        """Values a chunk holds: None, what a packet of the job's lanes carries."""
        return None


class SgdOptions(LuwuOptions):
    sgd_lr: float = Field(default=0.05, gt=0.0, le=1.0,
                          description="the learning rate of the switch's SGD, in (0, 1]")
    sgd_momentum: float = Field(default=0.9, ge=0.0, lt=1.0,
                                description="the momentum of the switch's SGD, in [0, 1)")

    def chunk_values(self) -> int:
        """Values a chunk holds: LANES, the switch's parameters per packet, at either
        lane width."""
        return ina.LANES


class StreamedOptions(LuwuOptions):
    pull_job: int | None = Field(default=None, ge=0, le=255,
                                 description="pull job id, default: job + 2")
    memory_budget: Size | None = Field(
        default=None, description="bytes of parameters a worker keeps: the last layers "
        "that fit stay resident, answered with their parameters instead of pulled; "
        "default: stream every layer")

    def pull_job_of(self, job: int) -> int:
        return self.pull_job if self.pull_job is not None else (job + 2) % 256


def streams(context) -> Streams:
    job, options = context.job, context.options
    return Streams.over_udp(context.comm, job.aggregator, job.job, options.exponent_job_of(job.job),
                            options.pull_job_of(job.job), job.slots, context.timeout_s,
                            job.lane_bits)


def resident(context) -> Luwu:
    job = context.job
    return Luwu.over_udp(context.comm, job.aggregator, job.job,
                         context.options.exponent_job_of(job.job), job.slots, context.timeout_s,
                         lane_bits=job.lane_bits,
                         chunk_values=context.options.chunk_values())


def _layers(layers: int | None) -> int:
    if not layers:
        raise TrainetError("strategy luwu streams its parameters layer by layer: give the "
                           "model's layers")
    return layers


def _resident_layers(model_bytes: float, layers: int, options) -> int:
    """The last layers that fit the options' memory_budget (bf16 layers of M / L)."""
    budget = options.memory_budget if options is not None else None
    return resident_units([model_bytes / layers] * layers, budget, "luwu: memory_budget")


def streamed_pattern(model_bytes: float, world: int, layers: int | None,
                     options: StreamedOptions | None = None) -> list[Collective]:
    """Gradients out once; each layer's parameters in for forward and again for
    backward, the last layer once for both: (2 - 1/L) M in. With k > 0 resident layers
    (the last ones) those come back once, with the answer to their gradients, and the
    L - k others are pulled twice: (2 - k/L) M in."""
    k = _resident_layers(model_bytes, _layers(layers), options)
    received = (2 - (k or 1) / layers) * model_bytes
    return [Collective("push", model_bytes, "switch"), Collective("pull", received, "switch")]


def resident_pattern(model_bytes: float, world: int, layers: int | None) -> list[Collective]:
    """Gradients out, the updated parameters back: M each way."""
    return [Collective("push", model_bytes, "switch"), Collective("pull", model_bytes, "switch")]


def sgd_pattern(model_bytes: float, world: int, layers: int | None) -> list[Collective]:
    """Gradients out (M of bf16 values in 16-bit lanes), the updated parameters back as
    the switch holds them, int32 fixed point: 2M."""
    return [Collective("push", model_bytes, "switch"),
            Collective("pull", 2 * model_bytes, "switch")]


def sgd_job(job: dict, options: SgdOptions, worker: dict) -> tuple[dict, tuple]:
    """What controllers.luwu_sgd needs beyond the job section: the learning rate and
    momentum (the strategy's options), the exponent job the workers use, and the
    parameters they start from, written into the switch at set-up: the real model's
    (the workers' model, seed and sequence length, hosts.worker's defaults where the
    runner gives none), zeros for a shadow model's chunks."""
    if worker.get("mode") == "shadow":
        layout = shadow_layout(shadow.shadow_model(worker["shadow_model"]), worker["scale"],
                               streamed=False, lane_bits=job["lane_bits"],
                               chunk_values=options.chunk_values())
        initial = np.zeros(layout.chunks_per_step * layout.chunk_values, dtype=np.float32)
    else:
        initial = initial_parameters(worker.get("model", "gpt"), worker.get("seed", 0),
                                     worker.get("seq", 32))
    filled = {**job, "lr": options.sgd_lr, "momentum": options.sgd_momentum}
    if options.exponent_job is not None:          # else the controller's: the job's + 1
        filled["exponent_job_id"] = options.exponent_job
    return filled, (initial,)


PUSHES = Overlap("backward", lane="push")


def streamed_timing(world: int, model=None):
    """Each layer's gradients pushed after its backward; its parameters pulled for
    forward and again for backward, two layers ahead; pushes and pulls on lanes of their
    own (one per direction of the link)."""
    pulls = Overlap("prefetch", lane="pull", ahead=2)
    layers = model.layers if model is not None else shadow.CHUNKS
    return data_parallel(world, overlap=lambda pattern: [PUSHES, pulls], chunks=layers)


def resident_timing(world: int):
    """Each layer group's gradients pushed after its backward, its new parameters
    pulled back at once."""
    return data_parallel(world, overlap=lambda pattern: [PUSHES, Overlap("backward",
                                                                         lane="pull")])


def streamed_memory(params: float, world: int, layers: int | None,
                    options: StreamedOptions | None = None) -> Memory:
    """No optimizer state, no master weights (both on the optimizer node); at most three
    layers of parameters (one computing, two prefetched) and two of gradients (pushes in
    flight): 10P / L, 1/19 of ZeRO-3's 16P / N for GPT-175B (L = 96) on 8 workers; and
    the k resident layers the memory budget holds."""
    layer = params * shadow.BYTES_PER_PARAM / _layers(layers)
    k = _resident_layers(params * shadow.BYTES_PER_PARAM, layers, options)
    return Memory(round((min(3, layers - k) + k) * layer), round(2 * layer), 0)


def resident_memory(params: float, world: int, layers: int | None) -> Memory:
    """The 2P working parameters and the gradients of one layer group, 2P / CHUNKS:
    2.25P in all, more than ZeRO-3's 16P / N from N = 8 on."""
    whole = shadow.adam_memory(params)
    return Memory(whole.params_bytes, round(params * shadow.BYTES_PER_PARAM / shadow.CHUNKS), 0)


def optimizer_options(c) -> dict:
    """``hosts.optimizer_node``'s options for the workers' job (their model, seed,
    sequence length, lr, steps and job ids; in shadow mode their target model and
    scale)."""
    names = {"model": "model", "seed": "seed", "seq": "seq", "lr": "lr", "steps": "steps",
             "ina_job": "job", "pull_job": "pull_job", "mode": "mode",
             "ina_lane_bits": "lane_bits",
             "shadow_model": "shadow_model", "scale": "scale",
             "memory_budget": "memory_budget"}
    return {"job": 1, "workers": c.workers, "bind": c.address, "timeout": c.timeout_s,
            "params": "resident" if c.info is RESIDENT else "streamed",
            "summary_out": c.out_dir / "metrics" / "optimizer.summary.json",
            "params_out": c.out_dir / "metrics" / "optimizer.params.npy",
            **{names[k]: v for k, v in c.worker_args.items() if k in names}}


SWITCH_JOB = SwitchJob(section="luwu", controller="controllers.luwu", program="p4/luwu.p4")
OPTIMIZER_NODE = Service(role="optimizer", label="optimizer node",
                         module="hosts.optimizer_node", options=optimizer_options,
                         job_key="optimizer")

STREAMED = register(StrategyInfo(
    name="luwu",
    description="LuWu: parameters and optimizer state in the network (p4/luwu.p4 and an "
                "optimizer node); workers stream each layer's parameters",
    real=lambda c: LuwuStreamed(c.comm, streams(c), c.options.memory_budget),
    shadow=ShadowLuwu,
    pattern=streamed_pattern,
    memory=streamed_memory,
    options=StreamedOptions,
    timing=streamed_timing,
    gloo=False,
    switch_job=SWITCH_JOB,
    service=OPTIMIZER_NODE))

RESIDENT = register(StrategyInfo(
    name="luwu-resident",
    description="LuWu with the workers' working copy of the parameters resident; the "
                "network answers each gradient bucket with its new parameters",
    real=resident,
    shadow=ShadowLuwuResident,
    pattern=resident_pattern,
    memory=resident_memory,
    options=ResidentOptions,
    timing=resident_timing,
    gloo=False,
    switch_job=SWITCH_JOB,
    service=OPTIMIZER_NODE))

SGD = register(dataclasses.replace(
    RESIDENT,
    name="luwu-sgd",
    description="LuWu with the optimizer in the switch: luwu-resident's workers, SGD with "
                "momentum applied by p4/luwu_sgd.p4 to parameters held in its registers, "
                "no optimizer node",
    pattern=sgd_pattern,
    options=SgdOptions,
    switch_job=SwitchJob(section="luwu", controller="controllers.luwu_sgd",
                         program="p4/luwu_sgd.p4", setup=sgd_job),
    service=None))
