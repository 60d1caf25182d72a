"""Whatever the P4Runtime server accepts can be read back.

Hypothesis builds WriteRequests over every entity type of
tests/switch/data/p4info_features.p4 (p4rt_requests.py), and over the programs with
@p4runtime_translation types, set with the controller's mapping. After every request, one
wildcard Read of every entity type must succeed, and the last update the server accepted
must show in it (or, for a DELETE, be gone), in the values the controller wrote. The counts are printed at the end (``pytest
-s`` shows them).
"""
from collections import Counter

import grpc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from p4.v1 import p4runtime_pb2 as pb

from controllers.p4runtime_client import P4RuntimeClient
from p4rt_client import batch_errors
from p4rt_device import PipelineDevice
from p4rt_requests import FEATURES_PROGRAM, TRANSLATED_PROGRAMS, write_requests
from testbed.p4 import entries as E
from testbed.p4runtime import convert as C
from testbed.switch.p4runtime_server import P4RuntimeServer

COUNTS = Counter()


# ---------------------------------------------------------------- what a read must show
def _table_key(index, te, update_type=None):
    """A table entry's identity in canonical form (a DELETE's entry is read as a DELETE:
    only its key counts)."""
    if te.is_default_action:
        return te.table_id, True
    entry = C.table_entry_from_p4rt(index, te, update_type)
    entry.action = E.ActionCall("")
    shown = C.table_entry_to_p4rt(index, entry)
    return te.table_id, False, shown.priority, tuple(m.SerializeToString() for m in shown.match)


def _table_shown(index, update, read):
    te = update.entity.table_entry
    key = _table_key(index, te, pb.Update.DELETE)
    same = [e.table_entry for e in read if e.HasField("table_entry")
            and _table_key(index, e.table_entry) == key]
    if update.type == pb.Update.DELETE:
        return not same
    if not same:
        return False
    got, want = same[0], C.table_entry_from_p4rt(index, te, update.type)
    shown = C.table_entry_from_p4rt(index, got)
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


def _shown(index, update, read) -> bool:
    kind = update.entity.WhichOneof("entity")
    if kind == "table_entry":
        return _table_shown(index, update, read)
    if kind == "packet_replication_engine_entry":
        return _pre_shown(update, read)
    if kind in ("register_entry", "counter_entry", "meter_entry"):
        return _indexed_shown(update, read)
    if kind == "value_set_entry":
        vs = index.value_sets[update.entity.value_set_entry.value_set_id]
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
               and _table_key(index, e.direct_meter_entry.table_entry) == _table_key(index, te)]
        return [g.config for g in got] == [update.entity.direct_meter_entry.config]
    if kind in ("action_profile_member", "action_profile_group"):
        return _profile_shown(index, update, read)
    raise AssertionError(f"an accepted write of {kind}, which the target cannot serve")


def _profile_shown(index, update, read):
    kind = update.entity.WhichOneof("entity")
    written = getattr(update.entity, kind)
    ident = "member_id" if kind == "action_profile_member" else "group_id"
    got = [getattr(e, kind) for e in read if e.WhichOneof("entity") == kind
           and getattr(e, kind).action_profile_id == written.action_profile_id
           and getattr(getattr(e, kind), ident) == getattr(written, ident)]
    if update.type == pb.Update.DELETE:
        return not got
    if kind == "action_profile_member":
        return len(got) == 1 and C.member_from_p4rt(index, got[0]) == \
            C.member_from_p4rt(index, written)
    return len(got) == 1 and C.group_from_p4rt(index, got[0]) == \
        C.group_from_p4rt(index, written)


def controller_view(prog) -> C.P4InfoIndex:
    """An index over the values the controller writes and reads: the P4Info's, with a
    translated string compared as the number its bytes spell (its P4Info width is 0)."""
    info = type(prog.info)()
    info.CopyFrom(prog.info)
    strings = {n for n, t in info.type_info.new_types.items()
               if t.translated_type.WhichOneof("sdn_type") == "sdn_string"}
    for item in [*(f for t in info.tables for f in t.match_fields),
                 *(p for a in info.actions for p in a.params),
                 *(m for v in info.value_sets for m in v.match)]:
        if item.type_name.name in strings:
            item.bitwidth = 8 * 64
    return C.P4InfoIndex(info)


# ---------------------------------------------------------------- the property
PROGRAMS = [FEATURES_PROGRAM, *TRANSLATED_PROGRAMS]


@pytest.fixture(scope="module", params=PROGRAMS, ids=[p.path.name for p in PROGRAMS])
def switch(request, tmp_path_factory):
    prog = request.param
    config = tmp_path_factory.mktemp("property") / "device_config"
    config.write_bytes(prog.config)
    COUNTS.clear()
    device = PipelineDevice(device_id=1)
    server = P4RuntimeServer(device, "127.0.0.1:0").start()
    ctl = P4RuntimeClient(f"127.0.0.1:{server.port}", device_id=1, election_id=(0, 5))
    ctl.connect()
    ctl.set_pipeline(prog.info, config)
    yield ctl, prog, controller_view(prog)
    ctl.close()
    server.stop()
    print(f"\nproperty {prog.path.name}: {COUNTS['requests']} requests, {COUNTS['updates']} updates: "
          f"{COUNTS['accepted']} accepted, {COUNTS['rejected']} rejected; "
          f"{COUNTS['reads']} wildcard reads after accepted writes, all served")


@pytest.mark.slow
@settings(max_examples=200, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.data_too_large])
@given(data=st.data())
def test_every_accepted_write_reads_back(switch, data):
    switch, prog, index = switch
    switch.delete_all()
    requests = data.draw(st.lists(write_requests(prog), min_size=1, max_size=3))
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
        assert _shown(index, accepted[-1], read), accepted[-1]


def _errors(err: grpc.RpcError, n: int) -> list:
    """(code, message) of each update of a refused Write, None for an applied one; a
    refusal of the whole request (no details) refuses every update."""
    if not dict(err.trailing_metadata() or ()).get("grpc-status-details-bin"):
        return [(err.code().value[0], err.details())] * n
    return [None if e.canonical_code == 0 else (e.canonical_code, e.message)
            for e in batch_errors(err)]
