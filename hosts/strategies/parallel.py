"""Model parallelism: pipeline (PP) and tensor (TP) parallelism, with data parallelism (DP)
across replicas of the pipeline, over a :class:`~hosts.parallelism.layout.ParallelLayout`.

One step on one rank, stage ``s`` of the pipeline of its data-parallel replica:

1. the replica's batch (the same on every rank of the replica) is cut into
   ``micro_batches`` equal micro-batches;
2. the stage runs its schedule (hosts/parallelism/pipeline.py): a forward takes the
   micro-batch's activation from stage ``s - 1`` (received as a real tensor over the
   links) or the input, runs the stage's units and sends the output to stage ``s + 1``; a
   backward takes the output's gradient from stage ``s + 1`` (or the loss, on the last
   stage), runs autograd and sends the input's gradient back to stage ``s - 1``. Receives
   are posted ahead in schedule order, sends go out on their own lanes, so transfers
   overlap compute. Inside a stage the blocks are tensor-parallel
   (hosts/parallelism/tensor_parallel.py);
3. after the flush, the stage's gradients are all-reduced over its data-parallel group
   and averaged, and AdamW steps.

The time a stage waits for an activation or a gradient is its *bubble* (``bubble_s`` in
the step metrics; part of the exposed communication). The loss, on the last stage, is the
replica's loss: the mean over its micro-batches.

Shadow mode replays the same schedule for a nominal model: per micro-batch the stage
sleeps its share of the compute model (forward a third, backward two thirds, in
proportion to its layers), moves the activation ``b x s x h`` in bf16 (co-scaled) between
stages, runs the tensor-parallel all-reduces of its layers (two per layer in forward, two
in backward, joined into one all-reduce per micro-batch and direction: the same bytes,
fewer latencies), and all-reduces its gradients (the stage's share of the model in bf16)
over the data-parallel group, issued as the last micro-batch's backward starts
(``overlap_grad_reduce``, as Megatron-LM's --overlap-grad-reduce; real mode reduces after
the backward). A pass's seconds are hosts/compute.py's for the stage's layers (and the
logits on the last stage) at the micro-batch size, tensor split, sequence parallelism
and recompute of the options. Real mode runs full recompute too: each unit keeps only
its input and runs its forward again in the backward (torch.utils.checkpoint).
"""
from __future__ import annotations

import dataclasses
import time
from typing import Literal

import torch
from pydantic import Field
from torch import nn
from torch.utils.checkpoint import checkpoint

from hosts import shadow
from hosts.compute import RECOMPUTE
from hosts.collectives.pattern import Collective
from hosts.collectives.timing import Overlap, Pipeline, Placement, Timing
from hosts.parallelism.layout import ParallelLayout, split_units
from hosts.parallelism.partition import METHODS, stage_layers
from hosts.parallelism.pipeline import schedule
from hosts.parallelism.tensor_parallel import check_tensor_parallel, shard
from hosts.strategies.base import Memory, Strategy, optimizer_bytes, tensor_bytes
from hosts.strategies.registry import LayoutChoice, Options, StrategyInfo, register
from testbed.errors import TrainetError

BF16 = 2
# real ranks rebuild a unit from its input (full); selective would need attention's core
# checkpointed inside the project's blocks, which they do not expose
RECOMPUTES = {"shadow": RECOMPUTE, "real": ("none", "full")}


