"""The software switch on real veth pairs between network namespaces.

Every test uses a lab whose namespaces and veths carry a unique prefix; the lab is
removed when the module's tests end, also when they fail.
"""
import json
import os
import signal
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from testbed.p4.entries import ActionCall, CloneSession, Exact, MulticastGroup, Replica, TableEntry
from testbed.switch.egress import Shape
from testbed.switch.lab import VethLab
from testbed.switch.traffic import udp_frame
from testbed.topology.routing import route_entry

from running_switch import running

pytestmark = [pytest.mark.root, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
BASIC = REPO / "p4" / "basic.p4"
REPLICATE = Path(__file__).with_name("replicate.p4")
PRIORITY = Path(__file__).with_name("priority.p4")
_labs = iter(range(1000))


def load(path):
    from testbed.p4.lowering.program import load_program
    return load_program(str(path))


@pytest.fixture(scope="module")
def lab():
    # jumbo MTU: the 500 Mb/s shaping test uses 9000-byte frames (6.9 kframes/s), a rate
    # the Python pipeline sustains next to the sender and receiver on a small machine
    with VethLab(n_hosts=3, prefix=f"tt{os.getpid() % 0xFFF:03x}{next(_labs)}",
                 mtu=9000) as lab:
        yield lab


@pytest.fixture(scope="module")
def basic():
    return load(BASIC)


def route(ip, host, port):
    return route_entry(ip, host.mac, port)


def frame_to(src, dst, size=100, seq=0):
    return udp_frame(src.mac, "02:00:00:00:00:fe", src.ip, dst.ip, size, seq=seq)


def collect(sock, want=None, timeout=1.0, marker=b"TRNT"):
    """Frames carrying ``marker`` until ``want`` of them arrived or ``timeout`` s passed."""
    frames = []
    sock.settimeout(0.05)
    end = time.monotonic() + timeout
    while time.monotonic() < end and (want is None or len(frames) < want):
        try:
            f = sock.recv(65536)
        except socket.timeout:
            continue
        if marker in f:
            frames.append(f)
    return frames


# ------------------------------------------------------------------ forwarding
@pytest.mark.parametrize("backend", ["native", "python"])
def test_forwards_by_lpm_entries(lab, basic, backend):
    h1, h2, h3 = lab.hosts
    s1, s2, s3 = (h.socket() for h in lab.hosts)
    with running(lab, basic, [route(h2.ip, h2, 2), route(h3.ip, h3, 3)],
                 backend=backend) as sw:
        assert sw.target.backend == backend
        for i in range(10):
            s1.send(frame_to(h1, h2, seq=i))
        s1.send(frame_to(h1, h3))
        got2 = collect(s2, 10)
        got3 = collect(s3, 1)
        s1.send(udp_frame(h1.mac, h2.mac, h1.ip, "10.9.9.9", 100))   # no route: dropped
        assert collect(s2, timeout=0.3) == []
        drops = sw.drop_counts()
    assert len(got2) == 10 and len(got3) == 1
    f = got2[0]
    assert f[0:6] == bytes.fromhex(h2.mac.replace(":", ""))          # next hop MAC
    assert f[6:12] == bytes.fromhex("0200000000fe")                  # old dst becomes src
    assert f[14 + 8] == 63                                           # TTL decremented
    from testbed.switch.traffic import ipv4_checksum
    assert ipv4_checksum(f[14:34]) == 0                              # checksum recomputed
    assert sum(drops.values()) >= 1
    for s in (s1, s2, s3):
        s.close()


def _forwarded(lab, basic, backend):
    """What h2 and h3 receive of 60 frames from h1 (sizes 64 to 1500 bytes, TTLs 1 to
    255, routed to either or to nowhere), and the switch's counters."""
    h1, h2, h3 = lab.hosts
    s1, s2, s3 = (h.socket() for h in lab.hosts)
    frames = []
    for i in range(60):
        f = bytearray(frame_to(h1, (h2, h3, h2)[i % 3], size=64 + i * 24, seq=i))
        f[14 + 8] = 1 + i * 4                                # TTL
        frames.append(bytes(f if i % 7 else f[:30] + bytes([10, 9]) + f[32:]))  # no route
    with running(lab, basic, [route(h2.ip, h2, 2), route(h3.ip, h3, 3)],
                 backend=backend) as sw:
        direct = [sp.port.port_no for sp in sw._direct]
        # the native pipeline sends every direct port's frames through one socket
        assert (sw._shared_tx is not None) == (backend == "native")
        for f in frames:
            s1.send(f)
        got = collect(s2, 34), collect(s3, 17)
        counters = sw.port_counters()
    for s in (s1, s2, s3):
        s.close()
    return got, {p: c["tx_packets"] for p, c in counters.items()}, direct


def test_native_transmit_sends_what_the_python_backend_sends(lab, basic):
    """The native switch sends from its output arena with sendmmsg (every port is
    unshaped and uncaptured); h2 and h3 get the python backend's frames, one for one."""
    native, native_tx, direct = _forwarded(lab, basic, "native")
    python, python_tx, none = _forwarded(lab, basic, "python")
    assert (direct, none) == ([1, 2, 3], [])
    assert [len(got) for got in native] == [34, 17]
    assert native == python
    assert native_tx == python_tx == {1: 0, 2: 34, 3: 17}


@pytest.mark.parametrize("backend", ["native", "python"])
def test_multicast_and_clone(lab, backend):
    h1, h2, h3 = lab.hosts
    s1, s2, s3 = (h.socket() for h in lab.hosts)
    program = load(REPLICATE)
    with running(lab, program, backend=backend) as sw:
        assert sw.target.backend == backend
        sw.target.mc_group_set(MulticastGroup(1, [Replica(2, 1), Replica(3, 1)]))
        sw.target.clone_session_set(CloneSession(100, [Replica(3)]))
        mcast = bytes.fromhex("ffffffffffff" "020000000001" "88b5") + b"TRNT-mcast".ljust(50, b"\0")
        s1.send(mcast)
        assert collect(s2, 1) == [mcast]
        assert collect(s3, 1) == [mcast]
        clone = bytes.fromhex("020000000002" "020000000001" "88b6") + b"TRNT-clone".ljust(50, b"\0")
        s1.send(clone)
        assert collect(s2, 1) == [clone]
        copy = collect(s3, 1)
    assert len(copy) == 1
    assert copy[0][6:12] == bytes.fromhex("c10c10c10c10")               # marked in egress
    assert copy[0][12:] == clone[12:]
    for s in (s1, s2, s3):
        s.close()


def test_unknown_port_counted(lab):
    h1 = lab.hosts[0]
    s1 = h1.socket()
    with running(lab, load(REPLICATE)) as sw:
        sw.target.table_insert(TableEntry("Ing.fwd", (Exact(1),), ActionCall("Ing.forward",
                                                                             {"port": 7})))
        for _ in range(5):
            s1.send(bytes.fromhex("020000000002" "020000000001" "0800") + b"TRNT".ljust(50, b"\0"))
        deadline = time.monotonic() + 2
        while sw.drop_counts()["unknown_port"] < 5 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert sw.drop_counts()["unknown_port"] == 5
    s1.close()


# ------------------------------------------------------------------ pcaps
@pytest.mark.parametrize("backend", ["native", "python"])
def test_pcaps_hold_the_frames(lab, basic, tmp_path, backend):
    from scapy.utils import rdpcap
    h1, h2, _ = lab.hosts
    s1, s2 = h1.socket(), h2.socket()
    sent = [frame_to(h1, h2, size=80 + i, seq=i) for i in range(20)]
    with running(lab, basic, [route(h2.ip, h2, 2)], pcap_dir=str(tmp_path), backend=backend):
        for f in sent:
            s1.send(f)
        got = collect(s2, 20)
    assert len(got) == 20
    pin = [bytes(p) for p in rdpcap(str(tmp_path / f"{h1.switch_if}_in.pcap"))]
    pout = [bytes(p) for p in rdpcap(str(tmp_path / f"{h2.switch_if}_out.pcap"))]
    assert [f for f in pin if b"TRNT" in f] == sent
    assert [f for f in pout if b"TRNT" in f] == got
    s1.close()
    s2.close()


# ------------------------------------------------------------------ robustness
# TRAINET_FUZZ_FRAMES sets how many fuzzed frames each backend gets (default 2000).
FUZZ_FRAMES = int(os.environ.get("TRAINET_FUZZ_FRAMES", "2000"))
DROPPED_BEFORE_PIPELINE = ("rx_overrun", "rx_truncated")    # never reach rx_packets
DROPPED_AFTER_PIPELINE = ("tx_error",)                      # already counted as sent


def _fuzz_frames(count, seed):
    from scapy.all import IP, TCP, UDP, Ether, Raw, fuzz
    from scapy.config import conf
    import random
    random.seed(seed)
    conf.verb = 0
    eth = dict(src="02:00:00:00:00:01", dst="02:00:00:00:00:fe")
    templates = [Ether(**eth) / IP(dst="10.0.0.2") / UDP() / Raw(b"x" * 20),
                 Ether(**eth) / IP(dst="10.0.0.2") / TCP(),
                 Ether(type=0x0800, **eth) / Raw(b"\x45" + b"\0" * 8), Ether(**eth) / IP()]
    frames = []
    for i in range(count):
        f = bytes(fuzz(templates[i % len(templates)]))
        frames.append(f[:random.randint(14, len(f))] if i % 5 == 0 else f)
    return frames


def _kernel_stat(host, counter, inside=False):
    """A counter of the switch-side interface of ``host`` (or, ``inside``, of the host's)."""
    path = f"/sys/class/net/{host.ifname if inside else host.switch_if}/statistics/{counter}"
    if inside:
        return int(host.run("cat", path, capture_output=True, text=True, check=True).stdout)
    return int(Path(path).read_text())


def _settled(sw, hosts):
    """The switch's counters and the kernel's receive counters of the switch-side
    interfaces, read once neither moved for 0.3 s: on a loaded machine the switch may
    still be working through the fuzz, and the hosts' kernels send frames of their own
    (IPv6 neighbour discovery) that both count, or the kernel hands the switch a frame
    it counted a while before. The test counts from one such reading to the next."""
    def snapshot():
        return ({p: c["rx_packets"] for p, c in sw.port_counters().items()},
                {h.index: _kernel_stat(h, "rx_packets") for h in hosts})
    deadline = time.monotonic() + 60
    last = snapshot()
    while time.monotonic() < deadline:
        time.sleep(0.3)
        now = snapshot()
        if now == last:
            break
        last = now
    counters = sw.port_counters()
    return {"kernel_in": last[1], "drops": sw.drop_counts(),
            "rx": sum(c["rx_packets"] for c in counters.values()),
            "tx": sum(c["tx_packets"] for c in counters.values()),
            "refused": _kernel_stat(hosts[0], "tx_dropped", inside=True)}


def _since(before: dict, after: dict) -> dict:
    """What the counters of two readings of :func:`_settled` counted in between."""
    return {k: ({i: v - before[k].get(i, 0) for i, v in after[k].items()}
                if isinstance(after[k], dict) else after[k] - before[k]) for k in after}


@pytest.mark.parametrize("backend", ["python", "native"])
def test_fuzzed_frames_are_forwarded_or_counted(lab, basic, backend):
    """Every fuzzed frame the kernel took reaches the switch or is counted by the kernel
    in front of it; every frame the switch read leaves once or is counted under a drop
    reason; no frame fails in the pipeline, and the switch still forwards after."""
    h1, h2, _ = lab.hosts
    s1, s2 = h1.socket(), h2.socket()
    frames = _fuzz_frames(FUZZ_FRAMES, seed=2)
    with running(lab, basic, [route(h2.ip, h2, 2)], backend=backend) as sw:
        before = _settled(sw, lab.hosts)
        sent = 0
        for i, f in enumerate(frames):
            try:
                s1.send(f)
                sent += 1
            except OSError:
                pass         # the kernel refuses some fuzzed frames (e.g. too short)
            if i % 256 == 0:
                time.sleep(0.002)   # stay under the switch's rate: drops here are not ours
        counted = _since(before, _settled(sw, lab.hosts))
        # h2's socket has filled with the fuzz's forwarded frames, unread: empty it so
        # the kernel has room for the frame that proves the switch still forwards
        collect(s2, timeout=0.5, marker=b"")
        s1.send(frame_to(h1, h2, seq=424242))
        assert any(b"TRNT" in f for f in collect(s2, 1, timeout=10.0))
    kernel_in, drops, rx, tx = (counted[k] for k in ("kernel_in", "drops", "rx", "tx"))
    dropped = {k: v for k, v in drops.items() if v and k not in
               DROPPED_BEFORE_PIPELINE + DROPPED_AFTER_PIPELINE}
    before_pipeline = sum(drops.get(k, 0) for k in DROPPED_BEFORE_PIPELINE)
    print(f"\n{backend}: {len(frames)} fuzzed frames, {sent} taken by the kernel "
          f"({counted['refused']} dropped by the veth); the switch read {rx} (all ports, "
          f"the hosts' answers included), {before_pipeline} dropped before it read them, "
          f"sent {tx} ({drops.get('tx_error', 0)} refused by the kernel), dropped "
          f"{sum(dropped.values())} by reason {dropped}")
    assert sent >= 0.95 * len(frames)
    assert kernel_in[1] + counted["refused"] == sent      # h1 sends nothing of its own
    assert sum(kernel_in.values()) == rx + before_pipeline
    assert rx == tx + sum(dropped.values())
    assert drops.get("pipeline_error", 0) == 0
    s1.close()
    s2.close()


# ------------------------------------------------------------------ egress model
def _traffic(host, *args):
    return host.popen(sys.executable, "-m", "testbed.switch.traffic", *args,
                      stdout=subprocess.PIPE, text=True, cwd=str(REPO))


def _measure(lab, size, seconds, rate_pps, stamp=False):
    h1, h2, _ = lab.hosts
    rx = _traffic(h2, "recv", "--iface", h2.ifname, "--duration", str(seconds + 3),
                  "--warmup", "0.5", "--idle", "1")
    assert rx.stdout.readline().strip() == "ready"
    tx = _traffic(h1, "send", "--iface", h1.ifname, "--src-mac", h1.mac, "--dst-mac",
                  "02:00:00:00:00:fe", "--src-ip", h1.ip, "--dst-ip", h2.ip, "--size",
                  str(size), "--duration", str(seconds), "--rate-pps", str(rate_pps),
                  *(["--stamp"] if stamp else []))
    tx_out, _ = tx.communicate(timeout=seconds + 30)
    rx_out, _ = rx.communicate(timeout=seconds + 30)
    assert tx.returncode == 0 and rx.returncode == 0
    return json.loads(tx_out), json.loads(rx_out)


@pytest.mark.parametrize("rate_mbit", [1, 10, 100, 500])
def test_rate_limit_holds(lab, basic, rate_mbit):
    rate = rate_mbit * 1_000_000
    size = 9000 if rate_mbit > 100 else 1500
    seconds = 3 if rate_mbit >= 10 else 6
    offered_pps = rate * 1.3 / (size * 8)
    queue = max(5, int(rate * 0.05 / (size * 8)))     # 50 ms of the rate
    with running(lab, basic, [route(lab.hosts[1].ip, lab.hosts[1], 2)],
                 shapes={2: Shape(rate_bps=rate, queue_packets=queue)}) as sw:
        _, rx = _measure(lab, size, seconds, offered_pps)
        drops = sw.drop_counts()
    assert rx["rate_bps"] == pytest.approx(rate, rel=0.03), rx
    assert drops["tail_drop"] > 0


def _arrival_order(lab, queues: int) -> list:
    """TOS bytes in the order frames arrive on port 2: a backlog of 20 priority-0 frames
    on a 1 Mb/s port, then 5 of priority 7, sent back to back."""
    h1, h2 = lab.hosts[:2]
    s1, s2 = h1.socket(), h2.socket()
    frames = []
    for i, tos in enumerate([0x00] * 20 + [0xE0] * 5):
        f = bytearray(frame_to(h1, h2, size=1500, seq=i))
        f[15] = tos
        frames.append(bytes(f))
    with running(lab, load(PRIORITY), shapes={2: Shape(rate_bps=1_000_000)},
                 priority_queues=queues):
        for f in frames:
            s1.send(f)
        got = collect(s2, 25, timeout=5)
    s1.close()
    s2.close()
    assert len(got) == 25
    return [f[15] for f in got]


def test_priority_queues_send_high_priority_frames_first(lab):
    """simple_switch's --priority-queues: strict priority on a port that queues; the
    frames that left on the bucket's burst before the others arrived go first."""
    order = _arrival_order(lab, 8)
    high = [i for i, tos in enumerate(order) if tos == 0xE0]
    assert high == list(range(high[0], high[0] + 5)) and high[0] <= 3, order


def _mean_delay(lab, basic, shape, pps=200, seconds=2):
    kw = {"shapes": {2: shape}} if shape else {}
    with running(lab, basic, [route(lab.hosts[1].ip, lab.hosts[1], 2)], **kw):
        _, rx = _measure(lab, 200, seconds, pps, stamp=True)
    assert rx["packets"] >= pps * seconds * 0.95
    return rx


@pytest.mark.parametrize("delay_ms", [1, 5, 50])
def test_added_delay(lab, basic, delay_ms):
    base = _mean_delay(lab, basic, None)
    delayed = _mean_delay(lab, basic, Shape(delay_ns=delay_ms * 1_000_000))
    added = delayed["delay_median_ns"] - base["delay_median_ns"]
    tolerance = max(0.05 * delay_ms * 1e6, 0.2e6)
    assert abs(added - delay_ms * 1e6) <= tolerance, (added, base, delayed)


def test_jitter_spreads_delay(lab, basic):
    base = _mean_delay(lab, basic, None, pps=100, seconds=2)
    rx = _mean_delay(lab, basic, Shape(delay_ns=20_000_000, jitter_ns=2_000_000), pps=100,
                     seconds=4)
    added = rx["delay_mean_ns"] - base["delay_mean_ns"]
    assert added == pytest.approx(20e6, rel=0.05), (base, rx)
    assert rx["delay_stdev_ns"] == pytest.approx(2e6, rel=0.2)
    assert rx["reordered"] == 0


def test_loss_probability(lab, basic):
    shape = Shape(loss=0.2)
    with running(lab, basic, [route(lab.hosts[1].ip, lab.hosts[1], 2)],
                 shapes={2: shape}) as sw:
        tx, rx = _measure(lab, 200, 2, 2000, stamp=True)
        lost = sw.drop_counts()["loss"]
    assert rx["packets"] + lost == tx["sent_packets"]
    assert lost / tx["sent_packets"] == pytest.approx(0.2, abs=0.03)


# ------------------------------------------------------------------ the CLI process
@contextmanager
def cli_switch(lab, *extra):
    h1, h2, _ = lab.hosts
    proc = subprocess.Popen(
        [sys.executable, "-m", "testbed.cli", "switch", "-i", f"1@{h1.switch_if}",
         "-i", f"2@{h2.switch_if}", "--device-id", "1", "--grpc-port", "0",
         "--grpc-address", "127.0.0.1", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=str(REPO))
    try:
        line = proc.stdout.readline()
        assert "running" in line, (line, proc.stderr.read() if proc.poll() is not None else "")
        yield proc, line
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.communicate()


@pytest.mark.parametrize("backend", ["native", "python"])
def test_entries_written_through_p4runtime(lab, backend):
    import queue
    import re
    import grpc
    from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc
    from testbed.p4 import p4info
    from testbed.p4runtime import convert
    h1, h2, _ = lab.hosts
    with cli_switch(lab, "--no-p4", "--backend", backend) as (proc, line):
        port = int(re.search(r"P4Runtime on 127\.0\.0\.1:(\d+)", line).group(1))
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        stub = p4runtime_pb2_grpc.P4RuntimeStub(channel)
        requests = queue.Queue()
        election = p4runtime_pb2.Uint128(high=0, low=1)
        requests.put(p4runtime_pb2.StreamMessageRequest(
            arbitration=p4runtime_pb2.MasterArbitrationUpdate(device_id=1, election_id=election)))
        stream = stub.StreamChannel(iter(requests.get, None))
        assert next(stream).arbitration.status.code == 0      # we are primary
        info = p4info.build(load(BASIC))
        config = p4runtime_pb2.ForwardingPipelineConfig(p4info=info,
                                                        p4_device_config=BASIC.read_bytes())
        stub.SetForwardingPipelineConfig(p4runtime_pb2.SetForwardingPipelineConfigRequest(
            device_id=1, election_id=election, config=config,
            action=p4runtime_pb2.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT))
        index = convert.P4InfoIndex(info)
        write = p4runtime_pb2.WriteRequest(device_id=1, election_id=election)
        update = write.updates.add(type=p4runtime_pb2.Update.INSERT)
        update.entity.table_entry.CopyFrom(convert.table_entry_to_p4rt(index, route(h2.ip, h2, 2)))
        stub.Write(write)
        s1, s2 = h1.socket(), h2.socket()
        s1.send(frame_to(h1, h2, seq=7))
        got = collect(s2, 1)
        requests.put(None)
        channel.close()
        s1.close()
        s2.close()
    assert len(got) == 1 and got[0][0:6] == bytes.fromhex(h2.mac.replace(":", ""))


def test_sigterm_stops_cli_switch_cleanly(lab, tmp_path):
    h1, h2, _ = lab.hosts
    log = tmp_path / "s1.log"
    with cli_switch(lab, str(BASIC), "--pcap", str(tmp_path), "--log", str(log),
                    "--log-level", "debug", "--port-shape", "2:rate=10mbit,delay=1ms") as (proc, _):
        s1 = h1.socket()
        s1.send(frame_to(h1, h2))     # no table entry: dropped by the pipeline, logged
        time.sleep(0.3)
        s1.close()
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=10)
    assert proc.returncode == 0, err
    assert "stopped" in out and "drops (packets)" in out
    from scapy.utils import rdpcap
    assert any(b"TRNT" in bytes(p) for p in rdpcap(str(tmp_path / f"{h1.switch_if}_in.pcap")))
    text = log.read_text()
    assert "rx port 1" in text and "stopped" in text
    assert ".pipeline DEBUG" in text                  # the target's per-packet trace


@pytest.mark.parametrize("backend", ["native", "python"])
def test_the_switch_writes_its_counters_when_asked(lab, tmp_path, backend):
    """`--stats FILE`: SIGUSR1 has the switch write its counters, read by
    testbed/switch/stats.py's request as a benchmark reads them; once more at SIGTERM."""
    from testbed.switch import stats as switch_stats
    h1, h2, _ = lab.hosts
    program = tmp_path / "to_port_2.p4"
    program.write_text(BASIC.read_text().replace(
        "            ipv4_lpm.apply();", "            standard_metadata.egress_spec = 2;", 1))
    path = tmp_path / "s1.stats.json"
    with cli_switch(lab, str(program), "--backend", backend, "--stats", str(path)) as (proc, _):
        first = switch_stats.request(proc.pid, path)
        s1, s2 = h1.socket(), h2.socket()
        for seq in range(5):
            s1.send(frame_to(h1, h2, seq=seq))
        got = collect(s2, 5)
        after = switch_stats.request(proc.pid, path)
        s1.close()
        s2.close()
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=10)
    assert len(got) == 5
    assert (first["snapshot"], after["snapshot"]) == (1, 2)
    assert after["ports"]["1"]["frames_in"] - first["ports"]["1"]["frames_in"] >= 5
    assert after["ports"]["2"]["frames_out"] - first["ports"]["2"]["frames_out"] >= 5
    assert after["wakeups"] > first["wakeups"] and after["loop_cpu_ns"] > first["loop_cpu_ns"]
    if backend == "native":        # the frames ran in the native calls over the rings
        assert after["frames_in"] - first["frames_in"] >= 5
        assert after["frames_out"] - first["frames_out"] >= 5
        assert after["calls"] >= after["empty_calls"] + 1
        assert after["pipeline_ns"] > 0 and after["send_ns"] > 0
    last = switch_stats.read(path)
    assert last["snapshot"] == 3 and last["ports"]["2"]["frames_out"] >= 5


