"""A real shaped link holds its rate and lets a burst from idle through no faster than its
bucket allows: a veth pair shaped by the commands a link gets, timed by the kernel."""
import pytest

from testbed.net import shaper_trial, shaping

pytestmark = [pytest.mark.root, pytest.mark.slow]

RATE_TOLERANCE = 0.01
# The measured credit is the bucket less the sender's own gaps between frames, plus the
# jitter of the receive timestamps (seen: up to 128 B, 10 us, over a 14,014 B bucket at
# 100 Mb/s); a qdisc that let more through than its bucket would exceed it.
CREDIT_TOLERANCE = 0.01
TIMESTAMP_JITTER_S = 20e-6


@pytest.mark.parametrize("rate_bps, frame_bytes", [
    (10e6, 1514),         # 100 Gb/s at 1e-4, 1500 B links
    (100e6, 1514),        # 100 Gb/s at 1e-3
    (20e6, 4110),         # 200 Gb/s at 1e-4, the RDMA profiles' 4096 B MTU
    (200e6, 4110),        # 200 Gb/s at 1e-3
])
def test_a_shaped_link_holds_its_rate_and_bursts_at_most_its_bucket(rate_bps, frame_bytes):
    trial = shaper_trial.measure(rate_bps, frame_bytes=frame_bytes, seconds=1.0)
    bucket = shaping.burst_bytes(rate_bps, frame_bytes)
    assert trial.bucket_bytes == bucket and trial.lost_frames == 0
    assert abs(trial.rate_error) <= RATE_TOLERANCE, trial
    # a burst from idle got ahead of the link by no more than the bucket set
    assert trial.credit_bytes <= (bucket * (1 + CREDIT_TOLERANCE)
                                  + rate_bps / 8 * TIMESTAMP_JITTER_S), trial
    # and the bucket is the one promised: one largest frame and the timer slack
    assert bucket <= frame_bytes + rate_bps / 8 * shaping.TIMER_SLACK_S + 1
