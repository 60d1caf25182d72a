"""Topology generators: star, leaf-spine, fat-tree, multi-cluster, geo-distributed and
node-internal (Frontier) fabrics.

Addresses: each switch with hosts ("edge" switch number E, counted from 1 in creation
order) owns the subnet 10.0.E.0/24; its n-th host is 10.0.E.n/24 with MAC
08:00:00:00:EE:nn, and uses 10.0.E.254 as gateway (MAC: the edge switch's
``routing.switch_mac``). At most 255 edge switches of 253 hosts each.

Every generator runs p4/basic.p4 (or ``program``) on every switch and fills each switch's
``MyIngress.ipv4_lpm`` with shortest-path entries (``routing: shortest-path``).
``generate(name, **params)`` builds data for a named generator, ``expand_generator``
the YAML ``generator:`` form (topology files and experiments' inline topologies); the
functions named after the generators return a validated ``Topology``.
"""
from __future__ import annotations

import inspect
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError, validate_call

from testbed.topology.specfile import Issue, TopologyError, from_validation
from testbed.topology.routing import switch_mac
from testbed.topology.spec import Topology

Positive = Annotated[int, Field(ge=1)]
NonNegative = Annotated[int, Field(ge=0)]


class _Fabric:
    """Accumulates nodes and links as spec data, numbering ports per switch."""

    def __init__(self, name: str, scale: float, program: str | None):
        self.data: dict = {"name": name, "scale": scale, "routing": "shortest-path",
                           "hosts": [], "switches": [], "links": []}
        if program is not None:
            self.data["program"] = program
        self._ports: dict[str, int] = {}
        self._edges: dict[str, int] = {}       # edge switch -> subnet number
        self._hosts_on: dict[str, int] = {}

    def switch(self, name: str) -> str:
        self.data["switches"].append({"name": name})
        self._ports[name] = 0
        return name

    def _port(self, sw: str) -> str:
        self._ports[sw] += 1
        return f"{sw}-p{self._ports[sw]}"

    def host(self, name: str, sw: str, nic: str, role: str = "worker",
             groups: dict | None = None, link_profile: str | None = None,
             device: str | None = None) -> str:
        if sw not in self._edges:
            self._edges[sw] = len(self._edges) + 1
            self._hosts_on[sw] = 0
        subnet = self._edges[sw]
        self._hosts_on[sw] += 1
        n = self._hosts_on[sw]
        if subnet > 255 or n > 253:
            raise ValueError("the address plan 10.0.E.n/24 allows 255 edge switches of 253 "
                             f"hosts each; this fabric needs edge switch {subnet}, host {n}: "
                             "make it smaller")
        index = [s["name"] for s in self.data["switches"]].index(sw)
        self.data["hosts"].append({
            "name": name, "ip": f"10.0.{subnet}.{n}/24", "mac": f"08:00:00:00:{subnet:02x}:{n:02x}",
            "nic": nic, "role": role, "groups": groups or {},
            "gateway": f"10.0.{subnet}.254", "gateway_mac": switch_mac(index)})
        if device is not None:
            self.data["hosts"][-1]["device"] = device
        link = {"a": name, "b": self._port(sw)}
        if link_profile:
            link["profile"] = link_profile
        self.data["links"].append(link)
        return name

    def connect(self, s1: str, s2: str, profile: str | None, bw: str | None = None) -> None:
        link = {"a": self._port(s1), "b": self._port(s2)}
        if profile:
            link["profile"] = profile
        if bw is not None:
            link["bw"] = bw
        self.data["links"].append(link)


def _roles(workers: int, optimizers: int, servers: int) -> list[tuple[str, str]]:
    return ([(f"w{i}", "worker") for i in range(1, workers + 1)]
            + [(f"opt{i}", "optimizer") for i in range(1, optimizers + 1)]
            + [(f"srv{i}", "server") for i in range(1, servers + 1)])


@validate_call
def star_data(workers: Positive = 4, optimizers: NonNegative = 0,
              servers: NonNegative = 0, nic: str = "eth-25g-tcp",
              scale: float = 1.0, program: str | None = None) -> dict:
    """One switch s1; hosts w1..wN (workers), opt1.. (optimizers), srv1.. (servers)."""
    fab = _Fabric("star", scale, program)
    fab.switch("s1")
    for name, role in _roles(workers, optimizers, servers):
        fab.host(name, "s1", nic, role, {"rack": "s1"})
    return fab.data


