"""A runtime JSON as the p4lang tutorials' simple_controller sends it, to trainet's server.

Their p4runtime_lib (written from its documented behaviour, not copied): arbitration with
election id 1 on the stream; SetForwardingPipelineConfig whose p4_device_config is the
compiler's .json as raw bytes (no P4DeviceConfig around it); each table entry an INSERT,
but a `"default_action": true` entry a MODIFY with is_default_action; values encoded by
kind (a MAC or IPv4 string as its bytes, a number in ceil(bitwidth / 8) bytes, an exact
match given bare or as a one-element list); multicast groups and clone sessions as PRE
INSERTs; counters read one index at a time (counter_entry with counter_id and index).
The exercises read the counters with simple_switch_CLI over Thrift, which trainet does not
have; the same numbers come back over P4Runtime."""
import ipaddress
import math
from pathlib import Path

import pytest
from google.protobuf import text_format
from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2 as pb

from p4rt_client import Client
from p4rt_device import PipelineDevice
from testbed.p4.p4c import main as p4c
from testbed.switch.p4runtime_server import P4RuntimeServer

PROGRAM = Path(__file__).parent / "data" / "acl_counters.p4"
RUNTIME = {   # the runtime JSON's table_entries, multicast and clone sessions
    "table_entries": [
        {"table": "MyIngress.ipv4_lpm", "default_action": True,
         "action_name": "MyIngress.drop", "action_params": {}},
        {"table": "MyIngress.ipv4_lpm", "match": {"hdr.ipv4.dstAddr": ["10.0.1.1", 32]},
         "action_name": "MyIngress.route",
         "action_params": {"dstAddr": "08:00:00:00:01:11", "port": 1}},
        {"table": "MyIngress.ipv4_lpm", "match": {"hdr.ipv4.dstAddr": ["10.0.2.2", 32]},
         "action_name": "MyIngress.route",
         "action_params": {"dstAddr": "08:00:00:00:02:22", "port": 2}},
        {"table": "MyIngress.acl", "match": {"hdr.ipv4.srcAddr": "10.0.3.3"},
         "action_name": "MyIngress.block", "action_params": {"slot": 3}},
    ],
    "multicast_group_entries": [
        {"multicast_group_id": 1, "replicas": [{"egress_port": 1, "instance": 1},
                                               {"egress_port": 2, "instance": 1}]}],
    "clone_session_entries": [
        {"clone_session_id": 100, "packet_length_bytes": 64,
         "replicas": [{"egress_port": 4, "instance": 1}]}],
}


def encode(value, bitwidth: int) -> bytes:
    """The tutorials' value encoding: by the value's kind, not by the field's type."""
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if isinstance(value, str) and value.count(":") == 5:
        return bytes.fromhex(value.replace(":", ""))
    if isinstance(value, str):
        return ipaddress.IPv4Address(value).packed
    return value.to_bytes(math.ceil(bitwidth / 8), "big")


def table_entry(info, flow) -> pb.TableEntry:
    table = next(t for t in info.tables if t.preamble.name == flow["table"])
    action = next(a for a in info.actions if a.preamble.name == flow["action_name"])
    entry = pb.TableEntry(table_id=table.preamble.id)
    for name, value in flow.get("match", {}).items():
        field = next(f for f in table.match_fields if f.name == name)
        match = entry.match.add(field_id=field.id)
        if field.match_type == p4info_pb2.MatchField.LPM:
            match.lpm.value, match.lpm.prefix_len = encode(value[0], field.bitwidth), value[1]
        else:
            match.exact.value = encode(value, field.bitwidth)
    entry.is_default_action = bool(flow.get("default_action"))
    entry.action.action.action_id = action.preamble.id
    for name, value in flow["action_params"].items():
        param = next(p for p in action.params if p.name == name)
        entry.action.action.params.add(param_id=param.id, value=encode(value, param.bitwidth))
    return entry


