"""The one typed IR of a P4_16 program.

The frontend (``testbed.p4.lowering.program``) produces it from source; everything after it
(the v1model compiler, P4Info, STF, the switch) reads only this. Design rules:

* Every name is resolved. Types are concrete (typedefs and ``type`` are replaced by
  what they stand for, type arguments are substituted, ``int`` literals carry the width
  the context gives them, or :class:`InfIntT` when none).
* Every :class:`Expr` carries its ``type``; every node carries ``loc`` for diagnostics.
* Sub-parsers and sub-controls are inlined by the frontend, so a :class:`Control` or
  :class:`Parser` here is one of the package's blocks, and its tables, actions and extern
  instances carry the fully-qualified names p4c gives them (``MyIngress.c1.t``) in
  ``name`` with the short source name in ``local_name``.
* Local variables and parameters are referenced by :class:`Var` with a name unique in
  its block (the frontend renames shadowed names).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Union

from testbed.errors import P4Error


@dataclass(frozen=True)
class Loc:
    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


NOLOC = Loc("<builtin>", 0, 0)


@dataclass(frozen=True)
class Annotation:
    name: str                     # "name", "id", "hidden", "priority", ...
    body: tuple = ()              # parsed values (str / int) when it has a body


Annotations = tuple  # tuple[Annotation, ...]


def annotation(annos: Annotations, name: str) -> Optional[Annotation]:
    for a in annos:
        if a.name == name:
            return a
    return None


# ---------------------------------------------------------------- types
class Type:
    """Base of all types. Types are frozen and compare structurally."""


@dataclass(frozen=True)
class BitT(Type):
    width: int
    # the `type` declaration it comes from, for P4Info's type_name; not part of its identity
    name: str = field(default="", compare=False, repr=False)


@dataclass(frozen=True)
class IntT(Type):
    width: int                    # signed, two's complement


@dataclass(frozen=True)
class VarbitT(Type):
    max_width: int


@dataclass(frozen=True)
class InfIntT(Type):
    """Type of an integer literal with no width from context."""


@dataclass(frozen=True)
class BoolT(Type):
    pass


@dataclass(frozen=True)
class StringT(Type):
    pass


@dataclass(frozen=True)
class VoidT(Type):
    pass


@dataclass(frozen=True)
class ErrorT(Type):
    pass


@dataclass(frozen=True)
class MatchKindT(Type):
    pass


@dataclass(frozen=True)
class Field:
    name: str
    type: Type
    annotations: Annotations = ()


@dataclass(frozen=True)
class HeaderT(Type):
    name: str
    fields: tuple                 # tuple[Field, ...]; bit/int/varbit/bool (bool as 1 bit)
    # the declaration's annotations (@controller_header("packet_in"), @id, ...); not part
    # of the type's identity
    annotations: Annotations = field(default=(), compare=False)


@dataclass(frozen=True)
class StructT(Type):
    name: str
    fields: tuple                 # tuple[Field, ...]
    # declaration annotations (@name, @metadata, ...); not part of identity
    annotations: Annotations = field(default=(), compare=False)


@dataclass(frozen=True)
class UnionT(Type):
    name: str
    fields: tuple                 # tuple[Field, ...], each a HeaderT


@dataclass(frozen=True)
class StackT(Type):
    elem: Type                    # HeaderT or UnionT
    size: int


@dataclass(frozen=True)
class EnumT(Type):
    name: str
    members: tuple                # tuple[str, ...]
    underlying: Optional[Type] = None   # BitT/IntT for serializable enums
    values: tuple = ()            # tuple[int, ...] parallel to members when serializable


@dataclass(frozen=True)
class TupleT(Type):
    elems: tuple                  # tuple[Type, ...]


@dataclass(frozen=True)
class ExternT(Type):
    name: str                     # "register", "counter", "packet_in", ...
    type_args: tuple = ()


@dataclass(frozen=True)
class TableResultT(Type):
    """Type of ``t.apply()``: has ``hit``, ``miss`` and ``action_run``."""
    table: str


@dataclass(frozen=True)
class ActionEnumT(Type):
    """Type of ``t.apply().action_run``: one member per action of the table."""
    table: str


# ---------------------------------------------------------------- expressions
@dataclass
class Expr:
    type: Type
    loc: Loc


@dataclass
class Const(Expr):
    value: int                    # bool: 0/1; int<W>: signed Python int in range


@dataclass
class StringLit(Expr):
    value: str


@dataclass
class ErrorConst(Expr):
    name: str                     # "NoError", "PacketTooShort", user errors ...


@dataclass
class EnumConst(Expr):
    member: str                   # type is the EnumT


@dataclass
class ActionName(Expr):
    """An action used as a label in ``switch (t.apply().action_run)``."""
    action: str                   # fully-qualified action name


@dataclass
class Var(Expr):
    """A parameter or local variable of the enclosing parser/control/action/function."""
    name: str


@dataclass
class Member(Expr):
    """``expr.field`` of a header, struct or union; also ``hit``/``miss``/``action_run`` on
    a TableApply, and stack properties ``next``, ``last``, ``lastIndex``, ``size``."""
    expr: Expr
    field: str


@dataclass
class Index(Expr):
    """``stack[index]`` (index may be any expression)."""
    expr: Expr
    index: Expr


@dataclass
class Slice(Expr):
    expr: Expr
    hi: int
    lo: int


@dataclass
class Unary(Expr):
    op: str                       # "-", "~", "!", "+"
    expr: Expr


@dataclass
class Binary(Expr):
    op: str                       # + - * / % << >> & | ^ |+| |-| ++ == != < <= > >= && ||
    left: Expr
    right: Expr


@dataclass
class Cast(Expr):
    expr: Expr                    # target type is .type


@dataclass
class Mux(Expr):
    cond: Expr
    then: Expr
    other: Expr


@dataclass
class ListExpr(Expr):
    """``{a, b, c}`` as a tuple / struct / header initializer; ``type`` tells which."""
    elems: list


@dataclass
class StructInit(Expr):
    """``{f1 = a, f2 = b}`` with a struct or header type."""
    fields: dict                  # name -> Expr


@dataclass
class DontCare(Expr):
    """``_`` as an out argument or a select/key don't-care."""


