"""The ``--port-shape`` text: how the network tells a switch process what its egress
model does on a port, written and read here only.

``PORT:KEY=VALUE[,KEY=VALUE...]``: the network writes it for each shaped port of a
switch it starts (:func:`port_shape_argument`, from testbed/net/shaping.py's share of a
link), ``trainet switch --port-shape`` reads it into the egress model's
:class:`~testbed.switch.egress.Shape` (:func:`parse_port_shape`), and a user may write it
by hand with any of the keys :data:`SHAPE_HELP` lists.
"""
from __future__ import annotations

from testbed.errors import TrainetError
from testbed.switch.egress import Shape
from testbed.units import UnitError, parse_duration, parse_fraction, parse_rate, parse_size

SHAPE_HELP = ("PORT:KEY=VALUE[,KEY=VALUE...] with rate=100mbit (bit/kbit/mbit/gbit per "
              "second), burst=32kb (b/kb/kib/mb/mib), delay=5ms, jitter=1ms (us/ms/s), "
              "loss=0.01 or 1%, reorder=0.5%, queue=1000 (packets) or queue=256kb (bytes)")


def port_shape_text(rate_bps: float = 0.0, delay_s: float = 0.0, jitter_s: float = 0.0,
                    loss: float = 0.0, queue_packets: int = 1000) -> str:
    """The ``KEY=VALUE`` pairs of a port's shape, with units; empty when it shapes
    nothing (then the queue is left at the switch's default too)."""
    parts = []
    if rate_bps:
        parts.append(f"rate={int(rate_bps)}bit")
    if delay_s:
        parts.append(f"delay={delay_s * 1e6:.0f}us")
    if jitter_s:
        parts.append(f"jitter={jitter_s * 1e6:.0f}us")
    if loss:
        parts.append(f"loss={loss * 100:.6g}%")
    if parts:
        parts.append(f"queue={queue_packets}")
    return ",".join(parts)


def port_shape_argument(port: int, text: str) -> str:
    """The value of one ``--port-shape``: the port and its shape's pairs."""
    return f"{port}:{text}"


def _read(where: str, parse, value: str):
    """``parse(value)`` (a reader of testbed.units), its UnitError said at ``where``."""
    try:
        return parse(value.strip())
    except UnitError as err:
        raise TrainetError(f"{where}: {err}") from None


def parse_port_shape(text: str) -> tuple:
    """``PORT:rate=100mbit,delay=5ms,...`` -> (port, Shape)."""
    port_text, sep, spec = text.partition(":")
    if not sep or not port_text.strip().isdigit() or not spec.strip():
        raise TrainetError(f"--port-shape {text!r}: expected {SHAPE_HELP}")
    port = int(port_text)
    fields = {}
    for item in spec.split(","):
        key, eq, value = item.partition("=")
        key = key.strip().lower()
        where = f"--port-shape {text!r}: {key or repr(item.strip())}"
        if not eq or not value.strip():
            raise TrainetError(f"{where}: expected KEY=VALUE")
        if key in fields:
            raise TrainetError(f"{where}: given twice")
        fields[key] = (where, value)
    kw = {}
    for key, (where, value) in fields.items():
        if key == "rate":
            kw["rate_bps"] = round(_read(where, lambda t: parse_rate(t, tc_style=True), value))
            if kw["rate_bps"] <= 0:
                raise TrainetError(f"{where}: the rate must be positive")
        elif key == "burst":
            kw["burst_bytes"] = _read(where, parse_size, value)
            if kw["burst_bytes"] < 1514:
                raise TrainetError(f"{where}: {value!r} is below one full-size frame; "
                                   "use at least 1514 bytes")
        elif key in ("delay", "jitter"):
            kw[f"{key}_ns"] = round(_read(where, parse_duration, value) * 1e9)
        elif key in ("loss", "reorder"):
            kw[key] = _read(where, parse_fraction, value)
        elif key == "queue":
            v = value.strip().lower()
            if v.rstrip("p").isdigit():
                kw["queue_packets"] = int(v.rstrip("p"))
                if kw["queue_packets"] < 1:
                    raise TrainetError(f"{where}: the queue must hold at least 1 packet")
            else:
                kw["queue_bytes"] = _read(where, parse_size, value)
                kw["queue_packets"] = 1 << 62
        else:
            raise TrainetError(f"{where}: unknown key; keys: rate, burst, delay, jitter, "
                               "loss, reorder, queue")
    if "burst_bytes" in kw and "rate_bps" not in kw:
        raise TrainetError(f"--port-shape {text!r}: burst needs a rate")
    if "jitter_ns" in kw and not kw.get("delay_ns"):
        raise TrainetError(f"--port-shape {text!r}: jitter needs a delay (e.g. delay=5ms)")
    if "reorder" in kw and not kw.get("delay_ns"):
        raise TrainetError(f"--port-shape {text!r}: reorder needs a delay to skip "
                           "(e.g. delay=5ms)")
    return port, Shape(**kw)
