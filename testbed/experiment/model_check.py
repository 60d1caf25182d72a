"""The analytical model against the testbed: ``trainet model calibrate`` and ``trainet
model validate``.

Every measured shadow-mode run of a results directory (a variant x strategy row of
summary.csv, from the ranks' per-step records) becomes a *sample*: the strategy, its
options, the workload, and the variant's resolved topology as the fabric (the workers in
launch order). The model predicts each sample's step (testbed/model/step.py) with the
run's own interference factor and measured CPU optimizer rate.

Calibration fits, by coordinate search on a log scale whose steps halve (in log) after a
round that gains nothing, so it settles on the optimum rather than on the grid of its
first steps, each collective's efficiency (per operation and route) and, per link
profile, a latency per ring step and a bandwidth factor, to minimise the squared
relative errors of the predicted step time (and, weighted by a quarter, of the
communication time, which tells latency from bandwidth) over the samples. Efficiencies
and bandwidth factors stay within [0.5, 1] and added latencies within [0, 10 ms]; a
profile's bandwidth factor is also held near 1 (a penalty on its logarithm) so that what
every profile shares goes to the collectives. A collective the runs did not have takes
its route's mean efficiency (``*/route``).

Validation reports each run's error on the step time and on the exposed communication
(the step minus its compute and interference: what the network costs the step, as the
workers measure it and as the model predicts it). A validation split (``trainet model
validate --split FILE``, e.g. validation/split.yaml) declares which results directories
calibrate and which are held out, and the calibration fitted on the first; ``validate``
re-fits it from them, checks it is the declared one, and reports the two sets apart.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path

from hosts import devices, shadow
from hosts.strategies import registry
from testbed.errors import TrainetError
from testbed.experiment.batch import recorded_replica_batch
from testbed.experiment.results import read_config, read_summary
from testbed.experiment.wire import variant_links
from testbed.model import fabric as fabrics
from testbed.model.calibration import DEFAULT, FILE, Calibration
from testbed.model.step import Workload, predict

FACTORS = (0.5, 0.7, 0.85, 0.93, 0.97, 1.03, 1.07, 1.18, 1.4, 2.0)
LATENCIES = (1e-5, 1e-4, 3e-4, 1e-3, 3e-3)     # first tries of a latency not yet added
ROUNDS = 40                 # at most; see fit() for when the search stops
REFINEMENTS = 5             # times the steps shrink (in log) after a round that gains nothing
BANDWIDTH_PENALTY = 0.5
COMM_WEIGHT = 0.25          # the step time is what is predicted; comm_s keeps terms apart


@dataclass(frozen=True)
class Sample:
    results: str
    experiment: str
    variant: str
    label: str
    strategy: str
    options: dict
    workload: Workload
    fabric: object
    world: int
    measured_step_s: float
    measured_comm_s: float
    measured_exposed_s: float
    interference: float | None
    cpu_rate: float | None


def samples(results_dirs: list[str]) -> list[Sample]:
    out = []
    for d in results_dirs:
        out += _samples_of(Path(d))
    if not out:
        raise TrainetError(f"{', '.join(results_dirs)}: no measured shadow-mode run; give "
                           "results directories of `trainet run` whose runs completed")
    return out


def _samples_of(root: Path) -> list[Sample]:
    config = read_config(root)
    spec = config.get("experiment")
    if not isinstance(spec, dict) or not isinstance(spec.get("workload"), dict):
        raise TrainetError(f"{root}: config.yaml has no experiment with a workload; give a "
                           "results directory of `trainet run`")
    w = spec["workload"]
    if w.get("mode") != "shadow":
        raise TrainetError(f"{root}: a {w.get('mode')}-mode run (its compute is this "
                           "machine's); the model predicts shadow-mode runs, whose compute "
                           "is the device model")
    model = shadow.shadow_model(w.get("shadow_model") or "gpt-1.3b")
    device = shadow.device(w.get("device") or devices.DEFAULT)
    strategies = {s.get("label") or s["strategy"]: s for s in spec["strategies"]}
    rows = [r for r in read_summary(root) if r.get("step_time_s") is not None]
    if not rows:
        raise TrainetError(f"{root}: summary.csv and the per-step records hold no measured "
                           "step (step_s); the run did not complete a step")
    out, fabric_of = [], {}
    for row in rows:
        if row.get("comm_s") is None:
            raise TrainetError(f"{root}: run {row['variant']}/{row['strategy']} has no "
                               "comm_s in its records; calibration needs the workers' "
                               "per-step comm_s (hosts.worker writes it)")
        variant = row["variant"]
        if variant not in fabric_of:
            path = root / "variants" / variant / "topology.yaml"
            if not path.exists():
                raise TrainetError(f"{path}: missing; calibration needs each variant's "
                                   "resolved topology, which `trainet run` writes")
            fabric_of[variant] = _fabric(variant_links(path), config["workers"])
        s = strategies[row["strategy"]]
        world = int(row["workers"])
        replicas = int(row.get("replicas") or world)
        # the replay times what the shadow workers slept (hosts/shadow.py): the recompute
        # the runner gave them (none where it gave none), and no optimizer step
        recompute = (config.get("worker_args") or {}).get(row["strategy"], {}).get(
            "recompute", "none")
        options = dict(s.get("options") or {})
        if "recompute" in registry.get(s["strategy"]).options.model_fields:
            options["recompute"] = recompute
        workload = Workload(model, device, recorded_replica_batch(w, replicas) * replicas,
                            mfu=w.get("mfu"),
                            gpus_per_host=w.get("gpus_per_node", w.get("gpus_per_host")),
                            recompute=recompute, optimizer_step=False)
        out.append(Sample(str(root), spec["name"], variant, row["strategy"], s["strategy"],
                          options, workload, fabric_of[variant].first(world),
                          world, row["step_time_s"], row["comm_s"],
                          row.get("exposed_comm_s") or 0.0, w.get("interference"),
                          config.get("cpu_adam_params_per_s_per_core")))
    return out


def _fabric(topology, workers: list[str]):
    """The variant's fabric with its workers in launch order (a node sweep launches every
    worker of each variant's topology, in its order)."""
    fabric = fabrics.topology_fabric(topology)
    if sorted(workers) != sorted(fabric.gpus):
        return fabric
    order = [fabric.gpus.index(h) for h in workers]
    fabric.gpus = tuple(fabric.gpus[i] for i in order)
    fabric.labels = {k: [v[i] for i in order] for k, v in fabric.labels.items()}
    fabric.max_ranks = len(fabric.gpus)
    return fabric


