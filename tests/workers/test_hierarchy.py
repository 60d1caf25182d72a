"""Collectives over groups of ranks and tier by tier, and the block quantizers."""
import pytest
import torch

from hosts.collectives.hierarchy import Layout, parse_tiers
from hosts.collectives.pattern import Collective, cross_node
from hosts.compression import quantize
from ranks import run_ranks
from testbed.errors import TrainetError

TWO_BY_TWO = {"node": ["n1", "n1", "n2", "n2"]}


def inputs(world: int, numel: int) -> list[torch.Tensor]:
    return [torch.randn(numel, generator=torch.Generator().manual_seed(r)) for r in range(world)]


def test_group_collectives_stay_in_their_group():
    data = inputs(4, 8)

    def body(comm):
        node = Layout.of(comm.rank, 4, TWO_BY_TWO, ("node",), "t").group(2)
        gathered = comm.wait(comm.all_gather(data[comm.rank][:2], node))
        reduced = comm.wait(comm.reduce_scatter(data[comm.rank], node))
        exchanged = comm.wait(comm.all_to_all(data[comm.rank], node))
        return node, gathered, reduced, exchanged, comm.sent_bytes

    for rank, (node, gathered, reduced, exchanged, sent) in enumerate(run_ranks(4, body)):
        a, b = node
        assert torch.equal(gathered, torch.cat([data[a][:2], data[b][:2]]))
        half = node.index(rank)
        assert torch.allclose(reduced, (data[a] + data[b]).view(2, 4)[half])
        assert torch.equal(exchanged, torch.cat([data[a].view(2, 4)[half],
                                                 data[b].view(2, 4)[half]]))
        assert sent == (2 + 4 + 4) * 4               # (n-1)/n of each tensor, n = 2


@pytest.mark.parametrize("sizes", [[2], [2, 4], [4]])
def test_reduce_scatter_tier_by_tier_equals_the_flat_one(sizes):
    world = 8
    data = inputs(world, world * 3)
    total = sum(data)

    def body(comm):
        levels = Layout(comm.rank, world, {}).levels(sizes)
        return comm.wait(comm.reduce_scatter_levels(data[comm.rank], levels)), comm.sent_bytes

    for rank, (chunk, sent) in enumerate(run_ranks(world, body)):
        assert torch.allclose(chunk, total.view(world, 3)[rank], atol=1e-5)
        flat_ring = 7 * 3 * 4
        assert sent >= flat_ring                     # every tier moves its share


def test_layout_levels_and_bad_groupings():
    layout = Layout.of(3, 4, TWO_BY_TWO, ("node",), "zeropp")
    assert layout.sizes == {"node": 2} and layout.levels([2]) == [[2, 3], [1, 3]]
    assert parse_tiers("node=a,a,b,b;gpu=x,x,y,y") == {"node": ["a", "a", "b", "b"],
                                                     "gpu": ["x", "x", "y", "y"]}
    with pytest.raises(TrainetError, match="places its partitions by node"):
        Layout.of(0, 4, {}, ("node",), "zeropp")
    with pytest.raises(TrainetError, match="the same number of workers"):
        Layout.of(0, 3, {"node": ["a", "a", "b"]}, ("node",), "zeropp")
    with pytest.raises(TrainetError, match="node by node"):
        Layout.of(0, 4, {"node": ["a", "b", "a", "b"]}, ("node",), "zeropp")
    with pytest.raises(TrainetError, match="KIND=LABEL"):
        parse_tiers("rack=a,b")


@pytest.mark.parametrize("bits", [8, 4])
def test_quantization_error_is_within_half_a_step_of_the_block(bits):
    x = torch.randn(1000) * torch.linspace(0.01, 10, 1000)
    wire = quantize.quantize(x, bits, 64)
    assert wire.dtype == torch.uint8 and wire.numel() == quantize.wire_bytes(1000, bits, 64)
    back = quantize.dequantize(wire, 1000, bits, 64)
    assert ((back - x).abs() <= quantize.error_bound(x, bits, 64) * (1 + 1e-6)).all()
    assert torch.equal(quantize.dequantize(quantize.quantize(torch.zeros(64), bits, 64),
                                           64, bits, 64), torch.zeros(64))
    with pytest.raises(TrainetError, match="at least 32"):
        quantize.check_block(16)


def test_cross_node_volume_of_a_pattern():
    world_gather = [Collective("all-gather", 100.0)]
    assert cross_node(world_gather, 16, 8) == pytest.approx(100 * 15 / 16)
    inter = [Collective("all-to-all", 100.0, group="inter-node", size=2)]
    assert cross_node(inter, 16, 8) == pytest.approx(8 * 50)
    assert cross_node([Collective("all-gather", 100.0, group="node", size=8)], 16, 8) == 0
    assert cross_node(world_gather, 8, 8) == 0
