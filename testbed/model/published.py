"""The model against a published table of measured training throughput:
Narayanan et al. 2021 (arXiv 2104.04473), table 1, ten GPT models from 1.7B to 1T
parameters on 32 to 3072 A100 GPUs of Selene, each row's achieved teraFLOP/s per GPU
(data/narayanan2021_table1.csv).

Each row is predicted as Megatron-LM ran it: ``megatron`` with the row's tensor and
pipeline degrees, data parallelism over the rest, micro-batches of one sequence, 1F1B,
on the ``dgx-a100`` fabric (8 A100 on NVLink per node, 8 HDR InfiniBand NICs). FLOPs are
counted as the paper counts them (its eq. 3, activation recomputation included):
``96 B s l h^2 (1 + s / 6h + V / 16 l h)`` per step; the model's compute runs them at the
device's peak times a kernel efficiency that grows with the layers' width ``h`` (wider
matrix products keep the tensor cores busier, as the paper's rising per-GPU figures
show): ``e(h) = e_max h / (h + h_half)``. Its two terms are fitted so the first row (1.7B
on 32 GPUs, data parallel only, its communication hidden behind compute) and the last
(1T on 3072 GPUs) match; the eight rows between are predictions.
"""
from __future__ import annotations

import csv
from dataclasses import dataclass, replace
from pathlib import Path

from hosts import shadow
from testbed.model import fabric as fabrics
from testbed.model.calibration import DEFAULT
from testbed.model.step import Workload, predict

TABLE = Path(__file__).parent / "data" / "narayanan2021_table1.csv"
SOURCE = ("Narayanan et al. 2021, \"Efficient Large-Scale Language Model Training on GPU "
          "Clusters Using Megatron-LM\", arXiv 2104.04473, table 1")


@dataclass(frozen=True)
class Row:
    model: str
    gpus: int
    tp: int
    pp: int
    batch: int
    measured_tflops: float
    predicted_tflops: float = 0.0
    step_s: float = 0.0

    @property
    def error(self) -> float:
        return self.predicted_tflops / self.measured_tflops - 1


def megatron_flops(model: shadow.ShadowModel, tokens: int) -> float:
    """The paper's eq. 3 for ``tokens`` = B s tokens per step."""
    s, l, h, v = model.seq, model.layers, shadow.hidden_size(model), model.vocab
    return 96 * tokens * l * h * h * (1 + s / (6 * h) + v / (16 * l * h))


def rows(path: Path = TABLE) -> list[Row]:
    with open(path) as f:
        lines = [line for line in f if not line.startswith("#")]
    return [Row(r["model"], int(r["gpus"]), int(r["tp"]), int(r["pp"]), int(r["batch"]),
                float(r["tflops_per_gpu"])) for r in csv.DictReader(lines)]


def efficiency(model: shadow.ShadowModel, e_max: float, h_half: float) -> float:
    h = shadow.hidden_size(model)
    return min(1.0, e_max * h / (h + h_half))


def _predict(row: Row, e_max: float, h_half: float, calibration=DEFAULT) -> Row:
    model = shadow.shadow_model(row.model)
    workload = Workload(model, shadow.device("a100-80gb"), row.batch,
                        mfu=efficiency(model, e_max, h_half), flops=megatron_flops)
    dp = row.gpus // (row.tp * row.pp)
    options = {"tp": row.tp, "pp": row.pp, "dp": dp,
               "micro_batches": row.batch // dp if row.pp > 1 else 1}
    p = predict("megatron", workload, fabrics.fabric("dgx-a100", row.gpus), row.gpus,
                options, calibration)
    return replace(row, predicted_tflops=p.tflops_per_gpu, step_s=p.step_s)


def _fit_first(row: Row, h_half: float, calibration) -> float:
    """e_max that makes ``row`` match for this ``h_half`` (its communication barely
    moves with the efficiency, so a few fixed-point steps do)."""
    e_max = 0.5
    for _ in range(4):
        got = _predict(row, e_max, h_half, calibration).predicted_tflops
        e_max *= row.measured_tflops / got
    return e_max


def check(path: Path = TABLE, calibration=DEFAULT) -> tuple[tuple[float, float], list[Row]]:
    """((e_max, h_half) as fitted on the first and last rows, every row predicted)."""
    table = rows(path)
    low, high = 0.0, 20000.0
    for _ in range(12):                # bisect h_half on the last row
        h_half = (low + high) / 2
        e_max = _fit_first(table[0], h_half, calibration)
        last = _predict(table[-1], e_max, h_half, calibration)
        low, high = (low, h_half) if last.error > 0 else (h_half, high)
    return (e_max, h_half), [_predict(r, e_max, h_half, calibration) for r in table]


def main(args) -> int:
    from testbed.model.calibration import load
    (e_max, h_half), table = check(calibration=load(args.calibration))
    if getattr(args, "json", False):
        import json
        from dataclasses import asdict
        print(json.dumps({"source": SOURCE, "kernel_efficiency_max": e_max,
                          "kernel_efficiency_half_hidden": h_half,
                          "rows": [{**asdict(r), "error": r.error} for r in table]}, indent=1))
        return 0
    print(f"{SOURCE}\nkernel efficiency e(h) = {e_max:.3f} h / (h + {h_half:.0f}) of the "
          "A100's 312 TFLOP/s, fitted on the first and last rows")
    print(f"{'model':<16}{'GPUs':>6}{'TP':>4}{'PP':>4}{'batch':>7}{'measured':>10}"
          f"{'model':>9}{'error':>8}{'step':>9}")
    for r in table:
        print(f"{r.model:<16}{r.gpus:>6}{r.tp:>4}{r.pp:>4}{r.batch:>7}"
              f"{r.measured_tflops:>7.0f} TF{r.predicted_tflops:>6.0f} TF{r.error:>+8.1%}"
              f"{r.step_s:>8.2f}s")
    rest = table[1:-1]
    print(f"mean |error| over the {len(rest)} predicted rows "
          f"{sum(abs(r.error) for r in rest) / len(rest):.1%}, largest "
          f"{max(abs(r.error) for r in rest):.1%}")
    return 0
