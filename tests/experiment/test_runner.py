"""``trainet run`` with a stand-in network and launcher: layout, summary, and how a
failed, crashed or interrupted run ends."""
import io
import json
import textwrap
import time

import pytest
import yaml
from rich.console import Console

from testbed.errors import TrainetError
from testbed.experiment import results
from testbed.experiment.launch import RunResult
from testbed.experiment.runner import Runner
from testbed.experiment.spec import load_experiment

from .synthetic import step_record

EXPERIMENT = """\
    name: fake
    description: Stand-in network and workers.
    topology:
      generator: {name: star, workers: 2, nic: roce-100g}
    workload: {model: gpt, mode: shadow, shadow_model: gpt-1.3b, device: a100-80gb, steps: 3,
               recompute: full}
    strategies: [ddp, zero3]
    sweep:
      bandwidth: [100Gbit, 200Gbit]
    repetitions: 2
    scale: 1e-4
    timeouts: {run: 30s}
    """


class FakeNetwork:
    """Records its life; its one "switch interface" is lo, whose counters exist."""

    def __init__(self, log, blueprint, directory):
        self.log, self.blueprint, self.directory = log, blueprint, directory
        self.log.append(("build", blueprint.links[0].shape.nominal_bps))

    def start(self):
        self.log.append(("start",))

    def stop(self):
        self.log.append(("stop",))

    def switch_interfaces(self):
        return ["lo"]


class FakeLaunch:
    """Writes metrics like hosts.worker; ``compute`` and ``comm`` per step depend on
    the strategy and on the bandwidth of the network it runs on."""

    def __init__(self, log, fail=None, interrupt_at=None, broken_at=None):
        self.log, self.fail, self.interrupt_at = log, fail, interrupt_at
        self.broken_at = broken_at          # the call at which the switch dies
        self.calls = []

    def __call__(self, net, hosts, strategy, worker_args, out_dir, timeout_s, progress=None,
                 server_host=None):
        self.calls.append((strategy, dict(worker_args), timeout_s, server_host))
        if self.interrupt_at is not None and len(self.calls) == self.interrupt_at:
            raise KeyboardInterrupt
        bw = net.blueprint.links[0].shape.nominal_bps
        exposed = (0.2 if strategy == "ddp" else 0.4) * 100e9 / bw
        metrics = out_dir / "metrics"
        metrics.mkdir(parents=True)
        for rank in range(len(hosts)):
            rows = [step_record(s, rank, 0.1, exposed) for s in range(worker_args["steps"])]
            (metrics / f"rank{rank}.jsonl").write_text(
                "".join(json.dumps(r) + "\n" for r in rows))
            progress({r: worker_args["steps"] for r in range(rank + 1)})
        ok = strategy != self.fail
        if len(self.calls) == self.broken_at:
            return RunResult(ok=False, strategy=strategy, hosts=list(hosts), out_dir=out_dir,
                             elapsed_s=0.1, returncodes={}, steps_done={}, metrics={},
                             broken="switch s1 was killed by signal 9 (SIGKILL)")
        return RunResult(ok=ok, strategy=strategy, hosts=list(hosts), out_dir=out_dir,
                         elapsed_s=0.1, returncodes={}, steps_done={}, metrics={},
                         reason=None if ok else "rank 1 (w2) exited with code 1: error: boom")


def make_runner(tmp_path, launch, log, text=EXPERIMENT, network=None, resume=False):
    path = tmp_path / "exp.yaml"
    path.write_text(textwrap.dedent(text))
    factory = network or (lambda blueprint, directory: FakeNetwork(log, blueprint, directory))
    console = Console(file=io.StringIO(), width=160)
    return Runner(load_experiment(path), tmp_path / "out", console=console,
                  network_factory=factory, launch=launch, resume=resume), console


