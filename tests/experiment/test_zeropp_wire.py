"""On an emulated Frontier-like fabric (2 nodes of one MI250X, 2 GCDs each): the bytes
that cross between nodes, measured on the switch ports, of ZeRO++ with all three
options against ZeRO-3, held against the ratio of their patterns."""
from pathlib import Path

import pytest
import yaml

from testbed.cli import main
from testbed.experiment import results

pytestmark = [pytest.mark.root, pytest.mark.slow]

# Frames carry 66 bytes of headers per at most 1448 of payload one way and ACKs the other
# way; ZeRO++'s smaller messages carry relatively more of both. 15 % covers that.
TOLERANCE = 0.15

EXPERIMENT = {
    "name": "zeropp-wire",
    "topology": {"generator": {"name": "frontier", "nodes": 2, "gpus": 1}},
    "workload": {"model": "gpt", "mode": "shadow", "shadow_model": "gpt-20b",
                 "device": "mi250x-gcd", "steps": 3, "global_batch": 4},
    "strategies": ["zero3", {"strategy": "zeropp", "label": "zeropp-all",
                             "options": {"qwz": True, "hpz": 2, "qgz": True}}],
    "scale": 1e-5,
    # 20B under ZeRO-3 on four 64 GiB GCDs does not fit (81 GiB each): the bytes on the
    # wire are what this test is about, so both run, marked as not fitting.
    "run_not_fitting": True,
    "timeouts": {"bring_up": "120s", "run": "300s"},
}


def test_zeropp_moves_the_predicted_share_of_zero3_across_nodes(tmp_path: Path):
    path = tmp_path / "zeropp-wire.yaml"
    path.write_text(yaml.safe_dump(EXPERIMENT))
    out = tmp_path / "out"
    assert main(["run", str(path), "-o", str(out)]) == 0
    rows = {r["strategy"]: r for r in results.read_summary(out)}
    zero3, zeropp = rows["zero3"], rows["zeropp-all"]
    measured = zeropp["wire_inter_node_B"] / zero3["wire_inter_node_B"]
    theory = zeropp["theory_inter_node_B"] / zero3["theory_inter_node_B"]
    print(f"\ninter-node bytes per step: zero3 {zero3['wire_inter_node_B']:.0f} "
          f"(theory {zero3['theory_inter_node_B']:.0f}), zeropp-all "
          f"{zeropp['wire_inter_node_B']:.0f} (theory {zeropp['theory_inter_node_B']:.0f}); "
          f"ratio {measured:.3f}, theory {theory:.3f}")
    assert measured == pytest.approx(theory, rel=TOLERANCE)
    assert zero3["wire_inter_node_B"] == pytest.approx(zero3["theory_inter_node_B"], rel=0.2)
