"""Differential test: seeded random packets, well-formed, truncated and malformed,
through p4/basic.p4 and the INA program on both backends, compared packet for packet,
then their registers, counters, table entries and drops."""
from __future__ import annotations

import random
import struct
from itertools import groupby
from pathlib import Path

import numpy as np
import pytest

from controllers import ina as ctl
from controllers.jobs import TargetDevice
from testbed.p4 import entries as E
from testbed.p4.lowering.program import load_program
from testbed.p4.native.target import NativeTarget
from testbed.p4.python.target import Target
from testbed.proto import ina
from testbed.topology.routing import route_entry

from test_native_stf import state

REPO = Path(__file__).resolve().parents[2]
PACKETS = 3000


def mutate(rng: random.Random, frame: bytes) -> bytes:
    """The frame as sent, truncated, with flipped bytes, or random bytes."""
    kind = rng.randrange(6)
    if kind == 0:
        return frame[:rng.randrange(len(frame))]
    if kind == 1:
        data = bytearray(frame)
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        return bytes(data)
    if kind == 2:
        return rng.randbytes(rng.randrange(80))
    return frame


def ipv4_frame(rng: random.Random) -> bytes:
    payload = rng.randbytes(rng.randrange(40))
    ip = bytearray(struct.pack("!BBHHHBBH4sI", 0x45, 0, 20 + len(payload), 0, 0,
                               rng.randint(0, 3), 17, 0, bytes([192, 168, 0, 1]),
                               rng.choice([0x0A000000 | rng.randrange(1 << 16) << 8,
                                           rng.randrange(1 << 32)])))
    total = sum(struct.unpack("!10H", ip))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    ip[10:12] = struct.pack("!H", ~total & 0xFFFF)
    return bytes(6) + bytes(range(6)) + b"\x08\x00" + bytes(ip) + payload


def both(program, setup) -> tuple:
    targets = Target(program), NativeTarget(program)
    for t in targets:
        t.clock = lambda: 1.0
        setup(t)
    return targets


def compare(targets, frames) -> list:
    """The number of frames each packet sent, the same on both backends."""
    ref, native = targets
    sent = []
    for i, (port, frame) in enumerate(frames):
        out = native.process(frame, port)
        assert out == ref.process(frame, port), f"packet {i}"
        sent.append(len(out))
    assert state(native) == state(ref)
    return sent


def test_random_packets_through_basic_p4():
    rng = random.Random(19)

    prefixes = {}
    for i in range(200):
        plen = 24 - (i % 3) * 4
        prefixes[(0x0A000000 | i << 8) & (0xFFFFFFFF << (32 - plen)), plen] = i

    def routes(t):
        for (value, plen), i in prefixes.items():
            t.table_insert(E.TableEntry("MyIngress.ipv4_lpm", (E.Lpm(value, plen),),
                                        E.ActionCall("MyIngress.ipv4_forward",
                                                     {"dstAddr": i, "port": i % 8})))

    frames = [(rng.randrange(8), mutate(rng, ipv4_frame(rng))) for _ in range(PACKETS)]
    sent = compare(both(load_program(str(REPO / "p4" / "basic.p4")), routes), frames)
    assert 0 < sent.count(1) < len(frames)


def test_slots_freed_by_deletes_are_reused_and_packets_still_agree():
    """Deletes free native table slots that later inserts take again; a stale slot, or
    two entries in one, would send packets where the reference target does not."""
    rng = random.Random(23)

    def route(i, port):
        return E.TableEntry("MyIngress.ipv4_lpm", (E.Lpm(0x0A000000 | i << 8, 24),),
                            E.ActionCall("MyIngress.ipv4_forward", {"dstAddr": i, "port": port}))

    def churn(t):
        for i in range(120):
            t.table_insert(route(i, 1))
        for i in range(0, 120, 3):
            t.table_delete(route(i, 1))
        for i in range(0, 120, 6):
            t.table_insert(route(i, 2))
        for i in range(200, 260):
            t.table_insert(route(i, 3))

    targets = both(load_program(str(REPO / "p4" / "basic.p4")), churn)
    assert sorted(targets[1]._slots["MyIngress.ipv4_lpm"].values()) == list(range(160))
    frames = [(0, to_dst(ipv4_frame(rng), 0x0A000000 | rng.randrange(300) << 8 | 7))
              for _ in range(PACKETS)]
    sent = compare(targets, frames)
    assert len(frames) / 3 < sent.count(1) < len(frames)


