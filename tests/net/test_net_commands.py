"""``trainet up`` and ``trainet down`` as a user runs them."""
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from testbed.net.cleanup import existing_interfaces
from tests.net.helpers import REPO, Snapshot, free_port, marked_pids

pytestmark = [pytest.mark.root, pytest.mark.slow]

PAIR = """\
name: pair
routing: shortest-path
hosts:
  - {name: h1, ip: 10.0.0.1/24, mac: "08:00:00:00:00:01"}
  - {name: h2, ip: 10.0.0.2/24, mac: "08:00:00:00:00:02"}
switches:
  - {name: k1, grpc_port: GRPC, program: PROGRAM}
links:
  - {a: h1, b: k1-p1, PARAMS}
  - [h2, k1-p2]
"""


def _spec(tmp_path, program=str(REPO / "p4" / "basic.p4"), params="bw: 10Mbit") -> str:
    path = tmp_path / "topo.yaml"
    path.write_text(PAIR.replace("GRPC", str(free_port())).replace("PROGRAM", program)
                    .replace("PARAMS", params))
    return str(path)


@pytest.fixture(autouse=True)
def state_dir(tmp_path, monkeypatch):
    """The runs of these tests are recorded apart, so `trainet down` here removes only
    them, not other networks up on this machine."""
    path = tmp_path / "state"
    monkeypatch.setenv("TRAINET_STATE_DIR", str(path))
    return path


def _trainet(*args, input=""):
    return subprocess.run([sys.executable, "-m", "testbed.cli", *args], cwd=REPO,
                          capture_output=True, text=True, input=input, timeout=120)


def _write(path, text: str) -> str:
    path.write_text(text)
    return str(path)


def _bad_p4(tmp_path) -> str:
    source = (REPO / "p4" / "basic.p4").read_text()
    bad = tmp_path / "bad.p4"
    bad.write_text(source.replace("hdr.ipv4.ttl = hdr.ipv4.ttl - 1;", "hdr.ipv4.ttl = - ;"))
    return str(bad)


@pytest.mark.parametrize("make, message", [
    (lambda t: _write(t / "topo.yaml", "hosts: [\n  {name: h1\n"), "topo.yaml:"),
    (lambda t: _spec(t, params="profile: eth-9000g"),
     "links[0].profile: unknown profile 'eth-9000g'; allowed: "),
    (lambda t: _spec(t, program=str(t / "missing.p4")), "missing.p4' not found"),
    (lambda t: _spec(t, program=_bad_p4(t)), "bad.p4:"),
    (lambda t: str(t / "nowhere.yaml"), "nowhere.yaml: no such topology file"),
])
def test_bad_input_says_what_is_wrong_exits_2_and_leaves_nothing(tmp_path, state_dir, make,
                                                                 message):
    snap = Snapshot("k1")
    done = _trainet("up", make(tmp_path), "--no-cli", "--results", str(tmp_path / "r"))
    assert done.returncode == 2, done.stderr
    assert message in done.stderr
    assert "Traceback" not in done.stderr
    assert snap.leftovers() == {}
    assert list(state_dir.glob("run-*.json")) == []


def test_p4_compile_error_points_at_the_line(tmp_path):
    done = _trainet("up", _spec(tmp_path, program=_bad_p4(tmp_path)), "--no-cli")
    line = next(i for i, text in enumerate((tmp_path / "bad.p4").read_text().splitlines(), 1)
                if "hdr.ipv4.ttl = - ;" in text)
    assert f"bad.p4:{line}:" in done.stderr


def _ended(pid: int, timeout: float = 3.0) -> bool:
    """Gone, or a zombie waiting for init to reap it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(") ", 1)[1].startswith("Z"):
                    return True
        except OSError:
            return True
        time.sleep(0.05)
    return False


def _wait_for(proc, text: str, timeout: float = 90) -> str:
    seen = ""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        seen += line
        if text in line:
            return seen
    raise AssertionError(f"{text!r} not printed; output so far:\n{seen}")


def test_down_after_a_killed_up_removes_everything(tmp_path, state_dir):
    snap = Snapshot("k1")
    up = subprocess.Popen([sys.executable, "-m", "testbed.cli", "up", _spec(tmp_path),
                           "--no-cli", "--results", str(tmp_path / "r")], cwd=REPO,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          stdin=subprocess.DEVNULL, text=True)
    try:
        out = _wait_for(up, "network up")
        assert "k1-eth1 <-> h1-eth0" in out or "h1-eth0 <-> k1-eth1" in out
        assert "10 Mb/s" in out
        (run_file,) = state_dir.glob("run-*.json")
        state = json.loads(run_file.read_text())
        assert {"k1-eth1", "k1-eth2"} <= existing_interfaces()
        assert set(state["switches"].values()) <= marked_pids()
        os.kill(up.pid, signal.SIGKILL)
        up.wait()
        time.sleep(0.5)
        # The switches run in their own sessions: they outlive a killed bring-up.
        assert set(state["switches"].values()) <= marked_pids()
    finally:
        if up.poll() is None:
            up.kill()
            up.wait()
        down = _trainet("down")
    assert down.returncode == 0, down.stderr
    assert "stopped 1 switch or host process(es)" in down.stdout
    assert not {"k1-eth1", "k1-eth2"} & existing_interfaces()
    for pid in list(state["switches"].values()) + list(state["hosts"].values()):
        assert _ended(pid), f"process {pid} survived"
    assert not run_file.exists()
    assert snap.leftovers() == {}


def test_cli_verbs_dump_tables_reshape_and_capture(tmp_path, state_dir):
    snap = Snapshot("k1")
    script = ("tables k1\nshape k1-eth1 rate=5mbit\nshape k1-eth1 loss=x\npcap on k1-eth1\n"
              "pingall\npcap off\nexit\n")
    done = _trainet("up", _spec(tmp_path), "--results", str(tmp_path / "r"), input=script)
    assert done.returncode == 0, done.stderr
    out = done.stdout + done.stderr      # Mininet logs command results to stderr
    assert "MyIngress.ipv4_lpm: 2 entries" in out
    assert ("hdr.ipv4.dstAddr=10.0.0.1/32 -> MyIngress.ipv4_forward(dstAddr=08:00:00:00:00:01,"
            " port=1)") in out
    assert "k1-eth1: rate 5 Mb/s" in out
    assert "shape: loss='x': 'x' is not a probability; write a fraction (0.01)" in out
    assert "Results: 0% dropped (2/2 received)" in out
    assert (tmp_path / "r" / "pcaps" / "k1-eth1.pcap").stat().st_size > 24   # header + frames
    assert "network removed" in out
    assert snap.leftovers() == {}
    assert list(state_dir.glob("run-*.json")) == []
