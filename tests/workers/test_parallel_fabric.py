"""Pipeline, tensor and 3D parallelism on an emulated fabric: worker processes on Mininet
hosts behind the software P4 switch send activations, gradients and all-reduces as real
packets over shaped links, and every replica's loss is the one single-process training
sees on the replica's slice of the batch."""
from itertools import accumulate

import pytest

from hosts.parallelism.layout import ParallelLayout
from testbed.bench.train import star_blueprint
from testbed.experiment.launch import run_workers
from tests.net.helpers import Snapshot
from tests.workers.ranks import slice_training

pytestmark = [pytest.mark.root, pytest.mark.slow]

WORKERS = [f"w{i}" for i in range(1, 9)]
STEPS, BATCH, LR = 20, 4, 3e-3


@pytest.fixture(scope="module")
def net(tmp_path_factory):
    """Eight workers on one switch, 100 Gb/s nominal at 1 Gb/s emulated."""
    from testbed.net.network import Network
    snap = Snapshot("pf")
    plan = star_blueprint(8, "roce-100g", 1e-2, prefix="pf")
    with Network(plan, tmp_path_factory.mktemp("parallel")) as network:
        yield network
    assert snap.leftovers() == {}


@pytest.mark.parametrize("strategy, options, layout", [
    ("pp", {"micro_batches": 2, "schedule": "gpipe"}, ParallelLayout(dp=1, pp=3, tp=1)),
    ("tp", {}, ParallelLayout(dp=1, pp=1, tp=2)),
    ("megatron", {"dp": 2, "pp": 2, "tp": 2, "micro_batches": 2},
     ParallelLayout(dp=2, pp=2, tp=2)),
])
def test_parallel_layouts_train_as_one_process_would(net, strategy, options, layout,
                                                     tmp_path):
    hosts = WORKERS[:layout.world]
    args = {"model": "gpt", "steps": STEPS, "batch": BATCH, "lr": LR, "seed": 0, **options}
    result = run_workers(net, hosts, strategy, args, tmp_path, timeout_s=60)
    assert result.ok, result.reason + "\n" + result.log(hosts[-1])
    reference = slice_training(layout.dp, STEPS, BATCH, LR)[0]
    for rank, rows in result.metrics.items():
        at = layout.coordinates(rank)
        losses = [r["loss"] for r in rows]
        if at.pp < layout.pp - 1:
            assert losses == [None] * STEPS
            continue
        assert losses == pytest.approx([ref[at.dp] for ref in reference], abs=2e-4)
        assert losses[-1] < losses[0] - 1.0
        # the interface counters saw at least what the collectives and sends moved. A
        # last stage's gradient sends to the stage before may still sit in its socket
        # buffer when its step ends; the first stage needs them to finish that step and
        # only then sends the next step's activations, so by the end of the next step
        # they have left: each step's bytes are on the wire one step later at the latest.
        wire = list(accumulate(r["wire_tx_bytes"] for r in rows))
        sent = list(accumulate(r["logical_sent_bytes"] for r in rows))
        assert all(w >= s for w, s in zip(wire[1:], sent)), (wire, sent)
    if layout.pp > 1:
        first_stage = [rows for rank, rows in result.metrics.items()
                       if layout.coordinates(rank).pp == 0]
        assert all(r["bubble_s"] > 0 for rows in first_stage for r in rows)
