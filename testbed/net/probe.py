"""What this machine can do for network emulation, and the shaping mode that follows.

The kernel may lack ``netem`` (delay/jitter/loss) while having ``htb``/``tbf`` (rate), so
each link property is assigned explicitly to the kernel or to the software switch's
egress model, and the assignment is printed at start so results can be read correctly.
"""
from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
from dataclasses import dataclass, field

PROBE_IFACE = "tnprobe0"
PROBE_PEER = "tnprobe1"

QDISC_TRIALS = {
    "netem": ["netem", "delay", "1ms"],
    "htb": ["htb", "default", "1"],
    "tbf": ["tbf", "rate", "1mbit", "burst", "32kbit", "latency", "50ms"],
}


@dataclass
class Capabilities:
    root: bool
    qdiscs: dict                    # "netem"/"htb"/"tbf" -> bool
    mininet: bool
    ethtool: str | None
    iperf3: str | None
    bmv2: str | None                # path of simple_switch_grpc
    p4c: str | None                 # path of p4c
    notes: list = field(default_factory=list)

    @property
    def netem(self) -> bool:
        return self.qdiscs.get("netem", False)

    @property
    def htb(self) -> bool:
        return self.qdiscs.get("htb", False)

    def shaping_mode(self) -> "ShapingMode":
        # tbf holds TCP to its rate within 0.1 %; htb overshoots by 3-5 % at 1 Mb/s.
        kernel_rate = "tbf" if self.qdiscs.get("tbf") else ("htb" if self.htb else None)
        where = "kernel netem" if self.netem else "switch egress model"
        return ShapingMode(rate=f"kernel {kernel_rate}" if kernel_rate else "switch egress model",
                           delay=where, jitter=where, loss=where)


@dataclass(frozen=True)
class ShapingMode:
    """Where each link property is emulated."""
    rate: str
    delay: str
    jitter: str
    loss: str

    @property
    def rate_in_kernel(self) -> bool:
        return self.rate.startswith("kernel")

    @property
    def rate_qdisc(self) -> str | None:
        return self.rate.split()[-1] if self.rate_in_kernel else None

    @property
    def delay_in_kernel(self) -> bool:
        return self.delay.startswith("kernel")


def _run(*cmd: str) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True)


def _try_qdiscs(notes: list) -> dict:
    """Add each qdisc kind to a throwaway dummy (or veth, where dummy is missing)
    interface, then remove the interface."""
    _run("ip", "link", "del", PROBE_IFACE)
    made = _run("ip", "link", "add", PROBE_IFACE, "type", "dummy")
    if made.returncode != 0:
        made = _run("ip", "link", "add", PROBE_IFACE, "type", "veth", "peer", "name", PROBE_PEER)
    if made.returncode != 0:
        notes.append(f"cannot create a dummy or veth interface ({made.stderr.strip()}); "
                     "qdisc support unknown")
        return {kind: False for kind in QDISC_TRIALS}
    try:
        result = {}
        for kind, args in QDISC_TRIALS.items():
            added = _run("tc", "qdisc", "add", "dev", PROBE_IFACE, "root", *args)
            result[kind] = added.returncode == 0
            _run("tc", "qdisc", "del", "dev", PROBE_IFACE, "root")
        return result
    finally:
        _run("ip", "link", "del", PROBE_IFACE)


def probe() -> Capabilities:
    notes: list = []
    root = os.geteuid() == 0
    if root and shutil.which("tc") and shutil.which("ip"):
        qdiscs = _try_qdiscs(notes)
    else:
        qdiscs = {kind: False for kind in QDISC_TRIALS}
        notes.append("not root or tc/ip missing: qdiscs not tried")
    return Capabilities(
        root=root,
        qdiscs=qdiscs,
        mininet=importlib.util.find_spec("mininet") is not None,
        ethtool=shutil.which("ethtool"),
        iperf3=shutil.which("iperf3"),
        bmv2=shutil.which("simple_switch_grpc"),
        p4c=shutil.which("p4c") or shutil.which("p4c-bm2-ss"),
        notes=notes,
    )


def render(caps: Capabilities) -> str:
    def yes(flag) -> str:
        return "yes" if flag else "no"

    mode = caps.shaping_mode()
    lines = [
        "capabilities:",
        f"  root: {yes(caps.root)}   mininet: {yes(caps.mininet)}   "
        f"ethtool: {yes(caps.ethtool)}   iperf3: {yes(caps.iperf3)}",
        "  tc qdiscs: " + "  ".join(f"{k} {yes(v)}" for k, v in caps.qdiscs.items()),
        f"  BMv2 simple_switch_grpc: {caps.bmv2 or 'not on PATH'}   "
        f"p4c: {caps.p4c or 'not on PATH'}",
        "shaping mode:",
        f"  rate: {mode.rate}   delay: {mode.delay}   jitter: {mode.jitter}   "
        f"loss: {mode.loss}",
    ]
    if not caps.netem:
        lines.append("  (no netem: on host links the host->switch delay and loss are folded "
                     "into the switch->host direction, so round trips are exact and one-way "
                     "times are not)")
    lines += [f"  note: {n}" for n in caps.notes]
    return "\n".join(lines)
