"""The one grammar of bit rates, byte sizes, durations, fractions and counts as text,
and their formatting: topology and experiment specs, the switch's ``--port-shape``, the
``trainet up`` console and the benchmarks all read values here.

Values are held in SI base units everywhere in the testbed: bits per second, bytes,
seconds (floats). Text always carries a unit.

Rates follow the networking convention: a lower-case ``b`` is bits and an upper-case
``B`` is bytes, so ``8Mbps`` and ``8Mbit`` are 8 megabits per second while ``8MBps`` and
``8MB/s`` are 8 megabytes per second; ``bit`` may be written in any case (``100MBIT``),
as tc does. (tc reads ``mbps`` as megabytes per second; pass tc explicit ``bit`` units,
never text from here unconverted, and read tc-style text with ``tc_style``.) Rate
prefixes are decimal. Sizes are bytes whatever the case of their unit (``32kb`` is
32 KB, as in tc) and accept decimal (``KB``, ``MB``) and binary (``KiB``, ``MiB``)
prefixes. Durations take ``s``, ``ms``, ``us`` (``µs``) and ``ns`` in any case. Fractions
are ``0.01`` or ``1%``. Counts (parameters of a model) take k, M, B (or G, billions) and
T in any case: ``6.7B``, ``1.3e9``.
"""
from __future__ import annotations

import re

from testbed.errors import TrainetError


class UnitError(TrainetError, ValueError):
    """A value with a missing or unknown unit. Also a ValueError so model validation
    reports it against the offending field."""


_NUMBER = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([^\s0-9].*?)?\s*$")

_DECIMAL = {"": 1.0, "k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6, "g": 1e9, "G": 1e9,
            "t": 1e12, "T": 1e12}

RATE_UNITS: dict[str, float] = {}
for _p, _f in _DECIMAL.items():
    for _suffix in ("bit", "bps", "b/s", "bit/s"):
        RATE_UNITS[_p + _suffix] = _f
    if _p not in ("m", "g", "t"):       # "mBps" would be milli-bytes: not offered
        for _suffix in ("Bps", "B/s"):
            RATE_UNITS[_p + _suffix] = _f * 8

SIZE_UNITS: dict[str, int] = {"B": 1, "KB": 10**3, "kB": 10**3, "MB": 10**6, "GB": 10**9,
                              "TB": 10**12, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30,
                              "TiB": 2**40}

DURATION_UNITS: dict[str, float] = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6,
                                    "ns": 1e-9}

