"""DeepSpeed ZeRO-3 (optionally with hpZ, ZeRO++'s secondary partition) training a small
GPT on the CPU over gloo, launched by torchrun, deepspeed's launcher or trainet.

The model, its initial parameters, the data each rank sees and the optimizer (AdamW,
lr 1e-3, weight decay 0.01) are those of trainet's real-mode workers (hosts/models.py),
so its losses and bytes can be set against trainet's zero3 and zeropp strategies. Needs
DeepSpeed (``vagrant/install.sh`` installs it when PyPI is reachable) and
DS_ACCELERATOR=cpu; its C++ ops are not built and not used (torch's AdamW).

    DS_ACCELERATOR=cpu torchrun --nproc-per-node 4 experiments/scripts/deepspeed_gpt.py
    trainet run experiments/deepspeed-zero3.yaml
"""
import argparse
import json

import deepspeed
import torch.distributed as dist

from hosts.models import GPT, SyntheticCorpus, build_model


def config(args) -> dict:
    """ZeRO-3 with every parameter partitioned (no persistent small ones, no reuse of
    gathered ones between forward and backward): trainet's zero3 moves the same."""
    zero = {"stage": 3, "stage3_param_persistence_threshold": 0,
            "stage3_max_reuse_distance": 0, "stage3_max_live_parameters": 0,
            "stage3_prefetch_bucket_size": 0, "overlap_comm": False}
    if args.hpz > 1:
        zero["zero_hpz_partition_size"] = args.hpz
    out = {"train_micro_batch_size_per_gpu": args.batch, "gradient_accumulation_steps": 1,
           "optimizer": {"type": "AdamW", "params": {"lr": args.lr, "weight_decay": 0.01,
                                                     "torch_adam": True}},
           "zero_optimization": zero, "steps_per_print": 1 << 30, "wall_clock_breakdown": False}
    if args.config:
        with open(args.config) as f:
            out.update(json.load(f))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=8)
    p.add_argument("--batch", type=int, default=8, help="sequences per rank and step")
    p.add_argument("--seq", type=int, default=32)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--hpz", type=int, default=1, help="ranks of hpZ's secondary partition "
                   "(the ranks of a node; 1: off)")
    p.add_argument("--config", help="a DeepSpeed config (JSON) whose keys replace these")
    args = p.parse_args()

    deepspeed.init_distributed(dist_backend="gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    model = build_model("gpt", 0, args.seq)
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(),
                                           config=config(args))
    corpus = SyntheticCorpus(0)
    for step in range(args.steps):
        x, y = corpus.batch(step, rank, world, args.batch, args.seq)
        loss = GPT.loss(engine(x), y)
        engine.backward(loss)
        engine.step()
        if rank == 0:
            print(f"step {step} loss {loss.item():.4f}", flush=True)


if __name__ == "__main__":
    main()
