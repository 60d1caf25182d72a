"""Values of match fields and action parameters: one reader for every way they are written."""
import pytest

from testbed.p4runtime.values import (is_mac, parse_ipv4, parse_ipv6, parse_mac, parse_prefix,
                                      parse_value)


@pytest.mark.parametrize("text, value", [
    (42, 42), ("42", 42), (" 010 ", 10), ("0x0800", 0x0800), ("0X1f", 0x1F), ("0b101", 5),
    ("-1", -1), ("10.0.1.1", 0x0A000101), ("08:00:00:00:01:11", 0x080000000111),
    ("AA:bb:CC:dd:EE:ff", 0xAABBCCDDEEFF), ("fd00::1", 0xFD00 << 112 | 1), ("::", 0),
    ("2001:db8::ff00:42:8329", 0x20010DB8000000000000FF0000428329),
    ("::ffff:10.0.1.1", 0xFFFF0A000101)])
def test_every_written_form_reads_as_its_integer(text, value):
    assert parse_value(text) == value


@pytest.mark.parametrize("text", ["10.0.1.x", "10.0.1", "1:2:3:4:5:6", "08-00-00-00-01-11",
                                  "fd00::1::2", "0xZZ", "", "ten", True, None, 1.5, [1]])
def test_anything_else_says_what_to_write(text):
    with pytest.raises(ValueError) as err:
        parse_value(text)
    assert repr(text) in str(err.value)
    assert "IPv4 address (10.0.1.1)" in str(err.value) and "IPv6 address" in str(err.value)


def test_typed_readers_name_their_kind():
    assert parse_ipv4("192.168.0.1") == 0xC0A80001
    assert parse_ipv6("fe80::1") == 0xFE80 << 112 | 1
    assert parse_mac(" 02:00:00:00:00:01 ") == 0x020000000001
    assert is_mac("02:00:00:00:00:01") and not is_mac("02:00:00:00:00") and not is_mac(1)
    for reader, text, kind in ((parse_ipv4, "fd00::1", "IPv4"), (parse_ipv6, "10.0.0.1", "IPv6"),
                               (parse_mac, "0800000001:11", "MAC"), (parse_ipv4, 7, "IPv4")):
        with pytest.raises(ValueError, match=f"is not an? {kind} address; write"):
            reader(text)


@pytest.mark.parametrize("given, prefix", [
    (["10.0.1.0", 24], (0x0A000100, 24)), (("10.0.1.1", "32"), (0x0A000101, 32)),
    ("10.0.1.0/24", (0x0A000100, 24)), (" 0.0.0.0/0 ", (0, 0)),
    ("fd00::/64", (0xFD00 << 112, 64)), ("2001:db8::1/128", (0x20010DB8 << 96 | 1, 128)),
    (["fd00::", 8], (0xFD00 << 112, 8))])
def test_prefixes_as_pairs_or_address_slash_length(given, prefix):
    assert parse_prefix(given) == prefix


@pytest.mark.parametrize("given, words", [
    ("10.0.1.1/24", "has host bits set"), ("fd00::1/64", "has host bits set"),
    ("10.0.1.0/33", "10.0.1.0/33"), ("10.0.1.0", "is not a prefix"), (["10.0.1.0"], "is not a prefix"),
    (24, "is not a prefix")])
def test_bad_prefixes_say_what_to_write(given, words):
    with pytest.raises(ValueError) as err:
        parse_prefix(given)
    assert words in str(err.value) and "'ADDRESS/LENGTH' (10.0.1.0/24, fd00::/64)" in str(err.value)
