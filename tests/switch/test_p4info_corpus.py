"""P4Info of every program in the project, checked against p4c's documented P4Info rules.

The rules, as P4Runtime's specification and p4c's P4Info writer state them (derived here
independently of testbed.p4.p4info):

* an object's id is its type prefix in the top byte and, unless an @id annotation gives
  one, the low 24 bits of the Jenkins one-at-a-time hash of its fully qualified name; ids
  are unique, colliding hashes probe upwards, names taken per type in sorted order;
* an alias is the shortest dot-separated suffix of the name no other object's name ends
  in;
* match fields, action parameters and packet metadata are numbered 1..n in order unless
  @id renumbers them (a table's selector keys take numbers too, and are not shown);
  names are unique within their object;
* every id one object names (action_refs, const and initial default actions and their
  parameters, implementation_id, direct_resource_ids, an action profile's table_ids, a
  direct resource's table) is an object of the right kind that names it back; a default
  action's argument is as wide as its parameter, but for a translated type's, which is the
  program's own data-plane constant (no mapping is known when the P4Info is written);
* every named type a type spec mentions is described in type_info (error: the program's
  errors, NoError first);
* the message survives text and binary round trips.
"""
from pathlib import Path

import pytest
from google.protobuf import text_format
from p4.config.v1 import p4info_pb2, p4types_pb2

from testbed.p4 import p4info
from testbed.p4.bmv2 import loader as bmv2_json
from testbed.p4.lowering.program import load_program

ROOT = Path(__file__).parents[2]
SOURCES = sorted([*ROOT.glob("p4/*.p4"), *ROOT.glob("tests/p4/corpus/*.p4"),
                  *ROOT.glob("tests/p4/psa/*.p4"), *ROOT.glob("tests/p4/programs/*.p4"),
                  *ROOT.glob("tests/p4/bmv2/*.p4"), *ROOT.glob("tests/switch/data/*.p4")])
BMV2_JSON = sorted(ROOT.glob("tests/p4/bmv2/*.json"))

PREFIXES = {"tables": 0x02, "actions": 0x01, "action_profiles": 0x11, "counters": 0x12,
            "direct_counters": 0x13, "meters": 0x14, "direct_meters": 0x15,
            "registers": 0x16, "digests": 0x17, "value_sets": 0x03,
            "controller_packet_metadata": 0x04}
NAMED = [k for k in PREFIXES if k != "controller_packet_metadata"]


def _one_at_a_time(name: str) -> int:
    h = 0
    for byte in name.encode():
        h = (h + byte) % 2**32
        h = (h + h * 1024) % 2**32
        h ^= h >> 6
    h = (h + h * 8) % 2**32
    h ^= h >> 11
    return (h + h * 32768) % 2**32


def _expected_ids(info) -> dict:
    """(kind, name) -> id under the hash-and-probe rule, for a program without @id."""
    taken, out = set(), {}
    for kind in sorted(NAMED, key=PREFIXES.get):
        prefix = PREFIXES[kind]
        for name in sorted(x.preamble.name for x in getattr(info, kind)):
            h = _one_at_a_time(name)
            while prefix << 24 | h & 0xFFFFFF in taken:
                h += 1
            taken.add(prefix << 24 | h & 0xFFFFFF)
            out[(kind, name)] = prefix << 24 | h & 0xFFFFFF
    return out


def _numbered(items, what, explicit_ids: bool, gaps: bool = False):
    """Ids 1..n in order; ``gaps``: increasing from 1 (a table's selector keys take ids
    P4Info does not show)."""
    ids = [x.id for x in items]
    names = [x.name for x in items]
    assert len(set(ids)) == len(ids), f"{what}: ids {ids} repeat"
    assert len(set(names)) == len(names), f"{what}: names {names} repeat"
    assert all(i > 0 for i in ids), what
    if explicit_ids:
        return
    if gaps:
        assert ids == sorted(ids), f"{what}: ids {ids} are not in key order"
    else:
        assert ids == list(range(1, len(ids) + 1)), f"{what}: ids {ids} are not 1..n"


def _type_names(spec: p4types_pb2.P4DataTypeSpec, out: list) -> None:
    kind = spec.WhichOneof("type_spec")
    if kind in ("struct", "header", "header_union", "enum", "serializable_enum", "new_type"):
        out.append((kind, getattr(spec, kind).name))
    elif kind == "header_stack":
        out.append(("header", spec.header_stack.header.name))
    elif kind == "header_union_stack":
        out.append(("header_union", spec.header_union_stack.header_union.name))
    elif kind == "error":
        out.append(("error", "NoError"))
    elif kind == "tuple":
        for m in spec.tuple.members:
            _type_names(m, out)


