"""One rank of a bandwidth-table measurement: the comm layer's collectives
(hosts/collectives/comm.py, the code the strategies run) timed over every group placement
of a plan, every group of a placement at once.

    python -m hosts.collective_probe --rank 0 --world 8 --master 10.0.0.1:29500 \\
        --plan '{"placements": [[2, 4]], "ops": ["all-reduce"], "elements": [4096],
                 "rounds": 3, "repeat": 3}'

A placement ``[size, stride]`` is a group kind as the strategies declare it
(hosts/collectives/timing.py): groups of ``size`` ranks ``stride`` apart in launch order.
For each placement, operation and element count, every rank runs ``rounds`` rounds over
its own group (fp32 zeros, as shadow workers send): a world barrier so the groups start
together, one collective untimed, then ``repeat`` collectives back to back, timed
together on the rank's own clock. A round's time is their mean: a collective in steady
state, as a step issues them one after another, without the barrier's stagger or the
idle links' burst allowance (a token bucket refilled while the ranks waited) that an
isolated collective gets. Printed at the end, one JSON line:
``{"rank": R, "times_s": {"SIZExSTRIDE OP ELEMENTS": [seconds per collective, per
round]}}``.
An all-gather's element count is the gathered result's (each rank contributes its
``1/size``), as the patterns count its payload.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import torch

from hosts.collectives.comm import Comm
from hosts.collectives.timing import Placement

OPS = ("all-reduce", "all-gather", "reduce-scatter")


def key(size: int, stride: int, op: str, elements: int) -> str:
    return f"{size}x{stride} {op} {elements}"


def group_of(rank: int, world: int, size: int, stride: int) -> list[int]:
    return next(g for g in Placement(size, stride).groups(world) if rank in g)


def run_one(comm: Comm, op: str, group: list[int], elements: int):
    n = len(group)
    if op == "all-reduce":
        return comm.all_reduce(torch.zeros(elements), group)
    if op == "all-gather":
        return comm.all_gather(torch.zeros(elements // n), group)
    return comm.reduce_scatter(torch.zeros(elements), group)


def measure(comm: Comm, pg, plan: dict) -> dict:
    """{key: [seconds per round]} of this rank (see the module's docstring)."""
    out = {}
    for size, stride in plan["placements"]:
        group = group_of(comm.rank, comm.world, size, stride)
        for op in plan["ops"]:
            for elements in plan["elements"]:
                elements = max(size, elements // size * size)
                times = []
                for _ in range(plan["rounds"]):
                    pg.barrier().wait()
                    comm.wait(run_one(comm, op, group, elements))
                    start = time.perf_counter()
                    for _ in range(plan["repeat"]):
                        comm.wait(run_one(comm, op, group, elements))
                    times.append((time.perf_counter() - start) / plan["repeat"])
                out[key(size, stride, op, elements)] = times
    return out


def main(argv=None) -> int:
    import torch.distributed as dist
    from datetime import timedelta
    p = argparse.ArgumentParser(prog="python -m hosts.collective_probe")
    p.add_argument("--rank", type=int, required=True)
    p.add_argument("--world", type=int, required=True)
    p.add_argument("--master", required=True, metavar="ADDR:PORT", help="rank 0's address")
    p.add_argument("--iface", default="eth0", help="interface gloo binds to")
    p.add_argument("--plan", required=True, help="JSON: placements, ops, elements, rounds, "
                   "repeat")
    args = p.parse_args(argv)
    plan = json.loads(args.plan)
    torch.set_num_threads(1)
    os.environ.setdefault("GLOO_SOCKET_IFNAME", args.iface)
    host, _, port = args.master.rpartition(":")
    timeout = timedelta(seconds=120)
    store = dist.TCPStore(host, int(port), args.world, is_master=args.rank == 0,
                          timeout=timeout)
    dist.init_process_group("gloo", store=store, rank=args.rank, world_size=args.world,
                            timeout=timeout)
    pg = dist.distributed_c10d._get_default_group()
    comm = Comm(pg, args.rank, args.world)
    try:
        times = measure(comm, pg, plan)
    finally:
        comm.close()
    dist.destroy_process_group()
    print(json.dumps({"rank": args.rank, "times_s": times}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