@validate_call
def leaf_spine_data(leaves: Positive = 2, spines: Positive = 2,
                    hosts_per_leaf: Positive = 2, nic: str = "roce-100g",
                    fabric: str = "roce-100g", scale: float = 1.0,
                    program: str | None = None) -> dict:
    """Leaves leaf1.. each with hosts h1.. (group rack = leaf), every leaf linked to every
    spine spine1.. with the ``fabric`` profile."""
    fab = _Fabric("leaf-spine", scale, program)
    leaf_names = [fab.switch(f"leaf{i}") for i in range(1, leaves + 1)]
    spine_names = [fab.switch(f"spine{i}") for i in range(1, spines + 1)]
    n = 0
    for leaf in leaf_names:
        for _ in range(hosts_per_leaf):
            n += 1
            fab.host(f"h{n}", leaf, nic, groups={"rack": leaf})
        for spine in spine_names:
            fab.connect(leaf, spine, fabric)
    return fab.data


@validate_call
def fat_tree_data(k: Annotated[int, Field(ge=2, multiple_of=2)] = 4, nic: str = "roce-100g",
                  fabric: str = "roce-100g", scale: float = 1.0,
                  program: str | None = None) -> dict:
    """Two-level fat-tree of k-port switches: k leaves with k/2 hosts and k/2 uplinks
    each, k/2 spines linked to every leaf; k*k/2 hosts in all."""
    data = leaf_spine_data(leaves=k, spines=k // 2, hosts_per_leaf=k // 2, nic=nic,
                           fabric=fabric, scale=scale, program=program)
    data["name"] = f"fat-tree-k{k}"
    return data


class ClusterSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(pattern=r"^[A-Za-z0-9]{1,3}$")
    nic: str
    hosts: Positive = 4


HOLMES_CLUSTERS = (ClusterSpec(name="A", nic="ib-hdr200"), ClusterSpec(name="B", nic="roce-100g"),
                   ClusterSpec(name="C", nic="eth-25g-tcp"))


@validate_call
def multi_cluster_data(clusters: tuple[ClusterSpec, ...] = HOLMES_CLUSTERS,
                       backbone: str = "eth-100g-tcp", scale: float = 1.0,
                       program: str | None = None) -> dict:
    """Holmes-style: each cluster has its own switch (cA, cB, ...) and NIC type; cluster
    switches join a backbone switch ``bb`` over ``backbone`` links. Hosts are a1, a2, ...
    (lower-cased cluster name + number) in group cluster = the cluster name."""
    fab = _Fabric("multi-cluster", scale, program)
    core = fab.switch("bb")
    for cluster in clusters:
        sw = fab.switch(f"c{cluster.name}")
        for i in range(1, cluster.hosts + 1):
            fab.host(f"{cluster.name.lower()}{i}", sw, cluster.nic,
                     groups={"cluster": cluster.name})
        fab.connect(sw, core, backbone)
    return fab.data


class SiteSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(pattern=r"^[A-Za-z0-9]{1,3}$")
    hosts: Positive = 2
    nic: str = "eth-100g-tcp"
    device: str | None = None       # the site's accelerator (hosts/devices.py), shadow mode


GEO_SITES = (SiteSpec(name="eu"), SiteSpec(name="us"), SiteSpec(name="as"))


@validate_call
def geo_data(sites: tuple[SiteSpec, ...] = GEO_SITES,
             wan: tuple[str, ...] = ("wan-1g", "wan-100m", "wan-8m"),
             scale: float = 1.0, program: str | None = None) -> dict:
    """FusionLLM-style: one switch per site (s_eu, ...), hosts eu1, eu2, ... in group
    site; site switches fully meshed by WAN links. ``wan`` gives the tier of each site
    pair in order (1-2, 1-3, ..., 2-3, ...); a single tier applies to every pair. A
    site's ``device`` is every one of its hosts' (heterogeneous sites)."""
    pairs = [(a, b) for i, a in enumerate(sites) for b in sites[i + 1:]]
    if len(wan) not in (1, len(pairs)):
        raise ValueError(f"wan: give 1 tier or one per site pair ({len(pairs)}), "
                         f"got {len(wan)}")
    fab = _Fabric("geo", scale, program)
    for site in sites:
        sw = fab.switch(f"s_{site.name}")
        for i in range(1, site.hosts + 1):
            fab.host(f"{site.name}{i}", sw, site.nic, groups={"site": site.name},
                     device=site.device)
    for (a, b), tier in zip(pairs, tuple(wan) * len(pairs) if len(wan) == 1 else wan):
        fab.connect(f"s_{a.name}", f"s_{b.name}", tier)
    return fab.data


