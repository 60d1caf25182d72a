"""P4Info generation: ids as p4c computes them, names, aliases, fields, resources."""
from functools import lru_cache
from pathlib import Path

import pytest
from google.protobuf import text_format
from p4.config.v1 import p4info_pb2

from testbed.cli import main
from testbed.errors import TrainetError
from testbed.p4 import p4info
from testbed.p4.lowering.program import load_program, load_source

FEATURES = Path(__file__).parent / "data" / "p4info_features.p4"

MF = p4info_pb2.MatchField


def _by_name(items):
    return {i.preamble.name: i for i in items}


@lru_cache(maxsize=None)
def _program():
    return load_program(FEATURES)


def _info():
    return p4info.build(_program())


def test_ids_are_p4c_name_hashes_with_type_prefix():
    # the ids p4c gives the P4 tutorials' basic.p4
    assert p4info.jenkins_hash("MyIngress.ipv4_lpm") & 0xFFFFFF | 0x02 << 24 == 37375156
    info = _info()
    actions = _by_name(info.actions)
    assert actions["NoAction"].preamble.id == 21257015
    assert actions["MyIngress.drop"].preamble.id == 25652968
    prefixes = {
        "tables": 0x02, "actions": 0x01, "action_profiles": 0x11, "counters": 0x12,
        "direct_counters": 0x13, "meters": 0x14, "direct_meters": 0x15, "registers": 0x16,
        "digests": 0x17, "value_sets": 0x03, "controller_packet_metadata": 0x04}
    for kind, prefix in prefixes.items():
        items = getattr(info, kind)
        assert items, kind
        for item in items:
            assert item.preamble.id >> 24 == prefix, (kind, item.preamble.name)
    # the controller header's id hashes its type name, as p4c does
    pin = _by_name(info.controller_packet_metadata)["packet_in"]
    assert pin.preamble.id == 0x04 << 24 | p4info.jenkins_hash("packet_in_t") & 0xFFFFFF


def test_id_annotations_win_and_get_their_prefix():
    info = _info()
    assert _by_name(info.tables)["MyIngress.routes"].preamble.id == 0x02000100
    forward = _by_name(info.actions)["MyIngress.forward"]
    assert forward.preamble.id == 0x01000010
    assert [(p.id, p.name, p.bitwidth) for p in forward.params] == [(1, "port", 9), (7, "mac", 48)]
    pout = _by_name(info.controller_packet_metadata)["packet_out"]
    assert [(m.id, m.name, m.bitwidth) for m in pout.metadata] == [(1, "egress_port", 9),
                                                                     (5, "_pad", 7)]


def test_hash_collisions_probe_to_the_next_free_id():
    symbols = p4info._Symbols()
    first = p4info.jenkins_hash("a.x")
    symbols.add(0x02, "a.x")
    # an @id that takes the hash slot of "a.x" pushes it one further, as in p4c
    symbols.add(0x02, "a.y", 0x02 << 24 | first & 0xFFFFFF)
    symbols.assign()
    assert symbols.id(0x02, "a.y") == 0x02 << 24 | first & 0xFFFFFF
    assert symbols.id(0x02, "a.x") == 0x02 << 24 | (first + 1) & 0xFFFFFF


def test_names_aliases_hidden_and_name_annotations():
    info = _info()
    tables = _by_name(info.tables)
    assert set(tables) == {"MyIngress.fwd", "MyIngress.routes", "MyIngress.tagger", "classify",
                           "MyIngress.tag_profiled", "MyIngress.spread"}
    assert tables["MyIngress.fwd"].preamble.alias == "fwd"
    actions = _by_name(info.actions)
    assert "MyIngress.hidden_action" not in actions
    assert "MyIngress.set_tag" in actions
    assert _by_name(info.registers)["MyIngress.flows"].preamble.alias == "flows"


def test_alias_is_the_shortest_unique_suffix():
    symbols = p4info._Symbols()
    for name in ("MyIngress.c1.t", "MyIngress.c2.t", "MyEgress.u"):
        symbols.add(0x02, name)
    assert symbols.alias("MyIngress.c1.t") == "c1.t"
    assert symbols.alias("MyEgress.u") == "u"


