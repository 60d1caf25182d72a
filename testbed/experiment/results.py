"""The results directory of ``trainet run``, read and written in one place.

::

    RESULTS/
      status.json            running | completed | interrupted | failed (+ error, times)
      experiment.yaml        the experiment file as given
      config.yaml            resolved: experiment, workers, scale, every variant
      environment.json       versions, machine, capability probe, shaping plan
      summary.csv            one row per variant x strategy
      variants/V/topology.yaml   the variant's resolved topology
      variants/V/net/        the network's logs/ and pcaps/ (IFACE_in.pcap, IFACE_out.pcap)
      runs/V/S/repR/         one run: per-rank metrics (*.jsonl), logs, links.csv, and
                             done.json once every rank finished (what --resume keeps)
      report.md, plots/      written by ``trainet report``

Metrics lines are hosts.worker's, one JSON object per step and rank: step, rank, loss,
step_s, compute_s, comm_s, exposed_comm_s, offload_s, interference_s, logical_sent_bytes
/ logical_recv_bytes (the collectives' payload as sent on the emulated network),
nominal_sent_bytes (the same at nominal size: emulated / scale in shadow mode),
wire_tx_bytes / wire_rx_bytes (the host interface's counters, headers included), mem_params_bytes /
mem_grads_bytes / mem_optimizer_bytes (tensors held) and, in shadow mode,
nominal_mem_*_bytes (the modeled model's), and the step's timeline (every collective
with its group, payload and measured times, every wait of the training thread:
hosts/collectives/comm.py), which ``trainet trace export`` turns into execution traces.
Times need no conversion: co-scaling keeps transfer times nominal. summary.csv adds, when a run has them, the bytes per step of
each tier of the fabric measured on the switch ports and the pattern's inter-node bytes
(testbed/experiment/wire.py), and in shadow mode TFLOPS per GPU, the scaling
efficiency and the memory check made before the run (testbed/experiment/fit.py:
memory_status, memory_verdict and the footprint by part; a strategy that did not fit
and was not run has a row of these alone).
"""
from __future__ import annotations

import csv
import json
import re
import statistics
import sys
import time
from pathlib import Path

import yaml

from testbed.errors import TrainetError
from testbed.experiment import wire

STATUS = "status.json"
CONFIG = "config.yaml"
SUMMARY = "summary.csv"
LINKS = "links.csv"
DONE = "done.json"

SUMMARY_COLUMNS = [
    "variant", "strategy", "runs", "workers", "steps_measured", "scale",
    "bottleneck_nominal_bps", "bottleneck_emulated_bps", "nic", "loss_pct", "delay_s",
    "step_time_s", "step_time_std_s", "compute_s", "comm_s", "exposed_comm_s", "bubble_s",
    "interference_s", "offload_s", "replicas",
    "sent_per_step_nominal_B", "sent_per_step_emulated_B", "recv_per_step_emulated_B",
    "wire_tx_per_step_B", "wire_rx_per_step_B",
    "mem_params_nominal_B", "mem_grads_nominal_B", "mem_optim_nominal_B",
    "mem_params_emulated_B", "mem_grads_emulated_B", "mem_optim_emulated_B",
    "memory_status", "memory_verdict", "mem_device_need_B", "mem_device_capacity_B",
    "mem_activations_nominal_B", "mem_buffers_nominal_B", "mem_reserve_nominal_B",
    "mem_host_nominal_B", "mem_nvme_nominal_B", "final_loss",
]
TEXT_COLUMNS = {"variant", "strategy", "nic", "memory_status", "memory_verdict"}
# config.yaml's memory record (testbed/experiment/fit.py) -> summary column
_FOOTPRINT = {"status": "memory_status", "verdict": "memory_verdict",
              "device_need_B": "mem_device_need_B", "device_capacity_B": "mem_device_capacity_B",
              "activations_B": "mem_activations_nominal_B",
              "buffers_B": "mem_buffers_nominal_B", "reserve_B": "mem_reserve_nominal_B",
              "host_B": "mem_host_nominal_B", "nvme_B": "mem_nvme_nominal_B"}
# from testbed/experiment/wire.py, when the run has them; other wire_<tier>_B follow
MEASURED_COLUMNS = ["tflops_per_gpu", "scaling_efficiency", "wire_intra_gpu_B",
                    "wire_intra_node_B", "wire_inter_node_B", "theory_inter_node_B"]
