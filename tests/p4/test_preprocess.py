"""The P4 preprocessor: directives, macros, includes, and the map back to original locations."""
from pathlib import Path

import pytest

from testbed.errors import P4Error
from testbed.p4.frontend.preprocess import preprocess_file, preprocess_text
from testbed.p4.lowering.program import load_program
from testbed.p4.stf.runner import run_file


def find(pre, needle):
    """(line, col) of the first occurrence of needle in the preprocessed text, 1-based."""
    for i, ln in enumerate(pre.text.split("\n")):
        j = ln.find(needle)
        if j >= 0:
            return i + 1, j + 1
    raise AssertionError(f"{needle!r} not in output")


def test_object_macro_expands_and_maps_to_its_use():
    pre = preprocess_text("#define WIDTH 16\nbit<WIDTH> x;\n", "a.p4")
    assert "bit<16> x;" in pre.text
    line, col = find(pre, "16")
    loc = pre.loc(line, col)
    assert (loc.file, loc.line, loc.col) == ("a.p4", 2, 5)
    # text after the expansion keeps its own columns
    line, col = find(pre, "x;")
    assert pre.loc(line, col).col == 12


def test_function_macro_with_nested_parentheses_and_rescan():
    pre = preprocess_text("#define TWO 2\n#define ADD(a, b) ((a) + (b))\n"
                          "const bit<8> X = ADD(f(1, 3), TWO);\n")
    assert "const bit<8> X = ((f(1, 3)) + (2));" in pre.text


def test_function_macro_name_without_parentheses_is_left_alone():
    pre = preprocess_text("#define F(x) x\nbit<8> F;\n")
    assert "bit<8> F;" in pre.text


def test_macro_does_not_expand_inside_strings_or_recursively():
    pre = preprocess_text('#define alpha other\n#define LOOP LOOP + 1\n'
                          '@name("alpha") alpha = LOOP;\n')
    assert '@name("alpha") other = LOOP + 1;' in pre.text


def test_conditionals_select_the_right_branch():
    src = """#define V 3
#if V > 2 && defined(V)
yes1
#elif V == 3
no1
#else
no2
#endif
#ifdef UNDEFINED_THING
no3
#elif !defined UNDEFINED_THING
yes2
#endif
#ifndef V
no4
#else
yes3
#endif
#undef V
#if defined(V) || 0x10 / 4 != 4
no5
#endif
"""
    out = preprocess_text(src).text.split()
    assert out == ["yes1", "yes2", "yes3"]


def test_nested_conditionals_inside_inactive_branch_are_skipped():
    src = "#if 0\n#if 1\nno\n#else\nno\n#endif\n#else\nyes\n#endif\n"
    assert preprocess_text(src).text.split() == ["yes"]


def test_comments_are_removed_and_lines_stay_aligned():
    src = "a /* one\ntwo\nthree */ b // tail\nc\n"
    pre = preprocess_text(src, "c.p4")
    assert pre.text.split() == ["a", "b", "c"]
    line, col = find(pre, "c")
    assert (pre.loc(line, col).line, pre.loc(line, col).col) == (4, 1)
    line, col = find(pre, "b")
    assert (pre.loc(line, col).line, pre.loc(line, col).col) == (3, 10)


def test_line_continuation_in_define():
    pre = preprocess_text("#define LONG 1 + \\\n   2\nconst int X = LONG;\n")
    assert "const int X = 1 + 2;" in " ".join(pre.text.split())


def test_defines_from_the_command_line():
    pre = preprocess_text("#if FEATURE == 2\non\n#endif\nbit<W> x;\n",
                          defines={"FEATURE": "2", "W": "12"})
    assert pre.text.split() == ["on", "bit<12>", "x;"]


