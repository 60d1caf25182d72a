"""Programs of the project run on emulated hosts at once, each printing one JSON line.

The benchmarks, the bandwidth-table measurement and the emulated-fabric tests start one
command per host (``python -m hosts.…``), wait for all of them and read the last line each
printed. The processes carry the network's run marker, so a run killed half-way leaves
nothing the next start does not find and clean up.
"""
from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

from testbed.errors import TrainetError
from testbed.net.cleanup import RUN_MARKER

REPO = Path(__file__).resolve().parents[2]


def python_env(net) -> dict:
    """The environment of a project program on a host: this checkout first on the path,
    one compute thread per process (the hosts share the machine's cores)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env["OMP_NUM_THREADS"] = "1"
    env[RUN_MARKER] = net.state.run_id
    return env


def run_json(net, commands: dict, timeout_s: float, hint: str = "") -> dict:
    """Run ``commands`` (host -> argv) concurrently; return host -> the JSON object of its
    last output line. A command that fails or outlasts ``timeout_s`` is an error naming
    its host (with ``hint``, what to do), and every other one is killed."""
    env = python_env(net)
    procs = {h: net.net[h].popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 env=env, cwd=str(REPO))
             for h, cmd in commands.items()}
    deadline = time.monotonic() + timeout_s
    out = {}
    try:
        for h, p in procs.items():
            what = " ".join(str(a) for a in commands[h][:4])
            try:
                stdout, stderr = p.communicate(timeout=max(deadline - time.monotonic(), 0.1))
            except subprocess.TimeoutExpired:
                raise TrainetError(f"{h}: {what} did not finish within {timeout_s:.0f} s"
                                   + (f"; {hint}" if hint else "")) from None
            if p.returncode != 0:
                raise TrainetError(f"{h}: {what} failed (exit {p.returncode}): "
                                   f"{stderr.decode()[-800:]}")
            out[h] = json.loads(stdout.decode().strip().splitlines()[-1])
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
                p.wait()
    return out