COUNT_UNITS: dict[str, float] = {"k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}

RATE_HELP = "a number and a unit: bit, Kbit, Mbit, Gbit, Tbit (= bps, Kbps, Mbps, Gbps, " \
            "Tbps, b/s, Gb/s) or bytes/s: Bps, KBps, MBps, GBps, MB/s, GB/s; e.g. '25Mbit', " \
            "'100Gbit', '8Mbps'"
TC_RATE_HELP = "a number and a unit: bit, kbit, mbit, gbit, tbit (in any case) or bytes per " \
               "second: KB/s, MB/s, GB/s; e.g. '100mbit'"
SIZE_HELP = "a number of bytes, optionally with a unit: B, KB, MB, GB, TB, KiB, MiB, GiB, " \
            "TiB (in any case); e.g. '9000', '64KiB', '32kb'"
DURATION_HELP = "a number and a unit: s, ms, us (or µs), ns; e.g. '2ms', '1us'"
FRACTION_HELP = "a fraction (0.01) or a percentage (1%)"
COUNT_HELP = "a number, optionally with k, M, B (billions) or T; e.g. '6.7B', '1.3e9'"


def _split(text, what: str, help_text: str) -> tuple[float, str]:
    """The number and the unit text of ``text``; UnitError if it starts with no number."""
    if isinstance(text, bool) or not isinstance(text, (str, int, float)):
        raise UnitError(f"{text!r} is not {what}; write {help_text}")
    match = _NUMBER.match(str(text))
    if not match:
        raise UnitError(f"{text!r} is not {what}; write {help_text}")
    return float(match.group(1)), match.group(2) or ""


def _factor(text, unit: str, table: dict, what: str, help_text: str,
            any_case: bool = False) -> float:
    if unit == "":
        raise UnitError(f"{text!r} needs a unit; write {help_text}")
    factor = table.get(unit.lower() if any_case else unit)
    if factor is None:
        raise UnitError(f"{text!r} is not {what}: unknown unit {unit!r}; write {help_text}")
    return factor


def parse_rate(text, tc_style: bool = False) -> float:
    """'25Mbit' -> 25e6 (bits per second). A bare number is refused (which unit?), except 0.
    ``tc_style`` text (the switch's --port-shape) may not say bps: tc reads it as bytes
    per second, the rest of the testbed as bits."""
    help_text = TC_RATE_HELP if tc_style else RATE_HELP
    value, unit = _split(text, "a bit rate", help_text)
    if unit == "" and value == 0:
        return 0.0
    if tc_style and unit.lower().endswith("bps"):
        raise UnitError(f"{text!r}: unknown unit {unit!r} here (tc reads it as bytes per "
                        f"second, the rest of trainet as bits); write {help_text}")
    for suffix in ("bit", "bit/s"):
        if unit.lower().endswith(suffix):
            unit = unit[:-len(suffix)] + suffix
    return value * _factor(text, unit, RATE_UNITS, "a bit rate", help_text)


_SIZE_ANY_CASE = {unit.lower(): factor for unit, factor in SIZE_UNITS.items()}


def parse_size(text) -> int:
    """'9000' or '64KiB' -> bytes. A bare number means bytes."""
    value, unit = _split(text, "a size", SIZE_HELP)
    if unit == "":
        return round(value)
    return round(value * _factor(text, unit, _SIZE_ANY_CASE, "a size", SIZE_HELP, True))


def parse_duration(text) -> float:
    """'2ms' -> 0.002 (seconds). A bare number is refused (which unit?), except 0."""
    value, unit = _split(text, "a duration", DURATION_HELP)
    if unit == "" and value == 0:
        return 0.0
    return value * _factor(text, unit, DURATION_UNITS, "a duration", DURATION_HELP, True)


def parse_fraction(text) -> float:
    """'1%' or '0.01' -> 0.01, within [0, 1]."""
    value, unit = _split(text, "a probability", FRACTION_HELP)
    if unit not in ("", "%"):
        raise UnitError(f"{text!r} is not a probability; write {FRACTION_HELP}")
    fraction = value / 100 if unit == "%" else value
    if not 0.0 <= fraction <= 1.0:
        raise UnitError(f"{text!r} is outside [0, 1] (0%..100%); write {FRACTION_HELP}")
    return fraction


def parse_count(text) -> float:
    """'6.7B' -> 6.7e9, '1.3e9' -> 1.3e9, '350M' -> 3.5e8."""
    value, unit = _split(text, "a count", COUNT_HELP)
    if unit == "":
        return value
    return value * _factor(text, unit, COUNT_UNITS, "a count", COUNT_HELP, True)


def _scaled(value: float, steps: tuple[tuple[float, str], ...]) -> str:
    """Print with the largest unit that keeps the number at least 1 (3 significant digits)."""
    if value == 0:
        return f"0 {steps[-1][1]}"
    for factor, unit in steps:
        if abs(value) >= factor:
            break
    return f"{value / factor:.3g} {unit}"


def format_rate(bps: float) -> str:
    """25e6 -> '25 Mb/s'."""
    return _scaled(bps, ((1e12, "Tb/s"), (1e9, "Gb/s"), (1e6, "Mb/s"), (1e3, "kb/s"),
                         (1.0, "b/s")))


def format_size(nbytes: float) -> str:
    """1.5e6 -> '1.5 MB' (decimal prefixes)."""
    return _scaled(nbytes, ((1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB"), (1.0, "B")))


def format_duration(seconds: float) -> str:
    """0.002 -> '2 ms'."""
    if seconds == 0:
        return "0 s"
    return _scaled(seconds, ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns")))


def rate_text(bps: float) -> str:
    """A rate as parseable text without spaces ('25Mbit'), for writing specs back out."""
    for factor, unit in ((1e12, "Tbit"), (1e9, "Gbit"), (1e6, "Mbit"), (1e3, "Kbit")):
        if bps >= factor and (bps / factor) == round(bps / factor, 6):
            return f"{bps / factor:g}{unit}"
    return f"{bps:g}bit"


def duration_text(seconds: float) -> str:
    """A duration as parseable text without spaces ('2ms'), for writing specs back out."""
    if seconds == 0:
        return "0s"
    for factor, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "us")):
        if seconds >= factor:
            return f"{round(seconds / factor, 9):g}{unit}"
    return f"{round(seconds * 1e9, 6):g}ns"
