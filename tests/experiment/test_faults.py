"""Parts of a running experiment killed: an optimizer node, a worker, a link and a switch.

``trainet run`` of a small LuWu-against-DDP experiment (two bandwidths, two strategies)
as a user runs it, with a part killed in three of its four runs: the optimizer node
(luwu at 100 Gb/s) and a worker (ddp at 200 Gb/s) fail their run, which is recorded while
the others go on; a removed link (luwu at 200 Gb/s) stops the experiment. ``--resume``
then runs what did not finish, and its switch is killed in turn; a second ``--resume``
completes it. Each stop must name what died and come long before the run's stall
timeout; the run that finished first is never run again.
"""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from testbed.experiment import results
from testbed.experiment.spec import load_experiment

pytestmark = [pytest.mark.root, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
STALL_TIMEOUT_S = 600      # what would stop a run if nothing noticed the failure


def experiment(tmp_path) -> Path:
    """experiments/luwu-vs-zero3.yaml made small: two workers, luwu and ddp, a few
    steps of GPT-1.3B; its switch is s6 on its own gRPC port."""
    source = REPO / "experiments" / "luwu-vs-zero3.yaml"
    data = yaml.safe_load(source.read_text())
    data["topology"]["generator"]["workers"] = 2
    data["workload"]["micro_batch_size"] = data["workload"].pop("global_batch") // 8  # per worker
    data["topology"]["program"] = str(REPO / "p4" / "luwu.p4")
    data["workload"].update(shadow_model="gpt-1.3b", steps=12)
    data.update(strategies=["luwu", "ddp"], scale=1e-4,
                timeouts={"bring_up": "60s", "run": f"{STALL_TIMEOUT_S}s"})
    generated = tmp_path / "generated.yaml"
    generated.write_text(yaml.safe_dump(data, sort_keys=False))
    topo = load_experiment(generated).topology.model_dump(mode="json")
    topo["switches"][0].update(name="s6", grpc_port=50596, device_id=6)
    topo["links"] = [{**link, "b": link["b"].replace("s1-", "s6-")} for link in topo["links"]]
    data.update(topology=topo, luwu={**data["luwu"], "switch": "s6"})
    path = tmp_path / "faults.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def pids_with(*texts: str) -> list[int]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if all(t in cmdline for t in texts) and int(pid) != os.getpid():
            found.append(int(pid))
    return found


def _stat(path: Path) -> os.stat_result:
    try:
        return path.stat()
    except FileNotFoundError:         # removed in between: the run starts again
        return os.stat_result((0,) * 10)


class Run:
    """``trainet run`` in a child process, watched from the results directory."""

    def __init__(self, path: Path, out: Path, *extra: str):
        self.out = out
        self.started = time.time()
        self.proc = subprocess.Popen([sys.executable, "-m", "testbed.cli", "run", str(path),
                                      "-o", str(out), *extra], cwd=str(REPO),
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT)

    def run_dir(self, variant: str, strategy: str) -> Path:
        return results.run_dir(self.out, f"bandwidth-{variant}", strategy, 0)

    def wait_for_steps(self, variant: str, strategy: str) -> Path:
        """Wait until a rank of the run reported a step in this try (a resumed run starts
        its unfinished runs afresh); return the run's directory."""
        run = self.run_dir(variant, strategy)
        deadline = time.monotonic() + 240
        while not any(_stat(p).st_size and _stat(p).st_mtime >= self.started
                      for p in (run / "metrics").glob("rank*.jsonl")):
            assert self.proc.poll() is None, self.proc.stdout.read().decode()
            assert time.monotonic() < deadline, f"{run}: no step reported"
            time.sleep(0.1)
        return run

    def kill(self, *texts: str) -> float:
        """SIGKILL the one process whose command line has ``texts``; the time of it."""
        pids = pids_with(*texts)
        assert len(pids) == 1, (texts, pids)
        os.kill(pids[0], signal.SIGKILL)
        return time.monotonic()

    def finish(self) -> str:
        try:
            return self.proc.communicate(timeout=240)[0].decode()
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()

    def appeared(self, variant: str, strategy: str) -> float:
        """Wait for the run's directory (the runner moved on to it); the time of it."""
        run = self.run_dir(variant, strategy)
        while not run.exists():
            assert self.proc.poll() is None, self.proc.stdout.read().decode()
            time.sleep(0.05)
        return time.monotonic()


def test_killed_parts_are_named_and_resume_skips_what_finished(tmp_path):
    path, out = experiment(tmp_path), tmp_path / "out"
    stops = {}
    first = Run(path, out)
    run = first.wait_for_steps("100Gbit", "luwu")
    killed = first.kill("hosts.optimizer_node", str(run))
    stops["optimizer node"] = first.appeared("100Gbit", "ddp") - killed
    run = first.wait_for_steps("200Gbit", "luwu")
    killed = first.kill("hosts.worker", "--rank 1", str(run))
    stops["worker"] = first.appeared("200Gbit", "ddp") - killed
    first.wait_for_steps("200Gbit", "ddp")
    subprocess.run(["ip", "link", "del", "s6-eth2"], check=True)
    killed = time.monotonic()
    output = first.finish()
    stops["link"] = time.monotonic() - killed
    assert first.proc.returncode == 2, output
    status = results.read_status(out)
    assert status["status"] == "failed"
    failed = " ".join(status["failed_runs"])
    assert "bandwidth-100Gbit/luwu/rep0: optimizer node (opt1) was killed by signal 9" in failed
    assert "bandwidth-200Gbit/luwu/rep0: rank 1 (w2) was killed by signal 9" in failed
    assert "link s6-eth2 -- w2 is gone" in status["error"]
    assert "link s6-eth2 -- w2 is gone" in output and "--resume" in output
    finished = first.run_dir("100Gbit", "ddp") / results.DONE
    kept = finished.read_text()
    assert ("bandwidth-100Gbit", "ddp") in [(r["variant"], r["strategy"])
                                            for r in results.read_summary(out)]

    second = Run(path, out, "--resume")
    second.wait_for_steps("100Gbit", "luwu")
    killed = second.kill("testbed.cli switch", "--grpc-port 50596")
    output = second.finish()
    stops["switch"] = time.monotonic() - killed
    assert second.proc.returncode == 2, output
    assert "switch s6 was killed by signal 9 (SIGKILL)" in results.read_status(out)["error"]

    third = Run(path, out, "--resume")
    output = third.finish()
    assert third.proc.returncode == 0, output
    assert results.read_status(out)["status"] == "completed"
    assert finished.read_text() == kept                      # never run again
    rows = results.read_summary(out)
    assert len(rows) == 4 and all(r["steps_measured"] > 0 for r in rows)
    assert not [n for n in os.listdir("/sys/class/net") if n.startswith("s6-")]
    print("\nfrom the kill to the run's stop: " + ", ".join(
        f"{part} {seconds:.1f} s" for part, seconds in stops.items()))
    assert all(seconds < STALL_TIMEOUT_S for seconds in stops.values())