def test_quoted_include_is_searched_next_to_the_including_file(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "defs.p4").write_text("#pragma once\nconst bit<8> A = 1;\n")
    (tmp_path / "main.p4").write_text('#include "sub/defs.p4"\n#include "sub/defs.p4"\nB\n')
    pre = preprocess_file(tmp_path / "main.p4")
    assert pre.text.count("const bit<8> A = 1;") == 1
    line, col = find(pre, "const")
    loc = pre.loc(line, col)
    assert loc.file.endswith("sub/defs.p4") and (loc.line, loc.col) == (2, 1)
    line, col = find(pre, "B")
    assert pre.loc(line, col).file.endswith("main.p4") and pre.loc(line, col).line == 3


def test_angle_include_uses_user_dirs_then_builtin(tmp_path):
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "mine.p4").write_text("mine_decl\n")
    (tmp_path / "main.p4").write_text("#include <core.p4>\n#include <mine.p4>\n")
    pre = preprocess_file(tmp_path / "main.p4", include_dirs=[inc])
    assert "mine_decl" in pre.text
    assert "extern packet_in" in pre.text


def test_include_guard_of_v1model_includes_core_once(tmp_path):
    (tmp_path / "main.p4").write_text("#include <core.p4>\n#include <v1model.p4>\n")
    pre = preprocess_file(tmp_path / "main.p4")
    assert pre.text.count("extern packet_in") == 1
    assert "extern void mark_to_drop" in pre.text


def test_missing_include_reports_where_and_what_to_do(tmp_path):
    (tmp_path / "main.p4").write_text("\n  #include \"nothere.p4\"\n")
    with pytest.raises(P4Error) as e:
        preprocess_file(tmp_path / "main.p4")
    assert e.value.loc.line == 2 and e.value.loc.col == 3
    assert "cannot find include file 'nothere.p4'" in e.value.message
    assert "-I" in e.value.message


def test_unterminated_conditional_is_an_error():
    with pytest.raises(P4Error) as e:
        preprocess_text("x\n#ifdef A\ny\n", "u.p4")
    assert str(e.value.loc) == "u.p4:2:1"
    assert "add #endif" in e.value.message


def test_error_directive_stops_with_its_message():
    with pytest.raises(P4Error) as e:
        preprocess_text("#ifndef TARGET\n#error TARGET must be defined\n#endif\n", "e.p4")
    assert str(e.value.loc) == "e.p4:2:1"
    assert e.value.message == "#error TARGET must be defined"


def test_else_without_if_and_bad_macro_call():
    with pytest.raises(P4Error, match="#else without a matching #if"):
        preprocess_text("#else\n")
    with pytest.raises(P4Error, match="macro F takes 2 arguments, 1 given"):
        preprocess_text("#define F(a, b) a\nF(1)\n")


def test_unreadable_files_are_reported_without_a_traceback(tmp_path):
    with pytest.raises(P4Error, match=r"cannot read .*missing.p4: No such file or directory"):
        preprocess_file(tmp_path / "missing.p4")
    (tmp_path / "latin1.p4").write_bytes(b"const bit<8> A = 1; // caf\xe9\n")
    (tmp_path / "main.p4").write_text('#include "latin1.p4"\n')
    with pytest.raises(P4Error) as e:
        preprocess_file(tmp_path / "main.p4")
    assert str(e.value.loc) == f"{tmp_path / 'main.p4'}:1:1"
    assert "latin1.p4 is not UTF-8 text (at byte offset 26); save it as UTF-8" in e.value.message


def test_if_expressions_follow_c_precedence_and_report_errors():
    src = ("#if (1 + 2 * 3 == 7) && (-7 / 2 == -3) && (010 == 8) && (1 ? 2 : 0) && 5UL\n"
           "ok\n#endif\n")
    assert preprocess_text(src).text.split() == ["ok"]
    with pytest.raises(P4Error) as e:
        preprocess_text("\n#if 1 +\n#endif\n", "x.p4")
    assert str(e.value.loc) == "x.p4:2:1"
    assert e.value.message == "cannot evaluate #if expression '1 +': expected a value"


