"""``--json`` on every command whose output a script parses: one JSON document on stdout,
numbers in SI units with the unit in the key."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from testbed.cli import main

ROOT = Path(__file__).resolve().parents[2]
DEMO_RESULTS = ROOT / "tests" / "model" / "fixtures" / "demo-results"


def json_of(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def test_strategies(capsys):
    data = {s["name"]: s for s in json_of(capsys, "strategies", "--json")}
    assert {"ddp", "zero3", "ina", "ps", "axonn"} <= set(data)
    assert data["ina"]["switch_job"]["section"] == "ina"
    assert data["ps"]["service"]["role"] == "server"
    assert "shadow" in data["ddp"]["modes"] and "bucket_cap_mb" in data["ddp"]["options"]


def test_plan(capsys):
    data = json_of(capsys, "plan", "--gpus", "4", "--model", "gpt-1.3b", "--json", "--top", "3")
    assert data["ranks"] == 4 and len(data["layouts"]) == 3
    steps = [layout["step_s"] for layout in data["layouts"]]
    assert steps == sorted(steps) and steps[0] > 0
    assert {"strategy", "layout", "compute_s", "exposed_s", "bandwidths_bps"} <= \
        set(data["layouts"][0])


def test_model_published(capsys):
    data = json_of(capsys, "model", "published", "--json")
    assert len(data["rows"]) == 21
    first = data["rows"][0]
    assert first["gpus"] == 32 and first["measured_s"] > 0 and first["predicted_s"] > 0
    assert first["error"] == pytest.approx(first["predicted_s"] / first["measured_s"] - 1)


def test_model_validate(capsys):
    data = json_of(capsys, "model", "validate", DEMO_RESULTS, "--json")
    runs = {(r["variant"], r["run"]) for r in data["runs"]}
    assert runs == {(v, s) for v in ("bandwidth-100Gbit", "bandwidth-200Gbit")
                    for s in ("ddp", "zero3")}
    assert all(r["measured_step_s"] > 0 and r["calibrated_step_s"] > 0 for r in data["runs"])


def test_topo_show(capsys):
    data = json_of(capsys, "topo", "show", ROOT / "experiments" / "topologies" /
                   "star-8.yaml", "--json")
    assert len(data["hosts"]) >= 2
    link = data["links"][0]["resolved"]
    assert link["emulated_bw_bps"] == pytest.approx(link["bw_bps"] * data["scale"])


def test_topo_profiles(capsys):
    data = {p["name"]: p for p in json_of(capsys, "topo", "profiles", "--json")}
    assert data["roce-100g"]["bw_bps"] == 100e9 and data["roce-100g"]["kind"] == "nic"


@pytest.mark.slow
def test_bench_model(capsys):
    data = json_of(capsys, "bench", "model", "--repeat", "1", "--json")
    assert [r["gpus"] for r in data["rows"]][-1] == 100_000
    assert all(r["tiered_s"] > 0 and r["zero3_step_s"] > 0 for r in data["rows"])


@pytest.mark.slow
def test_bench_overlap(capsys):
    data = json_of(capsys, "bench", "overlap", "--steps", "2", "--model", "gpt-125m",
                   "--json")
    assert data["rows"][0]["overlap_on"] == "none (baseline)"
    assert data["rows"][0]["exposed_over_baseline"] == 1.0
    assert len(data["rows"]) == 5
