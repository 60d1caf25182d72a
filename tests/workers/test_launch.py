"""The launcher's pieces that need no network: option flags and the metrics tail."""
import json
import time

import pytest

from testbed.experiment.launch import _flags
from testbed.experiment.processes import RankMetrics


def test_worker_args_become_flags():
    assert _flags({"model": "gpt", "shadow_model": "gpt-20b", "steps": 3, "iface": None,
                   "verbose": True, "quiet": False}) == [
        "--model", "gpt", "--shadow-model", "gpt-20b", "--steps", "3", "--verbose"]


def test_a_zero_is_passed_on_not_taken_for_false():
    assert _flags({"warmup": 0, "lr": 0.0, "seed": 0}) == [
        "--warmup", "0", "--lr", "0.0", "--seed", "0"]


def test_metrics_tail_reads_whole_lines_only(tmp_path):
    path = tmp_path / "rank0.jsonl"
    tail = RankMetrics({0: path, 1: tmp_path / "rank1.jsonl"})
    assert not tail.poll()                      # nothing written yet
    row = json.dumps({"step": 0, "loss": 5.5})
    path.write_text(row + "\n" + row[:7])       # a writer caught mid-line
    assert tail.poll()
    assert tail.steps() == {0: 1, 1: 0}
    with path.open("a") as f:
        f.write(row[7:] + "\n")
    assert tail.poll()
    assert tail.rows[0] == [{"step": 0, "loss": 5.5}] * 2


class _Host:
    """Runs a shell script in place of the worker command, locally."""

    def __init__(self, script: str):
        self.script = script

    def IP(self):
        return "127.0.0.1"

    def popen(self, cmd, **kwargs):
        import subprocess
        out = cmd[cmd.index("--metrics-out") + 1]
        return subprocess.Popen(["sh", "-c", self.script, "sh", out], **kwargs)


class _Net:
    def __init__(self, scripts: dict):
        self.net = {name: _Host(s) for name, s in scripts.items()}


STEP = """echo '{"step": 0, "loss": 5.0}' >> "$1"; """


def test_failed_worker_is_named_and_the_others_are_stopped(tmp_path):
    from testbed.experiment.launch import run_workers
    net = _Net({"a": STEP + "exec sleep 30",
                "b": STEP + "echo 'error: rank 1: all-reduce failed' >&2; exit 1"})
    start = time.monotonic()
    result = run_workers(net, ["a", "b"], "ddp", {}, tmp_path, timeout_s=20, stop_grace_s=0.5)
    assert time.monotonic() - start < 5
    assert not result.ok and (result.dead_rank, result.dead_host) == (1, "b")
    assert result.reason == "rank 1 (b) exited with code 1: error: rank 1: all-reduce failed"
    assert result.returncodes == {"a": -9, "b": 1}
    assert result.metrics[0] == [{"step": 0, "loss": 5.0}]      # kept
    assert "all-reduce failed" in result.log("b")


class _Exited:
    def __init__(self, rank, returncode, error):
        self.rank, self.error = rank, error
        self.popen = type("P", (), {"returncode": returncode})()

    def last_error(self):
        return self.error


def test_of_simultaneous_failures_the_cause_is_named():
    from testbed.experiment.processes import first_failure
    blamer = _Exited(0, 1, "error: rank 0: all-reduce failed (rank 1 (10.0.1.2) is gone "
                           "or unreachable)")
    crashed = _Exited(1, 1, "error: rank 1: out of memory")
    killed = _Exited(2, -9, "")
    server = _Exited(None, 1, "parameter server: worker rank 1 (10.0.1.2) is gone")
    assert first_failure([blamer, crashed]) is crashed
    assert first_failure([blamer, crashed, killed]) is killed
    assert first_failure([blamer, server]) is server       # both blame rank 1's loss
    assert first_failure([_Exited(2, 1, "x"), _Exited(1, 1, "y")]).rank == 1


def test_stalled_run_is_stopped_after_the_timeout(tmp_path):
    from testbed.experiment.launch import run_workers
    net = _Net({"a": STEP + STEP + "exec sleep 30", "b": STEP + "exec sleep 30"})
    seen = []
    result = run_workers(net, ["a", "b"], "ddp", {}, tmp_path, timeout_s=0.6,
                         progress=seen.append)
    assert not result.ok and result.dead_rank == 1
    assert result.reason == ("no rank reported a step for 0.6 s; rank 1 (b) is at step 1 "
                             "(stalled)")
    assert seen[-1] == {0: 2, 1: 1}


def test_ps_needs_a_server_host(tmp_path):
    from testbed.errors import TrainetError
    from testbed.experiment.launch import run_workers
    with pytest.raises(TrainetError, match="pass server_host"):
        run_workers(_Net({"a": "true"}), ["a"], "ps", {}, tmp_path, timeout_s=1)


def test_bench_train_rejects_unknown_models_before_building_anything(capsys):
    from testbed.cli import main
    assert main(["bench", "train", "--model", "gpt-7b"]) == 2
    err = capsys.readouterr().err
    assert "--model 'gpt-7b': choose gpt-125m, gpt-350m, gpt-760m, gpt-1.3b" in err
