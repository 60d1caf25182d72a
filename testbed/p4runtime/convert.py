"""Translation between P4Runtime messages and the control-plane objects of
``testbed.p4.entries``, driven by a P4Info: the one translation both sides use, the
switch's P4Runtime server (``testbed.switch.p4runtime_server``) and the controllers'
client (``controllers.p4runtime_client``), so neither imports the other.

Byte strings follow P4Runtime 1.x: values are big-endian, and both the minimal
encoding and one padded to the field's width are accepted; a value that does not fit
the bitwidth is rejected with OUT_OF_RANGE. Messages built here carry the minimal
(canonical) encoding.

Every value a write carries is checked here against its declared width or range, so
that whatever is accepted can be read back: v1model's ports are 9 bits, replica
instances (egress_rid) and multicast group ids 16 bits. Error messages show at most a
short prefix of a value and its length, never the whole value.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from p4.config.v1 import p4info_pb2
from p4.v1 import p4data_pb2, p4runtime_pb2

from testbed.p4 import entries as E
from testbed.p4runtime.entry_decoder import EntryDecoder

MF = p4info_pb2.MatchField
SCOPE = p4info_pb2.ActionRef
U = p4runtime_pb2.Update
PORT_BITS = 9                 # v1model: standard_metadata.egress_spec / egress_port
INSTANCE_BITS = 16            # v1model: standard_metadata.egress_rid
GROUP_BITS = 16               # v1model: standard_metadata.mcast_grp
METADATA_LIMIT = 4096         # bytes of opaque controller metadata kept per entry
SHOWN_BYTES = 8               # of a value quoted in an error message


def fail(code: str, message: str):
    raise E.ControlPlaneError(code, message)


def show_bytes(data: bytes) -> str:
    """A byte string for an error message: whole when short, else its first bytes and
    its length."""
    if len(data) <= SHOWN_BYTES:
        return f"0x{data.hex()}"
    return f"0x{data[:SHOWN_BYTES].hex()}... ({len(data)} bytes)"


def decode(data: bytes, bitwidth: int, what: str) -> int:
    """The unsigned value of a P4Runtime byte string for a ``bitwidth``-bit field."""
    if not data:
        fail("INVALID_ARGUMENT", f"{what}: empty byte string; send at least one byte")
    value = int.from_bytes(data, "big")
    if bitwidth and value >> bitwidth:
        fail("OUT_OF_RANGE", f"{what}: value {show_bytes(data)} does not fit in {bitwidth} "
                             "bits; send a smaller value")
    return value


def check_range(value: int, low: int, high: int, what: str,
                code: str = "OUT_OF_RANGE") -> int:
    """``value`` if it lies in low..high, else fail with ``code``."""
    if not low <= value <= high:
        fail(code, f"{what} {value} is outside {low}..{high}; send a value in that range")
    return value


def check_metadata(data: bytes, what: str) -> bytes:
    """Opaque metadata is stored and returned by reads: keep it small."""
    if len(data) > METADATA_LIMIT:
        fail("OUT_OF_RANGE", f"{what}: metadata of {len(data)} bytes is over the "
                             f"{METADATA_LIMIT}-byte limit; keep a key to your own store")
    return data


def entry_size_bound(index: P4InfoIndex, table: TableInfo) -> int:
    """An upper bound on the encoded bytes of one of ``table``'s entries, opaque metadata
    excepted: what a read may count per entry instead of measuring each."""
    keys = sum(2 * ((f.bitwidth + 7) // 8) + 24 for f in table.fields)
    params = max((sum((p.bitwidth + 7) // 8 + 16 for p in index.actions[a].params)
                  for a in table.actions), default=0)
    return 160 + keys + params         # ids, priority, flags, counters, meter, wrappers


def encode(value: int) -> bytes:
    """The canonical (shortest) byte string of ``value``."""
    return value.to_bytes(max((value.bit_length() + 7) // 8, 1), "big")


@dataclass
class TableInfo:
    id: int
    name: str
    fields: list                               # [p4info MatchField] in key order
    actions: dict                              # action id -> ActionRef scope
    const_default_action_id: int
    is_const: bool
    direct_counter: str | None = None
    direct_meter: str | None = None
    needs_priority: bool = False
    idle_timeout: bool = False                 # the P4Info asks for idle-timeout notifications
    field_index: dict = field(default_factory=dict)   # field id -> position
    profile_id: int = 0                        # its action profile's id: an indirect table


class P4InfoIndex:
    """Id <-> name lookups over one P4Info message."""

    def __init__(self, p4info: p4info_pb2.P4Info):
        self.p4info = p4info
        self.actions = {a.preamble.id: a for a in p4info.actions}
        # action id -> {param id: (name, bitwidth)}, read once: the write path's lookups
        self.action_params = {a.preamble.id: {p.id: (p.name, p.bitwidth) for p in a.params}
                              for a in p4info.actions}
        self.action_ids = {a.preamble.name: a.preamble.id for a in p4info.actions}
        direct = {}
        for kind, items in (("counter", p4info.direct_counters), ("meter", p4info.direct_meters)):
            for d in items:
                direct[(kind, d.direct_table_id)] = d.preamble.name
        self.tables: dict[int, TableInfo] = {}
        self.table_ids: dict[str, int] = {}
        for t in p4info.tables:
            info = TableInfo(
                t.preamble.id, t.preamble.name, list(t.match_fields),
                {r.id: r.scope for r in t.action_refs}, t.const_default_action_id,
                t.is_const_table, direct.get(("counter", t.preamble.id)),
                direct.get(("meter", t.preamble.id)),
                any(f.match_type in (MF.TERNARY, MF.RANGE, MF.OPTIONAL) for f in t.match_fields),
                t.idle_timeout_behavior != p4info_pb2.Table.NO_TIMEOUT)
            info.field_index = {f.id: i for i, f in enumerate(t.match_fields)}
            info.profile_id = t.implementation_id
            self.tables[info.id] = info
            self.table_ids[info.name] = info.id
        # table id -> its decoder of plain entry writes, the write path's fast way in
        self.decoders = {tid: EntryDecoder(t, self.actions, self.action_params, METADATA_LIMIT)
                         for tid, t in self.tables.items()}
        self.direct_counters = {d.preamble.id: d for d in p4info.direct_counters}
        self.direct_meters = {d.preamble.id: d for d in p4info.direct_meters}
        self.counters = {c.preamble.id: c for c in p4info.counters}
        self.meters = {m.preamble.id: m for m in p4info.meters}
        self.registers = {r.preamble.id: r for r in p4info.registers}
        self.digests = {d.preamble.id: d for d in p4info.digests}
        self.value_sets = {v.preamble.id: v for v in p4info.value_sets}
        self.action_profiles = {a.preamble.id: a for a in p4info.action_profiles}
        self.action_profile_ids = {a.preamble.name: a.preamble.id for a in p4info.action_profiles}
        self.controller = {c.preamble.name: c for c in p4info.controller_packet_metadata}

    def table(self, table_id: int) -> TableInfo:
        if table_id not in self.tables:
            fail("NOT_FOUND", f"table id {table_id} is not in the P4Info")
        return self.tables[table_id]

    def lookup(self, kind: str, obj_id: int):
        items = getattr(self, kind)
        if obj_id not in items:
            fail("NOT_FOUND", f"{kind[:-1].replace('_', ' ')} id {obj_id} is not in the P4Info")
        return items[obj_id]

    def register_width(self, reg) -> int:
        spec = reg.type_spec.bitstring
        if reg.type_spec.WhichOneof("type_spec") == "new_type":     # a `type`: its own bits
            spec = self.p4info.type_info.new_types[reg.type_spec.new_type.name] \
                .original_type.bitstring
        kind = spec.WhichOneof("type_spec")
        if kind in ("bit", "int"):
            return getattr(spec, kind).bitwidth
        fail("UNIMPLEMENTED", f"register {reg.preamble.name}: only bit<W> and int<W> "
                              "registers can be read and written")


# ---------------------------------------------------------------- matches
MATCH_KINDS = {MF.EXACT: "exact", MF.LPM: "lpm", MF.TERNARY: "ternary", MF.RANGE: "range",
               MF.OPTIONAL: "optional"}


def _match_from(fm: p4runtime_pb2.FieldMatch, mf, where: str) -> E.Match:
    kind = fm.WhichOneof("field_match_type")
    w = mf.bitwidth
    expected = MATCH_KINDS.get(mf.match_type)
    if kind != expected:
        fail("INVALID_ARGUMENT", f"{where}: field {mf.name} is matched with {expected}, "
                                 f"the request gives {kind}")
    if kind == "exact":
        data = fm.exact.value
        value = int.from_bytes(data, "big")
        if data and not value >> w:
            return E.Exact(value)             # the common case; decode names what is wrong
    mask_all = (1 << w) - 1
    what = f"{where}: field {mf.name}"
    if kind == "exact":
        return E.Exact(decode(fm.exact.value, w, what))
    if kind == "optional":
        return E.Optional_(decode(fm.optional.value, w, what))
    if kind == "lpm":
        plen = fm.lpm.prefix_len
        if not 0 < plen <= w:
            fail("INVALID_ARGUMENT", f"{what}: prefix length {plen} is outside 1..{w} "
                                     "(omit the field for a /0 match)")
        value = decode(fm.lpm.value, w, what)
        if value & (mask_all >> plen):
            fail("INVALID_ARGUMENT", f"{what}: value has bits set beyond the /{plen} prefix; "
                                     "clear the masked-off bits")
        return E.Lpm(value, plen)
    if kind == "ternary":
        value = decode(fm.ternary.value, w, what)
        mask = decode(fm.ternary.mask, w, f"{what} mask")
        if mask == 0:
            fail("INVALID_ARGUMENT", f"{what}: mask is 0; omit the field for a wildcard")
        if value & ~mask:
            fail("INVALID_ARGUMENT", f"{what}: value has bits set outside the mask "
                                     "(value & ~mask must be 0)")
        return E.Ternary(value, mask)
    low = decode(fm.range.low, w, f"{what} low")
    high = decode(fm.range.high, w, f"{what} high")
    if low > high:
        fail("INVALID_ARGUMENT", f"{what}: range low {low} is above high {high}")
    if low == 0 and high == mask_all:
        fail("INVALID_ARGUMENT", f"{what}: the range covers every value; omit the field")
    return E.Range(low, high)


def _match_to(m: E.Match, mf, out: p4runtime_pb2.FieldMatch) -> None:
    out.field_id = mf.id
    if isinstance(m, E.Exact):
        out.exact.value = encode(m.value)
    elif isinstance(m, E.Optional_):
        out.optional.value = encode(m.value)
    elif isinstance(m, E.Lpm):
        out.lpm.value = encode(m.value)
        out.lpm.prefix_len = m.prefix_len
    elif isinstance(m, E.Ternary):
        out.ternary.value = encode(m.value)
        out.ternary.mask = encode(m.mask)
    else:
        out.range.low = encode(m.low)
        out.range.high = encode(m.high)


def _is_wildcard(m: E.Match, mf) -> bool:
    """Target objects may spell a don't-care as a match that covers everything."""
    full = (1 << mf.bitwidth) - 1
    return (m is None or isinstance(m, E.Lpm) and m.prefix_len == 0
            or isinstance(m, E.Ternary) and m.mask == 0
            or isinstance(m, E.Range) and m.low == 0 and m.high == full)


