"""Type translation (@p4runtime_translation) driven over gRPC as a controller would: the
P4Info describes the translated types as p4c does, the controller's mapping comes with the
pipeline, writes, reads, packet-out and packet-in travel in controller values while the
data plane holds its own, and values that do not map are refused naming the field, the
state unchanged."""
import json
import time
from pathlib import Path

import grpc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from p4.tmp import p4config_pb2
from p4.v1 import p4runtime_pb2 as pb

from p4rt_client import Client, batch_errors
from p4rt_device import PipelineDevice, object_id, p4info_of
from testbed.p4 import p4info
from testbed.p4.lowering.program import load_program
from testbed.p4.targets import make_target
from testbed.switch.p4runtime_server import P4RuntimeServer

PROGRAM = Path(__file__).parent / "data" / "translation.p4"
INS, MOD, DEL = pb.Update.INSERT, pb.Update.MODIFY, pb.Update.DELETE
PORTS = [[1000, 1], [2000, 2], [3000, 3]]         # controller port -> data-plane port
VRFS = [["blue", 7], ["red", 9]]                  # controller VRF name -> data-plane id
CODE = {c.value[0]: c for c in grpc.StatusCode}


def _info():
    return p4info_of(PROGRAM)


def _id(kind, name):
    return object_id(_info(), kind, name)


ROUTES = _id("tables", "MyIngress.routes")
FORWARD = _id("actions", "MyIngress.forward")
TO_CPU = _id("actions", "MyIngress.to_cpu")


def device_config(**mappings) -> bytes:
    """The program in PI's P4DeviceConfig, with the controller's mappings by URI."""
    wrapper = p4config_pb2.P4DeviceConfig(device_data=PROGRAM.read_bytes())
    for uri, pairs in mappings.items():
        wrapper.extras.kv[f"p4runtime_translation:trainet.example/{uri}"] = json.dumps(pairs)
    return wrapper.SerializeToString()


def _switch(config: bytes):
    device = PipelineDevice(device_id=1, cpu_port=255)
    server = P4RuntimeServer(device, "127.0.0.1:0").start()
    client = Client(f"127.0.0.1:{server.port}", 1, 5)
    client.arbitrate()
    client.set_pipeline(_info(), config)
    return client, device, server


@pytest.fixture
def mapped():
    client, device, server = _switch(device_config(port_t=PORTS, vrf_t=VRFS))
    yield client, device
    client.close()
    server.stop()


@pytest.fixture
def unmapped():
    client, device, server = _switch(PROGRAM.read_bytes())
    yield client, device
    client.close()
    server.stop()


def route(port: bytes, vrf: bytes, action=FORWARD, out: bytes = b"") -> pb.Entity:
    te = pb.TableEntry(table_id=ROUTES, priority=10)      # meta.zone is ternary: wildcard
    te.match.add(field_id=1).exact.value = port
    te.match.add(field_id=2).exact.value = vrf
    te.action.action.action_id = action
    if out:
        te.action.action.params.add(param_id=1, value=out)
    return pb.Entity(table_entry=te)


def frame(vrf: int) -> bytes:
    return bytes(6) + bytes.fromhex("0a0b0c0d0e0f") + bytes([0, vrf]) + b"payload"


def read_routes(client):
    return [e.table_entry for e in client.read(pb.Entity(table_entry=pb.TableEntry(
        table_id=ROUTES)))]


def _refused(client, *updates, atomicity=0):
    with pytest.raises(grpc.RpcError) as e:
        client.write(*updates, atomicity=atomicity)
    return [(CODE[err.canonical_code], err.message) for err in batch_errors(e.value)]


def test_p4info_describes_translated_types_as_p4c_does():
    info = _info()
    port, vrf = info.type_info.new_types["port_t"], info.type_info.new_types["vrf_t"]
    assert port.translated_type.uri == "trainet.example/port_t"
    assert port.translated_type.sdn_bitwidth == 32
    assert vrf.translated_type.uri == "trainet.example/vrf_t"
    assert vrf.translated_type.WhichOneof("sdn_type") == "sdn_string"
    zone = info.type_info.new_types["zone_t"]              # a `type` without translation
    assert zone.original_type.bitstring.bit.bitwidth == 12
    table = next(t for t in info.tables if t.preamble.id == ROUTES)
    assert [(f.name, f.bitwidth, f.type_name.name) for f in table.match_fields] == [
        ("meta.in_port", 32, "port_t"), ("meta.vrf", 0, "vrf_t"), ("meta.zone", 12, "zone_t")]
    forward = next(a for a in info.actions if a.preamble.id == FORWARD)
    assert [(p.name, p.bitwidth, p.type_name.name) for p in forward.params] == [
        ("port", 32, "port_t")]
    for header in info.controller_packet_metadata:
        assert [(m.bitwidth, m.type_name.name) for m in header.metadata] == [
            (32, "port_t"), (7, "")]


