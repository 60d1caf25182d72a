"""Networks brought up for real: Mininet hosts, software P4 switches programmed over
P4Runtime, shaped links."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from controllers.p4runtime_client import P4RuntimeClient
from testbed.bench import links as bench
from testbed.net.network import Network
from testbed.net.nodes import napi_threads
from testbed.net.topology import load_blueprint, blueprint_from_topology
from testbed.p4 import entries as E
from tests.net.helpers import DATA, REPO, Snapshot, use_free_ports

pytestmark = [pytest.mark.root, pytest.mark.slow]


@pytest.fixture
def nothing_left():
    snap = Snapshot("t")
    yield
    assert snap.leftovers() == {}


def test_tutorial_triangle_every_host_reaches_every_other(tmp_path, nothing_left):
    blueprint = load_blueprint(DATA / "triangle" / "topology.json")
    use_free_ports(blueprint)
    with Network(blueprint, tmp_path) as net:
        assert net.net.pingAll(timeout=2) == 0.0
        s1 = next(s for s in blueprint.switches if s.name == "ts1")
        client = P4RuntimeClient(f"127.0.0.1:{s1.grpc_port}")
        try:
            got = client.table_entries("MyIngress.ipv4_lpm")
        finally:
            client.close()
        assert {e.match for e in got} == {(E.Lpm(0x0A000101, 32),), (E.Lpm(0x0A000200, 24),),
                                          (E.Lpm(0x0A000300, 24),)}
        to_h1 = next(e for e in got if e.match == (E.Lpm(0x0A000101, 32),))
        assert to_h1.action == E.ActionCall("MyIngress.ipv4_forward",
                                            {"dstAddr": 0x080000000111, "port": 1})
        assert "pipeline installed" in (tmp_path / "logs" / "ts1.log").read_text()
        # The routing controller alone: push the pipeline again and reinstall the entries.
        done = subprocess.run([sys.executable, "-m", "controllers.routing", "--grpc",
                               f"127.0.0.1:{s1.grpc_port}", "--p4", s1.p4, "--runtime",
                               str(DATA / "triangle" / "s1-runtime.json")],
                              capture_output=True, text=True, cwd=REPO, timeout=60)
        assert done.returncode == 0, done.stderr
        assert "4 object(s) written" in done.stdout
        assert net.net.pingAll(timeout=2) == 0.0


def test_generated_star_pings_all(tmp_path, nothing_left):
    from testbed.topology.generators import star
    blueprint = blueprint_from_topology(star(workers=4), "star")
    use_free_ports(blueprint)
    with Network(blueprint, tmp_path) as net:
        assert net.net.pingAll(timeout=2) == 0.0
        assert len(net.net.hosts) == 4
        # the hosts receive in NAPI threads of their own, run as batch tasks (a frame
        # the switch sends does not preempt it); only this network's hosts have eth0s
        hosts_napi = [pid for pid in napi_threads()
                      if Path(f"/proc/{pid}/comm").read_text().startswith("napi/eth0-")]
        assert len(hosts_napi) >= 4
        assert {os.sched_getscheduler(pid) for pid in hosts_napi} == {os.SCHED_BATCH}


def test_switch_name_without_digits_comes_up(tmp_path, nothing_left):
    from testbed.topology.generators import star
    blueprint = blueprint_from_topology(star(workers=2), "star")
    old = blueprint.switches[0].name
    blueprint.switches[0].name = "spine"
    for link in blueprint.links:
        link.a, link.b = ("spine" if n == old else n for n in (link.a, link.b))
    use_free_ports(blueprint, prefix="tx")
    with Network(blueprint, tmp_path) as net:
        assert net.net.pingAll(timeout=2) == 0.0


def test_kernel_rate_shaping_holds_tcp_to_the_configured_rate(tmp_path, nothing_left):
    blueprint = bench._blueprint(bench._pair(bw="20Mbit"))
    use_free_ports(blueprint)
    with Network(blueprint, tmp_path) as net:
        got = bench.measure_rate(net, "h1", "h2", "10.0.0.2", seconds=5)
    assert got["wire_bps"] == pytest.approx(20e6, rel=0.03)


def test_the_switch_sends_at_the_rate_of_its_shaped_port(tmp_path, nothing_left):
    """h1's link is unshaped, h2's 10 Mb/s: what the switch sends to h2 goes through the
    tbf on its port, so TCP from h1 to h2 gets 10 Mb/s, not the switch's line rate."""
    data = bench._pair(switch=True)
    data["links"][1]["bw"] = "10Mbit"
    blueprint = bench._blueprint(data)
    use_free_ports(blueprint)
    with Network(blueprint, tmp_path) as net:
        got = bench.measure_rate(net, "h1", "h2", "10.0.0.2", seconds=5)
    assert got["wire_bps"] == pytest.approx(10e6, rel=0.05)


def test_delay_through_the_switch_gives_the_configured_round_trip(tmp_path, nothing_left):
    blueprint = bench._blueprint(bench._pair(switch=True, delay="5ms"))
    use_free_ports(blueprint)
    with Network(blueprint, tmp_path) as net:
        got = bench.measure_rtt(net, "h1", "10.0.0.2", count=20)
        assert got["loss_pct"] == 0
        # 2 links x 2 directions x 5 ms, plus the switch's own forwarding time (about
        # 0.3 ms). The fastest round trip shows the delay line's accuracy; the median
        # also carries scheduling noise when the two cores are busy, so it gets 10%.
        assert 20e-3 <= got["min_s"] <= 20e-3 * 1.05 + 0.5e-3
        assert got["median_s"] <= 20e-3 * 1.10 + 0.5e-3
        # tbs1-eth2 carries both directions of the h2 link (10 ms); set it to 1 ms at run
        # time: the switch restarts with the new egress model and gets its entries again.
        net.reshape("tbs1-eth2", delay_s=1e-3)
        got = bench.measure_rtt(net, "h1", "10.0.0.2", count=20)
        assert got["loss_pct"] == 0
        assert 11e-3 <= got["min_s"] and got["median_s"] <= 11e-3 * 1.05 + 0.5e-3


