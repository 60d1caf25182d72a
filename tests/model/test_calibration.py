"""``trainet model calibrate`` and ``validate`` on a recorded results directory (the demo:
DDP and ZeRO-3, shadow GPT-1.3B on 3 workers at 100 and 200 Gb/s), and the fit's
recovery of the terms synthetic runs were generated from."""
import csv
import json
import random
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from hosts import shadow
from testbed import cli
from testbed.experiment import model_check
from testbed.model.calibration import DEFAULT, load

RECORDED = Path(__file__).parent / "fixtures" / "demo-results"


@pytest.fixture
def results(tmp_path):
    return Path(shutil.copytree(RECORDED, tmp_path / "demo"))


def _rewrite_summary(results: Path, truth) -> None:
    """The recorded runs' step and communication times as ``truth`` would have them."""
    samples = {(s.variant, s.label): s for s in model_check.samples([str(results)])}
    path = results / "summary.csv"
    with path.open() as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        p = model_check.predicted(samples[row["variant"], row["strategy"]], truth)
        row["step_time_s"], row["comm_s"] = p.step_s, p.comm_s
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


TRUTH = replace(DEFAULT, collectives={"all-reduce/ring": 0.75, "all-gather/ring": 0.7,
                                      "reduce-scatter/ring": 0.8},
                latency_s={"roce-100g": 2e-4})


def synthetic_runs(truth, noise: float = 0.0, seed: int = 5) -> list:
    """The demo's four runs (DDP and ZeRO-3 at 100 and 200 Gb/s), each also with a
    model of 2e8 parameters (so latency and bandwidth scale apart), their measured step
    and communication times those ``truth`` predicts, each times 1 + a uniform draw in
    [-noise, noise]."""
    rng = random.Random(seed)
    out = []
    for name in ("gpt-1.3b", "custom:2e8"):
        model = shadow.shadow_model(name)
        for s in model_check.samples([str(RECORDED)]):
            s = replace(s, workload=replace(s.workload, model=model))
            p = model_check.predicted(s, truth)
            out.append(replace(s, measured_step_s=p.step_s * (1 + rng.uniform(-noise, noise)),
                               measured_comm_s=p.comm_s * (1 + rng.uniform(-noise, noise))))
    return out


def identifiable(calibration, runs) -> dict:
    """What these runs can tell apart. A profile's bandwidth factor multiplies every
    collective's efficiency on it, so only their products are seen; ZeRO-3 always
    gathers twice per reduce-scatter of the same bytes, so its all-gather and
    reduce-scatter efficiencies are seen as one, 3 / (2 / e_ag + 1 / e_rs); the
    per-profile latency and the per-switch latency add on the star's one-switch rings."""
    c, bw = calibration.efficiency, calibration.bandwidth.get("roce-100g", 1.0)
    hops = runs[0].fabric.group_bandwidth([list(range(runs[0].world))])[3]
    return {"ddp all-reduce": c("all-reduce", "ring") * bw,
            "zero3 gather/scatter": 3 / (2 / c("all-gather", "ring")
                                         + 1 / c("reduce-scatter", "ring")) * bw,
            "latency per ring step": calibration.latency_s.get("roce-100g", 0.0)
            + hops * calibration.hop_latency_s}


@pytest.mark.slow
def test_calibration_recovers_the_terms_runs_were_generated_from():
    """Runs the model represents exactly: every identifiable term within 5 %."""
    runs = synthetic_runs(TRUTH)
    fitted = model_check.fit(runs, "synthetic")
    want, got = identifiable(TRUTH, runs), identifiable(fitted, runs)
    print("\n" + "; ".join(f"{k} {got[k]:.4g} (truth {want[k]:.4g})" for k in want))
    assert all(got[k] == pytest.approx(want[k], rel=0.05) for k in want)


