"""How a strategy spends a step's time: what the analytical model (testbed/model) needs
besides the pattern's volumes, declared by each strategy (``StrategyInfo.timing``).

* **compute**: the global batch splits over ``replicas`` data-parallel replicas; a
  replica's compute splits evenly over its ``world / replicas`` ranks (tensor, pipeline or
  depth parallelism), so a rank computes ``1 / (world / replicas)`` of its replica's
  FLOPs.
* **groups**: each group kind the pattern names is a regular set of ranks in launch
  order, ``size`` ranks ``stride`` apart (Megatron's tensor group: stride 1; its data
  group: stride TP). The model maps each group onto the fabric's tiers from these.
* **overlap**: when each collective runs against the compute. A pass (forward, then
  backward) is ``chunks`` layer groups, as the shadow workers split it; a collective is
  issued in one of these ways (:data:`MODES`):

  ``before``     once, before the step's compute (waited for by what follows on its lane)
  ``prefetch``   before each layer group of the ``passes`` named, issued ``ahead`` groups
                 early (0: when needed), waited for before the group computes
  ``backward``   after each backward layer group, waited for at the end of the step
  ``inline``     after each layer group of the ``passes`` named, waited for before the
                 next group computes (in the passes of ``lagged``: after the next one)
  ``after``      once, after the step's compute, waited for
  ``pipeline``   between pipeline neighbours, per micro-batch (see ``pipeline``)

  Collectives run one after another on their ``lane`` (a rank's communication thread,
  hosts/collectives/comm.py); lanes run at the same time.
* **pipeline**: stages, micro-batches and schedule of a pipelined strategy, whether its
  layers are balanced over stages by measured speed (Holmes, OP-Fence) or split evenly,
  whether it reorders its stages so the slowest links are avoided (OP-Fence), and the
  least fraction its boundary messages may be compressed to (AdaTopK); the layers per
  stage when the strategy's partition gives them (hosts/parallelism/partition.py).
* **host_s**: seconds per step spent off the device (ZeRO-Offload's transfers and CPU
  optimizer), from the host's CPU Adam rate per core.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

MODES = ("before", "prefetch", "backward", "inline", "after", "pipeline")
PASSES = ("forward", "backward")


@dataclass(frozen=True)
class Placement:
    """A group kind as ranks in launch order: ``size`` ranks, ``stride`` apart."""

    size: int
    stride: int = 1

    def groups(self, world: int) -> list[list[int]]:
        """Every group of the kind, each as its ranks."""
        span = self.size * self.stride
        return [[base + block + i * self.stride for i in range(self.size)]
                for block in range(0, world, span) for base in range(self.stride)
                if block + base < world]


@dataclass(frozen=True)
class Overlap:
    mode: str = "after"
    lane: str = "comm"
    passes: tuple[str, ...] = PASSES
    ahead: int = 1
    lagged: tuple[str, ...] = ()

    def __post_init__(self):
        if self.mode not in MODES:
            raise ValueError(f"overlap mode {self.mode!r}: modes are {', '.join(MODES)}")
        if not set(self.passes) <= set(PASSES):
            raise ValueError(f"passes {self.passes}: forward and/or backward")


@dataclass(frozen=True)
class Pipeline:
    stages: int
    micro_batches: int
    schedule: str = "1f1b"
    balanced: bool = False          # layers split to even out stage times
    reorder: bool = False           # stages ordered so the slowest links are skipped
    compress_to: float | None = None    # least kept fraction of a boundary message
    compress_all: bool = False      # every boundary kept at compress_to, fitted or not
    layers: tuple[int, ...] | None = None   # layers per stage when declared, else even


@dataclass(frozen=True)
class Timing:
    replicas: int
    groups: dict[str, Placement]
    overlap: Callable[[list], list[Overlap]]     # the pattern -> one Overlap each
    pipeline: Pipeline | None = None
    chunks: int = 8
    host_s: Callable[[float, int | None], float] | None = None
    # (CPU Adam parameters/s of one core, GPUs per host or None) -> seconds per step
    notes: tuple[str, ...] = field(default=())
    # gradient accumulation: the pattern -> whether each collective runs once per
    # micro-batch (ZeRO's gathers and reductions) or once per step (DDP's all-reduce,
    # in the last micro-batch; a "before" one in the first); None: every one per step
    per_micro_batch: Callable[[list], list[bool]] | None = None


def each(overlap: Overlap) -> Callable[[list], list[Overlap]]:
    """The same overlap for every collective of the pattern."""
    return lambda pattern: [overlap] * len(pattern)


def data_parallel(world: int, sizes: dict | None = None,
                  overlap: Callable[[list], list[Overlap]] | None = None, **more) -> Timing:
    """Every rank a replica; groups of the hierarchical tiers: ``gpu`` and ``node`` (sizes
    from ``sizes``, default one group of the world), ``inter-node`` (one rank per node)."""
    sizes = sizes or {}
    node = sizes.get("node", world)
    groups = {"world": Placement(world), "gpu": Placement(sizes.get("gpu", 1)),
              "node": Placement(node), "inter-node": Placement(max(1, world // node), node)}
    return Timing(world, groups, overlap or each(Overlap("after")), **more)


def default_timing(world: int, sizes: dict | None = None) -> Timing:
    """A strategy that declares nothing: data parallel, every collective after the
    compute."""
    return data_parallel(world, sizes)
