"""Start training workers on the hosts of a running network, watch them, collect results.

``run_workers(net, hosts, strategy, worker_args, out_dir, timeout_s)`` runs
``python -m hosts.worker`` on each host of ``hosts`` (rank = position in the list; rank
0's address is the rendezvous point) and, for a strategy whose registration declares a
service (the parameter server of ``ps``, the optimizer node of ``luwu``), that service
on ``server_host``. Each process logs to
``<out_dir>/logs/<host>.log``; workers write ``<out_dir>/metrics/rank<R>.jsonl`` (and a
``.summary.json`` when they finish).

On a host of another server (cluster mode) the same command runs there with that
server's interpreter, writing under the server's mirror of ``out_dir``; each rank's
metrics file is streamed back as it grows and the whole of ``out_dir`` is copied back
when the run ends, so the results look the same as from a local run.

Fault handling: when a process exits non-zero, the others get ``stop_grace_s`` to notice
the dead peer and stop on their own, then are killed; when the network reports a part of
it dead (``net.failure()``: a switch process, a link), all are killed at once; when no
rank reports a step for ``timeout_s`` (start-up included: leave room for importing
torch), all are killed. Either way the result says what failed first (the rank and host,
or the network's part), and the metrics written so far are returned.
"""
from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from hosts.strategies import registry
from testbed.errors import TrainetError
from testbed.net.cleanup import RUN_MARKER

REPO = Path(__file__).resolve().parents[2]
POLL_S = 0.2


@dataclass
class RunResult:
    ok: bool
    strategy: str
    hosts: list[str]                      # rank order
    out_dir: Path
    elapsed_s: float
    returncodes: dict[str, int | None]    # host -> exit code (negative: signal)
    steps_done: dict[int, int]            # rank -> steps reported
    metrics: dict[int, list[dict]]        # rank -> step rows
    summaries: dict[int, dict] = field(default_factory=dict)
    server_host: str | None = None
    dead_rank: int | None = None          # the worker that failed first
    dead_host: str | None = None          # its host (or the parameter server's)
    reason: str | None = None
    broken: str | None = None             # what of the network died, if that stopped it

    def log(self, host: str) -> str:
        path = self.out_dir / "logs" / f"{host}.log"
        return path.read_text() if path.exists() else ""


def _flags(args: dict) -> list[str]:
    out = []
    for key, value in args.items():
        flag = "--" + key.replace("_", "-")
        if value is True:
            out.append(flag)
        elif value not in (None, False):
            out += [flag, str(value)]
    return out


def _env(run_id: str | None) -> dict:
    """The processes' environment; ``run_id`` marks them as the network's (RUN_MARKER),
    so removing the network's leftovers stops them too (testbed/net/cleanup.py)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env["OMP_NUM_THREADS"] = "1"
    if run_id:
        env[RUN_MARKER] = run_id
    return env


class _Where:
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


class _Proc:
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
                                         env={**_env(run_id), **(env or {})}, cwd=str(cwd))
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


class _Tail:
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


class _Metrics:
    """Tails the ranks' JSON-lines files."""

    def __init__(self, paths: dict[int, Path]):
        self.paths = paths
        self.rows: dict[int, list[dict]] = {r: [] for r in paths}
        self._tails = {r: _Tail(path) for r, path in paths.items()}
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


