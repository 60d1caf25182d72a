"""Accelerators and the hosts behind them: what a shadow worker's device computes, how
much it holds, and what offloading to its host costs.

A :class:`Device` has its dense peak per precision (tensor-core bf16, fp16, tf32 and
fp32 where the datasheet gives them), its memory capacity and bandwidth, its count of
streaming multiprocessors (what a matrix product's tiles are spread over,
hosts/compute.py) and the name of the :class:`Host` it sits in; a host has the link each GPU has to it (PCIe or Infinity
Fabric, per direction), host memory, NVMe drives, and CPU cores and memory bandwidth,
all per node, with the node's GPU count to divide them by. Every figure carries its
public source. Capacities are the datasheets' GB read as GiB: HBM comes in stacks of a
power of two (an "80 GB" A100 holds 81920 MiB).

No torch here: the experiment layer reads these profiles to check that a plan fits
before anything starts.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

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
    peak_flops: float           # dense bf16, FLOP/s
    source: str
    memory_bytes: float = 0     # 0: not known, no capacity check
    host: str | None = None
    memory_bw_bps: float = 0.0  # HBM bytes/s; 0: not known (memory-bound work free)
    sms: int = 0                # streaming multiprocessors (compute units); 0: not known
    peaks: tuple[tuple[str, float], ...] = ()   # (precision, dense FLOP/s) besides bf16
    # the share of the bf16 peak a large matrix product sustains with the software this
    # profile stands for, measured (hosts/compute.py); 0: compute.MATMUL_CEILING
    matmul_share: float = 0.0

    def peak(self, precision: str = "bf16") -> float:
        """Dense FLOP/s at ``precision``."""
        table = {"bf16": self.peak_flops, **dict(self.peaks)}
        if precision not in table:
            raise TrainetError(f"precision {precision!r}: device {self.name} has "
                               f"{', '.join(table)}")
        return table[precision]

    def with_memory(self, nbytes: float) -> "Device":
        return replace(self, source=self.source + f"; memory {nbytes / GIB:g} GiB as given",
                       memory_bytes=nbytes)


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

_A100 = ("NVIDIA A100 Tensor Core GPU datasheet (2021): dense tensor-core 312 TFLOP/s "
         "BF16 and FP16, 156 TFLOP/s TF32, 19.5 TFLOP/s FP32; NVIDIA A100 Tensor Core GPU "
         "Architecture whitepaper: 108 SMs")
_H100 = ("NVIDIA H100 Tensor Core GPU datasheet, SXM5: dense 989 TFLOP/s BF16 and FP16, "
         "494.5 TFLOP/s TF32, 67 TFLOP/s FP32; NVIDIA H100 whitepaper: 132 SMs on the SXM5 "
         "part")
_A100_PEAKS = (("fp16", 312e12), ("tf32", 156e12), ("fp32", 19.5e12))
# The A100 as the published Megatron-LM runs of 2021-22 ran it, CUDA 11 cuBLAS: 230 of 312
# TFLOP/s, the best FP16 square product (n = 128 to 8192) an A100 80GB sustained, each
# timed as the median over at least 3 s of repeats (mli/transformers-benchmarks,
# README "Micro-Benchmarking Summary" by its micro_bench.ipynb, 2022; the setup it gives
# is NVIDIA's PyTorch container 22.07, CUDA 11.7, and its recorded notebook run shows CUDA
# 11.7, but the A100 run's own versions, its board's form factor and which size gave the
# best are not printed)
A100_MATMUL_SHARE = 230e12 / 312e12
_A100_MATMUL = ("; large matrix products sustain 230 TFLOP/s FP16 with CUDA 11.7 "
                "(mli/transformers-benchmarks)")
_H100_PEAKS = (("fp16", 989e12), ("tf32", 494.5e12), ("fp32", 67e12))
DEVICES = {d.name: d for d in (
    Device("a100-40gb", 312e12, f"{_A100}; 40 GB HBM2 at 1555 GB/s{_A100_MATMUL}",
           40 * GIB, "dgx-a100-320gb", 1555e9, 108, _A100_PEAKS, A100_MATMUL_SHARE),
    Device("a100-80gb", 312e12, f"{_A100}; 80 GB HBM2e at 2039 GB/s (SXM4){_A100_MATMUL}",
           80 * GIB, "dgx-a100-640gb", 2039e9, 108, _A100_PEAKS, A100_MATMUL_SHARE),
    Device("h100-80gb", 989e12, f"{_H100}; 80 GB HBM3 at 3.35 TB/s", 80 * GIB, "dgx-h100",
           3.35e12, 132, _H100_PEAKS),
    Device("h200-141gb", 989e12, "NVIDIA H200 datasheet, SXM: the H100 SXM's compute "
           "(989 TFLOP/s dense BF16, 132 SMs), 141 GB HBM3e at 4.8 TB/s", 141 * GIB,
           "dgx-h100", 4.8e12, 132, _H100_PEAKS),
    Device("v100-32gb", 125e12, "NVIDIA V100 datasheet (SXM, as in DGX-2): 125 TFLOP/s "
           "dense FP16 tensor core, 15.7 TFLOP/s FP32, 32 GB HBM2 at 900 GB/s, 80 SMs; no "
           "BF16, so its FP16 rate stands for it", 32 * GIB, "dgx-2", 900e9, 80,
           (("fp16", 125e12), ("fp32", 15.7e12))),
    Device("mi250x-gcd", 191.5e12, "AMD Instinct MI250X datasheet: 383 TFLOP/s dense BF16 "
           "and FP16, 95.7 TFLOP/s FP32 matrix, 128 GB HBM2e at 3.2768 TB/s and 220 compute "
           "units per package of two GCDs, i.e. per GCD 191.5 TFLOP/s, 64 GB, 1.6384 TB/s, "
           "110 CUs", 64 * GIB, "frontier-node", 1.6384e12, 110,
           (("fp16", 191.5e12), ("fp32", 47.85e12))),
)}
# Short names of earlier versions: results directories that name them still read, new
# input (experiment files, --device) is refused naming the profile (renamed()).
ALIASES = {"a100": "a100-80gb", "h100": "h100-80gb"}
DEFAULT = "a100-80gb"     # the device a shadow worker stands for unless one is named


def renamed(name: str) -> str | None:
    """The message refusing an old short name, or None for any other name."""
    if name in ALIASES:
        return f"device {name!r} is now called {ALIASES[name]!r}"
    return None


def device(name: str, memory: float | None = None) -> Device:
    """A profile by name (``a100`` and ``h100`` are the 80 GB parts), with ``memory``
    bytes instead of the profile's when given."""
    try:
        found = DEVICES[ALIASES.get(name, name)]
    except KeyError:
        raise TrainetError(f"--device {name!r}: choose one of {', '.join(DEVICES)}") from None
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
