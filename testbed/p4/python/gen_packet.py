"""Python code generation for the parser (extract, select, lookahead) and the deparser
(mixed into the compiler).

A parser is one function over the frame ``_d`` with the bit offset ``_o``; states
reached from exactly one place are generated inline, the others run in a state loop.
Headers whose fields are all 8/16/32/64 bits wide move through one ``struct`` call.
"""
from __future__ import annotations

import struct

from testbed.p4 import ir
from testbed.p4.python.gen_expr import Scope, _mask, fname


class PacketGen:
    def _layout(self, t, prefix: str = "") -> tuple:
        """((attr, width, signed/bool kind), ...) of a fixed-size header, the fields of a
        struct inside it in line (``p.hi``)."""
        out = []
        for f in t.fields:
            name = prefix + fname(f.name)
            if isinstance(f.type, ir.StructT):
                out += self._layout(f.type, name + ".")
            else:
                out.append((name, ir.fixed_width(f.type), "i" if isinstance(f.type, ir.IntT) else
                            "b" if isinstance(f.type, ir.BoolT) else "u"))
        return tuple(out)

    _CODES = {8: "B", 16: "H", 32: "I", 64: "Q"}
    _SIGNED = {8: "b", 16: "h", 32: "i", 64: "q"}

    def _groups(self, t: ir.HeaderT):
        """Split a header into byte-aligned groups of fields for ``struct``, or None.

        Each group is (codes, part widths, fields): consecutive fields whose widths add
        up to whole bytes (at most 64 bits), moved as one or more native integers
        (e.g. a 48-bit MAC as 32 + 16 bits). A lone native-width field keeps its
        signedness in the code, so it needs no conversion at all."""
        groups, fields, bits = [], [], 0
        for name, w, kind in self._layout(t):
            fields.append((name, w, kind))
            bits += w
            if bits > 64:
                return None
            if bits % 8:
                continue
            parts, left = [], bits
            for size in (32, 16, 8) if bits != 64 else (64,):
                while left >= size:
                    parts.append(size)
                    left -= size
            if len(fields) == 1 and len(parts) == 1 and kind == "i":
                codes = self._SIGNED[bits]
            else:
                codes = "".join(self._CODES[x] for x in parts)
            groups.append((codes, parts, fields))
            fields, bits = [], 0
        return groups if groups and not fields else None

    def _struct(self, t: ir.HeaderT, method: str, groups) -> str:
        """Name of a global bound to ``struct.Struct(...).<method>`` for ``groups``."""
        name = self.pyname("S", f"{t.name}.{method}")
        self.globals[name] = getattr(struct.Struct(">" + "".join(g[0] for g in groups)),
                                     method)
        return name

    def _extract_groups(self, hv: str, t, groups, ind) -> None:
        unpack = self._struct(t, "unpack_from", groups)
        n_parts = sum(len(g[1]) for g in groups)
        names = [f"_u{i}" for i in range(n_parts)]
        self.emit(ind, f"{', '.join(names)}, = {unpack}(_d, _o >> 3)")
        k = 0
        for codes, parts, fields in groups:
            value = names[k]
            for w, nm in zip(parts[1:], names[k + 1:]):
                value = f"({value} << {w}) | {nm}"
            k += len(parts)
            if len(parts) > 1 and len(fields) > 1:
                self.emit(ind, f"_g = {value}")
                value = "_g"
            total = sum(parts)
            shift = total
            for name, w, kind in fields:
                shift -= w
                v = f"({value}) >> {shift}" if shift else f"({value})"
                if shift + w < total:
                    v = f"{v} & {_mask(w)}"
                if kind == "i" and codes not in self._SIGNED.values():
                    v = f"(({v}) ^ {1 << (w - 1)}) - {1 << (w - 1)}"
                elif kind == "b":
                    v = f"bool({v})"
                self.emit(ind, f"{hv}.{name} = {v}")

    def _pack_args(self, h: str, groups) -> list:
        args = []
        for codes, parts, fields in groups:
            terms = []
            total = sum(parts)
            shift = total
            for name, w, kind in fields:
                shift -= w
                v = f"{h}.{name}"
                if kind == "i" and codes not in self._SIGNED.values():
                    v = f"({v} & {_mask(w)})"
                terms.append(f"({v} << {shift})" if shift else v)
            value = " | ".join(terms)
            shift = total
            for w in parts:
                shift -= w
                part = f"({value}) >> {shift}" if shift else f"({value})"
                if len(parts) > 1 and shift + w < total:
                    part = f"{part} & {_mask(w)}"
                args.append(part)
        return args

    def packet_in_method(self, c, s, ind):
        m = c.method
        if m == "extract":
            self.extract(c, s, ind)
        elif m == "advance":
            self.emit(ind, f"_o += {self.expr(c.args[0], s)}")
            self.emit(ind, f"if _o > _n: _o = _n; raise _PErr({self.err('PacketTooShort')})")
        elif m == "lookahead":
            self.emit(ind, self.x_Call(c, s))    # value unused; still fails when too short
        else:
            self.fail(f"packet_in.{m} as a statement", c.loc)

    def extract(self, c, s, ind):
        target = c.args[0]
        t = target.type
        stack = None
        if isinstance(target, ir.Member) and isinstance(target.expr.type, ir.StackT) \
                and target.field == "next":
            stack = s.fresh("_s")
            self.emit(ind, f"{stack} = {self.expr(target.expr, s)}")
            self.emit(ind, f"if {stack}.nextIndex >= {stack}.size: "
                           f"raise _PErr({self.err('StackOutOfBounds')})")
            h = f"{stack}.h[{stack}.nextIndex]"
        else:
            h = self.expr(target, s)
            if isinstance(target, ir.Member) and isinstance(target.expr.type, ir.UnionT):
                union = self.expr(target.expr, s)
                for f in target.expr.type.fields:     # one valid member at a time
                    if f.name != target.field:
                        self.emit(ind, f"{union}.{fname(f.name)}._v = False")
        hv = s.fresh("_h")
        self.emit(ind, f"{hv} = {h}")
        varbit = [f for f in t.fields if isinstance(f.type, ir.VarbitT)]
        short = self.err("PacketTooShort")
        if varbit:
            size = self.expr(c.args[1], s)
            self.emit(ind, f"_vs = {size}")
            self.emit(ind, f"if _vs > {varbit[0].type.max_width}: "
                           f"raise _PErr({self.err('HeaderTooShort')})")
            fixed = sum(ir.fixed_width(f.type) for f in t.fields if f is not varbit[0])
            self.emit(ind, f"_w = {fixed} + _vs")
            self.emit(ind, f"if _o + _w > _n: raise _PErr({short})")
            self.emit(ind, "_x = _bits(_d, _o, _w)")
            shift = "_w"
            for f in t.fields:
                fw = "_vs" if f is varbit[0] else str(ir.fixed_width(f.type))
                shift = f"{shift} - {fw}"
                self.emit(ind, f"{hv}.{fname(f.name)} = (_x >> ({shift})) & ((1 << {fw}) - 1)")
            self.emit(ind, f"{hv}._w_{fname(varbit[0].name)} = _vs")
            width = "_w"
        else:
            w = ir.fixed_width(t)
            nb = w // 8
            self.emit(ind, f"if _o + {w} > _n: raise _PErr({short})")
            groups = self._groups(t)
            if groups:
                self.emit(ind, "if not _o & 7:")
                self._extract_groups(hv, t, groups, ind + 1)
                self.emit(ind, "else:")
                ind += 1
                self.emit(ind, f"_x = _bits(_d, _o, {w})")
            elif w % 8 == 0:
                self.emit(ind, f"_x = _bits(_d, _o, {w}) if _o & 7 else "
                               f"int.from_bytes(_d[_o >> 3:(_o >> 3) + {nb}], 'big')")
            else:
                self.emit(ind, f"_x = _bits(_d, _o, {w})")
            shift = w
            for name, fw, kind in self._layout(t):
                shift -= fw
                v = f"_x >> {shift}" if shift else "_x"
                if shift + fw < w:
                    v = f"({v}) & {_mask(fw)}"
                if kind == "i":
                    v = f"(({v}) ^ {1 << (fw - 1)}) - {1 << (fw - 1)}"
                elif kind == "b":
                    v = f"bool({v})"
                self.emit(ind, f"{hv}.{name} = {v}")
            if groups:
                ind -= 1
            width = str(w)
        self.emit(ind, f"{hv}._v = True")
        self.emit(ind, f"_o += {width}")
        if stack:
            self.emit(ind, f"{stack}.nextIndex += 1")
        elif ir.union_stack_next(target):       # hus.next.member: the union is the next one
            self.emit(ind, f"{self.expr(target.expr.expr, s)}.nextIndex += 1")
        if self.trace:
            self.emit(ind, f"_log.debug('Extracting header %s', {self._describe(target)!r})")

    @staticmethod
    def _describe(e) -> str:
        if isinstance(e, ir.Var):
            return e.name
        if isinstance(e, ir.Member):
            return f"{PacketGen._describe(e.expr)}.{e.field}"
        if isinstance(e, ir.Index):
            idx = e.index.value if isinstance(e.index, ir.Const) else "?"
            return f"{PacketGen._describe(e.expr)}[{idx}]"
        return type(e).__name__

    def gen_parser(self, parser: ir.Parser, fn: str = "parse") -> None:
        s = Scope(parser)
        self.cur_parser = parser
        params = ", ".join(self.x_Var(ir.Var(p.type, p.loc, p.name), s)
                           for p in parser.params[1:])
        self.emit(0, f"def {fn}(_d, {params}):")
        self.emit(1, "_o = 0")
        self.emit(1, "_n = len(_d) << 3")
        self.clear_per_packet(parser, 1)
        for inst in parser.value_sets:
            self.out.value_sets[inst.name] = []
        for st in parser.locals:
            self.stmt(st, s, 1)
        refs = {}
        for state in parser.states.values():
            for case in state.transition.cases:
                refs[case.next_state] = refs.get(case.next_state, 0) + 1
        self.state_ids = {name: i for i, name in enumerate(parser.states)}
        self.inlined = {n for n, k in refs.items() if k == 1 and n != "start"
                        and n in parser.states}
        top = [n for n in parser.states if n not in self.inlined]
        if len(top) == 1 and "start" not in refs:
            self.emit(1, "try:")
            self.gen_state(parser.states["start"], s, 2, ["start"])
        else:
            self.emit(1, "_st = 0")
            self.emit(1, "_steps = 0")
            self.emit(1, "try:")
            self.emit(2, "while True:")
            self.emit(3, "_steps += 1")
            self.emit(3, f"if _steps > 1000: raise _PErr({self.err('ParserTimeout')})")
            first = True
            for name in top:
                self.emit(3, f"{'if' if first else 'elif'} _st == {self.state_ids[name]}:")
                first = False
                self.gen_state(parser.states[name], s, 4, [name])
        self.emit(1, "except _PErr as _e:")
        if self.trace:
            self.emit(2, "_log.debug('Parser error %d at bit %d', _e.code, _o)")
        self.emit(2, "return _o, _e.code")

    def gen_state(self, state: ir.ParserState, s, ind, stack) -> None:
        if self.trace:
            self.emit(ind, f"_log.debug('Parser state %s', {state.name!r})")
        for st in state.stmts:
            self.stmt(st, s, ind)
        tr = state.transition
        if not tr.exprs:
            self.goto(tr.cases[0].next_state, s, ind, stack)
            return
        self.cur_ind = ind
        keys = []
        for e in tr.exprs:
            k = s.fresh("_k")
            self.emit(ind, f"{k} = {self.expr(e, s)}")
            keys.append(k)
        first = True
        has_default = False
        for case in tr.cases:
            conds = []
            if len(case.keysets) == 1 and isinstance(case.keysets[0], ir.ValueSetRef) \
                    and len(keys) > 1:
                conds.append(f"_vs_match(VS[{case.keysets[0].name!r}], "
                             f"({', '.join(keys)},))")
            else:
                for k, ks in zip(keys, case.keysets):
                    c = self.keyset(k, ks, s)
                    if c:
                        conds.append(c)
            cond = " and ".join(conds) or "True"
            if cond == "True":
                self.emit(ind, "else:" if not first else "if True:")
                has_default = True
            else:
                self.emit(ind, f"{'if' if first else 'elif'} {cond}:")
            first = False
            self.goto(case.next_state, s, ind + 1, stack)
            if has_default:
                break
        if not has_default:
            self.emit(ind, "else:" if not first else "if True:")
            self.emit(ind + 1, f"raise _PErr({self.err('NoMatch')})")

    def keyset(self, k: str, ks, s) -> str:
        if isinstance(ks, (ir.Default, ir.DontCare)):
            return ""
        if isinstance(ks, ir.Mask):
            if isinstance(ks.value, ir.Const) and isinstance(ks.mask, ir.Const):
                return f"{k} & {ks.mask.value} == {ks.value.value & ks.mask.value}"
            mask = self.expr(ks.mask, s)
            return f"{k} & {mask} == {self.expr(ks.value, s)} & {mask}"
        if isinstance(ks, ir.Range):
            return f"{self.expr(ks.lo, s)} <= {k} <= {self.expr(ks.hi, s)}"
        if isinstance(ks, ir.ValueSetRef):
            return f"_vs_match(VS[{ks.name!r}], ({k},))"
        return f"{k} == {self.expr(ks, s)}"

    def goto(self, name: str, s, ind, stack) -> None:
        if name == "accept":
            self.emit(ind, "return _o, 0")
        elif name == "reject":
            self.emit(ind, "raise _PErr(0)")
        elif name in self.inlined and name not in stack:
            self.gen_state(self.cur_parser.states[name], s, ind, stack + [name])
        else:
            self.emit(ind, f"_st = {self.state_ids[name]}")
            self.emit(ind, "continue")

    def emit_stmt(self, e, s, ind) -> None:
        t = e.type
        if isinstance(t, ir.StructT):
            for f in t.fields:
                self.emit_stmt(ir.Member(f.type, e.loc, e, f.name), s, ind)
            return
        if isinstance(t, ir.UnionT):
            for f in t.fields:
                self.emit_stmt(ir.Member(f.type, e.loc, e, f.name), s, ind)
            return
        if isinstance(t, ir.StackT):
            el = s.fresh("_e")
            self.emit(ind, f"for {el} in {self.expr(e, s)}.h:")
            self._emit_header(el, t.elem, ind + 1)
            return
        h = s.fresh("_h")
        self.emit(ind, f"{h} = {self.expr(e, s)}")
        self._emit_header(h, t, ind)

    def _emit_header(self, h: str, t, ind) -> None:
        if isinstance(t, ir.UnionT):
            for f in t.fields:
                self._emit_header(f"{h}.{fname(f.name)}", f.type, ind)
            return
        self.emit(ind, f"if {h}._v:")
        varbit = [f for f in t.fields if isinstance(f.type, ir.VarbitT)]
        if varbit:
            for f in t.fields:
                n = fname(f.name)
                w = f"{h}._w_{n}" if f in varbit else str(ir.fixed_width(f.type))
                self.emit(ind + 1, f"_a = (_a << {w}) | ({h}.{n} & ((1 << {w}) - 1))")
                self.emit(ind + 1, f"_b += {w}")
            return
        w = ir.fixed_width(t)
        shift = w
        terms = []
        for name, fw, kind in self._layout(t):
            shift -= fw
            v = f"{h}.{name}"
            if kind == "i":
                v = f"({v} & {_mask(fw)})"
            terms.append(f"({v} << {shift})" if shift else v)
        packed = " | ".join(terms) or "0"
        groups = self._groups(t) if self.byte_parts else None
        if groups:
            pack = self._struct(t, "pack", groups)
            self.emit(ind + 1, f"_p.append({pack}({', '.join(self._pack_args(h, groups))}))")
        elif self.byte_parts:
            self.emit(ind + 1, f"_p.append(({packed}).to_bytes({w // 8}, 'big'))")
        else:
            self.emit(ind + 1, f"_a = (_a << {w}) | {packed}")
            self.emit(ind + 1, f"_b += {w}")
        if self.trace:
            self.emit(ind + 1, f"_log.debug('Deparser: emitting header %s', {t.name!r})")

    def _byte_aligned(self, t) -> bool:
        """True when every header ``t`` can emit has a fixed size in whole bytes."""
        if isinstance(t, ir.HeaderT):
            return (not any(isinstance(f.type, ir.VarbitT) for f in t.fields)
                    and ir.fixed_width(t) % 8 == 0)
        if isinstance(t, ir.StackT):
            return self._byte_aligned(t.elem)
        if isinstance(t, (ir.StructT, ir.UnionT)):
            return all(self._byte_aligned(f.type) for f in t.fields)
        return False

    def _emitted_types(self, stmts) -> list:
        found = []
        for st in stmts:
            if isinstance(st, ir.CallStmt) and st.call.kind == "extern_method" \
                    and st.call.method == "emit":
                found.append(st.call.args[0].type)
            elif isinstance(st, ir.Block):
                found += self._emitted_types(st.stmts)
            elif isinstance(st, ir.If):
                found += self._emitted_types([st.then] + ([st.other] if st.other else []))
            elif not isinstance(st, (ir.VarDecl, ir.Assign, ir.CallStmt)):
                found.append(None)          # anything else: keep the general form
        return found

    def gen_deparser(self, ctl: ir.Control, fn: str = "deparse") -> None:
        s = Scope(ctl)
        params = ", ".join(self.x_Var(ir.Var(p.type, p.loc, p.name), s)
                           for p in ctl.params[1:])
        self.byte_parts = all(t is not None and self._byte_aligned(t)
                              for t in self._emitted_types(ctl.body.stmts))
        self.emit(0, f"def {fn}({params}, _payload):")
        self.clear_per_packet(ctl, 1)
        if self.byte_parts:
            self.emit(1, "_p = []")
        else:
            self.emit(1, "_a = 0")
            self.emit(1, "_b = 0")
        for st in ctl.locals:
            self.stmt(st, s, 1)
        self.block(ctl.body.stmts, s, 1)
        if self.byte_parts:
            self.emit(1, "_p.append(_payload)")
            self.emit(1, "return b''.join(_p)")
            return
        self.emit(1, "if _b & 7:")
        self.emit(2, "_a <<= 8 - (_b & 7)")
        self.emit(2, "_b += 8 - (_b & 7)")
        self.emit(1, "return _a.to_bytes(_b >> 3, 'big') + _payload")

