"""The native pipeline reading the ports' receive rings in place, all of them in one call:
the frames it runs, the slots it hands back and what it counts match the Python reader
(Port.recv_batch) followed by the reference pipeline, sweep by sweep, on rings laid out as
the kernel's TPACKET_V2 ring."""
from pathlib import Path

import numpy as np

from controllers import ina as ctl
from controllers.jobs import TargetDevice
from testbed.p4.targets import make_target
from testbed.p4.lowering.program import load_program
from testbed.proto import ina
from testbed.switch.ports import (TP_STATUS_USER, TP_STATUS_VLAN_TPID_VALID,
                                  TP_STATUS_VLAN_VALID, TPACKET2_HDR, Port)
from testbed.switch.traffic import udp_frame
from testbed.topology.routing import route_entry

REPO = Path(__file__).resolve().parents[2]
BASIC = REPO / "p4" / "basic.p4"
INA = REPO / "p4" / "ina.p4"
MAC_OFFSET = 80


class Ring:
    """A receive ring in ordinary memory, with what Port.recv_batch reads of a port."""

    def __init__(self, slots: int, slot_bytes: int = 2048, next_slot: int = 0):
        self.memory = bytearray(slots * slot_bytes)
        self.slots, self.slot_bytes, self.next_slot = slots, slot_bytes, next_slot
        self.rx_packets = self.rx_truncated = 0

    def put(self, slot: int, frame: bytes, status: int = TP_STATUS_USER, tci: int = 0,
            tpid: int = 0, length: int | None = None) -> None:
        off = slot * self.slot_bytes
        TPACKET2_HDR.pack_into(self.memory, off, status, length or len(frame), len(frame),
                               MAC_OFFSET, MAC_OFFSET, 0, 0, tci, tpid)
        self.memory[off + MAC_OFFSET:off + MAC_OFFSET + len(frame)] = frame

    def statuses(self) -> list:
        return [TPACKET2_HDR.unpack_from(self.memory, i * self.slot_bytes)[0]
                for i in range(self.slots)]


def fill(ring: Ring) -> None:
    """Six slots from slot 3 on, wrapping: routed, unrouted, VLAN-tagged (default and
    given TPID), cut by the ring, routed again; the slot after them is the kernel's."""
    routed = udp_frame("02:00:00:00:00:01", "02:00:00:00:00:fe", "10.0.0.1", "10.0.0.2", 100)
    other = udp_frame("02:00:00:00:00:01", "02:00:00:00:00:fe", "10.0.0.1", "10.9.9.9", 90)
    slots = [(routed, {}), (other, {}), (routed, {"status": TP_STATUS_USER |
                                                  TP_STATUS_VLAN_VALID, "tci": 7}),
             (routed, {"status": TP_STATUS_USER | TP_STATUS_VLAN_VALID |
                       TP_STATUS_VLAN_TPID_VALID, "tci": 9, "tpid": 0x88A8}),
             (routed[:60], {"length": 1600}), (routed, {})]
    for k, (frame, kw) in enumerate(slots):
        ring.put((3 + k) % ring.slots, frame, **kw)


def test_the_native_ring_reader_runs_what_the_python_reader_reads():
    program = load_program(str(BASIC))
    ref, native = make_target(program, "python"), make_target(program, "native")
    for t in (ref, native):
        t.clock = lambda: 1.0
        t.table_insert(route_entry("10.0.0.2", "02:00:00:00:00:02", 2))
    python_ring, native_ring = Ring(8, next_slot=3), Ring(8, next_slot=3)
    fill(python_ring)
    fill(native_ring)
    frames = Port.recv_batch(python_ring, 64)
    want = [out for f in frames for out in ref.process(f, 1)]
    rings = native.ring_set([(native_ring, 1)])
    outputs, [(got, skipped)] = native.process_rings(rings, 64, 1024)
    assert outputs == want and len(want) == 4
    assert (got, skipped) == (len(frames), python_ring.rx_truncated) == (5, 1)
    assert native_ring.next_slot == python_ring.next_slot == 1
    assert native_ring.statuses() == python_ring.statuses() == [0] * 8
    assert [p for p, _ in outputs] == [2, 0, 0, 2]        # tagged frames are not IPv4
    assert outputs[1][1][12:16] == bytes.fromhex("81000007")
    assert outputs[2][1][12:16] == bytes.fromhex("88a80009")


