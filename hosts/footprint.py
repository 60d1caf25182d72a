"""A shadow worker's whole memory footprint, and whether it fits its device and host.

What a strategy declares (``StrategyInfo.memory``: parameters, gradients, optimizer
state, and what it keeps on the host or NVMe) plus what every strategy holds besides:

* activations, per pipeline stage and tensor-parallel rank, for micro-batches of ``b``
  sequences of ``s`` tokens through layers of width ``h`` with ``a`` heads, 16-bit
  (Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer
  Models", sec. 4, table 2), per layer: ``s b h (10 + 24/t + 5 a s / (h t))`` with
  tensor parallelism over ``t`` ranks, ``s b h / t (34 + 5 a s / h)`` with sequence
  parallelism too; selective recomputation drops the ``5 a s / h`` term (attention's
  core is rebuilt); full recomputation keeps only each layer's input (``2 s b h``,
  ``/ t`` with sequence parallelism) and rebuilds one layer at a time for its backward.
  A stage holds ``L / p`` layers for as many micro-batches as its schedule keeps in
  flight: the first stage of 1F1B ``min(p, m)``, times ``1 + (p - 1) / (p v)`` when
  interleaved over ``v`` chunks (sec. 4.2.3), GPipe all ``m``. The strategy's layout
  (tensor size, stages, micro-batches, recompute, sequence parallelism) comes from its
  declared timing and options; a replica split over its ranks otherwise (AxoNN's 3D
  tensor groups) splits its activations evenly. Embedding and logits are left out;
* communication buffers, for strategies with collectives on the GPU (ring routes): two
  buckets of 5e8 bf16 elements, DeepSpeed's default ``reduce_bucket_size`` and
  ``allgather_bucket_size``, at most the model. Pushes and pulls to a switch or a server
  are buffered in what the strategy declares;
* the framework's reserve, 2 GiB: the CUDA context, library workspaces and allocator
  slack (a round figure: the context alone takes several hundred MB).

A strategy that declares activations or buffers of its own (``Memory.activations_bytes``,
``Memory.buffers_bytes``) replaces the shared figure. Host memory and NVMe are checked
against the worker's share of its host: the host's size over ``gpus_per_host``.
"""
from __future__ import annotations

from dataclasses import dataclass

from hosts.devices import GIB, Device, HOSTS
from hosts.shadow import ShadowModel, hidden_size, model_bytes
from testbed.errors import TrainetError

FRAMEWORK_RESERVE = 2 * GIB
BUCKET_BYTES = 2 * 5e8          # DeepSpeed's reduce_bucket_size, in bf16


RECOMPUTE = ("none", "selective", "full")


def recompute_mode(recompute) -> str:
    """``recompute`` as a mode: a bool (a workload's ``recompute: true``) is full or none."""
    if isinstance(recompute, bool):
        return "full" if recompute else "none"
    if recompute not in RECOMPUTE:
        raise TrainetError(f"recompute {recompute!r}: choose one of {', '.join(RECOMPUTE)}")
    return recompute


def layer_activation_bytes(model: ShadowModel, micro: int, recompute="full", tp: int = 1,
                           sp: bool = False) -> float:
    """One layer's stored activations for one micro-batch on one tensor rank."""
    mode = recompute_mode(recompute)
    h = hidden_size(model)
    sbh = model.seq * micro * h
    attention = 5 * model.attention_heads * model.seq / h
    if mode == "full":
        return 2 * sbh / (tp if sp else 1)
    core = 0.0 if mode == "selective" else attention
    if sp:
        return sbh / tp * (34 + core)
    return sbh * (10 + 24 / tp + core / tp)


def activation_bytes(model: ShadowModel, micro: int, recompute="full", tp: int = 1,
                     sp: bool = False, stages: int = 1, micro_batches: int = 1,
                     schedule: str = "1f1b", virtual: int = 1,
                     stage_layers: tuple[int, ...] | None = None) -> float:
    """A rank's activations at its peak: the first pipeline stage's ``L / stages``
    layers for the micro-batches in flight (one when not pipelined), plus one layer
    rebuilt for its backward under full recomputation. With ``stage_layers`` (layers
    per stage, uneven), the stage whose layers times its 1F1B micro-batches in flight
    (``min(stages - s, m)`` on stage ``s``) is largest; GPipe and interleaving take the
    largest stage at the first stage's flight."""
    mode = recompute_mode(recompute)
    if stages > 1:
        flight = micro_batches if schedule == "gpipe" else min(stages, micro_batches)
        flight *= 1 + (stages - 1) / (stages * virtual) if virtual > 1 else 1
    else:
        flight = 1
    held = model.layers / stages * flight
    if stage_layers is not None and stages > 1:
        held = max(stage_layers) * flight if schedule == "gpipe" or virtual > 1 else \
            max(n * min(stages - s, micro_batches) for s, n in enumerate(stage_layers))
    stored = layer_activation_bytes(model, micro, mode, tp, sp) * held
    if mode == "full":
        stored += layer_activation_bytes(model, micro, "none", tp, sp)
    return stored


