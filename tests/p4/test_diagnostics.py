"""Diagnostics: every problem is a P4Error at the original file:line:col, with the source line
and a caret, and a message saying what is wrong."""
import pytest

from testbed import cli
from testbed.errors import P4Error
from testbed.p4.lowering.program import load_program, load_source

# Lines 1-5; the text under test starts on line 6.
HEAD = """#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<16> b; }
struct H { h_t h; }
struct M { bit<8> x; }
"""
TAIL = """
parser P(packet_in pkt, out H hdr, inout M meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout H hdr, inout M meta) { apply { } }
control E(inout H hdr, inout M meta, inout standard_metadata_t sm) { apply { } }
control CC(inout H hdr, inout M meta) { apply { } }
control D(packet_out pkt, in H hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""
INGRESS = "control I(inout H hdr, inout M meta, inout standard_metadata_t sm) {\n"


def diagnose(text: str, filename="t.p4", **kw) -> P4Error:
    with pytest.raises(P4Error) as e:
        load_source(HEAD + text + TAIL, filename, **kw)
    return e.value


def ingress(body: str, locals_: str = "") -> P4Error:
    """Ingress starts on line 6; locals_ on line 7; 'apply {' then the body from line 8
    (or 7 without locals)."""
    return diagnose(INGRESS + (locals_ + "\n" if locals_ else "") + "apply {\n" + body
                    + "\n}\n}\n")


def test_syntax_error_points_at_the_unexpected_token():
    err = ingress("    meta.x = 1\n    meta.x = 2;")
    assert str(err.loc) == "t.p4:9:5"
    assert err.message.startswith("syntax error: unexpected 'meta'")
    assert "expected ';'" in err.message
    rendered = err.render().splitlines()
    assert rendered == ["t.p4:9:5: error: " + err.message, "    meta.x = 2;", "    ^"]


def test_undefined_name():
    err = ingress("    meta.x = undefined_thing;")
    assert str(err.loc) == "t.p4:8:14"
    assert err.message == "undefined name 'undefined_thing'"


def test_assignment_type_mismatch_needs_a_cast():
    err = ingress("    meta.x = hdr.h.b;")
    assert str(err.loc) == "t.p4:8:14"
    assert err.message == "type mismatch: expected bit<8>, got bit<16>; use an explicit cast"


def test_width_prefixed_literal_too_large():
    err = ingress("    meta.x = 8w256;")
    assert str(err.loc) == "t.p4:8:14"
    assert err.message == "value 256 does not fit in bit<8>"


def test_operands_of_different_widths():
    err = ingress("    if (hdr.h.a == hdr.h.b) { }")
    assert str(err.loc) == "t.p4:8:9"
    assert err.message == "type mismatch: bit<8> and bit<16>; cast one operand"


def test_wrong_argument_count_of_extern_function():
    err = ingress("    mark_to_drop(sm, sm);")
    assert str(err.loc) == "t.p4:8:5"
    assert err.message == "mark_to_drop takes 0 or 1 arguments, 2 given"


def test_wrong_argument_count_of_action_call():
    err = ingress("    set(1, 2);", "    action set(bit<8> v) { meta.x = v; }")
    assert str(err.loc) == "t.p4:9:5"
    assert err.message == "action set takes 1 argument, 2 given"


def test_assignment_to_a_non_lvalue():
    err = ingress("    hdr.h.isValid() = true;")
    assert str(err.loc) == "t.p4:8:5"
    assert err.message == "the left side of an assignment must be an assignable l-value"


def test_assignment_to_an_in_parameter():
    err = ingress("    a(meta.x);", "    action a(in bit<8> v) { v = 1; }")
    assert str(err.loc) == "t.p4:7:29"
    assert err.message == "the left side of an assignment: 'v' is read-only (in parameter)"


def test_out_argument_must_be_writable():
    err = ingress("    hash(hdr.h.isValid(), HashAlgorithm.crc16, 8w0, { hdr.h.a }, 8w4);")
    assert str(err.loc) == "t.p4:8:10"
    assert err.message == "argument for out parameter 'result' must be an assignable l-value"


def test_slice_out_of_range():
    err = ingress("    meta.x = hdr.h.b[16:9];")
    assert str(err.loc) == "t.p4:8:14"
    assert err.message == "slice [16:9] is out of range for bit<16>; need 15 >= hi >= lo >= 0"


def test_unknown_match_kind_and_action_not_in_table():
    err = ingress("    t.apply();",
                  "    table t { key = { hdr.h.a: fuzzy; } actions = { NoAction; } }")
    assert str(err.loc) == "t.p4:7:32"
    assert err.message.startswith("unknown match kind 'fuzzy'; use one of exact, ternary, lpm")
    err = ingress("    t.apply();", "    action a() { }\n    table t { actions = { NoAction; } "
                  "default_action = a(); }")
    assert str(err.loc) == "t.p4:8:56"
    assert err.message == "action a is not in the actions of table t"


def test_undefined_parser_state():
    with pytest.raises(P4Error) as e:
        load_source(HEAD + "parser Q(packet_in pkt, out H hdr) {\n"
                    "    state start { transition parse_nothing; }\n}\n"
                    + INGRESS + "apply { }\n}\n" + TAIL, "t.p4")
    assert str(e.value.loc) == "t.p4:7:30"
    assert e.value.message == "undefined state 'parse_nothing'"


def test_error_inside_an_included_file(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "bad.p4").write_text(
        "// helper declarations\nheader bad_t {\n    bit<8> a;\n    undefined_t b;\n}\n")
    main = tmp_path / "main.p4"
    main.write_text('#include <core.p4>\n#include "lib/bad.p4"\n')
    with pytest.raises(P4Error) as e:
        load_program(str(main))
    assert e.value.loc.file == str(tmp_path / "lib" / "bad.p4")
    assert (e.value.loc.line, e.value.loc.col) == (4, 5)
    assert e.value.message == "unknown type 'undefined_t'"
    assert e.value.render().splitlines()[1:] == ["    undefined_t b;", "    ^"]


def test_syntax_error_in_an_included_file_found_with_I(tmp_path):
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "defs.p4").write_text("const bit<8> A = 1;\nconst bit<8> B = ;\n")
    main = tmp_path / "main.p4"
    main.write_text("#include <defs.p4>\n")
    with pytest.raises(P4Error) as e:
        load_program(str(main), include_dirs=[str(inc)])
    assert str(e.value.loc) == f"{inc / 'defs.p4'}:2:18"
    assert e.value.message.startswith("syntax error: unexpected ';'")


def test_error_in_macro_expansion_points_at_the_macro_use():
    err = diagnose("#define BAD_VALUE meta.nothing\n" + INGRESS
                   + "apply {\n    meta.x = BAD_VALUE;\n}\n}\n")
    assert str(err.loc) == "t.p4:9:14"
    assert err.message == "M has no field 'nothing'"


def test_unsupported_construct_says_so():
    err = diagnose("extern Ab { Ab(); abstract bit<8> f(); }\n" + INGRESS + "apply { }\n}\n")
    assert str(err.loc) == "t.p4:6:19"
    assert err.message == "unsupported: abstract extern methods"


def test_a_generic_function_needs_its_type_arguments_inferred_or_given():
    err = diagnose("T pick<T>(in T a, in T b) { return a; }\n" + INGRESS
                   + "apply {\n    pick(meta.x, hdr.h.b);\n}\n}\n")
    assert str(err.loc) == "t.p4:9:18"
    assert err.message.startswith("argument 'b' of pick: expected bit<8>, got bit<16>")
    err = diagnose("void nothing<T>() { }\n" + INGRESS + "apply {\n    nothing();\n}\n}\n")
    assert str(err.loc) == "t.p4:9:5"
    assert err.message == "cannot infer T of nothing; give the type argument"


def test_generic_type_used_without_or_with_wrong_type_arguments():
    err = diagnose("struct G<T> { T f; }\nstruct U { G g; }\n")
    assert str(err.loc) == "t.p4:7:12"
    assert err.message == "'G' is generic; give its type arguments, e.g. G<bit<8>>"
    err = diagnose("header G<A, B> { A f; B g; }\nstruct U { G<bit<8>> g; }\n")
    assert str(err.loc) == "t.p4:7:12"
    assert err.message == "G takes 2 type arguments, 1 given"
    err = diagnose("header G<T> { T f; }\nstruct U { G<H> g; }\n")
    assert "header fields must be" in err.message


def test_named_package_arguments_are_checked():
    text = INGRESS + "apply { }\n}\n" + TAIL.replace(
        "V1Switch(P(), VC(), I(), E(), CC(), D())",
        "V1Switch(p = P(), vr = VC(), ig = I(), eg = E(), ck = CC(), dp = D())")
    with pytest.raises(P4Error) as e:
        load_source(HEAD + text, "t.p4")
    assert e.value.message == "V1Switch has no parameter 'dp'"
    text = text.replace("dp = D()", "D()")
    with pytest.raises(P4Error) as e:
        load_source(HEAD + text, "t.p4")
    assert e.value.message == "V1Switch: use either all positional or all named arguments"


def test_unknown_type_and_duplicate_declaration():
    err = diagnose("typedef nothing_t other_t;\n")
    assert str(err.loc) == "t.p4:6:9"
    assert err.message == "unknown type 'nothing_t'"
    err = ingress("    bit<8> v;\n    bit<16> v;")
    assert str(err.loc) == "t.p4:9:13"
    assert err.message == "'v' is already declared in this scope; rename one of them"


def test_block_with_wrong_parameter_types_for_the_package():
    err = diagnose("struct M2 { bit<8> y; }\ncontrol I(inout H hdr, inout M2 meta, "
                   "inout standard_metadata_t sm) { apply { } }\n")
    assert str(err.loc) == "t.p4:7:30"
    assert err.message == "I: parameter 'meta' has type M2, but P uses M"


def test_missing_package_instantiation():
    with pytest.raises(P4Error) as e:
        load_source("#include <core.p4>\n#include <v1model.p4>\n", "empty.p4")
    assert e.value.message == "no package instantiation; add e.g. V1Switch(MyParser(), ...) main;"


def test_unexpected_character_and_end_of_input():
    err = ingress("    meta.x = 1 $ 2;")
    assert str(err.loc) == "t.p4:8:16"
    assert err.message == "syntax error: unexpected character '$'"
    with pytest.raises(P4Error) as e:
        load_source(HEAD + INGRESS + "apply {\n", "t.p4")
    assert e.value.message.startswith("syntax error: unexpected end of input")
    assert e.value.loc.file == "t.p4"


def test_cli_check_prints_the_diagnostic_and_exits_2(tmp_path, capsys):
    bad = tmp_path / "bad.p4"
    bad.write_text(HEAD + INGRESS + "apply {\n    meta.x = hdr.h.b;\n}\n}\n" + TAIL)
    assert cli.main(["p4", "check", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.splitlines() == [
        f"{bad}:8:14: error: type mismatch: expected bit<8>, got bit<16>; use an explicit cast",
        "    meta.x = hdr.h.b;",
        "             ^"]
    assert "Traceback" not in err


def test_block_parameter_direction_and_fixed_type_must_match_v1model():
    err = diagnose("control I(in H hdr, inout M meta, inout standard_metadata_t sm) "
                   "{ apply { } }\n")
    assert str(err.loc) == "t.p4:6:14"
    assert err.message == "I: parameter 'hdr' must be inout (as in Ingress), not in"
    err = diagnose("control I(inout H hdr, inout M meta, inout M sm) { apply { } }\n")
    assert str(err.loc) == "t.p4:6:44"
    assert err.message == ("I: parameter 'sm' must have type standard_metadata_t "
                           "(as in Ingress), not M")


def test_misspelled_names_get_a_suggestion():
    err = ingress("    meta.x = hdr.h.aa;")
    assert str(err.loc) == "t.p4:8:20"
    assert err.message == "h_t has no field 'aa'; did you mean 'a'?"
    err = ingress("    meta.x = hrd.h.a;")
    assert str(err.loc) == "t.p4:8:14"
    assert err.message == "undefined name 'hrd'; did you mean 'hdr'?"


def test_exit_in_a_parser_state():
    with pytest.raises(P4Error) as e:
        load_source(HEAD + "parser Q(packet_in pkt, out H hdr) {\n"
                    "    state start { exit; transition accept; }\n}\n" + INGRESS
                    + "apply { }\n}\n" + TAIL, "t.p4")
    assert str(e.value.loc) == "t.p4:7:19"
    assert e.value.message == "exit is not allowed in a parser; use transition reject or accept"


def test_undeclared_type_in_a_declaration_versus_a_plain_syntax_error():
    err = ingress("    foo_t v;")
    assert str(err.loc) == "t.p4:8:5"
    assert err.message == "unknown type 'foo_t'"
    err = ingress("    meta.x = meta.x meta;")
    assert str(err.loc) == "t.p4:8:21"
    assert err.message.startswith("syntax error: unexpected 'meta'; expected ';'")


def test_missing_architecture_include_is_named():
    with pytest.raises(P4Error) as e:
        load_source("#include <core.p4>\nheader h_t { bit<8> a; }\nstruct H { h_t h; }\n"
                    "control I(inout H hdr, inout standard_metadata_t sm) { apply { } }\n",
                    "noarch.p4")
    assert str(e.value.loc) == "noarch.p4:4:30"
    assert e.value.message == "unknown type 'standard_metadata_t'; add #include <v1model.p4>"


def test_control_with_tables_cannot_serve_two_roles():
    src = (HEAD + INGRESS + "    action a() { }\n    table t { actions = { a; } }\n"
           "    apply { t.apply(); }\n}\n" + TAIL.replace("E(), CC()", "I(), CC()"))
    with pytest.raises(P4Error) as e:
        load_source(src, "t.p4")
    assert str(e.value.loc) == "t.p4:19:26"
    assert e.value.message.startswith("unsupported: I used twice in V1Switch with tables")


def test_architecture_metadata_declared_without_a_field_the_target_uses(tmp_path):
    """A program with its own copy of v1model.p4 whose standard_metadata_t lacks a
    field the target sets is refused where the type is used, not on the first packet."""
    from testbed.p4.frontend.preprocess import BUILTIN_INCLUDE
    v1model = (BUILTIN_INCLUDE / "v1model.p4").read_text()
    line = '    @alias("intrinsic_metadata.mcast_grp") bit<16> mcast_grp;\n'
    assert line in v1model
    (tmp_path / "v1model.p4").write_text(v1model.replace(line, ""))
    prog = tmp_path / "p.p4"
    prog.write_text((HEAD + INGRESS + "apply { }\n}\n" + TAIL)
                    .replace("#include <v1model.p4>", '#include "v1model.p4"'))
    with pytest.raises(P4Error) as e:
        load_program(str(prog))
    assert (e.value.loc.line, e.value.loc.col) == (6, 44)     # its type, in Ingress
    assert "parameter 'sm' has type standard_metadata_t, which lacks the field mcast_grp " \
           "that the v1model target sets and reads; declare the type as v1model.p4 does" \
           in e.value.message


def test_top_level_action_whose_parameter_shares_a_control_parameter_name():
    """The generated function of such an action once had two parameters of one name."""
    from testbed.p4.python.target import Target
    program = load_source(HEAD + """
action to_port(inout standard_metadata_t sm, bit<9> port) { sm.egress_spec = port; }
""" + INGRESS + "apply { to_port(sm, 3); }\n}\n" + TAIL, "t.p4")
    assert [port for port, _ in Target(program).process(b"\x01\x00\x02", 0)] == [3]