def test_entries_travel_in_controller_values_and_the_data_plane_holds_its_own(mapped):
    client, device = mapped
    client.write((INS, route((1000).to_bytes(4, "big"), b"blue", out=(2000).to_bytes(4, "big"))))
    [entry] = device.target.table_entries("MyIngress.routes")
    assert [m.value for m in entry.match[:2]] == [1, 7]             # data-plane values
    assert entry.action.params == {"port": 2}
    device.receive(frame(vrf=7), 1)                                   # port 1, VRF 7
    assert [port for port, _ in device.sent] == [2]
    [read] = read_routes(client)
    assert [m.exact.value for m in read.match] == [(1000).to_bytes(2, "big"), b"blue"]
    assert read.action.action.params[0].value == (2000).to_bytes(2, "big")
    change = route((1000).to_bytes(4, "big"), b"blue", out=(3000).to_bytes(4, "big"))
    client.write((MOD, change))
    assert device.target.table_entries("MyIngress.routes")[0].action.params == {"port": 3}


CONTROLLER_PORTS = st.sampled_from([p for p, _ in PORTS]) | st.integers(0, 2 ** 32 - 1)
CONTROLLER_VRFS = st.sampled_from([v.encode() for v, _ in VRFS]) | st.binary(max_size=6)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(port=CONTROLLER_PORTS, vrf=CONTROLLER_VRFS, out=CONTROLLER_PORTS)
def test_a_write_is_taken_exactly_when_its_values_map_and_reads_back_as_sent(mapped, port,
                                                                             vrf, out):
    client, _ = mapped
    entity = route(port.to_bytes(4, "big"), vrf, out=out.to_bytes(4, "big"))
    ports, vrfs = dict(PORTS), {v.encode() for v, _ in VRFS}
    if port in ports and vrf in vrfs and out in ports:
        client.write((INS, entity))
        [read] = read_routes(client)
        assert [m.exact.value for m in read.match] == [port.to_bytes(2, "big"), vrf]
        assert read.action.action.params[0].value == out.to_bytes(2, "big")
        client.write((DEL, entity))
    else:
        [(code, message)] = _refused(client, (INS, entity))
        assert code == grpc.StatusCode.INVALID_ARGUMENT and "does not translate" in message
    assert read_routes(client) == []


@pytest.mark.parametrize("port, vrf, out, field", [
    (1234, b"blue", 2000, "table MyIngress.routes: field meta.in_port"),
    (1000, b"green", 2000, "table MyIngress.routes: field meta.vrf"),
    (1000, b"red", 5, "action MyIngress.forward parameter port"),
])
def test_values_that_do_not_map_are_refused_naming_the_field(mapped, port, vrf, out, field):
    client, device = mapped
    good = route((2000).to_bytes(4, "big"), b"red", out=(1000).to_bytes(4, "big"))
    bad = route(port.to_bytes(4, "big"), vrf, out=out.to_bytes(4, "big"))
    errors = _refused(client, (INS, good), (INS, bad),
                      atomicity=pb.WriteRequest.ROLLBACK_ON_ERROR)
    assert errors[0][0] == grpc.StatusCode.ABORTED                   # rolled back
    code, message = errors[1]
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert field in message and "does not translate" in message
    assert read_routes(client) == [] and device.target.table_entries("MyIngress.routes") == []


def test_packet_out_and_packet_in_carry_controller_ports(mapped):
    client, device = mapped
    out = pb.StreamMessageRequest()
    out.packet.payload = frame(vrf=9)
    out.packet.metadata.add(metadata_id=1, value=(3000).to_bytes(4, "big"))
    client.send(out)
    _wait_sent(device)
    assert device.sent == [(3, frame(vrf=9))]                        # controller port 3000
    out.packet.metadata[0].value = (7).to_bytes(4, "big")            # no data-plane port
    client.send(out)
    error = client.next("error")
    assert error.canonical_code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert "packet_out metadata egress_port" in error.message
    client.write((INS, route((2000).to_bytes(4, "big"), b"red", action=TO_CPU)))
    device.receive(frame(vrf=9), 2)
    packet_in = client.next("packet")
    assert packet_in.metadata[0].value == (2000).to_bytes(2, "big")  # data-plane port 2


