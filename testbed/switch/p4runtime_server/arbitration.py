"""Arbitration as the P4Runtime spec has it, per role: among the streams of one role
(the default role is the empty name) the one with the highest election id is primary,
and only requests that name the role and carry its primary's election id may write, set
the pipeline or send packets (anything else is PERMISSION_DENIED); every client may read.
What a role may write is its scope (:mod:`roles`), taken from its primary's config."""
from __future__ import annotations

import queue
import threading
from dataclasses import dataclass

from google.rpc import code_pb2
from p4.v1 import p4runtime_pb2

from testbed.switch.p4runtime_server.roles import RoleScope, parse_config
from testbed.switch.p4runtime_server.status import RpcError


@dataclass(eq=False)
class Stream:
    """One client's StreamChannel: what the server sends it, and its role, election id
    and role scope once it has sent a MasterArbitrationUpdate."""

    out: queue.Queue
    election_id: int | None = None
    role: str = ""
    scope: RoleScope | None = None


def election(u: p4runtime_pb2.Uint128) -> int:
    return u.high << 64 | u.low


def role_name(name: str, deprecated_id: int = 0) -> str:
    """A role's name; the deprecated numeric role id stands for its decimal name."""
    return name or (str(deprecated_id) if deprecated_id else "")


def request_role(request) -> str:
    return role_name(request.role, getattr(request, "role_id", 0))


class Arbiter:
    """The open streams of one device and which of them is primary."""

    def __init__(self, device_id: int, lock: threading.RLock):
        self.device_id = device_id
        self.lock = lock                  # the server's state lock
        self.streams: list[Stream] = []

    def primary(self, role: str = "") -> Stream | None:
        """The stream of ``role`` with the highest election id. Safe without
        ``self.lock``: the packet path calls it while holding the device lock."""
        live = [s for s in list(self.streams) if s.election_id is not None and s.role == role]
        return max(live, key=lambda s: s.election_id, default=None)

    def packet_in_receivers(self) -> list:
        """The primaries that hear packet-ins and digests: the default role's, and those
        of roles whose scope is the whole pipeline or includes packet_in."""
        roles = {s.role for s in list(self.streams) if s.election_id is not None}
        primaries = [self.primary(r) for r in sorted(roles)]
        return [p for p in primaries if p is not None
                and (p.role == "" or p.scope is None or p.scope.packet_in)]

    def check_role(self, role: str) -> None:
        """A role other than the default exists while a controller has arbitrated for it."""
        if role and not any(s.role == role and s.election_id is not None
                            for s in list(self.streams)):
            raise RpcError("NOT_FOUND", f"role {role[:64]!r} is not known here: no controller "
                                        "has arbitrated for it; send a MasterArbitrationUpdate "
                                        "naming it, or leave role unset for the default role")

    def check_device(self, device_id: int) -> None:
        if device_id != self.device_id:
            raise RpcError("NOT_FOUND", f"device id {device_id} is not served here "
                                        f"(this is device {self.device_id})")

    def check_primary(self, device_id: int, election_id: p4runtime_pb2.Uint128,
                      role: str = "") -> Stream:
        """The primary stream of ``role``, when ``election_id`` is its election id."""
        self.check_device(device_id)
        self.check_role(role)
        primary = self.primary(role)
        if primary is None or primary.election_id != election(election_id):
            whose = f"role {role[:64]!r}'s primary" if role else "the primary's"
            raise RpcError("PERMISSION_DENIED",
                           f"election id {election(election_id)} is not {whose} "
                           f"({primary.election_id if primary else 'none'}); only the primary "
                           "controller may write")
        return primary

    def open(self) -> Stream:
        stream = Stream(queue.Queue())
        with self.lock:
            self.streams.append(stream)
        return stream

    def close(self, stream: Stream) -> None:
        """Forget a stream; when it was primary, everyone hears who is primary now."""
        with self.lock:
            was_primary = stream is self.primary(stream.role)
            self.streams.remove(stream)
            if was_primary:
                self.announce(stream.role)

    def arbitrate(self, stream: Stream, req: p4runtime_pb2.MasterArbitrationUpdate) -> None:
        """A stream's MasterArbitrationUpdate: its role (kept for the stream's life, as
        the spec has it) and its election id, unique within the role."""
        self.check_device(req.device_id)
        role = role_name(req.role.name, req.role.id)
        if stream.election_id is not None and role != stream.role:
            raise RpcError("FAILED_PRECONDITION", f"this stream arbitrated for role "
                                                  f"{stream.role[:64]!r}; open another stream "
                                                  f"for role {role[:64]!r}")
        scope = parse_config(role, req.role.config)
        chosen = election(req.election_id)
        with self.lock:
            if any(s is not stream and s.role == role and s.election_id == chosen
                   for s in self.streams):
                raise RpcError("INVALID_ARGUMENT", f"election id {chosen} is already used by "
                                                   "another controller of this role; pick "
                                                   "another")
            before = self.primary(role)
            stream.role, stream.scope, stream.election_id = role, scope, chosen
            # everybody of the role hears of a new primary; otherwise only the sender
            self.announce(role, None if self.primary(role) is not before else stream)

    def announce(self, role: str, only: Stream | None = None) -> None:
        """Tell every arbitrated stream of ``role`` (or just ``only``) who is primary."""
        primary = self.primary(role)
        for s in self.streams:
            if s.election_id is None or s.role != role or only is not None and s is not only:
                continue
            msg = p4runtime_pb2.StreamMessageResponse()
            a = msg.arbitration
            a.device_id = self.device_id
            if role:
                a.role.name = role
            if primary is not None:
                a.election_id.high = primary.election_id >> 64
                a.election_id.low = primary.election_id & (2 ** 64 - 1)
            a.status.code = code_pb2.OK if s is primary else code_pb2.ALREADY_EXISTS
            a.status.message = ("this controller is primary" if s is primary else
                                "a controller with a higher election id is primary")
            s.out.put(msg)
