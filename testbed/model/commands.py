"""``trainet model predict`` and ``trainet model compare``: tables, JSON and scaling
plots of the analytical model (testbed/model/step.py)."""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

from hosts import shadow
from testbed.errors import TrainetError
from testbed.model import fabric as fabrics
from testbed.model.calibration import load
from testbed.model.measured import attach, load as load_table
from testbed.model.prediction import StepPrediction
from testbed.model.search import search
from testbed.model.step import Workload, predict


def parse_option(text: str, error: str) -> tuple[str, object]:
    """``KEY=VALUE``, the value read as a YAML scalar; anything else is ``error``."""
    key, eq, value = text.partition("=")
    if not eq or not key.strip():
        raise TrainetError(error)
    return key.strip(), yaml.safe_load(value)


def parse_strategy(text: str) -> tuple[str, dict]:
    """``NAME`` or ``NAME:KEY=VALUE,KEY=VALUE`` (values read as YAML scalars)."""
    name, _, rest = text.partition(":")
    error = (f"--strategy {text!r}: write NAME or NAME:KEY=VALUE,..., e.g. "
             "megatron:tp=8,pp=4")
    return name, dict(parse_option(part, error) for part in filter(None, rest.split(",")))


def workload_of(args, gpus: int) -> Workload:
    """The workload of ``--model``, ``--seq``, ``--global-batch-size``, ``--device`` and ``--mfu``
    (and ``--gpus-per-node`` where the command has it) on ``gpus`` GPUs."""
    if gpus < 1:
        raise TrainetError(f"--gpus {gpus}: give a number of GPUs of at least 1")
    model = shadow.shadow_model(args.model)
    if args.seq:
        model = shadow.ShadowModel(model.name, model.params, args.seq, model.layers,
                                   model.source + f"; sequence {args.seq} as given",
                                   model.hidden, model.heads, model.vocab)
    batch = args.batch or 2 * gpus
    return Workload(model, shadow.device(args.device), batch, mfu=args.mfu,
                    gpus_per_host=getattr(args, "gpus_per_host", None))


def _rows(args) -> list[StepPrediction]:
    calibration = load(args.calibration)
    table = load_table(args.bandwidth_table)
    out = []
    for gpus in args.gpus:
        workload = workload_of(args, gpus)
        fabric = attach(fabrics.fabric(args.fabric, gpus), table)
        if args.strategy:
            for text in args.strategy:
                name, options = parse_strategy(text)
                out.append(predict(name, workload, fabric, gpus,
                                   _with_micro(name, options, args), calibration,
                                   sizes=_sizes(fabric, gpus), label=text))
        else:
            found, _ = search(workload, fabric, gpus, calibration)
            out.append(found[0])
    if table is not None and table.note():
        print(table.note())
    return out


def _with_micro(name: str, options: dict, args) -> dict:
    """``--micro-batch-size`` into the options of a strategy that has the option, unless
    they give one."""
    size = getattr(args, "micro_batch_size", None)
    if size is None or "micro_batch_size" in options or "micro_batches" in options:
        return options
    from hosts.strategies import registry
    if "micro_batch_size" not in registry.get(name).options.model_fields:
        raise TrainetError(f"--micro-batch-size {size}: strategy {name} has no micro-batches; "
                           "drop the flag or choose a pipelined strategy (e.g. megatron) or one "
                           "that accumulates gradients (ddp, zero3, zeropp, zero-hier)")
    return {**options, "micro_batch_size": size}


def _sizes(fabric, gpus: int) -> dict:
    return fabric.tier_sizes(gpus) if hasattr(fabric, "tier_sizes") else {}


def _gib(nbytes: float) -> str:
    return f"{nbytes / 2**30:.1f} GiB"


def print_table(rows: list[StepPrediction], title: str = "") -> None:
    from rich.console import Console
    from rich.table import Table
    table = Table("GPUs", "strategy", "layout", "step", "compute", "exposed comm",
                  "bubble", "TFLOP/s/GPU", "memory/GPU", "exposed by tier", title=title)
    for p in rows:
        tiers = ", ".join(f"{k} {v:.3g} s" for k, v in sorted(p.exposed_by_tier.items()))
        memory = _gib(p.memory_per_gpu_B) + ("" if p.fits else " (does not fit)")
        table.add_row(str(p.world), p.label, p.layout, f"{p.step_s:.3g} s",
                      f"{p.compute_s:.3g} s", f"{p.exposed_s:.3g} s", f"{p.bubble_s:.3g} s",
                      f"{p.tflops_per_gpu:.1f}", memory, tiers or "-")
    Console(highlight=False, width=160).print(table)