def _wait_sent(device):
    deadline = time.monotonic() + 5
    while not device.sent and time.monotonic() < deadline:
        time.sleep(0.01)


def test_without_a_mapping_ports_keep_their_values_and_strings_map_nothing(unmapped):
    client, device = unmapped
    out = pb.StreamMessageRequest()
    out.packet.payload = frame(vrf=9)
    out.packet.metadata.add(metadata_id=1, value=(4).to_bytes(4, "big"))
    client.send(out)
    _wait_sent(device)
    assert device.sent == [(4, frame(vrf=9))]                        # port 4 is port 4
    out.packet.metadata[0].value = (600).to_bytes(4, "big")          # over 9 bits
    client.send(out)
    assert client.next("error").canonical_code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    [(code, message)] = _refused(client, (INS, route((300).to_bytes(4, "big"), b"blue",
                                                     out=(4).to_bytes(4, "big"))))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "meta.vrf" in message
    assert "give one for trainet.example/vrf_t" in message
    [(code, message)] = _refused(client, (INS, route((600).to_bytes(4, "big"), b"blue")))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "meta.in_port" in message
    assert read_routes(client) == []


@pytest.mark.parametrize("mappings, complaint", [
    ({"port_t": [[1000, 1], [2000, 1]]}, "one to one"),
    ({"port_t": [[1000, 600]]}, "0..511"),
    ({"vrf_t": [[7, 7]]}, "non-empty string"),
    ({"mac_t": [[1, 1]]}, "no type of the P4Info translates trainet.example/mac_t"),
])
def test_bad_mappings_are_refused_with_the_pipeline(mappings, complaint):
    device = PipelineDevice(device_id=1)
    server = P4RuntimeServer(device, "127.0.0.1:0").start()
    client = Client(f"127.0.0.1:{server.port}", 1, 5)
    try:
        client.arbitrate()
        with pytest.raises(grpc.RpcError) as e:
            client.set_pipeline(_info(), device_config(**mappings))
        assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert complaint in e.value.details()
        assert device.target is None
    finally:
        client.close()
        server.stop()


PSA_SELECTOR = Path(__file__).parent / "data" / "psa_selector.p4"
PSA_PORT = "p4.org/psa/v1/PortId_t"


class PsaDevice(PipelineDevice):
    def load_pipeline(self, program):
        self.target = make_target(program, "python")


def test_members_and_one_shot_sets_translate_their_parameters():
    """PSA's PortId_t is translated (psa.p4): action profile members and one-shot action
    sets carry controller ports, the profile holds the data plane's."""
    info = p4info.build(load_program(PSA_SELECTOR))
    fwd = next(a for a in info.actions if a.preamble.name == "ingress.fwd")
    assert fwd.params[0].type_name.name == "PortId_t"
    assert info.type_info.new_types["PortId_t"].translated_type.uri == PSA_PORT
    sel = info.action_profiles[0].preamble.id
    table = info.tables[0].preamble.id
    wrapper = p4config_pb2.P4DeviceConfig(device_data=PSA_SELECTOR.read_bytes())
    wrapper.extras.kv[f"p4runtime_translation:{PSA_PORT}"] = json.dumps([[1001, 1], [1002, 2]])
    device = PsaDevice(device_id=1)
    server = P4RuntimeServer(device, "127.0.0.1:0").start()
    client = Client(f"127.0.0.1:{server.port}", 1, 5)

    def member(mid, port):
        m = pb.ActionProfileMember(action_profile_id=sel, member_id=mid)
        m.action.action_id = fwd.preamble.id
        m.action.params.add(param_id=1, value=port.to_bytes(4, "big"))
        return pb.Entity(action_profile_member=m)

    try:
        client.arbitrate()
        client.set_pipeline(info, wrapper.SerializeToString())
        client.write((INS, member(1, 1001)))
        assert device.target.profile("ingress.sel").member(1).action.params == {"port": 1}
        [read] = client.read(pb.Entity(action_profile_member=pb.ActionProfileMember(
            action_profile_id=sel)))
        assert read.action_profile_member.action.params[0].value == (1001).to_bytes(2, "big")
        [(code, message)] = _refused(client, (INS, member(2, 5)))
        assert code == grpc.StatusCode.INVALID_ARGUMENT
        assert "action ingress.fwd parameter port" in message
        assert list(device.target.profile("ingress.sel").members) == [1]
        te = pb.TableEntry(table_id=table)
        te.match.add(field_id=1).exact.value = b"\x05"
        for port in (1001, 1002):
            action = te.action.action_profile_action_set.action_profile_actions.add(weight=1)
            action.action.action_id = fwd.preamble.id
            action.action.params.add(param_id=1, value=port.to_bytes(4, "big"))
        client.write((INS, pb.Entity(table_entry=te)))
        [stored] = device.target.table_entries("ingress.t")
        assert [call.params for call, _, _ in stored.action.actions] == [{"port": 1},
                                                                         {"port": 2}]
        [read] = client.read(pb.Entity(table_entry=pb.TableEntry(table_id=table)))
        actions = read.table_entry.action.action_profile_action_set.action_profile_actions
        assert [a.action.params[0].value for a in actions] == [(1001).to_bytes(2, "big"),
                                                              (1002).to_bytes(2, "big")]
    finally:
        client.close()
        server.stop()


