"""SetForwardingPipelineConfig takes device configs as BMv2 clients send them: P4 source,
trainet-p4c's .json, BMv2 JSON, any of them wrapped in p4.tmp.P4DeviceConfig; it refuses
the rest with INVALID_ARGUMENT and keeps the pipeline it has."""
import json
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from p4.v1 import p4runtime_pb2 as pb

from installed import InstalledLayout
from p4rt_client import Client
from p4rt_device import PipelineDevice
from testbed.p4 import p4info
from testbed.p4.lowering.program import load_program
from testbed.p4.p4c import main as p4c
from testbed.p4runtime.device_config import p4config_pb2, program_from_file
from testbed.switch.p4runtime_server import P4RuntimeServer

REPO = Path(__file__).resolve().parents[2]
BASIC = REPO / "p4" / "basic.p4"
FEATURES = Path(__file__).parent / "data" / "p4info_features.p4"
BASIC_INFO = p4info.build(load_program(BASIC))
BASIC_BMV2 = REPO / "tests" / "p4" / "bmv2" / "basic.json"


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """trainet-p4c's output for basic.p4: (the .json, the text P4Info)."""
    out = tmp_path_factory.mktemp("build")
    assert p4c(["--p4v", "16", "--p4runtime-files", str(out / "basic.p4info.txtpb"), "-o",
                str(out / "basic.json"), str(BASIC)]) == 0
    return out / "basic.json", out / "basic.p4info.txtpb"


@pytest.fixture
def server():
    device = PipelineDevice(device_id=1)
    srv = P4RuntimeServer(device, "127.0.0.1:0").start()
    client = Client(f"127.0.0.1:{srv.port}", 1, 1)
    client.arbitrate()
    yield client, device
    client.close()
    srv.stop()


def _wrapped(data: bytes) -> bytes:
    return p4config_pb2.P4DeviceConfig(reassign=True, device_data=data).SerializeToString()


def _installed(client, device):
    entry = client.read(pb.Entity(table_entry=pb.TableEntry()))
    return device.target is not None and entry == []


def test_each_accepted_form_installs_the_program(server, compiled):
    client, device = server
    artefact = compiled[0].read_bytes()
    forms = [BASIC.read_bytes(), artefact, _wrapped(BASIC.read_bytes()), _wrapped(artefact)]
    for n, config in enumerate(forms, 1):
        client.set_pipeline(BASIC_INFO, config)
        assert device.loads == n and _installed(client, device)
        got = client.stub.GetForwardingPipelineConfig(
            pb.GetForwardingPipelineConfigRequest(device_id=1)).config
        assert got.p4_device_config == config


def test_other_payloads_are_refused_and_the_pipeline_stays(server):
    client, device = server
    client.set_pipeline(BASIC_INFO, BASIC.read_bytes())
    bmv2 = json.dumps({"header_types": [], "pipelines": []}).encode()
    broken = BASIC.read_bytes().replace(b"egressSpec_t;", b"egressSpec_t", 1)
    cases = [(bmv2, "pipelines: no pipeline named 'ingress'"),
             (b"\x00\xff\xfe binary", "binary data"),
             (b"", "is empty"), (_wrapped(b""), "empty device_data"),
             (b'{"name": "x"}', "not trainet-p4c's output"),
             (b"\x1a\x05abc", "neither text nor a p4.tmp.P4DeviceConfig"),
             (_wrapped(broken), "P4DeviceConfig.device_data):11:1")]
    for config, words in cases:
        with pytest.raises(grpc.RpcError) as e:
            client.set_pipeline(BASIC_INFO, config)
        assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert words in e.value.details(), e.value.details()
        if words not in ("P4DeviceConfig.device_data):11:1",
                         "pipelines: no pipeline named 'ingress'"):
            assert "p4.tmp.P4DeviceConfig" in e.value.details()
    assert device.loads == 1


