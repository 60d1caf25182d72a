"""Which member reads of an action body can be read once, at the top, into a local.

Two kinds of member chains qualify (the generated code then uses the local instead):

* header/struct objects reached from a variable through header/struct members only
  (``hdr.ina_data``): composite assignments copy into such an object and never replace
  it, so the object is the same for the whole body, whatever the body writes;
* scalar fields of such objects (``meta.idx``) that nothing in the body can write: no
  assignment to the field or to anything containing it, no out argument, no
  ``setValid``/``setInvalid`` on its header, and no call of an action, function, table
  or extern function that could write it behind the body's back.

A chain is hoisted only when the body mentions it at least twice.
"""
from __future__ import annotations

from collections import Counter

from testbed.p4 import ir

# extern methods whose written (out) argument positions are known; the other
# arguments are only read
_EXTERN_OUTS = {
    ("register", "read"): (0,),
    ("register", "write"): (),
    ("counter", "count"): (),
    ("direct_counter", "count"): (),
    ("meter", "execute_meter"): (1,),
    ("direct_meter", "read"): (0,),
}


def _path(e) -> tuple | None:
    """(root variable, field, ...) of a member chain, or None for anything else."""
    fields = []
    while isinstance(e, ir.Member):
        fields.append(e.field)
        e = e.expr
    if not isinstance(e, ir.Var):
        return None
    return (e.name, *reversed(fields))


def _lvalue_path(e) -> tuple | None:
    """The path an assignment to ``e`` may change: a slice changes its field, an
    indexed stack element the whole stack."""
    while True:
        if isinstance(e, ir.Slice):
            e = e.expr
        elif isinstance(e, ir.Index):
            e = e.expr
        elif isinstance(e, ir.Member) and isinstance(e.expr.type, ir.StackT):
            e = e.expr
        else:
            break
    return _path(e)


def _stable_chain(e) -> bool:
    """A member chain from a struct variable through header/struct members only."""
    while isinstance(e, ir.Member):
        if not isinstance(e.expr.type, (ir.HeaderT, ir.StructT)):
            return False
        e = e.expr
    return isinstance(e, ir.Var) and isinstance(e.type, ir.StructT)


def _is_scalar(t) -> bool:
    return isinstance(t, (ir.BitT, ir.IntT, ir.BoolT))


class _Scan:
    """One walk over a body: mentions of stable chains, written paths, declared names."""

    def __init__(self):
        self.uses = Counter()          # path -> number of mentions
        self.exprs = {}                # path -> one Member node of it
        self.written = set()           # paths that may be written
        self.declared = set()          # variables declared in the body
        self.opaque = False            # a call that may write anything

    def stmt(self, st) -> None:
        if isinstance(st, ir.Block):
            for x in st.stmts:
                self.stmt(x)
        elif isinstance(st, ir.VarDecl):
            self.declared.add(st.name)
            self.written.add((st.name,))
            if st.init is not None:
                self.expr(st.init)
        elif isinstance(st, ir.Assign):
            self.write(st.lhs)
            self.expr(st.lhs)
            self.expr(st.rhs)
        elif isinstance(st, ir.CallStmt):
            self.expr(st.call)
        else:
            self.generic(st)

    def write(self, e) -> None:
        p = _lvalue_path(e)
        if p is None:
            if not isinstance(e, ir.DontCare):
                self.opaque = True
        else:
            self.written.add(p)

    def expr(self, e) -> None:
        if isinstance(e, ir.Member) and _stable_chain(e):
            # the chain and each of its member prefixes are mentioned once
            while isinstance(e, ir.Member):
                if _is_scalar(e.type) or isinstance(e.type, (ir.HeaderT, ir.StructT)):
                    p = _path(e)
                    self.uses[p] += 1
                    self.exprs[p] = e
                e = e.expr
            return
        if isinstance(e, ir.Call):
            self.call(e)
        self.generic(e)

    def call(self, c) -> None:
        if c.kind == "builtin":
            if c.method not in ("isValid", "minSizeInBits", "minSizeInBytes"):
                self.write(c.target)
        elif c.kind == "extern_method" and (c.extern, c.method) in _EXTERN_OUTS:
            for i in _EXTERN_OUTS[(c.extern, c.method)]:
                self.write(c.args[i])
        elif c.kind == "extern_method" and c.extern in ("packet_in", "packet_out"):
            for a in c.args:
                self.write(a)
        else:
            self.opaque = True

    def generic(self, node) -> None:
        if isinstance(node, list):
            for x in node:
                self.generic_item(x)
        elif hasattr(node, "__dataclass_fields__") and not isinstance(node, ir.Type):
            for f in node.__dataclass_fields__:
                if f != "type":
                    self.generic_item(getattr(node, f))

    def generic_item(self, x) -> None:
        if isinstance(x, ir.Stmt):
            self.stmt(x)
        elif isinstance(x, ir.Expr):
            self.expr(x)
        elif isinstance(x, (list, tuple, dict)):
            for y in (x.values() if isinstance(x, dict) else x):
                self.generic_item(y)
        else:
            self.generic(x)           # e.g. a SwitchCase


def _overlaps(a: tuple, b: tuple) -> bool:
    n = min(len(a), len(b))
    return a[:n] == b[:n]


def hoistable(body: ir.Block, excluded: set) -> list:
    """Member chains of ``body`` worth reading once, shortest first (so that a chain's
    hoisted prefix serves it), as ir.Member nodes. Chains rooted at a variable in
    ``excluded`` or declared in the body are never hoisted."""
    scan = _Scan()
    scan.stmt(body)
    out = []
    for p, n in scan.uses.items():
        if n < 2 or p[0] in excluded or p[0] in scan.declared:
            continue
        e = scan.exprs[p]
        if _is_scalar(e.type) and (
                scan.opaque or any(_overlaps(p, w) for w in scan.written)):
            continue
        out.append(e)
    return sorted(out, key=lambda e: len(_path(e)))
