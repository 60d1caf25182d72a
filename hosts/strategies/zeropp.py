"""ZeRO++ (Wang et al. 2023, "ZeRO++: Extremely Efficient Collective Communication for
Giant Model Training", arXiv 2306.10209): ZeRO-3 with three independent options that
cut what crosses the nodes. DeepSpeed names them zero_quantized_weights,
zero_hpz_partition_size and zero_quantized_gradients.

* qwZ (``qwz``): each rank quantizes its parameter shard block-wise to int8 (one fp32
  scale per ``block`` elements, :mod:`hosts.compression.quantize`) before the forward
  all-gather; every rank dequantizes the gathered shards. Forward and backward see the
  same dequantized parameters; the fp32 shards and the optimizer stay exact.
* hpZ (``hpz``: a partition size, 1 = off): after a unit's forward all-gather, each rank
  keeps a secondary shard of the unit: its 1/hpz of the full parameters, shared among
  ``hpz`` consecutive ranks of its node. The backward all-gather then runs among those
  ranks only, never across nodes. The secondary shards are the extra memory, reported
  in the parameters' bytes (nominal: 2P/hpz in bf16).
* qgZ (``qgz``): instead of the ring reduce-scatter, a unit's gradient is reduced by a
  hierarchical all-to-all: inside the node first (every rank sends each node peer the
  int4-quantized pieces that peer reduces, receives, dequantizes and sums), then across
  the nodes among the ranks at the same place of their nodes, on the node-reduced
  pieces (1/node of the gradient), quantized again. Each rank ends with its own chunk of
  the summed gradient, as a reduce-scatter leaves it.

Per step and worker, for a model of M bytes (bf16), N ranks, n per node, int8 and int4
wire forms of ``(b + 4)/2b`` and ``(b/2 + 4)/2b`` of M for blocks of b: ZeRO-3 moves
3 (N-1)/N M, of which about 3 M leaves each node; qwZ makes the forward gather about
M/2, hpZ keeps the backward gather in the node, qgZ sends (n-1)/n M/4 in the node and
(N/n - 1)/(N/n) M/4n across. With all three, about 0.75 M leaves a node per step.

Quantization errors (per element, per step): qwZ at most half an int8 step of the block,
max|w|/254; qgZ adds at most max|g|/14 per hop of the block being sent, on each
contribution, so a reduced gradient chunk is off by at most the sum of those halves.
"""
from __future__ import annotations

import math

import torch
from pydantic import Field, field_validator

from hosts import shadow
from hosts.collectives.comm import pairwise_all_to_all
from hosts.collectives.hierarchy import Layout
from hosts.collectives.pattern import Collective
from hosts.compression.quantize import (check_block, dequantize, quantize, wire_bytes,
                                       wire_ratio)
from hosts.strategies.base import Memory
from hosts.strategies.registry import AccumulationOptions, Options, StrategyInfo, register
from hosts.strategies.zero3 import ShadowZero3, Zero3, timing
from testbed.errors import TrainetError

WEIGHT_BITS, GRADIENT_BITS = 8, 4


class Quantization(Options):
    """ZeRO++'s quantized collectives, as every partitioning built on ZeRO++ takes them
    (``zeropp`` and ``zero-hier``)."""
    qwz: bool = Field(default=False, description="int8 block-quantized forward all-gather")
    qgz: bool = Field(default=False, description="int4 hierarchical all-to-all of the "
                      "gradients instead of the reduce-scatter")
    block: int = Field(default=256, description="elements per quantization block")

    @field_validator("block")
    @classmethod
    def _block(cls, value):
        try:
            return check_block(value)
        except TrainetError as e:
            raise ValueError(str(e)) from None


class QuantizedOptions(AccumulationOptions, Quantization):
    """The quantized collectives and gradient accumulation (``zero-hier``)."""


class SecondaryPartition(Quantization):
    hpz: int = Field(default=1, ge=1, description="ranks of a secondary partition inside "
                     "the node for the backward all-gather (1: off)")


class ZeroPPOptions(AccumulationOptions, SecondaryPartition):
    """ZeRO++'s options and gradient accumulation."""


