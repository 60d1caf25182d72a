"""How a model's parameters map onto the chunks of a LuWu gradient job.

Workers and the optimizer node derive the same layout from the same model: parameters
grouped into buckets of about ``bucket_bytes`` in reverse registration order (as
:mod:`hosts.strategies.ddp` does, roughly the order backward produces gradients), each
bucket flattened and padded with zeros to whole chunks of ``V`` values. A step
pushes every bucket once, in bucket order, so chunk ``c`` of the job's stream is step
``c // chunks_per_step`` and holds elements ``[p * V, (p + 1) * V)`` of the padded flat
vector, ``p = c % chunks_per_step``.

A chunk is what one packet's lanes hold, and the same values in every direction:
``V = ina.lanes_per_packet(lane_bits)``, ``LANES`` (256) for fp32 workers, whose
gradients travel in 32-bit lanes and whose parameters come back as fp32 bit patterns,
and ``2 * LANES`` (512) for bf16 workers, whose gradients travel in 16-bit lanes and
whose parameters come back as bf16 copies, two per 32-bit word; the optimizer node keeps
the fp32 parameters and optimizer state of all V values. So gradient chunk c, its answer
and the pull of chunk c cover the same elements, one packet each, at either width. With
the optimizer in the switch (p4/luwu_sgd.p4) a chunk is ``LANES`` values at either
width, the switch's parameters per packet: 16-bit gradients travel in half the words,
the parameters come back as ``LANES`` int32 fixed-point lanes.

Workers that stream their parameters group them by unit instead (:meth:`Layout.of_units`:
one bucket per unit of the model, the units in reverse, so bucket 0 is the last unit)
and pull each unit's chunks from the pull job when they need them: forward asks for
every unit but the last, first to last, backward for every unit, last to first (the last
unit's forward runs with its backward, as in :mod:`hosts.strategies.zero3`). Chunk ``c``
of the pull stream is step ``c // pull_chunks_per_step`` and holds position
``pull_positions()[c % pull_chunks_per_step]`` of the padded flat vector.

Partial residency: the last ``resident`` units (buckets ``0 .. resident - 1``) stay on
the worker, as far as a memory budget allows (:func:`resident_units`). They are not
pulled; the optimizer node answers their gradient chunks with the updated parameters, as
for workers that keep the whole model, and the rest with an acknowledgement.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from testbed.errors import TrainetError
from testbed.proto import ina

DEFAULT_BUCKET_BYTES = 256 * 1024


@dataclass(frozen=True)
class Layout:
    buckets: tuple            # per bucket, the indices of its parameters
    sizes: tuple              # elements per parameter
    first_chunk: tuple        # per bucket, its first chunk within a step
    resident: int = 0         # buckets 0 .. resident - 1 are kept, not pulled
    chunk_values: int = ina.LANES   # values per chunk: ina.lanes_per_packet(lane_bits)

    @classmethod
    def of(cls, params, bucket_bytes: int = DEFAULT_BUCKET_BYTES,
           chunk_values: int = ina.LANES) -> "Layout":
        params = list(params)
        buckets, size = [[]], 0
        for i in reversed(range(len(params))):
            nbytes = params[i].numel() * 4
            if buckets[-1] and size + nbytes > bucket_bytes:
                buckets.append([])
                size = 0
            buckets[-1].append(i)
            size += nbytes
        return cls._of_buckets(buckets, tuple(p.numel() for p in params), 0, chunk_values)

    @classmethod
    def of_units(cls, params, units, resident: int = 0,
                 chunk_values: int = ina.LANES) -> "Layout":
        """One bucket per unit (a module holding some of ``params``), last unit first;
        the last ``resident`` units kept by the workers."""
        index = {id(p): i for i, p in enumerate(params)}
        buckets = [tuple(index[id(p)] for p in unit.parameters() if id(p) in index)
                   for unit in reversed(list(units))]
        if sorted(i for b in buckets for i in b) != list(range(len(index))):
            raise ValueError("the units must hold every trainable parameter exactly once")
        return cls._of_buckets(buckets, tuple(p.numel() for p in params), resident,
                               chunk_values)

    @classmethod
    def of_sizes(cls, sizes, resident: int = 0, chunk_values: int = ina.LANES) -> "Layout":
        """One bucket per group of ``sizes[i]`` elements, in this order (shadow mode)."""
        return cls._of_buckets([(i,) for i in range(len(sizes))], tuple(sizes), resident,
                               chunk_values)

    @classmethod
    def _of_buckets(cls, buckets, sizes, resident: int = 0,
                    chunk_values: int = ina.LANES) -> "Layout":
        first, chunk = [], 0
        for b in buckets:
            first.append(chunk)
            chunk += -(-sum(sizes[i] for i in b) // chunk_values)
        return cls(tuple(tuple(b) for b in buckets), sizes, tuple(first + [chunk]), resident,
                   chunk_values)

    @property
    def pull_order(self) -> tuple:
        """The buckets a step pulls, in order: forward (all but bucket 0, last bucket
        first), then backward (every bucket, bucket 0 first); resident buckets never."""
        n = len(self.buckets)
        order = tuple(range(n - 1, 0, -1)) + tuple(range(n))
        return tuple(b for b in order if b >= self.resident)

    def returns_params(self) -> np.ndarray:
        """Per chunk position of a step, whether its push is answered with parameters
        (a resident bucket's) rather than acknowledged."""
        out = np.zeros(self.chunks_per_step, dtype=bool)
        out[:self.first_chunk[self.resident]] = True
        return out

    def pull_positions(self) -> np.ndarray:
        """Chunk positions of one step's pull stream, in order."""
        return np.concatenate([np.arange(self.first_chunk[b], self.first_chunk[b + 1])
                               for b in self.pull_order])

    @property
    def pull_chunks_per_step(self) -> int:
        return sum(self.bucket_chunks(b) for b in self.pull_order)

    @property
    def chunks_per_step(self) -> int:
        return self.first_chunk[-1]

    def bucket_chunks(self, b: int) -> int:
        return self.first_chunk[b + 1] - self.first_chunk[b]

    def flatten_bucket(self, b: int, tensors) -> np.ndarray:
        """float32 values of bucket ``b``, padded with zeros to whole chunks."""
        tensors = list(tensors)
        out = np.zeros(self.bucket_chunks(b) * self.chunk_values, dtype=np.float32)
        at = 0
        for i in self.buckets[b]:
            out[at:at + self.sizes[i]] = tensors[i].detach().reshape(-1).float().numpy()
            at += self.sizes[i]
        return out

    def flatten(self, tensors) -> np.ndarray:
        """float32 vector of ``chunks_per_step * chunk_values`` values: every bucket, in
        order."""
        tensors = list(tensors)
        return np.concatenate([self.flatten_bucket(b, tensors) for b in range(len(self.buckets))])

    def scatter(self, b: int, flat: np.ndarray, tensors) -> None:
        """Copy bucket ``b``'s values (``flat``: that bucket's padded chunks) into
        ``tensors``."""
        tensors = list(tensors)
        at = 0
        for i in self.buckets[b]:
            t = tensors[i]
            t.data.copy_(torch.from_numpy(flat[at:at + self.sizes[i]]).view_as(t))
            at += self.sizes[i]


def resident_units(unit_bytes, budget: int | None, what: str = "memory_budget") -> int:
    """How many units, last first (``unit_bytes`` in that order), fit in ``budget``
    bytes; None: none (stream every unit). A budget below the first unit is an error."""
    if budget is None:
        return 0
    unit_bytes = list(unit_bytes)
    if budget < unit_bytes[0]:
        raise TrainetError(f"{what} {budget} B is smaller than one layer ({unit_bytes[0]:.0f} "
                           "B, the last unit): give at least that, or leave it out to stream "
                           "every layer")
    held = k = 0
    while k < len(unit_bytes) and held + unit_bytes[k] <= budget:
        held += unit_bytes[k]
        k += 1
    return k


def units_resident(units, budget: int | None) -> int:
    """The last units of a real model (fp32) that fit in ``budget`` bytes."""
    sizes = [4 * sum(p.numel() for p in u.parameters() if p.requires_grad)
             for u in reversed(list(units))]
    return resident_units(sizes, budget)


def layers_resident(model, budget: int | None) -> int:
    """The last layers of a shadow model (``hosts.shadow.ShadowModel``, bf16) that fit
    in ``budget`` nominal bytes."""
    from hosts.shadow import model_bytes
    return resident_units([model_bytes(model.params) / model.layers] * model.layers, budget)


def shadow_layout(model, scale: float, streamed: bool, resident: int = 0,
                  lane_bits: int = 32, chunk_values: int | None = None) -> Layout:
    """The chunk layout of a shadow LuWu job (``model`` a
    :class:`hosts.shadow.ShadowModel`), which the workers and the optimizer node derive
    alike: ``scale`` x M bytes of elements of ``lane_bits`` bits (32: an fp32 element
    stands for two bf16 values; 16: bf16 elements, the model's own), padded to whole
    chunks in each layer (streamed: one bucket per layer, pulled layer by layer, but for
    the last ``resident`` layers) or each of the shadow ``CHUNKS`` layer groups
    (resident: one bucket, pushed group by group); chunks of ``chunk_values`` values
    (default: what one packet of ``lane_bits``-bit lanes carries)."""
    from hosts.shadow import CHUNKS, model_bytes
    from testbed.topology.profiles import scaled_volume
    groups = model.layers if streamed else CHUNKS
    per_chunk = chunk_values or ina.lanes_per_packet(lane_bits)
    elements = -(-scaled_volume(round(model_bytes(model.params)), scale) // (lane_bits // 8))
    per_group = -(-elements // (groups * per_chunk)) * per_chunk
    return Layout.of_sizes([per_group] * groups if streamed else [per_group * groups],
                           resident if streamed else 0, per_chunk)


def initial_parameters(model: str, seed: int, seq: int = 32,
                       bucket_bytes: int | None = None) -> np.ndarray:
    """The flat initial parameters the workers of ``hosts.worker --model ... --seed ...``
    start from, in their chunk layout: what a switch that holds the parameters
    (p4/luwu_sgd.p4) is given at set-up."""
    from hosts.models import build_model
    params = [p for p in build_model(model, seed, seq).parameters() if p.requires_grad]
    return Layout.of(params, bucket_bytes or DEFAULT_BUCKET_BYTES).flatten(params)
