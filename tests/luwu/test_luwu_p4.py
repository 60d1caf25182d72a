"""p4/luwu.p4 on the software target: gradients to the optimizer node, parameters to the
workers."""
import numpy as np
import pytest

from controllers import luwu
from controllers.jobs import JobError
from controllers.jobs import TargetDevice
from luwu_setup import (AGG, OPT_IP, OPT_MAC, OPT_PORT, SWITCH_MAC, load_luwu_program,
                        luwu_job, setup_job, worker_ip, worker_mac)
from tests.ina.ina_fabric import decoded
from testbed.p4runtime.values import parse_ipv4
from testbed.proto import ina, luwu_p4

RETRANSMIT = ina.FLAG_GRADIENT | ina.FLAG_RETRANSMIT


@pytest.fixture(scope="module")
def program():
    return load_luwu_program()


@pytest.fixture(params=["python", "native"])
def target(program, request):
    from testbed.p4.targets import make_target
    t = make_target(program, request.param)
    setup_job(t)
    return t


def lanes(seed):
    return np.random.default_rng(seed).integers(-2**28, 2**28, ina.LANES).astype(np.int32)


def params(seed):
    """float32 parameters carried as their bit patterns."""
    values = np.random.default_rng(seed).standard_normal(ina.LANES).astype(np.float32)
    return values, values.view(np.int32)


