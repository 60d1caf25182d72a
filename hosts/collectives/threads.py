"""Ranks as threads of one process, each with its own gloo process group over an
in-memory store (loopback TCP between the threads), or with none when the strategy's
traffic goes through a switch or a server: how the tests check a strategy's arithmetic
and how ``trainet bench overlap`` times one without a network."""
from __future__ import annotations

import threading
from datetime import timedelta

import torch
import torch.distributed as dist

from hosts.collectives.comm import Comm

_runs = iter(range(1 << 30))


def run_ranks(world: int, body, timeout_s: float = 20.0, gloo: bool = True) -> list:
    """``body(comm)`` on every rank concurrently; its return values in rank order."""
    torch.set_num_threads(1)
    store = dist.PrefixStore(f"run{next(_runs)}", dist.HashStore())
    results, errors = [None] * world, []

    def rank_main(rank):
        comm = None
        try:
            pg = (dist.ProcessGroupGloo(store, rank, world, timedelta(seconds=timeout_s))
                  if gloo else None)
            comm = Comm(pg, rank, world)
            results[rank] = body(comm)
        except BaseException as err:        # re-raised in the test's thread below
            errors.append(err)
        finally:
            if comm is not None:
                comm.close()

    threads = [threading.Thread(target=rank_main, args=(r,)) for r in range(world)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout_s * 2)
    if errors:
        raise errors[0]
    return results
