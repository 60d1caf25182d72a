"""trainet as pip installs it, for the child processes of tests run from a checkout.

A checkout's environment may hold an older install of trainet: without the console
scripts ``trainet-p4c``/``trainet-switch`` and without ``p4.tmp``. ``InstalledLayout``
makes both as the install does: an executable per ``[project.scripts]`` entry of
pyproject.toml (the wrapper pip writes: import the function, exit with its result) and a
site directory whose ``p4`` package is p4runtime's with ``compat/p4/tmp`` beside it.
"""
import os
import shutil
import sys
import tomllib
from pathlib import Path

import p4.v1

REPO = Path(__file__).resolve().parents[2]


def console_scripts() -> dict:
    """{executable name: "module:function"} of pyproject.toml."""
    return tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]


class InstalledLayout:
    def __init__(self, root: Path):
        self.bin = root / "bin"
        self.site = root / "site"
        self.bin.mkdir(parents=True)
        p4_package = Path(p4.v1.__file__).resolve().parents[1]
        shutil.copytree(p4_package, self.site / "p4",
                        ignore=shutil.ignore_patterns("__pycache__", "tmp"))
        shutil.copytree(REPO / "compat" / "p4" / "tmp", self.site / "p4" / "tmp",
                        ignore=shutil.ignore_patterns("__pycache__"))
        for name, target in console_scripts().items():
            module, func = target.split(":")
            script = self.bin / name
            script.write_text(f"#!{sys.executable}\nimport sys\nfrom {module} import {func}\n"
                              f"sys.exit({func}())\n")
            script.chmod(0o755)

    def env(self) -> dict:
        env = dict(os.environ)
        env["PATH"] = f"{self.bin}{os.pathsep}{env.get('PATH', '')}"
        env["PYTHONPATH"] = os.pathsep.join([str(self.site), str(REPO)])
        return env