def run_workers(net, hosts: list[str], strategy: str, worker_args: dict, out_dir,
                timeout_s: float, progress=None, server_host: str | None = None,
                stop_grace_s: float = 10.0, master_port: int | None = None) -> RunResult:
    """Run one training job; see the module docstring. ``worker_args`` are extra
    ``hosts.worker`` options (``{"model": "gpt", "steps": 30, "scale": 1e-4}``);
    ``progress(steps_done)`` is called with {rank: steps} whenever a rank reports."""
    out_dir = Path(out_dir).resolve()
    (out_dir / "logs").mkdir(parents=True, exist_ok=True)
    (out_dir / "metrics").mkdir(parents=True, exist_ok=True)
    if not hosts:
        raise TrainetError("run_workers: no worker hosts given")
    for h in hosts + ([server_host] if server_host else []):
        if h not in net.net:
            raise TrainetError(f"run_workers: no host {h!r} in the network "
                               f"(hosts: {', '.join(x.name for x in net.net.hosts)})")
    info = registry.get(strategy)
    if info.service and not server_host:
        raise TrainetError(f"strategy {strategy} needs a host for its {info.service.label}: "
                           f"pass server_host, a host of role {info.service.role} (e.g. "
                           f"of a star generated with {info.service.role}s=1)")
    port = master_port or random.randint(20000, 29999)
    where = {h: _Where(net.net[h], out_dir) for h in hosts + ([server_host] if server_host
                                                              else [])}
    args = {"timeout": timeout_s, **worker_args}
    paths = {r: out_dir / "metrics" / f"rank{r}.jsonl" for r in range(len(hosts))}
    for p in paths.values():
        p.unlink(missing_ok=True)
        p.with_suffix(".summary.json").unlink(missing_ok=True)
    procs: list[_Proc] = []
    start = time.monotonic()
    try:
        if info.service:
            there = where[server_host]
            procs.append(_Proc(net, server_host, service_command(
                info, len(hosts), args, net.net[server_host].IP(), port, there.out_dir,
                timeout_s, there.python),
                out_dir / "logs" / f"{server_host}.log", None, info.service.label))
            if info.service.port_offset is not None:
                args["service"] = f"{net.net[server_host].IP()}:{port + info.service.port_offset}"
        master = f"{net.net[hosts[0]].IP()}:{port}"
        for rank, h in enumerate(hosts):
            there = where[h]
            metrics_out = there.out_dir / paths[rank].relative_to(out_dir)
            cmd = [there.python, "-m", "hosts.worker", "--rank", str(rank), "--world-size",
                   str(len(hosts)), "--master", master, "--strategy", strategy,
                   "--metrics-out", str(metrics_out)] + _flags(args)
            procs.append(_Proc(net, h, cmd, out_dir / "logs" / f"{h}.log", rank))
            follower = there.follow(metrics_out, paths[rank])
            if follower is not None:
                procs[-1].followers.append(follower)
        failed, reason, broken = _watch(procs, _Metrics(paths), timeout_s, stop_grace_s,
                                        progress, getattr(net, "failure", None))
    finally:
        for p in procs:
            p.stop()
        if any(w.site for w in where.values()):
            net.fetch(out_dir)              # whole metrics files replace the streamed ones
    metrics = _Metrics(paths)
    metrics.poll()
    summaries = {}
    for rank, path in paths.items():
        s = path.with_suffix(".summary.json")
        if s.exists():
            summaries[rank] = json.loads(s.read_text())
    result = RunResult(ok=failed is None and broken is None, strategy=strategy,
                       hosts=list(hosts), out_dir=out_dir, elapsed_s=time.monotonic() - start,
                       returncodes={p.host: p.popen.returncode for p in procs},
                       steps_done=metrics.steps(), metrics=metrics.rows,
                       summaries=summaries, server_host=server_host, reason=reason,
                       broken=broken)
    if failed is not None:
        result.dead_rank, result.dead_host = failed.rank, failed.host
    return result


def service_command(info, n_workers: int, worker_args: dict, ip: str, port: int,
                    out_dir: Path, timeout_s: float, python: str = sys.executable) -> list[str]:
    """The argv of the strategy's service for these workers (its registration says
    which program with which options)."""
    service = info.service
    context = registry.ServiceContext(
        info, n_workers, worker_args, ip,
        port + service.port_offset if service.port_offset is not None else None,
        Path(out_dir), timeout_s)
    return [python, "-m", service.module] + _flags(service.options(context))


def _watch(procs, metrics: _Metrics, timeout_s: float, stop_grace_s: float, progress,
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
            first = _first_failure(bad)
            reason = first.describe_exit()
            _grace(procs, stop_grace_s)
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


def _first_failure(bad: list[_Proc]) -> _Proc:
    """Of processes seen failing in the same poll, the likely cause: one killed by a
    signal, else one whose error does not blame a peer that is gone, else the server,
    else the lowest rank."""
    return min(bad, key=lambda p: (p.popen.returncode >= 0,
                                   any(text in p.last_error() for text in PEER_GONE),
                                   p.rank is not None, p.rank or 0))


def _grace(procs, stop_grace_s: float) -> None:
    deadline = time.monotonic() + stop_grace_s
    while time.monotonic() < deadline and any(p.popen.poll() is None for p in procs):
        time.sleep(POLL_S)
