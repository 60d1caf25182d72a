"""p4/ina.p4 on the software target: packets in, packets out."""
from pathlib import Path

import numpy as np
import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from controllers import ina as ctl
from controllers.jobs import JobError
from controllers.jobs import TargetDevice
from ina_fabric import (JUMBO_LANES, SWITCH_MAC, decoded, load_ina_program, new_target,
                        single_switch_job, worker_ip, worker_mac)
from testbed.proto import ina

AGG = "10.0.255.1"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def program():
    return load_ina_program()


@pytest.fixture(params=["python", "native"])
def target(program, request):
    return new_target(program, request.param)


@pytest.fixture
def job(target):
    return single_switch_job(target, job_id=1, n_workers=3, slot_count=8)


def lanes(seed):
    return np.random.default_rng(seed).integers(-2**28, 2**28, ina.LANES).astype(np.int32)


def send(target, worker, chunk, values, job_id=1, slot=None, exponent=0, flags=1,
         slots=8, rack=1, agg=AGG, payload=None, truncate=0):
    if slot is None:
        slot = ina.slot_field(chunk % slots, (chunk // slots) % 2)
    if payload is None:
        payload = ina.encode(job_id, worker, flags, slot, exponent, chunk, values)
    frame = ina.frame(worker_mac(rack, worker), SWITCH_MAC, worker_ip(rack, worker), agg,
                      payload)
    return target.process(frame[:len(frame) - truncate], worker + 1 + 8 * (rack - 1))


def drops(target):
    return ctl.drop_counts(TargetDevice(target))


def test_slot_completes_and_result_reaches_every_worker(target, job):
    vals = [lanes(i) for i in range(3)]
    assert send(target, 0, 0, vals[0], exponent=-3) == []
    assert send(target, 1, 0, vals[1], exponent=5) == []
    out = decoded(send(target, 2, 0, vals[2], exponent=2))
    expected = (vals[0].astype(np.int64) + vals[1] + vals[2]).astype(np.int32)
    assert sorted((p, ip, mac) for p, ip, mac, _, _ in out) == [
        (w + 1, worker_ip(1, w), worker_mac(1, w)) for w in range(3)]
    for _, _, _, header, values in out:
        assert header.flags == ina.FLAG_RESULT and header.chunk == 0
        assert header.exponent == 5 and header.n_workers == 3 and header.job_id == 1
        assert np.array_equal(values, expected)
    counts = ctl.handled_counts(TargetDevice(target))
    assert counts["absorbed"] == 2 and counts["multicast"] == 1


def test_int32_sum_wraps_like_the_hardware(target, job):
    big = np.full(ina.LANES, 2**31 - 1, dtype=np.int32)
    send(target, 0, 0, big)
    send(target, 1, 0, np.ones(ina.LANES, np.int32))
    out = decoded(send(target, 2, 0, np.zeros(ina.LANES, np.int32)))
    assert np.all(out[0][4] == -2**31)


def test_retransmission_after_completion_is_answered_by_unicast(target, job):
    vals = [lanes(i) for i in range(3)]
    for w in range(3):
        out = send(target, w, 0, vals[w])
    total = decoded(out)[0][4]
    again = decoded(send(target, 1, 0, vals[1], flags=ina.FLAG_GRADIENT | ina.FLAG_RETRANSMIT))
    assert len(again) == 1
    port, ip, mac, header, values = again[0]
    assert (port, ip, mac) == (2, worker_ip(1, 1), worker_mac(1, 1))
    assert header.flags == ina.FLAG_RESULT and np.array_equal(values, total)
    assert ctl.handled_counts(TargetDevice(target))["unicast"] == 1


def test_duplicate_before_completion_is_dropped_not_added(target, job):
    vals = [lanes(i) for i in range(3)]
    send(target, 0, 0, vals[0])
    assert send(target, 0, 0, vals[0]) == []
    send(target, 1, 0, vals[1])
    out = decoded(send(target, 2, 0, vals[2]))
    assert np.array_equal(out[0][4], vals[0] + vals[1] + vals[2])
    assert drops(target)["duplicate"] == 1


def test_shadow_set_keeps_previous_result_while_next_round_runs(target, job):
    slots = 8
    first = [lanes(10 + w) for w in range(3)]
    second = [lanes(20 + w) for w in range(3)]
    third = [lanes(30 + w) for w in range(3)]
    for w in range(3):
        send(target, w, 0, first[w])                  # chunk 0: slot 0, set 0
    send(target, 0, slots, second[0])                 # chunk 8: slot 0, set 1
    # worker 0 moved on: its bit in set 0 is cleared (it acknowledged chunk 0's result)
    assert target.register_read("MyIngress.slot_bitmap", 0) == 0b110
    assert target.register_read("MyIngress.slot_bitmap", ina.POOL) == 0b001
    # worker 2 missed chunk 0's result: set 0 still has it
    out = decoded(send(target, 2, 0, first[2]))
    assert len(out) == 1 and out[0][3].chunk == 0
    assert np.array_equal(out[0][4], first[0] + first[1] + first[2])
    # a late copy of chunk 0 from worker 0, which already has the result, is stale
    assert send(target, 0, 0, first[0]) == []
    assert drops(target)["stale"] == 1
    send(target, 1, slots, second[1])
    out = decoded(send(target, 2, slots, second[2]))
    assert out[0][3].chunk == slots and out[0][3].slot == 0x8000
    assert np.array_equal(out[0][4], second[0] + second[1] + second[2])
    # chunk 16 reuses set 0: the slot restarts from zero, nothing of chunk 0 leaks in
    for w in range(3):
        out = send(target, w, 2 * slots, third[w])
    out = decoded(out)
    assert out[0][3].chunk == 2 * slots
    assert np.array_equal(out[0][4], third[0] + third[1] + third[2])
    # an old chunk naming the slot now holding a newer one is stale
    assert send(target, 1, 0, first[1]) == []
    assert drops(target)["stale"] == 2


@pytest.mark.parametrize("reason,kwargs", [
    ("unknown_job", {"job_id": 9}),
    ("bad_worker", {"worker": 2, "job_id": 2}),
    ("bad_slot", {"slot": 8}),
    ("bad_slot", {"slot": 0x8000 | 100}),
    ("bad_type", {"flags": ina.FLAG_RESULT}),
    ("bad_type", {"flags": 0}),
    ("bad_length", {"payload": "short"}),
    ("bad_length", {"payload": "long"}),
    ("bad_length", {"payload": "header_only"}),
    ("bad_length", {"truncate": 4}),
])
def test_bad_input_is_dropped_counted_and_never_corrupts_a_slot(target, job, reason, kwargs):
    kwargs = dict(kwargs)          # shared by the backends' runs of a case
    ctl.setup(TargetDevice(target), ctl.Job(2, AGG, [
        ctl.Worker(w, w + 1, worker_mac(1, w), worker_ip(1, w)) for w in range(2)],
        slot_base=8, slot_count=8))
    vals = [lanes(i) for i in range(3)]
    send(target, 0, 0, vals[0])
    good = ina.encode(1, 1, 1, 0, 0, 0, np.full(ina.LANES, 1000, np.int32))
    payload = {"short": good[:-4], "long": good + b"\0\0\0\0",
               "header_only": good[:ina.HEADER_BYTES]}.get(kwargs.pop("payload", None))
    worker = kwargs.pop("worker", 1)
    assert send(target, worker, 0, np.full(ina.LANES, 1000, np.int32), payload=payload,
                **kwargs) == []
    assert {k: v for k, v in drops(target).items() if v} == {reason: 1}
    send(target, 1, 0, vals[1])
    out = decoded(send(target, 2, 0, vals[2]))
    assert len(out) == 3
    assert np.array_equal(out[0][4], vals[0] + vals[1] + vals[2])


def test_concurrent_jobs_on_disjoint_slots(target, job):
    device = TargetDevice(target)
    ctl.setup(device, ctl.Job(2, AGG, [
        ctl.Worker(w, w + 1, worker_mac(1, w), worker_ip(1, w)) for w in range(2)],
        slot_base=8, slot_count=8))
    a = [lanes(40 + w) for w in range(3)]
    b = [lanes(50 + w) for w in range(2)]
    send(target, 0, 0, a[0], job_id=1)
    send(target, 0, 0, b[0], job_id=2)
    send(target, 1, 0, a[1], job_id=1)
    out_b = decoded(send(target, 1, 0, b[1], job_id=2))
    out_a = decoded(send(target, 2, 0, a[2], job_id=1))
    assert sorted(p for p, *_ in out_b) == [1, 2] and sorted(p for p, *_ in out_a) == [1, 2, 3]
    assert all(h.job_id == 2 for *_, h, _ in out_b)
    assert np.array_equal(out_b[0][4], b[0] + b[1])
    assert np.array_equal(out_a[0][4], a[0] + a[1] + a[2])
    with pytest.raises(JobError, match=r"overlap job 2's \[8, 16\)"):
        ctl.setup(device, ctl.Job(3, AGG, job.workers, slot_base=12, slot_count=8))


def test_teardown_then_setup_starts_from_clean_slots(target, job):
    device = TargetDevice(target)
    send(target, 0, 0, lanes(1))
    send(target, 1, 0, lanes(2))                      # an unfinished round stays behind
    ctl.teardown(device, job)
    assert send(target, 2, 0, lanes(3)) == []        # no aggregator here any more
    assert target.table_entries(ctl.JOB_TABLE) == []
    assert target.table_entries(ctl.AGGREGATOR_TABLE) == []
    assert target.mc_groups() == {}
    ctl.setup(device, job)
    vals = [lanes(60 + w) for w in range(3)]
    for w in range(3):
        out = send(target, w, 0, vals[w])
    assert np.array_equal(decoded(out)[0][4], vals[0] + vals[1] + vals[2])


def test_other_traffic_is_forwarded_like_basic_p4(target, job):
    plain = bytes(Ether(src=worker_mac(1, 0), dst=SWITCH_MAC)
                  / IP(src=worker_ip(1, 0), dst=worker_ip(1, 2), ttl=9) / UDP(dport=5000)
                  / b"hello")
    out = target.process(plain, 1)
    assert len(out) == 1 and out[0][0] == 3
    pkt = Ether(out[0][1])
    assert pkt[Ether].dst == worker_mac(1, 2) and pkt[IP].ttl == 8
    assert bytes(pkt[UDP].payload) == b"hello"
    # INA packets to an address that is not an aggregator here pass through unchanged
    transit = ina.frame(worker_mac(1, 0), SWITCH_MAC, worker_ip(1, 0), worker_ip(1, 1),
                        ina.encode(1, 0, 1, 0, 0, 0, lanes(1)))
    out = target.process(transit, 1)
    assert len(out) == 1 and out[0][0] == 2
    assert out[0][1][ina.FRAME_OFFSET:] == transit[ina.FRAME_OFFSET:]


def test_job_validation_names_the_field():
    w = [ctl.Worker(0, 1, "08:00:00:00:01:01", "10.0.1.1")]
    with pytest.raises(JobError, match=r"job.workers\[0\].ip: '10.0.1' is not"):
        ctl.validate(ctl.Job(1, AGG, [ctl.Worker(0, 1, "08:00:00:00:01:01", "10.0.1")]))
    with pytest.raises(JobError, match=r"slots \[1000, 1032\) must lie within"):
        ctl.validate(ctl.Job(1, AGG, w, slot_base=1000))
    with pytest.raises(JobError, match="worker ids must be 0..1"):
        ctl.validate(ctl.Job(1, AGG, w + [ctl.Worker(2, 2, "08:00:00:00:01:02", "10.0.1.2")]))


def test_p4_program_matches_the_protocol_constants(program):
    hdr = program.types["ina_data_t"]
    assert [f.name for f in hdr.fields] == [f"v{i:02d}" for i in range(ina.LANES)]
    assert [(f.name, f.type.width) for f in program.types["ina_t"].fields] == [
        ("job_id", 8), ("worker_id", 8), ("flags", 8), ("n_workers", 8), ("slot", 16),
        ("exponent", 8), ("next_exponent", 8), ("chunk", 32)]
    ingress = program.controls[program.blocks["ingress"]]
    sizes = {i.name: i.args[0].value for i in ingress.instances if i.extern == "register"}
    assert sizes["MyIngress.slot_bitmap"] == 2 * ina.POOL


def test_checked_in_program_is_rendered_from_the_template():
    from testbed.proto import ina_p4
    assert (ina_p4.TEMPLATE.parent / "ina.p4").read_text() == ina_p4.render(), \
        "p4/ina.p4 is stale: python -m testbed.proto.ina_p4 > p4/ina.p4"


def test_template_renders_a_program_for_another_lane_count():
    from testbed.p4.lowering.program import load_source
    from testbed.proto import ina_p4
    program = load_source(ina_p4.render(lanes=8), filename="ina8.p4")
    assert len(program.types["ina_data_t"].fields) == 8
    ingress = program.controls[program.blocks["ingress"]]
    assert sum(i.local_name.startswith("lane_v") for i in ingress.instances) == 8


def test_a_job_id_is_used_once_per_switch(target, job):
    with pytest.raises(JobError, match="job 1 already exists on this switch"):
        ctl.setup(TargetDevice(target), ctl.Job(1, "10.0.254.1", job.workers,
                                                    slot_base=100, slot_count=8))


def lanes16(seed, bound=2**13):
    return np.random.default_rng(seed).integers(-bound, bound, 2 * ina.LANES).astype(np.int16)


def test_16_bit_lanes_are_summed_each_on_its_own_and_stay_16_bit(target, job):
    vals = [lanes16(i) for i in range(3)]
    flags = ina.FLAG_GRADIENT | ina.FLAG_LANES16
    for w in range(2):
        assert send(target, w, 0, ina.pack16(vals[w]), flags=flags) == []
    out = decoded(send(target, 2, 0, ina.pack16(vals[2]), flags=flags))
    expected = (vals[0].astype(np.int64) + vals[1] + vals[2]).astype(np.int16)
    assert len(out) == 3
    for _, _, _, header, words in out:
        assert header.flags == ina.FLAG_RESULT | ina.FLAG_LANES16
        # a borrow from a negative low half never reaches the high half
        assert np.array_equal(ina.unpack16(words), expected)


def test_16_bit_retransmission_after_completion_keeps_its_width(target, job):
    vals = [lanes16(i) for i in range(3)]
    flags = ina.FLAG_GRADIENT | ina.FLAG_LANES16
    for w in range(3):
        send(target, w, 0, ina.pack16(vals[w]), flags=flags)
    ((_, _, _, header, words),) = decoded(send(
        target, 1, 0, ina.pack16(vals[1]), flags=flags | ina.FLAG_RETRANSMIT))
    assert header.flags == ina.FLAG_RESULT | ina.FLAG_LANES16
    assert np.array_equal(ina.unpack16(words), sum(v.astype(np.int64) for v in vals))


def test_lanes_of_two_widths_are_never_added(target, job):
    send(target, 0, 0, ina.pack16(lanes16(0)), flags=ina.FLAG_GRADIENT | ina.FLAG_LANES16)
    assert send(target, 1, 0, lanes(1)) == []
    assert drops(target)["bad_type"] == 1
    # the slot still completes with the right width
    send(target, 1, 0, ina.pack16(lanes16(1)), flags=ina.FLAG_GRADIENT | ina.FLAG_LANES16)
    out = decoded(send(target, 2, 0, ina.pack16(lanes16(2)),
                       flags=ina.FLAG_GRADIENT | ina.FLAG_LANES16))
    assert np.array_equal(ina.unpack16(out[0][4]),
                          sum(lanes16(i).astype(np.int64) for i in range(3)))


def test_a_job_asks_for_a_lane_width_the_program_has():
    w = [ctl.Worker(0, 1, "08:00:00:00:01:01", "10.0.1.1")]
    with pytest.raises(JobError, match=r"job.lane_bits: 8 is not a lane width; accepted: 16, 32"):
        ctl.validate(ctl.Job(1, AGG, w, lane_bits=8))
    assert ctl.job_from_dict({"job_id": 1, "aggregator_ip": AGG, "lane_bits": 16, "workers": [
        {"worker_id": 0, "port": 1, "mac": "08:00:00:00:01:01", "ip": "10.0.1.1"}]}
    ).lane_bits == 16


def test_16_bit_job_is_set_up_on_ina_p4_and_refused_by_a_program_without_16_bit_lanes(
        program, tmp_path):
    from testbed.p4.lowering.program import load_program
    job = ctl.Job(1, AGG, [ctl.Worker(0, 1, "08:00:00:00:01:01", "10.0.1.1")], lane_bits=16)
    ctl.setup(TargetDevice(new_target(program)), job)
    # FLAG_MAX rounds (an action of that name) but no 16-bit lanes
    source = (REPO / "p4" / "basic.p4").read_text().replace(
        "    apply {\n        if (hdr.ipv4.isValid()) {",
        "    action lanes_max() { hdr.ipv4.ttl = hdr.ipv4.ttl; }\n"
        "    apply {\n        if (hdr.ipv4.isValid()) {\n            lanes_max();", 1)
    path = tmp_path / "max_only.p4"
    path.write_text(source)
    max_only = new_target(load_program(str(path)))
    with pytest.raises(JobError, match=r"job.lane_bits: the job asks for 16-bit lanes; the "
                       r"switch's program max_only.p4 has only 32-bit ones \(no FLAG_LANES16 "
                       r"rounds: it lacks MyIngress.slot_lanes\); .*set lane_bits: 32"):
        ctl.setup(TargetDevice(max_only), job)


@pytest.mark.parametrize("lane_bits", [16, 32])
def test_a_job_is_refused_at_set_up_by_a_program_without_flag_max_rounds(lane_bits,
                                                                         tmp_path):
    """Every job agrees its blocks' exponents in a FLAG_MAX round: a program without one
    (ina.p4 with its max action renamed) is refused when the job is set up, not at the
    job's first all-reduce."""
    from testbed.p4.lowering.program import load_program
    job = ctl.Job(1, AGG, [ctl.Worker(0, 1, "08:00:00:00:01:01", "10.0.1.1")],
                  lane_bits=lane_bits)
    path = tmp_path / "no_max.p4"
    path.write_text((REPO / "p4" / "ina.p4").read_text().replace("lanes_max", "lanes_top"))
    sgd = new_target(load_program(str(path)))
    with pytest.raises(JobError, match=r"^job: the switch's program no_max.p4 has no "
                       r"FLAG_MAX rounds \(flag 0x10, action MyIngress.lanes_max\), .*run "
                       r"p4/ina.p4$"):
        ctl.setup(TargetDevice(sgd), job)
    assert sgd.table_entries(ctl.JOB_TABLE) == []            # refused before any write
    ctl.setup(TargetDevice(sgd), ctl.Job(1, AGG, job.workers), max_rounds=False)
    assert len(sgd.table_entries(ctl.JOB_TABLE)) == 1        # a job of one exponent a round


def test_a_job_gets_the_program_s_lane_count_or_is_refused_at_set_up(program):
    """A program rendered for a jumbo MTU (512 words: 4096 B) sums packets of its size
    and drops the default's as bad_length; a job whose workers would send another lane
    count than the program's is refused at set-up, naming the field and the counts."""
    jumbo = new_target(load_ina_program(JUMBO_LANES))
    assert ctl.program_lanes(TargetDevice(jumbo)) == JUMBO_LANES
    assert ctl.program_lanes(TargetDevice(new_target(program))) == ina.LANES
    with pytest.raises(JobError, match=rf"job.lanes: the job's workers send {ina.LANES} lanes "
                       rf"per packet; the switch's program takes {JUMBO_LANES} \(its frames: "
                       rf"2102 B\); set lanes: {JUMBO_LANES}"):
        single_switch_job(jumbo, n_workers=2)
    assert jumbo.table_entries(ctl.JOB_TABLE) == []           # refused before any write
    with pytest.raises(JobError, match=rf"job.lanes: the job's workers send {JUMBO_LANES} "
                       rf"lanes per packet; the switch's program takes {ina.LANES}"):
        single_switch_job(new_target(program), n_workers=2, lanes=JUMBO_LANES)
    single_switch_job(jumbo, n_workers=2, lanes=JUMBO_LANES)
    vals = [np.arange(JUMBO_LANES, dtype=np.int32) * (w + 1) - 7 for w in range(2)]
    assert send(jumbo, 0, 0, vals[0]) == []
    out = decoded(send(jumbo, 1, 0, vals[1]))
    assert len(out) == 2 and all(np.array_equal(o[4], vals[0] + vals[1]) for o in out)
    assert send(jumbo, 0, 1, np.zeros(ina.LANES, np.int32)) == []
    assert drops(jumbo)["bad_length"] == 1
    with pytest.raises(JobError, match=r"job.lanes: 0 lanes per packet: accepted 1..8192"):
        ctl.validate(ctl.Job(1, AGG, [ctl.Worker(0, 1, "08:00:00:00:01:01", "10.0.1.1")],
                             lanes=0))


def test_results_carry_the_largest_next_exponent_and_an_overflow_mark(target, job):
    """next_exponent: the switch keeps the largest of the round, for the result and a
    late retransmission alike. FLAG_OVERFLOW from any contribution marks the result."""
    for w, next_e in enumerate((-7, 3)):
        send(target, w, 0, lanes(w), payload=ina.encode(1, w, ina.FLAG_GRADIENT, 0, 0, 0,
                                                        lanes(w), next_exponent=next_e))
    out = decoded(send(target, 2, 0, None, payload=ina.encode(
        1, 2, ina.FLAG_GRADIENT, 0, 0, 0, lanes(2), next_exponent=-20)))
    assert len(out) == 3
    for _, _, _, header, _ in out:
        assert header.next_exponent == 3 and header.flags == ina.FLAG_RESULT
    ((_, _, _, header, _),) = decoded(send(target, 0, 0, None, payload=ina.encode(
        1, 0, ina.FLAG_GRADIENT | ina.FLAG_RETRANSMIT, 0, 0, 0, lanes(0), next_exponent=-7)))
    assert header.next_exponent == 3 and header.flags == ina.FLAG_RESULT
    # chunk 1: worker 1's block does not fit exponent 0; it needs 4
    flags = ina.FLAG_GRADIENT
    send(target, 0, 1, lanes(0), exponent=0)
    send(target, 1, 1, np.zeros(ina.LANES, np.int32), exponent=4,
         flags=flags | ina.FLAG_OVERFLOW)
    out = decoded(send(target, 2, 1, lanes(2), exponent=0))
    for _, _, _, header, _ in out:
        assert header.flags == ina.FLAG_RESULT | ina.FLAG_OVERFLOW and header.exponent == 4
    ((_, _, _, header, _),) = decoded(send(target, 2, 1, lanes(2), exponent=0,
                                           flags=flags | ina.FLAG_RETRANSMIT))
    assert header.flags == ina.FLAG_RESULT | ina.FLAG_OVERFLOW and header.exponent == 4
    # the mark belongs to the round: the next round in the slot starts clean
    for w in range(3):
        out = send(target, w, 17, lanes(w))
    assert decoded(out)[0][3].flags == ina.FLAG_RESULT


def test_a_max_round_keeps_each_lanes_largest_value_and_never_mixes_with_sums(target, job):
    """FLAG_MAX: signed lanes, the result holds each lane's max over the workers (the
    workers' block exponents); a summing packet on that round is a bad type, and so is
    FLAG_MAX with 16-bit lanes."""
    vals = [np.random.default_rng(w).integers(-126, 128, ina.LANES).astype(np.int32)
            for w in range(3)]
    flags = ina.FLAG_GRADIENT | ina.FLAG_MAX
    assert send(target, 0, 0, vals[0], flags=flags) == []
    assert send(target, 1, 0, vals[1]) == []
    assert send(target, 1, 0, ina.pack16(lanes16(1)),
                flags=flags | ina.FLAG_LANES16) == []
    assert drops(target)["bad_type"] == 2
    send(target, 1, 0, vals[1], flags=flags)
    out = decoded(send(target, 2, 0, vals[2], flags=flags))
    assert len(out) == 3
    for _, _, _, header, values in out:
        assert header.flags == ina.FLAG_RESULT | ina.FLAG_MAX
        assert np.array_equal(values, np.max(vals, axis=0))
