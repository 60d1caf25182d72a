"""One's own training script: the experiment field, the step records taken from its
collectives (ranks on this machine's loopback), bad scripts, and ``trainet launch``'s
command line."""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

from testbed import hooks
from testbed.errors import TrainetError
from testbed.experiment.launch_command import script_of
from testbed.experiment.spec import load_experiment
from testbed.topology.specfile import TopologyError

REPO = Path(__file__).resolve().parents[2]
DDP_SCRIPT = REPO / "experiments" / "scripts" / "ddp_train.py"
DDP_EXPERIMENT = REPO / "experiments" / "own-script-ddp.yaml"


def write(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text))
    return path


def run_ranks(tmp_path, script: Path, args=(), world: int = 2, init_timeout: float = 60,
              port: int = 29711) -> list[subprocess.CompletedProcess]:
    """The script on ``world`` ranks over loopback, each under hosts.script_host."""
    procs = []
    for rank in range(world):
        env = {**os.environ, "RANK": str(rank), "WORLD_SIZE": str(world), "LOCAL_RANK": "0",
               "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port),
               "GLOO_SOCKET_IFNAME": "lo", "OMP_NUM_THREADS": "1",
               "PYTHONPATH": str(REPO)}
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "hosts.script_host", "--metrics-out",
             str(tmp_path / f"rank{rank}.jsonl"), "--init-timeout", str(init_timeout),
             str(script), *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, cwd=tmp_path))
    out = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=120)
        out.append(subprocess.CompletedProcess(p.args, p.returncode, stdout, stderr))
    return out


def records(tmp_path, rank: int) -> list[dict]:
    return [json.loads(line) for line in (tmp_path / f"rank{rank}.jsonl").read_text().splitlines()]


# ------------------------------------------------------------------ the experiment field
def experiment(tmp_path, workload: str, extra: str = "") -> Path:
    return write(tmp_path / "exp.yaml", f"""\
        name: mine
        topology: {{generator: {{name: star, workers: 2}}}}
        workload: {workload}
        {extra}
        """)


def test_script_workload_is_the_experiments_one_run(tmp_path):
    write(tmp_path / "train.py", "print('hi')\n")
    plan = load_experiment(experiment(tmp_path, "{script: train.py, args: [--steps, 3], "
                                      "env: {A: 1}}"))
    (run,) = plan.strategies
    assert (run.label, run.name, run.script) == ("train", "script", tmp_path / "train.py")
    assert plan.spec.workload.mode == "real"
    assert plan.spec.workload.args == ["--steps", "3"] and plan.spec.workload.env == {"A": "1"}
    shipped = load_experiment(DDP_EXPERIMENT)
    assert shipped.strategies[0].script == DDP_SCRIPT and len(shipped.variants()) == 2


@pytest.mark.parametrize("workload, extra, message", [
    ("{script: missing.py}", "", "workload.script: script 'missing.py' not found"),
    ("{script: train.py}", "strategies: [ddp]", "drop strategies"),
    ("{model: gpt}", "", "give the strategies to compare"),
    ("{script: train.py, mode: shadow}", "", "drop mode: shadow"),
    ("{script: train.py, steps: 4}", "", "steps: the script decides these"),
    ("{args: [--x]}", "strategies: [ddp]", "args and env are a script's"),
])
def test_bad_script_workloads_name_the_field(tmp_path, workload, extra, message):
    write(tmp_path / "train.py", "print('hi')\n")
    with pytest.raises(TopologyError) as err:
        load_experiment(experiment(tmp_path, workload, extra))
    assert message in str(err.value) and "exp.yaml" in str(err.value)


# ------------------------------------------------------------------ step records
def test_ddp_script_steps_end_at_the_optimizer_with_ddp_all_reduce_bytes(tmp_path):
    done = run_ranks(tmp_path, DDP_SCRIPT, ["--steps", "3", "--dim", "32", "--layers", "1"])
    assert [p.returncode for p in done] == [0, 0], done[0].stderr + done[1].stderr
    rows = records(tmp_path, 0)
    assert [r["step"] for r in rows] == [0, 1, 2]
    assert {r["boundary"] for r in rows} == {"optimizer"}
    # the losses are those the script printed, taken from its backward()
    printed = [float(line.split()[-1]) for line in done[0].stdout.splitlines()
               if line.startswith("step")]
    assert [round(r["loss"], 4) for r in rows] == printed
    # DDP averages every gradient once per step: 2(n-1)/n of the parameters' bytes
    sys.path.insert(0, str(DDP_SCRIPT.parent))
    from ddp_train import TinyGPT
    params = sum(p.numel() * 4 for p in TinyGPT(64, 32, 1, 32).parameters())
    for r in rows:
        assert r["payload_bytes"] == params and r["logical_sent_bytes"] == params
        assert 0 < r["exposed_comm_s"] <= r["step_s"]
        assert r["compute_s"] == pytest.approx(r["step_s"] - r["exposed_comm_s"])
    summary = json.loads((tmp_path / "rank0.summary.json").read_text())
    assert summary["steps"] == 3 and summary["boundary"] == "optimizer step"