def test_match_fields_action_refs_and_table_properties():
    tables = _by_name(_info().tables)
    fwd = tables["MyIngress.fwd"]
    assert [(f.id, f.name, f.bitwidth, f.match_type) for f in fwd.match_fields] == [
        (1, "hdr.ethernet.dstAddr", 48, MF.EXACT), (2, "src", 48, MF.TERNARY),
        (3, "hdr.ethernet.etherType", 16, MF.RANGE),
        (4, "standard_metadata.ingress_port", 9, MF.OPTIONAL)]
    scopes = {r.id: (r.scope, list(r.annotations)) for r in fwd.action_refs}
    actions = {a.preamble.name: a.preamble.id for a in _info().actions}
    assert scopes[actions["MyIngress.drop"]] == (p4info_pb2.ActionRef.DEFAULT_ONLY,
                                                 ["@defaultonly"])
    assert scopes[actions["MyIngress.learn"]] == (p4info_pb2.ActionRef.TABLE_ONLY, ["@tableonly"])
    assert scopes[actions["MyIngress.forward"]][0] == p4info_pb2.ActionRef.TABLE_AND_DEFAULT
    assert fwd.size == 512 and not fwd.const_default_action_id
    assert tables["MyIngress.routes"].const_default_action_id == actions["NoAction"]
    assert tables["MyIngress.routes"].size == 1024
    assert tables["classify"].is_const_table and tables["classify"].has_initial_entries
    assert not fwd.is_const_table


def test_counters_meters_registers_and_action_profiles():
    info = _info()
    tables = _by_name(info.tables)
    fwd_id = tables["MyIngress.fwd"].preamble.id
    dc = _by_name(info.direct_counters)["MyIngress.fwd_counter"]
    dm = _by_name(info.direct_meters)["MyIngress.fwd_meter"]
    assert dc.spec.unit == p4info_pb2.CounterSpec.BOTH and dc.direct_table_id == fwd_id
    assert dm.spec.unit == p4info_pb2.MeterSpec.BYTES and dm.direct_table_id == fwd_id
    assert list(tables["MyIngress.fwd"].direct_resource_ids) == [dc.preamble.id, dm.preamble.id]
    c = _by_name(info.counters)["MyIngress.port_counter"]
    assert (c.size, c.spec.unit) == (64, p4info_pb2.CounterSpec.PACKETS)
    m = _by_name(info.meters)["MyIngress.port_meter"]
    assert (m.size, m.spec.unit) == (32, p4info_pb2.MeterSpec.PACKETS)
    r = _by_name(info.registers)["MyIngress.last_seen"]
    assert (r.size, r.type_spec.bitstring.bit.bitwidth) == (128, 32)
    ap = _by_name(info.action_profiles)["MyIngress.ap"]
    assert ap.size == 256 and not ap.with_selector
    assert list(ap.table_ids) == [tables["MyIngress.tag_profiled"].preamble.id]
    assert tables["MyIngress.tag_profiled"].implementation_id == ap.preamble.id
    sel = _by_name(info.action_profiles)["MyIngress.spread_sel"]
    assert (sel.size, sel.with_selector, sel.max_group_size) == (16, True, 4)
    assert list(sel.table_ids) == [tables["MyIngress.spread"].preamble.id]
    assert [f.name for f in tables["MyIngress.spread"].match_fields] == [
        "hdr.ethernet.dstAddr"]                                  # selector keys are not fields


def test_digest_type_info_value_sets_and_controller_metadata():
    info = _info()
    d = _by_name(info.digests)["learn_t"]
    assert d.type_spec.struct.name == "learn_t"
    members = info.type_info.structs["learn_t"].members
    assert [(m.name, m.type_spec.bitstring.bit.bitwidth) for m in members] == [
        ("srcAddr", 48), ("port", 9)]
    vs = _by_name(info.value_sets)["MyParser.pvs"]
    assert vs.size == 4
    assert [(m.id, m.name, m.bitwidth, m.match_type) for m in vs.match] == [
        (1, "etherType", 16, MF.TERNARY), (2, "tag", 8, MF.EXACT)]
    pin = _by_name(info.controller_packet_metadata)["packet_in"]
    assert list(pin.preamble.annotations) == ['@controller_header("packet_in")']
    assert [(m.id, m.name, m.bitwidth) for m in pin.metadata] == [(1, "ingress_port", 9),
                                                                  (2, "_pad", 7)]
    assert info.pkg_info.arch == "v1model"


