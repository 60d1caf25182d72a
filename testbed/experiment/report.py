"""``trainet report RESULTS``: plots (PNG) and a Markdown summary of a ``trainet run``.

Works on any results directory, also of an interrupted run (it shows what was measured).
Plots, in RESULTS/plots/:

- step_breakdown.png: per variant and strategy, the mean step time split into compute
  and exposed (not overlapped) communication;
- links_<variant>.png: utilisation of every switch port while each strategy trained
  (transmitted bits over the port's emulated rate, per second; ports with the same curve
  drawn once);
- loss.png: training loss per step, one line per variant and strategy (the first rank
  that reports one: rank 0, or a pipeline's last stage);
- speedup_bandwidth.png: per strategy, speedup of the step time against the slowest
  bottleneck bandwidth of the sweep, with the baseline and the ideal (only when the
  sweep varies bandwidth);
- scaling.png: per strategy, TFLOPS per GPU and scaling efficiency against the workers
  (shadow runs over several worker counts, e.g. a node sweep);
- wire_tiers.png: per variant and strategy, the measured bytes per step (nominal) of
  each tier of a fabric with several (intra-GPU, intra-node, inter-node on a
  Frontier-like one) and the pattern's inter-node bytes.
"""
from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from testbed.errors import TrainetError
from testbed.experiment import results
from testbed.units import format_duration, format_rate, format_size

COLORS = {"compute_s": "#4C72B0", "exposed_comm_s": "#DD8452", "interference_s": "#C44E52",
          "offload_s": "#8172B3"}


def _pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _label(row: dict) -> str:
    return f"{row['variant']}\n{row['strategy']}"


def plot_step_breakdown(rows: list[dict], path: Path) -> Path | None:
    rows = [r for r in rows if r.get("step_time_s") is not None]
    if not rows:
        return None
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(rows) + 2), 4.5))
    x = range(len(rows))
    bottom = [0.0] * len(rows)
    for key, label in (("compute_s", "compute"), ("exposed_comm_s", "exposed communication"),
                       ("interference_s", "interference (GPU collectives)"),
                       ("offload_s", "offload (host link, NVMe, CPU optimizer)")):
        part = [r.get(key) or 0.0 for r in rows]
        if key in ("compute_s", "exposed_comm_s") or any(part):
            ax.bar(x, part, bottom=bottom, color=COLORS[key], label=label)
            bottom = [b + p for b, p in zip(bottom, part)]
    ax.scatter(x, [r["step_time_s"] for r in rows], marker="_", s=400, color="black",
               zorder=3, label="measured step time")
    ax.set_xticks(list(x), [_label(r) for r in rows], fontsize=8)
    return _bar_chart(plt, fig, ax, path, "time per step (s)",
                      "Step time breakdown (mean over ranks and measured steps)")


def _bar_chart(plt, fig, ax, path: Path, ylabel: str, title: str) -> Path:
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def link_series(samples: list[dict]) -> dict[str, tuple[list[float], list[float]]]:
    """interface -> (times from the first sample in s, transmitted bits/s per interval)."""
    by_iface = defaultdict(list)
    for s in samples:
        by_iface[s["interface"]].append(s)
    t0 = min((s["time_s"] for s in samples), default=0.0)
    out = {}
    for iface, points in sorted(by_iface.items()):
        points.sort(key=lambda s: s["time_s"])
        times, rates = [], []
        for a, b in zip(points, points[1:]):
            dt = b["time_s"] - a["time_s"]
            if dt > 0:
                times.append(b["time_s"] - t0)
                rates.append((b["tx_bytes"] - a["tx_bytes"]) * 8 / dt)
        out[iface] = (times, rates)
    return out


UTILISATION_WINDOW_S = 1.0    # utilisation averaged over at least this long
ACTIVE = 0.01                 # a port is busy above 1 % of its rate