HOOKED = """\
    import torch, torch.distributed as dist
    from testbed import hooks
    dist.init_process_group("gloo")
    torch.manual_seed(0)
    model = torch.nn.Linear(16, 4)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(3):
        loss = model(torch.ones(2, 16)).pow(2).mean() + step
        loss.backward()
        for p in model.parameters():
            dist.all_reduce(p.grad)
        handle = dist.all_gather_into_tensor(torch.empty(8), torch.ones(4), async_op=True)
        handle.wait()
        hooks.step(loss=torch.tensor(100.0 + step))
        opt.step()
        opt.zero_grad()
    dist.destroy_process_group()
    """


def test_hook_ends_the_steps_and_gives_the_loss(tmp_path):
    script = write(tmp_path / "hooked.py", HOOKED)
    done = run_ranks(tmp_path, script, port=29712)
    assert [p.returncode for p in done] == [0, 0], done[0].stderr + done[1].stderr
    rows = records(tmp_path, 1)
    assert [r["loss"] for r in rows] == [100.0, 101.0, 102.0]
    assert {r["boundary"] for r in rows} == {"hook"}
    # all-reduce of 16x4+4 floats (2(n-1)/n = 1 of them) and all-gather of 8 floats (1/2)
    assert {r["collectives"] for r in rows} == {3}
    assert {r["payload_bytes"] for r in rows} == {(64 + 4) * 4 + 8 * 4}
    assert {r["logical_sent_bytes"] for r in rows} == {(64 + 4) * 4 + 16}


def test_hook_is_a_no_op_outside_trainet():
    hooks.step(loss=torch.tensor(1.0))
    hooks.step()


@pytest.mark.parametrize("body, message", [
    ("import time\ntime.sleep(60)\n", "did not initialise torch.distributed within 2 s"),
    ("print('hello')\n", "finished without initialising torch.distributed"),
])
def test_script_without_torch_distributed_is_one_line(tmp_path, body, message):
    script = write(tmp_path / "plain.py", body)
    done = run_ranks(tmp_path, script, world=1, init_timeout=2, port=29713)
    assert done[0].returncode == 1
    lines = done[0].stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: rank 0: ") and message in lines[0]


def test_script_that_raises_keeps_its_steps(tmp_path):
    script = write(tmp_path / "raises.py", """\
        import sys, torch, torch.distributed as dist
        dist.init_process_group("gloo")
        w = torch.nn.Parameter(torch.ones(3))
        opt = torch.optim.SGD([w], lr=0.1)
        for step in range(3):
            (w * w).sum().backward()
            dist.all_reduce(w.grad)
            opt.step()
            if step == 1:
                raise ValueError(f"bad batch at step {step} (args {sys.argv[1:]})")
        """)
    done = run_ranks(tmp_path, script, ["--x", "1"], world=1, port=29714)
    assert done[0].returncode == 1
    assert "ValueError: bad batch at step 1 (args ['--x', '1'])" in done[0].stderr
    assert len(records(tmp_path, 0)) == 2


def test_missing_script_is_one_line(tmp_path):
    done = run_ranks(tmp_path, tmp_path / "nope.py", world=1, port=29715)
    assert done[0].returncode == 1
    assert done[0].stderr.strip() == f"error: rank 0: script {tmp_path / 'nope.py'} not found " \
        f"(working directory {tmp_path})"


# ------------------------------------------------------------------ launch's command line
def test_launch_takes_python_and_the_script(tmp_path):
    assert script_of(["--", "python", str(DDP_SCRIPT), "--steps", "2"]) == \
        (DDP_SCRIPT, ["--steps", "2"])
    assert script_of(["python3", str(DDP_SCRIPT)]) == (DDP_SCRIPT, [])
    with pytest.raises(TrainetError, match="not found"):
        script_of(["--", "python", str(tmp_path / "x.py")])
    with pytest.raises(TrainetError, match="give the script to run"):
        script_of(["--", "python"])
    with pytest.raises(TrainetError, match="options before FABRIC"):
        script_of(["-o", "x", "--", "python", "t.py"])
