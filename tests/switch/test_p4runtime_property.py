"""Whatever the P4Runtime server accepts can be read back.

Hypothesis builds WriteRequests over every entity type of
tests/switch/data/p4info_features.p4: ids from the P4Info or not, values that fit their
width or overflow it, padded and empty byte strings, negative and huge numbers, fields a
table lacks. After every request, one wildcard Read of every entity type must succeed,
and the last update the server accepted must show in it (or, for a DELETE, be gone).
The counts are printed at the end (``pytest -s`` shows them).
"""
from collections import Counter
from pathlib import Path

import grpc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2 as pb

from controllers.p4runtime_client import P4RuntimeClient
from p4rt_client import batch_errors
from p4rt_device import PipelineDevice
from testbed.p4 import entries as E
from testbed.p4 import p4info
from testbed.p4.frontend import load_program
from testbed.p4runtime import convert as C
from testbed.switch.p4runtime import P4RuntimeServer

FEATURES = Path(__file__).parent / "data" / "p4info_features.p4"
INFO = p4info.build(load_program(FEATURES))
INDEX = C.P4InfoIndex(INFO)
MF = p4info_pb2.MatchField
KINDS = {MF.EXACT: "exact", MF.LPM: "lpm", MF.TERNARY: "ternary", MF.RANGE: "range",
         MF.OPTIONAL: "optional"}
COUNTS = Counter()
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


@st.composite
def field_matches(draw, fields):
    out = []
    for mf in fields:
        if mf.match_type != MF.EXACT and draw(st.booleans()):
            continue                                            # don't care
        kind = draw(mostly(st.just(KINDS[mf.match_type]), st.sampled_from(list(KINDS.values()))))
        fm = pb.FieldMatch(field_id=draw(mostly(st.just(mf.id), st.just(99))))
        w, full = mf.bitwidth, 2 ** mf.bitwidth - 1
        if kind in ("exact", "optional"):
            getattr(fm, kind).value = draw(value(w))
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
def actions(draw, table):
    refs = [INDEX.actions[r.id] for r in table.action_refs]
    a = draw(mostly(st.sampled_from(refs), st.sampled_from(list(INDEX.actions.values()))))
    out = pb.Action(action_id=a.preamble.id)
    for p in a.params:
        if draw(st.integers(0, 19)):
            out.params.add(param_id=p.id, value=draw(value(p.bitwidth)))
    return out


@st.composite
def table_entries(draw):
    t = draw(st.sampled_from(list(INFO.tables)))
    te = pb.TableEntry(table_id=t.preamble.id, is_default_action=draw(st.integers(0, 5)) == 0)
    if not te.is_default_action or draw(st.integers(0, 5)) == 0:
        te.match.extend(draw(field_matches(t.match_fields)))
    needs = INDEX.tables[t.preamble.id].needs_priority and not te.is_default_action
    te.priority = draw(mostly(st.integers(1, 100) if needs else st.just(0),
                              st.sampled_from([0, 1, 2 ** 31 - 1, -1])))
    if draw(st.integers(0, 19)):
        te.action.action.CopyFrom(draw(actions(t)))
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
    return mostly(st.sampled_from([i.preamble.id for i in items]), st.just(0x09000001))


def _index(size):
    return mostly(st.one_of(st.none(), st.integers(0, size - 1)), st.sampled_from([-1, size]))


@st.composite
def indexed_entries(draw):
    kind = draw(st.sampled_from(["register", "counter", "meter"]))
    items = {"register": INFO.registers, "counter": INFO.counters, "meter": INFO.meters}[kind]
    obj_id = draw(_id_of(items))
    msg = getattr(pb, f"{kind.title()}Entry")(**{f"{kind}_id": obj_id})
    size = {i.preamble.id: i.size for i in items}.get(obj_id, 4)
    i = draw(_index(size))
    if i is not None:
        msg.index.index = i
    if kind == "register":
        width = {r.preamble.id: INDEX.register_width(r) for r in items}.get(obj_id, 32)
        msg.data.bitstring = draw(value(width))
    elif kind == "counter":
        msg.data.packet_count, msg.data.byte_count = draw(INT64), draw(INT64)
    else:
        msg.config.CopyFrom(draw(meter_configs()))
    return pb.Entity(**{f"{kind}_entry": msg})


