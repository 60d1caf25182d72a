"""A strategy whose footprint does not fit its device is reported before anything
starts and not run; the others run; an option runs it anyway, marked."""
import io
import textwrap
from pathlib import Path

import pytest
from rich.console import Console

from testbed.experiment import results
from testbed.experiment.fit import memory_checks
from testbed.experiment.report import write_report
from testbed.experiment.runner import Runner
from testbed.experiment.spec import load_experiment
from testbed.topology.specfile import TopologyError

from .test_runner import FakeLaunch, FakeNetwork

REPO = Path(__file__).resolve().parents[2]

# gpt-1.3b, batch 8: ddp holds 16P = 20.8 GB plus activations, zero3 16P/2
EXPERIMENT = """\
    name: tight
    topology:
      generator: {name: star, workers: 2, nic: roce-100g}
    workload: {mode: shadow, shadow_model: gpt-1.3b, device: a100-80gb, device_memory: 24GiB,
               steps: 2, recompute: full}
    strategies: [ddp, zero3]
    sweep:
      bandwidth: [100Gbit]
    scale: 1e-4
    """


def runner(tmp_path, text):
    path = tmp_path / "exp.yaml"
    path.write_text(textwrap.dedent(text))
    log = []
    launch = FakeLaunch(log)
    console = Console(file=io.StringIO(), width=200)
    return Runner(load_experiment(path), tmp_path / "out", console=console,
                  network_factory=lambda p, d: FakeNetwork(log, p, d), launch=launch), launch


def test_a_strategy_that_does_not_fit_is_reported_and_not_run(tmp_path):
    run, launch = runner(tmp_path, EXPERIMENT)
    assert run.run() == 0
    assert [c[0] for c in launch.calls] == ["zero3"]
    out = tmp_path / "out"
    rows = {r["strategy"]: r for r in results.read_summary(out)}
    assert rows["ddp"]["memory_status"] == "not run"
    assert rows["ddp"]["memory_verdict"].startswith("needs ")
    assert rows["ddp"]["memory_verdict"].endswith(" of 24 GiB device memory")
    assert rows["ddp"]["step_time_s"] is None and rows["ddp"]["runs"] == 0
    assert rows["ddp"]["mem_device_need_B"] > 24 * 2**30
    assert rows["zero3"]["memory_status"] == "fits"
    assert rows["zero3"]["step_time_s"] is not None
    text = run.console.file.getvalue()
    assert "does not fit" in text and "ddp: not run, needs" in text
    report = write_report(out).read_text()
    assert "| bandwidth-100Gbit | ddp |" in report and "of 24 GiB device memory" in report


def test_run_not_fitting_runs_it_marked(tmp_path):
    run, launch = runner(tmp_path, EXPERIMENT.replace(
        "strategies: [ddp, zero3]",
        "strategies: [{strategy: ddp, run_not_fitting: true}, zero3]"))
    assert run.run() == 0
    assert [c[0] for c in launch.calls] == ["ddp", "zero3"]
    rows = {r["strategy"]: r for r in results.read_summary(tmp_path / "out")}
    assert rows["ddp"]["memory_status"] == "run anyway"
    assert rows["ddp"]["step_time_s"] is not None


@pytest.mark.parametrize("memory,message", [
    ("0", "workload.device_memory: a device's capacity is a positive size"),
    ("1MB", "workload.device_memory: 0.000931 GiB holds not even the smallest parameter shard"),
])
def test_a_capacity_that_cannot_be_meant_is_an_error(tmp_path, memory, message):
    path = tmp_path / "exp.yaml"
    path.write_text(textwrap.dedent(EXPERIMENT).replace("24GiB", memory))
    with pytest.raises(TopologyError) as info:
        memory_checks(load_experiment(path))
    assert f"{path}:4:" in str(info.value) and message in str(info.value)


def test_a_luwu_budget_below_one_layer_is_an_error_naming_the_options(tmp_path):
    path = tmp_path / "exp.yaml"
    path.write_text(textwrap.dedent(f"""\
        name: budget
        topology:
          generator: {{name: star, workers: 2, optimizers: 1}}
          program: {REPO}/p4/luwu.p4
        workload: {{mode: shadow, shadow_model: gpt-175b, device: a100-80gb, global_batch: 2}}
        strategies:
          - {{strategy: luwu, options: {{memory_budget: 1GB}}}}
        """))
    with pytest.raises(TopologyError) as info:
        memory_checks(load_experiment(path))
    assert f"{path}:7:" in str(info.value)
    assert ("strategies[0].options: strategy luwu: luwu: memory_budget 1000000000 B is "
            "smaller than one layer") in str(info.value)


