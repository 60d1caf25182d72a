"""PSA programs: each passes its STF test, P4Info says psa, trainet-p4c --arch psa, the
CPU port, the backends' choice, and the frontend's errors for misfitting blocks."""
import json
import logging
from pathlib import Path

import pytest
from google.protobuf import text_format
from p4.config.v1 import p4info_pb2

from testbed.errors import P4Error, TrainetError
from testbed.p4 import artifact, p4info
from testbed.p4 import entries as E
from testbed.p4.targets import make_target
from testbed.p4.lowering.program import load_program, load_source
from testbed.p4.p4c import main as p4c
from testbed.p4.psa.target import PsaTarget
from testbed.p4.stf.runner import run_file

HERE = Path(__file__).parent / "psa"
PROGRAMS = sorted(HERE.glob("*.p4"))
FORWARD = HERE / "forward.p4"


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.stem)
def test_psa_program_passes_its_stf(program):
    loaded = load_program(str(program))
    assert (loaded.arch, loaded.package) == ("psa", "PSA_Switch")
    report = run_file(loaded, str(program.with_suffix(".stf")))
    assert report.passed, report.render(verbose=True)


def test_p4info_of_psa_externs():
    info = p4info.build(load_program(str(HERE / "externs.p4")))
    assert info.pkg_info.arch == "psa"
    assert [(c.preamble.name, c.spec.unit, c.size) for c in info.counters] == \
        [("IngressImpl.port_packets", p4info_pb2.CounterSpec.BOTH, 8)]
    (direct,) = info.direct_counters
    assert direct.preamble.name == "IngressImpl.per_entry"
    assert direct.direct_table_id == info.tables[0].preamble.id
    assert [(r.preamble.name, r.size, r.type_spec.bitstring.bit.bitwidth)
            for r in info.registers] == [("IngressImpl.seen", 4, 16)]
    assert [m.preamble.name for m in info.meters] == ["IngressImpl.rate"]
    (digest,) = info.digests
    assert (digest.preamble.name, digest.type_spec.struct.name) == \
        ("IngressDeparserImpl.learned", "learn_t")


def test_trainet_p4c_compiles_a_psa_program(tmp_path):
    out, info = tmp_path / "forward.json", tmp_path / "forward.p4info.txtpb"
    assert p4c(["--arch", "psa", "--p4runtime-files", str(info), "-o", str(out),
                str(FORWARD)]) == 0
    doc = json.loads(out.read_text())
    assert doc["arch"] == "psa"
    assert artifact.load(doc, str(out)).package == "PSA_Switch"
    parsed = text_format.Parse(info.read_text(), p4info_pb2.P4Info())
    assert parsed.pkg_info.arch == "psa"
    assert [t.preamble.name for t in parsed.tables] == ["IngressImpl.ipv4_lpm"]


def test_trainet_p4c_refuses_a_psa_program_as_v1model(tmp_path, capsys):
    assert p4c(["-o", str(tmp_path / "x.json"), str(FORWARD)]) == 2
    assert "is a psa program (PSA_Switch main), not v1model; give --arch psa" in \
        capsys.readouterr().err


def test_cpu_port_is_psa_port_cpu_both_ways():
    target = PsaTarget(load_program(str(FORWARD)), cpu_port=64)
    target.table_insert(E.TableEntry("IngressImpl.ipv4_lpm", (E.Lpm(0x0A000000, 8),),
                                     E.ActionCall("IngressImpl.forward",
                                                  {"dstAddr": 7, "port": 0xFFFFFFFD})))
    ipv4 = bytes.fromhex("4500001400000000400600000A0000010A000105")
    frame = bytes(6) + bytes(5) + b"\x09" + b"\x08\x00" + ipv4
    ((port, _),) = target.process(frame, 3)
    assert port == 64
    passes = PsaTarget(load_program(str(HERE / "passes.p4")), cpu_port=64)
    ((port, out),) = passes.process(bytes(14), 64)
    assert (port, out[9]) == (1, 0xFD)      # ingress saw PSA_PORT_CPU (0xFFFFFFFD)


