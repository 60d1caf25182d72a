"""Loading topology YAML files, with file:line:col in every error.

A file either lists ``hosts``/``switches``/``links`` or names a generator::

    generator: {name: star, workers: 8, nic: roce-100g}
    scale: 1e-4            # optional next to a generator: name, description, scale,
                           # program (relative to this file)
"""
from __future__ import annotations

import re
from pathlib import Path

import yaml

from testbed.topology.errors import Issue, TopologyError
from testbed.topology.generators import GENERATORS, generate
from testbed.topology.spec import Topology

GENERATOR_EXTRAS = ("name", "description", "scale", "program")


class _Loader(yaml.SafeLoader):
    """YAML 1.1 without base-60 numbers, so unquoted MAC addresses such as
    10:00:00:00:01:11 stay strings; ``1e-4`` is a float."""


_INT, _FLOAT = "tag:yaml.org,2002:int", "tag:yaml.org,2002:float"
_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag not in (_INT, _FLOAT)]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
_Loader.add_implicit_resolver(_INT, re.compile(
    r"^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+)$"),
    list("-+0123456789"))
_Loader.add_implicit_resolver(_FLOAT, re.compile(
    r"^(?:[-+]?(?:[0-9][0-9_]*\.[0-9_]*(?:[eE][-+]?[0-9]+)?|[0-9][0-9_]*[eE][-+]?[0-9]+"
    r"|\.[0-9_]+(?:[eE][-+]?[0-9]+)?|\.(?:inf|Inf|INF))|\.(?:nan|NaN|NAN))$"),
    list("-+0123456789."))


def load_topology(path: str | Path) -> Topology:
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as e:
        raise TopologyError([Issue((), f"cannot read the topology file: {e.strerror}")],
                            str(path)) from None
    data, marks = parse_yaml(text, str(path))
    if not isinstance(data, dict):
        raise TopologyError([Issue((), "a topology file is a mapping with hosts, switches "
                                   "and links, or with generator")], str(path))
    try:
        if "generator" in data:
            data = _generated(data)
        return Topology.from_data(data, base_dir=path.resolve().parent)
    except TopologyError as e:
        raise e.located(str(path), marks) from None


def _generated(data: dict) -> dict:
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


def parse_yaml(text: str, source: str) -> tuple[object, dict[tuple, tuple[int, int]]]:
    """The data and, for every path in it, the (line, col) where its value starts."""
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        where = f"{source}:{mark.line + 1}:{mark.column + 1}" if mark else source
        detail = " ".join(part for part in (e.context, e.problem) if part)
        raise TopologyError([Issue((), f"YAML syntax error: {detail}")], where) from None
    finally:
        loader.dispose()
    marks: dict[tuple, tuple[int, int]] = {}
    if node is not None:
        _walk(node, (), marks)
    return data, marks


def _walk(node, path: tuple, marks: dict) -> None:
    marks[path] = (node.start_mark.line + 1, node.start_mark.column + 1)
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            _walk(value, path + (key.value,), marks)
            marks[path + (key.value,)] = (key.start_mark.line + 1, key.start_mark.column + 1)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _walk(item, path + (i,), marks)
