"""AxoNN's 4D layout: ranks as threads over gloo on loopback train the small GPT and
reproduce single-process training step by step.

Tolerance: 2e-5 on the loss in float32, as for the other parallel strategies
(tests/workers/test_parallel.py): the grid only reorders float32 additions (the partial
products summed over a row or column group, the batch shares' gradients summed over the
depth and data groups), and AdamW keeps such relative errors relative."""
import pytest

from hosts import shadow
from hosts.models import SyntheticCorpus, build_model
from hosts.parallelism.grid import Grid, grids
from hosts.strategies import registry
from hosts.strategies.axonn import AxonnOptions, AxonnTraining
from ranks import run_ranks, shadow_steps, single_process
from testbed.errors import TrainetError

CORPUS = SyntheticCorpus(0)
STEPS, LR, BATCH = 20, 1e-3, 4
TOLERANCE = 2e-5


def train(world: int, **options):
    """Each rank's losses per step, its data shard and its last metrics."""
    opts = AxonnOptions(**options)
    models = [build_model("gpt", 1) for _ in range(world)]

    def body(comm):
        s = AxonnTraining(comm, opts, lr=LR)
        s.setup(models[comm.rank])
        metrics = [s.step(CORPUS.batch(k, *s.data_shard(), BATCH, 32)) for k in range(STEPS)]
        return s.at, [m.loss for m in metrics], metrics[-1], s.memory()

    return run_ranks(world, body, timeout_s=90)


def mean_losses(results) -> list[float]:
    """The mean over the batch shares (depth and data coordinates) of each step's loss;
    the ranks of one share (its row and column grid) agree exactly."""
    shares = {}
    for (r, c, d, data), losses, _, _ in results:
        assert shares.setdefault((d, data), losses) == losses
    return [sum(step) / len(shares) for step in zip(*shares.values())], len(shares)


NO_OVERLAP = {"overlap_all_reduce": False, "overlap_reduce_scatter": False,
              "overlap_all_gather": False}


@pytest.mark.parametrize("grid, overlap", [((2, 2, 2, 1), {}), ((1, 2, 2, 2), {}),
                                           ((2, 1, 2, 2), NO_OVERLAP)])
def test_axonn_equals_single_process(grid, overlap):
    g_r, g_c, g_d, g_data = grid
    results = train(8, g_r=g_r, g_c=g_c, g_d=g_d, g_data=g_data, **overlap)
    mean, shares = mean_losses(results)
    assert shares == g_d * g_data
    reference, _ = single_process("gpt", STEPS, LR, batch=BATCH * g_data)
    assert max(abs(a - b) for a, b in zip(mean, reference)) < TOLERANCE
    assert reference[-1] < reference[0] - 1.0        # it trained
    whole = sum(p.numel() for p in build_model("gpt", 1).parameters()) * 4
    assert all(memory.params_bytes < whole for _, _, _, memory in results)
    assert all(m.logical_sent_bytes > 0 and m.comm_s > 0 for _, _, m, _ in results)


def test_grid_groups_and_choices():
    grid = Grid(2, 2, 2, 1)
    assert grid.groups("row") == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert grid.groups("column") == [[0, 2], [1, 3], [4, 6], [5, 7]]
    assert grid.groups("depth") == [[0, 4], [1, 5], [2, 6], [3, 7]]
    assert Grid(1, 2, 2, 2).group(3, "batch") == [1, 3, 5, 7]
    assert len(grids(8)) == 20 and all(g.world == 8 for g in grids(8))


@pytest.mark.parametrize("options, message", [
    ({"g_r": 3}, "g_r=3 x g_c=1 x g_d=1 x g_data=\\? is not 8 workers; choose G_r x G_c "
                 "x G_d x G_data among 1x1x1x8, 1x1x2x4"),
    ({"g_r": 2, "g_c": 2, "g_d": 2, "g_data": 2}, "is not 8 workers"),
])
def test_a_grid_must_fill_the_world(options, message):
    with pytest.raises(TrainetError, match=message):
        registry.get("axonn").collectives(2.6e9, 8, 24, options=AxonnOptions(**options))


def test_a_grid_must_divide_the_layers():
    """8 columns for the small GPT's 4 heads: the error names the grids that fit."""
    with pytest.raises(TrainetError, match="g_c=8 does not divide the 4 attention heads; "
                       "for this model .* choose among 1x1x1x8"):
        train(8, g_c=8)


def test_shadow_axonn_moves_the_declared_volume():
    """8 shadow ranks of a 2x2x2x1 grid move the declared pattern's bytes, co-scaled,
    with the overlap switches on and off."""
    world, scale, batch = 8, 1e-3, 4
    target = shadow.shadow_model("custom:2e8", layers=8)
    dev = shadow.Device("slow", 6 * 2e8 * 2048 * batch / 0.4, "a 400 ms step")
    info = registry.get("axonn")

    def run(**switches):
        options = info.parse_options({"g_r": 2, "g_c": 2, "g_d": 2, **switches})

        metrics = [m for _, m in shadow_steps(world, info, options, target=target,
                                               device=dev, batch=batch, scale=scale,
                                               timeout_s=60)]
        declared = info.volume_bytes(shadow.model_bytes(target.params), world, target.layers,
                                     options=options, model=target, batch=batch)[0]
        sent = sum(m.logical_sent_bytes for m in metrics) / world
        assert sent == pytest.approx(declared * scale, rel=0.02)
        assert all(0 < m.exposed_comm_s <= m.step_s for m in metrics)

    run()
    run(**NO_OVERLAP)


def test_bench_overlap_prints_each_switch_against_the_baseline(capsys):
    from testbed import cli
    assert cli.main(["bench", "overlap", "--steps", "2", "--model", "custom:2e8"]) == 0
    rows = capsys.readouterr().out.splitlines()[2:]
    assert [r.split()[0] for r in rows] == ["none", "overlap_all_gather", "overlap_all_reduce",
                                            "overlap_reduce_scatter", "all"]
    assert rows[0].split()[-1] == "1.00"
