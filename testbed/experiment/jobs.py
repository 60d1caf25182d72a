"""Aggregation jobs on an emulated network: their workers as its blueprint
(``testbed.net.blueprint.NetBlueprint``) places them, and a job installed on a switch of a
running ``testbed.net.network.Network`` for a block. Benchmarks, experiments and tests set their
INA and LuWu jobs up through here."""
from __future__ import annotations

from contextlib import contextmanager

from controllers import ina
from controllers.jobs import JobError, installed


def job_workers(blueprint, switch: str, hosts: list[str]) -> list[ina.Worker]:
    """Worker ``rank`` is ``hosts[rank]``, on its port of ``switch``, with the MAC and
    address the network blueprint gives it."""
    ports = {}
    for link in blueprint.links:
        for host, sw, port in ((link.a, link.b, link.b_port), (link.b, link.a, link.a_port)):
            if sw == switch:
                ports[host] = port
    hosts_by_name = {h.name: h for h in blueprint.hosts}
    missing = [h for h in hosts if h not in ports or h not in hosts_by_name]
    if missing:
        raise JobError(f"{', '.join(missing)}: not a host linked to {switch}; a job's "
                       "workers hang off the switch that aggregates")
    return [ina.Worker(rank, ports[h], hosts_by_name[h].mac, hosts_by_name[h].address)
            for rank, h in enumerate(hosts)]


@contextmanager
def job_on(net, switch: str, controller, job, *setup_args):
    """``job`` installed on ``switch`` of ``net`` by ``controller`` (controllers.ina,
    .luwu or .luwu_sgd) for the block, torn down after; yields the device."""
    node = net.net[switch]
    with installed(node.grpc_address, node.device_id, controller, job, *setup_args) as device:
        yield device
