"""The topology spec: hosts, switches, links, groups and the co-scaling factor.

One model describes every fabric, whether written in YAML (``load.load_topology``),
imported from the p4lang tutorials (``tutorials``), generated (``generators``) or built
in Python with ``Topology.from_data({...})``. It imports nothing from Mininet: the net
layer reads it.

Conventions:

- Names (hosts and switches share one namespace): a letter, then letters, digits or ``_``,
  at most 8 characters, because they become Linux interface names such as ``s1-eth12``
  (15 characters at most).
- A host has one interface, ``eth0``: ``ip`` (address/prefix), ``mac``, the ``nic``
  profile and optional overrides of it (``bw``, ``latency``, ``mtu``). ``gateway`` and
  ``gateway_mac`` give the default route and its static ARP entry; ``static_arp(host)``
  lists every entry a host needs (P4 switches running basic.p4 answer no ARP).
  ``commands`` run in the host after that. ``device`` names the accelerator a shadow
  worker on the host stands for (a profile of hosts/devices.py, e.g. ``h100-80gb``;
  the experiment checks the name and falls back to its workload's ``device``), so
  every strategy run on the fabric sees the same devices.
- Link endpoints are a host name (``h1``) or a switch port (``s1-p2``), as in the
  tutorials' topology.json; a two-item list ``[h1, s1-p1]`` is short for ``{a: h1, b: s1-p1}``.
- Link parameters, attribute by attribute: the link's own field, else its ``profile``,
  else the NIC of its host endpoint, else the default (unshaped, no delay, MTU 1500 B).
  ``delay`` is one-way, ``loss`` is percent, ``queue`` is packets. ``link_params`` gives
  the result; ``LinkParams.emulated(scale)`` applies co-scaling (see profiles.py).
- Switch programs: a relative path is resolved against the spec file's directory; a
  switch without ``program`` runs the topology's ``program``, by default p4/basic.p4 of
  this repository. ``device_id`` and ``grpc_port`` default to the next free values from
  0 and 50051.
- ``routing: shortest-path`` is expanded during validation into explicit
  ``MyIngress.ipv4_lpm`` entries for p4/basic.p4 (see routing.py); explicit entries with
  the same match win. The expanded spec then reads ``routing: static``.
"""
from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (BeforeValidator, Field, PlainSerializer, ValidationError,
                      ValidationInfo, model_validator)

from testbed.errors import TrainetError
from testbed.p4runtime.values import parse_mac
from testbed.topology import profiles, routing
from testbed.topology.runtime import Runtime
from testbed.topology.specfile import (Issue, Spec, TopologyError, from_validation,
                                       path_text as _path)
from testbed.units import (duration_text, format_duration, format_rate, parse_duration,
                           parse_rate, rate_text)

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_PROGRAM = REPO_ROOT / "p4" / "basic.p4"
NAME_PATTERN = r"^[A-Za-z][A-Za-z0-9_]{0,7}$"
MAX_PORT = 511
FIRST_GRPC_PORT = 50051        # of the first switch that names none
# Packets per second the software switch forwards (AF_PACKET, measured on the 2-core
# development machine): emulated rates above pps x MTU cannot be carried.
SOFTWARE_SWITCH_PPS = 110_000
_ENDPOINT = re.compile(r"^(?P<node>[A-Za-z][A-Za-z0-9_]*?)(?:-p(?P<port>[0-9]+))?$")


def _interface(value):
    if isinstance(value, ipaddress.IPv4Interface):
        return value
    if not isinstance(value, str) or "/" not in value:
        raise ValueError(f"{value!r} is not address/prefix; write e.g. '10.0.1.1/24'")
    try:
        return ipaddress.IPv4Interface(value)
    except ValueError:
        raise ValueError(f"{value!r} is not an IPv4 address/prefix; write e.g. "
                         "'10.0.1.1/24'") from None


def _mac(value) -> str:
    if isinstance(value, int):
        raise ValueError(f"{value!r} is a number: YAML reads some unquoted MAC addresses "
                         "as numbers; quote it, e.g. '10:00:00:00:01:11'")
    parse_mac(value)
    return value.strip().lower()


def _name(value):
    if not isinstance(value, str) or not re.match(NAME_PATTERN, value):
        raise ValueError(f"{value!r} is not a node name; use a letter, then letters, digits "
                         "or _, 8 characters at most (names become interface names such as "
                         "'s1-eth12', 15 characters at most)")
    return value


