"""C code generation for the parser, the deparser and the v1model externs that read or
write packet bits: checksums, hash and field lists (mixed into :class:`cgen.CGen`).

The parser is one function with a label per state; ``_o`` is the bit offset in the frame
``_d`` of ``_n`` bits. A failing extract, select or verify jumps to ``_fail`` with the
error, as the reference backend's ``ParserError`` does.

Where the bit offset's position in its byte is known when the code is generated (the
parser's by :func:`parser_phases`; the deparser's while every header it emits is whole
bytes), a field is read or written at a constant offset from one byte pointer, whole
bytes by a big-endian load or store, others by a shift and a mask of the bytes they
span, instead of a bit loop.
"""
from __future__ import annotations

from testbed.p4 import ir
from testbed.p4.native.cgen_expr import (MAX_KEYS, CScope, get_code, get_known, mask,
                                         put_code, put_known, tuple_fields, varbit_bytes,
                                         wire_fields)
from testbed.p4.native.cgen_replicas import patched
from testbed.p4.native.cgen_stmt import walk_calls

ALGORITHMS = {"crc16": "ALG_CRC16", "crc32": "ALG_CRC32", "csum16": "ALG_CSUM16",
              "xor16": "ALG_XOR16", "identity": "ALG_IDENTITY"}
PARSER_STEPS = 1000


