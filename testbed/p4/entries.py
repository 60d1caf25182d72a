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


@dataclass
class TableEntry:
    table: str                    # fully-qualified table name
    match: tuple                  # one Match per key, in key order
    action: ActionCall
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
