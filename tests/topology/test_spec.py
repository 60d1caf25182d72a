import copy

import pytest
import yaml

from testbed.errors import TrainetError
from testbed.topology.load import load_topology
from testbed.topology.runtime import TableEntrySpec
from testbed.topology.spec import Host, Link, Switch, Topology
from testbed.topology.specfile import TopologyError

BASE = {
    "name": "pair",
    "scale": 1e-3,
    "hosts": [
        {"name": "h1", "ip": "10.0.1.1/24", "mac": "08:00:00:00:01:01", "nic": "roce-100g",
         "groups": {"cluster": "A", "node": "n1"}},
        {"name": "h2", "ip": "10.0.1.2/24", "mac": "08:00:00:00:01:02", "nic": "eth-25g-tcp",
         "role": "optimizer", "groups": {"cluster": "B", "node": "n1"}},
        {"name": "h3", "ip": "10.0.1.3/24", "mac": "08:00:00:00:01:03",
         "groups": {"cluster": "A"}},
    ],
    "switches": [{"name": "s1", "program": "prog.p4"},
                 {"name": "s2", "program": "prog.p4", "cpu_port": 64,
                  "controller": {"entry": "controllers.learning:run", "args": {"age_s": 30}}}],
    "links": [
        {"a": "h1", "b": "s1-p1", "bw": "10Gbit"},
        {"a": "h2", "b": "s1-p2"},
        ["h3", "s2-p1"],
        {"a": "s1-p3", "b": "s2-p2", "profile": "wan-1g", "delay": "3ms", "queue": 50},
    ],
}


def write(tmp_path, data, name="topo.yaml"):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def test_load_valid_yaml(tmp_path, p4_file):
    topo = load_topology(write(tmp_path, BASE))
    assert [h.name for h in topo.hosts] == ["h1", "h2", "h3"]
    assert all(sw.program == p4_file for sw in topo.switches)   # relative to the YAML's dir
    assert [(sw.device_id, sw.grpc_port) for sw in topo.switches] == [(0, 50051), (1, 50052)]
    assert topo.switch("s2").controller.args == {"age_s": 30}
    assert topo.host("h2").role == "optimizer" and topo.host("h1").role == "worker"
    assert str(topo.host("h1").ip) == "10.0.1.1/24"


def test_link_parameters_resolve_link_then_profile_then_nic(tmp_path, p4_file):
    topo = load_topology(write(tmp_path, BASE))
    own_bw, nic_only, no_nic, profiled = (topo.link_params(link) for link in topo.links)
    assert own_bw.bw_bps == 10e9 and own_bw.delay_s == 2.5e-6 and own_bw.mtu == 4096
    assert nic_only.bw_bps == 25e9 and nic_only.mtu == 1500
    assert no_nic.bw_bps is None and no_nic.delay_s == 0 and no_nic.mtu == 1500
    assert profiled.bw_bps == 1e9 and profiled.delay_s == 3e-3 and profiled.jitter_s == 0.5e-3
    assert profiled.queue_pkts == 50
    assert own_bw.emulated(topo.scale).bw_bps == pytest.approx(10e6)
    assert own_bw.emulated(topo.scale).delay_s == 2.5e-6          # latency stays absolute
    assert "10 Gb/s (10 Mb/s emulated)" in own_bw.describe(topo.scale)


def test_host_interface_overrides_its_nic(tmp_path, p4_file):
    data = copy.deepcopy(BASE)
    data["hosts"][1].update(bw="1Gbit", latency="20us", mtu=9000)
    topo = load_topology(write(tmp_path, data))
    nic_only = topo.link_params(topo.links[1])
    assert (nic_only.bw_bps, nic_only.mtu) == (1e9, 9000)
    assert nic_only.delay_s == pytest.approx(20e-6)


def test_groups_and_transport(tmp_path, p4_file):
    topo = load_topology(write(tmp_path, BASE))
    assert topo.group("cluster", "A") == ["h1", "h3"]
    assert topo.groups("node") == {"n1": ["h1", "h2"]}
    assert topo.transport("h1").name == "rdma"
    assert topo.transport("h2").per_byte_s > 0
    with pytest.raises(TrainetError, match="cluster groups: A, B"):
        topo.group("cluster", "C")
    with pytest.raises(TrainetError, match="allowed: gpu, node, rack, pod, cluster, site"):
        topo.groups("rak")


def test_static_arp_lists_same_subnet_peers_and_gateway(tmp_path, p4_file):
    data = copy.deepcopy(BASE)
    data["hosts"][0].update(gateway="10.0.1.254", gateway_mac="08:00:00:ff:00:01")
    topo = load_topology(write(tmp_path, data))
    assert topo.static_arp("h1") == [("10.0.1.2", "08:00:00:00:01:02"),
                                     ("10.0.1.3", "08:00:00:00:01:03"),
                                     ("10.0.1.254", "08:00:00:ff:00:01")]


