"""The layers are a checked contract: pyproject.toml's [tool.importlinter] lists them,
and an import from a lower layer to a higher one fails this test."""
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LINT = Path(sys.executable).parent / "lint-imports"
PACKAGES = ("testbed", "hosts", "controllers")


def lint(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(LINT), "--config", str(root / "pyproject.toml"), "--no-cache"],
                          cwd=root, env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True, timeout=300)


def contracts(root: Path) -> int:
    with (root / "pyproject.toml").open("rb") as f:
        return len(tomllib.load(f)["tool"]["importlinter"]["contracts"])


def test_no_layer_imports_a_higher_one():
    out = lint(REPO)
    assert out.returncode == 0, out.stdout + out.stderr
    assert contracts(REPO) >= 2
    assert f"Contracts: {contracts(REPO)} kept, 0 broken." in out.stdout


def test_an_upward_import_breaks_the_contract(tmp_path):
    for package in PACKAGES:
        shutil.copytree(REPO / package, tmp_path / package,
                        ignore=shutil.ignore_patterns("__pycache__", "*.p4", "*.lark"))
    shutil.copy(REPO / "pyproject.toml", tmp_path)
    with (tmp_path / "testbed" / "p4" / "ir.py").open("a") as f:
        f.write("\nimport controllers.routing  # noqa: an upward import\n")
    with (tmp_path / "hosts" / "collectives" / "pattern.py").open("a") as f:
        f.write("\nimport hosts.strategies.registry  # noqa: machinery importing a strategy\n")
    with (tmp_path / "testbed" / "p4" / "lowering" / "symbols.py").open("a") as f:
        f.write("\nimport testbed.p4.python.target  # noqa: a P4 stage importing a later one\n")
    out = lint(tmp_path)
    assert out.returncode == 1
    assert "testbed.p4 is not allowed to import controllers" in out.stdout
    assert "hosts.collectives is not allowed to import hosts.strategies" in out.stdout
    assert "testbed.p4.lowering is not allowed to import testbed.p4.python" in out.stdout
