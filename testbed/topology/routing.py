"""Shortest-path IPv4 forwarding entries for p4/basic.p4.

basic.p4 forwards on ``MyIngress.ipv4_lpm`` (lpm on ``hdr.ipv4.dstAddr``) with
``MyIngress.ipv4_forward(dstAddr, port)``, which sets the destination MAC and the egress
port. Every switch gets one /32 entry per host: towards the host's own port on the switch
it hangs off, else towards the neighbour switch one hop closer (fewest hops; ties go to
the first link listed). The destination MAC of an inter-switch hop is that neighbour's
``switch_mac``, the last hop writes the host's MAC.
"""
from __future__ import annotations

from collections import deque

from testbed.p4 import entries
from testbed.topology.runtime import TableEntrySpec

LPM_TABLE = "MyIngress.ipv4_lpm"
LPM_KEY = "hdr.ipv4.dstAddr"
FORWARD_ACTION = "MyIngress.ipv4_forward"


def switch_mac(index: int) -> str:
    """MAC standing for the switch at ``index`` (0-based) in a topology's switches."""
    n = index + 1
    return f"08:00:00:ff:{n >> 8 & 0xff:02x}:{n & 0xff:02x}"


def forward_entry(ip: str, mac: str, port: int) -> TableEntrySpec:
    return TableEntrySpec(table=LPM_TABLE, match={LPM_KEY: [ip, 32]},
                          action_name=FORWARD_ACTION,
                          action_params={"dstAddr": mac, "port": port})


def route_entry(ip: str, mac: str, port: int) -> entries.TableEntry:
    """The /32 route of ``forward_entry`` as a control plane writes it."""
    return forward_entry(ip, mac, port).to_entry([(LPM_KEY, "lpm")])


def shortest_path_entries(switches: list[str], hosts: dict[str, tuple[str, str]],
                          links: list[tuple]) -> dict[str, list[TableEntrySpec]]:
    """Switch name -> forwarding entries that reach every host. ``hosts`` maps a host to
    its (ip, mac); ``links`` are the topology's pairs of ends, each with ``node`` and
    ``port`` (None for a host), in link order."""
    index = {name: i for i, name in enumerate(switches)}
    neighbours: dict[str, list[tuple[str, int]]] = {name: [] for name in index}
    attached: list[tuple[str, str, int]] = []          # (host, switch, port)
    for a, b in links:
        if a.port is not None and b.port is not None:
            neighbours[a.node].append((b.node, a.port))
            neighbours[b.node].append((a.node, b.port))
        elif (a.port is None) != (b.port is None):
            host, sw = (a, b) if a.port is None else (b, a)
            attached.append((host.node, sw.node, sw.port))
    table: dict[str, list[TableEntrySpec]] = {name: [] for name in index}
    for host_name, home, home_port in attached:
        ip, mac = hosts[host_name]
        distance = _hops_from(home, neighbours)
        for sw in index:
            if sw == home:
                table[sw].append(forward_entry(ip, mac, home_port))
            elif sw in distance:
                nxt, port = next((n, p) for n, p in neighbours[sw]
                                 if distance.get(n) == distance[sw] - 1)
                table[sw].append(forward_entry(ip, switch_mac(index[nxt]), port))
    return table


def _hops_from(start: str, neighbours: dict[str, list[tuple[str, int]]]) -> dict[str, int]:
    distance = {start: 0}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for nxt, _ in neighbours[node]:
            if nxt not in distance:
                distance[nxt] = distance[node] + 1
                queue.append(nxt)
    return distance
