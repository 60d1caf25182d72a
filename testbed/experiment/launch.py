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
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from hosts.strategies import registry
from testbed.errors import TrainetError
from testbed.experiment.processes import HostPlace, HostProcess, RankMetrics, watch


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
        elif value is not None and value is not False:   # 0 is a value, not False
            out += [flag, str(value)]
    return out


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
    where = {h: HostPlace(net.net[h], out_dir) for h in hosts + ([server_host] if server_host
                                                              else [])}
    args = {"timeout": timeout_s, **worker_args}
    paths = {r: out_dir / "metrics" / f"rank{r}.jsonl" for r in range(len(hosts))}
    for p in paths.values():
        p.unlink(missing_ok=True)
        p.with_suffix(".summary.json").unlink(missing_ok=True)
    procs: list[HostProcess] = []
    start = time.monotonic()
    try:
        if info.service:
            there = where[server_host]
            procs.append(HostProcess(net, server_host, service_command(
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
            procs.append(HostProcess(net, h, cmd, out_dir / "logs" / f"{h}.log", rank))
            follower = there.follow(metrics_out, paths[rank])
            if follower is not None:
                procs[-1].followers.append(follower)
        failed, reason, broken = watch(procs, RankMetrics(paths), timeout_s, stop_grace_s,
                                       progress, getattr(net, "failure", None))
    finally:
        for p in procs:
            p.stop()
        if any(w.site for w in where.values()):
            net.fetch(out_dir)              # whole metrics files replace the streamed ones
    metrics = RankMetrics(paths)
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


