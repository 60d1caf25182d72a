"""Shadow mode: train a large model's *communication* on the emulated links without the
model.

A shadow worker stands for one GPU training a target model (GPT 1.3B/20B/175B or a
custom parameter count). Each step it sleeps for the compute time of a compute model and
moves the target's communication volume, multiplied by the co-scaling factor ``scale``,
through the same collectives as the real strategies (gloo ring all-reduce and all-gather,
the send/recv ring reduce-scatter, the parameter-server push/pull). Because the link
bandwidth carries the same factor, the wall-clock transfer times equal the nominal ones:
every time a shadow worker reports is in nominal seconds, and it reports the emulated
bytes next to the nominal bytes (emulated / scale).

Each strategy declares its volumes (its collectives per step) and its memory per worker
in its own module under hosts/strategies/. Memory is counted as the ZeRO paper counts
mixed-precision Adam (Rajbhandari et al. 2020, "ZeRO: Memory Optimizations Toward
Training Trillion Parameter Models", sec. 3.1): 2P bf16 parameters, 2P bf16 gradients,
12P optimizer state (fp32 master weights, Adam m and v) for P parameters.

Compute model: hosts/compute.py, each layer's kernels timed from the device's peak and
memory bandwidth by their shapes (the analytical model uses the same); ``mfu`` given,
6 x parameters x tokens FLOPs per step instead (forward 2, backward 4 per parameter and
token; Kaplan et al. 2020, "Scaling Laws for Neural Language Models", sec. 2.1) at that
share of the device's dense bf16 peak. A rank runs the activation recompute its context
gives (the strategy's option, else the workload's; ``StrategyInfo.recompute_of``) and
sleeps it: selective re-runs attention's core, full the whole forward, inside the
backward; the memory check counts the activations that recompute keeps. The
communication is split into ``CHUNKS`` equal layer groups, which the shadow strategies
overlap with the compute as the real ones do.

Interference: collectives that run on the GPU (ring routes: NCCL's kernels take SMs and
memory bandwidth) slow the compute they overlap by ``interference`` (default 0.189, the
mean compute slowdown under overlapped communication measured on A100, H100, MI250 and
MI210 by Lee et al. 2025, "Characterizing Compute-Communication Overlap in
GPU-Accelerated Distributed Deep Learning", arXiv:2507.03114); 0 turns it off. A
strategy whose collectives all go to a switch or a server (INA, LuWu, the parameter
server) leaves the GPU to compute. The worker sleeps the extra time,
``interference x`` the seconds communication overlapped compute, at the end of the step
and reports it as ``interference_s``.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import torch

from hosts import compute, devices, shapes
from hosts.strategies.base import Memory, Strategy, tensor_bytes
from hosts.strategies.registry import AccumulationOptions
from testbed.errors import TrainetError
from testbed.units import UnitError, parse_count
from testbed.topology.profiles import scaled_volume

BYTES_PER_PARAM = 2          # bf16 weights and gradients
OPTIMIZER_BYTES_PER_PARAM = 12   # fp32 master weights, Adam m and v (ZeRO paper, sec. 3.1)
CHUNKS = 8
DEFAULT_MFU = None             # None: the shape-aware compute model (hosts/compute.py)
DEFAULT_INTERFERENCE = 0.189    # Lee et al. 2025, arXiv:2507.03114: mean compute slowdown


@dataclass(frozen=True)
class ShadowModel:
    name: str
    params: float
    seq: int
    layers: int
    source: str
    hidden: int | None = None      # d_model; None: from the parameters (hidden_size)
    heads: int = 0                 # attention heads; 0: d_model / 128
    vocab: int = 50257             # tokens (GPT-2's vocabulary unless the shape says)

    @property
    def attention_heads(self) -> int:
        return self.heads or max(1, hidden_size(self) // 128)


PRESETS = {name: ShadowModel(name, params, seq, layers,
                             f"{source}: {params / 1e9:g}B parameters, {layers} layers, "
                             f"d_model {hidden}, {heads} heads, context {seq}",
                             hidden, heads, vocab)
           for name, params, layers, hidden, heads, seq, vocab, source in shapes.SHAPES}

# (parameters, layers) of the GPT-3 family, Brown et al. 2020, table 2.1: a custom
# model gets the layer count of the nearest in parameters (on a log scale)
GPT3_LAYERS = ((125e6, 12), (350e6, 24), (760e6, 24), (1.3e9, 24), (2.7e9, 32),
               (6.7e9, 32), (13e9, 40), (175e9, 96))

Device = devices.Device
DEVICES = devices.DEVICES
device = devices.device


def gpt3_layers(params: float) -> int:
    """The layer count of the GPT-3 model nearest in parameters (on a log scale)."""
    return min(GPT3_LAYERS, key=lambda pl: abs(math.log(pl[0] / params)))[1]


def hidden_size(model: ShadowModel) -> int:
    """d_model: the preset's, else from P = 12 L h^2 (a transformer layer's attention and
    MLP weights, Kaplan et al. 2020, sec. 2.1), rounded to a multiple of 128."""
    if model.hidden:
        return model.hidden
    return max(128, round(math.sqrt(model.params / (12 * model.layers)) / 128) * 128)


SHAPE_KEYS = ("layers", "hidden", "heads", "vocab", "seq")


def shape_of(model: ShadowModel) -> compute.Shape:
    return compute.Shape(model.layers, hidden_size(model), model.attention_heads, model.seq,
                         model.vocab)


def shape_params(layers: int, hidden: int, vocab: int, seq: int) -> float:
    """Parameters of a GPT of this shape: per layer 12 h^2 + 13 h (attention and MLP
    weights and biases, two layer norms), token and position embeddings (Narayanan et
    al. 2021, sec. 5.1, eq. 2 without the FLOPs)."""
    return 12 * layers * hidden ** 2 + 13 * layers * hidden + (vocab + seq) * hidden


def custom_shape(spec: str) -> ShadowModel:
    """``custom:layers=48,hidden=6144,heads=64[,vocab=51200,seq=2048]``."""
    body = spec.removeprefix("custom:")
    example = "custom:layers=48,hidden=6144,heads=64[,vocab=51200,seq=2048]"
    given = {}
    for part in filter(None, body.split(",")):
        key, eq, value = part.partition("=")
        key = key.strip()
        if not eq or key not in SHAPE_KEYS:
            raise TrainetError(f"--model {spec!r}: {part!r} is not KEY=VALUE with KEY one of "
                               f"{', '.join(SHAPE_KEYS)}; e.g. {example}")
        try:
            given[key] = int(value)
        except ValueError:
            raise TrainetError(f"--model {spec!r}: {key}={value!r} is not a whole number"
                               ) from None
        if given[key] < 1:
            raise TrainetError(f"--model {spec!r}: {key}={given[key]} must be at least 1")
    missing = [k for k in ("layers", "hidden", "heads") if k not in given]
    if missing:
        raise TrainetError(f"--model {spec!r}: give {', '.join(missing)}; e.g. {example}")
    if given["hidden"] % given["heads"]:
        raise TrainetError(f"--model {spec!r}: hidden={given['hidden']} does not split into "
                           f"heads={given['heads']}; give a hidden size divisible by the heads")
    vocab, seq = given.get("vocab", 51200), given.get("seq", 2048)
    params = shape_params(given["layers"], given["hidden"], vocab, seq)
    return ShadowModel(spec, params, seq, given["layers"],
                       f"custom shape: {params / 1e9:.3g}B parameters, {given['layers']} "
                       f"layers, d_model {given['hidden']}, {given['heads']} heads, context "
                       f"{seq}, vocabulary {vocab}", given["hidden"], given["heads"], vocab)


def shadow_model(spec: str, layers: int | None = None, flag: str = "--shadow-model"
                 ) -> ShadowModel:
    """A preset name, ``custom:PARAMS`` (e.g. ``custom:6.7e9`` or ``custom:6.7B``; a
    custom model has ``layers`` layers when given) or a shape,
    ``custom:layers=L,hidden=H,heads=A[,vocab=V,seq=S]``. An unknown name is refused
    naming ``flag``, the option that gave it."""
    spec = shapes.ALIASES.get(spec, spec)
    if spec in PRESETS:
        return PRESETS[spec]
    if spec.startswith("custom:") and "=" in spec:
        return custom_shape(spec)
    if spec.startswith("custom:"):
        try:
            params = parse_count(spec.removeprefix("custom:"))
        except UnitError:
            params = 0
        if params >= 1:
            origin = "given"
            if layers is None:
                layers, origin = gpt3_layers(params), "the nearest GPT-3 model's"
            return ShadowModel(spec, params, 2048, layers, "custom parameter count, "
                               f"context 2048, {layers} layers ({origin})")
    raise TrainetError(f"{flag} {spec!r}: choose {', '.join(PRESETS)}, "
                       "custom:PARAMS (e.g. custom:6.7e9 or custom:6.7B) or "
                       "custom:layers=L,hidden=H,heads=A[,vocab=V,seq=S]")


def step_flops(params: float, tokens: int) -> float:
    return 6.0 * params * tokens


def step_compute_s(model: ShadowModel, batch: int, dev: Device, mfu: float | None = None,
                   micro: int | None = None, tp: int = 1, recompute: str = "none") -> float:
    """Seconds of one step's compute of ``batch`` sequences on one rank (of ``tp``
    tensor-parallel ranks) holding every layer, its ``recompute`` included:
    hosts/compute.py, or ``mfu`` of the peak."""
    return compute.step_pass(shape_of(model), model.params, dev, batch, micro, tp,
                             recompute=recompute, mfu=mfu).seconds


def layer_pass(model: ShadowModel, dev: Device, micro: int, tp: int = 1, sp: bool = False,
               recompute: str = "none", mfu: float | None = None,
               fused_accumulation: bool = True) -> compute.Pass:
    """One layer, one micro-batch, on one of ``tp`` ranks: hosts/compute.py, or the
    layer's share of 6 P T FLOPs at ``mfu``."""
    if mfu is not None:
        return compute.flat_pass(model.params, model.layers, micro * model.seq, dev, mfu, tp,
                                 recompute)
    return compute.layer_pass(shape_of(model), dev, micro, tp, sp, recompute,
                              fused_accumulation)


