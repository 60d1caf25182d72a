"""P4Runtime's translation of user-defined types: a ``type`` declared with
``@p4runtime_translation("uri", W)`` or ``("uri", string)``.

The controller speaks in controller (SDN) values, W bits wide or strings; the data plane
holds the type's own ``bit<N>``. The P4Info gives the controller's form (``type_name``,
``sdn_bitwidth`` or ``sdn_string``); the server translates on the way in (match fields,
action parameters of entries, members and one-shot sets, value set members, packet-out
metadata) and back on the way out (reads, packet-in metadata, digest data). The rest of
the server sees data-plane values only: its P4Info index carries the data-plane widths
(:meth:`Translation.dataplane`).

The specification leaves how a mapping comes to be to the target (for ports, gNMI's
openconfig-p4rt interface ids). This switch has no gNMI, so the controller gives it with
the pipeline: in PI's ``p4.tmp.P4DeviceConfig`` wrapper, an ``extras.kv`` entry per URI,
key ``p4runtime_translation:<uri>``, value a JSON list of ``[controller value,
data-plane value]`` pairs (a string for a string type, an integer otherwise), one to one.
Without an entry, a W-bit type maps each value to itself when it fits the data-plane
width, and a string type maps none. A value that does not map is refused with
INVALID_ARGUMENT naming the field, and nothing is written. A data-plane value without a
controller value (a const entry, the initial default action or a digest field the mapping
does not reach) reads back as it is: the specification asks the server to translate
what it reports and says nothing of a value without a controller value, and refusing the
read would hide every other entry of the table.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from p4.config.v1 import p4info_pb2

from testbed.p4 import p4info as p4info_builder
from testbed.p4runtime import convert as C
from testbed.p4runtime.device_config import extras

KEY = "p4runtime_translation:"


@dataclass
class TypeMap:
    """One translated type: its controller form and the mapping in both directions."""
    name: str
    uri: str
    sdn_bits: int | None                # None: a string
    dp_bits: int | None                 # None: no value of the program has the type
    to_dp: dict | None                  # controller value (int, or bytes of a string) -> int
    to_sdn: dict | None                 # data-plane int -> controller value

    def inbound(self, data: bytes, what: str) -> bytes:
        if self.sdn_bits is None:
            key = data
            shown = repr(data.decode("utf-8", "replace")[:32])
        else:
            key = C.decode(data, self.sdn_bits, what)
            shown = str(key)
        if self.to_dp is not None:
            value = self.to_dp.get(key)
        else:
            value = key if self.sdn_bits is not None and not key >> self.dp_bits else None
        if value is None:
            how = (f"the controller's mapping for {self.uri}" if self.to_dp is not None
                   else f"{self.dp_bits}-bit data-plane values" if self.sdn_bits is not None
                   else f"no mapping: give one for {self.uri} with the pipeline")
            C.fail("INVALID_ARGUMENT", f"{what}: {self.name} value {shown} does not translate "
                                       f"to a data-plane value ({how})")
        return C.encode(value)

    def outbound(self, data: bytes) -> bytes:
        if self.to_sdn is None:
            return data
        value = self.to_sdn.get(int.from_bytes(data, "big"))
        if value is None:
            return data
        return value if isinstance(value, bytes) else C.encode(value)


def _mapping(new: TypeMap, text: str) -> None:
    """Fill ``new``'s mapping from the JSON pairs the controller sent."""
    where = f"config.p4_device_config extras {KEY}{new.uri}"
    try:
        pairs = json.loads(text)
    except ValueError as e:
        C.fail("INVALID_ARGUMENT", f"{where}: not JSON ({e}); send a list of "
                                   "[controller value, data-plane value] pairs")
    if not isinstance(pairs, list) or not all(isinstance(p, list) and len(p) == 2
                                              for p in pairs):
        C.fail("INVALID_ARGUMENT", f"{where}: send a list of [controller value, data-plane "
                                   "value] pairs")
    new.to_dp, new.to_sdn = {}, {}
    for sdn, dp in pairs:
        if new.sdn_bits is None:
            ok = isinstance(sdn, str) and sdn
            key = sdn.encode() if ok else None
        else:
            ok = isinstance(sdn, int) and not isinstance(sdn, bool) and 0 <= sdn < 1 << new.sdn_bits
            key = sdn
        if not ok:
            kind = "a non-empty string" if new.sdn_bits is None else \
                f"an integer in 0..{(1 << new.sdn_bits) - 1}"
            C.fail("INVALID_ARGUMENT", f"{where}: controller value {sdn!r} of {new.name} must "
                                       f"be {kind}")
        top = None if new.dp_bits is None else (1 << new.dp_bits) - 1
        if not (isinstance(dp, int) and not isinstance(dp, bool) and 0 <= dp
                and (top is None or dp <= top)):
            span = "a non-negative integer" if top is None else f"an integer in 0..{top}"
            C.fail("INVALID_ARGUMENT", f"{where}: data-plane value {dp!r} of {new.name} must "
                                       f"be {span}")
        if key in new.to_dp or dp in new.to_sdn:
            C.fail("INVALID_ARGUMENT", f"{where}: {sdn!r} -> {dp} repeats a controller or "
                                       "data-plane value; the mapping must be one to one")
        new.to_dp[key], new.to_sdn[dp] = dp, key


