"""BMv2 JSON (p4c-bm2-ss's output) runs on the target: each hand-written JSON forwards
packet for packet as the same program compiled from source, and what the target cannot
run is refused at its JSON path."""
import copy
import json
from pathlib import Path

import pytest
from scapy.all import IP, UDP, Ether

from testbed.p4 import ir, p4info
from testbed.p4.bmv2 import loader as bmv2_json
from testbed.p4 import entries as E
from testbed.p4.lowering.program import load_program, load_source
from testbed.p4.native.target import NativeTarget
from testbed.p4.python.target import Target

HERE = Path(__file__).parent
REPO = HERE.parents[1]
BASIC_JSON = json.loads((HERE / "bmv2" / "basic.json").read_text())


def _frames() -> list:
    """IPv4 to routed and unrouted prefixes, TTL 1, a bad checksum, ARP, a runt."""
    def ip(dst, ttl=64, **kw):
        return bytes(Ether(dst="aa:bb:cc:dd:ee:ff", src="00:00:00:00:00:01") /
                     IP(src="192.168.0.1", dst=dst, ttl=ttl, **kw) /
                     UDP(sport=1, dport=2) / b"payload")
    bad = bytearray(ip("10.0.1.9"))
    bad[24] ^= 0xFF
    return [ip("10.0.1.7"), ip("10.0.2.200"), ip("10.7.0.1"), ip("10.0.1.7", ttl=1),
            bytes(bad), bytes(Ether(type=0x0806) / (b"\x00" * 28)), b"\x01\x02\x03"]


def _same_forwarding(source_program, json_program, entries, kinds=(Target, Target)) -> None:
    targets = [kinds[0](source_program), kinds[1](json_program)]
    for t in targets:
        for entry in entries:
            t.table_insert(entry)
    for port, frame in enumerate(_frames()):
        outputs = [t.process(frame, port) for t in targets]
        assert outputs[0] == outputs[1], (port, frame)
    assert targets[0].drop_counts == targets[1].drop_counts


def route(prefix, plen, mac, port):
    return E.TableEntry("MyIngress.ipv4_lpm", (E.Lpm(prefix, plen),),
                        E.ActionCall("MyIngress.ipv4_forward", {"dstAddr": mac, "port": port}))


def test_basic_json_forwards_as_basic_p4_compiled_from_source():
    source = load_program(REPO / "p4" / "basic.p4")
    program = bmv2_json.load(BASIC_JSON, "basic.json")
    routes = [route(0x0A000100, 24, 0x112233445566, 3), route(0x0A000200, 24, 0x0A0B0C0D0E0F, 4),
              E.TableEntry("MyIngress.ipv4_lpm", (E.Lpm(0x0A070000, 16),),
                           E.ActionCall("NoAction", {}))]
    _same_forwarding(source, program, routes)
    out = Target(program)
    out.table_insert(routes[0])
    [(port, data)] = out.process(_frames()[0], 1)
    assert port == 3 and Ether(data).dst == "11:22:33:44:55:66" and Ether(data)[IP].ttl == 63


def test_basic_json_runs_on_the_native_backend_as_on_python():
    from testbed.p4.native.target import NativeTarget
    program = bmv2_json.load(BASIC_JSON, "basic.json")
    _same_forwarding(program, program, [route(0x0A000100, 24, 0x112233445566, 3)],
                     (Target, NativeTarget))


def test_basic_json_has_the_tables_actions_and_keys_of_p4cs_p4info():
    """The P4Info comes from the client; its names must be the program's."""
    from_source = p4info.build(load_program(REPO / "p4" / "basic.p4"))
    from_json = p4info.build(bmv2_json.load(BASIC_JSON, "basic.json"))

    def names(info):
        return ({t.preamble.name: [(m.name, m.bitwidth, m.match_type) for m in t.match_fields]
                 for t in info.tables},
                {a.preamble.name: [(p.name, p.bitwidth) for p in a.params]
                 for a in info.actions})
    assert names(from_json) == names(from_source)


def _edited(edit) -> dict:
    doc = copy.deepcopy(BASIC_JSON)
    edit(doc)
    return doc


def _action(doc, name):
    return next(a for a in doc["actions"] if a["name"] == name)


def _table(doc):
    return doc["pipelines"][0]["tables"][0]


