"""The INA scapy layers and the fast codec agree byte for byte."""
import numpy as np
import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from testbed.proto import ina


def _lanes(seed=1, count=ina.LANES):
    rng = np.random.default_rng(seed)
    lanes = rng.integers(-2**31, 2**31, size=count, dtype=np.int64).astype(np.int32)
    lanes[0], lanes[1] = -2**31, 2**31 - 1
    return lanes


@pytest.mark.parametrize("count", [ina.GROUP_WORDS, 3 * ina.GROUP_WORDS, ina.LANES,
                                   ina.lanes_for_mtu(9000), ina.MAX_LANES])
def test_encode_matches_scapy_layers(count):
    lanes = _lanes(count=count)
    fast = ina.encode(7, 3, ina.FLAG_GRADIENT | ina.FLAG_RETRANSMIT,
                      ina.slot_field(5, 1), -12, 0xDEADBEEF, lanes, n_workers=4)
    layer = ina.data_layer(count)
    layered = bytes(ina.INA(job_id=7, worker_id=3, flags=5, n_workers=4, slot=0x8005,
                            exponent=-12, chunk=0xDEADBEEF) / layer.of(lanes.tolist()))
    assert fast == layered
    assert len(fast) == ina.payload_bytes(count) == 13 + 4 * count
    assert fast[12] == ina.INA(fast).groups == count // ina.GROUP_WORDS == ina.groups_of(count)
    assert ina.INA(fast)[layer].lanes == lanes.tolist()        # the length picks the layer
    words16 = ina.pack16(lanes.view(np.int16).reshape(1, -1))[0]
    pkt16 = ina.INA(ina.encode(7, 3, ina.FLAG_LANES16, 0, 0, 1, words16))
    assert pkt16[ina.data_layer(count, 16)].lanes == lanes.view(np.int16).tolist()


def test_lanes_for_an_mtu_fill_it_in_powers_of_two():
    assert [ina.lanes_for_mtu(m) for m in (1500, 4096, 9000, 65535)] == \
        [ina.LANES, 512, 2048, 4096]
    for mtu in (1500, 4096, 9000):
        lanes = ina.lanes_for_mtu(mtu)
        assert 20 + 8 + ina.payload_bytes(lanes) <= mtu < 20 + 8 + 13 + 4 * 2 * lanes
    assert 2 * 4096 > ina.MAX_LANES == 255 * ina.GROUP_WORDS     # the header counts 255
    # a packet carries whole 32-word groups: an MTU with room for fewer words is refused
    for mtu in (40, 100, 168):
        with pytest.raises(ValueError, match=f"MTU {mtu} B carries no INA lane group: it "
                           "needs at least 169 B"):
            ina.lanes_for_mtu(mtu)
    assert ina.lanes_for_mtu(169) == ina.GROUP_WORDS
    with pytest.raises(ValueError, match="16384 lanes per packet: accepted 1..8160"):
        ina.payload_bytes(16384)
    # whole groups instead: the most that fit, a group more does not
    for mtu, lanes in ((1500, 352), (4096, 992), (9000, 2208)):
        assert ina.lanes_for_mtu(mtu, whole_groups=True) == lanes
        assert 20 + 8 + ina.payload_bytes(lanes) <= mtu < 20 + 8 + ina.payload_bytes(lanes + 32)
    with pytest.raises(ValueError, match="MTU 100 B carries no INA lane group: it needs at "
                       "least 169 B"):
        ina.lanes_for_mtu(100, whole_groups=True)
    assert ina.data_layer(ina.LANES) is ina.INAData and ina.data_layer(512) is ina.data_layer(512)


def test_decode_round_trip_and_scapy_dissection():
    lanes = _lanes(2)
    payload = ina.encode(1, 2, ina.FLAG_RESULT, 0x8001, 5, 99, lanes, n_workers=3)
    header, got = ina.decode(payload)
    assert header == ina.Header(1, 2, ina.FLAG_RESULT, 3, 0x8001, 5, 99, groups=8)
    assert got.dtype == np.int32 and np.array_equal(got, lanes)
    pkt = Ether(ina.frame("00:00:00:00:00:01", "00:00:00:00:00:02", "10.0.0.1", "10.0.0.2",
                          payload))
    assert pkt[ina.INA].slot == 0x8001 and pkt[ina.INA].exponent == 5
    assert pkt[ina.INAData].lanes == lanes.tolist()


def test_decode_rejects_wrong_sizes():
    good = ina.encode(1, 0, 1, 0, 0, 0, np.zeros(ina.LANES, np.int32))
    for bad in (good[:-1], good + b"\0", good + bytes(4), b""):
        with pytest.raises(ValueError, match=f"{ina.PAYLOAD_BYTES} full size"):
            ina.decode(bad)
    jumbo = ina.encode(1, 0, 1, 0, 0, 0, np.arange(512, dtype=np.int32))
    with pytest.raises(ValueError, match=r"of up to 256 lanes must be 13 \+ 4 x 1..256 bytes "
                       r"\(1037 full size\), got 2061"):
        ina.decode(jumbo)
    assert np.array_equal(ina.decode(jumbo, 512)[1], np.arange(512))


def test_a_short_packet_decodes_at_its_length_and_its_count_must_match():
    short = ina.encode(1, 0, 1, 0, 0, 0, np.arange(40, dtype=np.int32))
    header, lanes = ina.decode(short)
    assert header.groups == 2 and np.array_equal(lanes, np.arange(40))
    wrong = short[:12] + b"\x01" + short[13:]
    with pytest.raises(ValueError, match="payload of 40 lanes says 1 groups of 32 words; 2 "
                       "carry them"):
        ina.decode(wrong)
    assert ina.decode_any(ina.encode(1, 0, 1, 0, 0, 0, None))[0].groups == 0
    assert ina.group_words(1) == ina.group_words(32) == 32 and ina.group_words(33) == 64


def test_frame_matches_scapy_headers():
    payload = ina.encode(1, 0, 1, 3, -1, 42, _lanes(3))
    fast = ina.frame("0a:00:00:00:00:01", "0a:00:00:00:00:fe", "10.0.1.1", "10.0.255.1",
                     payload, ttl=63)
    ref = (Ether(src="0a:00:00:00:00:01", dst="0a:00:00:00:00:fe")
           / IP(src="10.0.1.1", dst="10.0.255.1", ttl=63, flags="DF", id=0)
           / UDP(sport=ina.UDP_PORT, dport=ina.UDP_PORT, chksum=0) / payload)
    assert fast == bytes(ref)
    assert ina.frame_addresses(fast) == ("10.0.1.1", "10.0.255.1")


def test_lane_count_is_checked():
    with pytest.raises(ValueError, match="exactly"):
        ina.INAData.of([1, 2, 3])
