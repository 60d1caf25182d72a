"""Aggregation jobs on an emulated network: their workers as its plan
(``testbed.net.plan.NetPlan``) places them, and a job installed on a switch of a running
``testbed.net.network.Network`` for a block. Benchmarks, experiments and tests set their
INA and LuWu jobs up through here."""
from __future__ import annotations

from contextlib import contextmanager

from controllers import ina
from controllers.jobs import JobError, installed


def job_workers(plan, switch: str, hosts: list[str]) -> list[ina.Worker]:
    """Worker ``rank`` is ``hosts[rank]``, on its port of ``switch``, with the MAC and
    address the network plan gives it."""
    ports = {}
    for link in plan.links:
        for host, sw, port in ((link.a, link.b, link.b_port), (link.b, link.a, link.a_port)):
            if sw == switch:
                ports[host] = port
    plans = {h.name: h for h in plan.hosts}
    missing = [h for h in hosts if h not in ports or h not in plans]
    if missing:
        raise JobError(f"{', '.join(missing)}: not a host linked to {switch}; a job's "
                       "workers hang off the switch that aggregates")
    return [ina.Worker(rank, ports[h], plans[h].mac, plans[h].address)
            for rank, h in enumerate(hosts)]


@contextmanager
def job_on(net, switch: str, controller, job, *setup_args):
    """``job`` installed on ``switch`` of ``net`` by ``controller`` (controllers.ina,
    .luwu or .luwu_sgd) for the block, torn down after; yields the device."""
    node = net.net[switch]
    with installed(node.grpc_address, node.device_id, controller, job, *setup_args) as device:
        yield device