@pytest.mark.parametrize("edit, words", [
    (lambda d: _action(d, "MyIngress.drop")["primitives"].append(
        {"op": "_MyExtern_run", "parameters": []}),
     "actions[1].primitives[1].op: primitive '_MyExtern_run' is not supported"),
    (lambda d: _table(d).update(type="indirect", action_profile="ap"),
     "pipelines[0].tables[0].action_profile: no action profile named 'ap'"),
    (lambda d: _table(d).update(type="direct"),
     "pipelines[0].tables[0].type: table type 'direct'; BMv2 has simple, indirect"),
    (lambda d: d["header_types"][3]["fields"].append(["options", "*"]),
     "header_types[3].max_length: expected an integer, found None"),
    (lambda d: d["header_types"][3].update(max_length=60, fields=d["header_types"][3][
        "fields"] + [["options", "*"]]),
     ".parser_ops[0].op: ipv4_t has a variable-length field; extract it with extract_VL"),
    (lambda d: d["header_types"][3].update(max_length=10, fields=d["header_types"][3][
        "fields"] + [["options", "*"]]),
     "header_types[3].max_length: 10 bytes leave no room for the variable-length field "
     "after 160 fixed bits"),
    (lambda d: _table(d)["key"][0].update(target=["ipv6", "dstAddr"]),
     "pipelines[0].tables[0].key[0].target: no header instance named 'ipv6'"),
    (lambda d: _table(d)["key"][0].update(target=["ipv4", "dst"]),
     "pipelines[0].tables[0].key[0].target: 'ipv4' has no field 'dst'"),
    (lambda d: _table(d).update(action_ids=[2, 1, 9]),
     "pipelines[0].tables[0].action_ids[2]: no action with id 9"),
    (lambda d: d["pipelines"][0]["conditionals"][0].update(true_next="nowhere"),
     "pipelines[0].conditionals[0]: next node 'nowhere' is not a table"),
    (lambda d: d["pipelines"][0]["conditionals"][0]["expression"]["value"].update(op="sat"),
     "pipelines[0].conditionals[0].expression.value.op: operator 'sat' is not supported"),
    (lambda d: d["parsers"][0]["parse_states"][1]["transitions"][0].update(type="parse_vset"),
     "parse_states[1].transitions[0].value: no parse value set named '0x0800'"),
    (lambda d: d["parsers"][0]["parse_states"][1]["transitions"][0].update(type="vset"),
     "parse_states[1].transitions[0].type: transition type 'vset' is not supported"),
    (lambda d: _table(d).pop("action_ids") and _table(d)["actions"].append("MyIngress.fwd"),
     "pipelines[0].tables[0].actions[3]: no action named 'MyIngress.fwd'"),
    (lambda d: d["errors"].append(["Mine", 1]),
     "errors[7]: ['Mine', 1]: error names and values are unique"),
    (lambda d: d.update(header_union_stacks=[{"name": "u", "id": 0}]),
     "header_union_stacks[0].header_union_ids: expected a list, found None"),
    (lambda d: d.update(extern_instances=[{"name": "x", "id": 0, "type": "MyExtern"}]),
     "extern_instances: extern_instances are not supported"),
    (lambda d: d["parsers"][0]["parse_states"][1]["transitions"][0].update(
        next_state="parse_ipv6"),
     "parse_states[1].transitions[0].next_state: no parse state named 'parse_ipv6'"),
    (lambda d: _action(d, "MyIngress.drop")["primitives"].insert(0, {
        "op": "_jump", "parameters": [{"type": "hexstr", "value": "0x0"}]}),
     "actions[1].primitives[0]: a _jump that does not end the then-part of an if"),
    (lambda d: d["calculations"][0].update(algo="crc64"),
     "calculations[0].algo: hash algorithm 'crc64' is not supported"),
    (lambda d: d["pipelines"].pop(),
     "pipelines: no pipeline named 'egress'"),
    (lambda d: d["pipelines"][0]["conditionals"][0].update(false_next="node_2"),
     "the pipeline loops back to 'node_2'"),
    (lambda d: _table(d).update(entries=[{"match_key": [
        {"match_type": "lpm", "key": "0x0a000000", "prefix_length": 8}],
        "action_entry": {"action_id": 3, "action_data": []}}]),
     "tables[0].entries[0].action_entry.action_id: no action with id 3"),
    (lambda d: _action(d, "MyIngress.ipv4_forward")["primitives"][0].update(parameters=[5]),
     "actions[2].primitives[0].parameters[0]: expected an object with 'type' and 'value'"),
    (lambda d: _table(d)["key"][0].update(target=7),
     "pipelines[0].tables[0].key[0].target: expected [header instance, field name]"),
    (lambda d: d["headers"][2].update(id={}),
     "at or near headers[2].header_type: malformed BMv2 JSON (TypeError"),
    (lambda d: d["errors"].append([3, 7]),
     "errors[7]: expected [name, value] with a value from 0 to 65535, found [3, 7]"),
])
def test_what_the_target_cannot_load_is_refused_at_its_json_path(edit, words):
    with pytest.raises(bmv2_json.Bmv2JsonError) as e:
        bmv2_json.load(_edited(edit), "prog.json")
    assert str(e.value).startswith("prog.json: ") and words in str(e.value), str(e.value)


