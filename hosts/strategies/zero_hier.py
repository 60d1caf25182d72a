"""3-level hierarchical partitioning for tiered nodes, after Xu et al. 2025, "Scaling
Large Language Model Training on Frontier with Low-Bandwidth Partitioning" (arXiv
2501.04266). The paper gives the scheme in prose and figures; this module is a
reconstruction of it, not the paper's code.

A Frontier node holds 4 MI250X packages of 2 GCDs each: GCD to GCD inside a package is
the fastest tier (200 GB/s), GPU to GPU inside a node the next (50-100 GB/s), node to
node the slowest (4 x 25 GB/s). Every partition sits where the collective that serves
it runs over the fastest tier that can:

* optimizer state, fp32 master weights and gradient chunks: partitioned over every rank,
  as in ZeRO-3 (each touched once per step, by its owner alone);
* parameters: a node-level partition (each rank 1/n of the model for n ranks per node),
  assembled once per step from the updated fp32 shards by an all-gather among the ranks
  at the same place of every node: the only parameter traffic across nodes, (k-1)/k of
  M/n per rank for k nodes;
* forward: a unit's parameters are all-gathered inside the node from the node partition;
  each rank keeps a GPU-level secondary partition (1/g of the unit, g ranks per package);
* backward: the unit is all-gathered inside the package from that secondary partition;
* gradients: reduce-scattered package first (g ranks), then among the node's packages
  (n/g ranks, the ranks at the same place of each package), then across nodes (k ranks),
  each hop on the previous hop's chunk, so the traffic shrinks as the tiers slow down.

The paper builds the scheme on ZeRO++ and keeps ZeRO++'s quantized collectives; the
options are ZeRO++'s own (:class:`hosts.strategies.zeropp.QuantizedOptions`): ``qwz``
sends each rank's shard as int8 blocks once, across nodes, and the node's forward gather
passes the same int8 wire on, dequantized only when the unit is assembled (one
quantization, qwZ's error bound); the backward gather inside the package carries the
dequantized values forward used. ``qgz`` makes each of the three reduction hops an
int4 all-to-all, dequantized and summed between hops, as ZeRO++'s qgZ does over two.

Without quantization this is exact: the parameters after each step are those of
single-process training. Per step and rank it moves (k-1)/k M/n across nodes for
parameters and as much for gradients, (n-1)/n M inside the node for forward, (g-1)/g M
inside the package for backward, and holds 2P/n + 2P/g bytes of bf16 parameters.
"""
from __future__ import annotations

import torch

from hosts import shadow
from hosts.collectives.hierarchy import Layout
from hosts.collectives.pattern import Collective
from hosts.collectives.timing import Overlap, data_parallel
from hosts.compression.quantize import dequantize, quantize, wire_ratio
from hosts.strategies.base import Memory, tensor_bytes
from hosts.strategies.registry import StrategyInfo, register
from hosts.strategies.zero3 import GATHERS, ShadowZero3, Zero3
from hosts.strategies.zeropp import (GRADIENT_BITS, WEIGHT_BITS, QuantizedOptions,
                                     quantized_reduce_scatter, shadow_quantized_reduce,
                                     wire_tensor)


class Tiers:
    """The groups of one rank: its package, its node, the ranks at its place in every
    node, and the levels of the gradient reduction."""

    def __init__(self, comm, tiers):
        layout = Layout.of(comm.rank, comm.world, tiers, INFO.tiers, INFO.name)
        self.sizes = layout.sizes
        self.gpu, self.node = layout.sizes["gpu"], layout.sizes["node"]
        self.package = layout.group(self.gpu)
        self.in_node = layout.group(self.node)
        self.across_nodes = layout.across(self.node, comm.world)
        self.levels = layout.levels([self.gpu, self.node])


class ZeroHier(Zero3):
    name = "zero-hier"

    def __init__(self, comm, tiers: dict, options: QuantizedOptions = QuantizedOptions(),
                 lr: float = 1e-3):
        super().__init__(comm, lr=lr, micro_batch_size=options.micro_batch_size)
        self.tiers = Tiers(comm, tiers)
        self.options = options

    def setup(self, model) -> None:
        super().setup(model)
        self.node_parts: dict = {}
        self.secondary: dict[int, torch.Tensor] = {}
        self.peak_partition_bytes = 0

    def _before_forward(self) -> None:
        """The node partition of every unit from the updated shards, across nodes."""
        self.node_parts = {i: self.comm.all_gather(self._wire(u.shard.detach()),
                                                   self.tiers.across_nodes)
                           for i, u in enumerate(self.units)}

    def _wire(self, shard: torch.Tensor) -> torch.Tensor:
        return quantize(shard, WEIGHT_BITS, self.options.block) if self.options.qwz \
            else shard

    def _unwire(self, rows: torch.Tensor, chunk: int) -> torch.Tensor:
        """Every rank's shard, in rank order, from their wire forms (one per row)."""
        if not self.options.qwz:
            return rows.reshape(-1)
        return torch.cat([dequantize(w, chunk, WEIGHT_BITS, self.options.block)
                          for w in rows])

    def _gather(self, i: int, backward: bool):
        t = self.tiers
        if backward:
            return self.comm.all_gather(self.secondary.pop(i), t.package), lambda f: f
        part = self.comm.wait(self.node_parts[i])
        last = i == len(self.units) - 1

        def full(gathered):
            # node member j holds the chunks of ranks j, n + j, 2n + j, ...: put them in
            # rank order
            k = len(t.across_nodes)
            flat = self._unwire(gathered.view(t.node, k, -1).transpose(0, 1)
                                .reshape(t.node * k, -1), self.units[i].chunk)
            if not last:
                position = t.package.index(self.comm.rank)
                self.secondary[i] = flat.view(t.gpu, -1)[position].clone()
                self._count_partitions()
            return flat

        return self.comm.all_gather(part, t.in_node), full

    def _count_partitions(self) -> None:
        held = tensor_bytes(self.secondary.values()) + sum(
            u.chunk * len(self.tiers.across_nodes) * 4 for u in self.units)
        self.peak_partition_bytes = max(self.peak_partition_bytes, held)

    def _reduce(self, i: int, flat: torch.Tensor):
        if self.options.qgz:
            return quantized_reduce_scatter(self.comm, flat, self.tiers.levels,
                                            self.options.block)
        return self.comm.reduce_scatter_levels(flat, self.tiers.levels)

    def memory(self):
        m = super().memory()
        return Memory(m.params_bytes + self.peak_partition_bytes, m.grads_bytes,
                      m.optimizer_bytes)


