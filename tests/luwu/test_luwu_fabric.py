"""LuWu training on an emulated star: three workers and the optimizer node (the host of
role optimizer) behind
the software P4 switch running p4/luwu.p4, workers and optimizer started by the
launcher."""
import json
import os
import signal
import subprocess
import threading
import time
from contextlib import contextmanager

import numpy as np
import pytest

from controllers import luwu
from hosts.luwu_layout import Layout
from hosts.models import build_model
from luwu_setup import LUWU_P4
from tests.workers.ranks import slice_training
from testbed.experiment.jobs import job_on, job_workers
from testbed.experiment.launch import run_workers
from tests.net.helpers import Snapshot, free_port

pytestmark = [pytest.mark.root, pytest.mark.slow]

WORKERS = ["w1", "w2", "w3"]
STEPS, BATCH, LR = 10, 4, 3e-3
AGGREGATOR = "10.0.255.1"


@pytest.fixture(scope="module")
def net(tmp_path_factory):
    from testbed.net.network import Network
    from testbed.net.topology import blueprint_from_topology
    from testbed.topology.generators import star
    snap = Snapshot("tl")
    topology = star(workers=3, optimizers=1, nic="roce-100g", scale=1e-2,
                    program=str(LUWU_P4))
    plan = blueprint_from_topology(topology, "star-luwu")
    for sw in plan.switches:
        old, sw.name, sw.grpc_port = sw.name, "tl" + sw.name, free_port()
        for link in plan.links:
            link.a = sw.name if link.a == old else link.a
            link.b = sw.name if link.b == old else link.b
    optimizer = next(h.name for h in topology.hosts if h.role == "optimizer")
    with Network(plan, tmp_path_factory.mktemp("luwu")) as network:
        yield network, optimizer
    assert snap.leftovers() == {}


@contextmanager
def luwu_job(net, hosts, optimizer_host):
    switch = net.blueprint.switches[0].name
    optimizer = next(h for h in net.blueprint.hosts if h.name == optimizer_host)
    job = luwu.LuwuJob(1, AGGREGATOR, job_workers(net.blueprint, switch, hosts),
                       luwu.Optimizer(optimizer.address), slot_count=32)
    with job_on(net, switch, luwu, job) as device:
        try:
            yield {"ina_aggregator": AGGREGATOR, "ina_job": 1, "ina_slots": 32}
        finally:
            counts = luwu.drop_counts(device), luwu.handled_counts(device)
    print("luwu.p4 drops:", counts[0], "handled:", counts[1])


@pytest.mark.parametrize("strategy", ["luwu", "luwu-resident"])
def test_luwu_trains_as_one_process_and_workers_hold_no_optimizer_state(net, tmp_path,
                                                                         strategy):
    net, optimizer = net
    ref_losses, ref_params = slice_training(len(WORKERS), STEPS, BATCH, LR)
    model = build_model("gpt", 0)
    if strategy == "luwu":                 # streamed: pulled unit by unit
        layout = Layout.of_units(list(model.parameters()), model.units)
    else:
        layout = Layout.of(ref_params)
    unit_bytes = sorted(layout.bucket_chunks(b) * 1024 for b in range(len(layout.buckets)))
    args = {"model": "gpt", "steps": STEPS, "batch": BATCH, "lr": LR, "seed": 0}
    with luwu_job(net, WORKERS, optimizer) as job_args:
        result = run_workers(net, WORKERS, strategy, {**args, **job_args}, tmp_path,
                             timeout_s=90, server_host=optimizer)
    assert result.ok, result.reason + "\n" + result.log("w1") + result.log(optimizer)
    assert result.steps_done == {0: STEPS, 1: STEPS, 2: STEPS}
    assert result.returncodes[optimizer] == 0
    for rank, rows in result.metrics.items():
        assert [r["loss"] for r in rows] == pytest.approx([l[rank] for l in ref_losses],
                                                         abs=2e-3)
        assert all(r["mem_optimizer_bytes"] == 0 for r in rows)
        assert all(r["wire_tx_bytes"] >= r["logical_sent_bytes"] > 0 for r in rows)
        if strategy == "luwu":     # at most three units pulled, two pushed
            assert all(r["mem_params_bytes"] <= sum(unit_bytes[-3:]) for r in rows)
            assert all(0 < r["mem_grads_bytes"] <= sum(unit_bytes[-2:]) for r in rows)
            assert all(r["wire_rx_bytes"] >= r["logical_recv_bytes"]
                       == layout.pull_chunks_per_step * 1024 for r in rows)
        else:
            assert all(r["mem_grads_bytes"] == 0 for r in rows)
    summary = json.loads((tmp_path / "metrics" / "optimizer.summary.json").read_text())
    assert summary["chunks_applied"] == STEPS * layout.chunks_per_step
    if strategy == "luwu":
        assert summary["pulls_answered"] == STEPS * layout.pull_chunks_per_step
    print(f"{strategy} step time: "
          f"{[round(s['mean_step_s'], 3) for s in result.summaries.values()]} s"
          f" per rank; optimizer node: {summary}")
    final = np.load(tmp_path / "metrics" / "optimizer.params.npy")
    assert np.abs(final - layout.flatten(ref_params)).max() < 1e-3
    initial = layout.flatten(build_model("gpt", 0).parameters())
    assert np.abs(final - initial).max() > 1e-2                # it did train


def test_a_killed_optimizer_node_stops_the_workers_with_a_clear_error(net, tmp_path):
    net, optimizer = net
    args = {"model": "gpt", "steps": 200, "batch": BATCH, "lr": LR, "seed": 0}
    first_step = tmp_path / "metrics" / "rank0.jsonl"

    def kill_after_first_step():
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if first_step.exists() and first_step.read_text().strip():
                out = subprocess.run(["pgrep", "-f", f"hosts.optimizer_node.*{tmp_path}"],
                                     capture_output=True, text=True).stdout.split()
                for pid in out:
                    os.kill(int(pid), signal.SIGKILL)
                return
            time.sleep(0.05)

    killer = threading.Thread(target=kill_after_first_step)
    killer.start()
    with luwu_job(net, WORKERS, optimizer) as job_args:
        result = run_workers(net, WORKERS, "luwu", {**args, **job_args}, tmp_path,
                             timeout_s=90, server_host=optimizer, stop_grace_s=5)
    killer.join()
    assert not result.ok
    assert result.reason == f"optimizer node ({optimizer}) was killed by signal 9 (SIGKILL)"
    assert 1 <= min(result.steps_done.values()) < 200
    assert result.elapsed_s < 60                                   # stopped, no hang
    assert all(rc is not None for rc in result.returncodes.values())
