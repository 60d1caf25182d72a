"""What a name can stand for while a P4 program is lowered to IR, and lexical scopes."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from testbed.p4 import ir


@dataclass
class ParamSig:
    name: str
    direction: str            # "in", "out", "inout", ""
    type_tree: Any            # syntax tree of the type (resolved per call: generics)
    has_default: bool = False  # a default value, or @optional: the argument may be left out
    default: Any = None        # syntax tree of the default value, if any


@dataclass
class Sig:
    """A method, constructor, extern function or function prototype."""
    name: str
    type_params: tuple
    params: list              # list[ParamSig]
    ret: Any                  # syntax tree of the return type, None for void
    annotations: tuple = ()


@dataclass
class ExternDecl:
    name: str
    type_params: tuple
    ctors: list = field(default_factory=list)       # list[Sig]
    methods: dict = field(default_factory=dict)     # name -> list[Sig]


@dataclass
class VarSym:
    name: str                 # unique name in the block (ir.Var.name)
    type: ir.Type
    writable: bool = True
    direction: str = ""


@dataclass
class ConstSym:
    expr: ir.Expr


@dataclass
class InstanceSym:
    inst: ir.Instance
    decl: ExternDecl
    type_args: tuple = ()


@dataclass
class TableSym:
    table: ir.Table


@dataclass
class ActionSym:
    action: ir.Action


@dataclass
class ValueSetSym:
    vs: ir.ValueSet


@dataclass
class ExternFuncSym:
    overloads: list           # list[Sig]


@dataclass
class FunctionSym:
    fn: ir.Function
    sig: Sig


@dataclass
class GenericFunctionSym:
    """A function with type parameters: its syntax, and its lowered specializations."""
    tree: Any
    sig: Sig
    specialized: dict          # tuple of type arguments -> ir.Function


@dataclass
class BlockDeclSym:
    """A parser or control declaration (instantiated later) or a parser/control/package
    type declaration (tree is then None)."""
    kind: str                 # "parser", "control", "package"
    name: str
    tree: Any
    params: list = field(default_factory=list)        # list[ParamSig]
    ctor_params: list = field(default_factory=list)   # list[ParamSig]
    type_params: tuple = ()


@dataclass
class SubBlockSym:
    """A sub-control instantiated in a control; ``apply`` calls are inlined."""
    name: str                 # fully-qualified instance name
    params: list              # list[(VarSym, direction)]
    body: Optional[ir.Block]


@dataclass
class SubParserSym:
    """A sub-parser instantiated in a parser; each ``apply`` splices a renamed copy of its
    states into the calling parser."""
    name: str                 # fully-qualified instance name
    local: str
    params: list              # list[(VarSym, direction)]
    states: dict              # state name -> ir.ParserState (with the sub-parser's names)


@dataclass
class TopInstanceSym:
    """A top-level ``MyParser() p;`` instantiation used as a package argument."""
    decl: BlockDeclSym
    args: list


class Scope:
    def __init__(self, parent: Optional["Scope"] = None):
        self.parent = parent
        self.names: dict = {}

    def lookup(self, name: str):
        s = self
        while s is not None:
            sym = s.names.get(name)
            if sym is not None:
                return sym
            s = s.parent
        return None

    def local(self, name: str):
        return self.names.get(name)

    def visible(self) -> set:
        """Every name visible from this scope (for "did you mean" hints)."""
        out, s = set(), self
        while s is not None:
            out.update(s.names)
            s = s.parent
        return out
