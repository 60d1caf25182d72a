"""Switch ports: AF_PACKET raw sockets bound to Linux interfaces.

Each port reads every frame arriving on its interface (promiscuous) and writes frames
out of it. Frames the socket itself sent are not read back (PACKET_IGNORE_OUTGOING).
Transmit checksum offload is switched off on the interface: frames re-injected by the
switch carry the checksums the pipeline computed, and a veth with offload on would
hand a peer a frame whose checksum was never filled in.

Frames are read from a PACKET_MMAP receive ring (TPACKET_V2): the kernel copies each
frame into shared memory as it arrives, and the ring header carries the VLAN tag the
kernel takes out of the frame (a plain ``recv`` would lose it), which is put back. The
ring also saves the switch's thread about 1 us of CPU per 1500-byte frame over ``recv``.
The ring (``memory``, ``slot_bytes``, ``slots``, ``next_slot``) is also read in place by
a native pipeline (``NativeTarget.process_rings``), which counts into ``rx_packets`` and
``rx_truncated`` through :meth:`count_received`.
Frames are sent through the interface's qdisc (no PACKET_QDISC_BYPASS, see below).
:meth:`send_many` sends a batch with one ``sendmmsg`` from native code when the switch's
probe found it works (``transmit``, testbed/switch/transmit.py), else one ``send`` per
frame; a native pipeline sends the frames of an unshaped, uncaptured port itself
(``NativeTarget.send_directly``). A PACKET_MMAP TX ring measured slower than sendmmsg on
veths (testbed/p4/native/packet_io.c says by how much).
"""
from __future__ import annotations

import fcntl
import mmap
import socket
import struct
import subprocess

from testbed.errors import TrainetError

ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_ADD_MEMBERSHIP = 1
PACKET_MR_PROMISC = 1
PACKET_RX_RING = 5
PACKET_STATISTICS = 6
PACKET_VERSION = 10
TPACKET_V2 = 1
TP_STATUS_USER = 1
TP_STATUS_VLAN_VALID = 0x10
TP_STATUS_VLAN_TPID_VALID = 0x40
# struct tpacket2_hdr: status, len, snaplen, mac, net, sec, nsec, vlan_tci, vlan_tpid
TPACKET2_HDR = struct.Struct("IIIHHIIHH")
RING_BLOCK_BYTES = 1 << 16
RING_BYTES = 8 << 20
PACKET_IGNORE_OUTGOING = 23
SIOCGIFMTU = 0x8921
SO_SNDBUFFORCE = 32
# Room for an Ethernet header with two VLAN tags on top of the MTU.
L2_OVERHEAD = 14 + 8
SOCKET_BUFFER_BYTES = 8 << 20


