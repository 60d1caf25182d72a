"""Accelerators and the hosts behind them: what a shadow worker's device computes, how
much it holds, and what offloading to its host costs.

A :class:`Device` has its dense bf16 peak, its memory capacity and the name of the
:class:`Host` it sits in; a host has the link each GPU has to it (PCIe or Infinity
Fabric, per direction), host memory, NVMe drives, and CPU cores and memory bandwidth,
all per node, with the node's GPU count to divide them by. Every figure carries its
public source. Capacities are the datasheets' GB read as GiB: HBM comes in stacks of a
power of two (an "80 GB" A100 holds 81920 MiB).

No torch here: the experiment layer reads these profiles to check that a plan fits
before anything starts.
"""
from __future__ import annotations

from dataclasses import dataclass

from testbed.errors import TrainetError

GIB = 1 << 30
ADAM_BYTES_PER_PARAM = 28     # fp32: read parameter, gradient, m, v; write parameter, m, v


@dataclass(frozen=True)
class Host:
    name: str
    gpus: int                   # GPUs (or GCDs) per node
    link_bps: float             # bytes/s between one GPU and host memory, per direction
    memory_bytes: float         # host memory of the node
    nvme_read_bps: float        # bytes/s of the node's NVMe drives together
    nvme_write_bps: float
    nvme_bytes: float           # 0: no NVMe for offloading
    cores: int                  # CPU cores of the node
    memory_bw_bps: float        # bytes/s of the node's DRAM
    source: str


@dataclass(frozen=True)
class Device:
    name: str
    peak_flops: float
    source: str
    memory_bytes: float = 0     # 0: not known, no capacity check
    host: str | None = None

    def with_memory(self, nbytes: float) -> "Device":
        return Device(self.name, self.peak_flops, self.source + f"; memory {nbytes / GIB:g} "
                      "GiB as given", nbytes, self.host)


_DGX_A100_CPU = ("2x AMD EPYC 7742 (64 cores, 8 channels of DDR4-3200 = 204.8 GB/s each, "
                 "AMD EPYC 7742 product page)")
_PM1733 = ("NVMe drives of the PCIe Gen4 U.2 class, 7.0 GB/s read and 3.8 GB/s write each "
           "(Samsung PM1733 3.84 TB datasheet)")
HOSTS = {h.name: h for h in (
    Host("dgx-a100-320gb", 8, 25e9, 1024 * GIB, 4 * 7.0e9, 4 * 3.8e9, 4 * 3.84e12, 128,
         2 * 204.8e9, "NVIDIA DGX A100 datasheet (320 GB model): 8 A100 SXM4, 1 TB memory, "
         f"{_DGX_A100_CPU}, 15 TB in 4x 3.84 TB {_PM1733}; A100 to host PCIe Gen4 x16, "
         "25 GB/s per direction taken as achievable, 80% of the 31.5 GB/s nominal "
         "(16 GT/s x 16 lanes, 128b/130b encoding)"),
    Host("dgx-a100-640gb", 8, 25e9, 2048 * GIB, 8 * 7.0e9, 8 * 3.8e9, 8 * 3.84e12, 128,
         2 * 204.8e9, "NVIDIA DGX A100 datasheet (640 GB model): 8 A100 SXM4 80GB, 2 TB "
         f"memory, {_DGX_A100_CPU}, 30 TB in 8x 3.84 TB {_PM1733}; PCIe Gen4 x16 as for "
         "dgx-a100-320gb"),
    Host("dgx-h100", 8, 50e9, 2048 * GIB, 8 * 7.0e9, 8 * 3.8e9, 8 * 3.84e12, 112,
         2 * 307.2e9, "NVIDIA DGX H100 datasheet: 8 H100 SXM5, 2 TB memory, 2x Intel Xeon "
         "Platinum 8480C (56 cores, 8 channels of DDR5-4800 = 307.2 GB/s each), 30 TB in "
         f"8x 3.84 TB {_PM1733}; PCIe Gen5 x16, 50 GB/s per direction taken as achievable, "
         "80% of the 63 GB/s nominal"),
    Host("dgx-2", 16, 12.6e9, 1536 * GIB, 8 * 3.0e9, 8 * 2.0e9, 8 * 3.84e12, 48, 2 * 128e9,
         "NVIDIA DGX-2 datasheet: 16 V100 SXM3 32GB, 1.5 TB memory, 2x Intel Xeon Platinum "
         "8168 (24 cores, 6 channels of DDR4-2666 = 128 GB/s each), 30 TB in 8x 3.84 TB "
         "NVMe; PCIe Gen3 x16, 80% of its 15.75 GB/s taken as achievable; the NVMe drives' "
         "3.0 / 2.0 GB/s read / write each are an estimate for PCIe Gen3 drives"),
    Host("frontier-node", 8, 36e9, 512 * GIB, 8e9, 4e9, 2 * 1.92e12, 64, 204.8e9,
         "OLCF Frontier user guide: one 64-core AMD EPYC 7A53 with 512 GB DDR4 (8 channels "
         "of DDR4-3200), 4 MI250X (8 GCDs), each GCD linked to the CPU by Infinity Fabric "
         "at 36 GB/s per direction, two 1.92 TB NVMe drives giving 8 GB/s read and 4 GB/s "
         "write per node"),
)}