def check_p4info(info: p4info_pb2.P4Info, explicit_ids: bool) -> None:
    """Assert every rule of the module docstring on ``info``."""
    objects = {}
    translated = {name for name, t in info.type_info.new_types.items()
                  if t.WhichOneof("representation") == "translated_type"}
    for kind, prefix in PREFIXES.items():
        names = [x.preamble.name for x in getattr(info, kind)]
        assert len(set(names)) == len(names), f"{kind}: names repeat: {names}"
        for x in getattr(info, kind):
            assert x.preamble.id >> 24 == prefix, (kind, x.preamble.name, hex(x.preamble.id))
            assert x.preamble.id not in objects, f"id {x.preamble.id:#x} given twice"
            objects[x.preamble.id] = (kind, x)
    if not explicit_ids:
        want = _expected_ids(info)
        for kind in NAMED:
            for x in getattr(info, kind):
                assert x.preamble.id == want[(kind, x.preamble.name)], (kind, x.preamble.name)

    every_name = {x.preamble.name for kind in NAMED for x in getattr(info, kind)}
    for kind in NAMED:
        for x in getattr(info, kind):
            name, alias = x.preamble.name, x.preamble.alias
            assert name == alias or name.endswith("." + alias), (name, alias)
            others = every_name - {name}
            assert not any(o == alias or o.endswith("." + alias) for o in others), (name, alias)
            parts = name.split(".")
            shorter = [".".join(parts[-n:]) for n in range(1, alias.count(".") + 1)]
            for s in shorter:
                assert any(o == s or o.endswith("." + s) for o in others), (name, alias, s)

    def get(kind, oid):
        assert oid in objects and objects[oid][0] == kind, f"{oid:#x} is no {kind} entry"
        return objects[oid][1]

    for a in info.actions:
        _numbered(a.params, f"action {a.preamble.name}", explicit_ids)
    for t in info.tables:
        what = f"table {t.preamble.name}"
        _numbered(t.match_fields, what, explicit_ids, gaps=True)
        refs = [r.id for r in t.action_refs]
        assert refs and len(set(refs)) == len(refs), what
        for r in refs:
            get("actions", r)
        if t.const_default_action_id:
            assert t.const_default_action_id in refs, what
        if t.HasField("initial_default_action"):
            call = t.initial_default_action
            assert call.action_id in refs, what
            params = {p.id: p for p in get("actions", call.action_id).params}
            assert sorted(a.param_id for a in call.arguments) == sorted(params), what
            for arg in call.arguments:
                param = params[arg.param_id]
                if param.type_name.name in translated:
                    continue    # the program's data-plane constant: no mapping is known
                assert len(arg.value) == (param.bitwidth + 7) // 8, what
        if t.implementation_id:
            assert t.preamble.id in get("action_profiles", t.implementation_id).table_ids
        for rid in t.direct_resource_ids:
            kind = objects[rid][0]
            assert kind in ("direct_counters", "direct_meters"), what
            assert objects[rid][1].direct_table_id == t.preamble.id, what
        assert t.size > 0, what
    for p in info.action_profiles:
        assert p.size > 0
        for tid in p.table_ids:
            assert get("tables", tid).implementation_id == p.preamble.id
        if not p.with_selector:
            assert not p.max_group_size
            assert p.WhichOneof("selector_size_semantics") is None
    for d in [*info.direct_counters, *info.direct_meters]:
        assert d.preamble.id in get("tables", d.direct_table_id).direct_resource_ids
    for c in info.controller_packet_metadata:
        assert c.preamble.name in ("packet_in", "packet_out"), c.preamble.name
        assert c.preamble.alias == c.preamble.name
        _numbered(c.metadata, f"controller header {c.preamble.name}", explicit_ids)
    for v in info.value_sets:
        assert v.size > 0 and v.match

    mentioned = []
    for spec in [*(r.type_spec for r in info.registers), *(d.type_spec for d in info.digests)]:
        _type_names(spec, mentioned)
    ti = info.type_info
    for s in ti.structs.values():
        for m in s.members:
            _type_names(m.type_spec, mentioned)
    for u in ti.header_unions.values():
        mentioned += [("header", m.header.name) for m in u.members]
    described = {"struct": ti.structs, "header": ti.headers, "header_union": ti.header_unions,
                 "enum": ti.enums, "serializable_enum": ti.serializable_enums,
                 "error": list(ti.error.members), "new_type": ti.new_types}
    for kind, name in mentioned:
        assert name in described[kind], f"type_info lacks the {kind} {name}"

    assert text_format.Parse(p4info.to_text(info), p4info_pb2.P4Info()) == info
    assert p4info_pb2.P4Info.FromString(info.SerializeToString()) == info


def test_corpus_is_all_there():
    assert len(SOURCES) >= 100 and BMV2_JSON


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_p4info_of_every_program_follows_p4cs_rules(source):
    info = p4info.build(load_program(source))
    check_p4info(info, explicit_ids="@id" in source.read_text())


@pytest.mark.parametrize("path", BMV2_JSON, ids=lambda p: p.name)
def test_p4info_of_bmv2_json_follows_p4cs_rules(path):
    import json
    info = p4info.build(bmv2_json.load(json.loads(path.read_text()), str(path)))
    check_p4info(info, explicit_ids=True)


def test_the_checks_catch_a_broken_p4info():
    """Each kind of fault a P4Info writer could make is caught."""
    info = p4info.build(load_program(ROOT / "p4" / "basic.p4"))
    check_p4info(info, explicit_ids=False)
    faults = {
        "wrong prefix": lambda m: setattr(m.tables[0].preamble, "id", 0x03000001),
        "hash not the name's": lambda m: setattr(m.actions[0].preamble, "id",
                                                 m.actions[0].preamble.id ^ 1),
        "alias not minimal": lambda m: setattr(m.tables[0].preamble, "alias",
                                               m.tables[0].preamble.name),
        "dangling action ref": lambda m: setattr(m.tables[0].action_refs[0], "id", 0x01000001),
        "params not 1..n": lambda m: setattr(
            next(a for a in m.actions if a.params).params[0], "id", 5),
        "zero size": lambda m: setattr(m.tables[0], "size", 0),
    }
    for what, fault in faults.items():
        broken = p4info_pb2.P4Info()
        broken.CopyFrom(info)
        fault(broken)
        with pytest.raises(AssertionError):
            check_p4info(broken, explicit_ids=False)
            pytest.fail(f"not caught: {what}")
