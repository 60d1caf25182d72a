"""``trainet model measure`` on a small emulated fabric: two leaves of two hosts on
NVLink-class links, joined by one 25 Gb/s uplink each, so a pair inside a leaf and a
pair across the leaves (two such pairs sharing the uplinks) are told apart, and the
table it writes is what ``trainet plan`` then times every group with."""
import pytest

from testbed import cli
from testbed.model.measured import OPS, load

pytestmark = [pytest.mark.root, pytest.mark.slow]

EXPERIMENT = """
name: table
topology:
  generator: {name: leaf-spine, leaves: 2, spines: 1, hosts_per_leaf: 2, nic: nvlink,
              fabric: eth-25g-tcp}
workload: {model: gpt, mode: shadow, shadow_model: gpt-1.3b, steps: 1, global_batch: 32}
strategies: [ddp]
scale: 1.0e-3
"""
UPLINK_SHARE = 25e9 / 2          # bit/s nominal: two pairs across the leaves share it


def test_measured_table_tells_placements_apart_and_the_plan_uses_it(tmp_path, capsys):
    experiment = tmp_path / "table.yaml"
    experiment.write_text(EXPERIMENT)
    path = tmp_path / "table.json"
    assert cli.main(["model", "measure", str(experiment), "-o", str(path), "--sizes",
                     "16MiB", "64MiB", "--rounds", "1", "--repeat", "2"]) == 0
    table = load(str(path))
    assert table.hosts == ("h1", "h2", "h3", "h4") and table.scale == 1e-3
    assert set(table.entries) == {f"{op} {p}" for op in OPS for p in ("2x1", "2x2", "4x1")}
    inside = table.entries["all-reduce 2x1"]          # h1,h2 and h3,h4: inside the leaves
    across = table.entries["all-reduce 2x2"]          # h1,h3 and h2,h4: over the uplinks
    sizes = [b for b, _ in across.points]            # nominal; whole elements emulated
    assert sizes == pytest.approx([16 * 2**20, 64 * 2**20], rel=1e-3)
    assert across.bandwidth_Bps * 8 < inside.bandwidth_Bps * 8 / 2
    assert 0.3 < across.bandwidth_Bps * 8 / UPLINK_SHARE < 1.5       # nominal units
    capsys.readouterr()
    assert cli.main(["plan", "--fabric", str(experiment), "--gpus", "4", "--model",
                     "gpt-1.3b", "--global-batch-size", "8", "--bandwidth-table", str(path)]) == 0
    assert "note:" not in capsys.readouterr().out      # every group's placement measured
