import pytest

from testbed.errors import TrainetError
from testbed.topology import profiles
from testbed.topology.profiles import (PROFILES, get_profile, nominal_and_emulated, scaled,
                                       scaled_volume)


def test_every_profile_documents_its_source_and_is_sane():
    for p in PROFILES.values():
        assert p.source, p.name
        assert p.bw_bps > 0 and p.latency_s >= 0 and 68 <= p.mtu <= 65535
        assert (p.transport is not None) == (p.kind == "nic"), p.name


def test_headline_numbers():
    assert get_profile("ib-hdr200").bw_bps == 200e9
    assert get_profile("ib-hdr200").transport.per_byte_s == 0       # RDMA: no per-byte CPU
    assert get_profile("roce-100g").bw_bps == 100e9
    assert 2e-6 <= get_profile("roce-100g").latency_s <= 3e-6
    assert get_profile("eth-25g-tcp").transport.per_byte_s > 0
    assert get_profile("gcd-gcd").bw_bps == 200 * 8e9                # 200 GB/s
    assert 50 * 8e9 <= get_profile("gpu-gpu").bw_bps <= 100 * 8e9
    wan = [p for p in PROFILES.values() if p.name.startswith("wan-")]
    assert min(p.bw_bps for p in wan) == 8e6 and max(p.bw_bps for p in wan) == 10e9
    rtts = [2 * p.latency_s for p in wan]
    assert min(rtts) == pytest.approx(10e-3) and max(rtts) == pytest.approx(100e-3)


def test_unknown_profile_lists_the_known_ones():
    with pytest.raises(TrainetError, match="roce-100g"):
        get_profile("roce-400g")


def test_co_scaling_multiplies_bandwidth_and_volume_alike():
    s = 1e-4
    bw, volume = 200e9, 1_000_000_000            # 200 Gb/s, a 1 GB tensor
    nominal_time = volume * 8 / bw
    emulated_time = scaled_volume(volume, s) * 8 / scaled(bw, s)
    assert scaled(bw, s) == pytest.approx(20e6)
    assert scaled_volume(volume, s) == 100_000
    assert emulated_time == pytest.approx(nominal_time)


def test_scaled_volume_never_vanishes():
    assert scaled_volume(10, 1e-4) == 1
    assert scaled_volume(0, 1e-4) == 0


@pytest.mark.parametrize("bad", [0, -1e-4, 1.5])
def test_scale_must_be_in_range(bad):
    with pytest.raises(TrainetError, match=r"\(0, 1\]"):
        scaled(1e9, bad)


def test_nominal_and_emulated_text():
    assert nominal_and_emulated(200e9, 1e-4) == "200 Gb/s (20 Mb/s emulated)"
    assert nominal_and_emulated(8e6, 1) == "8 Mb/s (8 Mb/s emulated)"


def test_transport_per_byte_cost_is_kept_per_nominal_byte():
    tcp = profiles.KERNEL_TCP
    s = 1e-3
    nominal = tcp.message_time_s(1_000_000)
    emulated = tcp.emulated(s).message_time_s(scaled_volume(1_000_000, s))
    assert emulated == pytest.approx(nominal)
    assert nominal == pytest.approx(15e-6 + 1_000_000 * 0.25e-9)
