"""The egress model driven with a fake clock (integer nanoseconds)."""
import random
import statistics

import pytest

from testbed.switch.egress import EgressPort, Shape, default_burst

MS = 1_000_000
S = 1_000_000_000


def frame(size: int, tag: int = 0) -> bytes:
    return tag.to_bytes(4, "big") + bytes(size - 4)


def drain(port: EgressPort, until_ns: int, step_ns: int = 10_000):
    """Advance the fake clock in steps; return [(release_time, frame)]."""
    out = []
    t = 0
    while t <= until_ns:
        out += [(t, f) for f in port.pop_due(t)]
        t += step_ns
    return out


def test_no_shape_releases_immediately_in_order():
    port = EgressPort(Shape())
    for i in range(5):
        assert port.enqueue(frame(100, i), now_ns=1000)
    got = port.pop_due(1000)
    assert [int.from_bytes(f[:4], "big") for f in got] == [0, 1, 2, 3, 4]
    assert port.sent_packets == 5 and port.sent_bytes == 500
    assert port.next_release_ns() is None


@pytest.mark.parametrize("rate_bps", [1_000_000, 100_000_000, 500_000_000])
def test_rate_holds_under_overload(rate_bps):
    """Offer twice the rate for 1 s; what leaves is the configured rate, the excess is
    tail-dropped at the queue limit."""
    port = EgressPort(Shape(rate_bps=rate_bps, queue_packets=20))
    size = 1500
    interval = int(size * 8 / (2 * rate_bps) * S)   # arrivals at 2x the rate
    released = []
    t = 0
    while t < S:
        port.enqueue(frame(size), t)
        released += [(t, f) for f in port.pop_due(t)]
        t += interval
    in_window = sum(len(f) for when, f in released if 0.1 * S <= when < 0.9 * S)
    measured = in_window * 8 / 0.8
    assert measured == pytest.approx(rate_bps, rel=0.01)
    assert port.drops["tail_drop"] > 0
    assert port.pending() <= 20 + 1


def test_burst_leaves_at_once_then_rate():
    rate = 8_000_000  # 1 byte/us
    port = EgressPort(Shape(rate_bps=rate, burst_bytes=3000, queue_packets=100))
    for i in range(5):
        port.enqueue(frame(1000, i), 0)
    times = [port._heap[i][0] for i in range(len(port._heap))]
    times = sorted(times)
    # three 1000-byte frames fit the 3000-byte burst; then one every 1000 bytes / 1 byte/us
    assert times[:3] == [0, 0, 0]
    assert times[3] == 1000 * 1000
    assert times[4] == 2000 * 1000


def test_default_burst_scales_with_rate():
    assert default_burst(1_000_000) == 2 * 1514
    assert default_burst(800_000_000) == 100_000


def test_queue_limit_in_bytes():
    port = EgressPort(Shape(rate_bps=1_000_000, burst_bytes=1500, queue_bytes=4000,
                            queue_packets=1000))
    results = [port.enqueue(frame(1000), 0) for _ in range(10)]
    # the first frame leaves the bucket at once; behind it the byte limit admits
    # 4 frames of 1000 bytes
    assert results.count(True) == 5
    assert port.drops["tail_drop"] == 5


def test_constant_delay_is_exact():
    port = EgressPort(Shape(delay_ns=5 * MS))
    port.enqueue(frame(64), now_ns=2 * MS)
    assert port.next_release_ns() == 7 * MS
    assert port.pop_due(7 * MS - 1) == []
    assert len(port.pop_due(7 * MS)) == 1


def test_jitter_distribution_and_order():
    port = EgressPort(Shape(delay_ns=10 * MS, jitter_ns=1 * MS), rng=random.Random(1))
    n = 5000
    samples = [port._delay_sample() for _ in range(n)]
    assert statistics.mean(samples) == pytest.approx(10 * MS, rel=0.01)
    assert statistics.stdev(samples) == pytest.approx(1 * MS, rel=0.05)
    # releases never go backwards: jitter alone does not reorder
    for i in range(200):
        port.enqueue(frame(64, i), now_ns=i * 100_000)
    got = drain(port, 50 * MS, step_ns=100_000)
    assert [int.from_bytes(f[:4], "big") for _, f in got] == list(range(200))


