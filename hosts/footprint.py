"""A shadow worker's whole memory footprint, and whether it fits its device and host.

What a strategy declares (``StrategyInfo.memory``: parameters, gradients, optimizer
state, and what it keeps on the host or NVMe) plus what every strategy holds besides:

* activations, for ``batch`` sequences of ``seq`` tokens through ``L`` layers of width
  ``h`` with ``a`` attention heads, 16-bit, no tensor or sequence parallelism
  (Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer
  Models", sec. 4.1, eq. 1): ``s b h (34 + 5 a s / h)`` bytes per layer. With full
  recomputation (sec. 4.3) only each layer's input stays, ``2 s b h`` per layer, and one
  layer's activations are rebuilt at a time for its backward. Embedding and logits are
  left out;
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


def activation_bytes(model: ShadowModel, batch: int, recompute: bool) -> float:
    width = hidden_size(model)
    sbh = model.seq * batch * width
    layer = sbh * (34 + 5 * model.attention_heads * model.seq / width)
    if recompute:
        return 2 * sbh * model.layers + layer
    return layer * model.layers


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


def footprint(info, target: ShadowModel, world: int, batch: int, recompute: bool = True,
              options=None, sizes: dict | None = None) -> Footprint:
    """The whole per-worker footprint of strategy ``info`` training ``target``."""
    m = model_bytes(target.params)
    declared = info.nominal_memory(target.params, world, target.layers, options=options,
                                   sizes=sizes)
    collectives = info.collectives(m, world, target.layers, options=options, sizes=sizes,
                                   model=target, batch=batch)
    return Footprint(declared.params_bytes, declared.grads_bytes, declared.optimizer_bytes,
                     declared.activations_bytes or activation_bytes(target, batch, recompute),
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
