"""Summary and report of a results directory with known numbers."""
import csv
import json

import pytest

from testbed.cli import main
from testbed.experiment import report, results

from .synthetic import SCALE, SENT_PER_STEP, make_results

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def root(tmp_path):
    return make_results(tmp_path / "res")


def by_key(rows):
    return {(r["variant"], r["strategy"]): r for r in rows}


def test_summary_rows_leave_out_warmup_and_convert_bytes(root):
    rows = by_key(results.summary_rows(root))
    ddp = rows[("bandwidth-100Gbit", "ddp")]
    assert ddp["step_time_s"] == pytest.approx(0.5)
    assert ddp["step_time_std_s"] == pytest.approx(0.0, abs=1e-12)
    assert (ddp["compute_s"], ddp["exposed_comm_s"]) == (pytest.approx(0.2), pytest.approx(0.3))
    assert ddp["steps_measured"] == 3 * 3 and ddp["workers"] == 3 and ddp["runs"] == 1
    assert ddp["sent_per_step_emulated_B"] == SENT_PER_STEP
    assert ddp["sent_per_step_nominal_B"] == pytest.approx(SENT_PER_STEP / SCALE)
    assert ddp["wire_tx_per_step_B"] == SENT_PER_STEP + 300
    assert ddp["wire_rx_per_step_B"] == SENT_PER_STEP + 200
    assert (ddp["mem_params_nominal_B"], ddp["mem_params_emulated_B"]) == (1e7 + 2, 1002)
    assert ddp["mem_optim_nominal_B"] == 2e7
    assert ddp["final_loss"] == pytest.approx(5.0 - 1.5 + 0.01)
    assert rows[("bandwidth-200Gbit", "zero3")]["step_time_s"] == pytest.approx(0.5)
    assert ddp["bottleneck_nominal_bps"] == 100e9


def test_summary_csv_round_trip_has_units_in_columns(root):
    results.write_summary(root, results.summary_rows(root))
    with (root / "summary.csv").open() as f:
        header = next(csv.reader(f))
    assert "step_time_s" in header and "sent_per_step_nominal_B" in header
    assert "bottleneck_emulated_bps" in header
    rows = by_key(results.read_summary(root))
    assert rows[("bandwidth-200Gbit", "ddp")]["step_time_s"] == pytest.approx(0.3)


def test_speedup_against_bandwidth(root):
    curves = report.speedups(results.summary_rows(root))
    assert curves[("ddp", "", None, None)] == [(100e9, 1.0), (200e9, pytest.approx(0.5 / 0.3))]
    assert curves[("zero3", "", None, None)][1][1] == pytest.approx(0.8 / 0.5)


def test_link_utilization_series(root):
    samples = results.read_links(root / "runs" / "bandwidth-100Gbit" / "ddp" / "rep0")
    series = report.link_series(samples)
    times, bps = series["s1-eth1"]
    assert times == pytest.approx([0.5, 1.0, 1.5, 2.0])
    assert bps == pytest.approx([0.5 * 100e9 * SCALE] * 4, rel=1e-3)
    assert series["s1-eth2"][1] == [0.0] * 4


@pytest.mark.slow
def test_report_writes_markdown_and_plots_and_renders_again(root, capsys):
    assert main(["report", str(root)]) == 0
    out = capsys.readouterr().out
    md = (root / "report.md").read_text()
    assert md.startswith("# synthetic")
    assert "Status: **completed**" in md
    assert "| bandwidth-100Gbit | ddp | 100 Gb/s | 10 Mb/s | 500 ms |" in md
    # sent nominal and emulated, received, each worker's wire bytes out and in, memory
    assert "| 20 MB | 2 kB | 2 kB | 2.3 kB | 2.2 kB | 10 MB | 10 MB | 20 MB |" in md
    for name in ("step_breakdown", "speedup_bandwidth", "loss", "links_bandwidth-100Gbit",
                 "links_bandwidth-200Gbit"):
        png = root / "plots" / f"{name}.png"
        assert png.read_bytes()[:8] == PNG and png.stat().st_size > 10_000, name
        assert f"](plots/{name}.png)" in md
        assert str(png) in out
    first = (root / "report.md").read_text()
    assert main(["report", str(root)]) == 0
    assert (root / "report.md").read_text() == first


