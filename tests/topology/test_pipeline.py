"""Runtime entries from specs installed into the P4 target running p4/basic.p4: frames
cross the fabric switch by switch through the real pipeline."""
import shutil
from pathlib import Path

import pytest
from scapy.all import IP, UDP, Ether

from testbed.p4 import entries
from testbed.p4runtime.values import parse_value
from testbed.topology import generators
from testbed.topology.tutorials import import_tutorial

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow          # compiling basic.p4 takes about a second


@pytest.fixture(scope="module")
def basic_program():
    from testbed.p4.lowering.program import load_program
    return load_program(REPO / "p4" / "basic.p4")


def program_fabric(topo, program):
    from testbed.p4.python.target import Target
    tables = {n: t for c in program.controls.values() for n, t in c.tables.items()}
    targets = {}
    for sw in topo.switches:
        target = targets[sw.name] = Target(program)
        for e in sw.runtime.table_entries:
            if e.default_action:
                params = {k: parse_value(v) for k, v in e.action_params.items()}
                target.table_set_default(e.table, entries.ActionCall(e.action_name, params))
            else:
                target.table_insert(e.to_entry([(k.name, k.match_kind)
                                                for k in tables[e.table].keys]))
    return targets


def send(topo, targets, src, dst):
    """Frame from host src to host dst; returns (receiving host, frame, switch hops)."""
    peer = {}
    for link in topo.links:
        a, b = topo.endpoints(link)
        peer[str(a)], peer[str(b)] = b, a
    s, d = topo.host(src), topo.host(dst)
    frame = bytes(Ether(src=s.mac, dst=s.gateway_mac or "08:00:00:00:00:00")
                  / IP(src=str(s.ip.ip), dst=str(d.ip.ip), ttl=64) / UDP() / b"payload")
    here, hops = peer[src], 0
    while here.port is not None and hops < 16:
        out = targets[here.node].process(frame, here.port)
        assert len(out) == 1, f"{src}->{dst}: {here.node} emitted {out}"
        port, frame = out[0]
        here, hops = peer[f"{here.node}-p{port}"], hops + 1
    return here.node, Ether(frame), hops


def test_generated_leaf_spine_routes_through_the_pipeline(basic_program):
    topo = generators.leaf_spine(leaves=2, spines=2, hosts_per_leaf=2)
    targets = program_fabric(topo, basic_program)
    for src in ("h1", "h4"):
        for dst in ("h1", "h2", "h3", "h4"):
            if src == dst:
                continue
            host, frame, hops = send(topo, targets, src, dst)
            assert host == dst and frame.dst == topo.host(dst).mac
            assert frame[IP].ttl == 64 - hops and hops == (1 if (src, dst) == ("h1", "h2")
                                                          or (src, dst) == ("h4", "h3") else 3)


def test_imported_tutorial_triangle_routes_through_the_pipeline(basic_program, tmp_path):
    root = tmp_path / "basic"
    shutil.copytree(Path(__file__).parent / "tutorial_triangle", root)
    topo = import_tutorial(root / "triangle" / "topology.json", p4=REPO / "p4" / "basic.p4")
    targets = program_fabric(topo, basic_program)
    host, frame, hops = send(topo, targets, "h1", "h3")
    assert (host, frame.dst, hops) == ("h3", "08:00:00:00:03:33", 2)
