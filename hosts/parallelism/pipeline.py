"""Pipeline schedules: the order in which one stage runs the forward (``F``) and backward
(``B``) passes of a step's micro-batches.

* GPipe (Huang et al. 2019): every forward, then every backward. A stage holds the
  activations of all ``m`` micro-batches at once.
* 1F1B (PipeDream-Flush, Narayanan et al. 2021, "Efficient Large-Scale Language Model
  Training on GPU Clusters Using Megatron-LM", sec. 2.2.1): stage ``s`` of ``p`` first
  runs ``min(p - s - 1, m)`` forwards, then alternates one forward and one backward,
  then drains the remaining backwards. It holds at most ``p - s`` micro-batches'
  activations; its bubble is the same as GPipe's.

Both flush at the end of the step, so the ideal bubble is ``(p - 1) / (m + p - 1)`` of
the step (the same paper, sec. 2.2.1). Every stage runs its backwards in micro-batch
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
