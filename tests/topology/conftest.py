"""Helpers for topology tests: a forwarding walk over a spec's basic.p4 entries."""
import ipaddress
import shutil
from pathlib import Path

import pytest

from testbed.p4runtime.values import parse_value
from testbed.topology.routing import LPM_KEY, LPM_TABLE

REPO = Path(__file__).resolve().parents[2]


def _lookup(switch, dst: str):
    """Longest-prefix match of dst in the switch's ipv4_lpm entries -> (mac, port)."""
    best = None
    for e in switch.runtime.table_entries:
        if e.table != LPM_TABLE or e.default_action:
            continue
        value, plen = e.match[LPM_KEY]
        net = ipaddress.ip_network(f"{value}/{plen}", strict=False)
        if ipaddress.ip_address(dst) in net and (best is None or plen > best[0]):
            best = (plen, e.action_params)
    return None if best is None else (best[1]["dstAddr"], parse_value(best[1]["port"]))


def walk(topo, src: str, dst: str, max_hops: int = 32):
    """Follow the tables from host src towards host dst; returns the switches crossed,
    or raises AssertionError with where the packet was lost."""
    by_end = {}
    for link in topo.links:
        a, b = topo.endpoints(link)
        by_end[str(a)] = b
        by_end[str(b)] = a
    dst_host = topo.host(dst)
    here = by_end[src]
    path = []
    for _ in range(max_hops):
        assert here.port is not None, f"{src}->{dst}: delivered to host {here.node}"
        path.append(here.node)
        hit = _lookup(topo.switch(here.node), str(dst_host.ip.ip))
        assert hit is not None, f"{src}->{dst}: no route at {here.node}"
        mac, port = hit
        nxt = by_end.get(f"{here.node}-p{port}")
        assert nxt is not None, f"{src}->{dst}: {here.node} port {port} has no link"
        if nxt.port is None:
            assert nxt.node == dst, f"{src}->{dst}: delivered to {nxt.node}"
            assert mac == dst_host.mac, f"{src}->{dst}: last hop writes {mac}"
            return path
        here = nxt
    raise AssertionError(f"{src}->{dst}: loop through {path}")


@pytest.fixture
def route():
    return walk


@pytest.fixture
def all_pairs_reachable():
    def check(topo):
        names = [h.name for h in topo.hosts]
        for src in names:
            for dst in names:
                if src != dst:
                    walk(topo, src, dst)
    return check


@pytest.fixture
def p4_file(tmp_path):
    path = tmp_path / "prog.p4"
    shutil.copy(REPO / "p4" / "basic.p4", path)
    return path
