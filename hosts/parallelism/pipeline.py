"""Pipeline schedules: the order in which one stage runs the forward (``F``) and backward
(``B``) passes of a step's micro-batches.

* GPipe (Huang et al. 2019): every forward, then every backward. A stage holds the
  activations of all ``m`` micro-batches at once.
* 1F1B (PipeDream-Flush, Narayanan et al. 2021, "Efficient Large-Scale Language Model
  Training on GPU Clusters Using Megatron-LM", sec. 2.2.1): stage ``s`` of ``p`` first
  runs ``min(p - s - 1, m)`` forwards, then alternates one forward and one backward,
  then drains the remaining backwards. It holds at most ``p - s`` micro-batches'
  activations; its bubble is the same as GPipe's.

* Interleaved 1F1B (the same paper, sec. 2.2.2): each stage holds ``v`` model chunks
  (stage ``s`` chunk ``c`` is layer group ``c p + s``); micro-batches go through the
  chunks in groups of ``p``; stage ``s`` first runs ``(p - s - 1) 2 + (v - 1) p``
  chunk-forwards, then alternates, then drains (as Megatron-LM's interleaved schedule
  orders them; ``m`` a multiple of ``p``). The bubble shrinks to ``(p - 1) / v`` chunk
  passes.

All flush at the end of the step, so the ideal bubble is ``(p - 1) / (m + p - 1)`` of
the step (the same paper, sec. 2.2.1) without interleaving. Every stage runs its backwards in micro-batch
order, so the gradient stage ``s`` waits for is the next one stage ``s + 1`` sends.
"""
from __future__ import annotations

from testbed.errors import TrainetError

SCHEDULES = ("1f1b", "gpipe")


def schedule(kind: str, stage: int, stages: int, micro_batches: int) -> list[tuple[str, int]]:
    m = micro_batches
    if kind == "gpipe":
        return [("F", i) for i in range(m)] + [("B", i) for i in range(m)]
    if kind == "1f1b":
        warm = min(stages - stage - 1, m)
        ops = [("F", i) for i in range(warm)]
        for i in range(m - warm):
            ops += [("F", warm + i), ("B", i)]
        return ops + [("B", i) for i in range(m - warm, m)]
    raise TrainetError(f"schedule {kind!r}: choose one of {', '.join(SCHEDULES)}")


def interleaved(stage: int, stages: int, micro_batches: int,
                chunks: int) -> list[tuple[str, int, int]]:
    """Stage ``stage``'s passes as (op, micro-batch, chunk) in interleaved 1F1B."""
    p, m, v = stages, micro_batches, chunks
    if m % p:
        raise TrainetError(f"interleaved schedule: {m} micro-batches are not a multiple of "
                           f"the {p} stages")
    total = m * v

    def order(k: int, backward: bool) -> tuple[int, int]:
        group, within = divmod(k, p * v)
        chunk = within // p
        return group * p + within % p, (v - 1 - chunk) if backward else chunk

    warm = min((p - stage - 1) * 2 + (v - 1) * p, total)
    ops = [("F", *order(k, False)) for k in range(warm)]
    for k in range(total - warm):
        ops += [("F", *order(warm + k, False)), ("B", *order(k, True))]
    return ops + [("B", *order(k, True)) for k in range(total - warm, total)]


def ideal_bubble(stages: int, micro_batches: int) -> float:
    """The fraction of a step a stage idles in a flushed pipeline of equal stages."""
    return (stages - 1) / (micro_batches + stages - 1)


def in_flight(kind: str, stage: int, stages: int, micro_batches: int) -> int:
    """The most micro-batches whose activations the stage holds at once."""
    live = peak = 0
    for op, _ in schedule(kind, stage, stages, micro_batches):
        live += 1 if op == "F" else -1
        peak = max(peak, live)
    return peak
