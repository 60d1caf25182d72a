"""Expression lowering of the frontend: syntax tree -> typed ``ir.Expr``.

Integer literals without a width get ``InfIntT`` and take the width of the other operand
or of the destination (the only implicit cast P4 has); everything else must match
exactly. Compile-time constant subexpressions are folded into ``ir.Const``.
"""
from __future__ import annotations

import difflib

from lark import Token, Tree

from testbed.p4 import ir
from testbed.p4.frontend.p4types import (TypeVar, field_type, has_typevar, is_fixed, is_numeric,
                                         normalize, show, substitute, unify, width_of)
from testbed.p4.lowering.symbols import (ActionSym, ConstSym, ExternFuncSym, FunctionSym,
                                         GenericFunctionSym, InstanceSym, ParamSig,
                                         SubBlockSym, TableSym, ValueSetSym, VarSym)
from testbed.p4.lowering.syntax import name_of

_ARITH = {"+", "-", "*", "/", "%", "|+|", "|-|"}
_BITWISE = {"&", "|", "^"}
_COMPARE = {"<", ">", "<=", ">="}
_HEADER_METHODS = {"isValid", "setValid", "setInvalid", "minSizeInBits", "minSizeInBytes"}
_STACK_METHODS = {"push_front", "pop_front"}


def parse_int(text: str):
    """Value and type of an integer literal (``8w5``, ``16s-1``, ``0x0800``, ``1_000``)."""
    text = text.replace("_", "")
    width, signed = None, False
    for sep in ("w", "s"):
        head, found, tail = text.partition(sep)
        if found and head.isdigit() and not text.lower().startswith(("0x", "0b", "0o", "0d")):
            width, signed, text = int(head), sep == "s", tail
            break
    neg = text.startswith("-")
    if neg:
        text = text[1:]
    low = text.lower()
    if low.startswith("0x"):
        value = int(low[2:], 16)
    elif low.startswith("0b"):
        value = int(low[2:], 2)
    elif low.startswith("0o"):
        value = int(low[2:], 8)
    elif low.startswith("0d"):
        value = int(low[2:], 10)
    else:
        value = int(low, 10)
    if neg:
        value = -value
    if width is None:
        return value, ir.InfIntT()
    return value, (ir.IntT(width) if signed else ir.BitT(width))


def _fold(op: str, a: int, b: int, t):
    if op == "+" or op == "|+|":
        r = a + b
    elif op == "-" or op == "|-|":
        r = a - b
    elif op == "*":
        r = a * b
    elif op == "/":
        r = a // b
    elif op == "%":
        r = a % b
    elif op == "&":
        r = a & b
    elif op == "|":
        r = a | b
    elif op == "^":
        r = a ^ b
    elif op == "<<":
        r = a << b
    elif op == ">>":
        r = a >> b
    elif op == "==":
        return int(a == b)
    elif op == "!=":
        return int(a != b)
    elif op == "<":
        return int(a < b)
    elif op == ">":
        return int(a > b)
    elif op == "<=":
        return int(a <= b)
    elif op == ">=":
        return int(a >= b)
    elif op == "&&":
        return int(bool(a) and bool(b))
    elif op == "||":
        return int(bool(a) or bool(b))
    else:
        return None
    if op in ("|+|", "|-|") and isinstance(t, (ir.BitT, ir.IntT)):
        if isinstance(t, ir.BitT):
            lo, hi = 0, (1 << t.width) - 1
        else:
            lo, hi = -(1 << (t.width - 1)), (1 << (t.width - 1)) - 1
        return min(max(r, lo), hi)
    return normalize(r, t)


def is_lvalue(e) -> bool:
    if isinstance(e, ir.Var):
        return True
    if isinstance(e, (ir.Member, ir.Index, ir.Slice)):
        if isinstance(e, ir.Member) and e.field in ("last", "lastIndex", "size"):
            return isinstance(e, ir.Member) and e.field == "last" and is_lvalue(e.expr)
        return is_lvalue(e.expr)
    return False