def match_from_p4rt(table: TableInfo, fields, where: str) -> tuple:
    """One Match per key of ``table`` (None where the request omits a field)."""
    out: list = [None] * len(table.fields)
    seen = set()
    for fm in fields:
        if fm.field_id not in table.field_index:
            fail("INVALID_ARGUMENT", f"{where}: table {table.name} has no match field "
                                     f"id {fm.field_id}")
        if fm.field_id in seen:
            fail("INVALID_ARGUMENT", f"{where}: match field id {fm.field_id} given twice")
        seen.add(fm.field_id)
        i = table.field_index[fm.field_id]
        out[i] = _match_from(fm, table.fields[i], where)
    for i, mf in enumerate(table.fields):
        if out[i] is None and mf.match_type == MF.EXACT:
            fail("INVALID_ARGUMENT", f"{where}: exact match field {mf.name} is missing")
    return tuple(out)


def value_set_from_p4rt(vs, members) -> list:
    """The members of a ValueSetEntry as tuples of Match, one per field of the value set
    (``vs`` is its P4Info ValueSet)."""
    fields = TableInfo(vs.preamble.id, vs.preamble.name, list(vs.match), {}, 0, False,
                       field_index={m.id: i for i, m in enumerate(vs.match)})
    where = f"value set {vs.preamble.name}"
    out = [match_from_p4rt(fields, m.match, where) for m in members]
    if len(set(out)) != len(out):
        fail("ALREADY_EXISTS", f"{where}: a member is given twice; list each once")
    return out


