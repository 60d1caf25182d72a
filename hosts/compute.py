"""How long a device takes to compute a transformer's forward and backward passes: one
model for the analytical model (testbed/model), the plans and the shadow workers.

Each layer is the list of kernels Megatron-LM runs for it (per micro-batch of ``b``
sequences of ``s`` tokens, width ``h``, ``a`` heads, ``t`` tensor-parallel ranks), each
timed by a roofline: the longer of its FLOPs at the device's peak times a shape-dependent
efficiency, and its bytes at the device's memory bandwidth times :data:`MEMORY_EFFICIENCY`.

* **matrix products** (QKV ``[bs, h] x [h, 3h/t]``, projection ``[bs, h/t] x [h/t, h]``,
  MLP ``[bs, h] x [h, 4h/t]`` and ``[bs, 4h/t] x [4h/t, h]``; attention's scores and
  context as ``b a / t`` batched products of ``[s, h/a] x [h/a, s]`` and
  ``[s, s] x [s, h/a]``): efficiency = :data:`MATMUL_CEILING` x tile use x depth use.
  Tile use: the output is cut into tiles spread over the device's SMs in waves; the
  last wave and the tiles at the edges are partly idle (wave and tile quantization,
  NVIDIA's "Matrix Multiplication Background" guide; the best of :data:`TILES` is
  taken, as cuBLAS picks its kernel). Depth use: ``k / (k + K_HALF)``, a short inner
  dimension spends relatively more time loading and storing tiles than in the tensor
  cores (a documented reconstruction: :data:`K_HALF` is one 64-deep A100 main-loop tile,
  the depth at which the prologue and epilogue cost as much as the main loop).
  Backward: two products of the same FLOPs (input gradient and weight gradient), with
  their own shapes;
* **memory-bound work** (layer norms, softmax with its scale and mask, dropouts, bias +
  GeLU, bias + dropout + residual, cross-entropy): bytes read and written per element as
  Megatron's fused kernels move them (:data:`BYTES_PER_ELEMENT`), at the memory
  bandwidth; backward moves twice the forward's bytes (the gradient in and out, the
  saved input read). With sequence parallelism the layer norms and the dropouts +
  residuals work on ``s / t`` of the tokens (Korthikanti et al. 2022, sec. 4.2.2);
  the layout copies of self-attention: the context permuted back to ``[s, b, h/t]``
  (forward and its gradient in backward) and the query, key and value gradients joined
  into the QKV product's gradient (backward);
* **the head**: the logits ``[bs, h] x [h, V/t]`` and the cross-entropy, on the last
  pipeline stage; the cross-entropy as Megatron-LM's vocabulary-parallel one moves it,
  every pass over the fp32 logits a kernel of its own (:data:`CROSS_ENTROPY_FORWARD_BYTES`,
  :data:`CROSS_ENTROPY_BACKWARD_BYTES`);
* **recompute** (Korthikanti et al. 2022, sec. 5): ``selective`` re-runs attention's
  core (scores, softmax, dropout, context) before its backward; ``full`` re-runs the
  whole layer's forward;
* **optimizer**: Megatron-LM's mixed-precision step on a rank's parameters, memory-bound
  at :data:`OPTIMIZER_BYTES_PER_PARAM`: the 16-bit gradients copied to fp32 main
  gradients, unscaled and checked for inf/NaN, their norm taken for clipping, Adam
  (:data:`hosts.devices.ADAM_BYTES_PER_PARAM`), the fp32 main parameters copied back to
  the 16-bit model, the model gradients zeroed (Megatron-LM
  megatron/optimizer/optimizer.py, ``Float16OptimizerWithFloat16Params.step``: the
  gradient copy, ``_unscale_main_grads_and_check_for_nan``, ``clip_grad_norm``, the
  fused Adam, ``_copy_main_params_to_model_params``).

* **gradient accumulation**: with ``fused_accumulation=False`` every micro-batch's
  backward adds each weight gradient of the rank into the gradient buffer in a kernel
  of its own (Megatron-LM's local DDP hook ``param.main_grad.add_(param.grad)``, before
  ``--gradient-accumulation-fusion`` folded the add into the weight-gradient product):
  :data:`GRAD_ACCUMULATION_BYTES` per parameter and micro-batch at the memory bandwidth.

Constants (fixed from device data and micro-benchmarks, never fitted to the training
runs the model is checked against, testbed/model/published.py):
the matmul ceiling, the share of the bf16 peak no product exceeds (the tile and depth
terms take every shape below it), is the device profile's measured one
(``Device.matmul_share``): on the A100 profiles 0.737, 230 of 312 TFLOP/s, the best FP16
square product (n up to 8192) an A100 80GB sustained over at least 3 s of repeats with
CUDA 11.7's cuBLAS (mli/transformers-benchmarks, README "Micro-Benchmarking Summary",
2022; CUDA 11.7 is the repository's setup, the run's own version and form factor are not
printed), the software generation of the Megatron-LM runs the model is checked against
(2021-22, CUDA 11); at 8192^3 the model gives 228 TFLOP/s. Devices without one take
:data:`MATMUL_CEILING` 0.859, the best large bf16 product measured on an A100 SXM with
CUDA 12.1: 267.9 of 312 TFLOP/s at 6912 x 16384 x 2048 (S. Bekman, "Machine Learning
Engineering", compute/accelerator/README.md, "Maximum Achievable Matmul FLOPS comparison
table", the maximum over a sweep of shapes by its mamf-finder.py, which derives from
Anthony et al. 2024, arXiv 2401.14489), the share of the newer software those devices
run. :data:`MEMORY_EFFICIENCY` 0.88, the share of the data sheet's HBM
bandwidth a streaming kernel sustains on an A100 80GB SXM: 1.80 of 2.04 TB/s, 88 % by
Nsight Compute ("Trouble to Reach Peak Bandwidth of A100", NVIDIA developer forums,
topic 339083, which also cites a GTC talk where no kernel exceeded about 90 %).

``mfu`` replaces all of this with one utilisation of the bf16 peak: forward 2 FLOPs per
parameter and token, backward 4 (Kaplan et al. 2020, sec. 2.1), recompute adding its
forward work.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from hosts.devices import ADAM_BYTES_PER_PARAM, Device
from testbed.errors import TrainetError

K_HALF = 64
TILES = ((256, 128), (128, 256), (128, 128), (128, 64), (64, 64))
MATMUL_CEILING = 267.9e12 / 312e12      # best share of the A100's bf16 peak, CUDA 12.1
MAMF_SHAPE = (6912, 16384, 2048)        # m, n, k of that measurement
MEMORY_EFFICIENCY = 1.80 / 2.04         # measured / data-sheet HBM2e bandwidth, A100 80GB
# fp16 gradient read, buffer read and written (Megatron-LM 2021 accumulated in the
# parameters' precision unless --accumulate-allreduce-grads-in-fp32)
GRAD_ACCUMULATION_BYTES = 3 * 2
BF16 = 2
RECOMPUTE = ("none", "selective", "full")
# bytes per parameter of the optimizer step: 16-bit gradient to fp32 main gradient (read
# 2, write 4), unscale + inf check (read 4, write 4), gradient norm (read 4), Adam, fp32
# main parameter to 16-bit model parameter (read 4, write 2), model gradient zeroed (2)
OPTIMIZER_BYTES_PER_PARAM = 6 + 8 + 4 + ADAM_BYTES_PER_PARAM + 6 + 2
# bytes moved per element by Megatron's fused kernels, forward (reads + writes, bf16
# activations, a 1-byte dropout mask)
BYTES_PER_ELEMENT = {
    "layernorm": 2 * BF16,                  # read x, write y
    "softmax": 2 * BF16,                    # fused scale + mask + softmax: read, write
    "attention-dropout": 2 * BF16 + 1,      # read, write, mask
    "bias-gelu": 2 * BF16,
    "bias-dropout-add": 3 * BF16 + 1,       # read x and the residual, write, mask
    "copy": 2 * BF16,                       # a layout change made contiguous: read, write
}
# bytes per logit of Megatron-LM's vocabulary-parallel cross-entropy (megatron/mpu/
# cross_entropy.py, the loss on ``output.float()`` in megatron/model/gpt_model.py), each
# pass a kernel over the rank's ``tokens x V/t`` logits. Forward: the bf16 logits to fp32
# (read 2, write 4), their maximum (read 4), minus it in place (read 4, write 4), exp in
# place (read 4, write 4), the sum (read 4), divided by it in place into the softmax kept
# for backward (read 4, write 4). Backward: the softmax times the loss gradient in place
# (read 4, write 4), back to bf16 (read 4, write 2).
CROSS_ENTROPY_FORWARD_BYTES = 6 + 4 + 8 + 8 + 4 + 8
CROSS_ENTROPY_BACKWARD_BYTES = 8 + 6


@dataclass(frozen=True)
class Shape:
    layers: int
    hidden: int
    heads: int
    seq: int
    vocab: int


@dataclass(frozen=True)
class Pass:
    """Seconds of one micro-batch through some layers on one rank."""

    forward_s: float
    backward_s: float

    def __add__(self, other: "Pass") -> "Pass":
        return Pass(self.forward_s + other.forward_s, self.backward_s + other.backward_s)

    def __mul__(self, n: float) -> "Pass":
        return Pass(self.forward_s * n, self.backward_s * n)

    @property
    def seconds(self) -> float:
        return self.forward_s + self.backward_s


def check_recompute(mode: str) -> str:
    if mode not in RECOMPUTE:
        raise TrainetError(f"recompute {mode!r}: choose one of {', '.join(RECOMPUTE)}")
    return mode


def matmul_s(m: int, n: int, k: int, dev: Device, batch: int = 1) -> float:
    """One (batched) ``[m, k] x [k, n]`` product in bf16."""
    flops = 2.0 * m * n * k * batch
    peak = dev.peak("bf16") * matmul_ceiling(dev) * tile_use(m, n, batch, dev.sms) \
        * k / (k + K_HALF)
    moved = BF16 * (m * k + k * n + m * n) * batch
    return max(flops / peak, memory_s(moved, dev))


def matmul_ceiling(dev: Device) -> float:
    """The share of the bf16 peak no product of ``dev`` exceeds: its profile's measured
    one, else :data:`MATMUL_CEILING`."""
    return dev.matmul_share or MATMUL_CEILING


def tile_use(m: int, n: int, batch: int, sms: int) -> float:
    """The share of the SMs' tile slots doing useful work, best over :data:`TILES`."""
    if sms <= 0:
        return 1.0
    best = 0.0
    for tm, tn in TILES:
        tiles = math.ceil(m / tm) * math.ceil(n / tn) * batch
        waves = math.ceil(tiles / sms)
        best = max(best, m * n * batch / (waves * sms * tm * tn))
    return best


