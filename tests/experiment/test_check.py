"""`trainet check` and the commands that read experiment and topology files, driven as a
user types them: every message of the run's loader, file:line, exit 0/2, no traceback."""
from __future__ import annotations

from pathlib import Path

import pytest

from testbed.cli import main

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "experiments" / "demo.yaml"

BROKEN_EXPERIMENT = """\
name: broken
topology:
  generator: {name: star, workers: 2, nic: roce-100g}
workload: {steps: five}
strategies: [ddp, nosuch]
repititions: 2
sweep:
  bandwidth: [100Gbpss]
"""


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_check_reports_fit_and_shaping_of_every_variant(capsys):
    code, out, err = run(capsys, "check", DEMO)
    assert (code, err) == (0, "")
    assert "ok: experiment demo: 2 variants x 2 strategies x 1 repetition = 4 runs" in out
    for variant, emulated in (("bandwidth-100Gbit", "10 Mb/s"), ("bandwidth-200Gbit", "20 Mb/s")):
        block = out.split(f"variant {variant}:")[1].split("variant ")[0]
        # its workers compute without recompute: every activation kept
        assert "ddp: memory fits: 52.1 GiB of 80 GiB (fits)" in block
        assert "zero3: memory fits:" in block
        assert f"3 links: {variant.split('-')[1][:3]} Gb/s nominal, {emulated} emulated" in block
    assert "p4/basic.p4: ok: P4 program (v1model" in out