def _older_compilers_json(doc) -> None:
    """BMv2 JSON as older compilers wrote it: tables name their actions (no action_ids),
    transitions have no type (a default one says so in its value), errors count from 1."""
    for pipe in doc["pipelines"]:
        for t in pipe["tables"]:
            del t["action_ids"]
    for st in doc["parsers"][0]["parse_states"]:
        for tr in st["transitions"]:
            if tr.pop("type") == "default":
                tr["value"] = "default"
    doc["errors"] = [[name, value + 1] for name, value in doc["errors"]]


def test_older_compilers_json_forwards_as_basic_p4():
    source = load_program(REPO / "p4" / "basic.p4")
    program = bmv2_json.load(_edited(_older_compilers_json), "old.json")
    assert program.errors[0] == "error$0" and program.errors[1:3] == ["NoError",
                                                                      "PacketTooShort"]
    routes = [route(0x0A000100, 24, 0x112233445566, 3),
              E.TableEntry("MyIngress.ipv4_lpm", (E.Lpm(0x0A070000, 16),),
                           E.ActionCall("NoAction", {}))]
    _same_forwarding(source, program, routes)


def _ethertype_in_a_value_set(doc) -> None:
    doc["parse_vsets"] = [{"name": "MyParser.ip_types", "id": 0, "compressed_bitwidth": 16,
                           "max_size": 4}]
    ethernet = doc["parsers"][0]["parse_states"][1]
    ethernet["transitions"][0].update(type="parse_vset", value="MyParser.ip_types")


@pytest.mark.parametrize("kind", [Target, NativeTarget], ids=["python", "native"])
def test_a_parse_value_set_matches_what_the_control_plane_puts_in_it(kind):
    source = load_program(REPO / "p4" / "basic.p4")
    program = bmv2_json.load(_edited(_ethertype_in_a_value_set), "vset.json")
    routes = [route(0x0A000100, 24, 0x112233445566, 3)]
    target = kind(program)
    target.table_insert(routes[0])
    # empty, the set matches nothing: not parsed as IPv4, so not routed (port 0, unchanged)
    assert target.process(_frames()[0], 1) == [(0, _frames()[0])]
    target.value_set_set("MyParser.ip_types", [(E.Exact(0x0800),)])
    reference = Target(source)
    reference.table_insert(routes[0])
    for port, frame in enumerate(_frames()):
        assert target.process(frame, port) == reference.process(frame, port), frame
    assert target.process(_frames()[0], 1)[0][0] == 3


@pytest.mark.parametrize("kind", [Target, NativeTarget], ids=["python", "native"])
def test_a_masked_parse_value_set_compares_key_and_members_under_the_mask(kind):
    """BMv2 applies a parse_vset transition's mask to the packet's key and to every
    member the control plane adds: here the high byte of the EtherType alone."""
    def masked(doc):
        _ethertype_in_a_value_set(doc)
        doc["parsers"][0]["parse_states"][1]["transitions"][0]["mask"] = "0xff00"
    program = bmv2_json.load(_edited(masked), "vset.json")
    target = kind(program)
    target.table_insert(route(0x0A000100, 24, 0x112233445566, 3))
    ipv4 = _frames()[0]
    assert target.process(ipv4, 1) == [(0, ipv4)]        # empty: nothing parsed as IPv4
    target.value_set_set("MyParser.ip_types", [(E.Exact(0x08AB),)])   # 0x08AB & 0xff00
    assert target.process(ipv4, 1)[0][0] == 3            # 0x0800 & 0xff00 matches
    other = ipv4[:12] + b"\x86\xdd" + ipv4[14:]
    assert target.process(other, 1) == [(0, other)]