class Translation:
    """The translated types of one pipeline, by where their values travel.

    The P4Info the controller sent decides what is translated: a ``type_name`` naming a
    ``new_types`` entry with ``translated_type`` marks a value for translation, whatever
    form the program came in (P4 source, trainet-p4c's output or BMv2 JSON, which keeps no
    type names). The specification makes the P4Info's type the server's signal that
    translation is required, and lets a compiler's own mechanism override the program's
    ``@p4runtime_translation``; so where the program's annotation and the P4Info differ,
    the P4Info wins. The program gives only the data-plane width: the ``type``'s own
    ``bit<W>`` when the program declares it, else the width the program gives the field,
    parameter or metadata the P4Info names with the type (one width per type).
    """

    def __init__(self, info: p4info_pb2.P4Info, program, device_config: bytes = b"",
                 program_info: p4info_pb2.P4Info | None = None):
        kv = {k[len(KEY):]: v for k, v in extras(device_config).items() if k.startswith(KEY)}
        widths = _dataplane_widths(info, program, program_info)
        self.types: dict[str, TypeMap] = {}
        for name, spec in info.type_info.new_types.items():
            if spec.WhichOneof("representation") != "translated_type":
                continue
            t = spec.translated_type
            sdn_bits = t.sdn_bitwidth if t.WhichOneof("sdn_type") == "sdn_bitwidth" else None
            self.types[name] = TypeMap(name, t.uri, sdn_bits, widths.get(name), None, None)
        by_uri = {t.uri: t for t in self.types.values()}
        for uri, text in kv.items():
            if uri not in by_uri:
                C.fail("INVALID_ARGUMENT", f"config.p4_device_config extras {KEY}{uri}: no "
                                           f"type of the P4Info translates {uri}; known: "
                                           f"{', '.join(sorted(by_uri)) or 'none'}")
            _mapping(by_uri[uri], text)

        def typed(items, where: str) -> dict:    # id -> (TypeMap, what an error names)
            return {i.id: (self.types[i.type_name.name], f"{where} {i.name}") for i in items
                    if i.type_name.name in self.types}

        self.fields = {t.preamble.id: typed(t.match_fields, f"table {t.preamble.name}: field")
                       for t in info.tables}
        self.params = {a.preamble.id: typed(a.params, f"action {a.preamble.name} parameter")
                       for a in info.actions}
        self.value_sets = {v.preamble.id: typed(v.match, f"value set {v.preamble.name}: field")
                           for v in info.value_sets}
        self.metadata = {c.preamble.name: typed(c.metadata, f"{c.preamble.name} metadata")
                         for c in info.controller_packet_metadata}
        self.digests = {d.preamble.id: self._digest_paths(info, d.type_spec)
                        for d in info.digests}
        for group in (self.fields, self.params, self.value_sets, self.metadata, self.digests):
            for key in [k for k, v in group.items() if not v]:
                del group[key]
        self.active = bool(self.types)

    def _digest_paths(self, info, spec) -> list:
        """(member index or None for the whole value, TypeMap) of the translated parts of
        a digest's data: its struct's or tuple's members, or the value itself."""
        kind = spec.WhichOneof("type_spec")
        if kind == "new_type":
            t = self.types.get(spec.new_type.name)
            return [(None, t)] if t else []
        if kind == "struct" and spec.struct.name in info.type_info.structs:
            members = [m.type_spec for m in info.type_info.structs[spec.struct.name].members]
        elif kind == "tuple":
            members = list(spec.tuple.members)
        else:
            return []
        return [(i, self.types[m.new_type.name]) for i, m in enumerate(members)
                if m.WhichOneof("type_spec") == "new_type" and m.new_type.name in self.types]

    def dataplane(self, info: p4info_pb2.P4Info) -> p4info_pb2.P4Info:
        """``info`` with the data-plane width on every translated value."""
        if not self.active:
            return info
        out = p4info_pb2.P4Info()
        out.CopyFrom(info)
        items = [f for t in out.tables for f in t.match_fields]
        items += [p for a in out.actions for p in a.params]
        items += [m for v in out.value_sets for m in v.match]
        items += [m for c in out.controller_packet_metadata for m in c.metadata]
        for item in items:
            t = self.types.get(item.type_name.name)
            if t is None:
                continue
            if t.dp_bits is None:
                C.fail("INVALID_ARGUMENT", f"config.p4info: {item.name} has translated type "
                                           f"{t.name}, but the program has no such value "
                                           "to give its data-plane width")
            item.bitwidth = t.dp_bits
        return out

    # ------------------------------------------------------------ messages
    def entity_in(self, kind: str, msg):
        """A copy of a written entity (or a read's filter) in data-plane values; ``msg``
        itself when nothing in it is translated."""
        if not self.active:
            return msg
        if kind == "table_entry":
            if msg.table_id not in self.fields and not self._actions_translated(msg):
                return msg
            msg = _copy(msg)
            self._matches(self.fields.get(msg.table_id), msg.match, True)
            for action in _actions(msg):
                self._params(action, True)
        elif kind == "action_profile_member" and msg.action.action_id in self.params:
            msg = _copy(msg)
            self._params(msg.action, True)
        elif kind == "value_set_entry" and msg.value_set_id in self.value_sets:
            msg = _copy(msg)
            for member in msg.members:
                self._matches(self.value_sets[msg.value_set_id], member.match, True)
        return msg

    def entity_out(self, entity) -> None:
        """Turn a read's entity back into controller values, in place."""
        kind = entity.WhichOneof("entity")
        msg = getattr(entity, kind)
        if kind == "table_entry":
            self._matches(self.fields.get(msg.table_id), msg.match, False)
            for action in _actions(msg):
                self._params(action, False)
        elif kind == "action_profile_member":
            self._params(msg.action, False)
        elif kind == "value_set_entry":
            for member in msg.members:
                self._matches(self.value_sets.get(msg.value_set_id), member.match, False)

    def packet_out(self, packet):
        fields = self.metadata.get("packet_out")
        if not fields:
            return packet
        packet = _copy(packet)
        for m in packet.metadata:
            if m.metadata_id in fields:
                t, what = fields[m.metadata_id]
                m.value = t.inbound(m.value, what)
        return packet

    def packet_in(self, packet) -> None:
        fields = self.metadata.get("packet_in", {})
        for m in packet.metadata:
            if m.metadata_id in fields:
                m.value = fields[m.metadata_id][0].outbound(m.value)

    def digest_out(self, digest_id: int, data) -> None:
        """Turn a digest's P4Data into controller values, in place."""
        for index, t in self.digests.get(digest_id, ()):
            if index is None:
                data.bitstring = t.outbound(data.bitstring)
            else:
                part = getattr(data, data.WhichOneof("data")).members[index]
                part.bitstring = t.outbound(part.bitstring)

    def _actions_translated(self, msg) -> bool:
        return any(a.action_id in self.params for a in _actions(msg))

    def _params(self, action, inbound: bool) -> None:
        types = self.params.get(action.action_id)
        if not types:
            return
        for p in action.params:
            if p.param_id in types:
                t, what = types[p.param_id]
                p.value = t.inbound(p.value, what) if inbound else t.outbound(p.value)

    @staticmethod
    def _matches(types, matches, inbound: bool) -> None:
        if not types:
            return
        for fm in matches:
            if fm.field_id not in types:
                continue
            t, what = types[fm.field_id]
            kind = fm.WhichOneof("field_match_type")
            if kind not in ("exact", "optional"):
                if inbound:
                    C.fail("INVALID_ARGUMENT", f"{what} has translated type {t.name}: match "
                                               f"it exact or optional, not {kind}")
                continue
            part = getattr(fm, kind)
            part.value = t.inbound(part.value, what) if inbound else t.outbound(part.value)