def predicted(sample: Sample, calibration: Calibration):
    c = calibration
    if sample.interference is not None:
        c = replace(c, interference=sample.interference)
    if sample.cpu_rate:
        c = replace(c, cpu_adam_rate=sample.cpu_rate)
    return predict(sample.strategy, sample.workload, sample.fabric, sample.world,
                   sample.options, c, label=sample.label)


def _loss(items: list[Sample], calibration: Calibration) -> float:
    total = 0.0
    for s in items:
        p = predicted(s, calibration)
        total += (p.step_s / s.measured_step_s - 1) ** 2
        if s.measured_comm_s > 0:
            total += COMM_WEIGHT * (p.comm_s / s.measured_comm_s - 1) ** 2
    total += BANDWIDTH_PENALTY * sum(math.log(f) ** 2 for f in calibration.bandwidth.values())
    return total


def _keys(items: list[Sample]) -> tuple[set, set]:
    """The collectives ("op/route") and link profiles the samples use."""
    collectives, profiles = set(), set()
    for s in items:
        for role in predicted(s, DEFAULT).roles:
            for e in role.collectives():
                op = "send-recv" if e.op in ("send", "recv") else e.op
                collectives.add(f"{op}/{e.route or 'ring'}")
                profiles.add(e.tier)
    return collectives, profiles


def _with(calibration: Calibration, where: str, key: str, value: float) -> Calibration:
    table = dict(getattr(calibration, where))
    table[key] = value
    return replace(calibration, **{where: table})


def fit(items: list[Sample], name: str) -> Calibration:
    collectives, profiles = _keys(items)
    best = Calibration(name=name, collectives={k: 1.0 for k in sorted(collectives)},
                       bandwidth={p: 1.0 for p in sorted(profiles)},
                       latency_s={p: 0.0 for p in sorted(profiles)},
                       sources=sorted({s.results for s in items}))
    before = loss = _loss(items, best)
    step, refined = 1.0, 0          # FACTORS ** step: a round that gains nothing halves it
    for _ in range(ROUNDS):
        start = loss
        factors = [f ** step for f in FACTORS]
        for candidate in [best.hop_latency_s * f for f in factors] if best.hop_latency_s \
                else LATENCIES:
            trial = replace(best, hop_latency_s=_bounded("hop", candidate))
            trial_loss = _loss(items, trial)
            if trial_loss < loss:
                best, loss = trial, trial_loss
        for where in ("collectives", "latency_s", "bandwidth"):
            for key in list(getattr(best, where)):
                value = getattr(best, where)[key]
                steps = [value * f for f in factors] if value else LATENCIES
                for candidate in steps:
                    trial = _with(best, where, key, _bounded(where, candidate))
                    trial_loss = _loss(items, trial)
                    if trial_loss < loss:
                        best, loss = trial, trial_loss
        if loss > 0.999 * start:
            if refined == REFINEMENTS:
                break
            step, refined = step / 2, refined + 1
    best = replace(best, collectives={**best.collectives, **_route_means(best.collectives)})
    errors = [predicted(s, best).step_s / s.measured_step_s - 1 for s in items]
    return replace(best, fit={"samples": len(items), "loss_before": before,
                              "loss_after": loss,
                              "mean_abs_step_error": sum(map(abs, errors)) / len(errors)})


