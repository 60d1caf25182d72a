"""The processes of a run on the emulated hosts, and watching them until they finish
or fail: shared by the built-in workers (launch.py) and a user's script (script_run.py).

``HostProcess`` is one program on one host, its output in a log file; ``HostPlace``
says where a host's programs run (this machine, or a server in cluster mode);
``RankMetrics`` tails the ranks' JSON-lines step records; ``watch`` waits for every
process and says which failed first and why (see launch.py's docstring for the rules).
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from testbed.net.cleanup import RUN_MARKER

REPO = Path(__file__).resolve().parents[2]
POLL_S = 0.2


def process_env(run_id: str | None) -> dict:
    """The processes' environment; ``run_id`` marks them as the network's (RUN_MARKER),
    so removing the network's leftovers stops them too (testbed/net/cleanup.py)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env["OMP_NUM_THREADS"] = "1"
    if run_id:
        env[RUN_MARKER] = run_id
    return env


class HostPlace:
    """Where a host's programs run: the interpreter and the path of ``out_dir`` there
    (this machine's, or its server's in cluster mode)."""

    def __init__(self, node, out_dir: Path):
        from testbed.net.remote import site_of
        self.node, self.site = node, site_of(node)
        self.python = self.site.server.python if self.site else sys.executable
        self.out_dir = Path(self.site.path(out_dir)) if self.site else out_dir

    def follow(self, remote_path: Path, local_path: Path):
        """For a remote host, stream a file it writes to ``local_path``; else None."""
        return self.node.follow(str(remote_path), local_path) if self.site else None


class HostProcess:
    """A program on a host. Its output goes to ``log_path``; with ``stderr_path`` its
    standard error goes there instead, and a failure quotes its last lines."""

    def __init__(self, net, host: str, cmd: list[str], log_path: Path, rank: int | None,
                 role: str = "service", env: dict | None = None, cwd: Path = REPO,
                 stderr_path: Path | None = None):
        self.host, self.rank, self.role = host, rank, role
        self.log_path, self.stderr_path = log_path, stderr_path
        self.log = log_path.open("wb")
        self.err = stderr_path.open("wb") if stderr_path else None
        run_id = getattr(getattr(net, "state", None), "run_id", None)
        self.popen = net.net[host].popen(cmd, stdout=self.log,
                                         stderr=self.err or subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL,
                                         env={**process_env(run_id), **(env or {})}, cwd=str(cwd))
        self.followers: list = []

    @property
    def label(self) -> str:
        return (f"rank {self.rank} ({self.host})" if self.rank is not None
                else f"{self.role} ({self.host})")

    def last_error(self) -> str:
        path = self.stderr_path or self.log_path
        (self.err or self.log).flush()
        lines = [ln for ln in path.read_text(errors="replace").splitlines() if ln.strip()]
        errors = [ln for ln in lines if ln.startswith("error:") or "Error" in ln]
        return (errors or lines or ["(no output)"])[-1].strip()

    def last_lines(self, count: int = 5) -> list[str]:
        """The last lines of the program's standard error (its log without one)."""
        path = self.stderr_path or self.log_path
        (self.err or self.log).flush()
        lines = [ln.rstrip() for ln in path.read_text(errors="replace").splitlines()
                 if ln.strip()]
        return lines[-count:]

    def describe_exit(self) -> str:
        rc = self.popen.returncode
        if rc is not None and rc < 0:
            text = f"{self.label} was killed by signal {-rc} ({signal.Signals(-rc).name})"
        elif self.stderr_path is None:
            return f"{self.label} exited with code {rc}: {self.last_error()}"
        else:
            text = f"{self.label} exited with code {rc}"
        if self.stderr_path is not None:
            tail = self.last_lines()
            text += ("; last lines of its stderr:\n" + "\n".join("  " + ln for ln in tail)
                     if tail else "; its stderr is empty")
        return text

    def stop(self) -> None:
        if self.popen.poll() is None:
            self.popen.kill()
        self.popen.wait()
        self.log.close()
        if self.err:
            self.err.close()
        for follower in self.followers:
            follower.terminate()
            follower.wait()


class Tail:
    """What a growing file gained since the last look (nothing while it does not exist)."""

    def __init__(self, path: Path):
        self.path, self._offset = path, 0

    def new_bytes(self) -> bytes:
        if not self.path.exists():
            return b""
        with self.path.open("rb") as f:
            f.seek(self._offset)
            data = f.read()
        self._offset += len(data)
        return data


class RankMetrics:
    """Tails the ranks' JSON-lines files."""

    def __init__(self, paths: dict[int, Path]):
        self.paths = paths
        self.rows: dict[int, list[dict]] = {r: [] for r in paths}
        self._tails = {r: Tail(path) for r, path in paths.items()}
        self._partial = {r: b"" for r in paths}

    def poll(self) -> bool:
        grew = False
        for rank in self.paths:
            data = self._tails[rank].new_bytes()
            lines = (self._partial[rank] + data).split(b"\n")
            self._partial[rank] = lines.pop()
            for line in lines:
                if line.strip():
                    self.rows[rank].append(json.loads(line))
                    grew = True
        return grew

    def steps(self) -> dict[int, int]:
        return {r: len(rows) for r, rows in self.rows.items()}


def watch(procs, metrics: RankMetrics, timeout_s: float, stop_grace_s: float, progress,
           health=None):
    """Wait for every process; return (the process that failed first, why, what of the
    network died): (None, None, None) when all finished. ``health()`` names a dead part
    of the network, or returns None; it is asked first, so a rank that fails because its
    switch died is not taken for the cause."""
    last_activity = time.monotonic()
    while True:
        time.sleep(POLL_S)
        broken = health() if health is not None else None
        if broken:
            return None, f"the network failed: {broken}", broken
        if metrics.poll():
            last_activity = time.monotonic()
            if progress is not None:
                progress(metrics.steps())
        exited = [p for p in procs if p.popen.poll() is not None]
        bad = [p for p in exited if p.popen.returncode != 0]
        if bad:
            first = first_failure(bad)
            reason = first.describe_exit()
            grace(procs, stop_grace_s)
            return first, reason, None
        if len(exited) == len(procs):
            metrics.poll()
            if progress is not None:
                progress(metrics.steps())
            return None, None, None
        if time.monotonic() - last_activity > timeout_s:
            steps = metrics.steps()
            slowest = min((p for p in procs if p.rank is not None and p.popen.poll() is None),
                          key=lambda p: steps[p.rank], default=procs[0])
            return slowest, (f"no rank reported a step for {timeout_s:g} s; {slowest.label} "
                             f"is at step {steps.get(slowest.rank, 0)} (stalled)"), None


# what a rank says when a peer it talks to has died (hosts.worker's, gloo's)
PEER_GONE = ("is gone", "Connection closed by peer", "Connection reset by peer",
             "Broken pipe")


def first_failure(bad: list[HostProcess]) -> HostProcess:
    """Of processes seen failing in the same poll, the likely cause: one killed by a
    signal, else one whose error does not blame a peer that is gone, else the server,
    else the lowest rank."""
    return min(bad, key=lambda p: (p.popen.returncode >= 0,
                                   any(text in p.last_error() for text in PEER_GONE),
                                   p.rank is not None, p.rank or 0))


def grace(procs, stop_grace_s: float) -> None:
    deadline = time.monotonic() + stop_grace_s
    while time.monotonic() < deadline and any(p.popen.poll() is None for p in procs):
        time.sleep(POLL_S)