def utilisation(times: list[float], tx_bytes: list[int], rate_bps: float,
                window_s: float = UTILISATION_WINDOW_S) -> tuple[list[float], list[float]]:
    """Percent of ``rate_bps`` transmitted, over windows of at least ``window_s`` ending
    at each sample. A single sampling interval (0.25 s) reads the counters a little
    before or after the kernel moved them, so one interval can show more than the shaped
    rate; over a second the error is a few tenths of a percent, and the rest (a frame
    in flight across the boundary) is capped at 100 %."""
    out_t, out_v = [], []
    start = 0
    for end in range(1, len(times)):
        while start + 1 < end and times[end] - times[start + 1] >= window_s:
            start += 1
        dt = times[end] - times[start]
        if dt > 0:
            out_t.append(times[end])
            out_v.append(min(100.0, 100 * (tx_bytes[end] - tx_bytes[start]) * 8
                             / dt / rate_bps))
    return out_t, out_v


def _active_span(series: dict, threshold: float) -> tuple[float, float] | None:
    """From the first to the last sample above ``threshold`` on any port."""
    busy = [t for times, values in series.values() for t, v in zip(times, values)
            if v > threshold]
    return (min(busy), max(busy)) if busy else None


SAME_CURVE = 5.0     # ports within 5 points (% of the rate, or Mb/s): one line to the eye


def _merged(series: dict, tolerance: float = SAME_CURVE) -> dict:
    """Ports whose curves stay within ``tolerance`` of the first of them at every sample
    are drawn once, as their mean, labelled with all of them: a star's ports carry the
    same all-reduce and would otherwise hide each other."""
    groups: list[tuple[list[str], list, list]] = []
    for iface, (times, values) in series.items():
        for names, t, members in groups:
            if t == times and all(abs(a - b) <= tolerance for a, b in zip(members[0], values)):
                names.append(iface)
                members.append(values)
                break
        else:
            groups.append(([iface], times, [values]))
    return {", ".join(names): (t, [sum(v) / len(v) for v in zip(*members)])
            for names, t, members in groups}