def test_backends_run_psa_on_python(caplog):
    program = load_program(str(FORWARD))
    with caplog.at_level(logging.WARNING, logger="testbed.p4.target"):
        assert isinstance(make_target(program, "auto"), PsaTarget)
    # the refusal names the package at the line of ``main``
    where = f"{FORWARD}:{program.package_loc.line}:1: "
    assert program.package_loc.line > 1
    assert (f"P4 backend: python, not native: {where}the native backend runs v1model "
            "programs, not psa (PSA_Switch)") in caplog.text
    with pytest.raises(TrainetError) as e:
        make_target(program, "native")
    assert str(e.value) == (f"backend native: {where}the native backend runs v1model "
                            "programs, not psa (PSA_Switch); use --backend python or auto")


def _variant(old: str, new: str) -> str:
    text = FORWARD.read_text()
    assert old in text
    return text.replace(old, new)


@pytest.mark.parametrize("old, new, words", [
    ("inout metadata_t meta,\n                    in psa_ingress_input_metadata_t istd",
     "inout metadata_t meta,\n                    in psa_egress_input_metadata_t istd",
     "IngressImpl: parameter 'istd' must have type psa_ingress_input_metadata_t"),
    ("control IngressImpl(inout headers_t hdr,", "control IngressImpl(inout empty_t hdr,",
     "IngressImpl: parameter 'hdr' has type empty_t, but IngressParserImpl uses headers_t"),
    ("IngressPipeline(IngressParserImpl(), IngressImpl()",
     "IngressPipeline(IngressImpl(), IngressImpl()",
     "argument 'ip' of PSA_Switch must be a parser, IngressImpl is a control"),
    ("PSA_Switch(ip, PacketReplicationEngine(), ep,",
     "PSA_Switch(ip, BufferingQueueingEngine(), ep,",
     "argument 'pre' of PSA_Switch must be PacketReplicationEngine()"),
    ("BufferingQueueingEngine()) main;", "BufferingQueueingEngine()) sw;",
     "the package instance must be named 'main'"),
])
def test_misfitting_psa_blocks_are_refused_at_their_place(old, new, words):
    with pytest.raises(P4Error) as e:
        load_source(_variant(old, new), "forward.p4")
    assert words in str(e.value)
    assert e.value.loc is not None and e.value.loc.file == "forward.p4"


def test_an_empty_packet_is_reported_as_empty_not_missing(tmp_path):
    """An egress deparser that emits nothing, after an egress parser that extracted the
    whole frame, sends an empty packet: the report says so instead of "no packet"."""
    text = (HERE / "register_ports.p4").read_text()
    emit = "                           in psa_egress_deparser_input_metadata_t edstd) {\n" \
           "    apply {\n        pkt.emit(hdr.ethernet);\n"
    assert emit in text
    program = load_source(text.replace(emit, emit.replace("pkt.emit(hdr.ethernet);", "")),
                          str(tmp_path / "emits_nothing.p4"))
    stf = tmp_path / "emits_nothing.stf"
    stf.write_text("packet 4 000000000001 000000000000 ffff\n"
                   "expect 3 000000000001 000000000001 ffff $\n")
    report = run_file(program, str(stf))
    assert (report.passed, report.packets_out) == (False, 1)
    text = report.render(verbose=True)
    assert "port 3 packet 1 -- empty packet: the deparsers emitted nothing" in text
    assert "actual:   (empty packet: 0 bytes)" in text and "(no packet)" not in text


def test_a_clone_takes_its_sessions_class_of_service():
    target = PsaTarget(load_program(str(HERE / "clone_received.p4")))
    target.clone_session_set(E.CloneSession(4, [E.Replica(6)], class_of_service=3))
    frame = bytes.fromhex("000000000001" "000000000002" "0800" "00000002" "cafe")
    out = dict(target.process(frame, 1))
    assert out[2][:14] == bytes.fromhex("AAAAAAAAAAAA" "000000000005" "0800")
    assert out[6] == bytes.fromhex("000000000001" "000000000002" "C103" "00000002" "cafe")
