"""``trainet trace export``: Chakra traces of measured runs and of modelled steps, read
back with the bindings generated from Chakra's schema."""
import json
import re
from pathlib import Path

import pytest
import yaml

from hosts import shadow
from hosts.collectives.threads import run_ranks
from hosts.strategies import registry
from testbed.cli import main
from testbed.errors import TrainetError
from testbed.model.fabric import fabric
from testbed.model.step import Workload, predict
from testbed.trace import chakra
from testbed.trace.schema import et_def_pb2 as et

SCHEMA = Path(chakra.__file__).parent / "schema" / "et_def.proto"
SCALE = 1e-3
TARGET = shadow.shadow_model("custom:2e7")          # 40 MB of bf16 parameters
DEVICE = shadow.Device("slow", 6 * 2e7 * 2048 / 0.04, "a device computing 2048 tokens in 40 ms")


def load(prefix: Path, world: int):
    """rank -> (metadata, {id: node}), and the communicators by pg_name."""
    out = {}
    for rank in range(world):
        meta, nodes = chakra.read(Path(f"{prefix}.{rank}.et"))
        assert meta.version == "0.0.4" and chakra.attribute(meta, "rank") == rank
        out[rank] = (meta, {n.id: n for n in nodes})
    return out, json.loads(Path(f"{prefix}.comm_groups.json").read_text())


def check_graph(rank: int, nodes: dict, groups: dict, world: int) -> None:
    """Ids run 0..n-1, every dependency points to an earlier node that started no later,
    every node runs on the accelerator, every collective's group holds the rank."""
    assert sorted(nodes) == list(range(len(nodes)))
    for node in nodes.values():
        assert chakra.attribute(node, "is_cpu_op") is False
        for dep in node.data_deps:
            assert dep < node.id
            assert nodes[dep].start_time_micros <= node.start_time_micros + 1
        if node.type == et.COMM_COLL_NODE:
            pg = chakra.attribute(node, "pg_name")
            members = list(range(world)) if pg == chakra.WORLD_GROUP else groups[pg]
            assert rank in members


def check_transfers(traces: dict) -> int:
    """Every send has the receive of the same source, destination, tag and size."""
    ends = {et.COMM_SEND_NODE: [], et.COMM_RECV_NODE: []}
    for _, nodes in traces.values():
        for n in nodes.values():
            if n.type in ends:
                ends[n.type].append(tuple(chakra.attribute(n, k) for k in
                                          ("comm_src", "comm_dst", "comm_tag", "comm_size")))
    assert sorted(ends[et.COMM_SEND_NODE]) == sorted(ends[et.COMM_RECV_NODE])
    return len(ends[et.COMM_SEND_NODE])


def test_bindings_hold_every_field_and_value_of_the_schema():
    text = SCHEMA.read_text()
    assert text.startswith('syntax = "proto3";\n\npackage ChakraProtoMsg;')
    blocks = re.findall(r"^(message|enum) (\w+) \{(.*?)^\}", text, re.S | re.M)
    assert len(blocks) == len(et.DESCRIPTOR.message_types_by_name) + \
        len(et.DESCRIPTOR.enum_types_by_name) == 22
    for kind, name, body in blocks:
        if kind == "enum":
            values = {v.name: v.number for v in et.DESCRIPTOR.enum_types_by_name[name].values}
            assert values == {k: int(n) for k, n in re.findall(r"(\w+) = (\d+);", body)}
        else:
            fields = {f.name: f.number for f in et.DESCRIPTOR.message_types_by_name[name].fields}
            assert fields == {k: int(n) for k, n in
                              re.findall(r"^\s*(?:repeated )?\w+ (\w+) = (\d+);", body, re.M)}


def modelled(tmp_path, strategy, gpus, options, *flags):
    """`trainet trace export --model gpt-20b` of the step, and the prediction of the same
    step as `trainet model predict` makes it (flags: --fabric NAME, --global-batch-size N, ...)."""
    args = ["trace", "export", "--model", "gpt-20b", "--gpus", str(gpus), "--strategy",
            strategy, "-o", str(tmp_path), *flags]
    for key, value in options.items():
        args += ["--option", f"{key}={value}"]
    assert main(args) == 0
    given = dict(zip(flags[::2], flags[1::2]))
    world = fabric(given.get("--fabric", "dgx-a100"), gpus)
    workload = Workload(shadow.shadow_model("gpt-20b"),
                        shadow.device(given.get("--device", "a100-80gb")),
                        int(given.get("--global-batch-size", 2 * gpus)))
    return load(tmp_path / f"gpt-20b-{strategy}-{gpus}gpus", gpus), \
        predict(strategy, workload, world, gpus, options)


