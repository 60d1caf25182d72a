"""How many transformer layers each pipeline stage holds, also when the stages do not
divide the layers.

A pipelined GPT is a sequence of items: the embedding, the ``L`` transformer layers and
the head (the logits, on Megatron's and DeepSpeed's GPT a second copy of the tied word
embedding). Each stage takes a contiguous run of them, the first stage the embedding and
the last the head. Three ways to cut the sequence (``METHODS``):

* ``layers``: only the transformer layers are counted; they split as evenly as possible
  (counts differ by at most one, the extra layers on the first stages, since the last
  also runs the head), Megatron-LM's even split where the stages divide the layers;
* ``embeddings``: the embedding and the head each count as one more layer in that even
  split, so the first and last stages hold one transformer layer fewer when the counts
  come out even (DeepSpeed's pipeline module partitioned by the layer types
  ``transformer|embedding``, as BigScience's BLOOM-176B ran: 72 items over 12 stages,
  5 + 6 x 10 + 5 layers);
* ``parameters``: each item weighs its parameter count (an embedding ``(V + s) h``, a
  layer ``12 h^2 + 13 h``, the head ``V h``), DeepSpeed's default method.

DeepSpeed's pipeline module (``PipelineModule(partition_method=...)``, documented in its
API reference) offers ``uniform`` (the same number of its layer specifications per
stage), ``parameters`` (stages balanced on the trainable parameters of each
specification) and ``type:REGEX`` (balanced on the count of specifications whose class
name matches). Its balanced methods keep the stages' order and minimise the heaviest
stage's weight, which is what :func:`min_max_split` does here; this module is a
reconstruction from that description, not DeepSpeed's code, and where several cuts
reach the same heaviest stage it fills the earlier stages first.
"""
from __future__ import annotations

from testbed.errors import TrainetError

METHODS = ("layers", "embeddings", "parameters")


def stage_layers(layers: int, stages: int, method: str = "layers", hidden: int = 0,
                 vocab: int = 0, seq: int = 0, strategy: str = "megatron"
                 ) -> tuple[int, ...]:
    """Transformer layers per stage, first stage first. ``hidden``, ``vocab`` and
    ``seq`` weigh the embedding and head for ``parameters``."""
    if method not in METHODS:
        raise TrainetError(f"strategy {strategy}: partition={method!r}; accepted: "
                           f"{', '.join(METHODS)}")
    if stages > layers:
        raise TrainetError(f"strategy {strategy}: pp={stages} stages for a model of {layers} "
                           f"layers; choose pp of at most {layers}")
    if method == "layers" or stages == 1:
        base, extra = divmod(layers, stages)
        return tuple(base + (1 if s < extra else 0) for s in range(stages))
    if method == "embeddings":
        weights = [1.0] * (layers + 2)
    else:
        if hidden < 1 or vocab < 1:
            raise TrainetError(f"strategy {strategy}: partition=parameters weighs the "
                               "embedding by the model's hidden size and vocabulary; give "
                               "the model by its shape (custom:layers=...,hidden=...,"
                               "heads=...,vocab=...)")
        layer = 12.0 * hidden ** 2 + 13.0 * hidden
        weights = [(vocab + seq) * hidden] + [layer] * layers + [float(vocab * hidden)]
    counts = min_max_split(weights, stages)
    # the embedding is the first item and the head the last: neither is a layer
    out = list(counts)
    out[0] -= 1
    out[-1] -= 1
    return tuple(_at_least_one(out))


def _at_least_one(counts: list[int]) -> list[int]:
    """Every stage at least one layer (there are at least as many layers as stages): a
    stage left with the embedding or the head alone takes one from the stage with the
    most."""
    for s, c in enumerate(counts):
        if c == 0:
            donor = max(range(len(counts)), key=lambda n: counts[n])
            counts[donor] -= 1
            counts[s] = 1
    return counts


def min_max_split(weights: list[float], parts: int) -> list[int]:
    """Items per part, ``parts`` contiguous non-empty runs of ``weights`` in order whose
    heaviest run is as light as possible (the earlier runs filled first)."""
    n = len(weights)
    if not 1 <= parts <= n:
        raise ValueError(f"{parts} parts of {n} items")
    prefix = [0.0]
    for w in weights:
        prefix.append(prefix[-1] + w)
    sums = sorted({prefix[j] - prefix[i] for i in range(n) for j in range(i + 1, n + 1)})
    lo, hi = 0, len(sums) - 1
    while lo < hi:                       # the lightest bottleneck a greedy fill reaches
        mid = (lo + hi) // 2
        if len(_fill(weights, sums[mid])) <= parts:
            hi = mid
        else:
            lo = mid + 1
    counts = _fill(weights, sums[lo])
    while len(counts) < parts:           # split the longest run: no run gets heavier
        i = max(range(len(counts)), key=lambda k: counts[k])
        counts[i:i + 1] = [counts[i] - 1, 1]
    return counts


def _fill(weights: list[float], bottleneck: float) -> list[int]:
    """Runs taken greedily up to ``bottleneck`` (a lone heavier item is a run of its
    own, which makes the bottleneck infeasible: the count then exceeds any budget)."""
    counts, load = [], None
    for w in weights:
        if w > bottleneck * (1 + 1e-12):
            return [1] * (len(weights) + 1)
        if load is None or load + w > bottleneck * (1 + 1e-12):
            counts.append(1)
            load = w
        else:
            counts[-1] += 1
            load += w
    return counts
