"""Drive a real shaped veth pair and measure what its rate qdisc delivers.

Two figures decide whether a link's shaping is faithful (see :func:`shaping.burst_bytes`):

* the achieved rate of a long transfer: frames queued back to back, timed on arrival
  from when all are queued and the bucket has emptied (the sender's own stalls are not
  the shaper's), against the rate set;
* the credit a burst from idle gets: how many bytes arrive ahead of a link of the set
  rate that starts sending with the first frame. A token bucket of B bytes that has
  filled while idle lets B bytes through at once, so the credit is the bucket as the
  qdisc applies it; every frame of a burst of ``k`` frames arrives
  ``credit * 8 / rate`` seconds sooner than on the link it emulates.

Frames carry the IEEE local experimental EtherType and are timed by the kernel's
receive timestamps (``SO_TIMESTAMPNS``) on the peer, taken when the shaper hands the
frame to the veth. Needs root; the caller holds the network lock, since the pair
lives in the root namespace.
"""
from __future__ import annotations

import math
import socket
import struct
import subprocess
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass

from testbed.net.shaping import EndpointShape, burst_bytes, mtu_commands, tc_commands

TX_IFACE, RX_IFACE = "tnshape0", "tnshape1"
ETHERTYPE = 0x88B5
SO_TIMESTAMPNS = 35             # Linux, and SCM_TIMESTAMPNS for the control message
SO_SNDBUFFORCE, SO_RCVBUFFORCE = 32, 33
SOCKET_BUFFER_BYTES = 64 << 20
LONG_TRANSFER_MIN_FRAMES = 20


@dataclass(frozen=True)
class ShaperTrial:
    rate_bps: float                 # the rate set
    bucket_bytes: int               # the bucket set
    frame_bytes: int                # every frame's length, Ethernet header included
    achieved_bps: float             # a long transfer's rate once the bucket is empty
    credit_bytes: float             # the most a burst from idle got ahead of the rate
    burst_frames: int
    burst_s: float                  # the burst's first arrival to its last, plus one frame
                                    # at the rate (the first's time on the emulated link)
    lost_frames: int

    @property
    def rate_error(self) -> float:
        """Achieved over set rate, minus 1 (negative: slower than set)."""
        return self.achieved_bps / self.rate_bps - 1

    @property
    def credit_s(self) -> float:
        """The credit as line time: how much sooner than the link a burst's frames arrive."""
        return self.credit_bytes * 8 / self.rate_bps

    @property
    def burst_line_s(self) -> float:
        """The burst's time on the emulated link: its frames one after another at the rate."""
        return self.burst_frames * self.frame_bytes * 8 / self.rate_bps


def _sh(*cmd: str) -> None:
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"{' '.join(cmd)}: {done.stderr.strip()}")


@contextmanager
def veth_pair():
    """A veth pair in the root namespace without IPv6 (nothing but the trial's frames)."""
    subprocess.run(["ip", "link", "del", TX_IFACE], capture_output=True)
    _sh("ip", "link", "add", TX_IFACE, "type", "veth", "peer", "name", RX_IFACE)
    try:
        for intf in (TX_IFACE, RX_IFACE):
            with open(f"/proc/sys/net/ipv6/conf/{intf}/disable_ipv6", "w") as f:
                f.write("1")
            _sh("ip", "link", "set", intf, "up")
        yield TX_IFACE, RX_IFACE
    finally:
        subprocess.run(["ip", "link", "del", TX_IFACE], capture_output=True)


def _receiver(intf: str) -> socket.socket:
    rx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETHERTYPE))
    rx.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, SOCKET_BUFFER_BYTES)
    rx.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    rx.bind((intf, ETHERTYPE))
    rx.settimeout(0.2)
    return rx


def _sender(intf: str) -> socket.socket:
    tx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    tx.setsockopt(socket.SOL_SOCKET, SO_SNDBUFFORCE, SOCKET_BUFFER_BYTES)
    tx.bind((intf, 0))
    return tx


def _arrivals(rx: socket.socket, count: int, deadline: float) -> dict[int, float]:
    """Sequence number -> kernel receive time (s) of up to ``count`` trial frames."""
    seen: dict[int, float] = {}
    space = socket.CMSG_SPACE(16)
    while len(seen) < count and time.monotonic() < deadline:
        try:
            data, anc, _, _ = rx.recvmsg(64, space)
        except socket.timeout:
            continue
        stamp = next((d for level, kind, d in anc
                      if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS), None)
        if stamp is None or len(data) < 22:
            continue
        sec, nsec = struct.unpack("qq", stamp[:16])
        seen[struct.unpack_from("!Q", data, 14)[0]] = sec + nsec * 1e-9
    return seen


