"""Workers' protocol (windows, timeouts, retransmission) against p4/ina.p4 on the target,
one switch and two levels, with loss and reordering."""
import numpy as np
import pytest

from controllers import ina as ctl
from controllers.jobs import TargetDevice
from hosts.ina_session import AggregationTimeout, Exchange, JobStream
from ina_fabric import (JUMBO_LANES, Fabric, WorkerNode, load_ina_program, new_target, route,
                        single_switch_job, worker_ip, worker_mac)
from testbed.proto import ina

AGG = "10.0.255.1"


@pytest.fixture(scope="module")
def program():
    return load_ina_program()


def data(seed, chunks, lanes=ina.LANES):
    rng = np.random.default_rng(seed)
    return rng.integers(-2**26, 2**26, (chunks, lanes)).astype(np.int32)


def one_switch(program, n, slots, loss=0.0, reorder=0.0, seed=1, lanes=ina.LANES):
    target = new_target(program)
    single_switch_job(target, n_workers=n, slot_count=slots, lanes=lanes)
    fabric = Fabric(loss=loss, reorder=reorder, seed=seed)
    fabric.targets["s1"] = target
    for w in range(n):
        name = f"h{w}"
        fabric.workers[name] = WorkerNode(worker_ip(1, w), worker_mac(1, w), AGG)
        fabric.link((name, 0), ("s1", w + 1))
    streams = {f"h{w}": JobStream(1, w, slots) for w in range(n)}
    return target, fabric, streams


def run_rounds(fabric, streams, rounds, chunks, seed, lanes=ina.LANES):
    """Run ``rounds`` exchanges; return (received sums, exact sums) per round."""
    got, want = [], []
    for r in range(rounds):
        arrays = {name: data(seed * 1000 + r * 10 + i, chunks, lanes)
                  for i, name in enumerate(streams)}
        exchanges = {name: Exchange(s, arrays[name], exponent=r % 5 - 2)
                     for name, s in streams.items()}
        fabric.run(exchanges)
        want.append(np.sum([a.astype(np.int64) for a in arrays.values()], axis=0))
        got.append([ex.result for ex in exchanges.values()])
        assert all(ex.result_exponent == r % 5 - 2 for ex in exchanges.values())
    return got, want


def test_exact_sums_without_loss(program):
    target, fabric, streams = one_switch(program, n=3, slots=4)
    got, want = run_rounds(fabric, streams, rounds=2, chunks=11, seed=1)
    for results, exact in zip(got, want):
        for result in results:
            assert np.array_equal(result, exact)
    assert fabric.lost == 0
    counts = ctl.handled_counts(TargetDevice(target))
    assert counts["multicast"] == 22 and counts["unicast"] == 0


@pytest.mark.parametrize("loss,reorder,lanes", [(0.01, 0.2, ina.LANES), (0.05, 0.3, ina.LANES),
                                               (0.2, 0.5, ina.LANES),
                                               (0.05, 0.3, JUMBO_LANES)])
def test_identical_sums_under_loss_and_reordering(loss, reorder, lanes):
    program = load_ina_program(lanes)
    target, fabric, streams = one_switch(program, n=4, slots=4, loss=loss, reorder=reorder,
                                         seed=int(loss * 100), lanes=lanes)
    got, want = run_rounds(fabric, streams, rounds=3, chunks=17, seed=2, lanes=lanes)
    for results, exact in zip(got, want):
        for result in results:
            assert np.array_equal(result, exact)
    assert fabric.lost > 0
    drops = ctl.drop_counts(TargetDevice(target))
    assert drops["bad_length"] == drops["unknown_job"] == drops["bad_worker"] == 0
    assert drops["bad_slot"] == drops["bad_type"] == 0


def test_many_rounds_reuse_every_slot_without_leaks(program):
    target, fabric, streams = one_switch(program, n=2, slots=3, loss=0.02, reorder=0.1)
    got, want = run_rounds(fabric, streams, rounds=25, chunks=7, seed=3)
    for results, exact in zip(got, want):
        assert all(np.array_equal(r, exact) for r in results)
    # 175 chunks went through 3 slots; each slot now holds one of the last chunks
    last = {target.register_read("MyIngress.slot_chunk", s * ina.POOL + i)
            for s in (0, 1) for i in range(3)}
    assert last == set(range(175 - 6, 175))
    counts = {target.register_read("MyIngress.slot_count", c) for c in range(3)}
    assert counts == {2}