def test_one_parse_value_set_under_two_masks_is_refused():
    def two_masks(doc):
        _ethertype_in_a_value_set(doc)
        state = doc["parsers"][0]["parse_states"][1]
        first = state["transitions"][0]
        first["mask"] = "0xff00"
        state["transitions"].insert(1, dict(first, mask="0x00ff"))
    with pytest.raises(bmv2_json.Bmv2JsonError) as e:
        bmv2_json.load(_edited(two_masks), "vset.json")
    assert "parse_states[1].transitions[1].mask: parse value set 'MyParser.ip_types' is " \
        "used under two different masks" in str(e.value)


def _features_frames() -> list:
    def ip(proto, payload=b"payload", dst="00:00:00:00:00:02", vlans=()):
        inner = IP(src="10.0.0.1", dst="10.0.0.2", proto=proto) / payload
        frame = Ether(dst=dst, src="00:00:00:00:00:01")
        tpids = [0x9100] + [0x8100] * (len(vlans) - 1) if vlans else []
        frame.type = tpids[0] if vlans else 0x0800
        raw = bytes(frame)
        for k, vid in enumerate(vlans):
            nxt = tpids[k + 1] if k + 1 < len(vlans) else 0x0800
            raw += (vid & 0xFFF).to_bytes(2, "big") + nxt.to_bytes(2, "big")
        return raw + bytes(inner)
    return [ip(17), ip(20), ip(253, b"\x01\x09rest"), ip(253, b"\x02\x09rest"), ip(6),
            ip(17, vlans=[0xFFF]), ip(17, vlans=[5, 6]), ip(17, dst="00:00:00:00:00:09"),
            bytes(Ether(dst="00:00:00:00:00:02", type=0x0806) / (b"\x00" * 28)),
            b"\x01\x02\x03"]


def test_features_json_forwards_as_its_source():
    """Stacks, masked and lookahead transitions, registers, counters, hash, if/else in an
    action, switch on the action run, hit/miss, exit, digests, const entry priorities."""
    programs = [load_program(HERE / "bmv2" / "features.p4"),
                bmv2_json.load(json.loads((HERE / "bmv2" / "features.json").read_text()),
                               "features.json")]
    targets, digests = [Target(p) for p in programs], ([], [])
    for t, got in zip(targets, digests):
        t.digest_handler = lambda name, values, got=got: got.append(values)
        t.table_insert(E.TableEntry("MyIngress.fwd", (E.Exact(2), E.Ternary(0, 0)),
                                    E.ActionCall("MyIngress.forward", {"port": 2}), 1))
        t.table_insert(E.TableEntry("MyIngress.learned", (E.Exact(0x0A0B0C0D0E0F),),
                                    E.ActionCall("NoAction", {})))
    outputs = [[t.process(f, port) for port, f in enumerate(_features_frames())]
               for t in targets]
    assert outputs[0] == outputs[1]
    assert sum(len(o) for o in outputs[0]) >= 6
    assert digests[0] == digests[1] and digests[0]
    for t in targets[1:]:
        assert t.drop_counts == targets[0].drop_counts
        for i in range(4):
            assert t.counter_read("MyIngress.by_path", i) == \
                targets[0].counter_read("MyIngress.by_path", i)
        assert [t.register_read("MyIngress.seen", i) for i in range(4)] == \
            [targets[0].register_read("MyIngress.seen", i) for i in range(4)]
    assert targets[0].register_read("MyIngress.seen", 1) == 4     # the UDP frames