def _route_means(collectives: dict) -> dict:
    """``*/route``: the mean efficiency of the route's fitted collectives, for the ones
    the runs did not have."""
    by_route: dict = {}
    for key, value in collectives.items():
        by_route.setdefault(key.split("/")[1], []).append(value)
    return {f"*/{r}": sum(v) / len(v) for r, v in by_route.items()}


def _bounded(where: str, value: float) -> float:
    """Efficiencies and bandwidth factors in [0.5, 1] (a link carries at least half its
    rate and never more), added latencies in [0, 10 ms]."""
    if where in ("collectives", "bandwidth"):
        return min(1.0, max(0.5, value))
    return min(10e-3, max(0.0, value))


@dataclass(frozen=True)
class Check:
    sample: Sample
    uncalibrated_s: float
    calibrated_s: float
    exposed_s: float = 0.0          # calibrated prediction's exposed communication

    @property
    def exposed_error_s(self) -> float:
        """Predicted minus measured exposed communication, seconds."""
        return self.exposed_s - self.sample.measured_exposed_s

    @property
    def error(self) -> float:
        return self.calibrated_s / self.sample.measured_step_s - 1

    @property
    def uncalibrated_error(self) -> float:
        return self.uncalibrated_s / self.sample.measured_step_s - 1


def validate(items: list[Sample], calibration: Calibration) -> list[Check]:
    out = []
    for s in items:
        p = predicted(s, calibration)
        out.append(Check(s, predicted(s, DEFAULT).step_s, p.step_s, p.exposed_s))
    return out


@dataclass(frozen=True)
class Split:
    """Results directories that calibrate and that are held out, and the calibration
    fitted on the first (paths relative to the split file)."""

    source: Path
    calibrate: list[Path]
    held_out: list[Path]
    calibration: Path


def load_split(path: str | Path) -> Split:
    import yaml
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as e:
        raise TrainetError(f"{path}: cannot read the validation split: {e}") from None
    if not isinstance(data, dict):
        raise TrainetError(f"{path}: a split is a mapping with calibrate, held_out and "
                           "calibration")
    lists = {}
    for key in ("calibrate", "held_out"):
        value = data.get(key)
        if not isinstance(value, list) or not value or not all(isinstance(v, str)
                                                               for v in value):
            raise TrainetError(f"{path}: field {key}: give a list of results directories "
                               "(relative to the file)")
        lists[key] = [path.parent / v for v in value]
        for d in lists[key]:
            if not (d / "summary.csv").exists():
                raise TrainetError(f"{path}: field {key}: {d} has no summary.csv")
    both = set(lists["calibrate"]) & set(lists["held_out"])
    if both:
        raise TrainetError(f"{path}: {', '.join(map(str, sorted(both)))} both calibrates "
                           "and is held out; a run is in one set only")
    if not isinstance(data.get("calibration"), str):
        raise TrainetError(f"{path}: field calibration: give the calibration file fitted "
                           "on the calibrate set (relative to the file)")
    return Split(path, lists["calibrate"], lists["held_out"], path.parent / data["calibration"])


def _print_checks(checks: list[Check]) -> None:
    print(f"{'experiment':<22}{'variant':<22}{'run':<16}{'measured':>10}{'model':>10}"
          f"{'error':>8}{'calibrated':>12}{'error':>8}{'exposed: meas.':>16}{'model':>9}")
    for c in checks:
        s = c.sample
        print(f"{s.experiment[:21]:<22}{s.variant[:21]:<22}{s.label[:15]:<16}"
              f"{s.measured_step_s:>9.3f}s{c.uncalibrated_s:>9.3f}s"
              f"{c.uncalibrated_error:>+8.1%}{c.calibrated_s:>11.3f}s{c.error:>+8.1%}"
              f"{s.measured_exposed_s:>15.3f}s{c.exposed_s:>8.3f}s")


def summary(checks: list[Check]) -> str:
    mean = sum(abs(c.error) for c in checks) / len(checks)
    raw = sum(abs(c.uncalibrated_error) for c in checks) / len(checks)
    within = sum(abs(c.error) <= 0.10 for c in checks)
    exposed = sum(abs(c.exposed_error_s) for c in checks) / len(checks)
    measured = sum(c.sample.measured_exposed_s for c in checks) / len(checks)
    return (f"step time mean |error| {mean:.1%} (uncalibrated "
            f"{raw:.1%}), {within} within 10%; exposed communication mean |error| "
            f"{exposed * 1e3:.1f} ms of a mean {measured * 1e3:.1f} ms measured")