def head_pass(model: ShadowModel, dev: Device, micro: int, tp: int = 1,
              mfu: float | None = None, fused_accumulation: bool = True) -> compute.Pass:
    """The logits and loss of one micro-batch (inside the layers' share under ``mfu``)."""
    if mfu is not None:
        return compute.Pass(0.0, 0.0)
    return compute.head_pass(shape_of(model), dev, micro, tp, fused_accumulation)


def compute_time_s(params: float, tokens: int, dev: Device, mfu: float = 0.4) -> float:
    """6 P T FLOPs at ``mfu`` of the bf16 peak (the ``--mfu`` override)."""
    if not 0 < mfu <= 1:
        raise TrainetError(f"--mfu {mfu}: the utilisation must be in (0, 1], e.g. 0.4")
    return step_flops(params, tokens) / (dev.peak_flops * mfu)


def interference_of(context, m_nominal: float) -> float:
    """The step's interference factor: the context's (default :data:`DEFAULT_INTERFERENCE`)
    when the strategy has collectives on the GPU, else 0."""
    factor = DEFAULT_INTERFERENCE if context.interference is None else context.interference
    if factor < 0:
        raise TrainetError(f"--interference {factor:g}: a slowdown is 0 or more, e.g. 0.189")
    collectives = context.info.collectives(m_nominal, context.comm.world, context.target.layers,
                                           options=context.options, model=context.target,
                                           batch=context.batch)
    return factor if any(c.route == "ring" for c in collectives) else 0.0


