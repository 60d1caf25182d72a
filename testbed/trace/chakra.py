"""Per-rank Chakra execution traces, written and read with the bindings protoc generated
from Chakra's schema (testbed/trace/schema).

A trace file holds a ``GlobalMetadata`` message and then one ``Node`` per phase, each
message preceded by its length as a varint (protobuf's delimited stream, as Chakra's
``encodeMessage`` writes it; the varint comes from protobuf's own codec). Rank ``r`` of
a trace named ``NAME`` is ``NAME.r.et``, the name ASTRA-sim's
``--workload-configuration=NAME`` looks for, and ``NAME.comm_groups.json`` maps the
communicator ids the nodes name in ``pg_name`` to their ranks (ASTRA-sim's
``--comm-group-configuration``; id 0, every rank, is not listed).

Nodes carry the attributes Chakra's converters write and ASTRA-sim's workload layer
reads: ``is_cpu_op`` (false: everything runs on the accelerator), and for
communication ``comm_type`` (a ``CollectiveCommType``), ``comm_size`` (bytes),
``pg_name``, and for sends and receives ``comm_src``, ``comm_dst`` and ``comm_tag``
(the n-th message from one rank to another has tag n on both sides). A collective
through a switch or a server also carries ``route``. A node's ``data_deps`` are the
phases it waits for; ``duration_micros`` its measured or modelled time.

Kinds without a ring collective of their own: a push of gradients to a switch or
server is a ``REDUCE``, a pull of parameters a ``BROADCAST``, both in one an
``ALL_REDUCE`` (what each rank gives and gets back matches one). ASTRA-sim simulates
all-reduce, all-gather, reduce-scatter and all-to-all, replays a broadcast's duration
and rejects a reduce.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from google.protobuf.internal.decoder import _DecodeVarint32
from google.protobuf.internal.encoder import _VarintBytes
from google.protobuf.message import DecodeError

from testbed.errors import TrainetError
from testbed.trace.phases import Phase
from testbed.trace.schema import et_def_pb2 as et

VERSION = "0.0.4"           # the schema version Chakra's own generators write
COMM_TYPES = {"all-reduce": et.ALL_REDUCE, "all-gather": et.ALL_GATHER,
              "reduce-scatter": et.REDUCE_SCATTER, "all-to-all": et.ALL_TO_ALL,
              "push": et.REDUCE, "pull": et.BROADCAST, "push-pull": et.ALL_REDUCE}
TRANSFER_TYPES = {"send": et.COMM_SEND_NODE, "recv": et.COMM_RECV_NODE}
WORLD_GROUP = "0"


@dataclass(frozen=True)
class Written:
    name: str
    prefix: Path                 # NAME with its directory: ASTRA-sim's workload prefix
    files: list[Path]
    comm_groups: Path
    nodes: int                   # over every rank


def microseconds(seconds: float) -> int:
    return max(0, round(seconds * 1e6))


def _attr(name: str, value) -> et.AttributeProto:
    if isinstance(value, bool):
        return et.AttributeProto(name=name, bool_val=value)
    if isinstance(value, int):
        return et.AttributeProto(name=name, int64_val=value)
    if isinstance(value, float):
        return et.AttributeProto(name=name, double_val=value)
    return et.AttributeProto(name=name, string_val=str(value))


def attribute(node, name: str, default=None):
    """The value of ``node``'s (or a GlobalMetadata's) attribute ``name``."""
    for a in node.attr:
        if a.name == name:
            field = a.WhichOneof("value")
            return getattr(a, field) if field else default
    return default


def _communicators(ranks: dict[int, list[Phase]], world: int) -> dict[tuple, str]:
    """Group -> its pg_name: every rank is "0", the others numbered from 1 as met."""
    ids: dict[tuple, str] = {}
    everyone = list(range(world))
    for rank in sorted(ranks):
        for phase in ranks[rank]:
            if phase.kind != "collective" or phase.op in TRANSFER_TYPES or \
                    phase.group in ids:
                continue
            ids[phase.group] = (WORLD_GROUP if sorted(phase.group) == everyone
                                else str(sum(1 for v in ids.values() if v != WORLD_GROUP) + 1))
    return ids


def _node(index: int, phase: Phase, rank: int, pg_names: dict, tags: dict) -> et.Node:
    kind = (et.COMP_NODE if phase.kind == "compute" else
            TRANSFER_TYPES.get(phase.op, et.COMM_COLL_NODE))
    node = et.Node(id=index, name=phase.name, type=kind,
                   duration_micros=microseconds(phase.duration_s))
    node.data_deps.extend(phase.after)
    if phase.start_s is not None:
        node.start_time_micros = microseconds(phase.start_s)
    node.attr.append(_attr("is_cpu_op", False))
    if kind == et.COMM_COLL_NODE:
        if phase.op not in COMM_TYPES:
            raise TrainetError(f"rank {rank}: collective {phase.name!r} of kind {phase.op!r}"
                               f" has no Chakra type; kinds: {', '.join(COMM_TYPES)}")
        node.attr.extend([_attr("comm_type", COMM_TYPES[phase.op]),
                          _attr("comm_size", round(phase.nbytes)),
                          _attr("pg_name", pg_names[phase.group])])
        if phase.route != "ring":
            node.attr.append(_attr("route", phase.route))
    elif kind != et.COMP_NODE:
        src, dst = phase.group
        tag = tags.get((src, dst, phase.op), 0)
        tags[src, dst, phase.op] = tag + 1
        node.attr.extend([et.AttributeProto(name="comm_src", int32_val=src),
                          et.AttributeProto(name="comm_dst", int32_val=dst),
                          et.AttributeProto(name="comm_tag", int32_val=tag),
                          _attr("comm_size", round(phase.nbytes))])
    return node


def check_order(rank: int, phases: list[Phase]) -> None:
    for i, phase in enumerate(phases):
        late = [a for a in phase.after if not 0 <= a < i]
        if late:
            raise TrainetError(f"rank {rank}: phase {i} ({phase.name}) waits for phase "
                               f"{late[0]}, which does not come before it")


def write(out_dir: Path, name: str, ranks: dict[int, list[Phase]], world: int,
          metadata: dict) -> Written:
    """``NAME.RANK.et`` for every rank of ``ranks`` and ``NAME.comm_groups.json`` in
    ``out_dir``; ``metadata`` goes into each file's GlobalMetadata as attributes."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    pg_names = _communicators(ranks, world)
    tags: dict = {}
    shared = et.GlobalMetadata(version=VERSION, attr=[_attr(k, v) for k, v in metadata.items()]
                               ).SerializeToString()
    encoded: dict = {}      # (index, phase) -> its bytes: ranks of one role share them
    files, nodes = [], 0
    for rank in sorted(ranks):
        check_order(rank, ranks[rank])
        path = out_dir / f"{name}.{rank}.et"
        # serialized messages concatenated are one message with both's fields
        meta = shared + et.GlobalMetadata(attr=[_attr("rank", rank), _attr("world", world)]
                                          ).SerializeToString()
        with path.open("wb") as f:
            f.write(_VarintBytes(len(meta)) + meta)
            for i, phase in enumerate(ranks[rank]):
                if phase.op in TRANSFER_TYPES:          # its tag counts the pair's messages
                    f.write(_delimited(_node(i, phase, rank, pg_names, tags)))
                    continue
                if (i, phase) not in encoded:
                    encoded[i, phase] = _delimited(_node(i, phase, rank, pg_names, tags))
                f.write(encoded[i, phase])
        files.append(path)
        nodes += len(ranks[rank])
    groups = out_dir / f"{name}.comm_groups.json"
    groups.write_text(json.dumps({pg: list(group) for group, pg in pg_names.items()
                                  if pg != WORLD_GROUP}, indent=1) + "\n")
    return Written(name, out_dir / name, files, groups, nodes)