def did_you_mean(name: str, candidates) -> str:
    close = difflib.get_close_matches(name, sorted(candidates), n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""


def _root_var(e):
    while isinstance(e, (ir.Member, ir.Index, ir.Slice)):
        e = e.expr
    return e if isinstance(e, ir.Var) else None


def ret_param(sig):
    """The type parameter a signature returns, if it returns one as it is."""
    r = sig.ret
    if isinstance(r, Tree) and r.data == "type_or_void":
        r = r.children[0]
    if isinstance(r, Tree) and r.data == "type_name" and str(r.children[0]) in sig.type_params:
        return str(r.children[0])
    return None


class Expressions:
    """Mixin of the lowering: needs ``err``, ``loc``, ``resolve_type``, ``types``,
    ``error_names``, ``digests``, ``source_text``."""

    # ------------------------------------------------------------------ entry
    def expr(self, t, scope, expected=None) -> ir.Expr:
        e = self._expr(t, scope, expected)
        if expected is not None:
            e = self.coerce(e, expected, t)
        return e

    def const_int(self, t, scope, what: str) -> int:
        e = self.expr(t, scope)
        if not isinstance(e, ir.Const) or isinstance(e.type, ir.BoolT):
            self.err(f"{what} must be a compile-time integer constant", t)
        return e.value

    def coerce(self, e, target, node):
        """Give ``e`` type ``target`` if P4 allows it implicitly; error otherwise."""
        if target is None or e.type == target or isinstance(target, TypeVar):
            return e
        if isinstance(e, ir.DontCare):
            return e
        if isinstance(e.type, ir.InfIntT):
            if isinstance(e, ir.Const) and isinstance(target, (ir.BitT, ir.IntT)):
                return ir.Const(target, e.loc, normalize(e.value, target))
            if isinstance(e, ir.Const) and isinstance(target, ir.InfIntT):
                return e
            if isinstance(target, (ir.BitT, ir.IntT)):
                return self._retype(e, target, node)
            if isinstance(e, ir.Const) and isinstance(target, ir.EnumT) and target.underlying:
                self.err(f"cannot use an integer where {show(target)} is expected; "
                         f"use a member of {target.name}", node)
        if isinstance(e.type, ir.EnumT) and e.type.underlying == target:
            return self.enum_value(e)
        if isinstance(e, ir.ListExpr):
            return self._coerce_list(e, target, node)
        if isinstance(e, ir.StructInit) and isinstance(target, (ir.StructT, ir.HeaderT)):
            return self._coerce_struct_init(e, target, node)
        if isinstance(e, ir.Mux):
            return ir.Mux(target, e.loc, e.cond, self.coerce(e.then, target, node),
                          self.coerce(e.other, target, node))
        self.err(f"type mismatch: expected {show(target)}, got {show(e.type)}"
                 + ("; use an explicit cast" if is_numeric(target) and is_numeric(e.type) else ""),
                 node)

    def _retype(self, e, target, node):
        """An untyped (int) non-constant expression, e.g. ``1 << n``: give it the width."""
        if isinstance(e, ir.Binary) and e.op in _ARITH | _BITWISE:
            return ir.Binary(target, e.loc, e.op, self.coerce(e.left, target, node),
                             self.coerce(e.right, target, node))
        if isinstance(e, ir.Binary) and e.op in ("<<", ">>"):
            return ir.Binary(target, e.loc, e.op, self.coerce(e.left, target, node), e.right)
        if isinstance(e, ir.Unary):
            return ir.Unary(target, e.loc, e.op, self.coerce(e.expr, target, node))
        if isinstance(e, ir.Mux):
            return ir.Mux(target, e.loc, e.cond, self.coerce(e.then, target, node),
                          self.coerce(e.other, target, node))
        self.err(f"cannot give a width to this expression; cast it to {show(target)}", node)

    def _coerce_list(self, e, target, node):
        if isinstance(target, ir.TupleT):
            if len(target.elems) != len(e.elems):
                self.err(f"expected {len(target.elems)} elements, got {len(e.elems)}", node)
            elems = [self.coerce(x, tt, node) for x, tt in zip(e.elems, target.elems)]
            return ir.ListExpr(target, e.loc, elems)
        if isinstance(target, (ir.StructT, ir.HeaderT)):
            if len(target.fields) != len(e.elems):
                self.err(f"{target.name} has {len(target.fields)} fields, the list has "
                         f"{len(e.elems)} elements", node)
            elems = [self.coerce(x, f.type, node) for x, f in zip(e.elems, target.fields)]
            return ir.ListExpr(target, e.loc, elems)
        self.err(f"type mismatch: expected {show(target)}, got a list expression", node)

    def _coerce_struct_init(self, e, target, node):
        names = [f.name for f in target.fields]
        if set(e.fields) != set(names):
            missing = sorted(set(names) - set(e.fields))
            extra = sorted(set(e.fields) - set(names))
            self.err(f"initializer of {target.name} must set exactly its fields"
                     + (f"; missing {', '.join(missing)}" if missing else "")
                     + (f"; unknown {', '.join(extra)}" if extra else ""), node)
        fields = {f.name: self.coerce(e.fields[f.name], f.type, node) for f in target.fields}
        return ir.StructInit(target, e.loc, fields)

    # ------------------------------------------------------------------ dispatch
    def _expr(self, t, scope, expected):
        if isinstance(t, Token):
            self.err(f"unexpected {t!s}", t)
        kind = t.data
        handler = getattr(self, "_x_" + kind, None)
        if handler is None:
            self.err(f"unsupported: expression {kind.replace('_', ' ')}", t)
        return handler(t, scope, expected)

    def _x_integer(self, t, scope, expected):
        value, typ = parse_int(str(t.children[0]))
        if isinstance(typ, (ir.BitT, ir.IntT)):
            if isinstance(typ, ir.BitT) and not 0 <= value < (1 << typ.width):
                self.err(f"value {value} does not fit in {show(typ)}", t)
            if isinstance(typ, ir.IntT) and not -(1 << (typ.width - 1)) <= value < (
                    1 << (typ.width - 1)):
                self.err(f"value {value} does not fit in {show(typ)}", t)
        return ir.Const(typ, self.loc(t), value)

    def _x_true(self, t, scope, expected):
        return ir.Const(ir.BoolT(), self.loc(t), 1)

    def _x_false(self, t, scope, expected):
        return ir.Const(ir.BoolT(), self.loc(t), 0)

    def _x_string(self, t, scope, expected):
        raw = str(t.children[0])[1:-1]
        return ir.StringLit(ir.StringT(), self.loc(t), bytes(raw, "utf-8").decode("unicode_escape"))

    def _x_this_expr(self, t, scope, expected):
        self.err("unsupported: 'this'", t)

    def _x_var(self, t, scope, expected):
        name = name_of(t.children[0])
        return self.name_ref(name, t, scope)

    def _x_dot_var(self, t, scope, expected):
        name = name_of(t.children[0])
        return self.name_ref(name, t, self.global_scope)

    def name_ref(self, name, node, scope):
        sym = scope.lookup(name)
        loc = self.loc(node)
        if sym is None:
            self.err(f"undefined name '{name}'" + did_you_mean(name, scope.visible()), node)
        if isinstance(sym, VarSym):
            self.var_syms[sym.name] = sym      # consulted by check_writable
            return ir.Var(sym.type, loc, sym.name)
        if isinstance(sym, ConstSym):
            e = sym.expr
            if isinstance(e, ir.Const):
                return ir.Const(e.type, loc, e.value)
            return e
        if isinstance(sym, InstanceSym):
            return ir.Var(ir.ExternT(sym.decl.name, sym.type_args), loc, sym.inst.name)
        if isinstance(sym, ValueSetSym):
            return ir.ValueSetRef(sym.vs.type, loc, sym.vs.name)
        if isinstance(sym, ActionSym):
            return ir.ActionName(ir.VoidT(), loc, sym.action.name)
        if isinstance(sym, TableSym):
            self.err(f"table '{name}' can only be used as {name}.apply()", node)
        self.err(f"'{name}' cannot be used as a value here", node)

    def _x_list_expr(self, t, scope, expected):
        items = self._expr_list(t.children[0])
        hint = None
        if isinstance(expected, ir.TupleT) and len(expected.elems) == len(items):
            hint = list(expected.elems)
        elif isinstance(expected, (ir.StructT, ir.HeaderT)) and len(expected.fields) == len(items):
            hint = [f.type for f in expected.fields]
        elems = [self._expr(x, scope, hint[i] if hint else None) for i, x in enumerate(items)]
        return ir.ListExpr(ir.TupleT(tuple(e.type for e in elems)), self.loc(t), elems)

    def _x_struct_expr(self, t, scope, expected):
        fields = {}
        for kv in t.children:
            name = name_of(kv.children[0])
            ft = field_type(expected, name) if expected is not None else None
            if name in fields:
                self.err(f"field '{name}' set twice", kv)
            fields[name] = self._expr(kv.children[1], scope, ft)
        typ = expected if isinstance(expected, (ir.StructT, ir.HeaderT)) else ir.StructT(
            "", tuple(ir.Field(n, e.type) for n, e in fields.items()))
        return ir.StructInit(typ, self.loc(t), fields)

    def _expr_list(self, t):
        return [c for c in t.children if c is not None]

    def _x_error_member(self, t, scope, expected):
        name = name_of(t.children[1])
        if name not in self.error_names:
            self.err(f"'{name}' is not a declared error; declare it with error {{ {name} }}", t)
        return ir.ErrorConst(ir.ErrorT(), self.loc(t), name)

    def _x_type_member(self, t, scope, expected):
        typ = self.resolve_type(t.children[0], {})
        member = name_of(t.children[1])
        if isinstance(typ, ir.EnumT):
            if member not in typ.members:
                self.err(f"{typ.name} has no member '{member}'", t.children[1])
            return ir.EnumConst(typ, self.loc(t), member)
        if isinstance(typ, ir.ErrorT):
            return self._x_error_member(t, scope, expected)
        self.err(f"'{show(typ)}.{member}': only enum members can be selected from a type", t)

    def _x_mux(self, t, scope, expected):
        cond = self.expr(t.children[0], scope, ir.BoolT())
        a = self._expr(t.children[1], scope, expected)
        b = self._expr(t.children[2], scope, expected)
        a, b = self._unify_operands(a, b, t)
        if isinstance(cond, ir.Const):
            return a if cond.value else b
        if isinstance(a.type, ir.InfIntT) and expected is None:
            self.err("the branches of ?: need a width; cast one of them", t)
        return ir.Mux(a.type, self.loc(t), cond, a, b)

    def enum_value(self, e):
        """A serializable enum value as its underlying type (an implicit cast in P4)."""
        under = e.type.underlying
        if isinstance(e, ir.EnumConst):
            return ir.Const(under, e.loc, e.type.values[e.type.members.index(e.member)])
        return ir.Cast(under, e.loc, e)

    def _unify_operands(self, a, b, node):
        if a.type == b.type:
            return a, b
        for x, y in ((a, b), (b, a)):
            if isinstance(x.type, ir.EnumT) and x.type.underlying is not None and (
                    isinstance(y.type, ir.InfIntT) or y.type == x.type.underlying):
                x2 = self.enum_value(x)
                return self._unify_operands(*((x2, y) if x is a else (y, x2)), node)
        if isinstance(a.type, ir.InfIntT):
            return self.coerce(a, b.type, node), b
        if isinstance(b.type, ir.InfIntT):
            return a, self.coerce(b, a.type, node)
        if isinstance(a, ir.ListExpr):
            return self.coerce(a, b.type, node), b
        if isinstance(b, ir.ListExpr):
            return a, self.coerce(b, a.type, node)
        self.err(f"type mismatch: {show(a.type)} and {show(b.type)}"
                 + ("; cast one operand" if is_numeric(a.type) and is_numeric(b.type) else ""),
                 node)

    def _x_binop(self, t, scope, expected):
        op = str(t.children[1])
        a = self._expr(t.children[0], scope, None)
        b = self._expr(t.children[2], scope, None)
        loc = self.loc(t.children[1])
        if op in ("&&", "||"):
            a = self.coerce(a, ir.BoolT(), t.children[0])
            b = self.coerce(b, ir.BoolT(), t.children[2])
            if isinstance(a, ir.Const) and isinstance(b, ir.Const):
                return ir.Const(ir.BoolT(), loc, _fold(op, a.value, b.value, ir.BoolT()))
            return ir.Binary(ir.BoolT(), loc, op, a, b)
        if op in ("<<", ">>"):
            if not is_numeric(a.type):
                self.err(f"left operand of {op} must be bit<W> or int<W>, not {show(a.type)}", t)
            if not isinstance(b.type, (ir.BitT, ir.InfIntT)):
                self.err(f"shift amount must be unsigned (bit<W> or a literal), not "
                         f"{show(b.type)}", t.children[2])
            if isinstance(b, ir.Const) and b.value < 0:
                self.err("shift amount must not be negative", t.children[2])
            if isinstance(a.type, ir.InfIntT) and expected is not None and is_fixed(expected):
                a = self.coerce(a, expected, t.children[0])
            if isinstance(a, ir.Const) and isinstance(b, ir.Const):
                return ir.Const(a.type, loc, _fold(op, a.value, b.value, a.type))
            if isinstance(a.type, ir.InfIntT):
                self.err(f"the left operand of {op} needs a width; cast it (e.g. (bit<32>)1)", t)
            return ir.Binary(a.type, loc, op, a, b)
        if op == "++":
            for side, node in ((a, t.children[0]), (b, t.children[2])):
                if not is_fixed(side.type):
                    self.err(f"operands of ++ must be bit<W> or int<W> with a known width, "
                             f"not {show(side.type)}", node)
            w = a.type.width + b.type.width
            rt = ir.IntT(w) if isinstance(a.type, ir.IntT) else ir.BitT(w)
            if isinstance(a, ir.Const) and isinstance(b, ir.Const):
                ua = normalize(a.value, ir.BitT(a.type.width))
                ub = normalize(b.value, ir.BitT(b.type.width))
                return ir.Const(rt, loc, normalize((ua << b.type.width) | ub, rt))
            return ir.Binary(rt, loc, op, a, b)
        if isinstance(a.type, ir.InfIntT) and isinstance(b.type, ir.InfIntT) and expected \
                is not None and is_fixed(expected) and op in _ARITH | _BITWISE:
            a = self.coerce(a, expected, t.children[0])
        a, b = self._unify_operands(a, b, t)
        typ = a.type
        if op in ("==", "!="):
            if isinstance(a, ir.Const) and isinstance(b, ir.Const):
                return ir.Const(ir.BoolT(), loc, _fold(op, a.value, b.value, typ))
            if isinstance(a, ir.EnumConst) and isinstance(b, ir.EnumConst):
                return ir.Const(ir.BoolT(), loc, int((a.member == b.member) == (op == "==")))
            return ir.Binary(ir.BoolT(), loc, op, a, b)
        if not is_numeric(typ):
            self.err(f"operator {op} needs bit<W> or int<W> operands, not {show(typ)}", t)
        if op in _COMPARE:
            if isinstance(a, ir.Const) and isinstance(b, ir.Const):
                return ir.Const(ir.BoolT(), loc, _fold(op, a.value, b.value, typ))
            return ir.Binary(ir.BoolT(), loc, op, a, b)
        if op in ("/", "%"):
            if isinstance(b, ir.Const) and b.value == 0:
                self.err("division by zero", t.children[2])
            if isinstance(typ, ir.IntT):
                self.err(f"operator {op} is not defined on signed int<W>", t)
        if isinstance(a, ir.Const) and isinstance(b, ir.Const):
            return ir.Const(typ, loc, _fold(op, a.value, b.value, typ))
        return ir.Binary(typ, loc, op, a, b)

    def _x_unop(self, t, scope, expected):
        op = str(t.children[0])
        e = self._expr(t.children[1], scope, expected if op in ("-", "~", "+") else None)
        loc = self.loc(t)
        if op == "!":
            e = self.coerce(e, ir.BoolT(), t.children[1])
            if isinstance(e, ir.Const):
                return ir.Const(ir.BoolT(), loc, 1 - e.value)
            return ir.Unary(ir.BoolT(), loc, op, e)
        if not is_numeric(e.type):
            self.err(f"operator {op} needs bit<W> or int<W>, not {show(e.type)}", t)
        if op == "~" and isinstance(e.type, ir.InfIntT):
            if expected is not None and is_fixed(expected):
                e = self.coerce(e, expected, t.children[1])
            else:
                self.err("~ of an untyped literal needs a width; cast it first", t)
        if isinstance(e, ir.Const):
            v = {"-": -e.value, "+": e.value, "~": ~e.value}[op]
            return ir.Const(e.type, loc, normalize(v, e.type))
        if op == "+":
            return e
        return ir.Unary(e.type, loc, op, e)

    def _x_cast(self, t, scope, expected):
        target = self.resolve_type(t.children[0], {})
        e = self._expr(t.children[1], scope, None)
        loc = self.loc(t)
        src = e.type
        if src == target:
            return e
        ok = False
        if isinstance(e, (ir.ListExpr, ir.StructInit)) and isinstance(
                target, (ir.StructT, ir.HeaderT, ir.TupleT)):
            return self.coerce(e, target, t)
        if isinstance(src, ir.InfIntT) and isinstance(target, (ir.BitT, ir.IntT, ir.BoolT)):
            ok = True
        elif isinstance(src, (ir.BitT, ir.IntT)) and isinstance(target, (ir.BitT, ir.IntT)):
            ok = isinstance(src, type(target)) or src.width == target.width
        elif isinstance(src, ir.BoolT) and target == ir.BitT(1):
            ok = True
        elif src == ir.BitT(1) and isinstance(target, ir.BoolT):
            ok = True
        elif isinstance(src, ir.EnumT) and src.underlying is not None and (
                is_fixed(target) and isinstance(target, type(src.underlying))):
            ok = True
        elif isinstance(target, ir.EnumT) and target.underlying is not None and (
                isinstance(src, ir.InfIntT) or src == target.underlying):
            ok = True
        if not ok:
            self.err(f"cannot cast {show(src)} to {show(target)}", t)
        if isinstance(e, ir.Const) and isinstance(target, (ir.BitT, ir.IntT, ir.BoolT)):
            if isinstance(target, ir.BoolT) and isinstance(src, ir.InfIntT) and \
                    e.value not in (0, 1):
                self.err(f"cannot cast {e.value} to bool", t)
            value = e.value
            if isinstance(src, ir.IntT) and isinstance(target, ir.BitT):
                value = normalize(value, ir.BitT(src.width))
            return ir.Const(target, loc, normalize(value, target))
        if isinstance(e, ir.EnumConst) and is_fixed(target):
            value = src.values[src.members.index(e.member)]
            return ir.Const(target, loc, normalize(value, target))
        if isinstance(e, ir.Const) and isinstance(target, ir.EnumT):
            v = normalize(e.value, target.underlying)
            if v in target.values:
                return ir.EnumConst(target, loc, target.members[target.values.index(v)])
        return ir.Cast(target, loc, e)

    def _x_slice(self, t, scope, expected):
        e = self._expr(t.children[0], scope, None)
        hi = self.const_int(t.children[1], scope, "a slice bound")
        lo = self.const_int(t.children[2], scope, "a slice bound")
        if not is_fixed(e.type):
            self.err(f"only bit<W> and int<W> values can be sliced, not {show(e.type)}", t)
        if not (0 <= lo <= hi < e.type.width):
            self.err(f"slice [{hi}:{lo}] is out of range for {show(e.type)}; need "
                     f"{e.type.width - 1} >= hi >= lo >= 0", t)
        rt = ir.BitT(hi - lo + 1)
        if isinstance(e, ir.Const):
            v = normalize(e.value, ir.BitT(e.type.width))
            return ir.Const(rt, self.loc(t), (v >> lo) & ((1 << (hi - lo + 1)) - 1))
        return ir.Slice(rt, self.loc(t), e, hi, lo)

    def _x_index(self, t, scope, expected):
        e = self._expr(t.children[0], scope, None)
        if not isinstance(e.type, ir.StackT):
            self.err(f"only header stacks can be indexed, not {show(e.type)}", t)
        idx = self._expr(t.children[1], scope, None)
        if isinstance(idx.type, ir.InfIntT):
            idx = self.coerce(idx, ir.BitT(32), t.children[1])
        if isinstance(idx.type, ir.IntT):        # as p4c: a signed index is its bits
            if isinstance(idx, ir.Const) and idx.value < 0:
                self.err(f"index {idx.value} is out of bounds for a stack of size "
                         f"{e.type.size}", t.children[1])
            idx = ir.Cast(ir.BitT(idx.type.width), idx.loc, idx)
        if not isinstance(idx.type, ir.BitT):
            self.err(f"a stack index must be bit<W> or int<W>, not {show(idx.type)}",
                     t.children[1])
        if isinstance(idx, ir.Const) and not 0 <= idx.value < e.type.size:
            self.err(f"index {idx.value} is out of bounds for a stack of size {e.type.size}",
                     t.children[1])
        return ir.Index(e.type.elem, self.loc(t), e, idx)

    def _x_member(self, t, scope, expected):
        base_t = t.children[0]
        name = name_of(t.children[1])
        if isinstance(base_t, Tree) and base_t.data == "var":
            sym = scope.lookup(name_of(base_t.children[0]))
            if isinstance(sym, (TableSym, InstanceSym, SubBlockSym)):
                self.err(f"'{name_of(base_t.children[0])}.{name}' must be called", t)
        e = self._expr(base_t, scope, None)
        loc = self.loc(t.children[1])
        typ = e.type
        if isinstance(typ, ir.TableResultT):
            if name in ("hit", "miss"):
                return ir.Member(ir.BoolT(), loc, e, name)
            if name == "action_run":
                return ir.Member(ir.ActionEnumT(typ.table), loc, e, name)
            self.err(f"a table apply result has hit, miss and action_run, not '{name}'", t)
        if isinstance(typ, ir.StackT):
            if name in ("next", "last"):
                return ir.Member(typ.elem, loc, e, name)
            if name in ("lastIndex", "nextIndex"):
                return ir.Member(ir.BitT(32), loc, e, name)
            if name == "size":
                return ir.Const(ir.BitT(32), loc, typ.size)
            self.err(f"a header stack has next, last, lastIndex and size, not '{name}'", t)
        if isinstance(typ, (ir.HeaderT, ir.StructT, ir.UnionT)):
            ft = field_type(typ, name)
            if ft is None:
                self.err(f"{show(typ)} has no field '{name}'"
                         + did_you_mean(name, [f.name for f in typ.fields]), t.children[1])
            if isinstance(e, ir.ListExpr) or isinstance(e, ir.StructInit):
                self.err("unsupported: member of an initializer", t)
            return ir.Member(ft, loc, e, name)
        self.err(f"{show(typ)} has no member '{name}'", t.children[1])

    # ------------------------------------------------------------------ calls
    def _x_call(self, t, scope, expected):
        return self.call(t.children[0], [], t.children[1], scope, t, expected)

    def _x_generic_call(self, t, scope, expected):
        type_args = [self.resolve_type(a, {}) for a in t.children[2].children]
        return self.call(t.children[0], type_args, t.children[4], scope, t, expected)

    def _x_ctor_call(self, t, scope, expected):
        self.err("unsupported: constructor call in an expression; instantiate it with a name "
                 "(e.g. T(...) name;)", t)

    def arg_trees(self, args_tree):
        return [a for a in args_tree.children if a is not None] if args_tree is not None else []

    def call(self, callee, type_args, args_tree, scope, node, expected=None):
        args = self.arg_trees(args_tree)
        loc = self.loc(node)
        if isinstance(callee, Tree) and callee.data == "member":
            base, mname = callee.children[0], name_of(callee.children[1])
            if isinstance(base, Tree) and base.data in ("var", "dot_var"):
                bname = name_of(base.children[0])
                sym = (self.global_scope if base.data == "dot_var" else scope).lookup(bname)
                if isinstance(sym, TableSym):
                    if mname != "apply":
                        self.err(f"tables only have apply(), not {mname}()", callee)
                    if args:
                        self.err("apply() of a table takes no arguments", node)
                    return ir.Call(ir.TableResultT(sym.table.name), loc, "table_apply",
                                   sym.table.name)
                if isinstance(sym, SubBlockSym):
                    self.err("apply() of a sub-control must be a statement of its own", node)
                if isinstance(sym, InstanceSym):
                    target = ir.Var(ir.ExternT(sym.decl.name, tuple(sym.type_args)),
                                    self.loc(base), sym.inst.name)
                    return self._extern_method(target, mname, type_args, args, scope, node,
                                               expected)
            target = self._expr(base, scope, None)
            if isinstance(target.type, ir.ExternT) and isinstance(target, ir.Var):
                return self._extern_method(target, mname, type_args, args, scope, node,
                                           expected)
            return self._builtin_method(target, mname, args, scope, node)
        if isinstance(callee, Tree) and callee.data in ("var", "dot_var"):
            fname = name_of(callee.children[0])
            sym = (self.global_scope if callee.data == "dot_var" else scope).lookup(fname)
            if sym is None:
                self.err(f"undefined name '{fname}'", callee)
            if isinstance(sym, ActionSym):
                return self._action_call(sym, args, scope, node)
            if isinstance(sym, ExternFuncSym):
                sig = self._pick_overload(sym.overloads, len(args), fname, node)
                cargs, bindings, ret = self.bind_args(sig, {}, type_args, args, scope, node,
                                                      expected)
                call = ir.Call(ret, loc, "extern_function", fname, cargs,
                               type_args=[bindings.get(p, ir.InfIntT()) for p in sig.type_params])
                if fname == "digest" and call.args[1].type not in self.digests:
                    self.digests.append(call.args[1].type)
                return call
            if isinstance(sym, FunctionSym):
                cargs, bindings, ret = self.bind_args(sym.sig, {}, type_args, args, scope, node,
                                                      expected)
                return ir.Call(ret, loc, "function", sym.fn.name, cargs)
            if isinstance(sym, GenericFunctionSym):
                cargs, bindings, ret = self.bind_args(sym.sig, {}, type_args, args, scope, node,
                                                      expected)
                unbound = [p for p in sym.sig.type_params
                           if p not in bindings or has_typevar(bindings[p])]
                if unbound == [ret_param(sym.sig)] and expected is not None:
                    bindings[unbound.pop()] = expected      # T f<T>() from its use
                if unbound:
                    self.err(f"cannot infer {', '.join(unbound)} of {fname}; give the type "
                             f"argument{'s' if len(unbound) > 1 else ''}", node)
                fn = self.specialize_function(sym, tuple(bindings[p] for p in
                                                         sym.sig.type_params))
                return ir.Call(ret, loc, "function", fn.name, cargs)
            self.err(f"'{fname}' is not a function, action or method", callee)
        self.err("unsupported: call of this expression", node)

    def _pick_overload(self, sigs, n_args, name, node):
        for s in sigs:
            required = sum(1 for p in s.params if not p.has_default)
            if required <= n_args <= len(s.params):
                return s
        counts = sorted({len(s.params) for s in sigs})
        self.err(f"{name} takes {' or '.join(map(str, counts))} argument"
                 f"{'s' if counts != [1] else ''}, {n_args} given", node)

    def _extern_method(self, target, mname, type_args, args, scope, node, expected):
        """``target.mname(args)`` where target is an extern instance or packet parameter."""
        decl = self.externs.get(target.type.name)
        if decl is None:
            self.err(f"unknown extern type {target.type.name}", node)
        sigs = decl.methods.get(mname)
        if not sigs:
            self.err(f"{decl.name} has no method '{mname}'", node)
        sig = self._pick_overload(sigs, len(args), f"{decl.name}.{mname}", node)
        tenv = dict(zip(decl.type_params, target.type.type_args))
        cargs, bindings, ret = self.bind_args(sig, tenv, type_args, args, scope, node, expected)
        return ir.Call(ret, self.loc(node), "extern_method", mname, cargs, target=target,
                       extern=decl.name,
                       type_args=[bindings.get(p, ir.InfIntT()) for p in sig.type_params])

    def _builtin_method(self, target, mname, args, scope, node):
        typ = target.type
        loc = self.loc(node)
        if isinstance(typ, (ir.HeaderT, ir.UnionT)) and mname in _HEADER_METHODS:
            if args:
                self.err(f"{mname}() takes no arguments", node)
            if isinstance(typ, ir.UnionT) and mname != "isValid":
                self.err(f"header unions only have isValid(), not {mname}()", node)
            if mname in ("setValid", "setInvalid") and not is_lvalue(target):
                self.err(f"{mname}() needs a header that can be assigned", node)
            if mname.startswith("minSize"):
                return self._min_size(typ, mname, loc)
            rt = {"isValid": ir.BoolT(), "setValid": ir.VoidT(), "setInvalid": ir.VoidT()}[mname]
            return ir.Call(rt, loc, "builtin", mname, [], target=target)
        if isinstance(typ, ir.StackT) and mname in _STACK_METHODS:
            if len(args) != 1:
                self.err(f"{mname}() takes 1 argument (the count), {len(args)} given", node)
            count = self.const_int(args[0], scope, f"the count of {mname}")
            return ir.Call(ir.VoidT(), loc, "builtin", mname,
                           [ir.Const(ir.InfIntT(), self.loc(args[0]), count)], target=target)
        if isinstance(typ, (ir.StructT, ir.HeaderT)) and mname in ("minSizeInBits",
                                                                  "minSizeInBytes"):
            if args:
                self.err(f"{mname}() takes no arguments", node)
            return self._min_size(typ, mname, loc)
        self.err(f"{show(typ)} has no method '{mname}'", node)

    def align_args(self, params: list, args: list, node, what: str) -> list:
        """Put named arguments (``f(b = 1, a = 2)``) in parameter order and fill in the
        default values of the parameters left out (``params`` are ParamSigs, or names of
        parameters that have no default). A left-out @optional parameter without a default
        ends the list, so it must come after every argument given."""
        sigs = [p if isinstance(p, ParamSig) else ParamSig(p, "", None) for p in params]
        names = [p.name for p in sigs]
        named = [a for a in args if isinstance(a, Tree) and a.data in ("named_arg",
                                                                           "named_dontcare_arg")]
        if named and len(named) != len(args):
            self.err(f"{what}: use either all positional or all named arguments", node)
        by_name = {}
        if named:
            for a in named:
                n = name_of(a.children[0])
                if n not in names:
                    self.err(f"{what} has no parameter '{n}'", a)
                if n in by_name:
                    self.err(f"argument '{n}' is given twice", a)
                value = a.children[1]
                if a.data == "named_dontcare_arg":
                    value = Tree("dontcare_arg", [value], meta=a.meta)
                by_name[n] = value
        else:
            by_name = dict(zip(names, args))
            if len(args) > len(names):
                return args
        out, missing = [], []
        for p in sigs:
            if p.name in by_name:
                out.append(by_name[p.name])
            elif p.default is not None:
                out.append(p.default)
            elif not p.has_default:
                missing.append(p.name)
            else:
                break
        if named and len(out) < len(by_name):
            self.err(f"{what}: an argument follows an @optional parameter left out", node)
        if missing and named:
            self.err(f"{what}: missing argument{'s' if len(missing) > 1 else ''} "
                     f"{', '.join(missing)}", node)
        return out if not missing else args

    @staticmethod
    def _min_size(typ, mname, loc):
        """minSizeInBits/minSizeInBytes: a compile-time constant (varbit fields count 0)."""
        def bits(t):
            if isinstance(t, ir.VarbitT):
                return 0
            if isinstance(t, (ir.HeaderT, ir.StructT)):
                return sum(bits(f.type) for f in t.fields)
            if isinstance(t, ir.UnionT):
                return min((bits(f.type) for f in t.fields), default=0)
            if isinstance(t, ir.StackT):
                return bits(t.elem) * t.size
            return width_of(t)
        n = bits(typ)
        return ir.Const(ir.InfIntT(), loc, n if mname == "minSizeInBits" else (n + 7) // 8)

    def _action_call(self, sym, args, scope, node):
        action = sym.action
        params = action.params
        args = self.align_args([p.name for p in params], args, node, f"action {action.local_name}")
        if len(args) != len(params):
            self.err(f"action {action.local_name} takes {len(params)} argument"
                     f"{'s' if len(params) != 1 else ''}, {len(args)} given", node)
        cargs = []
        for p, a in zip(params, args):
            cargs.append(self.one_arg(a, p.direction, p.type, scope, p.name))
        return ir.Call(ir.VoidT(), self.loc(node), "action", action.name, cargs)

    def one_arg(self, a, direction, ptype, scope, pname):
        if isinstance(a, Tree) and a.data == "dontcare_arg":
            if direction != "out":
                self.err(f"'_' can only be passed to an out parameter ({pname} is "
                         f"{direction or 'directionless'})", a)
            return ir.DontCare(ptype, self.loc(a))
        e = self.expr(a, scope, ptype if not has_typevar(ptype) else None)
        if direction in ("out", "inout"):
            self.check_writable(e, a, f"argument for {direction} parameter '{pname}'")
        return e

    def check_writable(self, e, node, what):
        if not is_lvalue(e):
            self.err(f"{what} must be an assignable l-value", node)
        root = _root_var(e)
        sym = self.var_syms.get(root.name) if root is not None else None
        if sym is not None and not sym.writable:
            self.err(f"{what}: '{root.name}' is read-only "
                     f"({sym.direction or 'directionless'} parameter)", node)

    def bind_args(self, sig, tenv, type_args, args, scope, node, expected):
        """Check arguments against a (generic) signature; returns (args, bindings, ret type)."""
        args = self.align_args(sig.params, args, node, sig.name)
        if len(args) > len(sig.params) or len(args) < sum(
                1 for p in sig.params if not p.has_default):
            self.err(f"{sig.name} takes {len(sig.params)} argument"
                     f"{'s' if len(sig.params) != 1 else ''}, {len(args)} given", node)
        if type_args and len(type_args) != len(sig.type_params):
            self.err(f"{sig.name} takes {len(sig.type_params)} type argument"
                     f"{'s' if len(sig.type_params) != 1 else ''}, {len(type_args)} given", node)
        env = dict(tenv)
        bindings = {}
        for p in sig.type_params:
            env[p] = TypeVar(p)
        for p, ta in zip(sig.type_params, type_args):
            bindings[p] = ta
        ptypes = [substitute(self.resolve_type(p.type_tree, env), bindings) for p in sig.params]
        lowered = []
        for p, pt, a in zip(sig.params, ptypes, args):
            e = self.one_arg(a, p.direction, pt, scope, p.name)
            if not unify(pt, e.type, bindings) and not isinstance(e, ir.ListExpr):
                self.err(f"argument '{p.name}' of {sig.name}: expected "
                         f"{show(substitute(pt, bindings))}, "
                         f"got {show(e.type)}", a)
            lowered.append(e)
        out = []
        for p, pt, a, e in zip(sig.params, ptypes, args, lowered):
            want = substitute(pt, bindings)
            if not has_typevar(want):
                e = self.coerce(e, want, a)
            elif isinstance(e, ir.StructInit):
                self.err(f"argument '{p.name}' of {sig.name}: give the struct type explicitly "
                         f"with a cast or type argument", a)
            out.append(e)
        ret = ir.VoidT()
        if sig.ret is not None:
            ret = substitute(self.resolve_type(sig.ret, env), bindings)
            if has_typevar(ret):
                if expected is not None:
                    ret = expected
                else:
                    self.err(f"cannot infer the result type of {sig.name}; give it as a type "
                             f"argument", node)
        return out, bindings, ret
