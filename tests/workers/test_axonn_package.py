"""The public axonn package (0.2.0) against hosts/strategies/axonn.py on the small GPT:
both against single-process training, on the same data, weights and optimizer: as
local processes over loopback, and as one process per emulated host (Mininet hosts behind
the software P4 switch, gloo over the shaped links).

The package is the one vagrant/install.sh unpacks into .venv-clients/axonn (pinned in
vagrant/axonn.txt; it is not a dependency of trainet), or the one ``AXONN_PACKAGE``
names; tests/workers/axonn_package.py says how it runs on CPU over gloo and why its
tensor-parallel biases are frozen for the comparison."""
import os
import random
import sys
import time
from pathlib import Path

import pytest

from axonn_package import mean_over_ranks, package_dir, reference, train
from hosts.parallelism.grid import Grid
from ranks import single_process_losses
from test_axonn import LR, STEPS, TOLERANCE, mean_losses, train as ours

pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    not (package_dir() / "axonn").is_dir(),
    reason=f"no axonn package in {package_dir()}: run `make setup` with PyPI reachable "
           "(vagrant/install.sh unpacks it there), or set AXONN_PACKAGE to a directory "
           "holding it")]

GRID = Grid(2, 1, 2, 1)          # rows and depth over 4 ranks, one replica


def test_axonn_package_and_ours_each_equal_single_process_training():
    grid = (GRID.g_r, GRID.g_c, GRID.g_d, GRID.g_data)
    theirs = train(grid, STEPS, 1, LR, 29400, train_biases=False)   # 1 sample per rank
    assert max(abs(a - b) for a, b in zip(theirs, reference(STEPS, LR, 4, False))) \
        < TOLERANCE
    mine, _ = mean_losses(ours(4, g_r=GRID.g_r, g_c=GRID.g_c, g_d=GRID.g_d,
                               g_data=GRID.g_data))
    assert max(abs(a - b) for a, b in zip(mine, reference(STEPS, LR, 4, True))) < TOLERANCE
    assert theirs[-1] < theirs[0] - 1.0 and mine[-1] < mine[0] - 1.0


@pytest.mark.root
def test_axonn_package_and_ours_on_emulated_hosts_equal_single_process_training(tmp_path):
    """Each rank on its own host of a 4-worker star (100 Gb/s nominal, co-scaled to
    1 Gb/s): axonn's processes, then hosts.worker running ours, on the same grid."""
    from testbed.bench.train import star_blueprint
    from testbed.experiment.launch import run_workers
    from testbed.net.host_programs import run_json
    from testbed.net.network import Network
    grid = f"{GRID.g_r},{GRID.g_c},{GRID.g_d},{GRID.g_data}"
    with Network(star_blueprint(4, "roce-100g", 1e-2, prefix="ax"), tmp_path,
                 log=lambda *a: None) as net:
        hosts = [h.name for h in net.blueprint.hosts if h.name.startswith("w")]
        master = f"{net.net[hosts[0]].IP()}:{random.randint(20000, 29999)}"
        script = Path(__file__).with_name("axonn_package.py")
        start = time.monotonic()
        out = run_json(net, {h: [sys.executable, str(script), "--rank", str(r), "--world",
                                 "4", "--master", master, "--iface",
                                 net.net[h].defaultIntf().name, "--grid", grid, "--steps",
                                 str(STEPS), "--batch", "1", "--lr", str(LR)]
                             for r, h in enumerate(hosts)}, timeout_s=300)
        theirs_s = time.monotonic() - start
        ours = run_workers(net, hosts, "axonn", {
            "model": "gpt", "steps": STEPS, "batch": 4, "lr": LR, "seed": 0,
            "g_r": GRID.g_r, "g_c": GRID.g_c, "g_d": GRID.g_d, "g_data": GRID.g_data},
            tmp_path / "ours", timeout_s=300)
        assert ours.ok, ours.reason + "\n" + ours.log(hosts[-1])
    theirs = mean_over_ranks({o["rank"]: o["losses"] for o in out.values()})
    mine = mean_over_ranks({r: [row["loss"] for row in rows]
                            for r, rows in ours.metrics.items()})
    theirs_diff = max(abs(a - b) for a, b in zip(theirs, reference(STEPS, LR, 4, False)))
    mine_diff = max(abs(a - b) for a, b in
                    zip(mine, single_process_losses("gpt", STEPS, LR, 4, seed=0)))
    print(f"\naxonn package on 4 emulated hosts: {STEPS} steps in {theirs_s:.1f} s, max "
          f"|loss - single process| {theirs_diff:.2e}; ours: {mine_diff:.2e}")
    assert theirs_diff < TOLERANCE and mine_diff < TOLERANCE
    assert theirs[-1] < theirs[0] - 1.0 and mine[-1] < mine[0] - 1.0
