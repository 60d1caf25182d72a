"""BMv2 JSON, as p4c-bm2-ss writes it for v1model programs, loaded into the typed IR.

The format is behavioral-model's ``docs/JSON_format.md``. The program it describes
becomes one :class:`ir.Program` that the target compiles as it compiles P4 source:

* header instances become fields of a ``headers`` struct (stacks and unions included);
  metadata instances (p4c's ``scalars``, user metadata) fields of a ``metadata`` struct,
  with ``@field_list`` annotations from ``field_lists``; ``standard_metadata`` is
  v1model's ``standard_metadata_t``, and the fields simple_switch reads under other
  names (``field_aliases``, older compilers' ``intrinsic_metadata`` and
  ``queueing_metadata``) are its fields;
* the parser's states, extracts, ``set``/``verify``/``advance`` and transitions (values
  and masks split per key, ``lookahead`` keys); the deparser's ``order`` as emits;
* ``checksums`` as ``verify_checksum``/``update_checksum`` calls in the checksum controls;
* each pipeline's graph of tables and conditionals as structured code: a node's branches
  rejoin at its immediate post-dominator, so the graph p4c wrote from if/else and
  ``switch`` comes back as if/else and ``switch``. p4c's dummy tables (``tbl_*``: no
  key, a constant default action) are direct action calls, as in the source; the actions
  p4c makes of an apply block's statements (``act``, ``act_0``, ...) are ``@hidden``, so
  the program's P4Info lists what p4c's P4Info beside the JSON lists.

Older compilers' output loads as BMv2 loads it: a table that names its ``actions``
without ``action_ids``, transitions without a ``type`` (a ``value`` of ``"default"`` is
the default one), errors numbered as written (from 1, or with gaps). Parse value sets
(``parse_vsets``, ``parse_vset`` transitions) are the IR's value sets, a member being
the transition key's value (one field per key when there are several); a transition's
mask applies to the key and to every member, as BMv2 applies it.

The P4Info of such a program comes from the client, as with BMv2: the JSON does not
carry p4c's ids. Header union stacks are stacks of the IR's unions (``union_stack``
extracts fill the next one). A pipeline's ``action_profiles`` are v1model's
action_profile and action_selector instances (a selector's ``input`` fields the selector
keys of every ``indirect_ws`` table that names it); an ``indirect`` or ``indirect_ws``
table without a ``default_entry`` misses with NoAction, as BMv2 runs none. A
variable-length field (``"*"``) is a varbit as wide as the header type's ``max_length``
leaves room for, filled by ``extract_VL`` with its length in bits. Anything
this target does not run (extern instances; a plain ``extract`` of a header with a
variable-length field, which BMv2 sizes by the type's ``length_exp``) is refused with a
:class:`Bmv2JsonError` naming the JSON path.
"""
from __future__ import annotations

import functools
import re

from testbed.errors import TrainetError
from testbed.p4 import ir
from testbed.p4.bmv2.actions import NOLOC, Expressions, as_bool, const, converted, \
    hexstr_value
from testbed.p4.bmv2.flow import Flow
from testbed.p4.lowering.program import load_source
from testbed.p4.python import externs

_V1MODEL = """#include <core.p4>
#include <v1model.p4>
struct H {} struct M {}
parser P(packet_in p, out H h, inout M m, inout standard_metadata_t s) {
    state start { transition accept; } }
control C(inout H h, inout M m) { apply {} }
control I(inout H h, inout M m, inout standard_metadata_t s) { apply {} }
control D(packet_out p, in H h) { apply {} }
V1Switch(P(), C(), I(), I(), C(), D()) main;
"""


class Bmv2JsonError(TrainetError):
    """BMv2 JSON that this target cannot load; the message names the JSON path."""


def is_bmv2_json(doc) -> bool:
    return isinstance(doc, dict) and ("header_types" in doc or "pipelines" in doc)


def load(doc: dict, where: str) -> ir.Program:
    """The program of the BMv2 JSON ``doc`` read from ``where`` (named in errors)."""
    loader = _Loader(doc, where)
    try:
        return loader.program()
    except (TypeError, KeyError, AttributeError, IndexError, ValueError) as e:
        # an object of the wrong shape where the loader did not check it field by field
        raise Bmv2JsonError(f"{where}: at or near {loader.at}: malformed BMv2 JSON "
                            f"({type(e).__name__}: {e}); give it as p4c-bm2-ss writes it "
                            "(behavioral-model's docs/JSON_format.md)") from None


@functools.lru_cache(maxsize=1)
def _v1model() -> ir.Program:
    """v1model's types, errors and match kinds, from the frontend's own v1model.p4."""
    return load_source(_V1MODEL, "<v1model>")


# p4c's own actions for statements of an apply block (``act``, ``act_0``, ...): hidden in
# the P4Info p4c writes beside the JSON, so hidden here too
_SYNTHESIZED_NAME = re.compile(r"act(_\d+)?")
_SYNTHESIZED = (ir.Annotation("hidden"),)


def _ident(name: str) -> str:
    return re.sub(r"\W", "_", name)


def _unique(name: str, taken: set) -> str:
    out, n = _ident(name), 1
    while out in taken:
        out, n = f"{_ident(name)}_{n}", n + 1
    taken.add(out)
    return out


def _field_list_annotation(ids) -> tuple:
    """``@field_list(ids)`` for a metadata field the field lists ``ids`` preserve."""
    return (ir.Annotation("field_list", tuple(ids)),) if ids else ()


def _without_source_info(x):
    if isinstance(x, dict):
        return {k: _without_source_info(v) for k, v in x.items() if k != "source_info"}
    if isinstance(x, list):
        return [_without_source_info(v) for v in x]
    return x


