"""FusionLLM (arXiv 2410.12707, "FusionLLM: A Decentralized LLM Training System on
Geo-distributed GPUs with Adaptive Compression"): the model as an operator DAG cut
across geo-distributed devices, scheduled by OP-Fence, with AdaTopK on the slow links.

A reconstruction from the paper's prose (its code is not used here). At start every rank
traces the model into the same OP-DAG (hosts/opdag/graph.py), profiles each
operator (real mode: timed on this host; shadow mode: the compute model of the rank's
own device, its topology host's when that names one, applied to each operator's
FLOPs), and measures the bandwidth and latency to every other rank (one pair at a time:
a round trip and two one-way probes, see :func:`measure_fabric`). The ranks share the
figures, so each computes the same OP-Fence plan (hosts/opdag/opfence.py): clusters of
well-connected devices, the pipeline order of the devices and the cut points. Each rank
then runs its segment of the DAG as a pipeline stage (the ``pp`` engine's schedules):
activations forward and gradients backward over real sends, the tensors crossing a cut
flattened into one message (*remote automatic differentiation*: a stage's backward is
autograd from the received gradient to the tensors it received). ``compression``:

* ``adatopk``: boundaries whose dense transfer would stall the pipeline keep a fraction
  of their elements fitted to the link (hosts/compression/adatopk.py), no lower than
  ``ratio``; the others go dense;
* ``uniform``: every boundary keeps ``ratio`` of its elements;
* ``none``: the same partition, dense.

``plan_file`` makes runs share one plan: the first run saves its plan and the links it
measured, the others replay them (same partition on the same devices, the same AdaTopK
fractions from the same links), so a comparison isolates compression.

Error feedback (``error_feedback``: ``gradients``, ``both`` or ``none``) carries what top-k
dropped into the next message of the same boundary and micro-batch slot.
The baseline without OP-Fence is ``pp``: the layers split evenly over the ranks in
launch order, dense. Shadow mode traces a nominal GPT of the target's size under a fake
tensor mode (no memory), sleeps each stage's operators' compute and moves the co-scaled
wire bytes of its boundaries (bf16 values; 4-byte indices where compressed).
"""
from __future__ import annotations

import functools
import time
from pathlib import Path
from typing import Literal

import torch
from pydantic import Field
from torch import nn

from hosts import shadow
from hosts.collectives.pattern import Collective
from hosts.collectives.timing import Overlap, Pipeline, Placement, Timing
from hosts.compression import adatopk
from hosts.models import GPT, GPTConfig
from hosts.opdag import opfence
from hosts.opdag.graph import OpDag, Segment, trace
from hosts.parallelism.layout import ParallelLayout
from hosts.strategies.base import Memory, Strategy, optimizer_bytes, tensor_bytes
from hosts.strategies.parallel import BF16, PipelineStage, activation_bytes, micro_batch_size
from hosts.strategies.registry import Options, StrategyInfo, register
from testbed.errors import TrainetError

NAME = "fusionllm"
PROBE_ELEMENTS = 8192          # the smaller bandwidth probe (emulated float32 elements):
                               # 32 kB, twice the 10 frames a slow link's bucket holds
PROBE_TAG = 1 << 16            # clear of the pipeline's micro-batch tags
NOMINAL_VOCAB = 50304          # GPT-2's 50257, padded to a multiple of 64


class FusionOptions(Options):
    micro_batches: int = Field(default=4, ge=1, description="micro-batches per step")
    schedule: Literal["1f1b", "gpipe"] = Field(default="1f1b", description="pipeline "
                                               "schedule: 1f1b or gpipe")
    compression: Literal["adatopk", "uniform", "none"] = Field(
        default="adatopk", description="adatopk (top-k fitted to each slow link), "
        "uniform (top-k of ratio on every link) or none")
    ratio: float = Field(default=0.1, gt=0, le=1, description="uniform: the kept "
                         "fraction; adatopk: the smallest kept fraction")
    error_feedback: Literal["gradients", "both", "none"] = Field(
        default="gradients", description="the messages whose dropped elements are added "
        "to the next message of the same boundary and micro-batch slot")
    cluster_gap: float = Field(default=4.0, ge=1, description="devices are one cluster "
                               "when links within this factor of the fastest join them")
    plan_file: str | None = Field(default=None, description="a plan shared between runs: "
                                  "replayed when the file exists (same partition, devices "
                                  "and measured links), else made and saved there; in an "
                                  "experiment, relative to the variant's runs directory")


