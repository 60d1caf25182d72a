"""``trainet reproduce``: the papers' headlines beside the model's, as a user runs it."""
import json

from testbed import cli
from testbed.experiment import papers, reproduce
from testbed.experiment.results import write_summary


def run(capsys, *argv):
    code = cli.main(["reproduce", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_model_only_prints_the_paper_the_model_and_the_assumptions(capsys):
    code, out, err = run(capsys, "zeropp", "frontier", "--model-only")
    assert code == 0, err
    zeropp, frontier = out.split("## frontier")
    assert "| paper | as published | | | 2.16x |" in zeropp
    assert "arXiv 2306.10209" in zeropp
    model = next(line for line in zeropp.splitlines() if line.startswith("| model |"))
    assert "384 x v100-32gb, fabric dgx2-100g" in model and "zero3" in model
    assert "| testbed | not run (--model-only) |" in zeropp
    assert "Assumptions that differ:" in zeropp
    # the inter-node bandwidth decides the gap: the ratio falls as the NICs multiply
    sens = [line for line in zeropp.splitlines() if line.startswith("| 100 |")
            or line.startswith("| 800 |")]
    low, high = (float(line.split("|")[2].strip().rstrip("x")) for line in sens)
    assert low > high > 1
    assert "| paper | as published | | | 1.71x |" in frontier
    model = next(line for line in frontier.splitlines() if line.startswith("| model |"))
    assert "zero-hier:qwz=True,qgz=True" in model       # quantized as the paper's, and
    assert "zeropp:hpz=8 " in model                      # against ZeRO++'s secondary partition
    # against hpZ alone, the partitioning gains as the bandwidth across nodes falls
    rows = [line.split("|") for line in frontier.splitlines()
            if line.startswith(("| 100 |", "| 2.5 |"))]
    nominal, starved = (float(r[2].split("x")[0]) for r in rows)
    assert starved > nominal


def test_frontiers_other_figures_pin_its_baseline_and_bandwidth():
    """The paper gives ZeRO++ 1.405x over ZeRO-3: where hpZ alone is that, the scheme is
    near the paper's 1.71x over it; ZeRO++ with every option is never slower than ours
    by the paper's margin."""
    entry = reproduce.reproduce(papers.KNOWN["frontier"], _model_only(), _calibration(), {})
    rows = {r["inter_node_GBps"]: r for r in entry["sensitivity"]["rows"]}
    hpz_over_zero3, all_over_zero3 = rows[12.5]["over_zero3"][0], rows[12.5]["over_zero3"][2]
    assert abs(hpz_over_zero3 / 1.405 - 1) < 0.05 and all_over_zero3 > 2
    assert abs(rows[12.5]["ratios"][0] / 1.71 - 1) < reproduce.WITHIN
    assert all(r["ratios"][2] < 1.2 for r in rows.values())
    assert entry["model_ratio"] == rows[12.5]["ratios"][0]   # the model runs there


def test_axonns_megatron_fits_only_with_tensor_parallelism_across_nodes():
    """At the paper's 80B on 1024 x 40 GB, the fastest Megatron layout that fits splits
    its tensors over more GPUs than a Perlmutter node has; with its optimizer state
    sharded over data-parallel ranks a faster layout would fit."""
    entry = reproduce.reproduce(papers.KNOWN["axonn"], _model_only(), _calibration(), {})
    base = entry["model"]["baseline"]
    assert base["fits"] and int(base["layout"].split("tp")[1].split()[0]) > 4
    assert entry["model_ratio"] > 1
    rows = entry["sensitivity"]["rows"]
    fitting = [r for r in rows if r["fits"]]
    assert min(r["step_s"] for r in fitting) == base["step_s"]
    assert any(r["sharded_fits"] and not r["fits"] and r["ratio"] < entry["model_ratio"]
               for r in rows)


def _model_only():
    import argparse
    return argparse.Namespace(model_only=True)


def _calibration():
    from testbed.model.calibration import load
    return load(None)


def test_json_gives_every_paper_three_ratios_and_the_differing_assumptions(capsys):
    code, out, err = run(capsys, "--model-only", "--json")
    assert code == 0, err
    data = json.loads(out)
    by_seed = {e["seed"]: e for e in data["papers"]}
    assert list(by_seed) == ["luwu", "zeropp", "frontier", "holmes", "axonn", "fusionllm"]
    assert by_seed["luwu"]["paper_ratio"] == 3.98
    assert by_seed["holmes"]["paper_ratio"] is None          # the paper states none
    assert by_seed["fusionllm"]["paper_range"] == [1.45, 9.39]
    for entry in by_seed.values():
        assert entry["testbed_ratio"] is None
        assert entry["model_ratio"] > 0
        assert entry["model_ratio"] == entry["model"]["baseline"]["step_s"] / \
            entry["model"]["ours"]["step_s"]
        assert entry["assumptions"] and entry["citation"]
    # the measured CPU optimizer rates feed LuWu's sensitivity table
    assert data["cpu_adam_measured"]["for-loop"] > 0
    rows = by_seed["luwu"]["sensitivity"]["rows"]
    slow = [r for r in rows if r["gpus_per_host"] == 8 and r["rate"] == 3e6][0]
    fast = [r for r in rows if r["gpus_per_host"] == 8 and r["rate"] == 1e8][0]
    assert slow["cells"][0]["ratio"] > fast["cells"][0]["ratio"]
    # more interference slows the baseline's overlapped compute, not LuWu's
    assert fast["cells"][-1]["ratio"] > fast["cells"][0]["ratio"]


def test_an_unknown_seed_lists_the_known_ones(capsys):
    code, out, err = run(capsys, "luwu", "megatron", "--model-only")
    assert code != 0 and out == ""
    assert "unknown seed megatron" in err
    for key in papers.KNOWN:
        assert key in err


def test_the_testbed_side_reads_a_run_and_says_when_a_side_did_not_fit(tmp_path):
    paper = papers.KNOWN["luwu"]
    out = tmp_path / "luwu-vs-offload"
    out.mkdir()
    (out / "config.yaml").write_text("{}\n")
    write_summary(out, [
        {"variant": "bandwidth-100Gbit", "strategy": "luwu", "step_time_s": 60.0},
        {"variant": "bandwidth-100Gbit", "strategy": "zero3-offload", "step_time_s": 90.0}])
    got = reproduce.testbed_figure(paper, out)
    assert got["ratio"] == 1.5
    write_summary(out, [
        {"variant": "bandwidth-100Gbit", "strategy": "luwu", "step_time_s": 60.0},
        {"variant": "bandwidth-100Gbit", "strategy": "zero3-offload",
         "memory_verdict": "needs 326 GiB of 256 GiB host memory"}])
    got = reproduce.testbed_figure(paper, out)
    assert got["ratio"] is None and "326 GiB of 256 GiB host memory" in got["note"]
    missing = reproduce.testbed_figure(paper, tmp_path / "elsewhere")
    assert missing["ratio"] is None and "not run" in missing["note"]


def test_no_run_reads_finished_runs_and_lists_every_method(tmp_path, capsys):
    speed, convergence = tmp_path / "fusionllm", tmp_path / "fusionllm-convergence"
    for out in (speed, convergence):
        out.mkdir()
        (out / "config.yaml").write_text("{}\n")
    write_summary(speed, [
        {"variant": "base", "strategy": "fusionllm", "step_time_s": 0.44},
        {"variant": "base", "strategy": "same-partition", "step_time_s": 5.5},
        {"variant": "base", "strategy": "pp", "step_time_s": 52.1}])
    write_summary(convergence, [
        {"variant": "base", "strategy": "fusionllm", "final_loss": 2.24},
        {"variant": "base", "strategy": "same-partition", "final_loss": 1.76}])
    code, out, err = run(capsys, "fusionllm", "--no-run", "--results", str(tmp_path))
    assert code == 0, err
    row = next(line for line in out.splitlines() if line.startswith("| testbed |"))
    assert "fusionllm 0.44 s" in row and "same-partition 5.5 s" in row and "12.50x" in row
    assert "| same-partition | 5.5 s | 1.76 |" in out
    assert "| pp | 52.1 s | - |" in out                  # no convergence run of pp
    code, out, err = run(capsys, "fusionllm", "--no-run", "--results", str(tmp_path),
                         "--json")
    entry = json.loads(out)["papers"][0]
    assert entry["testbed_ratio"] == 5.5 / 0.44 and entry["model_ratio"] > 1


def test_a_label_prefix_takes_the_fastest_layout(tmp_path):
    out = tmp_path / "axonn"
    out.mkdir()
    (out / "config.yaml").write_text("{}\n")
    write_summary(out, [
        {"variant": "base", "strategy": "megatron-tp8", "step_time_s": 0.44},
        {"variant": "base", "strategy": "megatron-tp4-pp2", "step_time_s": 0.30},
        {"variant": "base", "strategy": "axonn-2x4x1x1", "step_time_s": 0.80},
        {"variant": "base", "strategy": "axonn-1x4x2x1", "step_time_s": 0.40}])
    got = reproduce.testbed_figure(papers.KNOWN["axonn"], out)
    assert got["ours"]["label"] == "axonn-1x4x2x1" and got["ratio"] == 0.44 / 0.40


def test_every_papers_experiment_has_its_two_sides_and_both_fit():
    """The shipped experiment of each paper loads, runs the rows its comparison reads,
    and the memory check lets both run on the variant it reads."""
    from testbed.experiment.fit import memory_checks
    from testbed.experiment.spec import load_experiment
    for paper in papers.PAPERS:
        t = paper.testbed
        experiment = load_experiment(reproduce.ROOT / t.experiment)
        labels = [s.label for s in experiment.strategies]
        assert t.variant in [v.name for v in experiment.variants()], paper.key
        fits = {c.label: c.runs for c in memory_checks(experiment)
                if c.variant == t.variant}
        for label in (t.ours, t.baseline):
            chosen = [x for x in labels if x == label or
                      (label.endswith("*") and x.startswith(label[:-1]))]
            assert chosen and any(fits[x] for x in chosen), (paper.key, label)


def test_the_headlines_document_is_the_commands_output(capsys):
    """docs/headlines.md is `trainet reproduce --results docs/headlines --no-run` as it
    stands: the finished runs' summaries kept in docs/headlines, the CPU Adam rates
    measured with them, the model as it is now (regenerate it when the model moves)."""
    doc = reproduce.ROOT / "docs" / "headlines.md"
    code, out, err = run(capsys, "--results", str(reproduce.ROOT / "docs" / "headlines"),
                         "--no-run")
    assert code == 0, err
    assert out == doc.read_text(), "docs/headlines.md is stale: trainet reproduce " \
        "--results docs/headlines --no-run > docs/headlines.md"
    assert "/tmp" not in out and "`trainet reproduce --results docs/headlines --no-run`" in out
