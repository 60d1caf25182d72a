"""What a newcomer trips over in a first hour, each driven through the ``trainet``
command as a user types it."""
from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

import testbed
from testbed.cli import main

ROOT = Path(__file__).resolve().parents[2]
DEMO_RESULTS = ROOT / "tests" / "model" / "fixtures" / "demo-results"


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def demo_results(tmp_path):
    """The demo's measured results (two bandwidth variants of three workers), without
    the summary the report recomputes."""
    root = tmp_path / "demo"
    shutil.copytree(DEMO_RESULTS, root)
    (root / "summary.csv").unlink()
    return root


def test_trace_export_onto_an_existing_file_is_refused(tmp_path, capsys):
    existing = tmp_path / "existing"
    existing.write_text("keep me")
    code, _, err = run(capsys, "trace", "export", "--model", "gpt-1.3b", "--gpus", "2",
                       "--strategy", "ddp", "-o", existing)
    assert code == 2
    assert err.strip() == (f"-o {existing}: exists and is not a folder; give a folder for "
                           "the traces (made when missing)")
    assert existing.read_text() == "keep me"


@pytest.mark.parametrize("argv", [
    ["model", "predict", "--model", "gpt-1.3b", "--gpus", "8", "64", "--plot", "{d}/x.png"],
    ["topo", "generate", "star", "workers=2", "-o", "{d}/x.yaml"],
    ["topo", "import", "{d}/t.json", "-o", "{d}/x.yaml"],
    ["p4", "info", str(ROOT / "p4" / "basic.p4"), "-o", "{d}/x.txt"],
])
def test_outputs_into_a_missing_folder_are_refused_not_made(argv, tmp_path, capsys):
    missing = tmp_path / "missing" / "deeper"
    code, _, err = run(capsys, *(a.format(d=missing) for a in argv))
    assert code == 2
    assert f"folder {missing} does not exist; create it first or give another path" in err
    assert not (tmp_path / "missing").exists()


def test_predict_writes_no_plot_unless_asked(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "model", "predict", "--model", "gpt-1.3b", "--gpus", "8")
    assert code == 0 and "scaling plot" not in out
    assert list(tmp_path.iterdir()) == []
    code, _, err = run(capsys, "model", "predict", "--model", "gpt-1.3b", "--gpus", "8",
                       "--plot", "one.png")
    assert code == 2 and "give two or more counts" in err
    assert list(tmp_path.iterdir()) == []