class CPacketGen:
    # ------------------------------------------------------------ parser
    def gen_parser(self, parser: ir.Parser) -> None:
        for vs in parser.value_sets:
            k = self.out.value_sets[vs.name] = len(self.out.value_sets)
            self.sw_fields.append(f"vset_t VS{k};")
        s = CScope(parser, leave="goto _end")
        self.bind_params(parser.params[1:], s)
        self.in_parser = True
        self.emit(0, "static uint32_t parse(pkt_t *P, const uint8_t *_d, uint32_t _n) {")
        self.emit(1, "uint32_t _o = 0, _err = 0, _steps = 0;")
        self.emit(1, "(void)_steps;")
        for st in parser.locals:
            self.stmt(st, s, 1)
        refs = {}
        for state in parser.states.values():
            for case in state.transition.cases:
                refs[case.next_state] = refs.get(case.next_state, 0) + 1
        # the reference backend counts entries to the states it runs in its state loop
        inlined = {n for n, k in refs.items() if k == 1 and n != "start"}
        top = [n for n in parser.states if n not in inlined]
        self.counted = set() if len(top) == 1 and "start" not in refs else set(top)
        self.phases = parser_phases(parser)
        self.emit(1, "goto st_start;")
        for name, state in parser.states.items():
            self.gen_state(state, s)
        self.emit(0, "_fail:")
        self.emit(1, "P->off = _o;")
        self.emit(1, "return _err;")
        self.emit(0, "}")
        self.in_parser = False

    def gen_state(self, state: ir.ParserState, s) -> None:
        self.emit(0, f"st_{state.name}:")
        if state.name in self.counted:
            self.emit(1, f"if (++_steps > {PARSER_STEPS}) {{ _err = "
                         f"{self.err('ParserTimeout')}; goto _fail; }}")
        self.phase = self.phases.get(state.name) if straight(state) else None
        self.emit(1, "{")
        for st in state.stmts:
            self.stmt(st, s, 2)
        tr = state.transition
        if not tr.exprs:
            self.goto(tr.cases[0].next_state, 2)
            self.emit(1, "}")
            return
        keys = []
        for e in tr.exprs:
            if is_wide_or_composite(e.type) and not isinstance(e.type, ir.BitT):
                self.unsupported(f"select on {type(e.type).__name__}", e.loc)
            k = s.fresh("k")
            self.emit(2, f"{self.ctype(e.type, e.loc)} {k} = {self.expr(e, s)};")
            keys.append((k, e.type))
        for case in tr.cases:
            if len(case.keysets) == 1 and isinstance(case.keysets[0], ir.ValueSetRef):
                for e in tr.exprs:
                    self.narrow(e.type, case.keysets[0].loc, "a value_set key")
                conds = [self.value_set_match(case.keysets[0], [k for k, _ in keys])]
            else:
                conds = [c for (k, t), ks in zip(keys, case.keysets)
                         if (c := self.keyset(k, t, ks, s))]
            self.emit(2, f"if ({' && '.join(conds) or '1'}) {{")
            self.goto(case.next_state, 3)
            self.emit(2, "}")
        self.emit(2, f"_err = {self.err('NoMatch')}; goto _fail;")
        self.emit(1, "}")

    def keyset(self, k: str, t, ks, s) -> str:
        if isinstance(ks, (ir.Default, ir.DontCare)):
            return ""
        if isinstance(ks, ir.Mask):
            m = self.expr(ks.mask, s)
            return f"(({k} & {m}) == ({self.expr(ks.value, s)} & {m}))"
        if isinstance(ks, ir.Range):
            lo, hi = self.expr(ks.lo, s), self.expr(ks.hi, s)
            if isinstance(t, ir.IntT):
                k, lo, hi = (self.signed(x, t) for x in (k, lo, hi))
            return f"({lo} <= {k} && {k} <= {hi})"
        if isinstance(ks, ir.ValueSetRef):
            return self.value_set_match(ks, [k])
        return f"({k} == {self.expr(ks, s)})"

    def value_set_match(self, ks: ir.ValueSetRef, keys: list) -> str:
        if len(keys) > MAX_KEYS:
            self.unsupported(f"a value_set of more than {MAX_KEYS} fields", ks.loc)
        return (f"vset_match(&P->S->VS{self.out.value_sets[ks.name]}, "
                f"(const uint64_t[]){{{', '.join(keys)}}})")

    def goto(self, name: str, ind: int) -> None:
        if name == "accept":
            self.emit(ind, "P->off = _o; return 0;")
        elif name == "reject":
            self.emit(ind, "_err = 0; goto _fail;")
        else:
            self.emit(ind, f"goto st_{name};")

    def packet_in_method(self, c, s, ind) -> None:
        if not self.in_parser:
            self.unsupported(f"packet_in.{c.method} outside the parser", c.loc)
        short = self.err("PacketTooShort")
        if c.method == "extract":
            target = c.args[0]
            if not isinstance(target.type, ir.HeaderT):
                self.unsupported(f"extract into {type(target.type).__name__}", c.loc)
            if len(c.args) != 1 or varbit_field(target.type):
                self.extract_varbit(c, s, ind)
                return
            hp = s.fresh("hp")
            self.emit(ind, "{")
            self.emit(ind + 1, f"{self.ctype(target.type, c.loc)} *{hp} = "
                               f"&{self.expr(target, s)};")
            h = f"(*{hp})"
            self.union_others_invalid(target, s, ind + 1)
            w = self.width_fields(target.type, c.loc)
            self.emit(ind + 1, f"if (_o + {w} > _n) {{ _err = {short}; goto _fail; }}")
            at = self.phase
            if at is not None:
                p = s.fresh("p")
                self.emit(ind + 1, f"const uint8_t *{p} = _d + (_o >> 3);")
                self.phase = (at + w) % 8
            pos, lines = 0, []
            for path, fw in wire_fields(target.type):
                code = get_known(p, at + pos, fw) if at is not None else None
                lines.append(f"{h}{path} = {code or get_code('_d', f'_o + {pos}', fw)};")
                pos += fw
            self.emit_rolled(ind + 1, lines)
            self.extracted(target, h, str(w), s, ind)
        elif c.method == "advance":
            arg = c.args[0]
            self.phase = ((self.phase + arg.value) % 8
                          if self.phase is not None and isinstance(arg, ir.Const) else None)
            n = s.fresh("a")
            self.emit(ind, f"{{ uint64_t {n} = {self.expr(c.args[0], s)};")
            self.emit(ind + 1, f"if (_o + {n} > _n) {{ _o = _n; _err = {short}; goto _fail; }}")
            self.emit(ind + 1, f"_o += {n}; }}")
        elif c.method == "lookahead":
            self.emit(ind, f"(void){self.x_Call(c, s)};")
        else:
            self.unsupported(f"packet_in.{c.method}", c.loc)

    def extract_varbit(self, c, s, ind) -> None:
        """extract(hdr, size) of a header with a varbit field: its width ``size`` bits
        (more than the field's maximum is HeaderTooShort), the fields after it following
        at a run-time offset."""
        target, t = c.args[0], c.args[0].type
        vf = varbit_field(t)
        if vf is None or len(c.args) != 2:
            self.unsupported("extract with a size into a header without a varbit field", c.loc)
        hp, vs = s.fresh("hp"), s.fresh("vs")
        self.phase = None
        self.emit(ind, "{")
        self.emit(ind + 1, f"{self.ctype(t, c.loc)} *{hp} = &{self.expr(target, s)};")
        h = f"(*{hp})"
        self.union_others_invalid(target, s, ind + 1)
        self.emit(ind + 1, f"uint64_t {vs} = {self.expr(c.args[1], s)};")
        self.emit(ind + 1, f"if ({vs} > {vf.type.max_width}) "
                           f"{{ _err = {self.err('HeaderTooShort')}; goto _fail; }}")
        fixed = self.width_fields(t, c.loc)
        self.emit(ind + 1, f"if (_o + {fixed} + {vs} > _n) "
                           f"{{ _err = {self.err('PacketTooShort')}; goto _fail; }}")
        pos = "_o"
        for f in t.fields:
            if f is vf:
                self.emit(ind + 1, f"get_varbit(_d, {pos}, {vs}, {h}.f_{f.name}.b, "
                                   f"{varbit_bytes(f.type)});")
                self.emit(ind + 1, f"{h}.w_{f.name} = {vs};")
                pos = f"{pos} + {vs}"
            else:
                fw = self.width(f.type, c.loc)
                self.emit(ind + 1, f"{h}.f_{f.name} = {get_code('_d', pos, fw)};")
                pos = f"{pos} + {fw}"
        self.extracted(target, h, f"{fixed} + {vs}", s, ind)

    def extracted(self, target, h: str, width: str, s, ind) -> None:
        """The end of an extract into ``target`` (``h`` its header in C): valid, the
        offset past its ``width`` bits, a stack's or union stack's ``next`` moved on."""
        self.emit(ind + 1, f"{h}._v = 1;")
        self.emit(ind + 1, f"_o += {width};")
        if (isinstance(target, ir.Member) and target.field == "next"
                and isinstance(target.expr.type, ir.StackT)):
            self.emit(ind + 1, f"{self.expr(target.expr, s)}.next++;")
        elif ir.union_stack_next(target):
            self.emit(ind + 1, f"{self.expr(target.expr.expr, s)}.next++;")
        self.emit(ind, "}")

    def width_fields(self, t, loc) -> int:
        """The fixed bits of header ``t`` (a varbit field counts 0)."""
        for f in t.fields:
            if isinstance(f.type, ir.VarbitT):
                continue
            if isinstance(f.type, ir.StructT):
                self.width_fields(f.type, loc)
            else:
                self.width(f.type, loc)
        return ir.fixed_width(t)

    # ------------------------------------------------------------ deparser
    def gen_deparser(self, ctl: ir.Control, patch: set | None = None) -> None:
        """``deparse``, or with ``patch`` (cgen_replicas.replica_fields) ``deparse_patch``:
        the same walk over output bytes that already hold another replica's, storing only
        the fields in ``patch`` (each into the bits it spans, the others kept)."""
        s = CScope(ctl, leave="goto _end")
        self.bind_params(ctl.params[1:], s)
        self.in_deparser = True
        self.patch = patch
        self.out_phase = 0          # _b's position in its byte: 0, or None once not known
        self.ored = False           # a field written into zeroed bytes
        name = "deparse" if patch is None else "deparse_patch"
        self.emit(0, f"static uint32_t {name}(pkt_t *P, uint8_t *_out) {{")
        self.emit(1, "uint32_t _b = 0;")
        zeroing = len(self.lines)
        self.emit(1, "memset(_out, 0, HDR_BYTES);")
        for st in ctl.locals:
            self.stmt(st, s, 1)
        for st in ctl.body.stmts:
            self.stmt(st, s, 1)
        if patch is not None or self.out_phase == 0 and not self.ored:
            self.lines[zeroing] = ""         # every byte is stored, or already there
        self.emit(1, "_b = (_b + 7) >> 3;")
        if patch is None:
            self.emit(1, "memcpy(_out + _b, P->payload, P->payload_len);")
        self.emit(1, "return _b + P->payload_len;")
        self.emit(0, "}")
        self.in_deparser = False
        self.patch = None

    def emit_headers(self, e, s, ind) -> None:
        if not self.in_deparser:
            self.unsupported("packet_out.emit outside the deparser", e.loc)
        t = e.type
        if isinstance(t, (ir.StructT, ir.UnionT)):
            for f in t.fields:
                self.emit_headers(ir.Member(f.type, e.loc, e, f.name), s, ind)
            return
        if isinstance(t, ir.StackT) and isinstance(t.elem, ir.HeaderT):
            base = self.expr(e, s)
            for i in range(t.size):
                self.emit_header(f"{base}.h[{i}]", t.elem, e.loc, ind)
            return
        if isinstance(t, ir.StackT) and isinstance(t.elem, ir.UnionT):
            for i in range(t.size):
                self.emit_headers(ir.Index(t.elem, e.loc, e, ir.Const(ir.BitT(32), e.loc, i)),
                                  s, ind)
            return
        if not isinstance(t, ir.HeaderT):
            self.unsupported(f"emit of {type(t).__name__}", e.loc)
        self.emit_header(self.expr(e, s), t, e.loc, ind, header_path(e))

    def emit_header(self, h: str, t: ir.HeaderT, loc, ind, path=None) -> None:
        """``path``: the header's member names below the headers parameter, None in a
        stack (whose fields a replica never changes: cgen_replicas)."""
        vf = varbit_field(t)
        if vf is not None:
            self.emit_varbit_header(h, t, vf, loc, ind)
            return
        w = self.width_fields(t, loc)
        if self.patch is None:
            self.hdr_bits += w
        self.emit(ind, f"if ({h}._v) {{")
        known = self.out_phase == 0
        pos, lines = 0, []
        for cpath, fw in wire_fields(t):
            if self.patch is not None:
                names = tuple(cpath.split(".f_")[1:])
                if path is not None and patched(path + names, self.patch):
                    self.emit(ind + 1, patch_code(known, pos, fw, f"{h}{cpath}"))
                pos += fw
                continue
            code = put_known("(_out + (_b >> 3))", pos, fw, f"{h}{cpath}",
                             zeroed=False) if known else None
            self.ored |= code is None
            lines.append(code or put_code("_out", f"_b + {pos}", fw, f"{h}{cpath}"))
            pos += fw
        self.emit_rolled(ind + 1, lines)
        self.emit(ind + 1, f"_b += {w};")
        self.emit(ind, "}")
        if w % 8:                   # emitted or not: either phase follows
            self.out_phase = None

    def emit_varbit_header(self, h: str, t: ir.HeaderT, vf, loc, ind) -> None:
        fixed = self.width_fields(t, loc)
        self.out_phase = None
        if self.patch is not None:       # its fields are never a replica's own
            self.emit(ind, f"if ({h}._v) _b += {fixed} + {h}.w_{vf.name};")
            return
        self.hdr_bits += fixed + vf.type.max_width
        self.emit(ind, f"if ({h}._v) {{")
        pos = "_b"
        for f in t.fields:
            if f is vf:
                self.emit(ind + 1, f"put_varbit(_out, {pos}, {h}.w_{f.name}, {h}.f_{f.name}.b, "
                                   f"{varbit_bytes(f.type)});")
                pos = f"{pos} + {h}.w_{f.name}"
            else:
                fw = self.width(f.type, loc)
                self.emit(ind + 1, put_code("_out", pos, fw, f"{h}.f_{f.name}"))
                pos = f"{pos} + {fw}"
        self.emit(ind + 1, f"_b += {fixed} + {h}.w_{vf.name};")
        self.emit(ind, "}")

    # ------------------------------------------------------------ field lists
    def leaves(self, e, s) -> list:
        """(C value, width) of each scalar of a field-list argument, in order."""
        t = e.type
        if isinstance(e, ir.ListExpr):
            return [x for el in e.elems for x in self.leaves(el, s)]
        if isinstance(t, (ir.HeaderT, ir.StructT, ir.TupleT)):
            fields = tuple_fields(t) if isinstance(t, ir.TupleT) else t.fields
            return [x for f in fields
                    for x in self.leaves(ir.Member(f.type, e.loc, e, f.name), s)]
        if isinstance(t, ir.VarbitT) and isinstance(e, ir.Member):
            # a varbit field: its value and its header's current width of it
            base = self.expr(e.expr, s)
            return [(f"{base}.f_{e.field}", (t, f"{base}.w_{e.field}"))]
        if isinstance(t, (ir.StackT, ir.UnionT, ir.VarbitT)):
            self.unsupported(f"{type(t).__name__} in a field list", e.loc)
        return [(self.expr(e, s), self.width(t, e.loc))]

    def pack(self, data, s, ind) -> tuple:
        """Emit the field list ``data`` packed into a byte buffer; (buffer, bytes), the
        bytes a C expression when a varbit field makes the length a run-time value."""
        parts = self.leaves(data, s)
        buf = s.fresh("fl")
        if any(isinstance(w, tuple) for _, w in parts):
            bits = sum(w[0].max_width if isinstance(w, tuple) else w for _, w in parts)
            pos = s.fresh("fp")
            self.emit(ind, f"uint8_t {buf}[{max((bits + 7) // 8, 1)} + 8] = {{0}};")
            self.emit(ind, f"uint32_t {pos} = 0;")
            for code, w in parts:
                if isinstance(w, tuple):
                    vt, wcode = w
                    self.emit(ind, f"put_varbit({buf}, {pos}, {wcode}, {code}.b, "
                                   f"{varbit_bytes(vt)}); {pos} += {wcode};")
                else:
                    self.emit(ind, f"{put_code(buf, pos, w, code)} {pos} += {w};")
            return buf, f"(({pos} + 7) >> 3)"
        bits = sum(w for _, w in parts)
        nbytes = (bits + 7) // 8
        self.emit(ind, f"uint8_t {buf}[{max(nbytes, 1)} + 8] = {{0}};")
        pos = 0
        for code, w in parts:
            self.emit(ind, put_known(buf, pos, w, code) or put_code(buf, pos, w, code))
            pos += w
        return buf, nbytes

    def algorithm(self, e) -> str:
        if not isinstance(e, ir.EnumConst) or e.member not in ALGORITHMS:
            name = e.member if isinstance(e, ir.EnumConst) else "a computed algorithm"
            self.unsupported(f"hash algorithm {name}", e.loc)
        return ALGORITHMS[e.member]

    def fn_hash(self, c, s, ind) -> None:
        out, algo_e, base, data, maximum = c.args
        algo = self.algorithm(algo_e)
        w = self.narrow(out.type, c.loc, "a hash result")
        self.emit(ind, "{")
        buf, n = self.pack(data, s, ind + 1)
        self.assign(out, f"(hash_value({algo}, {buf}, {n}, {self.expr(base, s)}, "
                         f"{self.expr(maximum, s)}) & {mask(w)})", s, ind + 1)
        self.emit(ind, "}")

    def fn_checksum(self, c, s, ind) -> None:
        cond, data, field, algo_e = c.args
        algo = self.algorithm(algo_e)
        w = self.narrow(field.type, c.loc, "a checksum field")
        self.emit(ind, f"if ({self.expr(cond, s)}) {{")
        buf, n = self.pack(data, s, ind + 1)
        if c.method.endswith("_with_payload"):
            whole = s.fresh("wp")
            self.emit(ind + 1, f"uint8_t *{whole} = malloc({n} + P->payload_len + 1);")
            self.emit(ind + 1, f"memcpy({whole}, {buf}, {n});")
            self.emit(ind + 1, f"memcpy({whole} + {n}, P->payload, P->payload_len);")
            value = f"(run_alg({algo}, {whole}, {n} + P->payload_len) & {mask(w)})"
            done = f"free({whole});"
        else:
            value, done = f"(run_alg({algo}, {buf}, {n}) & {mask(w)})", ""
        if c.method.startswith("verify"):
            self.emit(ind + 1, f"if ({value} != {self.expr(field, s)}) P->checksum_error = 1;")
        else:
            self.assign(field, value, s, ind + 1)
        if done:
            self.emit(ind + 1, done)
        self.emit(ind, "}")


