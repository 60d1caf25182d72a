"""Handlers of ``trainet p4 check|info|stf``: each takes P4 source, trainet-p4c's ``.json``
or BMv2 JSON (p4c-bm2-ss's output)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from testbed.errors import TrainetError
from testbed.p4 import artifact
from testbed.p4.bmv2 import loader as bmv2_json
from testbed.p4.frontend.preprocess import parse_defines
from testbed.p4.lowering.program import load_program


def _load(args):
    path = Path(args.program)
    if path.suffix == ".json":
        return load_json(path)
    return load_program(path, include_dirs=args.include, defines=parse_defines(args.define))


def load_json(path: Path):
    """The program of a ``.json`` file: trainet-p4c's compiled program or BMv2 JSON."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise TrainetError(f"{path}: cannot read it ({e.strerror})") from None
    except (ValueError, UnicodeDecodeError) as e:
        raise TrainetError(f"{path}: not JSON ({e})") from None
    if artifact.is_artifact(doc):
        return artifact.load(doc, str(path))
    if bmv2_json.is_bmv2_json(doc):
        return bmv2_json.load(doc, str(path))
    keys = sorted(doc)[:6] if isinstance(doc, dict) else type(doc).__name__
    raise TrainetError(f"{path}: neither BMv2 JSON (no 'header_types' or 'pipelines' at the "
                       f"top level; found {keys}) nor trainet-p4c's output (no "
                       f"{artifact.MARKER!r}); give BMv2 JSON, trainet-p4c's .json or P4 source")


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