# ---------------------------------------------------------------- actions
def action_from_p4rt(index: P4InfoIndex, action: p4runtime_pb2.Action, where: str) -> E.ActionCall:
    a = index.actions.get(action.action_id)
    if a is None:
        fail("INVALID_ARGUMENT", f"{where}: action id {action.action_id} is not in the P4Info")
    by_id = index.action_params[action.action_id]
    params = {}
    for p in action.params:
        info = by_id.get(p.param_id)
        if info is None:
            fail("INVALID_ARGUMENT", f"{where}: action {a.preamble.name} has no parameter "
                                     f"id {p.param_id}")
        name, width = info
        if name in params:
            fail("INVALID_ARGUMENT", f"{where}: parameter {name} given twice")
        data = p.value
        value = int.from_bytes(data, "big")
        if not data or width and value >> width:     # decode's checks, its message lazily
            decode(data, width, f"{where}: {a.preamble.name} parameter {name}")
        params[name] = value
    if len(params) != len(by_id):
        missing = [p.name for p in a.params if p.name not in params]
        fail("INVALID_ARGUMENT", f"{where}: action {a.preamble.name} needs parameter(s) "
                                 f"{', '.join(missing)}")
    return E.ActionCall(a.preamble.name, params)


def action_to_p4rt(index: P4InfoIndex, call: E.ActionCall, out: p4runtime_pb2.Action) -> None:
    aid = index.action_ids[call.action]
    out.action_id = aid
    params = call.params
    for pid, (name, _) in index.action_params[aid].items():
        p = out.params.add()
        p.param_id = pid
        p.value = encode(params.get(name, 0))


