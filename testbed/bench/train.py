"""``trainet bench train``: step time of the data-parallel strategies side by side.

Shadow workers (a GPT-1.3B by default, A100 compute model) on a star of ``workers`` hosts
plus a parameter-server host, once per NIC profile (100 and 200 Gb/s RoCE by default).
Links and volumes are co-scaled by ``scale``, so the measured wall-clock times are the
nominal times of the full-size job; bytes are reported nominal and emulated.
"""
from __future__ import annotations

import json
import os
import socket
import statistics
import sys
from contextlib import contextmanager, nullcontext
from pathlib import Path

from hosts.strategies import registry
from testbed.errors import TrainetError
from testbed.units import format_rate, format_size

SWITCH_PREFIX = "bt"      # switch interfaces live in the root namespace: keep ours apart
REPO = Path(__file__).resolve().parents[2]
INA_P4 = REPO / "p4" / "ina.p4"
INA_AGGREGATOR = "10.0.255.1"       # outside every host subnet: reached via the gateway
INA_JOB, INA_SLOTS = 1, 32


def runnable() -> list[str]:
    """The strategies this bench's fabric serves: a switch running p4/ina.p4 and one
    host of role server."""
    return [s.name for s in registry.strategies()
            if (s.switch_job is None or s.switch_job.program == "p4/ina.p4")
            and (s.service is None or s.service.role == "server")]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def star_blueprint(workers: int, nic: str, scale: float, prefix: str = SWITCH_PREFIX):
    """Workers w1..wN and a server srv1 on one switch running p4/ina.p4 (IPv4 forwarding
    like basic.p4, plus in-network aggregation for the ina strategy)."""
    from testbed.net.topology import blueprint_from_topology
    from testbed.topology.generators import star
    blueprint = blueprint_from_topology(star(workers=workers, servers=1, nic=nic, scale=scale,
                                        program=str(INA_P4)), f"star-{nic}")
    for sw in blueprint.switches:
        old, sw.name, sw.grpc_port = sw.name, prefix + sw.name, _free_port()
        for link in blueprint.links:
            link.a = sw.name if link.a == old else link.a
            link.b = sw.name if link.b == old else link.b
    return blueprint


@contextmanager
def ina_job(net, hosts: list[str]):
    """The INA job of ``hosts`` (worker id = rank) on the star's switch for one run,
    removed after it (workers number their chunks from 0: each run needs clean slots);
    yields the workers' ina options. Its lanes are as wide as the strategy declares, as
    an experiment's job would have them."""
    from controllers import ina
    from testbed.experiment.jobs import job_on, job_workers
    switch = net.blueprint.switches[0].name
    lane_bits = registry.get("ina").switch_job.lane_bits
    job = ina.Job(INA_JOB, INA_AGGREGATOR, job_workers(net.blueprint, switch, hosts), 0, INA_SLOTS,
                  lane_bits=lane_bits)
    with job_on(net, switch, ina, job):
        yield {"ina_aggregator": INA_AGGREGATOR, "ina_job": INA_JOB, "ina_slots": INA_SLOTS,
               "ina_lane_bits": lane_bits}


def _row(result, strategy: str, nic: str, blueprint, args) -> dict:
    from hosts import shadow
    if not result.ok:
        return {"strategy": strategy, "nic": nic, "error": result.reason}
    summaries = list(result.summaries.values())

    def worst(key):
        return max(s[key] for s in summaries)

    def mean(key):
        return statistics.fmean(s[key] for s in summaries)

    link = next(l.shape for l in blueprint.links)
    info = registry.get(strategy)
    target = shadow.shadow_model(args.shadow_model)
    m = shadow.model_bytes(target.params)
    sent, _ = info.volume_bytes(m, args.workers, target.layers)
    busiest = info.busiest_link_bytes(m, args.workers, target.layers)
    return {"strategy": strategy, "nic": nic, "link_nominal_bps": link.nominal_bps,
            "link_emulated_bps": link.rate_bps, "step_s": worst("mean_step_s"),
            "compute_s": mean("mean_compute_s"), "comm_s": mean("mean_comm_s"),
            "exposed_comm_s": mean("mean_exposed_comm_s"),
            "link_bound_s": busiest * 8 / link.nominal_bps,
            "nominal_sent_bytes": mean("mean_nominal_sent_bytes"),
            "emulated_sent_bytes": mean("mean_logical_sent_bytes"),
            "wire_tx_bytes": mean("mean_wire_tx_bytes"),
            "model_nominal_sent_bytes": sent}