def test_bmv2_json_in_a_p4_device_config_with_p4cs_p4info_forwards(server):
    """As with BMv2, the client sends the P4Info: the JSON holds no P4Runtime ids."""
    client, device = server
    client.set_pipeline(BASIC_INFO, _wrapped(BASIC_BMV2.read_bytes()))
    ids = {o.preamble.name: o.preamble.id for o in [*BASIC_INFO.tables, *BASIC_INFO.actions]}
    te = pb.TableEntry(table_id=ids["MyIngress.ipv4_lpm"])
    m = te.match.add(field_id=1)
    m.lpm.value, m.lpm.prefix_len = bytes([10, 0, 2, 0]), 24
    te.action.action.action_id = ids["MyIngress.ipv4_forward"]
    te.action.action.params.add(param_id=1, value=bytes.fromhex("000000000202"))
    te.action.action.params.add(param_id=2, value=b"\x02")
    client.write((pb.Update.INSERT, pb.Entity(table_entry=te)))
    frame = bytes.fromhex("aabbccddeeff000000000001 0800".replace(" ", "")) + bytes.fromhex(
        "4500001c0001000040110000c0a800010a000207") + b"\x00" * 8
    device.receive(frame, 1)
    [(port, out)] = device.sent
    assert port == 2 and out[:6] == bytes.fromhex("000000000202") and out[22] == 63
    assert client.read(pb.Entity(table_entry=pb.TableEntry()))[0].table_entry.match[0] \
        .lpm.prefix_len == 24


TUTORIALS_CLIENT = Path(__file__).with_name("tutorials_client.py")


@pytest.mark.slow
def test_tutorials_p4runtime_lib_client_runs_unchanged(compiled, tmp_path):
    """The client imports p4.tmp.p4config_pb2 from trainet's install and wraps the .json."""
    layout = InstalledLayout(tmp_path)
    device = PipelineDevice(device_id=0)
    srv = P4RuntimeServer(device, "127.0.0.1:0").start()
    try:
        run = subprocess.run([sys.executable, str(TUTORIALS_CLIENT), f"127.0.0.1:{srv.port}",
                              "0", str(compiled[1]), str(compiled[0]),
                              "10.0.2.2,00:00:00:00:02:02,2"], env=layout.env(),
                             capture_output=True, text=True, timeout=120)
    finally:
        srv.stop()
    assert run.returncode == 0 and "programmed" in run.stdout, run.stderr
    entry, = device.target.table_entries("MyIngress.ipv4_lpm")
    assert entry.action.params == {"dstAddr": 0x202, "port": 2}


def test_a_switch_program_file_may_be_bmv2_json():
    """What trainet-switch and trainet switch load for their positional program."""
    program = program_from_file(BASIC_BMV2)
    assert list(program.controls["ingress"].tables) == ["MyIngress.ipv4_lpm"]


PROFILES_BMV2 = REPO / "tests" / "p4" / "bmv2" / "profiles.json"


def test_bmv2_json_action_profiles_over_p4runtime(server):
    """BMv2 JSON with an indirect and an indirect_ws table: members and a group written
    over P4Runtime with the P4Info of the program, entries naming them, packets spread
    over the group by the selector's hash."""
    client, device = server
    info = p4info.build(program_from_file(PROFILES_BMV2))
    ids = {o.preamble.name: o.preamble.id
           for o in [*info.tables, *info.actions, *info.action_profiles]}
    client.set_pipeline(info, _wrapped(PROFILES_BMV2.read_bytes()))
    updates = []
    for mid, port in ((1, 3), (2, 4), (3, 5)):
        m = pb.ActionProfileMember(action_profile_id=ids["MyIngress.sel"], member_id=mid)
        m.action.action_id = ids["MyIngress.foo1"]
        m.action.params.add(param_id=1, value=bytes([mid]))
        m.action.params.add(param_id=2, value=bytes([port]))
        updates.append((pb.Update.INSERT, pb.Entity(action_profile_member=m)))
    g = pb.ActionProfileGroup(action_profile_id=ids["MyIngress.sel"], group_id=7)
    for mid in (1, 2, 3):
        g.members.add(member_id=mid, weight=1)
    updates.append((pb.Update.INSERT, pb.Entity(action_profile_group=g)))
    te = pb.TableEntry(table_id=ids["MyIngress.sel_tbl"])
    te.match.add(field_id=1).exact.value = b"\x02"
    te.action.action_profile_group_id = 7
    updates.append((pb.Update.INSERT, pb.Entity(table_entry=te)))
    client.write(*updates)
    for hash_val in range(16):
        device.receive(bytes([2, hash_val, 0, 0]) + b"payload", 1)
    assert {port for port, _ in device.sent} == {3, 4, 5}
    for port, out in device.sent:
        assert out[2] == port - 2          # foo1 wrote the member's val into f1
    device.sent.clear()
    device.receive(bytes([9, 0, 0, 0]), 1)  # no entry: NoAction on both tables
    assert device.sent == [(0, bytes([9, 0, 0, 0]))]