def pre_entries():
    for group in RUNTIME["multicast_group_entries"]:
        e = pb.PacketReplicationEngineEntry()
        e.multicast_group_entry.multicast_group_id = group["multicast_group_id"]
        for r in group["replicas"]:
            e.multicast_group_entry.replicas.add(egress_port=r["egress_port"],
                                                 instance=r["instance"])
        yield e
    for session in RUNTIME["clone_session_entries"]:
        e = pb.PacketReplicationEngineEntry()
        s = e.clone_session_entry
        s.session_id, s.class_of_service = session["clone_session_id"], 0
        s.packet_length_bytes = session.get("packet_length_bytes", 0)
        for r in session["replicas"]:
            s.replicas.add(egress_port=r["egress_port"], instance=r["instance"])
        yield e


def frame(src: str, dst: str) -> bytes:
    ip = bytes.fromhex("45000024000100004001" + "0000") + ipaddress.IPv4Address(src).packed \
        + ipaddress.IPv4Address(dst).packed
    return bytes.fromhex("080000000100" "080000000111" "0800") + ip + bytes(16)


@pytest.fixture
def programmed(tmp_path):
    assert p4c(["--p4v", "16", "--p4runtime-files", str(tmp_path / "acl.p4.p4info.txtpb"),
                "-o", str(tmp_path / "acl.json"), str(PROGRAM)]) == 0
    info = p4info_pb2.P4Info()
    text_format.Merge((tmp_path / "acl.p4.p4info.txtpb").read_text(), info,
                      allow_unknown_field=True)
    device = PipelineDevice(device_id=0)
    server = P4RuntimeServer(device, "127.0.0.1:0").start()
    client = Client(f"127.0.0.1:{server.port}", 0, 1)
    try:
        client.arbitrate()
        client.set_pipeline(info, (tmp_path / "acl.json").read_bytes())
        for flow in RUNTIME["table_entries"]:
            kind = pb.Update.MODIFY if flow.get("default_action") else pb.Update.INSERT
            client.write((kind, pb.Entity(table_entry=table_entry(info, flow))))
        for entry in pre_entries():
            client.write((pb.Update.INSERT,
                          pb.Entity(packet_replication_engine_entry=entry)))
        yield client, device, info
    finally:
        client.close()
        server.stop()


def read_counter(client, info, name, index):
    counter = next(c for c in info.counters if c.preamble.name == name)
    request = pb.CounterEntry(counter_id=counter.preamble.id)
    request.index.index = index
    [entity] = client.read(pb.Entity(counter_entry=request))
    return entity.counter_entry.data.packet_count, entity.counter_entry.data.byte_count


def test_the_runtime_json_forwards_blocks_and_counts(programmed):
    client, device, info = programmed
    allowed, blocked, unrouted = (frame("10.0.1.1", "10.0.2.2"), frame("10.0.3.3", "10.0.1.1"),
                                  frame("10.0.1.1", "10.0.9.9"))
    for f in (allowed, blocked, unrouted):
        device.receive(f, 1)
    [(port, out)] = device.sent
    assert port == 2 and out[:6] == bytes.fromhex("080000000222") and out[22] == 63
    assert read_counter(client, info, "MyIngress.forwarded", 2) == (1, len(allowed))
    assert read_counter(client, info, "MyIngress.blocked", 3) == (1, len(blocked))
    assert read_counter(client, info, "MyIngress.forwarded", 1) == (0, 0)


def test_the_default_action_and_pre_entries_read_back_as_written(programmed):
    client, _, info = programmed
    lpm = next(t for t in info.tables if t.preamble.name == "MyIngress.ipv4_lpm")
    drop = next(a for a in info.actions if a.preamble.name == "MyIngress.drop")
    [default] = client.read(pb.Entity(table_entry=pb.TableEntry(table_id=lpm.preamble.id,
                                                                is_default_action=True)))
    assert default.table_entry.action.action.action_id == drop.preamble.id
    group = pb.PacketReplicationEngineEntry()
    group.multicast_group_entry.multicast_group_id = 1
    [got] = client.read(pb.Entity(packet_replication_engine_entry=group))
    assert [r.egress_port for r in got.packet_replication_engine_entry
            .multicast_group_entry.replicas] == [1, 2]
    session = pb.PacketReplicationEngineEntry()
    session.clone_session_entry.session_id = 100
    [got] = client.read(pb.Entity(packet_replication_engine_entry=session))
    assert got.packet_replication_engine_entry.clone_session_entry.packet_length_bytes == 64
