"""``trainet model calibrate`` and ``validate`` on a recorded results directory (the demo:
DDP and ZeRO-3, shadow GPT-1.3B on 3 workers at 100 and 200 Gb/s)."""
import csv
import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

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


@pytest.mark.slow
def test_calibration_recovers_known_efficiencies_and_is_stored(results, capsys, monkeypatch,
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
    # four runs of one fabric cannot tell a slower link from longer steps apart: the fit
    # finds slower collectives, more latency or both
    assert stored["hop_latency_s"] > 0 or min(stored["collectives"].values()) < 0.9
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
