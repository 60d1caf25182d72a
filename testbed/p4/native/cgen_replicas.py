"""Which header fields the replicas of one multicast packet can differ in.

Every replica of a multicast group starts egress with the same headers (copies of the
one ingress left), so after egress and compute_checksum they can differ only in the
fields those two controls may write. When that set is known when generating and none of
its writes can change which headers the deparser emits or their sizes, a replica's
output is the first replica's bytes with those fields stored again: the native pipeline
deparses a group's first replica in full and patches the others (``deparse_patch``).

:func:`replica_fields` answers with the written fields (paths below the headers
parameter, e.g. ``("ipv4", "dstAddr")``) or None where replicas must each be deparsed:
a header made valid or invalid, assigned whole, a stack, union or varbit field written,
a write it cannot place (an extern whose outputs it does not know writes every
argument), or a deparser whose control flow reads a written field or keeps locals.
"""
from __future__ import annotations

from testbed.p4 import ir

# extern functions and methods whose written argument positions are known; any other
# writes every argument it is given
_FUNCTION_OUTS = {
    "update_checksum": (2,), "update_checksum_with_payload": (2,),
    "verify_checksum": (), "verify_checksum_with_payload": (),
    "hash": (0,), "random": (0,), "log_msg": (), "digest": (), "assert": (), "assume": (),
    "mark_to_drop": (0,), "truncate": (), "clone": (), "clone3": (),
    "clone_preserving_field_list": (), "resubmit": (), "resubmit_preserving_field_list": (),
    "recirculate": (), "recirculate_preserving_field_list": (),
}
_METHOD_OUTS = {
    ("register", "read"): (0,), ("register", "write"): (),
    ("counter", "count"): (), ("direct_counter", "count"): (),
    ("meter", "execute_meter"): (1,), ("direct_meter", "read"): (0,),
}
_READ_BUILTINS = ("isValid", "minSizeInBits", "minSizeInBytes")


class _Unpatchable(Exception):
    """A write that can change the deparser's layout, or one that cannot be placed."""


class _Writes:
    """The header fields written by the code of one control, below its headers
    parameter ``root``."""

    def __init__(self, program: ir.Program, ctl: ir.Control):
        self.program = program
        self.root = ctl.params[0].name
        self.actions = dict(program.actions)
        self.actions.update(ctl.actions)
        self.fields = set()

    def scan(self, ctl: ir.Control) -> None:
        code = [ctl.locals, ctl.body, [a.body for a in self.actions.values()],
                [f.body for f in self.program.functions.values()]]
        for node in ir.nodes(code):
            if isinstance(node, ir.Assign):
                self.write(node.lhs)
            elif isinstance(node, ir.Call):
                self.call(node.kind, node.method, node.args, node)
        for t in ctl.tables.values():
            for ref in [t.default_action, *t.actions]:
                self.call("action", ref.action, ref.args, ref)

    def call(self, kind: str, method: str, args: list, c) -> None:
        if kind == "builtin":
            if method not in _READ_BUILTINS:
                self.write(c.target, whole=True)
            return
        if kind in ("action", "function"):
            callee = (self.actions if kind == "action" else self.program.functions)[method]
            for p, a in zip(callee.params, args):
                if p.direction in ("out", "inout"):
                    self.write(a)
            return
        if kind == "table_apply":
            return
        known = (_FUNCTION_OUTS.get(method) if kind == "extern_function"
                 else _METHOD_OUTS.get((c.extern, method)))
        for i, a in enumerate(args):
            if known is None or i in known:
                self.write(a)

    def write(self, e, whole: bool = False) -> None:
        if isinstance(e, ir.DontCare):
            return
        if isinstance(e, ir.ListExpr):
            for x in e.elems:
                self.write(x)
            return
        while isinstance(e, ir.Slice):
            e = e.expr
        chain = []
        while isinstance(e, (ir.Member, ir.Index)):
            chain.append(e)
            e = e.expr
        if not isinstance(e, ir.Var):
            raise _Unpatchable()           # an lvalue it cannot place
        if e.name != self.root:
            return                         # metadata, standard metadata, a local
        chain.reverse()
        path, in_header = [], False
        for m in chain:
            if isinstance(m, ir.Index) or isinstance(m.expr.type, (ir.StackT, ir.UnionT)):
                raise _Unpatchable()
            path.append(m.field)
            in_header = in_header or isinstance(m.expr.type, ir.HeaderT)
        if whole or not in_header or isinstance(chain[-1].type, (ir.VarbitT, ir.HeaderT)):
            raise _Unpatchable()           # validity, a whole header, a varbit's width
        self.fields.add(tuple(path))


def _reads(node) -> set:
    """Member chains (below their root variable) an expression or statement reads."""
    out = set()
    for x in ir.nodes(node):
        if isinstance(x, ir.Member):
            path = []
            while isinstance(x, ir.Member):
                path.append(x.field)
                x = x.expr
            out.add(tuple(reversed(path)))
    return out


def _straight_deparser(deparser: ir.Control, fields: set) -> bool:
    """The deparser emits the same headers for every replica: no locals, and its
    statements emits, blocks, and conditions that read no written field."""
    if deparser.locals:
        return False
    todo = list(deparser.body.stmts)
    while todo:
        st = todo.pop()
        if isinstance(st, ir.Block):
            todo += st.stmts
        elif isinstance(st, ir.If):
            if any(r[:len(f)] == f or f[:len(r)] == r for r in _reads(st.cond)
                   for f in fields):
                return False
            todo += [x for x in (st.then, st.other) if x is not None]
        elif not (isinstance(st, ir.CallStmt) and st.call.kind == "extern_method"
                  and st.call.method == "emit"):
            return False
    return True


def replica_fields(program: ir.Program) -> set | None:
    """The header fields egress and compute_checksum may write, or None when replicas
    of one packet must each be deparsed."""
    fields = set()
    try:
        for role in ("egress", "compute_checksum"):
            ctl = program.controls[program.blocks[role]]
            w = _Writes(program, ctl)
            w.scan(ctl)
            fields |= w.fields
    except _Unpatchable:
        return None
    deparser = program.controls[program.blocks["deparser"]]
    return fields if _straight_deparser(deparser, fields) else None


def patched(path: tuple, fields: set) -> bool:
    """Whether a deparsed field at ``path`` is one a replica may change."""
    return any(path[:len(f)] == f for f in fields)