def check_against_prediction(traces, groups, prediction) -> None:
    """Each rank's nodes are its role's events in order: kind, duration, payload, the
    rank's group of the event's kind and size, the peer stage's rank, the dependencies."""
    p = prediction
    stages = {role.stage: p.members(role) for role in p.roles}
    for role in p.roles:
        for place, rank in enumerate(stages[role.stage]):
            meta, nodes = traces[rank]
            assert chakra.attribute(meta, "step_s") == p.step_s
            assert len(nodes) == len(role.events)
            for e, node in zip(role.events, [nodes[i] for i in sorted(nodes)]):
                assert node.duration_micros == chakra.microseconds(e.duration_s)
                assert node.start_time_micros == chakra.microseconds(e.start_s)
                assert tuple(node.data_deps) == e.after
                if e.kind == "compute":
                    assert node.type == et.COMP_NODE
                    continue
                assert chakra.attribute(node, "comm_size") == round(e.nbytes)
                if e.op in ("send", "recv"):
                    peer = stages[e.peer][place]
                    ends = (rank, peer) if e.op == "send" else (peer, rank)
                    assert tuple(chakra.attribute(node, k) for k in ("comm_src",
                                                                     "comm_dst")) == ends
                    continue
                assert node.type == et.COMM_COLL_NODE
                pg = chakra.attribute(node, "pg_name")
                members = list(range(p.world)) if pg == chakra.WORLD_GROUP else groups[pg]
                assert members == p.group_ranks(e.group, rank, e.group_size)


def overlapped(nodes: dict) -> bool:
    """Whether some collective runs while the rank computes."""
    def span(n):
        return n.start_time_micros, n.start_time_micros + n.duration_micros
    computing = [span(n) for n in nodes.values() if n.type == et.COMP_NODE]
    return any(lo < c_hi and c_lo < hi for n in nodes.values() if n.type == et.COMM_COLL_NODE
               for lo, hi in [span(n)] if hi > lo for c_lo, c_hi in computing)


@pytest.mark.parametrize("strategy,gpus,options,flags", [
    ("zero3", 16, {}, ()), ("zeropp", 16, {"hpz": 8, "qgz": True}, ()),
    ("megatron", 16, {"tp": 2, "pp": 4}, ()), ("axonn", 16, {"g_r": 2, "g_c": 2, "g_d": 2}, ()),
    ("zero-hier", 16, {}, ("--fabric", "frontier", "--device", "mi250x-gcd"))])
def test_a_modelled_step_reads_back_as_the_model_predicts_it(tmp_path, strategy, gpus,
                                                             options, flags):
    (traces, groups), prediction = modelled(tmp_path, strategy, gpus, options, *flags)
    for rank, (meta, nodes) in traces.items():
        check_graph(rank, nodes, groups, gpus)
        assert chakra.attribute(meta, "strategy") == strategy
        assert chakra.attribute(meta, "fabric") == prediction.fabric
    check_against_prediction(traces, groups, prediction)
    check_transfers(traces)
    # the model hides ZeRO's gathers, AxoNN's collectives and Megatron's gradient all-reduce
    # (during the last backward) behind compute; so does the trace
    assert overlapped(traces[0][1])


def test_a_modelled_trace_at_scale(tmp_path):
    # four micro-batches of 16 sequences (Megatron's default, one sequence each, would be
    # 64 per replica: 16 times the events for the same check)
    (traces, groups), prediction = modelled(tmp_path, "megatron", 1024,
                                            {"tp": 8, "pp": 8, "micro_batch_size": 16},
                                            "--global-batch-size", "1024")
    assert len(list(tmp_path.glob("*.et"))) == 1024
    dp_groups = [g for g in groups.values() if len(g) == 16]
    assert len(dp_groups) == 64 and sorted(r for g in dp_groups for r in g) == list(range(1024))
    check_against_prediction(traces, groups, prediction)
    assert check_transfers(traces) == sum(
        role.ranks * sum(e.op == "send" for e in role.events) for role in prediction.roles)


def measured_run(tmp_path: Path, strategy: str, options: dict) -> tuple[Path, dict]:
    """Two shadow ranks as threads, 3 steps, written as `trainet run` writes results."""
    def body(comm):
        info = registry.get(strategy)
        s = info.build("shadow", registry.Context(comm, info, info.parse_options(options),
                                                  target=TARGET, device=DEVICE, batch=2,
                                                  scale=SCALE, mfu=1.0))
        s.setup()
        rows = [{"step": step, "rank": comm.rank, **s.step(None).as_dict(),
                 "timeline": comm.timeline()} for step in range(3)]
        s.close()
        return rows

    rows = run_ranks(2, body)
    root = tmp_path / "results"
    metrics = root / "runs" / "v" / strategy / "rep0" / "metrics"
    metrics.mkdir(parents=True)
    for rank, records in enumerate(rows):
        (metrics / f"rank{rank}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    config = {"experiment": {"workload": {"mode": "shadow"}}, "scale": SCALE,
              "variants": [{"name": "v"}], "strategies": [strategy]}
    (root / "config.yaml").write_text(yaml.safe_dump(config))
    return root, {rank: records[1:] for rank, records in enumerate(rows)}


