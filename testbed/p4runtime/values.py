"""Values of match fields and action parameters as people write them, as the unsigned
integers P4Runtime carries.

Runtime JSON, topology specs, job files and the controllers all read values here: an
integer, a decimal or ``0x`` hex string (``0b``, ``0o`` too), a dotted IPv4 address, a MAC
address (six colon-separated hex bytes) or an IPv6 address; an lpm prefix as
``[value, prefix_len]`` or ``"ADDRESS/LENGTH"``. Each parser raises ValueError, so that
pydantic reports it against the offending field, with a message that says what to write.
"""
from __future__ import annotations

import ipaddress
import re

_MAC = re.compile(r"^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$")

VALUE_HELP = ("an integer, '0x..' hex, an IPv4 address (10.0.1.1), a MAC address "
              "(08:00:00:00:01:11) or an IPv6 address (fd00::1)")
PREFIX_HELP = "[value, prefix_len] or 'ADDRESS/LENGTH' (10.0.1.0/24, fd00::/64)"


def is_mac(text) -> bool:
    return isinstance(text, str) and bool(_MAC.match(text.strip()))


def parse_mac(text) -> int:
    """'08:00:00:00:01:11' -> 0x080000000111."""
    if not is_mac(text):
        raise ValueError(f"{text!r} is not a MAC address; write six hex bytes, e.g. "
                         "'08:00:00:00:01:11'")
    return int(text.strip().replace(":", ""), 16)


def parse_ipv4(text) -> int:
    """'10.0.1.1' -> 0x0a000101."""
    try:
        return int(ipaddress.IPv4Address(text.strip()))
    except (AttributeError, ValueError):
        raise ValueError(f"{text!r} is not an IPv4 address; write four decimal bytes, e.g. "
                         "'10.0.1.1'") from None


def parse_ipv6(text) -> int:
    """'fd00::1' -> 0xfd00 << 112 | 1."""
    try:
        return int(ipaddress.IPv6Address(text.strip()))
    except (AttributeError, ValueError):
        raise ValueError(f"{text!r} is not an IPv6 address; write e.g. 'fd00::1'") from None


def parse_value(value) -> int:
    """An int as it is; text as a number, IPv4, MAC or IPv6 address."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        text = value.strip()
        try:
            if is_mac(text):
                return parse_mac(text)
            if ":" in text:
                return parse_ipv6(text)
            if text.count(".") == 3:
                return parse_ipv4(text)
            return int(text) if text.isdigit() else int(text, 0)
        except ValueError:
            pass
    raise ValueError(f"{value!r} is not a value; write {VALUE_HELP}")


def parse_prefix(value) -> tuple[int, int]:
    """``[value, prefix_len]`` or 'ADDRESS/LENGTH' -> (value, prefix_len). Bits beyond the
    prefix are refused (P4Runtime refuses them too)."""
    if isinstance(value, (list, tuple)) and len(value) == 2:
        return parse_value(value[0]), parse_value(value[1])
    if not isinstance(value, str) or "/" not in value:
        raise ValueError(f"{value!r} is not a prefix; write {PREFIX_HELP}")
    try:
        network = ipaddress.ip_network(value.strip())
    except ValueError as err:
        raise ValueError(f"{value!r} is not a prefix ({err}); write {PREFIX_HELP}") from None
    return int(network.network_address), network.prefixlen


def unwrap_single(value):
    """``[v]`` -> ``v``: runtime JSON of the p4lang tutorials may give an exact (or any
    one-value) match as a one-element list, which their p4runtime_lib encodes as ``v``."""
    return value[0] if isinstance(value, list) and len(value) == 1 else value
