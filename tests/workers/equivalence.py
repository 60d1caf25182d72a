"""Equivalence with single-process training under plain SGD, compared on parameters.

Why SGD: AdamW's update m / sqrt(v) is the same when every gradient is scaled by a
constant, so a strategy that sums its ranks' gradients where it should average them
trains exactly as one process would under AdamW, and a loss or parameter comparison
passes. Plain SGD moves every parameter by lr times the gradient: any wrong weight of
any rank's contribution moves the parameters by a different amount.

What is compared: every parameter element a rank holds (the whole model, a ZeRO shard
gathered, a pipeline stage, a tensor-parallel slice, an AxoNN grid block) is located in
the single process's model by its initial value (:func:`distinct_values` makes them
pairwise distinct first, so each has one place), and after training the rank's values
are held against the reference's at those places. The error is relative to how far
training moved them, ``|held - reference| / |reference - initial|`` (2-norms over the
rank's elements), so it says which fraction of the update is wrong, independent of
the parameters' own size; the ranks together must hold every element.

Tolerance for strategies that only reorder float32 additions (bucketed ring sums,
reduce-scatters, partial products of tensor-parallel layers summed over a group,
micro-batch gradients accumulated): a sum of n float32 terms evaluated in another order
differs by at most (n - 1) u sum|x_i| with u = 2^-24, and by about sqrt(n) u |sum| when
the roundings are independent. The gradients here are sums over at most a few thousand
products (a batch of 4-8 sequences of 32 tokens, hidden width 64 to 256), so one step's
update is off by about 1e-6 of itself; over STEPS steps at an lr where
lr * |Hessian| < 1 the errors add, which keeps the total below 1e-5 of the movement.
Measured: 1e-7 to 3e-7 of the movement for every strategy. The control, one data shard's gradient counted twice
(:func:`doubled_gradient`: a data-parallel rank's, or the whole gradient of a layout
with one replica), changes the update by a quarter or more, 1e4 times the tolerance.
"""
from __future__ import annotations

import torch

from hosts.collectives.threads import run_ranks
from hosts.models import SyntheticCorpus, build_model
from hosts.strategies.zero3 import Zero3

CORPUS = SyntheticCorpus(0)
STEPS, LR, SEQ = 4, 0.2, 32
EXACT = 1e-5          # relative error of strategies that only reorder float32 additions
CONTROL = 1e-2        # what a doubled gradient must at least cause


def distinct_values(model: torch.nn.Module, seed: int = 7) -> torch.nn.Module:
    """Give every parameter element a value no other element has: its parameter's
    rounded mean (1 for layer-norm gains, else 0) plus m * 2^-22, the m a permutation of
    the integers around 0, so within about +-0.016 for the small GPT's 135k elements.
    Every such value is exact in float32 (a multiple of 2^-22 below 1, of 2^-23 or
    finer near it), so distinct m stay distinct values."""
    params = list(model.parameters())
    n = sum(p.numel() for p in params)
    offsets = (torch.randperm(n, generator=torch.Generator().manual_seed(seed)) - n // 2
               ).double() * 2.0 ** -22
    with torch.no_grad():
        start = 0
        for p in params:
            base = round(p.mean().item())
            p.copy_((base + offsets[start:start + p.numel()]).view_as(p))
            start += p.numel()
    assert flat(params).unique().numel() == n, "initial values repeat"
    return model


def new_model(seed: int = 1) -> torch.nn.Module:
    return distinct_values(build_model("gpt", seed, SEQ))


def sgd_reference(batch: int, steps: int = STEPS, lr: float = LR, seed: int = 1
                  ) -> tuple[torch.Tensor, torch.Tensor]:
    """One process, plain SGD on the global batch of ``batch`` sequences per step: its
    initial and final parameters, flat."""
    torch.set_num_threads(1)
    model = new_model(seed)
    initial = flat(model.parameters())
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    for s in range(steps):
        x, y = CORPUS.batch(s, 0, 1, batch, SEQ)
        opt.zero_grad()
        model.loss(model(x), y).backward()
        opt.step()
    return initial, flat(model.parameters())


def flat(params) -> torch.Tensor:
    return torch.cat([p.detach().reshape(-1) for p in params]).clone()


