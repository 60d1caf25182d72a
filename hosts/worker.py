"""A training worker on an emulated host.

    python -m hosts.worker --rank 0 --world-size 4 --master 10.0.1.1:29500 \
        --strategy ddp --model gpt --mode real --steps 30 --batch 8 --lr 1e-3 --seed 0 \
        --metrics-out results/run/metrics/rank0.jsonl

Writes one JSON line per step to ``--metrics-out`` (flushed as it goes, so a crash
keeps what was done) and a summary to the same path with ``.summary.json``. Interface
byte counters come from /proc/net/dev, which shows the reader's network namespace (a
Mininet host shares the root's /sys mount, so /sys/class/net would show the root's
interfaces). On a failure it prints one line naming this rank, what failed and, when it
can tell, which peer is gone, and exits 1.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

import torch

from hosts import compute, devices
from hosts.addresses import interface_of, local_address
from hosts.collectives.hierarchy import parse_tiers
from hosts.strategies import registry
from testbed.errors import TrainetError


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m hosts.worker", description=__doc__.splitlines()[0])
    p.add_argument("--rank", type=int, required=True)
    p.add_argument("--world-size", type=int, required=True)
    p.add_argument("--master", required=True, metavar="ADDR:PORT",
                   help="rank 0's address and the rendezvous port")
    p.add_argument("--strategy", choices=registry.names(), required=True,
                   help="a registered strategy (trainet strategies lists them)")
    p.add_argument("--model", choices=("gpt", "mlp"), default="gpt")
    p.add_argument("--mode", choices=("real", "shadow"), default="real")
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--batch", type=int, default=8, help="samples (sequences) per worker and step")
    p.add_argument("--seq", type=int, default=32, help="sequence length of the real model")
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--metrics-out", required=True, metavar="FILE.jsonl")
    p.add_argument("--shadow-model", default="gpt-1.3b",
                   help="gpt-1.3b, gpt-20b, gpt-175b or custom:PARAMS (shadow mode)")
    p.add_argument("--device", default=devices.DEFAULT,
                   help="a device profile of hosts/devices.py: a100-40gb, a100-80gb "
                   "(a100), h100-80gb (h100), h200-141gb or mi250x-gcd (shadow mode); one "
                   "per rank in rank order, comma-separated, for heterogeneous devices, "
                   "e.g. h100-80gb,h100-80gb,a100-80gb")
    p.add_argument("--gpus-per-node", type=int,
                   help="GPUs sharing the device's node (its memory, CPU, NVMe); default: "
                   "the host profile's (offloading)")
    p.add_argument("--cpu-adam-rate", type=float, metavar="PARAMS_PER_S",
                   help="Adam parameters per second of one core of this machine, as the "
                   "runner measured it (offloading); default: measured by each worker")
    p.add_argument("--interference", type=float,
                   help="slowdown of compute overlapped by collectives on the GPU, e.g. "
                   "0.189 (shadow mode); default: hosts/shadow.py's")
    p.add_argument("--mfu", type=float, default=None,
                   help="model FLOPs utilisation of the device (shadow mode); default: "
                   "the shape-aware compute model (hosts/compute.py)")
    p.add_argument("--recompute", choices=compute.RECOMPUTE,
                   help="activation recompute the rank runs: none (default), selective or "
                   "full; the strategy's own recompute option where it has one, else the "
                   "compute a shadow rank sleeps (a real rank must run it: pipeline and "
                   "tensor-parallel ranks run full)")
    p.add_argument("--scale", type=float, default=1.0,
                   help="co-scaling factor of the links and volumes (shadow mode)")
    p.add_argument("--service", metavar="ADDR:PORT",
                   help="the strategy's service, e.g. its parameter server")
    p.add_argument("--ina-aggregator", metavar="ADDR",
                   help="the switch's aggregator address (strategies with a switch job)")
    p.add_argument("--ina-job", type=int, default=1, help="the switch job's id")
    p.add_argument("--ina-slots", type=int, default=32,
                   help="aggregation slots of the switch job")
    p.add_argument("--ina-lane-bits", type=int, choices=[16, 32], default=32,
                   help="the narrowest lanes of the switch job: 16 (bf16/fp16 gradients in "
                   "16-bit lanes) or 32 (default)")
    p.add_argument("--tiers", metavar="KIND=LABEL,...",
                   help="each rank's GPU package and node, e.g. node=n1,n1,n2,n2;gpu=p0,p0,"
                   "p1,p1 (strategies that place partitions by tier)")
    p.add_argument("--timeout", type=float, default=30.0,
                   help="seconds a collective may wait for a peer before failing")
    p.add_argument("--iface", help="interface whose counters to read (default: the one "
                   "carrying the route to the master)")
    p.add_argument("--threads", type=int, default=1, help="torch threads")
    options = p.add_argument_group("strategy options (trainet strategies lists which "
                                   "strategy takes which)")
    switches = switch_options()
    for name, help_text in option_flags().items():
        if name == "recompute":                     # the rank's own --recompute
            continue
        extra = {"nargs": "?", "const": "true"} if name in switches else {}
        options.add_argument("--" + name.replace("_", "-"), dest=f"option_{name}",
                             metavar="VALUE", help=help_text, **extra)
    return p.parse_args(argv)


def option_flags() -> dict[str, str]:
    """Option name -> help, over every registered strategy's options."""
    flags: dict[str, list[str]] = {}
    helps: dict[str, str] = {}
    for info in registry.strategies():
        for name, f in info.options.model_fields.items():
            flags.setdefault(name, []).append(info.name)
            helps.setdefault(name, f.description or "")
    return {name: f"{helps[name]} ({', '.join(users)})" for name, users in flags.items()}


