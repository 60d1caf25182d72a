"""The model against published measurements of large Megatron-LM training runs, from
three independent papers (each row cites its table, data/):

* Narayanan et al. 2021 (arXiv 2104.04473), table 1: ten GPT models, 1.7B to 1T
  parameters on 32 to 3072 A100 GPUs, achieved teraFLOP/s per GPU, turned into a step
  time with the paper's FLOP count (its eq. 3, activation recomputation included):
  ``96 B s l h^2 (1 + s / 6h + V / 16 l h)`` per step (data/narayanan2021_table1.csv);
* Korthikanti et al. 2022 (arXiv 2205.05198): 22B to 1T, iteration time with full
  recomputation and with sequence parallelism + selective recomputation
  (data/korthikanti2022.csv);
* Smith et al. 2022 (MT-NLG 530B, arXiv 2201.11990), sec. 2.4: iteration time on 2240,
  2800 and 3360 GPUs (data/smith2022_mtnlg.csv).

Each row is predicted as it ran: ``megatron`` with its tensor and pipeline degrees, data
parallelism over the rest, its micro-batch size, recompute and sequence parallelism, on
the ``dgx-a100`` fabric (Selene's nodes: 8 A100 80GB on NVLink, 8 HDR InfiniBand NICs);
the data-parallel gradient all-reduce is not overlapped (the Megatron-LM of those papers
ran it after the backward) except where a run used PyTorch's DDP, which overlaps it with
the backward. Narayanan et al.'s rows take the micro-batch size, the interleaving (model
chunks per stage) and the DDP of the paper's own artifact scripts (Megatron-LM
examples/sc21/run_table_1.sh), which the table does not print. The 2021 runs (Narayanan et al., MT-NLG) add each
micro-batch's weight gradients to the gradient buffer in kernels of their own
(Megatron-LM's local DDP hook); Megatron-LM 3.0, the release with Korthikanti et al.'s
sequence parallelism, fuses that add into the weight-gradient product
(``--gradient-accumulation-fusion``, on by default): each table's
``gradient_accumulation_fusion`` column says which software ran it. Every constant of the compute model (hosts/compute.py) and of
the fabric is fixed from data sheets and micro-benchmarks: nothing is fitted to these
rows.

Two trivial baselines show whether the model has skill, each predicting a row from the
other rows (leave-one-out): a **constant efficiency** (the mean achieved share of the
peak, the FLOPs each run executes counted one way for all rows) and **interpolation** of that share
in the parameter count (log scale; the nearest row's beyond the ends).
"""
from __future__ import annotations

import csv
import math
from dataclasses import dataclass, replace
from pathlib import Path

from hosts import shadow
from testbed.model import fabric as fabrics
from testbed.model.calibration import DEFAULT
from testbed.model.step import Workload, predict

DATA = Path(__file__).parent / "data"
NARAYANAN = DATA / "narayanan2021_table1.csv"
TABLES = (NARAYANAN, DATA / "korthikanti2022.csv", DATA / "smith2022_mtnlg.csv")
PEAK = 312e12                   # A100 dense bf16 (hosts/devices.py)


@dataclass(frozen=True)
class Row:
    source: str
    model: str
    gpus: int
    tp: int
    pp: int
    batch: int
    micro_batch_size: int
    recompute: str
    sequence_parallel: bool
    measured_s: float
    fused_accumulation: bool = True
    virtual_stages: int = 1
    overlap_grad_reduce: bool = False
    device: str = "a100-80gb"
    distributed_optimizer: bool = False     # optimizer state sharded over the replicas
    partition: str = "layers"               # layers per stage (hosts/parallelism/partition.py)
    predicted_s: float = 0.0
    constant_s: float = 0.0
    interpolated_s: float = 0.0

    @property
    def shape(self) -> shadow.ShadowModel:
        return shadow.shadow_model(self.model)

    @property
    def flops(self) -> float:
        """The FLOPs the step runs, counted one way for every row: with full
        recomputation Narayanan et al.'s eq. 3 (4 passes), else Korthikanti et al.'s
        model FLOPs (3 passes; selective recompute's few more left out)."""
        m = self.shape
        s, l, h, v = m.seq, m.layers, shadow.hidden_size(m), m.vocab
        if self.recompute != "full":
            return 72 * self.batch * s * l * h * h * (1 + s / (6 * h) + v / (12 * l * h))
        return 96 * self.batch * s * l * h * h * (1 + s / (6 * h) + v / (16 * l * h))

    @property
    def efficiency(self) -> float:
        """The measured share of the peak, FLOPs as the paper counts them."""
        return self.flops / (self.measured_s * self.gpus * PEAK)

    def error(self, predicted: float) -> float:
        return predicted / self.measured_s - 1


def megatron_flops(model: shadow.ShadowModel, tokens: int) -> float:
    """Narayanan et al.'s eq. 3 for ``tokens`` = B s tokens per step."""
    s, l, h, v = model.seq, model.layers, shadow.hidden_size(model), model.vocab
    return 96 * tokens * l * h * h * (1 + s / (6 * h) + v / (16 * l * h))