def test_field_lists_mark_the_metadata_that_clones_and_resubmits_preserve():
    def edit(d):
        d["header_types"][0]["fields"] = [["userMetadata.keep", 8, False], ["tmp", 8, False]]
        d["field_lists"] = [{"id": 1, "name": "fl", "elements": [
            {"type": "field", "value": ["scalars", "userMetadata.keep"]}]}]
        _action(d, "MyIngress.drop")["primitives"].append(
            {"op": "clone_ingress_pkt_to_egress", "parameters": [
                {"type": "hexstr", "value": "0x5"}, {"type": "hexstr", "value": "0x1"}]})
    target = Target(bmv2_json.load(_edited(edit), "prog.json"))
    assert target.compiled.field_lists == {1: [["scalars", "userMetadata_keep"]]}
    with pytest.raises(bmv2_json.Bmv2JsonError, match="'ipv4' is not user metadata"):
        bmv2_json.load(_edited(lambda d: d.update(field_lists=[{"id": 1, "elements": [
            {"type": "field", "value": ["ipv4", "ttl"]}]}])), "prog.json")


def test_the_p4_commands_take_bmv2_json(tmp_path, capsys):
    from testbed import cli
    basic = str(HERE / "bmv2" / "basic.json")
    assert cli.main(["p4", "check", basic]) == 0
    assert "basic.json: ok (v1model" in capsys.readouterr().out
    assert cli.main(["p4", "stf", basic, str(HERE / "basic.stf")]) == 0
    assert "3/3 checks passed" in capsys.readouterr().out
    old = tmp_path / "old.json"
    old.write_text(json.dumps(_edited(_older_compilers_json)))
    assert cli.main(["p4", "stf", "--backend", "native", str(old), str(HERE / "basic.stf")]) == 0
    assert "3/3 checks passed" in capsys.readouterr().out
    other = tmp_path / "other.json"
    other.write_text('{"tables": [], "version": 1}')
    assert cli.main(["p4", "check", str(other)]) == 2
    err = capsys.readouterr().err
    assert "other.json: neither BMv2 JSON (no 'header_types' or 'pipelines'" in err
    assert "Traceback" not in err


def _union_stack_json() -> dict:
    """BMv2 JSON of a parser that extracts hus.next.a then hus.next.b into a stack of two
    header unions {a_t a; b_t b;}, and a deparser that emits every element's headers."""
    doc = copy.deepcopy(BASIC_JSON)
    doc["header_types"] = doc["header_types"][:2] + [
        {"name": "a_t", "id": 2, "fields": [["v", 8, False]]},
        {"name": "b_t", "id": 3, "fields": [["w", 16, False]]}]
    names = ["hus[0].a", "hus[0].b", "hus[1].a", "hus[1].b"]
    doc["headers"] = doc["headers"][:2] + [
        {"name": n, "id": 2 + i, "header_type": "a_t" if n.endswith("a") else "b_t",
         "metadata": False, "pi_omit": True} for i, n in enumerate(names)]
    doc["header_union_types"] = [{"name": "u_t", "id": 0,
                                  "headers": [["a", "a_t"], ["b", "b_t"]]}]
    doc["header_unions"] = [{"name": f"hus[{k}]", "id": k, "union_type": "u_t",
                             "header_ids": [2 + 2 * k, 3 + 2 * k], "pi_omit": True}
                            for k in range(2)]
    doc["header_union_stacks"] = [{"name": "hus", "id": 0, "union_type": "u_t", "size": 2,
                                   "header_union_ids": [0, 1]}]
    doc["parsers"][0]["parse_states"] = [{
        "name": "start", "id": 0, "transition_key": [],
        "parser_ops": [{"op": "extract", "parameters": [
            {"type": "union_stack", "value": ["hus", member]}]} for member in "ab"],
        "transitions": [{"type": "default", "value": None, "mask": None,
                         "next_state": None}]}]
    doc["deparsers"][0]["order"] = names
    doc["pipelines"][0].update(init_table=None, tables=[], conditionals=[])
    doc["checksums"], doc["calculations"], doc["actions"] = [], [], []
    return doc


