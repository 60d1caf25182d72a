"""From topology specs to what the network builds."""
import subprocess

import pytest

from testbed.errors import TrainetError
from testbed.net.probe import PROBE_IFACE, probe
from testbed.net.topology import load_blueprint, blueprint_from_topology
from testbed.topology.spec import Topology
from tests.net.helpers import DATA


def test_tutorials_topology_json():
    blueprint = load_blueprint(DATA / "triangle" / "topology.json")
    assert [h.name for h in blueprint.hosts] == ["h1", "h2", "h3"]
    h1 = blueprint.hosts[0]
    assert (h1.ip, h1.mac, h1.gateway, h1.gateway_mac) == \
        ("10.0.1.1/24", "08:00:00:00:01:11", "10.0.1.10", "08:00:00:00:01:00")
    assert [(l.a, l.a_port, l.b, l.b_port) for l in blueprint.links[:1] + blueprint.links[3:4]] == \
        [("h1", 0, "s1", 1), ("s1", 2, "s2", 2)]
    s1 = blueprint.switches[0]
    assert s1.p4.endswith("basic.p4") and s1.kind == "software"
    assert len(s1.runtime["table_entries"]) == 4


def test_rates_are_co_scaled_and_delays_are_not():
    topo = Topology.from_data({
        "scale": 1e-3,
        "hosts": [{"name": "a", "ip": "10.0.0.1/24"}, {"name": "b", "ip": "10.0.0.2/24"}],
        "links": [{"a": "a", "b": "b", "profile": "roce-200g", "loss": 1, "queue": 64}]})
    blueprint = blueprint_from_topology(topo)
    shape = blueprint.links[0].shape
    assert (shape.nominal_bps, shape.rate_bps) == (200e9, pytest.approx(200e6))
    assert shape.delay_s == 2.5e-6 and shape.loss == 0.01 and shape.queue_packets == 64
    assert blueprint.hosts[0].mac != blueprint.hosts[1].mac          # given when the spec has none


def test_missing_topology_file_says_what_to_give(tmp_path):
    with pytest.raises(TrainetError, match="no such topology file; give a topology .yaml"):
        load_blueprint(tmp_path / "none.yaml")


@pytest.mark.root
def test_probe_tries_qdiscs_on_a_throwaway_interface_and_removes_it():
    caps = probe()
    assert caps.root and caps.mininet
    assert caps.qdiscs["htb"] and caps.qdiscs["tbf"]      # this machine's kernel has both
    listed = subprocess.run(["ip", "link", "show", PROBE_IFACE], capture_output=True)
    assert listed.returncode != 0
    mode = caps.shaping_mode()
    assert mode.rate == "kernel tbf"
    assert mode.delay == ("kernel netem" if caps.netem else "switch egress model")
