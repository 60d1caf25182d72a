"""The common table-entry write decoded in one pass, by a decoder built once per table.

Controllers fill tables with plain entries: exact and lpm keys, a direct action, maybe a
priority and opaque metadata. :class:`EntryDecoder` turns such a message into the same
``TableEntry`` that :func:`testbed.p4runtime.convert.table_entry_from_p4rt` builds,
reading each protobuf field once, against maps made from the P4Info when the table's
decoder is built. It accepts only what the general conversion accepts; anything else (a
default entry, an indirect table, ternary/range/optional keys, direct counter or meter
data, read-only fields, and every value that fails a check) makes it answer None, and the
general conversion then decodes the message and names what is wrong.

:meth:`EntryDecoder.decode_insert` also tells whether the message, serialised, is exactly
what a read of the stored entry returns (canonical values, fields in P4Info order, no
opaque metadata), so the table can keep the message's bytes as the entry's encoding
instead of a read building it again. Unknown fields are not looked at: the caller
discards them from the message first.
"""
from __future__ import annotations

from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2

from testbed.p4 import entries as E

MF = p4info_pb2.MatchField
DELETE = p4runtime_pb2.Update.DELETE
DEFAULT_ONLY = p4info_pb2.ActionRef.DEFAULT_ONLY
NOT_PLAIN = (None, False)
KINDS = {MF.EXACT: "exact", MF.LPM: "lpm", MF.TERNARY: "ternary", MF.RANGE: "range",
         MF.OPTIONAL: "optional"}


class EntryDecoder:
    def __init__(self, table, actions: dict, action_params: dict, metadata_limit: int):
        self.name = table.name
        self.plain = bool(table.fields) and not table.profile_id
        self.needs_priority = table.needs_priority
        self.size = len(table.fields)
        # field id -> (position, "exact" | "lpm", bitwidth); other kinds: general path
        self.fields = {f.id: (i, {MF.EXACT: "exact", MF.LPM: "lpm"}.get(f.match_type),
                              f.bitwidth) for i, f in enumerate(table.fields)}
        self.exact = [i for i, f in enumerate(table.fields) if f.match_type == MF.EXACT]
        # action id -> (name, {param id: (name, bitwidth)}): the actions entries may run
        self.actions = {aid: (actions[aid].preamble.name, action_params[aid])
                        for aid, scope in table.actions.items() if scope != DEFAULT_ONLY}
        # action id -> its parameter ids in P4Info order, the order reads encode them in
        self.param_order = {aid: tuple(by_id) for aid, (_, by_id) in self.actions.items()}
        # every value the decoder takes is checked against a width, as the table checks it
        self.checks_all = all(w for _, by_id in self.actions.values()
                              for _, w in by_id.values())
        # what the P4Info says the table checks, in the form of Target.table_checks
        self.claims = ([(KINDS.get(f.match_type), f.bitwidth) for f in table.fields],
                       {name: sorted(by_id.values()) for name, by_id in self.actions.values()},
                       bool(table.profile_id))
        self.metadata_limit = metadata_limit

    def checks_as(self, table_checks: tuple) -> bool:
        """Does the decoder check what the target's table checks (``table_checks``, from
        ``Target.table_checks``), so an entry it accepts needs no second check? Not when
        a client's P4Info gives other widths, kinds or actions than the program has."""
        return self.checks_all and self.claims == table_checks

    def decode(self, msg, update_type: int) -> E.TableEntry | None:
        """The entry ``msg`` writes, or None when the general conversion must decide."""
        return self.decode_insert(msg, update_type)[0]

    def decode_insert(self, msg, update_type: int) -> tuple:
        """(the entry ``msg`` writes or None, whether ``msg`` serialised is the encoding
        of that entry a read returns)."""
        if (not self.plain or msg.is_default_action or msg.is_const
                or msg.idle_timeout_ns or len(msg.metadata) > self.metadata_limit):
            return NOT_PLAIN
        if update_type != DELETE:
            has = msg.HasField
            if has("counter_data") or has("meter_config") or has("meter_counter_data") \
                    or has("time_since_last_hit"):
                return NOT_PLAIN
        match = [None] * self.size
        fields = self.fields
        canonical, last = not (msg.controller_metadata or msg.metadata), -1
        for fm in msg.match:
            spec = fields.get(fm.field_id)
            if spec is None:
                return NOT_PLAIN
            pos, kind, width = spec
            if match[pos] is not None or fm.WhichOneof("field_match_type") != kind:
                return NOT_PLAIN
            if kind == "exact":
                data = fm.exact.value
                value = int.from_bytes(data, "big")
                if not data or value >> width:
                    return NOT_PLAIN
                match[pos] = E.Exact(value)
            else:
                lpm = fm.lpm
                data, plen = lpm.value, lpm.prefix_len
                value = int.from_bytes(data, "big")
                if (not data or value >> width or not 0 < plen <= width
                        or value & ((1 << width) - 1 >> plen)):
                    return NOT_PLAIN
                match[pos] = E.Lpm(value, plen)
            if pos < last or data[0] == 0 < len(data) - 1:
                canonical = False
            last = pos
        for pos in self.exact:
            if match[pos] is None:
                return NOT_PLAIN
        priority = msg.priority
        if (priority <= 0) if self.needs_priority else priority:
            return NOT_PLAIN
        if update_type == DELETE:
            return E.TableEntry(self.name, tuple(match), E.ActionCall(""), priority), False
        action = msg.action
        if action.WhichOneof("type") != "action":
            return NOT_PLAIN
        action = action.action
        aid = action.action_id
        spec = self.actions.get(aid)
        if spec is None:
            return NOT_PLAIN
        name, by_id = spec
        params, order = {}, []
        for p in action.params:
            pid = p.param_id
            info = by_id.get(pid)
            if info is None:
                return NOT_PLAIN
            pname, width = info
            data = p.value
            value = int.from_bytes(data, "big")
            if pname in params or not data or width and value >> width:
                return NOT_PLAIN
            params[pname] = value
            order.append(pid)
            if data[0] == 0 < len(data) - 1:
                canonical = False
        if len(params) != len(by_id):
            return NOT_PLAIN
        canonical = canonical and tuple(order) == self.param_order[aid]
        return (E.TableEntry(self.name, tuple(match), E.ActionCall(name, params), priority),
                canonical)
