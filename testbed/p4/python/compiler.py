"""Compile an IR program into Python source for its v1model pipeline, exec'd once (PSA's
six blocks: ``testbed.p4.psa.compiler``, which extends this compiler).

The generated module defines one class per header/struct/union type and one function
per parser, control, action and table, so the per-packet path never looks at the IR.
Values: ``bit<W>`` is a masked int, ``int<W>`` a signed int in range, ``bool`` a Python
bool, errors and non-serializable enums the index of their member. Headers are objects
with a validity flag ``_v``. As in BMv2, fields keep their last written value while a
header is invalid (reads return it, writes are performed), and ``setValid()`` on an
invalid header zeroes its fields. Uninitialized variables and metadata are 0.
Composite ``out``/``inout`` arguments are passed by reference; scalar ones are returned
and assigned back.

Run-time objects (tables, registers, counters, meters, value sets) live in
:class:`Compiled`; the generated code reaches them through module globals, and the
per-packet v1model state (clone/resubmit/recirculate requests, digests, ...) through
the global ``_P`` (a :class:`runtime.PacketState`) that the target sets per packet.
"""
from __future__ import annotations

import logging
import time

from testbed.errors import P4Error
from testbed.p4 import ir
from testbed.p4.python import externs, runtime
from testbed.p4.python.gen_expr import ExprGen, Scope, _ident, _is_composite, _mask, fname
from testbed.p4.python.gen_externs import ExternGen
from testbed.p4.python.gen_packet import PacketGen
from testbed.p4.python.hoist import hoistable
from testbed.p4.python.scratch_locals import scratch_locals
from testbed.p4.python.table_setup import table_state
from testbed.p4.walk import MAX_LOOP, CodeWalk


class Compiled:
    """The executable form of a program plus its run-time state."""

    def __init__(self):
        self.ns = {}
        self.source = ""
        self.tables = {}           # fq name -> TableState
        self.registers = {}
        self.counters = {}
        self.direct_counters = {}  # direct_counter name -> table name
        self.meters = {}
        self.direct_meters = {}    # direct_meter name -> table name
        self.value_sets = {}       # name -> list of matches
        self.field_lists = {}      # index -> [field path]