# ---------------------------------------------------------------- table entries
def table_entry_from_p4rt(index: P4InfoIndex, msg: p4runtime_pb2.TableEntry,
                          update_type: int | None = None) -> E.TableEntry:
    """A TableEntry (or, for ``is_default_action``, the default action as an entry with an
    empty match) after every P4Runtime validity check that needs only the P4Info.
    ``update_type`` is None for the filter of a read; a DELETE considers only the key."""
    table = index.table(msg.table_id)
    where = f"table {table.name}"
    if update_type is not None:
        _check_written_fields(table, msg, update_type, where)
    if msg.is_default_action:
        if msg.match:
            fail("INVALID_ARGUMENT", f"{where}: the default entry has no match fields")
        if msg.priority:
            fail("INVALID_ARGUMENT", f"{where}: the default entry has no priority; leave "
                                     "priority 0")
        if update_type in (U.INSERT, U.DELETE):
            fail("INVALID_ARGUMENT", f"{where}: the default entry can only be modified")
        match, priority = (), 0
    else:
        if not table.fields and update_type == U.INSERT:
            fail("INVALID_ARGUMENT", f"{where}: the table has no match key, so it holds only "
                                     "its default entry; MODIFY that (is_default_action)")
        match = match_from_p4rt(table, msg.match, where)
        priority = msg.priority
        if table.needs_priority and priority <= 0 and update_type is not None:
            fail("INVALID_ARGUMENT", f"{where}: entries of a table with ternary, range or "
                                     "optional fields need a priority > 0")
        if not table.needs_priority and priority:
            fail("INVALID_ARGUMENT", f"{where}: the table has only exact/lpm fields, so the "
                                     "priority must be 0")
    if update_type == U.DELETE:
        return E.TableEntry(table.name, match, E.ActionCall(""), priority)
    call = E.ActionCall("")
    kind = msg.action.WhichOneof("type")
    if kind == "action":
        call = action_from_p4rt(index, msg.action.action, where)
        aid = msg.action.action.action_id
        if aid not in table.actions:
            fail("INVALID_ARGUMENT", f"{where}: action {call.action} is not one of the "
                                     "table's actions")
        scope = table.actions[aid]
        if msg.is_default_action and scope == SCOPE.TABLE_ONLY:
            fail("INVALID_ARGUMENT", f"{where}: action {call.action} is @tableonly and "
                                     "cannot be the default action")
        if not msg.is_default_action and scope == SCOPE.DEFAULT_ONLY:
            fail("INVALID_ARGUMENT", f"{where}: action {call.action} is @defaultonly and "
                                     "cannot be used by an entry")
    elif kind in ("action_profile_member_id", "action_profile_group_id"):
        if not table.profile_id:
            fail("INVALID_ARGUMENT", f"{where}: the table has no action profile, so its "
                                     f"entries name actions, not a {kind[15:-3]}")
        ref = getattr(msg.action, kind)
        call = (E.MemberRef(ref) if kind == "action_profile_member_id" else E.GroupRef(ref))
    elif kind is not None:
        if not table.profile_id:
            fail("INVALID_ARGUMENT", f"{where}: the table has no action profile, so its "
                                     "entries name actions, not a one-shot action set")
        call = _action_set_from(index, msg.action.action_profile_action_set, where)
    elif not msg.is_default_action and update_type in (U.INSERT, U.MODIFY):
        fail("INVALID_ARGUMENT", f"{where}: the entry needs an action")
    entry = E.TableEntry(table.name, match, call, priority)
    if msg.HasField("counter_data"):
        entry.counter_packets, entry.counter_bytes = counts_from_p4rt(msg.counter_data, where)
    if msg.HasField("meter_config"):
        entry.meter_config = meter_config_from_p4rt(msg.meter_config, where)
    return entry