DEVICES = {d.name: d for d in (
    Device("a100-40gb", 312e12, "NVIDIA A100 datasheet: 312 TFLOP/s dense BF16 tensor "
           "core, 40 GB HBM2", 40 * GIB, "dgx-a100-320gb"),
    Device("a100-80gb", 312e12, "NVIDIA A100 datasheet: 312 TFLOP/s dense BF16 tensor "
           "core, 80 GB HBM2e", 80 * GIB, "dgx-a100-640gb"),
    Device("h100-80gb", 989e12, "NVIDIA H100 SXM datasheet: 989 TFLOP/s dense BF16 tensor "
           "core, 80 GB HBM3", 80 * GIB, "dgx-h100"),
    Device("h200-141gb", 989e12, "NVIDIA H200 SXM datasheet: 989 TFLOP/s dense BF16 tensor "
           "core (as H100 SXM), 141 GB HBM3e", 141 * GIB, "dgx-h100"),
    Device("v100-32gb", 125e12, "NVIDIA V100 SXM3 datasheet (as in DGX-2): 125 TFLOP/s FP16 "
           "tensor core, 32 GB HBM2", 32 * GIB, "dgx-2"),
    Device("mi250x-gcd", 191.5e12, "AMD Instinct MI250X datasheet: 383 TFLOP/s dense BF16 "
           "and 128 GB HBM2e per package of two GCDs, i.e. 191.5 TFLOP/s and 64 GB per GCD",
           64 * GIB, "frontier-node"),
)}
ALIASES = {"a100": "a100-80gb", "h100": "h100-80gb"}
DEFAULT = "a100"          # the device a shadow worker stands for unless one is named


def device(name: str, memory: float | None = None) -> Device:
    """A profile by name (``a100`` and ``h100`` are the 80 GB parts), with ``memory``
    bytes instead of the profile's when given."""
    try:
        found = DEVICES[ALIASES.get(name, name)]
    except KeyError:
        raise TrainetError(f"--device {name!r}: choose one of "
                           f"{', '.join([*DEVICES, *ALIASES])}") from None
    if memory is None:
        return found
    if memory <= 0:
        raise TrainetError(f"device memory {memory:g} B: give the device's capacity, e.g. "
                           "80GiB")
    return found.with_memory(memory)


def host_of(dev: Device) -> Host:
    if dev.host is None:
        raise TrainetError(f"device {dev.name} has no host profile; offloading needs one of "
                           f"{', '.join(HOSTS)}")
    return HOSTS[dev.host]


def cpu_adam_rate(host: Host, per_core_rate: float, share: int | None = None) -> float:
    """Parameters per second one GPU's share of ``host``'s CPU (``share`` GPUs on it,
    default: its profile's) updates with Adam, from a rate measured on one core here:
    scaled by the cores per GPU (the cores taken as fast as this machine's), and at most
    what the GPU's share of the host's memory bandwidth moves at
    :data:`ADAM_BYTES_PER_PARAM`."""
    if per_core_rate <= 0:
        raise TrainetError(f"CPU optimizer rate {per_core_rate:g} parameters/s: measure it "
                           "(hosts/offload.py) or give a positive rate")
    share = share or host.gpus
    return min(per_core_rate * host.cores / share,
               host.memory_bw_bps / share / ADAM_BYTES_PER_PARAM)