def _actions(entry) -> list:
    """The actions of a TableEntry that carry parameters: its direct action or its
    one-shot action set."""
    kind = entry.action.WhichOneof("type") if entry.HasField("action") else None
    if kind == "action":
        return [entry.action.action]
    if kind == "action_profile_action_set":
        return [a.action for a in entry.action.action_profile_action_set.action_profile_actions]
    return []


def _copy(msg):
    out = type(msg)()
    out.CopyFrom(msg)
    return out


def _dataplane_widths(info, program, program_info) -> dict:
    """Translated type name -> the data plane's width of its values in ``program``."""
    widths = {name: new.base.width for name, new in program.new_types.items()
              if hasattr(new.base, "width")}
    if program_info is None:
        return widths
    found: dict[str, set] = {}

    def match(given, own, owner) -> None:
        own_widths = {i.name: i.bitwidth for i in own}
        for item in given:
            name = item.type_name.name
            if name and name not in widths and item.name in own_widths:
                found.setdefault(name, set()).add((own_widths[item.name], owner, item.name))

    def by_name(items):
        return {o.preamble.name: o for o in items}

    for kind, part in (("tables", "match_fields"), ("actions", "params"),
                       ("value_sets", "match"), ("controller_packet_metadata", "metadata")):
        own = by_name(getattr(program_info, kind))
        for obj in getattr(info, kind):
            if obj.preamble.name in own:
                match(getattr(obj, part), getattr(own[obj.preamble.name], part),
                      obj.preamble.name)
    for name, seen in found.items():
        if len({w for w, _, _ in seen}) > 1:
            shown = ", ".join(f"{owner} {item}: {w} bits" for w, owner, item in sorted(seen))
            C.fail("INVALID_ARGUMENT", f"config.p4info translates type {name}, whose values "
                                       f"have different widths in the program ({shown}); "
                                       "a translated type has one data-plane width")
        widths[name] = next(iter(seen))[0]
    return widths
