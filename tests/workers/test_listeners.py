"""The host-side services listen on one address, never on every interface: by default
127.0.0.1, and on an emulated host the host's own address, which the launcher passes."""
import sys

import pytest

from hosts.addresses import local_address
from hosts.ina_allreduce import UdpTransport
from hosts.param_server import ParameterServer
from hosts.strategies import registry
from testbed.experiment.launch import service_command


@pytest.mark.parametrize("strategy", ["ps", "luwu", "luwu-resident"])
def test_the_launcher_binds_each_service_to_its_host_address(tmp_path, strategy):
    cmd = service_command(registry.get(strategy), 2, {"model": "mlp", "ina_job": 1},
                          "10.0.1.4", 29500, tmp_path, 60)
    assert cmd[:2] == [sys.executable, "-m"]
    flags = dict(zip(cmd[3::2], cmd[4::2]))
    assert flags["--bind"] == "10.0.1.4"


def test_the_parameter_server_listens_on_loopback_by_default():
    server = ParameterServer(0, workers=1, timeout_s=1)
    try:
        assert server.listener.getsockname()[0] == "127.0.0.1"
    finally:
        server.listener.close()


def test_a_worker_receives_on_its_own_address_towards_the_aggregator():
    transport = UdpTransport("127.0.0.1", port=0)
    try:
        assert transport.sock.getsockname()[0] == local_address("127.0.0.1") == "127.0.0.1"
    finally:
        transport.close()