def doubled_gradient(model: torch.nn.Module, strategy) -> None:
    """The control: the loss ``model`` computes, hence every gradient that flows from it,
    times 2 while ``strategy`` trains on the last data shard (a data-parallel rank, or
    all ranks of the last model replica), asked when the loss is computed, after
    ``setup`` placed the rank."""
    loss = model.loss

    def scaled(out, y):
        index, count = strategy.data_shard()
        return (2.0 if index == count - 1 else 1.0) * loss(out, y)

    model.loss = scaled


def held(strategy) -> list[torch.Tensor]:
    """The parameters a rank trains: ZeRO's shards gathered (a collective: every rank
    calls it), else the modules the strategy kept after ``setup``."""
    if isinstance(strategy, Zero3):
        return strategy.full_parameters()
    return list(strategy.model.parameters())


def train_sgd(build, world: int, batch: int, control: bool = False,
              steps: int = STEPS, gloo: bool = True, timeout_s: float = 60.0) -> list:
    """``build(comm)`` on every rank as threads, plain SGD for ``steps`` on each rank's
    data shard of ``batch`` sequences; per rank (initial, final) of what it holds, flat,
    and the shard. With ``control`` the last shard's gradient counts twice."""
    models = [new_model() for _ in range(world)]

    def body(comm):
        strategy = build(comm)
        strategy.update = "sgd"
        if control:
            doubled_gradient(models[comm.rank], strategy)
        strategy.setup(models[comm.rank])
        initial = flat(held(strategy))
        for k in range(steps):
            strategy.step(CORPUS.batch(k, *strategy.data_shard(), batch, SEQ))
        final = flat(held(strategy))
        strategy.close()
        return initial, final, strategy.data_shard()

    return run_ranks(world, body, timeout_s=timeout_s, gloo=gloo)


def relative_errors(results: list, batch: int, steps: int = STEPS) -> list[float]:
    """Each rank's error relative to the movement of the elements it holds, against
    one process on the global batch (``batch`` times the number of data shards)."""
    return [movement_error(end, reference, initial)
            for end, reference, initial in located(results, batch, steps)]


def located(results: list, batch: int, steps: int = STEPS) -> list:
    """Per rank (its final values, the reference's final values and the initial values
    at the places of the elements it holds), the reference one process on the global
    batch (``batch`` times the number of data shards); the ranks must hold every
    element between them."""
    shards = {r[2][1] for r in results}
    assert len(shards) == 1, f"ranks disagree on the number of data shards: {shards}"
    initial, final = sgd_reference(batch * shards.pop(), steps)
    order = initial.argsort()
    ordered = initial[order]
    covered = torch.zeros(initial.numel(), dtype=torch.bool)
    out = []
    for rank, (start, end, _) in enumerate(results):
        at = torch.searchsorted(ordered, start).clamp(max=initial.numel() - 1)
        assert torch.equal(ordered[at], start), \
            f"rank {rank} holds initial values the model does not have"
        where = order[at]
        covered[where] = True
        out.append((end, final[where], initial[where]))
    assert covered.all(), f"{int((~covered).sum())} parameter elements held by no rank"
    return out


def movement_error(held, reference, initial) -> float:
    """|held - reference| / |reference - initial|: the wrong fraction of the update."""
    moved = (reference - initial).norm().item()
    assert moved > 0, "the reference's parameters did not move"
    return (held - reference).norm().item() / moved


def assert_equivalent(train, batch: int, tolerance: float = EXACT) -> tuple[float, float]:
    """``train(control)`` (e.g. :func:`ranks`) within ``tolerance`` of single-process
    SGD on every rank, and with ``control``, the last data shard's gradient doubled
    (:func:`doubled_gradient`), outside it by at least ``CONTROL``: the largest error
    of each run."""
    exact = max(relative_errors(train(False), batch))
    wrong = max(relative_errors(train(True), batch))
    print(f"\nrelative error {exact:.2e} (tolerance {tolerance:.0e}); "
          f"last shard's gradient doubled: {wrong:.2e}")
    assert exact < tolerance
    assert wrong > CONTROL
    return exact, wrong


def ranks(build, world: int, batch: int, gloo: bool = True):
    """What :func:`assert_equivalent` runs: ``build(comm)`` on ``world`` ranks."""
    return lambda control: train_sgd(build, world, batch, control, gloo=gloo)
