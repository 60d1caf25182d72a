"""``trainet trace export``: Chakra execution traces of a measured run or of a modelled
step."""
from __future__ import annotations

from pathlib import Path

from testbed.errors import TrainetError
from testbed.trace import chakra


def _options(pairs: list[str]) -> dict:
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise TrainetError(f"--option {pair!r}: write KEY=VALUE, e.g. --option tp=4")
        out[key.replace("-", "_")] = value
    return out


def export(args) -> int:
    given_model = any(v is not None for v in (args.model, args.gpus, args.strategy))
    if args.results and given_model:
        raise TrainetError("trainet trace export: give a results directory or --model, "
                           "--gpus and --strategy, not both")
    if args.results:
        from testbed.trace import measured
        written = measured.export(Path(args.results), Path(args.output))
    elif given_model:
        missing = [f"--{k}" for k in ("model", "gpus", "strategy") if getattr(args, k) is None]
        if missing:
            raise TrainetError(f"trainet trace export --model: also give {', '.join(missing)}")
        from testbed.trace import modeled
        from testbed.units import parse_duration, parse_rate
        setup = modeled.Setup(args.model, args.gpus, args.strategy, _options(args.option),
                              args.batch, args.device, args.mfu, args.layers,
                              args.gpus_per_node, args.gcds_per_gpu, parse_rate(args.intra),
                              parse_rate(args.inter), parse_duration(args.latency))
        ranks, metadata = modeled.phases(setup)
        name = args.name or f"{args.model}-{args.strategy}-{args.gpus}gpus"
        written = [chakra.write(Path(args.output), name, ranks, args.gpus, metadata)]
    else:
        raise TrainetError("trainet trace export: give a results directory of `trainet "
                           "run`, or --model NAME --gpus N --strategy S")
    for w in written:
        print(f"{w.prefix}.{{0..{len(w.files) - 1}}}.et: {len(w.files)} ranks, {w.nodes} "
              f"nodes; ASTRA-sim: --workload-configuration={w.prefix} "
              f"--comm-group-configuration={w.comm_groups}")
    return 0
