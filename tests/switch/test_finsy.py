"""finsy, an asyncio P4Runtime client from PyPI, runs a controller's whole session
against our server.

finsy's pins are its own, so vagrant/install.sh installs it into the outside clients'
venv, .venv-clients; the flow (tests/switch/finsy_flow.py) runs under that venv's Python in a child process.
"""
import shutil
import subprocess
from pathlib import Path

import pytest

from certs import self_signed
from p4rt_device import PipelineDevice, translation_pipeline_files
from testbed.p4 import p4info
from testbed.p4.lowering.program import load_program
from testbed.p4runtime.tls import ServerTls
from testbed.switch.p4runtime_server import P4RuntimeServer

REPO = Path(__file__).resolve().parents[2]
CLIENTS_PYTHON = REPO / ".venv-clients" / "bin" / "python"
FLOW = Path(__file__).with_name("finsy_flow.py")
FEATURES = Path(__file__).parent / "data" / "p4info_features.p4"


def _finsy_python() -> Path:
    if not CLIENTS_PYTHON.exists():
        pytest.skip(".venv-clients (finsy) is not built: vagrant/install.sh skipped it "
                    "offline; run `make setup` with PyPI reachable")
    return CLIENTS_PYTHON


@pytest.mark.slow
@pytest.mark.parametrize("channel", ["plain TCP", "TLS"])
def test_finsy_full_flow(tmp_path, channel):
    """Connect, set the pipeline, insert, read, modify, delete, counters, registers,
    then finsy's delete_all: every writable entry gone, defaults back to the program's."""
    python = _finsy_python()
    info = tmp_path / "features.p4info.txt"
    p4info.write(p4info.build(load_program(FEATURES)), info)
    tls, trust = None, []
    if channel == "TLS":
        if shutil.which("openssl") is None:
            pytest.skip("no openssl command to make a test certificate: apt-get install openssl")
        cert, key = self_signed(tmp_path, "server")
        tls, trust = ServerTls(cert, key), [str(cert)]
    device = PipelineDevice(device_id=1)
    server = P4RuntimeServer(device, "127.0.0.1:0", tls=tls).start()
    try:
        run = subprocess.run([str(python), str(FLOW), f"127.0.0.1:{server.port}", str(info),
                              str(FEATURES), *trust], capture_output=True, text=True,
                             timeout=120)
    finally:
        server.stop()
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert lines[:6] == ["PRIMARY True", "READ [2, 3]", "MODIFIED [4]", "DELETED 0",
                         "COUNTER [7]", "REGISTER [256]"], run.stdout + run.stderr
    assert device.loads == 1
    assert device.target.counter_read("MyIngress.port_counter", 2) == (7, 0)
    assert device.target.register_read("MyIngress.last_seen", 3) == 256
    # delete_all leaves only the const table's two entries, and fwd's default is drop again
    assert lines[6:8] == ["TABLES ['classify', 'classify']", "DEFAULT ['drop']"], \
        run.stdout + run.stderr
    # finsy's own bug, not the server's: its delete_all read the replication entries back
    # (the flow reads them the same way) but, the P4Info having a const table, deleted
    # only table entries; deleting what the read returned then empties the engine
    assert lines[8:] == ["LEFT BY DELETE_ALL ['P4CloneSessionEntry', 'P4MulticastGroupEntry']",
                         "REPLICATION 0"], run.stdout + run.stderr
    assert device.target.mc_groups() == {} and device.target.clone_sessions() == {}
    assert device.target.table_get_default("MyIngress.fwd").action == "MyIngress.drop"


@pytest.mark.slow
def test_finsy_drives_action_profile_members_groups_and_one_shot(tmp_path):
    """finsy's own entities for action selectors: members, a weighted group with a watch
    port, an indirect entry naming the group, then a one-shot action set, read back as
    written, and delete_all removing entries before the members and groups they name."""
    python = _finsy_python()
    selector = Path(__file__).parent / "data" / "selector.p4"
    info = tmp_path / "selector.p4info.txt"
    p4info.write(p4info.build(load_program(selector)), info)
    device = PipelineDevice(device_id=1)
    server = P4RuntimeServer(device, "127.0.0.1:0").start()
    try:
        run = subprocess.run([str(python), str(FLOW.with_name("finsy_profile_flow.py")),
                              f"127.0.0.1:{server.port}", str(info), str(selector)],
                             capture_output=True, text=True, timeout=120)
    finally:
        server.stop()
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.splitlines() == [
        "MEMBERS [1, 2, 3]", "GROUP [(1, 1), (2, (2, 5)), (3, 1)]", "ENTRY GROUP [7]",
        "ONE-SHOT [(2, 4), (1, 5)]", "LEFT 0"], run.stdout + run.stderr
    assert device.target.profile("MyIngress.ecmp_selector").members == {}


@pytest.mark.slow
def test_finsy_speaks_translated_types_in_controller_values(tmp_path):
    """finsy encodes translated types from the P4Info (a 32-bit port, a VRF name); the
    server maps them with the mapping sent in the device config: the entry is held in
    data-plane values, reads back as written, an unmapped VRF is refused naming the
    field, and a packet-out to controller port 3000 leaves by port 3."""
    python = _finsy_python()
    info, config = translation_pipeline_files(tmp_path)
    device = PipelineDevice(device_id=1, cpu_port=255)
    server = P4RuntimeServer(device, "127.0.0.1:0").start()
    try:
        run = subprocess.run([str(python), str(FLOW.with_name("finsy_translation_flow.py")),
                              f"127.0.0.1:{server.port}", str(info), str(config)],
                             capture_output=True, text=True, timeout=120)
    finally:
        server.stop()
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.splitlines() == [
        "READ {'in_port': 1000, 'vrf': 'blue'} {'port': 2000}",
        "REFUSED INVALID_ARGUMENT table MyIngress.routes: field meta.vrf: vrf_t value "
        "'green' does not translate to a data-plane value (the controller's mapping for "
        "trainet.example/vrf_t)",
        "PACKET_OUT sent"], run.stdout + run.stderr
    [entry] = device.target.table_entries("MyIngress.routes")
    assert [m.value for m in entry.match[:2]] == [1, 7] and entry.action.params == {"port": 2}
    assert [port for port, _ in device.sent] == [3]