def test_token_pasting_stringizing_and_arguments_over_several_lines():
    src = ("#define LANE(i) register<bit<32>>(16) lane_v ## i;\n"
           "#define NAME(x) #x\n"
           "#define GLUE a ## b\n"
           "#define ADD(a, b) ((a) + (b))\n"
           "LANE(07)\n"
           "@name(NAME(my \"t\")) GLUE\n"
           "x = ADD(1,\n"
           "        2);\n"
           "y;\n")
    pre = preprocess_text(src, "m.p4")
    lines = pre.text.split("\n")
    assert lines[4] == "register<bit<32>>(16) lane_v07;"
    assert lines[5] == '@name("my \\"t\\"") ab'
    assert lines[6] == "x = ((1) + (2));"
    assert lines[7] == ""
    line, col = find(pre, "y;")
    assert (pre.loc(line, col).line, pre.loc(line, col).col) == (9, 1)
    line, col = find(pre, ";")
    assert str(pre.loc(line, col)) == "m.p4:5:1"          # text from a macro maps to its use


def test_unterminated_macro_call_is_an_error():
    with pytest.raises(P4Error) as e:
        preprocess_text("#define F(a) a\nF(1,\n#define X\n", "u.p4")
    assert str(e.value.loc) == "u.p4:2:1"
    assert e.value.message == "unterminated call of macro F; add the closing ')'"


def test_windows_line_ends_and_byte_order_mark(tmp_path):
    f = tmp_path / "win.p4"
    f.write_bytes(b"\xef\xbb\xbf#define LONG 1 + \\\r\n  2\r\nconst int X = LONG;\r\ny\r\n")
    pre = preprocess_file(f)
    assert pre.text.split() == ["const", "int", "X", "=", "1", "+", "2;", "y"]
    line, col = find(pre, "y")
    assert (pre.loc(line, col).line, pre.loc(line, col).col) == (4, 1)


PSA_FORWARD = Path(__file__).parent / "psa" / "forward.p4"


@pytest.mark.parametrize("include", ["<psa.p4>", "<bmv2/psa.p4>", '"bmv2/psa.p4"', '"psa.p4"'])
def test_every_form_p4c_samples_use_to_include_psa(tmp_path, include):
    """p4c's PSA samples say <bmv2/psa.p4> or "bmv2/psa.p4"; the built-in bmv2/psa.p4 includes
    <psa.p4>, which must find the top-level file, not itself."""
    source = PSA_FORWARD.read_text().replace("#include <psa.p4>", f"#include {include}")
    (tmp_path / "prog.p4").write_text(source)
    loaded = load_program(str(tmp_path / "prog.p4"))
    assert (loaded.arch, loaded.package) == ("psa", "PSA_Switch")
    report = run_file(loaded, str(PSA_FORWARD.with_suffix(".stf")))
    assert report.passed, report.render(verbose=True)


def test_angle_include_does_not_look_next_to_the_including_file(tmp_path):
    (tmp_path / "core.p4").write_text("not_the_library\n")
    (tmp_path / "main.p4").write_text("#include <core.p4>\n")
    pre = preprocess_file(tmp_path / "main.p4")
    assert "not_the_library" not in pre.text and "extern packet_in" in pre.text


def test_quoted_include_falls_back_to_the_include_path(tmp_path):
    (tmp_path / "main.p4").write_text('#include "core.p4"\n#include "v1model.p4"\n')
    pre = preprocess_file(tmp_path / "main.p4")
    assert pre.text.count("extern packet_in") == 1 and "extern void mark_to_drop" in pre.text


def test_v1model_version_defined_before_the_include(tmp_path):
    (tmp_path / "main.p4").write_text("#define V1MODEL_VERSION 20200408\n#include <v1model.p4>\n")
    pre = preprocess_file(tmp_path / "main.p4")
    assert "__v1model_version = 20200408" in pre.text


def test_an_include_cycle_is_refused_at_the_include(tmp_path):
    (tmp_path / "a.p4").write_text('#include "b.p4"\n')
    (tmp_path / "b.p4").write_text('\n#include "a.p4"\n')
    with pytest.raises(P4Error) as e:
        preprocess_file(tmp_path / "a.p4")
    assert "nested too deeply" in e.value.message and e.value.loc.file.endswith(".p4")
