"""The v1model target driven with real frames: forwarding, tables, the traffic manager."""
from pathlib import Path

import pytest
from scapy.all import IP, UDP, Ether

from testbed.p4 import entries as E
from testbed.p4.entries import ControlPlaneError
from testbed.p4.lowering.program import load_program, load_source
from testbed.p4.python.target import Target

from tests.p4.v1prog import frame, res, source, target

BASIC = Path(__file__).resolve().parents[2] / "p4" / "basic.p4"


def ipv4_frame(dst: str, ttl: int = 64) -> bytes:
    return bytes(Ether(dst="aa:bb:cc:dd:ee:ff", src="00:00:00:00:00:01") /
                 IP(src="192.168.0.1", dst=dst, ttl=ttl) / UDP(sport=1, dport=2) / b"payload")


def route(prefix: int, plen: int, mac: int, port: int) -> E.TableEntry:
    return E.TableEntry("MyIngress.ipv4_lpm", (E.Lpm(prefix, plen),),
                        E.ActionCall("MyIngress.ipv4_forward", {"dstAddr": mac, "port": port}))


@pytest.fixture(scope="module")
def basic_program():
    return load_program(str(BASIC))


def test_basic_forwarding_rewrites_macs_ttl_and_checksum(basic_program):
    t = Target(basic_program)
    t.table_insert(route(0x0A000100, 24, 0x112233445566, 3))
    [(port, data)] = t.process(ipv4_frame("10.0.1.7"), 1)
    assert port == 3
    out = Ether(data)
    assert out.dst == "11:22:33:44:55:66" and out.src == "aa:bb:cc:dd:ee:ff"
    assert out[IP].ttl == 63
    recomputed = Ether(data)
    del recomputed[IP].chksum
    assert out[IP].chksum == Ether(bytes(recomputed))[IP].chksum
    assert bytes(out[UDP].payload) == b"payload"


def test_basic_miss_drops_and_non_ipv4_goes_to_port_0(basic_program):
    t = Target(basic_program)
    assert t.process(ipv4_frame("10.9.9.9"), 1) == []
    assert t.drop_counts == {"ingress_drop": 1}
    arp = frame(b"\x00" * 28, ether_type=0x0806)
    assert t.process(arp, 2) == [(0, arp)]


def test_lpm_longest_prefix_wins(basic_program):
    t = Target(basic_program)
    t.table_insert(route(0x0A000000, 8, 1, 1))
    t.table_insert(route(0x0A010000, 16, 2, 2))
    t.table_insert(route(0x0A010200, 24, 3, 3))
    assert t.process(ipv4_frame("10.1.2.3"), 0)[0][0] == 3
    assert t.process(ipv4_frame("10.1.9.3"), 0)[0][0] == 2
    assert t.process(ipv4_frame("10.7.9.3"), 0)[0][0] == 1
    t.table_delete(route(0x0A010200, 24, 3, 3))
    assert t.process(ipv4_frame("10.1.2.3"), 0)[0][0] == 2


TERNARY = """
    action set(bit<32> v) { hdr.res.setValid(); hdr.res.a = v; sm.egress_spec = 1; }
    table t {
        key = { hdr.eth.etherType: ternary; hdr.eth.src: range; hdr.eth.dst: optional; }
        actions = { set; NoAction; }
        default_action = set(99);
    }
    apply { t.apply(); }
"""


def ternary_entry(value, mask, lo, hi, dst, prio, v):
    return E.TableEntry("MyIngress.t", (E.Ternary(value, mask), E.Range(lo, hi),
                                        None if dst is None else E.Optional_(dst)),
                        E.ActionCall("MyIngress.set", {"v": v}), priority=prio)


def test_ternary_range_optional_larger_priority_wins():
    t = target(TERNARY)
    t.table_insert(ternary_entry(0x1200, 0xFF00, 0, 100, None, 10, 1))
    t.table_insert(ternary_entry(0x1234, 0xFFFF, 0, 100, None, 20, 2))
    t.table_insert(ternary_entry(0x1234, 0xFFFF, 0, 1, 1, 30, 3))
    assert res(t.process(frame(ether_type=0x1234), 0)[0][1])[0] == 2      # src 2: not in 0..1
    f = frame(ether_type=0x1234)
    f = f[:6] + (1).to_bytes(6, "big") + f[12:]
    assert res(t.process(f, 0)[0][1])[0] == 3
    assert res(t.process(frame(ether_type=0x12AA), 0)[0][1])[0] == 1
    assert res(t.process(frame(ether_type=0x3333), 0)[0][1])[0] == 99