def test_write_text_and_binary_and_read_back(tmp_path):
    info = _info()
    text_path, bin_path = tmp_path / "prog.p4info.txt", tmp_path / "prog.p4info.bin"
    p4info.write(info, text_path)
    p4info.write(info, bin_path)
    assert text_path.read_text().startswith("pkg_info {")
    assert text_format.Parse(text_path.read_text(), p4info_pb2.P4Info()) == info
    assert p4info_pb2.P4Info.FromString(bin_path.read_bytes()) == info
    assert p4info.read(text_path) == info and p4info.read(bin_path) == info


def test_basic_p4_matches_the_tutorials_p4info_ids():
    info = p4info.build(load_program(Path(__file__).parents[2] / "p4" / "basic.p4"))
    assert [(t.preamble.id, t.preamble.name) for t in info.tables] == [
        (37375156, "MyIngress.ipv4_lpm")]
    assert [(a.preamble.id, a.preamble.name) for a in info.actions] == [
        (21257015, "NoAction"), (25652968, "MyIngress.drop"),
        (28792405, "MyIngress.ipv4_forward")]
    fwd = info.actions[2]
    assert [(p.id, p.name, p.bitwidth) for p in fwd.params] == [(1, "dstAddr", 48),
                                                                (2, "port", 9)]
    lpm = info.tables[0].match_fields[0]
    assert (lpm.id, lpm.name, lpm.bitwidth, lpm.match_type) == (1, "hdr.ipv4.dstAddr", 32,
                                                                MF.LPM)


def test_bit_value_set_has_one_unnamed_exact_match():
    vs = _by_name(_info().value_sets)["MyParser.ether_vs"]
    assert vs.size == 2
    assert [(m.id, m.name, m.bitwidth, m.match_type) for m in vs.match] == [
        (1, "", 16, MF.EXACT)]


def test_trainet_p4_info_writes_the_file_or_prints_text(tmp_path, capsys):
    out = tmp_path / "features.p4info.txt"
    assert main(["p4", "info", str(FEATURES), "-o", str(out)]) == 0
    assert p4info.read(out) == _info()
    assert main(["p4", "info", str(FEATURES)]) == 0
    assert text_format.Parse(capsys.readouterr().out, p4info_pb2.P4Info()) == _info()
    assert main(["p4", "info", str(FEATURES), "-o", str(tmp_path / "no" / "x.txt")]) == 2
    err = capsys.readouterr().err
    assert f"folder {tmp_path / 'no'} does not exist" in err and "create it first" in err


