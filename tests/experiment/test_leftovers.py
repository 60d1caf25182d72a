"""Runs killed with SIGKILL leave nothing behind once the next run has started.

A loop of ``trainet run`` on a two-worker DDP experiment: every run but the last is
killed with SIGKILL at a random moment (during bring-up, while training, during
tear-down, or not at all when it finishes first); the last runs to its end. After each
kill, what the killed run left is listed (processes, network namespaces, interfaces);
once the next run has its network up, none of it may remain, and after the last run
nothing of any run is left on the machine.

TRAINET_LEFTOVER_RUNS sets the loop's length (default 3) and TRAINET_LEFTOVER_SEED the
kill times' seed (default 0), so a long loop can be run in parts with different seeds.
"""
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
import yaml

from testbed.experiment import results
from testbed.experiment.spec import load_experiment
from testbed.net.cleanup import RUN_MARKER

pytestmark = [pytest.mark.root, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
RUNS = int(os.environ.get("TRAINET_LEFTOVER_RUNS", "3"))
SEED = int(os.environ.get("TRAINET_LEFTOVER_SEED", "0"))
KILL_WITHIN_S = 8.0        # a run of this experiment takes about 9 s here
SWITCH = "s5"


def experiment(tmp_path) -> Path:
    """experiments/demo.yaml with two workers, DDP at one bandwidth, three steps; its
    switch is s5 on its own gRPC port."""
    data = yaml.safe_load((REPO / "experiments" / "demo.yaml").read_text())
    data["topology"]["generator"]["workers"] = 2
    data["workload"]["micro_batch_size"] = data["workload"].pop("global_batch") // 3  # per worker
    data["workload"]["steps"] = 3
    data.update(strategies=["ddp"], sweep={"bandwidth": ["100Gbit"]})
    generated = tmp_path / "generated.yaml"
    generated.write_text(yaml.safe_dump(data, sort_keys=False))
    topo = load_experiment(generated).topology.model_dump(mode="json")
    topo["switches"][0].update(name=SWITCH, grpc_port=50595, device_id=5)
    topo["links"] = [{**link, "b": link["b"].replace("s1-", f"{SWITCH}-")}
                     for link in topo["links"]]
    data["topology"] = topo
    path = tmp_path / "leftovers.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def _read(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError:
        return b""


def netns(pid: int | str) -> str:
    try:
        return os.readlink(f"/proc/{pid}/ns/net")
    except OSError:
        return ""


class Leftovers:
    """Processes, namespaces and interfaces of the runs this test started that exist
    now: a process is theirs when it names a results directory under ``root`` or carries
    the marker of a network one of them brought up (run ids start with their PID)."""

    def __init__(self, root: Path):
        self.root = str(root).encode()
        self.own_ns = netns(os.getpid())
        self.owners: set[str] = set()          # PIDs of the `trainet run` processes
        self.before: set[str] = set()
        self.before = self.namespaces()

    def _theirs(self, pid: str) -> bool:
        if self.root in _read(f"/proc/{pid}/cmdline"):
            return True
        for item in _read(f"/proc/{pid}/environ").split(b"\0"):
            if item.startswith(f"{RUN_MARKER}=".encode()):
                return item.split(b"=", 1)[1].split(b"-")[0].decode() in self.owners
        return False

    def processes(self) -> set[int]:
        return {int(pid) for pid in filter(str.isdigit, os.listdir("/proc"))
                if int(pid) != os.getpid() and self._theirs(pid)}

    def namespaces(self) -> set[str]:
        """Network namespaces of any process, but the test's own and those there were
        before it started."""
        return {ns for ns in map(netns, filter(str.isdigit, os.listdir("/proc")))
                if ns and ns != self.own_ns} - self.before

    def now(self) -> dict:
        return {"processes": self.processes(), "namespaces": self.namespaces(),
                "interfaces": {n for n in os.listdir("/sys/class/net")
                               if n.startswith(f"{SWITCH}-")}}


def wait_network_up(out: Path, proc) -> bool:
    """Wait until the run has its network up and its workers started (their run
    directory exists) or it ended; True in the first case."""
    run = results.run_dir(out, "bandwidth-100Gbit", "ddp", 0)
    while proc.poll() is None:
        if run.exists():
            return True
        time.sleep(0.05)
    return run.exists()


def test_killed_runs_leave_nothing_after_the_next_start(tmp_path):
    path = experiment(tmp_path)
    rng = random.Random(SEED)
    seen = Leftovers(tmp_path)
    assert seen.now() == {"processes": set(), "namespaces": set(), "interfaces": set()}
    left = Counter()
    killed = 0
    previous = None                    # what the last killed run left
    for i in range(RUNS):
        out = tmp_path / f"run{i}"
        proc = subprocess.Popen([sys.executable, "-m", "testbed.cli", "run", str(path), "-o",
                                 str(out)], cwd=str(REPO), stdout=subprocess.DEVNULL,
                                stderr=subprocess.STDOUT)
        seen.owners.add(str(proc.pid))
        try:
            up = wait_network_up(out, proc) if previous else False
            if up:                                   # the start removed the last leftovers
                # (namespace ids are reused at once, so a namespace is known by its
                # processes here; after the last run any namespace left counts)
                stale = previous["processes"] & seen.now()["processes"]
                assert not stale, (i, stale)
            last = i == RUNS - 1
            if not last:
                time.sleep(rng.uniform(0.2, KILL_WITHIN_S))
                if proc.poll() is None:
                    proc.send_signal(signal.SIGKILL)
                    killed += 1
            proc.wait(timeout=300)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        if last:
            assert proc.returncode == 0
            assert results.read_status(out)["status"] == "completed"
        else:
            previous = seen.now()
            left.update({kind: len(things) for kind, things in previous.items()})
            left["runs that left something"] += any(previous.values())
    after = seen.now()
    print(f"\n{RUNS} runs, {killed} killed with SIGKILL; the kills left {left['processes']} "
          f"processes, {left['namespaces']} namespaces and {left['interfaces']} interfaces "
          f"({left['runs that left something']} runs left something); after the last run: "
          f"{len(after['processes'])} processes, {len(after['namespaces'])} namespaces, "
          f"{len(after['interfaces'])} interfaces")
    assert after == {"processes": set(), "namespaces": set(), "interfaces": set()}
