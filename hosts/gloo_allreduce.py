"""Baseline: gloo's ring all-reduce (torch.distributed) timed on an emulated host.

    python -m hosts.gloo_allreduce --rank 0 --world 4 --master 10.0.0.1 --elements 4096
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import timedelta

import torch
import torch.distributed as dist


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m hosts.gloo_allreduce")
    p.add_argument("--rank", type=int, required=True)
    p.add_argument("--world", type=int, required=True)
    p.add_argument("--master", required=True, help="rank 0's IPv4 address")
    p.add_argument("--port", type=int, default=29500)
    p.add_argument("--iface", default="eth0", help="interface gloo binds to")
    p.add_argument("--elements", type=int, default=1 << 20)
    p.add_argument("--rounds", type=int, default=1)
    args = p.parse_args(argv)
    import os
    os.environ["GLOO_SOCKET_IFNAME"] = args.iface
    dist.init_process_group("gloo", init_method=f"tcp://{args.master}:{args.port}",
                            rank=args.rank, world_size=args.world,
                            timeout=timedelta(seconds=120))
    gen = torch.Generator().manual_seed(args.rank)
    times = []
    for _ in range(args.rounds):
        t = torch.randn(args.elements, generator=gen)
        dist.barrier()
        start = time.perf_counter()
        dist.all_reduce(t)
        times.append(time.perf_counter() - start)
    dist.barrier()            # no rank exits while another still times a round
    dist.destroy_process_group()
    json.dump({"rank": args.rank, "times_s": times}, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