def interface_mtu(ifname: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        req = struct.pack("16si", ifname.encode(), 0)
        return struct.unpack("16si", fcntl.ioctl(s, SIOCGIFMTU, req))[1]


def disable_tx_offload(ifname: str) -> None:
    """``ethtool -K IF tx off`` (also turns off TSO, which depends on it)."""
    try:
        done = subprocess.run(["ethtool", "-K", ifname, "tx", "off"],
                              capture_output=True, text=True)
    except FileNotFoundError:
        raise TrainetError(f"port {ifname}: ethtool not found; install ethtool "
                           "(needed to turn off TX checksum offload)") from None
    if done.returncode != 0 and "Could not change any device features" not in done.stderr:
        raise TrainetError(f"port {ifname}: 'ethtool -K {ifname} tx off' failed: "
                           f"{done.stderr.strip()}")


def shared_sender(ports: int) -> socket.socket:
    """A packet socket bound to no interface, for the native pipeline to send every
    port's frames through with one sendmmsg per batch (each message names its
    interface). Its send buffer is the ports' together: frames a shaped port's queue
    holds count against it until they leave."""
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
    try:
        sock.setsockopt(socket.SOL_SOCKET, SO_SNDBUFFORCE, SOCKET_BUFFER_BYTES * max(ports, 1))
    except OSError as e:
        sock.close()
        raise TrainetError(f"the switch's shared send socket: {e.strerror}; the switch "
                           "needs root (CAP_NET_ADMIN)") from None
    return sock


class Port:
    """One switch port. ``recv_batch`` never blocks; poll ``fileno()`` for readiness."""

    def __init__(self, port_no: int, ifname: str):
        self.port_no = port_no
        self.ifname = ifname
        try:
            self.ifindex = ifindex = socket.if_nametoindex(ifname)
        except OSError:
            raise TrainetError(f"port {port_no}@{ifname}: no interface named {ifname!r}; "
                               "create it first or check the -i argument") from None
        self.mtu = interface_mtu(ifname)
        # a ring slot holds the headers (< 128 bytes) and the largest frame of the MTU
        self.slot_bytes = 1 << (max(self.mtu, 1500) + L2_OVERHEAD + 128 - 1).bit_length()
        disable_tx_offload(ifname)
        sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        try:
            sock.setsockopt(SOL_PACKET, PACKET_IGNORE_OUTGOING, 1)
            mreq = struct.pack("iHH8s", ifindex, PACKET_MR_PROMISC, 0, b"")
            sock.setsockopt(SOL_PACKET, PACKET_ADD_MEMBERSHIP, mreq)
            # Frames go through the interface's qdisc: where the kernel shapes a link's
            # rate (tbf on the switch's port), bypassing it would send at line rate. An
            # unshaped veth has no queue (noqueue), so the path costs next to nothing.
            sock.setsockopt(socket.SOL_SOCKET, SO_SNDBUFFORCE, SOCKET_BUFFER_BYTES)
            sock.setsockopt(SOL_PACKET, PACKET_VERSION, TPACKET_V2)
            block = max(RING_BLOCK_BYTES, self.slot_bytes)
            sock.setsockopt(SOL_PACKET, PACKET_RX_RING, struct.pack(
                "IIII", block, RING_BYTES // block, self.slot_bytes, RING_BYTES // self.slot_bytes))
            self.memory = mmap.mmap(sock.fileno(), RING_BYTES)
            sock.bind((ifname, 0))
            sock.setblocking(False)
        except OSError as e:
            sock.close()
            raise TrainetError(f"port {port_no}@{ifname}: cannot open a raw socket: "
                               f"{e.strerror}; the switch needs root (CAP_NET_RAW)") from None
        self.sock = sock
        self.slots = RING_BYTES // self.slot_bytes
        self.next_slot = 0
        self._send = sock.send
        self.transmit = None      # a transmit.BatchTransmit, when the switch's probe chose it
        self.rx_packets = 0
        self.tx_packets = 0
        self.tx_errors = 0
        self.rx_overruns = 0
        self.rx_truncated = 0     # larger than the MTU: a GSO frame from a peer with TSO on

    def fileno(self) -> int:
        return self.sock.fileno()

    def recv_batch(self, limit: int = 64) -> list:
        """Up to ``limit`` frames that are waiting, as bytes."""
        frames = []
        ring, slot_bytes, slots = self.memory, self.slot_bytes, self.slots
        unpack = TPACKET2_HDR.unpack_from
        i = self.next_slot
        for _ in range(limit):
            off = i * slot_bytes
            status, length, snaplen, mac, _, _, _, tci, tpid = unpack(ring, off)
            if not status & TP_STATUS_USER:
                break
            start = off + mac
            if status & TP_STATUS_VLAN_VALID:
                if not status & TP_STATUS_VLAN_TPID_VALID:
                    tpid = 0x8100
                frame = b"".join((ring[start:start + 12], tpid.to_bytes(2, "big"),
                                  tci.to_bytes(2, "big"), ring[start + 12:start + snaplen]))
            else:
                frame = ring[start:start + snaplen]
            ring[off:off + 4] = b"\0\0\0\0"       # TP_STATUS_KERNEL: the slot is free again
            if snaplen == length:
                frames.append(frame)
            else:
                self.rx_truncated += 1
            i = i + 1 if i + 1 < slots else 0
        self.next_slot = i
        self.rx_packets += len(frames)
        return frames

    def count_received(self, frames: int, truncated: int) -> None:
        self.rx_packets += frames
        self.rx_truncated += truncated

    def send(self, frame: bytes) -> bool:
        """Transmit one frame; False (counted in tx_errors) when the kernel refuses it."""
        try:
            self._send(frame)
        except OSError:
            self.tx_errors += 1
            return False
        self.tx_packets += 1
        return True

    def send_many(self, frames: list) -> int:
        """Transmit frames in order; return how many the kernel took."""
        if self.transmit is not None:
            sent, refused = self.transmit.send(self.sock.fileno(), frames)
            self.tx_packets += sent
            self.tx_errors += refused
            return sent
        send = self._send
        sent = 0
        for frame in frames:
            try:
                send(frame)
                sent += 1
            except OSError:
                self.tx_errors += 1
        self.tx_packets += sent
        return sent

    def take_error(self) -> int:
        """The error the socket holds (an errno, 0: none), read and so cleared: the kernel
        sets ENETDOWN when the interface goes down or is deleted, and a poll reports it
        on every call until it is read."""
        return self.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)

    def interface_present(self) -> bool:
        """Whether the interface this port was opened on still exists (its name still
        names the same interface)."""
        try:
            return socket.if_nametoindex(self.ifname) == self.ifindex
        except OSError:
            return False

    def read_overruns(self) -> int:
        """Frames the kernel dropped because the switch did not read them fast enough
        (the socket's receive buffer was full), accumulated since the port opened."""
        if self.sock.fileno() >= 0:
            stats = self.sock.getsockopt(SOL_PACKET, PACKET_STATISTICS, 8)
            self.rx_overruns += struct.unpack("II", stats)[1]   # reading resets the kernel's
        return self.rx_overruns

    def close(self) -> None:
        self.read_overruns()
        self.memory.close()
        self.sock.close()

