"""trainet-p4c's compiled artefact: the file ``-o OUT.json`` writes and the switch loads.

A JSON object ``{"trainet_p4_artifact": 1, "program": "basic.p4", "arch": "v1model",
"source": ...}`` whose ``source`` is the preprocessed program: includes read, macros and
``-D`` definitions expanded. So the switch that loads it needs neither the include path
nor the definitions, and compiles it as it compiles any source. It is JSON because
Makefiles and Mininet helpers name p4c-bm2-ss's output ``*.json`` and pass it on as it is.
Diagnostics of an artefact point at lines of the preprocessed text; it compiled when it
was written, so the only ones expected are from a hand-edited file.
"""
from __future__ import annotations

import json
from pathlib import Path

from testbed.errors import TrainetError
from testbed.p4 import ir
from testbed.p4.frontend.preprocess import preprocess_file
from testbed.p4.lowering.program import load_source, lower_preprocessed

MARKER = "trainet_p4_artifact"
VERSION = 1


def compile_file(path, include_dirs=(), defines=None) -> tuple[ir.Program, dict]:
    """The checked program in ``path`` and its artefact (a JSON-ready dict)."""
    pre = preprocess_file(path, include_dirs, defines)
    program = lower_preprocessed(pre, str(path))
    return program, {MARKER: VERSION, "program": Path(path).name, "arch": program.arch,
                     "source": pre.text}


def write(artifact: dict, path) -> None:
    try:
        Path(path).write_text(json.dumps(artifact, indent=1) + "\n")
    except OSError as e:
        raise TrainetError(f"{path}: cannot write the compiled program ({e.strerror}); check "
                           "that the directory exists and is writable") from None


def is_artifact(doc) -> bool:
    return isinstance(doc, dict) and MARKER in doc


def load(doc: dict, where: str) -> ir.Program:
    """The program of an artefact ``doc`` read from ``where`` (a file name, for errors)."""
    if doc[MARKER] != VERSION:
        raise TrainetError(f"{where}: {MARKER} version {doc[MARKER]!r} is not {VERSION}; "
                           "rebuild it with this trainet's trainet-p4c")
    source, name = doc.get("source"), doc.get("program")
    if not isinstance(source, str) or not isinstance(name, str):
        raise TrainetError(f"{where}: the fields 'program' and 'source' must be strings; "
                           "rebuild it with trainet-p4c")
    return load_source(source, filename=f"{name} (preprocessed, in {where})")
