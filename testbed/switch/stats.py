"""The switch's counters for a program that runs beside it (a benchmark, a test): on
SIGUSR1 a ``trainet switch --stats FILE`` writes one JSON snapshot of them to FILE,
replacing the previous one whole (written aside, then renamed), and once more when it
stops. :func:`request` sends the signal and returns the snapshot written after it.

A snapshot: ``snapshot`` (its number, from 1), ``wakeups`` (the packet loop's returns from
poll or epoll), ``native_turns`` (returns from the loop in native code to Python), the
native ring calls' counters (``calls``, ``empty_calls``: calls that found every
ring empty, ``sweeps``, ``frames_in``, ``frames_out``: frames the native code sent,
``pipeline_ns`` and ``send_ns``: the loop thread's CPU time in the pipeline and in
sending), ``loop_cpu_ns``: the loop thread's whole CPU time (the scheduler's count, the
kernel's work done on its behalf included), ``ports``: per port the frames in and out,
and ``drops`` by reason.
"""
from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

from testbed.errors import TrainetError

SIGNAL = signal.SIGUSR1


def thread_cpu_ns(tid: int | None) -> int:
    """Nanoseconds thread ``tid`` of this process has run (0 when not known)."""
    if tid is None:
        return 0
    try:
        return int(Path(f"/proc/self/task/{tid}/schedstat").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0


def write(path: str, stats: dict) -> None:
    """``stats`` as JSON at ``path``, the previous file replaced in one rename."""
    aside = f"{path}.part"
    with open(aside, "w") as f:
        json.dump(stats, f)
    os.replace(aside, path)


def read(path: str | Path) -> dict | None:
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None


def request(pid: int, path: str | Path, timeout_s: float = 5.0) -> dict:
    """Ask switch process ``pid`` (started with ``--stats path``) for a snapshot of its
    counters and return it."""
    def snapshot(stats: dict | None) -> int:    # a file a former switch left counts none
        return stats["snapshot"] if stats and stats.get("pid") == pid else 0

    before = snapshot(read(path))
    os.kill(pid, SIGNAL)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        stats = read(path)
        if snapshot(stats) > before:
            return stats
        time.sleep(0.002)
    raise TrainetError(f"switch process {pid} wrote no counters to {path} within "
                       f"{timeout_s:g} s of SIGUSR1; was it started with --stats {path}?")
