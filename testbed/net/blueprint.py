"""What :class:`~testbed.net.network.Network` builds: nodes, ports and per-link shaping,
resolved from a topology spec into plain values (bits per second, seconds, fractions).
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class HostBlueprint:
    name: str
    ip: str                       # address with prefix length, "10.0.1.1/24"
    mac: str
    gateway: str | None = None
    gateway_mac: str | None = None
    commands: list = field(default_factory=list)   # extra shell commands run on the host

    @property
    def address(self) -> str:
        return self.ip.split("/")[0]


@dataclass
class SwitchBlueprint:
    name: str
    p4: str                       # P4_16 source path
    runtime: object = None        # runtime config: path, dict, or None for no entries
    grpc_port: int = 0
    device_id: int = 0
    cpu_port: int | None = None
    kind: str = "software"        # "software" or "bmv2"
    controller: object = None     # spec Controller (entry "module:function", args) or None


@dataclass
class LinkShape:
    """One link's emulation; 0 means not limited / none."""
    nominal_bps: float = 0.0      # the bandwidth the spec names
    rate_bps: float = 0.0         # emulated bandwidth (nominal x co-scaling factor)
    delay_s: float = 0.0          # one-way
    jitter_s: float = 0.0
    loss: float = 0.0             # fraction of packets, per direction
    queue_packets: int = 0        # 0: default
    mtu: int = 1500               # bytes of IP packet both ends' interfaces carry


@dataclass
class LinkBlueprint:
    a: str
    a_port: int
    b: str
    b_port: int
    shape: LinkShape = field(default_factory=LinkShape)


@dataclass
class NetBlueprint:
    hosts: list                   # list[HostBlueprint]
    switches: list                # list[SwitchBlueprint]
    links: list                   # list[LinkBlueprint]
    scale: float = 1.0            # co-scaling factor applied to nominal rates
    source: str = "<topology>"

