"""``trainet switch`` arguments: ports and the egress-model syntax."""
import pytest

from testbed.cli import main
from testbed.errors import TrainetError
from testbed.switch.commands import parse_interface
from testbed.switch.egress import Shape
from testbed.switch.port_shape import parse_port_shape, port_shape_argument, port_shape_text


def test_interface_syntax():
    assert parse_interface("1@s1-eth1") == (1, "s1-eth1")
    for bad in ("s1-eth1", "x@s1-eth1", "1@", "@s1"):
        with pytest.raises(TrainetError, match="PORT@IFACE"):
            parse_interface(bad)


def test_full_shape():
    port, shape = parse_port_shape(
        "3:rate=100mbit,burst=64kb,delay=5ms,jitter=500us,loss=1%,reorder=0.002,queue=500")
    assert port == 3
    assert shape == Shape(rate_bps=100_000_000, burst_bytes=64_000, delay_ns=5_000_000,
                          jitter_ns=500_000, loss=0.01, reorder=0.002, queue_packets=500)


def test_the_text_the_network_writes_reads_back_as_written():
    """One module writes and reads the format: what it writes for a port parses to the
    same shape, to the microsecond and the ppm the text carries; nothing shaped is no
    text at all."""
    text = port_shape_text(rate_bps=25e6, delay_s=0.0015, jitter_s=0.0002, loss=0.005,
                           queue_packets=64)
    assert text == "rate=25000000bit,delay=1500us,jitter=200us,loss=0.5%,queue=64"
    port, shape = parse_port_shape(port_shape_argument(4, text))
    assert port == 4
    assert shape == Shape(rate_bps=25_000_000, delay_ns=1_500_000, jitter_ns=200_000,
                          loss=pytest.approx(0.005), queue_packets=64)
    assert port_shape_text(queue_packets=64) == ""


def test_units():
    assert parse_port_shape("1:rate=1.5gbit")[1].rate_bps == 1_500_000_000
    assert parse_port_shape("1:rate=64kbit")[1].rate_bps == 64_000
    assert parse_port_shape("1:delay=0.25s")[1].delay_ns == 250_000_000
    shape = parse_port_shape("1:rate=10mbit,queue=256kib")[1]
    assert shape.queue_bytes == 262_144
    assert parse_port_shape("1:rate=10mbit,burst=2000")[1].burst_bytes == 2000
    assert parse_port_shape("1:rate=10mbit,queue=20p")[1].queue_packets == 20


@pytest.mark.parametrize("spec, message", [
    ("1:rate=10mbps", r"rate: '10mbps': unknown unit 'mbps' here \(tc reads it as bytes "
                      r"per second.*write a number and a unit: bit, kbit, mbit"),
    ("1:rate=10Mbps", r"rate: '10Mbps': unknown unit 'Mbps' here"),
    ("1:rate=10", r"rate: '10' needs a unit; write a number and a unit: bit, kbit"),
    ("1:delay=5", r"delay: '5' needs a unit; write a number and a unit: s, ms, us"),
    ("1:delay=fast", r"delay: 'fast' is not a duration; write a number and a unit"),
    ("1:burst=3pages,rate=1mbit", r"burst: '3pages' is not a size: unknown unit 'pages'"),
    ("1:loss=1.5", r"loss: '1.5' is outside \[0, 1\]"),
    ("1:loss=lots", r"loss: 'lots' is not a probability"),
    ("1:speed=1mbit", r"speed: unknown key; keys: rate"),
    ("1:rate=1mbit,rate=2mbit", r"rate: given twice"),
    ("1:rate", r": rate: expected KEY=VALUE"),
    ("rate=1mbit", r"expected PORT:KEY=VALUE"),
    ("1:jitter=1ms", r"jitter needs a delay"),
    ("1:burst=10kb", r"burst needs a rate"),
    ("1:rate=1mbit,burst=100", r"below one full-size frame"),
    ("1:rate=1mbit,queue=0", r"at least 1 packet"),
])
def test_shape_errors_say_where_and_what(spec, message):
    with pytest.raises(TrainetError, match=message) as info:
        parse_port_shape(spec)
    assert str(info.value).startswith(f"--port-shape {spec!r}")


def test_cli_reports_bad_arguments_without_traceback(capsys):
    assert main(["switch", "--no-p4", "-i", "1@eth-none", "--port-shape", "1:rate=1"]) == 2
    assert "needs a unit" in capsys.readouterr().err
    assert main(["switch", "-i", "1@eth-none"]) == 2
    assert "give a P4 program or --no-p4" in capsys.readouterr().err
    assert main(["switch", "--no-p4", "-i", "1@a", "-i", "1@b"]) == 2
    assert "port number is given twice" in capsys.readouterr().err
