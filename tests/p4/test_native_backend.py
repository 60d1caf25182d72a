"""Choosing the backend: the native one runs, auto falls back with one line, errors name
what to do."""
from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest

from testbed.errors import P4Error, TrainetError
from testbed.p4.targets import make_target
from testbed.p4.lowering.program import load_program
from testbed.p4.native import build
from testbed.p4.native.cgen import NativeUnsupported
from testbed.p4.native import target as native_target
from testbed.p4.native.target import NativeTarget
from testbed.p4.python.target import Target

CORPUS = Path(__file__).parent / "corpus"
REPO = Path(__file__).resolve().parents[2]


def test_native_backend_loads_basic_p4():
    target = make_target(load_program(str(REPO / "p4" / "basic.p4")), "native")
    assert isinstance(target, NativeTarget)


def test_auto_falls_back_to_python_with_one_line_naming_the_construct(caplog):
    program = load_program(str(CORPUS / "wide_range_key.p4"))
    with pytest.raises(NativeUnsupported,
                       match=r"wide_range_key\.p4:36:17: error: a range table key of 128 bits"):
        make_target(program, "native")
    with caplog.at_level(logging.WARNING):
        target = make_target(program, "auto")
    assert type(target) is Target
    [line] = [r.getMessage() for r in caplog.records]
    assert line.startswith("P4 backend: python, not native: ") and "range table key" in line


def test_auto_without_a_c_compiler_runs_python(monkeypatch, caplog):
    monkeypatch.setenv("CC", "/nonexistent/cc")
    build.compiler_version.cache_clear()
    with caplog.at_level(logging.WARNING):
        target = make_target(load_program(str(REPO / "p4" / "basic.p4")), "auto")
    build.compiler_version.cache_clear()
    assert type(target) is Target
    assert "does not run" in caplog.records[0].getMessage()


def test_auto_at_debug_level_runs_python_for_the_pipeline_trace(caplog):
    log = logging.getLogger("test.native.debug")
    log.setLevel(logging.DEBUG)
    with caplog.at_level(logging.WARNING):
        target = make_target(load_program(str(REPO / "p4" / "basic.p4")), "auto", log=log)
    assert type(target) is Target and target.trace
    assert "pipeline trace" in caplog.records[0].getMessage()


def test_unknown_backend_is_an_error():
    with pytest.raises(TrainetError, match="choose one of python, native, auto"):
        make_target(load_program(str(REPO / "p4" / "basic.p4")), "fast")


