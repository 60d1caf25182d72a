"""Python code generation for P4 expressions (mixed into the compiler).

Each ``x_<Node>`` method returns a Python expression string for an IR expression node;
the representation of values is described in :mod:`testbed.p4.python.compiler`.
"""
from __future__ import annotations

import keyword
import re

from testbed.p4 import ir


def _ident(name: str) -> str:
    return re.sub(r"\W", "_", name)


def fname(name: str) -> str:
    """Python attribute name of a P4 field."""
    return f"f_{name}" if keyword.iskeyword(name) or name.startswith("_") else name


def _mask(w: int) -> int:
    return (1 << w) - 1


def _is_composite(t) -> bool:
    return isinstance(t, (ir.HeaderT, ir.StructT, ir.UnionT, ir.StackT))


class Scope:
    """Code generation context of one function being generated."""

    def __init__(self, block):
        self.block = block
        self.ctl_params = ""               # "v_hdr, v_meta, v_sm, L" in controls
        self.locals_attr = set()           # control-level locals (accessed as L.x)
        self.outs = []                     # scalar out/inout params to return
        self.sm = None                     # python name of standard_metadata, if any
        self.hoisted = {}                  # code of a member chain -> local holding it
        self.range_checks = []             # (hoisted index, register size) per access
        self.in_range = set()              # (index, size) known to be in range here
        self.tmp = 0

    def fresh(self, base="_t") -> str:
        self.tmp += 1
        return f"{base}{self.tmp}"


