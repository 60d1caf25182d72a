"""``trainet plan``: bandwidths per group placement, the ranking, bad input."""
from pathlib import Path

import pytest

from hosts import shadow
from hosts.parallelism.grid import Grid
from testbed import cli
from testbed.errors import TrainetError
from testbed.experiment.plan import plan, predict, ranked
from testbed.experiment.spec import load_experiment
from testbed.model.fabric import NominalFabric, topology_fabric
from testbed.topology.generators import leaf_spine

A100 = shadow.device("a100")


def group_bandwidth(fabric, groups):
    """(bit/s, latency s per ring step) of the slowest of ``groups`` running at once."""
    return fabric.group_bandwidth(groups)[:2]


def test_groups_inside_a_node_get_the_node_and_spread_ones_share_nics():
    fabric = NominalFabric(8, 4, 1600e9, 200e9, 1e-6)
    grid = Grid(2, 2, 2, 1)                     # rows and columns inside a node of 4
    assert group_bandwidth(fabric, grid.groups("row"))[0] == 1600e9
    assert group_bandwidth(fabric, grid.groups("column"))[0] == 1600e9
    bps, latency = group_bandwidth(fabric, grid.groups("depth"))      # 0-4, 1-5, ...
    assert bps == 200e9 and latency == 2e-6
    # one ring over all 8: its two node-crossing hops each have a NIC to themselves
    assert group_bandwidth(fabric, [list(range(8))])[0] == 200e9


def test_rings_that_share_a_link_share_its_bandwidth():
    """Two racks of 4 joined through 2 spines: the 4 depth rings of a 1x4x2x1 grid all
    cross between the racks, each with one hop each way; shortest paths all take
    spine1, so each leaf's uplink carries 4 hops."""
    topology = leaf_spine(leaves=2, spines=2, hosts_per_leaf=4, nic="roce-100g",
                          fabric="roce-100g")
    fabric = topology_fabric(topology)
    depth = Grid(1, 4, 2, 1).groups("depth")                      # [0, 4], [1, 5], ...
    bps, _ = group_bandwidth(fabric, depth)
    assert bps == pytest.approx(100e9 / 4)
    assert group_bandwidth(fabric, Grid(1, 4, 2, 1).groups("column"))[0] == 100e9  # in a rack


def test_plan_ranks_every_valid_layout_and_prefers_fast_groups():
    model = shadow.PRESETS["gpt-20b"]
    fabric = NominalFabric(16, 4, 1600e9, 25e9, 1e-6)
    predictions, dropped = ranked(fabric, model, 16, 32, A100, 0.4)
    steps = [p.step_s for p in predictions]
    assert steps == sorted(steps)
    every = predictions + dropped                 # dropped: do not fit 80 GiB
    assert {p.strategy for p in every} == {"axonn", "megatron"}
    assert len([p for p in every if p.strategy == "megatron"]) == 5   # tp 1..16
    by_layout = {(p.strategy, p.layout): p for p in every}
    # rows fill a node of 4, the data groups take one rank of each node
    assert by_layout["axonn", "4x1x1x4"].bandwidths == {"row": 1600e9, "dp": 25e9,
                                                        "batch": 25e9}
    tensor_inside = by_layout["megatron", "tp4 x dp4"]
    tensor_across = by_layout["megatron", "tp16 x dp1"]
    assert tensor_inside.exposed_s < tensor_across.exposed_s
    for p in every:
        assert p.step_s == pytest.approx(p.compute_s + p.exposed_s)
        assert p.exposed_s <= p.comm_s + 1e-12


def test_the_plan_ranks_the_layouts_any_strategy_declares(monkeypatch):
    """The plan asks the registry: a strategy registered with layouts and a layout
    (here Megatron's, under another name) is ranked beside the built-ins, with the same
    predictions and its layouts named its way; its pipelined layouts are left out."""
    from hosts.strategies import registry
    from hosts.strategies.parallel import megatron_layouts, register_layout
    registry.names()
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    register_layout("megatron-again", "dp", "Megatron's layouts under another name",
                    layouts=megatron_layouts)
    predictions = plan(NominalFabric(8, 4, 1600e9, 200e9, 1e-6), shadow.PRESETS["gpt-1.3b"],
                       8, 16, A100, 0.4)
    again = {p.layout: p for p in predictions if p.strategy == "megatron-again"}
    megatron = {p.layout: p for p in predictions if p.strategy == "megatron"}
    assert set(again) == set(megatron) == {"tp1 x dp8", "tp2 x dp4", "tp4 x dp2", "tp8 x dp1"}
    for layout, p in again.items():
        assert p.step_s == megatron[layout].step_s and p.options["pp"] == 1
        assert p.form == "TP x DP"


def test_a_fabric_needs_a_host_per_rank():
    with pytest.raises(TrainetError, match="has 8 worker hosts for 16 ranks; choose a "
                       "world of at most 8"):
        plan(NominalFabric(8, 4, 1e12, 1e11, 0), shadow.PRESETS["gpt-1.3b"], 16, 32, A100,
             0.4)