@pytest.mark.parametrize("strategy,options,sizes", [
    ("ddp", {}, {et.ALL_REDUCE: 1}), ("zero3", {}, {et.ALL_GATHER: 2, et.REDUCE_SCATTER: 1}),
    ("megatron", {"pp": 2, "micro_batches": 2}, {})])
def test_a_measured_run_reads_back_with_its_measured_times(tmp_path, strategy, options, sizes):
    root, steps = measured_run(tmp_path, strategy, options)
    assert main(["trace", "export", str(root), "-o", str(tmp_path / "out")]) == 0
    traces, groups = load(tmp_path / "out" / "v" / f"{strategy}-rep0", 2)
    model_bytes = shadow.model_bytes(TARGET.params)
    for rank, (meta, nodes) in traces.items():
        check_graph(rank, nodes, groups, 2)
        assert chakra.attribute(meta, "time_units") == "nominal"
        records = steps[rank]
        ops = [op for r in records for op in r["timeline"]["ops"]]
        comm = [n for n in nodes.values() if n.type != et.COMP_NODE]
        assert len(comm) == len(ops)
        for node, op in zip(comm, ops):        # measured run time, nominal payload
            assert abs(node.duration_micros - (op["end_s"] - op["start_s"]) * 1e6) <= 1
            assert chakra.attribute(node, "comm_size") == round(op["bytes"] / SCALE)
        start = 0.0
        for record in records:                 # compute: the step less the waits
            end = start + record["step_s"]
            compute = [n for n in nodes.values() if n.type == et.COMP_NODE and
                       start * 1e6 - 1 <= n.start_time_micros < end * 1e6 - 1]
            waited = sum(w["end_s"] - w["start_s"] for w in record["timeline"]["waits"])
            events = len(record["timeline"]["ops"]) + len(record["timeline"]["waits"]) + 1
            assert abs(sum(n.duration_micros for n in compute) -
                       (record["step_s"] - waited) * 1e6) <= 2 * events
            # the modelled compute was slept inside the step; what the machine's load adds
            # to a step outside the waits only ever lengthens it
            assert sum(n.duration_micros for n in compute) / 1e6 >= (
                record["compute_s"] + record["interference_s"] - 1e-3)
            start = end
        per_step = {}
        for n in comm:
            if n.type == et.COMM_COLL_NODE:
                kind = chakra.attribute(n, "comm_type")
                per_step[kind] = per_step.get(kind, 0) + chakra.attribute(n, "comm_size") / 2
        for kind, factor in sizes.items():     # the pattern's bytes, chunked and padded
            assert per_step[kind] == pytest.approx(factor * model_bytes, rel=0.01)
    if strategy == "megatron":
        assert check_transfers(traces) > 0


def test_bad_input_is_a_clear_error(tmp_path, capsys):
    def error(*args):
        assert main(["trace", "export", *args, "-o", str(tmp_path / "out")]) != 0
        return capsys.readouterr().err

    assert "not a results directory of `trainet run`" in error(str(tmp_path))
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(
        {"scale": 1, "variants": [{"name": "v"}], "strategies": ["ddp"]}))
    assert "no step records under runs/" in error(str(tmp_path))
    metrics = tmp_path / "runs" / "v" / "ddp" / "rep0" / "metrics"
    metrics.mkdir(parents=True)
    (metrics / "rank0.jsonl").write_text(json.dumps({"step": 0, "step_s": 1.0}) + "\n")
    assert "step 0 has no timeline" in error(str(tmp_path))
    assert "unknown strategy 'ring'" in error("--model", "gpt-20b", "--gpus", "8",
                                             "--strategy", "ring")
    assert "gpt-1.3b, gpt-2.7b" in error("--model", "gpt-7b", "--gpus", "8", "--strategy", "ddp")
    assert "does not divide the 8 workers" in error("--model", "gpt-20b", "--gpus", "8",
                                                   "--strategy", "megatron:tp=3,pp=1")
    assert "unknown fabric 'nvl72'; choose one of dgx-a100" in error(
        "--model", "gpt-20b", "--gpus", "8", "--strategy", "zero3", "--fabric", "nvl72")
    assert "--option 'tp': write KEY=VALUE" in error("--model", "gpt-20b", "--gpus", "8",
                                                     "--strategy", "zero3", "--option", "tp")
    assert "also give --strategy" in error("--model", "gpt-20b", "--gpus", "8")
    assert "not both" in error(str(tmp_path), "--model", "gpt-20b")
    assert main(["trace", "export", "--model", "gpt-1.3b", "--gpus", "2", "--strategy",
                 "ddp", "-o", str(tmp_path / "t")]) == 0
    path = tmp_path / "t" / "gpt-1.3b-ddp-2gpus.0.et"
    path.write_bytes(path.read_bytes()[:-3])
    with pytest.raises(TrainetError, match="byte .*: a message of .* bytes runs past the end"):
        chakra.read(path)
