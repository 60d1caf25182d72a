"""A switch's runtime config: read, resolved against the program's P4Info, and installed
with its pipeline over P4Runtime (:func:`program_switch`, what the network does for every
switch it starts and ``python -m controllers.routing`` for one).

The config has the shape of the P4 tutorials' ``sN-runtime.json``::

    {"table_entries": [
        {"table": "MyIngress.ipv4_lpm", "default_action": true,
         "action_name": "MyIngress.drop", "action_params": {}},
        {"table": "MyIngress.ipv4_lpm", "match": {"hdr.ipv4.dstAddr": ["10.0.1.1", 32]},
         "action_name": "MyIngress.ipv4_forward",
         "action_params": {"dstAddr": "08:00:00:00:01:11", "port": 1}}],
     "multicast_group_entries": [{"multicast_group_id": 1,
                                  "replicas": [{"egress_port": 1, "instance": 1}]}],
     "clone_session_entries": [{"clone_session_id": 5, "replicas": [...],
                                "class_of_service": 0, "packet_length_bytes": 0}]}

Match values: ``value`` (exact), ``[value, prefix_len]`` or ``"ADDRESS/LENGTH"`` (lpm),
``[value, mask]`` (ternary), ``[low, high]`` (range); values are what
``testbed.p4runtime.values`` reads: ints, ``"0x.."`` hex, IPv4, MAC or IPv6 addresses.
Tables with ternary/range keys take ``"priority"``.
"""
from __future__ import annotations

import json
from pathlib import Path

from p4.config.v1 import p4info_pb2

from testbed.errors import TrainetError
from testbed.p4 import entries as E
from testbed.p4runtime.values import parse_prefix, parse_value, unwrap_single

MATCH_KINDS = {
    p4info_pb2.MatchField.EXACT: "exact",
    p4info_pb2.MatchField.LPM: "lpm",
    p4info_pb2.MatchField.TERNARY: "ternary",
    p4info_pb2.MatchField.RANGE: "range",
    p4info_pb2.MatchField.OPTIONAL: "optional",
}


class RuntimeConfigError(TrainetError):
    pass


def _value(value, where: str) -> int:
    try:
        return parse_value(value)
    except ValueError as err:
        raise RuntimeConfigError(f"{where}: {err}") from None


def _lookup(items, name: str, what: str, where: str):
    for item in items:
        if item.preamble.name == name or item.preamble.alias == name:
            return item
    known = ", ".join(sorted(i.preamble.name for i in items)) or "none"
    raise RuntimeConfigError(f"{where}: no {what} named {name!r} in the P4 program "
                             f"(known: {known})")


def _action(p4info, table, entry: dict, where: str) -> E.ActionCall:
    if "action_name" not in entry:
        raise RuntimeConfigError(f"{where}: missing 'action_name'")
    action = _lookup(p4info.actions, entry["action_name"], "action", f"{where}.action_name")
    allowed = {ref.id for ref in table.action_refs}
    if action.preamble.id not in allowed:
        raise RuntimeConfigError(f"{where}.action_name: {action.preamble.name} is not an "
                                 f"action of table {table.preamble.name}")
    given = dict(entry.get("action_params") or {})
    params = {}
    for p in action.params:
        if p.name not in given:
            raise RuntimeConfigError(f"{where}.action_params: missing parameter {p.name!r} "
                                     f"of {action.preamble.name}")
        params[p.name] = _fits(_value(given.pop(p.name), f"{where}.action_params.{p.name}"),
                               p.bitwidth, f"{where}.action_params.{p.name}")
    if given:
        raise RuntimeConfigError(f"{where}.action_params: {action.preamble.name} has no "
                                 f"parameter {sorted(given)[0]!r}")
    return E.ActionCall(action.preamble.name, params)


def _fits(value: int, width: int, where: str) -> int:
    if width and not 0 <= value < (1 << width):
        raise RuntimeConfigError(f"{where}: {value} does not fit in {width} bits")
    return value


def _match(field, given, where: str) -> E.Match:
    kind = MATCH_KINDS.get(field.match_type, "other")
    width = field.bitwidth
    given = unwrap_single(given)
    pair = isinstance(given, (list, tuple))
    if kind == "lpm" and isinstance(given, str) and "/" in given:
        try:
            given, pair = list(parse_prefix(given)), True
        except ValueError as err:
            raise RuntimeConfigError(f"{where}: {err}") from None
    if kind in ("exact", "optional"):
        if pair:
            raise RuntimeConfigError(f"{where}: {kind} match takes one value, not a list")
        value = _fits(_value(given, where), width, where)
        return E.Exact(value) if kind == "exact" else E.Optional_(value)
    if not pair or len(given) != 2:
        shapes = {"lpm": "[value, prefix_len] or 'ADDRESS/LENGTH'", "ternary": "[value, mask]",
                  "range": "[low, high]"}
        raise RuntimeConfigError(f"{where}: {kind} match needs {shapes.get(kind, 'a pair')}")
    a = _fits(_value(given[0], f"{where}[0]"), width, f"{where}[0]")
    b = _value(given[1], f"{where}[1]")
    if kind == "lpm":
        if not 0 <= b <= width:
            raise RuntimeConfigError(f"{where}[1]: prefix length {b} is outside 0..{width}")
        return E.Lpm(a, b)
    if kind == "ternary":
        return E.Ternary(a, _fits(b, width, f"{where}[1]"))
    if kind == "range":
        return E.Range(a, _fits(b, width, f"{where}[1]"))
    raise RuntimeConfigError(f"{where}: match kind of {field.name} is not supported")


