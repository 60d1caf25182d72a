"""Single-process references for the strategy tests, and ``run_ranks`` (ranks as threads,
hosts/collectives/threads.py) for the tests that import it from here."""
from __future__ import annotations


import torch

from hosts.collectives.threads import run_ranks  # noqa: F401  (the tests import it from here)
from hosts.models import SyntheticCorpus, build_model


def single_process_losses(name: str, steps: int, lr: float, batch: int = 8,
                          seed: int = 1, prepare=None) -> list[float]:
    """Losses of one process training ``name`` with AdamW on ``batch`` sequences of the
    corpus per step: what a data-parallel job's ranks must average to. ``prepare``
    changes the built model first (e.g. freezes some of its parameters)."""
    return single_process(name, steps, lr, batch, seed, prepare)[0]


def single_process(name: str, steps: int, lr: float, batch: int = 8, seed: int = 1,
                   prepare=None) -> tuple[list[float], list[torch.Tensor]]:
    """The losses and the final parameters of :func:`single_process_losses`' training."""
    torch.set_num_threads(1)
    corpus = SyntheticCorpus(0)
    model = build_model(name, seed)
    if prepare is not None:
        prepare(model)
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


def shadow_steps(world: int, info, options, *, target, device, batch: int, scale: float,
                 steps: int = 2, timeout_s: float = 30.0) -> list:
    """``steps`` shadow-mode steps of strategy ``info`` on ``world`` ranks as threads, at
    full MFU on ``device`` (or a list: each rank's): each rank's (strategy, metrics of
    its last step)."""
    from hosts.strategies import registry

    def body(comm):
        own = device[comm.rank] if isinstance(device, list) else device
        s = info.build("shadow", registry.Context(comm, info, options, target=target,
                                                  device=own, batch=batch, scale=scale,
                                                  mfu=1.0))
        s.setup()
        return s, [s.step(None) for _ in range(steps)][-1]

    return run_ranks(world, body, timeout_s=timeout_s)
