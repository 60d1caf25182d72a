"""The report's plots read back: axes, labels, legends and the data drawn."""
from __future__ import annotations

import pytest

from testbed.experiment import report, results

from .synthetic import BANDWIDTH, SCALE, make_results


@pytest.fixture
def figures(monkeypatch):
    """Every figure a plot function closes, kept open for the test to read."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    close, kept = plt.close, []
    monkeypatch.setattr(plt, "close", lambda fig=None: kept.append(fig))
    yield kept
    for fig in kept:
        close(fig)


def legend_of(ax) -> list[str]:
    legend = ax.get_legend()
    return [t.get_text() for t in legend.get_texts()] if legend else []


def write_links(run, rate_bps: float, idle_s: float = 10.0, busy_s: float = 3.0) -> None:
    """Three ports carrying the same all-reduce at the full shaped rate after ``idle_s``
    of bring-up, a fourth at a quarter; the sampler reads the counters 0.25 s apart with
    a 20 ms jitter, so a single interval exceeds 100 %."""
    rows = ["time_s,interface,rx_bytes,tx_bytes"]
    sent = {f"s1-eth{i}": 0.0 for i in range(1, 5)}
    t, last = 0.0, 0.0
    for i in range(int((idle_s + busy_s) / 0.25)):
        t = 0.25 * i + (0.02 if i % 2 else 0.0)
        busy_for = max(0.0, min(t, idle_s + busy_s) - max(last, idle_s))
        for iface in sent:
            share = 0.25 if iface == "s1-eth4" else 1.0
            sent[iface] += busy_for * rate_bps * share / 8
            rows.append(f"{100 + t:.3f},{iface},0,{int(sent[iface])}")
        last = t
    (run / "links.csv").write_text("\n".join(rows) + "\n")


def test_links_merge_equal_ports_skip_bring_up_and_stay_within_the_rate(tmp_path, figures):
    root = make_results(tmp_path / "r")
    rate = BANDWIDTH["bandwidth-100Gbit"] * SCALE
    for strategy in ("ddp", "zero3"):
        write_links(root / "runs" / "bandwidth-100Gbit" / strategy / "rep0", rate)
    config = results.read_config(root)
    variant = {**config["variants"][0],
               "port_rates_bps": {f"s1-eth{i}": rate for i in range(1, 5)}}
    assert report.plot_links(root, config, variant, tmp_path / "links.png")
    fig = figures[-1]
    ax = fig.axes[0]
    assert ax.get_title() == "ddp rep0"
    assert ax.get_ylabel() == "utilisation (%)"
    assert legend_of(ax) == ["s1-eth1, s1-eth2, s1-eth3", "s1-eth4"]
    lines = {line.get_label(): line.get_ydata() for line in ax.get_lines()}
    assert max(lines["s1-eth1, s1-eth2, s1-eth3"]) == pytest.approx(100.0, abs=3)
    assert max(max(v) for v in lines.values()) <= 100.0
    assert max(lines["s1-eth4"]) == pytest.approx(25.0, abs=3)
    left, right = ax.get_xlim()
    assert 8.5 <= left <= 10.0 and right <= 13.0 + 1.0      # the idle 10 s left out
    legend = ax.get_legend()
    assert legend.get_bbox_to_anchor().x0 > ax.get_window_extent().x1 - 1   # beside the axes
    assert fig.axes[-1].get_xlabel().startswith("time since the first sample (s)")


def test_speedup_has_baseline_ideal_and_points_not_a_line(tmp_path, figures):
    rows = results.summary_rows(make_results(tmp_path / "r"))
    assert report.plot_speedup(rows, tmp_path / "speedup.png")
    ax = figures[-1].axes[0]
    assert ax.get_xlabel() == "bottleneck link bandwidth, nominal (Gb/s)"
    assert ax.get_ylabel() == "speedup of the step time (x)"
    assert legend_of(ax) == ["ideal: step time x 1/bandwidth", "baseline: 100 Gb/s", "ddp",
                             "zero3"]
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert list(lines["ideal: step time x 1/bandwidth"].get_ydata()) == [1.0, 2.0]
    assert list(lines["ideal: step time x 1/bandwidth"].get_xdata()) == [100.0, 200.0]
    for strategy in ("ddp", "zero3"):
        assert lines[strategy].get_linestyle() == "None"
        assert lines[strategy].get_ydata()[0] == 1.0
    # ddp: 0.5 s -> 0.3 s per step, zero3: 0.8 s -> 0.5 s
    assert lines["ddp"].get_ydata()[1] == pytest.approx(0.5 / 0.3)
    assert lines["zero3"].get_ydata()[1] == pytest.approx(0.8 / 0.5)


def _tier_rows(with_theory: bool) -> list[dict]:
    rows = []
    for variant in ("nodes-1", "nodes-2"):
        row = {"variant": variant, "strategy": "zero3", "scale": 1e-5,
               "wire_intra_node_B": 2e5, "wire_inter_node_B": 1e5,
               "wire_tx_per_step_B": 3e5}
        if with_theory:
            row["theory_inter_node_B"] = 0.9e5
        rows.append(row)
    return rows


def test_wire_tiers_are_nominal_and_list_only_what_has_bars(tmp_path, figures):
    assert report.plot_wire_tiers(_tier_rows(False), tmp_path / "w.png")
    ax = figures[-1].axes[0]
    assert ax.get_ylabel() == "GB per step, nominal (whole fabric)"
    assert legend_of(ax) == ["wire inter node", "wire intra node"]
    heights = sorted({round(p.get_height(), 6) for p in ax.patches})
    assert heights == [10.0, 20.0]                  # 1e5 B / 1e-5 = 10 GB, 2e5 B: 20 GB
    assert [t.get_text() for t in ax.get_xticklabels()] == ["nodes-1\nzero3", "nodes-2\nzero3"]
    assert report.plot_wire_tiers(_tier_rows(True), tmp_path / "w.png")
    assert legend_of(figures[-1].axes[0])[-1] == "theory inter node"


def test_wire_tiers_of_a_one_tier_fabric_is_no_plot(tmp_path, figures):
    rows = [{"variant": "base", "strategy": "ddp", "scale": 1e-4, "wire_intra_rack_B": 5e4,
             "wire_tx_per_step_B": 6e4, "wire_rx_per_step_B": 6e4}]
    assert report.plot_wire_tiers(rows, tmp_path / "w.png") is None
    assert not (tmp_path / "w.png").exists()
