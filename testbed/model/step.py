"""``predict``: one training step of a registered strategy on a fabric, from what the
strategy declares (its pattern, hosts/collectives/pattern.py, and its timing,
hosts/collectives/timing.py): nothing here names a strategy.

Compute is the shadow workers' model (hosts/compute.py: each layer's kernels by their
shapes after the tensor-parallel split, at the device's peak and memory bandwidth; or
one ``mfu`` of the peak when given): a data-parallel rank computes its replica's batch,
a tensor-parallel rank its split of each layer, a pipeline stage its layers per
micro-batch (and the logits on the last stage), other layouts an even split of the
replica's compute; the optimizer's Adam update follows the step. Each collective is
timed on the fabric (testbed/model/collectives.py) and placed against the compute as the
strategy overlaps it (testbed/model/schedule.py, or testbed/model/pipeline.py for
pipelines). Collectives on
the GPU (ring routes) slow the compute they overlap by the interference factor, and an
offloaded optimizer adds its host time, as in the shadow workers.
"""
from __future__ import annotations

import dataclasses
from collections import defaultdict

from hosts import compute as kernels, footprint, shadow
from hosts.collectives.timing import Overlap, Timing
from hosts.strategies import registry
from testbed.errors import TrainetError
from testbed.model import collectives, schedule, stages
from testbed.model.calibration import DEFAULT, Calibration
from testbed.model.prediction import Role, StepPrediction

LAYOUT_KINDS = ("tp", "pp", "dp", "row", "column", "depth")


@dataclasses.dataclass(frozen=True)
class Workload:
    model: shadow.ShadowModel
    device: shadow.Device
    global_batch: int                   # sequences per step, every replica together
    mfu: float | None = shadow.DEFAULT_MFU      # None: hosts/compute.py by shapes
    flops: object = None                # (model, tokens) -> FLOPs counted; default 6 P T
    gpus_per_host: int | None = None
    # the activation recompute of a strategy without a recompute option, for its compute
    # and its footprint alike: by default full (each layer's forward run again in its
    # backward, only layer inputs kept), what such runs need at scale; a testbed run's
    # replay gives the recompute its workers ran (testbed/experiment/model_check.py)
    recompute: str = "full"
    optimizer_step: bool = True         # the optimizer's update timed after the step

    def step_flops(self, tokens: int) -> float:
        if self.flops is not None:
            return self.flops(self.model, tokens)
        return shadow.step_flops(self.model.params, tokens)

    def layer(self, micro: int, tp: int = 1, sp: bool = False, recompute: str = "none",
              fused: bool = True) -> kernels.Pass:
        return shadow.layer_pass(self.model, self.device, micro, tp, sp, recompute, self.mfu,
                                 fused)

    def head(self, micro: int, tp: int = 1, fused: bool = True) -> kernels.Pass:
        return shadow.head_pass(self.model, self.device, micro, tp, self.mfu, fused)

    def replica_s(self, batch: int, tp: int = 1, sp: bool = False,
                  recompute: str = "none") -> float:
        """One rank of ``tp`` computing every layer for ``batch`` sequences."""
        return (self.layer(batch, tp, sp, recompute) * self.model.layers
                + self.head(batch, tp)).seconds


