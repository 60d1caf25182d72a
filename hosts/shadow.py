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

Volumes per worker and step, M = parameters x 2 bytes (bf16 weights and gradients on the
wire), N workers: DDP ring all-reduce sends 2 (N-1)/N M; ZeRO-3 sends 3 (N-1)/N M (a
parameter all-gather in forward and again in backward, a gradient reduce-scatter); with
a parameter server each worker pushes M and pulls M (2M through its link); with LuWu
each worker pushes its gradients (M) to the switch, which hands the sums to the optimizer
node, and receives the parameters the switch multicasts from the optimizer node: with
streamed parameters (strategy ``luwu``) each layer for forward and again for backward,
the last layer once for both, so (2 - 1/L) M for L layers; with resident parameters
(``luwu-resident``) the updated parameters once, M.

Memory per worker and step, P parameters, mixed-precision Adam as the ZeRO paper counts
it (Rajbhandari et al. 2020, "ZeRO: Memory Optimizations Toward Training Trillion
Parameter Models", sec. 3.1: 2P bf16 parameters, 2P bf16 gradients, 12P optimizer state
= fp32 master weights, Adam m and v): DDP holds 2P + 2P + 12P; ZeRO-3 (stage P_os+g+p,
sec. 5.3) holds (2P + 2P + 12P) / N; a parameter-server worker holds 2P + 2P. A LuWu
worker (Sun et al. 2024, "LuWu: An End-to-End In-Network Out-of-Core Optimizer for
100B-Scale Model-in-Network Data-Parallel Training on Distributed GPUs") holds no
optimizer state and no master weights (both live on the optimizer node). Streaming its
parameters, it holds at most three layers (the one computing and two prefetched,
3 x 2P / L) and the gradients of at most two layers (pushes in flight): 10P / L, 1/19 of
ZeRO-3's 16P / N for GPT-175B (L = 96) on 8 workers. Keeping them resident, it holds
the 2P working parameters and the gradients of one layer group, 2P / CHUNKS:
2P (1 + 1/CHUNKS) = 2.25P, more than ZeRO-3's from N = 8 on.

Compute model: 6 x parameters x tokens FLOPs per step (forward 2, backward 4 per
parameter and token; Kaplan et al. 2020, "Scaling Laws for Neural Language Models",
sec. 2.1) at ``mfu`` (model FLOPs utilisation, default 0.4) of the device's dense bf16
peak. The communication is split into ``CHUNKS`` equal layer groups: the DDP buckets
launch during backward, the ZeRO-3 gathers are prefetched one group ahead, as in the
real strategies.
"""
from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass

import numpy as np
import torch

from hosts.param_server import ParameterServerClient
from hosts.strategies.base import Memory, Strategy, tensor_bytes
from testbed.errors import TrainetError
from testbed.topology.profiles import scaled_volume

BYTES_PER_PARAM = 2          # bf16 weights and gradients
OPTIMIZER_BYTES_PER_PARAM = 12   # fp32 master weights, Adam m and v (ZeRO paper, sec. 3.1)
CHUNKS = 8
DEFAULT_MFU = 0.4


@dataclass(frozen=True)
class ShadowModel:
    name: str
    params: float
    seq: int
    layers: int
    source: str


PRESETS = {m.name: m for m in (
    ShadowModel("gpt-1.3b", 1.3e9, 2048, 24, "GPT-3 XL, Brown et al. 2020, table 2.1: 1.3B "
                "parameters, 24 layers, d_model 2048, context 2048"),
    ShadowModel("gpt-20b", 20e9, 2048, 44, "GPT-NeoX-20B, Black et al. 2022: 20B "
                "parameters, 44 layers, d_model 6144, context 2048"),
    ShadowModel("gpt-175b", 175e9, 2048, 96, "GPT-3, Brown et al. 2020, table 2.1: 175B "
                "parameters, 96 layers, d_model 12288, context 2048"),
)}

# (parameters, layers) of the GPT-3 family, Brown et al. 2020, table 2.1: a custom
# model gets the layer count of the nearest in parameters (on a log scale)
GPT3_LAYERS = ((125e6, 12), (350e6, 24), (760e6, 24), (1.3e9, 24), (2.7e9, 32),
               (6.7e9, 32), (13e9, 40), (175e9, 96))


@dataclass(frozen=True)
class Device:
    name: str
    peak_flops: float
    source: str


DEVICES = {d.name: d for d in (
    Device("a100", 312e12, "NVIDIA A100 datasheet: 312 TFLOP/s dense BF16 tensor core"),
    Device("h100", 989e12, "NVIDIA H100 SXM datasheet: 989 TFLOP/s dense BF16 tensor core"),
    Device("mi250x-gcd", 191.5e12, "AMD Instinct MI250X datasheet: 383 TFLOP/s dense BF16 "
           "per package of two GCDs, i.e. 191.5 per GCD"),
)}

_SUFFIX = {"": 1.0, "k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}


def shadow_model(spec: str) -> ShadowModel:
    """A preset name or ``custom:PARAMS`` (e.g. ``custom:6.7e9`` or ``custom:6.7B``)."""
    if spec in PRESETS:
        return PRESETS[spec]
    match = re.fullmatch(r"custom:([0-9.]+(?:e[0-9]+)?)([kKmMbBgGtT]?)", spec)
    if match:
        params = float(match.group(1)) * _SUFFIX[match.group(2).lower()]
        if params >= 1:
            layers = min(GPT3_LAYERS, key=lambda pl: abs(math.log(pl[0] / params)))[1]
            return ShadowModel(spec, params, 2048, layers, "custom parameter count, "
                               f"context 2048, {layers} layers (the nearest GPT-3 model's)")
    raise TrainetError(f"--shadow-model {spec!r}: choose {', '.join(PRESETS)} or "
                       "custom:PARAMS (e.g. custom:6.7e9 or custom:6.7B)")


def device(name: str) -> Device:
    try:
        return DEVICES[name]
    except KeyError:
        raise TrainetError(f"--device {name!r}: choose one of {', '.join(DEVICES)}") from None


def step_flops(params: float, tokens: int) -> float:
    return 6.0 * params * tokens


def compute_time_s(params: float, tokens: int, dev: Device, mfu: float = DEFAULT_MFU) -> float:
    if not 0 < mfu <= 1:
        raise TrainetError(f"--mfu {mfu}: the utilisation must be in (0, 1], e.g. 0.4")
    return step_flops(params, tokens) / (dev.peak_flops * mfu)


def model_bytes(params: float) -> float:
    return params * BYTES_PER_PARAM


def volume_bytes(strategy: str, m_bytes: float, world: int,
                 layers: int | None = None) -> tuple[float, float]:
    """(sent, received) bytes per worker and step for a model of ``m_bytes`` (strategy
    luwu needs the model's ``layers``)."""
    ring = (world - 1) / world
    if strategy == "ddp":
        return 2 * ring * m_bytes, 2 * ring * m_bytes
    if strategy == "zero3":
        return 3 * ring * m_bytes, 3 * ring * m_bytes
    if strategy == "ps":
        return m_bytes, m_bytes
    if strategy == "ina":         # one int32 lane per bf16 value, out and back once
        return 2 * m_bytes, 2 * m_bytes
    if strategy == "luwu":        # gradients out; each layer in twice, the last once
        return m_bytes, (2 - 1 / _layers(layers)) * m_bytes
    if strategy == "luwu-resident":   # gradients out, updated parameters back
        return m_bytes, m_bytes
    raise TrainetError(f"shadow mode has no volume model for strategy {strategy!r}; "
                       "choose ddp, zero3, ps, ina, luwu or luwu-resident")


def _layers(layers: int | None) -> int:
    if not layers:
        raise TrainetError("strategy luwu streams its parameters layer by layer: give the "
                           "model's layers")
    return layers


def nominal_memory(strategy: str, params: float, world: int,
                   layers: int | None = None) -> Memory:
    """Training-state bytes per worker (mixed-precision Adam, as the ZeRO paper counts;
    strategy luwu needs the model's ``layers``)."""
    p, g, o = (params * BYTES_PER_PARAM, params * BYTES_PER_PARAM,
               params * OPTIMIZER_BYTES_PER_PARAM)
    if strategy == "zero3":
        return Memory(round(p / world), round(g / world), round(o / world))
    if strategy == "ps":
        return Memory(round(p), round(g), 0)
    if strategy == "luwu":
        layer = p / _layers(layers)
        return Memory(round(3 * layer), round(2 * layer), 0)
    if strategy == "luwu-resident":
        return Memory(round(p), round(g / CHUNKS), 0)
    return Memory(round(p), round(g), round(o))


class ShadowStrategy(Strategy):
    """Common part: the compute model and the emulated buffer (4-byte elements standing
    for ``scale`` x the nominal volume, split into ``CHUNKS`` layer groups)."""

    model_bytes_per_element = 4       # an fp32 element carries 4 bytes of the bf16 model

    def __init__(self, comm, model: ShadowModel, dev: Device, batch: int, scale: float,
                 mfu: float = DEFAULT_MFU):
        super().__init__(comm)
        self.target, self.scale = model, scale
        self.compute_s = compute_time_s(model.params, batch * model.seq, dev, mfu)
        self.m_nominal = model_bytes(model.params)
        unit = CHUNKS * comm.world
        elements = -(-scaled_volume(round(self.m_nominal), scale)
                     // self.model_bytes_per_element)
        self.elements = -(-elements // unit) * unit
        self.chunk = self.elements // CHUNKS

    def setup(self, model=None) -> None:
        self.buffer = torch.zeros(self.elements)

    def memory(self) -> Memory:
        return Memory(tensor_bytes([self.buffer]), 0, 0)

    def nominal_memory(self) -> Memory:
        return nominal_memory(self.name, self.target.params, self.comm.world)


class ShadowDDP(ShadowStrategy):
    name = "ddp"

    def _step(self, batch) -> None:
        time.sleep(self.compute_s / 3)                      # forward
        futures = []
        for k in range(CHUNKS):                             # backward, bucket by bucket
            time.sleep(self.compute_s * 2 / 3 / CHUNKS)
            futures.append(self.comm.all_reduce(self.buffer[k * self.chunk:(k + 1) * self.chunk]))
        for f in futures:
            self.comm.wait(f)


class ShadowZero3(ShadowStrategy):
    name = "zero3"

    def setup(self, model=None) -> None:
        super().setup()
        self.shard = torch.zeros(self.chunk // self.comm.world)

    def _gather_pass(self, order, seconds: float, backward: bool) -> list:
        reductions = []
        pending = self.comm.all_gather(self.shard)
        for n, k in enumerate(order):
            self.comm.wait(pending)
            if n + 1 < len(order):
                pending = self.comm.all_gather(self.shard)
            time.sleep(seconds / CHUNKS)
            if backward:                                    # the group's gradients
                reductions.append(self.comm.reduce_scatter(
                    self.buffer[k * self.chunk:(k + 1) * self.chunk]))
        return reductions

    def _step(self, batch) -> None:
        self._gather_pass(range(CHUNKS), self.compute_s / 3, backward=False)
        for f in self._gather_pass(range(CHUNKS - 1, -1, -1), self.compute_s * 2 / 3,
                                   backward=True):
            self.comm.wait(f)


class ShadowPS(ShadowStrategy):
    name = "ps"

    def __init__(self, comm, model, dev, batch, scale, server: str, timeout_s: float,
                 mfu: float = DEFAULT_MFU):
        super().__init__(comm, model, dev, batch, scale, mfu)
        self.client = ParameterServerClient(server, comm.rank, timeout_s)

    def setup(self, model=None) -> None:
        super().setup()
        self.pulled = torch.empty_like(self.buffer)
        self.client.hello(self.elements, 0.0, 0.0, self.buffer if self.comm.rank == 0 else None)

    def _step(self, batch) -> None:
        time.sleep(self.compute_s)
        nbytes = self.elements * 4
        self.comm.wait(self.comm.submit("push/pull", self.client.push_pull, self.buffer,
                                        self.pulled, sent=nbytes, recv=nbytes))

    def close(self) -> None:
        self.client.close()
        super().close()


class ShadowIna(ShadowDDP):
    """ShadowDDP whose buckets the switch sums (p4/ina.p4): one int32 lane per value."""

    name = "ina"
    model_bytes_per_element = 2       # one lane per bf16 value

    def __init__(self, comm, model, dev, batch, scale, aggregator: str, job: int,
                 slots: int, timeout_s: float, mfu: float = DEFAULT_MFU):
        from hosts.ina_allreduce import InaAllReduce, UdpTransport
        from hosts.strategies.ina import InaComm
        self.transport = UdpTransport(aggregator)
        reducer = InaAllReduce(self.transport, job, comm.rank, comm.world, slots)
        reducer.stream.give_up_s = timeout_s
        super().__init__(InaComm(comm, reducer), model, dev, batch, scale, mfu)

    def nominal_memory(self) -> Memory:
        return nominal_memory("ddp", self.target.params, self.comm.world)

    def close(self) -> None:
        self.transport.close()
        super().close()


def luwu_layout(model: ShadowModel, scale: float, streamed: bool):
    """The chunk layout of a shadow LuWu job, which the workers and the optimizer node
    derive alike: ``scale`` x M bytes of fp32 elements, padded to whole INA chunks in
    each layer (streamed: one bucket per layer, pulled layer by layer) or each of the
    ``CHUNKS`` layer groups (resident: one bucket, pushed group by group)."""
    from hosts.luwu_layout import Layout
    from testbed.proto import ina
    groups = model.layers if streamed else CHUNKS
    elements = -(-scaled_volume(round(model_bytes(model.params)), scale) // 4)
    per_group = -(-elements // (groups * ina.LANES)) * ina.LANES
    return Layout.of_sizes([per_group] * groups if streamed else [per_group * groups])


class ShadowLuwuResident(ShadowStrategy):
    """LuWu in shadow mode, parameters resident: after each layer group of backward the
    worker pushes that group's gradients through p4/luwu.p4 to the optimizer node and
    pulls the group's updated parameters, multicast back by the switch
    (hosts/luwu_session.py's PushPull). The parameter buffer stands for M, one group's
    gradient buffer for M / CHUNKS; there is no optimizer state on the worker."""

    name = "luwu-resident"

    def __init__(self, comm, model, dev, batch, scale, aggregator: str, job: int,
                 exponent_job: int, slots: int, timeout_s: float, mfu: float = DEFAULT_MFU):
        from hosts.ina_allreduce import UdpTransport
        from hosts.luwu_session import PushPull
        from testbed.proto import ina
        super().__init__(comm, model, dev, batch, scale, mfu)
        self.elements = luwu_layout(model, scale, streamed=False).chunks_per_step * ina.LANES
        self.chunk = self.elements // CHUNKS
        self.transport = UdpTransport(aggregator)
        self.push_pull = PushPull(self.transport, job, exponent_job, comm.rank, comm.world,
                                  slots, give_up_s=timeout_s)

    def setup(self, model=None) -> None:
        super().setup()
        self.grads = torch.full((self.chunk,), 1e-3)

    def _step(self, batch) -> None:
        time.sleep(self.compute_s / 3)                      # forward
        nbytes = self.chunk * 4
        futures = []
        for k in range(CHUNKS):                             # backward, group by group
            time.sleep(self.compute_s * 2 / 3 / CHUNKS)
            futures.append(self.comm.submit("LuWu push-pull", self.push_pull,
                                            self.grads.numpy(), sent=nbytes, recv=nbytes))
        for k, future in enumerate(futures):
            params = torch.from_numpy(self.comm.wait(future))
            self.buffer[k * self.chunk:(k + 1) * self.chunk].copy_(params)

    def memory(self) -> Memory:
        return Memory(tensor_bytes([self.buffer]), tensor_bytes([self.grads]), 0)

    def close(self) -> None:
        self.transport.close()
        super().close()


class ShadowLuwu(ShadowStrategy):
    """LuWu in shadow mode, parameters streamed (hosts/strategies/luwu.py's
    LuwuStreamed): layer by layer, the worker pulls the layer's parameters (prefetched
    two layers ahead), sleeps its share of the compute and drops them; in backward it
    pulls them again and pushes the layer's gradients. What it holds is measured: the
    pulled layers until dropped, the gradients until the optimizer node has them."""

    name = "luwu"

    def __init__(self, comm, model, dev, batch, scale, aggregator: str, job: int,
                 exponent_job: int, pull_job: int, slots: int, timeout_s: float,
                 mfu: float = DEFAULT_MFU):
        from hosts.luwu_session import Streams
        super().__init__(comm, model, dev, batch, scale, mfu)
        self.layout = luwu_layout(model, scale, streamed=True)
        self.layers = model.layers
        self.layer_chunks = self.layout.bucket_chunks(0)
        self.streams = Streams.over_udp(comm, aggregator, job, exponent_job, pull_job, slots,
                                        timeout_s)

    def setup(self, model=None) -> None:
        from testbed.proto import ina
        self.grads = np.full(self.layer_chunks * ina.LANES, 1e-3, dtype=np.float32)

    def _step(self, batch) -> None:
        streams, last, chunks = self.streams, self.layers - 1, self.layer_chunks
        forward, backward = self.compute_s / 3 / self.layers, self.compute_s * 2 / 3 / self.layers
        pulls, pushes = streams.prefetch([chunks] * (2 * self.layers - 1)), []
        for _ in range(last):
            self.comm.wait(pulls.take())
            time.sleep(forward)
            streams.release(chunks)
        for k in range(last, -1, -1):
            self.comm.wait(pulls.take())
            time.sleep(backward + (forward if k == last else 0))
            pushes.append(streams.push(self.grads))
            streams.release(chunks)
        for future in pushes:
            self.comm.wait(future)

    def memory(self) -> Memory:
        return Memory(self.streams.peak_params_bytes, self.streams.peak_grads_bytes, 0)

    def nominal_memory(self) -> Memory:
        """The measured peaks, in nominal bytes (an emulated fp32 element stands for
        4 / scale bytes of the bf16 model)."""
        m = self.memory()
        return Memory(round(m.params_bytes / self.scale), round(m.grads_bytes / self.scale), 0)

    def close(self) -> None:
        self.streams.close()
        super().close()


SHADOWS = {"ddp": ShadowDDP, "zero3": ShadowZero3, "ps": ShadowPS, "ina": ShadowIna,
           "luwu": ShadowLuwu, "luwu-resident": ShadowLuwuResident}
