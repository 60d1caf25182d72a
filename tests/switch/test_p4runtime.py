"""The P4Runtime server, driven through a real gRPC client on 127.0.0.1, serving the
real target compiled from tests/switch/data/p4info_features.p4."""
import json
import queue
import time
from functools import lru_cache
from pathlib import Path

import grpc
import pytest
from p4.v1 import p4runtime_pb2 as pb

from p4rt_client import Client, batch_errors
from p4rt_device import NativeDevice, PipelineDevice
from testbed.errors import TrainetError
from testbed.p4 import p4info
from testbed.p4 import entries as E
from testbed.p4.entries import Exact, Lpm, Optional_, Range, Ternary
from testbed.p4.lowering.program import load_program
from testbed.switch.p4runtime_server import P4RuntimeServer

FEATURES = Path(__file__).parent / "data" / "p4info_features.p4"
INS, MOD, DEL = pb.Update.INSERT, pb.Update.MODIFY, pb.Update.DELETE
PIPE = pb.SetForwardingPipelineConfigRequest


@lru_cache(maxsize=None)
def _features():
    program = load_program(FEATURES)
    return program, p4info.build(program)


@pytest.fixture
def server():
    device = PipelineDevice(device_id=1, cpu_port=255)
    srv = P4RuntimeServer(device, "127.0.0.1:0").start()
    yield srv, device
    srv.stop()


@pytest.fixture
def info():
    return _features()[1]


@pytest.fixture
def ids(info):
    out = {}
    for kind in ("tables", "actions", "counters", "meters", "registers", "digests",
                 "direct_counters", "value_sets"):
        for o in getattr(info, kind):
            out[o.preamble.name] = o.preamble.id
    return out


@pytest.fixture
def client(server, info):
    srv, _ = server
    c = Client(f"127.0.0.1:{srv.port}", device_id=1, election_id=10)
    assert c.arbitrate().status.code == 0
    c.set_pipeline(info, FEATURES.read_bytes())
    yield c
    c.close()


def _frame(dst=1, src=0x0A0B0C0D0E0F, ether_type=0x0800):
    return dst.to_bytes(6, "big") + src.to_bytes(6, "big") + ether_type.to_bytes(2, "big") + \
        b"payload-bytes"


def _code(excinfo):
    return excinfo.value.code()


def _entity(**kw):
    return pb.Entity(**kw)


def routes_entry(ids, value, plen, port=1):
    te = pb.TableEntry(table_id=ids["MyIngress.routes"])
    m = te.match.add(field_id=1)
    m.lpm.value, m.lpm.prefix_len = value, plen
    a = te.action.action
    a.action_id = ids["MyIngress.forward"]
    a.params.add(param_id=1, value=bytes([port]))
    a.params.add(param_id=7, value=b"\x00\x00\x00\x00\x00\x01")
    return _entity(table_entry=te)


def fwd_entry(ids, dst, priority=10, src=None, ether_range=None, port=None,
              action="MyIngress.learn"):
    te = pb.TableEntry(table_id=ids["MyIngress.fwd"], priority=priority)
    te.match.add(field_id=1).exact.value = dst
    if src is not None:
        m = te.match.add(field_id=2)
        m.ternary.value, m.ternary.mask = src
    if ether_range is not None:
        m = te.match.add(field_id=3)
        m.range.low, m.range.high = ether_range
    if port is not None:
        te.match.add(field_id=4).optional.value = port
    te.action.action.action_id = ids[action]
    if action == "MyIngress.forward":
        te.action.action.params.add(param_id=1, value=b"\x02")
        te.action.action.params.add(param_id=7, value=b"\x05")
    return _entity(table_entry=te)


def _without(entity, what):
    if what == "action":
        entity.table_entry.ClearField("action")
    else:
        del entity.table_entry.action.action.params[1]
    return entity


def routes_on_target(device):
    return device.target.table_entries("MyIngress.routes")


def fwd_on_target(device):
    return device.target.table_entries("MyIngress.fwd")


# ---------------------------------------------------------------- arbitration, config
def test_capabilities_and_primary_election(server, info):
    srv, _ = server
    a = Client(f"127.0.0.1:{srv.port}", 1, 5)
    b = Client(f"127.0.0.1:{srv.port}", 1, 9)
    try:
        assert a.stub.Capabilities(pb.CapabilitiesRequest()).p4runtime_api_version == "1.4.1"
        assert a.arbitrate().status.code == 0                       # alone: primary
        update = b.arbitrate()
        assert update.status.code == 0 and update.election_id.low == 9
        demoted = a.next("arbitration")
        assert demoted.status.code == 6 and demoted.election_id.low == 9   # ALREADY_EXISTS
        with pytest.raises(grpc.RpcError) as e:
            a.set_pipeline(info, FEATURES.read_bytes())
        assert _code(e) == grpc.StatusCode.PERMISSION_DENIED
        b.set_pipeline(info, FEATURES.read_bytes())
        packet = pb.StreamMessageRequest()
        packet.packet.payload = _frame()
        a.send(packet)                                              # backups may not send
        assert a.next("error").canonical_code == grpc.StatusCode.PERMISSION_DENIED.value[0]
        with pytest.raises(grpc.RpcError) as e:
            a.write((INS, routes_entry(_ids(info), b"\x0a\x00\x00\x00\x00\x00", 32)))
        assert _code(e) == grpc.StatusCode.PERMISSION_DENIED
        b.close()                                                   # primary leaves
        assert a.next("arbitration").status.code == 0
        a.write((INS, routes_entry(_ids(info), b"\x0a\x00\x00\x00\x00\x00", 32)))
    finally:
        a.close()