class ParallelOptions(Options):
    dp: int | None = Field(default=None, ge=1, description="data-parallel replicas")
    pp: int | None = Field(default=None, ge=1, description="pipeline stages")
    tp: int | None = Field(default=None, ge=1, description="tensor-parallel ranks per stage")
    micro_batch_size: int | None = Field(default=None, ge=1, description="sequences per "
                                         "micro-batch (Megatron-LM's --micro-batch-size); "
                                         "default 1 when pipelined, else the replica's batch")
    micro_batches: int | None = Field(default=None, ge=1, description="micro-batches per "
                                      "step instead of micro_batch_size")
    schedule: Literal["1f1b", "gpipe"] = Field(default="1f1b", description="pipeline "
                                               "schedule: 1f1b or gpipe")
    virtual_stages: int = Field(default=1, ge=1, description="model chunks per pipeline "
                                "stage (Megatron-LM's interleaved 1F1B; the layers must split "
                                "into pp x virtual_stages equal chunks)")
    recompute: Literal["none", "selective", "full"] = Field(
        default="none", description="activation recomputation: none, selective (attention's "
        "core, Korthikanti et al. 2022) or full (every layer's forward)")
    sequence_parallel: bool = Field(default=False, description="sequence parallelism: layer "
                                    "norms and dropouts split over the tensor ranks, "
                                    "all-gather + reduce-scatter instead of all-reduce")
    overlap_grad_reduce: bool = Field(default=True, description="data-parallel gradient "
                                      "all-reduce overlapped with the last micro-batch's "
                                      "backward, as Megatron-LM's --overlap-grad-reduce")
    gradient_accumulation_fusion: bool = Field(
        default=True, description="each micro-batch's weight gradients accumulated inside "
        "the weight-gradient product (Megatron-LM's --gradient-accumulation-fusion); false: "
        "added to the gradient buffer by a kernel of its own, as Megatron-LM of 2021 did")
    distributed_optimizer: bool = Field(
        default=False, description="optimizer state (fp32 master weights, Adam moments) "
        "sharded over the data-parallel group, gradients reduce-scattered and parameters "
        "all-gathered instead of one all-reduce: ZeRO stage 1, Megatron-LM's "
        "--use-distributed-optimizer (modelled: trainet model)")
    partition: Literal[METHODS] = Field(
        default="layers", description="layers per pipeline stage: layers (as even as "
        "possible), embeddings (embedding and head count as layers) or parameters "
        "(balanced on parameter counts), hosts/parallelism/partition.py (modelled: "
        "trainet model)")


def layout_of(options: ParallelOptions, world: int, rest: str, strategy: str) -> ParallelLayout:
    """The layout the options give; the degree ``rest`` takes what the others leave."""
    degrees = {k: getattr(options, k) for k in ("dp", "pp", "tp")}
    degrees = {k: (v if v is not None or k == rest else 1) for k, v in degrees.items()}
    return ParallelLayout.fit(world, **degrees, strategy=strategy)


