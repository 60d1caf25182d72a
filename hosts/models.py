"""Tiny models and a synthetic corpus for training on emulated hosts.

Both models are a sequence of *units* (``model.units``), each a module whose input is the
previous unit's output; ``model.loss(output, targets)`` turns the last unit's output into
the training loss. The strategies rely on this shape: ZeRO-3 gathers, runs and frees one
unit at a time.

The corpus is a byte stream made by a seeded generator: words of lower-case letters drawn
from a fixed vocabulary, joined by spaces, where each word is followed by one of a few
likely successors. Inside a word every byte is determined by the word so far, so a model
can learn the stream well below the 8 bits/byte of noise (the loss falls fast), and the
whole thing is reproducible from the seed with nothing downloaded.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from testbed.errors import TrainetError


# ------------------------------------------------------------------ corpus
class SyntheticCorpus:
    def __init__(self, seed: int = 0, length: int = 1 << 17, words: int = 48,
                 successors: int = 3):
        rng = np.random.default_rng(seed)
        letters = np.frombuffer(b"abcdefghijklmnopqrstuvwxyz", dtype=np.uint8)
        vocab = [bytes(rng.choice(letters, size=rng.integers(2, 7))) for _ in range(words)]
        nxt = rng.integers(0, words, size=(words, successors)).tolist()
        cumulative = np.cumsum(rng.dirichlet(np.ones(successors), size=words), axis=1).tolist()
        draws = rng.random(length // 3 + 1).tolist()   # words are at least 3 bytes long
        out, w, size, i = [], 0, 0, 0
        while size < length:
            out.append(vocab[w] + b" ")
            size += len(out[-1])
            w = nxt[w][min(bisect.bisect(cumulative[w], draws[i]), successors - 1)]
            i += 1
        self.data = torch.tensor(np.frombuffer(b"".join(out)[:length], dtype=np.uint8),
                                 dtype=torch.long)
        self.seed = seed

    def samples(self, indices, seq: int) -> tuple[torch.Tensor, torch.Tensor]:
        """Inputs and next-byte targets, (len(indices), seq) each; sample ``i`` always
        starts at the same place of the stream."""
        span = len(self.data) - seq - 1
        starts = [(int(i) * 2654435761 + self.seed * 97) % span for i in indices]
        x = torch.stack([self.data[s:s + seq] for s in starts])
        y = torch.stack([self.data[s + 1:s + seq + 1] for s in starts])
        return x, y

    def batch(self, step: int, rank: int, world: int, batch: int, seq: int):
        """The ``rank``-th slice of step ``step``'s global batch of ``world * batch``
        samples: the same data a single process with ``batch * world`` sees, split."""
        first = (step * world + rank) * batch
        return self.samples(range(first, first + batch), seq)


# ------------------------------------------------------------------ GPT
@dataclass(frozen=True)
class GPTConfig:
    vocab: int = 256
    d_model: int = 64
    layers: int = 2
    heads: int = 4
    seq: int = 32


class Embedding(nn.Module):
    def __init__(self, cfg: GPTConfig):
        super().__init__()
        self.tok = nn.Embedding(cfg.vocab, cfg.d_model)
        self.pos = nn.Embedding(cfg.seq, cfg.d_model)

    def forward(self, x):
        return self.tok(x) + self.pos(torch.arange(x.shape[1]))


class Block(nn.Module):
    """Pre-norm transformer block: causal self-attention, then a 4x GELU MLP."""

    def __init__(self, cfg: GPTConfig):
        super().__init__()
        if cfg.d_model % cfg.heads:
            raise TrainetError(f"d_model {cfg.d_model} is not a multiple of heads {cfg.heads}")
        self.heads = cfg.heads
        self.ln1 = nn.LayerNorm(cfg.d_model)
        self.qkv = nn.Linear(cfg.d_model, 3 * cfg.d_model)
        self.proj = nn.Linear(cfg.d_model, cfg.d_model)
        self.ln2 = nn.LayerNorm(cfg.d_model)
        self.fc = nn.Linear(cfg.d_model, 4 * cfg.d_model)
        self.out = nn.Linear(4 * cfg.d_model, cfg.d_model)

    def forward(self, h):
        b, t, d = h.shape
        q, k, v = self.qkv(self.ln1(h)).split(d, dim=2)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        h = h + self.proj(a.transpose(1, 2).reshape(b, t, d))
        return h + self.out(F.gelu(self.fc(self.ln2(h))))


class LMHead(nn.Module):
    def __init__(self, cfg: GPTConfig):
        super().__init__()
        self.ln = nn.LayerNorm(cfg.d_model)
        self.head = nn.Linear(cfg.d_model, cfg.vocab, bias=False)

    def forward(self, h):
        return self.head(self.ln(h))


class GPT(nn.Module):
    """Decoder-only language model over bytes (no weight tying: units own disjoint
    parameters)."""

    def __init__(self, cfg: GPTConfig = GPTConfig()):
        super().__init__()
        self.cfg = cfg
        self.units = nn.ModuleList([Embedding(cfg), *(Block(cfg) for _ in range(cfg.layers)),
                                    LMHead(cfg)])

    def forward(self, x):
        for unit in self.units:
            x = unit(x)
        return x

    @staticmethod
    def loss(logits, y):
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))


# ------------------------------------------------------------------ MLP
class ContextEmbedding(nn.Module):
    """The last ``context`` bytes of each sample, embedded and concatenated."""

    def __init__(self, vocab: int, d: int, context: int):
        super().__init__()
        self.context = context
        self.emb = nn.Embedding(vocab, d)

    def forward(self, x):
        return self.emb(x[:, -self.context:]).flatten(1)


class MLP(nn.Module):
    """Next-byte predictor from a fixed window: embedding, GELU hidden layers, logits."""

    def __init__(self, vocab: int = 256, d: int = 32, context: int = 4, hidden: int = 128,
                 layers: int = 2):
        super().__init__()
        units = [ContextEmbedding(vocab, d, context)]
        width = d * context
        for _ in range(layers):
            units.append(nn.Sequential(nn.Linear(width, hidden), nn.GELU()))
            width = hidden
        units.append(nn.Linear(width, vocab))
        self.units = nn.ModuleList(units)

    def forward(self, x):
        for unit in self.units:
            x = unit(x)
        return x

    @staticmethod
    def loss(logits, y):
        return F.cross_entropy(logits, y[:, -1])


MODELS = ("gpt", "mlp")


def build_model(name: str, seed: int, seq: int = 32) -> nn.Module:
    """The same initial parameters on every rank for the same ``seed``."""
    torch.manual_seed(seed)
    if name == "gpt":
        return GPT(GPTConfig(seq=seq))
    if name == "mlp":
        return MLP()
    raise TrainetError(f"--model {name!r}: choose one of {', '.join(MODELS)}")
