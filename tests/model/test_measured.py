"""Bandwidth tables in the model: the fit of an entry, the planner and its check timing
collectives from a table, the fallback for placements it lacks, a table of other hosts
refused."""
import json
from pathlib import Path

import pytest

from hosts import shadow
from hosts.collectives.pattern import Collective
from hosts.collectives.timing import Placement
from testbed import cli
from testbed.errors import TrainetError
from testbed.experiment import plan_check
from testbed.experiment.bandwidth import placements
from testbed.experiment.plan import plan, predict
from testbed.experiment.spec import load_experiment
from testbed.model import collectives, measured
from testbed.model.calibration import DEFAULT
from testbed.model.fabric import fabric_topology, topology_fabric

EXPERIMENT = "experiments/axonn.yaml"
MODEL = shadow.shadow_model("gpt-1.3b")
A100 = shadow.device("a100")


def fabric():
    return topology_fabric(fabric_topology(EXPERIMENT))


def table_of(hosts, bandwidth_Bps, latency_s=1e-3, only=None, path="t.json"):
    """Entries for every regular placement of the hosts (or those in ``only``), each of
    ``bandwidth_Bps(size, stride)``."""
    entries = {}
    for size, stride in placements(len(hosts)):
        if only is not None and (size, stride) not in only:
            continue
        for op in measured.OPS:
            entries[measured.BandwidthTable.key(op, size, stride)] = measured.Entry(
                op, size, stride, latency_s, bandwidth_Bps(size, stride))
    return measured.BandwidthTable(EXPERIMENT, tuple(hosts), 1e-4, entries, source=path)


def test_an_entry_is_the_line_through_its_points():
    size, latency, bus = 4, 2e-3, 5e9          # bytes/s
    factor = 2 * 3 / 4
    points = [(s, latency + factor * s / bus) for s in (64e6, 256e6, 1e9)]
    e = measured.fit_entry("all-reduce", size, 1, points)
    assert e.latency_s == pytest.approx(latency)
    assert e.bandwidth_Bps == pytest.approx(bus)
    # a line that would start below zero starts at zero, through the origin
    e = measured.fit_entry("all-gather", 2, 1, [(1e6, 0.001), (2e6, 0.0035)])
    assert e.latency_s == 0 and e.bandwidth_Bps > 0


def test_regular_placements_of_eight_ranks():
    assert placements(8) == [(2, 1), (2, 2), (2, 4), (4, 1), (4, 2), (8, 1)]


def test_a_collective_over_a_measured_placement_takes_its_entry():
    f = fabric()
    f = measured.attach(f, table_of(f.gpus, lambda size, stride: 1e9))
    c = Collective("all-reduce", 400e6, group="row", size=4)
    cost = collectives.cost(c, Placement(4, 1), f, 8, DEFAULT)
    assert cost.algorithm == "measured"
    assert cost.seconds == pytest.approx(1e-3 + 2 * 3 / 4 * 400e6 / 1e9)


def test_the_plan_ranks_by_the_measured_table():
    """Groups of 4 in a node made slow in the table: every layout with such a group
    falls behind every layout without one, though the links say they are fast."""
    f = fabric()
    nominal = {(p.strategy, p.layout): p for p in plan(f, MODEL, 8, 16, A100, 0.4)}
    slow_quads = table_of(f.gpus, lambda size, stride: 1e8 if (size, stride) == (4, 1)
                          else 25e9)
    ranked = plan(measured.attach(fabric(), slow_quads), MODEL, 8, 16, A100, 0.4)
    uses_quads = [any(b == 8e8 for b in p.bandwidths.values()) for p in ranked]
    assert any(uses_quads) and not all(uses_quads)
    assert uses_quads == sorted(uses_quads)          # False (no group of 4) first
    assert ranked[0].comm_s != nominal[ranked[0].strategy, ranked[0].layout].comm_s


def test_placements_the_table_lacks_take_the_links_and_are_noted():
    f = fabric()
    only_pairs = table_of(f.gpus, lambda size, stride: 1e9, only={(2, 4)}, path="pairs.json")
    partly = measured.attach(fabric(), only_pairs)
    with_table = {(p.strategy, p.layout): p for p in plan(partly, MODEL, 8, 16, A100, 0.4)}
    without = {(p.strategy, p.layout): p for p in plan(f, MODEL, 8, 16, A100, 0.4)}
    # 1x4x1x2's column groups (4x1) are not in the table, its data groups (2x4) are
    assert with_table["axonn", "1x4x1x2"].comm_s != without["axonn", "1x4x1x2"].comm_s
    note = only_pairs.note()
    assert "pairs.json" in note and "all-reduce over groups of 4 ranks 1 apart of 8" in note
    assert "2 ranks 4 apart" not in note


