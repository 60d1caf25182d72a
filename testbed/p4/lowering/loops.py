"""Compound assignments and loops (P4_16 1.2.4) in the frontend (mixin of ``Lowering``).

``x op= e`` is ``x = x op e``, typed as the binary expression would be. The three loop
forms become one :class:`ir.For`: ``for (init; cond; update)`` as it is; ``for (T x in
stack)`` over the stack's elements with a hidden index, ``x`` a copy of the element;
``for (T x in a .. b)`` over a..b inclusive with a hidden counter wide enough not to
wrap past ``b``, both bounds read once.
"""
from __future__ import annotations

from lark import Token, Tree

from testbed.p4 import ir
from testbed.p4.frontend.p4types import is_fixed, show
from testbed.p4.lowering.symbols import Scope, VarSym
from testbed.p4.lowering.syntax import name_of


class Loops:
    loop_depth = 0

    def compound_assignment(self, target, op_tok, value, scope) -> ir.Assign:
        lhs = self.expr(target, scope)
        self.check_writable(lhs, target, "the left side of an assignment")
        op = Token.new_borrow_pos("OP", str(op_tok)[:-1], op_tok)
        rhs = self.expr(Tree("binop", [target, op, value]), scope, lhs.type)
        return ir.Assign(self.loc(target), lhs, rhs)

    def for_clause(self, c, scope, ctx) -> ir.Stmt:
        kind = c.data
        if kind == "for_var":
            return self.var_decl(Tree("var_decl", [None] + c.children), scope, ctx)
        if kind == "for_assign":
            return self.statement(Tree("assignment", c.children, c.meta), scope, ctx)
        if kind == "for_compound":
            return self.compound_assignment(*c.children, scope)
        return self.call_statement(c.children[0], scope, ctx)

    def loop_body(self, t, scope, ctx) -> ir.Stmt:
        self.loop_depth += 1
        try:
            return self.statement(t, Scope(scope), ctx)
        finally:
            self.loop_depth -= 1

    def loop_jump(self, t) -> ir.Stmt:
        word = t.data.split("_")[0]
        if not self.loop_depth:
            self.err(f"{word} outside a loop", t)
        return ir.Break(self.loc(t)) if word == "break" else ir.Continue(self.loc(t))

    def for_statement(self, t, scope, ctx) -> ir.For:
        _, _, init_t, cond_t, update_t, body_t = t.children
        inner = Scope(scope)
        init = [self.for_clause(c, inner, ctx) for c in init_t.children if c is not None]
        cond = self.expr(cond_t, inner, ir.BoolT()) if cond_t is not None else None
        update = [self.for_clause(c, inner, ctx) for c in update_t.children if c is not None]
        return ir.For(self.loc(t), init, cond, update, self.loop_body(body_t, inner, ctx))

    def _hidden(self, ctx, name: str, typ, init, loc) -> tuple:
        vs = VarSym(ctx.fresh(name), typ)
        ctx.var_syms[vs.name] = vs
        return ir.VarDecl(loc, vs.name, typ, init), ir.Var(typ, loc, vs.name)

    def _loop_var(self, t, type_t, name_t, scope, ctx) -> tuple:
        typ = self.resolve_type(type_t, {})
        vs = VarSym(ctx.fresh(name_of(name_t)), typ)
        ctx.var_syms[vs.name] = vs
        self.declare(scope, name_of(name_t), vs, name_t)
        return typ, ir.Var(typ, self.loc(name_t), vs.name)

    def for_in_statement(self, t, scope, ctx) -> ir.For:
        _, _, type_t, name_t, _, coll_t, body_t = t.children
        loc = self.loc(t)
        coll = self.expr(coll_t, scope)
        if not isinstance(coll.type, ir.StackT):
            self.err(f"for (... in ...) iterates over a header stack or a range a .. b, not "
                     f"{show(coll.type)}", coll_t)
        inner = Scope(scope)
        typ, var = self._loop_var(t, type_t, name_t, inner, ctx)
        if typ != coll.type.elem:
            self.err(f"the loop variable has type {show(typ)}; the stack's elements are "
                     f"{show(coll.type.elem)}", type_t)
        index_decl, index = self._hidden(ctx, "for_index", ir.BitT(32), ir.Const(
            ir.BitT(32), loc, 0), loc)
        cond = ir.Binary(ir.BoolT(), loc, "<", index, ir.Const(ir.BitT(32), loc,
                                                                 coll.type.size))
        step = ir.Assign(loc, index, ir.Binary(ir.BitT(32), loc, "+", index,
                                                ir.Const(ir.BitT(32), loc, 1)))
        copy_in = ir.Assign(loc, var, ir.Index(typ, loc, coll, index))
        body = ir.Block(loc, [copy_in, self.loop_body(body_t, inner, ctx)])
        return ir.For(loc, [index_decl, ir.VarDecl(loc, var.name, typ)], cond, [step], body)

    def for_range_statement(self, t, scope, ctx) -> ir.For:
        _, _, type_t, name_t, _, lo_t, _, hi_t, body_t = t.children
        loc = self.loc(t)
        inner = Scope(scope)
        typ, var = self._loop_var(t, type_t, name_t, inner, ctx)
        if not is_fixed(typ):
            self.err(f"a range loop's variable must be bit<W> or int<W>, not {show(typ)}",
                     type_t)
        lo, hi = self.expr(lo_t, scope, typ), self.expr(hi_t, scope, typ)
        lo, hi = self.coerce(lo, typ, lo_t), self.coerce(hi, typ, hi_t)
        hi_decl, hi_var = self._hidden(ctx, "for_last", typ, hi, loc)
        wide = ir.IntT(typ.width + 2)       # holds every value of typ and last + 1
        count_decl, count = self._hidden(ctx, "for_count", wide, ir.Cast(wide, loc, lo), loc)
        cond = ir.Binary(ir.BoolT(), loc, "<=", count, ir.Cast(wide, loc, hi_var))
        step = ir.Assign(loc, count, ir.Binary(wide, loc, "+", count,
                                                ir.Const(wide, loc, 1)))
        body = ir.Block(loc, [ir.Assign(loc, var, ir.Cast(typ, loc, count)),
                              self.loop_body(body_t, inner, ctx)])
        return ir.For(loc, [hi_decl, count_decl, ir.VarDecl(loc, var.name, typ)], cond,
                      [step], body)
