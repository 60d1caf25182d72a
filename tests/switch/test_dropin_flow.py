"""The drop-in flow, end to end: a Makefile written for p4c-bm2-ss and simple_switch_grpc,
run with P4C=trainet-p4c and SWITCH=trainet-switch, builds basic.p4 and starts the switch
on veths between namespaces; the tutorials' p4runtime_lib-style client sets the pipeline
from the .json (in p4.tmp.P4DeviceConfig) and writes routes; the hosts ping."""
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from installed import REPO, InstalledLayout
from switch_process import free_port, wait_listening
from testbed.switch.lab import VethLab

pytestmark = [pytest.mark.root, pytest.mark.slow]

MAKEFILE = """\
P4C = p4c-bm2-ss
SWITCH = simple_switch_grpc
BUILD_DIR = build

all: $(BUILD_DIR)/basic.json

$(BUILD_DIR)/%.json: %.p4
\tmkdir -p $(BUILD_DIR)
\t$(P4C) --p4v 16 --p4runtime-files $(BUILD_DIR)/$*.p4.p4info.txtpb -o $@ $<

run: all
\t$(SWITCH) -i 1@$(IF1) -i 2@$(IF2) --device-id 0 $(BUILD_DIR)/basic.json --log-console \\
\t\t--thrift-port 9090 -- --grpc-server-addr 127.0.0.1:$(GRPC_PORT)
"""


def test_makefile_with_trainet_commands_builds_runs_programs_and_pings(tmp_path):
    layout = InstalledLayout(tmp_path / "installed")
    env = layout.env()
    work = tmp_path / "exercise"
    work.mkdir()
    shutil.copy(REPO / "p4" / "basic.p4", work)
    (work / "Makefile").write_text(MAKEFILE)
    words = ["P4C=trainet-p4c", "SWITCH=trainet-switch"]
    subprocess.run(["make", *words], cwd=work, env=env, check=True, timeout=300)
    assert (work / "build" / "basic.json").is_file()
    assert (work / "build" / "basic.p4.p4info.txtpb").read_text().startswith("pkg_info {")
    port = free_port()
    with VethLab(n_hosts=2, prefix=f"td{port % 0xFFF:03x}") as lab:
        h1, h2 = lab.hosts
        switch = subprocess.Popen(
            ["make", "run", *words, f"IF1={h1.switch_if}", f"IF2={h2.switch_if}",
             f"GRPC_PORT={port}"], cwd=work, env=env, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, start_new_session=True)
        try:
            wait_listening(port, switch)
            routes = [f"{h.ip},{h.mac},{h.index}" for h in lab.hosts]
            client = subprocess.run(
                [sys.executable, str(Path(__file__).with_name("tutorials_client.py")),
                 f"127.0.0.1:{port}", "0", "build/basic.p4.p4info.txtpb", "build/basic.json",
                 *routes], cwd=work, env=env, capture_output=True, text=True, timeout=120)
            assert client.returncode == 0, client.stderr
            ping = h1.run("ping", "-c", "3", "-i", "0.2", "-W", "2", h2.ip,
                          capture_output=True, text=True, timeout=60)
            assert ping.returncode == 0, ping.stdout + ping.stderr
            assert " 0% packet loss" in ping.stdout
        finally:
            os.killpg(switch.pid, signal.SIGTERM)    # make and the switch it started
            out, _ = switch.communicate(timeout=30)
    assert "note: --thrift-port accepted" in out