def grad(target, worker, chunk, values, flags=ina.FLAG_GRADIENT, exponent=0, job_id=1):
    slot = ina.slot_field(chunk % 8, (chunk // 8) % 2)
    payload = ina.encode(job_id, worker, flags, slot, exponent, chunk, values)
    return target.process(ina.frame(worker_mac(worker), SWITCH_MAC, worker_ip(worker), AGG,
                                    payload), worker + 1)


def answer(target, chunk, bits, src=OPT_IP, port=OPT_PORT, job_id=1):
    slot = ina.slot_field(chunk % 8, (chunk // 8) % 2)
    payload = ina.encode(job_id, 0, ina.FLAG_PARAMS, slot, 0, chunk, bits)
    return target.process(ina.frame(OPT_MAC, SWITCH_MAC, src, AGG, payload), port)


def complete(target, chunk, seed=0):
    vals = [lanes(seed + w) for w in range(3)]
    out = []
    for w in range(3):
        out = grad(target, w, chunk, vals[w], exponent=w)
    return vals, out


def counts(target):
    device = TargetDevice(target)
    return luwu.drop_counts(device), luwu.handled_counts(device)


def test_checked_in_program_is_the_rendered_template():
    assert (luwu_p4.TEMPLATE.with_name("luwu.p4")).read_text() == luwu_p4.render()


def test_complete_slot_goes_as_one_packet_to_the_optimizer(target):
    vals, out = complete(target, 0)
    got = decoded(out)
    assert len(got) == 1
    port, ip, mac, header, values = got[0]
    assert (port, ip, mac) == (OPT_PORT, OPT_IP, OPT_MAC)
    assert header.flags == ina.FLAG_RESULT and header.chunk == 0 and header.n_workers == 3
    assert header.exponent == 2
    assert np.array_equal(values, vals[0] + vals[1] + vals[2])
    assert ina.frame_addresses(out[0][1])[0] == AGG
    assert counts(target)[1]["absorbed"] == 2 and counts(target)[1]["to_optimizer"] == 1


def test_parameters_are_multicast_to_every_worker_with_its_addresses(target):
    complete(target, 3)
    floats, bits = params(1)
    got = decoded(answer(target, 3, bits))
    assert sorted((p, ip, mac) for p, ip, mac, _, _ in got) == [
        (w + 1, worker_ip(w), worker_mac(w)) for w in range(3)]
    for _, _, _, header, values in got:
        assert header.flags == ina.FLAG_PARAMS and header.chunk == 3 and header.job_id == 1
        assert np.array_equal(values.view(np.float32), floats)
    assert counts(target)[1]["params_multicast"] == 1


def test_retransmission_before_the_answer_resends_the_sum_to_the_optimizer(target):
    vals, _ = complete(target, 0)
    got = decoded(grad(target, 1, 0, vals[1], flags=RETRANSMIT))
    assert len(got) == 1
    port, ip, _, header, values = got[0]
    assert (port, ip) == (OPT_PORT, OPT_IP)
    assert header.flags == ina.FLAG_RESULT | ina.FLAG_RETRANSMIT
    assert np.array_equal(values, vals[0] + vals[1] + vals[2])
    assert counts(target)[1]["reforwarded"] == 1


def test_retransmission_after_the_answer_gets_the_parameters_by_unicast(target):
    vals, _ = complete(target, 0)
    floats, bits = params(2)
    answer(target, 0, bits)
    got = decoded(grad(target, 2, 0, vals[2], flags=RETRANSMIT))
    assert len(got) == 1
    port, ip, mac, header, values = got[0]
    assert (port, ip, mac) == (3, worker_ip(2), worker_mac(2))
    assert header.flags == ina.FLAG_PARAMS and header.chunk == 0
    assert np.array_equal(values.view(np.float32), floats)
    assert counts(target)[1]["params_unicast"] == 1


def test_next_round_in_the_slot_forgets_the_answer(target):
    complete(target, 0)
    answer(target, 0, params(3)[1])
    complete(target, 8, seed=10)         # same slot index, other set: untouched
    vals, _ = complete(target, 16, seed=20)   # set 0 again: a new round
    got = decoded(grad(target, 0, 16, vals[0], flags=RETRANSMIT))
    assert [(p, h.flags) for p, _, _, h, _ in got] == [
        (OPT_PORT, ina.FLAG_RESULT | ina.FLAG_RETRANSMIT)]


def test_parameters_from_elsewhere_or_for_an_open_slot_are_dropped_and_counted(target):
    vals = [lanes(w) for w in range(2)]
    grad(target, 0, 0, vals[0])
    grad(target, 1, 0, vals[1])
    bits = params(4)[1]
    assert answer(target, 0, bits) == []                                 # slot incomplete
    assert answer(target, 1, bits) == []                                 # empty slot
    assert answer(target, 0, bits, src=worker_ip(0), port=1) == []       # a worker
    assert answer(target, 0, bits, job_id=2) == []          # the exponent job: plain INA
    slot_9 = ina.encode(1, 0, ina.FLAG_PARAMS, 9, 0, 0, bits)               # outside 8
    assert target.process(ina.frame(OPT_MAC, SWITCH_MAC, OPT_IP, AGG, slot_9), OPT_PORT) == []
    out = decoded(grad(target, 2, 0, lanes(2)))
    assert np.array_equal(out[0][4], vals[0] + vals[1] + lanes(2))        # sum intact
    drops, handled = counts(target)
    assert (drops["stale"], drops["not_optimizer"], drops["bad_slot"]) == (2, 2, 1)
    assert handled["params_multicast"] == 0


def test_bad_gradients_are_dropped_before_any_register_is_touched(target):
    bad_worker = ina.encode(1, 7, ina.FLAG_GRADIENT, 0, 0, 0, lanes(0))
    assert target.process(ina.frame(worker_mac(0), SWITCH_MAC, worker_ip(0), AGG,
                                    bad_worker), 1) == []
    short = ina.frame(worker_mac(0), SWITCH_MAC, worker_ip(0), AGG,
                      ina.encode(1, 0, ina.FLAG_GRADIENT, 0, 0, 0, lanes(0)))[:-4]
    assert target.process(short, 1) == []
    assert grad(target, 0, 0, lanes(0), job_id=9) == []
    assert target.register_read("MyIngress.slot_count", 0) == 0
    drops = counts(target)[0]
    assert (drops["bad_worker"], drops["bad_length"], drops["unknown_job"]) == (1, 1, 1)


def test_exponent_job_multicasts_its_result_to_the_workers(target):
    zeros = np.zeros(ina.LANES, np.int32)
    out = []
    for w in range(3):
        payload = ina.encode(2, w, ina.FLAG_GRADIENT, 0, w - 5, 0, zeros)
        out = target.process(ina.frame(worker_mac(w), SWITCH_MAC, worker_ip(w), AGG,
                                        payload), w + 1)
    got = decoded(out)
    assert sorted(p for p, *_ in got) == [1, 2, 3]
    assert all(h.flags == ina.FLAG_RESULT and h.exponent == -3 for *_, h, _ in got)


def test_teardown_removes_the_job_and_the_route(program):
    from testbed.p4.python.target import Target
    t = Target(program)
    device = TargetDevice(t)
    job = setup_job(t)
    with pytest.raises(JobError, match="overlap"):
        luwu.setup(device, luwu_job(job_id=5))
    assert len(t.table_entries("MyIngress.ina_job")) == 3      # the clash left nothing
    luwu.teardown(device, job)
    assert t.table_entries("MyIngress.ina_job") == []
    assert t.table_entries("MyIngress.ina_aggregator") == []
    routes = {e.match[0].value for e in t.table_entries("MyIngress.ipv4_lpm")}
    assert parse_ipv4(OPT_IP) not in routes and len(routes) == 3
    assert t.mc_groups() == {}


PULL = ina.FLAG_GRADIENT | ina.FLAG_PULL
PULL_JOB = 3                          # job_id + 2, the slots after the exponent job's


def pull(target, worker, chunk, flags=PULL):
    slot = ina.slot_field(chunk % 8, (chunk // 8) % 2)
    payload = ina.encode(PULL_JOB, worker, flags, slot, 0, chunk, None)
    return target.process(ina.frame(worker_mac(worker), SWITCH_MAC, worker_ip(worker), AGG,
                                    payload), worker + 1)


def ack(target, chunk, job_id=1):
    slot = ina.slot_field(chunk % 8, (chunk // 8) % 2)
    payload = ina.encode(job_id, 0, ina.FLAG_PARAMS, slot, 0, chunk, None)
    return target.process(ina.frame(OPT_MAC, SWITCH_MAC, OPT_IP, AGG, payload), OPT_PORT)


def test_pulls_of_every_worker_become_one_request_and_one_multicast_of_parameters(target):
    assert pull(target, 0, 5) == [] and pull(target, 1, 5) == []
    got = decoded(pull(target, 2, 5))
    assert len(got) == 1
    port, ip, _, header, values = got[0]
    assert (port, ip) == (OPT_PORT, OPT_IP) and values is None       # header only
    assert header.flags == ina.FLAG_RESULT | ina.FLAG_PULL and header.job_id == PULL_JOB
    assert (header.chunk, header.n_workers) == (5, 3)
    floats, bits = params(5)
    got = decoded(answer(target, 5, bits, job_id=PULL_JOB))
    assert sorted((p, ip) for p, ip, *_ in got) == [(w + 1, worker_ip(w)) for w in range(3)]
    assert all(np.array_equal(v.view(np.float32), floats) for *_, v in got)
    # a worker that lost the multicast asks again and gets the stored parameters, full size
    got = decoded(pull(target, 1, 5, flags=PULL | ina.FLAG_RETRANSMIT))
    assert [(p, h.flags) for p, _, _, h, _ in got] == [(2, ina.FLAG_PARAMS)]
    assert np.array_equal(got[0][4].view(np.float32), floats)


def test_a_pull_before_the_answer_asks_the_optimizer_again_header_only(target):
    for w in range(3):
        pull(target, w, 0)
    got = decoded(pull(target, 0, 0, flags=PULL | ina.FLAG_RETRANSMIT))
    assert [(p, h.flags, v) for p, _, _, h, v in got] == [
        (OPT_PORT, ina.FLAG_RESULT | ina.FLAG_RETRANSMIT | ina.FLAG_PULL, None)]
    assert counts(target)[1]["reforwarded"] == 1


def test_an_acknowledged_gradient_is_acknowledged_again_to_a_retransmission(target):
    vals, _ = complete(target, 2)
    got = decoded(ack(target, 2))
    assert sorted(p for p, *_ in got) == [1, 2, 3]
    assert all(h.flags == ina.FLAG_PARAMS and v is None for *_, h, v in got)
    got = decoded(grad(target, 0, 2, vals[0], flags=RETRANSMIT))      # full size in,
    assert [(p, h.flags, v) for p, _, _, h, v in got] == [(1, ina.FLAG_PARAMS, None)]  # ack out
    assert counts(target)[1]["acks_unicast"] == 1


def test_pulls_with_lanes_gradients_without_and_pulls_to_ina_jobs_are_dropped(target):
    slot = ina.slot_field(0, 0)
    with_lanes = ina.encode(PULL_JOB, 0, PULL, slot, 0, 0, lanes(0))
    without = ina.encode(1, 0, ina.FLAG_GRADIENT, slot, 0, 0, None)
    to_ina = ina.encode(2, 0, PULL, slot, 0, 0, None)              # the exponent job
    for payload in (with_lanes, without, to_ina):
        assert target.process(ina.frame(worker_mac(0), SWITCH_MAC, worker_ip(0), AGG,
                                        payload), 1) == []
    assert counts(target)[0]["bad_type"] == 3
    assert target.register_read("MyIngress.slot_count", 0) == 0


def test_only_full_size_packets_are_taken_and_header_only_ones_count_no_groups(target):
    """luwu.p4 shares ina.p4's header but takes full-size packets only: a short packet
    (one lane group, which ina.p4 would sum), a full-size one whose header counts
    another number of groups and a header-only pull that counts one are dropped as bad
    lengths before any register is touched; its header-only answers count none."""
    def with_groups(payload, groups):
        return payload[:ina.HEADER_BYTES - 1] + bytes([groups]) + payload[ina.HEADER_BYTES:]

    short = ina.encode(1, 0, ina.FLAG_GRADIENT, 0, 0, 0, lanes(0)[:ina.GROUP_WORDS])
    miscounted = with_groups(ina.encode(1, 0, ina.FLAG_GRADIENT, 0, 0, 0, lanes(0)), 1)
    pull = with_groups(ina.encode(PULL_JOB, 0, PULL, 0, 0, 0, None), 1)
    for payload in (short, miscounted, pull):
        assert target.process(ina.frame(worker_mac(0), SWITCH_MAC, worker_ip(0), AGG,
                                        payload), 1) == []
    assert counts(target)[0]["bad_length"] == 3
    assert target.register_read("MyIngress.slot_count", 0) == 0
    complete(target, 2)
    got = decoded(ack(target, 2))
    assert got and all(h.groups == 0 and v is None for *_, h, v in got)
