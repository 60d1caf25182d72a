import json
import shutil
from pathlib import Path

import pytest

from testbed.p4 import entries
from testbed.topology.load import load_topology
from testbed.topology.specfile import TopologyError
from testbed.topology.tutorials import import_tutorial

SAMPLE = Path(__file__).parent / "tutorial_triangle"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def exercise(tmp_path):
    """A copy of the sample exercise with basic.p4 in the exercise directory."""
    root = tmp_path / "basic"
    shutil.copytree(SAMPLE, root)
    shutil.copy(REPO / "p4" / "basic.p4", root / "basic.p4")
    return root


def test_import_triangle(exercise, all_pairs_reachable):
    topo = import_tutorial(exercise / "triangle" / "topology.json", scale=1e-2)
    assert [h.name for h in topo.hosts] == ["h1", "h2", "h3"]
    h3 = topo.host("h3")
    assert (str(h3.ip), h3.mac) == ("10.0.3.3/24", "08:00:00:00:03:33")
    assert (str(h3.gateway), h3.gateway_mac) == ("10.0.3.30", "08:00:00:00:03:00")
    assert h3.commands == ["sysctl -w net.ipv6.conf.all.disable_ipv6=1"]
    assert all(sw.program == exercise / "basic.p4" for sw in topo.switches)
    assert topo.switch("s3").cpu_port == 255
    assert [sw.target for sw in topo.switches] == ["software"] * 3
    params = [topo.link_params(link) for link in topo.links]
    assert params[2].delay_s == pytest.approx(1e-3) and params[2].bw_bps is None
    assert params[3].delay_s == pytest.approx(5e-3) and params[3].bw_bps == 10e6  # 5 -> ms, Mbit/s
    assert params[5].bw_bps == 100e6
    all_pairs_reachable(topo)


def test_runtime_entries_are_converted(exercise):
    topo = import_tutorial(exercise / "triangle" / "topology.json")
    runtime = topo.switch("s1").runtime
    default, *forward = runtime.table_entries
    assert default.default_action and default.action_name == "MyIngress.drop"
    entry = forward[1].to_entry([("hdr.ipv4.dstAddr", "lpm")])
    assert entry.match == (entries.Lpm(0x0A000202, 32),)
    assert entry.action == entries.ActionCall("MyIngress.ipv4_forward",
                                              {"dstAddr": 0x080000000200, "port": 2})
    group = runtime.multicast_group_entries[0].to_group()
    assert group.group_id == 1 and [r.port for r in group.replicas] == [1, 2, 3]
    session = runtime.clone_session_entries[0].to_session()
    assert (session.session_id, session.packet_length_bytes) == (100, 64)
    assert session.replicas == [entries.Replica(3, 1)]
    assert topo.switch("s2").runtime.multicast_group_entries == []


def test_round_trip_through_yaml(exercise, tmp_path):
    topo = import_tutorial(exercise / "triangle" / "topology.json")
    out = tmp_path / "triangle.yaml"
    out.write_text(topo.to_yaml())
    assert load_topology(out).model_dump() == topo.model_dump()


def test_p4_source_not_found_says_what_to_pass(exercise):
    (exercise / "basic.p4").unlink()
    with pytest.raises(TopologyError) as err:
        import_tutorial(exercise / "triangle" / "topology.json")
    text = str(err.value)
    assert "switches.s1: P4 source 'basic.p4'" in text and "--p4 PATH/basic.p4" in text
    topo = import_tutorial(exercise / "triangle" / "topology.json", p4=REPO / "p4" / "basic.p4")
    assert topo.switches[0].program == REPO / "p4" / "basic.p4"


def test_bad_runtime_entry_names_the_runtime_file_and_line(exercise):
    path = exercise / "triangle" / "s2-runtime.json"
    conf = json.loads(path.read_text())
    conf["table_entries"][1]["match"]["hdr.ipv4.dstAddr"] = ["10.0.1.1", 32, 0]
    path.write_text(json.dumps(conf, indent=4))
    with pytest.raises(TopologyError) as err:
        import_tutorial(exercise / "triangle" / "topology.json")
    first = str(err.value).splitlines()[0]
    assert first.startswith(f"{path.resolve()}:") and "table_entries[1]: match" in first
    line = int(first.split(":")[1])
    assert "{" in path.read_text().splitlines()[line - 1]


@pytest.mark.parametrize("change, message", [
    (lambda t: t["links"].__setitem__(1, ["h2", "s4-p1"]),
     "links[1][1]: 's4-p1' is not a host or a switch port"),
    (lambda t: t["hosts"]["h2"].__setitem__("mac", "08:00:00:00:02"),
     "hosts.h2.mac: '08:00:00:00:02' is not a MAC address"),
    (lambda t: t["links"].__setitem__(3, ["s1-p2", "s2-p2", "5 parsecs"]),
     "links[3][2]: '5 parsecs' is not a duration"),
])
def test_errors_name_the_json_path_and_line(exercise, change, message):
    path = exercise / "triangle" / "topology.json"
    topo = json.loads(path.read_text())
    change(topo)
    path.write_text(json.dumps(topo, indent=4))
    with pytest.raises(TopologyError) as err:
        import_tutorial(path)
    text = str(err.value)
    assert text.startswith(f"{path.resolve()}:") and message in text, text
    line = int(text.split(":")[1])
    assert message.split("'")[1] in path.read_text().splitlines()[line - 1]


def test_cli_input_switches_are_refused_with_the_alternative(exercise):
    path = exercise / "triangle" / "topology.json"
    topo = json.loads(path.read_text())
    topo["switches"]["s2"]["cli_input"] = "s2-commands.txt"
    path.write_text(json.dumps(topo, indent=4))
    with pytest.raises(TopologyError, match=r"topology\.json:\d+:\d+: switches\.s2\.cli_input: "
                                            r".*runtime_json"):
        import_tutorial(path)


def _without_programs(exercise):
    """The exercise with no bmv2_json in its runtime files."""
    for runtime in (exercise / "triangle").glob("s*-runtime.json"):
        data = json.loads(runtime.read_text())
        data.pop("bmv2_json", None)
        runtime.write_text(json.dumps(data))


def test_a_switch_nothing_names_runs_the_exercises_single_p4(exercise):
    _without_programs(exercise)
    topo = import_tutorial(exercise / "triangle" / "topology.json")
    assert all(sw.program == exercise / "basic.p4" for sw in topo.switches)
    shutil.copy(exercise / "basic.p4", exercise / "other.p4")
    with pytest.raises(TopologyError) as err:
        import_tutorial(exercise / "triangle" / "topology.json")
    assert "holds several: basic.p4, other.p4; pass one with --p4 PATH" in str(err.value)


def test_exact_matches_may_be_one_element_lists(exercise):
    runtime = exercise / "triangle" / "s1-runtime.json"
    data = json.loads(runtime.read_text())
    data["table_entries"].append({"table": "MyIngress.tagger", "action_name": "NoAction",
                                  "match": {"hdr.ethernet.etherType": ["0x0800"]}})
    runtime.write_text(json.dumps(data))
    entry = import_tutorial(exercise / "triangle" / "topology.json").switch("s1") \
        .runtime.table_entries[-1]
    assert entry.to_entry([("hdr.ethernet.etherType", "exact")]).match == (
        entries.Exact(0x0800),)