def test_build_from_python_objects(p4_file):
    topo = Topology(hosts=[Host(name="a", ip="10.0.0.1/16", mac="08:00:00:00:00:01"),
                           Host(name="b", ip="10.0.0.2/16", mac="08:00:00:00:00:02")],
                    switches=[Switch(name="s1", program=p4_file)],
                    links=[Link(a="a", b="s1-p1", bw="25Mbit", delay="1ms"),
                           Link(a="b", b="s1-p2")], routing="shortest-path")
    assert topo.link_params(topo.links[0]).bw_bps == 25e6
    assert len(topo.switch("s1").runtime.table_entries) == 2
    assert topo.routing == "static"                               # expanded


def test_from_data_reports_every_problem_as_topology_error(p4_file):
    data = copy.deepcopy(BASE)
    for sw in data["switches"]:
        sw["program"] = str(p4_file)
    data["links"][0]["bw"] = "fast"
    with pytest.raises(TopologyError) as err:
        Topology.from_data(data, source="<python>")
    assert str(err.value).startswith("<python>: links[0].bw: 'fast' is not a bit rate")


def test_yaml_round_trip(tmp_path, p4_file):
    topo = load_topology(write(tmp_path, BASE))
    again = tmp_path / "again.yaml"
    again.write_text(topo.to_yaml())
    back = load_topology(again)
    assert back.model_dump() == topo.model_dump()


def test_routing_shortest_path_keeps_explicit_entries(tmp_path, p4_file, all_pairs_reachable):
    data = copy.deepcopy(BASE)
    data["routing"] = "shortest-path"
    mine = {"table": "MyIngress.ipv4_lpm", "match": {"hdr.ipv4.dstAddr": ["10.0.1.1", 32]},
            "action_name": "MyIngress.ipv4_forward",
            "action_params": {"dstAddr": "08:00:00:00:01:01", "port": 1}}
    data["switches"][0]["runtime"] = {"table_entries": [mine]}
    topo = load_topology(write(tmp_path, data))
    entries = topo.switch("s1").runtime.table_entries
    assert len(entries) == 3 and entries[0].model_dump(exclude_defaults=True) == mine
    all_pairs_reachable(topo)


def _mutate(path, value):
    def apply(data):
        target = data
        for part in path[:-1]:
            target = target[part]
        if value is DELETE:
            del target[path[-1]]
        else:
            target[path[-1]] = value
    return apply


DELETE = object()

ERRORS = [
    # (mutation, field path, words of the message, key on the reported line)
    (_mutate(["switches", 1, "name"], "h1"), "switches[1].name",
     ["duplicate name 'h1'", "hosts[0]"], "name"),
    (_mutate(["switches", 0, "name"], "switch-one"), "switches[0].name",
     ["'switch-one'", "8 characters at most"], "name"),
    (_mutate(["links", 1, "b"], "s9-p1"), "links[1].b", ["'s9-p1'", "h1, h2, h3, s1, s2"], "b"),
    (_mutate(["links", 1, "b"], "s1-p1"), "links[1].b", ["s1-p1 is already connected by "
                                                        "links[0].b"], "b"),
    (_mutate(["links", 1, "b"], "s1"), "links[1].b", ["'s1-p1'"], "b"),
    (_mutate(["links", 1, "a"], "h2-p1"), "links[1].a", ["write just 'h2'"], "a"),
    (_mutate(["links", 3, "profile"], "wan-2g"), "links[3].profile",
     ["'wan-2g'", "allowed:", "wan-1g"], "profile"),
    (_mutate(["hosts", 0, "nic"], "wan-8m"), "hosts[0].nic",
     ["unknown NIC profile 'wan-8m'", "roce-100g"], "nic"),
    (_mutate(["links", 0, "bw"], "100Gbt"), "links[0].bw", ["'100Gbt'", "Mbit"], "bw"),
    (_mutate(["links", 0, "bw"], 100), "links[0].bw", ["100", "Gbit"], "bw"),
    (_mutate(["links", 3, "delay"], "2"), "links[3].delay", ["'2'", "ms"], "delay"),
    (_mutate(["links", 3, "loss"], 150), "links[3].loss", ["less than or equal to 100", "150"],
     "loss"),
    (_mutate(["links", 3, "bww"], "1Gbit"), "links[3].bww", ["unknown field 'bww'",
                                                            "allowed: a, b, profile, bw"], "bww"),
    (_mutate(["switches", 0, "program"], "missing.p4"), "switches[0].program",
     ["missing.p4", "not found", "relative to the spec file's directory"], "program"),
    (_mutate(["hosts", 0, "ip"], "10.0.1.1"), "hosts[0].ip", ["'10.0.1.1'", "10.0.1.1/24"], "ip"),
    (_mutate(["hosts", 1, "ip"], "10.0.1.1/24"), "hosts[1].ip", ["already used by h1"], "ip"),
    (_mutate(["hosts", 0, "mac"], "08:00:00"), "hosts[0].mac", ["'08:00:00'", "six hex"], "mac"),
    (_mutate(["hosts", 0, "mac"], 7776000071), "hosts[0].mac", ["quote it"], "mac"),
    (_mutate(["hosts", 0, "role"], "boss"), "hosts[0].role", ["'worker'", "'optimizer'", "boss"],
     "role"),
    (_mutate(["hosts", 0, "groups"], {"rak": "x"}), "hosts[0].groups.rak",
     ["'node'", "'cluster'", "'site'", "rak"], "rak"),
    (_mutate(["links", 2], {"a": "s2-p9", "b": "s1-p9"}), "hosts[2]", ["no link", "[h3, "], None),
    (_mutate(["switches", 1, "cpu_port"], 1), "links[2].b", ["cpu_port"], None),
    (lambda d: [sw.update(device_id=5) for sw in d["switches"]], "switches[1].device_id",
     ["5 is already used by s1"], "device_id"),
    (_mutate(["switches", 1, "target"], "tofino"), "switches[1].target",
     ["'software' or 'bmv2'", "tofino"], "target"),
    (_mutate(["scale"], 0), "scale", ["greater than 0"], "scale"),
    (_mutate(["switches", 1, "controller", "entry"], "controllers/learning.py"),
     "switches[1].controller.entry", ["'controllers/learning.py'", "package.module:function"],
     "entry"),
    (_mutate(["links", 3], {"a": "s1-p3", "b": "s1-p4"}), "links[3]", ["same node"], None),
]