class ShadowZeroHier(ShadowZero3):
    """The 3-level partitioning for a nominal model: per step the node partitions
    across nodes, then per layer group the node gather (forward), the package gather
    (backward) and the reduction package, node, nodes."""

    def __init__(self, context):
        super().__init__(context)
        self.tiers = Tiers(self.comm, context.tiers)
        self.sizes = self.tiers.sizes

    def setup(self, model=None) -> None:
        super().setup()
        o = self.options
        self.node_part = wire_tensor(self.chunk // self.tiers.node, WEIGHT_BITS, o.block) \
            if o.qwz else torch.zeros(self.chunk // self.tiers.node)
        self.sent_shard = wire_tensor(self.shard.numel(), WEIGHT_BITS, o.block) \
            if o.qwz else self.shard
        self.secondary = torch.zeros(self.chunk // self.tiers.gpu)

    def _step(self, batch) -> None:
        for _ in range(shadow.CHUNKS):
            self.comm.all_gather(self.sent_shard, self.tiers.across_nodes)
        super()._step(batch)

    def _gather(self, backward: bool):
        if backward:
            return self.comm.all_gather(self.secondary, self.tiers.package)
        return self.comm.all_gather(self.node_part, self.tiers.in_node)

    def _reduce(self, k: int):
        if self.options.qgz:
            return shadow_quantized_reduce(self.comm, self.chunk, self.tiers.levels,
                                           self.options.block)
        return self.comm.reduce_scatter_levels(
            self.buffer[k * self.chunk:(k + 1) * self.chunk], self.tiers.levels)

    def memory(self) -> Memory:
        m = super().memory()
        node_part = self.chunk // self.tiers.node * 4       # held dequantized, in bf16
        return Memory(m.params_bytes + node_part + tensor_bytes([self.secondary]), 0, 0)


def _sizes(world: int, sizes: dict | None) -> tuple[int, int]:
    """(ranks per package, per node); one node of packages of one when not known."""
    sizes = sizes or {}
    return sizes.get("gpu", 1), sizes.get("node", world)


def pattern(model_bytes: float, world: int, layers: int | None,
            options: QuantizedOptions = QuantizedOptions(), sizes: dict | None = None
            ) -> list[Collective]:
    gpu, node = _sizes(world, sizes)
    nodes = world // node
    weights = model_bytes * (wire_ratio(WEIGHT_BITS, options.block) if options.qwz else 1)
    grads = model_bytes * (wire_ratio(GRADIENT_BITS, options.block) if options.qgz else 1)
    reduce = "all-to-all" if options.qgz else "reduce-scatter"
    return [Collective("all-gather", weights / node, group="inter-node", size=nodes),
            Collective("all-gather", weights, group="node", size=node),
            Collective("all-gather", model_bytes, group="gpu", size=gpu),
            Collective(reduce, grads, group="gpu", size=gpu),
            Collective(reduce, grads / gpu, group="node", size=node // gpu),
            Collective(reduce, grads / node, group="inter-node", size=nodes)]


def overlap(pattern: list[Collective]) -> list[Overlap]:
    """The gather across nodes before the step, the node gather prefetched in forward,
    the package gather in backward, the reductions after each backward layer group."""
    return [Overlap("before"), *GATHERS, *[Overlap("backward")] * 3]


def per_micro_batch(pattern: list[Collective]) -> list[bool]:
    """Accumulating, the node partitions are gathered across nodes once per step, the
    rest once per micro-batch."""
    return [False] + [True] * (len(pattern) - 1)


def memory(params: float, world: int, layers: int | None,
           sizes: dict | None = None) -> Memory:
    """Gradients and optimizer state over every rank; bf16 parameters held as the node
    partition (2P/n) and the package partition (2P/g)."""
    gpu, node = _sizes(world, sizes)
    m = shadow.adam_memory(params / world)
    held = params * shadow.BYTES_PER_PARAM * (1 / node + 1 / gpu)
    return Memory(round(held), m.grads_bytes, m.optimizer_bytes)


INFO = register(StrategyInfo(
    name="zero-hier",
    description="3-level hierarchical partitioning (reconstruction of Xu et al. 2025): "
                "parameters gathered across nodes once per step, in the node for "
                "forward, in the GPU package for backward; gradients reduced package, "
                "node, nodes",
    real=lambda c: ZeroHier(c.comm, c.tiers, c.options, lr=c.lr),
    shadow=ShadowZeroHier,
    pattern=pattern,
    memory=memory,
    options=QuantizedOptions,
    timing=lambda world, sizes=None: data_parallel(world, sizes, overlap,
                                                   per_micro_batch=per_micro_batch),
    tiers=("gpu", "node")))
