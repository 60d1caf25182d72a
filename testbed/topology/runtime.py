"""A switch's initial control-plane state, in the p4lang tutorials' runtime JSON shape.

``table_entries`` items look like::

    {"table": "MyIngress.ipv4_lpm", "match": {"hdr.ipv4.dstAddr": ["10.0.1.1", 32]},
     "action_name": "MyIngress.ipv4_forward",
     "action_params": {"dstAddr": "08:00:00:00:01:11", "port": 1}}

Match values: exact ``v``; lpm ``[v, prefix_len]`` or ``"ADDRESS/LENGTH"``; ternary
``[v, mask]``; range ``[low, high]``; optional ``v``. A value is what
``testbed.p4runtime.values`` reads: an int, a decimal or ``0x`` hex string, an IPv4, MAC
or IPv6 address. ``default_action: true`` entries set the table's default action and
carry no match.
"""
from __future__ import annotations

from typing import Union

from pydantic import Field, model_validator

from testbed.p4 import entries
from testbed.p4runtime.values import parse_prefix, parse_value, unwrap_single
from testbed.topology.specfile import Spec

Scalar = Union[int, str]
MatchValue = Union[int, str, list[Scalar]]


class TableEntrySpec(Spec):
    table: str
    match: dict[str, MatchValue] = Field(default_factory=dict)
    action_name: str
    action_params: dict[str, Scalar] = Field(default_factory=dict)
    default_action: bool = False
    priority: int | None = None

    @model_validator(mode="after")
    def _shape(self):
        if self.default_action and self.match:
            raise ValueError("a default_action entry has no match; remove 'match' or "
                             "'default_action'")
        for name, value in self.match.items():
            value = unwrap_single(value)
            if isinstance(value, list):
                if len(value) != 2:
                    raise ValueError(f"match {name!r}: {value!r} must be [value, prefix_len], "
                                     "[value, mask] or [low, high]")
                for v in value:
                    parse_value(v)
            elif isinstance(value, str) and "/" in value:
                parse_prefix(value)
            else:
                parse_value(value)
        for v in self.action_params.values():
            parse_value(v)
        return self

    def to_entry(self, keys: list[tuple[str, str]]) -> entries.TableEntry:
        """The control-plane entry, given the table's keys as (field name, match kind)
        in key order (match kinds: exact, lpm, ternary, range, optional). Keys absent
        from ``match`` are wildcards."""
        known = {name for name, _ in keys}
        for name in self.match:
            if name not in known:
                raise ValueError(f"{self.table}: no key {name!r}; keys: "
                                 f"{', '.join(sorted(known))}")
        match = tuple(_match(kind, self.match.get(name)) for name, kind in keys)
        action = entries.ActionCall(self.action_name, {k: parse_value(v) for k, v in
                                                       self.action_params.items()})
        return entries.TableEntry(self.table, match, action, priority=self.priority or 0)


def _match(kind: str, value):
    if value is None:
        return None
    value = unwrap_single(value)
    if kind == "lpm":
        return entries.Lpm(*parse_prefix(value))
    pair = [parse_value(v) for v in value] if isinstance(value, list) else None
    if kind == "exact":
        return entries.Exact(parse_value(value))
    if kind == "optional":
        return entries.Optional_(parse_value(value))
    if pair is None:
        raise ValueError(f"a {kind} match needs a pair, got {value!r}")
    if kind == "ternary":
        return entries.Ternary(*pair)
    if kind == "range":
        return entries.Range(*pair)
    raise ValueError(f"unknown match kind {kind!r}")


class ReplicaSpec(Spec):
    egress_port: int = Field(ge=0)
    instance: int = Field(default=0, ge=0)


class MulticastGroupSpec(Spec):
    multicast_group_id: int = Field(ge=1)
    replicas: list[ReplicaSpec]

    def to_group(self) -> entries.MulticastGroup:
        return entries.MulticastGroup(self.multicast_group_id,
                                      [entries.Replica(r.egress_port, r.instance)
                                       for r in self.replicas])


class CloneSessionSpec(Spec):
    clone_session_id: int = Field(ge=1)
    replicas: list[ReplicaSpec]
    class_of_service: int = 0
    packet_length_bytes: int = Field(default=0, ge=0)

    def to_session(self) -> entries.CloneSession:
        return entries.CloneSession(self.clone_session_id,
                                    [entries.Replica(r.egress_port, r.instance)
                                     for r in self.replicas],
                                    self.class_of_service, self.packet_length_bytes)


class Runtime(Spec):
    table_entries: list[TableEntrySpec] = Field(default_factory=list)
    multicast_group_entries: list[MulticastGroupSpec] = Field(default_factory=list)
    clone_session_entries: list[CloneSessionSpec] = Field(default_factory=list)