def measure(args, log=print) -> list[dict]:
    from testbed.experiment.launch import run_workers
    from testbed.net.network import Network
    rows = []
    hosts = [f"w{i}" for i in range(1, args.workers + 1)]
    worker_args = {"mode": "shadow", "shadow_model": args.shadow_model, "device": args.device,
                   "scale": args.scale, "steps": args.steps, "batch": args.replica_batch}
    for nic in args.nics:
        blueprint = star_blueprint(args.workers, nic, args.scale)
        with Network(blueprint, Path(args.results) / nic, log=log) as net:
            for strategy in args.strategies:
                log(f"  {nic}: {strategy} ...")
                with (ina_job(net, hosts) if registry.get(strategy).switch_job
                      else nullcontext({})) as extra:
                    result = run_workers(net, hosts, strategy,
                                         {**worker_args, **args.micro_options[strategy],
                                          **extra},
                                         Path(args.results) / nic / strategy, timeout_s=60,
                                         server_host="srv1")
                rows.append(_row(result, strategy, nic, blueprint, args))
    return rows


def render(rows: list[dict], args) -> str:
    from hosts import shadow
    target = shadow.shadow_model(args.shadow_model)
    dev = shadow.device(args.device)
    lines = [f"shadow {target.name} ({target.params / 1e9:g}e9 parameters, M = "
             f"{format_size(shadow.model_bytes(target.params))} bf16), {args.workers} workers, "
             f"{dev.name} compute model at MFU {shadow.DEFAULT_MFU:g}, global batch {args.global_batch} x "
             f"{target.seq} tokens; "
             f"co-scaling {args.scale:g}: times are nominal (= wall-clock on the scaled "
             "links), bytes per worker and step nominal / emulated; mean over steps after "
             "the first",
             f"{'strategy':8} {'link nominal':>12} {'emulated':>10} {'step':>9} {'compute':>9} "
             f"{'comm':>9} {'exposed':>9} {'link bound':>10} {'sent nominal':>13} "
             f"{'sent emulated':>13} {'wire tx':>9}"]
    for r in rows:
        if "error" in r:
            lines.append(f"{r['strategy']:8} {r['nic']:>12} failed: {r['error']}")
            continue
        lines.append(
            f"{r['strategy']:8} {format_rate(r['link_nominal_bps']):>12} "
            f"{format_rate(r['link_emulated_bps']):>10} {r['step_s'] * 1e3:6.0f} ms "
            f"{r['compute_s'] * 1e3:6.0f} ms {r['comm_s'] * 1e3:6.0f} ms "
            f"{r['exposed_comm_s'] * 1e3:6.0f} ms {r['link_bound_s'] * 1e3:7.0f} ms "
            f"{format_size(r['nominal_sent_bytes']):>13} "
            f"{format_size(r['emulated_sent_bytes']):>13} {format_size(r['wire_tx_bytes']):>9}")
    lines.append("link bound: nominal bytes per step through the busiest link (a worker's, "
                 "or a server's, which carries every worker's share) / nominal bandwidth, "
                 "from the collectives each strategy declares (trainet strategies)")
    return "\n".join(lines)


def replica_batch(args) -> int:
    """Sequences per worker from --global-batch-size and --micro-batch-size, checked
    against every strategy of the bench as an experiment's are (every worker a replica)."""
    from testbed.experiment.batch import BatchError, resolve
    given = args.global_batch is not None or args.micro_batch_size is not None
    args.micro_options = {}             # the strategies' micro-batching options
    for name in args.strategies:
        try:
            batch = resolve(registry.get(name), {}, args.workers, args.global_batch,
                            args.micro_batch_size if given else 1)
        except BatchError as e:
            flag = "--global-batch-size" if e.key == "global_batch" else "--micro-batch-size"
            raise TrainetError(str(e).replace(e.key, flag, 1)) from None
        args.micro_options[name] = batch.options
    args.global_batch = batch.global_batch
    return batch.replica_batch


def main(args) -> int:
    from hosts import shadow
    shadow.shadow_model(args.shadow_model)
    shadow.device(args.device)
    served = runnable()
    args.strategies = args.strategies or served
    for name in args.strategies:
        if name not in served:
            raise TrainetError(f"--strategies {name}: this bench runs {', '.join(served)}; "
                               "other strategies need their own fabric (trainet run)")
    args.replica_batch = replica_batch(args)
    if os.geteuid() != 0:
        raise TrainetError("trainet bench train needs root (Mininet network namespaces); "
                           "run it as root")
    log = (lambda *a: print(*a, file=sys.stderr)) if args.json else print
    rows = measure(args, log)
    print(json.dumps({"rows": rows}, indent=2) if args.json else render(rows, args))
    return 0 if all("error" not in r for r in rows) else 1
