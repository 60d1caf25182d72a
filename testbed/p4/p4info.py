"""P4Info of a v1model or PSA program, as p4c's ``--p4runtime-files`` writes it.

Ids are computed the way p4c computes them, so a controller written against BMv2's
P4Info of the same program works unchanged:

* an ``@id`` annotation wins (the 8-bit type prefix is added when missing);
* every other object gets ``prefix << 24 | jenkins_one_at_a_time(name) & 0xffffff``;
  names are hashed per object type in sorted order and a collision takes the next free
  hash value (linear probing), so the result does not depend on declaration order;
* match fields, action parameters and packet-IO metadata are numbered from 1 in
  declaration order, skipping ids taken by ``@id``.

Aliases are the shortest dot-separated suffix of the name that no other P4Runtime
symbol of the program shares. ``@hidden`` objects take part in naming but are omitted.

An action profile or selector constructed in a table property is named by the
property's ``@name`` as written (p4c refuses one without; trainet names it
``Control.table_property``); a selector's ``@max_group_size`` and
``@selector_size_semantics`` fill its group limits, a plain profile ignores them. A type
spec naming ``error`` brings the program's errors into ``type_info.error``. An enum is
described in ``type_info`` when P4Info names it: as the type of a match field, an action
parameter, packet I/O metadata, a register's cells or a digest (p4c converts exactly
those types). Match field ids count selector keys, which P4Info then omits.
"""
from __future__ import annotations

import dataclasses

from pathlib import Path

from google.protobuf import json_format, text_format
from google.protobuf.message import DecodeError
from p4.config.v1 import p4info_pb2, p4types_pb2

from testbed.errors import TrainetError
from testbed.p4 import ir

P = p4info_pb2.P4Ids
MATCH_TYPES = {
    "exact": p4info_pb2.MatchField.EXACT,
    "lpm": p4info_pb2.MatchField.LPM,
    "ternary": p4info_pb2.MatchField.TERNARY,
    "range": p4info_pb2.MatchField.RANGE,
    "optional": p4info_pb2.MatchField.OPTIONAL,
}
COUNTER_UNITS = {"packets": p4info_pb2.CounterSpec.PACKETS,
                 "bytes": p4info_pb2.CounterSpec.BYTES,
                 "packets_and_bytes": p4info_pb2.CounterSpec.BOTH}
METER_UNITS = {"packets": p4info_pb2.MeterSpec.PACKETS, "bytes": p4info_pb2.MeterSpec.BYTES}
# p4c's --p4runtime-files picks the format by the extension; so do write and read
FORMATS = {".txt": "text", ".txtpb": "text", ".pbtxt": "text", ".json": "json",
           ".bin": "binary", ".pb": "binary"}
# annotations P4Info carries elsewhere (name, id, doc) or that only steer the compiler
_NOT_COPIED = {"name", "id", "hidden", "brief", "description", "match", "max_group_size",
               "selector_size_semantics", "max_member_weight"}


def jenkins_hash(name: str) -> int:
    """Bob Jenkins' one-at-a-time hash of the UTF-8 bytes of ``name`` (32 bits)."""
    h = 0
    for b in name.encode():
        h = (h + b) & 0xFFFFFFFF
        h = (h + (h << 10)) & 0xFFFFFFFF
        h ^= h >> 6
    h = (h + (h << 3)) & 0xFFFFFFFF
    h ^= h >> 11
    return (h + (h << 15)) & 0xFFFFFFFF


def type_width(t: ir.Type) -> int:
    """Bit width P4Info gives a value of type ``t`` (0 for types carried as strings)."""
    if isinstance(t, (ir.BitT, ir.IntT)):
        return t.width
    if isinstance(t, ir.BoolT):
        return 1
    if isinstance(t, ir.EnumT) and t.underlying is not None:
        return type_width(t.underlying)
    return 0


def _where(obj, name: str | None = None) -> str:
    """``file:line:col: name`` of a declaration (just the name where the IR has no place)."""
    loc = getattr(obj, "loc", ir.NOLOC)
    label = name or obj.name
    return label if loc == ir.NOLOC else f"{loc}: {label}"