def _check_written_fields(table: TableInfo, msg: p4runtime_pb2.TableEntry, update_type: int,
                          where: str) -> None:
    """What a write may not carry: read-only fields, and resources the table lacks."""
    if msg.is_const:
        fail("INVALID_ARGUMENT", f"{where}: is_const is set by reads only; leave it false")
    if update_type == U.DELETE:
        return
    if msg.HasField("time_since_last_hit"):
        fail("INVALID_ARGUMENT", f"{where}: time_since_last_hit is set by reads only; leave "
                                 "it unset")
    if msg.idle_timeout_ns:
        if msg.is_default_action or not table.idle_timeout:
            owner = "default entry" if msg.is_default_action else "table"
            fail("INVALID_ARGUMENT", f"{where}: the {owner} has no idle timeout; leave "
                                     "idle_timeout_ns 0")
        fail("UNIMPLEMENTED", f"{where}: the software target does not expire entries; leave "
                              "idle_timeout_ns 0")
    direct = (("counter_data", table.direct_counter, "direct counter"),
              ("meter_config", table.direct_meter, "direct meter"),
              ("meter_counter_data", table.direct_meter, "direct meter"))
    for name, resource, kind in direct:
        if not msg.HasField(name):
            continue
        if resource is None:
            fail("INVALID_ARGUMENT", f"{where}: the table has no {kind}; leave {name} unset")
        if msg.is_default_action:
            fail("UNIMPLEMENTED", f"{where}: the software target keeps no {kind} for the "
                                  f"default entry; leave {name} unset")
    if msg.HasField("meter_counter_data") and any(
            c.packet_count or c.byte_count for c in (msg.meter_counter_data.green,
                                                     msg.meter_counter_data.yellow,
                                                     msg.meter_counter_data.red)):
        fail("INVALID_ARGUMENT", f"{where}: per-color meter counters can only be reset; "
                                 "send zeros in meter_counter_data")
    if msg.is_default_action and (msg.metadata or msg.controller_metadata):
        fail("UNIMPLEMENTED", f"{where}: the software target keeps no metadata for the "
                              "default entry; leave metadata and controller_metadata unset")
    check_metadata(msg.metadata, where)