def strategy_activation_bytes(info, model: ShadowModel, world: int, batch: int, recompute,
                              options=None, sizes: dict | None = None) -> float:
    """The activations of strategy ``info``'s layout (its declared timing: tensor
    group, pipeline stages and micro-batches) for ``batch`` sequences per replica;
    the strategy's ``recompute`` and ``sequence_parallel`` options, when it has them
    and they are given, over ``recompute``."""
    if options is not None and "recompute" in getattr(options, "model_fields_set", ()):
        recompute = options.recompute
    sp = bool(getattr(options, "sequence_parallel", False))
    timing = info.step_timing(world, options=options, sizes=sizes, model=model)
    accumulating = hasattr(options, "accumulation_steps")     # data parallel, micro-batched
    if hasattr(options, "micro_batch_size") and not accumulating:
        # ``batch`` is already one replica's: its micro-batches are what a stage holds
        from hosts.strategies.parallel import resolve
        pp = timing.pipeline.stages if timing.pipeline else 1
        options = resolve(options, batch, pp, info.name, model.layers)
        timing = info.step_timing(world, options=options, sizes=sizes, model=model)
    tp = timing.groups["tp"].size if "tp" in timing.groups else 1
    pipe = timing.pipeline
    if pipe is None:
        m = options.accumulation_steps(batch, info.name) if accumulating \
            else getattr(options, "micro_batches", None) or 1
        stored = activation_bytes(model, max(1, batch // m), recompute, tp, sp and tp > 1)
        # other splits of a replica over its ranks (AxoNN's 3D tensor groups): even
        return stored / max(1, world // max(1, timing.replicas) // tp)
    split = max(1, world // max(1, timing.replicas) // pipe.stages)
    micro = max(1, batch // pipe.micro_batches)
    per_tp = activation_bytes(model, micro, recompute, tp, sp and tp > 1, pipe.stages,
                              pipe.micro_batches, pipe.schedule,
                              getattr(options, "virtual_stages", 1), pipe.layers)
    return per_tp * tp / split


def buffer_bytes(collectives, model_nbytes: float) -> float:
    if not any(c.route == "ring" for c in collectives):
        return 0.0
    return 2 * min(BUCKET_BYTES, model_nbytes)


@dataclass(frozen=True)
class Footprint:
    params: float
    grads: float
    optimizer: float
    activations: float
    buffers: float
    reserve: float
    host: float = 0.0
    nvme: float = 0.0

    @property
    def device(self) -> float:
        return (self.params + self.grads + self.optimizer + self.activations + self.buffers
                + self.reserve)


def gib(nbytes: float) -> str:
    """Bytes in GiB (TiB from 1024 GiB), three significant digits."""
    if nbytes >= 1024 * GIB:
        return f"{nbytes / (1024 * GIB):.3g} TiB"
    return f"{nbytes / GIB:.3g} GiB"


@dataclass(frozen=True)
class Fit:
    footprint: Footprint
    device_bytes: float          # the device's capacity; 0: not known
    host_bytes: float            # the worker's share of host memory and NVMe
    nvme_bytes: float

    def shortfalls(self) -> list[str]:
        out = []
        for what, need, have in (("device memory", self.footprint.device, self.device_bytes),
                                 ("host memory", self.footprint.host, self.host_bytes),
                                 ("NVMe", self.footprint.nvme, self.nvme_bytes)):
            if need and have and need > have:
                out.append(f"needs {gib(need)} of {gib(have)} {what}")
        return out

    @property
    def fits(self) -> bool:
        return not self.shortfalls()

    def verdict(self) -> str:
        short = self.shortfalls()
        if short:
            return "; ".join(short)
        if not self.device_bytes:
            return f"{gib(self.footprint.device)} (device capacity not known)"
        return f"fits: {gib(self.footprint.device)} of {gib(self.device_bytes)}"


def footprint(info, target: ShadowModel, world: int, batch: int, recompute=True,
              options=None, sizes: dict | None = None) -> Footprint:
    """The whole per-worker footprint of strategy ``info`` training ``target`` on
    ``batch`` sequences per replica (the experiment's fit check and the analytical
    model both call this)."""
    m = model_bytes(target.params)
    declared = info.nominal_memory(target.params, world, target.layers, options=options,
                                   sizes=sizes, model=target)
    collectives = info.collectives(m, world, target.layers, options=options, sizes=sizes,
                                   model=target, batch=batch)
    return Footprint(declared.params_bytes, declared.grads_bytes, declared.optimizer_bytes,
                     declared.activations_bytes or strategy_activation_bytes(
                         info, target, world, batch, recompute, options, sizes),
                     declared.buffers_bytes or buffer_bytes(collectives, m),
                     FRAMEWORK_RESERVE, declared.host_bytes, declared.nvme_bytes)


def check(fp: Footprint, dev: Device, gpus_per_host: int | None = None) -> Fit:
    """``fp`` against ``dev`` and this worker's share of its host (``gpus_per_host``
    GPUs share it; default: the host profile's GPUs per node). Offloading to a tier the
    host does not have is an error."""
    host = HOSTS.get(dev.host) if dev.host else None
    if (fp.host or fp.nvme) and host is None:
        raise TrainetError(f"device {dev.name} has no host profile to offload to; use a "
                           "device whose host is known (e.g. a100-80gb)")
    if fp.nvme and host.nvme_bytes == 0:
        raise TrainetError(f"offload to nvme: host {host.name} of device {dev.name} has no "
                           "NVMe; offload to cpu")
    share = gpus_per_host or (host.gpus if host else 1)
    return Fit(fp, dev.memory_bytes, host.memory_bytes / share if host else 0,
               host.nvme_bytes / share if host else 0)