def test_table_errors_leave_state_unchanged():
    t = target(TERNARY)
    good = ternary_entry(0x1200, 0xFF00, 0, 100, None, 10, 1)
    t.table_insert(good)
    cases = [
        (good, "ALREADY_EXISTS"),
        (ternary_entry(0x1200, 0xFF00, 0, 100, None, 0, 1), "INVALID_ARGUMENT"),     # no prio
        (ternary_entry(0x1201, 0xFF00, 0, 100, None, 5, 1), "INVALID_ARGUMENT"),     # v & ~m
        (ternary_entry(0x1200, 0xFF00, 9, 2, None, 5, 1), "INVALID_ARGUMENT"),       # lo > hi
        (ternary_entry(0x1200, 0xFF00, 0, 100, None, 5, 1 << 32), "INVALID_ARGUMENT"),
        (E.TableEntry("MyIngress.t", (None, None, None), E.ActionCall("nope"), 5),
         "INVALID_ARGUMENT"),
        (E.TableEntry("MyIngress.t", (None,), E.ActionCall("MyIngress.set", {"v": 1}), 5),
         "INVALID_ARGUMENT"),
        (E.TableEntry("MyIngress.nope", (None,), E.ActionCall("MyIngress.set", {"v": 1}), 5),
         "NOT_FOUND"),
    ]
    for entry, code in cases:
        with pytest.raises(ControlPlaneError) as err:
            t.table_insert(entry)
        assert err.value.code == code, entry
    with pytest.raises(ControlPlaneError) as err:
        t.table_delete(ternary_entry(0x1200, 0xFF00, 0, 100, None, 11, 1))
    assert err.value.code == "NOT_FOUND"
    with pytest.raises(ControlPlaneError) as err:
        t.table_set_default("MyIngress.t", E.ActionCall("MyIngress.set", {}))
    assert err.value.code == "INVALID_ARGUMENT"
    [entry] = t.table_entries("MyIngress.t")
    assert entry.match == good.match and entry.action.params == {"v": 1}
    assert t.table_get_default("MyIngress.t") == E.ActionCall("MyIngress.set", {"v": 99})
    t.table_modify(ternary_entry(0x1200, 0xFF00, 0, 100, None, 10, 7))
    assert res(t.process(frame(ether_type=0x1299), 0)[0][1])[0] == 7
    t.table_set_default("MyIngress.t", E.ActionCall("NoAction"))
    assert t.process(frame(ether_type=0x7777), 0) == [(0, frame(ether_type=0x7777))]


def test_exact_table_with_direct_counter_and_const_entries():
    t = target("""
        direct_counter(CounterType.packets_and_bytes) hits;
        action fwd(bit<9> p) { sm.egress_spec = p; }
        table t {
            key = { hdr.eth.etherType: exact; sm.ingress_port: exact; }
            actions = { fwd; NoAction; }
            counters = hits;
        }
        table c {
            key = { hdr.eth.etherType: exact; }
            actions = { fwd; NoAction; }
            const entries = { 0x0001: fwd(7); 0x0002: fwd(8); }
        }
        apply { if (!t.apply().hit) { c.apply(); } }
    """)
    t.table_insert(E.TableEntry("MyIngress.t", (E.Exact(0x1234), E.Exact(4)),
                                E.ActionCall("MyIngress.fwd", {"p": 5})))
    f = frame(b"xy")
    assert t.process(f, 4) == [(5, f)]
    assert t.process(f, 4) == [(5, f)]
    assert t.process(f, 3) == [(0, f)]
    assert t.process(frame(ether_type=2), 3)[0][0] == 8
    [entry] = t.table_entries("MyIngress.t")
    assert (entry.counter_packets, entry.counter_bytes) == (2, 2 * len(f))
    with pytest.raises(ControlPlaneError) as err:
        t.table_insert(E.TableEntry("MyIngress.c", (E.Exact(3),),
                                    E.ActionCall("MyIngress.fwd", {"p": 1})))
    assert err.value.code == "PERMISSION_DENIED"
    assert len(t.table_entries("MyIngress.c")) == 2


def test_action_run_switch_and_exit():
    t = target("""
        action a1() { hdr.res.a = 1; }
        action a2() { hdr.res.a = 2; exit; }
        table t { key = { hdr.eth.etherType: exact; } actions = { a1; a2; } default_action = a1(); }
        apply {
            hdr.res.setValid();
            sm.egress_spec = 2;
            switch (t.apply().action_run) {
                a1: { hdr.res.b = 10; }
                a2: { hdr.res.b = 20; }
            }
            hdr.res.c = 5;
        }
    """)
    t.table_insert(E.TableEntry("MyIngress.t", (E.Exact(0x0002),), E.ActionCall("MyIngress.a2")))
    assert res(t.process(frame(), 0)[0][1])[:3] == (1, 10, 5)
    assert res(t.process(frame(ether_type=2), 0)[0][1])[:3] == (2, 0, 0)


