"""The ``trainet`` command.

Each verb names the module and function that implements it; modules are imported only
when their verb runs, so ``trainet p4 check`` does not pay for torch or grpc. A handler
receives the parsed arguments and returns the exit code.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from testbed.errors import TrainetError


def _p4_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("program", help="P4_16 source file (v1model)")
    p.add_argument("-I", dest="include", action="append", default=[], metavar="DIR",
                   help="add DIR to the #include search path")
    p.add_argument("-D", dest="define", action="append", default=[], metavar="NAME[=VALUE]",
                   help="define a preprocessor macro")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="trainet", description=__doc__.splitlines()[0])
    verbs = parser.add_subparsers(dest="verb", required=True, metavar="VERB")

    p4 = verbs.add_parser("p4", help="P4_16 toolchain: check, P4Info, STF").add_subparsers(
        dest="p4verb", required=True, metavar="P4VERB")
    p = p4.add_parser("check", help="parse and type-check a program; print diagnostics")
    _p4_args(p)
    p.set_defaults(handler="testbed.p4.commands:check")
    p = p4.add_parser("info", help="write the program's P4Info")
    _p4_args(p)
    p.add_argument("-o", "--output", help="output file (.txt text format, else binary); "
                   "default: print text to stdout")
    p.set_defaults(handler="testbed.p4.commands:info")
    p = p4.add_parser("stf", help="run an STF test file against the program")
    _p4_args(p)
    p.add_argument("stf", help="STF test file")
    p.add_argument("-v", "--verbose", action="store_true", help="print every expectation")
    p.set_defaults(handler="testbed.p4.commands:stf")

    bench = verbs.add_parser("bench", help="benchmarks with a same-run baseline").add_subparsers(
        dest="benchverb", required=True, metavar="WHAT")
    p = bench.add_parser("p4", help="pipeline-only packets/s of the P4 target")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--packets", type=int, default=50_000, help="packets per measurement")
    p.set_defaults(handler="testbed.p4.bench:main")
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    module, func = args.handler.split(":")
    try:
        return getattr(importlib.import_module(module), func)(args) or 0
    except TrainetError as e:
        print(str(e), file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
