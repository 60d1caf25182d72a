"""What identifies a trainet install, so the servers of a cluster can be compared.

A network spread over servers runs the same programs on each: the switch, the workers
and the services started there must speak the same protocols and read the same options
as the machine that drives them. Two installs match when they report the same package
version, the same digest of their sources (the Python packages, the P4 programs and the
native backend's C) and the same Mininet version. ``python -m testbed.net.install_id``
prints this machine's as one JSON line; a cluster's pre-check runs it on every server.
"""
from __future__ import annotations

import hashlib
import json
import platform
from functools import lru_cache
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
SOURCE_DIRS = ("testbed", "hosts", "controllers", "p4")
SOURCE_SUFFIXES = {".py", ".p4", ".in", ".lark", ".c", ".h"}


@lru_cache(maxsize=1)
def sources_digest() -> str:
    """SHA-256 over the relative path and bytes of every source file, in path order."""
    digest = hashlib.sha256()
    for top in SOURCE_DIRS:
        for path in sorted((REPO_ROOT / top).rglob("*")):
            if path.suffix in SOURCE_SUFFIXES and "__pycache__" not in path.parts \
                    and path.is_file():
                digest.update(str(path.relative_to(REPO_ROOT)).encode() + b"\0")
                digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def trainet_version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("trainet")
    except PackageNotFoundError:
        return "source checkout"


def mininet_version() -> str | None:
    try:
        from mininet.net import VERSION
    except ImportError:
        return None
    return VERSION


def install_id() -> dict:
    return {"trainet": trainet_version(), "sources": sources_digest(),
            "mininet": mininet_version(), "python": platform.python_version(),
            "root": str(REPO_ROOT)}


if __name__ == "__main__":
    print(json.dumps(install_id()))