@dataclass
class Default(Expr):
    """``default`` in a select case or table entry key."""


@dataclass
class Mask(Expr):
    value: Expr
    mask: Expr


@dataclass
class Range(Expr):
    lo: Expr
    hi: Expr


@dataclass
class ValueSetRef(Expr):
    """A ``value_set`` used as a select keyset."""
    name: str


@dataclass
class Call(Expr):
    """Every invocation. ``kind`` says what is called:

    * "builtin": ``target`` is the object expression; ``method`` one of isValid,
      setValid, setInvalid, push_front, pop_front, minSizeInBits, minSizeInBytes.
    * "extern_method": ``target`` is a Var naming an extern instance (parser/control
      local, or packet_in/packet_out parameter; for an instance, ``Var.name`` is its
      fully-qualified ``Instance.name``); ``extern`` its extern type name;
      ``method`` e.g. extract, lookahead, advance, length, emit, read, write, count,
      execute_meter, get.
    * "extern_function": ``method`` is the function (mark_to_drop, hash, clone, digest,
      verify_checksum, update_checksum, ..., random, log_msg, assert, assume, verify,
      resubmit_preserving_field_list, ...).
    * "action": ``method`` is the fully-qualified action name.
    * "function": ``method`` is the function name (see Program.functions).
    * "table_apply": ``method`` is the fully-qualified table name.
    """
    kind: str
    method: str
    args: list = field(default_factory=list)          # Expr, or DontCare
    target: Optional[Expr] = None
    extern: Optional[str] = None
    type_args: list = field(default_factory=list)     # Types


# ---------------------------------------------------------------- statements
@dataclass
class Stmt:
    loc: Loc


@dataclass
class Assign(Stmt):
    lhs: Expr
    rhs: Expr


@dataclass
class CallStmt(Stmt):
    call: Call


@dataclass
class VarDecl(Stmt):
    name: str
    type: Type
    init: Optional[Expr] = None   # None: uninitialized (BMv2 gives 0 / invalid)


@dataclass
class Block(Stmt):
    stmts: list


@dataclass
class If(Stmt):
    cond: Expr
    then: Stmt
    other: Optional[Stmt] = None


@dataclass
class SwitchCase:
    labels: list                  # Exprs (ActionName / Const / EnumConst) or [Default]
    body: Optional[Block]         # None: fall through to the next case


@dataclass
class Switch(Stmt):
    expr: Expr                    # action_run, or a bit/int/enum expression
    cases: list                   # list[SwitchCase]


