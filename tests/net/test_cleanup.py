"""Removal of what a run recorded, guarded against reused PIDs."""
import os
import subprocess
import sys
import time

import pytest

from testbed.net import cleanup

pytestmark = pytest.mark.root


@pytest.fixture
def state_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(cleanup, "STATE_DIR", tmp_path / "state")
    return tmp_path / "state"


def _sleeper(run_id=None):
    env = dict(os.environ)
    env.pop(cleanup.RUN_MARKER, None)
    if run_id:
        env[cleanup.RUN_MARKER] = run_id
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], env=env)


def _gone(proc) -> bool:
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        return False
    return True


def test_a_recorded_run_is_removed_and_an_unmarked_pid_survives(state_dir):
    state = cleanup.RunState.new("results")
    switch = _sleeper(state.run_id)
    bystander = _sleeper()
    subprocess.run(["ip", "link", "add", "tncl-eth1", "type", "veth", "peer", "name",
                    "tncl-eth2"], check=True)
    try:
        state.switches = {"s1": switch.pid, "s2": bystander.pid}
        state.interfaces = ["tncl-eth1", "tncl-eth9"]
        state.save()
        report = cleanup.down()
        assert _gone(switch)
        assert bystander.poll() is None
        assert "tncl-eth1" not in cleanup.existing_interfaces()
        assert "tncl-eth2" not in cleanup.existing_interfaces()
        assert list(state_dir.glob("run-*.json")) == []
        assert any("stopped 1 switch or host process" in line for line in report)
        assert any("deleted 1 interface" in line for line in report)
    finally:
        for proc in (switch, bystander):
            proc.kill()
            proc.wait()
        subprocess.run(["ip", "link", "del", "tncl-eth1"], capture_output=True)


def test_switches_of_a_dead_run_without_record_are_stopped(state_dir):
    orphan = _sleeper("999999999-1")         # no such bring-up process
    live_run = _sleeper(f"{os.getpid()}-1")  # its bring-up process (us) is alive
    try:
        time.sleep(0.2)
        report = cleanup.down()
        assert _gone(orphan)
        assert live_run.poll() is None
        assert report == ["stopped 1 unrecorded switch or host process(es)"]
    finally:
        for proc in (orphan, live_run):
            proc.kill()
            proc.wait()


def test_nothing_to_remove(state_dir):
    assert cleanup.down() == []


def test_switch_processes_are_found_by_command_line(tmp_path):
    (tmp_path / "testbed.cli").write_text("import time\ntime.sleep(60)\n")
    switch = subprocess.Popen([sys.executable, "testbed.cli", "switch", "p.p4"], cwd=tmp_path)
    other = subprocess.Popen([sys.executable, "testbed.cli", "up", "t.yaml"], cwd=tmp_path)
    try:
        time.sleep(0.1)
        found = cleanup.switch_processes_by_command_line()
        assert switch.pid in found and other.pid not in found
    finally:
        for proc in (switch, other):
            proc.kill()
            proc.wait()
