"""Traces of a step at any scale, from the analytical model's prediction
(testbed/model: ``predict`` -> ``StepPrediction``): every rank's phases are the events of
the role it plays, so the trace holds the compute in layer groups and the collectives
running beside it as the model overlaps them.

* a compute event is a compute phase of the event's duration;
* a collective is one over the rank's group of the event's kind and size
  (``StepPrediction.group_ranks``), with the event's payload (``nbytes``);
* a pipeline transfer (``send`` or ``recv``) goes to or comes from the rank at the same
  place in the ``peer`` stage's block of ranks, the pairs testbed/model/stages.py times;
* ``after`` is carried over as the phases' dependencies.

Start times and durations are the model's, in nominal seconds. What the model adds to
the step beside its events (compute slowed by the collectives it overlaps, an offloaded
optimizer's host time) is in the metadata, with the predicted step time.
"""
from __future__ import annotations

from testbed.model.prediction import StepPrediction
from testbed.model.step import Workload
from testbed.trace.phases import TRANSFERS, Group, Phase, collective, compute, transfer


def phases(prediction: StepPrediction) -> dict[int, list[Phase]]:
    """Every rank's phases of the predicted step."""
    stages = {role.stage: prediction.members(role) for role in prediction.roles}
    groups: dict[tuple, tuple[int, ...]] = {}  # (kind, size, rank) -> its group, built once
    ranks = {}
    for role in prediction.roles:
        for place, rank in enumerate(stages[role.stage]):
            out = []
            for e in role.events:
                if e.kind == "compute":
                    out.append(compute(e.duration_s, e.after, e.name, e.start_s))
                elif e.op in TRANSFERS:
                    out.append(transfer(e.op, rank, stages[e.peer][place], e.nbytes,
                                        e.duration_s, e.after, e.start_s, e.name, e.lane))
                else:
                    key = (e.group, e.group_size, rank)
                    if key not in groups:
                        group = Group(prediction.group_ranks(e.group, rank, e.group_size))
                        groups.update(((e.group, e.group_size, r), group) for r in group)
                    out.append(collective(e.op, groups[key], e.nbytes, e.duration_s,
                                          e.after, e.route, e.start_s, e.name, e.lane))
            ranks[rank] = out
    return ranks


def metadata(prediction: StepPrediction, workload: Workload) -> dict:
    """What the trace stands for, as GlobalMetadata attributes."""
    p = prediction
    return {"source": "trainet analytical model (testbed/model)", "model": p.model,
            "params": float(workload.model.params), "seq": workload.model.seq,
            "strategy": p.strategy, "layout": p.layout,
            "options": " ".join(f"{k}={v}" for k, v in p.options.items()) or "none",
            "gpus": p.world, "batch_sequences": p.global_batch, "device": p.device,
            "mfu": workload.mfu, "fabric": p.fabric, "calibration": p.calibration,
            "step_s": p.step_s, "interference_s": p.interference_s, "host_s": p.host_s,
            "schedule": "the model's step: compute in layer groups, collectives "
                        "overlapped as the strategy declares",
            "time_units": "nominal"}