def counts_from_p4rt(data: p4runtime_pb2.CounterData, where: str) -> tuple:
    """(packets, bytes) of CounterData; counts are never negative."""
    for name in ("packet_count", "byte_count"):
        check_range(getattr(data, name), 0, 2 ** 63 - 1, f"{where}: {name}")
    return data.packet_count, data.byte_count


def meter_config_from_p4rt(c: p4runtime_pb2.MeterConfig, where: str) -> tuple:
    """(cir, cburst, pir, pburst) of a two-rate three-color meter (v1model's kind)."""
    for name in ("cir", "cburst", "pir", "pburst"):
        check_range(getattr(c, name), 0, 2 ** 63 - 1, f"{where}: meter {name}",
                    "INVALID_ARGUMENT")
    if c.eburst:
        fail("INVALID_ARGUMENT", f"{where}: v1model meters are two-rate and have no excess "
                                 "burst; leave eburst 0")
    if c.cir > c.pir:
        fail("INVALID_ARGUMENT", f"{where}: committed rate {c.cir} exceeds peak rate {c.pir}; "
                                 "give cir <= pir")
    return c.cir, c.cburst, c.pir, c.pburst


def table_entry_to_p4rt(index: P4InfoIndex, entry: E.TableEntry, is_default: bool = False,
                        out: p4runtime_pb2.TableEntry | None = None) -> p4runtime_pb2.TableEntry:
    """The P4Runtime form of ``entry``, filled into ``out`` (a new message when None)."""
    table = index.tables[index.table_ids[entry.table]]
    if out is None:
        out = p4runtime_pb2.TableEntry()
    out.table_id = table.id
    if entry.priority:
        out.priority = entry.priority
    if is_default:
        out.is_default_action = True
    for m, mf in zip(entry.match, table.fields):
        if not _is_wildcard(m, mf):
            _match_to(m, mf, out.match.add())
    if isinstance(entry.action, E.MemberRef):
        out.action.action_profile_member_id = entry.action.member_id
    elif isinstance(entry.action, E.GroupRef):
        out.action.action_profile_group_id = entry.action.group_id
    elif isinstance(entry.action, E.ActionSet):
        for call, weight, watch in entry.action.actions:
            pa = out.action.action_profile_action_set.action_profile_actions.add(weight=weight)
            action_to_p4rt(index, call, pa.action)
            if watch is not None:
                pa.watch_port = encode(watch)
    elif entry.action.action:
        action_to_p4rt(index, entry.action, out.action.action)
    if table.direct_counter and not is_default:
        out.counter_data.packet_count = entry.counter_packets
        out.counter_data.byte_count = entry.counter_bytes
    if table.direct_meter and entry.meter_config is not None and not is_default:
        cir, cburst, pir, pburst = entry.meter_config
        out.meter_config.CopyFrom(p4runtime_pb2.MeterConfig(cir=cir, cburst=cburst,
                                                            pir=pir, pburst=pburst))
    return out


def same_match(a: E.TableEntry, b: E.TableEntry, index: P4InfoIndex) -> bool:
    """Do two entries of one table have the same key, treating all don't-care spellings
    as equal?"""
    table = index.tables[index.table_ids[a.table]]
    if a.priority != b.priority:
        return False
    for ma, mb, mf in zip(a.match, b.match, table.fields):
        wa, wb = _is_wildcard(ma, mf), _is_wildcard(mb, mf)
        if wa != wb or not wa and ma != mb:
            return False
    return True


# ---------------------------------------------------------------- PRE
def _replica_port(r: p4runtime_pb2.Replica, where: str) -> int:
    kind = r.WhichOneof("port_kind")
    if kind == "port":
        return decode(r.port, PORT_BITS, f"{where}: replica port")
    if kind == "egress_port":
        return check_range(r.egress_port, 0, (1 << PORT_BITS) - 1, f"{where}: replica egress_port")
    fail("INVALID_ARGUMENT", f"{where}: a replica needs a port; set its port field")


