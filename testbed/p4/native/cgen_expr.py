"""C code generation for P4 expressions (mixed into :class:`cgen.CGen`).

Every scalar is a ``uint64_t`` holding the value's bit pattern: ``bit<W>`` and ``int<W>``
masked to W bits (two's complement for ``int``, so ``+ - * & | ^`` need only the mask),
``bool`` 0/1, errors and enums as the reference backend numbers them. Signed compares,
shifts and divisions sign-extend first (``SX``). Widths above 64 bits are not supported.
"""
from __future__ import annotations

from testbed.p4 import ir

MAX_WIDTH = 128          # bit<W>; int<W> up to 64
WORD = 64               # wider values are u128 (unsigned __int128)
MAX_KEYS = 8             # runtime.c's MAXK: fields of a table key or a value_set


def mask(w: int) -> str:
    return f"MASK128({w})" if w > WORD else f"UINT64_C({(1 << w) - 1:#x})"


def get_code(buf: str, pos, w: int) -> str:
    """C reading ``w`` bits at bit ``pos`` of ``buf``."""
    return f"get_{'wide' if w > WORD else 'bits'}({buf}, {pos}, {w})"


def put_code(buf: str, pos, w: int, value: str) -> str:
    """C writing the low ``w`` bits of ``value`` at bit ``pos`` of a zeroed ``buf``."""
    return f"put_{'wide' if w > WORD else 'bits'}({buf}, {pos}, {w}, {value});"


def span(bit: int, w: int) -> tuple:
    """(first byte, bytes, right shift) of ``w`` bits at constant bit offset ``bit``."""
    first, phase = divmod(bit, 8)
    nbytes = (phase + w + 7) // 8
    return first, nbytes, 8 * nbytes - phase - w


def split(bit: int, w: int) -> int:
    """Bits of a field of ``w`` bits at constant bit offset ``bit`` that lie in its
    first byte when the field spans 9 bytes (at most 64 bits, not starting on a byte), so
    the rest starts on a byte; 0 when it fits 8 bytes."""
    return 8 - bit % 8 if bit % 8 + w > WORD else 0


def get_known(p: str, bit: int, w: int) -> str | None:
    """C reading ``w`` bits at constant bit offset ``bit`` from the byte pointer ``p``:
    one big-endian load of the bytes they span (a shift and a mask when they do not fill
    them; a field over 9 bytes in two such parts), or None for a value over 64 bits."""
    if w > WORD:
        return None
    head = split(bit, w)
    if head:
        return (f"({get_known(p, bit, head)} << {w - head} | "
                f"{get_known(p, bit + head, w - head)})")
    first, nbytes, shift = span(bit, w)
    load = f"get_bytes({p} + {first}, {nbytes})"
    return load if shift == 0 and w == 8 * nbytes else f"(({load} >> {shift}) & {mask(w)})"


def put_known(p: str, bit: int, w: int, value: str, zeroed: bool = True) -> str | None:
    """C writing the low ``w`` bits of ``value`` at constant bit offset ``bit`` of the
    bytes at ``p``: a big-endian store of whole bytes, else ORed into the bytes they span
    (``zeroed``), or, where fields are written in order and the bytes after the previous
    one are not zeroed, stored beside the previous field's bits in its last byte (a field
    over 9 bytes in two such parts); None for a value over 64 bits."""
    if w > WORD:
        return None
    head = split(bit, w)
    if head:
        return (put_known(p, bit, head, f"(({value}) >> {w - head})", zeroed) + " "
                + put_known(p, bit + head, w - head, value, zeroed))
    first, nbytes, shift = span(bit, w)
    if shift == 0 and w == 8 * nbytes:
        return f"put_bytes({p} + {first}, {nbytes}, {value});"
    value = f"((({value}) & {mask(w)}) << {shift})"
    if zeroed:
        return (f"put_bytes({p} + {first}, {nbytes}, get_bytes({p} + {first}, {nbytes}) | "
                f"{value});")
    if bit % 8 == 0:
        return f"put_bytes({p} + {first}, {nbytes}, {value});"
    return (f"put_bytes({p} + {first}, {nbytes}, get_bytes({p} + {first}, 1) << "
            f"{8 * nbytes - 8} | {value});")


