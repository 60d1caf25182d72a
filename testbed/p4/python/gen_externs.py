"""Python code generation for v1model extern methods and functions (mixed into the
compiler): registers, counters, meters, hash, checksums, digest, clone, resubmit,
recirculate, truncate, log_msg, assert/assume and verify.
"""
from __future__ import annotations

from testbed.errors import P4Error
from testbed.p4 import ir
from testbed.p4.python import externs
from testbed.p4.python.gen_expr import _mask, fname


class ExternGen:
    def _instance(self, name: str) -> ir.Instance:
        for blk in list(self.p.controls.values()) + list(self.p.parsers.values()):
            for inst in blk.instances:
                if inst.name == name:
                    return inst
        raise P4Error(f"unknown extern instance {name}")

    @staticmethod

    def _meter_kind(args) -> str:
        """packets, bytes or packets_and_bytes (v1model's members, PSA's in capitals)."""
        for a in args:
            if isinstance(a, ir.EnumConst):
                return a.member.lower()
        return "packets"

    def _inst_name(self, target, s) -> ir.Instance:
        for inst in s.block.instances:
            if inst.name == target.name or inst.local_name == target.name:
                return inst
        return None

    def extern_method(self, c, s, ind):
        if c.extern in ("packet_in",):
            return self.packet_in_method(c, s, ind)
        if c.extern == "packet_out":
            return self.emit_stmt(c.args[0], s, ind)
        inst = self._inst_name(c.target, s)
        if inst is None:
            self.fail(f"extern {c.extern} instance {c.target.name!r} not found", c.loc)
        return self.instance_method(c, inst, s, ind)

    def instance_method(self, c, inst, s, ind):
        """A method call on extern instance ``inst``: v1model's externs."""
        m = c.method
        g = self.pyname("X", inst.name)
        a = [self.expr(x, s) if not isinstance(x, ir.DontCare) else None for x in c.args]
        if c.extern == "register":
            # inline access to the cell list; out-of-range reads give 0, writes are ignored
            cells = self.pyname("R", inst.name)
            self.globals[cells] = self.out.registers[inst.name].cells
            size = self.out.registers[inst.name].size
            pos = 1 if m == "read" else 0
            idx = a[pos]
            if not isinstance(c.args[pos], (ir.Const, ir.Var, ir.Member)):
                idx = s.fresh("_i")
                self.emit(ind, f"{idx} = {a[pos]}")
            if isinstance(c.args[pos], ir.Const):
                in_range = 0 <= int(idx) < size
            else:
                in_range = (idx, size) in s.in_range
                if idx in s.hoisted.values():
                    s.range_checks.append((idx, size))
            if m == "read":
                value = (f"{cells}[{idx}]" if in_range else "0"
                         if isinstance(c.args[pos], ir.Const)
                         else f"({cells}[{idx}] if {idx} < {size} else 0)")
                self.assign(c.args[0], value, s, ind)
            elif m == "write":
                if in_range:
                    self.emit(ind, f"{cells}[{idx}] = {a[1]}")
                elif not isinstance(c.args[pos], ir.Const):
                    self.emit(ind, f"if {idx} < {size}: {cells}[{idx}] = {a[1]}")
            else:
                self.fail(f"register method {m}", c.loc)
        elif c.extern == "counter" and m == "count":
            self.emit(ind, f"{g}.count({a[0]}, _P.plen)")
        elif c.extern == "direct_counter" and m == "count":
            self.emit(ind, "pass")   # BMv2 counts direct counters on every table hit
        elif c.extern == "meter" and m == "execute_meter":
            self.assign(c.args[1], f"{g}.execute({a[0]}, _P.plen)", s, ind)
        elif c.extern == "direct_meter" and m == "read":
            self.assign(c.args[0], f"_P.color({inst.name!r})", s, ind)
        else:
            self.fail(f"{c.extern}.{m}", c.loc)

    def _leaves(self, e, s, code=None, t=None) -> list:
        """The scalar (python code, type) leaves of a field-list argument, in order."""
        t = e.type if t is None else t
        if code is None and isinstance(e, ir.ListExpr):
            out = []
            bases = {}
            for x in e.elems:
                if isinstance(x, ir.Member) and _stable(x.expr):
                    # fields of one header: read the header object once
                    base = self.expr(x.expr, s)
                    if base not in bases:
                        bases[base] = s.fresh("_b")
                        self.emit(self.cur_ind, f"{bases[base]} = {base}")
                    out += self._leaves(None, s, f"{bases[base]}.{fname(x.field)}", x.type)
                else:
                    out += self._leaves(x, s)
            return out
        code = self.expr(e, s) if code is None else code
        if isinstance(t, (ir.StructT, ir.HeaderT)):
            out = []
            for f in t.fields:
                out += self._leaves(None, s, f"{code}.{fname(f.name)}", f.type)
            return out
        if isinstance(t, ir.TupleT):
            out = []
            for i, et in enumerate(t.elems):
                out += self._leaves(None, s, f"{code}[{i}]", et)
            return out
        return [(code, t)]

    def _parts(self, e, s) -> list:
        """(python code of an unsigned value, width) per scalar of a field-list argument;
        a varbit field's width is python code too, its header's current width of it."""
        parts = []
        for code, t in self._leaves(e, s):
            if isinstance(t, ir.VarbitT):
                head, name = code.rsplit(".", 1)
                parts.append((code, f"{head}._w_{name}"))
                continue
            w = ir.fixed_width(t)
            if isinstance(t, ir.IntT):
                code = f"({code} & {_mask(w)})"
            elif isinstance(t, ir.BoolT):
                code = f"int({code})"
            parts.append((code, w))
        return parts

    def _fieldlist(self, e, s) -> tuple:
        """(python int expression of the concatenated bits, total width) of a data arg;
        the width is python code when a varbit field is among them."""
        parts = self._parts(e, s)
        if any(isinstance(w, str) for _, w in parts):
            terms, later = [], []
            for code, w in reversed(parts):
                terms.append(f"({code} << ({' + '.join(later)}))" if later else code)
                later.append(str(w))
            return "(" + " | ".join(terms) + ")", "(" + " + ".join(later) + ")"
        total = sum(w for _, w in parts)
        shift = total
        terms = []
        for code, w in parts:
            shift -= w
            terms.append(f"({code} << {shift})" if shift else code)
        return ("(" + " | ".join(terms) + ")" if terms else "0"), total

    @staticmethod
    def _word_sum(parts) -> str:
        """Python expression of the sum of the 16-bit words of the concatenated parts
        (zero-padded at the end), built from small ints only."""
        total = sum(w for _, w in parts)
        words = [[] for _ in range((total + 15) // 16)]
        pos = 0
        for code, w in parts:
            end = pos + w
            b = pos
            while b < end:
                word = b // 16
                seg_end = min(end, (word + 1) * 16)
                rshift = end - seg_end
                term = f"({code} >> {rshift})" if rshift else code
                if b > pos:
                    term = f"({term} & {_mask(seg_end - b)})"
                lshift = (word + 1) * 16 - seg_end
                words[word].append(f"({term} << {lshift})" if lshift else term)
                b = seg_end
            pos = end
        return " + ".join("(" + " | ".join(t) + ")" if len(t) > 1 else t[0] for t in words)

    def _flat_values(self, e, s) -> list:
        return [code for code, _ in self._leaves(e, s)]

    def _algo(self, e) -> str:
        if isinstance(e, ir.EnumConst):
            return e.member
        self.fail("a hash algorithm that is not a constant", e.loc)

    # v1model's extern functions, one method each (EXTERN_FUNCTIONS in testbed/p4/walk.py)
    def fn_mark_to_drop(self, c, s, ind):
        sm = self.expr(c.args[0], s) if c.args else s.sm
        self.emit(ind, f"{sm}.egress_spec = 511")
        self.emit(ind, f"{sm}.mcast_grp = 0")

    def fn_hash(self, c, s, ind):
        args = c.args
        algo = self._algo(args[1])
        if algo not in externs.ALGORITHMS:
            self.fail(f"hash algorithm {algo}", args[1].loc)
        value, bits = self._fieldlist(args[3], s)
        out_w = ir.fixed_width(args[0].type)
        code = (f"(_hash({algo!r}, {value}, {bits}, {self.expr(args[2], s)}, "
                f"{self.expr(args[4], s)}) & {_mask(out_w)})")
        self.assign(args[0], code, s, ind)

    def fn_random(self, c, s, ind):
        args = c.args
        self.assign(args[0], f"_random({self.expr(args[1], s)}, {self.expr(args[2], s)})",
                    s, ind)

    def fn_digest(self, c, s, ind):
        args = c.args
        t = c.type_args[0] if c.type_args else args[1].type
        tname = getattr(t, "name", "digest")
        vals = self._flat_values(args[1], s)
        self.emit(ind, f"_P.add_digest({tname!r}, ({''.join(v + ', ' for v in vals)}))")

    def fn_with_data(self, c, s, ind):
        m = c.method
        self.fail(f"the deprecated {m}(..., data) form; use "
                  f"{m.rstrip('3')}_preserving_field_list with @field_list annotations",
                  c.loc)

    def fn_clone(self, c, s, ind):
        args = c.args
        kind = args[0].member if isinstance(args[0], ir.EnumConst) else "I2E"
        fl = self.expr(args[2], s) if c.method == "clone_preserving_field_list" else "None"
        self.emit(ind, f"_P.clone_type = {1 if kind == 'I2E' else 2}")
        self.emit(ind, f"_P.clone_session = {self.expr(args[1], s)}")
        self.emit(ind, f"_P.clone_fl = {fl}")

    def fn_resubmit(self, c, s, ind):
        self.emit(ind, f"_P.resubmit_fl = {self.expr(c.args[0], s)}")

    def fn_recirculate(self, c, s, ind):
        self.emit(ind, f"_P.recirc_fl = {self.expr(c.args[0], s)}")

    def fn_truncate(self, c, s, ind):
        self.emit(ind, f"_P.trunc = {self.expr(c.args[0], s)}")

    def fn_log_msg(self, c, s, ind):
        args = c.args
        vals = self._flat_values(args[1], s) if len(args) > 1 else []
        self.emit(ind, f"_log.info('%s', _format_log({self.expr(args[0], s)}, "
                       f"({''.join(v + ', ' for v in vals)})))")

    def fn_assertion(self, c, s, ind):
        self.emit(ind, f"if not {self.expr(c.args[0], s)}: "
                       f"raise _AssertFailed({c.method + ' at ' + str(c.loc)!r})")

    def fn_verify(self, c, s, ind):
        self.emit(ind, f"if not {self.expr(c.args[0], s)}: "
                       f"raise _PErr({self.expr(c.args[1], s)})")

    def unknown_extern_function(self, c) -> None:
        self.fail(f"extern function {c.method}: only v1model's extern functions run here; "
                  "remove the call or implement it as a P4 function or action", c.loc)

    def fn_checksum(self, c, s, ind):
        cond, data, field, algo_e = c.args
        algo = self._algo(algo_e)
        if algo not in externs.ALGORITHMS:
            self.fail(f"checksum algorithm {algo}", algo_e.loc)
        payload = c.method.endswith("_with_payload")
        w = ir.fixed_width(field.type)
        self.emit(ind, f"if {self.expr(cond, s)}:")
        self.cur_ind = ind + 1
        parts = self._parts(data, s)
        fixed = all(isinstance(pw, int) for _, pw in parts)
        if algo == "csum16" and not payload and fixed and sum(pw for _, pw in parts) % 8 == 0:
            # one's-complement sum of the 16-bit words: their plain sum mod 0xFFFF, with
            # 0xFFFF for a non-zero multiple (2**16 = 1 mod 0xFFFF)
            self.emit(ind + 1, f"_cv = {self._word_sum(parts) or '0'}")
            self.emit(ind + 1, "_cs = 65535 ^ (_cv % 65535 or (65535 if _cv else 0))")
            code = "_cs"
        else:
            value, bits = self._fieldlist(data, s)
            pl = " + _P.payload" if payload else ""
            code = f"(_ALG[{algo!r}](_to_bytes({value}, {bits}){pl}) & {_mask(w)})"
        if c.method.startswith("verify"):
            self.emit(ind + 1, f"if {code} != {self.expr(field, s)}: _P.checksum_error = 1")
        else:
            self.assign(field, code, s, ind + 1)


def _stable(e) -> bool:
    """Whether ``e`` names a header/struct object that keeps its identity for the whole
    packet (a member chain from a variable, no stack indexing): composite assignments
    copy into the object, never replace it."""
    while isinstance(e, ir.Member):
        if not isinstance(e.type, (ir.HeaderT, ir.StructT)):
            return False
        e = e.expr
    return isinstance(e, ir.Var) and isinstance(e.type, ir.StructT)
