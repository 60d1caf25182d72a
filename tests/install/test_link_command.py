"""vagrant/link-command.sh: `make setup` puts `trainet` on root's PATH (sudo's
secure_path has /usr/local/bin, not .venv/bin)."""
import os
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "vagrant" / "link-command.sh"


def _link(bindir: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(SCRIPT), str(bindir)], capture_output=True, text=True)


def test_the_command_links_to_the_checkouts_venv_and_runs(tmp_path):
    done = _link(tmp_path / "bin")
    assert done.returncode == 0, done.stderr
    link = tmp_path / "bin" / "trainet"
    assert os.readlink(link) == str(REPO / ".venv" / "bin" / "trainet")
    assert f"trainet command: {link} -> {REPO}/.venv/bin/trainet" in done.stdout
    assert _link(tmp_path / "bin").returncode == 0           # again: replaced, not refused
    if (REPO / ".venv" / "bin" / "trainet").exists():
        version = subprocess.run([str(link), "--version"], capture_output=True, text=True)
        assert version.stdout.startswith("trainet ")


def test_a_trainet_that_is_not_a_link_is_left_alone(tmp_path):
    (tmp_path / "trainet").write_text("#!/bin/sh\necho other\n")
    done = _link(tmp_path)
    assert done.returncode == 0
    assert "exists and is not a link" in done.stdout
    assert (tmp_path / "trainet").read_text() == "#!/bin/sh\necho other\n"