def test_a_table_of_other_hosts_is_refused():
    f = fabric()
    other = table_of(["x1", "x2"], lambda size, stride: 1e9)
    with pytest.raises(TrainetError, match="measured on the workers x1, x2"):
        measured.attach(f, other)


def test_plan_and_predict_take_a_table_file(tmp_path, capsys):
    f = fabric()
    path = table_of(f.gpus, lambda size, stride: 1e9, only={(2, 4), (4, 1)}).save(
        tmp_path / "table.json")
    assert cli.main(["plan", "--fabric", EXPERIMENT, "--gpus", "8", "--model",
                     "gpt-1.3b", "--global-batch-size", "16", "--bandwidth-table", str(path)]) == 0
    out = capsys.readouterr().out
    assert "note: bandwidth table" in out and "nominal link figures" in out
    assert cli.main(["model", "predict", "--model", "gpt-1.3b", "--gpus", "8", "--fabric",
                     EXPERIMENT, "--strategy", "axonn:g_r=1,g_c=4,g_d=1,g_data=2",
                     "--global-batch-size", "16", "--plot", "", "--bandwidth-table", str(path)]) == 0
    (tmp_path / "bad.json").write_text(json.dumps({"hosts": []}))
    assert cli.main(["plan", "--fabric", EXPERIMENT, "--gpus", "8",
                     "--bandwidth-table", str(tmp_path / "bad.json")]) != 0
    assert "not a table written by `trainet model measure`" in capsys.readouterr().err


def test_plan_check_times_the_runs_from_the_table(tmp_path):
    """Measured steps that are the table's predictions: every error is zero with the
    table and not without it."""
    source = Path(EXPERIMENT)
    (tmp_path / "experiment.yaml").write_text(source.read_text())
    experiment = load_experiment(source)
    table = table_of(fabric().gpus, lambda size, stride: 2e9 if stride < 4 else 1e9)
    timed = measured.attach(fabric(), table).first(8)
    rows = ["variant,strategy,step_time_s,exposed_comm_s"]
    for s in experiment.strategies:
        options = plan_check.layout_options(s.info.name, s.options, 8)
        replicas = options.get("g_data", options.get("dp"))
        p = predict(timed, MODEL, s.info.name, options, 8 * replicas, A100, shadow.DEFAULT_MFU,
                    shadow.DEFAULT_INTERFERENCE, recompute="none")      # as its workers ran
        rows.append(f"base,{s.label},{p.step_s},{p.exposed_s}")
    (tmp_path / "summary.csv").write_text("\n".join(rows) + "\n")
    assert all(abs(c.error) < 1e-9 for c in plan_check.check(tmp_path, table=table))
    assert all(abs(c.error) > 0.01 for c in plan_check.check(tmp_path))


def test_a_validation_split_refits_its_calibration_and_reports_both_sets(tmp_path, capsys):
    """A split (calibrate: one copy of the recorded demo; held out: another) with the
    calibration fitted on the first: validate re-fits it, finds it the declared one, and
    reports step time and exposed communication per set; a changed calibration fails."""
    import shutil
    import yaml
    from testbed.experiment import model_check
    recorded = Path(__file__).parent / "fixtures" / "demo-results"
    for name in ("fit", "held"):
        shutil.copytree(recorded, tmp_path / name)
    calibration = model_check.fit(model_check.samples([str(tmp_path / "fit")]), "split")
    calibration.save(tmp_path / "calibration.json")
    split = tmp_path / "split.yaml"
    split.write_text(yaml.safe_dump({"calibrate": ["fit"], "held_out": ["held"],
                                     "calibration": "calibration.json"}))
    assert cli.main(["model", "validate", "--split", str(split)]) == 0
    out = capsys.readouterr().out
    assert "re-fitted from 1 results directories: the same" in out
    assert "held out: 4 runs; step time mean |error|" in out
    assert "exposed communication mean |error|" in out
    calibration.__class__(name="split").save(tmp_path / "calibration.json")
    assert cli.main(["model", "validate", "--split", str(split)]) == 1
    assert "DIFFERENT from the declared one" in capsys.readouterr().out
    split.write_text(yaml.safe_dump({"calibrate": ["fit"], "held_out": ["fit"],
                                     "calibration": "calibration.json"}))
    assert cli.main(["model", "validate", "--split", str(split)]) == 2
    assert "both calibrates and is held out" in capsys.readouterr().err


@pytest.mark.slow
def test_the_committed_validation_split_rechecks(capsys):
    """validation/split.yaml: its calibration is what its calibrate set fits to, and
    every run of both sets is predicted (no root, no network)."""
    split = Path(__file__).parents[2] / "validation" / "split.yaml"
    assert cli.main(["model", "validate", "--split", str(split)]) == 0
    out = capsys.readouterr().out
    assert "re-fitted from 1 results directories: the same" in out
    assert "calibrate: 4 runs" in out and "held out: 10 runs" in out
