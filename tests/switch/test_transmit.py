"""Batched transmit (testbed/switch/transmit.py, testbed/p4/native/packet_io.c) on
datagram socket pairs: frames leave in order, refusals are counted and skipped, a native
pipeline sends a direct port's outputs itself, and the probe falls back to one send per
frame with a line saying why."""
import os
import socket
from pathlib import Path
from types import SimpleNamespace

import pytest

from testbed.p4.targets import make_target
from testbed.p4.lowering.program import load_program
from testbed.switch import transmit
from testbed.switch.ports import Port
from testbed.switch.traffic import udp_frame
from testbed.topology.routing import route_entry

BASIC = Path(__file__).resolve().parents[2] / "p4" / "basic.p4"


@pytest.fixture
def pair():
    ours, peer = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)   # refuses larger frames
    yield ours, peer
    ours.close()
    peer.close()


def received(sock) -> list:
    sock.setblocking(False)
    frames = []
    while True:
        try:
            frames.append(sock.recv(65536))
        except BlockingIOError:
            return frames


def fake_port(sock, tx):
    """What Port.send_many uses of a port."""
    return SimpleNamespace(sock=sock, _send=sock.send, transmit=tx, tx_packets=0,
                           tx_errors=0)


@pytest.mark.parametrize("batched", [True, False])
def test_send_many_keeps_the_order_and_skips_a_refused_frame(pair, batched):
    ours, peer = pair
    port = fake_port(ours, transmit.library() if batched else None)
    frames = [b"a" * 60, b"b" * 100, b"x" * 20000, b"c" * 1500]
    assert Port.send_many(port, frames) == 3
    assert received(peer) == [frames[0], frames[1], frames[3]]
    assert (port.tx_packets, port.tx_errors) == (3, 1)


def test_a_native_pipeline_sends_a_direct_ports_outputs_on_its_socket(pair):
    ours, peer = pair
    program = load_program(str(BASIC))
    ref, native = make_target(program, "python"), make_target(program, "native")
    for t in (ref, native):
        t.clock = lambda: 1.0
        t.table_insert(route_entry("10.0.0.2", "02:00:00:00:00:02", 2))
        t.table_insert(route_entry("10.0.0.3", "02:00:00:00:00:03", 3))
    frames = [udp_frame("02:00:00:00:00:01", "02:00:00:00:00:fe", "10.0.0.1", dst, size)
              for dst, size in [("10.0.0.2", 64), ("10.0.0.3", 90), ("10.0.0.2", 1500),
                                ("10.9.9.9", 80), ("10.0.0.2", 300)]]
    want = [out for f in frames for out in ref.process(f, 1)]
    native.send_directly(2, ours.fileno())
    assert native.process_many(frames, 1) == [o for o in want if o[0] != 2]   # 3's stay
    to_2 = [f for p, f in want if p == 2]
    assert received(peer) == to_2 and len(to_2) == 3
    assert native.direct_counts() == {2: (3, sum(map(len, to_2)), 0, 0)}
    assert native.direct_counts() == {2: (0, 0, 0, 0)}
    peer.close()                       # the socket refuses now: counted, not returned
    assert native.process_many(frames[:1], 1) == []
    assert native.direct_counts() == {2: (0, 0, 1, 64)}
    native.send_directly(2, -1)         # returned again
    assert native.process_many(frames[:1], 1) == ref.process(frames[0], 1)


def test_the_probe_chooses_batches_on_a_socket(pair):
    tx, line = transmit.choose(pair[0].fileno())
    assert tx is transmit.library()
    assert line.startswith("transmit: batched, sendmmsg")


def test_the_probe_falls_back_when_the_kernel_refuses_sendmmsg():
    r, w = os.pipe()
    try:
        tx, line = transmit.choose(w)
    finally:
        os.close(r)
        os.close(w)
    assert tx is None
    assert line == (f"{transmit.PER_FRAME}: the kernel refuses sendmmsg "
                    f"({os.strerror(88)})")          # ENOTSOCK


def test_the_probe_falls_back_without_a_c_compiler(pair, monkeypatch, tmp_path):
    monkeypatch.setenv("CC", str(tmp_path / "no-cc"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    transmit.library.cache_clear()
    try:
        tx, line = transmit.choose(pair[0].fileno())
    finally:
        transmit.library.cache_clear()
    assert tx is None
    assert line.startswith(f"{transmit.PER_FRAME}: the C compiler {tmp_path / 'no-cc'} "
                           "does not run")


def test_the_generator_sends_copies_of_its_frame(pair):
    ours, peer = pair
    ours.setblocking(False)          # the peer's queue fills: the rest are refused
    frame = udp_frame("02:00:00:00:00:01", "02:00:00:00:00:02", "10.0.0.1", "10.0.0.2", 64)
    sent, seconds = transmit.library().generate(ours.fileno(), frame, 0.05)
    got = received(peer)
    assert sent == len(got) > 0 and set(got) == {frame}
    assert seconds >= 0.05