class ExprGen:
    """Expression code generation; the compiler provides emit/fail/err/cls."""

    def x_Const(self, e, s):
        if isinstance(e.type, ir.BoolT):
            return "True" if e.value else "False"
        if isinstance(e.type, ir.BitT):
            return str(e.value & _mask(e.type.width))
        return str(e.value)

    def x_StringLit(self, e, s):
        return repr(e.value)

    def x_ErrorConst(self, e, s):
        return str(self.err(e.name))

    def x_EnumConst(self, e, s):
        t = e.type
        idx = t.members.index(e.member)
        if t.underlying is not None and t.values:
            return str(t.values[idx])
        return str(idx)

    def x_Var(self, e, s):
        name = _ident(e.name)
        if e.name in s.locals_attr:
            return f"L.v_{name}"
        return f"v_{name}"

    def x_Member(self, e, s):
        base_t = e.expr.type
        if isinstance(e.expr, ir.Call) and e.expr.kind == "table_apply":
            call = self.x_Call(e.expr, s)
            if e.field == "hit":
                return f"{call}.hit"
            if e.field == "miss":
                return f"(not {call}.hit)"
            return f"{call}.action"
        if isinstance(base_t, ir.StackT):
            base = self.expr(e.expr, s)
            if e.field == "size":
                return str(base_t.size)
            if e.field == "lastIndex":
                return f"(({base}.nextIndex - 1) & 0xFFFFFFFF)"
            if e.field == "last":
                return f"_stack_last({base}, {self.err('StackOutOfBounds')})"
            if e.field == "next":
                return f"_stack_next({base}, {self.err('StackOutOfBounds')})"
            if e.field == "nextIndex":
                return f"{base}.nextIndex"
        code = f"{self.expr(e.expr, s)}.{fname(e.field)}"
        return s.hoisted.get(code, code)

    def x_Index(self, e, s):
        base = self.expr(e.expr, s)
        if isinstance(e.index, ir.Const):
            if not 0 <= e.index.value < e.expr.type.size:
                self.fail(f"index {e.index.value} out of the stack's bounds", e.loc)
            return f"{base}.h[{e.index.value}]"
        return f"_stack_at({base}, {self.expr(e.index, s)}, {self.err('StackOutOfBounds')})"

    def x_Slice(self, e, s):
        w = e.hi - e.lo + 1
        inner = self.expr(e.expr, s)
        return f"(({inner} >> {e.lo}) & {_mask(w)})" if e.lo else f"({inner} & {_mask(w)})"

    def _wrap(self, code: str, t) -> str:
        if isinstance(t, ir.BitT):
            return f"(({code}) & {_mask(t.width)})"
        if isinstance(t, ir.IntT):
            h = 1 << (t.width - 1)
            return f"((({code}) + {h} & {_mask(t.width)}) - {h})"
        return f"({code})"

    def x_Unary(self, e, s):
        a = self.expr(e.expr, s)
        t = e.type
        if e.op == "!":
            return f"(not {a})"
        if e.op == "+":
            return a
        if e.op == "-":
            return self._wrap(f"-{a}", t)
        if e.op == "~":
            if isinstance(t, ir.BitT):
                return f"({a} ^ {_mask(t.width)})"
            return f"(~{a})"
        self.fail(f"unary operator {e.op}", e.loc)

    def _deferred(self, e, s) -> tuple:
        """(code, statements) of ``e``: the statements its code needs first (a call of a
        function with out arguments emits one), taken out of the output so that the
        caller can run them only when ``e`` is evaluated."""
        mark = len(self.lines)
        code = self.expr(e, s)
        emitted = self.lines[mark:]
        del self.lines[mark:]
        return code, emitted

    def _only_if(self, guard: str, code: str, emitted: list, result: str) -> None:
        """``if guard:`` the emitted statements, then ``result = code``, one level in."""
        ind = self.cur_ind
        self.emit(ind, f"if {guard}:")
        self.lines += ["    " + line for line in emitted]
        self.emit(ind + 1, f"{result} = {code}")

    def x_Binary(self, e, s):
        op, t = e.op, e.type
        if op in ("&&", "||"):
            a = self.expr(e.left, s)
            b, emitted = self._deferred(e.right, s)
            if not emitted:
                return f"({a} {'and' if op == '&&' else 'or'} {b})"
            r = s.fresh("_sc")      # the right side has effects: evaluate it only if needed
            self.emit(self.cur_ind, f"{r} = {a}")
            self._only_if(r if op == "&&" else f"not {r}", b, emitted, r)
            return r
        a, b = self.expr(e.left, s), self.expr(e.right, s)
        if op in ("==", "!=", "<", "<=", ">", ">="):
            if _is_composite(e.left.type):
                eq = f"_eq({a}, {b})"
                return eq if op == "==" else f"(not {eq})"
            if isinstance(e.left.type, ir.VarbitT) and op in ("==", "!=") and all(
                    isinstance(x, ir.Member) for x in (e.left, e.right)):
                # varbit values are equal when their widths are too
                wa, wb = (f"{self.expr(x.expr, s)}._w_{fname(x.field)}"
                          for x in (e.left, e.right))
                eq = f"({a} == {b} and {wa} == {wb})"
                return eq if op == "==" else f"(not {eq})"
            return f"({a} {op} {b})"
        if op == "++":
            wl, wr = ir.fixed_width(e.left.type), ir.fixed_width(e.right.type)
            return self._wrap(f"(({a} & {_mask(wl)}) << {wr}) | ({b} & {_mask(wr)})", t)
        if op in ("+", "-", "*"):
            return self._wrap(f"{a} {op} {b}", t)
        if op in ("/", "%"):
            pyop = "//" if op == "/" else "%"
            if isinstance(e.right, ir.Const) and e.right.value:
                return f"({a} {pyop} {b})"
            return f"_div({a}, {b})" if op == "/" else f"_mod({a}, {b})"
        if op in ("&", "|", "^"):
            return f"({a} {op} {b})"
        if op in ("|+|", "|-|"):
            pyop = "+" if op == "|+|" else "-"
            if isinstance(t, ir.BitT):
                return (f"min({a} + {b}, {_mask(t.width)})" if pyop == "+"
                        else f"max({a} - {b}, 0)")
            lo, hi = -(1 << (t.width - 1)), (1 << (t.width - 1)) - 1
            return f"max(min({a} {pyop} {b}, {hi}), {lo})"
        if op in ("<<", ">>"):
            if isinstance(t, ir.InfIntT):
                return f"({a} {op} {b})"
            w = t.width
            if op == ">>":
                if isinstance(e.right, ir.Const):
                    return f"({a} >> {e.right.value})"
                return f"({a} >> min({b}, {w}))"
            if isinstance(e.right, ir.Const):
                return self._wrap(f"{a} << {e.right.value}", t) if e.right.value < w else "0"
            return self._wrap(f"{a} << min({b}, {w})", t)
        self.fail(f"operator {op}", e.loc)

    def x_Cast(self, e, s):
        a = self.expr(e.expr, s)
        t, src = e.type, e.expr.type
        if isinstance(t, ir.BoolT):
            return f"bool({a})"
        if isinstance(src, ir.BoolT) and isinstance(t, (ir.BitT, ir.IntT)):
            return f"int({a})"
        if isinstance(t, ir.BitT):
            if isinstance(src, ir.BitT) and src.width <= t.width:
                return a
            return f"({a} & {_mask(t.width)})"
        if isinstance(t, ir.IntT):
            if isinstance(src, ir.IntT) and src.width <= t.width:
                return a
            return self._wrap(a, t)
        return a

    def x_Mux(self, e, s):
        cond = self.expr(e.cond, s)
        (a, a_stmts), (b, b_stmts) = self._deferred(e.then, s), self._deferred(e.other, s)
        if not a_stmts and not b_stmts:
            return f"({a} if {cond} else {b})"
        r, c = s.fresh("_mx"), s.fresh("_c")
        self.emit(self.cur_ind, f"{c} = {cond}")
        self._only_if(c, a, a_stmts, r)
        self._only_if(f"not {c}", b, b_stmts, r)
        return r

    def x_ListExpr(self, e, s):
        if isinstance(e.type, (ir.HeaderT, ir.StructT)):
            args = ", ".join(self.expr(x, s) for x in e.elems)
            return f"_mk({self.cls(e.type)}, {isinstance(e.type, ir.HeaderT)}, ({args},))"
        return "(" + "".join(self.expr(x, s) + ", " for x in e.elems) + ")"

    def x_StructInit(self, e, s):
        t = e.type
        args = ", ".join(self.expr(e.fields[f.name], s) for f in t.fields)
        return f"_mk({self.cls(t)}, {isinstance(t, ir.HeaderT)}, ({args},))"

    def x_Call(self, e, s):
        if e.kind == "builtin":
            tgt = self.expr(e.target, s)
            if e.method == "isValid":
                return f"{tgt}._v"
            if e.method in ("minSizeInBits", "minSizeInBytes"):
                bits = ir.fixed_width(e.target.type)
                return str(bits if e.method == "minSizeInBits" else (bits + 7) // 8)
        if e.kind == "table_apply":
            return f"{self.table_fn(e.method)}({s.ctl_params})"
        if e.kind == "function":
            fn = self.p.functions[e.method]
            args = ", ".join(self._arg(a, p, s) for a, p in zip(e.args, fn.params))
            call = f"{self.pyname('F', e.method)}({args})"
            outs = self._scalar_outs(fn.params)
            if not outs:
                return call
            # the out arguments are assigned before the statement using the result
            r = s.fresh("_o")
            self.emit(self.cur_ind, f"{r} = {call}")
            pos = 1
            for a, p in zip(e.args, fn.params):
                if p in outs:
                    self.assign(a, f"{r}[{pos}]", s, self.cur_ind)
                    pos += 1
            return f"{r}[0]"
        if e.kind == "extern_method" and e.method == "lookahead":
            t = e.type_args[0] if e.type_args else e.type
            w = ir.fixed_width(t)
            v = f"_lookahead(_d, _o, {w}, {self.err('PacketTooShort')})"
            if isinstance(t, ir.HeaderT):
                return f"_unpack({self.cls(t)}, {v}, {self._layout(t)})"
            return v
        if e.kind == "extern_method" and e.method == "length":
            return "(len(_d))"
        self.fail(f"call of {e.method} as an expression", e.loc)

    def _arg(self, a, p: ir.Param, s) -> str:
        if isinstance(a, ir.DontCare):
            return self.default(p.type)
        return self.expr(a, s)

    @staticmethod

    def _scalar_outs(params) -> list:
        return [p for p in params if p.direction in ("out", "inout")
                and not _is_composite(p.type)]

    def x_DontCare(self, e, s):
        return "0"
