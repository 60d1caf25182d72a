"""The P4Runtime server's checks of written values, its bounded errors, its answers to
reads of entity types a program lacks, and the rejections the P4Runtime 1.4 spec asks
for. Runs the server in-process on 127.0.0.1, as test_p4runtime.py does."""
from pathlib import Path

import grpc
import pytest
from p4.v1 import p4runtime_pb2 as pb

from p4rt_client import Client, batch_errors
from test_p4runtime import (DEL, INS, MOD, client, fwd_entry, ids, info,  # noqa: F401 fixtures
                            routes_entry, server)
from testbed.cli import build_parser
from testbed.p4 import p4info
from testbed.p4.lowering.program import load_program

BASIC = Path(__file__).resolve().parents[2] / "p4" / "basic.p4"
entity = pb.Entity
NET10 = b"\x0a\x00\x00\x00\x00\x00"           # 10.0.0.0/8 in the 48-bit field of routes
OUT_OF_RANGE = grpc.StatusCode.OUT_OF_RANGE.value[0]
INVALID = grpc.StatusCode.INVALID_ARGUMENT.value[0]
UNIMPLEMENTED = grpc.StatusCode.UNIMPLEMENTED.value[0]


def _group(gid=1, **replica):
    pre = pb.PacketReplicationEngineEntry()
    pre.multicast_group_entry.multicast_group_id = gid
    if replica:
        pre.multicast_group_entry.replicas.add(**replica)
    return entity(packet_replication_engine_entry=pre)


def _rejected(client, *updates):
    with pytest.raises(grpc.RpcError) as e:
        client.write(*updates)
    return batch_errors(e.value)


def _read_all_pre(client):
    return client.read(entity(packet_replication_engine_entry=pb.PacketReplicationEngineEntry()))


@pytest.mark.parametrize("replica,code,words", [
    ({"port": (1 << 32).to_bytes(5, "big")}, OUT_OF_RANGE, "replica port"),
    ({"port": b"\x02\x00"}, OUT_OF_RANGE, "does not fit in 9 bits"),
    ({"egress_port": 512}, OUT_OF_RANGE, "egress_port 512 is outside 0..511"),
    ({"egress_port": 1, "instance": 1 << 16}, INVALID, "instance 65536 is outside 0..65535"),
    ({"instance": 1}, INVALID, "a replica needs a port"),
])
def test_replicas_that_could_not_be_read_back_are_refused(client, replica, code, words):
    for pre in (_group(**replica), entity(packet_replication_engine_entry=pb.
                                          PacketReplicationEngineEntry(clone_session_entry=pb.
                                          CloneSessionEntry(session_id=3, replicas=[
                                              pb.Replica(**replica)])))):
        error, = _rejected(client, (INS, pre))
        assert error.canonical_code == code and words in error.message, error.message
    assert _read_all_pre(client) == []


def test_group_ids_metadata_and_port_bytes_round_trip(client):
    error, = _rejected(client, (INS, _group(1 << 16, egress_port=1)))
    assert error.canonical_code == OUT_OF_RANGE and "multicast group id" in error.message
    group = _group(7, port=b"\x01\xff", instance=65535)
    group.packet_replication_engine_entry.multicast_group_entry.metadata = b"rack 7"
    client.write((INS, group))
    read, = _read_all_pre(client)
    mg = read.packet_replication_engine_entry.multicast_group_entry
    assert (mg.replicas[0].egress_port, mg.replicas[0].instance, mg.metadata) == \
        (511, 65535, b"rack 7")
    group.packet_replication_engine_entry.multicast_group_entry.metadata = bytes(4097)
    error, = _rejected(client, (MOD, group))
    assert error.canonical_code == OUT_OF_RANGE and "4096-byte limit" in error.message


def test_a_huge_value_gives_a_short_message_and_a_small_trailer(client, ids):
    huge = routes_entry(ids, b"\x01" * (1 << 20), 32)
    with pytest.raises(grpc.RpcError) as e:           # a default client: 16 KiB metadata
        client.write((INS, huge))
    assert e.value.code() == grpc.StatusCode.UNKNOWN
    error, = batch_errors(e.value)
    assert error.canonical_code == OUT_OF_RANGE
    assert "(1048576 bytes)" in error.message and len(error.message) < 1024
    assert len(e.value.details()) < 1024


@pytest.mark.parametrize("count", [100, 3000])
def test_batch_details_stay_small_however_many_updates_fail(client, ids, count):
    bad = routes_entry(ids, b"\x01" * 64, 32)
    with pytest.raises(grpc.RpcError) as e:
        client.write(*[(INS, bad)] * count)
    assert e.value.code() == grpc.StatusCode.UNKNOWN
    trailer = dict(e.value.trailing_metadata())["grpc-status-details-bin"]
    assert len(trailer) < 8 * 1024
    errors = batch_errors(e.value)
    assert all(err.canonical_code == OUT_OF_RANGE for err in errors)
    if count == 100:
        assert len(errors) == count and "does not fit" in errors[0].message
    else:
        assert 0 < len(errors) < count
        assert f"send at most {len(errors)} updates per batch" in e.value.details()