_TWO_TABLES = """
#include <core.p4>
#include <v1model.p4>
struct h_t {} struct m_t {}
parser P(packet_in p, out h_t h, inout m_t m, inout standard_metadata_t s) {
    state start { transition accept; } }
control V(inout h_t h, inout m_t m) { apply {} }
control I(inout h_t h, inout m_t m, inout standard_metadata_t s) {
    @id(ID_A) table a { key = { s.ingress_port: exact; } actions = { NoAction; } }
    @id(ID_B) table b { key = { s.ingress_port: exact; } actions = { NoAction; } }
    apply { a.apply(); b.apply(); } }
control E(inout h_t h, inout m_t m, inout standard_metadata_t s) { apply {} }
control C(inout h_t h, inout m_t m) { apply {} }
control D(packet_out p, in h_t h) { apply {} }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


def test_bad_id_annotations_say_where_and_what_to_do():
    dup = load_source(_TWO_TABLES, "two.p4", defines={"ID_A": "5", "ID_B": "5"})
    with pytest.raises(TrainetError, match=r"two.p4:\d+:\d+: I.b: @id 0x2000005 is given to "
                                           "another object too"):
        p4info.build(dup)
    wrong = load_source(_TWO_TABLES, "two.p4", defines={"ID_A": "0x01000001", "ID_B": "6"})
    with pytest.raises(TrainetError, match=r"two.p4:\d+:\d+: I.a: @id 0x1000001 has type "
                                           "prefix 0x01, but this kind of object needs 0x02"):
        p4info.build(wrong)
    ok = p4info.build(load_source(_TWO_TABLES, "two.p4", defines={"ID_A": "5", "ID_B": "6"}))
    assert [t.preamble.id for t in ok.tables] == [0x02000005, 0x02000006]


# what p4c --p4runtime-files writes for basic.p4 (the p4lang tutorials' basic.p4.p4info.txtpb)
P4C_BASIC = r'''
pkg_info { arch: "v1model" }
tables {
  preamble { id: 37375156 name: "MyIngress.ipv4_lpm" alias: "ipv4_lpm" }
  match_fields { id: 1 name: "hdr.ipv4.dstAddr" bitwidth: 32 match_type: LPM }
  action_refs { id: 28792405 }
  action_refs { id: 25652968 }
  action_refs { id: 21257015 }
  initial_default_action { action_id: 25652968 }
  size: 1024
}
actions {
  preamble { id: 21257015 name: "NoAction" alias: "NoAction"
             annotations: "@noWarn(\"unused\")" }
}
actions { preamble { id: 25652968 name: "MyIngress.drop" alias: "drop" } }
actions {
  preamble { id: 28792405 name: "MyIngress.ipv4_forward" alias: "ipv4_forward" }
  params { id: 1 name: "dstAddr" bitwidth: 48 }
  params { id: 2 name: "port" bitwidth: 9 }
}
'''


def test_basic_p4_p4info_equals_p4cs_field_for_field():
    info = p4info.build(load_program(Path(__file__).parents[2] / "p4" / "basic.p4"))
    assert info == text_format.Parse(P4C_BASIC, p4info_pb2.P4Info())


def test_validity_keys_and_initial_default_actions_as_p4c_writes_them():
    info = p4info.build(load_program(Path(__file__).parent / "data" / "p4info_valid_keys.p4"))
    t, u = info.tables
    assert [f.name for f in t.match_fields] == ["hdr.h.$valid$", "hdr.s[1].$valid$", "hdr.h.f"]
    a = _by_name(info.actions)["I.a"].preamble.id
    no_action = _by_name(info.actions)["NoAction"].preamble.id
    assert t.initial_default_action == p4info_pb2.TableActionCall(
        action_id=a, arguments=[p4info_pb2.TableActionCall.Argument(param_id=1, value=b"\x03")])
    assert u.initial_default_action == p4info_pb2.TableActionCall(action_id=no_action)


_DIRECT_CALLS = """
#include <core.p4>
#include <v1model.p4>
header h_t { bit<16> a; }
struct headers_t { h_t h; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; } }
control C(inout headers_t hdr, inout meta_t m) { apply { } }
control Inner(inout bit<16> v) {
    action bump() { v = v + 1; }
    apply { bump(); }
}
control I(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    Inner() inner;
    action copy(out bit<16> x, out bit<16> y) { x = y; }
    action twice(out bit<16> v) { copy(v, v); }
    action unused() { }
    apply { twice(hdr.h.a); inner.apply(hdr.h.a); }
}
control E(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), C(), I(), E(), C(), D()) main;
"""


def test_actions_called_from_apply_blocks_are_kept_as_p4c_keeps_them():
    """p4c gives a direct call in an apply block a hidden table, so its action stays in
    P4Info, also one of an instantiated control; an action only other actions call is
    inlined into them, one nothing calls is dropped (gauntlet_side_effect_order_1's
    expected P4Info has do_action_2 alone, id 33493644, under these rules)."""
    info = p4info.build(load_source(_DIRECT_CALLS, "calls.p4"))
    assert {a.preamble.name for a in info.actions} == {"I.inner.bump", "I.twice"}
    assert not info.tables


def test_enums_p4info_names_are_described_as_p4c_describes_them():
    """p4c converts the types of match fields, action parameters and packet I/O metadata
    into type_info, so an enum is described where P4Info names it and nowhere else
    (table-entries-ser-enum-bmv2's expected P4Info lists the enums of its table keys,
    member values at the underlying type's full width in bytes; issue1653-complex-bmv2's
    lists none for an enum only a header carries); a plain enum parameter has no width
    and names its type. Match field ids count a selector key P4Info leaves out."""
    source = _DIRECT_CALLS.replace(
        "header h_t { bit<16> a; }",
        "enum bit<16> Wide { LOW = 10, HIGH = 0xab00 }\nenum bit<8> Narrow { Z = 0 }\n"
        "enum bit<8> Unused { U = 1 }\nenum Mode { FAST, SLOW }\n"
        "header h_t { bit<16> a; Wide w; Unused u; }").replace(
        "action unused() { }",
        "action set_mode(Mode m, Narrow n) { }\n"
        "    action_selector(HashAlgorithm.crc16, 32w4, 32w16) sel;\n"
        "    table t { key = { hdr.h.a: selector; hdr.h.w: exact; } actions = { set_mode; }\n"
        "              implementation = sel; }").replace(
        "apply { twice(hdr.h.a); inner.apply(hdr.h.a); }", "apply { t.apply(); }")
    info = p4info.build(load_source(source, "enums.p4"))
    enums = info.type_info.serializable_enums
    assert sorted(enums) == ["Narrow", "Wide"]
    assert enums["Wide"].underlying_type.bitwidth == 16
    assert [(m.name, m.value) for m in enums["Wide"].members] == [("LOW", b"\x00\n"),
                                                                  ("HIGH", b"\xab\x00")]
    assert [(m.name, m.value) for m in enums["Narrow"].members] == [("Z", b"\x00")]
    assert [m.name for m in info.type_info.enums["Mode"].members] == ["FAST", "SLOW"]
    [t] = info.tables
    assert [(f.id, f.name, f.bitwidth) for f in t.match_fields] == [(2, "hdr.h.w", 16)]
    mode, narrow = _by_name(info.actions)["I.set_mode"].params
    assert (mode.bitwidth, mode.type_name.name) == (0, "Mode")
    assert (narrow.bitwidth, narrow.HasField("type_name")) == (8, False)


_PROFILES = """
#include <core.p4>
#include <v1model.p4>
struct H { }
struct M { bit<32> h; }
parser P(packet_in pkt, out H hdr, inout M m, inout standard_metadata_t sm) {
    state start { transition accept; } }