def _resolved(info, parsed, timing, global_batch: int, strategy: str, model):
    """Megatron's micro-batch size turned into a count of micro-batches per replica."""
    if not hasattr(parsed, "micro_batch_size") or hasattr(parsed, "accumulation_steps") \
            or global_batch % timing.replicas:
        return parsed
    from hosts.strategies.parallel import resolve
    pp = timing.pipeline.stages if timing.pipeline else 1
    return resolve(parsed, global_batch // timing.replicas, pp, f"{strategy}", model.layers)


def predict(strategy: str, workload: Workload, fabric, world: int, options: dict | None = None,
            calibration: Calibration = DEFAULT, sizes: dict | None = None,
            label: str | None = None) -> StepPrediction:
    """The step of ``strategy`` (with ``options``) on ``world`` ranks of ``fabric``."""
    info, parsed, timing, sizes = _layout_of(strategy, workload, fabric, world, options, sizes)
    model = workload.model
    replica_batch = workload.global_batch // timing.replicas
    pattern = info.collectives(shadow.model_bytes(model.params), world, model.layers,
                               options=parsed, sizes=sizes, model=model, batch=replica_batch)
    tp = timing.groups["tp"].size if "tp" in timing.groups else 1
    sp = bool(getattr(parsed, "sequence_parallel", False)) and tp > 1
    recompute = recompute_of(parsed, workload)
    overlaps = timing.overlap(pattern)
    if timing.pipeline is None:
        steps = parsed.accumulation_steps(replica_batch, strategy) \
            if hasattr(parsed, "accumulation_steps") else 1
        micro = replica_batch // steps
        if tp > 1 and tp * timing.replicas == world:
            rank_compute = workload.replica_s(micro, tp, sp, recompute)
        else:
            rank_compute = workload.replica_s(micro, recompute=recompute) \
                * timing.replicas / world
        if steps == 1:
            roles, comm_s = _data_parallel(pattern, overlaps, timing, rank_compute, fabric,
                                           world, calibration)
        else:
            roles, comm_s = _accumulated(pattern, overlaps, timing, rank_compute, steps,
                                         fabric, world, calibration)
        active_s = comm_s
    else:
        micro = replica_batch // timing.pipeline.micro_batches
        split = world // timing.replicas // timing.pipeline.stages
        fused = bool(getattr(parsed, "gradient_accumulation_fusion", True))
        if tp == split:
            passes = (workload.layer(micro, tp, sp, recompute, fused),
                      workload.head(micro, tp, fused))
        else:                           # other splits of a stage: even over its ranks
            passes = (workload.layer(micro, recompute=recompute) * (1 / split),
                      workload.head(micro) * (1 / split))
        roles, comm_s, active_s = stages.pipelined(
            pattern, overlaps, timing, passes, fabric, world, calibration, model,
            virtual=getattr(parsed, "virtual_stages", 1),
            overlap_grad=bool(getattr(parsed, "overlap_grad_reduce", False)))
    slowest = max(roles, key=lambda r: r.step_s)
    compute = sum(e.duration_s for e in slowest.compute())
    waited = slowest.step_s - compute
    ring = any(c.route == "ring" for c in pattern)
    # collectives moving data while the compute runs slow it (a posted receive waiting
    # for its message does not)
    interference = calibration.interference * min(max(0.0, active_s - waited), compute) \
        if ring else 0.0
    host = timing.host_s(calibration.cpu_adam_rate, workload.gpus_per_host) \
        if timing.host_s else 0.0
    fp = _footprint(info, model, world, replica_batch, timing, recompute, sp, parsed, sizes)
    # the distributed optimizer (ZeRO-1) updates the rank's shard of the stage's state
    shards = timing.groups["dp"].size if getattr(parsed, "distributed_optimizer", False) \
        and "dp" in timing.groups else 1
    optimizer = kernels.optimizer_s(fp.params / shadow.BYTES_PER_PARAM / shards,
                                    workload.device) \
        if workload.mfu is None and workload.optimizer_step else 0.0
    step = slowest.step_s + interference + host + optimizer
    compute += optimizer
    by_tier = defaultdict(float)
    for e in slowest.collectives():
        by_tier[e.tier] += e.exposed_s
    if slowest.bubble_s:
        by_tier[slowest.bubble_tier] += slowest.bubble_s
    fit = footprint.check(fp, workload.device, workload.gpus_per_host)
    tflops = workload.step_flops(workload.global_batch * model.seq) / world / step / 1e12
    return StepPrediction(
        strategy=info.name, label=label or info.name, layout=_layout(timing, parsed, recompute),
        options=parsed.model_dump(exclude_defaults=True), model=model.name,
        device=workload.device.name, fabric=fabric.name, calibration=calibration.name,
        world=world, global_batch=workload.global_batch, replicas=timing.replicas,
        step_s=step, compute_s=compute, exposed_s=waited, bubble_s=slowest.bubble_s,
        interference_s=interference, host_s=host, comm_s=comm_s,
        exposed_by_tier={k: v for k, v in by_tier.items() if v > 0},
        tflops_per_gpu=tflops, memory_per_gpu_B=fp.device,
        memory_capacity_B=workload.device.memory_bytes, memory_verdict=fit.verdict(),
        roles=tuple(roles),
        placement={k: (v.size, v.stride) for k, v in timing.groups.items()},
        stage_order=tuple(_order(timing, fabric, world)))


def _layout_of(strategy: str, workload: Workload, fabric, world: int, options: dict | None,
               sizes: dict | None):
    """(the strategy, its options resolved, its timing, the tier sizes), checked."""
    info = registry.get(strategy)
    parsed = info.parse_options(options or {})
    if fabric.max_ranks is not None and world > fabric.max_ranks:
        raise TrainetError(f"fabric {fabric.name} has {fabric.max_ranks} GPUs for {world} "
                           f"ranks; give --gpus {fabric.max_ranks} or less")
    sizes = sizes or _tier_sizes(fabric, world)
    model = workload.model
    timing = info.step_timing(world, options=parsed, sizes=sizes, model=model,
                              device=workload.device)
    parsed = _resolved(info, parsed, timing, workload.global_batch, strategy, model)
    timing = info.step_timing(world, options=parsed, sizes=sizes, model=model,
                              device=workload.device)
    if workload.global_batch % timing.replicas:
        raise TrainetError(f"strategy {strategy}: a global batch of {workload.global_batch} "
                           f"sequences does not split over its {timing.replicas} replicas; "
                           f"give --global-batch-size a multiple of {timing.replicas}")
    return info, parsed, timing, sizes


def fits(strategy: str, workload: Workload, fabric, world: int, options: dict | None = None,
         sizes: dict | None = None) -> bool:
    """Whether ``predict`` would find the layout fits its device, without timing it."""
    info, parsed, timing, sizes = _layout_of(strategy, workload, fabric, world, options, sizes)
    fp = _footprint(info, workload.model, world, workload.global_batch // timing.replicas,
                    timing, recompute_of(parsed, workload), False, parsed, sizes)
    return footprint.check(fp, workload.device, workload.gpus_per_host).fits


def recompute_of(options, workload: Workload) -> str:
    """The recompute a step runs and stores activations for: the strategy's option when
    it has one, else the workload's (one assumption for compute and footprint)."""
    return kernels.check_recompute(getattr(options, "recompute", workload.recompute))


def _order(timing: Timing, fabric, world: int) -> list[int]:
    pipe = timing.pipeline
    if pipe is None:
        return []
    return stages.stage_order(fabric, world, pipe.stages) if pipe.reorder \
        else list(range(pipe.stages))


def _tier_sizes(fabric, world: int) -> dict:
    """Ranks per GPU package and per node as the fabric has them (hierarchical
    strategies place their partitions by these)."""
    if hasattr(fabric, "tier_sizes"):
        return fabric.tier_sizes(world)
    return {}


def _footprint(info, model, world: int, replica_batch: int, timing: Timing, recompute: str,
               sp: bool, options, sizes) -> footprint.Footprint:
    """The strategy's footprint: hosts/footprint.py, as the experiment's fit check has it."""
    return footprint.footprint(info, model, world, replica_batch, recompute, options, sizes)


def _layout(timing: Timing, options=None, recompute: str = "none") -> str:
    """The group sizes, the recompute, and Megatron's micro-batch size, sequence
    parallelism, interleaving, distributed optimizer and (a partition given) layers per
    stage where the strategy has them."""
    parts = [f"{k}{p.size}" for k, p in timing.groups.items()
             if k in LAYOUT_KINDS and p.size > 1]
    out = " x ".join(parts) or f"{timing.replicas} replicas"
    size = getattr(options, "micro_batch_size", None)
    if size is not None:
        out += f", micro-batch {size}"
    if recompute != "none":
        out += f", {recompute} recompute"
    if size is not None:
        if getattr(options, "sequence_parallel", False):
            out += ", SP"
        if getattr(options, "virtual_stages", 1) > 1:
            out += f", {options.virtual_stages} chunks/stage"
        if getattr(options, "distributed_optimizer", False):
            out += ", distributed optimizer"
        pipe = timing.pipeline
        if "partition" in getattr(options, "model_fields_set", ()) and pipe.layers is not None:
            out += f", layers {'/'.join(map(str, _runs(pipe.layers)))}"
    return out


def _runs(counts) -> list[str]:
    """Layers per stage, equal neighbours joined: (5, 6, 6, 6, 5) -> 5, 6x3, 5."""
    out = []
    for n in counts:
        if out and out[-1][0] == n:
            out[-1][1] += 1
        else:
            out.append([n, 1])
    return [f"{n}x{k}" if k > 1 else str(n) for n, k in out]


def _instances(overlap: Overlap, chunks: int) -> int:
    if overlap.mode in ("before", "after"):
        return 1
    if overlap.mode == "backward":
        return chunks
    return chunks * len(overlap.passes)


def _accumulated(pattern, overlaps, timing: Timing, compute_s: float, steps: int, fabric,
                 world: int, calibration) -> tuple[list[Role], float]:
    """``steps`` micro-batches of ``compute_s`` each, one after another: the collectives
    the strategy runs per micro-batch (``Timing.per_micro_batch``) in each, those it
    runs once per step in the last (DDP's all-reduce after no_sync), or in the first
    when they come before the step."""
    each = timing.per_micro_batch(pattern) if timing.per_micro_batch else [False] * len(pattern)
    before = [o.mode == "before" for o in overlaps]
    kept = ([r or b for r, b in zip(each, before)], each,
            [r or not b for r, b in zip(each, before)])
    events, t, comm_s = [], 0.0, 0.0
    for n in range(steps):
        keep = kept[0] if n == 0 else kept[2] if n == steps - 1 else kept[1]
        roles, seconds = _data_parallel([c for c, k in zip(pattern, keep) if k],
                                        [o for o, k in zip(overlaps, keep) if k], timing,
                                        compute_s, fabric, world, calibration)
        events += [dataclasses.replace(e, start_s=e.start_s + t) for e in roles[0].events]
        t += roles[0].step_s
        comm_s += seconds
    return [Role("every rank", world, t, tuple(events))], comm_s


def _data_parallel(pattern, overlaps, timing: Timing, compute_s: float, fabric, world: int,
                   calibration) -> tuple[list[Role], float]:
    items = []
    for c, o in zip(pattern, overlaps):
        n = _instances(o, timing.chunks)
        one = dataclasses.replace(c, nbytes=c.nbytes / n)
        kind = collectives.placement_of(timing.groups, c, world)
        cost = collectives.cost(one, kind, fabric, world, calibration)
        items.append(schedule.Item(f"{c.op} {c.group}", o, n, cost.seconds,
                                   collectives.event_fields(c, cost, one.nbytes, kind.size)))
    sim = schedule.simulate(compute_s / 3, compute_s * 2 / 3, timing.chunks, items)
    return [Role("every rank", world, sim.step_s, sim.events)], sim.comm_s
