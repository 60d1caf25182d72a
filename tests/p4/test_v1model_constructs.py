"""P4_16 constructs v1model programs use beyond the basics: compound assignment, loops,
serializable enums in const entries, run-time stack indexes, entry priorities,
short-circuit evaluation, exit from nested actions; and those the target refuses, with
a diagnostic at the construct."""
import pytest

from testbed.errors import P4Error
from testbed.p4.lowering.program import load_source
from testbed.p4.python.target import Target
from tests.p4.v1prog import frame, res, source, target


def run(ingress: str, **parts) -> tuple:
    [(_, data)] = target(ingress, **parts).process(frame(b"\x00" * 16), 0)
    return res(data)


def test_compound_assignments_compute_as_their_binary_operators():
    assert run("""apply { hdr.res.setValid(); sm.egress_spec = 1;
        hdr.res.a = 5; hdr.res.a += 3; hdr.res.a <<= 2; hdr.res.a -= 1; hdr.res.a %= 7;
        hdr.res.b = 10; hdr.res.b -= 4; hdr.res.b >>= 1; hdr.res.b *= 5; hdr.res.b /= 2;
        hdr.res.c = 3; hdr.res.c *= 7; hdr.res.c |+|= 0xFFFFFFF0; hdr.res.d = 2;
        hdr.res.d |-|= 5; hdr.res.d |= 0xF0; hdr.res.d &= 0x3C; hdr.res.d ^= 0xFF; }""") \
        == (31 % 7, 7, 0xFFFFFFFF, 0xCF)


def test_three_clause_loops_with_break_and_continue():
    assert run("""apply { hdr.res.setValid(); sm.egress_spec = 1;
        for (bit<32> i = 0; i < 10; i += 1) {
            if (i == 6) { break; }
            if (i % 2 == 0) { continue; }
            hdr.res.a = hdr.res.a + i;                    // 1 + 3 + 5
        }
        for (bit<32> j = 1, bit<32> k = 2; j < 4; j = j + 1, k = k * 2) { hdr.res.b = k; }
        for (bit<32> i = 0; i < 3; i += 1) {
            for (bit<32> j = 0; j < 3; j += 1) {
                if (j == 2) { break; }
                hdr.res.c = hdr.res.c + 1;                 // twice per outer iteration
            }
        }
    }""") == (9, 8, 6, 0)


def test_loops_over_a_stack_and_over_ranges():
    assert run("""apply { hdr.res.setValid(); sm.egress_spec = 1;
        hdr.s[0].setValid(); hdr.s[0].v = 3; hdr.s[2].setValid(); hdr.s[2].v = 4;
        for (s_t x in hdr.s) {
            if (x.isValid()) { hdr.res.a = hdr.res.a + (bit<32>)x.v; }
            x.v = 99;                                      // a copy: the stack keeps 3, 4
        }
        hdr.res.a = hdr.res.a + (bit<32>)hdr.s[0].v;
        for (bit<8> n in 250 .. 255) { hdr.res.b = hdr.res.b + 1; }    // ends at the max
        for (bit<8> n in 3 .. 1) { hdr.res.c = 1; }                     // empty
        for (int<8> n in -2 .. 1) { hdr.res.d = hdr.res.d + (bit<32>)(bit<8>)n; }
    }""", decls="header s_t { bit<8> v; }", headers="s_t[3] s;") \
        == (10, 6, 0, 254 + 255 + 0 + 1)


def test_short_circuit_operators_skip_calls_with_side_effects():
    assert run("""
        action bump() { hdr.res.b = hdr.res.b + 1; }
        table t { actions = { bump; } default_action = bump(); }
        apply { hdr.res.setValid(); sm.egress_spec = 1;
            if (false && t.apply().hit) { hdr.res.a = 1; }
            if (hdr.res.a == 0 || f(hdr.res.c)) { hdr.res.a = 2; }
            if (hdr.res.a == 3 && f(hdr.res.c)) { hdr.res.d = 9; }
            if (hdr.res.a == 7 || f(hdr.res.c)) { hdr.res.d = hdr.res.d + 10; }
            bool x = hdr.res.a == 9 && f(hdr.res.c);
            hdr.res.d = hdr.res.d + (hdr.res.a == 2 ? (bit<32>)g(hdr.res.c)
                                                    : (bit<32>)g(hdr.res.b));
        }""", decls="bool f(inout bit<32> c) { c = c + 1; return true; }\n"
                    "bit<8> g(inout bit<32> c) { c = c + 100; return 1; }") \
        == (2, 0, 101, 11)