def test_only_the_primary_writes_and_every_client_reads(client, server, info, ids):
    """A backup, and a client that names a higher election id than the primary's without
    arbitrating for it, are refused writes and pipelines; all of them may read."""
    srv, device = server
    client.write((INS, routes_entry(ids, b"\x0a\x00\x00\x00\x00\x00", 32)))
    backup = Client(f"127.0.0.1:{srv.port}", 1, 4)
    stranger = Client(f"127.0.0.1:{srv.port}", 1, 99)
    try:
        assert backup.arbitrate().status.code == 6                   # ALREADY_EXISTS
        for other in (backup, stranger):
            with pytest.raises(grpc.RpcError) as e:
                other.write((INS, routes_entry(ids, b"\x0b\x00\x00\x00\x00\x00", 32)))
            assert _code(e) == grpc.StatusCode.PERMISSION_DENIED
            with pytest.raises(grpc.RpcError) as e:
                other.set_pipeline(info, FEATURES.read_bytes())
            assert _code(e) == grpc.StatusCode.PERMISSION_DENIED
            read = other.read(_entity(table_entry=pb.TableEntry(table_id=ids["MyIngress.routes"])))
            assert len(read) == 1
    finally:
        backup.close()
        stranger.close()
    assert len(routes_on_target(device)) == 1 and device.loads == 1


def _ids(info):
    return {o.preamble.name: o.preamble.id for k in ("tables", "actions")
            for o in getattr(info, k)}


def test_duplicate_election_id_and_wrong_device_are_rejected(server):
    srv, _ = server
    a = Client(f"127.0.0.1:{srv.port}", 1, 5)
    b = Client(f"127.0.0.1:{srv.port}", 1, 5)
    wrong = Client(f"127.0.0.1:{srv.port}", 2, 7)
    try:
        a.arbitrate()
        with pytest.raises(grpc.RpcError) as e:
            b.arbitrate()
        assert _code(e) == grpc.StatusCode.INVALID_ARGUMENT
        with pytest.raises(grpc.RpcError) as e:
            wrong.arbitrate()
        assert _code(e) == grpc.StatusCode.NOT_FOUND
    finally:
        for c in (a, b, wrong):
            c.close()


def test_pipeline_config_actions_and_get(server, info):
    srv, device = server
    c = Client(f"127.0.0.1:{srv.port}", 1, 1)
    try:
        c.arbitrate()
        with pytest.raises(grpc.RpcError) as e:
            c.write((INS, routes_entry(_ids(info), b"\x0a", 8)))
        assert _code(e) == grpc.StatusCode.FAILED_PRECONDITION
        source = FEATURES.read_bytes()
        c.set_pipeline(info, source, PIPE.VERIFY)
        assert device.loads == 0
        with pytest.raises(grpc.RpcError) as e:
            c.set_pipeline(info, source, PIPE.COMMIT)
        assert _code(e) == grpc.StatusCode.FAILED_PRECONDITION
        c.set_pipeline(info, source, PIPE.VERIFY_AND_SAVE, cookie=42)
        assert device.loads == 0
        c.set_pipeline(info, b"", PIPE.COMMIT)
        assert device.loads == 1
        req = pb.GetForwardingPipelineConfigRequest(device_id=1)
        full = c.stub.GetForwardingPipelineConfig(req).config
        assert full.p4info == info and full.p4_device_config == source
        assert full.cookie.cookie == 42
        req.response_type = req.COOKIE_ONLY
        only = c.stub.GetForwardingPipelineConfig(req).config
        assert only.cookie.cookie == 42
        assert not only.p4_device_config and not only.HasField("p4info")
        req.response_type = req.P4INFO_AND_COOKIE
        assert not c.stub.GetForwardingPipelineConfig(req).config.p4_device_config
        req.response_type = req.DEVICE_CONFIG_AND_COOKIE
        assert not c.stub.GetForwardingPipelineConfig(req).config.HasField("p4info")
    finally:
        c.close()


def test_bad_pipeline_configs_are_invalid_arguments(client, server, info):
    _, device = server
    bmv2 = json.dumps({"header_types": [], "pipelines": []}).encode()
    wrong_info = type(info)()
    wrong_info.CopyFrom(info)
    wrong_info.tables[0].preamble.name = "MyIngress.nope"
    cases = [(info, bmv2, "no pipeline named 'ingress'"), (info, b"control {", "does not compile"),
             (wrong_info, FEATURES.read_bytes(), "MyIngress.nope")]
    for p4i, source, words, *action in cases:
        with pytest.raises(grpc.RpcError) as e:
            client.set_pipeline(p4i, source, *action)
        assert _code(e) == grpc.StatusCode.INVALID_ARGUMENT
        assert words in e.value.details()
    assert device.loads == 1          # the committed pipeline is untouched
    client.write((INS, routes_entry(_ids(info), b"\x0a\x00\x00\x00", 32)))