def varbit_bytes(t: ir.VarbitT) -> int:
    """Bytes of a varbit<N> value's C array."""
    return (t.max_width + 7) // 8


def is_composite(t) -> bool:
    return isinstance(t, (ir.HeaderT, ir.StructT, ir.UnionT, ir.StackT, ir.TupleT))


def tuple_fields(t: ir.TupleT) -> list:
    """A tuple's elements as the fields of its C struct: e0, e1, ..."""
    return [ir.Field(f"{i}", et) for i, et in enumerate(t.elems)]


class CScope:
    """What names mean in the C function being generated."""

    def __init__(self, block, leave: str):
        self.block = block
        self.vars = {}                 # P4 variable name -> C lvalue
        self.leave = leave             # C statement that ends the function's P4 block
        self.ret_type = None           # a function's return type
        self.hoisted = {}              # C of a field an action reads once -> its local
        self.rows = {}                 # (register group, index C) -> (read, write) row
        self.tmp = 0

    def fresh(self, base="t") -> str:
        self.tmp += 1
        return f"_{base}{self.tmp}"


class CExprGen:
    def width(self, t, loc) -> int:
        if isinstance(t, (ir.ErrorT,)):
            return 32
        if isinstance(t, ir.EnumT) and t.underlying is None:
            return 32
        w = ir.fixed_width(t)
        limit = WORD if isinstance(t, ir.IntT) else MAX_WIDTH
        if w > limit:
            kind = "int" if isinstance(t, ir.IntT) else "bit"
            self.unsupported(f"a {w}-bit value (the native backend handles {kind}<W> up to "
                             f"{limit} bits)", loc)
        return w

    def narrow(self, t, loc, what: str) -> int:
        """The width of ``t`` where the native backend holds one 64-bit word (table
        keys, action data, registers, digests, select keys)."""
        w = self.width(t, loc)
        if w > WORD:
            self.unsupported(f"{what} of {w} bits (the native backend handles up to {WORD} "
                             "bits there)", loc)
        return w

    def x_Const(self, e, s):
        if isinstance(e.type, ir.InfIntT):
            return f"((uint64_t)INT64_C({e.value}))"
        if isinstance(e.type, ir.BoolT):
            return "1" if e.value else "0"
        w = self.width(e.type, e.loc)
        v = e.value & ((1 << w) - 1)
        if w > WORD:
            return f"(((u128)UINT64_C({v >> 64:#x}) << 64) | UINT64_C({v & ((1 << 64) - 1):#x}))"
        return f"UINT64_C({v:#x})"

    def x_ErrorConst(self, e, s):
        return str(self.err(e.name))

    def x_EnumConst(self, e, s):
        t = e.type
        idx = t.members.index(e.member)
        if t.underlying is not None and t.values:
            return f"UINT64_C({t.values[idx] & ((1 << ir.fixed_width(t.underlying)) - 1):#x})"
        return str(idx)

    def x_Var(self, e, s):
        if e.name not in s.vars:
            self.unsupported(f"variable {e.name!r} outside its scope", e.loc)
        return s.vars[e.name]

    def x_Member(self, e, s):
        if isinstance(e.expr, ir.Call) and e.expr.kind == "table_apply":
            r = f"{self.table_fn(e.expr.method)}(P)"
            if e.field == "hit":
                return f"({r}.hit)"
            if e.field == "miss":
                return f"(!{r}.hit)"
            self.unsupported("action_run outside a switch", e.loc)
        base_t = e.expr.type
        if isinstance(base_t, ir.StackT):
            return self.stack_member(e, s)
        if isinstance(base_t, ir.UnionT):
            return f"{self.expr(e.expr, s)}.f_{e.field}"
        if isinstance(base_t, ir.TupleT):
            return f"{self.expr(e.expr, s)}.e{e.field}"
        if not isinstance(base_t, (ir.HeaderT, ir.StructT)):
            self.unsupported(f"member {e.field} of {type(base_t).__name__}", e.loc)
        code = f"{self.expr(e.expr, s)}.f_{e.field}"
        return s.hoisted.get(code, code)

    def union_others_invalid(self, member, s, ind) -> None:
        """``member`` of a header_union becomes the valid one: the others go invalid."""
        if isinstance(member, ir.Member) and isinstance(member.expr.type, ir.UnionT):
            u = self.expr(member.expr, s)
            for f in member.expr.type.fields:
                if f.name != member.field:
                    self.emit(ind, f"{u}.f_{f.name}._v = 0;")

    # ------------------------------------------------------------ header stacks
    def stack_member(self, e, s) -> str:
        base, size = self.expr(e.expr, s), e.expr.type.size
        if e.field == "size":
            return f"UINT64_C({size})"
        if e.field == "nextIndex":
            return f"((uint64_t){base}.next)"
        if e.field == "lastIndex":
            return f"((uint64_t)({base}.next - 1) & UINT64_C(0xFFFFFFFF))"
        if e.field in ("next", "last"):
            index = f"{base}.next" if e.field == "next" else f"(uint64_t)({base}.next - 1)"
            return self.stack_at(base, size, index, e, s)
        self.unsupported(f"stack member {e.field}", e.loc)

    def x_Index(self, e, s):
        base, size = self.expr(e.expr, s), e.expr.type.size
        if isinstance(e.index, ir.Const):
            return f"{base}.h[{e.index.value}]"
        return self.stack_at(base, size, self.expr(e.index, s), e, s)

    def stack_at(self, base: str, size: int, index: str, e, s) -> str:
        """The element ``index`` of a stack, an lvalue; out of bounds, the parser fails
        with StackOutOfBounds and a control drops the packet, as the reference does."""
        if self.in_parser:
            out = f"_err = {self.err('StackOutOfBounds')}; goto _fail;"
        elif s.leave in ("return", "goto _end"):
            out = f"P->failed = FAILED_STACK; P->stop = 1; {s.leave};"
        else:
            self.unsupported("a stack index computed at run time here", e.loc)
        i = s.fresh("i")
        return (f"(*({{ uint64_t {i} = {index}; if ({i} >= {size}) {{ {out} }} "
                f"&{base}.h[{i}]; }}))")

    def x_Slice(self, e, s):
        w = e.hi - e.lo + 1
        return f"(({self.expr(e.expr, s)} >> {e.lo}) & {mask(w)})"

    def wrap(self, code: str, t) -> str:
        if isinstance(t, (ir.BitT, ir.IntT)):
            return f"(({code}) & {mask(t.width)})"
        return f"({code})"

    def signed(self, code: str, t) -> str:
        return f"SX({code}, {t.width})" if isinstance(t, ir.IntT) else f"(int64_t)({code})"

    def x_Unary(self, e, s):
        a = self.expr(e.expr, s)
        if e.op == "!":
            return f"(!{a})"
        if e.op == "+":
            return a
        if e.op in ("-", "~"):
            return self.wrap(f"{e.op}{a}", e.type)
        self.unsupported(f"unary operator {e.op}", e.loc)

    def x_Binary(self, e, s):
        op, t = e.op, e.type
        if op in ("==", "!=") and (is_composite(e.left.type)
                                    or isinstance(e.left.type, ir.VarbitT)):
            if not all(isinstance(x, (ir.Var, ir.Member, ir.Index)) for x in (e.left, e.right)):
                self.unsupported(f"{op} on a {type(e.left.type).__name__[:-1].lower()} "
                                 "value that is not a variable or field", e.loc)
            if isinstance(e.left.type, ir.VarbitT):
                # values and widths, read off the headers holding them
                if not all(isinstance(x, ir.Member) for x in (e.left, e.right)):
                    self.unsupported(f"{op} on a varbit value outside a header", e.loc)
                eq = self.varbit_eq(self.expr(e.left.expr, s), self.expr(e.right.expr, s),
                                    e.left.field, e.left.type)
            else:
                eq = self.eq_code(self.expr(e.left, s), self.expr(e.right, s), e.left.type)
            return eq if op == "==" else f"(!{eq})"
        if is_composite(e.left.type):
            self.unsupported(f"{op} on {type(e.left.type).__name__}", e.loc)
        a, b = self.expr(e.left, s), self.expr(e.right, s)
        lt = e.left.type
        if op in ("&&", "||"):
            return f"({a} {op} {b})"
        if op in ("==", "!="):
            return f"({a} {op} {b})"
        if op in ("<", "<=", ">", ">="):
            if isinstance(lt, ir.IntT):
                return f"({self.signed(a, lt)} {op} {self.signed(b, lt)})"
            return f"({a} {op} {b})"
        if op == "++":
            wl, wr = self.width(lt, e.loc), self.width(e.right.type, e.loc)
            cast = "(u128)" if self.width(t, e.loc) > WORD else ""
            return self.wrap(f"({cast}({a} & {mask(wl)}) << {wr}) | ({b} & {mask(wr)})", t)
        if op in ("+", "-", "*"):
            return self.wrap(f"{a} {op} {b}", t)
        if op in ("&", "|", "^"):
            return f"({a} {op} {b})"
        if op in ("/", "%"):
            if isinstance(t, ir.IntT):
                fn = "floor_div" if op == "/" else "floor_mod"
                return self.wrap(f"(uint64_t){fn}({self.signed(a, t)}, {self.signed(b, t)})", t)
            if isinstance(t, ir.InfIntT):
                self.unsupported(f"{op} on integers without a width", e.loc)
            return f"({b} ? {a} {op} {b} : 0)"
        if op in ("|+|", "|-|"):
            self.narrow(t, e.loc, "saturating arithmetic")
            if isinstance(t, ir.BitT):
                return (f"sat_add_u({a}, {b}, {t.width})" if op == "|+|"
                        else f"sat_sub_u({a}, {b})")
            sign = "+" if op == "|+|" else "-"
            return (f"sat_signed((__int128){self.signed(a, t)} {sign} "
                    f"(__int128){self.signed(b, t)}, {t.width})")
        if op in ("<<", ">>"):
            if isinstance(t, ir.InfIntT):
                self.unsupported(f"{op} on integers without a width", e.loc)
            w = t.width
            n = s.fresh("n")
            if op == "<<":
                return f"({{ uint64_t {n} = {b}; {n} >= {w} ? 0 : (({a} << {n}) & {mask(w)}); }})"
            if isinstance(t, ir.IntT):
                return (f"({{ uint64_t {n} = {b}; ((uint64_t)({self.signed(a, t)} >> "
                        f"({n} > 63 ? 63 : {n}))) & {mask(w)}; }})")
            return f"({{ uint64_t {n} = {b}; {n} >= {w} ? 0 : ({a} >> {n}); }})"
        self.unsupported(f"operator {op}", e.loc)

    def varbit_eq(self, ha: str, hb: str, name: str, t) -> str:
        return (f"({ha}.w_{name} == {hb}.w_{name} && "
                f"memcmp({ha}.f_{name}.b, {hb}.f_{name}.b, {varbit_bytes(t)}) == 0)")

    def eq_code(self, a: str, b: str, t) -> str:
        """P4 ``==`` of two lvalues of type ``t``: headers equal when both are invalid or
        both valid with equal fields, structs, unions, tuples field by field, stacks
        element by element, as the reference does."""
        def all_of(parts):
            return "(" + " && ".join(parts) + ")" if parts else "1"
        if isinstance(t, ir.HeaderT):
            parts = [self.varbit_eq(a, b, f.name, f.type) if isinstance(f.type, ir.VarbitT)
                     else self.eq_code(f"{a}.f_{f.name}", f"{b}.f_{f.name}", f.type)
                     for f in t.fields]
            return f"({a}._v == {b}._v && (!{a}._v || {all_of(parts)}))"
        if isinstance(t, (ir.StructT, ir.UnionT)):
            return all_of([self.eq_code(f"{a}.f_{f.name}", f"{b}.f_{f.name}", f.type)
                           for f in t.fields])
        if isinstance(t, ir.TupleT):
            return all_of([self.eq_code(f"{a}.e{i}", f"{b}.e{i}", et)
                           for i, et in enumerate(t.elems)])
        if isinstance(t, ir.StackT):
            return all_of([self.eq_code(f"{a}.h[{i}]", f"{b}.h[{i}]", t.elem)
                           for i in range(t.size)])
        return f"({a} == {b})"

    def x_Cast(self, e, s):
        a = self.expr(e.expr, s)
        t, src = e.type, e.expr.type
        if isinstance(t, ir.BoolT):
            return f"({a} != 0)"
        if isinstance(src, ir.BoolT) or isinstance(src, ir.EnumT):
            return a
        if isinstance(t, (ir.BitT, ir.IntT)):
            w = self.width(t, e.loc)
            if isinstance(src, ir.IntT) and src.width < w:
                word = "(u128)(__int128)" if w > WORD else "(uint64_t)"
                return f"({word}SX({a}, {src.width}) & {mask(w)})"
            if isinstance(src, ir.InfIntT):
                return f"({a} & {mask(w)})"
            return f"({a} & {mask(w)})"
        return a

    def x_Mux(self, e, s):
        if is_composite(e.type):
            self.unsupported("?: on headers or structs", e.loc)
        return f"({self.expr(e.cond, s)} ? {self.expr(e.then, s)} : {self.expr(e.other, s)})"

    def x_Call(self, e, s):
        if e.kind == "builtin" and e.method == "isValid":
            if isinstance(e.target.type, ir.UnionT):
                u = self.expr(e.target, s)
                return "(" + " || ".join(f"{u}.f_{f.name}._v" for f in e.target.type.fields) + ")"
            if not isinstance(e.target.type, ir.HeaderT):
                self.unsupported(f"isValid() of {type(e.target.type).__name__}", e.loc)
            return f"({self.expr(e.target, s)}._v)"
        if e.kind == "builtin" and e.method in ("minSizeInBits", "minSizeInBytes"):
            bits = ir.fixed_width(e.target.type)
            return str(bits if e.method == "minSizeInBits" else (bits + 7) // 8)
        if e.kind == "table_apply":
            return f"{self.table_fn(e.method)}(P)"
        if e.kind == "function":
            return self.function_call(e, s)
        if e.kind == "extern_method" and e.method == "lookahead" and self.in_parser:
            t = e.type_args[0] if e.type_args else e.type
            short = f"if (_o + {{}} > _n) {{{{ _err = {self.err('PacketTooShort')}; goto _fail; }}}}"
            if isinstance(t, ir.HeaderT):
                v, pos = s.fresh("la"), 0
                code = [f"{self.ctype(t, e.loc)} {v};",
                        short.format(self.width_fields(t, e.loc))]
                for path, fw in wire_fields(t):
                    code.append(f"{v}{path} = {get_code('_d', f'_o + {pos}', fw)};")
                    pos += fw
                return f"({{ {' '.join(code)} {v}._v = 1; {v}; }})"
            if not isinstance(t, (ir.BitT, ir.IntT)):
                self.unsupported(f"lookahead of {type(t).__name__}", e.loc)
            w = self.width(t, e.loc)
            return f"({{ {short.format(w)} {get_code('_d', '_o', w)}; }})"
        self.unsupported(f"{e.kind} {e.method} as an expression", e.loc)


def wire_fields(t) -> list:
    """(C member path, bits) of each scalar of a header in wire order, through the
    structs a header may hold (``header h { pair_t p; }``: ``.f_p.f_x``)."""
    out = []
    for f in t.fields:
        if isinstance(f.type, ir.StructT):
            out += [(f".f_{f.name}{path}", w) for path, w in wire_fields(f.type)]
        else:
            out.append((f".f_{f.name}", ir.fixed_width(f.type)))
    return out