@validate_call
def frontier_data(nodes: Annotated[int, Field(ge=1, le=31)] = 2,
                  gpus: Annotated[int, Field(ge=1, le=4)] = 4,
                  inter_node: str = "slingshot-200g", gpu_gpu: str = "gpu-gpu",
                  gcd_gcd: str = "gcd-gcd", scale: float = 1.0,
                  program: str | None = None, inter_node_bw: str | None = None) -> dict:
    """Frontier-like nodes with three link classes. Node n has ``gpus`` MI250X (4 on
    Frontier; fewer keep an emulation small), each a switch nNpM holding its 2 GCDs
    (hosts nNgK, K = 0..2 gpus - 1) on ``gcd_gcd`` links; the package switches join a
    node switch nN over ``gpu_gpu`` links; node switches join the fabric switch ``fab``
    over ``inter_node`` links, at ``inter_node_bw`` (e.g. ``50Gbit``) instead of the
    profile's rate when given: Frontier's 4 NICs serve 8 GCDs, so a node of fewer GCDs
    keeps its share, and a collective library may reach less than the NICs' rate.
    Groups: node = nN, gpu = nNpM."""
    fab = _Fabric("frontier", scale, program)
    core = fab.switch("fab")
    for n in range(1, nodes + 1):
        node = fab.switch(f"n{n}")
        for m in range(gpus):
            package = fab.switch(f"n{n}p{m}")
            for g in (2 * m, 2 * m + 1):
                fab.host(f"n{n}g{g}", package, gcd_gcd, groups={"node": node, "gpu": package},
                         link_profile=gcd_gcd)
            fab.connect(package, node, gpu_gpu)
        fab.connect(node, core, inter_node, inter_node_bw)
    return fab.data


GENERATORS = {"star": star_data, "leaf-spine": leaf_spine_data, "fat-tree": fat_tree_data,
              "multi-cluster": multi_cluster_data, "geo": geo_data, "frontier": frontier_data}


GENERATOR_EXTRAS = ("name", "description", "scale", "program")


def generate(name: str, **params) -> dict:
    """Spec data of the generator ``name``; errors are TopologyErrors under ``generator``."""
    if name not in GENERATORS:
        raise TopologyError([Issue(("generator", "name"), f"unknown generator {name!r}; "
                                    f"allowed: {', '.join(GENERATORS)}")])
    allowed = list(inspect.signature(GENERATORS[name]).parameters)
    for key in params:
        if key not in allowed:
            raise TopologyError([Issue(("generator", key), f"unknown parameter {key!r} of "
                                       f"generator {name}; allowed: {', '.join(allowed)}")])
    try:
        return GENERATORS[name](**params)
    except ValidationError as e:
        raise from_validation(e, prefix=("generator",)) from None
    except ValueError as e:
        raise TopologyError([Issue(("generator",), str(e))]) from None


def expand_generator(data: dict) -> dict:
    """The spec data of a mapping that names a generator (``generator: {name: star,
    workers: 8}``), with the fields allowed next to it (GENERATOR_EXTRAS) carried over."""
    spec = data["generator"]
    others = [k for k in data if k != "generator" and k not in GENERATOR_EXTRAS]
    if others:
        raise TopologyError([Issue((others[0],), f"next to generator only "
                                   f"{', '.join(GENERATOR_EXTRAS)} are allowed; remove "
                                   f"{others[0]!r} or drop the generator")])
    if not isinstance(spec, dict) or "name" not in spec:
        raise TopologyError([Issue(("generator",), "write generator: {name: NAME, ...}; "
                                   f"names: {', '.join(GENERATORS)}")])
    params = {k: v for k, v in spec.items() if k != "name"}
    generated = generate(spec["name"], **params)
    generated.update({k: data[k] for k in GENERATOR_EXTRAS if k in data})
    return generated


def _build(name: str, params: dict) -> Topology:
    return Topology.from_data(generate(name, **params), base_dir=Path.cwd())


def star(**params) -> Topology:
    return _build("star", params)


def leaf_spine(**params) -> Topology:
    return _build("leaf-spine", params)


def fat_tree(**params) -> Topology:
    return _build("fat-tree", params)


def multi_cluster(**params) -> Topology:
    return _build("multi-cluster", params)


def geo(**params) -> Topology:
    return _build("geo", params)


def frontier(**params) -> Topology:
    return _build("frontier", params)
