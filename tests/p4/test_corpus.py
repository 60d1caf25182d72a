"""Every corpus program passes its STF file; every program under p4/ loads; the CLI verb."""
from pathlib import Path

import pytest

from testbed import cli
from testbed.p4.lowering.program import load_program
from testbed.p4.stf.runner import run_file

HERE = Path(__file__).parent
CORPUS = sorted((HERE / "corpus").glob("*.p4"))
REPO_P4 = sorted((HERE.parent.parent / "p4").glob("*.p4"))
BASIC = HERE.parent.parent / "p4" / "basic.p4"


def test_corpus_has_a_test_file_per_program():
    assert len(CORPUS) >= 45
    missing = [p.name for p in CORPUS if not p.with_suffix(".stf").exists()]
    assert missing == []


@pytest.mark.parametrize("program", CORPUS, ids=lambda p: p.stem)
def test_corpus_program_passes_its_stf(program):
    report = run_file(load_program(str(program)), str(program.with_suffix(".stf")))
    assert report.passed, report.render(verbose=True)


@pytest.mark.parametrize("program", REPO_P4, ids=lambda p: p.name)
def test_repository_programs_load(program):
    loaded = load_program(str(program))
    assert loaded.arch == "v1model"


def test_basic_forwards_by_longest_prefix_and_drops_unrouted():
    report = run_file(load_program(str(BASIC)), str(HERE / "basic.stf"))
    assert report.passed, report.render(verbose=True)
    assert (report.packets_in, report.packets_out) == (3, 2)


def test_cli_stf_exit_codes(tmp_path, capsys):
    assert cli.main(["p4", "stf", str(BASIC), str(HERE / "basic.stf")]) == 0
    assert "3/3 checks passed" in capsys.readouterr().out

    wrong = tmp_path / "wrong.stf"
    wrong.write_text((HERE / "basic.stf").read_text().replace("expect 1 080000000111",
                                                               "expect 1 080000000112"))
    assert cli.main(["p4", "stf", str(BASIC), str(wrong)]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out and "08 00 00 00 01 12" in out and "08 00 00 00 01 11" in out

    bad = tmp_path / "bad.stf"
    bad.write_text("add MyIngress.ipv4_lpm hdr.ipv4.dstAddr:10.0.1.1/32 "
                   "MyIngress.ipv4_forward(dstAddr:1)\n")
    assert cli.main(["p4", "stf", str(BASIC), str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:1:53: error: action MyIngress.ipv4_forward needs a value for port" in err
    assert err.splitlines()[-1] == " " * 52 + "^"
