"""A user's training script on every worker host of a running network, as torchrun
would start it.

``run_script(net, hosts, script, args, out_dir, ...)`` starts ``python -m
hosts.script_host SCRIPT ARGS`` on each host (rank = position in the list) with
torchrun's environment: RANK, LOCAL_RANK (0: one process per host), WORLD_SIZE,
LOCAL_WORLD_SIZE (1), GROUP_RANK / GROUP_WORLD_SIZE (the host's), ROLE_RANK,
ROLE_WORLD_SIZE, MASTER_ADDR / MASTER_PORT (rank 0's emulated address), and
GLOO_SOCKET_IFNAME (the host's emulated interface), so ``init_process_group("gloo")``
and everything above it talk over the shaped links. Each rank's standard output goes to
``<out_dir>/logs/<host>.log``, its standard error to ``<host>.stderr``, its step records
to ``<out_dir>/metrics/rank<R>.jsonl`` (hosts/script_metrics.py).

Failures as for the built-in workers (testbed/experiment/launch.py): the first rank that
exits non-zero is named with its host, exit status and the last lines of its stderr,
the others get ``stop_grace_s`` and are killed; a rank that does not initialise
torch.distributed within ``init_timeout_s`` stops itself saying so; no step from any rank
for ``timeout_s`` stops them all. The records written so far are kept.
"""
from __future__ import annotations

import json
import random
import threading
import time
from contextlib import nullcontext
from pathlib import Path

from testbed.errors import TrainetError
from testbed.experiment.launch import RunResult
from testbed.experiment.processes import HostPlace, HostProcess, RankMetrics, Tail, watch


def torchrun_env(rank: int, world: int, master: str, port: int, iface: str) -> dict:
    """What torchrun gives each process, for one process per host."""
    return {"RANK": str(rank), "LOCAL_RANK": "0", "WORLD_SIZE": str(world),
            "LOCAL_WORLD_SIZE": "1", "GROUP_RANK": str(rank), "GROUP_WORLD_SIZE": str(world),
            "ROLE_RANK": str(rank), "ROLE_WORLD_SIZE": str(world), "ROLE_NAME": "default",
            "MASTER_ADDR": master, "MASTER_PORT": str(port), "GLOO_SOCKET_IFNAME": iface,
            "TORCHELASTIC_RUN_ID": "trainet", "TORCHELASTIC_RESTART_COUNT": "0",
            "TORCHELASTIC_MAX_RESTARTS": "0", "PYTHONUNBUFFERED": "1"}


class _Echo:
    """Copies what a rank writes to its log files onto streams as it comes:
    ``{path: stream}``."""

    def __init__(self, sinks: dict):
        self.sinks = sinks
        self._tails = {p: Tail(p) for p in sinks}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self._copy()

    def _copy(self) -> None:
        for path, sink in self.sinks.items():
            data = self._tails[path].new_bytes()
            if data:
                sink.write(data.decode(errors="replace"))
                sink.flush()

    def _run(self) -> None:
        while not self._stop.wait(0.1):
            self._copy()


def run_script(net, hosts: list[str], script: Path, args: list[str], out_dir, timeout_s: float,
               init_timeout_s: float = 120.0, env: dict | None = None, cwd: Path | None = None,
               progress=None, stop_grace_s: float = 10.0, master_port: int | None = None,
               echo=None) -> RunResult:
    """Run ``script`` on ``hosts``; see the module docstring. ``echo``: two text streams
    that get rank 0's standard output and error as they come (``trainet launch``)."""
    out_dir = Path(out_dir).resolve()
    script = Path(script).resolve()
    if not script.is_file():
        raise TrainetError(f"script {script} not found")
    if not hosts:
        raise TrainetError("run_script: no worker hosts given")
    for h in hosts:
        if h not in net.net:
            raise TrainetError(f"run_script: no host {h!r} in the network")
    for sub in ("logs", "metrics"):
        (out_dir / sub).mkdir(parents=True, exist_ok=True)
    port = master_port or random.randint(20000, 29999)
    master = net.net[hosts[0]].IP()
    paths = {r: out_dir / "metrics" / f"rank{r}.jsonl" for r in range(len(hosts))}
    for p in paths.values():
        p.unlink(missing_ok=True)
        p.with_suffix(".summary.json").unlink(missing_ok=True)
    procs: list[HostProcess] = []
    where = {h: HostPlace(net.net[h], out_dir) for h in hosts}
    start = time.monotonic()
    failed = reason = broken = None
    logs = out_dir / "logs"
    try:
        for rank, h in enumerate(hosts):
            there = where[h]
            metrics_out = there.out_dir / paths[rank].relative_to(out_dir)
            cmd = [there.python, "-m", "hosts.script_host", "--metrics-out", str(metrics_out),
                   "--init-timeout", str(init_timeout_s), str(script), *map(str, args)]
            rank_env = {**torchrun_env(rank, len(hosts), master, port,
                                       net.net[h].defaultIntf().name), **(env or {})}
            procs.append(HostProcess(net, h, cmd, logs / f"{h}.log", rank, env=rank_env,
                                     cwd=cwd or Path.cwd(), stderr_path=logs / f"{h}.stderr"))
            follower = there.follow(metrics_out, paths[rank])
            if follower is not None:
                procs[-1].followers.append(follower)
        echoing = _Echo({logs / f"{hosts[0]}.log": echo[0],
                         logs / f"{hosts[0]}.stderr": echo[1]}) if echo is not None else None
        with echoing or nullcontext():
            failed, reason, broken = watch(procs, RankMetrics(paths), timeout_s, stop_grace_s,
                                           progress, getattr(net, "failure", None))
    finally:
        for p in procs:
            p.stop()
        if any(w.site for w in where.values()):
            net.fetch(out_dir)
    metrics = RankMetrics(paths)
    metrics.poll()
    summaries = {}
    for rank, path in paths.items():
        s = path.with_suffix(".summary.json")
        if s.exists():
            summaries[rank] = json.loads(s.read_text())
    result = RunResult(ok=failed is None and broken is None and bool(procs),
                       strategy="script", hosts=list(hosts), out_dir=out_dir,
                       elapsed_s=time.monotonic() - start,
                       returncodes={p.host: p.popen.returncode for p in procs},
                       steps_done=metrics.steps(), metrics=metrics.rows, summaries=summaries,
                       reason=reason, broken=broken)
    if failed is not None:
        result.dead_rank, result.dead_host = failed.rank, failed.host
    return result
