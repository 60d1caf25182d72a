"""``trainet reproduce [SEED...]``: each seed paper's headline comparison (testbed/
experiment/papers.py) from three sources side by side: the paper's figure with its
citation, the analytical model at the paper's scale and fabric (no root, seconds), and
the testbed's shipped experiment (root, minutes each), with the assumptions that differ.

Tables are Markdown, so docs/headlines.md is this command's output as it stands.
LuWu, ZeRO++, Frontier and AxoNN get a sensitivity table over the parameter that sets
the gap: LuWu's two named causes (GPU interference, CPU optimizer rate, measured here
for torch's AdamW single-thread and vectorised), ZeRO++'s inter-node bandwidth, the
bandwidth reached across Frontier's nodes against each ZeRO++ configuration, and the
Megatron layout AxoNN's paper met (set by Megatron's memory).
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import time
from pathlib import Path

from hosts import shadow
from hosts.strategies import registry
from testbed.errors import TrainetError
from testbed.experiment import papers
from testbed.model.calibration import load
from testbed.model.search import search
from testbed.model.step import Workload, predict

ROOT = Path(__file__).resolve().parents[2]
WITHIN = 0.25                        # the model's target: within 25 % of the paper's ratio


def selected(names: list[str]) -> list[papers.Paper]:
    unknown = [n for n in names if n not in papers.KNOWN]
    if unknown:
        raise TrainetError(f"trainet reproduce: unknown seed {', '.join(unknown)}; known: "
                           f"{', '.join(papers.KNOWN)}")
    return [papers.KNOWN[n] for n in names] if names else list(papers.PAPERS)


# --- the model -------------------------------------------------------------------------

def _workload(setup: papers.ModelSetup) -> Workload:
    return Workload(shadow.shadow_model(setup.model), papers.device(setup.device),
                    setup.batch, gpus_per_host=setup.gpus_per_host)


def _predict(side: papers.Side, setup: papers.ModelSetup, calibration, fabric=None):
    workload = _workload(setup)
    fabric = fabric or papers.fabric(setup.fabric, setup.gpus)
    sizes = fabric.tier_sizes(setup.gpus) if hasattr(fabric, "tier_sizes") else {}
    if side.options:
        return predict(side.strategy, workload, fabric, setup.gpus, side.options,
                       calibration, sizes=sizes, label=side.label)
    candidates = _with_recompute(side.strategy, registry.get(side.strategy).candidate_options(
        setup.gpus, model=workload.model, batch=workload.global_batch, sizes=sizes,
        every=True))
    if not candidates:
        return predict(side.strategy, workload, fabric, setup.gpus, {}, calibration,
                       sizes=sizes, label=side.label)
    found, _ = search(workload, fabric, setup.gpus, calibration,
                      [(side.strategy, o) for o in candidates])
    fitting = [p for p in found if p.fits]
    return (fitting or found)[0]           # the fastest layout that fits, if one does


def _with_recompute(strategy: str, candidates: list[dict]) -> list[dict]:
    """Layouts of a strategy with Megatron-LM's recompute options as a paper at scale runs
    them: selective recompute (the search retries full recompute where that does not
    fit) and sequence parallelism with tensor parallelism."""
    fields = registry.get(strategy).options.model_fields
    if "recompute" not in fields:
        return candidates
    return [{"recompute": "selective",
             **({"sequence_parallel": True} if "sequence_parallel" in fields
                and o.get("tp", 1) > 1 else {}), **o} for o in candidates]


def model_figure(paper: papers.Paper, calibration, fabric=None) -> dict:
    setup = paper.model
    ours = _predict(setup.ours, setup, calibration, fabric)
    base = _predict(setup.baseline, setup, calibration, fabric)
    return {"ours": _row(ours), "baseline": _row(base), "ratio": base.step_s / ours.step_s}


def _row(p) -> dict:
    return {"label": p.label, "layout": p.layout, "step_s": p.step_s,
            "tflops_per_gpu": p.tflops_per_gpu, "memory_per_gpu_B": p.memory_per_gpu_B,
            "fits": p.fits and p.memory_verdict.startswith("fits"),
            "memory": p.memory_verdict}


# --- the testbed -----------------------------------------------------------------------

def results_dir(root: Path, experiment: str) -> Path:
    return Path(root) / Path(experiment).stem


def run_testbed(paper: papers.Paper, experiment: str, out: Path) -> None:
    """The shipped experiment into ``out`` (continued where a run there stopped)."""
    from testbed.experiment import runner
    args = argparse.Namespace(experiment=str(ROOT / experiment), output=str(out),
                              resume=out.exists(), servers=None, placement=None, link=None)
    code = runner.main(args)
    if code:
        raise TrainetError(f"trainet reproduce {paper.key}: the experiment {experiment} "
                           f"failed (exit {code}); its logs are in {out}")


def methods(out: Path, variant: str, convergence: Path | None) -> list[dict]:
    """Every method of the run's variant: step time, and the loss after the same steps
    where a run trained for real (the convergence experiment's, when there is one)."""
    from testbed.experiment.results import read_summary
    losses = {}
    if convergence is not None and _has_run(convergence):
        losses = {r["strategy"]: r.get("final_loss") for r in read_summary(convergence)}
    return [{"method": r["strategy"], "step_s": r.get("step_time_s"),
             "final_loss": losses.get(r["strategy"], r.get("final_loss")),
             "memory": r.get("memory_verdict")}
            for r in read_summary(out) if r["variant"] == variant]


def testbed_figure(paper: papers.Paper, out: Path) -> dict:
    """The ratio from a finished run in ``out``; a side that did not run (memory) or a
    missing run says so instead of a number."""
    from testbed.experiment.results import read_summary
    if not _has_run(out):
        return {"ratio": None, "note": f"not run (no results in {shown(out)})"}
    rows = {(r["variant"], r["strategy"]): r for r in read_summary(out)}
    t = paper.testbed
    sides = {}
    for role, label in (("ours", t.ours), ("baseline", t.baseline)):
        row = _pick(rows, t.variant, label)
        if row is None:
            have = sorted({f"{v}/{s}" for v, s in rows})
            raise TrainetError(f"{out}: no run of {label} in variant {t.variant}; the run "
                               f"has {', '.join(have)}")
        if not row.get("step_time_s"):
            return {"ratio": None, "note": f"{label} did not run: "
                    f"{row.get('memory_verdict') or 'does not fit memory'}"}
        sides[role] = {"label": row["strategy"], "step_s": row["step_time_s"],
                       "tflops_per_gpu": row.get("tflops_per_gpu")}
    return {**sides, "ratio": sides["baseline"]["step_s"] / sides["ours"]["step_s"],
            "variant": t.variant, "results": str(out)}


def _pick(rows: dict, variant: str, label: str) -> dict | None:
    """The row of ``label`` in ``variant``; ``PREFIX*``: the fastest of the labels that
    start with PREFIX (the best of a strategy's layouts, as a paper tunes it)."""
    if not label.endswith("*"):
        return rows.get((variant, label))
    found = [r for (v, s), r in rows.items() if v == variant and s.startswith(label[:-1])
             and r.get("step_time_s")]
    return min(found, key=lambda r: r["step_time_s"], default=None)


def _with_methods(figure: dict, paper: papers.Paper, out: Path, root: Path) -> dict:
    if not _has_run(out):
        return figure
    conv = results_dir(root, paper.testbed.convergence) if paper.testbed.convergence \
        else None
    return {**figure, "methods": methods(out, paper.testbed.variant, conv)}


# --- sensitivity -----------------------------------------------------------------------

def measure_cpu_adam(elements: int = 1 << 24, tensors: int = 4, steps: int = 3) -> dict:
    """Parameters/s torch's AdamW updates on one thread of this machine, per
    implementation: ``for-loop`` (one tensor at a time), ``foreach`` (multi-tensor
    kernels) and ``fused`` (one vectorised kernel per step, as DeepSpeed's CPU Adam
    is); the fastest of ``steps`` steps over ``tensors`` tensors of ``elements / tensors``."""
    import torch
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    out = {}
    try:
        for name, kwargs in (("for-loop", {"foreach": False}), ("foreach", {"foreach": True}),
                             ("fused", {"fused": True})):
            params = [torch.nn.Parameter(torch.zeros(elements // tensors))
                      for _ in range(tensors)]
            for p in params:
                p.grad = torch.full_like(p, 1e-3)
            try:
                opt = torch.optim.AdamW(params, lr=1e-3, weight_decay=0.01, **kwargs)
                opt.step()
            except (RuntimeError, TypeError):
                continue                   # this torch has no such CPU implementation
            fastest = math.inf
            for _ in range(steps):
                start = time.perf_counter()
                opt.step()
                fastest = min(fastest, time.perf_counter() - start)
            out[name] = elements / fastest
    finally:
        torch.set_num_threads(threads)
    return out


CPU_ADAM = "cpu_adam.json"        # the rates a run with --results measured, kept beside it


def cpu_adam_rates(args) -> dict:
    """The CPU Adam rates LuWu's sensitivity table uses: those kept in the results
    directory with --no-run (so its tables come out again as they were), else measured
    now and kept there (unless --model-only)."""
    kept = args.results / CPU_ADAM
    if args.no_run and kept.exists():
        return json.loads(kept.read_text())
    rates = measure_cpu_adam()
    if not args.model_only:
        args.results.mkdir(parents=True, exist_ok=True)
        kept.write_text(json.dumps(rates, indent=1) + "\n")
    return rates


def luwu_sensitivity(paper: papers.Paper, calibration, rates: dict) -> dict:
    """LuWu's ratio over interference x CPU Adam rate, with 1 and 8 GPUs per host."""
    interference = (0.0, calibration.interference, 0.5, 1.0)
    cpu = {f"{k} (measured here)": v for k, v in rates.items()}
    cpu.update({"model default": calibration.cpu_adam_rate, "1e7 /s": 1e7, "3e6 /s": 3e6})
    table = []
    for per_host in (1, 8):
        setup = dataclasses.replace(paper.model, gpus_per_host=per_host)
        one = dataclasses.replace(paper, model=setup)
        for name, rate in cpu.items():
            cells = []
            for share in interference:
                cal = dataclasses.replace(calibration, interference=share, cpu_adam_rate=rate)
                fig = model_figure(one, cal)
                cells.append({"interference": share, "ratio": fig["ratio"],
                              "baseline_fits": fig["baseline"]["fits"]})
            table.append({"gpus_per_host": per_host, "cpu_adam": name, "rate": rate,
                          "cells": cells})
    return {"parameter": "GPU interference x CPU Adam rate (params/s per core)",
            "interference": list(interference), "rows": table}


def zeropp_sensitivity(paper: papers.Paper, calibration) -> dict:
    rows = []
    for nics in (1, 2, 4, 8):
        fig = model_figure(paper, calibration, fabric=papers.dgx2(nics))
        rows.append({"inter_node_gbps": 100 * nics, "ratio": fig["ratio"]})
    return {"parameter": "inter-node bandwidth per DGX-2 node (Gb/s)", "rows": rows}


def frontier_sensitivity(paper: papers.Paper, calibration) -> dict:
    """The ratio over the bandwidth reached across nodes, against each ZeRO++
    configuration, beside each configuration's own ratio over ZeRO-3: the paper gives
    ZeRO++ 1.405x over ZeRO-3 (40.5 %) and its scheme 2.40x (139.8 %), which pins which
    configuration and bandwidth its 1.71x was measured at."""
    baselines = [papers.Side("zeropp", {"hpz": 8}),
                 papers.Side("zeropp", {"qwz": True, "qgz": True}),
                 papers.Side("zeropp", {"qwz": True, "hpz": 8, "qgz": True})]
    rows = []
    for gbytes in (100, 50, 25, 12.5, 10, 5, 2.5):
        fab = papers.frontier(gbytes)
        ours = _predict(paper.model.ours, paper.model, calibration, fab).step_s
        zero3 = _predict(papers.Side("zero3"), paper.model, calibration, fab).step_s
        steps = [_predict(b, paper.model, calibration, fab).step_s for b in baselines]
        rows.append({"inter_node_GBps": gbytes, "ratios": [b / ours for b in steps],
                     "over_zero3": [zero3 / b for b in steps], "ours_over_zero3":
                     zero3 / ours})
    return {"parameter": "bandwidth reached across nodes per node (GB/s; 100 nominal)",
            "baselines": [b.label for b in baselines], "rows": rows,
            "paper_over_zero3": {"zeropp": 1.405, "ours": 2.398}}


def axonn_sensitivity(paper: papers.Paper, calibration) -> dict:
    """AxoNN's best layout against every Megatron layout of the search, with the memory
    each needs and what it would need with its optimizer state (fp32 master weights and
    Adam moments) sharded over its data-parallel ranks, as Megatron-LM's distributed
    optimizer does (an estimate: the rest of the footprint unchanged)."""
    setup = paper.model
    ours = _predict(setup.ours, setup, calibration)
    workload = _workload(setup)
    fabric = papers.fabric(setup.fabric, setup.gpus)
    sizes = fabric.tier_sizes(setup.gpus) if hasattr(fabric, "tier_sizes") else {}
    candidates = _with_recompute("megatron", registry.get("megatron").candidate_options(
        setup.gpus, model=workload.model, batch=workload.global_batch, sizes=sizes,
        every=True))
    found, _ = search(workload, fabric, setup.gpus, calibration,
                      [("megatron", o) for o in candidates])
    rows = []
    for p in sorted(found, key=lambda p: p.step_s):
        tp, pp, dp = (p.options.get(k, 1) for k in ("tp", "pp", "dp"))
        state = shadow.OPTIMIZER_BYTES_PER_PARAM * workload.model.params / (tp * pp)
        sharded = p.memory_per_gpu_B - state * (1 - 1 / dp)
        rows.append({"layout": p.layout, "step_s": p.step_s, "ratio": p.step_s / ours.step_s,
                     "memory_B": p.memory_per_gpu_B, "fits": p.fits,
                     "sharded_optimizer_B": sharded,
                     "sharded_fits": sharded <= workload.device.memory_bytes})
    return {"parameter": "Megatron's layout, decided by its memory per GPU (optimizer "
                         "state replicated or sharded over data-parallel ranks)",
            "ours": {"layout": ours.layout, "step_s": ours.step_s},
            "capacity_B": workload.device.memory_bytes, "rows": rows}


# --- the command -----------------------------------------------------------------------

def reproduce(paper: papers.Paper, args, calibration, rates) -> dict:
    model = model_figure(paper, calibration)
    entry = {"seed": paper.key, "title": paper.title, "citation": paper.citation,
             "claim": paper.claim, "paper_ratio": paper.ratio,
             "paper_range": list(paper.ratio_range) if paper.ratio_range else None,
             "baseline": paper.baseline,
             "model_setup": {**dataclasses.asdict(paper.model),
                             "ours": paper.model.ours.label,
                             "baseline": paper.model.baseline.label},
             "model": model, "model_ratio": model["ratio"],
             "testbed_experiment": paper.testbed.experiment,
             "assumptions": list(paper.assumptions)}
    if args.model_only:
        entry.update(testbed=None, testbed_ratio=None)
    else:
        runs = [paper.testbed.experiment, *filter(None, [paper.testbed.convergence])]
        for experiment in runs:
            out = results_dir(args.results, experiment)
            if not args.no_run and not _finished(out):
                run_testbed(paper, experiment, out)
        out = results_dir(args.results, paper.testbed.experiment)
        entry["testbed"] = _with_methods(testbed_figure(paper, out), paper, out,
                                         args.results)
        entry["testbed_ratio"] = entry["testbed"]["ratio"]
    entry["verdict"] = verdict(entry)
    if paper.key == "luwu":
        entry["sensitivity"] = luwu_sensitivity(paper, calibration, rates)
    elif paper.key == "zeropp":
        entry["sensitivity"] = zeropp_sensitivity(paper, calibration)
    elif paper.key == "frontier":
        entry["sensitivity"] = frontier_sensitivity(paper, calibration)
    elif paper.key == "axonn":
        entry["sensitivity"] = axonn_sensitivity(paper, calibration)
    return entry


def _has_run(out: Path) -> bool:
    from testbed.experiment.results import CONFIG
    return (Path(out) / CONFIG).exists()


def _finished(out: Path) -> bool:
    from testbed.experiment.results import read_status
    return _has_run(out) and read_status(out).get("status") == "completed"


def verdict(entry: dict) -> str:
    paper, model, bed = entry["paper_ratio"], entry["model_ratio"], entry["testbed_ratio"]
    parts = []
    for name, got in (("model", model), ("testbed", bed)):
        if got is None:
            continue
        same = (got > 1) == (paper is None or paper > 1)
        parts.append(f"{name} {'agrees' if same else 'disagrees'} in direction")
    if paper is not None and model is not None:
        low, high = entry["paper_range"] or (paper, paper)
        gap = 0.0 if low <= model <= high else min(abs(model / low - 1), abs(model / high - 1))
        what = "range" if entry["paper_range"] else "ratio"
        parts.append(f"model within {WITHIN:.0%} of the paper's {what}" if gap <= WITHIN else
                     f"model {gap:.0%} off the paper's {what}")
    return "; ".join(parts)


def _x(value) -> str:
    return "-" if value is None else f"{value:.2f}x"


def shown(path: Path) -> str:
    """A path as a reader of the repository can follow it: from the root when inside."""
    path = Path(path).resolve()
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def command_line(args) -> str:
    flags = [*args.seeds, *(["--model-only"] if args.model_only else []),
             *([f"--results {shown(args.results)}"] if not args.model_only else []),
             *(["--no-run"] if getattr(args, "no_run", False) else []),
             *([f"--calibration {args.calibration}"] if args.calibration else [])]
    return " ".join(["trainet reproduce", *flags])


def markdown(entries: list[dict], rates: dict, command: str) -> str:
    lines = ["# Reproductions of the seed papers' headline results", "",
             f"Generated by `{command}` (testbed/experiment/reproduce.py; the papers' "
             "figures and setups in testbed/experiment/papers.py). Ratios are the "
             "baseline's step time over ours: above 1, ours is faster. The model runs at "
             "the paper's scale; the testbed runs the shipped experiment, co-scaled.", ""]
    for e in entries:
        m, s = e["model"], e["model_setup"]
        lines += [f"## {e['seed']}: {e['title']}", "",
                  f"Paper: {e['claim']} ({e['citation']}). Baseline: {e['baseline']}.", "",
                  "| source | setup | ours | baseline | ratio |", "|---|---|---|---|---|"]
        paper = _x(e["paper_ratio"]) if not e["paper_range"] else \
            f"{e['paper_range'][0]:.2f}-{e['paper_range'][1]:.2f}x"
        lines.append(f"| paper | as published | | | {paper} |")
        lines.append(f"| model | {s['model']}, {s['gpus']} x {s['device']}, fabric "
                     f"{s['fabric']}, batch {s['batch']} | {_side(m['ours'])} | "
                     f"{_side(m['baseline'])} | {_x(m['ratio'])} |")
        bed = e["testbed"]
        if bed is None:
            lines.append("| testbed | not run (--model-only) | | | - |")
        elif bed["ratio"] is None:
            lines.append(f"| testbed | {bed['note']} | | | - |")
        else:
            lines.append(f"| testbed | {e['testbed_experiment']}, variant {bed['variant']} | "
                         f"{bed['ours']['label']} {bed['ours']['step_s']:.3g} s | "
                         f"{bed['baseline']['label']} {bed['baseline']['step_s']:.3g} s | "
                         f"{_x(bed['ratio'])} |")
        if bed and bed.get("methods"):
            lines += ["", "Every method of the testbed run (loss: after the same steps, "
                      "trained for real where the paper has a convergence run):", "",
                      "| method | step | loss |", "|---|---|---|"]
            lines += [f"| {m['method']} | " + (f"{m['step_s']:.3g} s" if m["step_s"] else
                                                f"not run: {m['memory']}") + " | " +
                      (f"{m['final_loss']:.4g}" if m["final_loss"] is not None else "-") + " |"
                      for m in bed["methods"]]
        lines += ["", f"Verdict: {e['verdict']}.", "", "Assumptions that differ:", ""]
        lines += [f"- {a}" for a in e["assumptions"]]
        if "sensitivity" in e:
            lines += ["", *_sensitivity(e["sensitivity"], e["paper_ratio"])]
        lines.append("")
    if rates:
        lines += ["CPU Adam measured on this machine (torch AdamW, one thread): " +
                  ", ".join(f"{k} {v / 1e6:.0f} M params/s" for k, v in rates.items()) + ".",
                  ""]
    return "\n".join(lines)


def _side(row: dict) -> str:
    text = f"{row['label']} ({row['layout']}) {row['step_s']:.3g} s, " \
           f"{row['tflops_per_gpu']:.0f} TFLOP/s/GPU"
    return text if row["fits"] else text + f", does not fit: {row['memory']}"


def _sensitivity(sens: dict, target: float) -> list[str]:
    lines = [f"Sensitivity of the model's ratio ({sens['parameter']}; paper {target:.2f}x):",
             ""]
    if "interference" in sens:
        head = " | ".join(f"interference {i:.3g}" for i in sens["interference"])
        lines += [f"| GPUs per host | CPU Adam | rate | {head} |",
                  "|---" * (3 + len(sens["interference"])) + "|"]
        for r in sens["rows"]:
            cells = " | ".join(f"{c['ratio']:.2f}x" + ("" if c["baseline_fits"] else "*")
                               for c in r["cells"])
            lines.append(f"| {r['gpus_per_host']} | {r['cpu_adam']} | "
                         f"{r['rate'] / 1e6:.3g} M/s | {cells} |")
        lines += ["", "\\* the baseline does not fit (device or host memory).", ""]
        close = [f"{r['gpus_per_host']} GPUs per host, {r['cpu_adam']}, interference "
                 f"{c['interference']:.3g} ({c['ratio']:.2f}x)"
                 for r in sens["rows"] for c in r["cells"] if _near(c["ratio"], target)]
        lines.append(_closing(close))
    elif "baselines" in sens:
        paper = sens["paper_over_zero3"]
        lines += ["| across nodes, GB/s per node | " + " | ".join(
            f"against {b} (it over ZeRO-3)" for b in sens["baselines"]) +
            f" | ours over ZeRO-3 (paper {paper['ours']:.2f}x) |",
            "|---" * (2 + len(sens["baselines"])) + "|"]
        lines += [f"| {r['inter_node_GBps']:g} | " + " | ".join(
            f"{x:.2f}x ({z:.2f}x)" for x, z in zip(r["ratios"], r["over_zero3"])) +
            f" | {r['ours_over_zero3']:.2f}x |" for r in sens["rows"]]
        close = [f"{r['inter_node_GBps']:g} GB/s against {b} ({x:.2f}x; it over ZeRO-3 "
                 f"{z:.2f}x, paper {paper['zeropp']:.3g}x)"
                 for r in sens["rows"] for b, x, z in zip(sens["baselines"], r["ratios"],
                                                          r["over_zero3"])
                 if _near(x, target)]
        lines += ["", _closing(close)]
    elif "capacity_B" in sens:
        cap = sens["capacity_B"]
        lines += [f"AxoNN's best layout: {sens['ours']['layout']}, "
                  f"{sens['ours']['step_s']:.3g} s. Megatron's layouts, fastest first "
                  f"(memory per GPU of {cap / 2**30:.0f} GiB):", "",
                  "| Megatron layout | step | AxoNN's ratio | memory | fits | memory, "
                  "optimizer state sharded over DP | would fit |", "|---" * 7 + "|"]
        lines += [f"| {r['layout']} | {r['step_s']:.3g} s | {r['ratio']:.2f}x | "
                  f"{r['memory_B'] / 2**30:.3g} GiB | {'yes' if r['fits'] else 'no'} | "
                  f"{r['sharded_optimizer_B'] / 2**30:.3g} GiB | "
                  f"{'yes' if r['sharded_fits'] else 'no'} |" for r in sens["rows"]]
        close = [f"{r['layout']} ({r['ratio']:.2f}x, fits "
                 f"{'as modelled' if r['fits'] else 'with the optimizer state sharded'})"
                 for r in sens["rows"] if _near(r["ratio"], target)
                 and (r["fits"] or r["sharded_fits"])]
        lines += ["", _closing(close)]
    else:
        lines += ["| inter-node Gb/s per node | ratio |", "|---|---|"]
        lines += [f"| {r['inter_node_gbps']} | {r['ratio']:.2f}x |" for r in sens["rows"]]
        close = [f"{r['inter_node_gbps']} Gb/s ({r['ratio']:.2f}x)" for r in sens["rows"]
                 if _near(r["ratio"], target)]
        lines += ["", _closing(close)]
    return lines


def _near(ratio: float, target: float) -> bool:
    return abs(ratio / target - 1) <= WITHIN


def _closing(values: list[str]) -> str:
    if not values:
        return f"No value in the table brings the model within {WITHIN:.0%} of the paper."
    return f"Within {WITHIN:.0%} of the paper: " + "; ".join(values) + "."


def main(args) -> int:
    chosen = selected(args.seeds)
    if not (args.model_only or args.no_run) and os.geteuid() != 0:
        raise TrainetError("trainet reproduce runs the shipped experiments, which need root "
                           "(network namespaces); run it with sudo, or give --model-only")
    calibration = load(args.calibration)
    args.results = Path(args.results)
    rates = cpu_adam_rates(args) if any(p.key == "luwu" for p in chosen) else {}
    entries = [reproduce(p, args, calibration, rates) for p in chosen]
    if args.json:
        print(json.dumps({"cpu_adam_measured": rates, "papers": entries}, indent=1,
                         default=str))
    else:
        print(markdown(entries, rates, command_line(args)))
    return 0