@pytest.mark.slow
def test_calibration_from_noisy_runs_stays_within_the_noise():
    """Every measured time off by up to 2 %: the fitted model predicts every run's
    noise-free times within those 2 %, the most noise of that size can hide, and each
    identifiable efficiency is within 2 % / (1 - 2 %) of the truth, what one time off
    by 2 % moves an efficiency that its communication time alone determined (a fit over
    several runs averages their noise)."""
    noise = 0.02
    exact, runs = synthetic_runs(TRUTH), synthetic_runs(TRUTH, noise)
    fitted = model_check.fit(runs, "noisy")
    for s in exact:
        p = model_check.predicted(s, fitted)
        assert p.step_s == pytest.approx(s.measured_step_s, rel=noise)
        assert p.comm_s == pytest.approx(s.measured_comm_s, rel=noise)
    want, got = identifiable(TRUTH, runs), identifiable(fitted, runs)
    print("\n" + "; ".join(f"{k} {got[k]:.4g} (truth {want[k]:.4g})" for k in want))
    for k in ("ddp all-reduce", "zero3 gather/scatter"):
        assert got[k] == pytest.approx(want[k], rel=noise / (1 - noise))


@pytest.mark.slow
def test_calibration_is_stored_and_validated_on_recorded_runs(results, capsys, monkeypatch,
                                                               tmp_path):
    """Runs made slower than the links allow (every collective at 70 % of the
    bandwidth): calibration finds terms that account for it and the errors vanish."""
    truth = replace(DEFAULT, collectives={"*/ring": 0.7})
    _rewrite_summary(results, truth)
    monkeypatch.setenv("TRAINET_CALIBRATIONS", str(tmp_path / "store"))
    assert cli.main(["model", "calibrate", str(results), "--name", "demo-cal"]) == 0
    out = capsys.readouterr().out
    assert "collective efficiencies:" in out and "mean |step error|" in out
    stored = json.loads((results / "calibration.json").read_text())
    assert stored["fit"]["samples"] == 4
    calibration = load("demo-cal")
    checks = model_check.validate(model_check.samples([str(results)]), calibration)
    before = sum(abs(c.uncalibrated_error) for c in checks) / len(checks)
    after = sum(abs(c.error) for c in checks) / len(checks)
    assert before > 0.1 and after < before / 3 and max(abs(c.error) for c in checks) < 0.06
    assert cli.main(["model", "validate", str(results), "--calibration", str(results)]) == 0
    assert "4 runs; calibration demo-cal" in capsys.readouterr().out


def test_uncalibrated_predictions_of_the_recorded_runs(results):
    """The model's step times for the demo's runs, as measured on the testbed."""
    checks = model_check.validate(model_check.samples([str(results)]), DEFAULT)
    assert all(abs(c.uncalibrated_error) < 0.15 for c in checks)


def test_a_results_directory_without_records_is_a_clear_error(results, capsys):
    (results / "summary.csv").unlink()
    shutil.rmtree(results / "runs")
    assert cli.main(["model", "calibrate", str(results)]) != 0
    assert "no measured step" in capsys.readouterr().err
    assert cli.main(["model", "calibrate", str(results / "nothing")]) != 0
    assert "not a results directory" in capsys.readouterr().err


def test_the_replay_times_the_recompute_the_workers_were_given(results):
    """A run records its workers' recompute in config.yaml (worker_args); the replay times
    that recompute, and none where the runner gave none (the recorded demo's)."""
    import yaml
    before = {(s.variant, s.label): s for s in model_check.samples([str(results)])}
    assert {s.workload.recompute for s in before.values()} == {"none"}
    config = yaml.safe_load((results / "config.yaml").read_text())
    config["worker_args"]["ddp"]["recompute"] = "full"
    (results / "config.yaml").write_text(yaml.safe_dump(config))
    after = {(s.variant, s.label): s for s in model_check.samples([str(results)])}
    for key, s in after.items():
        assert s.workload.recompute == ("full" if s.label == "ddp" else "none")
        old, new = (model_check.predicted(x, DEFAULT) for x in (before[key], s))
        if s.label == "ddp":          # the forward again inside the backward
            assert new.compute_s == pytest.approx(
                old.compute_s + shadow.layer_pass(s.workload.model, s.workload.device, 2)
                .forward_s * s.workload.model.layers)
        else:
            assert new.compute_s == old.compute_s
