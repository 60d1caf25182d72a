"""The switch's packet loop in native code (NativeTarget.run_loop) on real veth pairs:
frames for the CPU port still reach the packet-in handler, stop and stats requests get
through while it waits in poll(), table writes from another thread while traffic flows
take the switch's lock between two native turns (never beside the pipeline), and the
counts stay exact. The python backend, whose loop stays in Python, is the reference."""
import os
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from testbed.switch import stats as switch_stats
from testbed.switch.lab import VethLab
from testbed.switch.traffic import HEADERS, PAYLOAD, udp_frame
from testbed.topology.routing import route_entry

from running_switch import running

pytestmark = [pytest.mark.root, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
BASIC = REPO / "p4" / "basic.p4"
CPU_PORT = 64
_labs = iter(range(1000))


@pytest.fixture(scope="module")
def lab():
    with VethLab(n_hosts=3, prefix=f"tl{os.getpid() % 0xFFF:03x}{next(_labs)}") as lab:
        yield lab


def load(text: str):
    from testbed.p4.lowering.program import load_program
    path = Path(os.environ.get("TMPDIR", "/tmp")) / f"native_loop_{os.getpid()}.p4"
    path.write_text(text)
    try:
        return load_program(str(path))
    finally:
        path.unlink()


@contextmanager
def held(lock, timeout: float = 10):
    """The switch's lock from a thread other than the loop's, failing (not hanging) when
    the loop does not let it in."""
    assert lock.acquire(timeout=timeout), (
        f"waited {timeout} s for the switch's lock: the packet loop never let this thread in")
    try:
        yield
    finally:
        lock.release()


def frame(src, dst_ip: str, seq: int) -> bytes:
    return udp_frame(src.mac, "02:00:00:00:00:fe", src.ip, dst_ip, 100, seq=seq)


def received(sock, until: float) -> list:
    frames = []
    sock.settimeout(0.05)
    while time.monotonic() < until:
        try:
            f = sock.recv(65536)
        except OSError:
            continue
        if b"TRNT" in f:
            frames.append(f)
    return frames


@pytest.mark.parametrize("backend", ["native", "python"])
def test_packet_ins_stats_and_stop_from_the_native_loop(lab, tmp_path, backend):
    h1 = lab.hosts[0]
    program = load(BASIC.read_text().replace(
        "            ipv4_lpm.apply();", f"            standard_metadata.egress_spec = {CPU_PORT};",
        1))
    packet_ins = []
    with running(lab, program, backend=backend, cpu_port=CPU_PORT) as sw:
        sw.packet_in_handler = packet_ins.append
        sw.stats_path = tmp_path / "stats.json"
        sent = [frame(h1, lab.hosts[1].ip, seq) for seq in range(5)]
        s1 = h1.socket()
        for f in sent:
            s1.send(f)
        s1.close()
        deadline = time.monotonic() + 5
        while len(packet_ins) < 5 and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.2)                  # the loop waits in poll() again, holding the lock
        sw.request_stats()               # answered from there
        deadline = time.monotonic() + 5
        while not sw.stats_path.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        stats = switch_stats.read(sw.stats_path)
        counters = sw.port_counters()    # from another thread: it takes the lock
    assert [f for f in packet_ins if b"TRNT" in f] == sent
    assert stats["ports"]["1"]["frames_in"] == counters[1]["rx_packets"] >= 5
    if backend == "native":
        assert stats["native_turns"] >= 1 and stats["frames_in"] >= 5
    else:
        assert stats["native_turns"] == 0


@pytest.mark.parametrize("backend", ["native", "python"])
def test_table_writes_while_traffic_flows(lab, backend):
    """h1 sends 3000 frames to one address while another thread moves its route between
    h2 and h3 (modify, as a P4Runtime Write does, under the switch's lock). Every frame
    arrives, and arrives whole: at h2 with h2's MAC, at h3 with h3's (a lookup never sees
    half an entry); every frame is counted once, in and out."""
    h1, h2, h3 = lab.hosts
    target_ip, n = "10.0.0.99", 3000
    with running(lab, load(BASIC.read_text()), backend=backend) as sw:
        with held(sw.lock):
            sw.target.table_insert(route_entry(target_ip, h2.mac, 2))
        before = sw.port_counters()
        s1, s2, s3 = h1.socket(), h2.socket(), h3.socket()
        got = {}
        done = threading.Event()

        def receive(name, sock):
            got[name] = []
            while not done.is_set():
                got[name] += received(sock, time.monotonic() + 0.1)

        readers = [threading.Thread(target=receive, args=a) for a in (("h2", s2), ("h3", s3))]
        for t in readers:
            t.start()
        writes = 0

        def write():
            nonlocal writes
            while not done.is_set():
                host, port = (h3, 3) if writes % 2 == 0 else (h2, 2)
                with held(sw.lock):
                    sw.target.table_modify(route_entry(target_ip, host.mac, port))
                writes += 1
                time.sleep(0.001)

        writer = threading.Thread(target=write)
        writer.start()
        for seq in range(n):
            s1.send(frame(h1, target_ip, seq))
            if seq % 50 == 49:
                time.sleep(0.002)        # within the veths' and the rings' queues
        deadline = time.monotonic() + 10
        while (len(got["h2"]) + len(got["h3"]) < n and time.monotonic() < deadline):
            time.sleep(0.05)
        done.set()
        writer.join(10)
        for t in readers:
            t.join(10)
        after = sw.port_counters()
        loop = sw.loop_stats()
        for s in (s1, s2, s3):
            s.close()
    mac = {name: bytes.fromhex(h.mac.replace(":", "")) for name, h in (("h2", h2), ("h3", h3))}
    assert writes > 10 and not writer.is_alive()
    assert len(got["h2"]) + len(got["h3"]) == n
    assert got["h2"] and got["h3"]
    for name in ("h2", "h3"):
        assert all(f[0:6] == mac[name] for f in got[name])
    seqs = {PAYLOAD.unpack_from(f, HEADERS)[1] for f in got["h2"] + got["h3"]}
    assert seqs == set(range(n))
    assert after[1]["rx_packets"] - before[1]["rx_packets"] == n
    assert (after[2]["tx_packets"] - before[2]["tx_packets"],
            after[3]["tx_packets"] - before[3]["tx_packets"]) == (len(got["h2"]), len(got["h3"]))
    if backend == "native":
        assert loop["native_turns"] > 0