@pytest.mark.parametrize("mutate, field, words, key", ERRORS, ids=[e[1] + ":" + e[2][0][:20]
                                                                    for e in ERRORS])
def test_validation_errors_name_file_line_field_and_fix(tmp_path, p4_file, mutate, field, words,
                                                        key):
    data = copy.deepcopy(BASE)
    mutate(data)
    path = write(tmp_path, data)
    with pytest.raises(TopologyError) as err:
        load_topology(path)
    text = str(err.value)
    first = text.splitlines()[0]
    assert first.startswith(f"{path}:"), text
    line = int(first.split(":")[1])
    assert f": {field}: " in first, text
    for word in words:
        assert word in first, text
    if key is not None:
        assert f"{key}:" in path.read_text().splitlines()[line - 1], (line, text)


def test_yaml_syntax_error_gives_line_and_column(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("name: x\nhosts:\n  - {name: h1, ip: 10.0.0.1/24\nlinks: []\n")
    with pytest.raises(TopologyError) as err:
        load_topology(path)
    assert str(err.value).startswith(f"{path}:4:") and "YAML syntax error" in str(err.value)


def test_missing_file_and_non_mapping(tmp_path):
    with pytest.raises(TopologyError, match="cannot read"):
        load_topology(tmp_path / "nope.yaml")
    path = tmp_path / "list.yaml"
    path.write_text("- a\n- b\n")
    with pytest.raises(TopologyError, match="a topology file is a mapping"):
        load_topology(path)


def test_generator_form_in_yaml(tmp_path, p4_file):
    path = tmp_path / "g.yaml"
    path.write_text("name: mine\nscale: 1.0e-4\nprogram: prog.p4\n"
                    "generator: {name: star, workers: 3, nic: roce-100g}\n")
    topo = load_topology(path)
    assert topo.name == "mine" and topo.scale == 1e-4 and len(topo.hosts) == 3
    assert topo.switches[0].program == p4_file


@pytest.mark.parametrize("text, field, words", [
    ("generator: {name: ring}\n", "generator.name", ["'ring'", "star, leaf-spine"]),
    ("generator: {name: star, workers: 0}\n", "generator.workers", ["greater than or equal to 1"]),
    ("generator: {name: star, wrkers: 3}\n", "generator.wrkers", ["allowed: workers"]),
    ("generator: {name: star}\nhosts: []\n", "hosts", ["only name, description, scale, program"]),
    ("generator: star\n", "generator", ["{name: NAME"]),
])
def test_generator_errors(tmp_path, text, field, words):
    path = tmp_path / "g.yaml"
    path.write_text(text)
    with pytest.raises(TopologyError) as err:
        load_topology(path)
    first = str(err.value).splitlines()[0]
    assert first.startswith(f"{path}:") and f": {field}: " in first
    for word in words:
        assert word in first


def test_runtime_entries_convert_to_control_plane_objects():
    entry = TableEntrySpec(table="MyIngress.acl", action_name="MyIngress.drop", priority=10,
                           match={"hdr.ipv4.srcAddr": ["10.0.0.0", "255.0.0.0"],
                                  "hdr.ethernet.etherType": "0x0800",
                                  "hdr.tcp.dstPort": [1000, 2000]})
    out = entry.to_entry([("hdr.ethernet.etherType", "exact"), ("hdr.ipv4.srcAddr", "ternary"),
                          ("hdr.tcp.dstPort", "range"), ("hdr.ipv4.dstAddr", "lpm")])
    from testbed.p4 import entries
    assert out.match == (entries.Exact(0x0800), entries.Ternary(0x0A000000, 0xFF000000),
                         entries.Range(1000, 2000), None)
    assert out.priority == 10 and out.action == entries.ActionCall("MyIngress.drop", {})
    with pytest.raises(ValueError, match="no key 'hdr.ethernet.etherType'; keys: hdr.ipv4.srcAddr"):
        entry.to_entry([("hdr.ipv4.srcAddr", "ternary")])


def test_runtime_values_include_ipv6_and_prefix_text():
    from testbed.p4 import entries
    entry = TableEntrySpec(table="MyIngress.ipv6_lpm", action_name="MyIngress.forward",
                           match={"hdr.ipv6.dstAddr": "fd00:1::/32"},
                           action_params={"nextHop": "fe80::1", "port": 2})
    out = entry.to_entry([("hdr.ipv6.dstAddr", "lpm")])
    assert out.match == (entries.Lpm(0xFD000001 << 96, 32),)
    assert out.action.params == {"nextHop": 0xFE80 << 112 | 1, "port": 2}
    with pytest.raises(ValueError, match="has host bits set"):
        TableEntrySpec(table="t", action_name="a", match={"k": "fd00:1::1/32"})


def test_runtime_entry_shape_errors(tmp_path, p4_file):
    data = copy.deepcopy(BASE)
    data["switches"][0]["runtime"] = {"table_entries": [
        {"table": "t", "action_name": "a", "match": {"k": ["10.0.0.1", 32, 1]}}]}
    with pytest.raises(TopologyError) as err:
        load_topology(write(tmp_path, data))
    assert "switches[0].runtime.table_entries[0]: match 'k'" in str(err.value)


def test_port_out_of_v1model_range(tmp_path, p4_file):
    data = copy.deepcopy(BASE)
    data["links"][1]["b"] = "s1-p600"
    with pytest.raises(TopologyError, match=r"links\[1\]\.b: 's1-p600': port 600 is out of "
                                            r"range; v1model ports are 0\.\.511"):
        load_topology(write(tmp_path, data))


def test_emulation_warnings_suggest_another_scale(tmp_path, p4_file):
    data = copy.deepcopy(BASE)
    data["scale"] = 1.0
    topo = load_topology(write(tmp_path, data))
    warnings = topo.emulation_warnings()
    assert any(w.startswith("links[0] (h1 <-> s1-p1): emulated 10 Gb/s exceeds") and
               w.endswith("lower scale") for w in warnings)
    data["scale"] = 1e-6
    warnings = load_topology(write(tmp_path, data)).emulation_warnings()
    assert any(w.startswith("links[3] (s1-p3 <-> s2-p2): emulated 1 kb/s takes over 1 s")
               for w in warnings)
    data["scale"] = 1e-3
    assert load_topology(write(tmp_path, data)).emulation_warnings() == []


def test_unquoted_macs_and_short_floats_read_naturally(tmp_path, p4_file):
    path = tmp_path / "t.yaml"
    path.write_text("scale: 1e-4\nhosts:\n"
                    "  - {name: h1, ip: 10.0.1.1/24, mac: 10:00:00:00:01:11}\n"
                    "switches:\n  - name: s1\n    program: prog.p4\n    runtime:\n"
                    "      table_entries:\n        - table: MyIngress.ipv4_lpm\n"
                    "          match: {hdr.ipv4.dstAddr: [10.0.1.1, 32]}\n"
                    "          action_name: MyIngress.ipv4_forward\n"
                    "          action_params: {dstAddr: 10:00:00:00:01:11, port: 1}\n"
                    "links:\n  - [h1, s1-p1]\n")
    topo = load_topology(path)
    assert topo.scale == 1e-4 and topo.host("h1").mac == "10:00:00:00:01:11"
    entry = topo.switch("s1").runtime.table_entries[0]
    assert entry.to_entry([("hdr.ipv4.dstAddr", "lpm")]).action.params == {
        "dstAddr": 0x100000000111, "port": 1}