def check_partition(options: ZeroPPOptions, node: int) -> None:
    if node % options.hpz:
        raise TrainetError(f"zeropp: hpz {options.hpz} does not divide the node's "
                           f"{node} ranks; give a divisor of {node} (1 turns hpZ off)")


def gradient_stage(block: int):
    """A reduce-scatter over one group as qgZ runs it: int4 pieces all-to-all, then
    dequantized and summed."""
    def stage(pg, ranks, rank, flat):
        pieces = flat.view(len(ranks), -1)
        wire = torch.cat([quantize(p, GRADIENT_BITS, block) for p in pieces])
        got = pairwise_all_to_all(pg, ranks, rank, wire).view(len(ranks), -1)
        return sum(dequantize(w, pieces.shape[1], GRADIENT_BITS, block) for w in got)
    return stage


def quantized_reduce_scatter(comm, flat: torch.Tensor, levels, block: int):
    """qgZ's reduction of ``flat`` over ``levels`` (groups, innermost first): int4
    all-to-all at each, dequantized and summed between the hops."""
    return comm.reduce_scatter_levels(flat, levels, gradient_stage(block),
                                      wire=lambda numel: wire_bytes(numel, GRADIENT_BITS,
                                                                    block))


def wire_tensor(elements: int, bits: int, block: int) -> torch.Tensor:
    """A shadow worker's stand-in for the wire form of ``elements`` buffer elements (4
    bytes of bf16 each): the nominal ratio of wire to bf16 bytes, not a co-scaled
    tensor's own blocks' (whose padding would dominate)."""
    return torch.zeros(math.ceil(4 * elements * wire_ratio(bits, block)), dtype=torch.uint8)


