"""BMv2 JSON (p4c-bm2-ss's output) runs on the target: each hand-written JSON forwards
packet for packet as the same program compiled from source, and what the target cannot
run is refused at its JSON path."""
import copy
import json
from pathlib import Path

import pytest
from scapy.all import IP, UDP, Ether

from testbed.p4 import p4info
from testbed.p4.bmv2 import loader as bmv2_json
from testbed.p4 import entries as E
from testbed.p4.lowering.program import load_program
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
     "pipelines[0].tables[0].type: table type 'indirect' (action profile) is not supported"),
    (lambda d: d["header_types"][3]["fields"].append(["options", "*"]),
     "header_types[3].fields[12]: variable-length (varbit) fields are not loaded"),
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
     "parse_states[1].transitions[0].type: transition type 'parse_vset' is not supported"),
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
     "errors: expected [name, value] pairs"),
])
def test_what_the_target_cannot_load_is_refused_at_its_json_path(edit, words):
    with pytest.raises(bmv2_json.Bmv2JsonError) as e:
        bmv2_json.load(_edited(edit), "prog.json")
    assert str(e.value).startswith("prog.json: ") and words in str(e.value), str(e.value)


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