def _narayanan(r: dict) -> Row:
    model = shadow.shadow_model(r["model"])
    batch, gpus, tp, pp = int(r["batch"]), int(r["gpus"]), int(r["tp"]), int(r["pp"])
    step = megatron_flops(model, batch * model.seq) / (gpus * float(r["tflops_per_gpu"]) * 1e12)
    return Row(f"Narayanan 2021 table 1: {r['tflops_per_gpu']} TFLOP/s per GPU", r["model"],
               gpus, tp, pp, batch, int(r["micro_batch_size"]), "full", False, step,
               r["gradient_accumulation_fusion"] == "true", int(r["virtual_stages"]),
               r["ddp"] == "torch")


def _read(path: Path) -> list[dict]:
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def rows(paths=TABLES) -> list[Row]:
    out = []
    for path in paths:
        for r in _read(Path(path)):
            if "tflops_per_gpu" in r:
                out.append(_narayanan(r))
            else:
                out.append(Row(r["source"], r["model"], int(r["gpus"]), int(r["tp"]),
                               int(r["pp"]), int(r["batch"]), int(r["micro_batch_size"]),
                               r["recompute"], r["sequence_parallel"] == "true",
                               float(r["measured_step_s"]),
                               r["gradient_accumulation_fusion"] == "true",
                               overlap_grad_reduce=r["overlap_grad_reduce"] == "true"))
    return out


def _predict(row: Row, calibration=DEFAULT) -> float:
    return prediction(row, calibration).step_s


def prediction(row: Row, calibration=DEFAULT):
    """The model's StepPrediction of ``row`` as it ran (its layout, device, software)."""
    workload = Workload(row.shape, shadow.device(row.device), row.batch)
    dp = row.gpus // (row.tp * row.pp)
    options = {"tp": row.tp, "pp": row.pp, "dp": dp, "micro_batch_size": row.micro_batch_size,
               "recompute": row.recompute, "sequence_parallel": row.sequence_parallel,
               "overlap_grad_reduce": row.overlap_grad_reduce,
               "virtual_stages": row.virtual_stages,
               "gradient_accumulation_fusion": row.fused_accumulation,
               "distributed_optimizer": row.distributed_optimizer, "partition": row.partition}
    return predict("megatron", workload, fabrics.fabric("dgx-a100", row.gpus), row.gpus,
                   options, calibration)


def _constant(row: Row, others: list[Row]) -> float:
    e = sum(o.efficiency for o in others) / len(others)
    return row.flops / (row.gpus * PEAK * e)


def _interpolated(row: Row, others: list[Row]) -> float:
    x = math.log(row.shape.params)
    points = sorted((math.log(o.shape.params), o.efficiency) for o in others)
    below = [p for p in points if p[0] <= x]
    above = [p for p in points if p[0] >= x]
    if not below or not above:
        e = (below or above)[-1 if below else 0][1]
    else:
        (x0, e0), (x1, e1) = below[-1], above[0]
        e = e0 if x1 == x0 else e0 + (e1 - e0) * (x - x0) / (x1 - x0)
    return row.flops / (row.gpus * PEAK * e)


def check(paths=TABLES, calibration=DEFAULT) -> list[Row]:
    """Every row predicted by the model and by the two leave-one-out baselines."""
    table = rows(paths)
    out = []
    for i, r in enumerate(table):
        others = table[:i] + table[i + 1:]
        out.append(replace(r, predicted_s=_predict(r, calibration),
                           constant_s=_constant(r, others),
                           interpolated_s=_interpolated(r, others)))
    return out


def mean_error(table: list[Row], field: str) -> float:
    return sum(abs(r.error(getattr(r, field))) for r in table) / len(table)


def main(args) -> int:
    from testbed.model.calibration import load
    table = check(calibration=load(args.calibration))
    if getattr(args, "json", False):
        import json
        from dataclasses import asdict
        print(json.dumps({"rows": [{**asdict(r), "error": r.error(r.predicted_s)}
                                   for r in table]}, indent=1))
        return 0
    print("Published Megatron-LM runs on A100 (Narayanan et al. 2021 table 1; Korthikanti et "
          "al. 2022; Smith et al. 2022 MT-NLG sec. 2.4), step time per row; model constants "
          "from data sheets and micro-benchmarks (hosts/compute.py), none fitted here; "
          "baselines leave the row out")
    print(f"{'row':<52}{'GPUs':>6}{'TP':>4}{'PP':>4}{'batch':>7}{'measured':>10}"
          f"{'model':>9}{'error':>8}{'const.':>8}{'interp.':>8}")
    for r in table:
        print(f"{r.source[:51]:<52}{r.gpus:>6}{r.tp:>4}{r.pp:>4}{r.batch:>7}"
              f"{r.measured_s:>9.2f}s{r.predicted_s:>8.2f}s{r.error(r.predicted_s):>+8.1%}"
              f"{r.error(r.constant_s):>+8.1%}{r.error(r.interpolated_s):>+8.1%}")
    print(f"mean |error| over {len(table)} rows: model {mean_error(table, 'predicted_s'):.1%}, "
          f"constant efficiency {mean_error(table, 'constant_s'):.1%}, interpolation "
          f"{mean_error(table, 'interpolated_s'):.1%}; largest model error "
          f"{max(abs(r.error(r.predicted_s)) for r in table):.1%}")
    return 0