control C(inout H hdr, inout M m) { apply { } }
control I(inout H hdr, inout M m, inout standard_metadata_t sm) {
    action drop() { mark_to_drop(sm); }
    @max_group_size(64) @selector_size_semantics("sum_of_members") @max_member_weight(9)
    action_selector(HashAlgorithm.identity, 32w512, 32w10) shared;
    @max_group_size(8) action_profile(32w16) plain;
    action_selector(HashAlgorithm.crc16, 32w32, 32w16) unused_sel;
    table in_place {
        key = { m.h : selector; }
        actions = { drop; }
        @name("in_place_ws") @max_group_size(200)
        implementation = action_selector(HashAlgorithm.identity, 32w1024, 32w10);
    }
    table t1 { key = { m.h : selector; } actions = { drop; } implementation = shared; }
    table t2 { key = { m.h : selector; } actions = { drop; } implementation = shared; }
    table t3 { actions = { drop; } implementation = plain; }
    apply { in_place.apply(); t1.apply(); t2.apply(); t3.apply(); }
}
control E(inout H hdr, inout M m, inout standard_metadata_t sm) { apply { } }
control D(packet_out pkt, in H hdr) { apply { } }
V1Switch(P(), C(), I(), E(), C(), D()) main;
"""


def test_action_profiles_and_selectors_as_p4c_writes_them():
    """p4c's rules for action_profiles: one constructed in a table property is named by
    the property's @name as written (no control prefix); a declared one by its
    hierarchical name; every table using one is listed in declaration order; one no
    table uses is still described; the group-size annotations count only on a selector
    (@max_group_size gives sum_of_weights unless @selector_size_semantics says
    sum_of_members, with @max_member_weight) and are not copied as annotations."""
    info = p4info.build(load_source(_PROFILES, "profiles.p4"))
    profiles = _by_name(info.action_profiles)
    tables = _by_name(info.tables)
    assert sorted(profiles) == ["I.plain", "I.shared", "I.unused_sel", "in_place_ws"]
    in_place = profiles["in_place_ws"]
    assert in_place.preamble.id == 0x11 << 24 | p4info.jenkins_hash("in_place_ws") & 0xFFFFFF
    assert in_place.preamble.alias == "in_place_ws"
    assert list(in_place.table_ids) == [tables["I.in_place"].preamble.id]
    assert (in_place.with_selector, in_place.size, in_place.max_group_size) == (True, 1024, 200)
    assert in_place.WhichOneof("selector_size_semantics") == "sum_of_weights"
    assert tables["I.in_place"].implementation_id == in_place.preamble.id
    shared = profiles["I.shared"]
    assert list(shared.table_ids) == [tables["I.t1"].preamble.id, tables["I.t2"].preamble.id]
    assert (shared.size, shared.max_group_size) == (512, 64)
    assert shared.WhichOneof("selector_size_semantics") == "sum_of_members"
    assert shared.sum_of_members.max_member_weight == 9
    plain = profiles["I.plain"]
    assert (plain.with_selector, plain.size, plain.max_group_size) == (False, 16, 0)
    assert plain.WhichOneof("selector_size_semantics") is None
    unused = profiles["I.unused_sel"]
    assert (list(unused.table_ids), unused.with_selector, unused.size) == ([], True, 32)
    assert unused.WhichOneof("selector_size_semantics") is None
    for p in profiles.values():
        assert not p.preamble.annotations
    # selector keys are not match fields
    assert not tables["I.t1"].match_fields


def test_psa_action_profile_and_selector_as_p4c_writes_them():
    """PSA's ActionProfile(size) and ActionSelector(algo, size, output width) under
    psa_implementation: the same action_profiles entries as v1model's."""
    program = load_program(Path(__file__).parent / "data" / "psa_selector.p4")
    info = p4info.build(program)
    assert info.pkg_info.arch == "psa"
    tables = {t.preamble.id: t for t in info.tables}
    for prof in info.action_profiles:
        assert prof.preamble.id >> 24 == 0x11
        assert prof.table_ids
        for tid in prof.table_ids:
            assert tables[tid].implementation_id == prof.preamble.id
    kinds = {i.name: i.extern for c in program.controls.values() for i in c.instances
             if i.extern in ("ActionProfile", "ActionSelector")}
    assert {p.preamble.name: p.with_selector for p in info.action_profiles} == {
        n: k == "ActionSelector" for n, k in kinds.items()}