def signal_thread(pid: int, tid: int, sig: int) -> None:
    """Send ``sig`` to thread ``tid`` of process ``pid`` (tgkill), not to the process."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.syscall(234, pid, tid, sig) != 0:          # SYS_tgkill on x86-64
        raise OSError(ctypes.get_errno(), f"tgkill {pid} {tid}")


@pytest.mark.parametrize("backend", ["native", "python"])
def test_a_signal_any_thread_receives_reaches_the_switch(lab, tmp_path, backend):
    """A signal to the process lands on any of its threads (gRPC's among them), and Python
    runs its handler only when the main thread runs Python: while the packet loop waits in
    native code, a SIGUSR1 or SIGTERM taken by another thread must still be answered."""
    from testbed.switch import stats as switch_stats
    path = tmp_path / "s1.stats.json"
    with cli_switch(lab, str(BASIC), "--backend", backend, "--stats", str(path)) as (proc, _):
        others = [int(t) for t in os.listdir(f"/proc/{proc.pid}/task") if int(t) != proc.pid]
        assert others, "the switch runs no thread besides its main one"
        signal_thread(proc.pid, others[0], switch_stats.SIGNAL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and (switch_stats.read(path) or {}).get("snapshot") != 1:
            time.sleep(0.05)
        assert (switch_stats.read(path) or {}).get("snapshot") == 1, \
            "SIGUSR1 taken by another thread wrote no counters within 10 s"
        signal_thread(proc.pid, others[0], signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pytest.fail("SIGTERM taken by another thread did not stop the switch in 10 s")
        assert proc.returncode == 0