def measure_fabric(comm, scale: float) -> opfence.Fabric:
    """Bandwidth (nominal bytes/s) and latency between every two ranks, one pair at a
    time, timed by the lower rank of the pair: the latency is half a one-element round
    trip; the bandwidth comes from two one-way probes acknowledged by one element, of
    ``PROBE_ELEMENTS`` and twice that, as their difference in bytes over their
    difference in time, so what a link's token bucket lets through at line rate (its
    burst), and the round trip, count in neither. Both directions take the figures."""
    n, me = comm.world, comm.rank
    bandwidth = torch.zeros(n, dtype=torch.float64)
    latency = torch.zeros(n, dtype=torch.float64)
    small = torch.zeros(1)
    one, two = torch.zeros(PROBE_ELEMENTS), torch.zeros(2 * PROBE_ELEMENTS)
    for a in range(n):
        for b in range(a + 1, n):
            if me in (a, b):
                peer, first = (b, True) if me == a else (a, False)
                _, t_small, t_one, t_two = (_probe(comm, peer, first, probe, small)
                                            for probe in (small, small, one, two))
                if first:
                    extra = (two.numel() - one.numel()) * 4 / scale
                    bandwidth[b] = extra / max(t_two - t_one, 1e-9)
                    latency[b] = t_small / 2
            comm.wait(comm.all_reduce(torch.zeros(1)))      # one pair at a time
    rows = [comm.wait(comm.all_gather(t)).view(n, n).tolist() for t in (bandwidth, latency)]
    pair = [[(min(a, b), max(a, b)) for b in range(n)] for a in range(n)]
    bw = [[rows[0][i][j] if i != j else float("inf") for i, j in row] for row in pair]
    lat = [[rows[1][i][j] for i, j in row] for row in pair]
    return opfence.Fabric(bw, lat)


def _probe(comm, peer: int, first: bool, probe: torch.Tensor, ack: torch.Tensor) -> float:
    """``probe`` from the pair's first rank to the other, acknowledged with ``ack``; the
    first rank's time from sending to the acknowledgement."""
    start = time.perf_counter()
    if first:
        comm.wait(comm.send(probe, peer, PROBE_TAG, "probe"))
        comm.wait(comm.recv(ack.shape, peer, PROBE_TAG, "probe"))
    else:
        comm.wait(comm.recv(probe.shape, peer, PROBE_TAG, "probe"))
        comm.wait(comm.send(ack, peer, PROBE_TAG, "probe"))
    return time.perf_counter() - start


def _rank0_view(comm, seen: bool) -> bool:
    """Rank 0's ``seen``, on every rank."""
    flags = comm.wait(comm.all_gather(torch.tensor([float(seen)], dtype=torch.float64)))
    return bool(flags.view(comm.world, -1)[0, 0])


def _gather(comm, values: list[float]) -> list[list[float]]:
    """Every rank's ``values`` (the same length on each), in rank order."""
    mine = torch.tensor(values, dtype=torch.float64)
    return comm.wait(comm.all_gather(mine)).view(comm.world, -1).tolist()


class FusionStage(PipelineStage):
    """What real and shadow mode share: the plan from the DAG and the measurements, and
    the kept fraction of each boundary."""

    def plan(self, dag: OpDag, op_seconds: list[list[float]], element_bytes: int,
             scale: float) -> opfence.Plan:
        cut_bytes = {c.position: c.elements * element_bytes for c in dag.cuts}
        shared = self.options.plan_file
        # rank 0 writes the plan, so its view decides for every rank: a rank that looked for
        # itself could see the file of this run's earlier plan half written, or not yet
        if shared and _rank0_view(self.comm, Path(shared).exists()):
            plan, fabric = opfence.load(shared, len(dag.nodes), self.comm.world)
        else:
            fabric = measure_fabric(self.comm, scale)
            plan = opfence.schedule(opfence.Workload(op_seconds, cut_bytes), fabric,
                                    self.options.cluster_gap)
            if shared and self.comm.rank == 0:
                opfence.save(shared, plan, fabric, len(dag.nodes))
        self.place(ParallelLayout(1, self.comm.world, 1, tuple(plan.order)), self.options)
        boundary = [cut_bytes[c] for c in plan.cuts]
        self.fractions = self._fractions(plan, fabric, boundary, element_bytes)
        self.segment_bounds = plan.segments(len(dag.nodes))[self.at.pp]
        if self.comm.rank == 0:
            counts = [e - s for s, e in plan.segments(len(dag.nodes))]
            print(f"{NAME} (a reconstruction): {dag.describe()}; clusters {plan.clusters}; "
                  f"pipeline {plan.order}; operators per stage {counts}; boundary bytes "
                  f"{[round(b) for b in boundary]}; kept fractions "
                  f"{[round(f, 4) for f in self.fractions]}; estimated dense: bottleneck "
                  f"{plan.bottleneck_s:.4g} s per micro-batch, step "
                  f"{plan.step_s(self.options.micro_batches):.4g} s", flush=True)
        return plan

    def _fractions(self, plan, fabric, boundary, element_bytes) -> list[float]:
        kind = self.options.compression
        if kind == "none":
            return [1.0] * len(boundary)
        if kind == "uniform":
            return [self.options.ratio] * len(boundary)
        return adatopk.adaptive_fractions(plan, fabric, boundary, element_bytes,
                                          self.options.ratio)


