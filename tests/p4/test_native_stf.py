"""Differential test: every STF test of the corpus runs on both backends, which must send
the same frames to the same ports, pass the same checks and end with the same state
(registers, counters, table entries with their direct counters, drops)."""
from __future__ import annotations

from pathlib import Path

import pytest

from testbed.p4.lowering.program import load_program
from testbed.p4.native.cgen import NativeUnsupported
from testbed.p4.native.target import NativeTarget
from testbed.p4.stf.runner import run_file
from testbed.p4.python.target import Target

CORPUS = Path(__file__).parent / "corpus"
STFS = sorted(CORPUS.glob("*.stf"))

# Programs using what the C generator does not translate yet, and the construct named.
UNSUPPORTED = {
    "wide_range_key": "a range table key of 128 bits",
}


class Recorder:
    """A target whose packets and their outputs are logged."""

    def __init__(self, target):
        self.target = target
        self.log = []

    def process(self, frame, port):
        out = self.target.process(frame, port)
        self.log.append((port, frame, out))
        return out

    def __getattr__(self, name):
        return getattr(self.target, name)


def state(target) -> dict:
    c = target.compiled
    return {
        "registers": {n: [target.register_read(n, i) for i in range(r.size)]
                      for n, r in c.registers.items()},
        "counters": {n: [target.counter_read(n, i) for i in range(x.size)]
                     for n, x in c.counters.items()},
        "tables": {n: sorted(repr(e) for e in target.table_entries(n)) for n in c.tables},
        "drops": {k: v for k, v in target.drop_counts.items() if v},
    }


@pytest.mark.parametrize("stf", STFS, ids=lambda p: p.stem)
def test_stf_runs_identically_on_both_backends(stf):
    program = load_program(str(stf.with_suffix(".p4")))
    if stf.stem in UNSUPPORTED:
        with pytest.raises(NativeUnsupported, match=UNSUPPORTED[stf.stem]) as e:
            NativeTarget(program)
        assert e.value.loc is not None
        return
    targets = Target(program), NativeTarget(program)
    for t in targets:
        t.clock = lambda: 1.0           # the same timestamps on both
    ref, native = (Recorder(t) for t in targets)
    ref_report = run_file(program, str(stf), target=ref)
    native_report = run_file(program, str(stf), target=native)
    assert native.log == ref.log
    assert [c.passed for c in native_report.checks] == [c.passed for c in ref_report.checks]
    assert state(native.target) == state(ref.target)
