"""A throw-away lab for the switch: hosts in network namespaces, each joined by a veth
pair to a switch-side interface in the current namespace.

Used by ``trainet bench switch`` and the switch's namespace tests. Every name carries a
unique prefix, and :meth:`VethLab.close` (also run by the context manager on errors)
removes everything the lab created.
"""
from __future__ import annotations

import ctypes
import os
import socket
import subprocess
import threading

from testbed.errors import TrainetError


CLONE_NEWNET = 0x40000000


def raw_socket_in(netns: str, ifname: str) -> socket.socket:
    """An AF_PACKET socket bound to ``ifname`` inside namespace ``netns``.

    A socket belongs to the namespace it was created in, and setns() moves only the
    calling thread, so a short-lived thread enters the namespace and makes the socket.
    """
    result = {}

    def make() -> None:
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            fd = os.open(f"/run/netns/{netns}", os.O_RDONLY)
            try:
                if libc.setns(fd, CLONE_NEWNET) != 0:
                    raise OSError(ctypes.get_errno(), f"setns({netns}) failed")
            finally:
                os.close(fd)
            sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
            sock.setsockopt(263, 23, 1)   # SOL_PACKET, PACKET_IGNORE_OUTGOING
            sock.bind((ifname, 0))
            result["sock"] = sock
        except OSError as e:
            result["error"] = e

    t = threading.Thread(target=make)
    t.start()
    t.join()
    if "error" in result:
        raise TrainetError(f"cannot open a raw socket on {ifname} in namespace {netns}: "
                           f"{result['error']}")
    return result["sock"]


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run(["ip", *args], capture_output=True, text=True)
    if check and done.returncode != 0:
        raise TrainetError(f"'ip {' '.join(args)}' failed: {done.stderr.strip()}")
    return done


class Host:
    def __init__(self, index: int, prefix: str):
        self.index = index
        self.netns = f"{prefix}h{index}"
        self.ifname = f"{prefix}h{index}"     # inside the namespace
        self.switch_if = f"{prefix}s{index}"  # in the switch's namespace
        self.mac = f"02:00:00:00:00:{index:02x}"
        self.ip = f"10.0.0.{index}"

    def run(self, *cmd: str, **kw) -> subprocess.CompletedProcess:
        return subprocess.run(["ip", "netns", "exec", self.netns, *cmd], **kw)

    def popen(self, *cmd: str, **kw) -> subprocess.Popen:
        return subprocess.Popen(["ip", "netns", "exec", self.netns, *cmd], **kw)

    def socket(self) -> socket.socket:
        """A raw socket on the host's interface (frames it sends are not read back)."""
        return raw_socket_in(self.netns, self.ifname)

    def rx_stats(self) -> tuple:
        """(packets, bytes) received by the host's interface."""
        return self._stats("rx")

    def tx_stats(self) -> tuple:
        """(packets, bytes) sent by the host's interface."""
        return self._stats("tx")

    def _stats(self, direction: str) -> tuple:
        base = f"/sys/class/net/{self.ifname}/statistics/{direction}_"
        out = self.run("cat", base + "packets", base + "bytes",
                       capture_output=True, text=True, check=True).stdout.split()
        return int(out[0]), int(out[1])


class VethLab:
    def __init__(self, n_hosts: int = 2, prefix: str | None = None, mtu: int = 1500,
                 addresses: bool = True):
        self.prefix = prefix or f"tn{os.getpid() % 0xFFFF:04x}"
        self.hosts = [Host(i, self.prefix) for i in range(1, n_hosts + 1)]
        self.mtu = mtu
        self.addresses = addresses
        self._created = False

    def __enter__(self) -> "VethLab":
        self.open()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def ports(self) -> dict:
        """{port number: switch-side interface}: port i faces host i."""
        return {h.index: h.switch_if for h in self.hosts}

    def open(self) -> None:
        self._created = True
        try:
            for h in self.hosts:
                self._add_host(h)
            if self.addresses:
                for h in self.hosts:
                    for peer in self.hosts:
                        if peer is not h:
                            _ip("-n", h.netns, "neigh", "replace", peer.ip, "lladdr", peer.mac,
                                "dev", h.ifname, "nud", "permanent")
        except BaseException:
            self.close()
            raise

    def _add_host(self, h: Host) -> None:
        _ip("netns", "add", h.netns)
        _ip("link", "add", h.switch_if, "mtu", str(self.mtu), "type", "veth", "peer", "name",
            h.ifname, "netns", h.netns)
        _ip("-n", h.netns, "link", "set", h.ifname, "address", h.mac, "mtu", str(self.mtu))
        for prefix, ifname in (([], h.switch_if), (["ip", "netns", "exec", h.netns], h.ifname)):
            for cmd in (["sysctl", "-qw", f"net.ipv6.conf.{ifname}.disable_ipv6=1"],
                        # Frames cross an AF_PACKET switch: checksums must be complete.
                        ["ethtool", "-K", ifname, "tx", "off"]):
                done = subprocess.run(prefix + cmd, capture_output=True, text=True)
                if done.returncode != 0:
                    raise TrainetError(f"'{' '.join(prefix + cmd)}' failed: "
                                       f"{done.stderr.strip()}")
        if self.addresses:
            _ip("-n", h.netns, "addr", "add", f"{h.ip}/24", "dev", h.ifname)
        _ip("-n", h.netns, "link", "set", h.ifname, "up")
        _ip("-n", h.netns, "link", "set", "lo", "up")
        _ip("link", "set", h.switch_if, "up")

    def close(self) -> None:
        if not self._created:
            return
        self._created = False
        for h in self.hosts:
            _ip("link", "del", h.switch_if, check=False)
            _ip("netns", "del", h.netns, check=False)
