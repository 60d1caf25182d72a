"""The switch as a device: packet-out/packet-in, per-packet pipeline failures, config
errors. The pipeline here is a small scripted target, so these tests do not depend on
the P4 compiler; the P4 programs run in test_switch_netns.py."""
import os
import socket
import threading
import time

import pytest

from testbed.errors import TrainetError
from testbed.p4.entries import ControlPlaneError
from testbed.switch.egress import Shape
from testbed.switch.lab import VethLab
from testbed.switch.switch import SoftwareSwitch

pytestmark = pytest.mark.root
CPU = 64


class ScriptedTarget:
    """Frames starting with b"boom" make the pipeline raise; b"cpu" frames go to the CPU
    port; frames from the CPU port go to the port named in their second byte; others
    cross from port 1 to port 2 and back."""

    def __init__(self):
        self.drop_counts = {"parser": 0}

    def process(self, frame, port):
        if frame.startswith(b"boom"):
            raise ValueError("scripted failure")
        if port == CPU:
            return [(frame[1], frame)]
        if frame[14:17] == b"cpu":
            return [(CPU, frame)]
        return [(3 - port, frame)]


@pytest.fixture(scope="module")
def lab():
    with VethLab(n_hosts=2, prefix=f"td{os.getpid() % 0xFFF:03x}") as lab:
        yield lab


@pytest.fixture
def switch(lab):
    sw = SoftwareSwitch(lab.ports(), cpu_port=CPU)
    sw.install_target(ScriptedTarget())
    loop = threading.Thread(target=sw.run)
    loop.start()
    yield sw
    sw.stop()
    loop.join(5)
    assert not loop.is_alive()
    sw.close()


def eth(payload: bytes) -> bytes:
    return bytes.fromhex("020000000002020000000001" "88b5") + payload.ljust(46, b"\0")


def recv_marked(sock, marker, timeout=1.0):
    sock.settimeout(0.05)
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            f = sock.recv(65536)
        except socket.timeout:
            continue
        if marker in f:
            return f
    return None


def test_pipeline_failure_is_counted_and_not_fatal(lab, switch):
    h1, h2 = lab.hosts
    s1, s2 = h1.socket(), h2.socket()
    s1.send(b"boom" + bytes(60))
    s1.send(eth(b"after-boom"))
    assert recv_marked(s2, b"after-boom") is not None
    assert switch.drop_counts()["pipeline_error"] == 1
    s1.close()
    s2.close()


def test_packet_in_and_packet_out(lab, switch):
    h1, h2 = lab.hosts
    s1, s2 = h1.socket(), h2.socket()
    got = []
    switch.packet_in_handler = got.append
    s1.send(eth(b"cpu-bound"))
    deadline = time.monotonic() + 1
    while not got and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(got) == 1 and b"cpu-bound" in got[0]
    out = b"\x00\x02" + eth(b"from-controller")[2:]
    switch.packet_out(out)                           # pipeline sends it to port 2
    assert recv_marked(s2, b"from-controller") == out
    switch.packet_in_handler = None
    s1.send(eth(b"cpu-nobody"))
    deadline = time.monotonic() + 1
    while switch.drop_counts()["no_packet_in_handler"] == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert switch.drop_counts()["no_packet_in_handler"] == 1
    s1.close()
    s2.close()


def test_packet_out_needs_cpu_port_and_pipeline(lab):
    sw = SoftwareSwitch(lab.ports())
    try:
        with pytest.raises(ControlPlaneError) as info:
            sw.packet_out(eth(b"x"))
        assert info.value.code == "FAILED_PRECONDITION" and "--cpu-port" in info.value.message
    finally:
        sw.close()
    sw = SoftwareSwitch(lab.ports(), cpu_port=CPU)
    try:
        with pytest.raises(ControlPlaneError, match="SetForwardingPipelineConfig"):
            sw.packet_out(eth(b"x"))
    finally:
        sw.close()


