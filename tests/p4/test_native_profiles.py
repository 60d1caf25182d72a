"""Indirect tables on the native backend: action profiles and selectors run packet for
packet as on the python backend (the reference), through members, weighted groups,
one-shot action sets, an empty group, and members and groups changed in place."""
import random
import struct
from pathlib import Path

import pytest

from testbed.p4 import entries as E
from testbed.p4.lowering.program import load_program, load_source
from testbed.p4.native.cgen import NativeUnsupported
from testbed.p4.targets import make_target

SELECTOR = Path(__file__).resolve().parents[1] / "switch" / "data" / "selector.p4"
ECMP, NEXTHOP = "MyIngress.ecmp", "MyIngress.nexthop"
SEL, NEXTHOPS = "MyIngress.ecmp_selector", "MyIngress.nexthops"


def frame(src: int, dst: int, protocol: int) -> bytes:
    ipv4 = struct.pack("!BBHHHBBHII", 0x45, 0, 20, 0, 0, 64, protocol, 0, src, dst)
    return bytes(6) + bytes.fromhex("020000000001") + b"\x08\x00" + ipv4 + b"payload"


def port(p: int) -> E.ActionCall:
    return E.ActionCall("MyIngress.set_port", {"port": p})


def program_both(targets, fn) -> None:
    for target in targets:
        fn(target)


def setup(target) -> None:
    sel, hops = target.profile(SEL), target.profile(NEXTHOPS)
    for mid in range(1, 6):
        sel.member_insert(E.ProfileMember(mid, port(mid)))
    sel.group_insert(E.ProfileGroup(1, [E.GroupMember(1), E.GroupMember(2, weight=3),
                                        E.GroupMember(3)]))
    sel.group_insert(E.ProfileGroup(2, []))                          # empty
    for mid, mac in ((10, 0x0A), (11, 0x0B)):
        hops.member_insert(E.ProfileMember(mid, E.ActionCall("MyIngress.set_dmac",
                                                             {"dmac": mac})))
    target.table_insert(E.TableEntry(ECMP, (E.Lpm(0x0A000000, 8),), E.GroupRef(1)))
    target.table_insert(E.TableEntry(ECMP, (E.Lpm(0x0B000000, 8),), E.GroupRef(2)))
    target.table_insert(E.TableEntry(ECMP, (E.Lpm(0x0C000000, 8),), E.MemberRef(4)))
    target.table_insert(E.TableEntry(ECMP, (E.Lpm(0x0D000000, 8),), E.ActionSet(
        ((port(6), 2, None), (port(7), 1, None)))))
    for p, mid in ((1, 10), (2, 11), (3, 10), (6, 11), (7, 10)):
        target.table_insert(E.TableEntry(NEXTHOP, (E.Exact(p),), E.MemberRef(mid)))


def outputs(target, frames) -> list:
    return [target.process(f, 1) for f in frames]


@pytest.fixture
def targets():
    program = load_program(SELECTOR)
    both = [make_target(program, "python"), make_target(program, "native")]
    assert both[1].backend == "native"
    program_both(both, setup)
    return both


def _frames(n=300):
    rng = random.Random(7)
    return [frame(rng.getrandbits(32), (rng.choice([10, 11, 12, 13, 14]) << 24)
                  | rng.getrandbits(24), rng.getrandbits(8)) for _ in range(n)]


def test_indirect_tables_run_as_on_the_python_backend(targets):
    frames = _frames()
    reference, native = (outputs(t, frames) for t in targets)
    assert native == reference
    ports = {p for out in reference for p, _ in out}
    assert {1, 2, 3, 4, 6, 7} <= ports             # every member a packet can reach runs
    assert 5 not in ports                          # member 5 is in no group


def test_members_and_groups_changed_in_place_change_both_alike(targets):
    frames = _frames()
    program_both(targets, lambda t: t.profile(SEL).member_modify(E.ProfileMember(2, port(8))))
    program_both(targets, lambda t: t.profile(SEL).group_modify(E.ProfileGroup(
        2, [E.GroupMember(5), E.GroupMember(1, weight=2)])))
    program_both(targets, lambda t: t.profile(NEXTHOPS).member_modify(E.ProfileMember(
        10, E.ActionCall("MyIngress.set_dmac", {"dmac": 0x0C}))))
    reference, native = (outputs(t, frames) for t in targets)
    assert native == reference
    assert 8 in {p for out in reference for p, _ in out} and 2 not in {
        p for out in reference for p, _ in out}
    program_both(targets, lambda t: t.table_delete(E.TableEntry(ECMP, (E.Lpm(0x0A000000, 8),),
                                                               E.ActionCall(""))))
    program_both(targets, lambda t: t.table_modify(E.TableEntry(
        ECMP, (E.Lpm(0x0C000000, 8),), E.GroupRef(1))))
    reference, native = (outputs(t, frames) for t in targets)
    assert native == reference


def test_a_selector_the_native_backend_cannot_match_is_refused_by_name():
    """A random hash picks differently on every run: nothing to match packet for packet."""
    source = SELECTOR.read_text().replace("HashAlgorithm.crc16", "HashAlgorithm.random")
    program = load_source(source, filename=str(SELECTOR))
    with pytest.raises(NativeUnsupported, match="action selector MyIngress.ecmp_selector's "
                                                "random hash"):
        make_target(program, "native")
    assert make_target(program, "auto").backend == "python"