@pytest.mark.parametrize("kind", [Target, NativeTarget], ids=["python", "native"])
def test_a_header_union_stack_loads_and_fills_union_by_union(kind):
    program = bmv2_json.load(_union_stack_json(), "unions.json")
    target = kind(program)
    # hus[0] holds an a (1 byte), hus[1] a b (2 bytes); the rest is payload
    assert target.process(bytes([0x11, 0x22, 0x33, 0x44]), 0) == [(0, bytes([0x11, 0x22,
                                                                          0x33, 0x44]))]
    stack = program.types["headers"].fields[0]
    assert (stack.name, stack.type.size, stack.type.elem.name) == ("hus", 2, "u_t")
    with pytest.raises(bmv2_json.Bmv2JsonError, match=r"parameters\[0\].value: expected "
                       r"\[header union stack name, member name\]"):
        doc = _union_stack_json()
        doc["parsers"][0]["parse_states"][0]["parser_ops"][0]["parameters"][0]["value"] = "hus"
        bmv2_json.load(doc, "unions.json")


_PROFILES_P4 = """
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> in_; bit<8> hash_val; bit<8> f1; bit<8> f2; }
struct headers { h_t h; }
struct meta { }
parser P(packet_in pkt, out headers hdr, inout meta m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; } }
control C(inout headers hdr, inout meta m) { apply { } }
control MyIngress(inout headers hdr, inout meta m, inout standard_metadata_t sm) {
    action foo1(bit<8> val, bit<9> port) { hdr.h.f1 = val; sm.egress_spec = port; }
    action foo2(bit<8> val, bit<9> port) { hdr.h.f2 = val; sm.egress_spec = port; }
    action_profile(32w8) prof;
    action_selector(HashAlgorithm.crc16, 32w16, 32w16) sel;
    table prof_tbl { key = { hdr.h.in_ : exact; } actions = { foo1; foo2; NoAction; }
                     implementation = prof; default_action = NoAction(); }
    table sel_tbl { key = { hdr.h.in_ : exact; hdr.h.hash_val : selector; }
                    actions = { foo1; foo2; } implementation = sel; }
    apply { prof_tbl.apply(); sel_tbl.apply(); }
}
control E(inout headers hdr, inout meta m, inout standard_metadata_t sm) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), C(), MyIngress(), E(), C(), D()) main;
"""


PROFILES_JSON = json.loads((HERE / "bmv2" / "profiles.json").read_text())


def _profiles_json() -> dict:
    """_PROFILES_P4 as BMv2 JSON (bmv2/profiles.json, written by hand from the format's
    documentation): an indirect table with a default entry, an indirect_ws one without
    (BMv2 runs no action on its miss), each naming a pipeline action profile."""
    return copy.deepcopy(PROFILES_JSON)


def test_action_profiles_and_selectors_forward_as_their_source():
    """A member of an indirect table, a group of an indirect_ws one (the selector's hash
    over its input picks the member), and a miss of each, packet for packet as the P4
    source they come from."""
    source = load_source(_PROFILES_P4, "profiles.p4")
    program = bmv2_json.load(_profiles_json(), "profiles.json")
    targets = [Target(source), Target(program)]
    for t in targets:
        for profile in ("MyIngress.prof", "MyIngress.sel"):
            for mid, (act, port) in enumerate([(1, 3), (2, 4), (1, 5)], start=1):
                t.profile(profile).member_insert(E.ProfileMember(mid, E.ActionCall(
                    f"MyIngress.foo{act}", {"val": 0x40 + mid, "port": port})))
        t.profile("MyIngress.sel").group_insert(E.ProfileGroup(
            7, [E.GroupMember(1), E.GroupMember(2), E.GroupMember(3)]))
        t.table_insert(E.TableEntry("MyIngress.prof_tbl", (E.Exact(1),), E.MemberRef(2)))
        t.table_insert(E.TableEntry("MyIngress.sel_tbl", (E.Exact(2),), E.GroupRef(7)))
    ports = set()
    for in_ in (1, 2, 3):
        for hash_val in range(16):
            frame = bytes([in_, hash_val, 0, 0]) + b"payload"
            outputs = [t.process(frame, 1) for t in targets]
            assert outputs[0] == outputs[1], (in_, hash_val)
            if in_ == 2:
                ports.add(outputs[1][0][0])
            elif in_ == 1:
                assert outputs[1] == [(4, bytes([1, hash_val, 0, 0x42]) + b"payload")]
            else:
                assert outputs[1] == [(0, frame)]
    assert ports == {3, 4, 5}          # the hash spreads the group over its three members