def plot_links(root: Path, config: dict, variant: dict, path: Path) -> Path | None:
    """Transmit utilisation of every switch port while the strategy trained: the idle
    bring-up before the first and after the last busy sample is left out, ports with the
    same curve are one line, and the legend sits beside the axes."""
    runs = []
    for strategy in config["strategies"]:
        for rep in sorted((root / "runs" / variant["name"] / strategy).glob("rep*")):
            samples = results.read_links(rep)
            if samples:
                runs.append((f"{strategy} {rep.name}", samples))
    if not runs:
        return None
    rates = variant.get("port_rates_bps") or {}
    plt = _pyplot()
    fig, axes = plt.subplots(len(runs), 1, figsize=(9.5, 2.6 * len(runs) + 0.6),
                             squeeze=False)
    for ax, (title, samples) in zip(axes[:, 0], runs):
        by_iface = defaultdict(list)
        for sample in samples:
            by_iface[sample["interface"]].append(sample)
        t0 = min(sample["time_s"] for sample in samples)
        percent = all(rates.get(iface) for iface in by_iface)
        series = {}
        for iface, points in sorted(by_iface.items()):
            points.sort(key=lambda sample: sample["time_s"])
            times = [sample["time_s"] - t0 for sample in points]
            if percent:
                series[iface] = utilisation(times, [p["tx_bytes"] for p in points],
                                            rates[iface])
            else:
                t, bps = link_series(points)[iface]
                series[iface] = ([x + min(p["time_s"] for p in points) - t0 for x in t],
                                 [v / 1e6 for v in bps])
        span = _active_span(series, 100 * ACTIVE if percent else 0.0)
        for label, (times, values) in _merged(series).items():
            ax.plot(times, values, label=label, linewidth=1.2)
        if span is not None:
            margin = max(0.5, 0.05 * (span[1] - span[0]))
            ax.set_xlim(max(0.0, span[0] - margin), span[1] + margin)
        ax.set_ylabel("utilisation (%)" if percent else "transmitted (Mb/s)", fontsize=8)
        if percent:
            ax.set_ylim(0, 105)
        ax.set_title(title, fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    axes[-1, 0].set_xlabel("time since the first sample (s); idle bring-up left out")
    fig.suptitle(f"Switch port transmit utilisation: {variant['name']}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def loss_lines(root: Path, config: dict) -> list[tuple[str, list[tuple[int, float]]]]:
    """Per variant and strategy (first repetition), the (step, loss) points of the first
    rank that reports losses: rank 0, or a pipeline's last stage, wherever it was placed."""
    lines = []
    for variant in config["variants"]:
        for strategy in config["strategies"]:
            rep = results.run_dir(root, variant["name"], strategy, 0)
            ranks = results.read_metrics(rep)
            for rank in sorted(ranks):      # the first that reports (a pipeline's last stage)
                recs = sorted(ranks[rank], key=lambda r: r.get("step", 0))
                points = [(r["step"], r["loss"]) for r in recs if r.get("loss") is not None]
                if points:
                    lines.append((f"{variant['name']} {strategy}", points))
                    break
    return lines


def plot_loss(root: Path, config: dict, path: Path) -> Path | None:
    lines = loss_lines(root, config)
    if not lines:
        return None
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    for i, (label, points) in enumerate(lines):      # dashes keep equal curves apart
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", markersize=3,
                linestyle=("-", "--", ":", "-.")[i % 4], label=label)
    ax.set_xlabel("step")
    ax.set_ylabel("training loss (cross-entropy)")
    ax.set_title("Loss curves (first rank reporting a loss, first repetition)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def speedups(rows: list[dict]) -> dict[tuple, list[tuple[float, float]]]:
    """(strategy, nic, loss, delay) -> [(bottleneck nominal b/s, speedup against the
    lowest bandwidth of the curve)], for curves of at least two bandwidths. A NIC sweep
    is a bandwidth sweep (nic is then ""); with both swept, each NIC gets its curve."""
    groups = defaultdict(list)
    for r in rows:
        if r.get("step_time_s") and r.get("bottleneck_nominal_bps"):
            groups[(r["strategy"], r.get("loss_pct"), r.get("delay_s"))].append(r)
    curves = {}
    for (strategy, loss, delay), members in groups.items():
        bandwidths = [r["bottleneck_nominal_bps"] for r in members]
        by_nic = len(set(bandwidths)) < len(bandwidths)
        for r in members:
            key = (strategy, (r.get("nic") or "") if by_nic else "", loss, delay)
            curves.setdefault(key, []).append((r["bottleneck_nominal_bps"], r["step_time_s"]))
    out = {}
    for key, points in curves.items():
        points.sort()
        if len({bw for bw, _ in points}) < 2:
            continue
        base = points[0][1]
        out[key] = [(bw, base / t) for bw, t in points]
    return out


def plot_speedup(rows: list[dict], path: Path) -> Path | None:
    """Each strategy's measured speedup against the bottleneck bandwidth, next to the
    baseline (1x, its lowest bandwidth) and the ideal (the step time falling as 1 /
    bandwidth). Two bandwidths are two points, not a line."""
    curves = speedups(rows)
    if not curves:
        return None
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.2))
    bandwidths = sorted({bw for points in curves.values() for bw, _ in points})
    low = bandwidths[0]
    ax.plot([b / 1e9 for b in bandwidths], [b / low for b in bandwidths], color="grey",
            linestyle="--", linewidth=1, label="ideal: step time x 1/bandwidth")
    ax.axhline(1.0, color="black", linewidth=0.8, label=f"baseline: {format_rate(low)}")
    for (strategy, nic, loss, delay), points in curves.items():
        extra = ", ".join(t for t in (nic, f"loss {loss:g} %" if loss else "",
                                      f"delay {format_duration(delay)}" if delay else "") if t)
        ax.plot([p[0] / 1e9 for p in points], [p[1] for p in points], marker="o",
                linestyle="-" if len(points) > 2 else "none", markersize=7,
                label=strategy + (f" ({extra})" if extra else ""))
    ax.set_xlabel("bottleneck link bandwidth, nominal (Gb/s)")
    ax.set_ylabel("speedup of the step time (x)")
    ax.set_xticks([b / 1e9 for b in bandwidths])
    ax.set_ylim(0, max(b / low for b in bandwidths) * 1.1)
    ax.set_title("Speedup against bandwidth")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_scaling(rows: list[dict], path: Path) -> Path | None:
    curves = defaultdict(list)
    for r in rows:
        if r.get("tflops_per_gpu"):
            curves[r["strategy"]].append((r["workers"], r["tflops_per_gpu"],
                                          r.get("scaling_efficiency")))
    if not any(len({w for w, _, _ in c}) > 1 for c in curves.values()):
        return None
    plt = _pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    for strategy, points in curves.items():
        points.sort()
        left.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=strategy)
        right.plot([p[0] for p in points], [p[2] for p in points], marker="o", label=strategy)
    left.set_ylabel("TFLOPS per GPU (nominal)")
    right.set_ylabel("scaling efficiency (x of the fewest workers)")
    for ax in (left, right):
        ax.set_xlabel("workers (GPUs)")
        ax.grid(alpha=0.3)
    left.legend(fontsize=7)
    fig.suptitle("Throughput per GPU against the number of GPUs")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


