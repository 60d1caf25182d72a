"""Training on an emulated fabric: Mininet hosts behind the software P4 switch (basic.p4),
real packets over shaped links, workers started by the launcher."""
import os
import signal
import time
from pathlib import Path

import pytest

from hosts import devices, shadow
from hosts.strategies import registry
from contextlib import nullcontext

from testbed.bench.train import ina_job, star_blueprint
from testbed.experiment.launch import run_workers
from tests.net.helpers import Snapshot
from tests.workers.ranks import slice_training

pytestmark = [pytest.mark.root, pytest.mark.slow]

WORKERS = ["w1", "w2", "w3"]
STEPS, BATCH, LR = 30, 4, 3e-3


def worker_pids(out_dir) -> dict[int, int]:
    """rank -> pid of the worker processes writing into ``out_dir``."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().decode().split("\0")
        except OSError:
            continue
        if "hosts.worker" in argv and any(str(out_dir) in a for a in argv):
            found[int(argv[argv.index("--rank") + 1])] = int(entry.name)
    return found


@pytest.fixture(scope="module")
def net(tmp_path_factory):
    """Star of w1..w3 and srv1 around one ina.p4 switch (IPv4 forwarding plus INA),
    links 100 Gb/s nominal at 1 Gb/s emulated."""
    from testbed.net.network import Network
    snap = Snapshot("tw")
    results = tmp_path_factory.mktemp("fabric")
    plan = star_blueprint(3, "roce-100g", 1e-2, prefix="tw")
    with Network(plan, results) as network:
        yield network
    assert snap.leftovers() == {}
    assert worker_pids(results) == {}


@pytest.fixture(scope="module")
def reference():
    return slice_training(len(WORKERS), STEPS, BATCH, LR)[0]


@pytest.mark.parametrize("strategy", ["ddp", "zero3", "ps", "ina"])
def test_strategy_trains_as_one_process_would(net, reference, strategy, tmp_path):
    """The losses each rank sees are those of one process training on the global batch
    (ina's fixed-point sum included: its error stays far below the tolerance)."""
    args = {"model": "gpt", "steps": STEPS, "batch": BATCH, "lr": LR, "seed": 0}
    with ina_job(net, WORKERS) if strategy == "ina" else nullcontext({}) as ina_args:
        result = run_workers(net, WORKERS, strategy, {**args, **ina_args}, tmp_path,
                             timeout_s=60, server_host="srv1")
    assert result.ok, result.reason + "\n" + result.log("w1")
    assert result.steps_done == {0: STEPS, 1: STEPS, 2: STEPS}
    for rank, rows in result.metrics.items():
        losses = [r["loss"] for r in rows]
        assert losses == pytest.approx([ref[rank] for ref in reference], abs=2e-3)
        assert sum(losses[-5:]) / 5 < losses[0] - 1.0          # it learns
        # the interface counters saw at least the payload the collectives moved
        assert all(r["wire_tx_bytes"] >= r["logical_sent_bytes"] for r in rows)
        assert rows[-1]["mem_params_bytes"] > 0 and rows[-1]["rss_peak_bytes"] > 0
        assert result.summaries[rank]["steps"] == STEPS
    if strategy == "ps":
        assert "srv1" in result.returncodes and result.returncodes["srv1"] == 0


@pytest.mark.parametrize("strategy", ["ddp", "zero3", "ps"])
def test_killed_worker_stops_the_others(net, strategy, tmp_path):
    killed_at = []

    def kill_rank_1(steps):
        if not killed_at and steps.get(1, 0) >= 3:
            os.kill(worker_pids(tmp_path)[1], signal.SIGKILL)
            killed_at.append(time.monotonic())

    result = run_workers(net, WORKERS, strategy, {"model": "gpt", "steps": 10_000,
                                                  "batch": BATCH}, tmp_path, timeout_s=20,
                         progress=kill_rank_1, server_host="srv1", stop_grace_s=10)
    stopped_after = time.monotonic() - killed_at[0]
    assert not result.ok
    assert result.dead_rank == 1 and result.dead_host == "w2"
    assert "rank 1 (w2) was killed by signal 9" in result.reason
    assert stopped_after < 12                      # grace + polling, not the 20 s timeout
    assert all(len(result.metrics[r]) >= 3 for r in (0, 2))     # partial results kept
    assert (tmp_path / "metrics" / "rank0.jsonl").exists()
    survivors = result.log("w1") + result.log("w3")
    if strategy in ("ddp", "zero3"):
        assert "rank 1 (10.0.1.2) is gone" in survivors
    else:
        assert "worker rank 1 (10.0.1.2) is gone" in result.log("srv1")
        assert "parameter server 10.0.1.4:" in survivors
    assert worker_pids(tmp_path) == {}


@pytest.mark.parametrize("strategy", ["zero3", "ina"])
def test_shadow_run_moves_the_co_scaled_volume(net, strategy, tmp_path):
    scale = net.blueprint.scale
    args = {"mode": "shadow", "shadow_model": "gpt-1.3b", "scale": scale, "steps": 3,
            "batch": 1}
    with ina_job(net, WORKERS) if strategy == "ina" else nullcontext({}) as ina_args:
        result = run_workers(net, WORKERS, strategy, {**args, **ina_args}, tmp_path,
                             timeout_s=60)
    assert result.ok, result.reason
    nominal = registry.get(strategy).volume_bytes(shadow.model_bytes(1.3e9), 3)[0]
    compute = shadow.step_compute_s(shadow.shadow_model("gpt-1.3b"), 1,
                                    shadow.device(devices.DEFAULT))
    for rows in result.metrics.values():
        for r in rows:
            assert r["nominal_sent_bytes"] == pytest.approx(nominal, rel=0.01)
            assert r["logical_sent_bytes"] == pytest.approx(nominal * scale, rel=0.01)
            assert r["wire_tx_bytes"] >= r["logical_sent_bytes"]
            assert r["nominal_compute_s"] == pytest.approx(compute)
            assert r["step_s"] >= compute
            per_worker = 3 if strategy == "zero3" else 1           # ina keeps it all
            assert r["nominal_mem_optimizer_bytes"] == round(1.3e9 * 12 / per_worker)
