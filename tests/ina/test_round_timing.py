"""The one timing rule both all-reduce benchmark programs follow."""
import torch

from hosts import round_timing

PROC_NET_DEV = """Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo:    5000      50    0    0    0     0          0         0     5000      50    0    0    0     0       0          0
h1-eth0:   1000      10    0    0    0     0          0         0     3000      20    0    0    0     0       0          0
"""


def test_interface_counters_leave_out_loopback():
    assert round_timing.interface_counters(PROC_NET_DEV) == {
        "rx_bytes": 1000, "rx_frames": 10, "tx_bytes": 3000, "tx_frames": 20}


def test_machine_busy_time_counts_every_state_but_idle_and_iowait():
    import os
    text = "cpu  100 20 30 1000 400 5 6 7 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n"
    assert round_timing.machine_busy_s(text) == 168 / os.sysconf("SC_CLK_TCK")
    assert round_timing.machine_busy_s() > 0


def test_rounds_run_back_to_back_after_warm_up_and_one_sync():
    events, now = [], [0.0]

    def all_reduce(t):
        events.append(("round", float(t[0])))
        now[0] += 1.0

    def counters():
        return {"rx_bytes": 10 * now[0], "tx_bytes": 20 * now[0], "rx_frames": now[0],
                "tx_frames": 2 * now[0]}

    tensors = [torch.full((2,), float(k)) for k in range(3)]
    report = round_timing.timed_rounds(all_reduce, tensors, lambda: events.append("sync"),
                                       warmup=2, clock=lambda: now[0], counters=counters,
                                       busy=lambda: 0.5 * now[0],
                                       own_cpu=lambda: 0.25 * now[0])
    # warm-up on copies of the first input (it stays untouched), one sync, then the rounds
    assert events == [("round", 0.0), ("round", 0.0), "sync",
                      ("round", 0.0), ("round", 1.0), ("round", 2.0)]
    assert report["round_ends_s"] == [1.0, 2.0, 3.0]
    assert report["times_s"] == [1.0, 1.0, 1.0]
    assert (report["rx_bytes"], report["tx_bytes"], report["tx_frames"]) == (30, 60, 6)
    assert report["machine_busy_s"] == 1.5          # over the timed rounds only
    assert report["process_cpu_s"] == 0.75


def test_no_sync_without_warm_up():
    events = []
    round_timing.timed_rounds(lambda t: None, [torch.zeros(1)], lambda: events.append("s"))
    assert events == []
