"""The STF runner itself: syntax errors, packet matching and the report."""
from pathlib import Path

import pytest

from testbed.errors import P4Error
from testbed.p4 import ir
from testbed.p4.stf.runner import match_packet, run_file
from testbed.p4.stf.syntax import parse_text


class EchoTarget:
    """Stand-in target: sends every frame out of port ingress+1, drops frames starting 00."""

    digest_handler = None

    def process(self, frame, port):
        return [] if frame[:1] == b"\0" else [(port + 1, frame)]


EMPTY = ir.Program(source="x.p4", arch="v1model", types={}, errors=[], match_kinds=[],
                   constants={}, functions={}, actions={}, parsers={}, controls={},
                   package="V1Switch", blocks={})


def run(tmp_path, text):
    path = tmp_path / "t.stf"
    path.write_text(text)
    return run_file(EMPTY, str(path), target=EchoTarget())


def test_matching_packets_pass(tmp_path):
    report = run(tmp_path, "packet 0 01 02 03\nexpect 1 010203 $\n")
    assert report.passed
    assert "1/1 checks passed, 1 packets in, 1 packets out" in report.render()


def test_failing_expectation_shows_both_byte_strings_and_marks_nibbles(tmp_path):
    report = run(tmp_path, "packet 0 0102A3\nexpect 1 0102B3\n")
    assert not report.passed
    text = report.render()
    assert "FAIL" in text and "t.stf:2:1" in text and "bytes differ" in text
    lines = text.splitlines()
    exp = next(l for l in lines if "expected:" in l)
    act = next(l for l in lines if "actual:" in l)
    mark = lines[lines.index(act) + 1]
    assert exp.endswith("01 02 B3") and act.endswith("01 02 A3")
    assert mark.index("^") == act.index("A")


def test_dont_care_nibbles_and_exact_end():
    assert match_packet("01**03", False, bytes.fromhex("01FF03"))
    assert match_packet("01*", False, bytes.fromhex("0123"))
    assert match_packet("0102", False, bytes.fromhex("010203"))      # longer is fine
    assert not match_packet("0102", True, bytes.fromhex("010203"))   # ... unless '$'
    assert not match_packet("010203", False, bytes.fromhex("0102"))  # shorter never
    assert not match_packet("01*4", False, bytes.fromhex("0123"))


def test_extra_and_missing_packets_fail(tmp_path):
    report = run(tmp_path, "packet 0 01\npacket 0 02\nexpect 1 01\n")
    assert not report.passed
    assert "unexpected packet" in report.render()
    report = run(tmp_path, "packet 0 01\nexpect 1 01\nexpect 1 02\n")
    assert not report.passed
    assert "packet missing" in report.render()


def test_expectations_per_port_keep_their_order(tmp_path):
    ok = run(tmp_path, "packet 0 01\npacket 5 02\npacket 0 03\n"
                       "expect 1 01\nexpect 6 02\nexpect 1 03\n")
    assert ok.passed
    swapped = run(tmp_path, "packet 0 01\npacket 0 03\nexpect 1 03\nexpect 1 01\n")
    assert not swapped.passed


def test_port_without_data_accepts_anything_and_unnamed_ports_are_not_captured(tmp_path):
    assert run(tmp_path, "packet 0 01\npacket 0 02\nexpect 1\n").passed
    report = run(tmp_path, "packet 7 01\n")        # leaves on port 8, named nowhere
    assert report.passed
    assert "not captured: port 8" in report.render(verbose=True)


def test_no_packet_checks_the_previous_packet(tmp_path):
    assert run(tmp_path, "packet 0 00\nno_packet\n").passed
    report = run(tmp_path, "packet 0 01\nno_packet\nexpect 1 01\n")
    assert not report.passed
    assert "port 1: 01" in report.render()


@pytest.mark.parametrize("text, where, what", [
    ("packet 0 0102\nfrobnicate 1\n", "t.stf:2:1", "unknown STF command 'frobnicate'"),
    ("packet 0 012\n", "t.stf:1:10", "odd number of hex digits"),
    ("packet 0 01zz\n", "t.stf:1:12", "invalid character 'z'"),
    ("expect 1 01 $ 02\n", "t.stf:1:13", "'$' must be the last"),
    ("add t a:1 set(v:1\n", "t.stf:1:18", "expected ',' or ')'"),
    ("  mirroring_add 1\n", "t.stf:1:18", "expected a number"),
    ("packet x 01\n", "t.stf:1:7", "needs a port number"),
])
def test_bad_syntax_reports_file_line_col(tmp_path, text, where, what):
    path = tmp_path / "t.stf"
    path.write_text(text)
    with pytest.raises(P4Error) as err:
        run_file(EMPTY, str(path), target=EchoTarget())
    rendered = err.value.render()
    assert rendered.startswith(f"{path.parent}/{where}: error: "), rendered
    assert what in rendered


def test_unknown_table_is_reported_at_its_token(tmp_path):
    path = tmp_path / "t.stf"
    path.write_text("# c\nadd nosuch a:1 act()\n")
    with pytest.raises(P4Error) as err:
        run_file(EMPTY, str(path), target=EchoTarget())
    assert f"{path}:2:5: error: no table named 'nosuch'" in err.value.render()


