"""Handlers of ``trainet p4 check|info|stf``."""
from __future__ import annotations

import sys

from testbed.p4.frontend.preprocess import parse_defines
from testbed.p4.lowering.program import load_program


def _load(args):
    return load_program(args.program, include_dirs=args.include, defines=parse_defines(args.define))


def check(args) -> int:
    program = _load(args)
    n_tables = sum(len(c.tables) for c in program.controls.values())
    print(f"{args.program}: ok ({program.arch}, {len(program.controls)} controls, "
          f"{n_tables} tables)")
    return 0


def info(args) -> int:
    from testbed.p4 import p4info
    message = p4info.build(_load(args))
    if args.output:
        p4info.write(message, args.output)
    else:
        sys.stdout.write(p4info.to_text(message))
    return 0


def stf(args) -> int:
    from testbed.p4.stf import runner as stf_runner
    from testbed.p4.targets import make_target
    program = _load(args)
    report = stf_runner.run_file(program, args.stf, make_target(program, args.backend))
    print(report.render(verbose=args.verbose))
    return 0 if report.passed else 1