# each worker's bytes per step and direction: on every fabric, a one-switch star too;
# the other wire_*_B columns are a fabric's tiers (testbed/experiment/wire.py)
PER_WORKER_COLUMNS = ("wire_tx_per_step_B", "wire_rx_per_step_B")


def plot_wire_tiers(rows: list[dict], path: Path) -> Path | None:
    """Bytes per step on each tier of a fabric with two tiers or more, nominal (the
    emulated bytes over the co-scaling factor, as every other figure), with the
    pattern's inter-node bytes where the run has them."""
    tiers = sorted({k for r in rows for k in r if k.startswith("wire_") and k.endswith("_B")
                    and k not in PER_WORKER_COLUMNS and r.get(k) is not None})
    if len(tiers) < 2:
        return None
    rows = [r for r in rows if any(r.get(t) is not None for t in tiers) and r.get("scale")]
    if not rows:
        return None
    if any(r.get("theory_inter_node_B") is not None for r in rows):
        tiers.append("theory_inter_node_B")
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(rows) + 2), 4.5))
    width = 0.8 / len(tiers)
    for j, tier in enumerate(tiers):
        values = [(r.get(tier) or 0) / r["scale"] / 1e9 for r in rows]
        ax.bar([i + j * width for i in range(len(rows))], values, width,
               label=tier.removesuffix("_B").replace("_", " "),
               hatch="//" if tier.startswith("theory") else None)
    ax.set_xticks([i + width * (len(tiers) - 1) / 2 for i in range(len(rows))],
                  [_label(r) for r in rows], fontsize=7)
    return _bar_chart(plt, fig, ax, path, "GB per step, nominal (whole fabric)",
                      "Bytes on the wire per tier, measured on the switch ports")


def _cell(value, kind: str) -> str:
    if value is None or value == "":
        return "-"
    return {"s": format_duration, "B": format_size, "bps": format_rate,
            "x": lambda v: f"{v:.2f}", "": str}[kind](value)


