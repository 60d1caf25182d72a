"""The Python target of a program's architecture: v1model's ``Target`` or PSA's
``PsaTarget``, both with the same data-plane and control-plane API."""
from __future__ import annotations

from testbed.p4 import ir
from testbed.p4.psa.target import PsaTarget
from testbed.p4.python.target import Target


def python_target(program: ir.Program, **options) -> Target:
    """A target for ``program``; ``options`` are those of ``Target``."""
    return (PsaTarget if program.arch == "psa" else Target)(program, **options)
