"""This host's addresses as the kernel sees them: the source address towards a peer
(the address a service on an emulated host binds to, never every interface) and the
interface that holds an address."""
from __future__ import annotations

import socket

from testbed.errors import TrainetError


def local_address(peer: str) -> str:
    """This host's source address towards ``peer``."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect((peer, 9))
        except OSError as e:
            raise TrainetError(f"{peer}: not reachable from this host ({e.strerror}); check "
                               "the address and the host's routes (ip route)") from None
        return s.getsockname()[0]


def interface_of(address: str) -> str:
    import fcntl
    import struct
    for _, name in socket.if_nameindex():
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            try:
                packed = fcntl.ioctl(s.fileno(), 0x8915, struct.pack("256s", name.encode()[:15]))
            except OSError:
                continue
            if socket.inet_ntoa(packed[20:24]) == address:
                return name
    raise TrainetError(f"no interface holds {address}; pass --iface")
