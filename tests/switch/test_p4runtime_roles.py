"""Roles: each role elects its own primary, a role's config bounds what it may write,
and the default role keeps full control; driven through real gRPC clients."""
import grpc
import pytest
from google.protobuf import struct_pb2
from p4.v1 import p4runtime_pb2 as pb

from p4rt_client import Client, batch_errors
from test_p4runtime import (FEATURES, INS, _entity, _frame, fwd_entry, routes_entry,
                            routes_on_target)
from test_p4runtime import client, ids, info, server  # noqa: F401  (fixtures)

NET10 = b"\x0a\x00\x00\x00\x00\x00"


def scope(**fields) -> struct_pb2.Struct:
    s = struct_pb2.Struct()
    s.update(fields)
    return s


def _join(srv, role, election, config=None):
    c = Client(f"127.0.0.1:{srv.port}", 1, election, role=role)
    answer = c.arbitrate(role_config=config)
    return c, answer


def test_each_role_elects_its_own_primary(server, client, ids):
    """A role's controllers elect among themselves: election ids may repeat across roles,
    the default role's primary stays primary, and a role's backup may not write."""
    srv, device = server
    ops, ops_answer = _join(srv, "ops", 10)             # the default primary's id, reused
    backup, backup_answer = _join(srv, "ops", 3)
    try:
        assert ops_answer.status.code == 0 and ops_answer.role.name == "ops"
        assert backup_answer.status.code == 6           # ALREADY_EXISTS: not primary
        ops.write((INS, routes_entry(ids, NET10, 8)))
        client.write((INS, routes_entry(ids, b"\x0b\x00\x00\x00\x00\x00", 8)))
        with pytest.raises(grpc.RpcError) as e:
            backup.write((INS, routes_entry(ids, b"\x0c\x00\x00\x00\x00\x00", 8)))
        assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED
        assert "role 'ops'" in e.value.details()
        assert len(routes_on_target(device)) == 2
    finally:
        ops.close()
        backup.close()


def test_a_scoped_role_writes_only_its_objects_and_the_batch_stays_atomic(server, client,
                                                                           ids, info):
    srv, device = server
    routes = ids["MyIngress.routes"]
    ops, answer = _join(srv, "routes-ctl", 1, scope(p4_ids=[routes]))
    try:
        assert answer.status.code == 0
        ops.write((INS, routes_entry(ids, NET10, 8)))
        with pytest.raises(grpc.RpcError) as e:
            ops.write((INS, routes_entry(ids, b"\x0b\x00\x00\x00\x00\x00", 8)),
                      (INS, fwd_entry(ids, b"\x01")), atomicity=1)     # ROLLBACK_ON_ERROR
        errors = batch_errors(e.value)
        assert errors[1].canonical_code == grpc.StatusCode.PERMISSION_DENIED.value[0]
        assert f"table_entry of P4Info id {ids['MyIngress.fwd']}" in errors[1].message
        assert f"[{routes}]" in errors[1].message
        assert len(routes_on_target(device)) == 1                    # rolled back
        assert device.target.table_entries("MyIngress.fwd") == []
        group = pb.PacketReplicationEngineEntry()
        group.multicast_group_entry.multicast_group_id = 1
        with pytest.raises(grpc.RpcError) as e:
            ops.write((INS, _entity(packet_replication_engine_entry=group)))
        assert "packet_replication" in batch_errors(e.value)[0].message
        with pytest.raises(grpc.RpcError) as e:
            ops.set_pipeline(info, FEATURES.read_bytes())
        assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED
        assert "role config" in e.value.details()
        client.write((INS, fwd_entry(ids, b"\x01")))        # the default role may write it
    finally:
        ops.close()


def test_packet_ins_reach_the_roles_that_ask_for_them(server, client, ids):
    srv, device = server
    listener, _ = _join(srv, "punt", 1, scope(p4_ids=[], packet_in=True))
    deaf, _ = _join(srv, "quiet", 1, scope(p4_ids=[]))
    try:
        client.write((INS, fwd_entry(ids, b"\x01")))                 # action learn: to CPU
        device.receive(_frame(), 1)
        assert client.next("packet").payload == _frame()
        assert listener.next("packet").payload == _frame()
        assert deaf.responses.empty()
    finally:
        listener.close()
        deaf.close()


@pytest.mark.parametrize("config, says", [
    (scope(p4_ids=["routes"]), "p4_ids holds 'routes'"),
    (scope(p4_ids=[1.5]), "p4_ids holds 1.5"),
    (scope(writes=True), "unknown key(s) writes"),
    (scope(packet_in="yes"), "packet_in must be true or false"),
    (pb.Uint128(low=1), "pack a google.protobuf.Struct"),
])
def test_bad_role_configs_are_refused_naming_the_field(server, config, says):
    srv, _ = server
    c = Client(f"127.0.0.1:{srv.port}", 1, 1, role="ops")
    try:
        with pytest.raises(grpc.RpcError) as e:
            c.arbitrate(role_config=config)
        assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert says in e.value.details() and "role 'ops'" in e.value.details()
    finally:
        c.close()


def test_a_stream_keeps_its_role(server):
    srv, _ = server
    c = Client(f"127.0.0.1:{srv.port}", 1, 1, role="ops")
    try:
        c.arbitrate()
        c.role = "other"
        with pytest.raises(grpc.RpcError) as e:
            c.arbitrate()
        assert e.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    finally:
        c.close()
