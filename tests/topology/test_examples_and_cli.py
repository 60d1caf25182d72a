from pathlib import Path

import pytest

from testbed.cli import main
from testbed.topology.load import load_topology

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((REPO / "experiments" / "topologies").glob("*.yaml"))


def test_the_four_required_examples_exist():
    names = {p.name for p in EXAMPLES}
    assert {"star-8.yaml", "leaf-spine.yaml", "holmes-3clusters.yaml",
            "geo-3sites.yaml"} <= names


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_examples_load_and_route_every_pair(path, all_pairs_reachable):
    topo = load_topology(path)
    assert topo.hosts and topo.switches and 0 < topo.scale <= 1
    assert all(sw.program.is_file() for sw in topo.switches)
    all_pairs_reachable(topo)


def test_holmes_example_clusters():
    topo = load_topology(REPO / "experiments" / "topologies" / "holmes-3clusters.yaml")
    assert {c: len(h) for c, h in topo.groups("cluster").items()} == {"A": 4, "B": 4, "C": 4}


def test_cli_show_prints_nominal_and_emulated_rates(capsys):
    assert main(["topo", "show", str(REPO / "experiments" / "topologies" / "star-8.yaml")]) == 0
    out = capsys.readouterr().out
    assert "8 hosts" in out and "100 Gb/s (10 Mb/s emulated)" in out


def test_cli_show_error_exits_2_without_traceback(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("generator: {name: star, workers: -1}\n")
    assert main(["topo", "show", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{bad}:1:") and "generator.workers" in err
    assert "Traceback" not in err


def test_cli_import_then_show(tmp_path, capsys):
    out = tmp_path / "triangle.yaml"
    sample = Path(__file__).parent / "tutorial_triangle" / "triangle" / "topology.json"
    assert main(["topo", "import", str(sample), "--p4", str(REPO / "p4" / "basic.p4"),
                 "-o", str(out)]) == 0
    assert "3 hosts, 3 switches, 6 links" in capsys.readouterr().out
    assert main(["topo", "show", str(out)]) == 0
    assert "link s1-p2 <-> s2-p2: 10 Mb/s" in capsys.readouterr().out


def test_cli_generate_and_profiles(capsys):
    assert main(["topo", "generate", "star", "workers=2", "nic=ib-hdr200"]) == 0
    assert "nic: ib-hdr200" in capsys.readouterr().out
    assert main(["topo", "generate", "star", "workers"]) == 2
    assert "KEY=VALUE" in capsys.readouterr().err
    assert main(["topo", "profiles"]) == 0
    assert "wan-8m" in capsys.readouterr().out
