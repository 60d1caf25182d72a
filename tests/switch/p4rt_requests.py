"""WriteRequests over every entity type of a program, for the P4Runtime server's
property tests: ids from the P4Info or not, values that fit their width or overflow it,
padded and empty byte strings, negative and huge numbers, fields a table lacks. Most
updates are well formed (``mostly``), so most are accepted.

``FEATURES_PROGRAM`` (tests/switch/data/p4info_features.p4) has every entity type;
``TRANSLATED_PROGRAMS`` hold @p4runtime_translation types, sent with the controller's
mapping: their translated values are mostly the mapping's controller values, else any
value of the controller's width or any string, which the server must refuse."""
import json
from dataclasses import dataclass
from pathlib import Path

from hypothesis import strategies as st
from p4.config.v1 import p4info_pb2
from p4.tmp import p4config_pb2
from p4.v1 import p4runtime_pb2 as pb

from testbed.p4 import p4info
from testbed.p4.lowering.program import load_program
from testbed.p4runtime import convert as C

DATA = Path(__file__).parent / "data"


@dataclass(frozen=True)
class Program:
    path: Path
    info: p4info_pb2.P4Info
    index: C.P4InfoIndex
    config: bytes           # the device config sent with the pipeline
    controller: dict        # translated type name -> its mapping's controller values


def program(path: Path, **mappings) -> Program:
    """``path``'s program; ``mappings``: type name -> [[controller, data-plane], ...]."""
    info = p4info.build(load_program(path))
    wrapper = p4config_pb2.P4DeviceConfig(device_data=path.read_bytes())
    controller = {}
    for name, pairs in mappings.items():
        uri = info.type_info.new_types[name].translated_type.uri
        wrapper.extras.kv[f"p4runtime_translation:{uri}"] = json.dumps(pairs)
        controller[name] = [c.encode() if isinstance(c, str) else C.encode(c) for c, _ in pairs]
    return Program(path, info, C.P4InfoIndex(info),
                   wrapper.SerializeToString() if mappings else path.read_bytes(), controller)


FEATURES = DATA / "p4info_features.p4"
FEATURES_PROGRAM = program(FEATURES)
INFO, INDEX = FEATURES_PROGRAM.info, FEATURES_PROGRAM.index
_PORTS, _VRFS = [[1000, 1], [2000, 2], [3000, 3]], [["blue", 7], ["red", 9]]
TRANSLATED_PROGRAMS = [program(DATA / "translation.p4", port_t=_PORTS, vrf_t=_VRFS),
                       program(DATA / "translation_const.p4", port_t=_PORTS, vrf_t=_VRFS)]
MF = p4info_pb2.MatchField
KINDS = {MF.EXACT: "exact", MF.LPM: "lpm", MF.TERNARY: "ternary", MF.RANGE: "range",
         MF.OPTIONAL: "optional"}
MODIFY_ONLY = ("register_entry", "counter_entry", "meter_entry", "direct_meter_entry",
               "direct_counter_entry", "value_set_entry")


def mostly(good, bad):
    """``good`` about nine times in ten, else ``bad``: most updates should be accepted.
    (A draw of 7 picks ``bad``: Hypothesis favours the ends of a range.)"""
    return st.integers(0, 9).flatmap(lambda i: bad if i == 7 else good)


INT64 = mostly(st.integers(0, 10 ** 9), st.sampled_from([-1, 2 ** 63 - 1]))
UINT32 = st.sampled_from([0, 1, 511, 512, 65535, 65536, 2 ** 32 - 1])


