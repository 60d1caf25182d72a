"""What the model predicts for one step: :class:`StepPrediction`, and per rank role the
ordered compute phases and collectives (:class:`Role`, :class:`Event`).

The structure is stable: other tools (execution traces, plots, JSON output) read it.

* ``StepPrediction.roles``: one :class:`Role` per kind of rank whose step differs (every
  rank of a data-parallel strategy plays the same role; a pipeline has one role per
  stage), each with ``ranks`` (how many ranks play it) and ``events``;
* :class:`Event`: ``kind`` ``"compute"`` or ``"collective"``, ``name``, ``phase``
  (``forward``, ``backward`` or ``step``), ``start_s`` and ``duration_s`` from the start
  of the step; collectives also carry ``op``, ``group`` (the kind, as in
  hosts/strategies/pattern.py), ``group_size``, ``nbytes`` (this instance's payload),
  ``route`` (ring, switch, server), ``algorithm`` (ring, tree, hierarchical, p2p,
  switch, server), ``tier`` (the fabric tier or link profile that limits it), ``lane``
  (the rank's communication thread it runs on: collectives of a lane run one after
  another) and ``exposed_s`` (how long the rank's compute waited for it). Pipeline
  transfers are ``op`` ``send`` or ``recv`` with the ``peer`` stage.

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

    @property
    def end_s(self) -> float:
        return self.start_s + self.duration_s


@dataclass(frozen=True)
class Role:
    name: str
    ranks: int
    step_s: float
    events: tuple[Event, ...]

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

    @property
    def fits(self) -> bool:
        return not self.memory_capacity_B or self.memory_per_gpu_B <= self.memory_capacity_B

    def as_dict(self, events: bool = False) -> dict:
        out = asdict(self)
        out["fits"] = self.fits
        if not events:
            out.pop("roles")
        return out
