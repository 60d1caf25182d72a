"""Baseline: gloo's ring all-reduce (torch.distributed) timed on an emulated host.

    python -m hosts.gloo_allreduce --rank 0 --world 4 --master 10.0.0.1 --elements 4096

Rounds are timed as :mod:`hosts.round_timing` says, the rule the INA program follows.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import timedelta

import torch
import torch.distributed as dist

from hosts.round_timing import DTYPES, timed_rounds


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m hosts.gloo_allreduce")
    p.add_argument("--rank", type=int, required=True)
    p.add_argument("--world", type=int, required=True)
    p.add_argument("--master", required=True, help="rank 0's IPv4 address")
    p.add_argument("--port", type=int, default=29500)
    p.add_argument("--iface", default="eth0", help="interface gloo binds to")
    p.add_argument("--elements", type=int, default=1 << 20)
    p.add_argument("--rounds", type=int, default=1, help="timed rounds, back to back")
    p.add_argument("--warmup", type=int, default=0, help="untimed rounds before them")
    p.add_argument("--dtype", choices=sorted(DTYPES), default="fp32",
                   help="the tensor's element type (default fp32)")
    args = p.parse_args(argv)
    os.environ["GLOO_SOCKET_IFNAME"] = args.iface
    dist.init_process_group("gloo", init_method=f"tcp://{args.master}:{args.port}",
                            rank=args.rank, world_size=args.world,
                            timeout=timedelta(seconds=120))
    gen = torch.Generator().manual_seed(args.rank)
    tensors = [torch.randn(args.elements, generator=gen).to(DTYPES[args.dtype])
               for _ in range(args.rounds)]
    report = timed_rounds(dist.all_reduce, tensors, dist.barrier, args.warmup)
    dist.barrier()            # no rank exits while another still times a round
    dist.destroy_process_group()
    json.dump({"rank": args.rank, "dtype": args.dtype, **report}, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