def test_a_digest_with_an_error_field_brings_every_error_into_type_info():
    """p4c's rule: a type spec that names ``error`` puts the program's errors, core.p4's
    first and then the program's own in declaration order, in type_info.error; plain
    enums a digest carries are in type_info.enums (v1model-digest-containing-ser-enum's
    expected P4Info)."""
    source = _DIRECT_CALLS.replace(
        "header h_t { bit<16> a; }",
        "header h_t { bit<16> a; }\nerror { Mine, Yours }\nenum Kind { A, B }\n"
        "struct d_t { error e; Kind k; bit<16> a; }").replace(
        "apply { twice(hdr.h.a); inner.apply(hdr.h.a); }",
        "apply { d_t d = { error.Yours, Kind.B, hdr.h.a }; digest(1, d); }")
    info = p4info.build(load_source(source, "errors.p4"))
    ti = info.type_info
    assert list(ti.error.members) == ["NoError", "PacketTooShort", "NoMatch",
                                      "StackOutOfBounds", "HeaderTooShort", "ParserTimeout",
                                      "ParserInvalidArgument", "Mine", "Yours"]
    assert [m.name for m in ti.enums["Kind"].members] == ["A", "B"]
    [d] = info.digests
    assert d.preamble.name == "d_t"
    assert [m.type_spec.WhichOneof("type_spec") for m in ti.structs["d_t"].members] == [
        "error", "enum", "bitstring"]
    # without a type spec naming error there is no error list
    plain = p4info.build(load_source(_DIRECT_CALLS, "calls.p4"))
    assert not plain.type_info.HasField("error")


