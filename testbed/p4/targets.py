"""The one choice of target for a program: its architecture's Python target, and the
backend of its per-packet path.

``python`` is the reference (generated Python), ``native`` the C backend
(testbed/p4/native); ``auto`` takes native and falls back to python, saying why in one
line, when the machine has no C compiler, the program is not a v1model program (PSA
runs on python), it uses a construct the C generator does not translate or a table with
an action profile or selector (their members and groups live in the Python target), or
its generated C does not compile (a generator bug, named by its P4 statement), ``log`` is at
debug level (the per-packet pipeline trace is the Python backend's) or the switch has
more than one priority queue per port (the native path has one egress queue and drops a
packet of priority 1 or more, as BMv2 does with one queue). Both present the same
Target API.
"""
from __future__ import annotations

import logging

from testbed.errors import TrainetError

BACKENDS = ("python", "native", "auto")
BACKEND_HELP = ("the P4 target's per-packet path: native (C, compiled at load), python "
                "(the reference) or auto (native, else python with one line why; default)")


def make_target(program, backend: str = "python", cpu_port: int | None = None,
                log: logging.Logger | None = None, priority_queues: int = 1):
    """A Target (testbed.p4.python.target) for ``program`` (an ir.Program) on ``backend``."""
    if backend not in BACKENDS:
        raise TrainetError(f"backend {backend!r}: choose one of {', '.join(BACKENDS)}")

    def python():
        return python_target(program, cpu_port=cpu_port, log=log,
                             priority_queues=priority_queues)

    def fall_back(why: str):
        if backend == "native":
            raise TrainetError(f"backend native: {why}; use --backend python or auto")
        (log or logging.getLogger("testbed.p4.target")).warning(
            "P4 backend: python, not native: %s", why)
        return python()

    if backend == "python":
        return python()
    if program.arch != "v1model":
        where = f"{program.package_loc}: " if program.package_loc is not None else ""
        return fall_back(f"{where}the native backend runs v1model programs, not "
                         f"{program.arch} ({program.package})")
    if priority_queues > 1:
        return fall_back(f"{priority_queues} priority queues per port; the native backend "
                         "has one egress queue per port")
    if backend == "auto" and log is not None and log.isEnabledFor(logging.DEBUG):
        log.warning("P4 backend: python, not native: the debug log's pipeline trace is "
                    "the python backend's")
        return python()
    from testbed.p4.native.build import NativeCompileError, NoCompiler
    from testbed.p4.native.cgen import NativeUnsupported
    from testbed.p4.native.target import NativeTarget
    try:
        return NativeTarget(program, cpu_port=cpu_port, log=log)
    except (NoCompiler, NativeUnsupported, NativeCompileError) as e:
        if backend == "native":
            raise
        return fall_back(str(e).splitlines()[0])


def python_target(program, **options):
    """The Python target of ``program``'s architecture: v1model's ``Target`` or PSA's
    ``PsaTarget``, both with the same data-plane and control-plane API; ``options`` are
    those of ``Target``."""
    from testbed.p4.psa.target import PsaTarget
    from testbed.p4.python.target import Target
    return (PsaTarget if program.arch == "psa" else Target)(program, **options)
