"""Fabrics for the analytical model: what a group of ranks gets when every group of its
kind runs its ring at once.

Two kinds, one question (:meth:`route`: a kind's groups -> :class:`Route`, the per-rank
bandwidth of the slowest group's ring, the latency of one ring step, and the tier and
profile that set them):

* :class:`TieredFabric`, nested domains (a GPU package, a node, the cluster), each tier
  with the bandwidth one rank has into it when every rank uses it at once and the
  latency of a step through it. A group of ``size`` ranks ``stride`` apart crosses every
  tier whose inner domain it does not fit; at each crossing ``m`` of its members share an
  inner domain and its ring leaves that domain once, so the ``D / m`` rings of a domain
  of ``D`` ranks share the domain's ``D x bps``: each gets ``m x bps`` (NCCL spreads a
  ring's crossing over the domain's NICs), never more than an inner tier gives. Closed
  form: any number of ranks, microseconds per group kind.
* :class:`GraphFabric`, the links of a topology (a topology or experiment file, as the
  testbed runs it): each ring hop takes its shortest path and a link shared by ``k``
  hops of the kind gives each ``1/k`` of its bandwidth (the group placement model of
  ``trainet plan``).

Named fabrics (:data:`NAMED`) are built from the NIC profiles (testbed/topology/
profiles.py); ``star:PROFILE`` is one switch with a NIC of that profile per rank; a path
names a topology or experiment file.
"""
from __future__ import annotations

import math
from collections import Counter, deque
from dataclasses import dataclass
from pathlib import Path

from hosts.collectives.timing import Placement
from testbed.errors import TrainetError
from testbed.topology import profiles
from testbed.topology.spec import Topology


@dataclass(frozen=True)
class Route:
    tier: str               # the tier (or link profile) that limits the ring
    bps: float              # bit/s one rank's ring hop gets
    latency_s: float        # one ring step
    profile: str            # the NIC or link profile behind it (calibration key)
    hops: int = 1           # switches a ring step traverses
    call_s: float = 0.0     # fixed cost of one collective call (launch, setup)


@dataclass(frozen=True)
class Tier:
    name: str
    ranks: int | None       # ranks in one domain of the tier; None: every rank
    bps: float              # bit/s per rank when all ranks of a domain use it at once
    latency_s: float
    profile: str
    call_s: float = 0.0     # fixed cost of one collective call over the tier