def table_entry(p4info, entry: dict, where: str) -> E.TableEntry:
    table = _lookup(p4info.tables, entry.get("table", ""), "table", f"{where}.table")
    given = dict(entry.get("match") or {})
    match = []
    for field in table.match_fields:
        if field.name in given:
            match.append(_match(field, given.pop(field.name), f"{where}.match.{field.name}"))
        elif MATCH_KINDS.get(field.match_type) == "exact":
            raise RuntimeConfigError(f"{where}.match: exact key {field.name!r} of "
                                     f"{table.preamble.name} is missing")
        else:
            match.append(None)
    if given:
        keys = ", ".join(f.name for f in table.match_fields)
        raise RuntimeConfigError(f"{where}.match: {table.preamble.name} has no key "
                                 f"{sorted(given)[0]!r} (keys: {keys})")
    priority = int(entry.get("priority", 0))
    needs_priority = any(MATCH_KINDS.get(f.match_type) in ("ternary", "range", "optional")
                         for f in table.match_fields)
    if needs_priority and priority <= 0:
        raise RuntimeConfigError(f"{where}: table {table.preamble.name} has ternary/range "
                                 "keys; give the entry a \"priority\" >= 1")
    return E.TableEntry(table.preamble.name, tuple(match), _action(p4info, table, entry, where),
                        priority=priority if needs_priority else 0)


def _replicas(items, where: str) -> list:
    out = []
    for i, r in enumerate(items or []):
        if "egress_port" not in r:
            raise RuntimeConfigError(f"{where}[{i}]: missing 'egress_port'")
        out.append(E.Replica(int(r["egress_port"]), int(r.get("instance", 0))))
    return out


class RuntimeConfig:
    """A switch's runtime config, resolved against the program's P4Info."""

    def __init__(self, p4info, data: dict, source: str = "<runtime>"):
        if not isinstance(data, dict):
            raise RuntimeConfigError(f"{source}: the runtime config must be a JSON object")
        self.defaults: list[tuple[str, E.ActionCall]] = []
        self.entries: list[E.TableEntry] = []
        for i, entry in enumerate(data.get("table_entries") or []):
            where = f"{source}: table_entries[{i}]"
            if entry.get("default_action"):
                table = _lookup(p4info.tables, entry.get("table", ""), "table", f"{where}.table")
                self.defaults.append((table.preamble.name, _action(p4info, table, entry, where)))
            else:
                self.entries.append(table_entry(p4info, entry, where))
        self.groups = [
            E.MulticastGroup(int(g["multicast_group_id"]),
                             _replicas(g.get("replicas"),
                                       f"{source}: multicast_group_entries[{i}].replicas"))
            for i, g in enumerate(data.get("multicast_group_entries") or [])]
        self.clones = [
            E.CloneSession(int(c["clone_session_id"]),
                           _replicas(c.get("replicas"),
                                     f"{source}: clone_session_entries[{i}].replicas"),
                           int(c.get("class_of_service", 0)),
                           int(c.get("packet_length_bytes", 0)))
            for i, c in enumerate(data.get("clone_session_entries") or [])]

    @classmethod
    def load(cls, p4info, path: str | Path) -> "RuntimeConfig":
        try:
            data = json.loads(Path(path).read_text())
        except OSError as err:
            raise RuntimeConfigError(f"{path}: cannot read the runtime config ({err.strerror})")
        except json.JSONDecodeError as err:
            raise RuntimeConfigError(f"{path}:{err.lineno}:{err.colno}: invalid JSON: {err.msg}")
        return cls(p4info, data, str(path))

    def install(self, client) -> int:
        """Write everything to the device; return the number of objects written."""
        for table, action in self.defaults:
            client.set_default(table, action)
        for entry in self.entries:
            client.insert_entry(entry)
        for group in self.groups:
            client.set_multicast_group(group)
        for session in self.clones:
            client.set_clone_session(session)
        return len(self.defaults) + len(self.entries) + len(self.groups) + len(self.clones)


def program_switch(address: str, p4_path: str | Path, runtime, device_id: int = 0,
                   election_id: tuple = (0, 1), p4info=None, program=None,
                   timeout_s: float = 10.0, device_config: str | Path | None = None) -> int:
    """Push the pipeline of ``p4_path`` and install ``runtime`` (a path, a dict or a
    RuntimeConfig, or None for no entries); return the number of objects written.
    ``device_config`` is the file sent as the device's config (default: the P4 source,
    which the software switch compiles; BMv2 needs p4c's JSON)."""
    from controllers.p4runtime_client import P4RuntimeClient
    if p4info is None:
        from testbed.p4 import p4info as p4info_builder
        if program is None:
            from testbed.p4.lowering.program import load_program
            program = load_program(str(p4_path))
        p4info = p4info_builder.build(program)
    if runtime is None:
        config = RuntimeConfig(p4info, {}, "<none>")
    elif isinstance(runtime, RuntimeConfig):
        config = runtime
    elif isinstance(runtime, dict):
        config = RuntimeConfig(p4info, runtime)
    else:
        config = RuntimeConfig.load(p4info, runtime)
    with P4RuntimeClient(address, device_id, election_id, timeout_s) as client:
        client.set_pipeline(p4info, device_config or p4_path)
        return config.install(client)
