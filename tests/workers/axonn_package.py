"""The public axonn package (0.2.0, University of Maryland's AxoNN) training the small GPT
on CPU over gloo, as a cross-check of hosts/strategies/axonn.py.

axonn is not a dependency of trainet: vagrant/install.sh unpacks the pinned wheel
(vagrant/axonn.txt, without its one dependency, torch, which .venv has) into
``.venv-clients/axonn``, beside the other outside clients; ``AXONN_PACKAGE`` may name
another directory holding the package (e.g. ``unzip axonn-0.2.0-py3-none-any.whl -d
DIR``). Each rank is a process of its own, since
axonn's groups live in torch.distributed's default process group, one per process:
either local processes (:func:`train`, ``torch.multiprocessing`` over loopback) or one
process per emulated host, started as a program (:func:`main`: ``python
tests/workers/axonn_package.py --rank R --world W --master IP:PORT --iface IF --grid
R,C,D,DATA``, printing the rank's losses as one JSON line).

axonn 0.2.0 is written for GPUs with NCCL. What stands in its way on CPU over gloo, and
the shim (:func:`cpu_shim`, applied in each rank's process only, nothing of the package
changed or copied):

* ``communication_handle`` calls ``torch.cuda.set_device`` and creates every group
  with ``torch.distributed.new_group(..., backend="nccl")``: set_device does nothing,
  new_group takes gloo;
* ``intra_layer.fully_connected.initialize_params`` makes the full weight on
  ``init_device="cuda"``, ``asym_communication`` makes its batch-size tensors with
  ``device="cuda"`` and ``_reduce_scatter`` its output on
  ``torch.cuda.current_device()``: those devices become the CPU
  (``initialize_params``' default, ``torch.tensor``/``empty``/``zeros``/``ones`` given
  ``device="cuda"``, ``current_device``);
* ``gather_batch_sizes`` all-gathers a 0-dimensional tensor into a 1-dimensional one,
  which NCCL accepts and gloo refuses ("invalid tensor size"): the input is viewed as
  one element;
* ``torch.cuda.synchronize`` (the overlap module) does nothing.

The layers are axonn's ``intra_layer.Linear`` in its default (non-expert) mode, the one
``auto_parallelize`` installs: every rank trains on its own slice of the global batch
and each layer gathers the batch over its tensor groups; parameters that are not split
are all-reduced over every rank by ``sync_gradients``.

In that mode a layer's bias is split over one tensor group and gathered whole in the
forward pass, whose backward keeps the rank's own slice of its own batch share's
gradient (``Gather``'s backward is a ``Drop``); ``sync_gradients`` sums bias gradients
over the depth and data groups only. So with G_r or G_c above 1 the biases learn from
part of the batch and training departs from single-process training (measured: 3e-3
in the loss after 10 steps); with the linear layers' biases frozen (``train_biases``
false, here and in :func:`reference`) it agrees within float32 rounding.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import torch
import torch.distributed as dist

from hosts.models import SyntheticCorpus, build_model
from ranks import single_process_losses

INSTALLED = Path(__file__).resolve().parents[2] / ".venv-clients" / "axonn"


def package_dir() -> Path:
    """Where the axonn package is: ``AXONN_PACKAGE``, else where the set-up puts it."""
    return Path(os.environ.get("AXONN_PACKAGE") or INSTALLED)

TRANSPOSED = ("proj", "out")         # AxoNN's pairs: the second layer of each transposed
LINEARS = ("qkv", "proj", "fc", "out")


def cpu_shim() -> None:
    """Let axonn 0.2.0 run on CPU over gloo (see the module's docstring)."""
    torch.cuda.set_device = lambda *a, **k: None
    torch.cuda.current_device = lambda: "cpu"
    torch.cuda.synchronize = lambda *a, **k: None
    for name in ("tensor", "empty", "zeros", "ones"):
        def on_cpu(*a, _make=getattr(torch, name), device=None, **k):
            return _make(*a, device="cpu" if str(device) == "cuda" else device, **k)
        setattr(torch, name, on_cpu)
    gather = dist.all_gather_into_tensor
    dist.all_gather_into_tensor = lambda out, inp, *a, **k: gather(out, inp.reshape(-1),
                                                                  *a, **k)
    new_group = dist.new_group
    dist.new_group = lambda *a, backend=None, **k: new_group(*a, backend="gloo", **k)


def frozen_biases(model, train_biases: bool):
    """``model`` with its blocks' linear layers' biases left untrained unless
    ``train_biases``."""
    for block in model.units[1:-1]:
        for name in LINEARS:
            getattr(block, name).bias.requires_grad_(train_biases)
    return model


def reference(steps: int, lr: float, batch: int, train_biases: bool) -> list[float]:
    """One process's losses on the whole global batch of ``batch`` samples."""
    return single_process_losses("gpt", steps, lr, batch,
                                 prepare=lambda model: frozen_biases(model, train_biases))


def parallel_gpt(seed: int):
    """The small GPT with each block's linear layers replaced by axonn's, holding this
    rank's shard of the same initial weights."""
    from axonn.intra_layer import Linear
    from axonn.intra_layer.communication import Drop
    from axonn.intra_layer.fully_connected import extract_local_params_from_full_params
    model = build_model("gpt", seed)
    for block in model.units[1:-1]:
        for name in LINEARS:
            dense = getattr(block, name)
            layer = Linear(dense.in_features, dense.out_features,
                           transpose=name in TRANSPOSED)
            with torch.no_grad():
                layer.weight.copy_(extract_local_params_from_full_params(
                    dense.weight, layer.outer_group, layer.inner_group, layer.depth_group))
                layer.bias.copy_(Drop.apply(dense.bias, layer.outer_group))
            setattr(block, name, layer)
    return model


def rank_losses(rank: int, world: int, init_method: str, grid: tuple, steps: int,
                batch: int, lr: float, train_biases: bool) -> list[float]:
    """One rank: ``steps`` of AdamW on its slice of ``batch`` samples; its losses."""
    sys.path.insert(0, str(package_dir()))
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=init_method, rank=rank, world_size=world)
    cpu_shim()
    from axonn import axonn as ax
    from axonn.intra_layer import fully_connected, sync_gradients
    fully_connected.initialize_params.__wrapped__.__defaults__ = ("cpu",)
    g_r, g_c, g_d, g_data = grid
    ax.init(G_data=g_data, G_intra_r=g_r, G_intra_c=g_c, G_intra_d=g_d, gpus_per_node=1)
    model = frozen_biases(parallel_gpt(1), train_biases)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=lr)
    corpus, losses = SyntheticCorpus(0), []
    for s in range(steps):
        x, y = corpus.batch(s, rank, world, batch, 32)
        opt.zero_grad()
        loss = model.loss(model(x), y)
        loss.backward()
        sync_gradients(model, mean=True)
        opt.step()
        losses.append(loss.item())
    dist.destroy_process_group()
    return losses