def memory_s(nbytes: float, dev: Device) -> float:
    if dev.memory_bw_bps <= 0:
        return 0.0
    return nbytes / (dev.memory_bw_bps * MEMORY_EFFICIENCY)


def _elementwise(kind: str, elements: float, dev: Device) -> float:
    return memory_s(BYTES_PER_ELEMENT[kind] * elements, dev)


def _attention_core(x: Shape, micro: int, tp: int, dev: Device) -> Pass:
    heads = max(1, x.heads // tp)
    d = x.hidden // x.heads
    batch = micro * heads
    scores = x.seq * x.seq * batch
    forward = (matmul_s(x.seq, x.seq, d, dev, batch) + matmul_s(x.seq, d, x.seq, dev, batch)
               + _elementwise("softmax", scores, dev)
               + _elementwise("attention-dropout", scores, dev))
    backward = (2 * matmul_s(x.seq, x.seq, d, dev, batch) + 2 * matmul_s(x.seq, d, x.seq, dev,
                                                                        batch)
                + 2 * _elementwise("softmax", scores, dev)
                + 2 * _elementwise("attention-dropout", scores, dev))
    return Pass(forward, backward)


def attention_copies(tokens: int, h: int, tp: int, dev: Device) -> Pass:
    """The copies Megatron-LM's self-attention makes of its activations besides the
    products (megatron/model/transformer.py, ``ParallelSelfAttention``): the context
    ``[b, a/t, s, h/a]`` permuted to ``[s, b, a/t, h/a]`` and made contiguous (forward;
    its gradient permuted back in backward), and in backward the query, key and value
    gradients joined into the QKV product's ``[s, b, 3h/t]`` gradient (autograd's
    backward of the split into views)."""
    context = _elementwise("copy", tokens * h / tp, dev)
    return Pass(context, context + _elementwise("copy", tokens * 3 * h / tp, dev))


def _weights(m: int, n: int, k: int, dev: Device) -> Pass:
    """A weight's product: forward ``[m, k] x [k, n]``; backward the input gradient
    ``[m, n] x [n, k]`` and the weight gradient ``[k, m] x [m, n]``."""
    return Pass(matmul_s(m, n, k, dev), matmul_s(m, k, n, dev) + matmul_s(k, n, m, dev))


def accumulation_s(params: float, dev: Device, fused: bool) -> float:
    """Adding one micro-batch's gradients of ``params`` parameters into the buffer."""
    return 0.0 if fused else memory_s(params * GRAD_ACCUMULATION_BYTES, dev)


def layer_pass(x: Shape, dev: Device, micro: int, tp: int = 1, sp: bool = False,
               recompute: str = "none", fused_accumulation: bool = True) -> Pass:
    """One transformer layer, one micro-batch of ``micro`` sequences, on one of ``tp``
    tensor-parallel ranks."""
    check_recompute(recompute)
    tokens, h = micro * x.seq, x.hidden
    split = tokens // tp if sp and tp > 1 else tokens
    core = _attention_core(x, micro, tp, dev)
    layout = attention_copies(tokens, h, tp, dev)
    dense = (_weights(tokens, 3 * h // tp, h, dev) + _weights(tokens, h, h // tp, dev)
             + _weights(tokens, 4 * h // tp, h, dev) + _weights(tokens, h, 4 * h // tp, dev))
    memory = (2 * _elementwise("layernorm", split * h, dev)
              + 2 * _elementwise("bias-dropout-add", split * h, dev)
              + _elementwise("bias-gelu", tokens * 4 * h / tp, dev))
    forward = core.forward_s + dense.forward_s + memory + layout.forward_s
    backward = core.backward_s + dense.backward_s + 2 * memory + layout.backward_s \
        + accumulation_s(12 * h * h / tp, dev, fused_accumulation)
    if recompute == "selective":
        backward += core.forward_s
    elif recompute == "full":
        backward += forward
    return Pass(forward, backward)


def head_pass(x: Shape, dev: Device, micro: int, tp: int = 1,
              fused_accumulation: bool = True) -> Pass:
    """The logits and the loss, on the last pipeline stage."""
    tokens = micro * x.seq
    logits = _weights(tokens, x.vocab // tp, x.hidden, dev)
    logits_per_rank = tokens * x.vocab / tp
    accumulate = accumulation_s(x.vocab * x.hidden / tp, dev, fused_accumulation)
    return Pass(logits.forward_s + memory_s(CROSS_ENTROPY_FORWARD_BYTES * logits_per_rank, dev),
                logits.backward_s + memory_s(CROSS_ENTROPY_BACKWARD_BYTES * logits_per_rank,
                                             dev) + accumulate)


def optimizer_s(params: float, dev: Device) -> float:
    """The mixed-precision optimizer step on ``params`` parameters held by one rank."""
    return memory_s(params * OPTIMIZER_BYTES_PER_PARAM, dev)


def flat_pass(params: float, layers: int, tokens: int, dev: Device, mfu: float,
              tp: int = 1, recompute: str = "none") -> Pass:
    """One layer at one utilisation ``mfu`` of the bf16 peak (the ``--mfu`` override)."""
    if not 0 < mfu <= 1:
        raise TrainetError(f"--mfu {mfu}: the utilisation must be in (0, 1], e.g. 0.4")
    forward = 2.0 * params / layers * tokens / tp / (dev.peak("bf16") * mfu)
    extra = {"none": 0.0, "selective": 0.0, "full": forward}[check_recompute(recompute)]
    return Pass(forward, 2 * forward + extra)


def step_pass(x: Shape, params: float, dev: Device, batch: int, micro: int | None = None,
              tp: int = 1, sp: bool = False, recompute: str = "none",
              mfu: float | None = None) -> Pass:
    """Every layer and the head for ``batch`` sequences in micro-batches of ``micro``
    (default: one micro-batch), on one of ``tp`` ranks holding the whole depth."""
    micro = micro or batch
    count = batch / micro
    if mfu is not None:
        return flat_pass(params, x.layers, micro * x.seq, dev, mfu, tp, recompute) \
            * (x.layers * count)
    return (layer_pass(x, dev, micro, tp, sp, recompute) * x.layers
            + head_pass(x, dev, micro, tp)) * count