def test_the_default_action_and_a_read_filter_translate_too(mapped):
    client, device = mapped
    default = pb.TableEntry(table_id=ROUTES, is_default_action=True)
    default.action.action.action_id = FORWARD
    default.action.action.params.add(param_id=1, value=(3000).to_bytes(4, "big"))
    client.write((MOD, pb.Entity(table_entry=default)))
    assert device.target.table_get_default("MyIngress.routes").params == {"port": 3}
    [read] = client.read(pb.Entity(table_entry=pb.TableEntry(table_id=ROUTES,
                                                             is_default_action=True)))
    assert read.table_entry.action.action.params[0].value == (3000).to_bytes(2, "big")
    for port, vrf in ((1000, b"blue"), (2000, b"red")):
        client.write((INS, route(port.to_bytes(4, "big"), vrf, out=(1000).to_bytes(4, "big"))))
    probe = route((2000).to_bytes(4, "big"), b"red").table_entry
    probe.ClearField("action")
    [found] = client.read(pb.Entity(table_entry=probe))
    assert [m.exact.value for m in found.table_entry.match] == [(2000).to_bytes(2, "big"),
                                                                 b"red"]
    probe.match[1].exact.value = b"green"
    with pytest.raises(grpc.RpcError) as e:
        client.read(pb.Entity(table_entry=probe))
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "meta.vrf" in e.value.details()


def test_a_malformed_translation_annotation_is_an_error_at_its_type():
    from testbed.errors import TrainetError
    from testbed.p4.lowering.program import load_source
    source = PROGRAM.read_text().replace('("trainet.example/port_t", 32)',
                                         '("trainet.example/port_t", 0)')
    with pytest.raises(TrainetError, match=r"translation\.p4:7:\d+: type port_t: "
                                           r"@p4runtime_translation takes a URI string and "
                                           r"a width in bits or `string`"):
        p4info.build(load_source(source, filename=str(PROGRAM)))


# ---------------------------------------------------------------- the P4Info decides
TRANSLATION_BMV2 = Path(__file__).parents[1] / "p4" / "bmv2" / "translation.json"


def _wrapped(program: bytes, **mappings) -> bytes:
    wrapper = p4config_pb2.P4DeviceConfig(device_data=program)
    for uri, pairs in mappings.items():
        wrapper.extras.kv[f"p4runtime_translation:trainet.example/{uri}"] = json.dumps(pairs)
    return wrapper.SerializeToString()