def test_every_variant_strategy_and_repetition_runs_into_the_layout(tmp_path):
    log = []
    launch = FakeLaunch(log)
    runner, console = make_runner(tmp_path, launch, log)
    assert runner.run() == 0
    out = tmp_path / "out"
    assert log == [("build", 100e9), ("start",), ("stop",),
                   ("build", 200e9), ("start",), ("stop",)]
    assert [c[0] for c in launch.calls] == ["ddp", "ddp", "zero3", "zero3"] * 2
    assert launch.calls[0][1:] == ({"model": "gpt", "mode": "shadow", "steps": 3,
                                    "scale": 1e-4, "shadow_model": "gpt-1.3b",
                                    "device": "a100-80gb", "batch": 8,
                                    "recompute": "full"}, 30.0, None)
    assert results.read_status(out)["status"] == "completed"
    config = yaml.safe_load((out / "config.yaml").read_text())
    assert [v["name"] for v in config["variants"]] == ["bandwidth-100Gbit", "bandwidth-200Gbit"]
    assert config["variants"][1]["port_rates_bps"]["s1-eth1"] == pytest.approx(20e6)
    assert config["workers"] == ["w1", "w2"]
    assert "200Gbit" in (out / "variants" / "bandwidth-200Gbit" / "topology.yaml").read_text()
    assert (out / "experiment.yaml").read_text() == textwrap.dedent(EXPERIMENT)
    assert json.loads((out / "environment.json").read_text())["torch"].startswith("2.")
    links = (out / "runs" / "bandwidth-100Gbit" / "ddp" / "rep1" / "links.csv").read_text()
    assert links.splitlines()[0] == "time_s,interface,rx_bytes,tx_bytes"
    assert ",lo," in links
    rows = {(r["variant"], r["strategy"]): r for r in results.read_summary(out)}
    assert rows[("bandwidth-100Gbit", "zero3")]["step_time_s"] == pytest.approx(0.5)
    assert rows[("bandwidth-200Gbit", "zero3")]["step_time_s"] == pytest.approx(0.3)
    assert rows[("bandwidth-200Gbit", "ddp")]["runs"] == 2
    assert rows[("bandwidth-200Gbit", "ddp")]["steps_measured"] == 2 * 2 * 2
    text = console.file.getvalue()
    assert "experiment summary" in text and "bandwidth-200Gbit" in text and "300 ms" in text


def test_a_failed_strategy_is_recorded_and_the_others_run(tmp_path):
    log = []
    launch = FakeLaunch(log, fail="zero3")
    runner, console = make_runner(tmp_path, launch, log)
    assert runner.run() == 1
    status = results.read_status(tmp_path / "out")
    assert status["status"] == "failed"
    assert "bandwidth-100Gbit/zero3/rep0: rank 1 (w2) exited with code 1" in status["error"]
    assert len(launch.calls) == 8 and log.count(("stop",)) == 2
    assert "failed:" in console.file.getvalue()


def test_interrupt_tears_down_and_leaves_status_interrupted(tmp_path):
    log = []
    runner, _ = make_runner(tmp_path, FakeLaunch(log, interrupt_at=3), log)
    with pytest.raises(KeyboardInterrupt):
        runner.run()
    assert log == [("build", 100e9), ("start",), ("stop",)]
    out = tmp_path / "out"
    status = results.read_status(out)
    assert status["status"] == "interrupted"
    assert "Ctrl-C or SIGTERM" in status["error"]
    rows = results.read_summary(out)            # the two ddp runs that finished
    assert [(r["strategy"], r["runs"]) for r in rows] == [("ddp", 2.0)]


def test_crash_during_bring_up_leaves_status_failed(tmp_path):
    log = []

    class Broken(FakeNetwork):
        def start(self):
            raise RuntimeError("veth creation failed")

    runner, _ = make_runner(tmp_path, FakeLaunch(log), log,
                            network=lambda p, d: Broken(log, p, d))
    with pytest.raises(TrainetError, match="experiment failed: RuntimeError: veth creation "
                       "failed") as info:
        runner.run()
    assert "status.json" in str(info.value)
    status = results.read_status(tmp_path / "out")
    assert status["status"] == "failed" and "veth creation failed" in status["error"]
    assert "Traceback" in status["traceback"]


def test_existing_results_directory_is_refused(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "keep.txt").write_text("earlier results")
    log = []
    runner, _ = make_runner(tmp_path, FakeLaunch(log), log)
    with pytest.raises(TrainetError, match="exists and is not empty"):
        runner.run()
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["keep.txt"]


def test_an_earlier_run_is_never_overwritten(tmp_path):
    log = []
    runner, _ = make_runner(tmp_path, FakeLaunch(log), log)
    assert runner.run() == 0
    again, _ = make_runner(tmp_path, FakeLaunch(log), log)
    with pytest.raises(TrainetError, match="exists and is not empty"):
        again.run()
    assert results.read_status(tmp_path / "out")["status"] == "completed"