def _entry_point(value):
    if not isinstance(value, str) or not re.match(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$", value):
        raise ValueError(f"{value!r} is not an entry point; write 'package.module:function', "
                         "e.g. 'controllers.learning:run'")
    return value


Name = Annotated[str, BeforeValidator(_name)]
def _positive_rate(value):
    rate = parse_rate(value)
    if rate <= 0:
        raise ValueError(f"{value!r}: a link's bandwidth is a positive rate, e.g. '100Gbit'; "
                         "leave bw out for a link that is not shaped")
    return rate


Rate = Annotated[float, BeforeValidator(_positive_rate), PlainSerializer(rate_text)]


def _percent(value):
    """``1``, ``0.5`` or ``'1%'``: percent, as the switch's --port-shape also takes it."""
    if isinstance(value, str) and value.strip().endswith("%"):
        try:
            return float(value.strip()[:-1])
        except ValueError:
            raise ValueError(f"{value!r} is not a percentage; write e.g. 1 or '1%'") from None
    return value


Percent = Annotated[float, BeforeValidator(_percent), Field(ge=0, le=100)]
Duration = Annotated[float, BeforeValidator(parse_duration), PlainSerializer(duration_text)]
Mac = Annotated[str, BeforeValidator(_mac)]
IPv4Iface = Annotated[ipaddress.IPv4Interface, BeforeValidator(_interface),
                      PlainSerializer(str)]
Mtu = Annotated[int, Field(ge=68, le=65535)]
Role = Literal["worker", "optimizer", "server", "host"]
GroupKind = Literal["gpu", "node", "rack", "pod", "cluster", "site"]


class Host(Spec):
    name: Name
    ip: IPv4Iface
    mac: Mac | None = None
    nic: str | None = None            # a NIC profile name (profiles.NIC_PROFILES)
    bw: Rate | None = None            # overrides of the NIC profile
    latency: Duration | None = None
    mtu: Mtu | None = None
    gateway: ipaddress.IPv4Address | None = None
    gateway_mac: Mac | None = None
    role: Role = "worker"
    groups: dict[GroupKind, str] = Field(default_factory=dict)
    device: str | None = None         # a device profile (hosts/devices.py), shadow mode
    commands: list[str] = Field(default_factory=list)


class Controller(Spec):
    """A control program for the switch: ``entry`` is 'package.module:function', called
    with the switch's P4Runtime address, device id and ``args``."""

    entry: Annotated[str, BeforeValidator(_entry_point)]
    args: dict[str, Any] = Field(default_factory=dict)


class Switch(Spec):
    name: Name
    program: Path | None = None
    target: Literal["software", "bmv2"] = "software"
    device_id: int | None = Field(default=None, ge=0)
    grpc_port: int | None = Field(default=None, ge=1, le=65535)
    cpu_port: int | None = Field(default=None, ge=0)
    runtime: Runtime = Field(default_factory=Runtime)
    controller: Controller | None = None


class Link(Spec):
    a: str
    b: str
    profile: str | None = None
    bw: Rate | None = None
    delay: Duration | None = None
    jitter: Duration | None = None
    loss: Percent | None = None
    queue: int | None = Field(default=None, ge=1)
    mtu: Mtu | None = None

    @model_validator(mode="before")
    @classmethod
    def _pair(cls, data):
        if isinstance(data, (list, tuple)):
            if len(data) != 2:
                raise ValueError(f"{list(data)!r}: a link list is [a, b], e.g. [h1, s1-p1]; "
                                 "use a mapping for more fields")
            return {"a": data[0], "b": data[1]}
        return data


@dataclass(frozen=True)
class Endpoint:
    node: str
    port: int | None = None           # switch port; None for a host

    def __str__(self) -> str:
        return self.node if self.port is None else f"{self.node}-p{self.port}"


@dataclass(frozen=True)
class LinkParams:
    """Resolved parameters of one link, applied in both directions."""

    bw_bps: float | None              # None: not shaped
    delay_s: float                    # one-way
    jitter_s: float
    loss_pct: float
    mtu: int
    queue_pkts: int | None            # None: the kernel's default

    def emulated(self, scale: float) -> "LinkParams":
        if self.bw_bps is None:
            return self
        return replace(self, bw_bps=profiles.scaled(self.bw_bps, scale))

    def describe(self, scale: float) -> str:
        bw = "unshaped" if self.bw_bps is None else \
            profiles.nominal_and_emulated(self.bw_bps, scale)
        text = f"{bw}, delay {format_duration(self.delay_s)}, MTU {self.mtu} B"
        if self.jitter_s:
            text += f", jitter {format_duration(self.jitter_s)}"
        if self.loss_pct:
            text += f", loss {self.loss_pct:g} %"
        if self.queue_pkts:
            text += f", queue {self.queue_pkts} packets"
        return text


class Topology(Spec):
    name: str = "topology"
    description: str = ""
    scale: float = Field(default=1.0, gt=0, le=1)
    program: Path | None = None
    routing: Literal["static", "shortest-path"] = "static"
    hosts: list[Host] = Field(default_factory=list)
    switches: list[Switch] = Field(default_factory=list)
    links: list[Link] = Field(default_factory=list)

    @classmethod
    def from_data(cls, data: dict, source: str | None = None,
                  base_dir: str | Path | None = None) -> "Topology":
        """Validate plain data (as from YAML); every failure is a TopologyError. Relative
        program paths are resolved against ``base_dir`` (default: the current directory)."""
        try:
            return cls.model_validate(data, context={"base_dir": base_dir})
        except ValidationError as e:
            error = from_validation(e)
        except TopologyError as e:
            error = e
        raise error.located(source) if source else error

    @model_validator(mode="after")
    def _check(self, info: ValidationInfo):
        base_dir = Path((info.context or {}).get("base_dir") or Path.cwd())
        issues: list[Issue] = []
        self._check_names(issues)
        self._check_switches(base_dir, issues)
        self._check_links(issues)
        if not issues and self.routing == "shortest-path":
            self._expand_routes(issues)
        if issues:
            raise TopologyError(issues)
        return self

    def _check_names(self, issues: list[Issue]) -> None:
        seen: dict[str, tuple] = {}
        for kind, nodes in (("hosts", self.hosts), ("switches", self.switches)):
            for i, node in enumerate(nodes):
                if node.name in seen:
                    issues.append(Issue((kind, i, "name"), f"duplicate name {node.name!r} "
                                        f"(first at {_path(seen[node.name])}); names must "
                                        "be unique across hosts and switches"))
                else:
                    seen[node.name] = (kind, i)
        for field in ("ip", "mac"):
            owners: dict[str, int] = {}
            for i, host in enumerate(self.hosts):
                value = getattr(host, field)
                if value is None:
                    continue
                key = str(value.ip) if field == "ip" else value
                if key in owners:
                    issues.append(Issue(("hosts", i, field), f"{key} is already used by "
                                        f"{self.hosts[owners[key]].name}; give each host "
                                        f"its own {field}"))
                owners.setdefault(key, i)
        for i, host in enumerate(self.hosts):
            if host.nic is not None and host.nic not in profiles.NIC_PROFILES:
                issues.append(Issue(("hosts", i, "nic"), f"unknown NIC profile {host.nic!r}; "
                                    f"allowed: {', '.join(profiles.NIC_PROFILES)}"))

    def _check_switches(self, base_dir: Path, issues: list[Issue]) -> None:
        default = self.program if self.program is not None else DEFAULT_PROGRAM
        if not default.is_absolute():
            default = (base_dir / default).resolve()
        self.program = default
        for i, sw in enumerate(self.switches):
            if sw.program is None:
                sw.program, where = default, ("program",)
            else:
                where = ("switches", i, "program")
                if not sw.program.is_absolute():
                    sw.program = (base_dir / sw.program).resolve()
            if not sw.program.is_file():
                issues.append(Issue(where, f"P4 program {str(sw.program)!r} not found; give "
                                    "a path relative to the spec file's directory "
                                    f"({base_dir}) or an absolute one"))
        for field, first in (("device_id", 0), ("grpc_port", FIRST_GRPC_PORT)):
            taken: dict[int, int] = {}
            for i, sw in enumerate(self.switches):
                value = getattr(sw, field)
                if value is None:
                    continue
                if value in taken:
                    issues.append(Issue(("switches", i, field), f"{value} is already used by "
                                        f"{self.switches[taken[value]].name}; give each "
                                        f"switch its own {field} or leave it out"))
                taken.setdefault(value, i)
            free = first
            for sw in self.switches:
                if getattr(sw, field) is None:
                    while free in taken:
                        free += 1
                    setattr(sw, field, free)
                    taken[free] = -1

    def _check_links(self, issues: list[Issue]) -> None:
        used: dict[Endpoint, tuple] = {}
        for i, link in enumerate(self.links):
            ends = []
            for side in ("a", "b"):
                end, problem = self._parse_endpoint(getattr(link, side))
                if problem:
                    issues.append(Issue(("links", i, side), problem))
                    continue
                if end in used:
                    issues.append(Issue(("links", i, side), f"{end} is already connected by "
                                        f"{_path(used[end])}; each host and switch port "
                                        "takes one link"))
                used.setdefault(end, ("links", i, side))
                ends.append(end)
            if len(ends) == 2 and ends[0].node == ends[1].node:
                issues.append(Issue(("links", i), f"{link.a} and {link.b} are on the same "
                                    "node; a link joins two different nodes"))
            if link.profile is not None and link.profile not in profiles.PROFILES:
                issues.append(Issue(("links", i, "profile"), f"unknown profile "
                                    f"{link.profile!r}; allowed: {', '.join(profiles.PROFILES)}"))
        for i, host in enumerate(self.hosts):
            if Endpoint(host.name) not in used:
                issues.append(Issue(("hosts", i), f"host {host.name} has no link; add one "
                                    f"such as [{host.name}, s1-p{i + 1}]"))

    def _parse_endpoint(self, text: str) -> tuple[Endpoint | None, str | None]:
        match = _ENDPOINT.match(text)
        hosts = {h.name for h in self.hosts}
        switches = {s.name: s for s in self.switches}
        node = match.group("node") if match else None
        if node not in hosts and node not in switches:
            known = sorted(hosts | set(switches))
            listed = ", ".join(known[:12]) + (", ..." if len(known) > 12 else "")
            return None, (f"{text!r} is not a host or a switch port; write a host name or "
                          f"SWITCH-pPORT (e.g. 's1-p1'); nodes: {listed}")
        port = match.group("port")
        if node in hosts:
            if port is not None:
                return None, (f"{text!r}: a host has one interface; write just {node!r}")
            return Endpoint(node), None
        if port is None:
            return None, f"{text!r} is a switch; name the port, e.g. '{node}-p1'"
        if int(port) > MAX_PORT:
            return None, (f"{text!r}: port {port} is out of range; v1model ports are 0.."
                          f"{MAX_PORT} (9 bits)")
        if int(port) == switches[node].cpu_port:
            return None, (f"{text!r}: port {port} is {node}'s cpu_port; use another port")
        return Endpoint(node, int(port)), None

    def _expand_routes(self, issues: list[Issue]) -> None:
        for i, host in enumerate(self.hosts):
            if host.mac is None:
                issues.append(Issue(("hosts", i, "mac"), "routing: shortest-path needs each "
                                    "host's mac; add one, e.g. '08:00:00:00:01:01'"))
            elif host.gateway is None or host.gateway_mac is None:
                outside = [h for h in self.hosts if h.ip.ip not in host.ip.network]
                if outside:
                    issues.append(Issue(("hosts", i, "gateway"), f"{host.name} must reach "
                                        f"{outside[0].name} ({outside[0].ip.ip}) outside "
                                        f"{host.ip.network}; set gateway and gateway_mac"))
        if issues:
            return
        hosts = {h.name: (str(h.ip.ip), h.mac) for h in self.hosts}
        links = [self.endpoints(link) for link in self.links]
        for sw, new in routing.shortest_path_entries([s.name for s in self.switches], hosts,
                                                     links).items():
            runtime = self.switch(sw).runtime
            have = {(e.table, repr(e.match)) for e in runtime.table_entries}
            runtime.table_entries += [e for e in new if (e.table, repr(e.match)) not in have]
        self.routing = "static"

    # -- queries ---------------------------------------------------------------------

    def host(self, name: str) -> Host:
        for host in self.hosts:
            if host.name == name:
                return host
        raise TrainetError(f"no host {name!r} in topology {self.name!r}")

    def switch(self, name: str) -> Switch:
        for sw in self.switches:
            if sw.name == name:
                return sw
        raise TrainetError(f"no switch {name!r} in topology {self.name!r}")

    def endpoints(self, link: Link) -> tuple[Endpoint, Endpoint]:
        return self._parse_endpoint(link.a)[0], self._parse_endpoint(link.b)[0]

    def link_params(self, link: Link) -> LinkParams:
        """Nominal parameters of ``link`` (see the module docstring for the order)."""
        prof = profiles.PROFILES[link.profile] if link.profile else None
        nics = [self._nic(self.host(end.node)) for end in self.endpoints(link)
                if end.port is None]

        def pick(own, from_profile, nic_values, combine):
            if own is not None:
                return own
            if prof is not None:
                return from_profile
            values = [v for v in nic_values if v is not None]
            return combine(values) if values else None

        bw = pick(link.bw, prof and prof.bw_bps, [n[0] for n in nics], min)
        delay = pick(link.delay, prof and prof.latency_s, [n[1] for n in nics], max)
        mtu = pick(link.mtu, prof and prof.mtu, [n[2] for n in nics], min)
        jitter = link.jitter if link.jitter is not None else (prof.jitter_s if prof else 0.0)
        loss = link.loss if link.loss is not None else (prof.loss_pct if prof else 0.0)
        return LinkParams(bw, delay or 0.0, jitter, loss, mtu or 1500, link.queue)

    def _nic(self, host: Host) -> tuple[float | None, float | None, int | None]:
        prof = profiles.PROFILES[host.nic] if host.nic else None
        return (host.bw if host.bw is not None else prof and prof.bw_bps,
                host.latency if host.latency is not None else prof and prof.latency_s,
                host.mtu if host.mtu is not None else prof and prof.mtu)

    def transport(self, host_name: str) -> profiles.Transport:
        """Host-side transport cost of a host (nominal; ``.emulated(scale)`` for emulation).
        Hosts without a NIC profile use kernel TCP."""
        host = self.host(host_name)
        prof = profiles.PROFILES[host.nic] if host.nic else None
        return prof.transport if prof else profiles.KERNEL_TCP

    def groups(self, kind: str) -> dict[str, list[str]]:
        """Group name -> host names (in host order) for one kind (gpu, node, rack, pod,
        cluster, site)."""
        if kind not in GroupKind.__args__:
            raise TrainetError(f"unknown group kind {kind!r}; allowed: "
                               f"{', '.join(GroupKind.__args__)}")
        out: dict[str, list[str]] = {}
        for host in self.hosts:
            if kind in host.groups:
                out.setdefault(host.groups[kind], []).append(host.name)
        return out

    def group(self, kind: str, name: str) -> list[str]:
        """topology.group("cluster", "A") -> ["a1", "a2", ...]."""
        members = self.groups(kind)
        if name not in members:
            raise TrainetError(f"no {kind} group {name!r} in topology {self.name!r}; "
                               f"{kind} groups: {', '.join(members) or 'none'}")
        return members[name]

    def static_arp(self, host_name: str) -> list[tuple[str, str]]:
        """(ip, mac) entries the host needs: same-subnet peers and its gateway."""
        host = self.host(host_name)
        out = [(str(h.ip.ip), h.mac) for h in self.hosts
               if h is not host and h.mac and h.ip.ip in host.ip.network]
        if host.gateway and host.gateway_mac:
            out.append((str(host.gateway), host.gateway_mac))
        return out

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.model_dump(mode="json", exclude_defaults=True),
                              sort_keys=False, width=100)

    def summary(self) -> str:
        """Human-readable description with units (nominal and emulated rates)."""
        lines = [f"topology {self.name}: {len(self.hosts)} hosts, {len(self.switches)} "
                 f"switches, {len(self.links)} links, scale {self.scale:g}"]
        for sw in self.switches:
            lines.append(f"  switch {sw.name}: {sw.target}, {sw.program}, device_id "
                         f"{sw.device_id}, gRPC port {sw.grpc_port}, "
                         f"{len(sw.runtime.table_entries)} table entries")
        for host in self.hosts:
            groups = ", ".join(f"{k}={v}" for k, v in host.groups.items())
            lines.append(f"  host {host.name}: {host.ip} {host.mac or ''} {host.role} "
                         f"nic={host.nic or '-'} {groups}".rstrip()
                         + (f" device={host.device}" if host.device else ""))
        for link in self.links:
            lines.append(f"  link {link.a} <-> {link.b}: "
                         f"{self.link_params(link).describe(self.scale)}")
        lines += [f"  warning: {w}" for w in self.emulation_warnings()]
        return "\n".join(lines)

    def emulation_warnings(self) -> list[str]:
        """Links whose emulated rate the software switch cannot carry, or so slow that one
        full-size packet takes more than a second; the fix is another ``scale``."""
        out = []
        software = {sw.name for sw in self.switches if sw.target == "software"}
        for i, link in enumerate(self.links):
            params = self.link_params(link).emulated(self.scale)
            if params.bw_bps is None:
                continue
            ceiling = SOFTWARE_SWITCH_PPS * params.mtu * 8
            if params.bw_bps > ceiling and {e.node for e in self.endpoints(link)} & software:
                out.append(f"links[{i}] ({link.a} <-> {link.b}): emulated "
                           f"{format_rate(params.bw_bps)} exceeds the software switch's "
                           f"~{format_rate(ceiling)} at MTU {params.mtu} B; lower scale")
            elif params.bw_bps < params.mtu * 8:
                out.append(f"links[{i}] ({link.a} <-> {link.b}): emulated "
                           f"{format_rate(params.bw_bps)} takes over 1 s per {params.mtu} B "
                           "packet; raise scale")
        return out