MCAST = dict(
    ingress="apply { sm.mcast_grp = (bit<16>)hdr.eth.etherType; }",
    egress="""hdr.res.setValid(); hdr.res.a = (bit<32>)sm.egress_rid;
              hdr.res.b = sm.instance_type; hdr.res.c = (bit<32>)sm.egress_port;""")


def test_multicast_replicates_with_rid_and_instance_type():
    t = target(**MCAST)
    t.mc_group_set(E.MulticastGroup(7, [E.Replica(1, 10), E.Replica(4, 11)]))
    out = t.process(frame(ether_type=7), 0)
    assert [(p, res(d)[:3]) for p, d in out] == [(1, (10, 5, 1)), (4, (11, 5, 4))]
    assert t.process(frame(ether_type=8), 0) == []
    assert t.drop_counts == {"unknown_multicast_group": 1}
    t.mc_group_delete(7)
    with pytest.raises(ControlPlaneError):
        t.mc_group_delete(7)


def test_clone_i2e_is_the_received_packet_and_e2e_keeps_egress_headers():
    t = target("""apply { hdr.eth.etherType = 0xAAAA; sm.egress_spec = 1;
                          clone_preserving_field_list(CloneType.I2E, 5, 1); meta.x = 9; }""",
               meta="@field_list(1) bit<32> x;",
               egress="""hdr.res.setValid(); hdr.res.a = sm.instance_type; hdr.res.b = meta.x;
                         if (sm.instance_type == 0) { clone(CloneType.E2E, 6); }""")
    t.clone_session_set(E.CloneSession(5, [E.Replica(3)]))
    t.clone_session_set(E.CloneSession(6, [E.Replica(4)], packet_length_bytes=20))
    out = dict(t.process(frame(), 0))
    assert out[1][12:14] == b"\xaa\xaa" and res(out[1])[:2] == (0, 9)
    assert out[3][12:14] == b"\x12\x34" and res(out[3])[:2] == (1, 9)
    # the E2E clone has the egress headers of the original (res valid, instance 0), then
    # its own egress run sets instance_type 2; truncated to 20 bytes by the session.
    assert len(out[4]) == 20 and out[4][12:14] == b"\xaa\xaa" and res(out[4])[0] == 2


def test_resubmit_and_recirculate_preserve_field_lists():
    t = target("""apply {
            hdr.res.setValid();
            meta.n = meta.n + 1;
            hdr.res.a = meta.n;
            hdr.res.b = sm.instance_type;
            hdr.res.c = meta.rc;
            if (meta.n < 3 && meta.rc == 0) { resubmit_preserving_field_list(1); }
            sm.egress_spec = 2;
        }""", meta="@field_list(1) bit<32> n; @field_list(2) bit<32> rc;",
        egress="if (sm.instance_type == 6) { meta.rc = 1; recirculate_preserving_field_list(2); }")
    [(port, data)] = t.process(frame(), 0)
    # passes: n=1 (normal), n=2 and n=3 (resubmitted, n preserved); egress of the third
    # recirculates the deparsed frame with only rc preserved, so the last pass has n=1.
    assert port == 2
    assert res(data)[:3] == (1, 4, 1)
    previous = data[30:42]
    assert previous == (3).to_bytes(4, "big") + (6).to_bytes(4, "big") + bytes(4)


def test_loop_limit_drops_endless_resubmission():
    t = target("apply { resubmit_preserving_field_list(0); }")
    assert t.process(frame(), 0) == []
    assert t.drop_counts == {"loop_limit": 1}


def test_registers_counters_and_control_plane_access():
    t = target("""
        register<bit<32>>(8) r;
        counter(8, CounterType.packets_and_bytes) c;
        apply {
            bit<32> v;
            r.read(v, (bit<32>)sm.ingress_port);
            r.write((bit<32>)sm.ingress_port, v + 5);
            c.count((bit<32>)sm.ingress_port);
            hdr.res.setValid(); hdr.res.a = v; sm.egress_spec = 1;
        }""")
    t.register_write("MyIngress.r", 2, 100)
    f = frame()
    assert res(t.process(f, 2)[0][1])[0] == 100
    assert res(t.process(f, 2)[0][1])[0] == 105
    assert t.register_read("MyIngress.r", 2) == 110
    assert t.counter_read("MyIngress.c", 2) == (2, 2 * len(f))
    t.counter_write("MyIngress.c", 2, 0, 0)
    assert t.counter_read("MyIngress.c", 2) == (0, 0)
    for call, code in [(lambda: t.register_read("MyIngress.r", 8), "OUT_OF_RANGE"),
                       (lambda: t.register_read("MyIngress.q", 0), "NOT_FOUND"),
                       (lambda: t.register_write("MyIngress.r", 0, 1 << 32), "INVALID_ARGUMENT")]:
        with pytest.raises(ControlPlaneError) as err:
            call()
        assert err.value.code == code