# ---------------------------------------------------------------- table entries
def test_insert_read_modify_delete_lpm_entry(client, server, ids):
    _, device = server
    # padded (6 bytes) and minimal encodings name the same value
    client.write((INS, routes_entry(ids, b"\x00\x00\x0a\x00\x00\x00", 24)))
    assert routes_on_target(device)[0].match == (Lpm(0x0A000000, 24),)
    read = client.read(_entity(table_entry=pb.TableEntry(table_id=ids["MyIngress.routes"])))
    assert len(read) == 1
    te = read[0].table_entry
    assert te.match[0].lpm.value == b"\x0a\x00\x00\x00" and te.match[0].lpm.prefix_len == 24
    assert te.action.action.params[0].value == b"\x01"
    modified = routes_entry(ids, b"\x0a\x00\x00\x00", 24, port=3)
    modified.table_entry.metadata = b"route to rack 3"
    modified.table_entry.controller_metadata = 99
    client.write((MOD, modified))
    assert routes_on_target(device)[0].action.params["port"] == 3
    again = client.read(_entity(table_entry=pb.TableEntry(table_id=ids["MyIngress.routes"])))
    assert again[0].table_entry.metadata == b"route to rack 3"
    assert again[0].table_entry.controller_metadata == 99
    with pytest.raises(grpc.RpcError):
        client.write((INS, routes_entry(ids, b"\x0a\x00\x00\x00", 24)))
    client.write((DEL, routes_entry(ids, b"\x0a\x00\x00\x00", 24)))
    assert routes_on_target(device) == []
    # all tables at once: table_id 0
    client.write((INS, fwd_entry(ids, b"\x01", src=(b"\x02", b"\x03"))))
    everything = [e.table_entry for e in client.read(_entity(table_entry=pb.TableEntry()))]
    assert sorted((e.table_id, e.is_const) for e in everything) == [
        (ids["MyIngress.fwd"], False), (ids["classify"], True), (ids["classify"], True)]


def test_ternary_range_optional_and_priority(client, server, ids):
    _, device = server
    client.write((INS, fwd_entry(ids, b"\x01", priority=5, src=(b"\x02", b"\x03"),
                                 ether_range=(b"\x08\x00", b"\x08\xff"), port=b"\x01\x00")))
    entry, = fwd_on_target(device)
    assert entry.match == (Exact(1), Ternary(2, 3), Range(0x800, 0x8FF), Optional_(256))
    assert entry.priority == 5
    # same match, other priority: a different entry
    client.write((INS, fwd_entry(ids, b"\x01", priority=6, src=(b"\x02", b"\x03"),
                                 ether_range=(b"\x08\x00", b"\x08\xff"), port=b"\x01\x00")))
    read = client.read(_entity(table_entry=pb.TableEntry(table_id=ids["MyIngress.fwd"],
                                                         priority=6)))
    assert [e.table_entry.priority for e in read] == [6]


@pytest.mark.parametrize("entity_fn,code,words", [
    (lambda ids: routes_entry(ids, b"\x01\x00\x00\x00\x00\x00\x00", 32),
     grpc.StatusCode.OUT_OF_RANGE, "does not fit in 48 bits"),
    (lambda ids: routes_entry(ids, b"\x0a\x00\x00\x01", 24),
     grpc.StatusCode.INVALID_ARGUMENT, "beyond the /24 prefix"),
    (lambda ids: routes_entry(ids, b"\x00", 0), grpc.StatusCode.INVALID_ARGUMENT, "prefix length"),
    (lambda ids: fwd_entry(ids, b"\x01", src=(b"\x07", b"\x03")),
     grpc.StatusCode.INVALID_ARGUMENT, "outside the mask"),
    (lambda ids: fwd_entry(ids, b"\x01", priority=0),
     grpc.StatusCode.INVALID_ARGUMENT, "priority > 0"),
    (lambda ids: fwd_entry(ids, b"\x01", ether_range=(b"\x09", b"\x08")),
     grpc.StatusCode.INVALID_ARGUMENT, "above high"),
    (lambda ids: _entity(table_entry=pb.TableEntry(table_id=ids["MyIngress.fwd"], priority=1)),
     grpc.StatusCode.INVALID_ARGUMENT, "exact match field hdr.ethernet.dstAddr is missing"),
    (lambda ids: _entity(table_entry=pb.TableEntry(table_id=0x02FFFFFF)),
     grpc.StatusCode.NOT_FOUND, "table id"),
    (lambda ids: _without(routes_entry(ids, b"\x0a\x00\x00\x00", 32), "action"),
     grpc.StatusCode.INVALID_ARGUMENT, "needs an action"),
    (lambda ids: _without(routes_entry(ids, b"\x0a\x00\x00\x00", 32), "param"),
     grpc.StatusCode.INVALID_ARGUMENT, "needs parameter(s) mac"),
])
def test_invalid_entries_are_rejected_with_the_spec_code(client, server, ids, entity_fn,
                                                         code, words):
    with pytest.raises(grpc.RpcError) as e:
        client.write((INS, entity_fn(ids)))
    errors = batch_errors(e.value)
    assert len(errors) == 1
    assert errors[0].canonical_code == code.value[0], errors[0].message
    assert words in errors[0].message
    assert not fwd_on_target(server[1]) and not routes_on_target(server[1])


