"""The model against held-out published runs (data/heldout_a100.csv): Megatron-style GPT
training on A100 GPUs from sources none of the model's constants were set or checked
against (BigScience's BLOOM-176B log, GPT-NeoX-20B, Megatron-LM's GPT-3 example).

Each row is predicted twice, with no constant changed: (a) with the layout the run used
(``megatron`` with its tensor, pipeline and data sizes, micro-batch size, recompute,
gradient reduction and accumulation, on the ``dgx-a100`` fabric and the run's A100
part), and (b) with the layout the best-layout search (testbed/model/search.py, what
``trainet model predict`` without ``--strategy`` does) chooses for the run's model, GPU
count, device and global batch. The rows are reported, never averaged into the check
of the three papers' tables (testbed/model/published.py).
"""
from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from hosts import shadow
from hosts.parallelism.partition import METHODS
from testbed.errors import TrainetError
from testbed.model import fabric as fabrics
from testbed.model.calibration import DEFAULT
from testbed.model.prediction import StepPrediction
from testbed.model.published import DATA, Row, megatron_flops, prediction
from testbed.model.search import search
from testbed.model.step import Workload

HELD_OUT = DATA / "heldout_a100.csv"
FIELDS = ("source", "model", "device", "gpus", "tp", "pp", "batch", "micro_batch_size",
          "recompute", "sequence_parallel", "overlap_grad_reduce",
          "gradient_accumulation_fusion", "virtual_stages", "measured_step_s",
          "tflops_per_gpu", "citation")
# columns a file may leave out, with what a missing one means
OPTIONAL = {"distributed_optimizer": "false", "partition": "layers"}


@dataclass(frozen=True)
class HeldOutRow:
    row: Row
    citation: str
    own: StepPrediction | None = None           # predicted with the run's own layout
    chosen: StepPrediction | None = None        # the search's choice
    chosen_note: str = ""                       # why the search chose nothing


def _line_rows(path: Path) -> list[tuple[int, dict]]:
    with open(path) as f:
        numbered = [(n, line) for n, line in enumerate(f, 1) if not line.startswith("#")]
    reader = csv.DictReader(line for _, line in numbered)
    missing = [k for k in FIELDS if k not in (reader.fieldnames or [])]
    if missing:
        raise TrainetError(f"{path}: the header lacks {', '.join(missing)}; give "
                           f"{','.join(FIELDS)}")
    return [(numbered[i + 1][0], r) for i, r in enumerate(reader)]


def _row(path: Path, line: int, r: dict) -> tuple[Row, str]:
    where = f"{path}, line {line}"
    for key in ("source", "model", "device", "citation"):
        if not (r[key] or "").strip():
            raise TrainetError(f"{where}: field {key} is empty; every row names its run, "
                               "model, device and citation")
    try:
        ints = {k: int(r[k]) for k in ("gpus", "tp", "pp", "batch", "micro_batch_size",
                                       "virtual_stages")}
        measured = float(r["measured_step_s"]) if r["measured_step_s"] else None
        tflops = float(r["tflops_per_gpu"]) if r["tflops_per_gpu"] else None
    except ValueError as err:
        raise TrainetError(f"{where}: {err}; gpus, tp, pp, batch, micro_batch_size and "
                           "virtual_stages are whole numbers, measured_step_s (s) and "
                           "tflops_per_gpu (TFLOP/s) numbers") from None
    if (measured is None) == (tflops is None):
        raise TrainetError(f"{where}: give exactly one of measured_step_s (s) and "
                           "tflops_per_gpu (TFLOP/s per GPU, counted as eq. 3)")
    r = {**OPTIONAL, **{k: v for k, v in r.items() if v is not None}}
    flags = {}
    for key in ("sequence_parallel", "overlap_grad_reduce", "gradient_accumulation_fusion",
                "distributed_optimizer"):
        if r[key] not in ("true", "false"):
            raise TrainetError(f"{where}: {key}={r[key]!r}; accepted: true, false")
        flags[key] = r[key] == "true"
    if r["partition"] not in METHODS:
        raise TrainetError(f"{where}: partition={r['partition']!r}; accepted: "
                           f"{', '.join(METHODS)}")
    model = shadow.shadow_model(r["model"], flag=f"{where}: model")
    shadow.device(r["device"])
    if measured is None:
        measured = megatron_flops(model, ints["batch"] * model.seq) / (
            ints["gpus"] * tflops * 1e12)
    return Row(r["source"], r["model"], ints["gpus"], ints["tp"], ints["pp"], ints["batch"],
               ints["micro_batch_size"], r["recompute"], flags["sequence_parallel"],
               measured, flags["gradient_accumulation_fusion"], ints["virtual_stages"],
               flags["overlap_grad_reduce"], r["device"], flags["distributed_optimizer"],
               r["partition"]), r["citation"]


