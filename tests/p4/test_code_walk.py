"""Both code generators are emitters of one walk over the IR (testbed/p4/walk.py): a
statement, call or extern function the walk meets and an emitter lacks is an error at
its P4 location in each language, never a construct silently skipped."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from testbed.errors import P4Error
from testbed.p4 import ir
from testbed.p4.lowering.program import load_program
from testbed.p4.native.cgen import NativeUnsupported, generate
from testbed.p4.python.target import Target

BASIC = Path(__file__).resolve().parents[2] / "p4" / "basic.p4"


@dataclass
class Pause(ir.Stmt):
    """A statement no emitter knows, as a construct newly added to the IR would be."""


def _with_statement_in_an_action(make_stmt):
    program = load_program(BASIC)
    ingress = program.controls[program.blocks["ingress"]]
    action = next(a for a in ingress.actions.values() if a.body.stmts)
    loc = action.body.stmts[0].loc
    action.body.stmts.append(make_stmt(loc))
    return program, loc


@pytest.mark.parametrize("make_stmt, construct", [
    (lambda loc: Pause(loc), "statement Pause"),
    (lambda loc: ir.CallStmt(loc, ir.Call(ir.VoidT(), loc, "coroutine", "resume", [])),
     "call kind coroutine"),
    (lambda loc: ir.CallStmt(loc, ir.Call(ir.VoidT(), loc, "extern_function", "teleport",
                                          [])),
     "extern function teleport"),
])
def test_a_construct_without_an_emitter_is_an_error_at_its_location_in_both(make_stmt,
                                                                           construct):
    program, loc = _with_statement_in_an_action(make_stmt)
    with pytest.raises(P4Error) as python_error:
        Target(program)
    with pytest.raises(NativeUnsupported) as c_error:
        generate(program, list(program.errors))
    for error in (python_error.value, c_error.value):
        assert error.loc == loc
        assert construct in error.message
    assert "v1model target" in python_error.value.message
    assert "native backend" in c_error.value.message