@st.composite
def other_entries(draw):
    kind = draw(st.sampled_from(["value_set", "digest", "direct_meter", "direct_counter",
                                 "action_profile_member"]))
    if kind == "value_set":
        vs = draw(st.sampled_from(list(INFO.value_sets)))
        msg = pb.ValueSetEntry(value_set_id=vs.preamble.id)
        for _ in range(draw(st.integers(0, 3))):
            msg.members.add().match.extend(draw(field_matches(vs.match)))
        return pb.Entity(value_set_entry=msg)
    if kind == "digest":
        msg = pb.DigestEntry(digest_id=draw(_id_of(INFO.digests)))
        msg.config.max_timeout_ns, msg.config.ack_timeout_ns = draw(INT64), draw(INT64)
        msg.config.max_list_size = draw(st.sampled_from([0, 1, -1]))
        return pb.Entity(digest_entry=msg)
    if kind == "action_profile_member":
        return pb.Entity(action_profile_member=pb.ActionProfileMember(member_id=1))
    te = draw(table_entries()).table_entry
    msg = getattr(pb, "DirectMeterEntry" if kind == "direct_meter" else "DirectCounterEntry")(
        table_entry=te)
    if kind == "direct_meter":
        msg.config.CopyFrom(draw(meter_configs()))
    else:
        msg.data.packet_count = draw(INT64)
    return pb.Entity(**{f"{kind}_entry": msg})


@st.composite
def write_requests(draw):
    req = pb.WriteRequest(device_id=1, role=draw(st.sampled_from([""] * 19 + ["ctl-2"])),
                          atomicity=draw(mostly(st.just(0), st.just(1))))
    entities = st.one_of(table_entries(), table_entries(), pre_entries(), indexed_entries(),
                         other_entries())
    for _ in range(draw(st.integers(1, 3))):
        entity = draw(entities)
        modify_only = entity.WhichOneof("entity") in MODIFY_ONLY
        usual = st.just(pb.Update.MODIFY) if modify_only else st.sampled_from([1, 1, 2, 3])
        u = req.updates.add(type=draw(mostly(usual, st.sampled_from([0, 1, 2, 3]))))
        u.entity.CopyFrom(entity)
    return req


# ---------------------------------------------------------------- what a read must show
def _table_key(te, update_type=None):
    """A table entry's identity in canonical form (a DELETE's entry is read as a DELETE:
    only its key counts)."""
    if te.is_default_action:
        return te.table_id, True
    entry = C.table_entry_from_p4rt(INDEX, te, update_type)
    entry.action = E.ActionCall("")
    shown = C.table_entry_to_p4rt(INDEX, entry)
    return te.table_id, False, shown.priority, tuple(m.SerializeToString() for m in shown.match)


def _table_shown(update, read):
    te = update.entity.table_entry
    key = _table_key(te, pb.Update.DELETE)
    same = [e.table_entry for e in read if e.HasField("table_entry")
            and _table_key(e.table_entry) == key]
    if update.type == pb.Update.DELETE:
        return not same
    if not same:
        return False
    got, want = same[0], C.table_entry_from_p4rt(INDEX, te, update.type)
    shown = C.table_entry_from_p4rt(INDEX, got)
    if te.is_default_action:
        return not want.action.action or shown.action == want.action
    return (shown.action == want.action and got.metadata == te.metadata
            and got.controller_metadata == te.controller_metadata
            and (not te.HasField("meter_config") or got.meter_config == te.meter_config))


def _pre_shown(update, read):
    pre = update.entity.packet_replication_engine_entry
    kind = pre.WhichOneof("type")
    written = getattr(pre, kind)
    ident = "multicast_group_id" if kind == "multicast_group_entry" else "session_id"
    same = [getattr(e.packet_replication_engine_entry, kind) for e in read
            if e.HasField("packet_replication_engine_entry")
            and e.packet_replication_engine_entry.WhichOneof("type") == kind
            and getattr(getattr(e.packet_replication_engine_entry, kind), ident)
            == getattr(written, ident)]
    if update.type == pb.Update.DELETE:
        return not same
    convert = C.multicast_group_from_p4rt if kind == "multicast_group_entry" \
        else C.clone_session_from_p4rt
    return len(same) == 1 and convert(same[0]) == convert(written)


