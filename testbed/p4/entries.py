"""Control-plane objects shared by the target, STF, the P4Runtime server and controllers.

Values are plain Python ints (unsigned bit patterns of the key/parameter width).
Priorities follow P4Runtime: a larger number wins. Tools whose formats use another
convention (BMv2's CLI: smaller wins) convert at their edge. STF files already rank the
larger priority first (their driver hands BMv2 ``10000 - p``); see testbed/p4/stf/runner.py.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Union


@dataclass(frozen=True)
class Exact:
    value: int


@dataclass(frozen=True)
class Lpm:
    value: int
    prefix_len: int


@dataclass(frozen=True)
class Ternary:
    value: int
    mask: int


@dataclass(frozen=True)
class Range:
    low: int
    high: int


@dataclass(frozen=True)
class Optional_:
    value: int


Match = Union[Exact, Lpm, Ternary, Range, Optional_, None]   # None: wildcard / don't care


@dataclass
class ActionCall:
    action: str                   # fully-qualified action name
    params: dict = field(default_factory=dict)   # param name -> int


@dataclass(frozen=True)
class MemberRef:
    """The action of an indirect table's entry: a member of the table's action profile."""
    member_id: int


@dataclass(frozen=True)
class GroupRef:
    """The action of an indirect table's entry: a group of its action selector, whose
    member a packet runs is chosen by the selector's hash over its fields."""
    group_id: int


@dataclass(frozen=True)
class ActionSet:
    """The action of an indirect table's entry written one-shot: its own actions
    (``(ActionCall, weight, watch_port)`` each) in place of named members and group."""
    actions: tuple


@dataclass
class ProfileMember:
    member_id: int
    action: ActionCall


@dataclass
class GroupMember:
    member_id: int
    weight: int = 1
    watch_port: Optional[int] = None      # kept and read back; the target has no port liveness


@dataclass
class ProfileGroup:
    group_id: int
    members: list                 # list[GroupMember], each member id once
    max_size: int = 0             # the group's own bound on its members; 0: the profile's


@dataclass
class TableEntry:
    table: str                    # fully-qualified table name
    match: tuple                  # one Match per key (selector keys excluded), in key order
    action: Union[ActionCall, MemberRef, GroupRef, ActionSet]
    priority: int = 0             # only for tables with ternary/range/optional keys
    # direct resources attached to the entry
    counter_packets: int = 0
    counter_bytes: int = 0
    meter_config: Optional[tuple] = None   # (cir, cburst, pir, pburst) or None

    def key(self) -> tuple:
        """Identity of an entry in its table (match + priority), as P4Runtime defines it."""
        return (self.match, self.priority)


@dataclass
class Replica:
    port: int
    rid: int = 0                  # egress_rid / P4Runtime instance


@dataclass
class MulticastGroup:
    group_id: int
    replicas: list                # list[Replica]
    metadata: bytes = b""         # opaque to the target, returned by reads


@dataclass
class CloneSession:
    session_id: int
    replicas: list                # list[Replica]
    class_of_service: int = 0
    packet_length_bytes: int = 0  # truncate clones to this many bytes; 0: whole packet


class ControlPlaneError(Exception):
    """A rejected control-plane request. ``code`` is the P4Runtime/gRPC status name
    (NOT_FOUND, ALREADY_EXISTS, INVALID_ARGUMENT, OUT_OF_RANGE, RESOURCE_EXHAUSTED,
    UNIMPLEMENTED); the target's state is unchanged when it is raised."""

    def __init__(self, code: str, message: str):
        self.code = code
        self.message = message
        super().__init__(f"{code}: {message}")