def split_main(args) -> int:
    from testbed.model.calibration import load
    split = load_split(args.split)
    declared = load(str(split.calibration))
    refit = fit(samples([str(d) for d in split.calibrate]), declared.name)
    same = _same(refit, declared)
    print(f"{split.source}: calibration {split.calibration} re-fitted from "
          f"{len(split.calibrate)} results directories: "
          + ("the same" if same else "DIFFERENT from the declared one"))
    for role, dirs in (("calibrate", split.calibrate), ("held out", split.held_out)):
        checks = validate(samples([str(d) for d in dirs]), declared)
        print(f"\n{role}:")
        _print_checks(checks)
        print(f"{role}: {len(checks)} runs; {summary(checks)}")
    return 0 if same else 1


def _same(a: Calibration, b: Calibration, rel: float = 1e-6) -> bool:
    def close(x, y):
        return abs(x - y) <= rel * max(abs(x), abs(y), 1e-12)
    tables = ("collectives", "latency_s", "bandwidth")
    return close(a.hop_latency_s, b.hop_latency_s) and all(
        getattr(a, t).keys() == getattr(b, t).keys()
        and all(close(getattr(a, t)[k], getattr(b, t)[k]) for k in getattr(a, t))
        for t in tables)


def calibrate_main(args) -> int:
    from testbed.model.calibration import store
    items = samples(args.results)
    print(f"calibrating on {len(items)} measured runs from {len(args.results)} results "
          "directories ...", flush=True)
    name = args.name or Path(args.results[0]).resolve().name
    calibration = fit(items, name)
    paths = [calibration.save(Path(d) / FILE) for d in args.results]
    if args.name:
        paths.append(calibration.save(store() / f"{args.name}.json"))
    print(f"latency per switch traversed {calibration.hop_latency_s * 1e6:.0f} us")
    print("collective efficiencies: " + ", ".join(f"{k} {v:.2f}" for k, v in
                                                  calibration.collectives.items()))
    print("per profile: " + ", ".join(
        f"{p} latency +{calibration.latency_s[p] * 1e6:.0f} us/step, bandwidth x"
        f"{calibration.bandwidth[p]:.2f}" for p in calibration.latency_s))
    print(f"mean |step error| {calibration.fit['mean_abs_step_error']:.1%} over "
          f"{calibration.fit['samples']} runs; written to {', '.join(map(str, paths))}")
    return 0


def validate_main(args) -> int:
    if getattr(args, "split", None):
        if args.results:
            raise TrainetError("trainet model validate: give RESULTS_DIR... or --split FILE, "
                               "not both")
        return split_main(args)
    if not args.results:
        raise TrainetError("trainet model validate: give RESULTS_DIR... or --split FILE")
    from testbed.experiment.plan_check import spearman
    from testbed.model.calibration import load
    from testbed.model.measured import attach, load as load_table
    calibration = load(args.calibration)
    table = load_table(args.bandwidth_table)
    items = [replace(s, fabric=attach(s.fabric, table)) for s in samples(args.results)]
    checks = validate(items, calibration)
    if getattr(args, "json", False):
        import json
        print(json.dumps({"calibration": calibration.name,
                          "bandwidth_table": table.source if table else None,
                          "runs": [{"results": c.sample.results,
                                    "experiment": c.sample.experiment,
                                    "variant": c.sample.variant, "run": c.sample.label,
                                    "measured_step_s": c.sample.measured_step_s,
                                    "uncalibrated_step_s": c.uncalibrated_s,
                                    "uncalibrated_error": c.uncalibrated_error,
                                    "calibrated_step_s": c.calibrated_s, "error": c.error,
                                    "measured_exposed_s": c.sample.measured_exposed_s,
                                    "exposed_s": c.exposed_s}
                                   for c in checks]}, indent=1))
        return 0
    _print_checks(checks)
    measured = [c.sample.measured_step_s for c in checks]
    rho = spearman([c.calibrated_s for c in checks], measured)
    rho_raw = spearman([c.uncalibrated_s for c in checks], measured)
    with_table = f" and bandwidth table {table.source}" if table else ""
    print(f"{len(checks)} runs; calibration {calibration.name}{with_table}: "
          f"{summary(checks)}; Spearman rank correlation {rho:.2f} (uncalibrated "
          f"{rho_raw:.2f})")
    if table is not None and table.note():
        print(table.note())
    return 0
