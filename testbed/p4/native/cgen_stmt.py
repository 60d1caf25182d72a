"""C code generation for statements, calls and the v1model extern calls that do not touch
packet bits (mixed into :class:`cgen.CGen`).

``exit`` and a failed ``assert`` set ``P->stop``; every call that can run one is followed
by a check that leaves the action (``return``) or the control (``goto _end``), as the
reference backend's exceptions unwind. Scalar ``out``/``inout`` arguments are copied in
and out through a temporary, as the reference backend passes them.
"""
from __future__ import annotations

from testbed.p4 import ir
from testbed.p4.native.cgen_expr import CScope, is_composite, mask, tuple_fields
from testbed.p4.walk import MAX_LOOP

I2E, E2E = 1, 2


def instance_size(inst) -> int:
    """The size an extern instance is declared with (1 when it takes none)."""
    return next((a.value for a in inst.args if isinstance(a, ir.Const)), 1)


def walk_calls(node):
    """The extern method calls of an IR subtree, in source order."""
    return (c for c in ir.nodes(node) if isinstance(c, ir.Call) and c.kind == "extern_method")


class CStmtGen:
    def at_statement(self, st, ind: int) -> None:
        self.locs.append((len(self.lines), st.loc))

    def s_Block(self, st, s, ind):
        self.emit(ind, "{")
        for x in st.stmts:
            self.stmt(x, s, ind + 1)
        self.emit(ind, "}")

    def s_VarDecl(self, st, s, ind):
        c = f"v_{s.fresh('v')}_{''.join(ch if ch.isalnum() else '_' for ch in st.name)}"
        self.emit(ind, f"{self.ctype(st.type, st.loc)} {c};")
        s.vars[st.name] = c
        self.init_var(c, st, s, ind)

    def init_var(self, c: str, st: ir.VarDecl, s, ind) -> None:
        """Give a declared variable its initial value (0 / invalid when it has none)."""
        if is_composite(st.type):
            self.emit(ind, f"memset(&{c}, 0, sizeof {c});")
            if st.init is not None:
                self.assign(ir.Var(st.type, st.loc, st.name), st.init, s, ind)
        else:
            self.emit(ind, f"{c} = {self.scalar(st.init, st.type, s) if st.init else '0'};")

    def scalar(self, e, t, s) -> str:
        code = self.expr(e, s)
        if isinstance(t, ir.BoolT) and not isinstance(e.type, ir.BoolT):
            return f"({code} != 0)"
        return code

    def s_Assign(self, st, s, ind):
        self.assign(st.lhs, st.rhs, s, ind)

    def assign(self, lhs, rhs, s, ind) -> None:
        """``lhs = rhs``; ``rhs`` is an IR expression or C code of a scalar."""
        if isinstance(lhs, ir.DontCare):
            return
        code = rhs if isinstance(rhs, str) else None
        if isinstance(lhs, ir.Slice):
            lo, inner = lhs.lo, lhs.expr
            while isinstance(inner, ir.Slice):     # x[7:4][1:0] is x[5:4]
                lo, inner = lo + inner.lo, inner.expr
            w = lhs.hi - lhs.lo + 1
            base = self.expr(inner, s)
            value = code if code is not None else self.expr(rhs, s)
            word = "(u128)" if ir.fixed_width(inner.type) > 64 else ""
            self.emit(ind, f"{base} = ({base} & ~({word}{mask(w)} << {lo})) | "
                           f"({word}(({value}) & {mask(w)}) << {lo});")
            return
        target = self.expr(lhs, s)
        if code is not None:
            self.emit(ind, f"{target} = {code};")
        elif isinstance(lhs.type, ir.VarbitT):
            if not isinstance(rhs, (ir.Var, ir.Member, ir.Index)):
                self.unsupported(f"assignment of {type(rhs).__name__} to a varbit", rhs.loc)
            self.emit(ind, f"{target} = {self.expr(rhs, s)};")   # the value, as the reference
        elif is_composite(lhs.type):
            if isinstance(rhs, (ir.ListExpr, ir.StructInit)):
                fields = (tuple_fields(lhs.type) if isinstance(lhs.type, ir.TupleT)
                          else lhs.type.fields)
                values = (rhs.elems if isinstance(rhs, ir.ListExpr)
                          else [rhs.fields[f.name] for f in fields])
                for f, v in zip(fields, values):
                    self.assign(ir.Member(f.type, lhs.loc, lhs, f.name), v, s, ind)
                if isinstance(lhs.type, ir.HeaderT):
                    self.emit(ind, f"{target}._v = 1;")
            elif isinstance(rhs, (ir.Var, ir.Member, ir.Index)):
                self.emit(ind, f"{target} = {self.expr(rhs, s)};")
            else:
                self.unsupported(f"assignment of {type(rhs).__name__} to a "
                                 f"{type(lhs.type).__name__[:-1].lower()}", rhs.loc)
        else:
            self.emit(ind, f"{target} = {self.scalar(rhs, lhs.type, s)};")

    def s_If(self, st, s, ind):
        self.emit(ind, f"if ({self.expr(st.cond, s)}) {{")
        self.stmt(st.then, s, ind + 1)
        if st.other is not None:
            self.emit(ind, "} else {")
            self.stmt(st.other, s, ind + 1)
        self.emit(ind, "}")

    def s_For(self, st, s, ind):
        """As the reference backend: the update at the top of every iteration but the
        first (so ``continue`` runs it), past MAX_LOOP iterations a failed assertion."""
        self.emit(ind, "{")
        for x in st.init:
            self.stmt(x, s, ind + 1)
        n = s.fresh("n")
        self.out.asserts.append(f"for loop at {st.loc} (more than {MAX_LOOP} iterations)")
        self.emit(ind + 1, f"uint32_t {n} = 0;")
        self.emit(ind + 1, "for (;;) {")
        if st.update:
            self.emit(ind + 2, f"if ({n}) {{")
            for x in st.update:
                self.stmt(x, s, ind + 3)
            self.emit(ind + 2, "}")
        self.emit(ind + 2, f"if (++{n} > {MAX_LOOP}) {{ P->failed = {len(self.out.asserts)}; "
                           f"P->stop = 1; {s.leave}; }}")
        if st.cond is not None:
            self.emit(ind + 2, f"if (!({self.expr(st.cond, s)})) break;")
        self.stmt(st.body, s, ind + 2)
        self.emit(ind + 1, "}")
        self.emit(ind, "}")

    def s_Break(self, st, s, ind):
        self.emit(ind, "break;")

    def s_Continue(self, st, s, ind):
        self.emit(ind, "continue;")

    def s_Switch(self, st, s, ind):
        v = s.fresh("sw")
        if isinstance(st.expr, ir.Member) and st.expr.field == "action_run":
            name = st.expr.expr.method
            self.emit(ind, f"int {v} = {self.table_fn(name)}(P).action;")
            self.emit(ind, f"if (P->stop) {s.leave};")
            actions = self.out.tables[name].actions
            value = lambda lb: str(actions.index(lb.action))  # noqa: E731
        else:
            if is_composite(st.expr.type):
                self.unsupported("switch on a header or struct", st.loc)
            self.narrow(st.expr.type, st.loc, "a switch expression")
            self.emit(ind, f"uint64_t {v} = {self.expr(st.expr, s)};")
            value = lambda lb: self.expr(lb, s)  # noqa: E731
        labels, first = [], True
        for case in st.cases:
            labels += case.labels
            if case.body is None:
                continue
            if any(isinstance(lb, ir.Default) for lb in labels):
                cond = "1"
            else:
                cond = " || ".join(f"{v} == {value(lb)}" for lb in labels)
            self.emit(ind, f"{'if' if first else '} else if'} ({cond}) {{")
            self.stmt(case.body, s, ind + 1)
            first, labels = False, []
        if not first:
            self.emit(ind, "}")

    def s_Exit(self, st, s, ind):
        self.emit(ind, f"{{ P->stop = 1; {s.leave}; }}")

    def s_Return(self, st, s, ind):
        if s.ret_type is not None:
            self.emit(ind, f"return {self.scalar(st.expr, s.ret_type, s)};")
        else:
            self.emit(ind, f"{s.leave};")

    # ------------------------------------------------------------ calls
    def apply_table(self, c, s, ind):
        self.emit(ind, f"{self.table_fn(c.method)}(P);")
        self.emit(ind, f"if (P->stop) {s.leave};")

    def builtin(self, c, s, ind):
        if isinstance(c.target.type, ir.StackT) and c.method in ("push_front", "pop_front"):
            t = c.target.type
            self.emit(ind, f"stack_{c.method}(&{self.expr(c.target, s)}, "
                           f"sizeof({self.ctype(t.elem, c.loc)}), {t.size}, "
                           f"{self.expr(c.args[0], s)});")
            return
        if isinstance(c.target.type, ir.UnionT) and c.method == "setInvalid":
            u = self.expr(c.target, s)
            for f in c.target.type.fields:
                self.emit(ind, f"{u}.f_{f.name}._v = 0;")
            return
        if not isinstance(c.target.type, ir.HeaderT):
            self.unsupported(f"{c.method} on {type(c.target.type).__name__}", c.loc)
        h = self.expr(c.target, s)
        if c.method == "setValid":
            self.union_others_invalid(c.target, s, ind)
            self.emit(ind, f"if (!{h}._v) {{ memset(&{h}, 0, sizeof {h}); {h}._v = 1; }}")
        elif c.method == "setInvalid":
            self.emit(ind, f"{h}._v = 0;")
        elif c.method != "isValid":
            self.unsupported(f"method {c.method}", c.loc)

    def arguments(self, args, params, s) -> tuple:
        """(C arguments, copy-back statements) for a call of an action or function."""
        out, back = [], []
        for a, p in zip(args, params):
            if is_composite(p.type):
                if not isinstance(a, (ir.Var, ir.Member)):
                    self.unsupported(f"{type(a).__name__} as a header/struct argument", a.loc)
                out.append(f"&{self.expr(a, s)}")
                continue
            value = "0" if isinstance(a, ir.DontCare) else self.expr(a, s)
            if p.direction in ("out", "inout"):
                tmp = s.fresh("o")
                self.emit(self.cur_ind, f"{self.ctype(p.type, a.loc)} {tmp} = {value};")
                out.append(f"&{tmp}")
                if not isinstance(a, ir.DontCare):
                    back.append((a, tmp))
            else:
                out.append(value)
        return out, back

    def call_action(self, c, s, ind, ctl=None) -> None:
        """A call of an action of ``ctl`` (the scope's block unless given)."""
        ctl = ctl or s.block
        act = ctl.actions.get(c.method) or self.p.actions[c.method]
        self.cur_ind = ind + 1
        self.emit(ind, "{")
        args, back = self.arguments(c.args, act.params, s)
        fn = self.action_fns[(ctl.name, c.method)]
        self.emit(ind + 1, f"{fn}({', '.join(['P'] + args)});")
        for a, tmp in back:
            self.assign(a, tmp, s, ind + 1)
        self.emit(ind + 1, f"if (P->stop) {s.leave};")
        self.emit(ind, "}")

    def call_function(self, c, s, ind) -> None:
        self.emit(ind, f"(void){self.function_call(c, s)};")

    def function_call(self, c, s) -> str:
        """A call of a P4 function as a C expression."""
        fn = self.p.functions[c.method]
        start = len(self.lines)
        args, back = self.arguments(c.args, fn.params, s)
        call = f"F_{c.method}({', '.join(['P'] + args)})"
        if not back:
            return call
        # one statement expression: the copies in and out happen where the call is
        # evaluated, so `a || f(x)` and `c ? f(x) : y` leave x alone when f is not called
        r = s.fresh("r")
        self.emit(0, f"{self.ret_ctype(fn)} {r} = {call};")
        for a, tmp in back:
            self.assign(a, tmp, s, 0)
        body = " ".join(line.strip() for line in self.lines[start:])
        del self.lines[start:]
        return f"({{ {body} {r}; }})"

    def gen_function(self, fn: ir.Function) -> None:
        s = CScope(None, leave="return 0")
        if is_composite(fn.return_type):
            self.unsupported("a function returning a header or struct", fn.loc)
        void = isinstance(fn.return_type, ir.VoidT)
        s.ret_type = None if void else fn.return_type
        params = ["pkt_t *P"] + [self.param(p, s) for p in fn.params]
        self.emit(0, f"static {self.ret_ctype(fn)} F_{fn.name}({', '.join(params)}) {{")
        self.emit(1, "(void)P;")
        for st in fn.body.stmts:
            self.cur_ind = 1
            self.stmt(st, s, 1)
        self.emit(1, "return 0;")
        self.emit(0, "}")

    # ------------------------------------------------------------ externs
    def extern_method(self, c, s, ind):
        self.cur_ind = ind
        if c.extern == "packet_in":
            return self.packet_in_method(c, s, ind)
        if c.extern == "packet_out":
            return self.emit_headers(c.args[0], s, ind)
        inst = self.instance_of(c, s)
        if c.extern == "register" and c.method in ("read", "write"):
            group, column, stride, _ = self.out.register_cells[self.out.registers[inst.name]]
            size = instance_size(inst)
            pos = 1 if c.method == "read" else 0
            row = s.rows.get((group, self.expr(c.args[pos], s)))
            if row is not None:         # the action's row at an index it cannot change
                if c.method == "read":
                    self.assign(c.args[0], f"{row[0]}[{column}]", s, ind)
                else:
                    self.emit(ind, f"{row[1]}[{column}] = {self.expr(c.args[1], s)};")
                return
            i = s.fresh("i")
            cell = f"P->S->RG{group}[{i} * {stride} + {column}]"
            self.emit(ind, "{")
            self.emit(ind + 1, f"uint64_t {i} = {self.expr(c.args[pos], s)};")
            if c.method == "read":
                self.assign(c.args[0], f"({i} < {size} ? {cell} : 0)", s, ind + 1)
            else:
                self.emit(ind + 1, f"if ({i} < {size}) {cell} = {self.expr(c.args[1], s)};")
            self.emit(ind, "}")
        elif c.extern == "counter" and c.method == "count":
            k = self.out.counters[inst.name]
            size = instance_size(inst)
            i = s.fresh("i")
            self.emit(ind, f"{{ uint64_t {i} = {self.expr(c.args[0], s)}; if ({i} < {size}) "
                           f"{{ P->S->CP{k}[{i}]++; P->S->CB{k}[{i}] += P->plen; }} }}")
        elif c.extern == "direct_counter" and c.method == "count":
            pass        # counted on every hit of the table, as BMv2 does
        elif c.extern == "direct_meter" and c.method == "read":
            self.assign(c.args[0], f"P->colors[{self.out.direct_meters[inst.name]}]", s, ind)
        elif c.extern == "meter" and c.method == "execute_meter":
            k = self.out.meters[inst.name]
            size = instance_size(inst)
            amount = "P->plen" if self.meter_kind(inst) == "bytes" else "1"
            i = s.fresh("i")
            self.emit(ind, "{")
            self.emit(ind + 1, f"uint64_t {i} = {self.expr(c.args[0], s)};")
            self.assign(c.args[1], f"({i} < {size} ? meter_execute(&P->S->M{k}[{i}], "
                                   f"{amount}, P->S->base.secs) : 0)", s, ind + 1)
            self.emit(ind, "}")
        else:
            self.unsupported(f"{c.extern}.{c.method}", c.loc)

    def instance_of(self, c, s):
        """The extern instance a method call ``c`` is made on."""
        inst = self.instances.get(c.target.name)
        if inst is None:
            inst = next((i for i in s.block.instances if i.local_name == c.target.name), None)
        if inst is None:
            self.unsupported(f"{c.extern}.{c.method}", c.loc)
        return inst

    def register_rows(self, body: ir.Block, s) -> None:
        """Declare, at the top of an action, the row of each register group that
        ``body`` indexes with a value it cannot change (made of constants and fields read
        once at the top): a pointer to read it by and one to
        write it by, out of range the zero row and the group's sink row, so an access
        is one load or store with no test (``s.rows``: (group, index) -> pointers)."""
        for c in walk_calls(body):
            if c.extern != "register" or c.method not in ("read", "write"):
                continue
            index = c.args[1 if c.method == "read" else 0]
            if not self.invariant(index, s):
                continue
            code = self.expr(index, s)
            inst = self.instance_of(c, s)
            group, _, stride, ctype = self.out.register_cells[self.out.registers[inst.name]]
            if (group, code) in s.rows:
                continue
            read, write = s.fresh("rr"), s.fresh("rw")
            s.rows[group, code] = (read, write)
            size = instance_size(inst)
            self.emit(1, f"{ctype} *{write} = {code} < {size} ? "
                         f"&P->S->RG{group}[{code} * {stride}] : P->S->RS{group};")
            self.emit(1, f"const {ctype} *{read} = {code} < {size} ? {write} : "
                         f"(const {ctype} *)reg_zeros;")

    def invariant(self, e, s) -> bool:
        """Whether ``e`` has one value for the whole action: constants and fields read
        once at its top, through casts, slices and operators."""
        if isinstance(e, ir.Const):
            return True
        if isinstance(e, ir.Member):
            return self.expr(e, s) in s.hoisted.values()
        if isinstance(e, (ir.Cast, ir.Slice, ir.Unary)):
            return self.invariant(e.expr, s)
        if isinstance(e, ir.Binary):
            return self.invariant(e.left, s) and self.invariant(e.right, s)
        return False

    def event(self, kind: str, id_: int, data, s, ind) -> None:
        """A record (id, the scalars of ``data``) for the control plane (digests) or the
        log, read back after the call."""
        leaves = self.leaves(data, s) if data is not None else []
        vals, words = [], []
        for code, w in leaves:
            if isinstance(w, tuple):
                self.unsupported(f"a varbit value in a {kind} record", data.loc)
            if w > 64:          # two words, high then low
                vals += [f"(uint64_t)(({code}) >> 64)", f"(uint64_t)({code})"]
            else:
                vals.append(code)
            words.append(2 if w > 64 else 1)
        self.out.event_words[kind, id_] = words
        self.emit(ind, f"{{ uint64_t _ev[] = {{{', '.join(vals) or '0'}}}; "
                       f"event_push(&P->S->base.{kind}, {id_}, {len(vals)}, _ev); }}")

    def extern_function(self, c, s, ind):
        self.cur_ind = ind
        super().extern_function(c, s, ind)

    # v1model's extern functions, one method each (EXTERN_FUNCTIONS in testbed/p4/walk.py)
    def fn_mark_to_drop(self, c, s, ind):
        sm = self.expr(c.args[0], s) if c.args else "P->sm"
        self.emit(ind, f"{sm}.f_egress_spec = 511; {sm}.f_mcast_grp = 0;")

    def fn_clone(self, c, s, ind):
        args = c.args
        kind = args[0].member if isinstance(args[0], ir.EnumConst) else "I2E"
        fl = self.expr(args[2], s) if c.method == "clone_preserving_field_list" else "-1"
        self.emit(ind, f"P->clone_type = {I2E if kind == 'I2E' else E2E}; "
                       f"P->clone_session = {self.expr(args[1], s)}; P->clone_fl = {fl};")

    def fn_resubmit(self, c, s, ind):
        self.emit(ind, f"P->resubmit_fl = {self.expr(c.args[0], s)};")

    def fn_recirculate(self, c, s, ind):
        self.emit(ind, f"P->recirc_fl = {self.expr(c.args[0], s)};")

    def fn_truncate(self, c, s, ind):
        self.emit(ind, f"P->trunc = {self.expr(c.args[0], s)};")

    def fn_random(self, c, s, ind):
        args = c.args
        self.assign(args[0], f"random_between(&P->S->base, {self.expr(args[1], s)}, "
                             f"{self.expr(args[2], s)})", s, ind)

    def fn_digest(self, c, s, ind):
        args = c.args
        t = c.type_args[0] if c.type_args else args[1].type
        self.event("digests", self.p.digests.index(t), args[1], s, ind)

    def fn_log_msg(self, c, s, ind):
        args = c.args
        self.out.log_formats.append(args[0].value)
        self.event("logs", len(self.out.log_formats) - 1,
                   args[1] if len(args) > 1 else None, s, ind)

    def fn_assertion(self, c, s, ind):
        self.out.asserts.append(f"{c.method} at {c.loc}")
        self.emit(ind, f"if (!{self.expr(c.args[0], s)}) {{ P->failed = "
                       f"{len(self.out.asserts)}; P->stop = 1; {s.leave}; }}")

    def fn_verify(self, c, s, ind):
        if not self.in_parser:
            self.unknown_extern_function(c)
        self.emit(ind, f"if (!{self.expr(c.args[0], s)}) {{ _err = "
                       f"{self.expr(c.args[1], s)}; goto _fail; }}")

    def unknown_extern_function(self, c) -> None:
        self.unsupported(f"extern function {c.method}", c.loc)