def test_parse_text_reads_comments_and_values():
    cmds = parse_text("# comment\nadd t 10 h.f:0x**01 h.g:10.0.0.1/8 a(x:1) = E1  # tail\n")
    (add,) = cmds
    assert add.priority.text == "10" and add.handle.text == "E1"
    assert [(k.text, v.text) for k, v in add.keys] == [("h.f", "0x**01"), ("h.g", "10.0.0.1/8")]


# ---------------------------------------------------------------- with real programs
TWO_TABLES = """
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; bit<16> c; }
struct headers_t { h_t h; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t m) { apply { } }
control Ing(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    counter(4, CounterType.packets) seen;
    action set_b(bit<8> v) { hdr.h.b = v; }
    table by_a {
        key = { hdr.h.a : ternary; }
        actions = { set_b; NoAction; }
        default_action = NoAction();
    }
    table by_c {
        key = { hdr.h.c : exact; }
        actions = { set_b; NoAction; }
        default_action = NoAction();
    }
    apply {
        seen.count(0);
        by_a.apply();
        by_c.apply();
        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), Ing(), Eg(), CC(), D()) main;
"""


@pytest.fixture(scope="module")
def two_tables():
    from testbed.p4.lowering.program import load_source
    return load_source(TWO_TABLES, "two.p4")


def run_real(program, tmp_path, text):
    path = tmp_path / "t.stf"
    path.write_text(text)
    return run_file(program, str(path))


def test_larger_stf_priority_wins(two_tables, tmp_path):
    text = ("add by_a {lo} a:0x1* set_b(v:1)\nadd by_a {hi} a:0x12 set_b(v:2)\n"
            "packet 0 12000000\nexpect 1 12{want}0000 $\n")
    assert run_real(two_tables, tmp_path, text.format(lo=1, hi=2, want="02")).passed
    assert run_real(two_tables, tmp_path, text.format(lo=2, hi=1, want="01")).passed


def test_ternary_table_needs_a_priority(two_tables, tmp_path):
    with pytest.raises(P4Error) as err:
        run_real(two_tables, tmp_path, "add Ing.by_a a:0x12 Ing.set_b(v:1)\n")
    assert "t.stf:1:1: error: table Ing.by_a has ternary/range/optional keys" in str(err.value)


@pytest.mark.parametrize("line, col, what", [
    ("add by_c c:0x10000 set_b(v:1)", 12, "value 0x10000 does not fit in 16 bits"),
    ("add by_c c:1 set_b(w:1)", 20, "action Ing.set_b has no parameter 'w'"),
    ("add by_c c:1 drop()", 14, "no action of table Ing.by_c named 'drop'"),
    ("add by_c nokey:1 set_b(v:1)", 10, "no key field named 'nokey'"),
    ("add by_ 3 a:1 set_b(v:1)", 5, "no table named 'by_'"),
    ("add by_c c:1/8 set_b(v:1)", 12, "an exact key takes a plain value"),
    ("check_counter nosuch(0) packets == 1", 15, "no counter named 'nosuch'"),
])
def test_name_and_value_errors_point_at_the_token(two_tables, tmp_path, line, col, what):
    with pytest.raises(P4Error) as err:
        run_real(two_tables, tmp_path, line + "\n")
    text = err.value.render()
    assert f"t.stf:1:{col}: error: " in text and what in text, text
    assert text.splitlines()[-1] == " " * (col - 1) + "^"


def test_counter_check_failure_is_reported(two_tables, tmp_path):
    report = run_real(two_tables, tmp_path, "packet 0 00000000\nexpect 1 00000000\n"
                                            "check_counter seen(0) packets == 2\n")
    assert not report.passed
    text = report.render()
    assert "FAIL" in text and "counter Ing.seen[0] packets" in text
    assert "expected: == 2" in text and "actual:   1" in text


def test_setdefault_applies_to_later_packets_only(two_tables, tmp_path):
    report = run_real(two_tables, tmp_path,
                      "packet 0 00000007\nsetdefault by_c set_b(v:0x55)\npacket 0 00000007\n"
                      "expect 1 00000007 $\nexpect 1 00550007 $\n")
    assert report.passed, report.render()


def test_priority_zero_is_accepted_and_ranks_lowest(two_tables, tmp_path):
    text = ("add by_a 0 a:0x1* set_b(v:1)\nadd by_a 1 a:0x12 set_b(v:2)\n"
            "packet 0 12000000\npacket 0 13000000\nexpect 1 12020000 $\nexpect 1 13010000 $\n")
    assert run_real(two_tables, tmp_path, text).passed


def test_value_set_members_from_stf(tmp_path):
    program = (Path(__file__).parent / "corpus" / "parser_value_set.p4")
    from testbed.p4.lowering.program import load_program
    loaded = load_program(str(program))
    with pytest.raises(P4Error) as err:
        run_real(loaded, tmp_path, "value_set_set special 1 2 3 4 5\n")
    assert "t.stf:1:31: error: value_set MyParser.special holds at most 4 members" in str(err.value)
    with pytest.raises(P4Error) as err:
        run_real(loaded, tmp_path, "value_set_set nosuch 1\n")
    assert "t.stf:1:15: error: no value_set named 'nosuch'" in str(err.value)