def test_action_scope_and_default_entry(client, server, ids):
    _, device = server
    bad = fwd_entry(ids, b"\x01")
    bad.table_entry.action.action.action_id = ids["MyIngress.drop"]      # @defaultonly
    with pytest.raises(grpc.RpcError) as e:
        client.write((INS, bad))
    assert "@defaultonly" in batch_errors(e.value)[0].message
    default = pb.TableEntry(table_id=ids["MyIngress.fwd"], is_default_action=True)
    default.action.action.action_id = ids["MyIngress.learn"]              # @tableonly
    with pytest.raises(grpc.RpcError):
        client.write((MOD, _entity(table_entry=default)))
    default.action.action.action_id = ids["MyIngress.forward"]
    default.action.action.params.add(param_id=1, value=b"\x02")
    default.action.action.params.add(param_id=7, value=b"\x03")
    client.write((MOD, _entity(table_entry=default)))
    assert device.target.table_get_default("MyIngress.fwd").params == {"port": 2, "mac": 3}
    read = client.read(_entity(table_entry=pb.TableEntry(table_id=ids["MyIngress.fwd"],
                                                         is_default_action=True)))
    assert read[0].table_entry.is_default_action
    assert read[0].table_entry.action.action.action_id == ids["MyIngress.forward"]
    # MODIFY without an action restores the program's default
    client.write((MOD, _entity(table_entry=pb.TableEntry(table_id=ids["MyIngress.fwd"],
                                                         is_default_action=True))))
    assert device.target.table_get_default("MyIngress.fwd").action == "MyIngress.drop"
    const = pb.TableEntry(table_id=ids["MyIngress.routes"], is_default_action=True)
    const.action.action.action_id = ids["NoAction"]
    with pytest.raises(grpc.RpcError) as e:
        client.write((MOD, _entity(table_entry=const)))
    assert batch_errors(e.value)[0].canonical_code == grpc.StatusCode.PERMISSION_DENIED.value[0]


# ---------------------------------------------------------------- batches
def test_batch_reports_each_update_and_keeps_state_of_failed_ones(client, server, ids):
    _, device = server
    client.write((INS, routes_entry(ids, b"\x0a\x00\x00\x00", 32)))
    with pytest.raises(grpc.RpcError) as e:
        client.write((INS, routes_entry(ids, b"\x0b\x00\x00\x00", 32)),
                     (INS, routes_entry(ids, b"\x0a\x00\x00\x00", 32)),      # exists
                     (DEL, routes_entry(ids, b"\x0c\x00\x00\x00", 32)),      # missing
                     (INS, routes_entry(ids, b"\x0d\x00\x00\x00", 32)))
    assert _code(e) == grpc.StatusCode.UNKNOWN
    codes = [err.canonical_code for err in batch_errors(e.value)]
    assert codes == [0, grpc.StatusCode.ALREADY_EXISTS.value[0],
                     grpc.StatusCode.NOT_FOUND.value[0], 0]
    assert sorted(en.match[0].value >> 24 for en in routes_on_target(device)) == [10, 11, 13]


def test_rollback_on_error_undoes_the_batch(client, server, ids):
    _, device = server
    client.write((INS, routes_entry(ids, b"\x0a\x00\x00\x00", 32)))
    with pytest.raises(grpc.RpcError) as e:
        client.write((INS, routes_entry(ids, b"\x0b\x00\x00\x00", 32)),
                     (DEL, routes_entry(ids, b"\x0a\x00\x00\x00", 32)),
                     (INS, routes_entry(ids, b"\x0b\x00\x00\x00", 32)),      # exists by now
                     (INS, routes_entry(ids, b"\x0e\x00\x00\x00", 32)),
                     atomicity=pb.WriteRequest.ROLLBACK_ON_ERROR)
    codes = [err.canonical_code for err in batch_errors(e.value)]
    aborted = grpc.StatusCode.ABORTED.value[0]
    assert codes == [aborted, aborted, grpc.StatusCode.ALREADY_EXISTS.value[0], aborted]
    assert [en.match[0].value >> 24 for en in routes_on_target(device)] == [10]
    with pytest.raises(grpc.RpcError) as e:
        client.write((INS, routes_entry(ids, b"\x0b\x00\x00\x00", 32)),
                     atomicity=pb.WriteRequest.DATAPLANE_ATOMIC)
    assert _code(e) == grpc.StatusCode.UNIMPLEMENTED


def test_a_rolled_back_batch_leaves_the_native_tables_as_they_were():
    """On the native backend a batch's inserts reach the C tables together at its end:
    a batch rolled back leaves packets forwarded as before it, none of its routes."""
    from testbed.bench.p4runtime import ACTION, BASIC, TABLE
    from testbed.p4runtime import convert as C
    from tests.p4.test_target import ipv4_frame
    program = load_program(BASIC)
    info = p4info.build(program)
    index = C.P4InfoIndex(info)
    device = NativeDevice(device_id=1, cpu_port=255)
    srv = P4RuntimeServer(device, "127.0.0.1:0").start()
    client = Client(f"127.0.0.1:{srv.port}", device_id=1, election_id=10)
    client.arbitrate()
    client.set_pipeline(info, BASIC.read_bytes())

    def route(i):
        entry = E.TableEntry(TABLE, (Lpm(0x0A000000 | i << 8, 24),),
                             E.ActionCall(ACTION, {"dstAddr": i, "port": i}))
        return _entity(table_entry=C.table_entry_to_p4rt(index, entry))

    client.write((INS, route(1)))
    for batch in ([(INS, route(2)), (INS, route(3)), (INS, route(1))],
                  [(INS, route(2)), (DEL, route(1)), (INS, route(4)), (INS, route(2))]):
        with pytest.raises(grpc.RpcError):
            client.write(*batch, atomicity=pb.WriteRequest.ROLLBACK_ON_ERROR)
    for i in range(1, 5):
        device.receive(ipv4_frame(f"10.0.{i}.9"), 0)
    assert [port for port, _ in device.sent] == [1]
    client.write((INS, route(2)), (INS, route(3)), (DEL, route(1)))
    for i in range(1, 5):
        device.receive(ipv4_frame(f"10.0.{i}.9"), 0)
    assert [port for port, _ in device.sent] == [1, 2, 3]
    client.close()
    srv.stop()


