"""A plain torch.distributed DDP training script, nothing of trainet in it: a small
GPT-like language model on a synthetic corpus, gloo, launched by torchrun or by trainet.

    torchrun --nproc-per-node 2 experiments/scripts/ddp_train.py --steps 5
    trainet run experiments/own-script-ddp.yaml
"""
import argparse

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel


class TinyGPT(nn.Module):
    def __init__(self, vocab: int, dim: int, layers: int, seq: int):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.position = nn.Parameter(torch.zeros(seq, dim))
        block = nn.TransformerEncoderLayer(dim, nhead=4, dim_feedforward=4 * dim,
                                           batch_first=True, norm_first=True, dropout=0.0)
        self.blocks = nn.TransformerEncoder(block, layers, enable_nested_tensor=False)
        self.head = nn.Linear(dim, vocab)
        self.register_buffer("mask", nn.Transformer.generate_square_subsequent_mask(seq))

    def forward(self, tokens):
        h = self.embed(tokens) + self.position[: tokens.shape[1]]
        return self.head(self.blocks(h, mask=self.mask[: tokens.shape[1], : tokens.shape[1]],
                                     is_causal=True))


def batches(rank: int, batch: int, seq: int, vocab: int):
    """Each rank's own slice of a repeating token pattern the model can learn."""
    g = torch.Generator().manual_seed(1000 + rank)
    pattern = torch.arange(vocab).repeat(4)
    while True:
        start = torch.randint(0, len(pattern) - seq - 1, (batch,), generator=g)
        x = torch.stack([pattern[s: s + seq + 1] for s in start.tolist()])
        yield x[:, :-1], x[:, 1:]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--seq", type=int, default=32)
    p.add_argument("--dim", type=int, default=64)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--vocab", type=int, default=64)
    p.add_argument("--lr", type=float, default=1e-3)
    args = p.parse_args()

    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)
    model = DistributedDataParallel(TinyGPT(args.vocab, args.dim, args.layers, args.seq))
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    data = batches(rank, args.batch, args.seq, args.vocab)
    for step in range(args.steps):
        x, y = next(data)
        loss = nn.functional.cross_entropy(model(x).flatten(0, 1), y.flatten())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if rank == 0:
            print(f"step {step} loss {loss.item():.4f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