def test_a_c_compile_error_names_the_p4_statement(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    program = load_program(str(REPO / "p4" / "basic.p4"))
    target = NativeTarget(program)
    source = target.native.source.replace("P->hdr.f_ipv4.f_ttl - ", "P->hdr.f_ipv4.nope - ")
    with pytest.raises(build.NativeCompileError) as e:
        build.load(source, target.native.locate)
    first = str(e.value).splitlines()[0]
    assert re.fullmatch(r".*basic\.p4:\d+:\d+: error: the native backend cannot translate the "
                        r"statement `hdr\.ipv4\.ttl = hdr\.ipv4\.ttl - 1` .*python backend", first)
    assert "nope" not in str(e.value) and "nope" in e.value.compiler_output


def test_auto_falls_back_when_the_generated_c_does_not_compile(monkeypatch, tmp_path, caplog):
    """A generator bug must not stop a program the python backend runs."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    real_load = native_target.load

    def broken_load(source, locate):
        return real_load(source.replace("P->hdr.f_ipv4.f_ttl - ", "P->hdr.f_ipv4.nope - "),
                         locate)

    monkeypatch.setattr(native_target, "load", broken_load)
    program = load_program(str(REPO / "p4" / "basic.p4"))
    with pytest.raises(build.NativeCompileError):
        make_target(program, "native")
    with caplog.at_level(logging.WARNING):
        target = make_target(program, "auto")
    assert type(target) is Target
    [line] = [r.getMessage() for r in caplog.records]
    assert line.startswith("P4 backend: python, not native: ") and "basic.p4:" in line
    assert "`hdr.ipv4.ttl = hdr.ipv4.ttl - 1`" in line and "nope" not in line


def test_the_stf_command_takes_the_backend(capsys, caplog):
    from testbed import cli
    assert cli.main(["p4", "stf", "--backend", "native", str(REPO / "p4" / "basic.p4"),
                     str(Path(__file__).with_name("basic.stf"))]) == 0
    assert "3/3 checks passed" in capsys.readouterr().out
    wide = [str(CORPUS / "wide_range_key.p4"), str(CORPUS / "wide_range_key.stf")]
    assert cli.main(["p4", "stf", "--backend", "native", *wide]) == 2
    assert "not supported by the native backend" in capsys.readouterr().err
    with caplog.at_level(logging.WARNING):
        assert cli.main(["p4", "stf", *wide]) == 0
    assert "P4 backend: python, not native" in caplog.text


def test_a_temporary_directory_on_another_file_system_is_no_obstacle(monkeypatch, tmp_path):
    """The library is built beside the cache: a tmpfs TMPDIR under a cache on disk (as in
    a fresh Debian root whose /tmp is tmpfs) cannot take part in the final rename."""
    shm = Path("/dev/shm")
    if not shm.is_dir() or shm.stat().st_dev == tmp_path.stat().st_dev:
        pytest.skip("needs /dev/shm on a file system of its own: mount one "
                    "(mount -t tmpfs tmpfs /dev/shm)")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", str(shm))
    program = load_program(str(REPO / "p4" / "basic.p4"))
    assert NativeTarget(program).lib is not None
    assert list((tmp_path / "trainet" / "native").glob("*.so"))


def test_a_batch_of_inserts_reaches_the_native_tables_whole_and_deletes_stay_deleted():
    from tests.p4.test_target import ipv4_frame, route
    t = make_target(load_program(str(REPO / "p4" / "basic.p4")), "native")
    with t.batch():
        for i in range(1, 5):
            t.table_insert(route(0x0A000000 | i << 8, 24, i, i))
        t.table_delete(route(0x0A000200, 24, 2, 2))          # undone inside the batch
    assert [p for p, _ in t.process(ipv4_frame("10.0.2.9"), 0)] == []
    with t.batch():
        t.table_insert(route(0x0A000500, 24, 5, 5))          # reuses the freed slot
        t.table_modify(route(0x0A000300, 24, 3, 7))
        t.table_insert(route(0x0A000600, 24, 6, 6))
    ports = {i: [p for p, _ in t.process(ipv4_frame(f"10.0.{i}.9"), 0)] for i in range(1, 7)}
    assert ports == {1: [1], 2: [], 3: [7], 4: [4], 5: [5], 6: [6]}
    assert len(t.table_entries("MyIngress.ipv4_lpm")) == 5


WIDE_PROGRAM = """#include <core.p4>
#include <v1model.p4>
header h_t { bit<128> a; bit<8> k; }
struct H { h_t h; }
struct M { }
parser P(packet_in pkt, out H hdr, inout M m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout H hdr, inout M m) { apply { } }
control I(inout H hdr, inout M m, inout standard_metadata_t sm) {
%s
}
control E(inout H hdr, inout M m, inout standard_metadata_t sm) { apply { } }
control CC(inout H hdr, inout M m) { apply { } }
control D(packet_out pkt, in H hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


@pytest.mark.parametrize("body, where, message", [
    ("table t { key = { hdr.h.a : range; } actions = { NoAction; } }\napply { t.apply(); }",
     "11:19", "a range table key of 128 bits"),
    ("register<bit<128>>(4) r;\napply { r.write(0, hdr.h.a); }",
     "11:1", "register I.r's value of 128 bits"),
    ("apply { switch (hdr.h.a) { 1: { hdr.h.k = 1; } } }",
     "11:9", "a switch expression of 128 bits"),
    ("apply { int<72> x = 1; hdr.h.k = (bit<8>)(bit<72>)x; }",
     "11:9", "a 72-bit value (the native backend handles int<W> up to 64 bits)"),
])
def test_values_over_64_bits_are_refused_where_the_native_backend_holds_one_word(
        tmp_path, body, where, message):
    path = tmp_path / "wide.p4"
    path.write_text(WIDE_PROGRAM % body)
    with pytest.raises(NativeUnsupported) as e:
        NativeTarget(load_program(str(path)))
    assert str(e.value).startswith(f"{path}:{where}: error: {message}")