TABLE = [("variant", "variant", ""), ("strategy", "strategy", ""),
         ("bottleneck (nominal)", "bottleneck_nominal_bps", "bps"),
         ("emulated", "bottleneck_emulated_bps", "bps"),
         ("step time", "step_time_s", "s"), ("± std", "step_time_std_s", "s"),
         ("compute", "compute_s", "s"), ("exposed comm", "exposed_comm_s", "s"),
         ("pipeline bubble", "bubble_s", "s"),
         ("interference", "interference_s", "s"), ("offload", "offload_s", "s"),
         ("sent/step (nominal)", "sent_per_step_nominal_B", "B"),
         ("sent/step (emulated)", "sent_per_step_emulated_B", "B"),
         ("received/step (emulated)", "recv_per_step_emulated_B", "B"),
         ("wire out/step/worker", "wire_tx_per_step_B", "B"),
         ("wire in/step/worker", "wire_rx_per_step_B", "B"),
         ("params mem (nominal)", "mem_params_nominal_B", "B"),
         ("grads mem (nominal)", "mem_grads_nominal_B", "B"),
         ("optimizer mem (nominal)", "mem_optim_nominal_B", "B"),
         ("activations", "mem_activations_nominal_B", "B"),
         ("device footprint", "mem_device_need_B", "B"),
         ("host (offload)", "mem_host_nominal_B", "B"),
         ("NVMe (offload)", "mem_nvme_nominal_B", "B"),
         ("memory", "memory_verdict", ""),
         ("final loss", "final_loss", "x"),
         ("TFLOPS/GPU", "tflops_per_gpu", "x"), ("scaling eff.", "scaling_efficiency", "x"),
         ("wire intra-GPU", "wire_intra_gpu_B", "B"),
         ("wire intra-node", "wire_intra_node_B", "B"),
         ("wire inter-node", "wire_inter_node_B", "B"),
         ("theory inter-node", "theory_inter_node_B", "B")]


def markdown_table(rows: list[dict]) -> str:
    """The columns some row has a value in."""
    table = [c for c in TABLE if c[0] in ("variant", "strategy")
             or any(r.get(c[1]) is not None for r in rows)]
    lines = ["| " + " | ".join(h for h, _, _ in table) + " |",
             "|" + "|".join("---" for _ in table) + "|"]
    for r in rows:
        lines.append("| " + " | ".join(_cell(r.get(k), kind) for _, k, kind in table) + " |")
    return "\n".join(lines)


def capture_summaries(root: Path, config: dict) -> list[tuple[str, dict]]:
    """(variant, ``trainet inspect`` summary) of the variants whose switch captures hold
    in-network aggregation traffic (experiments with ``pcap: true``)."""
    from testbed.experiment.inspect import read_capture, summarize
    out = []
    for variant in config["variants"]:
        pcaps = sorted((root / "variants" / variant["name"] / "net" / "pcaps").rglob("*.pcap"))
        if pcaps:
            summary = summarize([read_capture(p) for p in pcaps])
            if summary["jobs"]:
                out.append((variant["name"], summary))
    return out


