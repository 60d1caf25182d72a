"""BMv2 JSON expressions and action primitives as IR (part of :mod:`testbed.p4.bmv2.loader`).

BMv2 evaluates expressions in infinite precision and p4c masks every result that must
wrap (``(ttl + 0xff) & 0xff`` is ``ttl - 1``). The IR's arithmetic wraps at its result
type's width, so each intermediate gets a ``bit<W>`` wide enough to hold its exact value
(``+``: one bit more than its widest operand, ``*``: the sum of the widths, ...);
wrapping at W and then masking to a narrower width gives BMv2's result. A primitive list
with ``_jump_if_zero``/``_jump`` (p4c's if/else inside an action) becomes ``if`` blocks:
p4c only jumps forward, over a then-part that ends in a jump past the else-part.
"""
from __future__ import annotations

from testbed.p4 import ir

NOLOC = ir.NOLOC
BOOL = ir.BoolT()
_SHIFT_CAP = 128      # extra bits a shift by a run-time amount may need


def _bits(t) -> int:
    if isinstance(t, (ir.BitT, ir.IntT)):
        return t.width
    if isinstance(t, ir.BoolT):
        return 1
    return 32              # error codes


def hexstr_value(text, path: str, fail) -> int:
    if not isinstance(text, str):
        fail(path, f"expected a hexstring such as \"0x0800\", not {text!r}")
    try:
        return int(text, 16)
    except ValueError:
        fail(path, f"{text!r} is not a hexstring; write it as \"0x...\" (or \"-0x...\")")


def const(value: int, width: int | None = None) -> ir.Const:
    if value < 0:
        return ir.Const(ir.IntT(max(2, value.bit_length() + 1)), NOLOC, value)
    return ir.Const(ir.BitT(width or max(1, value.bit_length())), NOLOC, value)


def as_bool(e: ir.Expr) -> ir.Expr:
    """A condition from BMv2 data: ``b2d(x)`` is ``x``; other data is ``!= 0``."""
    if isinstance(e.type, ir.BoolT):
        return e
    if isinstance(e, ir.Cast) and isinstance(e.expr.type, ir.BoolT):
        return e.expr
    return ir.Binary(BOOL, NOLOC, "!=", e, const(0, _bits(e.type)))


def converted(e: ir.Expr, t: ir.Type) -> ir.Expr:
    """``e`` as a value of ``t`` (the type of what it is assigned to)."""
    if e.type == t or isinstance(t, (ir.HeaderT, ir.StructT, ir.UnionT, ir.StackT)):
        return e
    return ir.Cast(t, NOLOC, e)


