"""trainet-switch-grpc started as the p4lang tutorials' utils start simple_switch_grpc.

Their run_exercise.py picks its P4Runtime switch class only for an executable whose name
contains "grpc"; that class's start() joins one shell command: `EXE -i PORT@IFACE ...
--pcap PCAP_DIR --nanolog ipc:///tmp/bm-ID-log.ipc --device-id ID BUILD.json --log-console
--thrift-port 9090 -- --grpc-server-addr 0.0.0.0:PORT`, output redirected to
LOG_DIR/SWITCH.log and run in the background, then polls until the process is gone or the
gRPC port listens. run_exercise.py then programs the switch over P4Runtime from the
runtime JSON (arbitration, SetForwardingPipelineConfig with the .json in
p4.tmp.P4DeviceConfig, table writes), which tutorials_client.py does with the same calls.
Written from the tutorials' documented behaviour, not from their files."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from installed import REPO, InstalledLayout, console_scripts
from switch_process import free_port
from testbed.switch.lab import VethLab

pytestmark = [pytest.mark.root, pytest.mark.slow]
START_TIMEOUT_S = 10          # p4_mininet's SWITCH_START_TIMEOUT, polled every 0.5 s


def listening(port: int) -> bool:
    """The tutorials' netstat.check_listening_on_port: a TCP socket in LISTEN on port."""
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            for line in f.readlines()[1:]:
                fields = line.split()
                if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                    return True
    return False


def test_the_grpc_executable_is_installed_under_a_name_run_exercise_recognises():
    scripts = console_scripts()
    assert "grpc" in "trainet-switch-grpc"
    assert scripts["trainet-switch-grpc"] == scripts["trainet-switch"]


def test_started_and_programmed_as_the_tutorials_utils_do_it_forwards(tmp_path):
    layout = InstalledLayout(tmp_path / "installed")
    env = layout.env()
    work = tmp_path / "exercise"
    (work / "build").mkdir(parents=True)
    (work / "logs").mkdir()
    (work / "pcaps").mkdir()
    (work / "basic.p4").write_text((REPO / "p4" / "basic.p4").read_text())
    subprocess.run(["trainet-p4c", "--p4v", "16", "--p4runtime-files",
                    "build/basic.p4.p4info.txtpb", "-o", "build/basic.json", "basic.p4"],
                   cwd=work, env=env, check=True, timeout=300)
    port = free_port()
    assert not listening(port)          # P4RuntimeSwitch refuses a port already bound
    with VethLab(n_hosts=2, prefix=f"tu{port % 0xFFF:03x}") as lab:
        h1, h2 = lab.hosts
        args = ["trainet-switch-grpc"]
        for h in lab.hosts:
            args += ["-i", f"{h.index}@{h.switch_if}"]
        args.append(f"--pcap {work / 'pcaps'}")
        args += ["--nanolog", "ipc:///tmp/bm-0-log.ipc", "--device-id", "0",
                 "build/basic.json", "--log-console", "--thrift-port 9090",
                 f"-- --grpc-server-addr 0.0.0.0:{port}"]
        log = work / "logs" / "s1.log"
        pid_file = tmp_path / "pid"
        subprocess.run(["sh", "-c", " ".join(args) + f" >{log} 2>&1 & echo $! >> {pid_file}"],
                       cwd=work, env=env, check=True, timeout=30)
        pid = int(pid_file.read_text())
        try:
            for _ in range(START_TIMEOUT_S * 2):
                assert os.path.exists(f"/proc/{pid}"), log.read_text()
                if listening(port):
                    break
                time.sleep(0.5)
            else:
                pytest.fail(f"not listening on {port} within {START_TIMEOUT_S} s: "
                            + log.read_text())
            routes = [f"{h.ip},{h.mac},{h.index}" for h in lab.hosts]
            client = subprocess.run(
                [sys.executable, str(Path(__file__).with_name("tutorials_client.py")),
                 f"127.0.0.1:{port}", "0", "build/basic.p4.p4info.txtpb", "build/basic.json",
                 *routes], cwd=work, env=env, capture_output=True, text=True, timeout=120)
            assert client.returncode == 0, client.stderr
            ping = h1.run("ping", "-c", "3", "-i", "0.2", "-W", "2", h2.ip,
                          capture_output=True, text=True, timeout=60)
            assert " 0% packet loss" in ping.stdout, ping.stdout + ping.stderr
        finally:
            os.kill(pid, signal.SIGTERM)
            for _ in range(60):
                if not os.path.exists(f"/proc/{pid}"):
                    break
                time.sleep(0.5)
    text = log.read_text()
    assert "note: --thrift-port accepted" in text and "note: --nanolog accepted" in text
    pcaps = {p.name for p in (work / "pcaps").iterdir()}
    assert {f"{h1.switch_if}_in.pcap", f"{h2.switch_if}_out.pcap"} <= pcaps