def test_a_bmv2_json_program_translates_as_its_source_by_the_p4info_sent_beside_it():
    """p4c's BMv2 JSON keeps no type names; the P4Info p4c writes beside it does, and it
    alone makes the server translate: the same entries, reads and packets as from P4
    source."""
    device = PipelineDevice(device_id=1, cpu_port=255)
    server = P4RuntimeServer(device, "127.0.0.1:0").start()
    client = Client(f"127.0.0.1:{server.port}", 1, 5)
    try:
        client.arbitrate()
        client.set_pipeline(_info(), _wrapped(TRANSLATION_BMV2.read_bytes(), port_t=PORTS,
                                              vrf_t=VRFS))
        assert device.target.program.new_types == {}          # the JSON names no types
        client.write((INS, route((1000).to_bytes(4, "big"), b"blue",
                                 out=(2000).to_bytes(4, "big"))))
        [entry] = device.target.table_entries("MyIngress.routes")
        assert [m.value for m in entry.match[:2]] == [1, 7]
        assert entry.action.params == {"port": 2}
        device.receive(frame(vrf=7), 1)
        assert [port for port, _ in device.sent] == [2]
        [read] = read_routes(client)
        assert [m.exact.value for m in read.match] == [(1000).to_bytes(2, "big"), b"blue"]
        assert read.action.action.params[0].value == (2000).to_bytes(2, "big")
        [(code, message)] = _refused(client, (INS, route((1000).to_bytes(4, "big"), b"green")))
        assert code == grpc.StatusCode.INVALID_ARGUMENT
        assert "table MyIngress.routes: field meta.vrf" in message
        client.write((INS, route((2000).to_bytes(4, "big"), b"red", action=TO_CPU)))
        device.receive(frame(vrf=9), 2)
        assert client.next("packet").metadata[0].value == (2000).to_bytes(2, "big")
    finally:
        client.close()
        server.stop()


def _untranslated_port_info():
    """translation.p4's P4Info as a compiler told not to translate port_t writes it."""
    info = type(_info())()
    info.CopyFrom(_info())
    info.type_info.new_types["port_t"].ClearField("translated_type")
    info.type_info.new_types["port_t"].original_type.bitstring.bit.bitwidth = 9
    items = [f for t in info.tables for f in t.match_fields]
    items += [p for a in info.actions for p in a.params]
    items += [m for c in info.controller_packet_metadata for m in c.metadata]
    for item in items:
        if item.type_name.name == "port_t":
            item.bitwidth = 9
    return info


def test_where_program_and_p4info_differ_the_p4info_wins():
    """The program annotates port_t; a P4Info that does not translate it is what the
    controller encodes by: ports travel as data-plane values, and a mapping for port_t
    has no type of that P4Info to apply to."""
    info = _untranslated_port_info()
    device = PipelineDevice(device_id=1, cpu_port=255)
    server = P4RuntimeServer(device, "127.0.0.1:0").start()
    client = Client(f"127.0.0.1:{server.port}", 1, 5)
    try:
        client.arbitrate()
        with pytest.raises(grpc.RpcError) as e:
            client.set_pipeline(info, device_config(port_t=PORTS, vrf_t=VRFS))
        assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "no type of the P4Info translates trainet.example/port_t" in e.value.details()
        client.set_pipeline(info, device_config(vrf_t=VRFS))
        client.write((INS, route(b"\x01", b"blue", out=b"\x02")))
        [entry] = device.target.table_entries("MyIngress.routes")
        assert [m.value for m in entry.match[:2]] == [1, 7]            # VRF still translated
        assert entry.action.params == {"port": 2}
        [read] = read_routes(client)
        assert [m.exact.value for m in read.match] == [b"\x01", b"blue"]
        [(code, message)] = _refused(client, (INS, route((1000).to_bytes(2, "big"), b"red")))
        assert code == grpc.StatusCode.OUT_OF_RANGE and "meta.in_port" in message
    finally:
        client.close()
        server.stop()


# ---------------------------------------------------------------- what the program holds
CONST_PROGRAM = Path(__file__).parent / "data" / "translation_const.p4"


@pytest.fixture
def const_switch():
    info = p4info_of(CONST_PROGRAM)
    device = PipelineDevice(device_id=1, cpu_port=255)
    server = P4RuntimeServer(device, "127.0.0.1:0").start()
    client = Client(f"127.0.0.1:{server.port}", 1, 5)
    client.arbitrate()
    client.set_pipeline(info, _wrapped(CONST_PROGRAM.read_bytes(), port_t=PORTS, vrf_t=VRFS))
    yield client, device, info
    client.close()
    server.stop()


def test_const_entries_and_the_initial_default_read_back_in_controller_values(const_switch):
    """The program's own entries hold data-plane values; reads give the controller's.
    A data-plane value the mapping does not reach (port 5, 6) reads back as it is: the
    specification asks the server to translate reads and says nothing of values without
    a controller value, and refusing the read would hide the whole table."""
    client, device, info = const_switch
    ports = object_id(info, "tables", "MyIngress.ports")
    read = [e.table_entry for e in client.read(pb.Entity(table_entry=pb.TableEntry(
        table_id=ports)))]
    assert all(e.is_const for e in read)
    by_key = {e.match[0].exact.value: e.action.action.params[0].value for e in read}
    assert by_key == {(1000).to_bytes(2, "big"): (2000).to_bytes(2, "big"),
                      b"\x05": b"\x06"}                               # mapped; as it is
    [default] = client.read(pb.Entity(table_entry=pb.TableEntry(table_id=ports,
                                                                is_default_action=True)))
    assert default.table_entry.action.action.params[0].value == (3000).to_bytes(2, "big")
    assert device.target.table_get_default("MyIngress.ports").params == {"port": 3}