def value(width: int):
    """Byte strings for a ``width``-bit field: fitting (minimal or padded), overflowing,
    empty."""
    nbytes = max((width + 7) // 8, 1)
    fitting = st.integers(0, 2 ** width - 1).map(C.encode)
    padded = st.integers(0, 2 ** width - 1).map(lambda v: v.to_bytes(nbytes, "big"))
    return mostly(st.one_of(fitting, padded),
                  st.one_of(st.binary(max_size=nbytes + 2), st.just(b"\x01" * (nbytes + 4))))


def item_value(prog: Program, item):
    """Values for a match field, parameter or metadata: a translated one's are mostly its
    mapping's controller values."""
    known = prog.controller.get(item.type_name.name)
    if known is None:
        return value(item.bitwidth)
    other = value(item.bitwidth) if item.bitwidth else st.binary(max_size=6)
    return mostly(st.sampled_from(known), other)


@st.composite
def field_matches(draw, fields, prog: Program = FEATURES_PROGRAM):
    out = []
    for mf in fields:
        if mf.match_type != MF.EXACT and draw(st.booleans()):
            continue                                            # don't care
        kind = draw(mostly(st.just(KINDS[mf.match_type]), st.sampled_from(list(KINDS.values()))))
        fm = pb.FieldMatch(field_id=draw(mostly(st.just(mf.id), st.just(99))))
        w = mf.bitwidth or 8            # a string (width 0) matched other than exact
        full = 2 ** w - 1
        if kind in ("exact", "optional"):
            getattr(fm, kind).value = draw(item_value(prog, mf))
        elif kind == "lpm":
            fm.lpm.prefix_len = draw(mostly(st.integers(1, w), st.sampled_from([-1, 0, w + 1])))
            shift = max(w - fm.lpm.prefix_len, 0)
            prefix = st.integers(0, full).map(lambda v: C.encode(v >> shift << shift))
            fm.lpm.value = draw(mostly(prefix, value(w)))
        elif kind == "ternary":
            mask = draw(st.integers(0, full))
            ternary = st.integers(0, full).map(lambda v: (C.encode(v & mask), C.encode(mask)))
            fm.ternary.value, fm.ternary.mask = draw(mostly(ternary, st.tuples(value(w),
                                                                                value(w))))
        else:
            bounds = st.lists(st.integers(0, full), min_size=2, max_size=2).map(
                lambda b: tuple(C.encode(v) for v in sorted(b)))
            fm.range.low, fm.range.high = draw(mostly(bounds, st.tuples(value(w), value(w))))
        out.append(fm)
    return out


@st.composite
def actions(draw, table, prog: Program = FEATURES_PROGRAM):
    index = prog.index
    refs = [index.actions[r.id] for r in table.action_refs]
    a = draw(mostly(st.sampled_from(refs), st.sampled_from(list(index.actions.values()))))
    out = pb.Action(action_id=a.preamble.id)
    for p in a.params:
        if draw(st.integers(0, 19)):
            out.params.add(param_id=p.id, value=draw(item_value(prog, p)))
    return out


@st.composite
def table_entries(draw, prog: Program = FEATURES_PROGRAM):
    t = draw(st.sampled_from(list(prog.info.tables)))
    te = pb.TableEntry(table_id=t.preamble.id, is_default_action=draw(st.integers(0, 5)) == 0)
    if not te.is_default_action or draw(st.integers(0, 5)) == 0:
        te.match.extend(draw(field_matches(t.match_fields, prog)))
    needs = prog.index.tables[t.preamble.id].needs_priority and not te.is_default_action
    te.priority = draw(mostly(st.integers(1, 100) if needs else st.just(0),
                              st.sampled_from([0, 1, 2 ** 31 - 1, -1])))
    if draw(st.integers(0, 19)):
        if t.implementation_id and not te.is_default_action and draw(st.integers(0, 4)):
            indirect_action(draw, t, te.action, prog)
        else:
            te.action.action.CopyFrom(draw(actions(t, prog)))
    extra = draw(st.sampled_from([None] * 12 + ["idle", "meter", "meter", "counter",
                                                "metadata", "metadata", "const", "colors"]))
    if extra == "idle":
        te.idle_timeout_ns = draw(INT64)
    elif extra == "meter":
        te.meter_config.CopyFrom(draw(meter_configs()))
    elif extra == "counter":
        te.counter_data.packet_count, te.counter_data.byte_count = draw(INT64), draw(INT64)
    elif extra == "metadata":
        te.metadata = draw(mostly(st.binary(max_size=8), st.just(bytes(5000))))
        te.controller_metadata = draw(st.integers(0, 2 ** 64 - 1))
    elif extra == "const":
        te.is_const = True
    elif extra == "colors":
        te.meter_counter_data.green.packet_count = draw(st.sampled_from([0, 3]))
    return pb.Entity(table_entry=te)


MEMBER_IDS = st.sampled_from([1, 2, 3, 4, 2 ** 32 - 1])


def indirect_action(draw, table, out: pb.TableAction, prog: Program) -> None:
    """A member, a group or a one-shot action set for an indirect table."""
    kind = draw(st.sampled_from(["member", "member", "group", "group", "one-shot"]))
    if kind == "member":
        out.action_profile_member_id = draw(MEMBER_IDS)
    elif kind == "group":
        out.action_profile_group_id = draw(MEMBER_IDS)
    else:
        for _ in range(draw(st.integers(0, 3))):
            a = out.action_profile_action_set.action_profile_actions.add(
                weight=draw(mostly(st.integers(1, 3), st.sampled_from([0, -1, 9]))))
            a.action.CopyFrom(draw(actions(table, prog)))


def profile_of(draw, prog: Program):
    return draw(mostly(st.sampled_from([p.preamble.id for p in prog.info.action_profiles]),
                       st.sampled_from([0, 12345])))


@st.composite
def profile_entries(draw, prog: Program = FEATURES_PROGRAM):
    """Members (the profile's tables' actions, mostly) and groups of either profile."""
    profile_id = profile_of(draw, prog)
    info = prog.index.action_profiles.get(profile_id)
    table = prog.index.tables[info.table_ids[0]] if info is not None else None
    refs = [prog.info.tables[0]] if table is None else [
        t for t in prog.info.tables if t.preamble.id == table.id]
    if draw(st.booleans()):
        m = pb.ActionProfileMember(action_profile_id=profile_id, member_id=draw(MEMBER_IDS))
        m.action.CopyFrom(draw(actions(refs[0], prog)))
        return pb.Entity(action_profile_member=m)
    g = pb.ActionProfileGroup(action_profile_id=profile_id, group_id=draw(MEMBER_IDS),
                              max_size=draw(mostly(st.integers(0, 4), st.sampled_from([-1, 99]))))
    for mid in draw(st.lists(MEMBER_IDS, max_size=4)):
        gm = g.members.add(member_id=mid, weight=draw(mostly(st.integers(1, 2),
                                                             st.sampled_from([0, -3]))))
        if draw(st.integers(0, 3)) == 0:
            gm.watch_port = draw(value(9))
    return pb.Entity(action_profile_group=g)


@st.composite
def meter_configs(draw):
    return pb.MeterConfig(cir=draw(INT64), cburst=draw(INT64), pir=draw(INT64),
                          pburst=draw(INT64), eburst=draw(st.sampled_from([0, 0, 0, 5])))


@st.composite
def replicas(draw):
    out = []
    for _ in range(draw(st.integers(0, 3))):
        r = pb.Replica(instance=draw(mostly(st.integers(0, 65535), UINT32)))
        if draw(st.booleans()):
            r.egress_port = draw(mostly(st.integers(0, 511), UINT32))
        else:
            r.port = draw(mostly(value(9), st.just((2 ** 32).to_bytes(5, "big"))))
        out.append(r)
    return out


@st.composite
def pre_entries(draw):
    pre = pb.PacketReplicationEngineEntry()
    if draw(st.booleans()):
        mg = pre.multicast_group_entry
        mg.multicast_group_id = draw(mostly(st.integers(1, 65535), UINT32))
        mg.replicas.extend(draw(replicas()))
        mg.metadata = draw(mostly(st.binary(max_size=8), st.just(bytes(5000))))
    else:
        cs = pre.clone_session_entry
        cs.session_id = draw(mostly(st.integers(1, 2 ** 32 - 1), UINT32))
        cs.replicas.extend(draw(replicas()))
        cs.class_of_service = draw(UINT32)
        cs.packet_length_bytes = draw(mostly(st.sampled_from([0, 64]), st.just(-1)))
    return pb.Entity(packet_replication_engine_entry=pre)


def _id_of(items):
    """Mostly the id of one of ``items`` (when there are any), else an id of none."""
    if not items:
        return st.just(0x09000001)
    return mostly(st.sampled_from([i.preamble.id for i in items]), st.just(0x09000001))


def _index(size):
    return mostly(st.one_of(st.none(), st.integers(0, size - 1)), st.sampled_from([-1, size]))


@st.composite
def indexed_entries(draw, prog: Program = FEATURES_PROGRAM):
    info = prog.info
    kind = draw(st.sampled_from(["register", "counter", "meter"]))
    items = {"register": info.registers, "counter": info.counters, "meter": info.meters}[kind]
    obj_id = draw(_id_of(items))
    msg = getattr(pb, f"{kind.title()}Entry")(**{f"{kind}_id": obj_id})
    size = {i.preamble.id: i.size for i in items}.get(obj_id, 4)
    i = draw(_index(size))
    if i is not None:
        msg.index.index = i
    if kind == "register":
        width = {r.preamble.id: prog.index.register_width(r) for r in items}.get(obj_id, 32)
        msg.data.bitstring = draw(value(width))
    elif kind == "counter":
        msg.data.packet_count, msg.data.byte_count = draw(INT64), draw(INT64)
    else:
        msg.config.CopyFrom(draw(meter_configs()))
    return pb.Entity(**{f"{kind}_entry": msg})


@st.composite
def other_entries(draw, prog: Program = FEATURES_PROGRAM):
    info = prog.info
    kind = draw(st.sampled_from(["digest", "direct_meter", "direct_counter"]
                                + ["value_set"] * bool(info.value_sets)
                                + ["profile", "profile"] * bool(info.action_profiles)))
    if kind == "profile":
        return draw(profile_entries(prog))
    if kind == "value_set":
        vs = draw(st.sampled_from(list(info.value_sets)))
        msg = pb.ValueSetEntry(value_set_id=vs.preamble.id)
        for _ in range(draw(st.integers(0, 3))):
            msg.members.add().match.extend(draw(field_matches(vs.match, prog)))
        return pb.Entity(value_set_entry=msg)
    if kind == "digest":
        msg = pb.DigestEntry(digest_id=draw(_id_of(info.digests)))
        msg.config.max_timeout_ns, msg.config.ack_timeout_ns = draw(INT64), draw(INT64)
        msg.config.max_list_size = draw(st.sampled_from([0, 1, -1]))
        return pb.Entity(digest_entry=msg)
    te = draw(table_entries(prog)).table_entry
    msg = getattr(pb, "DirectMeterEntry" if kind == "direct_meter" else "DirectCounterEntry")(
        table_entry=te)
    if kind == "direct_meter":
        msg.config.CopyFrom(draw(meter_configs()))
    else:
        msg.data.packet_count = draw(INT64)
    return pb.Entity(**{f"{kind}_entry": msg})


@st.composite
def write_requests(draw, prog: Program = FEATURES_PROGRAM):
    req = pb.WriteRequest(device_id=1, role=draw(st.sampled_from([""] * 19 + ["ctl-2"])),
                          atomicity=draw(mostly(st.just(0), st.just(1))))
    entities = st.one_of(table_entries(prog), table_entries(prog), pre_entries(),
                         indexed_entries(prog), other_entries(prog))
    for _ in range(draw(st.integers(1, 3))):
        entity = draw(entities)
        modify_only = entity.WhichOneof("entity") in MODIFY_ONLY
        usual = st.just(pb.Update.MODIFY) if modify_only else st.sampled_from([1, 1, 2, 3])
        u = req.updates.add(type=draw(mostly(usual, st.sampled_from([0, 1, 2, 3]))))
        u.entity.CopyFrom(entity)
    return req
