"""SetForwardingPipelineConfig takes device configs as BMv2 clients send them: P4 source,
trainet-p4c's .json, either wrapped in p4.tmp.P4DeviceConfig; it refuses the rest with
INVALID_ARGUMENT and keeps the pipeline it has."""
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
from testbed.p4.frontend import load_program
from testbed.p4.p4c import main as p4c
from testbed.p4runtime.device_config import p4config_pb2
from testbed.switch.p4runtime import P4RuntimeServer

REPO = Path(__file__).resolve().parents[2]
BASIC = REPO / "p4" / "basic.p4"
FEATURES = Path(__file__).parent / "data" / "p4info_features.p4"
BASIC_INFO = p4info.build(load_program(BASIC))


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
    cases = [(bmv2, "is BMv2 JSON"), (b"\x00\xff\xfe binary", "binary data"),
             (b"", "is empty"), (_wrapped(b""), "empty device_data"),
             (b'{"name": "x"}', "not trainet-p4c's output"),
             (b"\x1a\x05abc", "neither text nor a p4.tmp.P4DeviceConfig"),
             (_wrapped(broken), "P4DeviceConfig.device_data):11:1")]
    for config, words in cases:
        with pytest.raises(grpc.RpcError) as e:
            client.set_pipeline(BASIC_INFO, config)
        assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert words in e.value.details(), e.value.details()
        if words != "P4DeviceConfig.device_data):11:1":
            assert "p4.tmp.P4DeviceConfig" in e.value.details()
    assert device.loads == 1


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
