"""`trainet bench p4runtime` measures real writes and reads through the server."""
from testbed.cli import main
from testbed.bench import p4runtime as p4rt_bench


def test_measure_reports_positive_rates_for_every_way_in():
    r = p4rt_bench.measure(20, rounds=1)
    assert r["entries"] == 20
    rates = [v for k, v in r.items() if k.endswith("_per_s")]
    assert len(rates) == 4 and all(v > 0 for v in rates)
    assert r["set_pipeline_ms"] > 0


def test_entries_beyond_the_table_size_are_refused(capsys):
    assert main(["bench", "p4runtime", "--entries", "2000"]) == 2
    assert "give 1..1024" in capsys.readouterr().err
