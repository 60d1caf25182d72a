"""p4runtime-shell, the P4 community's interactive P4Runtime client, programs our server.

p4runtime-shell is a test dependency (pyproject.toml, ``.[test]``), installed in .venv by
vagrant/install.sh; the test needs no network. It runs the client in a child process, as a
user would run the shell.
"""
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
from p4.v1 import p4runtime_pb2 as pb

from p4rt_device import PipelineDevice
from testbed.p4 import p4info
from testbed.p4.frontend import load_program
from testbed.p4.p4c import main as p4c
from testbed.switch.p4runtime import P4RuntimeServer

REPO = Path(__file__).resolve().parents[2]
BASIC = REPO / "p4" / "basic.p4"

SCRIPT = r'''
import faulthandler
import sys
import p4runtime_sh.shell as sh

faulthandler.dump_traceback_later(60, exit=True)      # a hung client dumps its threads
addr, p4info_path, source_path = sys.argv[1:4]
sh.setup(device_id=1, grpc_addr=addr, election_id=(0, 1), verbose=False,
         config=sh.FwdPipeConfig(p4info_path, source_path))
try:
    te = sh.TableEntry("MyIngress.ipv4_lpm")(action="MyIngress.ipv4_forward")
    te.match["hdr.ipv4.dstAddr"] = "10.0.1.0/24"
    te.action["dstAddr"] = "00:00:00:00:01:01"
    te.action["port"] = "3"
    te.insert()
    for entry in sh.TableEntry("MyIngress.ipv4_lpm").read():
        print("ENTRY", entry.msg().SerializeToString().hex())
    sh.MulticastGroupEntry(1).add(1, 1).add(2, 1).insert()
    for group in sh.MulticastGroupEntry(1).read():
        replicas = group.msg().multicast_group_entry.replicas
        print("GROUP", [(r.egress_port, r.instance) for r in replicas])
finally:
    sh.teardown()
'''


def _shell_python() -> str:
    if importlib.util.find_spec("p4runtime_sh") is None:
        pytest.fail("p4runtime-shell is not installed, and it is a test dependency: run "
                    "`make setup`, or `pip install -e '.[test]'` in this environment")
    return sys.executable


@pytest.mark.slow
@pytest.mark.parametrize("device_config", ["P4 source", "trainet-p4c's .json"])
def test_p4runtime_shell_sets_the_pipeline_and_writes_entries(tmp_path, device_config):
    python = _shell_python()
    p4info_path = tmp_path / "basic.p4info.txt"
    config = BASIC
    if device_config == "P4 source":
        p4info.write(p4info.build(load_program(BASIC)), p4info_path)
    else:
        config = tmp_path / "basic.json"
        assert p4c(["--p4runtime-files", str(p4info_path), "-o", str(config), str(BASIC)]) == 0
    device = PipelineDevice(device_id=1)
    server = P4RuntimeServer(device, "127.0.0.1:0").start()
    try:
        run = subprocess.run([python, "-c", SCRIPT, f"127.0.0.1:{server.port}",
                              str(p4info_path), str(config)],
                             capture_output=True, text=True, timeout=120)
    finally:
        server.stop()
    assert run.returncode == 0, run.stdout + run.stderr
    entries = [pb.TableEntry.FromString(bytes.fromhex(line.split()[1]))
               for line in run.stdout.splitlines() if line.startswith("ENTRY ")]
    assert len(entries) == 1
    lpm = entries[0].match[0].lpm
    assert (lpm.value, lpm.prefix_len) == (bytes([10, 0, 1, 0]), 24)
    assert "GROUP [(1, 1), (2, 1)]" in run.stdout
    assert [(r.port, r.rid) for r in device.target.mc_groups()[1].replicas] == [(1, 1), (2, 1)]
    entry, = device.target.table_entries("MyIngress.ipv4_lpm")
    assert entry.action.action == "MyIngress.ipv4_forward"
    assert entry.action.params == {"dstAddr": 0x000000000101, "port": 3}
