"""trainet: a network-emulation testbed for distributed training over programmable networks."""

import subprocess
from pathlib import Path

__version__ = "0.1.0"


def commit() -> str | None:
    """The git commit of this checkout (``+dirty`` with uncommitted changes), or None
    outside a git checkout."""
    root = Path(__file__).resolve().parent.parent
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], text=True,
                              capture_output=True, timeout=10)
        if head.returncode != 0:
            return None
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain",
                                "--untracked-files=no"], text=True, capture_output=True,
                               timeout=10).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return None
    return head.stdout.strip() + ("+dirty" if dirty else "")


def version_text() -> str:
    found = commit()
    return f"trainet {__version__}" + (f" (commit {found})" if found else "")
