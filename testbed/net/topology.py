"""From a topology spec (YAML, tutorials topology.json, or a Topology object) to the
:class:`~testbed.net.blueprint.NetBlueprint` the network builds: interface ports, emulated rates
(co-scaled), one-way delays and loss fractions, and the fabric's one MTU."""
from __future__ import annotations

import json
from pathlib import Path

from testbed.errors import TrainetError
from testbed.net.blueprint import (HostBlueprint, LinkBlueprint, LinkShape, NetBlueprint,
                                   SwitchBlueprint)


def _host_mac(index: int) -> str:
    """A locally administered MAC for hosts the spec gives none."""
    return "02:00:00:%02x:%02x:%02x" % ((index >> 16) & 0xFF, (index >> 8) & 0xFF, index & 0xFF)


def blueprint_from_topology(topo, source: str = "<topology>") -> NetBlueprint:
    hosts = []
    for i, h in enumerate(topo.hosts):
        hosts.append(HostBlueprint(name=h.name, ip=str(h.ip), mac=h.mac or _host_mac(i + 1),
                                   gateway=str(h.gateway) if h.gateway else None,
                                   gateway_mac=h.gateway_mac, commands=list(h.commands)))
    switches = []
    for s in topo.switches:
        runtime = s.runtime.model_dump(mode="json", exclude_none=True)
        switches.append(SwitchBlueprint(name=s.name, p4=str(s.program), runtime=runtime,
                                        grpc_port=s.grpc_port, device_id=s.device_id,
                                        cpu_port=s.cpu_port, kind=s.target,
                                        controller=s.controller))
    links = []
    params = [topo.link_params(link) for link in topo.links]
    # One MTU for the whole fabric, its smallest link's: a P4 switch neither fragments nor
    # answers "packet too big", so a host sending frames larger than a link further on
    # can carry would have them dropped there and its TCP would stall (as one Ethernet
    # segment, every interface of it shares one MTU).
    mtu = min((p.mtu for p in params), default=1500)
    for link, nominal in zip(topo.links, params):
        a, b = topo.endpoints(link)
        emulated = nominal.emulated(topo.scale)
        shape = LinkShape(nominal_bps=nominal.bw_bps or 0.0, rate_bps=emulated.bw_bps or 0.0,
                          delay_s=nominal.delay_s, jitter_s=nominal.jitter_s,
                          loss=nominal.loss_pct / 100.0, queue_packets=nominal.queue_pkts or 0,
                          mtu=mtu)
        links.append(LinkBlueprint(a.node, a.port or 0, b.node, b.port or 0, shape))
    return NetBlueprint(hosts, switches, links, scale=topo.scale, source=source)


def _is_tutorials_json(path: Path) -> bool:
    if path.suffix.lower() != ".json":
        return False
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and isinstance(data.get("hosts"), dict)


def load_blueprint(path: str | Path, p4: str | Path | None = None) -> NetBlueprint:
    """A topology YAML, or a P4 tutorials topology.json (hosts as a mapping; ``p4``
    overrides the P4 source its switches run)."""
    path = Path(path)
    if not path.is_file():
        raise TrainetError(f"{path}: no such topology file; give a topology .yaml or a "
                           "tutorials topology.json")
    if _is_tutorials_json(path):
        from testbed.topology.tutorials import import_tutorial
        topo = import_tutorial(path, p4=p4)
    else:
        from testbed.topology.load import load_topology
        topo = load_topology(path)
    return blueprint_from_topology(topo, str(path))
