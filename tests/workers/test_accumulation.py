"""Gradient accumulation of the data-parallel strategies (option ``micro_batch_size``):
the loss a rank reports is its replica batch's, and the bytes a step puts on the wire
are those the strategy's accumulation promises: DDP's all-reduce once per step whatever
the number of micro-batches, the ZeRO family's gathers and reduce-scatters once per
micro-batch (DeepSpeed's ZeRO-3), zero-hier's cross-node gather once per step. Parameters
against single-process training: tests/workers/test_equivalence.py."""
from __future__ import annotations

import pytest

from hosts import shadow
from hosts.models import SyntheticCorpus, build_model
from hosts.strategies import registry
from ranks import run_ranks, shadow_steps, slice_training

BATCH, STEPS, LR, SEQ = 4, 2, 1e-3, 32
NODES_OF_TWO = {"node": ["n1", "n1", "n2", "n2"], "gpu": ["p0", "p0", "p1", "p1"]}
CASES = {"ddp": (2, {}), "zero3": (2, {}), "zeropp": (4, {"tiers": NODES_OF_TWO}),
         "zero-hier": (4, {"tiers": NODES_OF_TWO})}


def real_steps(name: str, micro_batch_size: int | None) -> list:
    """STEPS real steps of ``name`` with AdamW on BATCH sequences per rank: per rank the
    losses and the bytes sent per step."""
    world, extra = CASES[name]
    info = registry.get(name)
    options = info.parse_options({"micro_batch_size": micro_batch_size})
    corpus = SyntheticCorpus(0)
    models = [build_model("gpt", 0, SEQ) for _ in range(world)]   # torch's seed is global

    def body(comm):
        s = info.build("real", registry.Context(comm, info, options, lr=LR, batch=BATCH,
                                                **extra))
        s.setup(models[comm.rank])
        steps = [s.step(corpus.batch(k, *s.data_shard(), BATCH, SEQ)) for k in range(STEPS)]
        return [m.loss for m in steps], [m.logical_sent_bytes for m in steps]

    return run_ranks(world, body, timeout_s=60)


@pytest.mark.parametrize("name", ["ddp", "zero3"])
def test_the_loss_is_the_replica_batchs_over_its_micro_batches(name):
    world = CASES[name][0]
    expected, _ = slice_training(world, STEPS, BATCH, LR)
    for rank, (losses, _) in enumerate(real_steps(name, 1)):       # 4 micro-batches
        assert losses == pytest.approx([step[rank] for step in expected], rel=1e-5)


def test_ddp_all_reduces_once_per_step_whatever_the_micro_batches():
    sent = {size: real_steps("ddp", size)[0][1] for size in (None, 2, 1)}
    assert sent[None][0] > 0
    assert sent[2] == sent[None] and sent[1] == sent[None]


@pytest.mark.parametrize("name", ["zero3", "zeropp", "zero-hier"])
def test_the_zero_family_gathers_and_reduces_once_per_micro_batch(name):
    """zero3 and zeropp: every byte once per micro-batch; zero-hier: its cross-node
    gather of the node partitions once per step, the rest per micro-batch."""
    one, two, four = (real_steps(name, size)[0][1][0] for size in (None, 2, 1))
    per_micro = two - one
    assert per_micro > 0 and four - two == 2 * per_micro
    once = one - per_micro
    assert once == 0 if name != "zero-hier" else once > 0


@pytest.mark.parametrize("name, grows", [("ddp", False), ("zero3", True)])
def test_shadow_ranks_accumulate_as_the_real_ones(name, grows):
    """The same volumes per step in shadow mode, and the compute slept is that of the
    micro-batches (hosts/compute.py's passes at the micro-batch size)."""
    target = shadow.shadow_model("custom:2e7")
    dev = shadow.Device("slow", 6 * 2e7 * 2048 / 0.02, "a device computing a step in 20 ms")
    info = registry.get(name)
    runs = {size: shadow_steps(2, info, info.parse_options({"micro_batch_size": size}),
                               target=target, device=dev, batch=4, scale=1e-3)
            for size in (None, 2)}
    (single, m1), (accumulating, m2) = runs[None][0], runs[2][0]
    assert accumulating.micro_batches == 2 and single.micro_batches == 1
    assert m2.logical_sent_bytes == (2 if grows else 1) * m1.logical_sent_bytes
    assert accumulating.compute_s == pytest.approx(
        shadow.step_compute_s(target, 4, dev, 1.0, micro=2))
    assert m2.compute_s >= accumulating.compute_s
