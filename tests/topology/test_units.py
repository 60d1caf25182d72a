import pytest

from testbed.errors import TrainetError
from testbed.units import (UnitError, duration_text, format_duration, format_rate, format_size,
                           parse_duration, parse_rate, parse_size, rate_text)


@pytest.mark.parametrize("text, bps", [
    ("100Gbit", 100e9), ("25Mbit", 25e6), ("8Mbps", 8e6), ("8 Mb/s", 8e6), ("1.5Kbit", 1500),
    ("10mbit", 10e6), ("200GB/s", 1.6e12), ("1MBps", 8e6), ("1e3bit", 1000), (0, 0.0)])
def test_parse_rate(text, bps):
    assert parse_rate(text) == pytest.approx(bps)


@pytest.mark.parametrize("text", ["100", "100Gbt", "fast", "", "-5Mbit", None, True, 25])
def test_parse_rate_refuses_without_a_known_unit(text):
    with pytest.raises(UnitError) as err:
        parse_rate(text)
    assert "Mbit" in str(err.value) and repr(text) in str(err.value)


def test_unit_error_is_user_facing_and_a_value_error():
    assert issubclass(UnitError, TrainetError) and issubclass(UnitError, ValueError)


@pytest.mark.parametrize("text, seconds", [
    ("2ms", 2e-3), ("1us", 1e-6), ("1µs", 1e-6), ("100ns", 1e-7), ("0.5 s", 0.5), (0, 0.0)])
def test_parse_duration(text, seconds):
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["2", "2 min", "ms"])
def test_parse_duration_needs_a_unit(text):
    with pytest.raises(UnitError, match="ms"):
        parse_duration(text)


@pytest.mark.parametrize("text, nbytes", [
    ("9000", 9000), (1500, 1500), ("64KiB", 65536), ("1.5MB", 1_500_000), ("1GiB", 2**30)])
def test_parse_size(text, nbytes):
    assert parse_size(text) == nbytes


def test_parse_size_unknown_unit():
    with pytest.raises(UnitError, match="KiB"):
        parse_size("3 pages")


def test_formatting_carries_units():
    assert format_rate(200e9) == "200 Gb/s"
    assert format_rate(20e6) == "20 Mb/s"
    assert format_rate(800) == "800 b/s"
    assert format_rate(0) == "0 b/s"
    assert format_size(1.5e6) == "1.5 MB"
    assert format_duration(2e-3) == "2 ms"
    assert format_duration(1e-6) == "1 µs"
    assert format_duration(5e-10) == "0.5 ns"
    assert format_duration(0) == "0 s"


@pytest.mark.parametrize("bps", [25e6, 1.6e12, 800, 8e6, 1234.5])
def test_rate_text_round_trips(bps):
    assert parse_rate(rate_text(bps)) == pytest.approx(bps)


@pytest.mark.parametrize("seconds", [0, 2e-3, 1e-6, 1.5e-9, 0.05, 2.5])
def test_duration_text_round_trips(seconds):
    assert parse_duration(duration_text(seconds)) == pytest.approx(seconds)
