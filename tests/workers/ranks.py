"""Run N ranks as threads of this process, each with its own gloo process group over an
in-memory store (loopback TCP between the threads), or with none when the strategy's
traffic goes through a switch or a server instead."""
from __future__ import annotations

import threading
from datetime import timedelta

import torch
import torch.distributed as dist

from hosts.models import SyntheticCorpus, build_model
from hosts.strategies.comm import Comm

_runs = iter(range(1 << 30))


def single_process_losses(name: str, steps: int, lr: float, batch: int = 8,
                          seed: int = 1) -> list[float]:
    """Losses of one process training ``name`` with AdamW on ``batch`` sequences of the
    corpus per step: what a data-parallel job's ranks must average to."""
    return single_process(name, steps, lr, batch, seed)[0]


def single_process(name: str, steps: int, lr: float, batch: int = 8,
                   seed: int = 1) -> tuple[list[float], list[torch.Tensor]]:
    """The losses and the final parameters of :func:`single_process_losses`' training."""
    torch.set_num_threads(1)
    corpus = SyntheticCorpus(0)
    model = build_model(name, seed)
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    losses = []
    for s in range(steps):
        x, y = corpus.batch(s, 0, 1, batch, 32)
        opt.zero_grad()
        loss = model.loss(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, [p.detach() for p in model.parameters()]


def slice_training(world: int, steps: int, batch: int, lr: float, seed: int = 0
                   ) -> tuple[list[list[float]], list[torch.Tensor]]:
    """One process trains the GPT on the global batch of ``world`` slices of ``batch``;
    returns, per step, each slice's loss before the step (what a data-parallel rank, or
    a replica's last stage, reports) and the final parameters."""
    corpus = SyntheticCorpus(0)
    model = build_model("gpt", seed)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    losses = []
    for s in range(steps):
        with torch.no_grad():
            losses.append([model.loss(model(x), y).item() for x, y in
                           (corpus.batch(s, r, world, batch, 32) for r in range(world))])
        x, y = corpus.batch(s, 0, 1, batch * world, 32)
        opt.zero_grad()
        model.loss(model(x), y).backward()
        opt.step()
    return losses, [p.detach() for p in model.parameters()]


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