EVERY_KIND = ["table_entry", "action_profile_member", "action_profile_group", "meter_entry",
              "direct_meter_entry", "counter_entry", "direct_counter_entry",
              "packet_replication_engine_entry", "value_set_entry", "register_entry",
              "digest_entry", "extern_entry"]


def test_reads_of_entity_types_the_program_lacks_are_empty(server):
    srv, _ = server
    c = Client(f"127.0.0.1:{srv.port}", device_id=1, election_id=1)
    try:
        c.arbitrate()
        c.set_pipeline(p4info.build(load_program(BASIC)), BASIC.read_bytes())
        read = c.read(*[entity(**{kind: getattr(pb, _message(kind))()}) for kind in EVERY_KIND])
        assert [e.WhichOneof("entity") for e in read] == []
        with pytest.raises(grpc.RpcError) as e:
            c.read(entity(action_profile_member=pb.ActionProfileMember(action_profile_id=9)))
        assert e.value.code() == grpc.StatusCode.NOT_FOUND
    finally:
        c.close()


def test_writes_of_entity_types_the_target_lacks_are_refused_by_name(server):
    """Each update of a batch goes to its kind's handler; those of kinds the software
    target has none of fail alone, naming the kind, and the rest of the batch applies."""
    srv, _ = server
    c = Client(f"127.0.0.1:{srv.port}", device_id=1, election_id=1)
    unserved = ("action_profile_member", "action_profile_group", "extern_entry")
    try:
        c.arbitrate()
        c.set_pipeline(p4info.build(load_program(BASIC)), BASIC.read_bytes())
        group = _group(7)
        with pytest.raises(grpc.RpcError) as e:
            c.write(*[(INS, entity(**{kind: getattr(pb, _message(kind))()}))
                      for kind in unserved], (INS, group))
        errors = batch_errors(e.value)
        assert [x.canonical_code for x in errors] == [UNIMPLEMENTED] * 3 + [0]
        for kind, x in zip(unserved, errors):
            assert x.message == f"writing {kind} is not supported by the software target"
        read = c.read(entity(packet_replication_engine_entry=pb.PacketReplicationEngineEntry()))
        assert [e.packet_replication_engine_entry.multicast_group_entry.multicast_group_id
                for e in read] == [7]
    finally:
        c.close()


def _message(kind):
    return {"packet_replication_engine_entry": "PacketReplicationEngineEntry",
            "action_profile_member": "ActionProfileMember",
            "action_profile_group": "ActionProfileGroup"}.get(
        kind, "".join(part.title() for part in kind.split("_")))


def _with(entity_msg, **fields):
    for name, value in fields.items():
        target = entity_msg.table_entry
        if isinstance(value, dict):
            for sub, v in value.items():
                setattr(getattr(target, name), sub, v)
        else:
            setattr(target, name, value)
    return entity_msg


def _default(ids, **fields):
    te = pb.TableEntry(table_id=ids["MyIngress.fwd"], is_default_action=True, **fields)
    return entity(table_entry=te)


@pytest.mark.parametrize("make,update,code,words", [
    (lambda ids: _with(routes_entry(ids, NET10, 8), idle_timeout_ns=10**9), INS, INVALID,
     "has no idle timeout"),
    (lambda ids: _with(routes_entry(ids, NET10, 8), time_since_last_hit={"elapsed_ns": 1}),
     INS, INVALID, "time_since_last_hit is set by reads only"),
    (lambda ids: _with(routes_entry(ids, NET10, 8), meter_config={"cir": 1, "pir": 2}), INS,
     INVALID, "no direct meter; leave meter_config unset"),
    (lambda ids: _with(routes_entry(ids, NET10, 8), counter_data={"packet_count": 1}), INS,
     INVALID, "no direct counter; leave counter_data unset"),
    (lambda ids: _with(routes_entry(ids, NET10, 8), is_const=True), INS, INVALID,
     "is_const is set by reads only"),
    (lambda ids: _with(fwd_entry(ids, b"\x01", action="MyIngress.forward"),
                       meter_config={"cir": 5, "pir": 2}), INS, INVALID, "exceeds peak rate"),
    (lambda ids: _with(fwd_entry(ids, b"\x01", action="MyIngress.forward"),
                       meter_config={"pir": 2, "eburst": 1}), INS, INVALID, "eburst"),
    (lambda ids: _with(fwd_entry(ids, b"\x01", action="MyIngress.forward"),
                       counter_data={"byte_count": -1}), INS, OUT_OF_RANGE, "byte_count -1"),
    (lambda ids: _default(ids, priority=3), MOD, INVALID, "the default entry has no priority"),
    (lambda ids: _default(ids, idle_timeout_ns=5), MOD, INVALID, "default entry has no idle"),
    (lambda ids: _default(ids, metadata=b"x"), MOD, UNIMPLEMENTED, "keeps no metadata"),
])
def test_what_the_spec_rejects_in_table_entries(client, ids, make, update, code, words):
    error, = _rejected(client, (update, make(ids)))
    assert error.canonical_code == code and words in error.message, error.message


