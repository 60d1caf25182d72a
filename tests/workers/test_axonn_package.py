"""The public axonn package (0.2.0) against hosts/strategies/axonn.py on the small GPT:
both against single-process training, on the same data, weights and optimizer.

Runs only where ``AXONN_PACKAGE`` names a directory holding the package (it is not a
dependency of trainet; tests/workers/axonn_package.py says how it runs on CPU over
gloo and why its tensor-parallel biases are frozen for the comparison)."""
import os

import pytest

from axonn_package import reference, train
from hosts.strategies.grid import Grid
from test_axonn import LR, STEPS, TOLERANCE, mean_losses, train as ours

pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    not os.path.isdir(os.environ.get("AXONN_PACKAGE", "")),
    reason="AXONN_PACKAGE does not name an unpacked axonn package")]

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