def test_action_profiles_of_bmv2_json_in_p4info_as_p4c_writes_them():
    info = p4info.build(bmv2_json.load(_profiles_json(), "profiles.json"))
    source = p4info.build(load_source(_PROFILES_P4, "profiles.p4"))
    for a in source.actions:            # BMv2 JSON carries no annotations
        del a.preamble.annotations[:]
    assert info == source     # sel_tbl's miss: NoAction @defaultonly, as p4c adds it
    profiles = {p.preamble.name: p for p in info.action_profiles}
    assert {n: (p.with_selector, p.size) for n, p in profiles.items()} == {
        "MyIngress.prof": (False, 8), "MyIngress.sel": (True, 16)}
    tables = {t.preamble.name: t for t in info.tables}
    assert [f.name for f in tables["MyIngress.sel_tbl"].match_fields] == ["hdr.h.in_"]
    assert tables["MyIngress.sel_tbl"].implementation_id == profiles["MyIngress.sel"].preamble.id
    assert list(profiles["MyIngress.sel"].table_ids) == [tables["MyIngress.sel_tbl"].preamble.id]


@pytest.mark.parametrize("edit, words", [
    (lambda d: d["pipelines"][0]["tables"][1].update(action_profile="MyIngress.prof"),
     "pipelines[0].tables[1].type: an indirect_ws table needs an action profile with a "
     "selector; MyIngress.prof has none"),
    (lambda d: d["pipelines"][0]["action_profiles"][1]["selector"].update(algo="selector_fanout"),
     "pipelines[0].action_profiles[1].selector.algo: hash algorithm 'selector_fanout' is not "
     "supported"),
    (lambda d: d["pipelines"][0]["action_profiles"][1]["selector"]["input"].append(
        {"type": "hexstr", "value": "0x1"}),
     "pipelines[0].action_profiles[1].selector.input[1]: expected a field"),
    (lambda d: d["pipelines"][0]["action_profiles"][0].pop("max_size"),
     "pipelines[0].action_profiles[0].max_size: expected an integer"),
])
def test_bad_action_profiles_are_refused_at_their_json_path(edit, words):
    doc = _profiles_json()
    edit(doc)
    with pytest.raises(bmv2_json.Bmv2JsonError) as e:
        bmv2_json.load(doc, "prog.json")
    assert words in str(e.value), str(e.value)


_VARBIT_P4 = """
#include <core.p4>
#include <v1model.p4>
header len_t { bit<8> n; }
header opt_t { varbit<32> opts; }
struct headers { len_t len; opt_t opt; }
struct meta { }
parser P(packet_in pkt, out headers hdr, inout meta m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.len); pkt.extract(hdr.opt, (bit<32>)hdr.len.n << 3);
                  transition accept; } }
control C(inout headers hdr, inout meta m) { apply { } }
control I(inout headers hdr, inout meta m, inout standard_metadata_t sm) {
    apply { sm.egress_spec = (bit<9>)hdr.len.n; } }
control E(inout headers hdr, inout meta m, inout standard_metadata_t sm) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.len); pkt.emit(hdr.opt); } }
V1Switch(P(), C(), I(), E(), C(), D()) main;
"""


def _varbit_json() -> dict:
    """_VARBIT_P4 as BMv2 JSON: a "*" field in a header type of max_length 4 bytes,
    extract_VL with the length in bits computed from an earlier field."""
    doc = _profiles_json()
    doc["header_types"][2:] = [{"name": "len_t", "id": 2, "fields": [["n", 8, False]]},
                               {"name": "opt_t", "id": 3, "fields": [["opts", "*"]],
                                "max_length": 4}]
    doc["headers"][2:] = [{"name": "len", "id": 2, "header_type": "len_t", "metadata": False},
                          {"name": "opt", "id": 3, "header_type": "opt_t", "metadata": False}]
    doc["parsers"][0]["parse_states"][0]["parser_ops"] = [
        {"op": "extract", "parameters": [{"type": "regular", "value": "len"}]},
        {"op": "extract_VL", "parameters": [
            {"type": "regular", "value": "opt"},
            {"type": "expression", "value": {"op": "<<", "left": {
                "type": "field", "value": ["len", "n"]}, "right": {
                "type": "hexstr", "value": "0x3"}}}]}]
    doc["deparsers"][0]["order"] = ["len", "opt"]
    doc["actions"] = [{"name": "act", "id": 0, "runtime_data": [], "primitives": [
        {"op": "assign", "parameters": [{"type": "field", "value": ["standard_metadata",
                                                                    "egress_spec"]},
                                        {"type": "field", "value": ["len", "n"]}]}]}]
    doc["pipelines"][0].update(init_table="tbl_act", action_profiles=[], tables=[
        {"name": "tbl_act", "id": 0, "key": [], "match_type": "exact", "type": "simple",
         "max_size": 1024, "with_counters": False, "support_timeout": False,
         "direct_meters": None, "action_ids": [0], "actions": ["act"],
         "base_default_next": None, "next_tables": {"act": None},
         "default_entry": {"action_id": 0, "action_const": True, "action_data": [],
                           "action_entry_const": True}}])
    return doc


