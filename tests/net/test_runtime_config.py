"""Runtime configs in the tutorials' JSON shape, resolved against basic.p4's P4Info."""
import json

import pytest

from controllers.routing import main
from controllers.runtime_config import RuntimeConfig, RuntimeConfigError
from testbed.p4 import entries as E
from testbed.p4 import p4info
from testbed.p4.lowering.program import load_program
from tests.net.helpers import DATA, REPO


@pytest.fixture(scope="module")
def info():
    return p4info.build(load_program(str(REPO / "p4" / "basic.p4")))


def test_tutorial_runtime_json_becomes_entries(info):
    config = RuntimeConfig.load(info, DATA / "triangle" / "s2-runtime.json")
    assert config.defaults == [("MyIngress.ipv4_lpm", E.ActionCall("MyIngress.drop", {}))]
    assert config.entries[1] == E.TableEntry(
        "MyIngress.ipv4_lpm", (E.Lpm(0x0A000202, 32),),
        E.ActionCall("MyIngress.ipv4_forward", {"dstAddr": 0x080000000222, "port": 1}))
    assert len(config.entries) == 3 and config.groups == [] and config.clones == []


def test_groups_and_clone_sessions(info):
    config = RuntimeConfig(info, {
        "multicast_group_entries": [{"multicast_group_id": 1, "replicas": [
            {"egress_port": 1, "instance": 1}, {"egress_port": 2}]}],
        "clone_session_entries": [{"clone_session_id": 5, "replicas": [{"egress_port": 3}],
                                   "packet_length_bytes": 64}]})
    assert config.groups == [E.MulticastGroup(1, [E.Replica(1, 1), E.Replica(2, 0)])]
    assert config.clones == [E.CloneSession(5, [E.Replica(3, 0)], 0, 64)]


def test_prefixes_may_be_written_as_address_slash_length(info):
    config = RuntimeConfig(info, _entry(match={"hdr.ipv4.dstAddr": "10.0.1.0/24"}))
    assert config.entries[0].match == (E.Lpm(0x0A000100, 24),)
    with pytest.raises(RuntimeConfigError, match=r"dstAddr: '10.0.1.1/24' is not a prefix "
                                                 r"\(10.0.1.1/24 has host bits set\)"):
        RuntimeConfig(info, _entry(match={"hdr.ipv4.dstAddr": "10.0.1.1/24"}), "s1-runtime.json")


def test_ipv6_values_are_read_and_must_fit_the_field(info):
    with pytest.raises(RuntimeConfigError, match=r"dstAddr\[0\]: \d+ does not fit in 32 bits"):
        RuntimeConfig(info, _entry(match={"hdr.ipv4.dstAddr": ["fd00::1", 128]}))


def _entry(**changes):
    entry = {"table": "MyIngress.ipv4_lpm", "match": {"hdr.ipv4.dstAddr": ["10.0.1.1", 32]},
             "action_name": "MyIngress.ipv4_forward",
             "action_params": {"dstAddr": "08:00:00:00:01:11", "port": 1}}
    entry.update(changes)
    return {"table_entries": [entry]}


@pytest.mark.parametrize("changes, message", [
    ({"table": "MyIngress.nope"}, "table_entries[0].table: no table named 'MyIngress.nope'"),
    ({"action_name": "MyIngress.fwd"}, "table_entries[0].action_name: no action named"),
    ({"action_params": {"port": 1}}, "missing parameter 'dstAddr'"),
    ({"action_params": {"dstAddr": "08:00:00:00:01:11", "port": 1, "vlan": 3}},
     "has no parameter 'vlan'"),
    ({"action_params": {"dstAddr": "08:00:00:00:01:11", "port": 512}},
     "action_params.port: 512 does not fit in 9 bits"),
    ({"match": {"hdr.ipv4.dstAddr": "10.0.1.1"}}, "lpm match needs [value, prefix_len]"),
    ({"match": {"hdr.ipv4.dstAddr": ["10.0.1.1", 33]}}, "prefix length 33 is outside 0..32"),
    ({"match": {"hdr.ipv4.dstAddr": ["10.0.1.x", 32]}}, "'10.0.1.x' is not a value"),
    ({"match": {"hdr.ipv4.srcAddr": ["10.0.1.1", 32]}}, "has no key 'hdr.ipv4.srcAddr'"),
])
def test_mistakes_are_reported_with_their_place(info, changes, message):
    with pytest.raises(RuntimeConfigError) as err:
        RuntimeConfig(info, _entry(**changes), "s1-runtime.json")
    assert str(err.value).startswith("s1-runtime.json: table_entries[0]")
    assert message in str(err.value)


def test_invalid_json_names_line_and_column(info, tmp_path):
    bad = tmp_path / "s1-runtime.json"
    bad.write_text('{"table_entries": [\n  {"table": }\n]}')
    with pytest.raises(RuntimeConfigError, match=r"s1-runtime.json:2:13: invalid JSON"):
        RuntimeConfig.load(info, bad)


def test_standalone_controller_says_when_no_switch_answers(tmp_path, capsys):
    runtime = tmp_path / "s1-runtime.json"
    runtime.write_text(json.dumps(_entry()))
    code = main(["--grpc", "127.0.0.1:1", "--p4", str(REPO / "p4" / "basic.p4"),
                 "--runtime", str(runtime), "--timeout", "0.2"])
    assert code == 2
    assert "127.0.0.1:1: no P4Runtime server answers within 0.2 s" in capsys.readouterr().err


def test_exact_match_as_a_one_element_list_as_the_tutorials_write_it():
    features = load_program(str(REPO / "tests" / "switch" / "data" / "p4info_features.p4"))
    config = RuntimeConfig(p4info.build(features), {"table_entries": [{
        "table": "MyIngress.tagger", "match": {"hdr.ethernet.etherType": ["0x0800"]},
        "action_name": "NoAction"}]})
    assert config.entries[0].match == (E.Exact(0x0800),)
