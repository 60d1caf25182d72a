"""What the model predicts for one step: :class:`StepPrediction`, and per rank role the
ordered compute phases and collectives (:class:`Role`, :class:`Event`).

The structure is stable: other tools (execution traces, plots, JSON output) read it.

* ``StepPrediction.roles``: one :class:`Role` per kind of rank whose step differs (every
  rank of a data-parallel strategy plays the same role; a pipeline has one role per
  stage), each with ``ranks`` (how many ranks play it), ``members`` (which:
  :meth:`StepPrediction.members`), ``events`` and its pipeline ``bubble_s`` (the time it
  waited for its neighbours, spread over its passes' starts) with the ``bubble_tier``
  that caused it;
* ``StepPrediction.placement``: each group kind as (size, stride) in rank order
  (:meth:`StepPrediction.group_ranks` gives a rank's group), ``stage_order`` the
  pipeline's stages in rank-block order (a reordering strategy runs stage ``s`` on block
  ``stage_order[s]``);
* :class:`Event`: ``kind`` ``"compute"`` or ``"collective"``, ``name``, ``phase``
  (``forward``, ``backward`` or ``step``), ``start_s`` and ``duration_s`` from the start
  of the step; collectives also carry ``op``, ``group`` (the kind, as in
  hosts/collectives/pattern.py), ``group_size``, ``nbytes`` (this instance's payload),
  ``route`` (ring, switch, server), ``algorithm`` (ring, tree, hierarchical, p2p,
  switch, server), ``tier`` (the fabric tier or link profile that limits it), ``lane``
  (the rank's communication thread it runs on: collectives of a lane run one after
  another) and ``exposed_s`` (how long the rank's compute waited for it). Pipeline
  transfers are ``op`` ``send`` or ``recv`` with the ``peer`` stage. ``after`` lists the
  events (indices into the same role's events) this one cannot start before.

Events are listed by start time; compute events never overlap each other, collectives
of one lane never overlap each other.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass(frozen=True)
class Event:
    kind: str
    name: str
    phase: str
    start_s: float
    duration_s: float
    op: str = ""
    group: str = ""
    group_size: int = 0
    nbytes: float = 0.0
    route: str = ""
    algorithm: str = ""
    tier: str = ""
    lane: str = ""
    exposed_s: float = 0.0
    peer: int | None = None
    after: tuple[int, ...] = ()

    @property
    def end_s(self) -> float:
        return self.start_s + self.duration_s


@dataclass(frozen=True)
class Role:
    name: str
    ranks: int
    step_s: float
    events: tuple[Event, ...]
    stage: int | None = None            # pipeline stage, None: every rank
    bubble_s: float = 0.0
    bubble_tier: str = ""

    def collectives(self) -> list[Event]:
        return [e for e in self.events if e.kind == "collective"]

    def compute(self) -> list[Event]:
        return [e for e in self.events if e.kind == "compute"]


@dataclass(frozen=True)
class StepPrediction:
    strategy: str
    label: str
    layout: str
    options: dict
    model: str
    device: str
    fabric: str
    calibration: str
    world: int
    global_batch: int               # sequences per step, all replicas
    replicas: int
    step_s: float
    compute_s: float
    exposed_s: float                # waiting for collectives, bubbles included
    bubble_s: float                 # waiting for pipeline neighbours
    interference_s: float
    host_s: float                   # offloaded optimizer: host link, NVMe, CPU
    comm_s: float                   # some collective running
    exposed_by_tier: dict[str, float]
    tflops_per_gpu: float
    memory_per_gpu_B: float
    memory_capacity_B: float
    memory_verdict: str
    roles: tuple[Role, ...] = field(default=())
    placement: dict[str, tuple[int, int]] = field(default_factory=dict)
    stage_order: tuple[int, ...] = ()

    def group_ranks(self, kind: str, rank: int, size: int | None = None) -> list[int]:
        """The ranks of ``rank``'s group of ``kind`` (a group kind of the placement);
        with ``size`` (an event's ``group_size``), its group of that many ranks at the
        kind's stride, as the model times a collective that gives its own size."""
        kind_size, stride = self.placement.get(kind, (self.world, 1))
        size = size or kind_size
        span = size * stride
        base = rank // span * span + rank % stride
        return [base + i * stride for i in range(size)]

    def members(self, role: Role) -> list[int]:
        """The ranks that play ``role``."""
        if role.stage is None:
            return list(range(self.world))
        block = self.stage_order[role.stage] if self.stage_order else role.stage
        return list(range(block * role.ranks, (block + 1) * role.ranks))

    @property
    def fits(self) -> bool:
        return not self.memory_capacity_B or self.memory_per_gpu_B <= self.memory_capacity_B

    def as_dict(self, events: bool = False) -> dict:
        out = asdict(self)
        out["fits"] = self.fits
        if not events:
            out.pop("roles")
        return out
