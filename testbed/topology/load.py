"""Loading topology YAML files, with file:line:col in every error.

A file either lists ``hosts``/``switches``/``links`` or names a generator::

    generator: {name: star, workers: 8, nic: roce-100g}
    scale: 1e-4            # optional next to a generator: name, description, scale,
                           # program (relative to this file)
"""
from __future__ import annotations

from pathlib import Path

from testbed.topology.generators import expand_generator
from testbed.topology.spec import Topology
from testbed.topology.specfile import Issue, TopologyError, read_spec


def load_topology(path: str | Path) -> Topology:
    path = Path(path)
    data, marks = read_spec(path, "topology")
    if not isinstance(data, dict):
        raise TopologyError([Issue((), "a topology file is a mapping with hosts, switches "
                                   "and links, or with generator")], str(path))
    try:
        if "generator" in data:
            data = expand_generator(data)
        return Topology.from_data(data, base_dir=path.resolve().parent)
    except TopologyError as e:
        raise e.located(str(path), marks) from None