def two_level(program, racks=2, per_rack=2, slots=4, loss=0.0, reorder=0.0):
    """Racks r1..rK aggregate their workers and act as workers of the spine's job 10."""
    fabric = Fabric(loss=loss, reorder=reorder, seed=7)
    spine = new_target(program)
    fabric.targets["spine"] = spine
    spine_workers = []
    streams = {}
    for r in range(1, racks + 1):
        rack = new_target(program)
        fabric.targets[f"r{r}"] = rack
        rack_agg, rack_mac = f"10.0.{r}.254", f"08:00:00:00:{r:02x}:fe"
        workers = [ctl.Worker(w, w + 1, worker_mac(r, w), worker_ip(r, w))
                   for w in range(per_rack)]
        ctl.setup(TargetDevice(rack), ctl.Job(
            r, rack_agg, workers, slot_count=slots,
            upstream=ctl.Upstream(AGG, 10, r - 1)))
        route(rack, AGG, "08:00:00:00:ff:00", 9)
        for x in workers:
            route(rack, x.ip, x.mac, x.port)
            name = f"h{r}{x.worker_id}"
            fabric.workers[name] = WorkerNode(x.ip, x.mac, rack_agg)
            fabric.link((name, 0), (f"r{r}", x.port))
            streams[name] = JobStream(r, x.worker_id, slots)
        fabric.link((f"r{r}", 9), ("spine", r))
        spine_workers.append(ctl.Worker(r - 1, r, rack_mac, rack_agg))
        route(spine, rack_agg, rack_mac, r)
    ctl.setup(TargetDevice(spine), ctl.Job(10, AGG, spine_workers, slot_count=slots))
    return fabric, streams


@pytest.mark.parametrize("loss,reorder", [(0.0, 0.0), (0.05, 0.3)])
def test_two_level_aggregation_across_racks(program, loss, reorder):
    fabric, streams = two_level(program, loss=loss, reorder=reorder)
    got, want = run_rounds(fabric, streams, rounds=2, chunks=9, seed=4)
    for results, exact in zip(got, want):
        assert len(results) == 4
        assert all(np.array_equal(r, exact) for r in results)
    spine = ctl.handled_counts(TargetDevice(fabric.targets["spine"]))
    rack = ctl.handled_counts(TargetDevice(fabric.targets["r1"]))
    assert spine["multicast"] == 18 and rack["relayed"] >= 18 and rack["upstream"] >= 18


def test_retransmission_backs_off_and_gives_up():
    stream = JobStream(1, 0, slots=2, timeout_s=0.01, max_timeout_s=0.04, give_up_s=1.0)
    ex = Exchange(stream, np.zeros((3, ina.LANES), np.int32), 0)
    assert len(ex.start(0.0)) == 2                    # the window is the slot count
    times = []
    now = 0.0
    with pytest.raises(AggregationTimeout, match="job 1 worker 0: no result for"):
        while True:
            now = ex.next_deadline()
            sent = ex.poll(now)
            times.append(round(now, 3))
            assert len(sent) == 2
    assert times[:4] == [0.01, 0.03, 0.07, 0.11]      # 10, 20, 40, 40 ms (capped)
    header, _ = ina.decode(sent[0])
    assert header.flags == ina.FLAG_GRADIENT | ina.FLAG_RETRANSMIT


def test_a_stalled_window_backs_off_once_not_once_per_chunk():
    stream = JobStream(1, 0, slots=8, timeout_s=0.01, max_timeout_s=5.0)
    ex = Exchange(stream, np.zeros((8, ina.LANES), np.int32), 0)
    ex.start(0.0)
    assert len(ex.poll(0.01)) == 8       # the whole window times out at once
    assert stream.backoff == 2 and stream.rto == pytest.approx(0.02)
    assert len(ex.poll(0.03)) == 8       # again, one timeout later: a second event
    assert stream.backoff == 4


def test_results_that_keep_arriving_hold_off_the_back_of_the_window():
    # a window of 8 sent at once into a slow link: results come 6 ms apart, so the last
    # chunk's round trip is 48 ms, far beyond the 10 ms timeout of its send alone
    stream = JobStream(1, 0, slots=8, timeout_s=0.01, max_timeout_s=5.0)
    ex = Exchange(stream, np.zeros((8, ina.LANES), np.int32), 0)
    ex.start(0.0)
    for chunk in range(8):
        now = 0.006 * (chunk + 1)
        assert ex.poll(now - 0.0001) == []
        ex.on_payload(ina.encode(1, 0, ina.FLAG_RESULT, stream.slot_of(chunk), 0, chunk,
                                 ex.lanes[chunk]), now)
    assert ex.done and ex.retransmissions == 0


