"""``trainet run EXPERIMENT.yaml``: every variant of the sweep, every strategy, every
repetition, on an emulated network, into one results directory (layout: results.py).

Per variant the network is brought up once (with the variant's link values), every
strategy runs on it in turn through ``testbed.experiment.launch.run_workers``, and the
network is torn down. While a strategy runs, the byte counters of the switch interfaces
are sampled into links.csv for the utilization plots.

The status file always tells how the run ended. Ctrl-C and SIGTERM stop the run,
tear the network down and leave ``status: interrupted``; any other failure leaves
``status: failed`` with the error; a strategy run that fails (a worker or a service
died, a rank stalled) is recorded and the others still run. When a part of the network
dies (a switch process, a link: ``Network.failure``), the experiment stops at once,
naming it. Every run whose ranks all finished is marked done (results.DONE);
``trainet run EXP -o RESULTS --resume`` runs what is not, in the same directory.
"""
from __future__ import annotations

import json
import os
import platform
import shutil
import signal
import sys
import threading
import time
import traceback
from contextlib import contextmanager, nullcontext
from dataclasses import asdict
from pathlib import Path

import yaml
from rich.markup import escape

from hosts.collectives.hierarchy import format_tiers
from testbed.errors import TrainetError
from testbed.experiment import results
from testbed.experiment.fit import check_of, memory_checks, table as fit_table
from testbed.experiment.spec import (ResolvedExperiment, ResolvedStrategy, Variant, check_presets,
                                     load_experiment)
from testbed.units import format_duration, format_rate, format_size

LINK_SAMPLE_S = 0.25


class BringUpTimeout(TrainetError):
    pass


class NetworkFailed(TrainetError):
    """A part of the network died during a run."""


def worker_args(experiment: ResolvedExperiment, strategy: ResolvedStrategy,
                variant: Variant | None = None, cpu_adam_rate: float | None = None) -> dict:
    """Options of hosts.worker common to every rank, the strategy's options among them
    (run_workers turns {"shadow_model": "gpt-1.3b"} into --shadow-model gpt-1.3b);
    ``cpu_adam_rate`` is the CPU optimizer's rate measured for the run (offloading)."""
    w = experiment.spec.workload
    if strategy.script is not None:          # a script: its own arguments and environment
        return {"script": str(strategy.script), "args": list(w.args), "env": dict(w.env)}
    args = {"model": w.model, "mode": w.mode, "steps": w.steps, "scale": experiment.scale}
    if w.mode == "shadow":
        args.update(shadow_model=w.shadow_model, device=experiment.device_flag(variant),
                    gpus_per_node=experiment.gpus_per_node_of(variant),
                    interference=w.interference, mfu=w.mfu)
        if offloads(strategy):
            args["cpu_adam_rate"] = cpu_adam_rate
    batch = experiment.batch_of(strategy, variant)
    args["batch"] = batch.replica_batch          # hosts.worker: sequences per replica
    if strategy.job is not None:
        args.update(ina_aggregator=strategy.job["aggregator_ip"], ina_job=strategy.job["job_id"],
                    ina_slots=strategy.job["slot_count"],
                    ina_lane_bits=strategy.job.get("lane_bits", 32),
                    ina_lanes=strategy.job.get("lanes"))
    args.update(batch.options)
    recompute = strategy.info.recompute_of(strategy.info.parse_options(batch.options),
                                           w.recompute, w.mode)
    if recompute != "none":                  # the ranks' compute (and the replay's)
        args["recompute"] = recompute
    tiers = experiment.tiers_of(strategy, variant) if variant else strategy.tiers
    if tiers:
        args["tiers"] = format_tiers(tiers)
    return {k: v for k, v in args.items() if v is not None}


def shared_files(args: dict, variant_dir: Path) -> dict:
    """A relative ``plan_file`` names a file the variant's strategies share, in its runs
    directory (fusionllm's baselines replay the plan its run saved there)."""
    if args.get("plan_file") and not Path(args["plan_file"]).is_absolute():
        return {**args, "plan_file": str(variant_dir / args["plan_file"])}
    return args