def _send_and_time(tx, rx, first_seq: int, count: int, frame_bytes: int,
                   timeout_s: float) -> tuple[list[float | None], float]:
    """Send ``count`` frames back to back: each one's arrival time (None: lost) and the
    time the last was queued (both on the kernel timestamps' clock, CLOCK_REALTIME)."""
    header = b"\xff" * 6 + b"\x02\x00\x00\x00\x00\x01" + struct.pack("!H", ETHERTYPE)
    pad = bytes(frame_bytes - len(header) - 8)
    got: dict[int, float] = {}
    catcher = threading.Thread(target=lambda: got.update(
        _arrivals(rx, count, time.monotonic() + timeout_s)))
    catcher.start()
    for seq in range(first_seq, first_seq + count):
        tx.send(header + struct.pack("!Q", seq) + pad)
    queued = time.time()
    catcher.join()
    return [got.get(seq) for seq in range(first_seq, first_seq + count)], queued


def _credit_bytes(times: list[float | None], frame_bytes: int, rate_bps: float) -> float:
    """How far ahead of a link of ``rate_bps`` started with the first frame the burst got:
    max over frames of (bytes up to and including it) - (rate x its time after the first)."""
    start = times[0]
    return max((i + 1) * frame_bytes - (t - start) * rate_bps / 8
               for i, t in enumerate(times) if t is not None)


def _steady_rate(times: list[float | None], frame_bytes: int, queued: float,
                 skip: int) -> float:
    """Bits per second from the frame ``skip`` frames after the first to arrive once all
    were queued (the qdisc's backlog then never runs dry, and the tokens a gap of the
    sender's left are spent by then) to the last."""
    known = [(i, t) for i, t in enumerate(times) if t is not None]
    first = next(k for k, (_, t) in enumerate(known) if t >= queued)
    (i0, t0), (i1, t1) = known[min(first + skip, len(known) - 2)], known[-1]
    return (i1 - i0) * frame_bytes * 8 / (t1 - t0)


def measure(rate_bps: float, bucket_bytes: int = 0, frame_bytes: int = 1514,
            seconds: float = 1.0, burst_frames: int = 0, bursts: int = 3,
            rate_qdisc: str = "tbf") -> ShaperTrial:
    """Shape a fresh veth pair as a link of ``rate_bps`` whose largest frame is
    ``frame_bytes`` (the commands :func:`shaping.tc_commands` gives such a link; its
    bucket :func:`shaping.burst_bytes`, or ``bucket_bytes``) and measure it: a transfer
    of ``seconds`` at the rate, then ``bursts`` bursts of ``burst_frames`` frames
    (default: three buckets' worth, at least 10), each after the bucket has refilled."""
    bucket_bytes = bucket_bytes or burst_bytes(rate_bps, frame_bytes)
    frames_per_bucket = math.ceil(bucket_bytes / frame_bytes)
    long_frames = max(LONG_TRANSFER_MIN_FRAMES, 3 * frames_per_bucket + 10,
                      math.ceil(rate_bps * seconds / 8 / frame_bytes))
    burst_frames = burst_frames or max(10, 3 * frames_per_bucket)
    refill_s = bucket_bytes * 8 / rate_bps + 0.05
    side = EndpointShape(kernel_rate_bps=rate_bps, mtu=frame_bytes - 14,
                         queue_packets=long_frames + burst_frames)
    with veth_pair() as (tx_name, rx_name):
        for cmd in (mtu_commands(tx_name, side) + mtu_commands(rx_name, side)
                    + tc_commands(tx_name, side, rate_qdisc, bucket_bytes)[1:]):
            _sh(*cmd.split())
        rx, tx = _receiver(rx_name), _sender(tx_name)
        try:
            line_s = frame_bytes * 8 / rate_bps
            times, queued = _send_and_time(tx, rx, 0, long_frames, frame_bytes,
                                           long_frames * line_s * 1.5 + 2)
            achieved = _steady_rate(times, frame_bytes, queued, frames_per_bucket + 2)
            lost = times.count(None)
            credits, spans = [], []
            for b in range(bursts):
                time.sleep(refill_s)
                times, _ = _send_and_time(tx, rx, long_frames + b * burst_frames,
                                          burst_frames, frame_bytes,
                                          burst_frames * line_s * 1.5 + 2)
                lost += times.count(None)
                credits.append(_credit_bytes(times, frame_bytes, rate_bps))
                if times[0] is not None and times[-1] is not None:
                    spans.append(times[-1] - times[0] + line_s)
        finally:
            rx.close()
            tx.close()
    return ShaperTrial(rate_bps, bucket_bytes, frame_bytes, achieved, max(credits),
                       burst_frames, min(spans, default=math.nan), lost)
