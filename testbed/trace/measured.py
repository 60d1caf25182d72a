"""Traces of a ``trainet run``: what each worker did, from the timelines its step
records hold (hosts/collectives/comm.py records them, hosts/worker.py writes them).

A rank's training thread alternates between working and waiting for a communication
result. Its phases, step after step (the warm-up step left out, as in the summaries):

* **compute**: the time between two events of the training thread (a submission of an
  operation, the start or the end of a wait), with its measured duration; it follows
  the previous compute and the operations the last wait returned;
* **an operation** (collective, send or receive): submitted during the compute before
  it, and run on its lane's thread after the lane's previous operation; its duration
  is the measured time it ran, not the time it queued.

So the sum of a step's compute durations is the step's time less the time the training
thread waited, and a simulator replaying the trace overlaps communication with compute
exactly where the worker did. Payloads are nominal: in shadow mode, the emulated bytes
over the co-scaling factor.
"""
from __future__ import annotations

from pathlib import Path

from testbed.errors import TrainetError
from testbed.experiment import results
from testbed.trace import chakra
from testbed.trace.phases import TRANSFERS, Phase, collective, compute, transfer

NEGLIGIBLE_S = 1e-6      # gaps shorter than the traces' microsecond are not phases


class _Rank:
    """The phases of one rank, built step by step."""

    def __init__(self, rank: int, scale: float):
        self.rank, self.scale = rank, scale
        self.phases: list[Phase] = []
        self.last: int | None = None      # the training thread's last phase
        self.pending: list[int] = []      # operations the next compute waited for
        self.lanes: dict[str, int] = {}   # lane -> its last operation
        self.offset = 0.0                 # the step's start, from the first step's

    def step(self, record: dict, where: str) -> None:
        timeline = record.get("timeline")
        if timeline is None:
            raise TrainetError(f"{where}: step {record.get('step')} has no timeline (the "
                               "worker predates per-operation recording); run the "
                               "experiment again to trace it")
        ops, step_s = timeline["ops"], record["step_s"]
        events = sorted([(op["submit_s"], 0, i) for i, op in enumerate(ops)] +
                        [(w["start_s"], 1, w) for w in timeline["waits"]],
                        key=lambda e: (e[0], e[1]))
        phase_of: dict[int, int] = {}
        cursor = 0.0
        for t, is_wait, item in events:
            self._compute(cursor, t)
            cursor = max(cursor, t)
            if is_wait:
                cursor = max(cursor, item["end_s"])
                if item["op"] is not None and item["op"] in phase_of:
                    self.pending.append(phase_of[item["op"]])
            else:
                phase_of[item] = self._operation(ops[item], step_s)
        self._compute(cursor, step_s)
        self.offset += step_s

    def _compute(self, start: float, end: float) -> None:
        if end - start < NEGLIGIBLE_S:
            return
        after = ([self.last] if self.last is not None else []) + self.pending
        self.phases.append(compute(end - start, sorted(set(after)),
                                   start_s=self.offset + start))
        self.last, self.pending = len(self.phases) - 1, []

    def _operation(self, op: dict, step_s: float) -> int:
        after = [i for i in (self.last, self.lanes.get(op["lane"])) if i is not None]
        start = op.get("start_s", op["submit_s"])
        duration = op.get("end_s", step_s) - start
        nbytes = op["bytes"] / self.scale
        if op["op"] in TRANSFERS:
            phase = transfer(op["op"], self.rank, op["peer"], nbytes, duration,
                             sorted(set(after)), self.offset + start, lane=op["lane"])
        else:
            phase = collective(op["op"], op["group"], nbytes, duration, sorted(set(after)),
                               op.get("route", "ring"), self.offset + start,
                               name=f"{op['op']} {op['lane']}", lane=op["lane"])
        self.phases.append(phase)
        self.lanes[op["lane"]] = len(self.phases) - 1
        return len(self.phases) - 1


def rank_phases(rank: int, records: list[dict], scale: float, where: str) -> list[Phase]:
    """The phases of one rank over its measured steps."""
    built = _Rank(rank, scale)
    for record in results.measured_steps(records):
        built.step(record, where)
    return built.phases


def export(root: Path, out_dir: Path) -> list[chakra.Written]:
    """One trace per run of the results directory ``root``: ``OUT/VARIANT/STRATEGY-repR``."""
    root = Path(root)
    config = results.read_config(root)
    mode = config.get("experiment", {}).get("workload", {}).get("mode", "real")
    scale = config.get("scale", 1.0) if mode == "shadow" else 1.0
    written = []
    for variant in config.get("variants", []):
        for strategy in config.get("strategies", []):
            runs = sorted((root / "runs" / variant["name"] / strategy).glob("rep*"))
            for run in runs:
                per_rank = results.read_metrics(run)
                if not per_rank:
                    continue
                ranks = {r: rank_phases(r, recs, scale, f"{run}: rank {r}")
                         for r, recs in per_rank.items()}
                metadata = {"source": "trainet run", "results": str(root),
                            "variant": variant["name"], "strategy": strategy,
                            "repetition": run.name, "mode": mode, "scale": float(scale),
                            "time_units": "nominal" if mode == "shadow" else "wall-clock"}
                written.append(chakra.write(Path(out_dir) / variant["name"],
                                            f"{strategy}-{run.name}", ranks,
                                            max(per_rank) + 1, metadata))
    if not written:
        raise TrainetError(f"{root}: no step records under runs/ (no run of this "
                           "experiment finished a step); trace a results directory of "
                           "a run that did")
    return written