def test_plan_command_prints_the_ranking(capsys):
    assert cli.main(["plan", "--gpus", "8", "--model", "gpt-1.3b", "--top", "3"]) == 0
    out = capsys.readouterr().out
    assert "valid layouts" in out
    assert out.count("axonn") + out.count("megatron") >= 3
    assert "best megatron (TP x DP)" in out


def test_the_axonn_experiment_runs_megatrons_best_layout_and_six_grids():
    """experiments/axonn.yaml loads; at its global batch (2 replicas of 8 sequences) its
    axonn grids are valid layouts and its megatron layout is the plan's best TP x DP of
    two replicas; over all replica counts the plan ranks TP 2 x DP 4 first, its
    gradient all-reduce hidden behind the backward as Megatron-LM overlaps it."""
    experiment = load_experiment(Path(__file__).parents[2] / "experiments" / "axonn.yaml")
    workload = experiment.spec.workload
    model = shadow.shadow_model(workload.shadow_model)
    world = len(experiment.workers)
    predictions = plan(topology_fabric(experiment.topology), model, world,
                       workload.global_batch, shadow.device(workload.device), 0.4)
    layouts = {(p.strategy, tuple(sorted(p.options.items()))) for p in predictions}
    grids = [s for s in experiment.strategies if s.info.name == "axonn"]
    assert len(grids) >= 6
    for s in grids:
        assert ("axonn", tuple(sorted(s.options.items()))) in layouts
    megatron = experiment.strategy("megatron-tp4-dp2")
    ranked = [p for p in predictions if p.strategy == "megatron"]
    best_of_two = next(p for p in ranked if p.options["dp"] == 2)
    assert (best_of_two.options["tp"], best_of_two.options["dp"]) == (
        megatron.options["tp"], megatron.options["dp"])
    assert (ranked[0].options["tp"], ranked[0].options["dp"]) == (2, 4)


def test_plan_check_sets_predictions_beside_a_runs_measurements(tmp_path, capsys):
    """A results directory of experiments/axonn.yaml whose measured steps are the
    predictions (with the workers' default interference) times 1.25: every error is
    -20 %, the ranking agrees (rho 1)."""
    from testbed.experiment import plan_check
    source = Path(__file__).parents[2] / "experiments" / "axonn.yaml"
    (tmp_path / "experiment.yaml").write_text(source.read_text())
    experiment = load_experiment(source)
    fabric = topology_fabric(experiment.topology)
    model, batch = shadow.shadow_model("gpt-1.3b"), experiment.spec.workload.global_batch
    rows = ["variant,strategy,step_time_s,exposed_comm_s"]
    for s in experiment.strategies:
        options = plan_check.layout_options(s.info.name, s.options, 8)
        # as the workers slept it: the experiment's recompute, none
        mine = predict(fabric.first(8), model, s.info.name, options, batch, A100,
                       shadow.DEFAULT_MFU, shadow.DEFAULT_INTERFERENCE, recompute="none")
        rows.append(f"base,{s.label},{mine.step_s * 1.25},{mine.exposed_s}")
    (tmp_path / "summary.csv").write_text("\n".join(rows) + "\n")
    checks = plan_check.check(tmp_path)
    assert len(checks) == 7
    assert all(c.error == pytest.approx(-0.2) for c in checks)
    assert cli.main(["plan", "--check", str(tmp_path)]) == 0
    assert "Spearman rank correlation 1.00; mean |error| 20.0% over 7 layouts" in \
        capsys.readouterr().out


def test_spearman():
    from testbed.experiment.plan_check import spearman
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1)
    assert spearman([1, 2, 3], [1, 3, 2]) == pytest.approx(0.5)
    with pytest.raises(TrainetError, match=r"the predicted values \(5, 5, 5\) have no spread"):
        spearman([5, 5, 5], [1, 2, 3])
    with pytest.raises(TrainetError, match="the measured values .* have no spread"):
        spearman([1, 2, 3], [0.2, 0.2, 0.2])
    with pytest.raises(TrainetError, match="no spread"):
        spearman([1.0], [2.0])


def test_the_plan_drops_layouts_that_do_not_fit_and_says_what_they_need(capsys):
    """GPT-20B on 8 A100 80GB: data parallelism alone holds 20B x 16 bytes per GPU and
    is dropped; the tensor-parallel layouts that split it enough remain."""
    fabric = NominalFabric(8, 8, 1600e9, 200e9, 1e-6)
    fitting, dropped = ranked(fabric, shadow.PRESETS["gpt-20b"], 8, 8, A100, None)
    assert fitting and all(p.fits and p.memory_B <= A100.memory_bytes for p in fitting)
    megatron_dp8 = next(p for p in dropped if p.strategy == "megatron" and p.options["tp"] == 1)
    assert "needs" in megatron_dp8.memory_verdict and "80 GiB device memory" in \
        megatron_dp8.memory_verdict
    assert cli.main(["plan", "--gpus", "8", "--gpus-per-node", "8", "--model", "gpt-20b",
                     "--global-batch-size", "8"]) == 0
    out = capsys.readouterr().out
    assert "dropped for memory" in out and "dropped: megatron tp1 x dp8: needs" in out
    with pytest.raises(TrainetError, match="no layout of gpt-175b on 8 ranks fits"):
        ranked(fabric, shadow.PRESETS["gpt-175b"], 8, 8, A100, None)
