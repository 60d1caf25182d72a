"""AdaTopK: top-k sparsification of the activations and gradients that cross slow links,
with k adapted to each link (a reconstruction from the prose of FusionLLM, arXiv
2410.12707, not the paper's code).

The step-time budget of a boundary is the slowest stage's compute per micro-batch: a
message that holds its link no longer than that hides behind compute and leaves the
pipeline's bottleneck where it is (the latency is paid once per step, filling the
pipeline, whatever the size). A boundary whose dense message fits goes uncompressed (the
fast links); one that does not keeps the fraction ``r`` of its elements, largest
magnitudes first, with ``r`` chosen so ``r * n * (value + index bytes) / bandwidth``
fits the budget, but never below ``floor``. Compression that would not make the message smaller (``r`` of
the elements with their indices weighing as much as all of them) is not done.

Error feedback (Seide et al. 2014; Stich et al. 2018, "Sparsified SGD with Memory"):
what top-k drops is kept by the sender and added to the next message on the same
boundary, direction and micro-batch slot, so every element is sent eventually. It suits
gradients, whose parameters are the same step after step; an activation's next message
on a slot belongs to other samples, and adding its residual there made training worse
in this testbed's measurements (tests/workers/test_fusionllm.py), so ``fusionllm`` feeds
back gradients only unless told otherwise.
"""
from __future__ import annotations

import torch

from hosts.opdag.opfence import Fabric, Plan

INDEX_BYTES = 4


def adaptive_fractions(plan: Plan, fabric: Fabric, cut_bytes: list[float],
                       element_bytes: int, floor: float) -> list[float]:
    """The kept fraction of each boundary of ``plan``: 1.0 where the dense transfer fits
    the budget."""
    budget = max(plan.stage_s)
    out = []
    for b, nbytes in enumerate(cut_bytes):
        a, c = plan.order[b], plan.order[b + 1]
        if fabric.occupancy_s(nbytes, a, c) <= budget:
            out.append(1.0)
            continue
        elements = nbytes / element_bytes
        room = budget * fabric.bandwidth[a][c]
        out.append(worth_it(max(floor, min(1.0, room / (elements * (element_bytes
                                                                    + INDEX_BYTES)))),
                            element_bytes))
    return out


def worth_it(fraction: float, element_bytes: int) -> float:
    """``fraction``, or 1.0 when sending it with its indices is no smaller than dense."""
    return fraction if fraction * (element_bytes + INDEX_BYTES) < element_bytes else 1.0


class TopK:
    """Top-k of a flat tensor of ``elements``, packed as the kept values followed by
    their int32 indices (as float32 bit patterns) in one tensor of ``2k``."""

    def __init__(self, elements: int, fraction: float):
        self.elements, self.fraction = elements, fraction
        self.k = max(1, round(elements * fraction))
        self.dense = fraction >= 1.0
        self.residual: dict = {}

    @property
    def packed_elements(self) -> int:
        return self.elements if self.dense else 2 * self.k

    def encode(self, flat: torch.Tensor, slot=None) -> torch.Tensor:
        """The packed top-k of ``flat``; with a ``slot`` (any key), error feedback: the
        residual left by the last message of that slot is added first."""
        if self.dense:
            return flat
        if slot is not None and slot in self.residual:
            flat = flat + self.residual[slot]
        index = flat.abs().topk(self.k, sorted=False).indices
        values = flat[index]
        if slot is not None:
            rest = flat.clone()
            rest[index] = 0
            self.residual[slot] = rest
        return torch.cat([values, index.to(torch.int32).view(torch.float32)])

    def decode(self, packed: torch.Tensor) -> torch.Tensor:
        if self.dense:
            return packed
        values, index = packed[:self.k], packed[self.k:].view(torch.int32).long()
        return torch.zeros(self.elements, dtype=values.dtype).index_put_((index,), values)
