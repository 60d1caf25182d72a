"""Raw-socket traffic generator and receiver for switch measurements.

``send`` writes one UDP/IPv4 frame over and over with ``sendmmsg`` (one system call per
batch), from native code (testbed/switch/transmit.py) when it builds on this machine,
else from Python through ctypes, optionally paced to a rate, optionally bypassing the
interface's qdisc (``--qdisc-bypass``, for an unshaped link), optionally with a sequence
number and a send timestamp (CLOCK_MONOTONIC, which every network namespace shares) in
the payload, one frame per call. ``recv`` counts the frames carrying our marker and
reports throughput over a window and one-way delays.

Run inside a host's namespace: ``ip netns exec H python -m testbed.switch.traffic send ...``;
each command prints one JSON object (``recv`` prints ``ready`` first).
"""
from __future__ import annotations

import argparse
import ctypes
import json
import socket
import statistics
import struct
import sys
import time

from testbed.errors import TrainetError
from testbed.p4runtime.values import parse_ipv4, parse_mac

MAGIC = b"TRNT"
UDP_PORT = 9            # discard
HEADERS = 14 + 20 + 8
MIN_FRAME = HEADERS + len(MAGIC) + 16
PAYLOAD = struct.Struct("!4sQQ")   # magic, sequence, send time (ns)
SOL_PACKET = 263
PACKET_QDISC_BYPASS = 20


def _mac(text: str) -> bytes:
    return parse_mac(text).to_bytes(6, "big")


def _ip(text: str) -> bytes:
    return parse_ipv4(text).to_bytes(4, "big")


def ipv4_checksum(header: bytes) -> int:
    total = sum(struct.unpack(f"!{len(header) // 2}H", header))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def udp_frame(src_mac: str, dst_mac: str, src_ip: str, dst_ip: str, size: int,
              seq: int = 0, stamp_ns: int = 0) -> bytes:
    """An Ethernet/IPv4/UDP frame of ``size`` bytes (without FCS) with our payload."""
    if size < MIN_FRAME:
        raise ValueError(f"frame size {size} bytes is below the minimum {MIN_FRAME} bytes")
    payload = PAYLOAD.pack(MAGIC, seq, stamp_ns).ljust(size - HEADERS, b"\0")
    udp = struct.pack("!HHHH", 40000, UDP_PORT, 8 + len(payload), 0)
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp) + len(payload), 0,
                               0x4000, 64, 17, 0, _ip(src_ip), _ip(dst_ip)))
    ip[10:12] = ipv4_checksum(bytes(ip)).to_bytes(2, "big")
    return _mac(dst_mac) + _mac(src_mac) + b"\x08\x00" + bytes(ip) + udp + payload


def open_raw(ifname: str) -> socket.socket:
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
    sock.setsockopt(263, 23, 1)  # SOL_PACKET, PACKET_IGNORE_OUTGOING
    sock.setsockopt(socket.SOL_SOCKET, 33, 16 << 20)   # SO_RCVBUFFORCE
    sock.bind((ifname, 0))
    return sock


# ---------------------------------------------------------------- sendmmsg
class _Iovec(ctypes.Structure):
    _fields_ = [("iov_base", ctypes.c_void_p), ("iov_len", ctypes.c_size_t)]


class _Msghdr(ctypes.Structure):
    _fields_ = [("msg_name", ctypes.c_void_p), ("msg_namelen", ctypes.c_uint32),
                ("msg_iov", ctypes.POINTER(_Iovec)), ("msg_iovlen", ctypes.c_size_t),
                ("msg_control", ctypes.c_void_p), ("msg_controllen", ctypes.c_size_t),
                ("msg_flags", ctypes.c_int)]


class _Mmsghdr(ctypes.Structure):
    _fields_ = [("msg_hdr", _Msghdr), ("msg_len", ctypes.c_uint)]


class BatchSender:
    """Sends ``n`` copies of one frame per ``sendmmsg`` call."""

    def __init__(self, sock: socket.socket, frame: bytes, batch: int = 256):
        self._libc = ctypes.CDLL(None, use_errno=True)
        self._fd = sock.fileno()
        self._buf = ctypes.create_string_buffer(frame, len(frame))
        self._iov = _Iovec(ctypes.cast(self._buf, ctypes.c_void_p), len(frame))
        self._msgs = (_Mmsghdr * batch)()
        for m in self._msgs:
            m.msg_hdr.msg_iov = ctypes.pointer(self._iov)
            m.msg_hdr.msg_iovlen = 1
        self.batch = batch

    def send(self, n: int) -> int:
        sent = self._libc.sendmmsg(self._fd, self._msgs, min(n, self.batch), 0)
        return max(sent, 0)


def _native_generator():
    from testbed.switch.transmit import library
    try:
        return library()
    except TrainetError:
        return None


