"""Type helpers of the frontend: printing, width rules, constant normalization.

``TypeVar`` stands for an unbound type parameter of a generic extern, function or method
while a call is checked; it never reaches the IR.
"""
from __future__ import annotations

from dataclasses import dataclass

from testbed.p4 import ir


@dataclass(frozen=True)
class TypeVar(ir.Type):
    name: str


@dataclass(frozen=True)
class BlockT(ir.Type):
    """Type of a parser/control/package instance (constructor result)."""
    kind: str          # "parser", "control", "package"
    name: str


def show(t) -> str:
    """The type as P4 source spells it, for diagnostics."""
    if isinstance(t, ir.BitT):
        return f"bit<{t.width}>"
    if isinstance(t, ir.IntT):
        return f"int<{t.width}>"
    if isinstance(t, ir.VarbitT):
        return f"varbit<{t.max_width}>"
    if isinstance(t, ir.InfIntT):
        return "int"
    if isinstance(t, ir.BoolT):
        return "bool"
    if isinstance(t, ir.StringT):
        return "string"
    if isinstance(t, ir.VoidT):
        return "void"
    if isinstance(t, ir.ErrorT):
        return "error"
    if isinstance(t, ir.MatchKindT):
        return "match_kind"
    if isinstance(t, (ir.HeaderT, ir.StructT, ir.UnionT, ir.EnumT)):
        return t.name
    if isinstance(t, ir.StackT):
        return f"{show(t.elem)}[{t.size}]"
    if isinstance(t, ir.TupleT):
        return "tuple<" + ", ".join(show(e) for e in t.elems) + ">"
    if isinstance(t, ir.ExternT):
        if t.type_args:
            return f"{t.name}<" + ", ".join(show(a) for a in t.type_args) + ">"
        return t.name
    if isinstance(t, TypeVar):
        return t.name
    if isinstance(t, BlockT):
        return t.name
    if isinstance(t, ir.TableResultT):
        return f"result of {t.table}.apply()"
    if isinstance(t, ir.ActionEnumT):
        return f"action_list({t.table})"
    return type(t).__name__


_INCLUDE_HINTS = {
    "packet_in": "core.p4", "packet_out": "core.p4",
    "V1Switch": "v1model.p4", "standard_metadata_t": "v1model.p4", "register": "v1model.p4",
    "counter": "v1model.p4", "direct_counter": "v1model.p4", "meter": "v1model.p4",
    "direct_meter": "v1model.p4", "action_profile": "v1model.p4",
    "action_selector": "v1model.p4", "HashAlgorithm": "v1model.p4", "CloneType": "v1model.p4",
    "CounterType": "v1model.p4", "MeterType": "v1model.p4", "PortId_t": "v1model.p4",
}


def unknown_type(name: str) -> str:
    """Message for an undeclared type name, with the #include that declares it if known."""
    include = _INCLUDE_HINTS.get(name)
    return f"unknown type '{name}'" + (f"; add #include <{include}>" if include else "")


def is_numeric(t) -> bool:
    return isinstance(t, (ir.BitT, ir.IntT, ir.InfIntT))


def is_fixed(t) -> bool:
    return isinstance(t, (ir.BitT, ir.IntT))


def width_of(t) -> int:
    """Width in bits of a fixed-size type (headers/structs: sum of their fields)."""
    if isinstance(t, (ir.BitT, ir.IntT)):
        return t.width
    if isinstance(t, ir.BoolT):
        return 1
    if isinstance(t, ir.VarbitT):
        return t.max_width
    if isinstance(t, ir.EnumT) and t.underlying is not None:
        return width_of(t.underlying)
    if isinstance(t, (ir.HeaderT, ir.StructT)):
        return sum(width_of(f.type) for f in t.fields)
    if isinstance(t, ir.UnionT):
        return max((width_of(f.type) for f in t.fields), default=0)
    if isinstance(t, ir.StackT):
        return width_of(t.elem) * t.size
    if isinstance(t, ir.TupleT):
        return sum(width_of(e) for e in t.elems)
    if isinstance(t, ir.ErrorT):
        return 32
    return 0


def normalize(value: int, t) -> int:
    """Wrap an integer into the value range of type ``t``."""
    if isinstance(t, ir.BitT):
        return value & ((1 << t.width) - 1) if t.width > 0 else 0
    if isinstance(t, ir.IntT):
        if t.width == 0:
            return 0
        value &= (1 << t.width) - 1
        return value - (1 << t.width) if value >> (t.width - 1) else value
    if isinstance(t, ir.BoolT):
        return 1 if value else 0
    return value


def field_type(t, name: str):
    for f in getattr(t, "fields", ()):
        if f.name == name:
            return f.type
    return None


def substitute(t, bindings: dict):
    if isinstance(t, TypeVar):
        return bindings.get(t.name, t)
    if isinstance(t, ir.TupleT):
        return ir.TupleT(tuple(substitute(e, bindings) for e in t.elems))
    if isinstance(t, ir.StackT):
        return ir.StackT(substitute(t.elem, bindings), t.size)
    if isinstance(t, ir.ExternT):
        return ir.ExternT(t.name, tuple(substitute(a, bindings) for a in t.type_args))
    return t


def has_typevar(t) -> bool:
    if isinstance(t, TypeVar):
        return True
    if isinstance(t, ir.TupleT):
        return any(has_typevar(e) for e in t.elems)
    if isinstance(t, ir.StackT):
        return has_typevar(t.elem)
    if isinstance(t, ir.ExternT):
        return any(has_typevar(a) for a in t.type_args)
    return False


def unify(param, arg, bindings: dict) -> bool:
    """Bind type variables of ``param`` so it equals ``arg``; False on a mismatch."""
    if isinstance(param, TypeVar):
        bound = bindings.get(param.name)
        if bound is None:
            if isinstance(arg, ir.InfIntT):
                return True          # decided later, from other arguments or left as int
            bindings[param.name] = arg
            return True
        return bound == arg or isinstance(arg, ir.InfIntT)
    if isinstance(param, ir.TupleT) and isinstance(arg, ir.TupleT):
        return len(param.elems) == len(arg.elems) and all(
            unify(p, a, bindings) for p, a in zip(param.elems, arg.elems))
    if isinstance(param, ir.StackT) and isinstance(arg, ir.StackT):
        return param.size == arg.size and unify(param.elem, arg.elem, bindings)
    return True