class FusionTraining(FusionStage, Strategy):
    """Real mode: the project's models, traced and cut into segments."""

    def __init__(self, comm, options: FusionOptions, lr: float = 1e-3, batch: int = 8):
        super().__init__(comm, lr)
        self.options, self.batch, self.name = options, batch, NAME

    def setup(self, model) -> None:
        m = self.options.micro_batches
        micro = micro_batch_size(self.batch, m, NAME)
        seq = getattr(getattr(model, "cfg", None), "seq", 32)
        dag = trace(model, torch.zeros(micro, seq, dtype=torch.long), "model")
        if len(dag.inputs) != 1:
            raise TrainetError(f"strategy {NAME}: the model takes {len(dag.inputs)} inputs; "
                               "it must take one batch of token ids")
        times = _gather(self.comm, [3 * n.forward_s for n in dag.nodes])
        self.plan(dag, times, 4, 1.0)
        self.segment = Segment(dag, *self.segment_bounds)
        self.input = dag.inputs[0]
        self.loss_of = model.loss
        self.model = nn.ModuleList(self.segment.modules.values())
        self.params = [p for p in self.segment.parameters() if p.requires_grad]
        self.optimizer = self.optimizer_for(self.params) if self.params else None
        stage = self.at.pp
        self.codec_in = adatopk.TopK(_elements(self.segment.entering_shapes()),
                                     self.fractions[stage - 1]) if stage > 0 else None
        self.codec_out = adatopk.TopK(_elements(self.segment.leaving_shapes()),
                                      self.fractions[stage]) if self.next is not None \
            else None
        feedback = self.options.error_feedback
        self.slots = {"F": feedback == "both", "B": feedback != "none"}

    def _step(self, batch) -> float | None:
        x, y = batch
        m = self.options.micro_batches
        micro = micro_batch_size(len(x), m, NAME)
        xs, ys = x.split(micro), y.split(micro)
        if self.optimizer:
            self.optimizer.zero_grad(set_to_none=True)
        saved, losses = {}, []
        shapes = self.segment.entering_shapes()

        def forward(i, packed):
            flat, entering = None, []
            if packed is not None:
                flat = self.codec_in.decode(packed).detach().requires_grad_()
                entering = _unflatten(flat, shapes)
            outs = self.segment.run({self.input: xs[i]}, entering)
            if self.next is None:
                saved[i] = (flat, self.loss_of(outs[0], ys[i]) / m)
                losses.append(saved[i][1].item())
                return None
            out = torch.cat([o.reshape(-1) for o in outs])
            saved[i] = (flat, out)
            return self.codec_out.encode(out.detach(), self._slot("F", i))

        def backward(i, packed):
            flat, out = saved.pop(i)
            out.backward(None if packed is None else self.codec_out.decode(packed))
            if flat is None:
                return None
            grad = flat.grad if flat.grad is not None else torch.zeros_like(flat)
            return self.codec_in.encode(grad, self._slot("B", i))

        self.run_schedule(forward, backward, self._packed(self.codec_in),
                          self._packed(self.codec_out))
        if self.optimizer:          # a segment of operators without parameters has none
            self.optimizer.step()
        return sum(losses) if self.next is None else None

    def _slot(self, direction: str, micro_batch: int):
        return (direction, micro_batch) if self.slots[direction] else None

    @staticmethod
    def _packed(codec) -> tuple:
        return (codec.packed_elements,) if codec else (0,)

    def memory(self) -> Memory:
        return Memory(tensor_bytes(self.params), tensor_bytes(p.grad for p in self.params),
                      optimizer_bytes(self.optimizer) if self.optimizer else 0)


def _elements(shapes) -> int:
    total = 0
    for shape in shapes:
        n = 1
        for d in shape:
            n *= d
        total += n
    return total


def _unflatten(flat: torch.Tensor, shapes) -> list[torch.Tensor]:
    sizes = [_elements([s]) for s in shapes]
    return [part.view(shape) for part, shape in zip(flat.split(sizes), shapes)]