def _replicas_from(replicas, where: str) -> list:
    out, seen = [], set()
    for r in replicas:
        port = _replica_port(r, where)
        check_range(r.instance, 0, (1 << INSTANCE_BITS) - 1, f"{where}: replica instance",
                    "INVALID_ARGUMENT")
        if (port, r.instance) in seen:
            fail("INVALID_ARGUMENT", f"{where}: replica (port {port}, instance {r.instance}) "
                                     "is listed twice")
        seen.add((port, r.instance))
        out.append(E.Replica(port, r.instance))
    return out


def multicast_group_from_p4rt(msg: p4runtime_pb2.MulticastGroupEntry) -> E.MulticastGroup:
    if msg.multicast_group_id == 0:
        fail("INVALID_ARGUMENT", "multicast group id 0 is reserved; use 1 or more")
    check_range(msg.multicast_group_id, 1, (1 << GROUP_BITS) - 1, "multicast group id")
    where = f"multicast group {msg.multicast_group_id}"
    return E.MulticastGroup(msg.multicast_group_id, _replicas_from(msg.replicas, where),
                            check_metadata(msg.metadata, where))


def multicast_group_to_p4rt(group: E.MulticastGroup) -> p4runtime_pb2.MulticastGroupEntry:
    out = p4runtime_pb2.MulticastGroupEntry(multicast_group_id=group.group_id,
                                            metadata=group.metadata)
    for r in group.replicas:
        out.replicas.add(egress_port=r.port, instance=r.rid)
    return out


def clone_session_from_p4rt(msg: p4runtime_pb2.CloneSessionEntry) -> E.CloneSession:
    if msg.session_id == 0:
        fail("INVALID_ARGUMENT", "clone session id 0 is reserved; use 1 or more")
    where = f"clone session {msg.session_id}"
    if msg.packet_length_bytes < 0:
        fail("INVALID_ARGUMENT", f"{where}: packet_length_bytes {msg.packet_length_bytes} is "
                                 "negative; give 0 (whole packets) or a length")
    return E.CloneSession(msg.session_id, _replicas_from(msg.replicas, where),
                          msg.class_of_service, msg.packet_length_bytes)


def clone_session_to_p4rt(session: E.CloneSession) -> p4runtime_pb2.CloneSessionEntry:
    out = p4runtime_pb2.CloneSessionEntry(session_id=session.session_id,
                                          class_of_service=session.class_of_service,
                                          packet_length_bytes=session.packet_length_bytes)
    for r in session.replicas:
        out.replicas.add(egress_port=r.port, instance=r.rid)
    return out


# ---------------------------------------------------------------- packet IO
def _metadata_fields(index: P4InfoIndex, name: str) -> list:
    header = index.controller.get(name)
    return list(header.metadata) if header is not None else []