def rows(path=HELD_OUT) -> list[HeldOutRow]:
    path = Path(path)
    return [HeldOutRow(*_row(path, line, r)) for line, r in _line_rows(path)]


def _search(row: Row, calibration) -> tuple[StepPrediction | None, str]:
    workload = Workload(row.shape, shadow.device(row.device), row.batch)
    try:
        found, _ = search(workload, fabrics.fabric("dgx-a100", row.gpus), row.gpus,
                          calibration)
    except TrainetError as err:
        first = str(err).partition(f"{row.model}: ")[2].split(";")[0]
        return None, (f"no strategy offers a layout of {row.gpus} GPUs for {row.batch} "
                      f"sequences; megatron's data sizes must divide the batch; {first}")
    return found[0], "" if found[0].fits else "no layout fits the device"


def check(path=HELD_OUT, calibration=DEFAULT) -> list[HeldOutRow]:
    """Every held-out row predicted with its own layout and with the search's."""
    out = []
    for h in rows(path):
        chosen, note = _search(h.row, calibration)
        out.append(HeldOutRow(h.row, h.citation, prediction(h.row, calibration), chosen, note))
    return out


def _layout(r: Row) -> str:
    return (f"{r.tp}x{r.pp}x{r.gpus // (r.tp * r.pp)}, mb {r.micro_batch_size}, "
            f"{r.recompute}" + (", ZeRO-1" if r.distributed_optimizer else "")
            + ("" if r.partition == "layers" else f", {r.partition}"))


def command(args) -> int:
    """``trainet model published``: the three papers' rows, or with ``--held-out`` these."""
    if args.held_out:
        return main(args)
    from testbed.model import published
    return published.main(args)


def main(args) -> int:
    from testbed.model.calibration import load
    table = check(calibration=load(args.calibration))
    if getattr(args, "json", False):
        import json
        print(json.dumps({"held_out": [
            {"source": h.row.source, "citation": h.citation, "model": h.row.model,
             "device": h.row.device, "gpus": h.row.gpus, "layout": _layout(h.row),
             "measured_s": h.row.measured_s, "predicted_s": h.own.step_s,
             "error": h.row.error(h.own.step_s), "fits": h.own.fits,
             "search": None if h.chosen is None else {
                 "strategy": h.chosen.label, "layout": h.chosen.layout,
                 "step_s": h.chosen.step_s, "fits": h.chosen.fits,
                 "error": h.row.error(h.chosen.step_s)},
             "search_note": h.chosen_note} for h in table]}, indent=1))
        return 0
    print("Held-out published runs on A100 (data/heldout_a100.csv; not part of the "
          "three papers' mean): step time with the run's own layout (TP x PP x DP) and "
          "with the layout the search chooses; no model constant set from these rows")
    print(f"{'row':<52}{'GPUs':>6}  {'own layout':<40}{'measured':>10}{'model':>9}"
          f"{'error':>8}  memory/GPU")
    for h in table:
        r = h.row
        print(f"{r.source[:51]:<52}{r.gpus:>6}  {_layout(r):<40}{r.measured_s:>9.2f}s"
              f"{h.own.step_s:>8.2f}s{r.error(h.own.step_s):>+8.1%}  "
              f"{h.own.memory_per_gpu_B / 2**30:.1f} GiB{'' if h.own.fits else ' (does not fit)'}")
        if h.chosen is None:
            print(f"{'':<4}search: none ({h.chosen_note})")
        else:
            fits = "" if h.chosen.fits else " (does not fit)"
            print(f"{'':<4}search: {h.chosen.label} {h.chosen.layout}{fits}: "
                  f"{h.chosen.step_s:.2f} s, {r.error(h.chosen.step_s):+.1%} against the "
                  f"measured step")
    for h in table:
        print(f"  {h.row.source.split(':')[0]}: {h.citation}")
    return 0