class TieredFabric:
    def __init__(self, name: str, tiers: list[Tier], source: str = ""):
        if not tiers or tiers[-1].ranks is not None:
            raise TrainetError(f"fabric {name}: the outermost tier holds every rank "
                               "(ranks None)")
        self.name, self.tiers, self.source = name, tiers, source
        self.max_ranks = None
        self.table = None           # no measured bandwidth table: nothing to measure on

    def tier_sizes(self, world: int) -> dict:
        """Ranks per GPU package (the innermost of two or more bounded tiers) and per
        node (the outermost bounded tier), as hierarchical strategies place by them."""
        bounded = [t.ranks for t in self.tiers if t.ranks]
        node = bounded[-1] if bounded else 1
        gpu = bounded[0] if len(bounded) > 1 else 1
        node = node if world % node == 0 else world
        return {"gpu": gpu if node % gpu == 0 else 1, "node": node}

    def route(self, kind: Placement, world: int) -> Route:
        size, stride = kind.size, kind.stride
        if size <= 1:
            return Route(self.tiers[0].name, math.inf, 0.0, self.tiers[0].profile)
        used, inside = [], 1            # inside: members in one domain of the tier below
        for i, tier in enumerate(self.tiers):
            domain = tier.ranks or math.inf
            members = size if size * stride <= domain else max(1, min(size, domain // stride))
            if members > inside:        # some ring hops stay inside this tier's domains
                used.append(Route(tier.name, inside * tier.bps, tier.latency_s, tier.profile,
                                  call_s=tier.call_s))
            inside = members
            if members >= size:
                break
        slowest = min(used, key=lambda r: r.bps)
        return Route(slowest.tier, slowest.bps, used[-1].latency_s, slowest.profile,
                     call_s=max(r.call_s for r in used))

    def split(self, kind: Placement) -> tuple[Placement, Placement] | None:
        """The group as (its members inside one domain of the innermost tier it leaves,
        the groups of one member per domain), for hierarchical collectives; None when it
        stays inside one tier's domain."""
        crossed = [t.ranks for t in self.tiers
                   if t.ranks and kind.size * kind.stride > t.ranks]
        if not crossed:
            return None
        inner = max(1, min(kind.size, crossed[-1] // kind.stride))
        if inner in (1, kind.size):
            return None
        return Placement(inner, kind.stride), Placement(kind.size // inner, kind.stride * inner)

    def transfer(self, pairs: list[tuple[int, int]], world: int) -> Route:
        """What transfers between the ranks of each pair get, all at once (pipeline
        neighbours of every replica); pairs as far apart as the first."""
        a, b = pairs[0]
        return self.route(Placement(2, abs(b - a)), world)

    def server_route(self) -> Route:
        t = self.tiers[-1]
        return Route(t.name, t.bps, t.latency_s, t.profile, call_s=t.call_s)

    edge_route = server_route       # a rank's own way into the network


class GraphFabric:
    """Nodes joined by links (bit/s, one-way delay, profile); ``gpus`` are the nodes
    that run ranks, in rank order."""

    def __init__(self, name: str, gpus: tuple[str, ...], links: dict,
                 servers: tuple[str, ...] = (), labels: dict | None = None):
        self.name, self.gpus, self.links, self.servers = name, gpus, links, servers
        self.labels = labels or {}          # host group kind -> label per GPU
        self.max_ranks = len(gpus)
        self.source = "links as the topology gives them"
        self.table = None           # testbed/model/measured.py, when one is attached
        self._adjacent: dict = {}
        for a, b in links:
            self._adjacent.setdefault(a, []).append(b)
        self._paths: dict = {}
        self._routes: dict = {}

    def first(self, world: int) -> "GraphFabric":
        """The same fabric with ranks on its first ``world`` GPUs only."""
        fabric = GraphFabric(self.name, self.gpus[:world], {}, self.servers,
                             {k: v[:world] for k, v in self.labels.items()})
        fabric.links, fabric._adjacent, fabric._paths = self.links, self._adjacent, self._paths
        fabric.table = self.table
        return fabric

    def path(self, a: str, b: str) -> list[tuple[str, str]]:
        """The hops of a shortest path (fewest links) from ``a`` to ``b``."""
        if (a, b) not in self._paths:
            self._paths[a, b] = self._search(a, b)
        return self._paths[a, b]

    def _search(self, a: str, b: str) -> list[tuple[str, str]]:
        before, queue = {a: None}, deque([a])
        while queue and b not in before:
            node = queue.popleft()
            for nxt in self._adjacent.get(node, ()):
                if nxt not in before:
                    before[nxt] = node
                    queue.append(nxt)
        if b not in before:
            raise TrainetError(f"fabric {self.name}: no path from {a} to {b}; link every "
                               "worker host to the network")
        hops, node = [], b
        while before[node] is not None:
            hops.append((before[node], node))
            node = before[node]
        return hops[::-1]

    def group_bandwidth(self, groups: list[list[int]]) -> tuple[float, float, str, int]:
        """(bit/s, latency s per ring step, profile of the bottleneck link, switches on
        the longest hop) of the slowest of ``groups`` when all run their rings at once."""
        rings = [[(self.gpus[g[i]], self.gpus[g[(i + 1) % len(g)]]) for i in range(len(g))]
                 for g in groups if len(g) > 1]
        paths = {hop: self.path(*hop) for ring in rings for hop in ring}
        load = Counter(link for path in paths.values() for link in path)
        worst_bps, worst_latency, worst_profile, switches = math.inf, 0.0, "-", 1
        for path in paths.values():
            for ln in path:
                share = self.links[ln][0] / load[ln]
                if share < worst_bps:
                    worst_bps, worst_profile = share, self.links[ln][2]
            worst_latency = max(worst_latency, sum(self.links[ln][1] for ln in path))
            switches = max(switches, len(path) - 1)
        return worst_bps, worst_latency, worst_profile, switches

    def route(self, kind: Placement, world: int) -> Route:
        key = (kind, world)
        if key not in self._routes:
            bps, latency, profile, hops = self.group_bandwidth(kind.groups(world))
            self._routes[key] = Route(profile, bps, latency, profile, hops)
        return self._routes[key]

    def tier_sizes(self, world: int) -> dict:
        """Ranks per GPU package and per node from the topology's host groups."""
        from hosts.collectives.hierarchy import group_size
        return {kind: group_size(labels[:world], kind) for kind, labels in self.labels.items()
                if kind in ("gpu", "node") and all(labels[:world])}

    def split(self, kind: Placement) -> None:
        """No hierarchical collectives on a graph: its rings are timed as placed."""
        return None

    def transfer(self, pairs: list[tuple[int, int]], world: int) -> Route:
        """What transfers between the ranks of each pair get, all at once (pipeline
        neighbours of every replica)."""
        bps, latency, profile, hops = self.group_bandwidth([list(p) for p in pairs])
        return Route(profile, bps, latency, profile, hops)

    def server_route(self) -> Route:
        """The link of the first server or optimizer host (the workers' first one's
        when there is none)."""
        return self._link_of(self.servers[0] if self.servers else self.gpus[0])

    def edge_route(self) -> Route:
        """The first worker's own link into the network."""
        return self._link_of(self.gpus[0])

    def _link_of(self, host: str) -> Route:
        bps, delay, profile = next(v for (a, _), v in self.links.items() if a == host)
        return Route(profile, bps, delay, profile)


class NominalFabric(GraphFabric):
    """Nodes of ``per_node`` GPUs: a GPU reaches its node's switch at ``intra`` and the
    core through its own NIC at ``inter`` (``trainet plan``'s fabric without a topology)."""

    def __init__(self, gpus: int, per_node: int, intra_bps: float, inter_bps: float,
                 latency_s: float):
        if gpus < 1 or per_node < 1 or gpus % per_node:
            raise TrainetError(f"nominal fabric: {gpus} GPUs in nodes of {per_node}; give "
                               "a GPU count that is a multiple of --gpus-per-node")
        links = {}
        for g in range(gpus):
            name, node = f"gpu{g}", f"node{g // per_node}"
            for a, b, bps, kind in ((name, node, intra_bps, "intra-node"),
                                    (name, "core", inter_bps, "inter-node")):
                links[a, b] = links[b, a] = (bps, latency_s, kind)
        super().__init__(f"{gpus} GPUs, {per_node} per node",
                         tuple(f"gpu{g}" for g in range(gpus)), links)
        self.per_node = per_node

    def _search(self, a: str, b: str) -> list[tuple[str, str]]:
        na, nb = (f"node{int(x[3:]) // self.per_node}" for x in (a, b))
        via = na if na == nb else "core"
        return [(a, via), (via, b)]


def topology_fabric(topology: Topology) -> GraphFabric:
    """The topology's workers and links; an unshaped link counts as 100 Gb/s."""
    links = {}
    for link in topology.links:
        params = topology.link_params(link)
        ends = topology.endpoints(link)
        a, b = (end.node for end in ends)
        hosts = [topology.host(e.node) for e in ends if e.port is None]
        profile = link.profile or next((h.nic for h in hosts if h.nic), None) or "link"
        links[a, b] = links[b, a] = (params.bw_bps or 100e9, params.delay_s, profile)
    workers = [h for h in topology.hosts if h.role == "worker"]
    servers = tuple(h.name for h in topology.hosts if h.role in ("server", "optimizer"))
    labels = {kind: [h.groups.get(kind, "") for h in workers] for kind in ("gpu", "node")
              if any(kind in h.groups for h in workers)}
    return GraphFabric(topology.name, tuple(h.name for h in workers), links, servers, labels)


def _profile(name: str) -> profiles.Profile:
    return profiles.get_profile(name)


def _tier(name: str, ranks: int | None, profile: str, per_rank: float = 1.0,
          nccl: str | None = None) -> Tier:
    """A tier of ``profile``'s links, ``per_rank`` of one link's bandwidth per rank;
    with ``nccl`` (``nvlink`` or ``net``) NCCL's own latencies for it
    (:data:`NCCL_RING_STEP_S`, :data:`NCCL_CALL_S`) instead of the link's."""
    p = _profile(profile)
    if nccl is None:
        return Tier(name, ranks, p.bw_bps * per_rank, p.latency_s, profile)
    return Tier(name, ranks, p.bw_bps * per_rank, NCCL_RING_STEP_S[nccl], profile,
                NCCL_CALL_S)


def star(nic: str) -> TieredFabric:
    p = _profile(nic)
    return TieredFabric(f"star:{nic}", [_tier("network", None, nic)],
                        f"one switch, every rank a {nic} NIC ({p.source})")


# NCCL's effective NVLink 3 bandwidth on A100 from the SMs: 128-byte payloads leave ~20
# of each link's 25 GB/s, and other limits of the GPU ~230 of the 12 links' 300 GB/s per
# direction (NCCL maintainer, NVIDIA/nccl-tests issue 149, "Expected bandwidth results?
# A100 GPUs over NVLink", 2023)
NVLINK3_EFFECTIVE = 230e9 / 300e9
# NCCL's achieved share of HDR InfiniBand line rate between DGX/HGX A100 nodes: an
# all-reduce bus bandwidth of 91 GB/s over four 200 Gb/s ConnectX-6 NICs per node, 100
# GB/s at line rate (NVIDIA/nccl-tests issue 100, "HGX A100 can not reach peak
# bandwidth", 2022, two HGX A100 nodes, 1-8 GB messages)
IB_HDR_EFFECTIVE = 91e9 / 100e9
# NCCL's own latency model of a ring collective (src/graph/tuning.cc of the NCCL 2.8
# releases, the library of the 2021-2022 Megatron-LM runs, Simple protocol): a base of
# 8.4 us per call plus 3.4 us per ring step over NVLink, 9.6 us per step over the network
NCCL_CALL_S = 8.4e-6
NCCL_RING_STEP_S = {"nvlink": 3.4e-6, "net": 9.6e-6}


def _dgx_a100() -> TieredFabric:
    return TieredFabric("dgx-a100", [_tier("nvlink", 8, "nvlink", NVLINK3_EFFECTIVE, "nvlink"),
                                     _tier("infiniband", None, "ib-hdr200", IB_HDR_EFFECTIVE,
                                           "net")],
                        "NVIDIA DGX A100 nodes as in Selene (Narayanan et al. 2021, sec. "
                        "5): 8 A100 on NVSwitch (NCCL's effective 230 of 300 GB/s per "
                        "direction), 8 HDR InfiniBand NICs of 200 Gb/s per node (NCCL's "
                        "achieved 91 %); NCCL's latencies (8.4 us a call, 3.4 / 9.6 us a "
                        "ring step over NVLink / InfiniBand)")


def _dgx_h100() -> TieredFabric:
    nvlink4 = Tier("nvlink", 8, 450 * 8e9, 1e-6, "nvlink")
    return TieredFabric("dgx-h100", [nvlink4, _tier("infiniband", None, "ib-ndr400")],
                        "NVIDIA DGX H100 datasheet: NVLink 4 at 900 GB/s bidirectional "
                        "(450 GB/s per direction) per GPU, 8 ConnectX-7 NDR 400 Gb/s per node")


def _frontier() -> TieredFabric:
    return TieredFabric("frontier", [_tier("gcd", 2, "gcd-gcd"), _tier("node", 8, "gpu-gpu"),
                                     _tier("slingshot", None, "slingshot-200g", 4 / 8)],
                        "OLCF Frontier user guide: 2 GCDs per MI250X on Infinity Fabric "
                        "(200 GB/s), 4 MI250X per node (50-100 GB/s between packages), 4 "
                        "Slingshot NICs of 200 Gb/s per node (8 GCDs)")


def _roce_cluster(nic: str):
    def build() -> TieredFabric:
        return TieredFabric(f"{nic}-cluster", [_tier("nvlink", 8, "nvlink", NVLINK3_EFFECTIVE),
                                               _tier(nic, None, nic)],
                            f"nodes of 8 GPUs on NVLink (A100 class), one {nic} NIC per GPU")
    return build


NAMED = {"dgx-a100": _dgx_a100, "dgx-h100": _dgx_h100, "frontier": _frontier,
         "roce-100g-cluster": _roce_cluster("roce-100g"),
         "eth-25g-cluster": _roce_cluster("eth-25g-tcp")}


def geo(gpus: int) -> GraphFabric:
    """FusionLLM's geo fabric (the ``geo`` generator's three sites and WAN tiers) with
    ``gpus`` spread over the sites."""
    from testbed.topology.generators import SiteSpec, geo as geo_topology
    per_site = -(-gpus // 3)
    sites = tuple(SiteSpec(name=n, hosts=per_site) for n in ("eu", "us", "as"))
    fabric = topology_fabric(geo_topology(sites=sites))
    fabric.name = f"geo ({gpus} GPUs at 3 sites)"
    return fabric.first(gpus)


def names() -> list[str]:
    return [*NAMED, "geo", "star:PROFILE", "a topology or experiment file"]


def fabric(spec: str, gpus: int):
    """A fabric by name, ``star:PROFILE``, ``geo`` or a topology/experiment file."""
    if spec in NAMED:
        return NAMED[spec]()
    if spec == "geo":
        return geo(gpus)
    if spec.startswith("star:"):
        return star(spec.removeprefix("star:"))
    if Path(spec).suffix in (".yaml", ".yml", ".json") and Path(spec).exists():
        found = topology_fabric(fabric_topology(spec))
        if found.max_ranks < gpus:
            raise TrainetError(f"fabric {spec}: {found.max_ranks} worker hosts for {gpus} "
                               f"GPUs; give --gpus {found.max_ranks} or less, or a named "
                               f"fabric ({', '.join(NAMED)})")
        return found.first(gpus)
    raise TrainetError(f"unknown fabric {spec!r}; choose one of {', '.join(names())}")


def read_fabric_file(path: str):
    """The YAML of a topology or experiment file; an experiment's has ``strategies``."""
    import yaml
    try:
        return yaml.safe_load(Path(path).read_text())
    except (OSError, yaml.YAMLError) as err:
        raise TrainetError(f"{path}: cannot read it as YAML: {err}; give a topology or "
                           "experiment file") from None


def is_experiment(data) -> bool:
    return isinstance(data, dict) and "strategies" in data


def fabric_topology(path: str) -> Topology:
    """The topology of a topology file, or of an experiment file (it has strategies)."""
    from testbed.topology.load import load_topology
    data = read_fabric_file(path)
    if is_experiment(data):
        from testbed.topology.generators import expand_generator
        topo = data.get("topology")
        if isinstance(topo, dict) and "generator" in topo:
            return Topology.from_data(expand_generator(topo), base_dir=Path(path).parent)
        if isinstance(topo, str):
            return load_topology(Path(path).parent / topo)
        return Topology.from_data(topo, base_dir=Path(path).parent)
    return load_topology(path)
