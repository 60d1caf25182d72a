"""ZeRO-Offload and ZeRO-Infinity: what keeping optimizer state or parameters on the host
or on NVMe costs a step.

Named after DeepSpeed's configuration keys (``offload_optimizer`` and ``offload_param``,
each with ``device: cpu`` or ``nvme``). With the optimizer offloaded, each step after
backward moves the rank's bf16 gradient partition to host memory over the GPU's host
link (2P/N bytes), the host's CPU runs Adam over the rank's P/N parameters, and the
updated bf16 partition goes back (2P/N); on NVMe the fp32 master weights and Adam
moments (12P/N) are read before and written after the CPU step. With the parameters
offloaded, each of ZeRO-3's two gathers per step first brings the rank's partition to
the GPU (2P/N each, read from NVMe first on ``nvme``) and the update stays on the host.
The phases run one after the other, not overlapped with backward (DeepSpeed overlaps
the gradient copies with backward; the step here is longer by at most those copies).

The CPU optimizer's rate is measured on this machine, on one core, with torch's AdamW
over a tensor far larger than the caches (DeepSpeed's vectorised CPU Adam is not a
dependency), and scaled to the host profile's CPU (:func:`hosts.devices.cpu_adam_rate`).
Shadow workers sleep the modeled time; a real run (small model) really steps its CPU
optimizer and sleeps the transfers at the host profile's rates.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

from hosts.devices import Host
from testbed.errors import TrainetError

TIERS = ("none", "cpu", "nvme")
MEASURE_ELEMENTS = 1 << 23         # 32 MB per fp32 tensor, four of them


def measure_cpu_adam(elements: int = MEASURE_ELEMENTS, steps: int = 5) -> float:
    """Parameters per second torch's AdamW (Adam with decoupled weight decay, as the
    strategies step it) updates on one thread of this machine: the fastest of ``steps``
    steps, the rate of a core not shared with other work."""
    import torch
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        p = torch.nn.Parameter(torch.zeros(elements))
        p.grad = torch.full((elements,), 1e-3)
        optimizer = torch.optim.AdamW([p], lr=1e-3, weight_decay=0.01)
        optimizer.step()                       # allocates the moments
        fastest = math.inf
        for _ in range(steps):
            start = time.perf_counter()
            optimizer.step()
            fastest = min(fastest, time.perf_counter() - start)
        return elements / fastest
    finally:
        torch.set_num_threads(threads)


@dataclass(frozen=True)
class OffloadCost:
    """Seconds per step of one rank's offloading, by part."""

    link_s: float                 # GPU <-> host memory (PCIe, Infinity Fabric)
    nvme_s: float
    cpu_optimizer_s: float

    @property
    def total_s(self) -> float:
        return self.link_s + self.nvme_s + self.cpu_optimizer_s


def cost(params: float, host: Host, share: int, cpu_rate: float, optimizer: str = "none",
         param: str = "none", bytes_per_param: int = 2) -> OffloadCost:
    """One step's offloading for a rank holding ``params`` parameters, on a host shared
    by ``share`` GPUs, whose CPU share runs Adam at ``cpu_rate`` parameters/s. Each
    parameter is ``bytes_per_param`` bytes on the link (bf16: 2)."""
    for name, value in (("offload_optimizer", optimizer), ("offload_param", param)):
        if value not in TIERS:
            raise TrainetError(f"{name} {value!r}: choose {', '.join(TIERS)}")
        if value == "nvme" and host.nvme_bytes == 0:
            raise TrainetError(f"{name} nvme: host {host.name} has no NVMe; offload to cpu")
    partition = params * bytes_per_param
    nvme_read = host.nvme_read_bps / share
    nvme_write = host.nvme_write_bps / share
    link = nvme = cpu = 0.0
    if optimizer != "none":
        link += partition / host.link_bps                       # gradients down
        if param == "none":
            link += partition / host.link_bps                   # parameters back
        cpu = params / cpu_rate
        if optimizer == "nvme":
            state = params * 12                                 # fp32 master, m, v
            nvme += state / nvme_read + state / nvme_write
    if param != "none":
        link += 2 * partition / host.link_bps                   # before each gather
        if param == "nvme":
            nvme += 2 * partition / nvme_read
    return OffloadCost(link, nvme, cpu)
