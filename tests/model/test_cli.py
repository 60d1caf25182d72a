"""``trainet model predict`` and ``compare`` as a user runs them."""
import json

import pytest

from testbed import cli


def test_predict_prints_a_table_and_writes_a_scaling_plot(capsys, tmp_path):
    plot = tmp_path / "scaling.png"
    assert cli.main(["model", "predict", "--model", "gpt-175b", "--gpus", "64", "1024",
                     "--strategy", "zero3", "megatron:tp=8,pp=8,micro_batches=16",
                     "--global-batch-size", "1024", "--plot", str(plot)]) == 0
    out = capsys.readouterr().out
    assert "GPT-3, Brown et al. 2020" in out and "megatron:tp=8,pp=8" in out
    assert plot.stat().st_size > 10_000


def test_predict_json_has_a_step_time_per_row(capsys):
    assert cli.main(["model", "predict", "--model", "gpt-1.3b", "--gpus", "8", "--strategy",
                     "ddp", "zero3", "--json", "--plot", ""]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["strategy"] for r in rows] == ["ddp", "zero3"]
    assert all(r["step_time_s"] > r["compute_s"] > 0 for r in rows)


def test_predict_without_a_strategy_reports_the_best_layout(capsys):
    assert cli.main(["model", "predict", "--model", "gpt-20b", "--gpus", "64", "--json",
                     "--plot", ""]) == 0
    (best,) = json.loads(capsys.readouterr().out)
    assert best["fits"] and best["step_time_s"] > 0


@pytest.mark.parametrize("argv, message", [
    (["--model", "gpt-9z", "--gpus", "8"], "choose gpt-125m"),
    (["--model", "gpt-1.3b", "--gpus", "8", "--device", "tpu"], "--device 'tpu'"),
    (["--model", "gpt-1.3b", "--gpus", "8", "--fabric", "moon"], "unknown fabric 'moon'"),
    (["--model", "gpt-1.3b", "--gpus", "6", "--strategy", "megatron:tp=4"], "megatron"),
    (["--model", "gpt-1.3b", "--gpus", "8", "--strategy", "nope"], "unknown strategy"),
    (["--model", "gpt-1.3b", "--gpus", "8", "--calibration", "missing-cal"],
     "run `trainet model calibrate"),
])
def test_bad_input_is_a_clear_error(argv, message, capsys):
    assert cli.main(["model", "predict", *argv, "--plot", ""]) != 0
    assert message in capsys.readouterr().err


def test_compare_puts_the_seed_setups_side_by_side(capsys):
    assert cli.main(["model", "compare", "--json"]) == 0
    setups = json.loads(capsys.readouterr().out)
    assert len(setups) == 5
    luwu = {r["label"]: r for r in next(v for k, v in setups.items() if k.startswith("LuWu"))}
    assert luwu["luwu"]["step_time_s"] < luwu["zero3:offload_optimizer=cpu"]["step_time_s"]
    assert not luwu["zero3"]["fits"] and luwu["luwu"]["fits"]