@dataclass
class For(Stmt):
    """``for (init; cond; update) body``; the frontend lowers the loops over a header
    stack or a range to this form too."""
    init: list                    # Stmts run once, first
    cond: Optional[Expr]          # tested before each iteration; None: always true
    update: list                  # Stmts run after each iteration, ``continue`` included
    body: Stmt


@dataclass
class Break(Stmt):
    pass


@dataclass
class Continue(Stmt):
    pass


@dataclass
class Exit(Stmt):
    pass


@dataclass
class Return(Stmt):
    expr: Optional[Expr] = None


# ---------------------------------------------------------------- declarations
@dataclass
class Param:
    name: str
    direction: str                # "in", "out", "inout", "" (directionless)
    type: Type
    loc: Loc = NOLOC
    annotations: Annotations = ()


@dataclass
class Instance:
    """An extern instance (``register<bit<32>>(1024) r;``), parser/control local."""
    name: str                     # fully-qualified (MyIngress.r)
    local_name: str
    extern: str                   # extern type name
    type_args: list               # Types
    args: list                    # constructor arguments (Exprs: Const, EnumConst, ...)
    loc: Loc = NOLOC
    annotations: Annotations = ()


@dataclass
class ValueSet:
    name: str
    local_name: str
    type: Type                    # element type
    size: int
    loc: Loc = NOLOC
    annotations: Annotations = ()
    # per key, or None: the key and each member are compared under the mask (BMv2
    # JSON's parse_vset transition with a mask, which BMv2 applies to both)
    mask: Optional[tuple] = None


@dataclass
class Action:
    name: str                     # fully-qualified (MyIngress.ipv4_forward); "NoAction" at top
    local_name: str
    params: list                  # list[Param]; directionless ones are action data
    body: Block
    loc: Loc = NOLOC
    annotations: Annotations = ()


@dataclass
class Function:
    name: str
    params: list
    return_type: Type
    body: Block
    loc: Loc = NOLOC


@dataclass
class Key:
    expr: Expr
    match_kind: str               # exact, lpm, ternary, range, optional, selector
    name: str                     # @name or the source text of expr, as p4c names it
    loc: Loc = NOLOC
    annotations: Annotations = ()


@dataclass
class ActionRef:
    action: str                   # fully-qualified action name
    args: list = field(default_factory=list)  # Exprs bound in the reference
    annotations: Annotations = ()  # @tableonly / @defaultonly ...
    loc: Loc = NOLOC


@dataclass
class Entry:
    """A ``const entries`` / ``entries`` element."""
    keys: list                    # per key: Const / Mask / Range / Default / DontCare
    action: ActionRef
    priority: Optional[int] = None        # ``priority = N :``, in the table's own order
    loc: Loc = NOLOC
    bmv2_priority: Optional[int] = None   # ``@priority(N)``: BMv2's, the smaller wins


@dataclass
class Table:
    name: str                     # fully-qualified
    local_name: str
    keys: list                    # list[Key]
    actions: list                 # list[ActionRef]
    default_action: ActionRef
    default_const: bool = False
    entries: list = field(default_factory=list)   # list[Entry]
    entries_const: bool = True
    size: int = 1024
    counters: Optional[str] = None   # direct_counter instance name
    meters: Optional[str] = None     # direct_meter instance name
    implementation: Optional[str] = None  # action_profile instance name
    largest_priority_wins: bool = True
    priority_delta: int = 1
    loc: Loc = NOLOC
    annotations: Annotations = ()
    # table properties the language does not define (name -> Expr), kept for targets
    properties: dict = field(default_factory=dict)


@dataclass
class ParserState:
    name: str
    stmts: list
    transition: "Transition"
    loc: Loc = NOLOC


@dataclass
class SelectCase:
    keysets: list                 # per select expression: Const / Mask / Range / Default /
                                  # DontCare / ValueSetRef (a single Default = default case)
    next_state: str
    loc: Loc = NOLOC


@dataclass
class Transition:
    """``transition s;`` (exprs empty, one case with no keysets) or ``transition select``."""
    exprs: list
    cases: list                   # list[SelectCase]; "accept"/"reject" are states too
    loc: Loc = NOLOC


@dataclass
class Parser:
    name: str                     # type name (MyParser)
    params: list
    locals: list                  # VarDecl statements run on entry
    instances: list               # list[Instance]
    value_sets: list
    states: dict                  # name -> ParserState; always has "start"
    loc: Loc = NOLOC
    annotations: Annotations = ()