def _id_annotation(obj, where: str) -> int | None:
    a = ir.annotation(obj.annotations, "id")
    if a is None:
        return None
    if len(a.body) != 1 or not isinstance(a.body[0], int) or not 0 < a.body[0] <= 0xFFFFFFFF:
        raise TrainetError(f"{where}: @id({', '.join(map(str, a.body))}) must be one unsigned "
                           "32-bit integer greater than 0; fix the annotation")
    return a.body[0]


def _hidden(annos) -> bool:
    return ir.annotation(annos, "hidden") is not None


def render_annotation(a: ir.Annotation) -> str:
    if not a.body:
        return f"@{a.name}"
    parts = [f'"{v}"' if isinstance(v, str) else str(v) for v in a.body]
    return f"@{a.name}({', '.join(parts)})"


def _copy_annotations(msg, annos) -> None:
    """Fill ``msg.annotations`` (and ``msg.doc`` when the message has one)."""
    for a in annos:
        if a.name not in _NOT_COPIED:
            msg.annotations.append(render_annotation(a))
    if not any(f.name == "doc" for f in msg.DESCRIPTOR.fields):
        return
    for key in ("brief", "description"):
        a = ir.annotation(annos, key)
        if a is not None and a.body:
            setattr(msg.doc, key, str(a.body[0]))


class _Symbols:
    """Names and ids of every P4Runtime object, assigned as p4c assigns them."""

    def __init__(self):
        self.names: dict[int, dict[str, int | None]] = {}   # prefix -> name -> explicit id
        self.ids: dict[tuple[int, str], int] = {}
        self._suffix_counts: dict[tuple[str, ...], int] = {}
        self.wheres: dict[str, str] = {}      # name -> place of its @id, for errors

    def add(self, prefix: int, name: str, explicit: int | None = None, where: str = "") -> None:
        table = self.names.setdefault(prefix, {})
        if name in table:
            return
        if explicit is not None:
            top = explicit >> 24
            if top and top != prefix:
                raise TrainetError(f"{where or name}: @id {explicit:#x} has type prefix "
                                   f"{top:#04x}, but this kind of object needs {prefix:#04x}; "
                                   "drop the prefix or use the right one")
            explicit |= prefix << 24
            self.wheres[name] = where or name
        table[name] = explicit
        parts = tuple(name.split("."))
        if not any(name in t for p, t in self.names.items() if p != prefix):
            for n in range(1, len(parts) + 1):
                key = parts[-n:]
                self._suffix_counts[key] = self._suffix_counts.get(key, 0) + 1

    def assign(self) -> None:
        taken: set[int] = set()
        for prefix, table in self.names.items():
            for name, explicit in table.items():
                if explicit is None:
                    continue
                if explicit in taken:
                    raise TrainetError(f"{self.wheres[name]}: @id {explicit:#x} is given to "
                                       "another object too; give each object its own @id")
                taken.add(explicit)
                self.ids[(prefix, name)] = explicit
        for prefix in sorted(self.names):
            for name in sorted(n for n, e in self.names[prefix].items() if e is None):
                h = jenkins_hash(name)
                while (prefix << 24 | h & 0xFFFFFF) in taken:
                    h = (h + 1) & 0xFFFFFFFF
                taken.add(prefix << 24 | h & 0xFFFFFF)
                self.ids[(prefix, name)] = prefix << 24 | h & 0xFFFFFF

    def id(self, prefix: int, name: str) -> int:
        return self.ids[(prefix, name)]

    def alias(self, name: str) -> str:
        parts = tuple(name.split("."))
        for n in range(1, len(parts) + 1):
            if self._suffix_counts.get(parts[-n:], 0) < 2:
                return ".".join(parts[-n:])
        return name


def _field_ids(items, owner: str) -> list[int]:
    """p4c's numbering of fields: @id first, then 1, 2, ... by position, skipping taken ids
    (a field with an @id still uses up its position's number)."""
    explicit = [_id_annotation(x, _where(x, f"{owner}: {x.name}")) for x in items]
    taken = {i for i in explicit if i is not None}
    out, index = [], 1
    for e in explicit:
        if e is not None:
            out.append(e)
            index += 1
            continue
        while index in taken:
            index += 1
        out.append(index)
        taken.add(index)
    return out


