"""``trainet bench p4``: the table and JSON a user sees."""
import json

import pytest

from testbed.cli import main


def test_rejects_a_non_positive_packet_count(capsys):
    assert main(["bench", "p4", "--packets", "0"]) == 2
    assert "--packets 0" in capsys.readouterr().err


@pytest.mark.slow
def test_json_and_table_report_rates_with_units(capsys):
    assert main(["bench", "p4", "--packets", "300", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["lpm_entries"] == 1000 and result["packets"] == 300
    assert result["p4_kpps"] > 0 and result["baseline_kpps"] > 0
    assert result["ratio_p4_to_baseline"] == pytest.approx(
        result["p4_kpps"] / result["baseline_kpps"], rel=0.05)
    assert result["ina"]["kpps"] > 0
    assert result["ratio_native_to_python"] == pytest.approx(
        result["native_kpps"] / result["p4_kpps"], rel=0.05)
    assert result["ratio_native_to_c"] == pytest.approx(
        result["native_kpps"] / result["c_kpps"], rel=0.05)
    assert result["ina"]["native_m_elements_per_s"] == pytest.approx(
        result["ina"]["native_kpps"] * result["ina"]["lanes"] / 1e3, rel=0.05)
    assert main(["bench", "p4", "--packets", "300"]) == 0
    table = capsys.readouterr().out
    assert "kpps" in table and "µs" in table and "hand-written Python" in table
    assert "native / python backend (basic.p4)" in table
    assert "hand-written C" in table and "M elements/s" in table