def test_jitter_truncated_at_zero():
    port = EgressPort(Shape(delay_ns=100_000, jitter_ns=10 * MS), rng=random.Random(2))
    assert min(port._delay_sample() for _ in range(2000)) == 0


def test_loss_probability_counted():
    port = EgressPort(Shape(loss=0.1), rng=random.Random(3))
    admitted = sum(port.enqueue(frame(64), 0) for _ in range(20_000))
    assert port.drops["loss"] == 20_000 - admitted
    assert port.drops["loss"] / 20_000 == pytest.approx(0.1, abs=0.01)


def test_reorder_skips_delay_line():
    port = EgressPort(Shape(delay_ns=1 * MS, reorder=0.25), rng=random.Random(4))
    for i in range(400):
        port.enqueue(frame(64, i), now_ns=i * 10_000)
    got = [int.from_bytes(f[:4], "big") for _, f in drain(port, 10 * MS, step_ns=10_000)]
    assert sorted(got) == list(range(400))
    overtakes = sum(1 for a, b in zip(got, got[1:]) if b < a)
    assert overtakes > 50


def test_rate_and_delay_combine():
    rate = 8_000_000  # 1 byte/us
    port = EgressPort(Shape(rate_bps=rate, burst_bytes=1000, delay_ns=3 * MS))
    port.enqueue(frame(1000, 0), 0)
    port.enqueue(frame(1000, 1), 0)
    releases = sorted(r for r, _, _ in port._heap)
    assert releases == [3 * MS, 3 * MS + 1 * MS]


def _tags(released) -> list:
    return [int.from_bytes(f[:4], "big") for _, f in released]


def test_priority_queues_serve_the_highest_first():
    """A backlog of low-priority frames, then high-priority ones: once the bucket is
    empty each departure takes the highest waiting priority; equal priorities stay FIFO."""
    port = EgressPort(Shape(rate_bps=8_000_000, burst_bytes=1000, queue_packets=100),
                      queues=8)
    for i in range(6):
        assert port.enqueue(frame(1000, i), 0, priority=0)
    assert port.enqueue(frame(1000, 100), 10_000, priority=7)
    assert port.enqueue(frame(1000, 101), 20_000, priority=3)
    assert port.enqueue(frame(1000, 102), 30_000, priority=7)
    released = drain(port, 20 * MS)
    # frame 0 leaves at once on the burst, 1 ms per 1000 bytes after that
    assert _tags(released) == [0, 100, 102, 101, 1, 2, 3, 4, 5]
    times = [t for t, _ in released]
    assert times[:3] == [0, 1 * MS, 2 * MS] and port.pending() == 0


def test_a_higher_priority_arrival_overtakes_a_head_waiting_for_tokens():
    port = EgressPort(Shape(rate_bps=8_000_000, burst_bytes=1000), queues=2)
    port.enqueue(frame(1000, 1), 0, priority=0)          # leaves at 0 on the burst
    port.enqueue(frame(1000, 2), 0, priority=0)          # would leave at 1 ms
    assert port.next_release_ns() == 0
    port.pop_due(0)
    assert port.next_release_ns() == 1 * MS
    port.enqueue(frame(1000, 3), MS // 2, priority=1)    # arrives while 2 waits
    assert _tags(drain(port, 5 * MS)) == [3, 2]


def test_each_priority_queue_has_its_own_limit():
    port = EgressPort(Shape(rate_bps=8_000, burst_bytes=100, queue_packets=2), queues=2)
    results = [port.enqueue(frame(100), 0, priority=p) for p in (0, 0, 0, 1, 1, 1)]
    # one frame of priority 0 leaves on the burst, so three fit in its queue
    assert results == [True, True, True, True, True, False]
    assert port.drops["tail_drop"] == 1
