"""The native pipeline reading a port's receive ring in place: the frames it runs, the
slots it hands back and what it counts match the Python reader (Port.recv_batch) followed
by the reference pipeline, on a ring laid out as the kernel's TPACKET_V2 ring."""
from pathlib import Path

from testbed.p4.targets import make_target
from testbed.p4.lowering.program import load_program
from testbed.switch.ports import (TP_STATUS_USER, TP_STATUS_VLAN_TPID_VALID,
                                  TP_STATUS_VLAN_VALID, TPACKET2_HDR, Port)
from testbed.switch.traffic import udp_frame
from testbed.topology.routing import route_entry

BASIC = Path(__file__).resolve().parents[2] / "p4" / "basic.p4"
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
    outputs, got, skipped = native.process_ring(native_ring, 64, 1)
    assert outputs == want and len(want) == 4
    assert (got, skipped) == (len(frames), python_ring.rx_truncated) == (5, 1)
    assert native_ring.next_slot == python_ring.next_slot == 1
    assert native_ring.statuses() == python_ring.statuses() == [0] * 8
    assert [p for p, _ in outputs] == [2, 0, 0, 2]        # tagged frames are not IPv4
    assert outputs[1][1][12:16] == bytes.fromhex("81000007")
    assert outputs[2][1][12:16] == bytes.fromhex("88a80009")


def test_the_native_ring_reader_stops_at_its_limit_and_at_the_kernels_slot():
    native = make_target(load_program(str(BASIC)), "native")
    ring = Ring(8, next_slot=3)
    fill(ring)
    _, got, skipped = native.process_ring(ring, 2, 1)
    assert (got, skipped, ring.next_slot) == (2, 0, 5)
    _, got, skipped = native.process_ring(ring, 64, 1)
    assert (got, skipped, ring.next_slot) == (3, 1, 1)
    assert native.process_ring(ring, 64, 1) == ([], 0, 0)