def offloads(strategy: ResolvedStrategy) -> bool:
    return strategy.options.get("offload_optimizer", "none") != "none"


@contextmanager
def aggregation_job(net, experiment: ResolvedExperiment, strategy: ResolvedStrategy,
                    variant: Variant | None = None):
    """The strategy's switch job, set up on its switch for one run by the controller its
    registration names, and torn down after (workers number their chunks from 0, so
    every run needs clean slots)."""
    import importlib

    from testbed.experiment.jobs import job_on
    declared = strategy.info.switch_job
    controller = importlib.import_module(declared.controller)
    data = dict(strategy.job)
    switch = data.pop("switch")
    setup_args = ()
    if declared.setup is not None:        # e.g. the parameters the workers start from
        data, setup_args = declared.setup(data, strategy.info.parse_options(strategy.options),
                                          worker_args(experiment, strategy, variant))
    job = controller.job_from_dict(data, f"{experiment.source}: {strategy.label}")
    with job_on(net, switch, controller, job, *setup_args):
        yield


def variant_config(experiment: ResolvedExperiment, variant: Variant, topology) -> dict:
    """What the report needs to know about a variant: its sweep values, each worker's
    device (shadow mode), bottleneck bandwidth and the emulated rate of every switch
    port."""
    from testbed.net.network import host_intf_name
    from testbed.net.topology import blueprint_from_topology

    blueprint = blueprint_from_topology(topology)
    switches = {s.name for s in blueprint.switches}
    port_rates = {}
    for link in blueprint.links:
        for node, port in ((link.a, link.a_port), (link.b, link.b_port)):
            if node in switches and link.shape.rate_bps:
                port_rates[host_intf_name(node, port)] = link.shape.rate_bps
    nominal = [link.shape.nominal_bps for link in blueprint.links if link.shape.nominal_bps]
    devices = dict(zip(experiment.workers_of(variant), experiment.devices_of(variant))) \
        if experiment.spec.workload.mode == "shadow" else None
    return {"name": variant.name, **variant.overrides(), "devices": devices,
            "bottleneck_nominal_bps": min(nominal) if nominal else None,
            "bottleneck_emulated_bps": min(port_rates.values()) if port_rates else None,
            "port_rates_bps": port_rates}


def environment(caps) -> dict:
    from importlib.metadata import PackageNotFoundError, version

    def installed(package: str) -> str | None:
        try:
            return version(package)
        except PackageNotFoundError:
            return None

    import testbed
    env = {"trainet": testbed.__version__, "trainet_commit": testbed.commit(),
           "python": platform.python_version(), "platform": platform.platform(),
           "cpus": os.cpu_count(), "argv": sys.argv,
           "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
           **{name: installed(name) for name in ("torch", "numpy", "scapy", "grpcio")}}
    if caps is not None:
        env["capabilities"] = asdict(caps)
        env["shaping_plan"] = asdict(caps.shaping_mode())
    return env


class LinkSampler:
    """Samples the byte counters of the switch interfaces into links.csv: through
    ``read(interfaces) -> {interface: (rx, tx)}`` (a network's ``interface_counters``,
    which also reads servers of a cluster), else /sys/class/net here."""

    def __init__(self, interfaces: list[str], path: Path, period_s: float = LINK_SAMPLE_S,
                 read=None):
        self.interfaces = interfaces
        self.path = path
        self.period_s = period_s
        self.read = read or self._read_sysfs
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> "LinkSampler":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    @staticmethod
    def _read_sysfs(interfaces: list[str]) -> dict:
        out = {}
        for iface in interfaces:
            try:
                base = Path(f"/sys/class/net/{iface}/statistics")
                out[iface] = (int((base / "rx_bytes").read_text()),
                              int((base / "tx_bytes").read_text()))
            except (OSError, ValueError):
                pass
        return out

    def _run(self) -> None:
        with self.path.open("w") as f:
            f.write("time_s,interface,rx_bytes,tx_bytes\n")
            while True:
                now = time.time()
                for iface, (rx, tx) in sorted(self.read(self.interfaces).items()):
                    f.write(f"{now:.6f},{iface},{rx},{tx}\n")
                f.flush()
                if self._stop.wait(self.period_s):
                    break