def test_no_pipeline_drops_are_counted(lab):
    h1 = lab.hosts[0]
    sw = SoftwareSwitch(lab.ports())
    loop = threading.Thread(target=sw.run)
    loop.start()
    try:
        s1 = h1.socket()
        for _ in range(3):
            s1.send(eth(b"early"))
        s1.close()
        deadline = time.monotonic() + 1
        while sw.drop_counts()["no_pipeline"] < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert sw.drop_counts()["no_pipeline"] >= 3
    finally:
        sw.stop()
        loop.join(5)
        sw.close()


def test_configuration_errors_name_the_argument(lab, tmp_path):
    p1, p2 = lab.ports().values()
    cases = [
        ({}, {}, "no ports"),
        ({1: p1, 2: p1}, {}, f"interface {p1} is given to ports 1 and 2"),
        ({1: p1}, {"cpu_port": 1}, "--cpu-port 1 is also a data port"),
        ({1: p1}, {"shapes": {3: Shape(delay_ns=1)}}, "--port-shape for port 3.*add -i 3@IFACE"),
        ({1: p1}, {"pcap_dir": str(tmp_path / "none")}, "no such directory"),
        ({1: "tnnosuchif"}, {}, "no interface named 'tnnosuchif'"),
    ]
    for ports, kw, message in cases:
        with pytest.raises(TrainetError, match=message):
            SoftwareSwitch(ports, **kw)


def test_kernel_receive_overruns_are_counted(lab):
    from testbed.switch.traffic import BatchSender
    h1 = lab.hosts[0]
    sw = SoftwareSwitch(lab.ports())
    sw.install_target(ScriptedTarget())
    try:
        s1 = h1.socket()
        sender = BatchSender(s1, eth(b"flood").ljust(1500, b"\0"))
        sent = 0
        while sent < 20_000:              # the loop is not running: the socket fills up
            sent += sender.send(256)
        s1.close()
        loop = threading.Thread(target=sw.run)
        loop.start()
        time.sleep(0.5)
        sw.stop()
        loop.join(5)
        overruns = sw.drop_counts()["rx_overrun"]
        received = sw.port_counters()[1]["rx_packets"]
        assert overruns > 0
        assert received + overruns >= sent
    finally:
        sw.close()


def test_ports_turn_off_tx_checksum_offload_and_listen_promiscuously():
    import subprocess
    a, b = f"tx{os.getpid() % 0xFFFF:04x}a", f"tx{os.getpid() % 0xFFFF:04x}b"
    subprocess.run(["ip", "link", "add", a, "type", "veth", "peer", "name", b], check=True)
    try:
        def features():
            return subprocess.run(["ethtool", "-k", a], capture_output=True, text=True,
                                  check=True).stdout

        def promiscuity():
            out = subprocess.run(["ip", "-d", "link", "show", a], capture_output=True,
                                 text=True, check=True).stdout
            return int(out.split("promiscuity ")[1].split()[0])

        assert "tx-checksumming: on" in features()
        sw = SoftwareSwitch({1: a})
        try:
            assert "tx-checksumming: off" in features()
            assert promiscuity() == 1
        finally:
            sw.close()
        assert promiscuity() == 0
    finally:
        subprocess.run(["ip", "link", "del", a], check=True)


def test_vlan_tags_reach_the_pipeline(lab):
    """The kernel moves a received VLAN tag out of the frame; the port puts it back."""
    seen = []

    class Recording(ScriptedTarget):
        def process(self, frame, port):
            seen.append(frame)
            return []

    h1 = lab.hosts[0]
    sw = SoftwareSwitch(lab.ports())
    sw.install_target(Recording())
    loop = threading.Thread(target=sw.run)
    loop.start()
    try:
        s1 = h1.socket()
        tagged = bytes.fromhex("020000000002020000000001" "8100" "2064" "88b5") + b"vlan".ljust(46, b"\0")
        qinq = bytes.fromhex("020000000002020000000001" "88a8" "0007" "8100" "0064" "88b5") + \
            b"qinq".ljust(46, b"\0")
        s1.send(tagged)
        s1.send(qinq)
        s1.close()
        deadline = time.monotonic() + 1
        while len([f for f in seen if b"vlan" in f or b"qinq" in f]) < 2 and \
                time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        sw.stop()
        loop.join(5)
        sw.close()
    assert [f for f in seen if b"vlan" in f or b"qinq" in f] == [tagged, qinq]