def packet_out_frame(index: P4InfoIndex, msg: p4runtime_pb2.PacketOut) -> bytes:
    """The frame a PacketOut puts on the CPU port: the packet_out header built from the
    metadata (fields not given are 0), then the payload."""
    fields = _metadata_fields(index, "packet_out")
    by_id = {f.id: f for f in fields}
    values = {}
    for m in msg.metadata:
        if m.metadata_id not in by_id:
            fail("INVALID_ARGUMENT", f"packet_out has no metadata id {m.metadata_id}")
        f = by_id[m.metadata_id]
        values[f.id] = decode(m.value, f.bitwidth, f"packet_out metadata {f.name}")
    bits, acc = 0, 0
    for f in fields:
        acc = acc << f.bitwidth | values.get(f.id, 0)
        bits += f.bitwidth
    if bits % 8:
        fail("FAILED_PRECONDITION", f"the packet_out header is {bits} bits, not whole bytes; "
                                    "pad it in the P4 program")
    return (acc.to_bytes(bits // 8, "big") if bits else b"") + msg.payload


def packet_in_message(index: P4InfoIndex, frame: bytes) -> p4runtime_pb2.PacketIn:
    """Split a frame sent to the CPU port into packet_in metadata and payload."""
    fields = _metadata_fields(index, "packet_in")
    nbits = sum(f.bitwidth for f in fields)
    nbytes = (nbits + 7) // 8
    if not fields or len(frame) < nbytes:
        return p4runtime_pb2.PacketIn(payload=frame)
    acc = int.from_bytes(frame[:nbytes], "big") >> (nbytes * 8 - nbits)
    out = p4runtime_pb2.PacketIn(payload=frame[nbytes:])
    shift = nbits
    for f in fields:
        shift -= f.bitwidth
        out.metadata.add(metadata_id=f.id, value=encode(acc >> shift & ((1 << f.bitwidth) - 1)))
    return out


def digest_data(digest, values: tuple) -> p4data_pb2.P4Data:
    """P4Data of one digest message: a struct of bitstrings, or one bitstring."""
    data = p4data_pb2.P4Data()
    spec = digest.type_spec
    if spec.WhichOneof("type_spec") == "struct":
        for v in values:
            data.struct.members.add(bitstring=encode(v))
    elif len(values) == 1:
        data.bitstring = encode(values[0])
    else:
        for v in values:
            data.tuple.members.add(bitstring=encode(v))
    return data


# ---------------------------------------------------------------- action profiles
def profile_from_p4rt(index: P4InfoIndex, profile_id: int):
    """The P4Info ActionProfile of ``profile_id``."""
    return index.lookup("action_profiles", profile_id)


def member_from_p4rt(index: P4InfoIndex, msg: p4runtime_pb2.ActionProfileMember
                     ) -> E.ProfileMember:
    profile = profile_from_p4rt(index, msg.action_profile_id)
    where = f"action profile {profile.preamble.name} member {msg.member_id}"
    if not msg.HasField("action"):
        fail("INVALID_ARGUMENT", f"{where}: the member needs an action")
    return E.ProfileMember(msg.member_id, action_from_p4rt(index, msg.action, where))


def member_to_p4rt(index: P4InfoIndex, profile_id: int, m: E.ProfileMember
                   ) -> p4runtime_pb2.ActionProfileMember:
    out = p4runtime_pb2.ActionProfileMember(action_profile_id=profile_id,
                                            member_id=m.member_id)
    action_to_p4rt(index, m.action, out.action)
    return out


def group_from_p4rt(index: P4InfoIndex, msg: p4runtime_pb2.ActionProfileGroup
                    ) -> E.ProfileGroup:
    profile = profile_from_p4rt(index, msg.action_profile_id)
    where = f"action profile {profile.preamble.name} group {msg.group_id}"
    members = []
    for m in msg.members:
        kind = m.WhichOneof("watch_kind")
        watch = None
        if kind == "watch_port":
            watch = decode(m.watch_port, PORT_BITS, f"{where}: member {m.member_id} watch_port")
        elif kind == "watch" and m.watch:          # deprecated; 0 watches nothing
            watch = check_range(m.watch, 0, (1 << PORT_BITS) - 1,
                                f"{where}: member {m.member_id} watch")
        members.append(E.GroupMember(m.member_id, m.weight, watch))
    return E.ProfileGroup(msg.group_id, members, msg.max_size)


def group_to_p4rt(profile_id: int, g: E.ProfileGroup) -> p4runtime_pb2.ActionProfileGroup:
    out = p4runtime_pb2.ActionProfileGroup(action_profile_id=profile_id,
                                           group_id=g.group_id, max_size=g.max_size)
    for m in g.members:
        pm = out.members.add(member_id=m.member_id, weight=m.weight)
        if m.watch_port is not None:
            pm.watch_port = encode(m.watch_port)
    return out


def _action_set_from(index: P4InfoIndex, msg: p4runtime_pb2.ActionProfileActionSet,
                     where: str) -> E.ActionSet:
    actions = []
    for i, a in enumerate(msg.action_profile_actions):
        what = f"{where}: one-shot action {i}"
        kind = a.WhichOneof("watch_kind")
        watch = (decode(a.watch_port, PORT_BITS, f"{what} watch_port") if kind == "watch_port"
                 else check_range(a.watch, 0, (1 << PORT_BITS) - 1, f"{what} watch")
                 if kind == "watch" and a.watch else None)
        actions.append((action_from_p4rt(index, a.action, what), a.weight, watch))
    return E.ActionSet(tuple(actions))