def shadow_quantized_reduce(comm, elements: int, levels, block: int):
    """qgZ's all-to-alls for a shadow worker: each level sends its int4 pieces of what
    the levels inside it left."""
    future = None
    for ranks in levels:
        n = len(ranks)
        future = comm.all_to_all(wire_tensor(elements // n, GRADIENT_BITS, block).repeat(n),
                                 ranks)
        elements //= n
    return future


def quantized_hops(gradient_bytes: float, bounds: list[int], world: int
                   ) -> list[Collective]:
    """qgZ's all-to-alls as collectives: one per pair of nested group sizes in
    ``bounds`` (1, ..., world), each on what the hops inside it left."""
    hops = []
    for inner, outer in zip(bounds, bounds[1:]):
        group = ("world" if (inner, outer) == (1, world) else
                 "inter-node" if outer == world else "node")
        hops.append(Collective("all-to-all", gradient_bytes / inner, group=group,
                               size=outer // inner))
    return hops


class ZeroPP(Zero3):
    name = "zeropp"

    def __init__(self, comm, options: ZeroPPOptions, layout: Layout, lr: float = 1e-3):
        super().__init__(comm, lr=lr, micro_batch_size=options.micro_batch_size)
        self.options = options
        node = layout.sizes["node"]
        check_partition(options, node)
        self.partition = layout.group(options.hpz) if options.hpz > 1 else None
        self.levels = layout.levels([node])

    def setup(self, model) -> None:
        super().setup(model)
        self.secondary: dict[int, torch.Tensor] = {}
        self.peak_secondary_bytes = 0

    def _gather(self, i: int, backward: bool):
        unit, block = self.units[i], self.options.block
        if backward and self.partition:
            return self.comm.all_gather(self.secondary.pop(i), self.partition), lambda f: f
        if self.options.qwz:
            future = self.comm.all_gather(quantize(unit.shard, WEIGHT_BITS, block))

            def full(wire):
                return torch.cat([dequantize(w, unit.chunk, WEIGHT_BITS, block)
                                  for w in wire.view(self.comm.world, -1)])
        else:
            future, full = super()._gather(i, backward)
        if backward or not self.partition or i == len(self.units) - 1:
            return future, full
        return future, lambda result: self._keep_secondary(i, full(result))

    def _keep_secondary(self, i: int, full: torch.Tensor) -> torch.Tensor:
        position = self.partition.index(self.comm.rank)
        self.secondary[i] = full.view(len(self.partition), -1)[position].clone()
        held = sum(t.numel() * t.element_size() for t in self.secondary.values())
        self.peak_secondary_bytes = max(self.peak_secondary_bytes, held)
        return full

    def _reduce(self, i: int, flat: torch.Tensor):
        if not self.options.qgz:
            return super()._reduce(i, flat)
        return quantized_reduce_scatter(self.comm, flat, self.levels, self.options.block)

    def memory(self) -> Memory:
        m = super().memory()
        return Memory(m.params_bytes + self.peak_secondary_bytes, m.grads_bytes,
                      m.optimizer_bytes)


class ShadowZeroPP(ShadowZero3):
    """ZeRO++ for a nominal model: the gathers and all-to-alls move the wire forms' bytes
    (:func:`wire_tensor`) over the groups the real strategy uses."""

    def __init__(self, context):
        super().__init__(context)
        layout = Layout.of(self.comm.rank, self.comm.world, context.tiers, INFO.tiers,
                           INFO.name)
        self.sizes = layout.sizes
        check_partition(self.options, layout.sizes["node"])
        self.partition = layout.group(self.options.hpz) if self.options.hpz > 1 else None
        self.levels = layout.levels([layout.sizes["node"]])

    def setup(self, model=None) -> None:
        super().setup()
        self.quantized_shard = wire_tensor(self.shard.numel(), WEIGHT_BITS, self.options.block)
        if self.partition:
            self.secondary = torch.zeros(self.chunk // len(self.partition))

    def _gather(self, backward: bool):
        if backward and self.partition:
            return self.comm.all_gather(self.secondary, self.partition)
        if self.options.qwz:
            return self.comm.all_gather(self.quantized_shard)
        return super()._gather(backward)

    def _reduce(self, k: int):
        if not self.options.qgz:
            return super()._reduce(k)
        return shadow_quantized_reduce(self.comm, self.chunk, self.levels, self.options.block)

    def memory(self) -> Memory:
        m = super().memory()
        extra = self.secondary.numel() * 4 if self.partition else 0
        return Memory(m.params_bytes + extra, 0, 0)


def _sizes(world: int, sizes: dict | None) -> int:
    """Ranks per node (one node when the layout is not known)."""
    return (sizes or {}).get("node", world)


def pattern(model_bytes: float, world: int, layers: int | None,
            options: ZeroPPOptions = ZeroPPOptions(), sizes: dict | None = None
            ) -> list[Collective]:
    node = _sizes(world, sizes)
    check_partition(options, node)
    weights = model_bytes * (wire_ratio(WEIGHT_BITS, options.block) if options.qwz else 1)
    forward = Collective("all-gather", weights)
    backward = (Collective("all-gather", model_bytes, group="node", size=options.hpz)
                if options.hpz > 1 else forward)
    if not options.qgz:
        return [forward, backward, Collective("reduce-scatter", model_bytes)]
    gradient = model_bytes * wire_ratio(GRADIENT_BITS, options.block)
    bounds = [1] + ([node] if 1 < node < world else []) + [world]
    return [forward, backward, *quantized_hops(gradient, bounds, world)]


def memory(params: float, world: int, layers: int | None,
           options: ZeroPPOptions = ZeroPPOptions(), sizes: dict | None = None) -> Memory:
    """ZeRO-3's partitioned state plus, with hpZ, the bf16 secondary shard of every
    unit: 2P/hpz."""
    m = shadow.adam_memory(params / world)
    secondary = round(params * shadow.BYTES_PER_PARAM / options.hpz) if options.hpz > 1 else 0
    return Memory(m.params_bytes + secondary, m.grads_bytes, m.optimizer_bytes)


def _real(context):
    layout = Layout.of(context.comm.rank, context.comm.world, context.tiers, INFO.tiers,
                       INFO.name)
    return ZeroPP(context.comm, context.options, layout, lr=context.lr)


INFO = register(StrategyInfo(
    name="zeropp",
    description="ZeRO++: ZeRO-3 with int8 forward gathers (qwz), a secondary partition in "
                "the node for the backward gather (hpz) and int4 hierarchical all-to-all "
                "of the gradients (qgz)",
    real=_real,
    shadow=ShadowZeroPP,
    pattern=pattern,
    memory=memory,
    options=ZeroPPOptions,
    timing=timing,
    layouts=lambda world, sizes=None: [{"qwz": True, "qgz": True, "hpz": _sizes(world, sizes)}],
    tiers=("node",)))