def _basic_primary(backend, info):
    """A device of ``backend`` serving basic.p4 set with ``info``, and its primary."""
    from testbed.bench.p4runtime import BASIC
    device = (NativeDevice if backend == "native" else PipelineDevice)(device_id=1)
    srv = P4RuntimeServer(device, "127.0.0.1:0").start()
    client = Client(f"127.0.0.1:{srv.port}", device_id=1, election_id=10)
    client.arbitrate()
    client.set_pipeline(info, BASIC.read_bytes())
    return device, srv, client


@pytest.mark.parametrize("backend", ["native", "python"])
def test_large_batches_of_routes_are_atomic_and_read_back_as_written(backend):
    """Batches of plain routes (decoded from the wire in C): one failing entry rolls the
    whole batch back, every other update aborted, and a read shows the table as before;
    without rollback the others stay; a read returns each route as the general conversion
    encodes it, whatever padding the write used."""
    from testbed.bench.p4runtime import BASIC, TABLE, _route
    from testbed.p4runtime import convert as C
    info = p4info.build(load_program(BASIC))
    index = C.P4InfoIndex(info)
    device, srv, client = _basic_primary(backend, info)

    def route(i, pad=False):
        te = C.table_entry_to_p4rt(index, _route(i))
        if pad:                                          # a client's fixed-width bytes
            te.match[0].lpm.value = te.match[0].lpm.value.rjust(4, b"\0")
            te.action.action.params[1].value = te.action.action.params[1].value.rjust(2, b"\0")
        return _entity(table_entry=te)

    def read():
        got = client.read(_entity(table_entry=pb.TableEntry(table_id=index.table_ids[TABLE])))
        return sorted(e.table_entry.SerializeToString() for e in got)

    def encoded(numbers):
        return sorted(C.table_entry_to_p4rt(index, _route(i)).SerializeToString()
                      for i in numbers)

    client.write(*[(INS, route(i, pad=i % 2)) for i in range(200)])
    assert read() == encoded(range(200))
    # (a batch's per-update results fit the status details up to about 170 updates)
    batch = [(INS, route(i)) for i in range(200, 320)] + [(INS, route(7))]
    with pytest.raises(grpc.RpcError) as e:
        client.write(*batch, atomicity=pb.WriteRequest.ROLLBACK_ON_ERROR)
    codes = [err.canonical_code for err in batch_errors(e.value)]
    assert codes == [grpc.StatusCode.ABORTED.value[0]] * 120 + \
        [grpc.StatusCode.ALREADY_EXISTS.value[0]]
    assert read() == encoded(range(200))
    with pytest.raises(grpc.RpcError) as e:
        client.write(*batch)
    codes = [err.canonical_code for err in batch_errors(e.value)]
    assert codes == [0] * 120 + [grpc.StatusCode.ALREADY_EXISTS.value[0]]
    assert read() == encoded(range(320))
    client.close()
    srv.stop()


@pytest.mark.parametrize("backend", ["native", "python"])
def test_a_p4info_wider_than_the_program_does_not_let_values_past_the_table(backend):
    """A client's P4Info is checked for names only: one claiming a wider parameter than
    the program's makes the decoders accept a value the table must still refuse, alone
    or in a batch."""
    from testbed.bench.p4runtime import ACTION, BASIC, TABLE, _route
    from testbed.p4runtime import convert as C
    info = p4info.build(load_program(BASIC))
    port = next(p for a in info.actions if a.preamble.name == ACTION for p in a.params
                if p.name == "port")
    port.bitwidth = 16                                   # the program's is bit<9>
    index = C.P4InfoIndex(info)
    device, srv, client = _basic_primary(backend, info)

    def route(i, port):
        entry = _route(i)
        entry.action.params["port"] = port
        return _entity(table_entry=C.table_entry_to_p4rt(index, entry))

    for batch in ([(INS, route(1, 1000))], [(INS, route(2, 3)), (INS, route(1, 1000))]):
        with pytest.raises(grpc.RpcError) as e:
            client.write(*batch)
        codes = [err.canonical_code for err in batch_errors(e.value)]
        assert codes[-1] == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert [en.action.params["port"] for en in device.target.table_entries(TABLE)] == [3]
    client.close()
    srv.stop()


# ---------------------------------------------------------------- PRE
def test_multicast_groups_and_clone_sessions(client, server):
    _, device = server
    group = pb.PacketReplicationEngineEntry()
    group.multicast_group_entry.multicast_group_id = 1
    group.multicast_group_entry.replicas.add(egress_port=1, instance=0)
    group.multicast_group_entry.replicas.add(egress_port=2, instance=1)
    client.write((INS, _entity(packet_replication_engine_entry=group)))
    assert [(r.port, r.rid) for r in device.target.mc_groups()[1].replicas] == [(1, 0), (2, 1)]
    with pytest.raises(grpc.RpcError) as e:
        client.write((INS, _entity(packet_replication_engine_entry=group)))
    assert batch_errors(e.value)[0].canonical_code == grpc.StatusCode.ALREADY_EXISTS.value[0]
    group.multicast_group_entry.replicas.add(egress_port=3)
    client.write((MOD, _entity(packet_replication_engine_entry=group)))
    session = pb.PacketReplicationEngineEntry()
    session.clone_session_entry.session_id = 5
    session.clone_session_entry.replicas.add(egress_port=255)
    session.clone_session_entry.packet_length_bytes = 64
    client.write((INS, _entity(packet_replication_engine_entry=session)))
    assert device.target.clone_sessions()[5].packet_length_bytes == 64
    read = client.read(_entity(packet_replication_engine_entry=pb.PacketReplicationEngineEntry()))
    kinds = [e.packet_replication_engine_entry.WhichOneof("type") for e in read]
    assert kinds == ["multicast_group_entry", "clone_session_entry"]
    assert len(read[0].packet_replication_engine_entry.multicast_group_entry.replicas) == 3
    client.write((DEL, _entity(packet_replication_engine_entry=group)))
    assert 1 not in device.target.mc_groups()
    with pytest.raises(grpc.RpcError) as e:
        client.write((DEL, _entity(packet_replication_engine_entry=group)))
    assert batch_errors(e.value)[0].canonical_code == grpc.StatusCode.NOT_FOUND.value[0]