def header_path(e) -> tuple | None:
    """The member names from the headers parameter to the header ``e``, or None for a
    header inside a stack."""
    names = []
    while isinstance(e, ir.Member):
        names.append(e.field)
        e = e.expr
    return tuple(reversed(names)) if isinstance(e, ir.Var) else None


def patch_code(known: bool, pos: int, w: int, value: str) -> str:
    """C storing a field of ``w`` bits at bit ``pos`` of the header at ``_b`` into bytes
    that hold another value: a big-endian store of whole bytes where the offset's phase
    is known, else ``set_bits``, which keeps the bits around it."""
    if known and pos % 8 == 0 and w % 8 == 0 and w <= 64:
        return put_known("(_out + (_b >> 3))", pos, w, value, zeroed=False)
    fn = "set_wide" if w > 64 else "set_bits"
    return f"{fn}(_out, _b + {pos}, {w}, {value});"


def varbit_field(t):
    """The varbit field of header ``t``, if it has one (a header has at most one)."""
    return next((f for f in getattr(t, "fields", ()) if isinstance(f.type, ir.VarbitT)), None)


def is_wide_or_composite(t) -> bool:
    if isinstance(t, (ir.HeaderT, ir.StructT, ir.UnionT, ir.StackT, ir.TupleT, ir.VarbitT)):
        return True
    return isinstance(t, (ir.BitT, ir.IntT)) and t.width > 64