def resolve(options: ParallelOptions, batch: int, pp: int, strategy: str,
            layers: int | None = None) -> ParallelOptions:
    """The options with ``micro_batches`` set from ``micro_batch_size`` (default 1 when
    pipelined, else the whole replica batch of ``batch`` sequences), checked."""
    size, count = options.micro_batch_size, options.micro_batches
    if size is not None and count is not None and size * count != batch:
        raise TrainetError(f"strategy {strategy}: micro_batch_size={size} x micro_batches="
                           f"{count} is not the {batch} sequences per replica; give one of "
                           "the two")
    if count is None:
        size = size or (1 if pp > 1 else batch)
        if batch % size:
            divisors = [d for d in range(1, batch + 1) if batch % d == 0]
            raise TrainetError(f"strategy {strategy}: micro_batch_size={size} does not divide "
                               f"the {batch} sequences per replica; accepted: "
                               f"{', '.join(map(str, divisors[:12]))}"
                               + (" ..." if len(divisors) > 12 else ""))
        count = batch // size
    micro_batch_size(batch, count, strategy)
    v = options.virtual_stages
    if v > 1:
        if pp < 2:
            raise TrainetError(f"strategy {strategy}: virtual_stages={v} interleaves a "
                               "pipeline; give pp of 2 or more, or virtual_stages=1")
        if layers is not None and layers % (pp * v):
            fits = [k for k in range(1, layers // pp + 1) if layers % (pp * k) == 0]
            raise TrainetError(f"strategy {strategy}: virtual_stages={v} with pp={pp} cuts "
                               f"{layers} layers into {pp * v} chunks unevenly; accepted "
                               f"virtual_stages: {', '.join(map(str, fits))}")
        if count % pp:
            raise TrainetError(f"strategy {strategy}: the interleaved schedule needs the "
                               f"micro-batches ({count}) to be a multiple of pp={pp}")
    return options.model_copy(update={"micro_batches": count, "micro_batch_size": batch // count})


def micro_batch_size(batch: int, micro_batches: int, strategy: str) -> int:
    if batch % micro_batches:
        raise TrainetError(f"strategy {strategy}: a batch of {batch} samples per replica "
                           f"does not split into micro_batches={micro_batches}; choose a "
                           f"number of micro-batches that divides {batch}")
    return batch // micro_batches


class PipelineStage:
    """What real and shadow stages share: the neighbours, and running a schedule whose
    passes exchange tensors with them."""

    def place(self, layout: ParallelLayout, options: ParallelOptions) -> None:
        self.layout, self.options = layout, options
        rank = self.comm.rank
        self.at = layout.coordinates(rank)
        pipe = layout.pp_group(rank)
        self.prev = pipe[self.at.pp - 1] if self.at.pp > 0 else None
        self.next = pipe[self.at.pp + 1] if self.at.pp + 1 < layout.pp else None
        self.tp_ranks, self.dp_ranks = layout.tp_group(rank), layout.dp_group(rank)

    def data_shard(self) -> tuple[int, int]:
        return self.at.dp, self.layout.dp

    def run_schedule(self, forward, backward, in_shape, out_shape) -> None:
        """``forward(i, input or None)`` returns the output to send on;
        ``backward(i, gradient or None)`` the input's gradient to send back (None on the
        first stage). Activations come in as ``in_shape`` and go out as ``out_shape``."""
        m = self.options.micro_batches
        self.bubble_s = self.bubble_s or 0.0
        ops = schedule(self.options.schedule, self.at.pp, self.layout.pp, m)
        inputs = {i: self.comm.recv(in_shape, self.prev, 2 * i, "pp-recv-forward")
                  for op, i in ops if op == "F" and self.prev is not None}
        grads = {i: self.comm.recv(out_shape, self.next, 2 * i + 1, "pp-recv-backward")
                 for op, i in ops if op == "B" and self.next is not None}
        sends = []
        for op, i in ops:
            if op == "F":
                out = forward(i, self._wait(inputs[i]) if i in inputs else None)
                if self.next is not None:
                    sends.append(self.comm.send(out, self.next, 2 * i, "pp-send-forward"))
            else:
                grad = backward(i, self._wait(grads[i]) if i in grads else None)
                if self.prev is not None:
                    sends.append(self.comm.send(grad, self.prev, 2 * i + 1,
                                                "pp-send-backward"))
        for f in sends:
            self.comm.wait(f)

    def _wait(self, future):
        start = time.perf_counter()
        try:
            return self.comm.wait(future)
        finally:
            self.bubble_s += time.perf_counter() - start


class ParallelTraining(PipelineStage, Strategy):
    """Real mode: the project's models, split into stages and tensor-parallel blocks."""

    def __init__(self, comm, layout: ParallelLayout, options: ParallelOptions, lr=1e-3,
                 partition=None, name: str = "parallel", batch: int = 8):
        super().__init__(comm, lr)
        self.name, self.partition, self.batch = name, partition, batch
        self.place(layout, options)

    def setup(self, model) -> None:
        counts = self.partition(self, unit_work(model, self.batch, self.layout.tp)) \
            if self.partition else None
        stages = split_units(len(model.units), self.layout.pp, self.name, counts)
        mine = [model.units[i] for i in stages[self.at.pp]]
        if self.layout.tp > 1:
            blocks = [u for u in model.units if hasattr(u, "heads")]
            if not blocks:
                raise TrainetError(f"strategy {self.name}: tp={self.layout.tp} splits "
                                   "transformer blocks; train --model gpt")
            check_tensor_parallel(blocks[0].heads, blocks[0].qkv.in_features,
                                  self.layout.tp, self.name)
        self._all_units = list(model.units)      # for the activation shapes
        self.loss_of = model.loss
        self.model = nn.ModuleList(shard(u, self.comm, self.tp_ranks) for u in mine)
        self.params = [p for p in self.model.parameters() if p.requires_grad]
        self.optimizer = self.optimizer_for(self.params)
        self._units = stages[self.at.pp]

    def _step(self, batch) -> float | None:
        x, y = batch
        if self.options.micro_batches is None:       # from micro_batch_size, this batch's
            self.options = resolve(self.options, len(x), self.layout.pp, self.name)
        m = self.options.micro_batches
        micro = micro_batch_size(len(x), m, self.name)
        xs, ys = x.split(micro), y.split(micro)
        self.optimizer.zero_grad(set_to_none=True)
        saved, losses = {}, []

        def forward(i, inp):
            h = xs[i] if inp is None else inp.requires_grad_()
            out = h
            for unit in self.model:
                out = self._run(unit, out)
            if self.next is None:
                out = self.loss_of(out, ys[i]) / m
                losses.append(out.item())
            saved[i] = (h, out)
            return out.detach()

        def backward(i, grad):
            h, out = saved.pop(i)
            out.backward(grad)
            return h.grad if self.prev is not None else None

        self.run_schedule(forward, backward, *self._boundaries(x, micro))
        self._reduce_gradients()
        self.optimizer.step()
        return sum(losses) if self.next is None else None

    def _run(self, unit, h: torch.Tensor) -> torch.Tensor:
        """One unit's forward; under full recompute only its input is kept and the
        forward runs again in the backward (torch.utils.checkpoint, the same random
        state), its tensor-parallel all-reduces with it."""
        if self.options.recompute == "full" and torch.is_grad_enabled():
            return checkpoint(unit, h, use_reentrant=False)
        return unit(h)

    def _boundaries(self, x: torch.Tensor, micro: int) -> tuple[tuple, tuple]:
        """The shapes of the activations entering and leaving this stage for a
        micro-batch, found once by running one sample through the whole model."""
        if self._all_units is not None:
            shapes, h = [], x[:1]
            with torch.no_grad():
                for unit in self._all_units:
                    h = unit(h)
                    shapes.append(tuple(h.shape[1:]))
            first, last = self._units.start, self._units.stop - 1
            self._shapes = (shapes[first - 1] if first else (), shapes[last])
            self._all_units = None                  # the other stages' units are theirs
        return tuple((micro,) + s for s in self._shapes)

    def compute_speed(self) -> float:
        """FLOP/s of this host: a timed 256 x 256 matrix product."""
        a = torch.randn(256, 256)
        a @ a
        start = time.perf_counter()
        for _ in range(8):
            a @ a
        return 8 * 2 * 256 ** 3 / (time.perf_counter() - start)

    def _reduce_gradients(self) -> None:
        if self.layout.dp == 1:
            return
        for p in self.params:
            if p.grad is None:
                p.grad = torch.zeros_like(p)
        flat = torch.cat([p.grad.reshape(-1) for p in self.params])
        flat = self.comm.wait(self.comm.all_reduce(flat, self.dp_ranks)) / self.layout.dp
        offset = 0
        for p in self.params:
            p.grad.copy_(flat[offset:offset + p.numel()].view_as(p))
            offset += p.numel()

    def memory(self) -> Memory:
        return Memory(tensor_bytes(self.params), tensor_bytes(p.grad for p in self.params),
                      optimizer_bytes(self.optimizer))


class ShadowParallel(PipelineStage, shadow.ShadowStrategy):
    """The same schedule for a nominal model (see the module's docstring)."""

    def __init__(self, context, layout: ParallelLayout, partition=None,
                 name: str = "parallel"):
        shadow.ShadowStrategy.__init__(self, context)
        self.context_device = context.device
        self.place(layout, context.options)
        self.name, self.partition, self.batch = name, partition, context.batch
        micro = micro_batch_size(context.batch, self.options.micro_batches, name)
        act = activation_bytes(self.target, micro) * self.scale
        self.act_elements = max(1, round(act / self.model_bytes_per_element))

    def setup(self, model=None) -> None:
        m, target, layout = self.options.micro_batches, self.target, self.layout
        flops = shadow.step_flops(target.params, self.batch * target.seq) / layout.tp
        grads = target.params * BF16 / layout.tp
        tp = 4 * self.act_elements * self.model_bytes_per_element / self.scale * m \
            if layout.tp > 1 else 0.0
        counts = self.partition(self, [(flops / target.layers, grads / target.layers, tp)]
                                * target.layers) if self.partition else None
        layers = len(split_units(target.layers, layout.pp, self.name, counts)[self.at.pp])
        o, micro = self.options, self.batch // m
        fused = o.gradient_accumulation_fusion
        one = shadow.layer_pass(target, self.context_device, micro, layout.tp,
                                o.sequence_parallel, o.recompute, self.mfu, fused) * layers
        if self.next is None:
            one = one + shadow.head_pass(target, self.context_device, micro, layout.tp,
                                         self.mfu, fused)
        self.forward_s, self.backward_s = one.forward_s, one.backward_s
        share = layers / target.layers / layout.tp
        self.tp_elements = 2 * layers * self.act_elements
        grads = self.elements * share
        self.grad_elements = max(layout.dp, round(grads / layout.dp) * layout.dp)
        self.activation = torch.zeros(self.act_elements)
        self.tp_buffer = torch.zeros(self.tp_elements if self.layout.tp > 1 else 0)
        self.grads = torch.zeros(self.grad_elements)

    def compute_speed(self) -> float:
        """FLOP/s of the modelled device (its peak at the utilisation given)."""
        return shadow.step_flops(self.target.params, self.batch * self.target.seq) / self.compute_s

    def _pass(self, seconds: float, all_reduces: int = 1) -> torch.Tensor:
        """A pass's compute, then its tensor-parallel all-reduces (one buffer of every
        layer's two)."""
        time.sleep(seconds)
        if self.layout.tp > 1:
            for _ in range(all_reduces):
                self.comm.wait(self.comm.all_reduce(self.tp_buffer, self.tp_ranks))
        return self.activation

    def _step(self, batch) -> None:
        shape, last = (self.act_elements,), self.options.micro_batches - 1
        early = self.layout.dp > 1 and self.options.overlap_grad_reduce
        reduced = []

        def backward(i, _):
            if early and i == last:          # issued as the last backward starts
                reduced.append(self.comm.all_reduce(self.grads, self.dp_ranks))
            # full recompute re-runs the forward, its all-reduces with it
            return self._pass(self.backward_s, 2 if self.options.recompute == "full" else 1)

        self.run_schedule(lambda i, _: self._pass(self.forward_s), backward, shape, shape)
        if self.layout.dp > 1:
            self.comm.wait(reduced[0] if reduced else
                           self.comm.all_reduce(self.grads, self.dp_ranks))

    def memory(self) -> Memory:
        return Memory(tensor_bytes([self.activation, self.tp_buffer, self.grads]), 0, 0)


def unit_work(model, batch: int, tp: int) -> list[tuple[float, float, float]]:
    """(FLOPs, gradient bytes, tensor-parallel all-reduce bytes) per step of each of a
    real model's units on one rank for a replica's batch: 6 FLOPs per parameter and
    token, fp32 gradients, a block split ``tp`` ways all-reduces its activation (tokens x
    d_model) twice in forward and twice in backward."""
    cfg = getattr(model, "cfg", None)
    tokens = batch * getattr(cfg, "seq", 1)
    out = []
    for u in model.units:
        split = hasattr(u, "heads") and tp > 1
        params = sum(p.numel() for p in u.parameters()) / (tp if split else 1)
        out.append((6.0 * params * tokens, 4.0 * params,
                    4 * tokens * cfg.d_model * 4.0 if split else 0.0))
    return out


def activation_bytes(target: shadow.ShadowModel, micro: int) -> float:
    """One micro-batch's activation between stages: b x s x h in bf16."""
    return micro * target.seq * shadow.hidden_size(target) * BF16


def _nominal(model_bytes: float, layers: int | None, model) -> shadow.ShadowModel:
    """The target model, or one of ``model_bytes`` bf16 bytes when none is given."""
    if model is not None:
        return model
    params = model_bytes / shadow.BYTES_PER_PARAM
    layers = layers or shadow.gpt3_layers(params)
    return shadow.ShadowModel("nominal", params, 2048, layers, f"{params:.3g} parameters, "
                              f"{layers} layers, context 2048")


def _pattern(rest: str, name: str):
    def pattern(model_bytes: float, world: int, layers: int | None, options=None, model=None,
                batch: int = 8) -> list[Collective]:
        """Per step: the tensor-parallel all-reduces (2 per layer and pass, full
        recompute's second forward included), the
        activations and gradients a stage sends to and receives from its neighbours (a
        middle stage 2 per micro-batch, an end stage 1; their mean), the data-parallel
        gradient all-reduce of a stage's share of the model (with the distributed
        optimizer its reduce-scatter, and the all-gather of the updated parameters)."""
        layout = layout_of(options or ParallelOptions(), world, rest, name)
        target = _nominal(model_bytes, layers, model)
        options = resolve(options or ParallelOptions(), batch, layout.pp, name, target.layers)
        m = options.micro_batches
        act = activation_bytes(target, micro_batch_size(batch, m, name))
        per_stage = target.layers / layout.pp
        out = []
        if layout.tp > 1:
            passes = 3 if options.recompute == "full" else 2
            calls = 2 * passes * per_stage * m
            out.append(Collective("all-reduce", calls * act, group="tp", size=layout.tp,
                                  calls=max(1, round(calls))))
        if layout.pp > 1:
            edge = 2 * (layout.pp - 1) / layout.pp       # the stages' mean: ends send half
            out.append(Collective("send-recv", edge * m * act * options.virtual_stages,
                                  group="pp", size=layout.pp))
        if layout.dp > 1 and options.distributed_optimizer:
            # a ring's reduce-scatter and all-gather move an all-reduce's bytes
            shard = model_bytes / (layout.pp * layout.tp)
            out += [Collective("reduce-scatter", shard, group="dp", size=layout.dp),
                    Collective("all-gather", shard, group="dp", size=layout.dp)]
        elif layout.dp > 1:
            out.append(Collective("all-reduce", model_bytes / (layout.pp * layout.tp),
                                  group="dp", size=layout.dp))
        return out
    return pattern


# per collective of the pattern: tensor-parallel all-reduces inside every pass, blocking;
# pipeline sends and receives between neighbours; the data-parallel all-reduce after
PARALLEL_OVERLAP = {"tp": Overlap("inline"), "pp": Overlap("pipeline"), "dp": Overlap("after")}


def _timing(rest: str, name: str, balanced: bool):
    def timing(world: int, options=None, model=None) -> Timing:
        """Replicas: the data-parallel degree; groups in Megatron-LM's order (tensor
        fastest, then data, then pipeline); the layers per stage by the partition."""
        options = options or ParallelOptions()
        layout = layout_of(options, world, rest, name)
        groups = {"tp": Placement(layout.tp), "dp": Placement(layout.dp, layout.tp),
                  "pp": Placement(layout.pp, layout.tp * layout.dp)}
        counts = stage_counts(options, layout.pp, model, name) \
            if model is not None and layout.pp <= model.layers else None
        pipeline = Pipeline(layout.pp, options.micro_batches or 1, options.schedule, balanced,
                            layers=None if balanced else counts)
        return Timing(layout.dp, groups,
                      lambda pattern: [PARALLEL_OVERLAP[c.group] for c in pattern],
                      pipeline)
    return timing


def megatron_layouts(world: int, model=None, batch: int = 8, sizes: dict | None = None,
                     every: bool = False) -> list[dict]:
    """Tensor parallelism of 1 to 8 inside a node (dividing the heads), pipelines of up
    to one layer per stage (a depth that does not divide the layers, which Megatron-LM
    refuses, splits them as evenly as possible, as DeepSpeed's pipeline engine can; such
    a candidate names its ``partition``), data parallelism over the rest
    (dividing the batch); per layout micro-batches of 1 and 2 sequences when pipelined
    (one micro-batch of the whole replica batch when not), the one-sequence layouts also
    interleaved over two chunks per stage where the layers and micro-batches allow;
    selective recompute, with sequence parallelism when tensor-parallel (the search
    falls back to full recompute for a layout that does not fit,
    testbed/model/search.py). ``every``: every tensor-parallel degree dividing the heads,
    in or across nodes, each degree combination once with the other options at their
    defaults, and only depths that divide the layers, as Megatron-LM requires."""
    node = (sizes or {}).get("node", 8)
    heads = model.attention_heads if model is not None else 1
    layers = model.layers if model is not None else 1
    out = []
    for tp in range(1, world + 1) if every else (1, 2, 4, 8):
        if (tp > node and not every) or world % tp or heads % tp:
            continue
        for pp in range(1, min(layers, world // tp) + 1):
            dp = world // (tp * pp)
            if (world // tp) % pp or batch % dp or (every and layers % pp):
                continue
            if every:
                out.append({"tp": tp, "pp": pp, "dp": dp, **({} if pp > 1 else
                                                             {"micro_batches": 1})})
                continue
            replica = batch // dp
            base = {"tp": tp, "pp": pp, "dp": dp, "recompute": "selective",
                    "sequence_parallel": tp > 1, **({"partition": "layers"} if layers % pp
                                                    else {})}
            if pp == 1:
                out.append({**base, "micro_batch_size": replica})
                continue
            for size in (b for b in (1, 2) if replica % b == 0):
                out.append({**base, "micro_batch_size": size})
            if layers % (2 * pp) == 0 and replica % pp == 0:
                out.append({**base, "micro_batch_size": 1, "virtual_stages": 2})
    return out


def _memory(rest: str, name: str):
    def memory(params: float, world: int, layers: int | None, options=None,
               model=None) -> Memory:
        """Each rank holds its stage's share of the model (the largest stage's share of
        the layers), split tp ways; the distributed optimizer keeps 1/dp of the
        optimizer state (fp32 master weights and Adam moments) on each rank."""
        options = options or ParallelOptions()
        layout = layout_of(options, world, rest, name)
        share = 1 / layout.pp
        if model is not None and 1 < layout.pp <= model.layers:
            counts = stage_counts(options, layout.pp, model, name)
            share = max(counts) / sum(counts)
        held = shadow.adam_memory(params * share / layout.tp)
        if options.distributed_optimizer and layout.dp > 1:
            held = dataclasses.replace(held, optimizer_bytes=round(held.optimizer_bytes
                                                                   / layout.dp))
        return held
    return memory


def stage_counts(options: ParallelOptions, pp: int, model, strategy: str) -> tuple[int, ...]:
    """The transformer layers of each of ``pp`` stages by the options' partition."""
    return stage_layers(model.layers, pp, options.partition, shadow.hidden_size(model),
                        model.vocab, model.seq, strategy)


def _layout(rest: str, name: str):
    def layout(world: int, options: ParallelOptions) -> LayoutChoice:
        """The degrees the options give; one stage runs its micro-batches one after
        another, so a layout without a pipeline names one."""
        chosen = layout_of(options, world, rest, name)
        pipelined = chosen.pp > 1
        degrees = {"tp": chosen.tp, "dp": chosen.dp, "pp": chosen.pp}
        if not pipelined:
            degrees["micro_batches"] = 1
        for key in ("micro_batch_size", "micro_batches") if pipelined else ():
            if getattr(options, key) is not None:
                degrees[key] = getattr(options, key)
        if pipelined:
            return LayoutChoice(degrees, f"tp{chosen.tp} x pp{chosen.pp} x dp{chosen.dp}",
                                "TP x PP x DP")
        return LayoutChoice(degrees, f"tp{chosen.tp} x dp{chosen.dp}", "TP x DP")
    return layout


def register_layout(name: str, rest: str, description: str, placement=None,
                    tiers: tuple[str, ...] = (), balanced: bool = False,
                    layouts=lambda world: []) -> StrategyInfo:
    """Register a DP x PP x TP strategy: ``rest`` is the degree that takes the workers the
    options leave; ``placement(context, layout)`` returns the placed layout (Megatron's
    order by default) and a ``partition(stage, unit_flops)`` that returns the units per
    stage (None: as even as possible; ``balanced`` says the partition evens out the
    stages' times, for the analytical model)."""
    def placed(c):
        layout = layout_of(c.options, c.comm.world, rest, name)
        layers = c.target.layers if c.target is not None else None
        c.options = resolve(c.options, c.batch, layout.pp, name, layers)
        if c.options.virtual_stages > 1:
            raise TrainetError(f"strategy {name}: virtual_stages={c.options.virtual_stages} "
                               "is modelled (trainet model) but the workers run 1F1B or GPipe "
                               "with one chunk per stage; give virtual_stages=1")
        for key, plain in (("distributed_optimizer", False), ("partition", "layers")):
            if getattr(c.options, key) != plain:
                raise TrainetError(f"strategy {name}: {key}={getattr(c.options, key)} is "
                                   "modelled (trainet model) but the workers keep the whole "
                                   "optimizer state and split the layers evenly; give "
                                   f"{key}={str(plain).lower()}")
        return placement(c, layout) if placement else (layout, None)

    def real(c):
        layout, partition = placed(c)
        return ParallelTraining(c.comm, layout, c.options, lr=c.lr, partition=partition,
                                batch=c.batch, name=name)

    def shadow_(c):
        layout, partition = placed(c)
        return ShadowParallel(c, layout, partition, name=name)

    return register(StrategyInfo(name=name, description=description, real=real,
                                 shadow=shadow_, pattern=_pattern(rest, name),
                                 memory=_memory(rest, name), options=ParallelOptions,
                                 tiers=tiers, timing=_timing(rest, name, balanced),
                                 layouts=layouts, layout=_layout(rest, name),
                                 recomputes=RECOMPUTES))


register_layout("pp", "pp", "pipeline parallelism: the layers in stages on successive "
                "workers, micro-batches in a 1F1B or GPipe schedule, activations and "
                "gradients sent between stages")
register_layout("tp", "tp", "Megatron-LM tensor parallelism: column- then row-parallel "
                "attention and MLP, two all-reduces per block and pass")
register_layout("megatron", "dp", "DP x PP x TP in Megatron-LM's rank order (tensor "
                "fastest, then data, then pipeline): pipeline stages of tensor-parallel "
                "blocks, gradients all-reduced per stage across replicas",
                layouts=megatron_layouts)
