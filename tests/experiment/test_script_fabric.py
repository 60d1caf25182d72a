"""One's own training script on an emulated fabric: ``trainet run`` of the shipped DDP
experiment, a rank that fails, and ``trainet launch`` stopped by Ctrl-C."""
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from testbed.cli import main
from testbed.experiment import results
from tests.experiment.test_end_to_end import leftover_interfaces, processes_mentioning, renamed_copy

pytestmark = [pytest.mark.root, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
DDP = REPO / "experiments" / "own-script-ddp.yaml"


def ddp_copy(tmp_path, script: Path | None = None, args=("--steps", "12")) -> Path:
    """The shipped experiment on switch s8, one variant (100 Mb/s), a shorter run (long
    enough for the switch ports' counters, sampled every 0.25 s, to tell its steps)."""
    path = renamed_copy(tmp_path, DDP)
    data = yaml.safe_load(path.read_text())
    data["workload"].update(script=str(script or DDP.parent / data["workload"]["script"]),
                            args=list(args))
    data["sweep"] = {"bandwidth": ["100Mbit"]}
    data["timeouts"].update(start="60s")
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def test_ddp_script_runs_on_the_fabric_with_its_bytes_on_the_switch_ports(tmp_path):
    out = tmp_path / "results"
    assert main(["run", str(ddp_copy(tmp_path)), "-o", str(out)]) == 0
    assert results.read_status(out)["status"] == "completed"
    (row,) = results.read_summary(out)
    assert (row["variant"], row["strategy"], row["workers"]) == ("bandwidth-100Mbit", "ddp_train", 3)
    assert row["step_time_s"] > 0 and 0 < row["exposed_comm_s"] <= row["step_time_s"]
    # DDP's all-reduce: 2(n-1)/n of the parameters per rank and step ...
    sys.path.insert(0, str(DDP.parent / "scripts"))
    from ddp_train import TinyGPT
    params = sum(p.numel() * 4 for p in TinyGPT(64, 64, 2, 32).parameters())
    assert row["sent_per_step_emulated_B"] == round(2 * 2 / 3 * params)
    # ... which leave each host's interface, with the frames' headers on top (counted at
    # the step boundaries; the switch ports' counters, sampled every 0.25 s, are too
    # coarse for steps of tens of milliseconds and are only there)
    assert 1.0 < row["wire_tx_per_step_B"] / row["sent_per_step_emulated_B"] < 1.15
    assert row["wire_intra_rack_B"] > 0
    run = results.run_dir(out, "bandwidth-100Mbit", "ddp_train", 0)
    losses = [r["loss"] for r in results.read_metrics(run)[0]]
    assert len(losses) == 12 and losses[-1] < losses[0]


FAILS = """\
import os, sys, torch, torch.distributed as dist
print(" ".join(f"{k}={os.environ[k]}" for k in ("RANK", "WORLD_SIZE", "MASTER_ADDR",
                                                "GLOO_SOCKET_IFNAME")), flush=True)
dist.init_process_group("gloo")
w = torch.nn.Parameter(torch.ones(1000))
opt = torch.optim.SGD([w], lr=0.1)
for step in range(50):
    (w * w).sum().backward()
    dist.all_reduce(w.grad)
    opt.step()
    if dist.get_rank() == 1 and step == 2:
        raise ValueError("rank one's batch is broken")
"""


def test_a_failing_rank_is_named_and_the_steps_so_far_kept(tmp_path):
    script = tmp_path / "fails.py"
    script.write_text(FAILS)
    out = tmp_path / "results"
    assert main(["run", str(ddp_copy(tmp_path, script, args=())), "-o", str(out)]) == 1
    status = results.read_status(out)
    assert status["status"] == "failed"
    assert "rank 1 (w2) exited with code 1; last lines of its stderr:" in status["error"]
    assert "ValueError: rank one's batch is broken" in status["error"]
    metrics = results.read_metrics(results.run_dir(out, "bandwidth-100Mbit", "fails", 0))
    assert len(metrics[1]) == 3 and len(metrics[0]) >= 2


def test_the_env_is_torchruns(tmp_path):
    """The failing script prints its torchrun variables before anything else."""
    script = tmp_path / "fails.py"
    script.write_text(FAILS)
    out = tmp_path / "launch"
    done = subprocess.run([sys.executable, "-m", "testbed.cli", "launch", "-o", str(out),
                           str(ddp_copy(tmp_path, script, args=())), "--", "python",
                           str(script)], capture_output=True, text=True, timeout=300,
                          cwd=REPO)
    assert done.returncode == 1
    master = done.stdout.splitlines()[0].split()[2]
    assert done.stdout.splitlines()[0] == f"RANK=0 WORLD_SIZE=3 {master} GLOO_SOCKET_IFNAME=eth0"
    assert master.startswith("MASTER_ADDR=10.")
    assert (out / "logs" / "w3.log").read_text().splitlines()[0] == \
        f"RANK=2 WORLD_SIZE=3 {master} GLOO_SOCKET_IFNAME=eth0"
    assert "failed: rank 1 (w2) exited with code 1" in done.stderr


def test_launch_stops_every_rank_on_ctrl_c(tmp_path):
    out = tmp_path / "launch"
    proc = subprocess.Popen([sys.executable, "-m", "testbed.cli", "launch", "-o", str(out),
                             str(ddp_copy(tmp_path)), "--", "python",
                             str(DDP.parent / "scripts" / "ddp_train.py"), "--steps", "100000",
                             "--dim", "32", "--layers", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
                            # Ctrl-C as a terminal delivers it, also when the test runner
                            # was itself started in the background (SIGINT ignored)
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    log = out / "metrics" / "rank0.jsonl"
    try:
        deadline = time.monotonic() + 240
        while not (log.exists() and log.read_text().count("\n") >= 2):
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:          # never leave a run behind: SIGTERM tears it down
            proc.terminate()
            proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert "interrupted: every rank stopped, network torn down" in stderr
    assert stdout.startswith("step 0 loss")
    assert not processes_mentioning("ddp_train.py") and not leftover_interfaces()
    assert json.loads(log.read_text().splitlines()[0])["rank"] == 0
