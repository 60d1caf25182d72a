"""Which control-level variables can be plain locals of each action.

A control's variables normally live in a per-invocation ``L`` object that its actions
share. A variable can instead be a local of each action that uses it when no value
flows between invocations: only actions use it, none of them calls another action, and
each writes it before reading it.
"""
from __future__ import annotations

from testbed.p4 import ir


def scratch_locals(ctl: ir.Control, actions: dict) -> set:
    """Names of the control-level variables of ``ctl`` that can be action locals;
    ``actions`` are the actions the control can run (its own and the top-level ones)."""
    names = {st.name for st in ctl.locals if isinstance(st, ir.VarDecl)}
    outside = [ctl.body] + list(ctl.tables.values()) + [
        st for st in ctl.locals if isinstance(st, ir.VarDecl) and st.init is not None]
    names = {n for n in names if not any(mentions(x, n) for x in outside)}
    for act in actions.values():
        calls_actions = _calls_action(act.body)
        for n in list(names):
            if mentions(act.body, n) and (calls_actions
                                          or not _written_first(act.body.stmts, n)):
                names.discard(n)
    return names


def mentions(node, name: str) -> bool:
    """Whether an IR subtree references the variable ``name``."""
    return any(isinstance(x, ir.Var) and x.name == name for x in ir.nodes(node))


def _calls_action(node) -> bool:
    return any(isinstance(x, ir.Call) and x.kind == "action" for x in ir.nodes(node))


def _written_first(stmts: list, name: str) -> bool:
    """Whether the first top-level statement mentioning ``name`` assigns it without
    reading it (an assignment, or a register read into it)."""
    for st in stmts:
        if not mentions(st, name):
            continue
        if isinstance(st, ir.Assign):
            return (isinstance(st.lhs, ir.Var) and st.lhs.name == name
                    and not mentions(st.rhs, name))
        if isinstance(st, ir.CallStmt) and st.call.kind == "extern_method" \
                and st.call.extern == "register" and st.call.method == "read":
            target, index = st.call.args
            return (isinstance(target, ir.Var) and target.name == name
                    and not mentions(index, name))
        return False
    return True
