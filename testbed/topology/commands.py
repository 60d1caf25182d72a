"""Handlers of ``trainet topo show|import|generate|profiles``."""
from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import yaml

from testbed.errors import TrainetError
from testbed.topology import profiles
from testbed.topology.generators import generate
from testbed.topology.load import load_topology
from testbed.topology.spec import Topology
from testbed.units import format_duration, format_rate


def show(args) -> int:
    topo = load_topology(args.file)
    if args.scale is not None:
        topo.scale = profiles.check_scale(args.scale)
    if args.json:
        print(json.dumps(_topology_json(topo), indent=1))
        return 0
    print(topo.summary())
    return 0


def _topology_json(topo: Topology) -> dict:
    """The spec with every link's resolved nominal and emulated parameters (bit/s,
    seconds, percent) and the emulation warnings."""
    data = topo.model_dump(mode="json")
    for link, out in zip(topo.links, data["links"]):
        params = topo.link_params(link)
        out["resolved"] = {**asdict(params),
                           "emulated_bw_bps": params.emulated(topo.scale).bw_bps}
    data["warnings"] = topo.emulation_warnings()
    return data


def import_(args) -> int:
    from testbed.topology.tutorials import import_tutorial
    topo = import_tutorial(args.topology_json, p4=args.p4, scale=args.scale or 1.0)
    _emit(topo, args.output)
    return 0


def generate_(args) -> int:
    params = {}
    for item in args.params:
        key, sep, value = item.partition("=")
        if not sep:
            raise TrainetError(f"generator parameter {item!r}: write KEY=VALUE, e.g. workers=8")
        params[key.replace("-", "_")] = yaml.safe_load(value)
    _emit(Topology.from_data(generate(args.name, **params), base_dir=Path.cwd()), args.output)
    return 0


def list_profiles(args) -> int:
    if args.json:
        print(json.dumps([asdict(p) for p in profiles.PROFILES.values()], indent=1))
        return 0
    for p in profiles.PROFILES.values():
        transport = ""
        if p.transport:
            t = p.transport
            transport = (f", {t.name}: {format_duration(t.per_message_s)}/message + "
                         f"{t.per_byte_s * 1e9:g} ns/B host CPU")
        print(f"{p.name:15} {p.kind:4} {format_rate(p.bw_bps):>10}  one-way "
              f"{format_duration(p.latency_s)}, MTU {p.mtu} B{transport}")
        if args.verbose:
            print(f"{'':21}{p.source}")
    return 0


def _emit(topo: Topology, output: str | None) -> None:
    text = topo.to_yaml()
    if output:
        Path(output).write_text(text)
        print(f"wrote {output}: {len(topo.hosts)} hosts, {len(topo.switches)} switches, "
              f"{len(topo.links)} links")
    else:
        print(text, end="")