def send(ifname: str, frame_args: dict, size: int, duration: float, rate_pps: float = 0,
         stamp: bool = False, qdisc_bypass: bool = False) -> dict:
    sock = open_raw(ifname)
    if qdisc_bypass:
        sock.setsockopt(SOL_PACKET, PACKET_QDISC_BYPASS, 1)
    native = None if stamp else _native_generator()
    if native is not None:
        sent, seconds = native.generate(sock.fileno(), udp_frame(size=size, **frame_args),
                                        duration, rate_pps)
        sock.close()
        return {"sent_packets": sent, "seconds": seconds, "frame_bytes": size,
                "sender": "native"}
    start = time.monotonic_ns()
    end = start + int(duration * 1e9)
    sent = 0
    if stamp:   # one frame per call: each carries its own sequence number and send time
        gap = int(1e9 / rate_pps) if rate_pps else 0
        now = start
        while now < end:
            sock.send(udp_frame(size=size, seq=sent, stamp_ns=time.monotonic_ns(), **frame_args))
            sent += 1
            due = start + sent * gap
            while (now := time.monotonic_ns()) < due:
                if due - now > 200_000:
                    time.sleep((due - now - 100_000) / 1e9)
    else:
        sender = BatchSender(sock, udp_frame(size=size, **frame_args))
        now = start
        while now < end:
            if rate_pps:
                owed = int((now - start) * rate_pps / 1e9) - sent
                if owed <= 0:
                    time.sleep(min(0.0005, 1 / rate_pps))
                    now = time.monotonic_ns()
                    continue
                sent += sender.send(owed)
            else:
                sent += sender.send(sender.batch)
            now = time.monotonic_ns()
    seconds = (time.monotonic_ns() - start) / 1e9
    sock.close()
    return {"sent_packets": sent, "seconds": seconds, "frame_bytes": size,
            "sender": "python"}


def recv(ifname: str, duration: float, warmup: float = 0.0, idle: float = 1.0) -> dict:
    """Count our frames for ``duration`` s (or until ``idle`` s without any after the
    first); throughput is measured from ``warmup`` s after the first frame to the last."""
    sock = open_raw(ifname)
    sock.settimeout(0.05)
    print("ready", flush=True)
    times, sizes, delays, seqs = [], [], [], []
    start = time.monotonic_ns()
    end = start + int(duration * 1e9)
    last = None
    while True:
        now = time.monotonic_ns()
        if now >= end or (last is not None and now - last > idle * 1e9):
            break
        try:
            frame = sock.recv(65536)
        except socket.timeout:
            continue
        now = time.monotonic_ns()
        if len(frame) < MIN_FRAME or frame[HEADERS:HEADERS + 4] != MAGIC:
            continue
        _, seq, stamp = PAYLOAD.unpack_from(frame, HEADERS)
        last = now
        times.append(now)
        sizes.append(len(frame))
        seqs.append(seq)
        if stamp:
            delays.append(now - stamp)
    sock.close()
    out = {"packets": len(times), "bytes": sum(sizes),
           "reordered": sum(1 for a, b in zip(seqs, seqs[1:]) if b < a)}
    if times:
        w0 = times[0] + int(warmup * 1e9)
        window = [(t, s) for t, s in zip(times, sizes) if t >= w0]
        if len(window) > 1:
            span = (window[-1][0] - window[0][0]) / 1e9
            # bytes of every frame after the first, over the time they took to arrive
            out["rate_bps"] = sum(s for _, s in window[1:]) * 8 / span
            out["window_s"] = span
    if delays:
        out["delay_mean_ns"] = statistics.fmean(delays)
        out["delay_median_ns"] = statistics.median(delays)
        out["delay_stdev_ns"] = statistics.pstdev(delays)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m testbed.switch.traffic")
    verbs = parser.add_subparsers(dest="verb", required=True)
    p = verbs.add_parser("send")
    p.add_argument("--iface", required=True)
    p.add_argument("--src-mac", required=True)
    p.add_argument("--dst-mac", required=True)
    p.add_argument("--src-ip", required=True)
    p.add_argument("--dst-ip", required=True)
    p.add_argument("--size", type=int, default=64, help="frame size in bytes")
    p.add_argument("--duration", type=float, default=1.0, help="seconds")
    p.add_argument("--rate-pps", type=float, default=0, help="frames/s; 0: as fast as possible")
    p.add_argument("--stamp", action="store_true", help="sequence number and send time")
    p.add_argument("--qdisc-bypass", action="store_true",
                   help="skip the interface's qdisc (PACKET_QDISC_BYPASS): only where the "
                        "sender's link is not shaped")
    p = verbs.add_parser("recv")
    p.add_argument("--iface", required=True)
    p.add_argument("--duration", type=float, default=5.0, help="seconds")
    p.add_argument("--warmup", type=float, default=0.0, help="seconds ignored for rate")
    p.add_argument("--idle", type=float, default=1.0, help="stop after this many idle seconds")
    args = parser.parse_args(argv)
    if args.verb == "send":
        frame_args = {"src_mac": args.src_mac, "dst_mac": args.dst_mac,
                      "src_ip": args.src_ip, "dst_ip": args.dst_ip}
        result = send(args.iface, frame_args, args.size, args.duration, args.rate_pps,
                      args.stamp, args.qdisc_bypass)
    else:
        result = recv(args.iface, args.duration, args.warmup, args.idle)
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