_MEANS = {"compute_s": "compute_s", "comm_s": "comm_s", "exposed_comm_s": "exposed_comm_s",
          "bubble_s": "bubble_s", "interference_s": "interference_s", "offload_s": "offload_s",
          "sent_per_step_nominal_B": "nominal_sent_bytes",
          "sent_per_step_emulated_B": "logical_sent_bytes",
          "recv_per_step_emulated_B": "logical_recv_bytes",
          "wire_tx_per_step_B": "wire_tx_bytes", "wire_rx_per_step_B": "wire_rx_bytes"}
_MEMORY = ("params", "grads", "optimizer")


def run_dir(root: Path, variant: str, strategy: str, repetition: int) -> Path:
    return Path(root) / "runs" / variant / strategy / f"rep{repetition}"


def mark_done(run: Path, elapsed_s: float) -> None:
    """Record that every rank of ``run`` finished: ``trainet run --resume`` keeps it."""
    (Path(run) / DONE).write_text(json.dumps({
        "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "elapsed_s": elapsed_s}) + "\n")


def is_done(run: Path) -> bool:
    return (Path(run) / DONE).exists()


def write_status(root: Path, status: str, **fields) -> None:
    path = Path(root) / STATUS
    data = read_status(root) if path.exists() else {}
    data.update(fields, status=status, updated=time.strftime("%Y-%m-%dT%H:%M:%S%z"))
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n")
    tmp.replace(path)


def read_status(root: Path) -> dict:
    try:
        return json.loads((Path(root) / STATUS).read_text())
    except FileNotFoundError:
        return {}


def read_config(root: Path) -> dict:
    path = Path(root) / CONFIG
    try:
        config = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TrainetError(f"{root}: not a results directory of `trainet run` ({CONFIG} "
                           "missing); give the directory `trainet run -o` wrote") from None
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
        raise TrainetError(f"{path}: cannot be read ({str(e).splitlines()[0]}); `trainet run` "
                           "writes it, do not edit it") from None
    if not isinstance(config, dict) or not {"variants", "strategies"} <= set(config):
        raise TrainetError(f"{path}: not the configuration `trainet run` writes (a mapping "
                           "with experiment, variants and strategies)")
    return config


def read_metrics(run: Path) -> dict[int, list[dict]]:
    """rank -> its step records, from every ``*.jsonl`` under ``run``. The rank is the
    record's ``rank`` or the number in the file name (``rank2.jsonl``)."""
    out: dict[int, list[dict]] = {}
    for path in sorted(Path(run).rglob("*.jsonl")):
        match = re.search(r"(\d+)", path.stem)
        text = path.read_text(encoding="utf-8", errors="replace")
        lines = text.splitlines()
        for n, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError:
                if n == len(lines) and not text.endswith("\n"):
                    print(f"warning: {path}:{n}: last line cut short (its worker stopped "
                          "mid-write); the records before it are kept", file=sys.stderr)
                    continue
                raise TrainetError(f"{path}:{n}: not a JSON line; the worker writing it "
                                   "crashed mid-line or the file is not a metrics file") from None
            rank = record.get("rank", int(match.group(1)) if match else 0)
            out.setdefault(int(rank), []).append(record)
    return out


def read_links(run: Path) -> list[dict]:
    """Samples of the switch interfaces' byte counters: time_s, interface, rx/tx bytes."""
    path = Path(run) / LINKS
    if not path.exists():
        return []
    with path.open() as f:
        return [{"time_s": float(r["time_s"]), "interface": r["interface"],
                 "rx_bytes": int(r["rx_bytes"]), "tx_bytes": int(r["tx_bytes"])}
                for r in csv.DictReader(f)]


def measured_steps(records: list[dict]) -> list[dict]:
    """The steps that count: the first step (warm-up: allocation, connection set-up) is
    left out when there are others."""
    steps = sorted(records, key=lambda r: r.get("step", 0))
    return steps[1:] if len(steps) > 1 else steps


def _mean(values) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.fmean(values) if values else None


def _peak(steps: list[dict], key: str) -> float | None:
    values = [s[key] for s in steps if s.get(key) is not None]
    return max(values) if values else None


def summary_rows(root: Path) -> list[dict]:
    """One row per variant x strategy, over every repetition and rank (see SUMMARY_COLUMNS)."""
    root = Path(root)
    config = read_config(root)
    scale = config["scale"]
    rows = []
    for variant in config["variants"]:
        for strategy in config["strategies"]:
            runs = sorted((root / "runs" / variant["name"] / strategy).glob("rep*"))
            per_rank = [read_metrics(r) for r in runs]
            steps = [s for ranks in per_rank for recs in ranks.values()
                     for s in measured_steps(recs)]
            footprint = {column: record[key] or (None if key in ("host_B", "nvme_B") else
                                                 record[key])
                         for key, column in _FOOTPRINT.items()} \
                if (record := config.get("memory", {}).get(variant["name"], {}).get(strategy)) \
                else {}
            if not steps:
                if footprint.get("memory_status") == "not run":
                    rows.append(_not_run_row(variant, strategy, scale, footprint, record))
                continue
            step_times = [s["step_s"] for s in steps if s.get("step_s") is not None]
            row = {"variant": variant["name"], "strategy": strategy, "runs": len(runs),
                   "workers": max(len(r) for r in per_rank), "steps_measured": len(steps),
                   "scale": scale,
                   "bottleneck_nominal_bps": variant.get("bottleneck_nominal_bps"),
                   "bottleneck_emulated_bps": variant.get("bottleneck_emulated_bps"),
                   "nic": variant.get("nic"), "loss_pct": variant.get("loss_pct"),
                   "delay_s": variant.get("delay_s"),
                   "step_time_s": _mean(step_times),
                   "step_time_std_s": statistics.pstdev(step_times) if step_times else None}
            for column, key in _MEANS.items():
                row[column] = _mean(s.get(key) for s in steps)
            row["replicas"] = _peak(steps, "replicas")
            for part in _MEMORY:
                column = "optim" if part == "optimizer" else part
                emulated = _peak(steps, f"mem_{part}_bytes")
                nominal = _peak(steps, f"nominal_mem_{part}_bytes")
                row[f"mem_{column}_emulated_B"] = emulated
                row[f"mem_{column}_nominal_B"] = nominal if nominal is not None else emulated
            row.update(footprint)
            last = [max(recs, key=lambda r: r.get("step", 0)).get("loss")
                    for ranks in per_rank for recs in ranks.values()]
            row["final_loss"] = _mean(last)
            row.update(wire.columns(root, config, variant["name"], strategy,
                                    [(read_links(r), ranks) for r, ranks in zip(runs, per_rank)]))
            rows.append(row)
    wire.add_throughput(rows, config)
    return rows


def _not_run_row(variant: dict, strategy: str, scale: float, footprint: dict,
                 record: dict) -> dict:
    """A strategy that does not fit its device and was not run: its footprint only."""
    return {"variant": variant["name"], "strategy": strategy, "runs": 0, "scale": scale,
            "bottleneck_nominal_bps": variant.get("bottleneck_nominal_bps"),
            "bottleneck_emulated_bps": variant.get("bottleneck_emulated_bps"),
            "mem_params_nominal_B": record["params_B"], "mem_grads_nominal_B": record["grads_B"],
            "mem_optim_nominal_B": record["optimizer_B"], **footprint}


def write_summary(root: Path, rows: list[dict]) -> Path:
    path = Path(root) / SUMMARY
    columns = SUMMARY_COLUMNS + [k for k in MEASURED_COLUMNS if any(k in r for r in rows)] + \
        sorted({k for r in rows for k in r if k.startswith("wire_")}
               - set(MEASURED_COLUMNS) - set(SUMMARY_COLUMNS))
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: ("" if row.get(k) is None else row[k]) for k in columns})
    return path


def read_summary(root: Path) -> list[dict]:
    """summary.csv with numbers as floats (empty cells: None); recomputed from the
    metrics when the run ended before writing it."""
    path = Path(root) / SUMMARY
    if not path.exists():
        return summary_rows(root)
    try:
        with path.open(encoding="utf-8") as f:
            return [{k: (v if k in TEXT_COLUMNS else (float(v) if v != "" else None))
                     for k, v in row.items()} for row in csv.DictReader(f)]
    except (ValueError, TypeError) as e:     # a cell not a number, or a row too long
        raise TrainetError(f"{path}: not the summary `trainet run` writes ({e}); remove it "
                           "and `trainet report` recomputes it from the metrics") from None