@pytest.mark.slow
def test_interrupted_run_without_summary_is_reported(tmp_path):
    root = make_results(tmp_path / "res", status="interrupted")
    for metrics in (root / "runs" / "bandwidth-200Gbit").glob("*/rep0/metrics"):
        for f in metrics.iterdir():
            f.unlink()
    results.write_status(root, "interrupted", error="stopped by Ctrl-C or SIGTERM")
    md = report.write_report(root).read_text()
    assert "Status: **interrupted**: stopped by Ctrl-C or SIGTERM" in md
    assert "bandwidth-100Gbit | zero3" in md and "bandwidth-200Gbit" not in md.split(
        "## Plots")[0].split("## Summary")[1]
    assert not (root / "plots" / "speedup_bandwidth.png").exists()


def test_not_a_results_directory(tmp_path, capsys):
    assert main(["report", str(tmp_path)]) == 2
    assert "not a results directory of `trainet run`" in capsys.readouterr().err
    assert main(["report", str(tmp_path / "nope")]) == 2
    assert "no such results directory" in capsys.readouterr().err


def test_ina_traffic_in_switch_captures_is_summarized(root):
    import numpy as np
    from scapy.layers.l2 import Ether
    from scapy.utils import wrpcap

    from testbed.proto import ina

    def pkt(t, src, dst, worker, flags, chunk):
        payload = ina.encode(3, worker, flags, chunk % 4, 0, chunk, np.zeros(ina.LANES))
        p = Ether(ina.frame("08:00:00:00:00:01", "08:00:00:00:00:02", src, dst, payload))
        p.time = 1000.0 + t
        return p

    agg = "10.0.255.1"
    grads = [pkt(0.01 * c, f"10.0.0.{w + 1}", agg, w, ina.FLAG_GRADIENT, c)
             for c in range(8) for w in range(2)]
    retx = [pkt(0.5, "10.0.0.2", agg, 1, ina.FLAG_GRADIENT | ina.FLAG_RETRANSMIT, 7)]
    res = [pkt(0.01 * c + 0.004, agg, f"10.0.0.{w + 1}", 1, ina.FLAG_RESULT, c)
           for c in range(8) for w in range(2)]
    pcap_dir = root / "variants" / "bandwidth-200Gbit" / "net" / "pcaps"
    pcap_dir.mkdir(parents=True)
    wrpcap(str(pcap_dir / "s1-eth1_in.pcap"), grads + retx)
    wrpcap(str(pcap_dir / "s1-eth1_out.pcap"), res)
    (variant, summary), = report.capture_summaries(root, results.read_config(root))
    assert variant == "bandwidth-200Gbit"
    table = report.ina_table([(variant, summary)])
    assert "| bandwidth-200Gbit | 3 | 2 | 8 | 0 | 17 | 16 | 1 | 0 | 4 ms | 4 ms |" in table
    md = report.render_markdown(root, results.read_config(root), [], [])
    assert "## In-network aggregation (switch captures)" in md and table in md


def test_a_nic_sweep_is_a_bandwidth_sweep_for_the_speedup():
    rows = [{"strategy": "ddp", "nic": nic, "loss_pct": None, "delay_s": None,
             "bottleneck_nominal_bps": bw, "step_time_s": t}
            for nic, bw, t in (("roce-100g", 100e9, 0.4), ("roce-200g", 200e9, 0.2))]
    assert report.speedups(rows) == {("ddp", "", None, None): [(100e9, 1.0), (200e9, 2.0)]}
    both = rows + [{**r, "bottleneck_nominal_bps": 300e9 - r["bottleneck_nominal_bps"],
                    "step_time_s": 0.3} for r in rows]     # bandwidth swept too
    curves = report.speedups(both)
    assert set(curves) == {("ddp", "roce-100g", None, None), ("ddp", "roce-200g", None, None)}


def test_the_loss_curve_comes_from_the_rank_that_reports_losses(root):
    """A pipeline's losses come from its last stage, whichever rank that is."""
    metrics = root / "runs" / "bandwidth-100Gbit" / "zero3" / "rep0" / "metrics"
    for rank in (0, 1):
        path = metrics / f"rank{rank}.jsonl"
        recs = [json.loads(line) for line in path.read_text().splitlines()]
        path.write_text("".join(json.dumps({**r, "loss": None}) + "\n" for r in recs))
    config = results.read_config(root)
    lines = dict(report.loss_lines(root, config))
    reported = [json.loads(line)["loss"] for line in (metrics / "rank2.jsonl").open()]
    assert [loss for _, loss in lines["bandwidth-100Gbit zero3"]] == reported
    assert len(lines) == 4