def model_bytes(params: float) -> float:
    return params * BYTES_PER_PARAM


def adam_memory(params: float) -> Memory:
    """A whole model's training state: bf16 parameters and gradients, fp32 master
    weights and Adam moments (the ZeRO paper's 2P + 2P + 12P)."""
    return Memory(round(params * BYTES_PER_PARAM), round(params * BYTES_PER_PARAM),
                  round(params * OPTIMIZER_BYTES_PER_PARAM))


class ShadowStrategy(Strategy):
    """Common part: the compute model and the emulated buffer (4-byte elements standing
    for ``scale`` x the nominal volume, split into ``CHUNKS`` layer groups)."""

    model_bytes_per_element = 4       # an fp32 element carries 4 bytes of the bf16 model

    def __init__(self, context):
        super().__init__(context.comm)
        self.info, self.target, self.scale = context.info, context.target, context.scale
        self.options, self.sizes, self.mfu = context.options, None, context.mfu
        # gradient accumulation (AccumulationOptions): the step's compute is that of
        # its micro-batches, which _step sleeps one after another
        self.micro_batches = context.options.accumulation_steps(context.batch, context.info.name) \
            if isinstance(context.options, AccumulationOptions) else 1
        self.compute_s = step_compute_s(self.target, context.batch, context.device,
                                        context.mfu, context.batch // self.micro_batches,
                                        recompute=context.recompute)
        self.m_nominal = model_bytes(self.target.params)
        unit = CHUNKS * self.comm.world
        elements = -(-scaled_volume(round(self.m_nominal), self.scale)
                     // self.model_bytes_per_element)
        self.elements = -(-elements // unit) * unit
        self.chunk = self.elements // CHUNKS
        self.interference = interference_of(context, self.m_nominal)

    def setup(self, model=None) -> None:
        self.buffer = torch.zeros(self.elements)

    def _finish_step(self) -> None:
        overlapped = min(max(0.0, self.comm.busy_s - self.comm.blocked_s), self.compute_s)
        extra = self.interference * overlapped
        if extra > 0:
            time.sleep(extra)
            self.interference_s += extra

    def memory(self) -> Memory:
        return Memory(tensor_bytes([self.buffer]), 0, 0)

    def nominal_memory(self) -> Memory:
        return self.info.nominal_memory(self.target.params, self.comm.world,
                                        self.target.layers, options=self.options,
                                        sizes=self.sizes, model=self.target)
