"""``trainet check FILE...``: what a run would refuse, found without root and without
starting anything.

An experiment file goes through the run's own loader (every message ``trainet run``
would give before its network comes up), then per variant the memory fit of each
strategy and the shaping of its links (nominal and emulated rate, delay, loss); a
topology file through the topology loader; a P4 program, and every program a topology's
switches run, through the P4 frontend. Which of the kernel or the switch emulates each
link property depends on the machine's qdiscs, which only root can try: ``trainet run``
prints that part of the shaping plan when it starts.

``plan``, ``model predict --fabric``, ``model measure`` and ``model validate`` read
experiment and topology files through :func:`validate_inputs` first, so a misspelt key
or an unknown strategy is refused there too.
"""
from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from testbed.errors import TrainetError
from testbed.topology.specfile import from_validation, read_spec
from testbed.units import format_duration, format_rate

P4_SUFFIXES = (".p4", ".p4_16")


def kind_of(path: Path) -> str:
    """``p4``, ``experiment`` (a mapping with strategies, or a workload script) or
    ``topology``."""
    if path.suffix in P4_SUFFIXES:
        return "p4"
    data, _ = read_spec(path, "experiment or topology")
    experiment = isinstance(data, dict) and ("strategies" in data or "script" in (
        data.get("workload") if isinstance(data.get("workload"), dict) else {}))
    return "experiment" if experiment else "topology"


def check_file(path: str) -> list[str]:
    """The report of one valid file; a TrainetError names what is wrong."""
    file = Path(path)
    kind = kind_of(file)
    if kind == "p4":
        return [_check_program(file)]
    if kind == "experiment":
        return _check_experiment(file)
    return _check_topology(file)


def _check_program(path: Path) -> str:
    from testbed.p4.lowering.program import load_program
    program = load_program(str(path))
    tables = sum(len(c.tables) for c in program.controls.values())
    return (f"{path}: ok: P4 program ({program.arch}, {len(program.controls)} controls, "
            f"{tables} tables)")


def _programs(topology) -> list[str]:
    """A line per distinct P4 program of the topology's switches, each compiled."""
    lines = []
    for program in dict.fromkeys(s.program for s in topology.switches):
        if program is not None and Path(program).suffix in P4_SUFFIXES:
            lines.append("  " + _check_program(_shown(Path(program))))
    return lines


def _shown(path: Path) -> Path:
    """The path relative to the current folder when it is inside it."""
    try:
        return path.resolve().relative_to(Path.cwd())
    except ValueError:
        return path


def _shaping(topology) -> list[str]:
    """The links grouped by how they are shaped: nominal -> emulated rate, delay, loss."""
    from testbed.net.topology import blueprint_from_topology
    groups = Counter()
    for link in blueprint_from_topology(topology).links:
        s = link.shape
        groups[(s.nominal_bps, s.rate_bps, s.delay_s, s.loss)] += 1
    lines = []
    for (nominal, rate, delay, loss), count in groups.items():
        rate_text = (f"{format_rate(nominal)} nominal, {format_rate(rate)} emulated"
                     if nominal else "rate not limited")
        lines.append(f"    {count} link{'s' * (count != 1)}: {rate_text}, one-way delay "
                     f"{format_duration(delay)}, loss {loss * 100:g} %")
    return lines


def _check_topology(path: Path) -> list[str]:
    if path.suffix == ".json":           # a p4lang tutorials topology.json
        from testbed.topology.tutorials import import_tutorial
        topology = import_tutorial(path)
    else:
        from testbed.topology.load import load_topology
        topology = load_topology(path)
    return [f"{path}: ok: topology, {len(topology.hosts)} hosts, {len(topology.switches)} "
            f"switches, {len(topology.links)} links, co-scaling {topology.scale:g}",
            *_programs(topology), "  shaping:", *_shaping(topology)]


def _batch_text(batch) -> str:
    """``global batch 8 = 4 replicas x 2 sequences, 1 micro-batch``."""
    text = (f"global batch {batch.global_batch} = {batch.replicas} "
            f"replica{'s' * (batch.replicas != 1)} x {batch.replica_batch} "
            f"sequence{'s' * (batch.replica_batch != 1)}")
    size, count = (batch.options.get(k) for k in ("micro_batch_size", "micro_batches"))
    if size:
        count = batch.replica_batch // size
    elif count is None and (batch.micro_option is None or batch.accumulates):
        count = 1
    if count is None:
        return text + ", the strategy's micro-batches"
    return text + f", {count} micro-batch{'es' * (count != 1)} of " \
        f"{batch.replica_batch // count}"


def _check_experiment(path: Path) -> list[str]:
    from testbed.experiment.fit import memory_checks
    from testbed.experiment.spec import check_presets, load_experiment
    plan = load_experiment(path)
    check_presets(plan)
    checks = memory_checks(plan)
    spec = plan.spec
    variants = plan.variants()
    runs = len(variants) * len(plan.strategies) * spec.repetitions
    w = spec.workload
    what = (f"{w.mode} {w.shadow_model or 'gpt-1.3b'} on {plan.device_flag(None)}"
            if w.mode == "shadow" else f"real {w.model}")
    lines = [f"{path}: ok: experiment {spec.name}: {len(variants)} variant"
             f"{'s' * (len(variants) != 1)} x {len(plan.strategies)} strategies x "
             f"{spec.repetitions} repetition{'s' * (spec.repetitions != 1)} = {runs} runs "
             f"of {w.steps} steps, {what}, {len(plan.workers)} workers "
             f"({', '.join(plan.workers)}), co-scaling {plan.scale:g}",
             *_programs(plan.topology)]
    for variant in variants:
        lines.append(f"  variant {variant.name}:")
        for check in (c for c in checks if c.variant == variant.name):
            lines.append(f"    {check.label}: memory {check.fit.verdict()} ({check.status}); "
                         f"{_batch_text(plan.batch_of(plan.strategy(check.label), variant))}")
        lines.extend(_shaping(variant.apply(plan.base_topology(variant))))
    return lines