def packet_in_calls(node) -> list:
    """The packet_in methods called in an IR subtree that move the parser's offset."""
    return [c for c in walk_calls(node)
            if c.extern == "packet_in" and c.method in ("extract", "advance")]


def straight(state: ir.ParserState) -> bool:
    """Whether every offset move of ``state`` is a statement of its own at its top level,
    so the offset's phase follows them in order."""
    top = [st.call for st in state.stmts if isinstance(st, ir.CallStmt)]
    return all(any(c is t for t in top) for c in packet_in_calls(state.stmts))


def exit_phase(state: ir.ParserState, phase):
    """The offset's position in its byte (0..7) after ``state``, entered at ``phase``;
    None where it is not known (a move by a run-time amount, a varbit field, a move
    under a condition)."""
    if phase is None or not straight(state):
        return None
    for c in packet_in_calls(state.stmts):
        arg = c.args[0]
        if c.method == "advance":
            if not isinstance(arg, ir.Const):
                return None
            phase += arg.value
        elif len(c.args) != 1 or varbit_field(arg.type) or not isinstance(arg.type,
                                                                        ir.HeaderT):
            return None
        else:
            phase += ir.fixed_width(arg.type)
    return phase % 8


def parser_phases(parser: ir.Parser) -> dict:
    """The offset's position in its byte when each state is entered (None: it differs
    between the ways in, or is not known), from 0 at ``start``, to a fixed point."""
    phases = {"start": 0}
    work = ["start"]
    while work:
        name = work.pop()
        out = exit_phase(parser.states[name], phases[name])
        for case in parser.states[name].transition.cases:
            nxt = case.next_state
            if nxt in ("accept", "reject"):
                continue
            new = out if nxt not in phases or phases[nxt] == out else None
            if nxt not in phases or phases[nxt] != new:
                phases[nxt] = new
                work.append(nxt)
    return phases

