"""The layers are a checked contract: pyproject.toml's [tool.importlinter] lists them,
and an import from a lower layer to a higher one fails this test."""
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LINT = Path(sys.executable).parent / "lint-imports"
PACKAGES = ("testbed", "hosts", "controllers")


def lint(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(LINT), "--config", str(root / "pyproject.toml"), "--no-cache"],
                          cwd=root, env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True, timeout=300)


def test_no_layer_imports_a_higher_one():
    out = lint(REPO)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Contracts: 2 kept, 0 broken." in out.stdout


def _with_import(tmp_path: Path, module: str, imported: str) -> subprocess.CompletedProcess:
    for package in PACKAGES:
        shutil.copytree(REPO / package, tmp_path / package,
                        ignore=shutil.ignore_patterns("__pycache__", "*.p4", "*.lark"))
    shutil.copy(REPO / "pyproject.toml", tmp_path)
    with (tmp_path / module).open("a") as f:
        f.write(f"\nimport {imported}  # noqa: an upward import\n")
    return lint(tmp_path)


def test_an_upward_import_breaks_the_contract(tmp_path):
    out = _with_import(tmp_path, "testbed/p4/ir.py", "controllers.routing")
    assert out.returncode == 1
    assert "testbed.p4 is not allowed to import controllers" in out.stdout


def test_a_p4_stage_importing_a_later_one_breaks_the_stages_contract(tmp_path):
    out = _with_import(tmp_path, "testbed/p4/lowering/symbols.py", "testbed.p4.python.target")
    assert out.returncode == 1
    assert "testbed.p4.lowering is not allowed to import testbed.p4.python" in out.stdout
