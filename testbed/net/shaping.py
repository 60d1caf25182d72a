"""Link shaping: which part of a link's emulation each side of the link does.

Every link endpoint shapes the traffic it sends. Rate goes to a kernel ``tbf`` (or
``htb``) qdisc on the endpoint's interface when the kernel has one (to the switch
egress model otherwise); delay, jitter and loss go to kernel ``netem`` when available, else to the
switch egress model. Without netem a host cannot delay what it sends, so on a host
link the host->switch share of delay, jitter and loss is added to the switch->host
direction: round trips stay exact, one-way times do not.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

from testbed.net.blueprint import LinkShape
from testbed.net.probe import ShapingMode
from testbed.switch.port_shape import port_shape_text

ETHERNET_HEADER_BYTES = 14
DEFAULT_MTU = 1500
TIMER_SLACK_S = 0.5e-3          # a rate bucket's room for a late timer (see burst_bytes)
DEFAULT_QUEUE_PACKETS = 1000


@dataclass(frozen=True)
class EndpointShape:
    """What one endpoint applies to the frames it sends."""
    kernel_rate_bps: float = 0.0
    kernel_delay_s: float = 0.0
    kernel_jitter_s: float = 0.0
    kernel_loss: float = 0.0
    switch_rate_bps: float = 0.0
    switch_delay_s: float = 0.0
    switch_jitter_s: float = 0.0
    switch_loss: float = 0.0
    queue_packets: int = DEFAULT_QUEUE_PACKETS
    mtu: int = DEFAULT_MTU        # the interface's MTU, bytes of IP packet

    @property
    def frame_bytes(self) -> int:
        """The largest frame the interface sends: the MTU and an Ethernet header."""
        return self.mtu + ETHERNET_HEADER_BYTES

    @property
    def kernel_netem(self) -> bool:
        return bool(self.kernel_delay_s or self.kernel_jitter_s or self.kernel_loss)

    @property
    def switch_shaped(self) -> bool:
        return bool(self.switch_rate_bps or self.switch_delay_s or self.switch_jitter_s
                    or self.switch_loss)


def _combined_loss(p: float, times: int) -> float:
    return 1.0 - (1.0 - p) ** times


def endpoint_shapes(shape: LinkShape, a_is_switch: bool, b_is_switch: bool,
                    mode: ShapingMode) -> tuple[EndpointShape, EndpointShape]:
    """The shaping of the a->b direction (applied at a) and of b->a (applied at b)."""
    queue = shape.queue_packets or DEFAULT_QUEUE_PACKETS
    if mode.delay_in_kernel:
        one = EndpointShape(kernel_delay_s=shape.delay_s, kernel_jitter_s=shape.jitter_s,
                            kernel_loss=shape.loss, queue_packets=queue, mtu=shape.mtu)
        sides = [one, one]
    else:
        sides = []
        for here, there in ((a_is_switch, b_is_switch), (b_is_switch, a_is_switch)):
            if not here:
                sides.append(EndpointShape(queue_packets=queue, mtu=shape.mtu))
            else:
                # A switch facing a host also carries the host's direction.
                n = 1 if there else 2
                sides.append(EndpointShape(switch_delay_s=shape.delay_s * n,
                                           switch_jitter_s=shape.jitter_s * math.sqrt(n),
                                           switch_loss=_combined_loss(shape.loss, n),
                                           queue_packets=queue, mtu=shape.mtu))
    out = []
    for side, is_switch in zip(sides, (a_is_switch, b_is_switch)):
        if mode.rate_in_kernel:
            side = replace(side, kernel_rate_bps=shape.rate_bps)
        elif is_switch:
            side = replace(side, switch_rate_bps=shape.rate_bps)
        out.append(side)
    return out[0], out[1]


def burst_bytes(rate_bps: float,
                frame_bytes: int = DEFAULT_MTU + ETHERNET_HEADER_BYTES) -> int:
    """The rate qdisc's bucket: one of the link's largest frames and
    :data:`TIMER_SLACK_S` of its rate.

    A bucket is what a burst from idle gets through at once, ahead of the link it
    emulates (a real link sends its first frame in frame/rate, tbf the moment its tokens
    are there), so it is kept small, and what a late timer costs: a qdisc waiting for
    tokens wakes up later than it asked on a busy machine, and the tokens of the time it
    overslept beyond the bucket's room for them are lost, the link then slower than set.
    One frame is the least tbf takes (it drops a larger one); the slack is measured with
    a real shaped veth (testbed/net/shaper_trial.py, tests/net/test_shaper_fidelity.py):
    the rate a long transfer got once all its frames were queued, 1514-byte frames,
    two runs each with a second process spinning (load average 3.9-4.4 with other
    jobs):

    ===========  ================  ================  ================
    rate         frame + 0.25 ms   frame + 0.5 ms    frame + 1 ms
    ===========  ================  ================  ================
    10 Mb/s      -0.07 / -0.06 %   -0.00 / +0.00 %   +0.00 / +0.00 %
    100 Mb/s     -0.13 / -0.06 %   -0.08 / -0.40 %   -0.05 / -0.07 %
    200 Mb/s     -0.63 / +0.00 %   -0.37 / +0.00 %   -0.03 / -0.03 %
    ===========  ================  ================  ================

    and without it within 0.11 % at 1-200 Mb/s for all three; one frame and 1 byte of
    slack lost 1.45 % at 10 Mb/s.
    A burst from idle gets the bucket ahead of the link, as measured (within the
    sender's own gaps, tens of bytes): one frame and 0.5 ms is 0.56-0.62 ms of line time
    at 100-200 Mb/s, 1.7 ms at 10 Mb/s with 1514-byte frames, 3.8 ms with 4110-byte
    ones (the frame's own time; a smaller bucket cannot pass it). The former rule, 4 ms
    of the rate and at least ten 1514-byte frames (12 ms at 10 Mb/s), let an all-reduce
    of a few frames per worker finish faster than its link allows."""
    return frame_bytes + math.ceil(rate_bps / 8 * TIMER_SLACK_S)


def tc_commands(intf: str, side: EndpointShape, rate_qdisc: str = "tbf",
                bucket_bytes: int = 0) -> list[str]:
    """Shell commands (for the node owning ``intf``) that install ``side``'s kernel part:
    a rate qdisc (``tbf`` or ``htb``) at the root, netem (or a packet FIFO) below it.
    The first command removes whatever qdisc was there. The rate's bucket is
    :func:`burst_bytes` unless ``bucket_bytes`` is given (to measure another)."""
    cmds = [f"tc qdisc del dev {intf} root 2>/dev/null"]
    if side.kernel_netem:
        leaf = f"netem limit {side.queue_packets}"
        if side.kernel_delay_s or side.kernel_jitter_s:
            leaf += f" delay {side.kernel_delay_s * 1e6:.0f}us"
            if side.kernel_jitter_s:
                leaf += f" {side.kernel_jitter_s * 1e6:.0f}us distribution normal"
        if side.kernel_loss:
            leaf += f" loss {side.kernel_loss * 100:.6f}%"
    else:
        leaf = f"pfifo limit {side.queue_packets}"
    if side.kernel_rate_bps:
        rate = int(side.kernel_rate_bps)
        burst = bucket_bytes or burst_bytes(rate, side.frame_bytes)
        if rate_qdisc == "tbf":
            limit = side.queue_packets * side.frame_bytes + burst
            cmds.append(f"tc qdisc add dev {intf} root handle 1: tbf rate {rate}bit "
                        f"burst {burst}b limit {limit}b")
            if side.kernel_netem:
                cmds.append(f"tc qdisc add dev {intf} parent 1:1 handle 10: {leaf}")
        else:
            cmds += [f"tc qdisc add dev {intf} root handle 1: htb default 1",
                     f"tc class add dev {intf} parent 1: classid 1:1 htb rate {rate}bit "
                     f"ceil {rate}bit burst {burst}b cburst {burst}b quantum {side.frame_bytes}",
                     f"tc qdisc add dev {intf} parent 1:1 handle 10: {leaf}"]
    elif side.kernel_netem:
        cmds.append(f"tc qdisc add dev {intf} root handle 10: {leaf}")
    return cmds


def mtu_commands(intf: str, side: EndpointShape) -> list[str]:
    """Shell commands that give ``intf`` its link's MTU (none at the default 1500 B)."""
    return [] if side.mtu == DEFAULT_MTU else [f"ip link set dev {intf} mtu {side.mtu}"]


def switch_shape_text(side: EndpointShape) -> str:
    """The switch egress model's part, as the ``--port-shape`` text has it."""
    return port_shape_text(side.switch_rate_bps, side.switch_delay_s, side.switch_jitter_s,
                           side.switch_loss, side.queue_packets)