@dataclass
class Control:
    name: str                     # type name (MyIngress)
    params: list
    locals: list                  # VarDecl statements run on entry
    instances: list
    actions: dict                 # fully-qualified name -> Action (NoAction included)
    tables: dict                  # fully-qualified name -> Table
    body: Block
    loc: Loc = NOLOC
    annotations: Annotations = ()


# PSA's extern types the control plane reaches as v1model's counter, meter, register ...
def fixed_width(t: Type) -> int:
    """Bits of a value of type ``t`` in the generated code and on the wire, varbit fields
    counted as 0 (their bits are carried apart); the two code generators' measure."""
    if isinstance(t, (BitT, IntT)):
        return t.width
    if isinstance(t, BoolT):
        return 1
    if isinstance(t, EnumT) and t.underlying is not None:
        return fixed_width(t.underlying)
    if isinstance(t, HeaderT):
        return sum(fixed_width(f.type) for f in t.fields)
    if isinstance(t, StructT):
        return sum(fixed_width(f.type) for f in t.fields)
    if isinstance(t, VarbitT):
        return 0
    if isinstance(t, ErrorT):
        return 32
    raise P4Error(f"type {t} has no fixed bit width")


RESOURCE_KINDS = {"Counter": "counter", "DirectCounter": "direct_counter", "Meter": "meter",
                  "DirectMeter": "direct_meter", "Register": "register",
                  "ActionProfile": "action_profile", "ActionSelector": "action_selector"}


def resource_kind(extern: str) -> str:
    """The v1model name of an extern type's kind of resource (itself when it has none)."""
    return RESOURCE_KINDS.get(extern, extern)


# the roles of a package's blocks (Program.blocks' keys), in the package's order
V1SWITCH_ROLES = ("parser", "verify_checksum", "ingress", "egress", "compute_checksum",
                  "deparser")
PSA_ROLES = ("ingress_parser", "ingress", "ingress_deparser", "egress_parser", "egress",
             "egress_deparser")
# PSA_PacketPath_t's members
PSA_PATHS = ("NORMAL", "NORMAL_UNICAST", "NORMAL_MULTICAST", "CLONE_I2E", "CLONE_E2E",
             "RESUBMIT", "RECIRCULATE")


@dataclass(frozen=True)
class NewType:
    """A ``type`` declaration: P4Info describes it (type_info.new_types) and names it where
    a match field, action parameter or controller header field has it (type_name)."""
    name: str
    base: Type
    annotations: Annotations = ()
    loc: Loc = NOLOC


@dataclass
class Program:
    source: str                   # main file path
    arch: str                     # "v1model" or "psa"
    types: dict                   # name -> Type (headers, structs, unions, enums, ...)
    errors: list                  # error members, in declaration order (NoError first)
    match_kinds: list
    constants: dict               # name -> Const/Expr with type
    functions: dict               # name -> Function
    actions: dict                 # top-level actions (NoAction, user)
    parsers: dict                 # name -> Parser (the inlined package blocks)
    controls: dict                # name -> Control
    package: str                  # "V1Switch" or "PSA_Switch"
    blocks: dict                  # role -> block name; roles: V1SWITCH_ROLES or PSA_ROLES
    digests: list = field(default_factory=list)    # Types passed to digest<T>() calls
    controller_headers: list = field(default_factory=list)  # @controller_header HeaderTs
    new_types: dict = field(default_factory=dict)  # name -> NewType, the `type` declarations
    package_loc: Optional[Loc] = None  # where ``main`` is instantiated


Decl = Union[Parser, Control, Action, Table, Instance, Function]


def union_stack_next(target) -> bool:
    """Whether an extract's target is a member of a header union stack's ``next``."""
    return (isinstance(target, Member) and isinstance(target.expr, Member)
            and target.expr.field == "next" and isinstance(target.expr.expr.type, StackT)
            and isinstance(target.expr.expr.type.elem, UnionT))


def nodes(tree):
    """Every statement and expression of an IR subtree (a node, or lists, tuples and
    dicts of them), parents before their children, in source order; types are not
    walked. The one generic walk the analyses over the IR share."""
    if isinstance(tree, (list, tuple)):
        for x in tree:
            yield from nodes(x)
    elif isinstance(tree, dict):
        for x in tree.values():
            yield from nodes(x)
    elif hasattr(tree, "__dataclass_fields__") and not isinstance(tree, Type):
        if isinstance(tree, (Stmt, Expr)):
            yield tree
        for f in tree.__dataclass_fields__:
            yield from nodes(getattr(tree, f))