def switch_options() -> set[str]:
    """Boolean options: the launcher gives them as bare flags (``--qwz``)."""
    return {name for info in registry.strategies()
            for name, f in info.options.model_fields.items() if f.annotation is bool}


def strategy_options(args, info: registry.StrategyInfo) -> registry.Options:
    given = {k.removeprefix("option_"): v for k, v in vars(args).items()
             if k.startswith("option_") and v is not None}
    if args.recompute is not None and "recompute" in info.options.model_fields:
        given["recompute"] = args.recompute
    foreign = sorted(set(given) - set(info.options.model_fields))
    if foreign:
        raise TrainetError(f"--strategy {info.name} takes no --{foreign[0].replace('_', '-')}; "
                           f"its options: {registry.option_text(info) or 'none'}")
    return info.parse_options(given, "--strategy " + info.name)


# ------------------------------------------------------------------ host facts
def interface_bytes(iface: str) -> tuple[int, int]:
    """(tx, rx) bytes of ``iface`` in this network namespace."""
    for line in Path("/proc/net/dev").read_text().splitlines()[2:]:
        name, _, fields = line.partition(":")
        if name.strip() == iface:
            values = fields.split()
            return int(values[8]), int(values[0])
    raise TrainetError(f"--iface {iface}: no such interface in this host's namespace")


def rss_peak_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


