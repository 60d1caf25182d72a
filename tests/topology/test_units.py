import pytest

from testbed.errors import TrainetError
from testbed.units import (UnitError, duration_text, format_duration, format_rate, format_size,
                           parse_count, parse_duration, parse_fraction, parse_rate, parse_size,
                           rate_text)


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


# Every form the documentation shows: README.md, the experiment and topology docstrings
# and experiment files, the profiles' sources, `trainet switch --port-shape` and
# `trainet up`'s shape verb, the CLI's defaults.
@pytest.mark.parametrize("text, bps", [
    ("100Gbit", 100e9), ("200Gbit", 200e9), ("25Mbit", 25e6), ("8Mbps", 8e6),
    ("100 Gb/s", 100e9), ("200 Gb/s", 200e9), ("400 Gb/s", 400e9), ("1.6 Tb/s", 1.6e12),
    ("1 Gb/s", 1e9), ("100 Mb/s", 100e6), ("20 Mb/s", 20e6), ("2 Mb/s", 2e6),
    ("80 kb/s", 80e3), ("100 GB/s", 800e9), ("25 GB/s", 200e9), ("4 GB/s", 32e9),
    ("100mbit", 100e6), ("10mbit", 10e6), ("5mbit", 5e6), ("1.5gbit", 1.5e9),
    ("64kbit", 64e3), ("100000000bit", 100e6), ("100MBIT", 100e6), ("1 Gbit/s", 1e9)])
def test_every_documented_rate(text, bps):
    assert parse_rate(text) == pytest.approx(bps)


@pytest.mark.parametrize("text, seconds", [
    ("5ms", 5e-3), ("1ms", 1e-3), ("5us", 5e-6), ("500us", 5e-4), ("0s", 0.0), ("60s", 60.0),
    ("120s", 120.0), ("600s", 600.0), ("0.25s", 0.25), ("3 µs", 3e-6), ("0.25 ns", 2.5e-10),
    ("100 ms", 0.1), ("20 ms", 0.02), ("5MS", 5e-3)])
def test_every_documented_duration(text, seconds):
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text, nbytes", [
    ("9000", 9000), ("64KiB", 65536), ("32kb", 32_000), ("64kb", 64_000), ("256kb", 256_000),
    ("256kib", 262_144), ("15 KB", 15_000), ("350 GB", 350 * 10**9), ("1500 B", 1500),
    ("2mib", 2**21)])
def test_every_documented_size_in_any_case(text, nbytes):
    assert parse_size(text) == nbytes


@pytest.mark.parametrize("text, fraction", [
    ("1%", 0.01), ("0.5%", 0.005), ("0.01", 0.01), ("0.002", 0.002), ("1.99%", 0.0199),
    ("0", 0.0), ("100%", 1.0)])
def test_fractions(text, fraction):
    assert parse_fraction(text) == pytest.approx(fraction)


@pytest.mark.parametrize("text, message", [
    ("lots", "'lots' is not a probability; write a fraction (0.01) or a percentage (1%)"),
    ("1.5", "'1.5' is outside [0, 1] (0%..100%)"), ("150%", "is outside [0, 1]"),
    ("1 pc", "is not a probability")])
def test_bad_fractions_say_what_to_write(text, message):
    with pytest.raises(UnitError) as err:
        parse_fraction(text)
    assert message in str(err.value)


@pytest.mark.parametrize("text, count", [
    ("6.7B", 6.7e9), ("6.7e9", 6.7e9), ("1.3e9", 1.3e9), ("175B", 175e9), ("1.3b", 1.3e9),
    ("20G", 20e9), ("350M", 350e6), ("125m", 125e6), ("20k", 20e3), ("1T", 1e12),
    (135168, 135168)])
def test_counts(text, count):
    assert parse_count(text) == pytest.approx(count)


def test_bad_counts_say_what_to_write():
    with pytest.raises(UnitError, match=r"'6\.7X' is not a count: unknown unit 'X'; write "
                                        r"a number, optionally with k, M, B"):
        parse_count("6.7X")


def test_tc_style_rates_refuse_bps_which_tc_reads_as_bytes():
    assert parse_rate("100mbit", tc_style=True) == 100e6
    assert parse_rate("1MB/s", tc_style=True) == 8e6
    for text in ("10mbps", "10Mbps", "10MBps", "10bps"):
        with pytest.raises(UnitError, match="tc reads it as bytes per second"):
            parse_rate(text, tc_style=True)
    with pytest.raises(UnitError, match="'10' needs a unit; write a number and a unit: bit, "
                                        "kbit"):
        parse_rate("10", tc_style=True)


@pytest.mark.parametrize("value", [0.5, 800, 1234.5, 80e3, 25e6, 1.6e12])
def test_what_the_testbed_prints_reads_back(value):
    assert parse_rate(format_rate(value)) == pytest.approx(value, rel=5e-3)
    assert parse_size(format_size(value)) == pytest.approx(value, rel=5e-3, abs=0.5)
    seconds = value * 1e-9
    assert parse_duration(format_duration(seconds)) == pytest.approx(seconds, rel=5e-3)