def plot(rows: list[StepPrediction], path: Path, title: str) -> Path:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (step_ax, tflops_ax) = plt.subplots(1, 2, figsize=(11, 4))
    for label in dict.fromkeys(p.label for p in rows):
        mine = sorted((p for p in rows if p.label == label), key=lambda p: p.world)
        gpus = [p.world for p in mine]
        step_ax.plot(gpus, [p.step_s for p in mine], marker="o", label=label)
        tflops_ax.plot(gpus, [p.tflops_per_gpu for p in mine], marker="o", label=label)
    for ax, what in ((step_ax, "step time (s)"), (tflops_ax, "TFLOP/s per GPU")):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("GPUs")
        ax.set_ylabel(what)
        ax.grid(True, alpha=0.3)
    step_ax.set_yscale("log")
    tflops_ax.legend(fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def predict_main(args) -> int:
    rows = _rows(args)
    first = rows[0]
    compute = f"MFU {args.mfu}" if args.mfu is not None else "compute by shapes"
    title = (f"{first.model} on {args.fabric}, {args.device}, {compute}, calibration "
             f"{first.calibration}")
    if args.json:
        print(json.dumps([{**p.as_dict(events=args.events), "step_time_s": p.step_s}
                          for p in rows], indent=1))
    else:
        print(f"{shadow.shadow_model(args.model).source}; fabric {args.fabric}; global batch "
              f"{args.batch or '2 per GPU'} sequences" + ("" if args.strategy else
                                                          "; best layout found per count"))
        print_table(rows, title)
    if args.plot:
        path = plot(rows, Path(args.plot), title)
        if not args.json:
            print(f"scaling plot: {path}")
    for p in rows:
        if not p.fits:
            print(f"{p.label} on {p.world} GPUs does not fit: {p.memory_verdict}"
                  + (f"; {HINT}" if "megatron" in p.strategy else ""), file=sys.stderr)
    return 0


HINT = ("activations shrink with recompute=selective,sequence_parallel=true or "
        "recompute=full, a smaller micro_batch_size, or more tensor or pipeline ranks")


@dataclass(frozen=True)
class Setup:
    """One of the seeds' setups: a model, device, fabric, GPU count and global batch, and
    the strategies (NAME or NAME:OPTIONS, or "best NAME" for the best of its layouts)."""

    title: str
    model: str
    device: str
    fabric: str
    gpus: int
    batch: int
    strategies: tuple[str, ...]


SETUPS = (
    Setup("LuWu vs ZeRO-3: GPT-175B, 8 workers, 100 Gb/s RoCE (LuWu, arXiv 2409.00918)",
          "gpt-175b", "a100-80gb", "star:roce-100g", 8, 8,
          ("zero3", "zero3:offload_optimizer=cpu", "luwu", "luwu-resident", "ddp")),
    Setup("the same at 200 Gb/s", "gpt-175b", "a100-80gb", "star:roce-200g", 8, 8,
          ("zero3", "zero3:offload_optimizer=cpu", "luwu", "luwu-resident", "ddp")),
    Setup("ZeRO++ and 3-level partitioning: GPT-20B on 384 Frontier GCDs (arXiv 2306.10209, "
          "2501.04266)", "gpt-20b", "mi250x-gcd", "frontier", 384, 384,
          ("zero3", "zeropp:qwz=true", "zeropp:hpz=8", "zeropp:qgz=true",
           "zeropp:qwz=true,hpz=8,qgz=true", "zero-hier")),
    Setup("AxoNN vs Megatron-LM: GPT-20B on 1024 A100 (arXiv 2305.13525)", "gpt-20b",
          "a100-80gb", "dgx-a100", 1024, 1024, ("best axonn", "best megatron")),
    Setup("FusionLLM on the geo fabric: GPT-6.7B on 48 GPUs at 3 sites, 8 Mb/s to 1 Gb/s "
          "WAN (arXiv 2410.12707)", "gpt-6.7b", "a100-80gb", "geo", 48, 16,
          ("fusionllm", "fusionllm:compression=none", "fusionllm:compression=uniform,"
           "ratio=0.01", "pp:micro_batches=4")),
)


def _setup_rows(setup: Setup, calibration) -> list[StepPrediction]:
    workload = Workload(shadow.shadow_model(setup.model), shadow.device(setup.device),
                        setup.batch)
    fabric = fabrics.fabric(setup.fabric, setup.gpus)
    rows = []
    for text in setup.strategies:
        if text.startswith("best "):
            name = text.removeprefix("best ")
            found, _ = search(workload, fabric, setup.gpus, calibration, [
                (name, o) for o in _layouts(name, setup.gpus, workload, fabric)])
            best = found[0]
            rows.append(StepPrediction(**{**best.__dict__, "label": f"{name} (best)"}))
        else:
            name, options = parse_strategy(text)
            rows.append(predict(name, workload, fabric, setup.gpus, options, calibration,
                                sizes=_sizes(fabric, setup.gpus), label=text))
    return rows


def _layouts(name: str, gpus: int, workload: Workload, fabric) -> list[dict]:
    from hosts.strategies import registry
    return registry.get(name).candidate_options(gpus, model=workload.model,
                                                batch=workload.global_batch,
                                                sizes=_sizes(fabric, gpus))


def compare_main(args) -> int:
    calibration = load(args.calibration)
    everything = {}
    for setup in SETUPS:
        rows = _setup_rows(setup, calibration)
        everything[setup.title] = rows
        if not args.json:
            print(f"\n{setup.title}: {setup.model}, {setup.device}, fabric {setup.fabric}, "
                  f"{setup.gpus} GPUs, global batch {setup.batch}")
            print_table(rows)
            base = rows[0]
            print("  step time against " + base.label + ": " + ", ".join(
                f"{p.label} {base.step_s / p.step_s:.2f}x" for p in rows[1:]))
    if args.json:
        print(json.dumps({t: [{**p.as_dict(), "step_time_s": p.step_s} for p in rows]
                          for t, rows in everything.items()}, indent=1))
    return 0