class Expressions:
    """Mixed into the loader, which provides ``fail``, ``field``, ``header``, ``stack``,
    ``errors_by_value``, ``calculation``, ``instance`` and the current ``params``."""

    BINARY = {"+", "-", "*", "<<", ">>", "&", "|", "^", "/", "%"}
    COMPARE = {"==", "!=", "<", "<=", ">", ">="}

    def value(self, tv, path: str, params=()) -> ir.Expr:
        """The IR of a JSON type-value object."""
        self.at = path
        if not isinstance(tv, dict) or "type" not in tv:
            self.fail(path, "expected an object with 'type' and 'value'")
        kind, v = tv["type"], tv.get("value")
        if kind == "field":
            return self.field(v, f"{path}.value")
        if kind == "hexstr":
            return const(hexstr_value(v, f"{path}.value", self.fail), tv.get("bitwidth"))
        if kind == "bool":
            return ir.Const(BOOL, NOLOC, int(bool(v)))
        if kind in ("runtime_data", "local"):
            if not isinstance(v, int) or not 0 <= v < len(params):
                self.fail(f"{path}.value", f"runtime_data index {v!r} is not one of the "
                          f"action's {len(params)} parameters")
            p = params[v]
            return ir.Var(p.type, NOLOC, p.name)
        if kind == "header":
            return self.header(v, f"{path}.value")
        if kind == "header_stack":
            return self.stack(v, f"{path}.value")
        if kind == "stack_field":
            if not (isinstance(v, list) and len(v) == 2):
                self.fail(f"{path}.value", "expected [stack name, field name]")
            last = self.stack(v[0], f"{path}.value[0]")
            elem = ir.Member(last.type.elem, NOLOC, last, "last")
            return self.member(elem, v[1], f"{path}.value[1]")
        if kind == "lookahead":
            if not (isinstance(v, list) and len(v) == 2 and all(isinstance(x, int) for x in v)
                    and v[0] >= 0 and v[1] > 0):
                self.fail(f"{path}.value", "expected [bit offset, bit width]")
            off, w = v
            peek = ir.Call(ir.BitT(off + w), NOLOC, "extern_method", "lookahead",
                           target=ir.Var(ir.ExternT("packet_in"), NOLOC, "packet"),
                           extern="packet_in", type_args=[ir.BitT(off + w)])
            return ir.Slice(ir.BitT(w), NOLOC, peek, w - 1, 0)
        if kind == "string":
            return ir.StringLit(ir.StringT(), NOLOC, str(v))
        if kind == "expression":
            if isinstance(v, dict) and "op" not in v and "type" in v:
                return self.value(v, f"{path}.value", params)
            return self.operation(v, f"{path}.value", params)
        self.fail(f"{path}.type", f"operand type {kind!r} is not supported by this target; "
                  "it reads field, hexstr, bool, runtime_data, header, header_stack, "
                  "stack_field, lookahead, string and expression")

    def operation(self, node, path: str, params) -> ir.Expr:
        if not isinstance(node, dict) or "op" not in node:
            self.fail(path, "expected an expression object with 'op', 'left', 'right'")
        op = node["op"]

        def side(name):
            if node.get(name) is None:
                self.fail(f"{path}.{name}", f"operator {op!r} needs a {name} operand")
            return self.value(node[name], f"{path}.{name}", params)

        if op in self.BINARY:
            a, b = side("left"), side("right")
            wa, wb = _bits(a.type), _bits(b.type)
            width = {"+": max(wa, wb) + 1, "-": max(wa, wb) + 1, "*": wa + wb,
                     "<<": wa + (b.value if isinstance(b, ir.Const) else
                                 min((1 << wb) - 1, _SHIFT_CAP)),
                     "&": min(wa, wb) if not isinstance(a.type, ir.IntT)
                     and not isinstance(b.type, ir.IntT) else max(wa, wb)}.get(op, max(wa, wb))
            if op in (">>", "/", "%"):
                width = wa
            return ir.Binary(ir.BitT(width), NOLOC, op, a, b)
        if op in self.COMPARE:
            return ir.Binary(BOOL, NOLOC, op, side("left"), side("right"))
        if op in ("and", "or"):
            return ir.Binary(BOOL, NOLOC, "&&" if op == "and" else "||",
                             as_bool(side("left")), as_bool(side("right")))
        if op == "not":
            return ir.Unary(BOOL, NOLOC, "!", as_bool(side("right")))
        if op == "~":
            e = side("right")
            return ir.Unary(ir.BitT(_bits(e.type)), NOLOC, "~", e)
        if op == "d2b":
            return as_bool(side("right"))
        if op == "b2d":
            return ir.Cast(ir.BitT(1), NOLOC, as_bool(side("right")))
        if op == "valid":
            return self.is_valid(side("right"))
        if op == "?":
            cond = node.get("cond")
            if cond is None:
                self.fail(f"{path}.cond", "the ternary operator needs a cond")
            a, b = side("left"), side("right")
            t = BOOL if isinstance(a.type, ir.BoolT) else ir.BitT(max(_bits(a.type),
                                                                      _bits(b.type)))
            return ir.Mux(t, NOLOC, as_bool(self.value(cond, f"{path}.cond", params)), a, b)
        if op == "two_comp_mod":
            a, w = side("left"), side("right")
            if not isinstance(w, ir.Const) or w.value < 1:
                self.fail(f"{path}.right", "two_comp_mod needs a constant width")
            return ir.Cast(ir.IntT(w.value), NOLOC, a)
        if op == "dereference_header_stack":
            s, i = side("left"), side("right")
            if not isinstance(s.type, ir.StackT):
                self.fail(f"{path}.left", "dereference_header_stack needs a header_stack")
            return ir.Index(s.type.elem, NOLOC, s, i)
        if op == "access_field":
            h = side("left")
            off = node.get("right")
            fields = getattr(h.type, "fields", ())
            if not isinstance(off, int) or not 0 <= off < len(fields):
                self.fail(f"{path}.right", f"field offset {off!r} is not a field of the "
                          "header")
            return ir.Member(fields[off].type, NOLOC, h, fields[off].name)
        if op in ("last_stack_index", "size_stack"):
            s = side("right")
            if not isinstance(s.type, ir.StackT):
                self.fail(f"{path}.right", f"{op} needs a header_stack")
            field = "lastIndex" if op == "last_stack_index" else "nextIndex"
            return ir.Member(ir.BitT(32), NOLOC, s, field)
        self.fail(f"{path}.op", f"operator {op!r} is not supported by this target; remove "
                  "it from the program (saturating casts and header unions in expressions "
                  "are not loaded from BMv2 JSON)")

    def is_valid(self, h: ir.Expr) -> ir.Expr:
        return ir.Call(BOOL, NOLOC, "builtin", "isValid", target=h)

    # ------------------------------------------------------------------ primitives
    def statements(self, prims, path: str, params) -> list:
        if not isinstance(prims, list):
            self.fail(path, "expected a list of primitive calls")
        return self._range(prims, 0, len(prims), path, params)

    def _jump_target(self, prim, index: int, path: str, params) -> int:
        args = prim.get("parameters") or []
        target = self.value(args[-1], f"{path}[{index}].parameters[{len(args) - 1}]", params) \
            if args else None
        if not isinstance(target, ir.Const):
            self.fail(f"{path}[{index}]", f"{prim['op']} needs a constant offset")
        return target.value

    def _range(self, prims, i: int, end: int, path: str, params) -> list:
        out = []
        while i < end:
            prim = prims[i]
            if not isinstance(prim, dict) or "op" not in prim:
                self.fail(f"{path}[{i}]", "expected an object with 'op' and 'parameters'")
            op = prim["op"]
            if op == "_jump":
                self.fail(f"{path}[{i}]", "a _jump that does not end the then-part of an "
                          "if; only forward if/else jumps as p4c writes them are loaded")
            if op != "_jump_if_zero":
                out.append(self.primitive(prim, f"{path}[{i}]", params))
                i += 1
                continue
            args = prim.get("parameters") or []
            if len(args) != 2:
                self.fail(f"{path}[{i}].parameters", "_jump_if_zero takes a condition and "
                          "an offset")
            cond = as_bool(self.value(args[0], f"{path}[{i}].parameters[0]", params))
            target = self._jump_target(prim, i, path, params)
            if not i < target <= end:
                self.fail(f"{path}[{i}]", f"jump to {target}, outside the enclosing block "
                          f"[{i + 1}, {end}]; only forward jumps are loaded")
            then_end = after = target
            last = prims[target - 1] if target - 1 > i else None
            if isinstance(last, dict) and last.get("op") == "_jump":
                j = self._jump_target(last, target - 1, path, params)
                if not target <= j <= end:
                    self.fail(f"{path}[{target - 1}]", f"jump to {j}, outside the "
                              f"enclosing block [{target}, {end}]")
                then_end, after = target - 1, j
            then = ir.Block(NOLOC, self._range(prims, i + 1, then_end, path, params))
            other = ir.Block(NOLOC, self._range(prims, target, after, path, params)) \
                if after > target else None
            out.append(ir.If(NOLOC, cond, then, other))
            i = after
        return out

    def primitive(self, prim, path: str, params) -> ir.Stmt:
        self.at = path
        if not isinstance(prim, dict) or not isinstance(prim.get("op"), str):
            self.fail(path, "expected an object with 'op' and 'parameters'")
        op = prim["op"]
        raw = prim.get("parameters", [])
        if not isinstance(raw, list):
            self.fail(f"{path}.parameters", "expected a list")

        def arg(i):
            if i >= len(raw):
                self.fail(f"{path}.parameters", f"{op} needs at least {i + 1} parameters")
            return self.value(raw[i], f"{path}.parameters[{i}]", params)

        def name(i, kind):
            if i >= len(raw) or not isinstance(raw[i], dict) or raw[i].get("type") != kind:
                self.fail(f"{path}.parameters[{i}]", f"{op} needs a {kind} here")
            return raw[i]["value"]

        def call(kind, method, args, **kw):
            return ir.CallStmt(NOLOC, ir.Call(ir.VoidT(), NOLOC, kind, method, args, **kw))

        def method(extern, inst, m, args):
            return call("extern_method", m, args, extern=extern,
                        target=ir.Var(ir.ExternT(extern), NOLOC, inst))

        sm = ir.Var(self.sm_type, NOLOC, "standard_metadata")
        if op in ("assign", "modify_field", "assign_header"):
            dst, src = arg(0), arg(1)
            self.check_lvalue(dst, f"{path}.parameters[0]")
            return ir.Assign(NOLOC, dst, converted(src, dst.type))
        if op in ("add_to_field", "subtract_from_field"):
            dst, v = arg(0), arg(1)
            self.check_lvalue(dst, f"{path}.parameters[0]")
            w = _bits(dst.type) + 1
            total = ir.Binary(ir.BitT(w), NOLOC, "+" if op == "add_to_field" else "-", dst, v)
            return ir.Assign(NOLOC, dst, converted(total, dst.type))
        if op in ("add_header", "remove_header"):
            return call("builtin", "setValid" if op == "add_header" else "setInvalid", [],
                        target=arg(0))
        if op in ("push", "pop"):
            return call("builtin", "push_front" if op == "push" else "pop_front",
                        [converted(arg(1), ir.BitT(32))], target=arg(0))
        if op in ("mark_to_drop", "drop"):
            return call("extern_function", "mark_to_drop", [sm])
        if op == "exit":
            return ir.Exit(NOLOC)
        if op == "no_op":
            return ir.Block(NOLOC, [])
        if op == "count":
            inst = self.instance(name(0, "counter_array"), "counter", f"{path}.parameters[0]")
            return method("counter", inst, "count", [converted(arg(1), ir.BitT(32))])
        if op == "execute_meter":
            inst = self.instance(name(0, "meter_array"), "meter", f"{path}.parameters[0]")
            return method("meter", inst, "execute_meter",
                          [converted(arg(1), ir.BitT(32)), arg(2)])
        if op == "register_read":
            inst = self.instance(name(1, "register_array"), "register", f"{path}.parameters[1]")
            dst = arg(0)
            return method("register", inst, "read", [dst, converted(arg(2), ir.BitT(32))])
        if op == "register_write":
            inst = self.instance(name(0, "register_array"), "register", f"{path}.parameters[0]")
            return method("register", inst, "write", [converted(arg(1), ir.BitT(32)),
                                                      converted(arg(2), self.cell_type(inst))])
        if op == "modify_field_with_hash_based_offset":
            algo, data = self.calculation(name(2, "calculation"), f"{path}.parameters[2]")
            return call("extern_function", "hash", [arg(0), algo, arg(1), data, arg(3)])
        if op in ("clone_ingress_pkt_to_egress", "clone_egress_pkt_to_egress"):
            kind = ir.EnumConst(self.v1type("CloneType"), NOLOC,
                                "I2E" if op.startswith("clone_ingress") else "E2E")
            if len(raw) > 1:
                return call("extern_function", "clone_preserving_field_list",
                            [kind, arg(0), self.field_list(arg(1), f"{path}.parameters[1]")])
            return call("extern_function", "clone", [kind, arg(0)])
        if op in ("resubmit", "recirculate", "resubmit_preserving_field_list",
                  "recirculate_preserving_field_list"):
            fl = self.field_list(arg(0), f"{path}.parameters[0]") if raw else const(0, 8)
            return call("extern_function", f"{op.split('_')[0]}_preserving_field_list", [fl])
        if op == "generate_digest":
            return self.digest(arg(0), raw[1] if len(raw) > 1 else None,
                               f"{path}.parameters[1]")
        if op == "truncate":
            return call("extern_function", "truncate", [converted(arg(0), ir.BitT(32))])
        if op == "modify_field_rng_uniform":
            return call("extern_function", "random", [arg(0), arg(1), arg(2)])
        if op == "log_msg":
            values = raw[1].get("value", []) if len(raw) > 1 and isinstance(raw[1], dict) \
                else []
            elems = [self.value(v, f"{path}.parameters[1].value[{i}]", params)
                     for i, v in enumerate(values)]
            return call("extern_function", "log_msg", [arg(0), ir.ListExpr(
                ir.TupleT(tuple(e.type for e in elems)), NOLOC, elems)])
        if op in ("assert", "assume"):
            return call("extern_function", op, [as_bool(arg(0))])
        self.fail(f"{path}.op", f"primitive {op!r} is not supported by this target; the "
                  "v1model primitives it loads are assign, modify_field, assign_header, "
                  "add_to_field, subtract_from_field, add_header, remove_header, push, pop, "
                  "mark_to_drop, drop, exit, count, execute_meter, register_read, "
                  "register_write, modify_field_with_hash_based_offset, clone_*, resubmit, "
                  "recirculate, generate_digest, truncate, log_msg, assert and assume")

    def check_lvalue(self, e: ir.Expr, path: str) -> None:
        if not isinstance(e, (ir.Member, ir.Index, ir.Var)) or \
                isinstance(e.type, ir.ExternT):
            self.fail(path, "the destination must be a field or a header")