# ---------------------------------------------------------------- externs
def test_registers_counters_meters(client, server, ids):
    _, device = server
    reg = pb.RegisterEntry(register_id=ids["MyIngress.last_seen"])
    reg.index.index = 3
    reg.data.bitstring = b"\x00\x00\x01\x00"
    client.write((MOD, _entity(register_entry=reg)))
    assert device.target.register_read("MyIngress.last_seen", 3) == 256
    one = client.read(_entity(register_entry=pb.RegisterEntry(
        register_id=ids["MyIngress.last_seen"], index=pb.Index(index=3))))
    assert one[0].register_entry.data.bitstring == b"\x01\x00"
    every = client.read(_entity(register_entry=pb.RegisterEntry(
        register_id=ids["MyIngress.last_seen"])))
    assert len(every) == 128
    reg.data.bitstring = b"\x01\x00\x00\x00\x00"
    with pytest.raises(grpc.RpcError) as e:
        client.write((MOD, _entity(register_entry=reg)))
    assert batch_errors(e.value)[0].canonical_code == grpc.StatusCode.OUT_OF_RANGE.value[0]
    with pytest.raises(grpc.RpcError):
        client.write((INS, _entity(register_entry=reg)))

    device.target.counter_write("MyIngress.port_counter", 2, 7, 700)
    counters = client.read(_entity(counter_entry=pb.CounterEntry(
        counter_id=ids["MyIngress.port_counter"])))
    assert len(counters) == 64
    assert (counters[2].counter_entry.data.packet_count,
            counters[2].counter_entry.data.byte_count) == (7, 700)
    reset = pb.CounterEntry(counter_id=ids["MyIngress.port_counter"], index=pb.Index(index=2))
    client.write((MOD, _entity(counter_entry=reset)))
    assert device.target.counter_read("MyIngress.port_counter", 2) == (0, 0)

    meter = pb.MeterEntry(meter_id=ids["MyIngress.port_meter"], index=pb.Index(index=1))
    meter.config.cir, meter.config.cburst, meter.config.pir, meter.config.pburst = 10, 20, 30, 40
    client.write((MOD, _entity(meter_entry=meter)))
    read = client.read(_entity(meter_entry=meter))
    assert read[0].meter_entry.config.pburst == 40
    bad = pb.MeterEntry(meter_id=ids["MyIngress.port_meter"], index=pb.Index(index=32))
    with pytest.raises(grpc.RpcError) as e:
        client.write((MOD, _entity(meter_entry=bad)))
    assert batch_errors(e.value)[0].canonical_code == grpc.StatusCode.OUT_OF_RANGE.value[0]


@pytest.mark.parametrize("device_kind", [PipelineDevice, NativeDevice])
def test_a_read_again_shows_counters_action_and_cookies_as_they_are_now(device_kind, info,
                                                                         ids):
    """Reads keep each entry's encoding while it is unchanged: what changes without a
    write (counters) and what a write changes (action, metadata) still show as they are,
    on both backends."""
    device = device_kind(device_id=1, cpu_port=255)
    srv = P4RuntimeServer(device, "127.0.0.1:0").start()
    client = Client(f"127.0.0.1:{srv.port}", device_id=1, election_id=10)
    client.arbitrate()
    client.set_pipeline(info, FEATURES.read_bytes())
    table = _entity(table_entry=pb.TableEntry(table_id=ids["MyIngress.fwd"]))
    client.write((INS, fwd_entry(ids, b"\x01", action="MyIngress.forward")))
    device.receive(_frame(dst=1), 1)
    [first] = client.read(table)
    assert first.table_entry.counter_data.packet_count == 1
    device.receive(_frame(dst=1), 1)
    assert client.read(table)[0].table_entry.counter_data.packet_count == 2
    changed = fwd_entry(ids, b"\x01", action="MyIngress.learn")
    changed.table_entry.metadata = b"cookie"
    client.write((MOD, changed))
    [again] = client.read(table)
    assert again.table_entry.action.action.action_id == ids["MyIngress.learn"]
    assert again.table_entry.metadata == b"cookie"
    assert again.table_entry.counter_data.packet_count == 2     # a modify keeps counters
    changed.table_entry.metadata = b""
    client.write((MOD, changed))
    assert not client.read(table)[0].table_entry.metadata
    client.close()
    srv.stop()