def _delimited(message) -> bytes:
    data = message.SerializeToString()
    return _VarintBytes(len(data)) + data


def read(path: Path) -> tuple[et.GlobalMetadata, list[et.Node]]:
    """The GlobalMetadata and the nodes of one trace file."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as err:
        raise TrainetError(f"{path}: cannot read the trace: {err.strerror}") from None
    messages, pos = [], 0
    while pos < len(data):
        try:
            size, start = _DecodeVarint32(data, pos)
        except (IndexError, DecodeError):
            raise TrainetError(f"{path}: byte {pos}: a message length is cut off; the file "
                               "is truncated or not a Chakra trace") from None
        if start + size > len(data):
            raise TrainetError(f"{path}: byte {pos}: a message of {size} bytes runs past "
                               f"the end ({len(data)} bytes); the file is truncated")
        message = et.GlobalMetadata() if not messages else et.Node()
        try:
            message.ParseFromString(data[start:start + size])
        except DecodeError as err:
            raise TrainetError(f"{path}: byte {pos}: not a Chakra "
                               f"{type(message).__name__}: {err}") from None
        messages.append(message)
        pos = start + size
    if not messages:
        raise TrainetError(f"{path}: empty; a Chakra trace starts with its GlobalMetadata")
    return messages[0], messages[1:]
