"""Arbitration as the P4Runtime spec has it: the stream with the highest election id is
primary, and only requests that carry the primary's election id may write, set the
pipeline or send packets (anything else is PERMISSION_DENIED); every client may read."""
from __future__ import annotations

import queue
import threading
from dataclasses import dataclass

from google.rpc import code_pb2
from p4.v1 import p4runtime_pb2

from testbed.switch.p4runtime_server.status import RpcError


@dataclass
class Stream:
    """One client's StreamChannel: what the server sends it, and its election id once
    it has sent a MasterArbitrationUpdate."""

    out: queue.Queue
    election_id: int | None = None


def election(u: p4runtime_pb2.Uint128) -> int:
    return u.high << 64 | u.low


class Arbiter:
    """The open streams of one device and which of them is primary."""

    def __init__(self, device_id: int, lock: threading.RLock):
        self.device_id = device_id
        self.lock = lock                  # the server's state lock
        self.streams: list[Stream] = []

    def primary(self) -> Stream | None:
        """The stream with the highest election id. Safe without ``self.lock``: the
        packet path calls it while holding the device lock."""
        live = [s for s in list(self.streams) if s.election_id is not None]
        return max(live, key=lambda s: s.election_id, default=None)

    def check_device(self, device_id: int) -> None:
        if device_id != self.device_id:
            raise RpcError("NOT_FOUND", f"device id {device_id} is not served here "
                                        f"(this is device {self.device_id})")

    def check_primary(self, device_id: int, election_id: p4runtime_pb2.Uint128) -> None:
        self.check_device(device_id)
        primary = self.primary()
        if primary is None or primary.election_id != election(election_id):
            raise RpcError("PERMISSION_DENIED",
                           f"election id {election(election_id)} is not the primary's "
                           f"({primary.election_id if primary else 'none'}); only the primary "
                           "controller may write")

    def open(self) -> Stream:
        stream = Stream(queue.Queue())
        with self.lock:
            self.streams.append(stream)
        return stream

    def close(self, stream: Stream) -> None:
        """Forget a stream; when it was primary, everyone hears who is primary now."""
        with self.lock:
            was_primary = stream is self.primary()
            self.streams.remove(stream)
            if was_primary:
                self.announce()

    def arbitrate(self, stream: Stream, req: p4runtime_pb2.MasterArbitrationUpdate) -> None:
        self.check_device(req.device_id)
        if req.role.name or req.role.id:
            raise RpcError("UNIMPLEMENTED", "only the default role is supported; leave "
                                            "role unset")
        chosen = election(req.election_id)
        with self.lock:
            if any(s is not stream and s.election_id == chosen for s in self.streams):
                raise RpcError("INVALID_ARGUMENT", f"election id {chosen} is already used by "
                                                   "another controller; pick another")
            before = self.primary()
            stream.election_id = chosen
            # everybody hears of a new primary; otherwise only the sender gets an answer
            self.announce(None if self.primary() is not before else stream)

    def announce(self, only: Stream | None = None) -> None:
        """Tell every arbitrated stream (or just ``only``) who is primary now."""
        primary = self.primary()
        for s in self.streams:
            if s.election_id is None or only is not None and s is not only:
                continue
            msg = p4runtime_pb2.StreamMessageResponse()
            a = msg.arbitration
            a.device_id = self.device_id
            if primary is not None:
                a.election_id.high = primary.election_id >> 64
                a.election_id.low = primary.election_id & (2 ** 64 - 1)
            a.status.code = code_pb2.OK if s is primary else code_pb2.ALREADY_EXISTS
            a.status.message = ("this controller is primary" if s is primary else
                                "a controller with a higher election id is primary")
            s.out.put(msg)