def _preamble(msg, symbols: _Symbols, prefix: int, name: str, annos=()) -> None:
    msg.preamble.id = symbols.id(prefix, name)
    msg.preamble.name = name
    msg.preamble.alias = symbols.alias(name)
    _copy_annotations(msg.preamble, annos)


def _const_int(expr, what: str) -> int:
    if isinstance(expr, ir.Const):
        return expr.value
    raise TrainetError(f"{getattr(expr, 'loc', '?')}: {what} must be a compile-time constant")


def _enum_member(expr) -> str:
    return expr.member.lower() if isinstance(expr, ir.EnumConst) else ""


class _TypeSpecs:
    """P4DataTypeSpec of IR types; named types land in ``info.type_info``."""

    def __init__(self, info: p4info_pb2.P4Info, errors=(), new_types=None):
        self.type_info = info.type_info
        self.errors = list(errors)
        self.new_types = new_types or {}

    def new_type(self, new: ir.NewType) -> tuple[str, int | None] | None:
        """Describe ``new`` in ``type_info.new_types``; its translation, as
        :func:`translated` gives it."""
        spec = self.type_info.new_types[new.name]
        translation = translated(new)
        if translation is None:
            spec.original_type.bitstring.bit.bitwidth = new.base.width
        else:
            uri, sdn_bits = translation
            spec.translated_type.uri = uri
            if sdn_bits is None:
                spec.translated_type.sdn_string.SetInParent()
            else:
                spec.translated_type.sdn_bitwidth = sdn_bits
        if not spec.annotations:
            _copy_annotations(spec, [a for a in new.annotations
                                     if a.name != "p4runtime_translation"])
        return translation

    def spec(self, t: ir.Type) -> p4types_pb2.P4DataTypeSpec:
        s = p4types_pb2.P4DataTypeSpec()
        if isinstance(t, ir.BitT) and t.name in self.new_types:
            s.new_type.name = t.name            # a `type` declaration, named as p4c does
            self.new_type(self.new_types[t.name])
        elif isinstance(t, ir.BitT):
            s.bitstring.bit.bitwidth = t.width
        elif isinstance(t, ir.IntT):
            s.bitstring.int.bitwidth = t.width
        elif isinstance(t, ir.VarbitT):
            s.bitstring.varbit.max_bitwidth = t.max_width
        elif isinstance(t, ir.BoolT):
            s.bool.SetInParent()
        elif isinstance(t, ir.ErrorT):
            s.error.SetInParent()
            # a type spec naming error brings the program's errors, in declaration order
            if not self.type_info.error.members:
                self.type_info.error.members.extend(self.errors)
        elif isinstance(t, ir.TupleT):
            for e in t.elems:
                s.tuple.members.add().CopyFrom(self.spec(e))
        elif isinstance(t, ir.StructT):
            s.struct.name = t.name
            if t.name not in self.type_info.structs:
                members = self.type_info.structs[t.name].members
                for f in t.fields:
                    m = members.add(name=f.name)
                    m.type_spec.CopyFrom(self.spec(f.type))
        elif isinstance(t, ir.HeaderT):
            s.header.name = t.name
            self._header(t)
        elif isinstance(t, ir.UnionT):
            s.header_union.name = t.name
            if t.name not in self.type_info.header_unions:
                members = self.type_info.header_unions[t.name].members
                for f in t.fields:
                    self._header(f.type)
                    members.add(name=f.name).header.name = f.type.name
        elif isinstance(t, ir.StackT) and isinstance(t.elem, ir.HeaderT):
            s.header_stack.header.name = t.elem.name
            s.header_stack.size = t.size
            self._header(t.elem)
        elif isinstance(t, ir.StackT) and isinstance(t.elem, ir.UnionT):
            s.header_union_stack.header_union.name = t.elem.name
            s.header_union_stack.size = t.size
            self.spec(t.elem)
        elif isinstance(t, ir.EnumT) and t.underlying is not None:
            s.serializable_enum.name = t.name
            if t.name not in self.type_info.serializable_enums:
                e = self.type_info.serializable_enums[t.name]
                width = type_width(t.underlying)
                e.underlying_type.bitwidth = width
                for name, value in zip(t.members, t.values):
                    nbytes = max((width + 7) // 8, 1)
                    e.members.add(name=name, value=(value % (1 << width)).to_bytes(nbytes, "big"))
        elif isinstance(t, ir.EnumT):
            s.enum.name = t.name
            if t.name not in self.type_info.enums:
                e = self.type_info.enums[t.name]
                for name in t.members:
                    e.members.add(name=name)
        else:
            raise TrainetError(f"a value of type {type(t).__name__} cannot be described in "
                               "P4Info; use bit<W>, int<W>, bool, a struct, a header or an enum")
        return s

    def _header(self, h: ir.HeaderT) -> None:
        if h.name in self.type_info.headers:
            return
        members = self.type_info.headers[h.name].members
        for f in flat_fields(h):
            m = members.add(name=f.name)
            ft = f.type
            if isinstance(ft, ir.IntT):
                m.type_spec.int.bitwidth = ft.width
            elif isinstance(ft, ir.VarbitT):
                m.type_spec.varbit.max_bitwidth = ft.max_width
            else:
                m.type_spec.bit.bitwidth = type_width(ft)


def flat_fields(h: ir.HeaderT) -> list[ir.Field]:
    """A header's fields with each struct-typed field replaced by its own fields, named
    ``field.member`` (p4c flattens headers so in type_info and packet I/O metadata)."""
    out = []
    for f in h.fields:
        if isinstance(f.type, ir.StructT):
            out += [ir.Field(f"{f.name}.{g.name}", g.type, g.annotations)
                    for g in flat_fields(f.type)]
        else:
            out.append(f)
    return out


def _controls(program: ir.Program) -> list[ir.Control]:
    """The package's controls in pipeline order."""
    order = [program.blocks.get(r) for r in
             ("verify_checksum", "ingress", "egress", "compute_checksum", "deparser")]
    named = [program.controls[n] for n in order if n in program.controls]
    return named + [c for c in program.controls.values() if c not in named]


def _digest_name(t: ir.Type, index: int) -> str:
    return t.name if isinstance(t, (ir.StructT, ir.HeaderT, ir.UnionT)) else f"digest_{index}"


def _controller_name(h: ir.HeaderT) -> str:
    a = ir.annotation(h.annotations, "controller_header")
    if a is None or len(a.body) != 1 or not isinstance(a.body[0], str):
        raise TrainetError(f"header {h.name}: @controller_header takes one string, "
                           'e.g. @controller_header("packet_in")')
    return a.body[0]


def _called_actions(node) -> set:
    """The actions called in an IR statement tree (not inside the actions themselves,
    which a control keeps apart from its body)."""
    found = set()
    stack = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, ir.Call) and x.kind == "action":
            found.add(x.method)
        if isinstance(x, (list, tuple)):
            stack.extend(x)
        elif dataclasses.is_dataclass(x) and not isinstance(x, type):
            stack.extend(getattr(x, f.name) for f in dataclasses.fields(x)
                         if not isinstance(getattr(x, f.name), (str, int, ir.Type)))
        elif isinstance(x, dict):
            stack.extend(x.values())
    return found


