"""A PSA program on real interfaces: trainet-p4c --arch psa compiles it, trainet-switch
runs it on veths between namespaces, a P4Runtime client sets the pipeline and writes
the routes, and the hosts ping through PSA's ingress and egress pipelines."""
import os
import queue
import signal
import socket
import subprocess

import grpc
import pytest
from google.protobuf import text_format
from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc

from installed import REPO, InstalledLayout
from switch_process import free_port, wait_listening
from testbed.switch.lab import VethLab

pytestmark = [pytest.mark.root, pytest.mark.slow]

FORWARD = REPO / "tests" / "p4" / "psa" / "forward.p4"


def _program(addr: str, p4info: p4info_pb2.P4Info, device_config: bytes, hosts) -> None:
    """Primary arbitration, SetForwardingPipelineConfig, then one /32 route per host."""
    channel = grpc.insecure_channel(addr)
    stub = p4runtime_pb2_grpc.P4RuntimeStub(channel)
    requests = queue.Queue()
    stream = stub.StreamChannel(iter(requests.get, None))
    hello = p4runtime_pb2.StreamMessageRequest()
    hello.arbitration.device_id = 0
    hello.arbitration.election_id.low = 1
    requests.put(hello)
    next(stream)
    request = p4runtime_pb2.SetForwardingPipelineConfigRequest(device_id=0)
    request.election_id.low = 1
    request.config.p4info.CopyFrom(p4info)
    request.config.p4_device_config = device_config
    request.action = p4runtime_pb2.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT
    stub.SetForwardingPipelineConfig(request)
    table = next(t for t in p4info.tables if t.preamble.name == "IngressImpl.ipv4_lpm")
    action = next(a for a in p4info.actions if a.preamble.name == "IngressImpl.forward")
    write = p4runtime_pb2.WriteRequest(device_id=0)
    write.election_id.low = 1
    for h in hosts:
        entry = write.updates.add(type=p4runtime_pb2.Update.INSERT).entity.table_entry
        entry.table_id = table.preamble.id
        match = entry.match.add(field_id=table.match_fields[0].id)
        match.lpm.value = socket.inet_aton(h.ip)
        match.lpm.prefix_len = 32
        entry.action.action.action_id = action.preamble.id
        entry.action.action.params.add(param_id=1, value=bytes.fromhex(h.mac.replace(":", "")))
        entry.action.action.params.add(param_id=2, value=bytes([h.index]))
    stub.Write(write)
    requests.put(None)
    stream.cancel()
    channel.close()


def test_psa_program_forwards_between_namespaces(tmp_path):
    layout = InstalledLayout(tmp_path / "installed")
    env = layout.env()
    build = tmp_path / "build"
    build.mkdir()
    info_path, json_path = build / "forward.p4info.txtpb", build / "forward.json"
    subprocess.run(["trainet-p4c", "--arch", "psa", "--p4runtime-files", str(info_path),
                    "-o", str(json_path), str(FORWARD)], env=env, check=True, timeout=120)
    p4info = text_format.Parse(info_path.read_text(), p4info_pb2.P4Info())
    assert p4info.pkg_info.arch == "psa"
    port = free_port()
    with VethLab(n_hosts=2, prefix=f"tp{port % 0xFFF:03x}") as lab:
        h1, h2 = lab.hosts
        switch = subprocess.Popen(
            ["trainet-switch", "-i", f"1@{h1.switch_if}", "-i", f"2@{h2.switch_if}",
             "--device-id", "0", str(json_path), "--log-console", "--",
             "--grpc-server-addr", f"127.0.0.1:{port}"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            start_new_session=True)
        try:
            wait_listening(port, switch)
            _program(f"127.0.0.1:{port}", p4info, json_path.read_bytes(), lab.hosts)
            ping = h1.run("ping", "-c", "3", "-i", "0.2", "-W", "2", h2.ip,
                          capture_output=True, text=True, timeout=60)
            assert ping.returncode == 0, ping.stdout + ping.stderr
            assert " 0% packet loss" in ping.stdout
        finally:
            os.killpg(switch.pid, signal.SIGTERM)
            out, _ = switch.communicate(timeout=30)
    assert "Traceback" not in out, out