def test_the_native_ring_reader_stops_at_its_budget_and_at_the_kernels_slot():
    native = make_target(load_program(str(BASIC)), "native")
    ring = Ring(8, next_slot=3)
    fill(ring)
    rings = native.ring_set([(ring, 1)])
    _, counts = native.process_rings(rings, 1, 2)    # sweeps of one, two frames
    assert (counts, ring.next_slot) == ([(2, 0)], 5)
    _, counts = native.process_rings(rings, 64, 1024)
    assert (counts, ring.next_slot) == ([(3, 1)], 1)
    assert native.process_rings(rings, 64, 1024) == ([], [(0, 0)])
    stats = native.loop_stats()
    assert (stats["calls"], stats["frames_in"], stats["frames_out"]) == (3, 5, 0)
    assert (stats["sweeps"], stats["empty_calls"]) == (3, 1)     # the third found nothing


def ina_targets(n_workers: int) -> tuple:
    """The reference and the native target running p4/ina.p4 with one job whose worker
    w sits on port w + 1."""
    program = load_program(str(INA))
    targets = make_target(program, "python"), make_target(program, "native")
    workers = [ctl.Worker(w, w + 1, f"08:00:00:00:01:{w + 1:02x}", f"10.0.1.{w + 1}")
               for w in range(n_workers)]
    job = ctl.Job(1, "10.0.255.1", workers, 0, 8)
    for t in targets:
        t.clock = lambda: 1.0
        ctl.setup(TargetDevice(t), job)
    return targets, job


def test_every_ports_ring_in_one_call_runs_what_the_reference_runs_sweep_by_sweep():
    """Three workers' chunks wait on three ports' rings; one call with a limit of two
    frames per ring and sweep completes the slots in the order the reference completes
    them reading the rings the same way, each result multicast to the three ports."""
    (ref, native), job = ina_targets(3)
    rng = np.random.default_rng(7)
    chunks = 5
    python_rings, native_rings = [], []
    for w in job.workers:
        rings = Ring(8, next_slot=6), Ring(8, next_slot=6)
        for c in range(chunks):
            values = rng.integers(-2**20, 2**20, ina.LANES).astype(np.int32)
            slot = ina.slot_field(c % 8, 0)
            frame = ina.frame(w.mac, "08:00:00:00:ff:00", w.ip, job.aggregator_ip,
                              ina.encode(1, w.worker_id, ina.FLAG_GRADIENT, slot, 0, c, values))
            for ring in rings:
                ring.put((6 + c) % 8, frame)
        python_rings.append((rings[0], w.port))
        native_rings.append((rings[1], w.port))
    want = []
    for _ in range(3):                  # sweeps of two frames a ring: 2, 2, 1 chunks
        for ring, port in python_rings:
            want += [out for f in Port.recv_batch(ring, 2) for out in ref.process(f, port)]
    outputs, counts = native.process_rings(native.ring_set(native_rings), 2, 1024)
    assert outputs == want and len(want) == chunks * 3
    assert [p for p, _ in outputs[:3]] == [1, 2, 3]
    assert counts == [(chunks, 0)] * 3
    for (a, _), (b, _) in zip(python_rings, native_rings):
        assert a.next_slot == b.next_slot == (6 + chunks) % 8
        assert a.statuses() == b.statuses() == [0] * 8
    assert native.loop_stats()["sweeps"] == 3


def test_a_released_ring_set_lets_the_rings_memory_close():
    import mmap
    native = make_target(load_program(str(BASIC)), "native")
    ring = Ring(4)
    ring.memory = mmap.mmap(-1, 4 * ring.slot_bytes)
    rings = native.ring_set([(ring, 1)])
    assert native.process_rings(rings, 64, 1024) == ([], [(0, 0)])
    rings.release()
    ring.memory.close()
    assert ring.memory.closed