def test_a_variable_length_field_extracts_and_emits_as_its_source():
    """extract_VL fills the varbit with as many bits as its expression says; too many
    for the field is a parser error, as in the source."""
    source = Target(load_source(_VARBIT_P4, "varbit.p4"))
    program = bmv2_json.load(_varbit_json(), "varbit.json")
    assert program.types["opt_t"].fields[0].type == ir.VarbitT(32)
    target = Target(program)
    for n in range(6):
        frame = bytes([n]) + bytes(range(1, 9))
        assert target.process(frame, 0) == source.process(frame, 0), n
    assert target.process(bytes([2, 7, 9, 1]), 0) == [(2, bytes([2, 7, 9, 1]))]


def test_an_extract_vl_of_a_fixed_header_is_refused():
    doc = _varbit_json()
    doc["parsers"][0]["parse_states"][0]["parser_ops"][1]["parameters"][0]["value"] = "len"
    with pytest.raises(bmv2_json.Bmv2JsonError) as e:
        bmv2_json.load(doc, "varbit.json")
    assert "parse_states[0].parser_ops[1].parameters: extract_VL takes a header with a " \
        "variable-length field" in str(e.value)


def _multicast_json(old_style: bool) -> dict:
    """A program whose one action sets the multicast group, as older compilers write it
    (an ``intrinsic_metadata`` instance simple_switch reads by name, ``modify_field``) or
    through ``field_aliases`` to standard_metadata (no such instance)."""
    doc = _varbit_json()
    doc["header_types"][2:] = [{"name": "intrinsic_metadata_t", "id": 2, "fields": [
        ["ingress_global_timestamp", 48], ["lf_field_list", 8], ["mcast_grp", 16],
        ["egress_rid", 16], ["resubmit_flag", 8]]}]
    doc["headers"][2:] = [{"name": "intrinsic_metadata", "id": 2,
                           "header_type": "intrinsic_metadata_t", "metadata": True}]
    if not old_style:
        del doc["header_types"][2:], doc["headers"][2:]
        doc["field_aliases"] = [["intrinsic_metadata.mcast_grp",
                                 ["standard_metadata", "mcast_grp"]]]
    doc["parsers"][0]["parse_states"][0]["parser_ops"] = []
    doc["deparsers"][0]["order"] = []
    doc["actions"][0]["primitives"] = [{"op": "modify_field", "parameters": [
        {"type": "field", "value": ["intrinsic_metadata", "mcast_grp"]},
        {"type": "hexstr", "value": "0x1"}]}]
    return doc


@pytest.mark.parametrize("old_style", [True, False], ids=["intrinsic_metadata", "aliases"])
@pytest.mark.parametrize("kind", [Target, NativeTarget], ids=["python", "native"])
def test_the_fields_simple_switch_reads_by_name_are_standard_metadata(kind, old_style):
    target = kind(bmv2_json.load(_multicast_json(old_style), "mcast.json"))
    target.mc_group_set(E.MulticastGroup(1, [E.Replica(2), E.Replica(3)]))
    frame = b"any frame at all"
    assert target.process(frame, 1) == [(2, frame), (3, frame)]


def test_a_malformed_field_alias_is_refused_at_its_json_path():
    doc = _multicast_json(False)
    doc["field_aliases"].append(["mcast_grp", "standard_metadata.mcast_grp"])
    with pytest.raises(bmv2_json.Bmv2JsonError) as e:
        bmv2_json.load(doc, "mcast.json")
    assert "field_aliases[1]: expected [\"instance.field\", [header instance, field]]" \
        in str(e.value)