def test_meter_colors_follow_configured_rates():
    t = target("""
        meter(4, MeterType.packets) m;
        apply { bit<2> color; m.execute_meter(0, color);
                hdr.res.setValid(); hdr.res.a = (bit<32>)color; sm.egress_spec = 1; }""")
    now = [0.0]
    t.clock = lambda: now[0]
    colors = lambda n: [res(t.process(frame(), 0)[0][1])[0] for _ in range(n)]
    assert colors(3) == [0, 0, 0]                  # unconfigured: GREEN
    t.meter_set("MyIngress.m", 0, cir=1, cburst=2, pir=2, pburst=3)
    assert colors(4) == [0, 0, 1, 2]
    now[0] += 10.0
    assert colors(1) == [0]


def test_unsupported_table_implementation_is_a_located_error():
    from testbed.errors import P4Error
    with pytest.raises(P4Error) as err:
        target("""
            action_profile(32) ap;
            action fwd(bit<9> p) { sm.egress_spec = p; }
            table t { key = { hdr.eth.etherType: exact; } actions = { fwd; } implementation = ap; }
            apply { t.apply(); }""")
    assert "test.p4:" in str(err.value) and "implementation" in str(err.value)


def test_standard_metadata_timestamps_in_microseconds_and_lengths():
    t = target("apply { sm.egress_spec = 3; }",
               egress="""hdr.res.setValid();
                         hdr.res.a = (bit<32>)sm.ingress_global_timestamp;
                         hdr.res.b = sm.enq_timestamp;
                         hdr.res.c = sm.packet_length;
                         hdr.res.d = (bit<16>)sm.egress_port ++ (bit<16>)sm.egress_spec;""")
    now = [50.0]
    t.clock = lambda: now[0]
    now[0] += 0.001234
    f = frame(b"abcdef")
    [(port, data)] = t.process(f, 1)
    assert port == 3
    assert res(data) == (1234, 1234, len(f), 3 << 16)


def test_direct_meter_colors_table_hits_by_entry_config():
    t = target("""
        direct_meter<bit<2>>(MeterType.packets) dm;
        action mark() { bit<2> c; dm.read(c); hdr.res.a = (bit<32>)c; }
        table t { key = { hdr.eth.etherType: exact; } actions = { mark; NoAction; }
                  meters = dm; default_action = NoAction(); }
        apply { hdr.res.setValid(); sm.egress_spec = 1; t.apply(); }""")
    t.clock = lambda: 7.0
    t.table_insert(E.TableEntry("MyIngress.t", (E.Exact(0x1234),), E.ActionCall("MyIngress.mark"),
                                meter_config=(1, 1, 1, 2)))
    t.table_insert(E.TableEntry("MyIngress.t", (E.Exact(0x1235),), E.ActionCall("MyIngress.mark")))
    colors = [res(t.process(frame(), 0)[0][1])[0] for _ in range(3)]
    assert colors == [0, 1, 2]
    assert [res(t.process(frame(ether_type=0x1235), 0)[0][1])[0] for _ in range(3)] == [0, 0, 0]


PRIORITY = """
    action set_priority(bit<3> p) { sm.priority = p; }
    table by_port { key = { sm.ingress_port: exact; } actions = { set_priority; }
                    default_action = set_priority(0); }
    apply { sm.egress_spec = 1; by_port.apply(); }"""


def test_priority_queues_give_each_packet_its_priority_and_drop_out_of_range():
    """BMv2's --priority-queues N: standard_metadata.priority picks the queue; a packet
    whose priority has no queue is dropped."""
    program = load_source(source(PRIORITY), filename="priority.p4")
    t = Target(program, priority_queues=4)
    for port, prio in ((2, 3), (3, 5)):
        t.table_insert(E.TableEntry("MyIngress.by_port", (E.Exact(port),),
                                    E.ActionCall("MyIngress.set_priority", {"p": prio})))
    data = frame(b"\x00" * 16)
    assert t.process(data, 2) == [(1, data, 3)]
    assert t.process(data, 0) == [(1, data, 0)]
    assert t.process(data, 3) == [] and t.drop_counts == {"priority_out_of_range": 1}


def test_with_one_queue_both_backends_drop_a_packet_of_priority_one():
    from testbed.p4.native.target import NativeTarget
    program = load_source(source(PRIORITY), filename="priority.p4")
    data = frame(b"\x00" * 16)
    for kind in (Target, NativeTarget):
        t = kind(program)
        t.table_insert(E.TableEntry("MyIngress.by_port", (E.Exact(2),),
                                    E.ActionCall("MyIngress.set_priority", {"p": 1})))
        assert t.process(data, 0) == [(1, data)] and t.process(data, 2) == []
        assert t.drop_counts == {"priority_out_of_range": 1}
