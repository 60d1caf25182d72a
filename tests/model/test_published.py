"""The model against Narayanan et al. 2021, table 1 (data/narayanan2021_table1.csv)."""
import pytest

from testbed import cli
from testbed.model import published


def test_the_table_holds_the_papers_ten_rows():
    rows = published.rows()
    assert [r.gpus for r in rows] == [32, 64, 128, 256, 512, 1024, 1536, 1920, 2520, 3072]
    assert rows[-1].model == "megatron-1t" and rows[-1].measured_tflops == 163


@pytest.mark.slow
def test_predicted_throughput_per_row(capsys):
    """Two terms are fitted (on the first and last rows); the eight rows between are
    predicted within 15 %, 10 % on average."""
    (e_max, h_half), rows = published.check()
    assert 0.3 < e_max <= 1 and h_half > 0
    assert abs(rows[0].error) < 0.01 and abs(rows[-1].error) < 0.01
    middle = rows[1:-1]
    assert max(abs(r.error) for r in middle) < 0.15
    assert sum(abs(r.error) for r in middle) / len(middle) < 0.10
    assert cli.main(["model", "published"]) == 0
    assert "mean |error| over the 8 predicted rows" in capsys.readouterr().out