def test_bring_up_that_hangs_is_stopped_by_its_timeout(tmp_path):
    log = []

    class Hanging(FakeNetwork):
        def start(self):
            time.sleep(5)

    text = EXPERIMENT.replace("timeouts: {run: 30s}", "timeouts: {run: 30s, bring_up: 200ms}")
    runner, _ = make_runner(tmp_path, FakeLaunch(log), log, text=text,
                            network=lambda p, d: Hanging(log, p, d))
    started = time.monotonic()
    with pytest.raises(TrainetError, match="bring-up of bandwidth-100Gbit took longer than "
                       "200 ms; raise timeouts.bring_up"):
        runner.run()
    assert time.monotonic() - started < 2
    assert results.read_status(tmp_path / "out")["status"] == "failed"


# ---------------------------------------------------------------- faults and --resume
def test_a_dead_switch_stops_the_experiment_and_resume_runs_only_the_rest(tmp_path):
    log = []
    runner, _ = make_runner(tmp_path, FakeLaunch(log, broken_at=6), log)
    with pytest.raises(TrainetError, match="bandwidth-200Gbit ddp repetition 2: switch s1 was "
                       "killed by signal 9") as info:
        runner.run()
    assert "--resume" in str(info.value)
    out = tmp_path / "out"
    status = results.read_status(out)
    assert status["status"] == "failed" and "switch s1 was killed" in status["error"]
    assert [(r["variant"], r["strategy"]) for r in results.read_summary(out)] == [
        ("bandwidth-100Gbit", "ddp"), ("bandwidth-100Gbit", "zero3"),
        ("bandwidth-200Gbit", "ddp")]                  # what finished is kept

    log.clear()
    launch = FakeLaunch(log)
    again, console = make_runner(tmp_path, launch, log, resume=True)
    assert again.run() == 0
    assert [c[0] for c in launch.calls] == ["ddp", "zero3", "zero3"]   # rep 2 of ddp, zero3
    assert log == [("build", 200e9), ("start",), ("stop",)]       # 100 Gbit/s is not redone
    assert "bandwidth-100Gbit: every run finished before; kept" in console.file.getvalue()
    status = results.read_status(out)
    assert status["status"] == "completed" and "error" not in status and "resumed" in status
    rows = {(r["variant"], r["strategy"]): r for r in results.read_summary(out)}
    assert all(r["runs"] == 2 for r in rows.values()) and len(rows) == 4


def test_resume_runs_again_the_runs_that_failed(tmp_path):
    log = []
    runner, console = make_runner(tmp_path, FakeLaunch(log, fail="zero3"), log)
    assert runner.run() == 1
    assert "--resume" in console.file.getvalue()
    launch = FakeLaunch(log)
    again, _ = make_runner(tmp_path, launch, log, resume=True)
    assert again.run() == 0
    assert [c[0] for c in launch.calls] == ["zero3"] * 4
    assert results.read_status(tmp_path / "out")["status"] == "completed"


def test_resume_refuses_another_experiment_and_an_empty_directory(tmp_path):
    log = []
    runner, _ = make_runner(tmp_path, FakeLaunch(log, fail="zero3"), log)
    runner.run()
    changed, _ = make_runner(tmp_path, FakeLaunch(log), log, resume=True,
                             text=EXPERIMENT.replace("steps: 3", "steps: 4"))
    with pytest.raises(TrainetError, match="was run from another experiment"):
        changed.run()
    (tmp_path / "new").mkdir()
    nothing, _ = make_runner(tmp_path / "new", FakeLaunch(log), log, resume=True)
    with pytest.raises(TrainetError, match="nothing to resume"):
        nothing.run()


def test_a_relative_plan_file_is_shared_by_the_variants_strategies(tmp_path):
    text = EXPERIMENT.replace("recompute: full", "recompute: none").replace(
        "strategies: [ddp, zero3]",
        "strategies:\n"
        "      - {strategy: fusionllm, options: {plan_file: plan.json}}\n"
        "      - {strategy: fusionllm, label: dense, "
        "options: {compression: none, plan_file: plan.json}}")
    log = []
    launch = FakeLaunch(log)
    runner, _ = make_runner(tmp_path, launch, log, text=text)
    assert runner.run() == 0
    runs = tmp_path / "out" / "runs"
    files = [c[1]["plan_file"] for c in launch.calls]
    assert files[:4] == [str(runs / "bandwidth-100Gbit" / "plan.json")] * 4
    assert files[4:] == [str(runs / "bandwidth-200Gbit" / "plan.json")] * 4