class _Loader(Expressions):
    def __init__(self, doc: dict, where: str):
        if not isinstance(doc, dict):
            raise Bmv2JsonError(f"{where}: BMv2 JSON is an object at the top level")
        self.doc, self.where = doc, where
        self.at = "the top level"     # the JSON path being read, for malformed input
        self.v1 = _v1model()
        self.sm_type = self.v1.types["standard_metadata_t"]
        self.fields = {}       # header instance -> {JSON field name: ir.Field}
        self.refs = {}         # header instance -> IR expression
        self.aliases = {}      # (instance, field) -> (instance, field) it stands for
        self.stacks = {}       # header stack -> IR expression
        self.union_stacks = {}  # header union stack -> IR expression
        self.instances = {}    # extern instance name -> ir.Instance
        self.calcs = {}        # calculation name -> (algorithm, data, with payload)
        self.digests = {}      # learn list id -> StructT
        self.actions = {}      # JSON action id -> ir.Action
        self.record_types = {}  # header type name -> HeaderT / StructT

    def fail(self, path: str, message: str):
        raise Bmv2JsonError(f"{self.where}: {path}: {message}")

    def items(self, key: str) -> list:
        return self.items_of(self.doc, key, "")

    def items_of(self, obj: dict, key: str, path: str) -> list:
        """The list of objects ``obj[key]`` (empty when absent); ``path`` names obj."""
        where = f"{path}.{key}" if path else key
        self.at = where
        v = obj.get(key) or []
        if not isinstance(v, list):
            self.fail(where, "expected a list")
        for i, x in enumerate(v):
            if not isinstance(x, dict):
                self.fail(f"{where}[{i}]", "expected an object")
        return v

    def need(self, obj: dict, key: str, path: str, kind=str):
        self.at = f"{path}.{key}"
        if not isinstance(obj, dict):
            self.fail(path, "expected an object")
        v = obj.get(key)
        if not isinstance(v, kind) or isinstance(v, bool) and kind is int:
            what = {str: "a string", int: "an integer", list: "a list", dict: "an object"}
            self.fail(f"{path}.{key}", f"expected {what.get(kind, kind)}, found {v!r}")
        return v

    def v1type(self, name: str) -> ir.Type:
        return self.v1.types[name]

    # ------------------------------------------------------------------ program
    def program(self) -> ir.Program:
        for key in ("extern_instances",):
            if self.doc.get(key):
                self.fail(key, f"{key} are not supported by this target; the program must "
                          "not use them")
        types = self.header_types()
        self.errors = self.error_names()
        self.header_instances(types)
        self.vsets = self.parse_vsets()
        self.externs()
        self.calculations()
        self.learn_lists()
        self.action_list()
        control_params = [ir.Param("hdr", "inout", self.hdr_t),
                          ir.Param("meta", "inout", self.meta_t)]
        pipe_params = control_params + [ir.Param("standard_metadata", "inout", self.sm_type)]
        pipelines = {p.get("name"): (i, p) for i, p in enumerate(self.items("pipelines"))}
        controls = {}
        for role in ("ingress", "egress"):
            if role not in pipelines:
                self.fail("pipelines", f"no pipeline named {role!r}; a v1model program has "
                          "'ingress' and 'egress'")
            i, pipe = pipelines[role]
            controls[role] = self.pipeline(pipe, f"pipelines[{i}]", pipe_params)
        verify, update = self.checksums()
        for role, body in (("verify_checksum", verify), ("compute_checksum", update)):
            controls[role] = ir.Control(role, list(control_params), [], [], {}, {},
                                        ir.Block(NOLOC, body))
        controls["deparser"] = self.deparser()
        types = {t.name: t for t in [*self.record_types.values(), self.hdr_t, self.meta_t,
                                     *self.digests.values()]}
        return ir.Program(
            source=self.where, arch="v1model", types=types, errors=self.errors,
            match_kinds=list(self.v1.match_kinds), constants={}, functions={}, actions={},
            parsers={"parser": self.parser()}, controls=controls, package="V1Switch",
            blocks={"parser": "parser", "verify_checksum": "verify_checksum",
                    "ingress": "ingress", "egress": "egress",
                    "compute_checksum": "compute_checksum", "deparser": "deparser"},
            digests=list(self.digests.values()))

    # ------------------------------------------------------------------ types
    def header_types(self) -> dict:
        """Header type name -> [(JSON field name, IR type)]."""
        out = {}
        for i, ht in enumerate(self.items("header_types")):
            path = f"header_types[{i}]"
            name = self.need(ht, "name", path)
            fields, varbit = [], None
            for j, f in enumerate(self.need(ht, "fields", path, list)):
                fp = f"{path}.fields[{j}]"
                if not (isinstance(f, list) and len(f) in (2, 3) and isinstance(f[0], str)):
                    self.fail(fp, "expected [name, bit width] or [name, bit width, signed]")
                if f[1] == "*":
                    if varbit is not None:
                        self.fail(fp, "a second variable-length field; BMv2 allows one per "
                                  "header type")
                    varbit = len(fields)
                    fields.append((f[0], None))
                    continue
                if not isinstance(f[1], int) or f[1] < 1:
                    self.fail(fp, f"bit width {f[1]!r} is not a positive integer")
                signed = len(f) == 3 and f[2] is True
                fields.append((f[0], ir.IntT(f[1]) if signed else ir.BitT(f[1])))
            if varbit is not None:
                # max_length: the header's largest size in bytes, the varbit field included
                max_bytes = self.need(ht, "max_length", path, int)
                fixed = sum(t.width for _, t in fields if t is not None)
                if max_bytes * 8 <= fixed:
                    self.fail(f"{path}.max_length", f"{max_bytes} bytes leave no room for the "
                              f"variable-length field after {fixed} fixed bits")
                fields[varbit] = (fields[varbit][0], ir.VarbitT(max_bytes * 8 - fixed))
            out[name] = fields
        return out

    def error_names(self) -> list:
        """The error names by value. p4c numbers them 0, 1, 2, ...; older compilers from 1:
        a value is kept as written (BMv2 writes it to parser_error), a gap gets a name no
        program can mention."""
        pairs = self.doc.get("errors") or [[n, i] for i, n in enumerate(self.v1.errors)]
        if not isinstance(pairs, list):
            self.fail("errors", "expected a list of [name, value] pairs")
        by_value = {}
        for i, pair in enumerate(pairs):
            if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str)
                    and isinstance(pair[1], int) and not isinstance(pair[1], bool)
                    and 0 <= pair[1] < 1 << 16):
                self.fail(f"errors[{i}]", f"expected [name, value] with a value from 0 to "
                          f"65535, found {pair!r}")
            if pair[1] in by_value or pair[0] in by_value.values():
                self.fail(f"errors[{i}]", f"{pair!r}: error names and values are unique")
            by_value[pair[1]] = pair[0]
        return [by_value.get(v, f"error${v}") for v in range(max(by_value, default=-1) + 1)]

    def _header_type(self, types: dict, name: str, path: str) -> list:
        if name not in types:
            self.fail(path, f"header type {name!r} is not in header_types")
        return types[name]

    def _record(self, types, type_name, path, cls, annotate=lambda f: ()):
        taken = set()
        fields = {}
        for fname, t in self._header_type(types, type_name, path):
            fields[fname] = ir.Field(_unique(fname, taken), t, annotate(fname))
        record = cls(type_name, tuple(fields.values()))
        self.record_types.setdefault(type_name, record)
        return record, fields

    def header_instances(self, types: dict) -> None:
        stack_of, union_of = {}, {}
        for i, st in enumerate(self.items("header_stacks")):
            for k, hid in enumerate(self.need(st, "header_ids", f"header_stacks[{i}]", list)):
                stack_of[hid] = (i, k)
        union_types = {u.get("name"): u for u in self.items("header_union_types")}
        for i, un in enumerate(self.items("header_unions")):
            ut = union_types.get(un.get("union_type"))
            if ut is None:
                self.fail(f"header_unions[{i}].union_type", "not in header_union_types")
            members = self.need(ut, "headers", "header_union_types", list)
            for k, hid in enumerate(self.need(un, "header_ids", f"header_unions[{i}]", list)):
                if k >= len(members):
                    self.fail(f"header_unions[{i}].header_ids", "more headers than the "
                              "union type has members")
                union_of[hid] = (i, members[k][0])
        in_union_stack = {}       # header union id -> (union stack index, position)
        for i, us in enumerate(self.items("header_union_stacks")):
            ids = self.need(us, "header_union_ids", f"header_union_stacks[{i}]", list)
            for k, uid in enumerate(ids):
                in_union_stack[uid] = (i, k)
        preserved = self.preserved_fields()
        headers = self.items("headers")
        by_id = {}
        hdr_fields, meta_fields, taken_h, taken_m = [], [], set(), set()
        later = []          # (instance, "hdr" or "meta", its field): refs once the structs exist
        for i, h in enumerate(headers):
            path = f"headers[{i}]"
            name, tname = self.need(h, "name", path), self.need(h, "header_type", path)
            by_id[h.get("id")] = (name, tname, path)
            if name == "standard_metadata":
                self.fields[name] = {f.name: f for f in self.sm_type.fields}
                self.refs[name] = ir.Var(self.sm_type, NOLOC, "standard_metadata")
            elif h.get("metadata"):
                struct, fields = self._record(
                    types, tname, f"{path}.header_type", ir.StructT,
                    lambda f, inst=name: _field_list_annotation(preserved.get((inst, f))))
                field = ir.Field(_unique(name, taken_m), struct)
                meta_fields.append(field)
                self.fields[name] = fields
                later.append((name, "meta", field))
            elif h.get("id") not in stack_of and h.get("id") not in union_of:
                ht, fields = self._record(types, tname, f"{path}.header_type", ir.HeaderT)
                field = ir.Field(_unique(name, taken_h), ht)
                hdr_fields.append(field)
                self.fields[name] = fields
                later.append((name, "hdr", field))
        self.field_aliases()
        for name, _ in preserved:
            if name not in self.fields or name == "standard_metadata" or \
                    not any(n == name and kind == "meta" for n, kind, _ in later):
                self.fail("field_lists", f"{name!r} is not user metadata; only user metadata "
                          "fields are preserved by clone, resubmit and recirculate")
        stack_fields = []
        for i, st in enumerate(self.items("header_stacks")):
            path = f"header_stacks[{i}]"
            ht, fields = self._record(types, self.need(st, "header_type", path),
                                      f"{path}.header_type", ir.HeaderT)
            field = ir.Field(_unique(self.need(st, "name", path), taken_h),
                             ir.StackT(ht, len(st["header_ids"])))
            hdr_fields.append(field)
            stack_fields.append((st, field, fields))
        union_fields, stacked_unions = [], {}
        for i, un in enumerate(self.items("header_unions")):
            path = f"header_unions[{i}]"
            members = []
            for hid in un["header_ids"]:
                if hid not in by_id:
                    self.fail(f"{path}.header_ids", f"no header with id {hid}")
                hname, tname, hpath = by_id[hid]
                ht, fields = self._record(types, tname, f"{hpath}.header_type", ir.HeaderT)
                members.append((hname, union_of[hid][1], ht, fields))
            ut = ir.UnionT(un["union_type"], tuple(ir.Field(_ident(m), ht)
                                                   for _, m, ht, _ in members))
            if un.get("id") in in_union_stack:
                stacked_unions[in_union_stack[un["id"]]] = (ut, members)
                continue
            field = ir.Field(_unique(self.need(un, "name", path), taken_h), ut)
            hdr_fields.append(field)
            union_fields.append((field, members))
        union_stack_fields = []
        for i, us in enumerate(self.items("header_union_stacks")):
            path = f"header_union_stacks[{i}]"
            size = len(us["header_union_ids"])
            elems = [stacked_unions.get((i, k)) for k in range(size)]
            if not elems or None in elems:
                self.fail(f"{path}.header_union_ids", "each id must be one of header_unions")
            if any(ut != elems[0][0] for ut, _ in elems):
                self.fail(f"{path}.union_type", "the stack's unions differ in type")
            field = ir.Field(_unique(self.need(us, "name", path), taken_h),
                             ir.StackT(elems[0][0], size))
            hdr_fields.append(field)
            union_stack_fields.append((us["name"], field, elems))
        self.hdr_t = ir.StructT("headers", tuple(hdr_fields))
        self.meta_t = ir.StructT("metadata", tuple(meta_fields))
        roots = {"hdr": ir.Var(self.hdr_t, NOLOC, "hdr"),
                 "meta": ir.Var(self.meta_t, NOLOC, "meta")}
        for name, root, field in later:
            self.refs[name] = ir.Member(field.type, NOLOC, roots[root], field.name)
        for st, field, fields in stack_fields:
            stack = ir.Member(field.type, NOLOC, roots["hdr"], field.name)
            self.stacks[st["name"]] = stack
            for k, hid in enumerate(st["header_ids"]):
                if hid not in by_id:
                    self.fail(f"header_stacks.{st['name']}.header_ids", f"no header with "
                              f"id {hid}")
                hname = by_id[hid][0]
                self.refs[hname] = ir.Index(field.type.elem, NOLOC, stack,
                                            const(k, 32))
                self.fields[hname] = fields
            self.fields[f"stack:{st['name']}"] = fields
        for field, members in union_fields:
            union = ir.Member(field.type, NOLOC, roots["hdr"], field.name)
            for hname, member, ht, fields in members:
                self.refs[hname] = ir.Member(ht, NOLOC, union, _ident(member))
                self.fields[hname] = fields
        for name, field, elems in union_stack_fields:
            stack = ir.Member(field.type, NOLOC, roots["hdr"], field.name)
            self.union_stacks[name] = stack
            for k, (ut, members) in enumerate(elems):
                union = ir.Index(ut, NOLOC, stack, const(k, 32))
                for hname, member, ht, fields in members:
                    self.refs[hname] = ir.Member(ht, NOLOC, union, _ident(member))
                    self.fields[hname] = fields

    def preserved_fields(self) -> dict:
        """(metadata instance, field) -> the field list ids that name it."""
        out = {}
        for i, fl in enumerate(self.items("field_lists")):
            path = f"field_lists[{i}]"
            fid = self.need(fl, "id", path, int)
            for j, el in enumerate(self.need(fl, "elements", path, list)):
                v = el.get("value") if isinstance(el, dict) else None
                if el.get("type") != "field" or not (isinstance(v, list) and len(v) == 2):
                    self.fail(f"{path}.elements[{j}]", "expected a field [instance, field]")
                out.setdefault(tuple(v), []).append(fid)
        return out

    # ------------------------------------------------------------------ references
    def field_aliases(self) -> None:
        """The fields simple_switch reads under other names. Older compilers' JSON has
        ``intrinsic_metadata`` and ``queueing_metadata`` instances whose fields
        simple_switch takes by name (``intrinsic_metadata.mcast_grp`` is the multicast
        group): each field v1model's standard_metadata_t has is that field. Newer JSON
        says the same in ``field_aliases`` (``["intrinsic_metadata.mcast_grp",
        ["standard_metadata", "mcast_grp"]]``)."""
        sm = {f.name for f in self.sm_type.fields}
        for inst in ("intrinsic_metadata", "queueing_metadata"):
            for name in self.fields.get(inst, {}):
                if name in sm:
                    self.aliases[(inst, name)] = ("standard_metadata", name)
        for i, alias in enumerate(self.doc.get("field_aliases") or []):
            path = f"field_aliases[{i}]"
            if not (isinstance(alias, list) and len(alias) == 2 and isinstance(alias[0], str)
                    and alias[0].count(".") == 1 and isinstance(alias[1], list)
                    and len(alias[1]) == 2 and all(isinstance(x, str) for x in alias[1])):
                self.fail(path, "expected [\"instance.field\", [header instance, field]]")
            self.aliases.setdefault(tuple(alias[0].split(".")), tuple(alias[1]))

    def field(self, v, path: str) -> ir.Expr:
        if not (isinstance(v, list) and len(v) == 2 and all(isinstance(x, str) for x in v)):
            self.fail(path, "expected [header instance, field name]")
        inst, name = self.aliases.get(tuple(v), tuple(v))
        if inst not in self.refs:
            self.fail(path, f"no header instance named {inst!r} in headers")
        if name == "$valid$":
            return ir.Cast(ir.BitT(1), NOLOC, self.is_valid(self.refs[inst]))
        f = self.fields[inst].get(name)
        if f is None:
            self.fail(path, f"{inst!r} has no field {name!r}")
        return ir.Member(f.type, NOLOC, self.refs[inst], f.name)

    def member(self, header: ir.Expr, name: str, path: str) -> ir.Expr:
        for f in header.type.fields:
            if f.name == _ident(name):
                return ir.Member(f.type, NOLOC, header, f.name)
        self.fail(path, f"header type {header.type.name!r} has no field {name!r}")

    def header(self, name, path: str) -> ir.Expr:
        if name not in self.refs:
            self.fail(path, f"no header instance named {name!r} in headers")
        return self.refs[name]

    def stack(self, name, path: str) -> ir.Expr:
        if name not in self.stacks:
            self.fail(path, f"no header stack named {name!r} in header_stacks")
        return self.stacks[name]

    def union_stack_next(self, value, path: str) -> ir.Expr:
        """``[union stack, member]`` of an extract: the member of the stack's next union."""
        if not (isinstance(value, list) and len(value) == 2 and value[0] in self.union_stacks):
            self.fail(path, f"expected [header union stack name, member name], found {value!r}")
        stack = self.union_stacks[value[0]]
        ut = stack.type.elem
        member = next((f for f in ut.fields if f.name == _ident(value[1])), None)
        if member is None:
            self.fail(path, f"union {ut.name} has no member {value[1]!r}")
        return ir.Member(member.type, NOLOC, ir.Member(ut, NOLOC, stack, "next"), member.name)

    def instance(self, name, extern: str, path: str) -> str:
        inst = self.instances.get(name)
        if inst is None or inst.extern != extern:
            self.fail(path, f"no {extern} array named {name!r}")
        return name

    def cell_type(self, name: str) -> ir.Type:
        return self.instances[name].type_args[0]

    def field_list(self, e: ir.Expr, path: str) -> ir.Expr:
        if not isinstance(e, ir.Const):
            self.fail(path, "expected the id of a field list as a hexstr")
        return e

    # ------------------------------------------------------------------ externs
    def externs(self) -> None:
        counter_kind = ir.EnumConst(self.v1type("CounterType"), NOLOC, "packets_and_bytes")
        self.direct = {}    # table name -> {"counters": name, "meters": (name, target)}

        def add(name, extern, args, path, type_args=()):
            self.instances[name] = ir.Instance(name, name.rsplit(".", 1)[-1], extern,
                                               list(type_args), args)

        for i, c in enumerate(self.items("counter_arrays")):
            path = f"counter_arrays[{i}]"
            name = self.need(c, "name", path)
            if c.get("is_direct"):
                add(name, "direct_counter", [counter_kind], path)
                self.direct.setdefault(self.need(c, "binding", path), {})["counters"] = name
            else:
                add(name, "counter", [const(self.need(c, "size", path, int), 32),
                                      counter_kind], path)
        for i, m in enumerate(self.items("meter_arrays")):
            path = f"meter_arrays[{i}]"
            name = self.need(m, "name", path)
            unit = m.get("type", "packets")
            if unit not in ("packets", "bytes"):
                self.fail(f"{path}.type", "expected packets or bytes")
            kind = ir.EnumConst(self.v1type("MeterType"), NOLOC, unit)
            if m.get("is_direct"):
                add(name, "direct_meter", [kind], path)
                target = self.field(m.get("result_target"), f"{path}.result_target")
                self.direct.setdefault(self.need(m, "binding", path), {})["meters"] = \
                    (name, target)
            else:
                add(name, "meter", [const(self.need(m, "size", path, int), 32), kind], path)
        for i, r in enumerate(self.items("register_arrays")):
            path = f"register_arrays[{i}]"
            add(self.need(r, "name", path), "register",
                [const(self.need(r, "size", path, int), 32)], path,
                [ir.BitT(self.need(r, "bitwidth", path, int))])

    def calculations(self) -> None:
        algos = self.v1type("HashAlgorithm")
        for i, c in enumerate(self.items("calculations")):
            path = f"calculations[{i}]"
            algo = self.need(c, "algo", path)
            if algo not in externs.ALGORITHMS or algo not in algos.members:
                self.fail(f"{path}.algo", f"hash algorithm {algo!r} is not supported; this "
                          f"target has {', '.join(sorted(externs.ALGORITHMS))}")
            elems, payload = [], False
            inputs = self.need(c, "input", path, list)
            for j, x in enumerate(inputs):
                xp = f"{path}.input[{j}]"
                if isinstance(x, dict) and x.get("type") == "payload":
                    if j != len(inputs) - 1:
                        self.fail(xp, "payload must be the last input")
                    payload = True
                elif isinstance(x, dict) and x.get("type") in ("field", "hexstr", "header"):
                    elems.append(self.value(x, xp))
                else:
                    self.fail(xp, "expected a field, hexstr (with bitwidth), header or "
                              "payload")
            data = ir.ListExpr(ir.TupleT(tuple(e.type for e in elems)), NOLOC, elems)
            self.calcs[self.need(c, "name", path)] = (ir.EnumConst(algos, NOLOC, algo), data,
                                                      payload)

    def calculation(self, name, path: str) -> tuple:
        if name not in self.calcs:
            self.fail(path, f"no calculation named {name!r} in calculations")
        return self.calcs[name][:2]

    def learn_lists(self) -> None:
        for i, ll in enumerate(self.items("learn_lists")):
            path = f"learn_lists[{i}]"
            taken, fields = set(), []
            for j, el in enumerate(self.need(ll, "elements", path, list)):
                e = self.value(el, f"{path}.elements[{j}]")
                last = el["value"][-1] if isinstance(el.get("value"), list) else f"f{j}"
                fields.append(ir.Field(_unique(last, taken), e.type))
            self.digests[self.need(ll, "id", path, int)] = \
                ir.StructT(self.need(ll, "name", path), tuple(fields))

    def digest(self, receiver: ir.Expr, learn, path: str) -> ir.Stmt:
        lid = hexstr_value(learn.get("value"), path, self.fail) \
            if isinstance(learn, dict) else None
        if lid not in self.digests:
            self.fail(path, f"no learn list with id {lid!r} in learn_lists")
        t = self.digests[lid]
        ll = next(x for x in self.doc["learn_lists"] if x["id"] == lid)
        elems = [self.value(el, f"learn_lists.{t.name}") for el in ll["elements"]]
        data = ir.ListExpr(t, NOLOC, elems)
        return ir.CallStmt(NOLOC, ir.Call(ir.VoidT(), NOLOC, "extern_function", "digest",
                                          [converted(receiver, ir.BitT(32)), data],
                                          type_args=[t]))

    # ------------------------------------------------------------------ actions
    def action_list(self) -> None:
        by_name = {}
        for i, a in enumerate(self.items("actions")):
            path = f"actions[{i}]"
            name, aid = self.need(a, "name", path), self.need(a, "id", path, int)
            prims = self.need(a, "primitives", path, list)
            same = by_name.get(name)
            if same is not None and _without_source_info(same[1]) == \
                    _without_source_info([a.get("runtime_data"), prims]):
                self.actions[aid] = same[0]     # p4c's copy of one action per use
                continue
            params, taken = [], set()
            for j, rd in enumerate(self.need(a, "runtime_data", path, list)):
                rp = f"{path}.runtime_data[{j}]"
                params.append(ir.Param(_unique(self.need(rd, "name", rp), taken), "",
                                       ir.BitT(self.need(rd, "bitwidth", rp, int))))
            ir_name = name if same is None else f"{name}${aid}"
            body = ir.Block(NOLOC, self.statements(prims, f"{path}.primitives", params))
            act = ir.Action(ir_name, name.rsplit(".", 1)[-1], params, body,
                            annotations=_SYNTHESIZED if _SYNTHESIZED_NAME.fullmatch(name) else ())
            self.actions[aid] = act
            if same is None:
                by_name[name] = (act, [a.get("runtime_data"), prims])
        self.action_names = {name: act for name, (act, _) in by_name.items()}

    def action(self, aid, path: str) -> ir.Action:
        if aid not in self.actions:
            self.fail(path, f"no action with id {aid!r} in actions")
        return self.actions[aid]

    def action_named(self, name, path: str) -> ir.Action:
        if name not in self.action_names:
            self.fail(path, f"no action named {name!r} in actions")
        return self.action_names[name]

    def no_action(self) -> ir.Action:
        """The program's NoAction, or an empty one of that name when it has none."""
        if "NoAction" not in self.action_names:
            self.action_names["NoAction"] = ir.Action("NoAction", "NoAction", [],
                                                      ir.Block(NOLOC, []))
        return self.action_names["NoAction"]

    def action_ref(self, entry: dict, path: str) -> ir.ActionRef:
        act = self.action(entry.get("action_id"), f"{path}.action_id")
        data = entry.get("action_data") or []
        if len(data) != len(act.params):
            self.fail(f"{path}.action_data", f"{act.name} takes {len(act.params)} "
                      f"arguments, {len(data)} given")
        args = [const(hexstr_value(d, f"{path}.action_data[{k}]", self.fail)
                      & ((1 << p.type.width) - 1), p.type.width)
                for k, (d, p) in enumerate(zip(data, act.params))]
        for a, p in zip(args, act.params):
            a.type = p.type
        return ir.ActionRef(act.name, args)

    def parse_vsets(self) -> dict:
        """Parse value set name -> (ir.ValueSet, its compressed bit width)."""
        out = {}
        for i, vs in enumerate(self.items("parse_vsets")):
            path = f"parse_vsets[{i}]"
            name = self.need(vs, "name", path)
            width = self.need(vs, "compressed_bitwidth", path, int)
            size = vs.get("max_size", 64)
            if not isinstance(size, int) or size < 1:
                self.fail(f"{path}.max_size", f"expected a positive integer, found {size!r}")
            out[name] = (ir.ValueSet(name, name.rsplit(".", 1)[-1], ir.BitT(width), size),
                         width)
        return out

    # ------------------------------------------------------------------ parser
    def parser(self) -> ir.Parser:
        parsers = self.items("parsers")
        if len(parsers) != 1:
            self.fail("parsers", f"a v1model program has one parser, not {len(parsers)}")
        p = parsers[0]
        init = self.need(p, "init_state", "parsers[0]")
        states = self.need(p, "parse_states", "parsers[0]", list)
        names = {s.get("name") for s in states}
        if init not in names:
            self.fail("parsers[0].init_state", f"no parse state named {init!r}")
        rename = {init: "start"}
        if "start" in names and init != "start":
            rename["start"] = "start$"
        out = {}
        for i, st in enumerate(states):
            path = f"parsers[0].parse_states[{i}]"
            name = self.need(st, "name", path)
            stmts = [self.parser_op(op, f"{path}.parser_ops[{j}]")
                     for j, op in enumerate(self.need(st, "parser_ops", path, list))]
            out[rename.get(name, name)] = ir.ParserState(
                rename.get(name, name), stmts, self.transition(st, path, names, rename))
        params = [ir.Param("packet", "", ir.ExternT("packet_in")),
                  ir.Param("hdr", "out", self.hdr_t), ir.Param("meta", "inout", self.meta_t),
                  ir.Param("standard_metadata", "inout", self.sm_type)]
        value_sets = [vs for vs, _ in self.vsets.values()]
        return ir.Parser("parser", params, [], [], value_sets, out)

    def parser_op(self, op, path: str) -> ir.Stmt:
        if not isinstance(op, dict):
            self.fail(path, "expected an object with 'op' and 'parameters'")
        kind, args = op.get("op"), op.get("parameters") or []
        if kind in ("extract", "extract_VL"):
            a = args[0] if args and isinstance(args[0], dict) else {}
            if a.get("type") == "regular":
                h = self.header(a.get("value"), f"{path}.parameters[0].value")
            elif a.get("type") == "stack":
                s = self.stack(a.get("value"), f"{path}.parameters[0].value")
                h = ir.Member(s.type.elem, NOLOC, s, "next")
            elif a.get("type") == "union_stack":
                h = self.union_stack_next(a.get("value"), f"{path}.parameters[0].value")
            else:
                self.fail(f"{path}.parameters[0]", "extract takes a regular header, a stack "
                          "or a union stack")
            varbit = any(isinstance(f.type, ir.VarbitT) for f in h.type.fields)
            if kind == "extract_VL":
                if len(args) != 2 or not varbit:
                    self.fail(f"{path}.parameters", "extract_VL takes a header with a "
                              "variable-length field and the field's length in bits")
                n = self.value(args[1], f"{path}.parameters[1]")
                return self._packet("extract", [h, converted(n, ir.BitT(32))], [h.type])
            if varbit:
                self.fail(f"{path}.op", f"{h.type.name} has a variable-length field; "
                          "extract it with extract_VL and its length")
            return self._packet("extract", [h], [h.type])
        if kind == "set":
            dst = self.value(args[0], f"{path}.parameters[0]")
            self.check_lvalue(dst, f"{path}.parameters[0]")
            return ir.Assign(NOLOC, dst, converted(self.value(args[1],
                                                              f"{path}.parameters[1]"),
                                                   dst.type))
        if kind == "verify":
            cond = as_bool(self.value(args[0], f"{path}.parameters[0]"))
            code = self.value(args[1], f"{path}.parameters[1]")
            return ir.CallStmt(NOLOC, ir.Call(ir.VoidT(), NOLOC, "extern_function", "verify",
                                              [cond, converted(code, ir.ErrorT())]))
        if kind in ("advance", "shift"):
            n = self.value(args[0], f"{path}.parameters[0]")
            if kind == "shift":
                n = ir.Binary(ir.BitT(35), NOLOC, "*", n, const(8, 4))
            return self._packet("advance", [converted(n, ir.BitT(32))], [])
        if kind == "primitive":
            return self.primitive(args[0] if args else {}, f"{path}.parameters[0]", ())
        self.fail(f"{path}.op", f"parser operation {kind!r} is not supported; this target "
                  "loads extract, extract_VL, set, verify, advance, shift and primitive")

    def _packet(self, method: str, args: list, type_args: list) -> ir.Stmt:
        return ir.CallStmt(NOLOC, ir.Call(
            ir.VoidT(), NOLOC, "extern_method", method, args,
            target=ir.Var(ir.ExternT("packet_in"), NOLOC, "packet"), extern="packet_in",
            type_args=type_args))

    def transition(self, st: dict, path: str, names: set, rename: dict) -> ir.Transition:
        keys = [self.value(k, f"{path}.transition_key[{j}]")
                for j, k in enumerate(st.get("transition_key") or [])]
        widths = [k.type.width if isinstance(k.type, (ir.BitT, ir.IntT)) else 1 for k in keys]
        cases = []
        for j, tr in enumerate(self.need(st, "transitions", path, list)):
            tp = f"{path}.transitions[{j}]"
            nxt = tr.get("next_state")
            if nxt is not None and nxt not in names:
                self.fail(f"{tp}.next_state", f"no parse state named {nxt!r}")
            nxt = "accept" if nxt is None else rename.get(nxt, nxt)
            kind = tr.get("type")
            if kind is None:        # older compilers: no type, the value says "default"
                kind = "default" if tr.get("value") == "default" else "hexstr"
            if kind == "default":
                cases.append(ir.SelectCase([ir.Default(ir.VoidT(), NOLOC)] * max(1, len(keys)),
                                           nxt))
            elif kind == "hexstr":
                value = self._split(hexstr_value(tr.get("value"), f"{tp}.value", self.fail),
                                    widths)
                mask = tr.get("mask")
                masks = self._split(hexstr_value(mask, f"{tp}.mask", self.fail), widths) \
                    if mask is not None else [None] * len(widths)
                keysets = []
                for v, m, w in zip(value, masks, widths):
                    c = const(v, w)
                    c.type = ir.BitT(w)
                    if m is None or m == (1 << w) - 1:
                        keysets.append(c)
                    elif m == 0:
                        keysets.append(ir.DontCare(ir.VoidT(), NOLOC))
                    else:
                        keysets.append(ir.Mask(c.type, NOLOC, c, ir.Const(c.type, NOLOC, m)))
                cases.append(ir.SelectCase(keysets, nxt))
            elif kind == "parse_vset":
                cases.append(ir.SelectCase([self.vset_keyset(tr, tp, keys, widths)], nxt))
            else:
                self.fail(f"{tp}.type", f"transition type {kind!r} is not supported; this "
                          "target loads default, hexstr and parse_vset")
        if not keys:
            if len(cases) != 1:
                self.fail(f"{path}.transitions", "a state without a transition_key has one "
                          "default transition")
            cases = [ir.SelectCase([], cases[0].next_state)]
        return ir.Transition(keys, cases)

    def vset_keyset(self, tr: dict, path: str, keys: list, widths: list) -> ir.ValueSetRef:
        """A transition on a parse value set: its members are the keys' values, each
        given to the control plane as one value of the keys' total width."""
        name = tr.get("value")
        if name not in self.vsets:
            self.fail(f"{path}.value", f"no parse value set named {name!r} in parse_vsets")
        vs, width = self.vsets[name]
        if not keys:
            self.fail(path, "a parse_vset transition needs a transition_key")
        if tr.get("mask") is not None:
            mask = tuple(self._split(hexstr_value(tr["mask"], f"{path}.mask", self.fail),
                                     widths))
            if vs.mask is not None and vs.mask != mask:
                self.fail(f"{path}.mask", f"parse value set {name!r} is used under two "
                          "different masks; this target keeps one mask per value set")
            vs.mask = mask
        if len(keys) > 1:
            vs.type = ir.StructT(f"{name}$key", tuple(ir.Field(f"f{k}", key.type)
                                                      for k, key in enumerate(keys)))
        elif sum(widths) != width:
            self.fail(f"{path}.value", f"parse value set {name!r} is {width} bits wide, the "
                      f"transition key {sum(widths)}")
        else:
            vs.type = keys[0].type
        return ir.ValueSetRef(vs.type, NOLOC, name)

    @staticmethod
    def _split(value: int, widths: list) -> list:
        """A transition value or mask: the keys' byte-padded values, concatenated."""
        out = []
        for w in reversed(widths):
            nbytes = (w + 7) // 8
            out.append(value & ((1 << w) - 1))
            value >>= 8 * nbytes
        return out[::-1]

    # ------------------------------------------------------------------ deparser, checksums
    def deparser(self) -> ir.Control:
        deparsers = self.items("deparsers")
        if len(deparsers) != 1:
            self.fail("deparsers", f"a v1model program has one deparser, not {len(deparsers)}")
        body = []
        for j, name in enumerate(self.need(deparsers[0], "order", "deparsers[0]", list)):
            h = self.header(name, f"deparsers[0].order[{j}]")
            if not isinstance(h.type, ir.HeaderT):
                self.fail(f"deparsers[0].order[{j}]", f"{name!r} is metadata, not a header")
            body.append(ir.CallStmt(NOLOC, ir.Call(
                ir.VoidT(), NOLOC, "extern_method", "emit", [h],
                target=ir.Var(ir.ExternT("packet_out"), NOLOC, "packet"), extern="packet_out",
                type_args=[h.type])))
        if deparsers[0].get("primitives"):
            self.fail("deparsers[0].primitives", "deparser primitives are not supported")
        params = [ir.Param("packet", "", ir.ExternT("packet_out")),
                  ir.Param("hdr", "in", self.hdr_t)]
        return ir.Control("deparser", params, [], [], {}, {}, ir.Block(NOLOC, body))

    def checksums(self) -> tuple:
        verify, update = [], []
        for i, c in enumerate(self.items("checksums")):
            path = f"checksums[{i}]"
            if c.get("type", "generic") != "generic":
                self.fail(f"{path}.type", "only generic checksums are supported")
            name = self.need(c, "calculation", path)
            if name not in self.calcs:
                self.fail(f"{path}.calculation", f"no calculation named {name!r}")
            algo, data, payload = self.calcs[name]
            target = self.field(c.get("target"), f"{path}.target")
            cond = as_bool(self.value(c["if_cond"], f"{path}.if_cond")) \
                if c.get("if_cond") is not None else ir.Const(ir.BoolT(), NOLOC, 1)
            suffix = "_with_payload" if payload else ""
            for flag, fn, out in (("verify", "verify_checksum", verify),
                                  ("update", "update_checksum", update)):
                if c.get(flag, True):
                    out.append(ir.CallStmt(NOLOC, ir.Call(
                        ir.VoidT(), NOLOC, "extern_function", fn + suffix,
                        [cond, data, target, algo])))
        return verify, update

    # ------------------------------------------------------------------ pipelines
    def action_profiles(self, pipe: dict, path: str) -> dict:
        """A pipeline's action profiles: name -> (ir.Instance, the selector's input as
        selector keys, empty without a selector). BMv2 hashes a selector's whole input
        with the algorithm's full output and picks a group member by its remainder, so
        the output width is the algorithm's own (64 bits covers every one)."""
        algos = self.v1type("HashAlgorithm")
        out = {}
        for i, ap in enumerate(self.items_of(pipe, "action_profiles", path)):
            pp = f"{path}.action_profiles[{i}]"
            name = self.need(ap, "name", pp)
            size = self.need(ap, "max_size", pp, int)
            sel = ap.get("selector")
            if sel is None:
                out[name] = (ir.Instance(name, name.rsplit(".", 1)[-1], "action_profile",
                                         [], [const(size, 32)]), [])
                continue
            algo = self.need(sel, "algo", f"{pp}.selector")
            if algo not in externs.ALGORITHMS or algo not in algos.members:
                self.fail(f"{pp}.selector.algo", f"hash algorithm {algo!r} is not supported "
                          f"by this target's selectors; it has "
                          f"{', '.join(sorted(set(externs.ALGORITHMS) & set(algos.members)))}")
            keys = []
            for j, x in enumerate(self.need(sel, "input", f"{pp}.selector", list)):
                xp = f"{pp}.selector.input[{j}]"
                if not isinstance(x, dict) or x.get("type") != "field":
                    self.fail(xp, "expected a field ({\"type\": \"field\", \"value\": "
                              "[header, field]})")
                keys.append(ir.Key(self.value(x, xp), "selector", ".".join(x["value"])))
            inst = ir.Instance(name, name.rsplit(".", 1)[-1], "action_selector", [],
                               [ir.EnumConst(algos, NOLOC, algo), const(size, 32),
                                const(64, 32)])
            out[name] = (inst, keys)
        return out

    def pipeline(self, pipe: dict, path: str, params: list) -> ir.Control:
        self.profiles = self.action_profiles(pipe, path)
        flow = Flow(self, pipe, path)
        body = flow.body()
        actions = {a.name: a for a in flow.used_actions}
        instances = list(self.instances.values()) + [i for i, _ in self.profiles.values()]
        return ir.Control(pipe["name"], list(params), [], instances, actions, flow.tables,
                          ir.Block(NOLOC, body))