def ina_table(summaries: list[tuple[str, dict]]) -> str:
    lines = ["| variant | job | workers | rounds | without result | gradient packets | "
             "result packets | retransmissions | duplicates | completion p50 | p99 |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for variant, summary in summaries:
        for j in summary["jobs"]:
            lat = j["latency_s"] or {}
            lines.append(f"| {variant} | {j['job']} | {len(j['workers'])} | {j['rounds']} | "
                         f"{j['incomplete_rounds']} | {j['gradients']} | {j['results']} | "
                         f"{j['retransmissions']} | {j['duplicates']} | "
                         f"{_cell(lat.get('p50'), 's')} | {_cell(lat.get('p99'), 's')} |")
    return "\n".join(lines)


def render_markdown(root: Path, config: dict, rows: list[dict], plots: list[Path]) -> str:
    status = results.read_status(root)
    env_path = root / "environment.json"
    env = json.loads(env_path.read_text()) if env_path.exists() else {}
    spec = config.get("experiment", {})
    lines = [f"# {spec.get('name', root.name)}", ""]
    if spec.get("description"):
        lines += [spec["description"].strip(), ""]
    lines.append(f"Status: **{status.get('status', 'unknown')}**"
                 + (f": {status['error']}" if status.get("error") else ""))
    lines += ["", f"- workers: {', '.join(config.get('workers', []))}",
              f"- workload: {json.dumps(spec.get('workload', {}))}",
              f"- strategies: {', '.join(config.get('strategies', []))}",
              f"- co-scaling factor: {config.get('scale')} (emulated rates and bytes are the "
              "nominal ones times this factor; times are not scaled)",
              f"- repetitions: {spec.get('repetitions', 1)}"]
    for variant in config.get("variants", []):
        if variant.get("devices"):
            where = f" ({variant['name']})" if len(config["variants"]) > 1 else ""
            lines.append(f"- devices{where}: " + ", ".join(
                f"{worker} {device}" for worker, device in variant["devices"].items()))
    if env:
        lines.append(f"- machine: {env.get('platform', '?')}, {env.get('cpus', '?')} CPUs, "
                     f"Python {env.get('python', '?')}, torch {env.get('torch', '?')}")
        if env.get("shaping_plan"):
            lines.append("- link emulation: " + ", ".join(
                f"{k} by {v}" for k, v in env["shaping_plan"].items()))
    lines += ["", "## Summary", "",
              "Means over ranks, repetitions and steps; the first step of every run is "
              "warm-up and left out. Byte counts are per worker and step.", ""]
    lines += [markdown_table(rows) if rows else "No step completed: nothing to summarize.", ""]
    if any(r.get("memory_verdict") for r in rows):
        lines += ["Memory is each worker's whole footprint on its device (parameters, "
                  "gradients, optimizer state, activations, communication buffers, the "
                  "framework's reserve; hosts/footprint.py), checked against the device's "
                  "capacity before the run: a strategy that does not fit is not run (no step "
                  "time) unless the experiment says `run_not_fitting`, then it runs marked "
                  "\"run anyway\".", ""]
    if config.get("cpu_adam_params_per_s_per_core"):
        lines += ["Offloading (ZeRO-Offload, ZeRO-Infinity) is modeled, not moved: shadow "
                  "workers sleep the host-link and NVMe transfers at the host profile's rates "
                  "and the CPU optimizer's step at the rate measured on this machine before "
                  f"the run, {config['cpu_adam_params_per_s_per_core'] / 1e6:.0f} M "
                  "parameters/s on one core with torch's AdamW, scaled to the host's cores "
                  "and memory bandwidth (hosts/offload.py). The interference column is the "
                  "compute that GPU collectives slowed (hosts/shadow.py).", ""]
    captures = capture_summaries(root, config)
    if captures:
        lines += ["## In-network aggregation (switch captures)", "",
                  "From the switch's pcaps, as `trainet inspect` reads them: a round is one "
                  "chunk of a job through one slot; completion is its first gradient to its "
                  "first result.", "", ina_table(captures), ""]
    if plots:
        lines += ["## Plots", ""]
        lines += [f"![{p.stem}](plots/{p.name})\n" for p in plots]
    return "\n".join(lines)


def write_report(root: str | Path) -> Path:
    root = Path(root)
    if not root.is_dir():
        raise TrainetError(f"{root}: no such results directory; give the directory "
                           "`trainet run -o` wrote")
    config = results.read_config(root)
    rows = results.read_summary(root)
    plot_dir = root / "plots"
    plot_dir.mkdir(exist_ok=True)
    made = [plot_step_breakdown(rows, plot_dir / "step_breakdown.png"),
            plot_speedup(rows, plot_dir / "speedup_bandwidth.png"),
            plot_loss(root, config, plot_dir / "loss.png"),
            plot_scaling(rows, plot_dir / "scaling.png"),
            plot_wire_tiers(rows, plot_dir / "wire_tiers.png")]
    made += [plot_links(root, config, v, plot_dir / f"links_{v['name']}.png")
             for v in config["variants"]]
    plots = [p for p in made if p is not None]
    out = root / "report.md"
    out.write_text(render_markdown(root, config, rows, plots))
    return out


def main(args) -> int:
    out = write_report(args.results)
    print(f"report: {out}")
    for png in sorted((out.parent / "plots").glob("*.png")):
        print(f"plot: {png}")
    return 0