class _Builder:
    def __init__(self, program: ir.Program):
        self.program = program
        self.info = p4info_pb2.P4Info()
        self.info.pkg_info.arch = program.arch
        self.symbols = _Symbols()
        self.types = _TypeSpecs(self.info, program.errors, program.new_types)
        self.controls = _controls(program)
        self.instances = {i.name: i for c in self.controls for i in c.instances}
        self.actions = dict(program.actions)
        for c in self.controls:
            self.actions.update(c.actions)
        self.tables = [t for c in self.controls for t in c.tables.values()]
        # p4c lists the actions tables use and those a control's apply block calls (it
        # gives each such call a hidden table; an action only other actions call is
        # inlined and gone): top-level ones (NoAction) first, then each control's in
        # declaration order
        used = {ref.action for t in self.tables for ref in t.actions}
        for c in self.controls:
            used |= _called_actions(c.body)
        self.used_actions = [a for a in self.actions if a in used]

    def collect(self) -> None:
        s = self.symbols
        for name in self.used_actions:
            a = self.actions[name]
            s.add(P.ACTION, name, _id_annotation(a, _where(a)), _where(a))
        for t in self.tables:
            s.add(P.TABLE, t.name, _id_annotation(t, _where(t)), _where(t))
        for inst in self.instances.values():
            prefix = self._instance_prefix(inst)
            if prefix is not None:
                s.add(prefix, inst.name, _id_annotation(inst, _where(inst)), _where(inst))
        for p in self.program.parsers.values():
            for vs in p.value_sets:
                s.add(P.VALUE_SET, vs.name, _id_annotation(vs, _where(vs)), _where(vs))
        for i, t in enumerate(self.program.digests):
            s.add(P.DIGEST, _digest_name(t, i))
        for inst in self._digest_instances():
            s.add(P.DIGEST, inst.name, _id_annotation(inst, _where(inst)), _where(inst))
        for h in self.program.controller_headers:
            s.add(P.CONTROLLER_HEADER, h.name, _id_annotation(h, f"header {h.name}"),
                  f"header {h.name}")
        s.assign()

    @staticmethod
    def _instance_prefix(inst: ir.Instance) -> int | None:
        return {"counter": P.COUNTER, "direct_counter": P.DIRECT_COUNTER, "meter": P.METER,
                "direct_meter": P.DIRECT_METER, "register": P.REGISTER,
                "action_profile": P.ACTION_PROFILE,
                "action_selector": P.ACTION_PROFILE}.get(ir.resource_kind(inst.extern))

    def build(self) -> p4info_pb2.P4Info:
        self.collect()
        for t in self.tables:
            if not _hidden(t.annotations):
                self._table(t)
        for name in self.used_actions:
            if not _hidden(self.actions[name].annotations):
                self._action(self.actions[name])
        for inst in self.instances.values():
            if not _hidden(inst.annotations):
                self._instance(inst)
        for p in self.program.parsers.values():
            for vs in p.value_sets:
                if not _hidden(vs.annotations):
                    self._value_set(vs)
        for i, t in enumerate(self.program.digests):
            self._digest(t, i)
        for inst in self._digest_instances():
            if not _hidden(inst.annotations):
                self._digest(inst.type_args[0], 0, inst.name, inst.annotations)
        for h in self.program.controller_headers:
            if not _hidden(h.annotations):
                self._controller_header(h)
        return self.info

    def _describe(self, t: ir.Type) -> None:
        """Put a user type that P4Info names (an enum, serializable or not) in type_info,
        as p4c does for the types of match fields, action parameters and packet I/O
        metadata; plain bit<W> types need nothing."""
        if isinstance(t, ir.EnumT):
            self.types.spec(t)

    def _table(self, t: ir.Table) -> None:
        msg = self.info.tables.add()
        _preamble(msg, self.symbols, P.TABLE, t.name, t.annotations)
        # ids are numbered over every key element, selector keys too (which P4Info omits)
        for k, fid in zip(t.keys, _field_ids(t.keys, t.name)):
            if k.match_kind == "selector":
                continue
            self._describe(k.expr.type)
            mf = msg.match_fields.add(id=fid, name=k.name, bitwidth=type_width(k.expr.type))
            self._new_type(mf, k.expr.type)
            if k.match_kind in MATCH_TYPES:
                mf.match_type = MATCH_TYPES[k.match_kind]
            else:
                mf.other_match_type = k.match_kind
            _copy_annotations(mf, k.annotations)
        for ref in t.actions:
            ar = msg.action_refs.add(id=self.symbols.id(P.ACTION, ref.action))
            table_only = ir.annotation(ref.annotations, "tableonly") is not None
            default_only = ir.annotation(ref.annotations, "defaultonly") is not None
            if table_only and default_only:
                raise TrainetError(f"{ref.loc}: action {ref.action} in table {t.name} is both "
                                   "@tableonly and @defaultonly; keep one")
            if table_only:
                ar.scope = p4info_pb2.ActionRef.TABLE_ONLY
            elif default_only:
                ar.scope = p4info_pb2.ActionRef.DEFAULT_ONLY
            _copy_annotations(ar, ref.annotations)
        if t.default_const:
            msg.const_default_action_id = self.symbols.id(P.ACTION, t.default_action.action)
        self._initial_default_action(msg.initial_default_action, t.default_action)
        if t.implementation:
            msg.implementation_id = self.symbols.id(P.ACTION_PROFILE, t.implementation)
        if t.counters:
            msg.direct_resource_ids.append(self.symbols.id(P.DIRECT_COUNTER, t.counters))
        if t.meters:
            msg.direct_resource_ids.append(self.symbols.id(P.DIRECT_METER, t.meters))
        msg.size = t.size
        if t.entries:
            msg.has_initial_entries = True
            msg.is_const_table = t.entries_const

    def _initial_default_action(self, msg, ref: ir.ActionRef) -> None:
        """The default action and its arguments; each value in ``(width + 7) // 8`` bytes,
        as p4c writes constants."""
        msg.action_id = self.symbols.id(P.ACTION, ref.action)
        params = [p for p in self.actions[ref.action].params if p.direction == ""]
        for p, pid, arg in zip(params, _field_ids(params, ref.action), ref.args):
            value = _const_int(arg, f"{ref.loc}: the argument {p.name} of the default action")
            width = type_width(p.type)
            msg.arguments.add(param_id=pid, value=(value % (1 << width)).to_bytes(
                (width + 7) // 8, "big"))

    def _action(self, a: ir.Action) -> None:
        msg = self.info.actions.add()
        _preamble(msg, self.symbols, P.ACTION, a.name, a.annotations)
        params = [p for p in a.params if p.direction == ""]
        for p, pid in zip(params, _field_ids(params, a.name)):
            name_anno = ir.annotation(p.annotations, "name")
            name = name_anno.body[0] if name_anno and name_anno.body else p.name
            pm = msg.params.add(id=pid, name=name, bitwidth=type_width(p.type))
            self._new_type(pm, p.type)
            self._describe(p.type)
            if isinstance(p.type, ir.EnumT) and p.type.underlying is None:
                pm.type_name.name = p.type.name      # a plain enum: no width, its name
            _copy_annotations(pm, p.annotations)

    def _instance(self, inst: ir.Instance) -> None:
        s, kind = self.symbols, ir.resource_kind(inst.extern)
        where = f"{inst.loc}: {kind} {inst.name}"
        if kind == "counter":
            msg = self.info.counters.add()
            _preamble(msg, s, P.COUNTER, inst.name, inst.annotations)
            msg.size = _const_int(inst.args[0], f"{where}: the size")
            msg.spec.unit = COUNTER_UNITS.get(_enum_member(inst.args[1]), 0)
        elif kind == "meter":
            msg = self.info.meters.add()
            _preamble(msg, s, P.METER, inst.name, inst.annotations)
            msg.size = _const_int(inst.args[0], f"{where}: the size")
            msg.spec.unit = METER_UNITS.get(_enum_member(inst.args[1]), 0)
        elif kind in ("direct_counter", "direct_meter"):
            table = next((t for t in self.tables if inst.name in (t.counters, t.meters)
                          and not _hidden(t.annotations)), None)
            if table is None:
                return          # p4c emits direct resources only through a visible table
            if kind == "direct_counter":
                msg = self.info.direct_counters.add()
                msg.spec.unit = COUNTER_UNITS.get(_enum_member(inst.args[0]), 0)
            else:
                msg = self.info.direct_meters.add()
                msg.spec.unit = METER_UNITS.get(_enum_member(inst.args[0]), 0)
            _preamble(msg, s, P.DIRECT_COUNTER if kind == "direct_counter" else P.DIRECT_METER,
                      inst.name, inst.annotations)
            msg.direct_table_id = s.id(P.TABLE, table.name)
        elif kind == "register":
            msg = self.info.registers.add()
            _preamble(msg, s, P.REGISTER, inst.name, inst.annotations)
            msg.size = _const_int(inst.args[0], f"{where}: the size")
            msg.type_spec.CopyFrom(self.types.spec(inst.type_args[0]))
        elif kind in ("action_profile", "action_selector"):
            msg = self.info.action_profiles.add()
            _preamble(msg, s, P.ACTION_PROFILE, inst.name, inst.annotations)
            msg.with_selector = kind == "action_selector"
            size_arg = inst.args[1] if kind == "action_selector" else inst.args[0]
            msg.size = _const_int(size_arg, f"{where}: the size")
            if msg.with_selector:
                self._selector_size(msg, inst, where)
            for t in self.tables:
                if t.implementation == inst.name:
                    msg.table_ids.append(s.id(P.TABLE, t.name))

    @staticmethod
    def _selector_size(msg, inst: ir.Instance, where: str) -> None:
        """A selector's group limits from its annotations, as p4c reads them (an action
        profile without a selector ignores them): @max_group_size(N) sets the limit and
        sum-of-weights semantics; @selector_size_semantics("sum_of_members") with
        @max_member_weight(W) counts members instead."""
        def number(key):
            a = ir.annotation(inst.annotations, key)
            if a is None:
                return None
            if len(a.body) != 1 or not str(a.body[0]).isdigit():
                raise TrainetError(f"{where}: @{key} takes one unsigned integer, e.g. "
                                   f"@{key}(128)")
            return int(str(a.body[0]))
        group_size = number("max_group_size")
        semantics = ir.annotation(inst.annotations, "selector_size_semantics")
        if group_size is not None:
            msg.max_group_size = group_size
            msg.sum_of_weights.SetInParent()
        if semantics is None:
            return
        kind = str(semantics.body[0]).lower() if len(semantics.body) == 1 else ""
        if kind == "sum_of_weights":
            msg.sum_of_weights.SetInParent()
        elif kind == "sum_of_members":
            msg.sum_of_members.SetInParent()
            weight = number("max_member_weight")
            if weight is not None:
                msg.sum_of_members.max_member_weight = weight
        else:
            raise TrainetError(f'{where}: @selector_size_semantics takes "sum_of_weights" or '
                               '"sum_of_members"')

    def _value_set(self, vs: ir.ValueSet) -> None:
        msg = self.info.value_sets.add()
        _preamble(msg, self.symbols, P.VALUE_SET, vs.name, vs.annotations)
        msg.size = vs.size
        if isinstance(vs.type, ir.StructT):
            fields = vs.type.fields
            for f, fid in zip(fields, _field_ids(fields, f"value set {vs.name}")):
                m = msg.match.add(id=fid, name=f.name, bitwidth=type_width(f.type))
                self._new_type(m, f.type)
                kind = ir.annotation(f.annotations, "match")
                kind_name = str(kind.body[0]) if kind and kind.body else "exact"
                if kind_name in MATCH_TYPES:
                    m.match_type = MATCH_TYPES[kind_name]
                else:
                    m.other_match_type = kind_name
                _copy_annotations(m, f.annotations)
        elif isinstance(vs.type, ir.EnumT) and vs.type.underlying is not None:
            # p4c: one exact match per member of a serializable enum, named by it
            width = type_width(vs.type)
            for i, member in enumerate(vs.type.members, start=1):
                msg.match.add(id=i, name=member, bitwidth=width,
                              match_type=p4info_pb2.MatchField.EXACT)
        else:
            m = msg.match.add(id=1, bitwidth=type_width(vs.type),
                              match_type=p4info_pb2.MatchField.EXACT)
            self._new_type(m, vs.type)

    def _new_type(self, msg, t: ir.Type) -> None:
        """A value of a ``type`` declaration: ``msg`` (a MatchField, Param or Metadata)
        names it and the P4Info describes it, as p4c does. With @p4runtime_translation the
        controller sees the translated width (``sdn_bitwidth``), or no width for a string."""
        new = self.program.new_types.get(getattr(t, "name", ""))
        if new is None:
            return
        msg.type_name.name = new.name
        translation = self.types.new_type(new)
        if translation is not None:
            msg.bitwidth = translation[1] or 0

    def _digest_instances(self) -> list:
        """PSA's Digest<T> instances: each is a digest named by the instance."""
        return [i for i in self.instances.values() if i.extern == "Digest"]

    def _digest(self, t: ir.Type, index: int, name: str | None = None, annos=()) -> None:
        name = name or _digest_name(t, index)
        msg = self.info.digests.add()
        _preamble(msg, self.symbols, P.DIGEST, name, annos)
        msg.type_spec.CopyFrom(self.types.spec(t))

    def _controller_header(self, h: ir.HeaderT) -> None:
        msg = self.info.controller_packet_metadata.add()
        name = _controller_name(h)
        msg.preamble.id = self.symbols.id(P.CONTROLLER_HEADER, h.name)
        msg.preamble.name = name
        msg.preamble.alias = name
        _copy_annotations(msg.preamble, h.annotations)
        fields = flat_fields(h)
        for f, fid in zip(fields, _field_ids(fields, f"header {h.name}")):
            if not _hidden(f.annotations):
                m = msg.metadata.add(id=fid, name=f.name, bitwidth=type_width(f.type))
                self._new_type(m, f.type)
                self._describe(f.type)
                _copy_annotations(m, f.annotations)


def translated(new: ir.NewType) -> tuple[str, int | None] | None:
    """The (URI, controller width or None for a string) of a ``type`` declared with
    @p4runtime_translation("uri", width) or ("uri", string); None without one."""
    a = ir.annotation(new.annotations, "p4runtime_translation")
    if a is None:
        return None
    if (len(a.body) != 2 or not isinstance(a.body[0], str)
            or not (a.body[1] == "string" or isinstance(a.body[1], int) and a.body[1] > 0)):
        raise TrainetError(f"{new.loc}: type {new.name}: @p4runtime_translation takes a URI "
                           "string and "
                           "a width in bits or `string`, e.g. "
                           '@p4runtime_translation("example.org/port_t", 32)')
    return a.body[0], None if a.body[1] == "string" else a.body[1]


def build(program: ir.Program) -> p4info_pb2.P4Info:
    """The P4Info message of ``program``."""
    return _Builder(program).build()


def to_text(msg) -> str:
    """Protobuf text format, as p4c writes ``.p4info.txt`` files."""
    return text_format.MessageToString(msg)


def to_json(msg) -> str:
    """Protobuf JSON, as p4c writes ``.p4info.json`` files."""
    return json_format.MessageToJson(msg, indent=2) + "\n"


def file_format(path) -> str:
    """``text``, ``json`` or ``binary``: the P4Info format p4c gives a file of this name."""
    kind = FORMATS.get(Path(path).suffix.lower())
    if kind is None:
        raise TrainetError(f"{path}: unknown P4Info file extension; name it .txt or .txtpb "
                           "(text), .json (JSON) or .bin (binary), as for p4c")
    return kind


def write(msg, path) -> None:
    """Write ``msg`` in the format of the file's extension (:func:`file_format`)."""
    path = Path(path)
    kind = file_format(path)
    try:
        if kind == "text":
            path.write_text(to_text(msg))
        elif kind == "json":
            path.write_text(to_json(msg))
        else:
            path.write_bytes(msg.SerializeToString())
    except OSError as e:
        raise TrainetError(f"{path}: cannot write the P4Info ({e.strerror}); "
                           "check that the directory exists and is writable") from e


def read(path) -> p4info_pb2.P4Info:
    """Read a P4Info file written by :func:`write` or by p4c, in its extension's format."""
    path = Path(path)
    kind = file_format(path)
    msg = p4info_pb2.P4Info()
    try:
        data = path.read_bytes()
    except OSError as e:
        raise TrainetError(f"{path}: cannot read the P4Info ({e.strerror})") from e
    try:
        if kind == "text":
            text_format.Parse(data.decode(), msg)
        elif kind == "json":
            json_format.Parse(data.decode(), msg)
        else:
            msg.ParseFromString(data)
    except (text_format.ParseError, json_format.ParseError, UnicodeDecodeError,
            DecodeError) as e:
        raise TrainetError(f"{path}: not a valid {kind} P4Info file ({e}); "
                           "regenerate it with `trainet p4 info`") from e
    return msg