def rank_main(rank: int, world: int, grid: tuple, port: int, steps: int, batch: int,
              lr: float, train_biases: bool, out) -> None:
    """A local rank over loopback; puts (rank, losses) on ``out``."""
    out.put((rank, rank_losses(rank, world, f"tcp://127.0.0.1:{port}", grid, steps, batch,
                               lr, train_biases)))


def mean_over_ranks(losses: dict) -> list[float]:
    """The mean over the ranks (rank -> losses) of each step's loss."""
    return [sum(step) / len(losses) for step in zip(*(losses[r] for r in sorted(losses)))]


def train(grid: tuple, steps: int, batch: int, lr: float, port: int,
          train_biases: bool = True) -> list[float]:
    """The mean over the ranks of each step's loss (every rank's slice is ``batch``
    samples of the global batch)."""
    import torch.multiprocessing as mp
    world = grid[0] * grid[1] * grid[2] * grid[3]
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    procs = [ctx.Process(target=rank_main, args=(r, world, grid, port, steps, batch, lr,
                                                     train_biases, out))
             for r in range(world)]
    for p in procs:
        p.start()
    results = dict(out.get(timeout=300) for _ in procs)
    for p in procs:
        p.join(timeout=30)
    return mean_over_ranks(results)


def main(argv=None) -> int:
    """One rank on an emulated host: gloo binds ``--iface`` (else it binds the address
    the hostname resolves to, which every host shares); prints {"rank", "losses"}."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rank", type=int, required=True)
    p.add_argument("--world", type=int, required=True)
    p.add_argument("--master", required=True, help="IP:PORT of rank 0")
    p.add_argument("--iface", required=True, help="interface gloo binds to")
    p.add_argument("--grid", required=True, help="G_r,G_c,G_d,G_data")
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--batch", type=int, default=1, help="samples per rank and step")
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--train-biases", action="store_true")
    args = p.parse_args(argv)
    os.environ["GLOO_SOCKET_IFNAME"] = args.iface
    grid = tuple(int(g) for g in args.grid.split(","))
    losses = rank_losses(args.rank, args.world, f"tcp://{args.master}", grid, args.steps,
                         args.batch, args.lr, args.train_biases)
    print(json.dumps({"rank": args.rank, "losses": losses}), flush=True)
    return 0


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    # the losses are out; skip the interpreter's teardown, where a thread of the AxoNN
    # package's communication is sometimes destroyed while joinable (std::terminate, exit
    # -6) after everything was computed and printed
    os._exit(code)