class Compiler(ExprGen, PacketGen, ExternGen, CodeWalk):
    """Generates the Python module of one program, then loads it.

    ``generate`` walks the IR once, in the module's order: extern instances, functions,
    the four controls (each with its actions, tables and apply block), parser, deparser
    and the entry points; a header/struct type gets its class when code first needs it.
    Expressions (``gen_expr``), packet I/O (``gen_packet``) and extern calls
    (``gen_externs``) are mixins, not passes: they are parts of this one walk that call
    one another and share its names, classes and output lines. What depends on the IR
    alone is computed outside the walk: what an action can keep in Python locals
    (``hoist``, ``scratch_locals``) and each table's run-time state (``table_setup``).
    ``load`` execs the source and binds the tables to its functions.
    """

    def __init__(self, program: ir.Program, trace: bool, clock=time.monotonic,
                 priority_queues: int = 1):
        self.p = program
        self.trace = trace
        self.priority_queues = priority_queues
        self.clock = clock
        self.out = Compiled()
        self.lines = []
        self.classes = {}           # type name -> python class name
        self.names = {}             # fq name -> python identifier
        self.errors = {n: i for i, n in enumerate(program.errors)}
        self.action_fns = {}        # (control, action) -> python name
        self.table_fns = {}         # table -> {action: python name of what it calls}
        self.cur_ind = 1            # indentation of the statement being generated
        self.globals = {}
        self.class_src = []         # source of the header/struct classes, in order of use

    def emit(self, indent: int, line: str) -> None:
        self.lines.append("    " * indent + line)

    def pyname(self, prefix: str, name: str) -> str:
        key = (prefix, name)
        if key not in self.names:
            self.names[key] = f"{prefix}{len(self.names)}_{_ident(name)}"
        return self.names[key]

    def err(self, name: str) -> int:
        if name not in self.errors:
            self.errors[name] = len(self.errors)
        return self.errors[name]

    def fail(self, msg: str, loc) -> None:
        raise P4Error(f"{msg} (not supported by the {self.p.arch} target)", loc)

    def cls(self, t) -> str:
        if t.name not in self.classes:
            pyn = f"C_{_ident(t.name)}"
            self.classes[t.name] = pyn
            self._gen_class(t, pyn)
        return self.classes[t.name]

    def default(self, t) -> str:
        if isinstance(t, ir.BoolT):
            return "False"
        if isinstance(t, (ir.HeaderT, ir.StructT, ir.UnionT)):
            return f"{self.cls(t)}()"
        if isinstance(t, ir.StackT):
            return f"_Stack({self.cls(t.elem)}, {t.size})"
        if isinstance(t, ir.TupleT):
            return "(" + "".join(self.default(e) + ", " for e in t.elems) + ")"
        return "0"          # bit, int, varbit, error, enum

    def _gen_class(self, t, pyn: str) -> None:
        is_header = isinstance(t, ir.HeaderT)
        slots = [fname(f.name) for f in t.fields]
        extra = []
        if is_header:
            extra = ["_v"] + [f"_w_{fname(f.name)}" for f in t.fields
                              if isinstance(f.type, ir.VarbitT)]
        body = [f"class {pyn}:", f"    __slots__ = {tuple(slots + extra)!r}",
                "    def __init__(self):"]
        init = [f"        self.{n} = False" for n in extra[:1]]
        init += [f"        self.{n} = 0" for n in extra[1:]]
        init += [f"        self.{fname(f.name)} = {self.default(f.type)}" for f in t.fields]
        body += init or ["        pass"]
        body += ["    def _copy(self):", f"        n = {pyn}.__new__({pyn})"]
        for n in extra:
            body.append(f"        n.{n} = self.{n}")
        for f in t.fields:
            n = fname(f.name)
            if _is_composite(f.type):
                body.append(f"        n.{n} = self.{n}._copy()")
            else:
                body.append(f"        n.{n} = self.{n}")
        body += ["        return n", "    def _set(self, o):"]
        for n in extra:
            body.append(f"        self.{n} = o.{n}")
        for f in t.fields:
            n = fname(f.name)
            if _is_composite(f.type):
                body.append(f"        self.{n}._set(o.{n})")
            else:
                body.append(f"        self.{n} = o.{n}")
        if not t.fields and not extra:
            body.append("        pass")
        if is_header:
            # BMv2's add_header: an invalid header becomes valid with all fields 0; a
            # struct field is zeroed in place, as code may hold it
            body += ["    def _setvalid(self):", "        if not self._v:"]
            body += [f"            self.{fname(f.name)}._set({self.default(f.type)})"
                     if _is_composite(f.type) else
                     f"            self.{fname(f.name)} = {self.default(f.type)}"
                     for f in t.fields]
            body += [f"            self.{n} = 0" for n in extra[1:]]
            body += ["            self._v = True"]
        if isinstance(t, ir.UnionT):
            cond = " or ".join(f"self.{fname(f.name)}._v" for f in t.fields) or "False"
            body += ["    @property", "    def _v(self):", f"        return {cond}"]
        self.class_src.append("\n".join(body))

    def block(self, stmts, s: Scope, ind: int) -> None:
        start = len(self.lines)
        for st in stmts:
            self.stmt(st, s, ind)
        if len(self.lines) == start:
            self.emit(ind, "pass")

    def at_statement(self, st, ind: int) -> None:
        self.cur_ind = ind

    def unsupported(self, construct: str, loc) -> None:
        self.fail(construct, loc)

    def s_Block(self, st, s, ind):
        self.block(st.stmts, s, ind)

    def s_VarDecl(self, st, s, ind):
        name = self.x_Var(ir.Var(st.type, st.loc, st.name), s)
        if st.init is None:
            self.emit(ind, f"{name} = {self.default(st.type)}")
        elif _is_composite(st.type) and not isinstance(st.init, (ir.ListExpr, ir.StructInit)):
            self.emit(ind, f"{name} = {self.expr(st.init, s)}._copy()")
        else:
            self.emit(ind, f"{name} = {self.expr(st.init, s)}")

    def s_Assign(self, st, s, ind):
        self.assign(st.lhs, self.expr(st.rhs, s), s, ind, st.rhs)

    def assign(self, lhs, rhs: str, s, ind, rhs_expr=None) -> None:
        if isinstance(lhs, ir.DontCare):
            return
        t = lhs.type
        if isinstance(lhs, ir.Slice):
            w = lhs.hi - lhs.lo + 1
            base = self.expr(lhs.expr, s)
            m = _mask(w) << lhs.lo
            val = f"(({base} & ~{m}) | (({rhs} & {_mask(w)}) << {lhs.lo}))"
            self.assign(lhs.expr, self._wrap(val, lhs.expr.type)
                        if isinstance(lhs.expr.type, ir.IntT) else val, s, ind)
            return
        target = self.expr(lhs, s)
        if _is_composite(t):
            self.emit(ind, f"{target}._set({rhs})")
        elif isinstance(t, ir.BoolT) and rhs_expr is not None and not isinstance(
                rhs_expr.type, ir.BoolT):
            self.emit(ind, f"{target} = bool({rhs})")
        else:
            self.emit(ind, f"{target} = {rhs}")

    def s_If(self, st, s, ind):
        self.emit(ind, f"if {self.expr(st.cond, s)}:")
        self.block([st.then], s, ind + 1)
        if st.other is not None:
            self.emit(ind, "else:")
            self.block([st.other], s, ind + 1)

    def s_Switch(self, st, s, ind):
        v = s.fresh("_sw")
        if isinstance(st.expr, ir.Member) and st.expr.field == "action_run":
            call = st.expr.expr
            r = s.fresh("_r")
            self.table_apply_inline(call.method, r, s, ind)
            self.emit(ind, f"{v} = {r}.action")
        else:
            self.emit(ind, f"{v} = {self.expr(st.expr, s)}")
        labels = []
        first = True
        for case in st.cases:
            labels += case.labels
            if case.body is None:
                continue
            if any(isinstance(lb, ir.Default) for lb in labels):
                cond = "True"
            else:
                vals = [repr(lb.action) if isinstance(lb, ir.ActionName) else self.expr(lb, s)
                        for lb in labels]
                cond = " or ".join(f"{v} == {x}" for x in vals)
            self.emit(ind, f"{'if' if first else 'elif'} {cond}:")
            self.block(case.body.stmts, s, ind + 1)
            first = False
            labels = []

    def s_For(self, st, s, ind):
        """The update runs at the top of every iteration but the first, so that
        ``continue`` (Python's) runs it too. A loop that runs more than MAX_LOOP times
        drops the packet as a failed assertion would, rather than hang the switch."""
        for x in st.init:
            self.stmt(x, s, ind)
        n = s.fresh("_n")
        self.emit(ind, f"{n} = 0")
        self.emit(ind, "while True:")
        if st.update:
            self.emit(ind + 1, f"if {n}:")
            self.block(st.update, s, ind + 2)
        self.emit(ind + 1, f"{n} += 1")
        why = f"for loop at {st.loc} (more than {MAX_LOOP} iterations)"
        self.emit(ind + 1, f"if {n} > {MAX_LOOP}: raise _AssertFailed({why!r})")
        if st.cond is not None:
            self.cur_ind = ind + 1
            self.emit(ind + 1, f"if not {self.expr(st.cond, s)}: break")
        self.block([st.body], s, ind + 1)

    def s_Break(self, st, s, ind):
        self.emit(ind, "break")

    def s_Continue(self, st, s, ind):
        self.emit(ind, "continue")

    def s_Exit(self, st, s, ind):
        self.emit(ind, "raise _Exit()")

    def s_Return(self, st, s, ind):
        outs = [self.x_Var(ir.Var(p.type, p.loc, p.name), s) for p in s.outs]
        vals = ([self.expr(st.expr, s)] if st.expr is not None else []) + outs
        if not vals:
            self.emit(ind, "return")
        elif st.expr is not None and not outs:
            self.emit(ind, f"return {vals[0]}")
        else:
            self.emit(ind, f"return ({', '.join(vals)},)")

    def apply_table(self, c, s, ind):
        self.table_apply_inline(c.method, s.fresh("_r"), s, ind)

    def builtin(self, c, s, ind):
        tgt = self.expr(c.target, s)
        if c.method == "setValid":
            if isinstance(c.target, ir.Member) and isinstance(c.target.expr.type, ir.UnionT):
                union = self.expr(c.target.expr, s)
                self.emit(ind, f"_union_set_valid({union}, {fname(c.target.field)!r})")
            else:
                self.emit(ind, f"{tgt}._setvalid()")
        elif c.method == "setInvalid":
            if isinstance(c.target.type, ir.UnionT):
                for f in c.target.type.fields:
                    self.emit(ind, f"{tgt}.{fname(f.name)}._v = False")
            else:
                self.emit(ind, f"{tgt}._v = False")
        elif c.method in ("push_front", "pop_front"):
            self.emit(ind, f"{tgt}.{c.method}({self.expr(c.args[0], s)})")
        elif c.method == "isValid":
            self.emit(ind, tgt + "._v")
        else:
            self.fail(f"method {c.method}", c.loc)

    def _call_with_outs(self, fn_code: str, args, params, s, ind) -> None:
        outs = self._scalar_outs(params)
        if not outs:
            self.emit(ind, fn_code)
            return
        r = s.fresh("_o")
        self.emit(ind, f"{r} = {fn_code}")
        pos = 0
        for a, p in zip(args, params):
            if p in outs:
                self.assign(a, f"{r}[{pos}]", s, ind)
                pos += 1

    def call_action(self, c, s, ind):
        act = s.block.actions.get(c.method) or self.p.actions[c.method]
        fn = self.action_fns[(s.block.name, c.method)]
        args = [self._arg(a, p, s) for a, p in zip(c.args, act.params)]
        code = f"{fn}({s.ctl_params}{''.join(', ' + a for a in args)})"
        self._call_with_outs(code, c.args, act.params, s, ind)

    def call_function(self, c, s, ind):
        fn = self.p.functions[c.method]
        args = ", ".join(self._arg(a, p, s) for a, p in zip(c.args, fn.params))
        code = f"{self.pyname('F', c.method)}({args})"
        outs = self._scalar_outs(fn.params)
        if outs and not isinstance(fn.return_type, ir.VoidT):
            r = s.fresh("_o")
            self.emit(ind, f"{r} = {code}")
            pos = 1
            for a, p in zip(c.args, fn.params):
                if p in outs:
                    self.assign(a, f"{r}[{pos}]", s, ind)
                    pos += 1
        else:
            self._call_with_outs(code, c.args, fn.params, s, ind)

    def table_fn(self, name: str) -> str:
        return self.pyname("t", name)

    def table_apply_inline(self, name: str, r: str, s, ind) -> None:
        t = s.block.tables[name]
        ts = self.pyname("T", name)
        self.cur_ind = ind
        if t.keys:
            keys = [self._key(k, s) for k in t.keys]
            key = keys[0] if len(keys) == 1 else "(" + ", ".join(keys) + ",)"
            self.emit(ind, f"{r} = {ts}.lookup({key})")
        else:
            self.emit(ind, f"{r} = {ts}.default")
        if self.trace:
            self.emit(ind, f"_log.debug('Applying table %s: %s, action %s', {name!r}, "
                           f"'hit' if {r}.hit else 'miss', {r}.action)")
        if t.counters:
            self.emit(ind, f"if {r}.hit: {r}.counter[0] += 1; {r}.counter[1] += _P.plen")
        if t.meters:
            kind = self._instance(t.meters).args
            unit = "1" if self._meter_kind(kind) == "packets" else "_P.plen"
            self.emit(ind, f"if {r}.meter is not None: _P.set_color({t.meters!r}, "
                           f"{r}.meter.execute({unit}, _clock()))")
        self.emit(ind, f"{r}.fn({s.ctl_params}, *{r}.args)")

    def _key(self, k: ir.Key, s) -> str:
        code = self.expr(k.expr, s)
        t = k.expr.type
        if isinstance(t, ir.BoolT):
            return f"int({code})"
        if isinstance(t, ir.IntT):
            return f"({code} & {_mask(t.width)})"
        return code

    def gen_control(self, ctl: ir.Control, role: str) -> None:
        s = Scope(ctl)
        pnames = [self.x_Var(ir.Var(p.type, p.loc, p.name), s) for p in ctl.params]
        for p, pn in zip(ctl.params, pnames):
            if isinstance(p.type, ir.StructT) and p.type.name == "standard_metadata_t":
                s.sm = pn
        actions = dict(self.p.actions)
        actions.update(ctl.actions)
        scratch = scratch_locals(ctl, actions)
        s.locals_attr = {st.name for st in ctl.locals
                         if isinstance(st, ir.VarDecl) and st.name not in scratch}
        s.ctl_params = ", ".join(pnames + ["L"])
        for name in actions:
            self.action_fns[(ctl.name, name)] = self.pyname("a", f"{ctl.name}.{name}")
        for name, act in actions.items():
            self.gen_action(ctl, act, s)
        for name, t in ctl.tables.items():
            self.setup_table(t, actions)
            self.table_fns[name] = self.bind_table_actions(ctl, t, actions, s)
            fn = self.table_fn(name)
            self.emit(0, f"def {fn}({s.ctl_params}):")
            self.table_apply_inline(name, "_r", s, 1)
            self.emit(1, "return _r")
        self.emit(0, f"def {role}({', '.join(pnames)}):")
        if s.locals_attr:
            self.emit(1, "L = _Locals()")
        else:
            self.emit(1, "L = None")
        if self.trace:
            self.emit(1, f"_log.debug('Pipeline %s: start', {ctl.name!r})")
        self.clear_per_packet(ctl, 1)
        self.emit(1, "try:")
        for st in ctl.locals:
            if not (isinstance(st, ir.VarDecl) and st.name in scratch):
                self.stmt(st, s, 2)
        self.block(ctl.body.stmts, s, 2)
        self.emit(1, "except _Exit:")
        self.emit(2, "pass")

    def bind_table_actions(self, ctl, t: ir.Table, actions: dict, s: Scope) -> dict:
        """Action name -> function a table calls with its action data. An action whose
        directional parameters are bound in the table (``a(hdr.x)``) gets a wrapper that
        passes those arguments."""
        out = {}
        refs = {r.action: r for r in [t.default_action] + list(t.actions)}
        for name, ref in refs.items():
            act = actions[name]
            directional = [p for p in act.params if p.direction]
            if not directional:
                out[name] = self.action_fns[(ctl.name, name)]
                continue
            data = [p for p in act.params if not p.direction]
            wrapper = self.pyname("b", f"{t.name}.{name}")
            names = [self.x_Var(ir.Var(p.type, p.loc, p.name), s) for p in data]
            self.emit(0, f"def {wrapper}({', '.join([s.ctl_params] + names)}):")
            self.cur_ind = 1
            args = list(ref.args[:len(directional)]) + [ir.Var(p.type, p.loc, p.name)
                                                        for p in data]
            self.call_action(ir.Call(ir.VoidT(), ref.loc, "action", name, args), s, 1)
            out[name] = wrapper
        return out

    def gen_action(self, ctl, act: ir.Action, cs: Scope) -> None:
        s = Scope(ctl)
        s.locals_attr = cs.locals_attr
        s.ctl_params = cs.ctl_params
        s.sm = cs.sm
        s.outs = self._scalar_outs(act.params)
        params = [self.x_Var(ir.Var(p.type, p.loc, p.name), s) for p in act.params]
        ctl_names = cs.ctl_params.split(", ")
        if set(params) & set(ctl_names):
            # a top-level action (PSA's send_to_port(meta, ...)) whose parameters share
            # the control's parameter names, which its body cannot see anyway
            renamed = [f"_c{i}" for i in range(len(ctl_names))]
            s.ctl_params = ", ".join(renamed)
            s.sm = renamed[ctl_names.index(cs.sm)] if cs.sm in ctl_names else None
        fn = self.action_fns[(ctl.name, act.name)]
        self.emit(0, f"def {fn}({', '.join([s.ctl_params] + params)}):")
        if self.trace:
            self.emit(1, f"_log.debug('Action %s', {act.name!r})")
        self.hoist(act.body, s, set(s.locals_attr) | {p.name for p in act.params
                                                       if not _is_composite(p.type)})
        self.block_checked_once(act.body.stmts, s)
        if s.outs:
            self.s_Return(ir.Return(act.loc), s, 1)

    def hoist(self, body: ir.Block, s: Scope, excluded: set) -> None:
        """Read the member chains :func:`hoist.hoistable` allows once, into locals."""
        for e in hoistable(body, excluded):
            code = self.expr(e, s)
            local = s.fresh("_k")
            self.emit(1, f"{local} = {code}")
            s.hoisted[code] = local

    def block_checked_once(self, stmts, s: Scope) -> None:
        """A function body; when it indexes registers several times with the same
        read-once index, it is generated twice: one copy for indices in range, checked
        once on entry, with no per-access checks, and the general one otherwise."""
        start, fresh = len(self.lines), s.tmp
        self.block(stmts, s, 1)
        checks = sorted(set(s.range_checks))
        if len(s.range_checks) <= len(checks):
            return
        del self.lines[start:]
        s.tmp = fresh
        s.in_range = set(checks)
        self.emit(1, f"if {' and '.join(f'{i} < {n}' for i, n in checks)}:")
        self.block(stmts, s, 2)
        s.in_range = set()
        self.emit(1, "else:")
        self.block(stmts, s, 2)

    def gen_function(self, fn: ir.Function) -> None:
        s = Scope(None)
        s.outs = self._scalar_outs(fn.params)
        params = [self.x_Var(ir.Var(p.type, p.loc, p.name), s) for p in fn.params]
        self.emit(0, f"def {self.pyname('F', fn.name)}({', '.join(params)}):")
        self.block(fn.body.stmts, s, 1)
        if s.outs:
            self.s_Return(ir.Return(fn.loc), s, 1)

    def setup_table(self, t: ir.Table, actions: dict) -> None:
        state = table_state(t, actions, self.clock)
        self.out.tables[t.name] = state
        self.globals[self.pyname("T", t.name)] = state
        if t.counters:
            self.out.direct_counters[t.counters] = t.name
        if t.meters:
            self.out.direct_meters[t.meters] = t.name

    def setup_instances(self) -> None:
        for blk in list(self.p.controls.values()) + list(self.p.parsers.values()):
            for inst in blk.instances:
                g = self.pyname("X", inst.name)
                self.globals[g] = self.instance(inst)

    def instance(self, inst: ir.Instance):
        """The run-time object of an extern instance: v1model's registers, counters and
        meters, the instance itself for the others."""
        args = [a.value for a in inst.args if isinstance(a, ir.Const)]
        if inst.extern == "register":
            t = inst.type_args[0] if inst.type_args else ir.BitT(32)
            obj = externs.Register(inst.name, args[0] if args else 1, ir.fixed_width(t),
                                   isinstance(t, ir.IntT))
            self.out.registers[inst.name] = obj
        elif inst.extern == "counter":
            obj = externs.Counter(inst.name, args[0], self._meter_kind(inst.args))
            self.out.counters[inst.name] = obj
        elif inst.extern == "meter":
            obj = externs.Meter(inst.name, args[0], self._meter_kind(inst.args), self.clock)
            self.out.meters[inst.name] = obj
        else:
            obj = inst
        return obj

    def clear_per_packet(self, blk, ind: int) -> None:
        """Extern state a block starts each packet with cleared: none in v1model."""

    def field_lists(self) -> None:
        """``@field_list(i)`` annotations on user metadata fields, per index."""
        ingress = self.p.controls[self.p.blocks["ingress"]]
        meta_t = ingress.params[1].type
        lists = {}

        def walk(t, path):
            for f in t.fields:
                a = ir.annotation(f.annotations, "field_list")
                if a is not None:
                    for idx in a.body:
                        lists.setdefault(int(idx), []).append(path + [fname(f.name)])
                if isinstance(f.type, ir.StructT):
                    walk(f.type, path + [fname(f.name)])

        if isinstance(meta_t, ir.StructT):
            walk(meta_t, [])
        self.out.field_lists = lists

    def gen_unicast(self, hdr_t, meta_t, sm_t) -> None:
        """``unicast(frame, port, now)``: the whole pipeline for a packet that neither
        clones, resubmits, recirculates, multicasts, digests nor drops -- the common case,
        in one function. It returns [(port, frame)], or (0, hdr, meta, sm, state) when
        the traffic manager must take over after ingress, (1, ...) after egress."""
        lines = [
            "def unicast(_frame, _port, _now):",
            "    global _P",
            f"    hdr = {self.cls(hdr_t)}()",
            f"    meta = {self.cls(meta_t)}()",
            f"    sm = {self.cls(sm_t)}()",
            "    sm.ingress_port = _port",
            "    sm.packet_length = _n = len(_frame)",
            "    sm.ingress_global_timestamp = _now",
            "    _off, sm.parser_error = parse(_frame, hdr, meta, sm)",
            "    _P = _st = _PacketState(_n, _frame[_off >> 3:])",
            "    verify_checksum(hdr, meta)",
            "    sm.checksum_error = _st.checksum_error",
            "    ingress(hdr, meta, sm)",
            "    _port = sm.egress_spec",
            "    if (_st.digests or _st.clone_type or _st.resubmit_fl is not None",
            "            or sm.mcast_grp or _port == 511",
            f"            or sm.priority >= {self.priority_queues}):",
            "        return 0, hdr, meta, sm, _st",
            "    sm.egress_port = _port",
            "    sm.egress_spec = 0",
        ]
        if self.trace:
            lines.append("    _log.debug('Egress port is %d', _port)")
        lines += [
            "    sm.enq_timestamp = _now & 0xFFFFFFFF",
            "    sm.egress_global_timestamp = _now",
            "    egress(hdr, meta, sm)",
            "    if _st.clone_type or _st.recirc_fl is not None or sm.egress_spec == 511:",
            "        return 1, hdr, meta, sm, _st",
            "    compute_checksum(hdr, meta)",
            "    _data = deparse(hdr, _st.payload)",
            "    if _st.trunc:",
            "        _data = _data[:_st.trunc]",
        ]
        if self.trace:
            lines.append("    _log.debug('Transmitting packet of size %d out of port %d', "
                         "len(_data), _port)")
        lines.append("    return [(_port, _data)]" if self.priority_queues == 1 else
                     "    return [(_port, _data, sm.priority)]")
        self.lines += lines

    def generate(self) -> str:
        """The Python source of the program."""
        p = self.p
        self.setup_instances()
        for fn in p.functions.values():
            self.gen_function(fn)
        blocks = p.blocks
        for role in ("verify_checksum", "ingress", "egress", "compute_checksum"):
            self.gen_control(p.controls[blocks[role]], role)
        self.gen_parser(p.parsers[blocks["parser"]])
        self.gen_deparser(p.controls[blocks["deparser"]])
        ingress = p.controls[blocks["ingress"]]
        hdr_t, meta_t, sm_t = (prm.type for prm in ingress.params)
        for fn, t in (("new_headers", hdr_t), ("new_meta", meta_t), ("new_sm", sm_t)):
            self.emit(0, f"{fn} = {self.cls(t)}")
        self.gen_unicast(hdr_t, meta_t, sm_t)
        self.field_lists()
        return "\n\n".join(self.class_src) + "\n\n" + "\n".join(self.lines) + "\n"

    def load(self, src: str) -> Compiled:
        """Exec the generated source with the run-time objects as its globals."""
        p = self.p
        ns = self.runtime_namespace()
        ns.update(self.globals)
        ns["VS"] = self.out.value_sets
        ns["_log"] = logging.getLogger("testbed.p4.target")
        for name, c in p.constants.items():
            if isinstance(c, ir.Const):
                ns[f"v_{_ident(name)}"] = c.value
        exec(compile(src, f"<p4 {p.source}>", "exec"), ns)
        for name, fns in self.table_fns.items():
            self.out.tables[name].bind({a: ns[pyn] for a, pyn in fns.items()})
        self.out.ns = ns
        self.out.source = src
        self.out.errors = list(self.errors)
        return self.out

    def runtime_namespace(self) -> dict:
        """Globals of the generated module besides the program's own objects."""
        return _runtime_namespace(self.clock)


