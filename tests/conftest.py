"""Shared test set-up: tests marked ``root`` need root (namespaces, Mininet, tc)."""
import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def pytest_collection_modifyitems(config, items):
    if os.geteuid() == 0:
        return
    skip = pytest.mark.skip(reason="needs root (network namespaces / Mininet); CI runs as root")
    for item in items:
        if "root" in item.keywords:
            item.add_marker(skip)
