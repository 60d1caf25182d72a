"""`trainet bench p4runtime` measures real writes and reads through the server, and the
transport's bound on the same messages."""
from testbed.cli import main
from testbed.bench import p4runtime as p4rt_bench


def test_measure_reports_every_way_in_on_the_server_and_the_bare_transport():
    r = p4rt_bench.measure(20, rounds=1, backend="python")
    assert r["entries"] == 20 and r["backend"] == "python"
    ways = ["write_1", "write_pipelined", "write_100", "write_1000", "read_first", "read"]
    for way in ways:
        assert r[f"{way}_entries_per_s"] > 0
        assert r[f"transport_{way}_entries_per_s"] > 0
    for way in ("write_1", "write_100", "write_1000", "read"):
        assert r[f"in_process_{way}_entries_per_s"] > 0
    for way in ("write_pipelined", "read_first"):        # measured over gRPC only
        assert r[f"in_process_{way}_entries_per_s"] is None
    assert r["set_pipeline_ms"] > 0


def test_the_table_prints_the_ratio_to_the_transport(capsys):
    assert main(["bench", "p4runtime", "--entries", "10", "--backend", "python"]) == 0
    out = capsys.readouterr().out
    assert "Write, 1000 updates per request" in out and "transport" in out
    assert "Write, 1 update, 32 in flight" in out and "Read, whole table, first" in out
    assert "ratio" in out and "no gRPC" in out


def test_entries_beyond_the_table_size_are_refused(capsys):
    assert main(["bench", "p4runtime", "--entries", "2000"]) == 2
    assert "give 1..1024" in capsys.readouterr().err