def main(args) -> int:
    failed = 0
    for path in args.files:
        try:
            lines = check_file(path)
        except TrainetError as e:
            failed += 1
            print(str(e) if str(e).startswith(path) else f"{path}: {e}", file=sys.stderr)
            continue
        print("\n".join(lines), flush=True)
    if len(args.files) > 1:
        print(f"{len(args.files) - failed} of {len(args.files)} files ok")
    return 2 if failed else 0


def validate_experiment_spec(path: Path) -> None:
    """An experiment file's keys, types and units (the spec models), without its
    topology: a results directory's copy may name a topology file by a path relative to
    where the experiment was, and names of an earlier version stay readable."""
    from pydantic import ValidationError

    from testbed.experiment.spec import Experiment
    data, marks = read_spec(path, "experiment")
    try:
        Experiment.model_validate(data, context={"recorded": True})
    except ValidationError as e:
        raise from_validation(e).located(str(path), marks) from None


def validate_fabric_file(value: str, flag: str) -> None:
    """A fabric file is checked as ``trainet check`` checks it; a value that looks like
    a file (a YAML or JSON suffix, or a folder in it) and is missing is named as such."""
    path = Path(value)
    if path.suffix not in (".yaml", ".yml", ".json") and "/" not in value:
        return                    # a fabric's name: its command checks it
    if not path.is_file():
        raise TrainetError(f"{flag} {value}: no such file; give a topology or experiment "
                           "file (trainet check FILE validates one)")
    if kind_of(path) == "experiment":
        _check_experiment(path)
    else:
        from testbed.topology.load import load_topology
        load_topology(path)


# Commands whose -o/--output or --plot names a file to write: its folder must exist.
FILE_OUTPUTS = {("p4", "info"): "output", ("topo", "import"): "output",
                ("topo", "generate"): "output", ("model", "measure"): "output",
                ("model", "predict"): "plot"}
# Commands whose --model is a model of the analytical model or of shadow workers.
MODEL_FLAGS = {("plan", None), ("model", "predict"), ("trace", "export"), ("bench", "overlap")}
# bench train's --model is kept as shadow_model, as hosts.worker calls it


def _sub_verb(args) -> str | None:
    return getattr(args, f"{args.verb}verb", None)


def validate_flags(args) -> None:
    """Flag values every command would refuse later, refused before anything runs, each
    naming its flag: an output folder that does not exist (run as root, making it would
    scatter folders), an output directory that is a file, an unknown model."""
    verb = (args.verb, _sub_verb(args))
    dest = FILE_OUTPUTS.get(verb)
    value = getattr(args, dest, None) if dest else None
    if value:
        flag = "--plot" if dest == "plot" else "-o"
        parent = Path(value).parent
        if not parent.is_dir():
            raise TrainetError(f"{flag} {value}: folder {parent} does not exist; create it "
                               "first or give another path")
        if Path(value).is_dir():
            raise TrainetError(f"{flag} {value}: is a folder; give a file name")
    if verb == ("model", "predict") and args.plot and len(set(args.gpus)) < 2:
        raise TrainetError(f"--plot {args.plot}: the plot draws step time against the GPU "
                           "count; give two or more counts, e.g. --gpus 8 64 512")
    if verb == ("trace", "export"):
        out = Path(args.output)
        if out.exists() and not out.is_dir():
            raise TrainetError(f"-o {out}: exists and is not a folder; give a folder for the "
                               "traces (made when missing)")
        if not out.parent.is_dir():
            raise TrainetError(f"-o {out}: folder {out.parent} does not exist; create it "
                               "first or give another path")
    device = getattr(args, "device", None)
    if isinstance(device, str):
        from hosts import devices
        for name in device.split(","):
            if devices.renamed(name):
                raise TrainetError(f"--device {name}: {devices.renamed(name)}")
    model = getattr(args, "shadow_model" if verb == ("bench", "train") else "model", None)
    if (verb in MODEL_FLAGS or verb == ("bench", "train")) and model:
        from hosts import shadow
        shadow.shadow_model(model, flag="--model")


def validate_inputs(args) -> None:
    """The flags of a command and the files it reads, validated before it uses them."""
    validate_flags(args)
    verb = (args.verb, _sub_verb(args))
    if verb == ("plan", None) and getattr(args, "topology", None):
        validate_fabric_file(args.topology, "--fabric")
    if verb in (("model", "predict"), ("trace", "export")) and getattr(args, "fabric", None):
        validate_fabric_file(args.fabric, "--fabric")
    if verb == ("model", "measure"):
        validate_fabric_file(args.fabric, "FABRIC")
    if verb == ("model", "validate") or (verb == ("plan", None) and args.check):
        for results in (args.results if verb[0] == "model" else [args.check]):
            experiment = Path(results) / "experiment.yaml"
            if experiment.is_file():      # else the command names what is missing
                validate_experiment_spec(experiment)