def test_the_cpu_optimizer_rate_is_measured_once_and_given_to_offloading_workers(tmp_path):
    run, launch = runner(tmp_path, EXPERIMENT.replace(
        "strategies: [ddp, zero3]",
        "strategies: [zero3, {strategy: zero3, label: offloaded, "
        "options: {offload_optimizer: cpu}}]"))
    assert run.run() == 0
    rate = run.cpu_adam_rate
    assert rate > 0
    args = {c[1].get("offload_optimizer", "none"): c[1] for c in launch.calls}
    assert args["cpu"]["cpu_adam_rate"] == rate and "cpu_adam_rate" not in args["none"]
    report = write_report(tmp_path / "out").read_text()
    assert f"{rate / 1e6:.0f} M parameters/s on one core" in report


def test_workers_on_different_devices_are_held_against_the_smallest(tmp_path):
    path = tmp_path / "exp.yaml"
    path.write_text(textwrap.dedent("""\
        name: mixed
        topology:
          generator:
            name: geo
            sites: [{name: a, hosts: 1, device: h100-80gb}, {name: b, hosts: 1,
                     device: a100-40gb}]
            wan: [wan-10g]
        workload: {mode: shadow, shadow_model: gpt-1.3b, steps: 2, recompute: full}
        strategies: [ddp]
        """))
    (check,) = memory_checks(load_experiment(path))
    assert check.fit.verdict().endswith(" of 40 GiB")


@pytest.mark.parametrize("recompute", ["none", "selective", "full"])
def test_the_workloads_recompute_is_what_the_fit_counts_and_the_workers_sleep(tmp_path,
                                                                             recompute):
    """One setting: the fit check keeps the activations of the workload's recompute, the
    runner gives the workers that recompute (none: no flag, as before), and a shadow
    worker started with those flags sleeps its forward re-run (hosts/compute.py). A
    megatron entry's own option overrides the workload's for all three."""
    from hosts import compute, footprint, shadow, worker
    from hosts.collectives.threads import run_ranks
    from testbed.experiment.launch import _flags
    from testbed.experiment.runner import worker_args
    path = tmp_path / "exp.yaml"
    path.write_text(textwrap.dedent(f"""\
        name: one-recompute
        topology: {{generator: {{name: star, workers: 2, nic: roce-100g}}}}
        workload: {{mode: shadow, shadow_model: gpt-1.3b, device: a100-80gb,
                   global_batch: 4, recompute: {recompute}}}
        strategies: [ddp, {{strategy: megatron, options: {{tp: 2, recompute: selective}}}}]
        """))
    experiment = load_experiment(path)
    model, a100 = shadow.shadow_model("gpt-1.3b"), shadow.device("a100-80gb")
    ddp, megatron = memory_checks(experiment)
    assert ddp.fit.footprint.activations == footprint.activation_bytes(model, 2, recompute)
    assert megatron.fit.footprint.activations == footprint.activation_bytes(
        model, 4, "selective", tp=2)

    def rank_of(strategy):
        args = worker_args(experiment, strategy)

        def body(comm):
            flags = worker.parse_args(_flags({**args, "strategy": strategy.info.name,
                                               "world_size": 2, "master": "127.0.0.1:1",
                                               "metrics_out": "-"})
                                      + ["--rank", str(comm.rank)])
            return worker.make_strategy(flags, comm)
        return args, run_ranks(2, body, timeout_s=30)[0]

    args, rank = rank_of(experiment.strategies[0])
    assert args.get("recompute", "none") == recompute
    x = shadow.shape_of(model)
    assert rank.compute_s == pytest.approx(
        compute.step_pass(x, model.params, a100, 2, recompute=recompute).seconds)
    args, rank = rank_of(experiment.strategies[1])        # its passes sleep its option's
    assert args["recompute"] == rank.options.recompute == "selective"
