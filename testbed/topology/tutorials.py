"""Import of a p4lang-tutorials exercise: ``topology.json`` plus its ``sN-runtime.json``.

topology.json holds ``hosts`` (name -> ip, mac, commands), ``switches`` (name ->
runtime_json, optionally program and cpu_port) and ``links`` as ``[a, b, latency?,
bandwidth?]``, where a numeric latency is milliseconds and bandwidth is Mbit/s (Mininet's
TCLink). A runtime JSON gives target, p4info, bmv2_json and the table, multicast group and
clone session entries.

Relative paths inside the files are tried against the topology file's directory, then
its parent (tutorial exercises run from the parent). A switch runs the P4 source whose
stem is that of its bmv2_json (build/basic.json -> basic.p4), searched in the same two
directories, unless ``p4`` names the source. A switch whose program nothing names runs
the exercise's single ``.p4`` (the first of the two directories that holds any), as the
tutorials' Makefile does; several there are an error. Host commands ``route add default gw G`` and
``arp ... -s G MAC`` become the host's gateway and gateway_mac; other commands are kept.
The runtime JSON's target, p4info and bmv2_json are not carried over: switches run on the
software target, whose P4Info is built from the source.
"""
from __future__ import annotations

import re
from pathlib import Path

from pydantic import ValidationError

from testbed.topology.runtime import Runtime
from testbed.topology.spec import Topology
from testbed.topology.specfile import Issue, TopologyError, from_validation, read_spec

_ROUTE = re.compile(r"^route add default gw (\S+)")
_ARP = re.compile(r"^arp .*-s (\S+) (\S+)")
RUNTIME_KEYS = ("table_entries", "multicast_group_entries", "clone_session_entries")


def import_tutorial(topology_json: str | Path, p4: str | Path | None = None,
                    scale: float = 1.0) -> Topology:
    path = Path(topology_json).resolve()
    data, marks = _read(path)
    if not isinstance(data, dict) or not {"hosts", "switches"} & set(data):
        raise TopologyError([Issue((), "expected a JSON object with hosts, switches and "
                                   "links (a p4lang tutorials topology.json)")], str(path))
    for key, kind, example in (("hosts", dict, '{"h1": {"ip": ...}}'),
                               ("switches", dict, '{"s1": {"runtime_json": ...}}'),
                               ("links", list, '[["h1", "s1-p1"]]')):
        if not isinstance(data.get(key, kind()), kind):
            raise TopologyError([Issue((key,), f"a tutorials topology.json gives {key} as "
                                       f"{example}")]).located(str(path), marks)
    dirs = [path.parent, path.parent.parent]
    hosts = data.get("hosts") or {}
    switches = data.get("switches") or {}
    spec = {"name": path.parent.name, "scale": scale,
            "hosts": [_host(name, h) for name, h in hosts.items()],
            "switches": [_switch(name, s, dirs, p4, path, marks)
                         for name, s in switches.items()],
            "links": [_link(i, link, path, marks) for i, link in enumerate(data.get("links", []))]}
    try:
        return Topology.from_data(spec, base_dir=path.parent)
    except TopologyError as e:
        names = {"hosts": list(hosts), "switches": list(switches)}
        issues = [Issue(_json_path(i.path, names), i.message) for i in e.issues]
        raise TopologyError(issues).located(str(path), marks) from None


def _read(path: Path):
    return read_spec(path, "tutorials topology.json")


def _host(name: str, host) -> dict:
    if not isinstance(host, dict):
        return {"name": name, "ip": host}
    out = {"name": name, "role": "host"}
    out.update({k: host[k] for k in ("ip", "mac") if k in host})
    commands = []
    for command in host.get("commands", []):
        route, arp = _ROUTE.match(command), _ARP.match(command)
        if route and "gateway" not in out:
            out["gateway"] = route.group(1)
        elif arp and arp.group(1) == out.get("gateway"):
            out["gateway_mac"] = arp.group(2)
        else:
            commands.append(command)
    if commands:
        out["commands"] = commands
    return out