def _command_of(pid: int) -> str | None:
    """The command line of process ``pid``, None when there is no such process."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(
            errors="replace")
    except OSError:
        return None


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt


@contextmanager
def _deadline(seconds: float, what: str):
    """Raise BringUpTimeout in the main thread when ``seconds`` pass."""
    def expired(signum, frame):
        raise BringUpTimeout(f"{what} took longer than {format_duration(seconds)}; raise "
                             "timeouts.bring_up or use a smaller topology")
    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class Runner:
    def __init__(self, experiment: ResolvedExperiment, out: Path, console=None, caps=None,
                 network_factory=None, launch=None, cluster=None, resume: bool = False):
        from rich.console import Console
        self.experiment = experiment
        self.out = Path(out)
        self.console = console or Console()
        if not self.console.is_terminal:      # a log file: keep the table's columns whole
            self.console.width = max(self.console.width, 150)
        self.caps = caps
        self._network_factory = network_factory
        self.cluster = cluster                # testbed.net.cluster.Cluster, or None
        self._launch = launch
        self.resume = resume
        self.failures: list[str] = []
        self.checks: list = []              # fit.MemoryCheck per variant and strategy
        self.cpu_adam_rate: float | None = None   # measured when a strategy offloads

    # -- set-up ----------------------------------------------------------------------
    def prepare(self) -> list[tuple[Variant, object]]:
        from testbed.net.topology import blueprint_from_topology
        self.out.mkdir(parents=True, exist_ok=True)
        now = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        times = {"started": now}
        if self.resume:        # how the earlier try ended no longer holds
            times = {"started": results.read_status(self.out).get("started"), "resumed": now}
            (self.out / results.STATUS).unlink()
        results.write_status(self.out, "running", pid=os.getpid(),
                             command=_command_of(os.getpid()), **times)
        shutil.copyfile(self.experiment.source, self.out / "experiment.yaml")
        variants = []
        for variant in self.experiment.variants():
            topology = variant.apply(self.experiment.base_topology(variant))
            vdir = self.out / "variants" / variant.name
            vdir.mkdir(parents=True, exist_ok=self.resume)
            (vdir / "topology.yaml").write_text(topology.to_yaml())
            variants.append((variant, topology))
        config = {"experiment": self.experiment.spec.model_dump(mode="json"),
                  "source": str(self.experiment.source), "workers": self.experiment.workers,
                  "strategies": [s.label for s in self.experiment.strategies],
                  "strategy_names": {s.label: s.name for s in self.experiment.strategies},
                  "scale": self.experiment.scale,
                  "worker_args": {s.label: worker_args(self.experiment, s,
                                                       cpu_adam_rate=self.cpu_adam_rate)
                                  for s in self.experiment.strategies},
                  "cpu_adam_params_per_s_per_core": self.cpu_adam_rate,
                  "variants": [variant_config(self.experiment, v, t) for v, t in variants],
                  "memory": {}}
        for check in self.checks:
            config["memory"].setdefault(check.variant, {})[check.label] = check.record()
        (self.out / results.CONFIG).write_text(yaml.safe_dump(config, sort_keys=False))
        env = environment(self.caps)
        if self.cluster is not None:
            env["cluster"] = {"servers": self.cluster.servers, "link": self.cluster.link,
                              "installs": self.cluster.checked,
                              "placement": {v.name: self.cluster.place(blueprint_from_topology(t))
                                            for v, t in variants}}
        (self.out / "environment.json").write_text(
            json.dumps(env, indent=2, default=str) + "\n")
        return variants

    def _network(self, blueprint, directory: Path):
        if self._network_factory is not None:
            return self._network_factory(blueprint, directory)
        from testbed.net.network import Network
        return Network(blueprint, directory, self.caps, pcap=self.experiment.spec.pcap,
                       log=lambda text: self.console.print(text), cluster=self.cluster)

    def _run_workers(self):
        if self._launch is not None:
            return self._launch
        from testbed.experiment.launch import run_workers
        return run_workers

    def _run_script(self):
        if self._launch is not None:
            return self._launch
        from testbed.experiment.script_run import run_script
        return run_script

    # -- running ---------------------------------------------------------------------
    def run(self) -> int:
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                   TimeElapsedColumn)
        from testbed.net.topology import blueprint_from_topology

        if self.resume:
            self._check_resumable()
        elif self.out.exists() and any(self.out.iterdir()):
            raise TrainetError(f"{self.out}: results directory exists and is not empty; give "
                               "another -o, remove it, or add --resume to run what it lacks")
        self.checks = memory_checks(self.experiment)
        short = fit_table(self.checks)
        if short is not None:
            self.console.print(short)
        if self.experiment.spec.workload.mode == "shadow" and any(
                offloads(s) for s in self.experiment.strategies):
            from hosts.offload import measure_cpu_adam
            self.cpu_adam_rate = measure_cpu_adam()
            self.console.print(f"CPU optimizer (torch AdamW, one core of this machine): "
                               f"{self.cpu_adam_rate / 1e6:.0f} M parameters/s")
        previous = signal.signal(signal.SIGTERM, _raise_interrupt)
        try:
            variants = self.prepare()
            spec = self.experiment.spec
            total = len(variants) * len(self.experiment.strategies) * spec.repetitions
            with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                          TimeElapsedColumn(), console=self.console) as bars:
                overall = bars.add_task("experiment", total=total)
                for variant, topology in variants:
                    if self._all_done(variant):
                        self.console.print(f"{variant.name}: every run finished before; kept")
                        bars.advance(overall, len(self.experiment.strategies) * spec.repetitions)
                        continue
                    vdir = self.out / "variants" / variant.name
                    blueprint = blueprint_from_topology(topology, f"{self.experiment.source} "
                                                  f"({variant.name})")
                    bars.update(overall, description=f"{variant.name}: bringing the network up")
                    with _deadline(spec.timeouts.bring_up, f"bring-up of {variant.name}"):
                        net = self._network(blueprint, vdir / "net")
                        net.start()
                    try:
                        for strategy in self.experiment.strategies:
                            check = check_of(self.checks, variant, strategy)
                            if check is not None and not check.runs:
                                self.console.print(f"{variant.name} {strategy.label}: not "
                                                   f"run, {check.fit.verdict()}")
                                bars.advance(overall, spec.repetitions)
                                continue
                            for rep in range(spec.repetitions):
                                run = results.run_dir(self.out, variant.name, strategy.label,
                                                      rep)
                                if results.is_done(run):
                                    bars.advance(overall)
                                    continue
                                shutil.rmtree(run, ignore_errors=True)   # an unfinished try
                                bars.update(overall, description=f"{variant.name}: "
                                            f"{strategy.label} "
                                            f"(repetition {rep + 1}/{spec.repetitions})")
                                self._one_run(net, variant, strategy, rep, bars)
                                bars.advance(overall)
                    finally:
                        bars.update(overall, description=f"{variant.name}: tearing down")
                        net.stop()
                bars.update(overall, description="experiment done")
            rows = results.summary_rows(self.out)
            results.write_summary(self.out, rows)
        except KeyboardInterrupt:
            self._finish_partial("interrupted", "stopped by Ctrl-C or SIGTERM")
            self.console.print(f"[yellow]interrupted[/]; network torn down; partial results "
                               f"in {self.out}; {self._resume_hint()}")
            raise
        except BaseException as err:
            message = str(err) if isinstance(err, TrainetError) else \
                f"{type(err).__name__}: {err}"
            self._finish_partial("failed", message, traceback.format_exc())
            raise TrainetError(f"experiment failed: {message}\n(network torn down; partial "
                               f"results and status.json in {self.out}; {self._resume_hint()})"
                               ) from err
        finally:
            signal.signal(signal.SIGTERM, previous)
        status = "failed" if self.failures else "completed"
        results.write_status(self.out, status, finished=time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                             **({"error": "; ".join(self.failures)} if self.failures else {}))
        self.console.print(summary_table(rows))
        self.console.print(f"results: {self.out} (status: {status}); render plots with "
                           f"`trainet report {self.out}`"
                           + (f"; {self._resume_hint()}" if self.failures else ""))
        return 1 if self.failures else 0

    def _resume_hint(self) -> str:
        return (f"to run what did not finish: trainet run {self.experiment.source} -o {self.out} "
                "--resume")

    def _check_resumable(self) -> None:
        """--resume continues a run of the same experiment that is not running."""
        status = results.read_status(self.out)
        if not status:
            raise TrainetError(f"{self.out}: nothing to resume (no {results.STATUS}); give "
                               "the directory an earlier `trainet run -o` wrote")
        kept = self.out / "experiment.yaml"
        if not kept.exists() or kept.read_bytes() != Path(self.experiment.source).read_bytes():
            raise TrainetError(f"{self.out} was run from another experiment ({kept} differs "
                               f"from {self.experiment.source}); resume with the file it was run "
                               "from, or give a new -o")
        pid = status.get("pid")
        if status.get("status") == "running" and pid and \
                _command_of(pid) == status.get("command"):
            raise TrainetError(f"{self.out} is being run by process {pid}; wait for it or "
                               "stop it first")

    def _all_done(self, variant: Variant) -> bool:
        return all(results.is_done(results.run_dir(self.out, variant.name, s.label, rep))
                   for s in self.experiment.strategies
                   for rep in range(self.experiment.spec.repetitions)
                   if (check := check_of(self.checks, variant, s)) is None or check.runs)

    def _finish_partial(self, status: str, error: str, trace: str | None = None) -> None:
        try:
            rows = results.summary_rows(self.out)
            if rows:
                results.write_summary(self.out, rows)
        except Exception as err:              # the status file must still be written
            error += f" (summary of the finished runs failed too: {err})"
        fields = {"error": error, "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
        if trace:
            fields["traceback"] = trace
        if self.failures:
            fields["failed_runs"] = self.failures
        results.write_status(self.out, status, **fields)

    def _one_run(self, net, variant: Variant, strategy: ResolvedStrategy, rep: int, bars):
        label = strategy.label
        workers = self.experiment.workers_of(variant)
        steps = None if strategy.script else self.experiment.spec.workload.steps * len(workers)
        run = results.run_dir(self.out, variant.name, label, rep)
        run.mkdir(parents=True)
        task = bars.add_task(f"  {label}: steps of all ranks", total=steps)

        def progress(steps_done: dict):
            bars.update(task, completed=sum(steps_done.values()))

        job = (aggregation_job(net, self.experiment, strategy, variant) if strategy.job is not None
               else nullcontext())
        result = None
        try:
            with job, LinkSampler(net.switch_interfaces(), run / results.LINKS,
                                  read=getattr(net, "interface_counters", None)):
                if strategy.script is not None:
                    result = self._run_script()(
                        net, workers, strategy.script, self.experiment.spec.workload.args, run,
                        self.experiment.spec.timeouts.run, self.experiment.spec.timeouts.start,
                        env=self.experiment.spec.workload.env, progress=progress)
                else:
                    result = self._run_workers()(net, workers, strategy.info.name,
                                                 shared_files(worker_args(
                                                     self.experiment, strategy, variant,
                                                     self.cpu_adam_rate), run.parent.parent),
                                                 run, self.experiment.spec.timeouts.run,
                                                 progress=progress,
                                                 server_host=strategy.service_host)
        except Exception:
            if result is None or not result.broken:
                raise
            # the job's tear-down fails on a switch that died: the death is the news
        finally:
            bars.remove_task(task)
        if result.broken:
            raise NetworkFailed(f"{variant.name} {label} repetition {rep + 1}: "
                                f"{result.broken}")
        error = run_error(result)
        if not error:
            results.mark_done(run, result.elapsed_s)
        else:
            self.failures.append(f"{variant.name}/{label}/rep{rep}: {error}")
            self.console.print(f"[red]{variant.name} {label} repetition {rep + 1} failed:[/] "
                               f"{escape(error)}")     # a rank's stderr may hold [brackets]


def run_error(result) -> str | None:
    """Why a launcher result failed, or None when every rank finished."""
    if result.ok:
        return None
    return result.reason or "a worker failed; see the run's logs/"


def summary_table(rows: list[dict]):
    from rich.table import Table
    table = Table(title="experiment summary (per worker and step)")
    for header in ("variant", "strategy", "bottleneck nominal", "emulated", "step time",
                   "compute", "exposed comm", "sent (nominal)", "memory (nominal)", "fit"):
        table.add_column(header, justify="left" if header in ("variant", "strategy")
                         else "right")

    def dur(v):
        return format_duration(v) if v is not None else "-"

    for r in rows:
        memory = [r.get(f"mem_{k}_nominal_B") for k in ("params", "grads", "optim")]
        table.add_row(
            r["variant"], r["strategy"],
            format_rate(r["bottleneck_nominal_bps"]) if r.get("bottleneck_nominal_bps") else "-",
            format_rate(r["bottleneck_emulated_bps"]) if r.get("bottleneck_emulated_bps")
            else "-",
            dur(r.get("step_time_s")), dur(r.get("compute_s")), dur(r.get("exposed_comm_s")),
            format_size(r["sent_per_step_nominal_B"])
            if r.get("sent_per_step_nominal_B") is not None else "-",
            format_size(sum(m for m in memory if m)) if any(memory) else "-",
            r.get("memory_verdict") or "-")
    return table


def main(args) -> int:
    experiment = load_experiment(args.experiment)
    check_presets(experiment)
    if args.resume and not args.output:
        raise TrainetError("--resume needs -o RESULTS: the directory of the run to continue")
    out = Path(args.output) if args.output else \
        Path("results") / f"{experiment.spec.name}-{time.strftime('%Y%m%d-%H%M%S')}"
    from testbed.net.probe import probe, render
    caps = probe()
    if not caps.root:
        raise TrainetError("trainet run needs root (network namespaces, tc); run it with sudo")
    if not caps.mininet:
        raise TrainetError("trainet run needs Mininet; install it (vagrant/install.sh)")
    print(render(caps), flush=True)
    cluster = cluster_of(experiment, args)
    return Runner(experiment, out, caps=caps, cluster=cluster, resume=args.resume).run()


def cluster_of(experiment: ResolvedExperiment, args):
    """The experiment's cluster with the command line's over it, its servers checked
    and the base topology placed: every error before anything starts."""
    from testbed.net.cluster import cluster_from
    from testbed.net.topology import blueprint_from_topology
    section = (experiment.spec.cluster.model_dump(exclude_none=True)
               if experiment.spec.cluster else None)
    cluster = cluster_from(section, args.servers, args.placement, args.link)
    if cluster is not None:
        cluster.place(blueprint_from_topology(experiment.topology, experiment.source))
        cluster.check()
        print(f"cluster: {', '.join(cluster.servers)} checked (same trainet and Mininet)",
              flush=True)
    return cluster
