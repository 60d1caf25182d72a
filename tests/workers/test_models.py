"""The tiny models and the synthetic corpus."""
import torch

from hosts.models import GPT, MLP, SyntheticCorpus, build_model
from ranks import single_process_losses


def test_corpus_is_reproducible_and_seed_dependent():
    a, b, c = SyntheticCorpus(3), SyntheticCorpus(3), SyntheticCorpus(4)
    assert torch.equal(a.data, b.data)
    assert not torch.equal(a.data[:1000], c.data[:1000])
    assert int(a.data.max()) < 128          # printable bytes: letters and spaces


def test_rank_slices_make_up_the_global_batch():
    corpus = SyntheticCorpus(0)
    gx, gy = corpus.batch(step=5, rank=0, world=1, batch=12, seq=16)
    parts = [corpus.batch(step=5, rank=r, world=3, batch=4, seq=16) for r in range(3)]
    assert torch.equal(torch.cat([x for x, _ in parts]), gx)
    assert torch.equal(torch.cat([y for _, y in parts]), gy)
    assert torch.equal(gx[:, 1:], gy[:, :-1])        # targets are the next bytes


def test_gpt_is_causal():
    model = build_model("gpt", seed=0, seq=16)
    x = SyntheticCorpus(0).batch(0, 0, 1, 2, 16)[0]
    changed = x.clone()
    changed[:, 10] = (changed[:, 10] + 1) % 256
    with torch.no_grad():
        a, b = model(x), model(changed)
    assert torch.allclose(a[:, :10], b[:, :10])
    assert not torch.allclose(a[:, 10:], b[:, 10:])


def test_same_seed_same_initial_parameters():
    a, b = build_model("gpt", 7), build_model("gpt", 7)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))
    assert isinstance(a, GPT) and isinstance(build_model("mlp", 7), MLP)


def test_mlp_loss_falls_on_the_corpus():
    losses = single_process_losses("mlp", 40, 1e-2)
    assert losses[0] > 5.0                    # about ln(256): nothing known yet
    assert sum(losses[-5:]) / 5 < losses[0] - 1.5


def test_gpt_loss_falls_on_the_corpus():
    losses = single_process_losses("gpt", 25, 3e-3)
    assert sum(losses[-5:]) / 5 < losses[0] - 1.5
