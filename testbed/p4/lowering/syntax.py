"""What the lowering reads off the syntax tree without a symbol table: a declaration's
name and its annotations."""
from __future__ import annotations

from lark import Tree

from testbed.p4 import ir


def name_of(t) -> str:
    """The name a declaration's syntax tree (or a name token) gives."""
    if isinstance(t, Tree):
        return str(t.children[0])
    return str(t)


def annotations_of(t) -> tuple:
    """The annotations of an ``annotations`` subtree (None: none) as IR annotations."""
    if t is None:
        return ()
    out = []
    for a in t.children:
        name = str(a.children[0])
        body = a.children[1]
        values = []
        if body is not None:
            for tok in body.items:
                if tok.type == "STRING":
                    values.append(str(tok)[1:-1])
                elif tok.type == "INTEGER":
                    values.append(int(str(tok).replace("_", ""), 0)
                                  if str(tok).isdigit() or str(tok).lower().startswith("0x")
                                  else str(tok))
                elif str(tok) != ",":
                    values.append(str(tok))
        out.append(ir.Annotation(name, tuple(values)))
    return tuple(out)
