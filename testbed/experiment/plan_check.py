"""``trainet plan --check RESULTS``: the plan's predictions against a run's measurements.

Each strategy of the run's experiment (its layout in its options) is predicted on the
experiment's topology (testbed/experiment/plan.py) at the run's global batch (the
workload's batch per replica times the replicas) with the run's interference (the
compute slowdown its shadow workers slept while collectives overlapped it) and
recompute (the one its workers ran), and with a
measured bandwidth table when one is given, and set beside what summary.csv measured:
step time, exposed communication, their relative errors, and Spearman's rank correlation
between the predicted and the measured step times (1: the plan orders the layouts as the
testbed does).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hosts import devices, shadow
from hosts.strategies import registry
from testbed.errors import TrainetError
from testbed.experiment.plan import pipelined, predict, topology_fabric
from testbed.experiment.results import read_summary
from testbed.experiment.spec import load_experiment
from testbed.model.measured import attach, load as load_table


@dataclass(frozen=True)
class Check:
    label: str
    layout: str
    predicted_step_s: float
    measured_step_s: float
    predicted_exposed_s: float
    measured_exposed_s: float

    @property
    def error(self) -> float:
        return self.predicted_step_s / self.measured_step_s - 1


def layout_options(name: str, options: dict, world: int) -> dict:
    """A strategy's layout with every degree filled in, as the plan names them."""
    info = registry.get(name)
    layout = info.layout_of(world, info.parse_options(options))
    if pipelined(name, layout.options, world):
        raise TrainetError(f"strategy {name}: {layout.text} is a pipeline; the plan times "
                           "layouts without one")
    return layout.options


def spearman(a: list[float], b: list[float], names: tuple[str, str] = ("predicted",
                                                                   "measured")) -> float:
    """Spearman's rank correlation (ties take their mean rank). Undefined, and an error
    naming the side (``names``), when a side has fewer than two values or all of its
    values are equal: a constant prediction does not rank anything."""
    if len(a) != len(b):
        raise TrainetError(f"rank correlation of {len(a)} {names[0]} and {len(b)} "
                           f"{names[1]} values: they must pair up")
    for xs, name in zip((a, b), names):
        if len(set(xs)) < 2:
            raise TrainetError(f"rank correlation undefined: the {name} values "
                               f"({', '.join(f'{x:g}' for x in xs[:4])}"
                               f"{', ...' if len(xs) > 4 else ''}) have no spread")
    def ranks(xs):
        order = sorted(range(len(xs)), key=lambda i: xs[i])
        out = [0.0] * len(xs)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
                j += 1
            for k in range(i, j + 1):
                out[order[k]] = (i + j) / 2
            i = j + 1
        return out
    ra, rb = ranks(a), ranks(b)
    ma, mb = sum(ra) / len(ra), sum(rb) / len(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    var = (sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb)) ** 0.5
    return cov / var


def check(results: Path, mfu: float | None = shadow.DEFAULT_MFU, table=None) -> list[Check]:
    """Each run of ``results`` (strategies whose options choose a layout, without a
    pipeline) predicted and measured; with a bandwidth ``table``
    (testbed/model/measured.py) its placements' collectives are timed from it."""
    experiment = load_experiment(Path(results) / "experiment.yaml", recorded=True)
    workload = experiment.spec.workload
    if workload.mode != "shadow":
        raise TrainetError(f"{results}: a {workload.mode} run; the plan predicts shadow runs")
    model = shadow.shadow_model(workload.shadow_model)
    device = shadow.device(workload.device or devices.DEFAULT)
    world = len(experiment.workers)
    interference = shadow.DEFAULT_INTERFERENCE if workload.interference is None \
        else workload.interference          # the compute slowdown the workers slept
    fabric = attach(topology_fabric(experiment.topology), table).first(world)
    measured = {row["strategy"]: row for row in read_summary(results)
                if row["step_time_s"] is not None}
    out = []
    for s in experiment.strategies:
        if s.label not in measured:
            continue
        batch = experiment.batch_of(s)
        options = layout_options(s.info.name, batch.options, world)
        # the recompute its workers ran (testbed/experiment/runner.py gave it them)
        recompute = s.info.recompute_of(s.info.parse_options(batch.options),
                                        workload.recompute)
        if "recompute" in s.info.options.model_fields:
            options = {**options, "recompute": recompute}
        p = predict(fabric, model, s.info.name, options, batch.global_batch,
                    device, mfu if mfu is not None else workload.mfu, interference, recompute)
        row = measured[s.label]
        out.append(Check(s.label, p.layout, p.step_s, row["step_time_s"], p.exposed_s,
                         row["exposed_comm_s"] or 0.0))
    if not out:
        raise TrainetError(f"{results}: summary.csv has no measured run of its strategies")
    return out


def main(args) -> int:
    table = load_table(args.bandwidth_table)
    checks = check(Path(args.check), args.mfu, table)
    print(f"{'run':<22}{'layout':<12}{'predicted':>11}{'measured':>11}{'error':>8}"
          f"{'exp. pred.':>12}{'exp. meas.':>12}")
    for c in sorted(checks, key=lambda c: c.measured_step_s):
        print(f"{c.label:<22}{c.layout:<12}{c.predicted_step_s * 1e3:>9.1f}ms"
              f"{c.measured_step_s * 1e3:>9.1f}ms{c.error:>+8.0%}"
              f"{c.predicted_exposed_s * 1e3:>10.1f}ms{c.measured_exposed_s * 1e3:>10.1f}ms")
    rho = spearman([c.predicted_step_s for c in checks], [c.measured_step_s for c in checks])
    mean = sum(abs(c.error) for c in checks) / len(checks)
    print(f"Spearman rank correlation {rho:.2f}; mean |error| {mean:.1%} over "
          f"{len(checks)} layouts")
    if table is not None and table.note():
        print(table.note())
    return 0