STRUCT_HEADER = dict(
    decls="struct pair_t { bit<12> hi; bit<4> lo; } header sh_t { bit<8> a; pair_t p; int<8> z; }",
    headers="sh_t sh; sh_t peeked;",
    parser="state start { pkt.extract(hdr.eth); hdr.peeked = pkt.lookahead<sh_t>();"
           " pkt.extract(hdr.sh); transition accept; }",
    deparser="pkt.emit(hdr.eth); pkt.emit(hdr.res); pkt.emit(hdr.sh); pkt.emit(hdr.extra);")


def test_structs_inside_headers_extract_assign_compare_and_emit():
    parts = dict(STRUCT_HEADER, headers=STRUCT_HEADER["headers"] + " sh_t extra;")
    t = target("""apply { hdr.res.setValid(); sm.egress_spec = 1;
        hdr.res.a = (bit<32>)hdr.sh.p.hi; hdr.res.b = (bit<32>)hdr.peeked.p.lo;
        hdr.res.c = (bit<32>)(bit<8>)hdr.sh.z;
        pair_t q = hdr.sh.p; q.lo = q.lo + 1; hdr.sh.p = q; hdr.sh.a = hdr.sh.a + 1;
        if (hdr.sh.p == q) { hdr.res.d = 1; }
        hdr.extra.p.hi = 0xABC; hdr.extra.setValid(); hdr.extra.p.lo = 3; }""", **parts)
    [(_, data)] = t.process(frame(bytes([7, 0x12, 0x34, 0xFE]) + b"rest"), 0)
    assert res(data) == (0x123, 4, 0xFE, 1)
    # sh: a + 1, p.lo + 1, z; extra: zeroed by setValid, then p.lo = 3
    assert data[30:38] == bytes([8, 0x12, 0x35, 0xFE, 0, 0x00, 0x03, 0])


def test_serializable_enums_as_const_entry_keys():
    assert run("""
        action hit(bit<32> v) { hdr.res.a = v; }
        table t { key = { meta.k: exact; } actions = { hit; NoAction; }
                  const entries = { Kind.A: hit(11); Kind.B: hit(22); }
                  default_action = NoAction(); }
        apply { hdr.res.setValid(); meta.k = Kind.B; t.apply(); sm.egress_spec = 1; }""",
               decls="enum bit<8> Kind { A = 1, B = 7 }", meta="Kind k;")[0] == 22


def test_run_time_stack_indexes_read_and_write_the_element():
    assert run("""apply { hdr.res.setValid(); sm.egress_spec = 1; meta.i = 2;
        hdr.s[meta.i].setValid(); hdr.s[meta.i].v = 9; hdr.s[meta.i - 1].v = 5;
        hdr.res.a = (bit<32>)hdr.s[meta.i].v; hdr.res.b = (bit<32>)hdr.s[1].v;
        hdr.res.c = (bit<32>)(bit<1>)hdr.s[meta.i].isValid(); }""",
               decls="header s_t { bit<8> v; }", headers="s_t[4] s;", meta="bit<8> i;") \
        == (9, 5, 1, 0)


def test_const_entry_priorities_larger_wins():
    ingress = """
        action hit(bit<32> v) { hdr.res.a = v; }
        table t { key = { hdr.eth.etherType: ternary; } actions = { hit; NoAction; }
                  const entries = { priority=10: 0x1234 &&& 0xFFFF: hit(1);
                                    priority=%d: 0x1200 &&& 0xFF00: hit(2); }
                  default_action = NoAction(); }
        apply { hdr.res.setValid(); t.apply(); sm.egress_spec = 1; }"""
    assert run(ingress % 20)[0] == 2
    assert run(ingress % 5)[0] == 1