def test_digest_fields_of_translated_types_reach_the_controller_translated(const_switch):
    client, device, info = const_switch
    digest_id = object_id(info, "digests", "learn_t")
    entry = pb.DigestEntry(digest_id=digest_id)
    entry.config.max_list_size = 1
    client.write((INS, pb.Entity(digest_entry=entry)))
    vrfs = object_id(info, "tables", "MyIngress.vrfs")
    te = pb.TableEntry(table_id=vrfs)
    te.match.add(field_id=1).exact.value = b"red"
    te.action.action.action_id = object_id(info, "actions", "MyIngress.learn")
    client.write((INS, pb.Entity(table_entry=te)))
    device.receive(frame(vrf=9), 3)                                  # data-plane port 3
    digest = client.next("digest")
    assert digest.digest_id == digest_id
    members = digest.data[0].struct.members
    assert [m.bitstring for m in members] == [(3000).to_bytes(2, "big"), b"red", b"\x03"]
    device.receive(frame(vrf=9), 4)                                  # port 4: no mapping
    members = client.next("digest").data[0].struct.members
    assert members[0].bitstring == b"\x04" and members[1].bitstring == b"red"


def test_value_set_members_translate_and_an_unmapped_one_changes_nothing(const_switch):
    client, device, info = const_switch
    vs_id = object_id(info, "value_sets", "MyParser.watched_ports")

    def members(*ports):
        entry = pb.ValueSetEntry(value_set_id=vs_id)
        for port in ports:
            entry.members.add().match.add(field_id=1).exact.value = port.to_bytes(4, "big")
        return pb.Entity(value_set_entry=entry)

    client.write((MOD, members(2000)))
    device.receive(frame(vrf=1), 2)                                  # data-plane port 2
    assert [port for port, _ in device.sent] == [8]                  # the watched path
    [read] = client.read(pb.Entity(value_set_entry=pb.ValueSetEntry(value_set_id=vs_id)))
    assert [m.match[0].exact.value for m in read.value_set_entry.members] == [
        (2000).to_bytes(2, "big")]
    [(code, message)] = _refused(client, (MOD, members(1000, 4242)))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert "value set MyParser.watched_ports: field" in message and "does not translate" in message
    [read] = client.read(pb.Entity(value_set_entry=pb.ValueSetEntry(value_set_id=vs_id)))
    assert [m.match[0].exact.value for m in read.value_set_entry.members] == [
        (2000).to_bytes(2, "big")]
    device.sent.clear()
    device.receive(frame(vrf=1), 1)                                  # 1000's port: unwatched
    device.receive(frame(vrf=1), 2)
    assert [port for port, _ in device.sent] == [2, 8]               # ports: 1 -> forward(2)


def test_a_translated_type_of_two_data_plane_widths_is_refused_with_the_pipeline():
    """With BMv2 JSON the data-plane width of a type comes from the values the P4Info
    names with it; a P4Info naming a 9-bit and a 12-bit field with one type is refused,
    each named."""
    info = type(_info())()
    info.CopyFrom(_info())
    zone = next(f for t in info.tables for f in t.match_fields if f.name == "meta.zone")
    zone.type_name.name, zone.bitwidth = "port_t", 32
    device = PipelineDevice(device_id=1)
    server = P4RuntimeServer(device, "127.0.0.1:0").start()
    client = Client(f"127.0.0.1:{server.port}", 1, 5)
    try:
        client.arbitrate()
        with pytest.raises(grpc.RpcError) as e:
            client.set_pipeline(info, _wrapped(TRANSLATION_BMV2.read_bytes()))
        assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "translates type port_t, whose values have different widths" in e.value.details()
        assert "MyIngress.routes meta.in_port: 9 bits" in e.value.details()
        assert "MyIngress.routes meta.zone: 12 bits" in e.value.details()
        assert device.target is None
    finally:
        client.close()
        server.stop()
