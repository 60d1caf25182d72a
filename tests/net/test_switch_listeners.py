"""The switch nodes of a network serve P4Runtime on 127.0.0.1, where the controllers
connect, never on every interface of the machine."""
from pathlib import Path
from types import SimpleNamespace

from testbed.cli import build_parser
from testbed.net.nodes import Bmv2Switch, P4Switch, SoftwareP4Switch


def _node(**kw):
    node = SimpleNamespace(name="s1", device_id=1, grpc_port=50001, cpu_port=None, pcap=False,
                           shapes={}, p4_path=Path("basic.p4"), json_path=Path("basic.json"),
                           log_path=Path("s1.log"), stats_path=Path("s1.stats.json"),
                           data_ports=lambda: {1: "s1-eth1"}, **kw)
    node.grpc_address = P4Switch.grpc_address.fget(node)
    return node


def test_bmv2_listens_where_the_controllers_connect():
    cmd = Bmv2Switch.command(_node())
    assert cmd[cmd.index("--grpc-server-addr") + 1] == "127.0.0.1:50001"


def test_the_software_switch_keeps_its_loopback_default():
    args = build_parser().parse_args(SoftwareP4Switch.command(_node())[3:])
    assert (args.grpc_address, args.grpc_port) == ("127.0.0.1", 50001)