def test_a_lost_chunk_times_out_once_results_stop():
    stream = JobStream(1, 0, slots=4, timeout_s=0.01, max_timeout_s=5.0)
    ex = Exchange(stream, np.zeros((4, ina.LANES), np.int32), 0)
    ex.start(0.0)
    for chunk in (1, 2):                 # chunks 0 and 3 are lost, too few results
        ex.on_payload(ina.encode(1, 0, ina.FLAG_RESULT, stream.slot_of(chunk), 0, chunk,
                                 ex.lanes[chunk]), 0.005 * chunk)    # for a fast retransmit
    assert ex.poll(0.0199) == []
    out = ex.poll(0.02)                  # 10 ms after the last result
    assert [ina.decode(p)[0].chunk for p in out] == [0, 3]


def test_a_hole_three_results_deep_is_retransmitted_at_once_and_only_once():
    stream = JobStream(1, 0, slots=8, timeout_s=0.01, max_timeout_s=5.0)
    ex = Exchange(stream, np.zeros((8, ina.LANES), np.int32), 0)
    ex.start(0.0)

    def result(chunk, now):
        return [ina.decode(p)[0] for p in ex.on_payload(ina.encode(
            1, 0, ina.FLAG_RESULT, stream.slot_of(chunk), 0, chunk, ex.lanes[chunk]), now)]

    assert result(1, 0.001) == [] and result(2, 0.002) == []
    fast = result(3, 0.003)              # chunk 0 is three results behind: lost
    assert [(h.chunk, h.flags) for h in fast] == [
        (0, ina.FLAG_GRADIENT | ina.FLAG_RETRANSMIT)]
    assert result(4, 0.004) == [] and result(5, 0.005) == []       # once only
    assert stream.backoff == 1 and ex.retransmissions == 1         # no back-off
    assert ex.next_deadline() == pytest.approx(0.015)    # the timer, restarted, still runs


def test_timeout_adapts_to_the_round_trip_time():
    stream = JobStream(1, 0, slots=1, timeout_s=0.01, max_timeout_s=1.0)
    ex = Exchange(stream, np.zeros((4, ina.LANES), np.int32), 0)
    ex.start(0.0)
    for i in range(4):                   # each result comes 50 ms after its chunk left
        result = ina.encode(1, 0, ina.FLAG_RESULT, stream.slot_of(i), 0, i, ex.lanes[i])
        ex.on_payload(result, 0.05 * (i + 1))
    assert ex.done and stream.srtt == pytest.approx(0.05)
    assert 0.05 < stream.rto < 0.1
    nxt = Exchange(stream, np.zeros((1, ina.LANES), np.int32), 0)
    nxt.start(1.0)
    assert nxt.next_deadline() == pytest.approx(1.0 + stream.rto)
    # a retransmitted chunk gives no sample (its result may answer either copy)
    nxt.poll(nxt.next_deadline())
    before = stream.srtt
    nxt.on_payload(ina.encode(1, 0, ina.FLAG_RESULT, stream.slot_of(4), 0, 4, nxt.lanes[0]), 5.0)
    assert nxt.done and stream.srtt == before


def test_a_timeout_backs_off_later_chunks_until_a_new_sample():
    stream = JobStream(1, 0, slots=2, timeout_s=0.01, max_timeout_s=1.0)
    ex = Exchange(stream, np.zeros((3, ina.LANES), np.int32), 0)

    def result(chunk, now):
        return ex.on_payload(ina.encode(1, 0, ina.FLAG_RESULT, stream.slot_of(chunk), 0,
                                        chunk, ex.lanes[chunk]), now)

    ex.start(0.0)
    ex.poll(0.01)                        # both chunks time out: one loss event, one back-off
    assert stream.rto == pytest.approx(0.02)
    assert len(result(0, 0.02)) == 1     # chunk 2 leaves at 0.02 with the backed-off timeout
    result(1, 0.021)                     # a result restarts chunk 2's timer
    assert ex.next_deadline() == pytest.approx(0.041)
    result(2, 0.025)                     # chunk 2 was sent once: a sample, the backoff ends
    assert stream.backoff == 1 and stream.srtt == pytest.approx(0.005)