def test_direct_counters_count_hits_and_direct_meters_configure(client, server, ids):
    _, device = server
    client.write((INS, fwd_entry(ids, b"\x01", action="MyIngress.forward")))
    frame = _frame(dst=1)
    device.receive(frame, 1)
    device.receive(frame, 1)
    assert [port for port, _ in device.sent] == [2, 2]
    read = client.read(_entity(table_entry=pb.TableEntry(table_id=ids["MyIngress.fwd"])))
    assert read[0].table_entry.counter_data.packet_count == 2
    dc = pb.DirectCounterEntry()
    dc.table_entry.CopyFrom(fwd_entry(ids, b"\x01").table_entry)
    dc.table_entry.ClearField("action")
    direct = client.read(_entity(direct_counter_entry=dc))
    assert direct[0].direct_counter_entry.data.byte_count == 2 * len(frame)
    dc.data.packet_count = 1
    with pytest.raises(grpc.RpcError) as e:
        client.write((MOD, _entity(direct_counter_entry=dc)))
    assert batch_errors(e.value)[0].canonical_code == grpc.StatusCode.UNIMPLEMENTED.value[0]
    dm = pb.DirectMeterEntry(table_entry=dc.table_entry)
    dm.config.cir, dm.config.cburst, dm.config.pir, dm.config.pburst = 1, 2, 3, 4
    client.write((MOD, _entity(direct_meter_entry=dm)))
    assert fwd_on_target(device)[0].meter_config == (1, 2, 3, 4)


def test_value_sets_steer_the_parser(client, server, ids):
    _, device = server
    device.receive(_frame(ether_type=0x1234), 1)
    assert device.sent == []                       # fwd misses: dropped
    vs = pb.ValueSetEntry(value_set_id=ids["MyParser.ether_vs"])
    vs.members.add().match.add(field_id=1).exact.value = b"\x12\x34"
    client.write((MOD, _entity(value_set_entry=vs)))
    device.receive(_frame(ether_type=0x1234), 1)
    assert [port for port, _ in device.sent] == [7]    # the parser's "marked" state ran
    assert client.read(_entity(value_set_entry=pb.ValueSetEntry(
        value_set_id=ids["MyParser.ether_vs"])))[0].value_set_entry == vs
    too_many = pb.ValueSetEntry(value_set_id=ids["MyParser.ether_vs"])
    for v in (1, 2, 3):
        too_many.members.add().match.add(field_id=1).exact.value = bytes([v])
    with pytest.raises(grpc.RpcError) as e:
        client.write((MOD, _entity(value_set_entry=too_many)))
    assert batch_errors(e.value)[0].canonical_code == \
        grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]


# ---------------------------------------------------------------- stream: packets, digests
def _wait_for(condition):
    deadline = time.monotonic() + 5
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)


def test_packet_out_enters_the_pipeline_with_its_header(client, server):
    _, device = server
    msg = pb.StreamMessageRequest()
    msg.packet.payload = _frame()
    msg.packet.metadata.add(metadata_id=1, value=b"\x00\x03")       # egress_port = 3
    client.send(msg)
    _wait_for(lambda: device.sent)
    assert device.sent == [(3, _frame())]          # the pipeline read port 3 from the header
    msg.packet.metadata[0].value = b"\x04\x00"                        # 1024: too wide
    client.send(msg)
    error = client.next("error")
    assert error.canonical_code == grpc.StatusCode.OUT_OF_RANGE.value[0]
    assert error.packet_out.packet_out.payload == msg.packet.payload


def test_frames_to_the_cpu_port_arrive_as_packet_in_with_digests(client, server, ids):
    _, device = server
    client.write((INS, fwd_entry(ids, b"\x01")))                     # action learn: to CPU
    device.receive(_frame(), 1)                    # digest not enabled: packet-in only
    pin = client.next("packet")
    assert pin.payload == _frame()
    assert [(m.metadata_id, m.value) for m in pin.metadata] == [(1, b"\x01"), (2, b"\x00")]
    entry = pb.DigestEntry(digest_id=ids["learn_t"])
    entry.config.max_list_size = 1
    client.write((INS, _entity(digest_entry=entry)))
    device.receive(_frame(), 1)
    digest = client.next("digest")
    assert digest.digest_id == ids["learn_t"] and digest.list_id == 1
    members = digest.data[0].struct.members
    assert [m.bitstring for m in members] == [bytes.fromhex("0a0b0c0d0e0f"), b"\x01"]
    ack = pb.StreamMessageRequest()
    ack.digest_ack.digest_id, ack.digest_ack.list_id = digest.digest_id, digest.list_id
    client.send(ack)
    assert client.read(_entity(digest_entry=pb.DigestEntry()))[0].digest_entry == entry
    with pytest.raises(grpc.RpcError) as e:
        client.write((INS, _entity(digest_entry=entry)))
    assert batch_errors(e.value)[0].canonical_code == grpc.StatusCode.ALREADY_EXISTS.value[0]


def test_bad_requests_get_errors_and_the_server_keeps_serving(client, ids):
    with pytest.raises(grpc.RpcError) as e:
        client.stub.Read(pb.ReadRequest(device_id=99, entities=[_entity(
            table_entry=pb.TableEntry())])).__next__()
    assert _code(e) == grpc.StatusCode.NOT_FOUND
    with pytest.raises(grpc.RpcError) as e:
        client.write((INS, _entity()))
    assert batch_errors(e.value)[0].canonical_code == grpc.StatusCode.UNIMPLEMENTED.value[0]
    with pytest.raises(grpc.RpcError) as e:
        client.write((pb.Update.UNSPECIFIED, routes_entry(ids, b"\x0a", 8)))
    assert batch_errors(e.value)[0].canonical_code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    garbage = client.channel.unary_unary("/p4.v1.P4Runtime/Write")
    with pytest.raises(grpc.RpcError):
        garbage(b"\xff\xff\xff not protobuf")
    client.write((INS, routes_entry(ids, b"\x0a\x00\x00\x00", 32)))
    assert len(client.read(_entity(table_entry=pb.TableEntry(
        table_id=ids["MyIngress.routes"])))) == 1


