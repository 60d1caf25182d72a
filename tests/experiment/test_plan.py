"""``trainet plan``: bandwidths per group placement, the ranking, bad input."""
from pathlib import Path

import pytest

from hosts import shadow
from hosts.strategies.grid import Grid
from testbed import cli
from testbed.errors import TrainetError
from testbed.experiment.plan import NominalFabric, group_bandwidth, plan, topology_fabric
from testbed.experiment.spec import load_experiment
from testbed.topology.generators import leaf_spine

A100 = shadow.device("a100")


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
    predictions = plan(fabric, model, 16, 32, A100, 0.4)
    steps = [p.step_s for p in predictions]
    assert steps == sorted(steps)
    assert {p.strategy for p in predictions} == {"axonn", "megatron"}
    assert len([p for p in predictions if p.strategy == "megatron"]) == 5   # tp 1..16
    by_layout = {(p.strategy, p.layout): p for p in predictions}
    # rows fill a node of 4, the data groups take one rank of each node
    assert by_layout["axonn", "4x1x1x4"].bandwidths == {"row": 1600e9, "dp": 25e9,
                                                        "batch": 25e9}
    tensor_inside = by_layout["megatron", "tp4 x dp4"]
    tensor_across = by_layout["megatron", "tp16 x dp1"]
    assert tensor_inside.exposed_s < tensor_across.exposed_s
    for p in predictions:
        assert p.step_s == pytest.approx(p.compute_s + p.exposed_s)
        assert p.exposed_s <= p.comm_s + 1e-12


def test_a_fabric_needs_a_host_per_rank():
    with pytest.raises(TrainetError, match="has 8 worker hosts for 16 ranks; choose a "
                       "world of at most 8"):
        plan(NominalFabric(8, 4, 1e12, 1e11, 0), shadow.PRESETS["gpt-1.3b"], 16, 32, A100,
             0.4)


def test_plan_command_prints_the_ranking(capsys):
    assert cli.main(["plan", "--world", "8", "--model", "gpt-1.3b", "--top", "3"]) == 0
    out = capsys.readouterr().out
    assert "valid layouts" in out
    assert out.count("axonn") + out.count("megatron") >= 3
    assert "best megatron (TP x DP)" in out


def test_the_axonn_experiment_runs_megatrons_best_layout_and_six_grids():
    """experiments/axonn.yaml loads; at its global batch (2 replicas of 8 sequences) its
    megatron layout is the plan's best TP x DP and its axonn grids are valid layouts."""
    experiment = load_experiment(Path(__file__).parents[2] / "experiments" / "axonn.yaml")
    workload = experiment.spec.workload
    model = shadow.shadow_model(workload.shadow_model)
    world = len(experiment.workers)
    predictions = plan(topology_fabric(experiment.topology), model, world,
                       2 * workload.batch, shadow.device(workload.device), 0.4)
    layouts = {(p.strategy, tuple(sorted(p.options.items()))) for p in predictions}
    grids = [s for s in experiment.strategies if s.info.name == "axonn"]
    assert len(grids) >= 6
    for s in grids:
        assert ("axonn", tuple(sorted(s.options.items()))) in layouts
    megatron = experiment.strategy("megatron-tp4-dp2")
    best = next(p for p in predictions if p.strategy == "megatron")
    assert (best.options["tp"], best.options["dp"]) == (megatron.options["tp"],
                                                        megatron.options["dp"])
