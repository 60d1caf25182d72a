"""Bytes per tier from switch port counters: tiers follow the switch tree of the fabric."""
import pytest

from testbed.experiment import wire
from testbed.topology import generators


def test_frontier_levels_are_named_after_the_host_groups():
    topo = generators.frontier(nodes=2, gpus=2)
    assert wire.tier_names(topo) == {0: "intra_gpu", 1: "intra_node", 2: "inter_node"}
    levels = wire.down_ports(topo)
    assert levels["n1p0-eth1"] == 0 and "n1p0-eth3" not in levels    # uplink: not down
    assert sorted(i for i, lv in levels.items() if lv == 2) == ["fab-eth1", "fab-eth2"]
    assert "n1-eth3" not in levels            # node switch n1's uplink to fab faces away
    assert wire.tier_names(generators.star(workers=3)) == {0: "intra_rack"}


def test_each_byte_is_counted_at_the_tier_its_path_turns():
    topo = generators.frontier(nodes=2, gpus=1)      # n1p0 holds n1g0, n1g1; n1 holds n1p0
    # per step: 100 B inside a package (n1g0 -> n1g1), 30 B across nodes (n1g0 -> n2g0)
    per_step = {"n1p0-eth2": 100, "fab-eth2": 30, "n2-eth1": 30, "n2p0-eth1": 30}
    samples = [{"time_s": float(t), "interface": iface, "rx_bytes": 0,
                "tx_bytes": bytes_ * t} for t in range(4) for iface, bytes_ in per_step.items()]
    ranks = {0: [{"step": s, "time_unix_s": s + 1.0} for s in range(3)]}
    got = wire.measure_run(samples, ranks, topo)
    assert got == pytest.approx({"wire_intra_gpu_B": 100, "wire_intra_node_B": 0,
                                 "wire_inter_node_B": 30})