def _indexed_shown(update, read):
    kind = update.entity.WhichOneof("entity")
    written = getattr(update.entity, kind)
    ident = kind.replace("_entry", "_id")
    got = [getattr(e, kind) for e in read if e.WhichOneof("entity") == kind
           and getattr(getattr(e, kind), ident) == getattr(written, ident)
           and (not written.HasField("index") or getattr(e, kind).index == written.index)]
    field = {"register_entry": "data", "counter_entry": "data", "meter_entry": "config"}[kind]
    if kind == "register_entry":
        return [int.from_bytes(g.data.bitstring, "big") for g in got] == \
            [int.from_bytes(written.data.bitstring, "big")]
    return bool(got) and all(getattr(g, field) == getattr(written, field) for g in got)


def _shown(update, read) -> bool:
    kind = update.entity.WhichOneof("entity")
    if kind == "table_entry":
        return _table_shown(update, read)
    if kind == "packet_replication_engine_entry":
        return _pre_shown(update, read)
    if kind in ("register_entry", "counter_entry", "meter_entry"):
        return _indexed_shown(update, read)
    if kind == "value_set_entry":
        vs = INDEX.value_sets[update.entity.value_set_entry.value_set_id]
        got = [e.value_set_entry for e in read if e.HasField("value_set_entry")
               and e.value_set_entry.value_set_id == vs.preamble.id]
        return C.value_set_from_p4rt(vs, got[0].members) == \
            C.value_set_from_p4rt(vs, update.entity.value_set_entry.members)
    if kind == "digest_entry":
        d = update.entity.digest_entry
        got = [e.digest_entry for e in read if e.HasField("digest_entry")
               and e.digest_entry.digest_id == d.digest_id]
        return not got if update.type == pb.Update.DELETE else got == [d]
    if kind == "direct_meter_entry":
        te = update.entity.direct_meter_entry.table_entry
        got = [e.direct_meter_entry for e in read if e.HasField("direct_meter_entry")
               and _table_key(e.direct_meter_entry.table_entry) == _table_key(te)]
        return [g.config for g in got] == [update.entity.direct_meter_entry.config]
    raise AssertionError(f"an accepted write of {kind}, which the target cannot serve")


# ---------------------------------------------------------------- the property
@pytest.fixture(scope="module")
def switch():
    device = PipelineDevice(device_id=1)
    server = P4RuntimeServer(device, "127.0.0.1:0").start()
    ctl = P4RuntimeClient(f"127.0.0.1:{server.port}", device_id=1, election_id=(0, 5))
    ctl.connect()
    ctl.set_pipeline(INFO, FEATURES)
    yield ctl
    ctl.close()
    server.stop()
    print(f"\nproperty: {COUNTS['requests']} requests, {COUNTS['updates']} updates: "
          f"{COUNTS['accepted']} accepted, {COUNTS['rejected']} rejected; "
          f"{COUNTS['reads']} wildcard reads after accepted writes, all served")


@pytest.mark.slow
@settings(max_examples=200, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.data_too_large])
@given(requests=st.lists(write_requests(), min_size=1, max_size=3))
def test_every_accepted_write_reads_back(switch, requests):
    switch.delete_all()
    for req in requests:
        req.election_id.CopyFrom(switch.election_id)
        COUNTS["requests"] += 1
        COUNTS["updates"] += len(req.updates)
        try:
            switch.stub.Write(req)
            errors = [None] * len(req.updates)
        except grpc.RpcError as e:
            errors = _errors(e, len(req.updates))
        accepted = [u for u, err in zip(req.updates, errors) if err is None]
        for code, message in filter(None, errors):
            assert code not in (0, grpc.StatusCode.INTERNAL.value[0]), message
            assert len(message) < 1024, message
        COUNTS["accepted"] += len(accepted)
        COUNTS["rejected"] += len(req.updates) - len(accepted)
        if not accepted:
            continue
        read = switch.read_everything()
        COUNTS["reads"] += 1
        assert _shown(accepted[-1], read), accepted[-1]


def _errors(err: grpc.RpcError, n: int) -> list:
    """(code, message) of each update of a refused Write, None for an applied one; a
    refusal of the whole request (no details) refuses every update."""
    if not dict(err.trailing_metadata() or ()).get("grpc-status-details-bin"):
        return [(err.code().value[0], err.details())] * n
    return [None if e.canonical_code == 0 else (e.canonical_code, e.message)
            for e in batch_errors(err)]
