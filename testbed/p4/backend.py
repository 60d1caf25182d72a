"""The choice of backend for a program's per-packet path.

``python`` is the reference (generated Python), ``native`` the C backend
(testbed/p4/native); ``auto`` takes native and falls back to python, saying why in one
line, when the machine has no C compiler, the program is not a v1model program (PSA
runs on python) or it uses a construct the C generator does not translate. Both present
the same Target API.
"""
from __future__ import annotations

import logging

from testbed.errors import TrainetError
from testbed.p4 import ir
from testbed.p4.target import Target
from testbed.p4.targets import python_target

BACKENDS = ("python", "native", "auto")


def make_target(program: ir.Program, backend: str = "python", cpu_port: int | None = None,
                log: logging.Logger | None = None) -> Target:
    if backend not in BACKENDS:
        raise TrainetError(f"backend {backend!r}: choose one of {', '.join(BACKENDS)}")
    if backend == "python":
        return python_target(program, cpu_port=cpu_port, log=log)
    if program.arch != "v1model":
        why = f"the native backend runs v1model programs, not {program.arch}"
        if backend == "native":
            raise TrainetError(f"backend native: {why}; use --backend python or auto")
        (log or logging.getLogger("testbed.p4.target")).warning(
            "P4 backend: python, not native: %s", why)
        return python_target(program, cpu_port=cpu_port, log=log)
    from testbed.p4.native.build import NoCompiler
    from testbed.p4.native.cgen import NativeUnsupported
    from testbed.p4.native.target import NativeTarget
    try:
        return NativeTarget(program, cpu_port=cpu_port, log=log)
    except (NoCompiler, NativeUnsupported) as e:
        if backend == "native":
            raise
        (log or logging.getLogger("testbed.p4.target")).warning(
            "P4 backend: python, not native: %s", str(e).splitlines()[0])
        return python_target(program, cpu_port=cpu_port, log=log)
