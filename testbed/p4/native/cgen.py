"""Generate C for the v1model pipeline of an IR program: the native backend's one walk.

The output is one translation unit: ``packet_io.c`` (batched transmit), ``runtime.c``
(bit access, algorithms, tables, replication state), the program's types, a ``sw_t``
holding every table and extern of one switch, one function per action, table, control,
the parser and the deparser, then ``pipeline.c`` (the traffic manager, as
testbed/p4/python/target.py runs it) and the control-plane entry points the Python side calls.
Every generated function takes the packet ``pkt_t *P`` (headers, metadata,
standard_metadata, the control-level locals and the per-packet v1model state) whose
``S`` is the switch.

What the generator cannot translate raises :class:`NativeUnsupported` naming the
construct at its P4 source location; no partial program is ever run.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from testbed.errors import P4Error
from testbed.p4 import ir

from testbed.p4.native.cgen_expr import (MAX_KEYS, CExprGen, CScope, is_composite,
                                         varbit_bytes)
from testbed.p4.native.cgen_loops import Roller, field_runs
from testbed.p4.native.cgen_packet import ALGORITHMS, CPacketGen
from testbed.p4.native.cgen_replicas import replica_fields
from testbed.p4.python.hoist import hoistable
from testbed.p4.python.scratch_locals import mentions, scratch_locals
from testbed.p4.python.table_setup import profile_state
from testbed.p4.native.cgen_stmt import CStmtGen
from testbed.p4.walk import CodeWalk

HERE = Path(__file__).parent
MAX_ACTION_DATA = 16     # runtime.c's MAXA
DIRECT_EXTERNS = ("register", "counter", "direct_counter", "meter", "direct_meter",
                  "action_profile", "action_selector")   # the last two: per-entry choices


class NativeUnsupported(P4Error):
    """A construct of the program the C generator does not translate."""

    def __init__(self, construct: str, loc):
        super().__init__(f"{construct} is not supported by the native backend; run the "
                         "program with the python backend", loc)
        self.construct = construct


@dataclass
class TableInfo:
    index: int
    actions: list                      # action names; an entry's action is its position
    params: dict                       # action name -> [data parameter names]
    widths: list                       # widths of the C key words, a wide key in two
    parts: list = field(default_factory=list)  # per P4 key: its words (1, or 2 over 64 bits)
    scan_lpm: bool = False             # a wide lpm key: entries scanned, longest prefix first
    data_words: dict = field(default_factory=dict)  # action -> words per data parameter


@dataclass
class CProgram:
    """The generated source and what the Python side needs to drive it."""
    source: str
    tables: dict = field(default_factory=dict)      # fq name -> TableInfo
    registers: dict = field(default_factory=dict)   # fq name -> index
    # index -> (group, column, stride, C type): registers of one size and cell type
    # share an array, row-major
    register_cells: dict = field(default_factory=dict)
    counters: dict = field(default_factory=dict)    # fq name -> index
    meters: dict = field(default_factory=dict)      # fq name -> index
    value_sets: dict = field(default_factory=dict)  # fq name -> index
    direct_meters: dict = field(default_factory=dict)  # fq name -> index of its colour
    asserts: list = field(default_factory=list)     # messages of assert/assume, 1-based
    log_formats: list = field(default_factory=list)  # log_msg's formats, by id
    event_words: dict = field(default_factory=dict)  # (kind, id) -> words per value
    locs: list = field(default_factory=list)        # (C line, P4 Loc), ascending
    # the header fields a multicast replica is patched in over its group's first
    # replica (cgen_replicas), or None: every replica deparsed
    replica_fields: set | None = None

    def locate(self, line: int):
        """The P4 location of the statement that generated C line ``line``, if any."""
        found = None
        for c_line, loc in self.locs:
            if c_line > line:
                break
            found = loc
        return found


class CGen(CExprGen, CStmtGen, CPacketGen, CodeWalk):
    def __init__(self, program: ir.Program, errors: list):
        self.p = program
        self.errors = {n: i for i, n in enumerate(errors)}
        self.lines = []
        self.types = []                 # C typedefs, dependencies first
        self.type_names = {}
        self.out = CProgram("")
        self.action_fns = {}            # (control, action) -> C name
        self.locals_fields = []         # sw/pkt fields of control-level locals
        self.sw_fields = []
        self.in_parser = self.in_deparser = False
        self.phase = self.out_phase = None   # the parser's / deparser's offset in its byte
        self.patch = None               # the fields deparse_patch stores (cgen_replicas)
        self.field_arrays = {}          # C field name -> {(array, position) or None}
        self.hdr_bits = 0
        self.locs = []                  # (line of the body, P4 location of its statement)

    # ------------------------------------------------------------ helpers
    def emit(self, ind: int, line: str) -> None:
        self.lines.append("    " * ind + line)

    def unsupported(self, construct: str, loc) -> None:
        raise NativeUnsupported(construct, loc)

    def err(self, name: str) -> int:
        if name not in self.errors:
            self.errors[name] = len(self.errors)
        return self.errors[name]

    def ctype(self, t, loc) -> str:
        if isinstance(t, (ir.HeaderT, ir.StructT, ir.UnionT)):
            return self.type_name(t, loc)
        if isinstance(t, ir.StackT) and isinstance(t.elem, (ir.HeaderT, ir.UnionT)):
            return self.stack_name(t, loc)
        if isinstance(t, ir.TupleT):
            return self.tuple_name(t, loc)
        if isinstance(t, ir.VarbitT):
            self.unsupported("a varbit value outside a header", loc)
        if isinstance(t, ir.StackT):
            self.unsupported("a stack type", loc)
        return "u128" if self.width(t, loc) > 64 else "uint64_t"

    def varbit_name(self, t: ir.VarbitT) -> str:
        """A varbit field's value: right-aligned in whole bytes, the high bits zero."""
        key = ("varbit", t.max_width)
        if key not in self.type_names:
            name = self.type_names[key] = f"VB_{t.max_width}"
            self.types.append(f"typedef struct {{ uint8_t b[{varbit_bytes(t)}]; }} {name};")
        return self.type_names[key]

    def stack_name(self, t: ir.StackT, loc) -> str:
        """A header (or header union) stack: its elements ``h`` and ``next``, P4's
        nextIndex."""
        key = ("stack", t.elem.name, t.size)
        if key not in self.type_names:
            elem = self.type_name(t.elem, loc)
            name = f"K_{len(self.type_names)}_{ident(t.elem.name)}_{t.size}"
            self.type_names[key] = name
            self.types.append(f"typedef struct {{ {elem} h[{t.size}]; uint32_t next; }} "
                              f"{name};")
        return self.type_names[key]

    def tuple_name(self, t: ir.TupleT, loc) -> str:
        if t not in self.type_names:
            fields = " ".join(f"{self.ctype(et, loc)} e{i};" for i, et in enumerate(t.elems))
            name = self.type_names[t] = f"U_{len(self.type_names)}"
            self.types.append(f"typedef struct {{ {fields or 'uint8_t _empty;'} }} {name};")
        return self.type_names[t]

    def type_name(self, t, loc) -> str:
        if t.name in self.type_names:
            return self.type_names[t.name]
        fields, scalars = [], []          # scalars: (C type or None, C name)
        for f in t.fields:
            if isinstance(f.type, ir.VarbitT):
                # the value, and the width the header's extract gave it
                fields.append(f"{self.varbit_name(f.type)} f_{f.name}; uint32_t w_{f.name};")
                scalars.append((None, f"f_{f.name}"))
            elif isinstance(f.type, (ir.HeaderT, ir.StructT, ir.StackT, ir.UnionT)):
                fields.append(f"{self.ctype(f.type, loc)} f_{f.name};")
                scalars.append((None, f"f_{f.name}"))
            else:
                ctype = storage(self.ctype(f.type, loc), f.type)
                fields.append(f"{ctype} f_{f.name};")
                scalars.append((ctype, f"f_{f.name}"))
        # a run of fields of one C type is also an array (a_<first field>), which the
        # loops cgen_loops rolls index
        places = {c: None for _, c in scalars}
        checks = []
        for first, count in reversed(field_runs(scalars)):
            ctype, c_first = scalars[first]
            array = f"a_{c_first[2:]}"
            for pos in range(count):
                places[scalars[first + pos][1]] = (array, pos)
            fields[first:first + count] = [
                f"union {{ struct {{ {' '.join(fields[first:first + count])} }}; "
                f"{ctype} {array}[{count}]; }};"]
            checks.append((scalars[first + count - 1][1], c_first, count - 1, ctype))
        for c_name, place in places.items():
            self.field_arrays.setdefault(c_name, set()).add(place)
        name = f"T_{len(self.type_names)}_{ident(t.name)}"
        self.type_names[t.name] = name
        head = ["uint8_t _v;"] if isinstance(t, ir.HeaderT) else []
        body = " ".join(head + fields) or "uint8_t _empty;"
        self.types.append(f"typedef struct {{ {body} }} {name};")
        for last, first, n, ctype in checks:       # no padding inside a run: its array
            self.types.append(f"_Static_assert(offsetof({name}, {last}) == offsetof("
                              f"{name}, {first}) + {n} * sizeof({ctype}), \"{name}\");")
        return name

    @staticmethod
    def meter_kind(inst) -> str:
        """packets or bytes, from the MeterType argument (the reference's reading)."""
        return next((a.member for a in inst.args if isinstance(a, ir.EnumConst)), "packets")

    def bind_params(self, params, s: CScope) -> None:
        """Block parameters: the headers, metadata and standard_metadata of the packet."""
        for p in params:
            role = self.roles.get(getattr(p.type, "name", None))
            if role is None:
                self.unsupported(f"block parameter {p.name} of type "
                                 f"{type(p.type).__name__}", p.loc)
            s.vars[p.name] = f"P->{role}"

    # ------------------------------------------------------------ externs
    def setup_instances(self) -> None:
        sizes = {}                # (register size, cell type) -> its registers' indices
        for blk in list(self.p.controls.values()) + list(self.p.parsers.values()):
            for inst in blk.instances:
                if inst.extern not in DIRECT_EXTERNS:
                    self.unsupported(f"extern {inst.extern} ({inst.name})", inst.loc)
                size = next((a.value for a in inst.args if isinstance(a, ir.Const)), 1)
                if inst.extern == "register":
                    t = inst.type_args[0] if inst.type_args else ir.BitT(32)
                    self.narrow(t, inst.loc, f"register {inst.name}'s value")
                    k = self.out.registers[inst.name] = len(self.out.registers)
                    sizes.setdefault((size, cell_type(t)), []).append(k)
                elif inst.extern == "counter":
                    k = self.out.counters[inst.name] = len(self.out.counters)
                    self.sw_fields.append(f"uint64_t CP{k}[{size}]; uint64_t CB{k}[{size}];")
                elif inst.extern == "meter":
                    k = self.out.meters[inst.name] = len(self.out.meters)
                    self.sw_fields.append(f"meter_t M{k}[{size}];")
                elif inst.extern == "direct_meter":
                    self.out.direct_meters[inst.name] = len(self.out.direct_meters)
        # Registers of one size and cell type are the columns of one array, a row per
        # index: a packet that touches many registers at one index (INA's lanes, a
        # register per lane) reads one contiguous row, not a cell in each of hundreds of
        # arrays. An index out of range reads the zero row and writes the group's sink
        # row (RS), so an access needs no test of its own (see register_row).
        self.zero_row_bytes = 8
        for g, ((size, ctype), members) in enumerate(sizes.items()):
            self.sw_fields.append(f"{ctype} RG{g}[{size * len(members)}]; "
                                  f"{ctype} RS{g}[{len(members)}];")
            self.zero_row_bytes = max(self.zero_row_bytes,
                                      len(members) * int(ctype[4:-2]) // 8)
            for column, k in enumerate(members):
                self.out.register_cells[k] = (g, column, len(members), ctype)
        self.instances = {inst.name: inst for blk in self.p.controls.values()
                          for inst in blk.instances}

    # ------------------------------------------------------------ controls
    def gen_control(self, ctl: ir.Control, role: str) -> None:
        s = CScope(ctl, leave="goto _end")
        self.bind_params(ctl.params, s)
        for st in ctl.locals:
            if isinstance(st, ir.VarDecl):
                name = f"L_{role}_{ident(st.name)}"
                self.locals_fields.append(f"{self.ctype(st.type, st.loc)} {name};")
                s.vars[st.name] = f"P->{name}"
        actions = dict(self.p.actions)
        actions.update(ctl.actions)
        for name in actions:
            self.action_fns[(ctl.name, name)] = f"a{len(self.action_fns)}_{ident(name)}"
        scratch = scratch_locals(ctl, actions)
        for act in actions.values():
            self.gen_action(ctl, act, s, scratch)
        for t in ctl.tables.values():
            self.gen_table(ctl, t, actions, s)
        self.emit(0, f"static void ctl_{role}(pkt_t *P) {{")
        for st in ctl.locals:
            if isinstance(st, ir.VarDecl):
                self.init_var(s.vars[st.name], st, s, 1)
            else:
                self.stmt(st, s, 1)
        for st in ctl.body.stmts:
            self.stmt(st, s, 1)
        self.emit(0, "_end: return;")
        self.emit(0, "}")

    def gen_action(self, ctl, act: ir.Action, cs: CScope, scratch: set) -> None:
        """An action's function. As the reference backend does (the analyses are its):
        the control's variables that carry nothing between invocations are C locals of
        the action (``scratch``), and the fields it reads several times and cannot
        write are read once, at the top; the registers it indexes with such a value get
        their row once (register_row), so a run of accesses to one row costs a load or
        store each."""
        s = CScope(ctl, leave="return")
        s.vars = dict(cs.vars)
        params = ["pkt_t *P"] + [self.param(p, s) for p in act.params]
        head = len(self.lines)
        self.emit(0, f"static void {self.action_fns[(ctl.name, act.name)]}"
                     f"({', '.join(params)}) {{")
        locals_ = {st.name: st for st in ctl.locals if isinstance(st, ir.VarDecl)}
        for name in sorted(scratch & locals_.keys()):
            if mentions(act.body, name):
                c = s.vars[name] = f"{s.fresh('s')}_{ident(name)}"
                t = locals_[name].type
                self.emit(1, f"{self.ctype(t, act.loc)} {c} = "
                             f"{'{0}' if is_composite(t) else '0'};")
        excluded = (locals_.keys() - scratch) | {p.name for p in act.params
                                                 if not is_composite(p.type)}
        for e in hoistable(act.body, excluded):
            if isinstance(e.type, (ir.BitT, ir.IntT, ir.BoolT)):
                code, local = self.expr(e, s), s.fresh("k")
                self.emit(1, f"{self.ctype(e.type, e.loc)} {local} = {code};")
                s.hoisted[code] = local
        self.register_rows(act.body, s)
        if self.rolled(act.body.stmts, s, 1):
            # its own function, optimised for speed: inlined where the compiler guesses
            # a path cold (an action deep in nested ifs), its loops are not vectorized
            self.lines[head] = f"__attribute__((noinline, hot)) {self.lines[head]}"
        self.emit(0, "}")

    def rolled(self, stmts: list, s, ind: int) -> int:
        """``stmts``, runs of same-shape groups of them as loops (cgen_loops); returns
        the number of loops."""
        chunks, marks = [], []           # per statement: its C lines, its (line, loc)s
        for st in stmts:
            start, locs = len(self.lines), len(self.locs)
            self.stmt(st, s, ind)
            chunks.append(self.lines[start:])
            marks.append([(line - start, loc) for line, loc in self.locs[locs:]])
            del self.lines[start:], self.locs[locs:]
        loops = 0
        for first, count, lines in Roller(self.arrays()).roll(chunks):
            base = len(self.lines)
            if count == 1:
                self.locs += [(base + line, loc) for line, loc in marks[first]]
                self.lines += lines
                continue
            self.locs += [(base, loc) for _, loc in marks[first][:1]]
            head, *body, tail = lines
            self.lines += ["    " * ind + head, *body, "    " * ind + tail]
            loops += 1
        return loops

    def arrays(self) -> dict:
        """C field name -> (array, position), for the fields in an array-backed run in
        every C struct that has one of that name."""
        return {name: next(iter(places)) for name, places in self.field_arrays.items()
                if len(places) == 1 and None not in places}

    def emit_rolled(self, ind: int, lines: list) -> None:
        """``lines`` (one statement each, not indented), runs of same-shape ones as
        loops (cgen_loops): a header's fields read or written one by one."""
        for _, _, out in Roller(self.arrays()).roll([[x] for x in lines]):
            for x in out:
                self.emit(ind, x)

    def ret_ctype(self, fn: ir.Function) -> str:
        if isinstance(fn.return_type, ir.VoidT):
            return "uint64_t"
        return self.ctype(fn.return_type, fn.loc)

    def param(self, p: ir.Param, s: CScope) -> str:
        """The C parameter of an action or function parameter; binds its name in ``s``."""
        c = f"v_{ident(p.name)}"
        if is_composite(p.type):
            s.vars[p.name] = f"(*{c})"
            return f"{self.ctype(p.type, p.loc)} *{c}"
        ct = self.ctype(p.type, p.loc)
        if p.direction in ("out", "inout"):
            s.vars[p.name] = f"(*{c})"
            return f"{ct} *{c}"
        s.vars[p.name] = c
        return f"{ct} {c}"

    def table_fn(self, name: str) -> str:
        return f"apply_{self.out.tables[name].index}"

    def key_words(self, t: ir.Table) -> list:
        """The C key words of each key of ``t``: one, or two (high, low) for a bit<W> key
        over 64 bits, which matches exactly, by a ternary mask or by prefix (then the
        table is scanned, longest prefix first, beside exact keys only)."""
        parts = []
        kinds = [k.match_kind for k in t.keys]
        for k in t.keys:
            w = self.width(k.expr.type, k.loc)
            if w <= 64:
                parts.append([w])
                continue
            if k.match_kind not in ("exact", "ternary", "lpm", "optional"):
                self.narrow(k.expr.type, k.loc, f"a {k.match_kind} table key")
            if k.match_kind == "lpm" and any(x not in ("exact", "lpm") for x in kinds):
                self.narrow(k.expr.type, k.loc, "an lpm table key beside ternary or range keys")
            parts.append([w - 64, 64])
        if sum(len(p) for p in parts) > MAX_KEYS:
            self.unsupported(f"table {t.name} with more than {MAX_KEYS} key words (a key over "
                             "64 bits takes two)", t.loc)
        return parts

    def gen_table(self, ctl, t: ir.Table, actions: dict, cs: CScope) -> None:
        names = [r.action for r in t.actions]
        if t.default_action.action not in names:
            names.append(t.default_action.action)
        refs = {r.action: r for r in [t.default_action] + list(t.actions)}
        params, data_words = {}, {}
        for name in names:
            data = [p for p in actions[name].params if not p.direction]
            # a parameter over 64 bits takes two words of the entry's action data
            words = [2 if self.width(p.type, p.loc) > 64 else 1 for p in data]
            if sum(words) > MAX_ACTION_DATA:
                self.unsupported(f"action {name} with more than {MAX_ACTION_DATA} "
                                 "words of parameters (one over 64 bits takes two)",
                                 actions[name].loc)
            params[name] = [p.name for p in data]
            data_words[name] = words
        parts = self.key_words(t)
        widths = [w for p in parts for w in p]
        scan_lpm = any(len(p) > 1 and k.match_kind == "lpm" for p, k in zip(parts, t.keys))
        info = TableInfo(len(self.out.tables), names, params, widths, [len(p) for p in parts],
                         scan_lpm, data_words)
        self.out.tables[t.name] = info
        k = info.index
        s = CScope(ctl, leave="break")
        s.vars = dict(cs.vars)
        self.emit(0, f"static tres_t apply_{k}(pkt_t *P) {{")
        if t.keys:
            words = []
            for i, (key, n) in enumerate(zip(t.keys, info.parts)):
                if n == 1:
                    words.append(self.expr(key.expr, s))
                    continue
                self.emit(1, f"u128 _wk{i} = {self.expr(key.expr, s)};")
                words += [f"(uint64_t)(_wk{i} >> 64)", f"(uint64_t)_wk{i}"]
            self.emit(1, f"uint64_t _k[{MAX_KEYS}] = {{{', '.join(words)}}};")
            self.emit(1, f"entry_t *_e = tbl_lookup(&P->S->tables[{k}], _k);")
        else:
            self.emit(1, "entry_t *_e = NULL;")
        self.emit(1, f"const entry_t *_r = _e ? _e : &P->S->tables[{k}].deflt;")
        self.emit(1, "uint32_t _act = _r->action;")
        self.emit(1, "const uint64_t *_args = _r->args;")
        if t.implementation is not None and t.keys:
            self.gen_selection(t, k)
        if t.counters:
            self.emit(1, "if (_e) { _e->packets++; _e->bytes += P->plen; }")
        if t.meters:
            inst = self.instances[t.meters]
            amount = "P->plen" if self.meter_kind(inst) == "bytes" else "1"
            self.emit(1, f"if (_e) P->colors[{self.out.direct_meters[t.meters]}] = "
                         f"meter_execute(&_e->meter, {amount}, P->S->base.secs);")
        self.emit(1, "switch (_act) {")
        for i, name in enumerate(names):
            act, ref = actions[name], refs[name]
            bound = [p for p in act.params if p.direction]
            args = list(ref.args[:len(bound)])
            data = iter(range(len(params[name])))
            call_args = args + [ir.Var(p.type, p.loc, f"\0data{next(data)}")
                                for p in act.params if not p.direction]
            w = 0
            for j, n in enumerate(info.data_words[name]):
                s.vars[f"\0data{j}"] = (f"_args[{w}]" if n == 1 else
                                        f"(((u128)_args[{w}] << 64) | _args[{w + 1}])")
                w += n
            self.emit(1, f"case {i}:")
            self.call_action(ir.Call(ir.VoidT(), ref.loc, "action", name, call_args), s, 2,
                             ctl)
            self.emit(2, "break;")
        self.emit(1, "}")
        self.emit(1, "return (tres_t){_e != NULL, _act};")
        self.emit(0, "}")

    def gen_selection(self, t: ir.Table, k: int) -> None:
        """An indirect table's entry runs a choice of its own (sw_tbl_choices): its member,
        or the member the selector's hash over the selector keys picks, as the Python
        target's ProfileState.resolve does; an empty group runs the default action as a
        miss."""
        inst = self.instances[t.implementation]
        state = profile_state(inst)
        if state.algorithm is not None and state.algorithm not in ALGORITHMS:
            self.unsupported(f"action selector {inst.name}'s {state.algorithm} hash", inst.loc)
        if state.algorithm == "identity" and not 0 < state.output_mask < 1 << 64:
            self.unsupported(f"action selector {inst.name}: an identity hash wider than 64 "
                             "bits", inst.loc)
        if t.counters or t.meters:
            self.unsupported(f"table {t.name}: direct counters or meters on an indirect "
                             "table", t.loc)
        parts = self.out.tables[t.name].parts
        selected = [(sum(parts[:i]), self.width(key.expr.type, key.loc))   # its key word
                    for i, key in enumerate(t.keys) if key.match_kind == "selector"]
        pos = ", ".join(str(i) for i, _ in selected) or "0"
        widths = ", ".join(str(w) for _, w in selected) or "0"
        alg = ALGORITHMS.get(state.algorithm, "ALG_IDENTITY")
        mask = state.output_mask & ((1 << 64) - 1)
        self.emit(1, "if (_e && _e->indirect) {")
        self.emit(2, f"static const uint8_t _sp[] = {{{pos}}}, _sw[] = {{{widths}}};")
        self.emit(2, f"const choice_t *_c = pick_choice(_e, _k, _sp, _sw, {len(selected)}, "
                     f"{alg}, {mask}ull);")
        self.emit(2, "if (_c) { _act = _c->action; _args = _c->args; }")
        self.emit(2, f"else {{ _e = NULL; _r = &P->S->tables[{k}].deflt; _act = _r->action; "
                     "_args = _r->args; }")
        self.emit(1, "}")

    # ------------------------------------------------------------ program
    def generate(self) -> CProgram:
        p = self.p
        if p.arch != "v1model":
            self.unsupported(f"architecture {p.arch}", None)
        ingress = p.controls[p.blocks["ingress"]]
        hdr_t, meta_t, sm_t = (prm.type for prm in ingress.params)
        self.roles = {hdr_t.name: "hdr", meta_t.name: "meta", sm_t.name: "sm"}
        types = [self.type_name(t, ingress.loc) for t in (hdr_t, meta_t, sm_t)]
        self.setup_instances()
        for fn in p.functions.values():
            self.gen_function(fn)
        for role in ("verify_checksum", "ingress", "egress", "compute_checksum"):
            self.gen_control(p.controls[p.blocks[role]], role)
        self.gen_parser(p.parsers[p.blocks["parser"]])
        self.gen_deparser(p.controls[p.blocks["deparser"]])
        self.out.replica_fields = replica_fields(p)
        if self.out.replica_fields is not None:
            self.gen_deparser(p.controls[p.blocks["deparser"]], self.out.replica_fields)
            self.gen_replica_fields(sorted(self.out.replica_fields))
        self.gen_field_lists(meta_t)
        body, self.lines = self.lines, []
        support = [(HERE / name).read_text() for name in ("packet_io.c", "runtime.c")]
        head = support + self.types + [
            f"typedef {types[0]} hdr_t;", f"typedef {types[1]} meta_t;",
            f"typedef {types[2]} sm_t;",
            f"#define NTABLES {max(len(self.out.tables), 1)}",
            f"#define HDR_BYTES {(self.hdr_bits + 7) // 8 + 8}",
            f"#define PATCH_REPLICAS {int(self.out.replica_fields is not None)}",
            f"static const uint64_t reg_zeros[{(self.zero_row_bytes + 7) // 8}];",
            "typedef struct sw {", "    base_t base;", "    table_t tables[NTABLES];",
            *("    " + f for f in self.sw_fields), "} sw_t;",
            "typedef struct { int hit; int action; } tres_t;",
            "typedef struct pkt {", "    sw_t *S;", "    hdr_t hdr;", "    meta_t meta;",
            "    sm_t sm;", *("    " + f for f in self.locals_fields),
            f"    uint64_t colors[{max(len(self.out.direct_meters), 1)}];",
            "    uint32_t plen, off, payload_len, failed;",
            "    int stop, clone_type, clone_fl, resubmit_fl, recirc_fl;",
            "    uint64_t clone_session, trunc, checksum_error;",
            "    const uint8_t *payload;", "} pkt_t;",
            *(f"static tres_t apply_{i}(pkt_t *P);" for i in range(len(self.out.tables))),
        ]
        self.gen_api()
        first = "\n".join(head).count("\n") + 2          # C line of the body's first line
        self.out.locs = [(first + i, loc) for i, loc in self.locs]
        pipeline = (HERE / "pipeline.c").read_text()
        self.out.source = "\n".join(head + body + self.lines + [pipeline]) + "\n"
        return self.out

    def gen_replica_fields(self, paths: list) -> None:
        """``replica_keep`` / ``replica_restore``: the header fields a replica's egress
        may write, saved before the first replica and put back before each next one, so
        replicas run one after another on one packet whose headers are the ingress's
        again each time (everything else in them no egress can change)."""
        members = [".".join(f"f_{n}" for n in path) for path in paths]
        self.emit(0, "typedef struct { " + (" ".join(
            f"__typeof__(((hdr_t *)0)->{m}) k{i};" for i, m in enumerate(members))
            or "uint8_t _empty;") + " } replica_kept_t;")
        self.emit(0, "static void replica_keep(const hdr_t *h, replica_kept_t *k) {")
        for i, m in enumerate(members):
            self.emit(1, f"k->k{i} = h->{m};")
        self.emit(0, "}")
        self.emit(0, "static void replica_restore(hdr_t *h, const replica_kept_t *k) {")
        for i, m in enumerate(members):
            self.emit(1, f"h->{m} = k->k{i};")
        self.emit(0, "}")

    def gen_field_lists(self, meta_t) -> None:
        """``restore_fields(fl, dst, src)``: the ``@field_list(fl)`` fields of the user
        metadata, copied from ``src`` to ``dst``."""
        lists = {}

        def walk(t, path):
            for f in t.fields:
                a = ir.annotation(f.annotations, "field_list")
                for idx in (a.body if a is not None else ()):
                    lists.setdefault(int(idx), []).append(path + [f.name])
                if isinstance(f.type, ir.StructT):
                    walk(f.type, path + [f.name])

        if isinstance(meta_t, ir.StructT):
            walk(meta_t, [])
        self.emit(0, "static void restore_fields(int fl, meta_t *dst, const meta_t *src) {")
        self.emit(1, "switch (fl) {")
        for idx, paths in sorted(lists.items()):
            self.emit(1, f"case {idx}:")
            for path in paths:
                member = ".".join(f"f_{n}" for n in path)
                self.emit(2, f"dst->{member} = src->{member};")
            self.emit(2, "break;")
        self.emit(1, "default: break;")
        self.emit(1, "}")
        self.emit(0, "}")

    def gen_api(self) -> None:
        """Entry points that reach the program's own externs by index."""
        self.emit(0, "void *sw_reg(sw_t *S, int id, int which) {")
        self.emit(1, "switch (id) {")
        for k, (g, column, _, _) in self.out.register_cells.items():
            self.emit(1, f"case {k}: return &S->RG{g}[{column}];")
        self.emit(1, "default: return NULL;")
        self.emit(1, "}")
        self.emit(0, "}")
        for kind, names, fields in (("cnt", self.out.counters, ("CP", "CB")),):
            self.emit(0, f"uint64_t *sw_{kind}(sw_t *S, int id, int which) {{")
            self.emit(1, "switch (id) {")
            for name, k in names.items():
                cells = ", ".join(f"S->{f}{k}" for f in fields)
                self.emit(1, f"case {k}: {{ uint64_t *c[] = {{{cells}}}; return c[which]; }}")
            self.emit(1, "default: return NULL;")
            self.emit(1, "}")
            self.emit(0, "}")
        self.emit(0, "vset_t *sw_vset(sw_t *S, int id) {")
        self.emit(1, "switch (id) {")
        for k in self.out.value_sets.values():
            self.emit(1, f"case {k}: return &S->VS{k};")
        self.emit(1, "default: return NULL;")
        self.emit(1, "}")
        self.emit(0, "}")
        self.emit(0, "meter_t *sw_meter(sw_t *S, int id) {")
        self.emit(1, "switch (id) {")
        for name, k in self.out.meters.items():
            self.emit(1, f"case {k}: return S->M{k};")
        self.emit(1, "default: return NULL;")
        self.emit(1, "}")
        self.emit(0, "}")
        self.emit(0, "static void init_tables(sw_t *S) {")
        for name, info in self.out.tables.items():
            t = self.find_table(name)
            kinds = [k.match_kind for k, n in zip(t.keys, info.parts) for _ in range(n)]
            mode = ("MODE_NONE" if not kinds else "MODE_EXACT" if all(
                k == "exact" for k in kinds) else "MODE_SCAN" if info.scan_lpm
                else "MODE_LPM" if kinds.count("lpm") == 1 and all(
                k in ("exact", "lpm") for k in kinds) else "MODE_SCAN")
            lpm = kinds.index("lpm") if "lpm" in kinds else 0
            widths = ", ".join(map(str, info.widths)) or "0"
            self.emit(1, f"{{ static const uint8_t w[] = {{{widths}}}; "
                         f"tbl_init(&S->tables[{info.index}], {len(kinds)}, {mode}, {lpm}, "
                         f"{t.size}, w); }}")
        self.emit(0, "}")

    def find_table(self, name: str) -> ir.Table:
        for ctl in self.p.controls.values():
            if name in ctl.tables:
                return ctl.tables[name]
        raise KeyError(name)


def cell_type(t) -> str:
    """The C type of a register cell holding values of ``t`` (at most 64 bits): the
    narrowest unsigned integer of 8, 16, 32 or 64 bits."""
    w = ir.fixed_width(t) if isinstance(t, (ir.BitT, ir.IntT)) else 64
    return next(f"uint{n}_t" for n in (8, 16, 32, 64) if w <= n)


def storage(ctype: str, t) -> str:
    """The narrowest C integer type holding a field of type ``t``."""
    w = 1 if isinstance(t, ir.BoolT) else 32 if isinstance(t, (ir.ErrorT, ir.EnumT)) and \
        getattr(t, "underlying", None) is None else ir.fixed_width(t)
    return ("uint8_t" if w <= 8 else "uint16_t" if w <= 16 else "uint32_t" if w <= 32
            else ctype)


def ident(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name)


def generate(program: ir.Program, errors: list) -> CProgram:
    """The C source of ``program``; ``errors`` numbers the error members as the
    reference backend does."""
    return CGen(program, errors).generate()
