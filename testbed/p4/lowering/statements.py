"""Statement, table and parser-state lowering of the frontend (mixin of ``Lowering``)."""
from __future__ import annotations

import copy
import re

from lark import Token, Tree

from testbed.p4 import ir
from testbed.p4.frontend.p4types import is_fixed, show
from testbed.p4.lowering.symbols import (ActionSym, InstanceSym, Scope, SubBlockSym,
                                         SubParserSym, TableSym, ValueSetSym, VarSym)
from testbed.p4.lowering.syntax import annotations_of, name_of

# table properties naming an extern instance: property -> (ir.Table attribute, the extern
# types it may name); v1model's names, then PSA's
_TABLE_DIRECT = {"counters": ("counters", ("direct_counter",)),
                 "meters": ("meters", ("direct_meter",)),
                 "implementation": ("implementation", ("action_profile", "action_selector")),
                 "psa_direct_counter": ("counters", ("DirectCounter",)),
                 "psa_direct_meter": ("meters", ("DirectMeter",)),
                 "psa_implementation": ("implementation", ("ActionProfile", "ActionSelector"))}


class Statements:
    return_type = None

    # ------------------------------------------------------------------ statements
    def block(self, t, scope, ctx) -> ir.Block:
        inner = Scope(scope)
        stmts = []
        for c in t.children[1:]:
            if c is not None:
                stmts.append(self.statement(c, inner, ctx))
        return ir.Block(self.loc(t), stmts)

    def statement(self, t, scope, ctx) -> ir.Stmt:
        kind = t.data
        loc = self.loc(t)
        if kind == "block":
            return self.block(t, scope, ctx)
        if kind == "assignment":
            lhs = self.expr(t.children[0], scope)
            self.check_writable(lhs, t.children[0], "the left side of an assignment")
            rhs = self.expr(t.children[1], scope, lhs.type)
            return ir.Assign(loc, lhs, rhs)
        if kind == "compound_assignment":
            return self.compound_assignment(*t.children, scope)
        if kind in ("for_statement", "for_in_statement", "for_range_statement"):
            return getattr(self, kind)(t, scope, ctx)
        if kind in ("break_statement", "continue_statement"):
            return self.loop_jump(t)
        if kind == "call_statement":
            return self.call_statement(t.children[0], scope, ctx)
        if kind == "if_statement":
            cond = self.expr(t.children[0], scope, ir.BoolT())
            then = self.statement(t.children[1], Scope(scope), ctx)
            other = self.statement(t.children[2], Scope(scope), ctx) if t.children[2] else None
            return ir.If(loc, cond, then, other)
        if kind in ("exit_statement", "return_statement") and ctx.in_parser:
            self.err(f"{kind.split('_')[0]} is not allowed in a parser; use transition "
                     "reject or accept", t)
        if kind == "exit_statement":
            return ir.Exit(loc)
        if kind == "return_statement":
            if ctx.in_sub_apply:
                if t.children[0] is not None:
                    self.err("return in a control's apply block takes no value", t)
                return ir.Return(loc)         # ends the inlined body: see blocks.py
            e = t.children[0]
            want = self.return_type
            if e is None:
                if want is not None and not isinstance(want, ir.VoidT):
                    self.err(f"return needs a value of type {show(want)}", t)
                return ir.Return(loc)
            if want is None or isinstance(want, ir.VoidT):
                self.err("return with a value outside a function that returns one", t)
            return ir.Return(loc, self.expr(e, scope, want))
        if kind == "empty_statement":
            return ir.Block(loc, [])
        if kind == "switch_statement":
            return self.switch(t, scope, ctx)
        if kind == "var_decl":
            return self.var_decl(t, scope, ctx)
        if kind == "const_decl":
            self._d_const_decl(t, scope)
            return ir.Block(loc, [])
        self.err(f"unsupported: {kind.replace('_', ' ')} here", t)

    def var_decl(self, t, scope, ctx) -> ir.VarDecl:
        typ = self.resolve_type(t.children[1], {})
        if isinstance(typ, (ir.ExternT, ir.VoidT)):
            self.err(f"a variable cannot have type {show(typ)}", t.children[1])
        name = name_of(t.children[2])
        init = self.expr(t.children[3], scope, typ) if t.children[3] is not None else None
        vs = VarSym(ctx.fresh(name), typ)
        ctx.var_syms[vs.name] = vs
        self.declare(scope, name, vs, t.children[2])
        return ir.VarDecl(self.loc(t), vs.name, typ, init)

    def call_statement(self, e, scope, ctx) -> ir.Stmt:
        if not (isinstance(e, Tree) and e.data in ("call", "generic_call")):
            self.err("this expression has no effect; a statement must be an assignment or a "
                     "call", e)
        callee = e.children[0]
        direct = self._direct_application(callee, "control", ctx)
        if direct is not None:
            return self.inline_apply(direct, e, scope)
        if callee.data == "member" and callee.children[0].data == "var":
            sym = scope.lookup(name_of(callee.children[0].children[0]))
            if isinstance(sym, SubBlockSym):
                if name_of(callee.children[1]) != "apply":
                    self.err("controls only have apply()", callee)
                return self.inline_apply(sym, e, scope)
            if isinstance(sym, SubParserSym):
                self.err("a sub-parser can only be applied in a parser state", e)
        call = self.expr(e, scope)
        if not isinstance(call, ir.Call):
            self.err("this expression has no effect", e)
        return ir.CallStmt(self.loc(e), call)

    def inline_apply(self, sym: SubBlockSym, e, scope) -> ir.Stmt:
        """``sub.apply(args)``: copy in, the sub-control's body, copy out."""
        pre, post = self.copy_in_out(sym, e, scope)
        return ir.Block(self.loc(e), pre + [copy.deepcopy(sym.body)] + post)

    def copy_in_out(self, sym, e, scope):
        """Assignments binding an inlined block's parameters to the call's arguments."""
        args = self.arg_trees(e.children[-1])
        if len(args) != len(sym.params):
            self.err(f"{sym.name}.apply takes {len(sym.params)} arguments, {len(args)} given", e)
        pre, post = [], []
        for (vs, direction), a in zip(sym.params, args):
            if isinstance(vs.type, ir.ExternT):
                # a block has one packet_in or packet_out, which the generated code
                # reaches whatever the variable is called
                arg = self.expr(a, scope)
                if not (isinstance(arg, ir.Var) and arg.type == vs.type):
                    self.err(f"unsupported: passing {show(arg.type)} other than the "
                             f"block's own packet as {show(vs.type)}", a)
                continue
            arg = self.one_arg(a, direction or "in", vs.type, scope, vs.name)
            if isinstance(arg, ir.DontCare):
                continue
            var = ir.Var(vs.type, arg.loc, vs.name)
            if direction in ("in", "inout", ""):
                pre.append(ir.Assign(arg.loc, var, arg))
            if direction in ("out", "inout"):
                post.append(ir.Assign(arg.loc, copy.deepcopy(arg), ir.Var(vs.type, arg.loc,
                                                                          vs.name)))
        return pre, post

    def switch(self, t, scope, ctx) -> ir.Switch:
        e = self.expr(t.children[0], scope)
        cases = []
        seen = set()
        is_action = isinstance(e.type, ir.ActionEnumT)
        if not is_action and not (is_fixed(e.type) or isinstance(e.type, (ir.EnumT, ir.ErrorT))):
            self.err(f"switch needs table.apply().action_run or a bit<W>/int<W>/enum/error "
                     f"value, not {show(e.type)}", t.children[0])
        table = None
        if is_action:
            table = next(tb for tb in ctx.tables.values() if tb.name == e.type.table)
            allowed = {ref.action for ref in table.actions}
        cases_t = t.children[1:]
        for i, c in enumerate(cases_t):
            label_t, body_t = c.children
            if isinstance(label_t, Tree) and label_t.data == "default_label":
                if i != len(cases_t) - 1:
                    self.err("default must be the last switch case", label_t)
                label = ir.Default(e.type, self.loc(label_t))
                key = "default"
            elif is_action:
                if not (isinstance(label_t, Tree) and label_t.data == "var"):
                    self.err("a label of a switch on action_run must be an action name", label_t)
                lname = name_of(label_t.children[0])
                sym = scope.lookup(lname)
                if not isinstance(sym, ActionSym) or sym.action.name not in allowed:
                    self.err(f"'{lname}' is not an action of table {table.local_name}", label_t)
                label = ir.ActionName(e.type, self.loc(label_t), sym.action.name)
                key = sym.action.name
            else:
                label = self.expr(label_t, scope, e.type)
                if not isinstance(label, (ir.Const, ir.EnumConst, ir.ErrorConst)):
                    self.err("a switch label must be a compile-time constant", label_t)
                key = (getattr(label, "value", None), getattr(label, "member", None),
                       getattr(label, "name", None))
            if key in seen:
                self.err("duplicate switch label", label_t)
            seen.add(key)
            body = self.block(body_t, scope, ctx) if body_t is not None else None
            if body is None and i == len(cases_t) - 1:
                body = ir.Block(self.loc(c), [])
            cases.append(ir.SwitchCase([label], body))
        return ir.Switch(self.loc(t), e, cases)

    # ------------------------------------------------------------------ tables
    def table(self, t, scope, ctx) -> ir.Table:
        annos = annotations_of(t.children[0])
        local = name_of(t.children[1])
        name = self.qualified(ctx.prefix, local, annos)
        table = ir.Table(name, local, [], [], None, loc=self.loc(t), annotations=annos)
        props = {}
        for p in t.children[2:]:
            if p.data == "key_property":
                pname = "key"
            elif p.data == "actions_property":
                pname = "actions"
            elif p.data == "entries_property":
                pname = "entries"
            else:
                pname = str(p.children[2])
            if pname in props:
                self.err(f"table {local} sets '{pname}' twice", p)
            props[pname] = p
        if "actions" not in props:
            self.err(f"table {local} has no actions property; add actions = {{ ... }}", t)
        if "key" in props:
            for k in props["key"].children[1:]:
                table.keys.append(self.table_key(k, scope))
        for ref_t in props["actions"].children[1:]:
            ref = self.action_ref(ref_t, scope, ctx, table, in_list=True)
            if any(r.action == ref.action for r in table.actions):
                self.err(f"action {ref.action} is listed twice", ref_t)
            table.actions.append(ref)
        for pname, p in props.items():
            if pname in ("key", "actions", "entries"):
                continue
            self.table_property(table, pname, p, scope, ctx)
        if table.default_action is None:
            if not any(r.action == "NoAction" for r in table.actions):
                table.actions.append(ir.ActionRef("NoAction", [], (ir.Annotation("defaultonly"),),
                                                  table.loc))
            self._use_action("NoAction", ctx, t)
            table.default_action = ir.ActionRef("NoAction", [], (), table.loc)
        if "entries" in props:
            p = props["entries"]
            table.entries_const = p.children[1] is not None
            for e in p.children[3:]:
                table.entries.append(self.table_entry(e, table, scope, ctx))
        self.declare(scope, local, TableSym(table), t.children[1])
        return table

    def _use_action(self, name, ctx, node):
        if name not in ctx.actions:
            action = self.actions.get(name)
            if action is None:
                self.err(f"undefined action '{name}'", node)
            ctx.actions[name] = action

    def table_key(self, k, scope) -> ir.Key:
        e = self.expr(k.children[0], scope)
        kind = name_of(k.children[1])
        if kind not in self.match_kinds:
            self.err(f"unknown match kind '{kind}'; use one of {', '.join(self.match_kinds)}",
                     k.children[1])
        if not (is_fixed(e.type) or isinstance(e.type, (ir.BoolT, ir.EnumT, ir.ErrorT))):
            self.err(f"a table key must be bit<W>, int<W>, bool, enum or error, not "
                     f"{show(e.type)}", k.children[0])
        annos = annotations_of(k.children[2])
        a = ir.annotation(annos, "name")
        key_name = str(a.body[0]) if a is not None and a.body else self.source_text(k.children[0])
        if a is None and isinstance(e, ir.Call) and e.kind == "builtin" and \
                e.method == "isValid":
            # p4c names an isValid() key after the header's valid bit
            key_name = re.sub(r"\.isValid\s*\(\s*\)$", ".$valid$", key_name)
        return ir.Key(e, kind, key_name, self.loc(k), annos)

    def action_ref(self, t, scope, ctx, table, in_list: bool) -> ir.ActionRef:
        """An action in ``actions = {...}`` (args: the directional ones it binds) or a
        default/entry action (args: all of them, directional ones as in the list)."""
        annos = annotations_of(t.children[0])
        target = t.children[1]
        lname = name_of(target.children[0])
        sym = (self.global_scope if target.data == "dot_name" else scope).lookup(lname)
        if not isinstance(sym, ActionSym):
            self.err(f"'{lname}' is not an action" if sym else f"undefined action '{lname}'",
                     target)
        action = sym.action
        self._use_action_obj(action, ctx)
        args = self.arg_trees(t.children[2])
        if in_list:
            bound = self._bind_action_args(action, args, 0, scope, t, partial=True)
        else:
            listed = next((r for r in table.actions if r.action == action.name), None)
            if listed is None:
                self.err(f"action {lname} is not in the actions of table {table.local_name}", t)
            if listed.args and len(args) == len(action.params):
                # the directional arguments are repeated, as the spec writes them
                bound = self._bind_action_args(action, args, 0, scope, t, partial=False)
            else:
                bound = [copy.deepcopy(a) for a in listed.args] + self._bind_action_args(
                    action, args, len(listed.args), scope, t, partial=False)
        return ir.ActionRef(action.name, bound, annos, self.loc(t))

    def _use_action_obj(self, action, ctx):
        ctx.actions.setdefault(action.name, action)

    def _bind_action_args(self, action, args, start, scope, node, partial):
        params = action.params[start:]
        if partial:
            if len(args) > len(params):
                self.err(f"action {action.local_name} takes {len(params)} arguments, "
                         f"{len(args)} given", node)
            params = params[:len(args)]
        else:
            data = [p for p in params if not p.direction]
            if len(args) != len(params):
                self.err(f"action {action.local_name} needs {len(params)} argument"
                         f"{'s' if len(params) != 1 else ''} here ("
                         f"{', '.join(p.name for p in data) or 'none'}), {len(args)} given", node)
        out = []
        for p, a in zip(params, args):
            e = self.one_arg(a, p.direction, p.type, scope, p.name)
            if not p.direction and not isinstance(e, (ir.Const, ir.EnumConst, ir.ErrorConst)):
                self.err(f"argument '{p.name}' must be a compile-time constant here", a)
            out.append(e)
        return out

    def table_property(self, table, pname, p, scope, ctx):
        is_const = p.children[1] is not None
        value_t = p.children[3]
        if pname == "default_action":
            if isinstance(value_t, Tree) and value_t.data == "call":
                callee, args_t = value_t.children
            else:
                callee, args_t = value_t, None
            if not (isinstance(callee, Tree) and callee.data in ("var", "dot_var")):
                self.err("default_action must name an action, e.g. default_action = drop();",
                         value_t)
            fake = Tree("action_ref", [None, Tree("dot_name" if callee.data == "dot_var"
                                                   else "action_target", callee.children),
                                       args_t], meta=value_t.meta)
            table.default_action = self.action_ref(fake, scope, ctx, table, in_list=False)
            table.default_const = is_const
            return
        if pname == "size":
            table.size = self.const_int(value_t, scope, "the table size")
            if table.size <= 0:
                self.err(f"table size must be positive, not {table.size}", value_t)
            return
        if pname in _TABLE_DIRECT:
            setattr(table, _TABLE_DIRECT[pname][0],
                    self._table_instance(table, pname, p, scope, ctx))
            return
        if pname == "largest_priority_wins":
            e = self.expr(value_t, scope, ir.BoolT())
            if not isinstance(e, ir.Const):
                self.err("largest_priority_wins must be true or false", value_t)
            table.largest_priority_wins = bool(e.value)
            return
        if pname == "priority_delta":
            table.priority_delta = self.const_int(value_t, scope, "priority_delta")
            return
        table.properties[pname] = self.expr(value_t, scope)

    def _table_instance(self, table, pname, prop, scope, ctx) -> str:
        """The instance a table property names or constructs in place. One constructed in
        place carries the property's annotations; its name is the property's @name as
        written (p4c names it so, without the control's prefix), else table_property."""
        want = _TABLE_DIRECT[pname][1]
        value_t = prop.children[3]
        if isinstance(value_t, Tree) and value_t.data == "ctor_call":
            fake = Tree("instantiation", [prop.children[0], value_t.children[0],
                                          value_t.children[1],
                                          Tree("name", [Token("NAME",
                                                              f"{table.local_name}_{pname}")])],
                        meta=value_t.meta)
            self.instantiation(fake, scope, ctx, "control")
            inst = ctx.instances[-1]
            name = ir.annotation(inst.annotations, "name")
            if name is not None and name.body:
                inst.name = str(name.body[0]).lstrip(".")
        else:
            if not (isinstance(value_t, Tree) and value_t.data == "var"):
                self.err(f"{pname} must name a {' or '.join(want)} instance", value_t)
            sym = scope.lookup(name_of(value_t.children[0]))
            if not isinstance(sym, InstanceSym):
                self.err(f"{pname} must name a {' or '.join(want)} instance", value_t)
            inst = sym.inst
        if inst.extern not in want:
            self.err(f"{pname} must be a {' or '.join(want)}, not {inst.extern}", value_t)
        return inst.name

    def keyset(self, t, typ, scope):
        """One element of a select case or table entry key for a value of type ``typ``."""
        loc = self.loc(t)
        if isinstance(t, Tree):
            if t.data == "default_keyset":
                return ir.Default(typ, loc)
            if t.data == "dontcare_keyset":
                return ir.DontCare(typ, loc)
            if t.data == "mask_keyset":
                return ir.Mask(typ, loc, self._key_const(t.children[0], typ, scope),
                               self._key_const(t.children[2], typ, scope))
            if t.data == "range_keyset":
                return ir.Range(typ, loc, self._key_const(t.children[0], typ, scope),
                                self._key_const(t.children[2], typ, scope))
            if t.data == "var":
                sym = scope.lookup(name_of(t.children[0]))
                if isinstance(sym, ValueSetSym):
                    vt = sym.vs.type
                    # a struct of one field matches one select expression of its type
                    one = (vt.fields[0].type if isinstance(vt, ir.StructT) and
                           len(vt.fields) == 1 else None)
                    if vt != typ and not (one is not None and is_fixed(one) and
                                          ir.fixed_width(one) == ir.fixed_width(typ)):
                        self.err(f"value_set {sym.vs.local_name} holds {show(vt)}, the "
                                 f"select expression is {show(typ)}", t)
                    return ir.ValueSetRef(typ, loc, sym.vs.name)
        return self._key_const(t, typ, scope)

    def _key_const(self, t, typ, scope):
        """A keyset value; serializable enum members become ``Const``s of the underlying
        type, as the IR's keysets are Consts."""
        if isinstance(typ, ir.EnumT) and typ.underlying is not None:
            # as p4c: a key of a serializable enum type matches members of the enum or
            # values of its underlying type (``(bit<16>)E.M &&& 0xff00``)
            e = self.expr(t, scope, None)
            if e.type != typ:
                e = self.coerce(e, typ.underlying, t)
        else:
            e = self.expr(t, scope, typ)
        if not isinstance(e, (ir.Const, ir.EnumConst, ir.ErrorConst)):
            self.err("a keyset value must be a compile-time constant", t)
        if isinstance(e, ir.EnumConst) and e.type.underlying is not None:
            return ir.Const(e.type.underlying, e.loc,
                            e.type.values[e.type.members.index(e.member)])
        return e

    def keysets(self, t, types, scope, node, entry: bool = False) -> list:
        """Keyset of a select case (one per expression; a lone ``default``/``_`` for several
        expressions is one Default) or of a table entry (always one per key)."""
        if isinstance(t, Tree) and t.data == "tuple_keyset":
            items = t.children
        else:
            items = [t]
        if len(items) == 1 and len(types) != 1 and isinstance(items[0], Tree) and \
                items[0].data in ("default_keyset", "dontcare_keyset"):
            loc = self.loc(items[0])
            if entry:
                return [ir.DontCare(ty, loc) for ty in types]
            return [ir.Default(ir.VoidT(), loc)]
        if len(items) == 1 and len(types) != 1 and isinstance(items[0], Tree) and \
                items[0].data == "var" and isinstance(
                    scope.lookup(name_of(items[0].children[0])), ValueSetSym):
            # one value_set for several select expressions: its members are structs (or
            # tuples) with one field per expression, in order
            vs = scope.lookup(name_of(items[0].children[0])).vs
            fields = (vs.type.elems if isinstance(vs.type, ir.TupleT) else
                      [f.type for f in vs.type.fields] if isinstance(vs.type, ir.StructT)
                      else None)
            if fields is None or len(fields) != len(types) or any(
                    ir.fixed_width(f) != ir.fixed_width(t) for f, t in zip(fields, types)):
                self.err(f"value_set {vs.local_name} holds {show(vs.type)}; matching "
                         f"{len(types)} select expressions needs a struct of their "
                         f"{len(types)} types", items[0])
            return [ir.ValueSetRef(vs.type, self.loc(items[0]), vs.name)]
        if len(items) != len(types):
            self.err(f"expected {len(types)} keyset value{'s' if len(types) != 1 else ''}, "
                     f"got {len(items)}", t)
        return [self.keyset(i, ty, scope) for i, ty in zip(items, types)]

    def table_entry(self, e, table, scope, ctx) -> ir.Entry:
        kids = e.children
        if e.data == "const_entry":
            kids = kids[1:]
        annos, prio_kw, prio_t, keyset_t, ref_t, _after = kids
        types = [k.expr.type for k in table.keys]
        if not types:
            self.err(f"table {table.local_name} has no key, so it cannot have entries", e)
        keys = self.keysets(keyset_t, types, scope, e, entry=True)
        ref = self.action_ref(ref_t, scope, ctx, table, in_list=False)
        priority = None
        if prio_t is not None:
            priority = self.const_int(prio_t, scope, "an entry priority")
        # @priority(N), before the entry or after its action: p4c's BMv2 backend gives N
        # to BMv2 as it is, where the smaller number wins
        a = ir.annotation(annotations_of(annos) + annotations_of(_after), "priority")
        bmv2_priority = None
        if a is not None:
            if len(a.body) != 1 or not isinstance(a.body[0], int) or a.body[0] < 0:
                self.err("@priority takes one non-negative integer", e)
            bmv2_priority = a.body[0]
        return ir.Entry(keys, ref, priority, self.loc(e), bmv2_priority)

    # ------------------------------------------------------------------ parser states
    def parser_states(self, states_t, scope, ctx, parser_t) -> dict:
        names = {}
        for s in states_t:
            name = name_of(s.children[1])
            if name in names or name in ("accept", "reject"):
                self.err(f"state '{name}' is already declared", s.children[1])
            names[name] = s
        if "start" not in names:
            self.err("parser has no 'start' state", parser_t)
        states: dict = {}
        used = set(names) | {"accept", "reject"}
        for name, s in names.items():
            self._lower_state(name, s, names, scope, ctx, states, used)
        return states

    def _lower_state(self, name, s, names, scope, ctx, states, used):
        """Lower one state; each sub-parser apply splits it in two around the sub-parser's
        (renamed) states."""
        sscope = Scope(scope)
        cur, stmts = name, []
        for c in s.children[2:-1]:
            sub = self._subparser_apply(c, sscope, ctx)
            if sub is None:
                stmts.append(self.statement(c, sscope, ctx))
                continue
            pre, post = self.copy_in_out(sub, c.children[0], sscope)
            cont = self._fresh_state(f"{name}_after_{sub.local}", used)
            rename = {n: self._fresh_state(f"{sub.local}_{n}", used) for n in sub.states}
            rename.update(accept=cont, reject="reject")
            for n, st in sub.states.items():
                st = copy.deepcopy(st)
                st.name = rename[n]
                for case in st.transition.cases:
                    case.next_state = rename[case.next_state]
                states[st.name] = st
            loc = self.loc(c)
            states[cur] = ir.ParserState(cur, stmts + pre, ir.Transition(
                [], [ir.SelectCase([], rename["start"], loc)], loc), self.loc(s))
            cur, stmts = cont, list(post)
        if s.children[-1] is None:           # no transition statement: transition reject
            loc = self.loc(s)
            tr = ir.Transition([], [ir.SelectCase([], "reject", loc)], loc)
        else:
            tr = self.transition(s.children[-1], names, sscope)
        states[cur] = ir.ParserState(cur, stmts, tr, self.loc(s))

    @staticmethod
    def _fresh_state(base, used) -> str:
        name, i = base, 1
        while name in used:
            name, i = f"{base}_{i}", i + 1
        used.add(name)
        return name

    def _direct_application(self, callee, kind, ctx):
        """``Type.apply(...)``: an anonymous instance of a parser/control type, named after
        the type (then Type_1, ...), as the spec defines direct application."""
        if callee.data != "type_member" or name_of(callee.children[1]) != "apply":
            return None
        tname = str(callee.children[0].children[0])
        decl = self.block_decls.get(tname)
        if decl is None or decl.tree is None:
            return None
        if decl.kind != kind:
            self.err(f"a {kind} can only apply {kind}s; {tname} is a {decl.kind}", callee)
        local = ctx.fresh(tname)
        if kind == "parser":
            return self.inline_parser(decl, [], local, ctx, callee)
        return self.inline_control(decl, [], local, ctx, callee)

    def _subparser_apply(self, c, scope, ctx):
        if c.data != "call_statement" or c.children[0].data != "call":
            return None
        callee = c.children[0].children[0]
        direct = self._direct_application(callee, "parser", ctx)
        if direct is not None:
            return direct
        if callee.data == "member" and callee.children[0].data == "var":
            sym = scope.lookup(name_of(callee.children[0].children[0]))
            if isinstance(sym, SubParserSym):
                if name_of(callee.children[1]) != "apply":
                    self.err("parsers only have apply()", callee)
                return sym
        return None

    def transition(self, t, names, scope) -> ir.Transition:
        loc = self.loc(t)
        if t.data == "transition":
            target = self._state_ref(t.children[0], names)
            return ir.Transition([], [ir.SelectCase([], target, loc)], loc)
        sel = t.children[0]
        exprs = [self.expr(x, scope) for x in self._expr_list(sel.children[0])]
        for x, node in zip(exprs, self._expr_list(sel.children[0])):
            if isinstance(x.type, ir.InfIntT):
                self.err("a select expression needs a width; cast it", node)
        cases = []
        for c in sel.children[1:]:
            ks = self.keysets(c.children[0], [x.type for x in exprs], scope, c)
            cases.append(ir.SelectCase(ks, self._state_ref(c.children[1], names), self.loc(c)))
        return ir.Transition(exprs, cases, loc)

    def _state_ref(self, t, names) -> str:
        name = name_of(t)
        if name not in names and name not in ("accept", "reject"):
            self.err(f"undefined state '{name}'", t)
        return name
