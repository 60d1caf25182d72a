"""Named NIC and link profiles, and the co-scaling rule.

A profile gives a link's nominal bandwidth, one-way latency, MTU and loss. A NIC profile
also gives the host-side transport cost of its stack; a host interface names a NIC
profile (``nic:``), a link names any profile (``profile:``). Numbers marked *estimate*
are round figures chosen for the class of hardware, not measurements.

Co-scaling: an emulated fabric cannot carry 200 Gb/s, so one factor ``s`` (0 < s <= 1)
multiplies every link's nominal bandwidth AND every tensor volume a worker sends. Transfer
times (volume / bandwidth) are then preserved, while latencies stay absolute: they are
not scaled. Because each emulated byte stands for 1/s nominal bytes, the per-byte host
cost of a transport is divided by ``s`` when emulated.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from testbed.errors import TrainetError
from testbed.units import format_rate


@dataclass(frozen=True)
class Transport:
    """Host-side cost of sending one message: a fixed part and a per-byte CPU part."""

    name: str                  # "rdma", "kernel-tcp", "gpu-p2p"
    per_message_s: float       # stack traversal, syscalls / work-request posting
    per_byte_s: float          # host CPU time per payload byte; 0 when the NIC or DMA copies

    def emulated(self, scale: float) -> "Transport":
        """The cost per emulated byte: an emulated byte stands for 1/scale nominal bytes."""
        return replace(self, per_byte_s=self.per_byte_s / scale)

    def message_time_s(self, nbytes: float) -> float:
        return self.per_message_s + nbytes * self.per_byte_s


RDMA = Transport("rdma", per_message_s=0.5e-6, per_byte_s=0.0)
KERNEL_TCP = Transport("kernel-tcp", per_message_s=15e-6, per_byte_s=0.25e-9)
GPU_P2P = Transport("gpu-p2p", per_message_s=5e-6, per_byte_s=0.0)


@dataclass(frozen=True)
class Profile:
    name: str
    kind: str                  # "nic" (usable as a host's nic and on links) or "link"
    bw_bps: float
    latency_s: float           # one-way, per link
    mtu: int
    source: str
    loss_pct: float = 0.0
    jitter_s: float = 0.0
    transport: Transport | None = None    # NIC profiles only


_PROFILES = [
    Profile("ib-hdr200", "nic", 200e9, 1e-6, 4096, transport=RDMA,
            source="NVIDIA ConnectX-6 HDR InfiniBand datasheet: 200 Gb/s per port, sub-µs "
                   "NIC latency (~1 µs end to end); IB MTU 4096 B; RDMA: no per-byte host "
                   "CPU (per-message cost: estimate)"),
    Profile("ib-ndr400", "nic", 400e9, 1e-6, 4096, transport=RDMA,
            source="NVIDIA ConnectX-7 NDR InfiniBand datasheet: 400 Gb/s per port; latency "
                   "as HDR (estimate)"),
    Profile("roce-100g", "nic", 100e9, 2.5e-6, 4096, transport=RDMA,
            source="RoCEv2 on 100 GbE (ConnectX-5/6 class): 2-3 µs end to end; RoCE path "
                   "MTU 4096 B"),
    Profile("roce-200g", "nic", 200e9, 2.5e-6, 4096, transport=RDMA,
            source="RoCEv2 on 200 GbE (ConnectX-6 class): 2-3 µs end to end"),
    Profile("eth-25g-tcp", "nic", 25e9, 5e-6, 1500, transport=KERNEL_TCP,
            source="25 GbE with kernel TCP: ~5 µs wire+switch (estimate); per-message stack "
                   "cost ~15 µs and ~0.25 ns/B of copy+checksum (~4 GB/s per core; estimate)"),
    Profile("eth-100g-tcp", "nic", 100e9, 5e-6, 9000, transport=KERNEL_TCP,
            source="100 GbE with kernel TCP and 9000 B jumbo frames; host costs as "
                   "eth-25g-tcp (estimate). Holmes' inter-cluster Ethernet backbone"),
    Profile("slingshot-200g", "nic", 200e9, 2e-6, 4096, transport=RDMA,
            source="OLCF Frontier user guide: four HPE Slingshot 200 Gb/s (25 GB/s) NICs per "
                   "node; ~2 µs (estimate)"),
    Profile("gcd-gcd", "nic", 200 * 8e9, 1e-6, 9000, transport=GPU_P2P,
            source="OLCF Frontier user guide: the two GCDs of one MI250X are joined by "
                   "Infinity Fabric at 200 GB/s"),
    Profile("gpu-gpu", "nic", 100 * 8e9, 1.5e-6, 9000, transport=GPU_P2P,
            source="OLCF Frontier user guide: GCDs on different MI250X in a node are joined "
                   "at 50 or 100 GB/s; this is the 100 GB/s class"),
    Profile("gpu-gpu-50", "nic", 50 * 8e9, 1.5e-6, 9000, transport=GPU_P2P,
            source="OLCF Frontier user guide: the 50 GB/s class of GCD pairs on different "
                   "MI250X in a node"),
    Profile("nvlink", "nic", 300 * 8e9, 1e-6, 9000, transport=GPU_P2P,
            source="NVIDIA A100 datasheet: NVLink 3 at 600 GB/s bidirectional, i.e. 300 GB/s "
                   "per direction"),
    Profile("wan-10g", "link", 10e9, 5e-3, 1500, jitter_s=0.1e-3,
            source="FusionLLM's geo-distributed range (8 Mb/s to 10 Gb/s, RTT 10-100 ms): "
                   "fastest tier, RTT 10 ms"),
    Profile("wan-1g", "link", 1e9, 10e-3, 1500, jitter_s=0.5e-3,
            source="FusionLLM's range: 1 Gb/s tier, RTT 20 ms"),
    Profile("wan-100m", "link", 100e6, 25e-3, 1500, jitter_s=1e-3,
            source="FusionLLM's range: 100 Mb/s tier, RTT 50 ms"),
    Profile("wan-8m", "link", 8e6, 50e-3, 1500, jitter_s=2e-3,
            source="FusionLLM's range: slowest tier, 8 Mb/s, RTT 100 ms"),
]

PROFILES: dict[str, Profile] = {p.name: p for p in _PROFILES}
NIC_PROFILES = sorted(p.name for p in _PROFILES if p.kind == "nic")


def get_profile(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        raise TrainetError(f"unknown profile {name!r}; known: {', '.join(PROFILES)}") from None


def check_scale(scale: float) -> float:
    if not 0 < scale <= 1:
        raise TrainetError(f"scale {scale!r} must be in (0, 1], e.g. 1e-4")
    return scale


def scaled(bw_bps: float, scale: float) -> float:
    """Emulated bandwidth of a link whose nominal bandwidth is ``bw_bps``."""
    return bw_bps * check_scale(scale)


def scaled_volume(nbytes: int, scale: float) -> int:
    """Bytes a worker actually sends for a nominal tensor of ``nbytes`` (at least 1 byte
    when ``nbytes`` > 0, so no message vanishes)."""
    if nbytes <= 0:
        return 0
    return max(1, round(nbytes * check_scale(scale)))


def nominal_and_emulated(bw_bps: float, scale: float) -> str:
    """'200 Gb/s (20 Mb/s emulated)'."""
    return f"{format_rate(bw_bps)} ({format_rate(scaled(bw_bps, scale))} emulated)"