def test_exit_in_a_nested_action_ends_the_control():
    assert run("""
        action inner() { hdr.res.a = 1; exit; }
        action outer() { inner(); hdr.res.b = 2; }
        apply { hdr.res.setValid(); sm.egress_spec = 1; outer(); hdr.res.c = 3; }""") \
        == (1, 0, 0, 0)


@pytest.mark.parametrize("parts, where, words", [
    (dict(ingress="apply { my_ext(1); }", decls="extern void my_ext(in bit<8> x);"),
     "test.p4:", "extern function my_ext: only v1model's extern functions run here"),
    (dict(ingress="apply { }", decls="struct pair_t { bit<16> hi; varbit<8> lo; } "
          "header sh_t { pair_t p; }", headers="sh_t sh;"),
     "test.p4:", "header field 'p' has type pair_t; header fields must be"),
    (dict(ingress="apply { }", decls="struct pair_t { bit<16> hi; } "
          "header sh_t { pair_t p; varbit<8> v; }", headers="sh_t sh;"),
     "test.p4:", "unsupported: header sh_t has both a varbit field and a struct field"),
    (dict(ingress="apply { break; }"), "test.p4:", "break outside a loop"),
    (dict(ingress="apply { for (bit<8> x in hdr.eth) { } }"), "test.p4:",
     "iterates over a header stack or a range"),
    (dict(ingress="apply { hdr.eth.isValid() += 1; }"), "test.p4:35:9:",
     "the left side of an assignment must be an assignable l-value"),
    (dict(ingress="apply { hdr.eth.etherType += true; }"), "test.p4:35:9:",
     "type mismatch: bit<16> and bool"),
])
def test_refused_constructs_are_diagnosed_at_their_source(parts, where, words):
    with pytest.raises(P4Error) as e:
        target(**parts)
    assert str(e.value).startswith(where) and words in str(e.value), str(e.value)


@pytest.mark.parametrize("backend", ["python", "native"])
def test_a_loop_that_does_not_end_drops_the_packet(backend):
    from testbed.p4.native.target import NativeTarget
    kind = {"python": Target, "native": NativeTarget}[backend]
    t = kind(load_source(source("apply { bit<8> x = 0; for (;;) { x = x + 1; } }"),
                         filename="test.p4"))
    assert t.process(frame(b"\x00" * 16), 0) == []
    assert t.drop_counts == {"assert": 1}


_PAIR_SET = """
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<16> b; bit<8> hit; }
struct pair_t { bit<8> a; bit<16> b; }
struct headers_t { h_t h; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    value_set<pair_t>(4) pairs;
    state start {
        pkt.extract(hdr.h);
        transition select(hdr.h.a, hdr.h.b) { pairs: mark; default: accept; }
    }
    state mark { hdr.h.hit = 1; transition accept; }
}
control C(inout headers_t hdr, inout meta_t m) { apply { } }
control I(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply { sm.egress_spec = 1; } }
control E(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), C(), I(), E(), C(), D()) main;
"""


@pytest.mark.parametrize("backend", ["python", "native"])
def test_one_value_set_matches_several_select_expressions(backend):
    from testbed.p4 import entries as E
    from testbed.p4.targets import make_target
    t = make_target(load_source(_PAIR_SET, "pairs.p4"), backend)
    assert t.backend == backend
    t.value_set_set("P.pairs", [(E.Exact(1), E.Exact(0x0203)),
                                (E.Ternary(0x80, 0x80), E.Exact(0x0405))])
    out = [t.process(bytes([a, b >> 8, b & 0xFF, 0]), 0)[0][1][3]
           for a, b in [(1, 0x0203), (1, 0x0204), (0x81, 0x0405), (0x01, 0x0405)]]
    assert out == [1, 0, 1, 0]
    with pytest.raises(P4Error, match=r"value_set pairs holds bit<8>; matching 2 select "
                                      r"expressions needs a struct of their 2 types"):
        load_source(_PAIR_SET.replace("value_set<pair_t>", "value_set<bit<8>>"), "bad.p4")