@functools.lru_cache(maxsize=4)
def nominal_dag(target: shadow.ShadowModel, micro: int) -> OpDag:
    """The OP-DAG of a GPT of the target's depth and width (heads of 128), traced and
    profiled on fake tensors: shapes and FLOPs without memory."""
    from torch._subclasses.fake_tensor import FakeTensorMode
    d = shadow.hidden_size(target)
    cfg = GPTConfig(vocab=NOMINAL_VOCAB, d_model=d, layers=target.layers,
                    heads=max(1, d // 128), seq=target.seq)
    with FakeTensorMode():
        return trace(GPT(cfg), torch.zeros(micro, target.seq, dtype=torch.long),
                     f"nominal GPT {target.name}")


class ShadowFusion(FusionStage, shadow.ShadowStrategy):
    """The same plan for a nominal GPT: stages sleep their operators' compute and move
    their boundaries' co-scaled wire bytes."""

    def __init__(self, context):
        shadow.ShadowStrategy.__init__(self, context)
        self.batch, self.name = context.batch, NAME

    def setup(self, model=None) -> None:
        m = self.options.micro_batches
        dag = nominal_dag(self.target, micro_batch_size(self.batch, m, NAME))
        speed = shadow.step_flops(self.target.params, self.batch * self.target.seq) \
            / self.compute_s                 # this rank's device (its host's, if named)
        seconds = _gather(self.comm, [3 * n.flops / speed for n in dag.nodes])
        plan = self.plan(dag, seconds, BF16, self.scale)
        stage = self.at.pp
        self.forward_s = plan.stage_s[stage] / 3
        self.backward_s = plan.stage_s[stage] * 2 / 3
        cuts = [dag.cut_at(c).elements for c in plan.cuts]
        wire = [self._wire_elements(n, f) for n, f in zip(cuts, self.fractions)]
        self.inbound = torch.zeros(wire[stage - 1] if stage > 0 else 0)
        self.outbound = torch.zeros(wire[stage] if self.next is not None else 0)

    def _wire_elements(self, elements: int, fraction: float) -> int:
        """Emulated float32 elements of a boundary's message: bf16 values, and int32
        indices when compressed, co-scaled."""
        nominal = elements * BF16 if fraction >= 1 else \
            round(elements * fraction) * (BF16 + adatopk.INDEX_BYTES)
        return max(1, round(nominal * self.scale / 4))

    def _pass(self, seconds: float, out: torch.Tensor) -> torch.Tensor:
        time.sleep(seconds)
        return out

    def _step(self, batch) -> None:
        self.run_schedule(lambda i, _: self._pass(self.forward_s, self.outbound),
                          lambda i, _: self._pass(self.backward_s, self.inbound),
                          tuple(self.inbound.shape), tuple(self.outbound.shape))

    def memory(self) -> Memory:
        return Memory(tensor_bytes([self.inbound, self.outbound]), 0, 0)


def _pattern(model_bytes: float, world: int, layers: int | None, options=None, model=None,
             batch: int = 8) -> list[Collective]:
    """Per step, dense: one activation and one gradient of ``b x s x h`` in bf16 per
    micro-batch over each boundary (the residual stream a cut between blocks carries;
    the stages' mean, as for ``pp``). OP-Fence's cuts and AdaTopK only make it less."""
    options = options or FusionOptions()
    m = options.micro_batches
    if model is None:
        params = model_bytes / shadow.BYTES_PER_PARAM
        model = shadow.ShadowModel("nominal", params, 2048, layers or
                                   shadow.gpt3_layers(params), "nominal")
    act = activation_bytes(model, micro_batch_size(batch, m, NAME))
    edge = 2 * (world - 1) / world
    return [Collective("send-recv", edge * m * act, group="pp", size=world)]


def _timing(world: int, options=None) -> Timing:
    """One pipeline over every rank, its layers balanced over the stages, the stages
    ordered so the slowest links are skipped (OP-Fence); AdaTopK keeps on each boundary
    what its link carries while the slowest stage computes, at least ``ratio``; uniform
    top-k keeps ``ratio`` everywhere."""
    o = options or FusionOptions()
    compress = None if o.compression == "none" else o.ratio
    pipeline = Pipeline(world, o.micro_batches, o.schedule, balanced=True, reorder=True,
                        compress_to=compress, compress_all=o.compression == "uniform")
    return Timing(1, {"pp": Placement(world)},
                  lambda pattern: [Overlap("pipeline")] * len(pattern), pipeline)


def _memory(params: float, world: int, layers: int | None) -> Memory:
    return shadow.adam_memory(params / world)


INFO = register(StrategyInfo(
    name=NAME, description="FusionLLM: the model as an operator DAG cut across "
    "geo-distributed workers by OP-Fence (clusters by bandwidth, small cuts on slow "
    "links), AdaTopK on the slow links (a reconstruction)",
    real=lambda c: FusionTraining(c.comm, c.options, lr=c.lr, batch=c.batch),
    shadow=ShadowFusion, pattern=_pattern, memory=_memory, options=FusionOptions,
    timing=_timing, layouts=lambda world: [],    # a geo fabric's strategy: asked by name
    # its stages' times come from the operator DAG, which runs each forward once
    recomputes={"shadow": ("none",), "real": ("none",)}))