def test_per_color_meter_counters_can_only_be_reset(client, ids):
    te = fwd_entry(ids, b"\x01", action="MyIngress.forward")
    te.table_entry.meter_counter_data.green.packet_count = 4
    error, = _rejected(client, (INS, te))
    assert error.canonical_code == INVALID and "send zeros" in error.message
    te.table_entry.meter_counter_data.green.packet_count = 0
    client.write((INS, te))
    routes = routes_entry(ids, NET10, 8)
    routes.table_entry.meter_counter_data.SetInParent()
    error, = _rejected(client, (INS, routes))
    assert "no direct meter; leave meter_counter_data unset" in error.message


def test_delete_looks_at_the_key_only(client, ids):
    client.write((INS, routes_entry(ids, NET10, 8)))
    gone = routes_entry(ids, NET10, 8)
    gone.table_entry.action.action.action_id = 12345                 # nonsense, ignored
    client.write((DEL, gone))
    assert client.read(entity(table_entry=pb.TableEntry(table_id=ids["MyIngress.routes"]))) == []


def test_unknown_roles_are_not_found(client, ids, info):
    req = pb.WriteRequest(device_id=1, role="backup-ctl")
    req.election_id.low = client.election_id
    req.updates.add(type=INS).entity.CopyFrom(routes_entry(ids, NET10, 8))
    read = pb.ReadRequest(device_id=1, role="backup-ctl", entities=[entity(
        table_entry=pb.TableEntry())])
    pipe = pb.SetForwardingPipelineConfigRequest(device_id=1, role="backup-ctl",
                                                 action=pb.SetForwardingPipelineConfigRequest.
                                                 VERIFY)
    pipe.election_id.low = client.election_id
    pipe.config.p4info.CopyFrom(info)
    for call in (lambda: client.stub.Write(req), lambda: list(client.stub.Read(read)),
                 lambda: client.stub.SetForwardingPipelineConfig(pipe)):
        with pytest.raises(grpc.RpcError) as e:
            call()
        assert e.value.code() == grpc.StatusCode.NOT_FOUND and "role" in e.value.details()


def test_indices_meters_and_digest_configs_are_checked(client, ids):
    reg = pb.RegisterEntry(register_id=ids["MyIngress.last_seen"], index=pb.Index(index=-1))
    reg.data.bitstring = b"\x01"
    error, = _rejected(client, (MOD, entity(register_entry=reg)))
    assert error.canonical_code == INVALID and "negative" in error.message
    counter = pb.CounterEntry(counter_id=ids["MyIngress.port_counter"], index=pb.Index(index=1))
    counter.data.packet_count = -5
    error, = _rejected(client, (MOD, entity(counter_entry=counter)))
    assert error.canonical_code == OUT_OF_RANGE
    meter = pb.MeterEntry(meter_id=ids["MyIngress.port_meter"], index=pb.Index(index=1))
    meter.config.cir = -1
    error, = _rejected(client, (MOD, entity(meter_entry=meter)))
    assert error.canonical_code == INVALID and "meter cir" in error.message
    digest = pb.DigestEntry(digest_id=ids["learn_t"])
    digest.config.max_list_size = -1
    error, = _rejected(client, (INS, entity(digest_entry=digest)))
    assert error.canonical_code == INVALID and "max_list_size" in error.message


def test_value_set_members_are_unique(client, ids):
    vs = pb.ValueSetEntry(value_set_id=ids["MyParser.ether_vs"])
    for _ in range(2):
        vs.members.add().match.add(field_id=1).exact.value = b"\x12\x34"
    error, = _rejected(client, (MOD, entity(value_set_entry=vs)))
    assert error.canonical_code == grpc.StatusCode.ALREADY_EXISTS.value[0]


def test_large_reads_come_in_several_responses(client, ids):
    updates = []
    for i in range(300):
        e = routes_entry(ids, i.to_bytes(4, "big") + b"\x00\x00", 32)
        e.table_entry.metadata = bytes(4096)
        updates.append((INS, e))
    client.write(*updates)
    req = pb.ReadRequest(device_id=1, entities=[entity(table_entry=pb.TableEntry(
        table_id=ids["MyIngress.routes"]))])
    responses = list(client.stub.Read(req))
    assert len(responses) == 2
    assert sum(len(r.entities) for r in responses) == 300


def test_the_switch_listens_on_loopback_unless_told_otherwise():
    args = build_parser().parse_args(["switch", "--no-p4"])
    assert args.grpc_address == "127.0.0.1"