def test_a_pipeline_the_device_started_with_is_served(ids):
    device = PipelineDevice(device_id=1)
    device.load_pipeline(_features()[0])
    srv = P4RuntimeServer(device, "127.0.0.1:0").start()
    c = Client(f"127.0.0.1:{srv.port}", 1, 3)
    try:
        c.arbitrate()
        got = c.stub.GetForwardingPipelineConfig(pb.GetForwardingPipelineConfigRequest(
            device_id=1)).config.p4info
        assert got == _features()[1]
        c.write((INS, routes_entry(ids, b"\x0a\x00\x00\x00", 32)))
        assert len(routes_on_target(device)) == 1
    finally:
        c.close()
        srv.stop()


def test_const_tables_are_read_only(client, server, ids):
    te = pb.TableEntry(table_id=ids["classify"])
    te.match.add(field_id=1).exact.value = b"\x12\x34"
    te.action.action.action_id = ids["NoAction"]
    with pytest.raises(grpc.RpcError) as e:
        client.write((INS, _entity(table_entry=te)))
    assert batch_errors(e.value)[0].canonical_code == grpc.StatusCode.PERMISSION_DENIED.value[0]
    assert len(server[1].target.table_entries("classify")) == 2


def test_reconcile_and_commit_keeps_entries_commit_clears_them(client, server, info, ids):
    _, device = server
    client.write((INS, routes_entry(ids, b"\x0a\x00\x00\x00", 32)))
    group = pb.PacketReplicationEngineEntry()
    group.multicast_group_entry.multicast_group_id = 3
    group.multicast_group_entry.replicas.add(egress_port=4)
    client.write((INS, _entity(packet_replication_engine_entry=group)))
    default = pb.TableEntry(table_id=ids["MyIngress.fwd"], is_default_action=True)
    default.action.action.action_id = ids["MyIngress.forward"]
    default.action.action.params.add(param_id=1, value=b"\x02")
    default.action.action.params.add(param_id=7, value=b"\x03")
    client.write((MOD, _entity(table_entry=default)))
    ap = next(p.preamble.id for p in info.action_profiles if p.preamble.name == "MyIngress.ap")
    member = pb.ActionProfileMember(action_profile_id=ap, member_id=5)
    member.action.action_id = ids["MyIngress.set_tag"]
    member.action.params.add(param_id=1, value=b"\x07")
    indirect = pb.TableEntry(table_id=ids["MyIngress.tag_profiled"])
    indirect.match.add(field_id=1).exact.value = b"\x08\x00"
    indirect.action.action_profile_member_id = 5
    client.write((INS, _entity(action_profile_member=member)),
                 (INS, _entity(table_entry=indirect)))
    client.set_pipeline(info, FEATURES.read_bytes(), PIPE.RECONCILE_AND_COMMIT)
    assert device.loads == 2
    assert len(routes_on_target(device)) == 1 and 3 in device.target.mc_groups()
    assert [e.action for e in device.target.table_entries("MyIngress.tag_profiled")] == [
        E.MemberRef(5)]
    assert list(device.target.profile("MyIngress.ap").members) == [5]
    assert device.target.table_get_default("MyIngress.fwd").action == "MyIngress.forward"
    assert len(device.target.table_entries("classify")) == 2
    client.set_pipeline(info, FEATURES.read_bytes(), PIPE.VERIFY_AND_COMMIT)
    assert routes_on_target(device) == [] and device.target.mc_groups() == {}


def test_a_backup_joining_does_not_disturb_the_primary(server):
    srv, _ = server
    primary = Client(f"127.0.0.1:{srv.port}", 1, 20)
    backup = Client(f"127.0.0.1:{srv.port}", 1, 3)
    try:
        primary.arbitrate()
        answer = backup.arbitrate()
        assert answer.status.code == 6 and answer.election_id.low == 20
        with pytest.raises(queue.Empty):                    # nothing new for the primary
            primary.next("arbitration", timeout=0.3)
    finally:
        primary.close()
        backup.close()


def test_a_port_in_use_is_an_error_not_a_shared_port(server):
    srv, _ = server
    with pytest.raises(TrainetError, match=f"cannot listen on 127.0.0.1:{srv.port}"):
        P4RuntimeServer(PipelineDevice(), f"127.0.0.1:{srv.port}").start()


def test_a_large_read_comes_in_chunks_that_hold_every_entry_once(client, ids, monkeypatch):
    """Each ReadResponse stops growing once its entities pass the chunk size (counted by
    each entry's encoded size, or its size bound), so none outgrows a client's message
    limit."""
    from testbed.switch.p4runtime_server import service
    monkeypatch.setattr(service, "READ_CHUNK_BYTES", 200)
    for i in range(40):
        client.write((INS, routes_entry(ids, bytes([10, i, 0, 0, 0, 0]), 16)))
    read = pb.ReadRequest(device_id=1, entities=[_entity(
        table_entry=pb.TableEntry(table_id=ids["MyIngress.routes"]))])
    responses = list(client.stub.Read(read))
    assert len(responses) > 3
    assert all(r.ByteSize() < 200 + 400 for r in responses)
    got = sorted(e.table_entry.match[0].lpm.value for r in responses for e in r.entities)
    assert got == sorted(bytes([10, i, 0, 0, 0, 0]) for i in range(40))
