"""``trainet launch TOPOLOGY_OR_EXPERIMENT -- python train.py ARGS...``: one's own
training script on an emulated fabric, interactively.

Brings the network of a topology file (its hosts of role worker) or of an experiment
file (its workers, base topology, scale and timeouts) up, runs the script on every
worker host as torchrun would (testbed/experiment/script_run.py), streams rank 0's
output, writes each rank's logs and step records under ``-o`` and tears everything
down. Ctrl-C (or SIGTERM) stops every rank and the network.
"""
from __future__ import annotations

import signal
import sys
import time
from pathlib import Path

import yaml

from testbed.errors import TrainetError
from testbed.units import format_duration, format_size

USAGE = "trainet launch FABRIC.yaml -- python train.py ARGS..."


def script_of(command: list[str]) -> tuple[Path, list[str]]:
    """(script, its arguments) of ``python train.py ARGS`` or ``train.py ARGS``."""
    if command and command[0] == "--":
        command = command[1:]
    elif command and command[0].startswith("-"):
        raise TrainetError(f"{command[0]}: put trainet's options before FABRIC and the "
                           f"script after --: {USAGE}")
    if command and Path(command[0]).name.startswith("python"):
        command = command[1:]
    if not command or command[0].startswith("-"):
        raise TrainetError(f"give the script to run after --: {USAGE} (a Python script; "
                           "python's own options and -m are not taken)")
    script = Path(command[0])
    if not script.is_file():
        raise TrainetError(f"script {command[0]} not found (working directory {Path.cwd()})")
    return script, command[1:]


def fabric_of(path: str):
    """(topology, workers, run timeout, start timeout) of a topology or experiment file."""
    file = Path(path)
    try:
        data = yaml.safe_load(file.read_text())
    except OSError as e:
        raise TrainetError(f"{path}: cannot read it: {e.strerror}") from None
    except yaml.YAMLError as e:
        raise TrainetError(f"{path}: not YAML: {e}") from None
    if isinstance(data, dict) and "topology" in data:
        from testbed.experiment.spec import load_experiment
        experiment = load_experiment(file)
        return (experiment.topology, experiment.workers, experiment.spec.timeouts.run,
                experiment.spec.timeouts.start)
    from testbed.topology.load import load_topology
    topology = load_topology(file)
    workers = [h.name for h in topology.hosts if h.role == "worker"]
    if not workers:
        raise TrainetError(f"{path}: the topology has no host of role worker")
    return topology, workers, 600.0, 120.0


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def main(args) -> int:
    script, script_args = script_of(args.command)
    topology, workers, run_s, start_s = fabric_of(args.fabric)
    run_s = args.timeout or run_s
    from testbed.net.probe import probe
    caps = probe()
    if not caps.root:
        raise TrainetError("trainet launch needs root (network namespaces, tc); run it with "
                           "sudo")
    if not caps.mininet:
        raise TrainetError("trainet launch needs Mininet; install it (vagrant/install.sh)")
    from testbed.experiment.script_run import run_script
    from testbed.net.network import Network
    from testbed.net.topology import blueprint_from_topology
    out = Path(args.output) if args.output else \
        Path("results") / f"launch-{script.stem}-{time.strftime('%Y%m%d-%H%M%S')}"
    if out.exists() and any(out.iterdir()):
        raise TrainetError(f"{out}: exists and is not empty; give another -o")
    out.mkdir(parents=True, exist_ok=True)
    print(f"fabric: {args.fabric}: {len(workers)} ranks on {', '.join(workers)}; logs and "
          f"step records in {out}", file=sys.stderr, flush=True)
    previous = signal.signal(signal.SIGTERM, _interrupt)
    net = Network(blueprint_from_topology(topology, args.fabric), out / "net", caps,
                  log=lambda text: print(text, file=sys.stderr, flush=True))
    try:
        net.start()
        result = run_script(net, workers, script, script_args, out, run_s, start_s,
                            echo=(sys.stdout, sys.stderr))
    except KeyboardInterrupt:
        print(f"interrupted: every rank stopped, network torn down; logs in {out}",
              file=sys.stderr, flush=True)
        return 130
    finally:
        net.stop()
        signal.signal(signal.SIGTERM, previous)
    print(_closing(result), file=sys.stderr, flush=True)
    return 0 if result.ok else 1


def _closing(result) -> str:
    """One line on how the run ended: the steps' means, or what failed."""
    if not result.ok:
        return f"failed: {result.reason}\n(logs: {result.out_dir / 'logs'})"
    summaries = list(result.summaries.values())
    steps = min((s["steps"] for s in summaries), default=0)
    line = f"done: {len(result.hosts)} ranks, {steps} steps each"
    step = [s["mean_step_s"] for s in summaries if s.get("mean_step_s") is not None]
    if step:
        exposed = max(s["mean_exposed_comm_s"] or 0.0 for s in summaries)
        sent = max(s["mean_logical_sent_bytes"] or 0.0 for s in summaries)
        line += (f"; step time {format_duration(max(step))}, exposed communication "
                 f"{format_duration(exposed)}, {format_size(sent)} sent per rank and step "
                 "(slowest rank, first step left out)")
    return line + f"; records in {result.out_dir / 'metrics'}"