_PACKET_IO = """
#include <core.p4>
#include <v1model.p4>
@controller_header("packet_in")
header packet_in_header_t { bit<9> ingress_port; bit<7> _pad; }
@controller_header("packet_out")
header cpu_out_header_t { bit<15> magic_val; bit<9> egress_port; }
header eth_t { bit<48> dst; }
struct H { packet_in_header_t pin; cpu_out_header_t pout; eth_t eth; }
struct M { }
parser P(packet_in pkt, out H hdr, inout M m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.pout); pkt.extract(hdr.eth); transition accept; } }
control C(inout H hdr, inout M m) { apply { } }
control I(inout H hdr, inout M m, inout standard_metadata_t sm) {
    apply { sm.egress_spec = hdr.pout.egress_port; hdr.pin.setValid();
            hdr.pin.ingress_port = sm.ingress_port; }
}
control E(inout H hdr, inout M m, inout standard_metadata_t sm) { apply { } }
control D(packet_out pkt, in H hdr) { apply { pkt.emit(hdr.pin); pkt.emit(hdr.eth); } }
V1Switch(P(), C(), I(), E(), C(), D()) main;
"""


def test_controller_packet_metadata_as_p4c_writes_it():
    """p4c's rules for packet I/O headers: named by the @controller_header string (its
    alias too), the id hashes the header type's name (packet_in_header_t: 81826293 and
    cpu_out_header_t: 78842819, as in published P4Info files p4c wrote), the annotation
    is kept, every field (padding too) is metadata numbered from 1 in order."""
    info = p4info.build(load_source(_PACKET_IO, "packet_io.p4"))
    cpm = {c.preamble.name: c for c in info.controller_packet_metadata}
    assert sorted(cpm) == ["packet_in", "packet_out"]
    pin, pout = cpm["packet_in"], cpm["packet_out"]
    assert (pin.preamble.id, pin.preamble.alias) == (81826293, "packet_in")
    assert (pout.preamble.id, pout.preamble.alias) == (78842819, "packet_out")
    assert list(pin.preamble.annotations) == ['@controller_header("packet_in")']
    assert [(m.id, m.name, m.bitwidth) for m in pin.metadata] == [(1, "ingress_port", 9),
                                                                  (2, "_pad", 7)]
    assert [(m.id, m.name, m.bitwidth) for m in pout.metadata] == [(1, "magic_val", 15),
                                                                   (2, "egress_port", 9)]


def test_headers_with_struct_fields_are_flattened_as_p4c_flattens_them():
    """p4c flattens a header's struct-typed fields into ``field.member`` entries, in
    type_info's headers (p4rt_digest_complex's expected P4Info: ``s.f8``, ``s.f16``,
    ``f32``) and in packet I/O metadata, numbered in that flattened order."""
    source = _PACKET_IO.replace(
        "header eth_t { bit<48> dst; }",
        "header eth_t { bit<48> dst; }\n"
        "header h_t { s_t s; bit<32> f32; }\nstruct d_t { h_t h; }").replace(
        '@controller_header("packet_in")',
        'struct s_t { bit<8> f8; bit<16> f16; }\n@controller_header("packet_in")').replace(
        "header packet_in_header_t { bit<9> ingress_port; bit<7> _pad; }",
        "header packet_in_header_t { bit<9> ingress_port; s_t s; bit<7> _pad; }").replace(
        "hdr.pin.ingress_port = sm.ingress_port; }",
        "hdr.pin.ingress_port = sm.ingress_port; d_t d; d.h.setValid(); digest(1, d); }")
    info = p4info.build(load_source(source, "flat.p4"))
    members = info.type_info.headers["h_t"].members
    assert [(m.name, m.type_spec.bit.bitwidth) for m in members] == [
        ("s.f8", 8), ("s.f16", 16), ("f32", 32)]
    pin = _by_name(info.controller_packet_metadata)["packet_in"]
    assert [(m.id, m.name, m.bitwidth) for m in pin.metadata] == [
        (1, "ingress_port", 9), (2, "s.f8", 8), (3, "s.f16", 16), (4, "_pad", 7)]
