"""trainet-p4c takes p4c-bm2-ss's and the p4c driver's command lines."""
import json
from pathlib import Path

from google.protobuf import json_format, text_format
from p4.config.v1 import p4info_pb2

from testbed.cli import main as trainet
from testbed.p4 import artifact, p4info
from testbed.p4.lowering.program import load_program
from testbed.p4.p4c import main

REPO = Path(__file__).resolve().parents[2]
BASIC = REPO / "p4" / "basic.p4"
FEATURES = REPO / "tests" / "p4" / "programs" / "features.p4"


def _basic_info():
    return p4info.build(load_program(BASIC))


def test_p4c_bm2_ss_form_writes_the_artefact_and_p4info_in_each_format(tmp_path):
    out = tmp_path / "basic.json"
    files = [tmp_path / n for n in ("basic.p4info.txtpb", "basic.p4info.txt",
                                    "basic.p4info.json", "basic.p4info.bin")]
    assert main(["--p4v", "16", "--p4runtime-files", ",".join(map(str, files)),
                 "-o", str(out), str(BASIC)]) == 0
    info = _basic_info()
    for text in files[:2]:
        assert text_format.Parse(text.read_text(), p4info_pb2.P4Info()) == info
    assert json_format.Parse(files[2].read_text(), p4info_pb2.P4Info()) == info
    assert p4info_pb2.P4Info.FromString(files[3].read_bytes()) == info
    doc = json.loads(out.read_text())
    assert artifact.is_artifact(doc) and doc["program"] == "basic.p4"
    assert p4info.build(artifact.load(doc, str(out))) == info


def test_older_p4runtime_file_and_format_options(tmp_path):
    out = tmp_path / "basic.p4info"
    assert main(["--std", "p4-16", "--p4runtime-file", str(out), "--p4runtime-format", "text",
                 "-o", str(tmp_path / "b.json"), str(BASIC)]) == 0
    assert text_format.Parse(out.read_text(), p4info_pb2.P4Info()) == _basic_info()


def test_driver_form_writes_outdir_prog_json(tmp_path, monkeypatch):
    assert main(["--target", "bmv2", "--arch", "v1model", "-o", str(tmp_path / "out"),
                 str(BASIC)]) == 0
    assert artifact.is_artifact(json.loads((tmp_path / "out" / "basic.json").read_text()))
    monkeypatch.chdir(tmp_path)
    assert main([str(BASIC)]) == 0 and (tmp_path / "basic.json").is_file()


def test_defines_and_include_dirs_reach_the_preprocessor(tmp_path):
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "size.h").write_text("#define TABLE_SIZE 77\n")
    prog = tmp_path / "prog.p4"
    prog.write_text(BASIC.read_text().replace("size = 1024;", "size = TABLE_SIZE;")
                    .replace("#include <v1model.p4>", "#include <v1model.p4>\n#include <size.h>"))
    out = tmp_path / "prog.p4info.txt"
    assert main(["-I", str(inc), "-DUNUSED=1", "--p4runtime-files", str(out), "-o",
                 str(tmp_path / "prog.json"), str(prog)]) == 0
    assert text_format.Parse(out.read_text(), p4info_pb2.P4Info()).tables[0].size == 77


def test_bad_input_is_refused_with_what_to_do(tmp_path, capsys):
    out = tmp_path / "x.json"
    cases = [(["--p4runtime-files", str(tmp_path / "x.yaml")], "unknown P4Info file extension"),
             (["--p4v", "14"], "P4_14 is not supported"),
             (["--arch", "psa"], "is a v1model program (V1Switch main), not psa; give "
                                 "--arch v1model"),
             (["--arch", "tna"], "unknown architecture"),
             (["--target", "tofino"], "the only target is bmv2")]
    for extra, words in cases:
        assert main([*extra, "-o", str(out), str(BASIC)]) == 2
        assert words in capsys.readouterr().err
        assert not out.exists()
    broken = tmp_path / "broken.p4"
    broken.write_text(BASIC.read_text().replace("bit<9>  egressSpec_t;", "bit<9>  egressSpec_t"))
    assert main(["-o", str(out), str(broken)]) == 2
    assert f"{broken}:" in capsys.readouterr().err and not out.exists()


def test_trainet_p4_info_picks_the_format_by_extension(tmp_path, capsys):
    out = tmp_path / "basic.p4info.txtpb"
    assert trainet(["p4", "info", str(BASIC), "-o", str(out)]) == 0
    assert text_format.Parse(out.read_text(), p4info_pb2.P4Info()) == _basic_info()
    assert trainet(["p4", "info", str(BASIC), "-o", str(tmp_path / "x.p4info")]) == 2
    assert "unknown P4Info file extension" in capsys.readouterr().err