def _switch(name: str, sw, dirs: list[Path], p4, topo_path: Path, marks) -> dict:
    sw = sw if isinstance(sw, dict) else {}
    out: dict = {"name": name}
    if "cpu_port" in sw:
        out["cpu_port"] = sw["cpu_port"]
    if "cli_input" in sw:
        raise TopologyError([Issue(("switches", name, "cli_input"), "simple_switch_CLI "
                                   "command files are not imported; write the entries as a "
                                   "runtime_json file (table_entries) instead")]
                            ).located(str(topo_path), marks)
    bmv2_json = sw.get("program")
    if "runtime_json" in sw:
        runtime_path = _find(sw["runtime_json"], dirs)
        if runtime_path is None:
            raise TopologyError([Issue(("switches", name, "runtime_json"),
                                       f"{sw['runtime_json']!r} not found in "
                                       f"{' or '.join(map(str, dirs))}")]
                                ).located(str(topo_path), marks)
        runtime, bmv2_json = _runtime(runtime_path, bmv2_json)
        out["runtime"] = {k: v for k, v in runtime.items() if k in RUNTIME_KEYS}
    out["program"] = str(_program(name, bmv2_json, dirs, p4, topo_path, marks))
    return out


def _runtime(path: Path, bmv2_json):
    data, marks = _read(path)
    if not isinstance(data, dict):
        raise TopologyError([Issue((), "expected a JSON object")], str(path))
    try:
        Runtime.model_validate({k: v for k, v in data.items() if k in RUNTIME_KEYS})
    except ValidationError as e:
        raise from_validation(e).located(str(path), marks) from None
    return data, bmv2_json or data.get("bmv2_json")


def _program(name: str, bmv2_json, dirs: list[Path], p4, topo_path: Path, marks) -> Path:
    if p4 is not None:
        return Path(p4).resolve()
    if not bmv2_json:
        return _single_source(name, dirs, topo_path, marks)
    source = Path(bmv2_json).stem + ".p4"
    found = _find(source, dirs)
    if found is None:
        raise TopologyError([Issue(("switches", name), f"P4 source {source!r} (for "
                                   f"{bmv2_json!r}) not found in "
                                   f"{' or '.join(map(str, dirs))}; pass it with --p4 "
                                   f"PATH/{source}")]).located(str(topo_path), marks)
    return found


def _single_source(name: str, dirs: list[Path], topo_path: Path, marks) -> Path:
    for d in dirs:
        sources = sorted(d.glob("*.p4"))
        if len(sources) == 1:
            return sources[0].resolve()
        if sources:
            raise TopologyError([Issue(("switches", name), "no runtime_json bmv2_json or "
                                       "program names the switch's P4 program and "
                                       f"{d} holds several: "
                                       f"{', '.join(p.name for p in sources)}; pass one with "
                                       "--p4 PATH")]).located(str(topo_path), marks)
    raise TopologyError([Issue(("switches", name), "no runtime_json bmv2_json or program "
                               "names the switch's P4 program and no .p4 file is in "
                               f"{' or '.join(map(str, dirs))}; pass the P4 source "
                               "(--p4 PATH)")]).located(str(topo_path), marks)


def _find(relative: str, dirs: list[Path]) -> Path | None:
    for d in dirs:
        candidate = d / relative
        if candidate.is_file():
            return candidate.resolve()
    return None


def _link(i: int, link, topo_path: Path, marks) -> dict:
    if not isinstance(link, list) or not 2 <= len(link) <= 4:
        raise TopologyError([Issue(("links", i), f"{link!r}: a link is [a, b, latency?, "
                                   "bandwidth?]")]).located(str(topo_path), marks)
    out = {"a": link[0], "b": link[1]}
    if len(link) > 2:
        out["delay"] = f"{link[2]}ms" if isinstance(link[2], (int, float)) else link[2]
    if len(link) > 3 and link[3] is not None:
        out["bw"] = f"{link[3]}Mbit" if isinstance(link[3], (int, float)) else link[3]
    return out


_LINK_FIELDS = {"a": 0, "b": 1, "delay": 2, "bw": 3}


def _json_path(path: tuple, names: dict[str, list[str]]) -> tuple:
    """A spec path as a path in topology.json (hosts and switches are keyed by name,
    links are lists)."""
    if len(path) >= 2 and path[0] in names and isinstance(path[1], int) \
            and path[1] < len(names[path[0]]):
        return (path[0], names[path[0]][path[1]]) + path[2:]
    if len(path) >= 3 and path[0] == "links" and path[2] in _LINK_FIELDS:
        return path[:2] + (_LINK_FIELDS[path[2]],)
    return path