def test_rate_changes_at_run_time(tmp_path, nothing_left):
    blueprint = bench._blueprint(bench._pair(bw="50Mbit"))
    use_free_ports(blueprint)
    with Network(blueprint, tmp_path) as net:
        net.reshape("h1-eth0", rate_bps=5e6)
        got = bench.measure_rate(net, "h1", "h2", "10.0.0.2", seconds=5)
    assert got["wire_bps"] == pytest.approx(5e6, rel=0.03)


RECEIVER = """
import socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x88B5))
s.bind(("eth0", 0))
s.settimeout(10)
print("ready", flush=True)
print(s.recv(2048).hex(), flush=True)
"""


def test_controller_packet_in_and_packet_out(tmp_path, nothing_left):
    from testbed.topology.spec import Topology
    topo = Topology.from_data({
        "hosts": [{"name": "h1", "ip": "10.0.0.1/24", "mac": "08:00:00:00:00:01"},
                  {"name": "h2", "ip": "10.0.0.2/24", "mac": "08:00:00:00:00:02"}],
        "switches": [{"name": "p1", "program": str(DATA / "punt.p4"), "cpu_port": 255}],
        "links": [["h1", "p1-p1"], ["h2", "p1-p2"]]})
    blueprint = blueprint_from_topology(topo)
    use_free_ports(blueprint)
    with Network(blueprint, tmp_path) as net:
        client = P4RuntimeClient(f"127.0.0.1:{blueprint.switches[0].grpc_port}",
                                 election_id=(0, 2)).connect()
        try:
            net.net["h1"].cmd("ping -c1 -W1 10.0.0.2")
            punted = client.packet_in(timeout_s=5)
            assert punted is not None
            assert [m.value for m in punted.metadata] == [b"\x01", b"\x00"]   # port 1, pad
            assert punted.payload[:6] == bytes.fromhex("080000000002")
            assert punted.payload[12:14] == b"\x08\x00"

            receiver = net.net["h2"].popen([sys.executable, "-c", RECEIVER],
                                           stdout=subprocess.PIPE, text=True)
            assert receiver.stdout.readline().strip() == "ready"
            frame = bytes.fromhex("080000000002" "0800000000ff" "88b5") + b"from the controller"
            client.packet_out(frame, {"egress_port": 2})
            assert receiver.stdout.readline().strip() == frame.hex()
            receiver.wait(timeout=5)
        finally:
            client.close()


@pytest.mark.parametrize("mtu", [9000, 4096])
def test_a_jumbo_link_carries_a_frame_of_its_mtu_through_the_switch(tmp_path, nothing_left,
                                                                   mtu):
    """Both ends of each link run at the link's MTU, its tbf lets such a frame through
    and the switch's ports read it: a ping of exactly the MTU with don't-fragment set goes
    h1 -> bs1 -> h2 and back; one byte more is refused, and 1500 B links refuse it."""
    def ping(net, size):
        out = net.net["h1"].cmd(f"ping -c2 -W2 -M do -s {size} 10.0.0.2")
        return out, " 0% packet loss" in out

    icmp = 20 + 8                 # IPv4 and ICMP headers: the payload is MTU - 28
    data = bench._pair(bw="100Mbit", switch=True)
    for link in data["links"]:
        link["mtu"] = mtu
    blueprint = bench._blueprint(data)
    use_free_ports(blueprint)
    with Network(blueprint, tmp_path) as net:
        for node, intf in (("h1", "h1-eth0"), ("tbs1", "tbs1-eth1"),
                           ("tbs1", "tbs1-eth2"), ("h2", "h2-eth0")):
            dev = net.device_name(intf)
            assert f"mtu {mtu} " in net.net[node].cmd(f"ip link show dev {dev}")
        out, ok = ping(net, mtu - icmp)
        assert ok, out
        out, ok = ping(net, mtu - icmp + 1)
        assert not ok and "message too long" in out.lower(), out
    blueprint = bench._blueprint(bench._pair(bw="100Mbit", switch=True))
    use_free_ports(blueprint)
    with Network(blueprint, tmp_path / "default") as net:
        assert "mtu 1500 " in net.net["h1"].cmd(f"ip link show dev {net.device_name('h1-eth0')}")
        assert ping(net, 1500 - icmp)[1]
        out, ok = ping(net, mtu - icmp)
        assert not ok, out


def test_the_fabric_runs_at_its_smallest_links_mtu():
    """A P4 switch neither fragments nor answers "too big": a host on a jumbo link whose
    traffic crosses a 1500 B link would see its frames dropped there, so every link runs
    at the smallest MTU of the fabric."""
    data = bench._pair(bw="100Mbit", switch=True)
    data["links"][0]["mtu"] = 9000
    assert [link.shape.mtu for link in bench._blueprint(data).links] == [1500, 1500]
    for link in data["links"]:
        link["mtu"] = 9000
    assert [link.shape.mtu for link in bench._blueprint(data).links] == [9000, 9000]
