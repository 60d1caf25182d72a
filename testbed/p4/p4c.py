"""``trainet-p4c``: the command line of p4c-bm2-ss and of the p4c driver, on trainet's
compiler, so a Makefile or script that sets ``P4C`` to it works unchanged.

p4c-bm2-ss form: ``trainet-p4c --p4v 16 -o build/prog.json --p4runtime-files
build/prog.p4info.txtpb,build/prog.p4info.bin prog.p4``. Driver form: ``trainet-p4c
--target bmv2 --arch v1model -o OUTDIR prog.p4`` writes ``OUTDIR/prog.json``. The ``.json``
is trainet's compiled artefact (``testbed.p4.artifact``), which ``trainet-switch`` and
SetForwardingPipelineConfig load; BMv2 cannot.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from testbed.errors import TrainetError, run_command
from testbed.p4 import artifact, p4info
from testbed.p4.frontend.preprocess import parse_defines

ARCHES = ("v1model", "psa")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="trainet-p4c", allow_abbrev=False,
        description="Compile a P4_16 program for trainet's switch; takes p4c-bm2-ss's and "
        "the p4c driver's options.")
    p.add_argument("program", help="P4_16 source file")
    p.add_argument("-o", dest="output", metavar="OUT", help="output file (p4c-bm2-ss form, "
                   "e.g. build/prog.json), or directory with --target (driver form); "
                   "default: PROGRAM's name with .json in the current directory")
    p.add_argument("-I", dest="include", action="append", default=[], metavar="DIR",
                   help="add DIR to the #include search path")
    p.add_argument("-D", dest="define", action="append", default=[], metavar="NAME[=VALUE]",
                   help="define a preprocessor macro")
    p.add_argument("--p4v", choices=["16", "14"], help="language version; only 16")
    p.add_argument("--std", choices=["p4-16", "p4_16", "p4-14", "p4_14"],
                   help="language version; only p4-16")
    p.add_argument("--arch", default="v1model", help="architecture: v1model (V1Switch) "
                   "or psa (PSA_Switch)")
    p.add_argument("--target", "-b", dest="target", help="driver form: bmv2; -o is then a "
                   "directory")
    p.add_argument("--p4runtime-files", metavar="FILES", help="comma-separated P4Info "
                   "files, the format by extension: .txt/.txtpb text, .json JSON, .bin binary")
    p.add_argument("--p4runtime-file", metavar="FILE", help="older p4c: one P4Info file, "
                   "format given by --p4runtime-format")
    p.add_argument("--p4runtime-format", choices=["text", "json", "binary"], default="binary",
                   help="older p4c: the format of --p4runtime-file (default binary)")
    return p


def _check_language(args) -> None:
    if args.p4v == "14" or (args.std or "").endswith("14"):
        raise TrainetError("trainet-p4c: P4_14 is not supported; only P4_16 programs "
                           "(convert with p4test --p4v 14 --pp out.p4)")
    if args.arch not in ARCHES:
        raise TrainetError(f"trainet-p4c: --arch {args.arch}: unknown architecture; use "
                           "v1model or psa")
    if args.target not in (None, "bmv2"):
        raise TrainetError(f"trainet-p4c: --target {args.target}: the only target is bmv2 "
                           "(trainet's switch loads what it writes)")


def _output_path(args) -> Path:
    program = Path(args.program)
    default_name = program.with_suffix(".json").name
    if args.output is None:
        return Path(default_name)
    out = Path(args.output)
    if args.target is not None or out.is_dir():
        out.mkdir(parents=True, exist_ok=True)
        return out / default_name
    return out


def _p4info_files(args) -> list[tuple[Path, str | None]]:
    """(path, explicit format or None for by-extension), checked before compiling."""
    files = [(Path(f), None) for f in (args.p4runtime_files or "").split(",") if f]
    for path, _ in files:
        p4info.file_format(path)
    if args.p4runtime_file:
        files.append((Path(args.p4runtime_file), args.p4runtime_format))
    return files


def _write_p4info(info, path: Path, kind: str | None) -> None:
    if kind is None:
        p4info.write(info, path)
        return
    data = {"text": lambda: p4info.to_text(info).encode(),
            "json": lambda: p4info.to_json(info).encode(),
            "binary": info.SerializeToString}[kind]()
    try:
        path.write_bytes(data)
    except OSError as e:
        raise TrainetError(f"{path}: cannot write the P4Info ({e.strerror}); check that the "
                           "directory exists and is writable") from None


def compile_(args) -> None:
    _check_language(args)
    p4info_files = _p4info_files(args)
    program, compiled = artifact.compile_file(args.program, args.include,
                                              parse_defines(args.define))
    if program.arch != args.arch:
        raise TrainetError(f"trainet-p4c: {args.program} is a {program.arch} program "
                           f"({program.package} main), not {args.arch}; give --arch "
                           f"{program.arch}")
    if p4info_files:
        info = p4info.build(program)
        for path, kind in p4info_files:
            _write_p4info(info, path, kind)
    artifact.write(compiled, _output_path(args))


def main(argv=None) -> int:
    return run_command(compile_, build_parser().parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