def test_check_names_every_mistake_with_its_line(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text(BROKEN_EXPERIMENT)
    code, out, err = run(capsys, "check", bad, DEMO)
    assert code == 2
    assert f"{bad}:4:19: workload.steps: Input should be a valid integer" in err
    assert f"{bad}:5:19: strategies[1]: unknown strategy 'nosuch'; registered: " in err
    assert f"{bad}:6:1: repititions: unknown field 'repititions'; allowed: " in err
    assert "repetitions" in err.split("repititions'; allowed:")[1]
    assert f"{bad}:8:15: sweep.bandwidth[0]: '100Gbpss' is not a bit rate" in err
    assert "1 of 2 files ok" in out


@pytest.mark.parametrize("argv", [
    ["plan", "--fabric", "{bad}", "--gpus", "2"],
    ["model", "predict", "--fabric", "{bad}", "--model", "gpt-1.3b", "--gpus", "2",
     "--plot", ""],
    ["trace", "export", "--fabric", "{bad}", "--model", "gpt-1.3b", "--gpus", "2",
     "--strategy", "ddp", "-o", "{out}"],
])
def test_modelling_commands_validate_the_whole_file(argv, tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text(BROKEN_EXPERIMENT)
    code, out, err = run(capsys, *(a.format(bad=bad, out=tmp_path / "o") for a in argv))
    assert code == 2 and out == ""
    for line in (4, 5, 6, 8):
        assert f"{bad}:{line}:" in err
    assert not (tmp_path / "o").exists()


def test_model_validate_checks_the_results_experiment(tmp_path, capsys):
    results = tmp_path / "results"
    results.mkdir()
    (results / "experiment.yaml").write_text(BROKEN_EXPERIMENT)
    code, _, err = run(capsys, "model", "validate", results)
    assert code == 2
    assert f"{results / 'experiment.yaml'}:6:1: repititions: unknown field" in err


def test_missing_fabric_file_is_named_as_missing(tmp_path, capsys):
    code, _, err = run(capsys, "model", "predict", "--model", "gpt-1.3b", "--gpus", "2",
                       "--fabric", tmp_path / "nofile.yaml", "--plot", "")
    assert code == 2
    assert err.strip() == (f"--fabric {tmp_path / 'nofile.yaml'}: no such file; give a "
                           "topology or experiment file (trainet check FILE validates one)")


# -- a corpus of broken files, fed to every command that reads one -------------------

CORPUS = {
    "wrong-types.yaml": "name: 5\ntopology: 3\nstrategies: ddp\nrepetitions: many\n",
    "unknown-key.yaml": "name: x\ntopology: {generator: {name: star, workers: 2}}\n"
                        "strategies: [ddp]\nrepititions: 2\n",
    "bad-unit.yaml": "name: x\ntopology: {generator: {name: star, workers: 2}}\n"
                     "strategies: [ddp]\nsweep: {bandwidth: [100Gbpss], delay: [5parsec]}\n",
    "negative-rate.yaml": "name: x\ntopology: {generator: {name: star, workers: 2}}\n"
                          "strategies: [ddp]\nsweep: {bandwidth: [-100Gbit]}\n",
    "zero-rate.yaml": "name: x\ntopology: {generator: {name: star, workers: 2}}\n"
                      "strategies: [ddp]\nsweep: {bandwidth: [0Gbit]}\n",
    "zero-link.yaml": "hosts: [{name: h1, ip: 10.0.0.1/24}]\nswitches: [{name: s1}]\n"
                      "links: [{a: h1, b: s1, bw: 0Gbit}]\n",
    "topology-types.yaml": "hosts: {h1: 1}\nswitches: 2\nlinks: [{a: h1}]\n",
    "non-utf8.yaml": b"name: caf\xe9\ntopology: x\n",
    "empty.yaml": "",
    "binary.yaml": bytes(range(256)) * 4,
    "list.yaml": "- ddp\n- zero3\n",
    "syntax.yaml": "name: [unclosed\n",
}


def _corpus(tmp_path: Path) -> list[Path]:
    files = []
    for name, body in CORPUS.items():
        path = tmp_path / name
        path.write_bytes(body if isinstance(body, bytes) else body.encode())
        files.append(path)
    return files + [tmp_path / "missing.yaml"]


FILE_COMMANDS = [
    ["check", "{f}"],
    ["topo", "show", "{f}"],
    ["plan", "--fabric", "{f}", "--gpus", "2"],
    ["model", "predict", "--model", "gpt-1.3b", "--gpus", "2", "--fabric", "{f}",
     "--plot", ""],
    ["model", "measure", "{f}", "-o", "{tmp}/table.json"],
    ["trace", "export", "--model", "gpt-1.3b", "--gpus", "2", "--strategy", "ddp",
     "--fabric", "{f}", "-o", "{tmp}/trace"],
    ["run", "{f}", "-o", "{tmp}/run"],
    ["p4", "check", "{f}"],
    ["topo", "import", "{f}"],
    ["inspect", "{f}"],
]
RESULTS_COMMANDS = [
    ["model", "validate", "{d}"],
    ["model", "calibrate", "{d}"],
    ["plan", "--check", "{d}"],
    ["report", "{d}"],
]


@pytest.mark.parametrize("command", FILE_COMMANDS, ids=lambda c: " ".join(c[:2]))
def test_broken_files_end_in_a_message_not_a_traceback(command, tmp_path, capsys):
    for path in _corpus(tmp_path):
        # Guard: a file the loader accepts would bring a network up under `run`.
        assert run(capsys, "check", path)[0] == 2, path
        code, _, err = run(capsys, *(a.format(f=path, tmp=tmp_path) for a in command))
        assert code == 2, (command, path, err)
        assert "Traceback" not in err and 0 < len(err.strip().splitlines()) <= 6, (path, err)
        assert path.name in err or "--" in err, (path, err)


@pytest.mark.parametrize("command", RESULTS_COMMANDS, ids=lambda c: " ".join(c[:2]))
def test_broken_results_end_in_a_message_not_a_traceback(command, tmp_path, capsys):
    for path in _corpus(tmp_path):
        results = tmp_path / f"results-{path.stem}"
        results.mkdir()
        if path.exists():
            for name in ("experiment.yaml", "config.yaml", "summary.csv"):
                (results / name).write_bytes(path.read_bytes())
        code, _, err = run(capsys, *(a.format(d=results) for a in command))
        assert code == 2, (command, path, err)
        assert "Traceback" not in err and 0 < len(err.strip().splitlines()) <= 6, (path, err)


def test_check_topologies_and_programs(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    code, out, err = run(capsys, "check", "experiments/topologies/star-8.yaml",
                         "tests/net/data/triangle/topology.json", "p4/ina.p4")
    assert (code, err) == (0, "")
    assert "experiments/topologies/star-8.yaml: ok: topology, 8 hosts, 1 switches, 8 links, " \
        "co-scaling 0.0001" in out
    assert "8 links: 100 Gb/s nominal, 10 Mb/s emulated" in out
    assert "tests/net/data/triangle/topology.json: ok: topology, 3 hosts, 3 switches" in out
    assert "p4/ina.p4: ok: P4 program (v1model" in out
    assert "3 of 3 files ok" in out
