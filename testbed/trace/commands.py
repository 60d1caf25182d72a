"""``trainet trace export``: Chakra execution traces of a measured run or of the step
the analytical model predicts."""
from __future__ import annotations

from pathlib import Path

from testbed.errors import TrainetError
from testbed.trace import chakra


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
        written = [_modeled(args)]
    else:
        raise TrainetError("trainet trace export: give a results directory of `trainet "
                           "run`, or --model NAME --gpus N --strategy S")
    for w in written:
        print(f"{w.prefix}.{{0..{len(w.files) - 1}}}.et: {len(w.files)} ranks, {w.nodes} "
              f"nodes; ASTRA-sim: --workload-configuration={w.prefix} "
              f"--comm-group-configuration={w.comm_groups}")
    return 0


def _modeled(args) -> chakra.Written:
    """The traces of the step ``trainet model predict`` predicts for the same flags."""
    from testbed.model import fabric
    from testbed.model.calibration import load
    from testbed.model.commands import parse_option, parse_strategy, workload_of
    from testbed.model.step import predict
    from testbed.trace import modeled
    strategy, options = parse_strategy(args.strategy)
    options.update(parse_option(pair, f"--option {pair!r}: write KEY=VALUE, e.g. "
                                "--option tp=4") for pair in args.option)
    workload = workload_of(args, args.gpus)
    prediction = predict(strategy, workload, fabric.fabric(args.fabric, args.gpus),
                         args.gpus, options, load(args.calibration))
    print(f"{prediction.label} ({prediction.layout}) on {prediction.fabric}: predicted step "
          f"{prediction.step_s:.3g} s, calibration {prediction.calibration}")
    name = args.name or f"{args.model}-{strategy}-{args.gpus}gpus"
    return chakra.write(Path(args.output), name, modeled.phases(prediction), args.gpus,
                        modeled.metadata(prediction, workload))