def test_mfu_out_of_range_is_one_message(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["model", "predict", "--model", "gpt-1.3b", "--gpus", "8", "--mfu", "1.5"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2
    assert err.count("1.5") == 1 and "{" not in err
    assert "argument --mfu: 1.5: a fraction of the device's peak in (0, 1], e.g. 0.4" in err


@pytest.mark.parametrize("argv", [
    ["model", "predict", "--gpus", "8"],
    ["plan", "--gpus", "8"],
    ["trace", "export", "--gpus", "2", "--strategy", "ddp", "-o", "{d}/t"],
])
def test_unknown_model_names_the_flag_given(argv, tmp_path, capsys):
    code, _, err = run(capsys, *(a.format(d=tmp_path) for a in argv), "--model", "gpt-175bb")
    assert code == 2
    assert err.startswith("--model 'gpt-175bb': choose gpt-125m")
    assert "--shadow-model" not in err


def test_loss_as_a_percentage_in_files_as_on_the_switch(tmp_path, capsys):
    experiment = tmp_path / "loss.yaml"
    experiment.write_text("name: loss\ntopology:\n  generator: {name: star, workers: 2}\n"
                          "strategies: [ddp]\nsweep: {loss: ['1%', 0.5]}\n")
    code, out, err = run(capsys, "check", experiment)
    assert (code, err) == (0, "")
    assert "variant loss-1pct:" in out and "loss 1 %" in out
    assert "variant loss-0.5pct:" in out and "loss 0.5 %" in out


def test_version_and_commit(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    out = capsys.readouterr().out.strip()
    assert exit_.value.code == 0
    assert out.startswith(f"trainet {testbed.__version__}")
    commit = testbed.commit()
    assert commit is None or f"(commit {commit})" in out


def test_environment_records_trainet_version_and_commit():
    from testbed.experiment.runner import environment
    env = environment(None)
    assert env["trainet"] == testbed.__version__
    assert env["trainet_commit"] == testbed.commit()


def write_summary(root: Path) -> None:
    """What `trainet run` does when its last run ends."""
    from testbed.experiment import results
    results.write_summary(root, results.summary_rows(root))


def test_summary_has_each_column_once_and_no_scaling_across_bandwidths(demo_results, capsys):
    write_summary(demo_results)
    code, _, err = run(capsys, "report", demo_results)
    assert code == 0, err
    with (demo_results / "summary.csv").open() as f:
        header = next(csv.reader(f))
    assert len(header) == len(set(header)), [c for c in header if header.count(c) > 1]
    with (demo_results / "summary.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert {r["variant"] for r in rows} == {"bandwidth-100Gbit", "bandwidth-200Gbit"}
    assert all(r.get("scaling_efficiency", "") == "" for r in rows)
    assert all(float(r["tflops_per_gpu"]) > 0 for r in rows)
    report = (demo_results / "report.md").read_text()
    assert "scaling eff." not in report


def test_a_torn_last_metrics_line_keeps_the_report(demo_results, capsys):
    metrics = demo_results / "runs" / "bandwidth-100Gbit" / "ddp" / "rep0" / "metrics"
    rank0 = metrics / "rank0.jsonl"
    records = rank0.read_text()
    rank0.write_text(records + '{"step": 99, "rank": 0, "step_s": 0.')      # cut mid-write
    code, out, err = run(capsys, "report", demo_results)
    assert code == 0
    assert f"{rank0}:{records.count(chr(10)) + 1}: last line cut short" in err
    assert "report.md" in out
    assert "| bandwidth-100Gbit | ddp |" in (demo_results / "report.md").read_text()


def test_a_broken_metrics_line_inside_the_file_is_named(demo_results, capsys):
    rank1 = demo_results / "runs" / "bandwidth-100Gbit" / "ddp" / "rep0" / "metrics" / \
        "rank1.jsonl"
    lines = rank1.read_text().splitlines()
    rank1.write_text("\n".join(["{not json"] + lines) + "\n")
    code, _, err = run(capsys, "report", demo_results)
    assert code == 2
    assert err.strip().startswith(f"{rank1}:1: not a JSON line")



@pytest.mark.parametrize("argv, old, new", [
    (["plan", "--world", "8"], "--world", "--gpus"),
    (["plan", "--topology", "x.yaml", "--gpus", "8"], "--topology", "--fabric"),
    (["model", "predict", "--model", "gpt-1.3b", "--gpus", "8", "--gpus-per-host", "8"],
     "--gpus-per-host", "--gpus-per-node"),
    (["model", "measure", "x.yaml", "-o", "t.json", "--world", "4"], "--world", "--gpus"),
    (["bench", "train", "--shadow-model", "gpt-1.3b"], "--shadow-model", "--model"),
    (["bench", "train", "--batch", "1"], "--batch", "--global-batch-size, sequences per step "
     "across the workers (--batch x --workers)"),
    (["plan", "--gpus", "8", "--batch", "16"], "--batch", "--global-batch-size"),
    (["model", "predict", "--model", "gpt-1.3b", "--gpus", "8", "--batch", "16"], "--batch",
     "--global-batch-size"),
    (["trace", "export", "--model", "gpt-1.3b", "--gpus", "8", "--batch", "16", "-o", "t"],
     "--batch", "--global-batch-size"),
    (["bench", "overlap", "--batch", "2"], "--batch",
     "--global-batch-size (sequences per replica x G_data)"),
])
def test_old_spellings_are_refused_naming_the_new_one(argv, old, new, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    assert f"error: {old} is now {new}" in capsys.readouterr().err


def test_ddp_bucket_is_bucket_cap_mb(tmp_path, capsys):
    experiment = tmp_path / "bucket.yaml"
    experiment.write_text("name: b\ntopology:\n  generator: {name: star, workers: 2}\n"
                          "strategies: [{strategy: ddp, options: {bucket: 4MiB}}]\n")
    code, _, err = run(capsys, "check", experiment)
    assert code == 2
    assert err.strip() == (f"{experiment}:4:14: strategies[0]: strategy ddp: option bucket "
                           "is now bucket_cap_mb, in MiB as PyTorch's DDP takes it (e.g. "
                           "bucket_cap_mb: 4); its options: bucket_cap_mb=0.25 (gradient "
                           "bucket size in MiB as PyTorch's DDP takes it, real mode (shadow "
                           "mode: 8 layer groups)), micro_batch_size (sequences per "
                           "micro-batch; the step accumulates the gradients of per-replica "
                           "batch / micro_batch_size micro-batches (DeepSpeed's "
                           "gradient_accumulation_steps) and steps the optimizer once "
                           "(default: the whole per-replica batch, one micro-batch))")


def test_a_device_by_its_old_short_name_is_refused_naming_the_profile(capsys):
    code, _, err = run(capsys, "model", "predict", "--model", "gpt-1.3b", "--gpus", "8",
                       "--device", "a100")
    assert code == 2
    assert err.strip() == "--device a100: device 'a100' is now called 'a100-80gb'"


def test_bench_overlap_global_batch_must_split_over_the_replicas(capsys):
    code, _, err = run(capsys, "bench", "overlap", "--grid", "2x2x1x2",
                       "--global-batch-size", "3")
    assert code == 2
    assert err.strip() == ("--global-batch-size 3 does not split over the grid's G_data=2 "
                           "replicas; accepted: a multiple of 2")