def to_dst(frame: bytes, dst: int) -> bytes:
    """``frame`` sent to IPv4 ``dst``, its header checksum corrected."""
    ip = bytearray(frame[14:34])
    ip[16:20], ip[10:12] = dst.to_bytes(4, "big"), b"\0\0"
    total = sum(struct.unpack("!10H", ip))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    ip[10:12] = struct.pack("!H", ~total & 0xFFFF)
    return frame[:14] + bytes(ip) + frame[34:]


@pytest.fixture(scope="module")
def ina_program():
    return load_program(str(REPO / "p4" / "ina.p4"))


def ina_case(rng: random.Random, run: int = 1) -> tuple:
    """(setup, frames) of an aggregation job of three workers: random contributions,
    pulls and malformed frames, the sending worker changing every ``run`` frames."""
    n_workers, slots = 3, 8
    workers = [ctl.Worker(w, w + 1, f"08:00:00:00:01:{w + 1:02x}", f"10.0.1.{w + 1}")
               for w in range(n_workers)]
    job = ctl.Job(1, "10.0.255.1", workers, 0, slots)

    def setup(t):
        ctl.setup(TargetDevice(t), job)
        for w in workers:
            t.table_insert(route_entry(w.ip, w.mac, w.port))

    frames = []
    for i in range(PACKETS):
        if i % run == 0:
            w = rng.randrange(n_workers + 1)
        chunk = rng.randrange(4 * slots)
        slot = ina.slot_field(chunk % slots, (chunk // slots) % 2)
        values = np.array([rng.randrange(-2**28, 2**28) for _ in range(ina.LANES)],
                          dtype=np.int32)
        payload = ina.encode(rng.choice([1, 1, 1, 2]), w, rng.choice([1, 1, 2, 5]), slot,
                             rng.randrange(-8, 8), chunk, values)
        frame = ina.frame(f"08:00:00:00:01:{w + 1:02x}", "08:00:00:00:ff:00",
                          f"10.0.1.{w + 1}", job.aggregator_ip, payload)
        frames.append((w + 1, mutate(rng, frame)))
    return setup, frames


def test_random_packets_through_the_ina_program(ina_program):
    setup, frames = ina_case(random.Random(20))
    sent = compare(both(ina_program, setup), frames)
    assert sent.count(3) and sent.count(1) and sent.count(0)   # multicast, unicast, drop


def test_a_batch_sends_what_its_frames_send_one_by_one(ina_program):
    """``process_many`` (the switch's path) against the reference, frame by frame."""
    setup, frames = ina_case(random.Random(21), run=40)
    ref, native = both(ina_program, setup)
    batches = 0
    for port, run in groupby(frames, key=lambda pf: pf[0]):
        run = [f for _, f in run]
        for start in range(0, len(run), 32):
            batch = run[start:start + 32]
            want = [out for f in batch for out in ref.process(f, port)]
            assert native.process_many(batch, port) == want, f"batch {batches}"
            batches += 1
    assert state(native) == state(ref)
    assert batches < len(frames) / 16


def test_128_bit_keys_lpm_and_ternary_with_churn():
    """ipv6_lpm.p4's tables hold 128-bit keys and action parameters as two native words:
    random prefixes of every length (across the word boundary), ternary source masks
    rewriting sources, deletes and modifies, and random destinations near the prefixes
    route as the reference does."""
    rng = random.Random(29)
    program = load_program(str(Path(__file__).parent / "corpus" / "ipv6_lpm.p4"))
    prefixes = {}
    for i in range(150):
        plen = rng.choice([0, 8, 32, 48, 63, 64, 65, 96, 127, 128, rng.randrange(129)])
        value = rng.getrandbits(128) & ~((1 << (128 - plen)) - 1)
        prefixes[value, plen] = i

    def route(value, plen, port):
        return E.TableEntry("MyIngress.routes", (E.Exact(0x3B), E.Lpm(value, plen)),
                            E.ActionCall("MyIngress.forward", {"port": port}))

    def acl(i):
        mask = 1 << rng.randrange(128)          # about 8 bits: a few packets match
        for _ in range(4):
            mask |= rng.getrandbits(128) & rng.getrandbits(128) & rng.getrandbits(128) \
                & rng.getrandbits(128) & rng.getrandbits(128) & rng.getrandbits(128)
        action = (E.ActionCall("MyIngress.mark", {"tc": i}) if i % 2 else
                  E.ActionCall("MyIngress.rewrite", {"src": rng.getrandbits(128), "port": i}))
        return E.TableEntry("MyIngress.acl", (E.Ternary(rng.getrandbits(128) & mask, mask),),
                            action, priority=i + 1)

    def setup(t):
        state_rng = random.Random(31)       # the same entries on both targets
        with t.batch():                     # the routes in one batch, the acl one by one
            for (value, plen), i in prefixes.items():
                t.table_insert(route(value, plen, i % 16))
        for (value, plen), i in list(prefixes.items())[::4]:
            t.table_delete(route(value, plen, i % 16))
        for (value, plen), i in list(prefixes.items())[1::4]:
            t.table_modify(route(value, plen, 20 + i % 8))
        nonlocal rng
        saved, rng = rng, state_rng
        for i in range(40):
            t.table_insert(acl(i))
        rng = saved

    def frame():
        value, plen = rng.choice(list(prefixes))
        dst = value | (rng.getrandbits(128 - plen) if plen < 128 else 0)
        if rng.random() < 0.2:
            dst ^= 1 << rng.randrange(128)
        src = rng.getrandbits(128)
        return (bytes.fromhex("60000000") + b"\0\0" + bytes([0x3B, 0x40])
                + src.to_bytes(16, "big") + dst.to_bytes(16, "big"))

    frames = [(rng.randrange(8), frame()) for _ in range(PACKETS // 3)]
    targets = both(program, setup)
    sent = compare(targets, frames)
    assert sent.count(1) > len(frames) / 2
    ports = {targets[1].process(f, p)[0][0] for p, f in frames[:200] if targets[0].process(f, p)}
    assert len(ports) > 8                   # many routes taken, modified ones among them
    rewritten = [f for p, f in frames
                 if any(o[8:24] != f[8:24] for _, o in targets[0].process(f, p))]
    assert len(rewritten) > 10              # the 128-bit action parameter was used


WIDE_SELECTOR = """#include <core.p4>
#include <v1model.p4>
header h_t { bit<128> dst; bit<16> flow; bit<128> note; }
struct H { h_t h; }
struct M { }
parser P(packet_in pkt, out H hdr, inout M m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout H hdr, inout M m) { apply { } }
control I(inout H hdr, inout M m, inout standard_metadata_t sm) {
    action_selector(HashAlgorithm.crc16, 32w64, 32w14) sel;
    action to(bit<9> port, bit<128> note) { sm.egress_spec = port; hdr.h.note = note; }
    action drop() { mark_to_drop(sm); }
    table ecmp {
        key = { hdr.h.dst : exact; hdr.h.flow : selector; }
        actions = { to; drop; }
        implementation = sel;
        default_action = drop();
    }
    apply { ecmp.apply(); }
}
control E(inout H hdr, inout M m, inout standard_metadata_t sm) { apply { } }
control CC(inout H hdr, inout M m) { apply { } }
control D(packet_out pkt, in H hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def test_a_selector_key_after_a_128_bit_key(tmp_path):
    """The selector hashes the flow field, the key word after the two words of a 128-bit
    key; members carry a 128-bit parameter: both backends pick the same member."""
    path = tmp_path / "wide_selector.p4"
    path.write_text(WIDE_SELECTOR)
    rng = random.Random(37)
    dsts = [rng.getrandbits(128) for _ in range(4)]

    def setup(t):
        sel = t.profile("I.sel")
        for mid in range(6):
            sel.member_insert(E.ProfileMember(mid, E.ActionCall(
                "I.to", {"port": mid + 1, "note": (mid + 1) << 100 | mid})))
        sel.group_insert(E.ProfileGroup(1, [E.GroupMember(m, m % 2 + 1) for m in range(6)]))
        for i, dst in enumerate(dsts[:3]):
            ref = E.GroupRef(1) if i else E.MemberRef(5)
            t.table_insert(E.TableEntry("I.ecmp", (E.Exact(dst),), ref))

    frames = [(0, rng.choice(dsts).to_bytes(16, "big") + rng.getrandbits(16).to_bytes(2, "big")
               + bytes(16)) for _ in range(PACKETS // 3)]
    targets = both(load_program(str(path)), setup)
    sent = compare(targets, frames)
    assert 0 < sent.count(1) < len(frames)      # the fourth destination has no entry
    ports = {out[0][0] for p, f in frames[:300] if (out := targets[1].process(f, p))}
    assert ports == set(range(1, 7))            # every member of the group is picked
