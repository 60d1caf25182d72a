"""The choice of backend for a program's per-packet path.

``python`` is the reference (generated Python), ``native`` the C backend
(testbed/p4/native); ``auto`` takes native and falls back to python, saying why in one
line, when the machine has no C compiler or the program uses a construct the C
generator does not translate. Both present the same Target API.
"""
from __future__ import annotations

import logging

from testbed.errors import TrainetError
from testbed.p4 import ir
from testbed.p4.target import Target

BACKENDS = ("python", "native", "auto")


def make_target(program: ir.Program, backend: str = "python", cpu_port: int | None = None,
                log: logging.Logger | None = None) -> Target:
    if backend not in BACKENDS:
        raise TrainetError(f"backend {backend!r}: choose one of {', '.join(BACKENDS)}")
    if backend == "python":
        return Target(program, cpu_port=cpu_port, log=log)
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
        return Target(program, cpu_port=cpu_port, log=log)
