"""Which side of a link emulates what, and the tc commands that do it."""
import pytest

from testbed.net import shaping
from testbed.net.blueprint import LinkShape
from testbed.net.probe import Capabilities

NO_NETEM = Capabilities(root=True, qdiscs={"netem": False, "htb": True, "tbf": True},
                        mininet=True, ethtool="/usr/sbin/ethtool", iperf3=None, bmv2=None,
                        p4c=None).shaping_mode()
WITH_NETEM = Capabilities(root=True, qdiscs={"netem": True, "htb": True, "tbf": True},
                          mininet=True, ethtool=None, iperf3=None, bmv2=None,
                          p4c=None).shaping_mode()
NO_QDISCS = Capabilities(root=True, qdiscs={"netem": False, "htb": False, "tbf": False},
                         mininet=True, ethtool=None, iperf3=None, bmv2=None,
                         p4c=None).shaping_mode()

LINK = LinkShape(nominal_bps=100e9, rate_bps=100e6, delay_s=2e-3, jitter_s=1e-3, loss=0.01)


def test_without_netem_a_host_link_puts_both_directions_on_the_switch():
    host, switch = shaping.endpoint_shapes(LINK, False, True, NO_NETEM)
    assert host.kernel_rate_bps == 100e6 and not host.kernel_netem and not host.switch_shaped
    assert switch.kernel_rate_bps == 100e6
    assert switch.switch_delay_s == pytest.approx(4e-3)
    assert switch.switch_jitter_s == pytest.approx(2 ** 0.5 * 1e-3)
    assert switch.switch_loss == pytest.approx(1 - 0.99 ** 2)


def test_without_netem_a_switch_link_delays_each_direction_once():
    a, b = shaping.endpoint_shapes(LINK, True, True, NO_NETEM)
    assert a == b
    assert a.switch_delay_s == 2e-3 and a.switch_loss == pytest.approx(0.01)


def test_with_netem_every_side_shapes_in_the_kernel():
    host, switch = shaping.endpoint_shapes(LINK, False, True, WITH_NETEM)
    for side in (host, switch):
        assert side.kernel_delay_s == 2e-3 and side.kernel_loss == 0.01
        assert not side.switch_shaped
    cmds = shaping.tc_commands("s1-eth1", switch, WITH_NETEM.rate_qdisc)
    assert cmds[1].startswith("tc qdisc add dev s1-eth1 root handle 1: tbf rate 100000000bit")
    assert cmds[2] == ("tc qdisc add dev s1-eth1 parent 1:1 handle 10: netem limit 1000 "
                       "delay 2000us 1000us distribution normal loss 1.000000%")


def test_without_rate_qdiscs_the_switch_limits_the_rate():
    host, switch = shaping.endpoint_shapes(LINK, False, True, NO_QDISCS)
    assert host.kernel_rate_bps == 0 and switch.switch_rate_bps == 100e6
    assert shaping.switch_shape_text(switch) == \
        "rate=100000000bit,delay=4000us,jitter=1414us,loss=1.99%,queue=1000"


def test_htb_commands_give_rate_ceil_and_burst():
    side = shaping.EndpointShape(kernel_rate_bps=1e9, queue_packets=50)
    cmds = shaping.tc_commands("eth0", side, "htb")
    assert cmds[1:] == [
        "tc qdisc add dev eth0 root handle 1: htb default 1",
        "tc class add dev eth0 parent 1: classid 1:1 htb rate 1000000000bit ceil "
        "1000000000bit burst 64014b cburst 64014b quantum 1514",
        "tc qdisc add dev eth0 parent 1:1 handle 10: pfifo limit 50"]


def test_an_unshaped_side_only_clears_the_interface():
    assert shaping.tc_commands("eth0", shaping.EndpointShape()) == \
        ["tc qdisc del dev eth0 root 2>/dev/null"]
    assert shaping.switch_shape_text(shaping.EndpointShape()) == ""


def test_the_switch_parses_the_shape_text_we_give_it():
    from testbed.switch.port_shape import parse_port_shape
    _, switch = shaping.endpoint_shapes(LINK, False, True, NO_QDISCS)
    port, shape = parse_port_shape("3:" + shaping.switch_shape_text(switch))
    assert port == 3
    assert (shape.rate_bps, shape.delay_ns, shape.jitter_ns) == (100_000_000, 4_000_000,
                                                                 1_414_000)
    assert shape.loss == pytest.approx(0.0199)


def test_a_jumbo_link_sizes_the_bucket_queue_and_interface_by_its_mtu():
    shape = LinkShape(rate_bps=1e6, mtu=9000)
    host, switch = shaping.endpoint_shapes(shape, False, True, WITH_NETEM)
    assert host.mtu == switch.mtu == 9000
    cmds = shaping.tc_commands("eth0", host, "tbf")
    # one 9014-byte frame of burst and 0.5 ms of 1 Mb/s (63 B), 1000 frames queued
    assert cmds[1] == ("tc qdisc add dev eth0 root handle 1: tbf rate 1000000bit "
                       "burst 9077b limit 9023077b")
    assert shaping.tc_commands("eth0", host, "htb")[2].endswith("quantum 9014")
    assert shaping.mtu_commands("eth0", host) == ["ip link set dev eth0 mtu 9000"]
    assert shaping.mtu_commands("eth0", shaping.EndpointShape()) == []


def test_a_rate_bucket_holds_one_largest_frame_and_half_a_millisecond_of_the_rate():
    assert shaping.burst_bytes(1e6) == 1514 + 63
    assert shaping.burst_bytes(10e6, 4110) == 4110 + 625
    assert shaping.burst_bytes(1e9) == 1514 + 62500
    side = shaping.EndpointShape(kernel_rate_bps=10e6, mtu=4096)
    assert "burst 4735b" in shaping.tc_commands("eth0", side)[1]
    # a bucket given in place of the rule, as the shaper trial measures others
    assert "burst 9000b" in shaping.tc_commands("eth0", side, "tbf", 9000)[1]
