"""The alpha-beta cost of each collective and what a group gets on a tiered fabric."""
import math

import pytest

from hosts.collectives.pattern import Collective
from hosts.collectives.timing import Placement
from testbed.model import collectives
from testbed.model.calibration import Calibration
from testbed.model.fabric import (IB_HDR_EFFECTIVE, NCCL_CALL_S, NCCL_RING_STEP_S, Route,
                                  Tier, TieredFabric, fabric)

GB = 1e9
ROUTE = Route("net", 100e9, 5e-6, "roce-100g")        # 12.5 GB/s per rank, 5 us a step


def test_ring_all_reduce_moves_twice_n_minus_one_over_n_and_pays_a_latency_per_step():
    c = collectives.ring("all-reduce", 1 * GB, 8, ROUTE, 1.0)
    assert c.bandwidth_s == pytest.approx(2 * 7 / 8 * 1e9 * 8 / 100e9)
    assert c.latency_s == pytest.approx(2 * 7 * 5e-6)
    assert c.seconds == pytest.approx(c.bandwidth_s + c.latency_s)


def test_all_gather_reduce_scatter_and_all_to_all_move_n_minus_one_over_n():
    for op in ("all-gather", "reduce-scatter", "all-to-all"):
        c = collectives.ring(op, 1 * GB, 4, ROUTE, 1.0)
        assert c.bandwidth_s == pytest.approx(3 / 4 * 8e9 / 100e9)
        assert c.latency_s == pytest.approx(3 * 5e-6)


def test_efficiency_stretches_only_the_bytes():
    full, half = (collectives.ring("all-gather", GB, 4, ROUTE, e) for e in (1.0, 0.5))
    assert half.bandwidth_s == pytest.approx(2 * full.bandwidth_s)
    assert half.latency_s == full.latency_s


def test_small_all_reduces_over_many_ranks_take_the_tree():
    """log2 steps beat 2 (n-1) steps when latency dominates."""
    c = collectives.cost(Collective("all-reduce", 1e3), Placement(1024), fabric("star:roce-100g",
                                                                               1024), 1024,
                         Calibration())
    assert c.algorithm == "tree"
    assert c.latency_s == pytest.approx(2 * math.ceil(math.log2(1024)) * 2.5e-6)


def test_switch_and_server_routes():
    star = fabric("star:roce-100g", 8)
    switch = collectives.cost(Collective("all-reduce", GB, "switch"), Placement(8), star, 8,
                              Calibration())
    assert switch.algorithm == "switch" and switch.bandwidth_s == pytest.approx(8e9 / 100e9)
    server = collectives.cost(Collective("push", GB, "server"), Placement(8), star, 8,
                              Calibration())
    assert server.bandwidth_s == pytest.approx(8 * 8e9 / 100e9)     # the server's link


def test_tiered_fabric_gives_groups_their_tier():
    dgx = fabric("dgx-a100", 64)
    assert dgx.route(Placement(8, 1), 64).tier == "nvlink"          # tensor group in a node
    dp = dgx.route(Placement(8, 8), 64)                              # one rank per node
    hdr = 200e9 * IB_HDR_EFFECTIVE                                   # NCCL's achieved share
    assert (dp.tier, dp.bps) == ("infiniband", pytest.approx(hdr))
    world = dgx.route(Placement(64, 1), 64)                          # a ring over all
    assert world.tier == "infiniband" and world.bps == pytest.approx(8 * hdr)  # 8 NICs share it
    frontier = fabric("frontier", 16)
    assert frontier.route(Placement(2, 1), 16).tier == "gcd"
    assert frontier.route(Placement(2, 8), 16).bps == pytest.approx(100e9)  # 4 NICs / 8 GCDs
    assert frontier.tier_sizes(16) == {"gpu": 2, "node": 8}


def test_an_all_reduce_in_a_dgx_node_pays_nccls_latency():
    """NCCL's own latency model on NVLink: a call's base plus one per ring step, 14 for
    an all-reduce over 8 ranks, besides the bytes at the bus bandwidth."""
    dgx = fabric("dgx-a100", 8)
    tp = collectives.cost(Collective("all-reduce", 0.1 * GB), Placement(8), dgx, 8,
                          Calibration())
    assert tp.algorithm == "ring"
    assert tp.latency_s == pytest.approx(NCCL_CALL_S + 14 * NCCL_RING_STEP_S["nvlink"])
    assert tp.bandwidth_s == pytest.approx(2 * 7 / 8 * 0.1 * GB * 8 / (8 * 230e9 * 1.0))


def test_megatron_declares_each_tensor_parallel_all_reduce_as_a_call():
    """2 all-reduces per layer and pass (3 passes with full recompute), per micro-batch:
    each pays the fixed cost of a call."""
    from hosts import shadow
    from hosts.strategies import registry
    info = registry.get("megatron")
    model = shadow.shadow_model("megatron-175b")
    options = info.parse_options({"tp": 8, "pp": 8, "micro_batch_size": 1,
                                  "recompute": "full"})
    tp = next(c for c in info.collectives(350e9, 64, model.layers, options=options,
                                          model=model, batch=64) if c.group == "tp")
    assert tp.calls == 2 * 3 * (96 // 8) * 64


def test_hierarchical_all_reduce_wins_across_many_nodes():
    """A world all-reduce over 1024 ranks: rings in the nodes and across them pay far
    fewer latencies than one flat ring."""
    dgx = fabric("dgx-a100", 1024)
    c = collectives.cost(Collective("all-reduce", 4 * GB), Placement(1024), dgx, 1024,
                         Calibration())
    flat = collectives.ring("all-reduce", 4 * GB, 1024, dgx.route(Placement(1024), 1024), 1.0)
    assert c.algorithm in ("hierarchical", "tree") and c.seconds < flat.seconds


def test_calibration_adds_latency_and_scales_bandwidth_of_a_profile():
    cal = Calibration(latency_s={"roce-100g": 1e-3}, bandwidth={"roce-100g": 0.5})
    adjusted = cal.adjust(ROUTE)
    assert adjusted.bps == 50e9 and adjusted.latency_s == pytest.approx(1e-3 + 5e-6)
    assert Calibration(latency_s={"ib-hdr200": 1.0}).adjust(ROUTE) == ROUTE


def test_a_fabric_needs_an_unbounded_outer_tier():
    from testbed.errors import TrainetError
    with pytest.raises(TrainetError, match="outermost tier holds every rank"):
        TieredFabric("x", [Tier("node", 8, 1e9, 1e-6, "nvlink")])