def _runtime_namespace(clock) -> dict:
    return {
        "_Stack": runtime.Stack, "_PErr": runtime.ParserError, "_Exit": runtime.ExitControl,
        "_AssertFailed": runtime.AssertFailed, "_bits": runtime.bits_at,
        "_union_set_valid": runtime.union_set_valid, "_Locals": runtime.Locals,
        "_mk": runtime.make, "_eq": runtime.equal, "_div": runtime.div, "_mod": runtime.mod,
        "_stack_at": runtime.stack_at, "_stack_last": runtime.stack_last,
        "_stack_next": runtime.stack_next, "_lookahead": runtime.lookahead,
        "_unpack": runtime.unpack, "_vs_match": runtime.value_set_match,
        "_hash": externs.hash_value, "_random": externs.random_between,
        "_ALG": externs.ALGORITHMS, "_to_bytes": externs.to_bytes,
        "_format_log": externs.format_log, "_clock": clock, "_P": None,
        "_PacketState": runtime.PacketState,
    }


def compile_program(program: ir.Program, trace: bool = False, clock=time.monotonic,
                    priority_queues: int = 1, compiler_class=Compiler) -> Compiled:
    """A packet whose standard_metadata.priority has no queue (as many as
    ``priority_queues``) is dropped, as BMv2 does; with several queues each packet leaving
    carries its priority: (port, frame, priority). ``compiler_class``: the architecture's
    compiler (v1model's, or one that extends it)."""
    compiler = compiler_class(program, trace, clock, priority_queues)
    return compiler.load(compiler.generate())
