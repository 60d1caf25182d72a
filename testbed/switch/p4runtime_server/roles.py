"""What a P4Runtime role may do.

P4Runtime arbitrates per role: the controllers of one role elect their own primary, and a
role's ``config`` (a ``google.protobuf.Any`` whose format the target defines) says which
entities it controls; a role without a config, like the default role (the empty name),
controls the whole pipeline. This target's role config is a ``google.protobuf.Struct``
packed in the Any, with three optional keys:

``p4_ids``
    the P4Info ids of the objects the role may write: tables (their entries, default
    actions, direct counters and meters), counters, meters, registers, value sets,
    digests and action profiles;
``packet_replication``
    true when the role may write multicast groups and clone sessions;
``packet_in``
    true when the role's primary receives packet-ins (and digests).

A role with a config may not set the forwarding pipeline, which changes everything.
Everybody may read.
"""
from __future__ import annotations

from dataclasses import dataclass

from google.protobuf import any_pb2, struct_pb2

from testbed.switch.p4runtime_server.status import RpcError

SCOPE_KEYS = ("p4_ids", "packet_replication", "packet_in")
ID_FIELDS = {"table_entry": "table_id", "counter_entry": "counter_id",
             "meter_entry": "meter_id", "register_entry": "register_id",
             "value_set_entry": "value_set_id", "digest_entry": "digest_id",
             "action_profile_member": "action_profile_id",
             "action_profile_group": "action_profile_id"}


@dataclass(frozen=True)
class RoleScope:
    """The entities a role with a config controls; ``None`` stands for full access."""

    p4_ids: frozenset = frozenset()
    packet_replication: bool = False
    packet_in: bool = False


def parse_config(role: str, config: any_pb2.Any) -> RoleScope | None:
    """The scope of ``role`` from its arbitration's ``role.config`` (None: no config)."""
    if not config.type_url and not config.value:
        return None
    where = f"role {role!r}: role.config"
    spec = struct_pb2.Struct()
    if not config.Is(struct_pb2.Struct.DESCRIPTOR) or not config.Unpack(spec):
        raise RpcError("INVALID_ARGUMENT", f"{where} is a {config.type_url or 'bare value'}; "
                                           "pack a google.protobuf.Struct with the keys "
                                           f"{', '.join(SCOPE_KEYS)}")
    unknown = sorted(set(spec.fields) - set(SCOPE_KEYS))
    if unknown:
        raise RpcError("INVALID_ARGUMENT", f"{where} has the unknown key(s) "
                                           f"{', '.join(unknown)}; use {', '.join(SCOPE_KEYS)}")
    ids = []
    if "p4_ids" in spec.fields:
        listed = spec.fields["p4_ids"]
        if listed.WhichOneof("kind") != "list_value":
            raise RpcError("INVALID_ARGUMENT", f"{where}: p4_ids must be a list of P4Info ids")
        for v in listed.list_value.values:
            n = v.number_value if v.WhichOneof("kind") == "number_value" else -1
            if n != int(n) or not 0 < n < 2 ** 32:
                raise RpcError("INVALID_ARGUMENT", f"{where}: p4_ids holds {_shown(v)}; "
                                                   "give P4Info ids, integers in 1..2^32-1")
            ids.append(int(n))
    flags = {}
    for key in ("packet_replication", "packet_in"):
        if key in spec.fields:
            v = spec.fields[key]
            if v.WhichOneof("kind") != "bool_value":
                raise RpcError("INVALID_ARGUMENT", f"{where}: {key} must be true or false")
            flags[key] = v.bool_value
    return RoleScope(frozenset(ids), **flags)


def _shown(v: struct_pb2.Value) -> str:
    kind = v.WhichOneof("kind")
    return repr(getattr(v, kind)) if kind else "nothing"


def denied(scope: RoleScope | None, role: str, entity) -> str | None:
    """Why ``role`` may not write ``entity`` (a ``p4.v1.Entity``), or None."""
    if scope is None:
        return None
    kind = entity.WhichOneof("entity")
    msg = getattr(entity, kind) if kind else None
    if kind == "packet_replication_engine_entry":
        return None if scope.packet_replication else (
            f"role {role!r} may not write the packet replication engine; its config lacks "
            "packet_replication: true")
    if kind in ("direct_counter_entry", "direct_meter_entry"):
        obj_id = msg.table_entry.table_id
    elif kind in ID_FIELDS:
        obj_id = getattr(msg, ID_FIELDS[kind])
    elif kind == "extern_entry":
        obj_id = msg.extern_id
    else:
        return None                  # an empty entity: the handler says what is wrong
    if obj_id in scope.p4_ids:
        return None
    return (f"role {role!r} may not write {kind} of P4Info id {obj_id}; its config's p4_ids "
            f"are {sorted(scope.p4_ids)}")