# ------------------------------------------------------------------ set-up
def _split_address(text: str, flag: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit():
        raise TrainetError(f"{flag} {text!r}: write ADDR:PORT, e.g. 10.0.1.1:29500")
    return host, int(port)


def process_group(args, me: str):
    """gloo over a TCP store on rank 0; returns (process group, {peer ip: rank})."""
    import torch.distributed as dist
    host, port = _split_address(args.master, "--master")
    timeout = timedelta(seconds=args.timeout)
    store = dist.TCPStore(host, port, args.world_size, is_master=args.rank == 0,
                          timeout=timeout)
    dist.init_process_group("gloo", store=store, rank=args.rank, world_size=args.world_size,
                            timeout=timeout)
    store.set(f"address/{args.rank}", me)
    addresses = {store.get(f"address/{r}").decode(): r for r in range(args.world_size)}
    return dist.distributed_c10d._get_default_group(), addresses


def make_strategy(args, comm):
    """The rank's strategy, built by its registered real or shadow implementation."""
    info = registry.get(args.strategy)
    options = strategy_options(args, info)
    context = registry.Context(comm, info, options, lr=args.lr,
                               timeout_s=args.timeout, batch=args.batch, scale=args.scale,
                               mfu=args.mfu, tiers=parse_tiers(args.tiers),
                               gpus_per_host=args.gpus_per_node,
                               cpu_adam_rate=args.cpu_adam_rate,
                               interference=args.interference,
                               recompute=info.recompute_of(options, args.recompute or "none",
                                                           args.mode))
    if info.switch_job:
        if not args.ina_aggregator:
            raise TrainetError(f"--strategy {info.name} needs --ina-aggregator ADDR, the "
                               "switch's aggregator address (and the job set up by "
                               f"{info.switch_job.controller.replace('.', '/')}.py)")
        context.job = registry.JobRef(args.ina_aggregator, args.ina_job, args.ina_slots,
                                      args.ina_lane_bits)
    if info.service and info.service.port_offset is not None:
        if not args.service:
            raise TrainetError(f"--strategy {info.name} needs --service ADDR:PORT, its "
                               f"{info.service.label}")
        _split_address(args.service, "--service")
        context.service = args.service
    context.device = devices.device(rank_device(args))   # real mode: its host, for offloading
    if args.mode == "shadow":
        from hosts import shadow
        context.target = shadow.shadow_model(args.shadow_model)
    return info.build(args.mode, context)


def rank_device(args) -> str:
    """This rank's device profile: ``--device`` names one for every rank, or one per
    rank (heterogeneous devices, from the topology's hosts)."""
    names = [n.strip() for n in args.device.split(",")]
    if len(names) == 1:
        return names[0]
    if len(names) != args.world_size:
        raise TrainetError(f"--device {args.device}: {len(names)} profiles for "
                           f"{args.world_size} ranks; give one, or one per rank")
    return names[args.rank]


# ------------------------------------------------------------------ metrics
def summarize(rows: list[dict], args) -> dict:
    timed = rows[1:] if len(rows) > 1 else rows

    def mean(key):
        values = [r[key] for r in timed if r.get(key) is not None]
        return statistics.fmean(values) if values else None

    out = {"rank": args.rank, "world_size": args.world_size, "strategy": args.strategy,
           "mode": args.mode, "steps": len(rows), "warmup_steps_excluded": len(rows) - len(timed),
           "time_units": "nominal" if args.mode == "shadow" else "wall-clock"}
    for key in ("step_s", "compute_s", "comm_s", "exposed_comm_s", "bubble_s", "offload_s",
                "interference_s", "logical_sent_bytes", "logical_recv_bytes",
                "nominal_sent_bytes", "wire_tx_bytes", "wire_rx_bytes"):
        out[f"mean_{key}"] = mean(key)
    if rows and rows[0]["loss"] is not None:
        out["first_loss"], out["last_loss"] = rows[0]["loss"], rows[-1]["loss"]
    if rows:
        out["peak_rss_bytes"] = max(r["rss_peak_bytes"] for r in rows)
        for key in ("mem_params_bytes", "mem_grads_bytes", "mem_optimizer_bytes"):
            out[f"peak_{key}"] = max(r[key] for r in rows)
    if args.mode == "shadow":
        out.update(shadow_model=args.shadow_model, device=rank_device(args), scale=args.scale)
    return out


def run(args) -> int:
    torch.set_num_threads(args.threads)
    from hosts.collectives.comm import Comm
    info = registry.get(args.strategy)
    master_host, _ = _split_address(args.master, "--master")
    peer = ((args.service or "").rpartition(":")[0] if info.service else
            args.ina_aggregator if info.switch_job else None) or master_host
    me = local_address(peer)
    iface = args.iface or interface_of(me)
    if not info.gloo:
        comm = Comm(None, args.rank, args.world_size)   # no gloo: a server or the switch
    else:
        os.environ.setdefault("GLOO_SOCKET_IFNAME", iface)   # else gloo binds the hostname's
        pg, addresses = process_group(args, me)
        comm = Comm(pg, args.rank, args.world_size, addresses)
    strategy = make_strategy(args, comm)
    model = corpus = None
    if args.mode == "real":
        from hosts.models import SyntheticCorpus, build_model
        model = build_model(args.model, args.seed, args.seq)
        corpus = SyntheticCorpus(args.seed)
    strategy.setup(model)
    out = Path(args.metrics_out)
    out.parent.mkdir(parents=True, exist_ok=True)
    rows = []
    with out.open("w") as f:
        for step in range(args.steps):
            batch = (corpus.batch(step, *strategy.data_shard(), args.batch, args.seq)
                     if corpus is not None else None)
            tx0, rx0 = interface_bytes(iface)
            m = strategy.step(batch)
            tx1, rx1 = interface_bytes(iface)
            mem = strategy.memory()
            row = {"step": step, "rank": args.rank, **m.as_dict(),
                   "nominal_sent_bytes": round(m.logical_sent_bytes / (
                       args.scale if args.mode == "shadow" else 1)),
                   "wire_tx_bytes": tx1 - tx0, "wire_rx_bytes": rx1 - rx0,
                   "mem_params_bytes": mem.params_bytes, "mem_grads_bytes": mem.grads_bytes,
                   "mem_optimizer_bytes": mem.optimizer_bytes,
                   "replicas": strategy.data_shard()[1],
                   "rss_peak_bytes": rss_peak_bytes(), "time_unix_s": time.time(),
                   "timeline": comm.timeline()}
            if args.mode == "shadow":
                nominal = strategy.nominal_memory()
                row.update(nominal_mem_params_bytes=nominal.params_bytes,
                           nominal_mem_grads_bytes=nominal.grads_bytes,
                           nominal_mem_optimizer_bytes=nominal.optimizer_bytes,
                           nominal_compute_s=strategy.compute_s)
            rows.append(row)
            f.write(json.dumps(row) + "\n")
            f.flush()
    strategy.close()
    if comm.pg is not None:
        import torch.distributed as dist
        dist.barrier()
        dist.destroy_process_group()
    summary = summarize(rows, args)
    out.with_suffix(".summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary))
    return 0


def main(argv=None) -> int:
    args = parse_args(argv)
    # c10d looks up peers' host names for its log lines; an emulated host reaches no
    # name server, and glibc's default wait (5 s x 2 tries) would stall each look-up.
    os.environ.setdefault("RES_OPTIONS", "timeout:1 attempts:1")
    try:
        return run(args)
    except (TrainetError, ConnectionError, RuntimeError, OSError) as err:
        text = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        if not text.startswith(f"rank {args.rank}"):
            text = f"rank {args.rank}: {text}"
        print(f"error: {text}", file=sys.stderr)
        sys.stderr.flush()
        os._exit(1)       # gloo's threads may still wait on the dead peer: do not join them


if __name__ == "__main__":
    sys.exit(main())
