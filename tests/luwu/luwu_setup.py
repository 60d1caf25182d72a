"""p4/luwu.p4 on an in-process Target with one LuWu job: worker w on port w + 1, the
optimizer node on port 9."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import torch
from torch import nn

from controllers import ina as ctl
from controllers import luwu
from controllers.jobs import TargetDevice
from hosts.luwu_session import Demux, PushPull, Puller, Streams
from hosts.strategies.luwu import Luwu, LuwuStreamed
from tests.ina.ina_fabric import route_to_workers
from tests.workers.ranks import run_ranks

REPO = Path(__file__).resolve().parents[2]
LUWU_P4 = REPO / "p4" / "luwu.p4"
SWITCH_MAC = "08:00:00:00:ff:00"
AGG = "10.0.255.1"
OPT_IP, OPT_MAC, OPT_PORT = "10.0.1.100", "08:00:00:00:01:64", 9


@lru_cache(maxsize=1)
def load_luwu_program():
    from testbed.p4.lowering.program import load_program
    return load_program(str(LUWU_P4))


def worker_ip(w: int) -> str:
    return f"10.0.1.{w + 1}"


def worker_mac(w: int) -> str:
    return f"08:00:00:00:01:{w + 1:02x}"


def luwu_job(job_id=1, n_workers=3, slot_count=8) -> luwu.LuwuJob:
    workers = [ctl.Worker(w, w + 1, worker_mac(w), worker_ip(w)) for w in range(n_workers)]
    return luwu.LuwuJob(job_id, AGG, workers, luwu.Optimizer(OPT_IP, OPT_PORT, OPT_MAC),
                        slot_count=slot_count)


def setup_job(target, **kw) -> luwu.LuwuJob:
    """The job set up by the controller, plus routes back to every worker."""
    job = luwu_job(**kw)
    luwu.setup(TargetDevice(target), job)
    route_to_workers(target, job)
    return job


class Tiny(nn.Module):
    """The model the in-process LuWu training tests train; its units run in sequence are
    the model (streamed parameters are pulled unit by unit)."""

    def __init__(self):
        super().__init__()
        self.units = nn.ModuleList([nn.Sequential(nn.Linear(6, 16), nn.Tanh()),
                                    nn.Linear(16, 3)])

    def forward(self, x):
        for unit in self.units:
            x = unit(x)
        return x

    @staticmethod
    def loss(out, y):
        return nn.functional.cross_entropy(out, y)


def tiny_model(seed: int) -> Tiny:
    torch.manual_seed(seed)
    return Tiny()


def tiny_batch(step: int, rank: int, world: int, total: int):
    """Rank ``rank``'s share of step ``step``'s batch of ``total`` samples."""
    g = torch.Generator().manual_seed(step)
    x = torch.randn(total, 6, generator=g)
    y = torch.randint(0, 3, (total,), generator=g)
    per = total // world
    return x[rank * per:(rank + 1) * per], y[rank * per:(rank + 1) * per]


def luwu_strategy(comm, transport, slots: int, streamed: bool, memory_budget=None,
                  lane_bits: int = 32):
    """Rank ``comm.rank``'s luwu strategy over ``transport`` (jobs 1, 2 and 3); streamed,
    it keeps the last units that fit ``memory_budget`` bytes."""
    r, world = comm.rank, comm.world
    if not streamed:
        return Luwu(comm, PushPull(transport, 1, 2, r, world, slots=slots, give_up_s=10,
                                   lane_bits=lane_bits), bucket_bytes=256)
    demux = Demux(transport)
    return LuwuStreamed(comm, Streams(
        comm, PushPull(demux.channel(1, 2), 1, 2, r, world, slots=slots, give_up_s=10,
                       lane_bits=lane_bits),
        Puller(demux.channel(3), 3, r, slots, give_up_s=10, lane_bits=lane_bits), demux),
        memory_budget)


def train_ranks(models, transport, data, steps: int, slots: int, streamed=False,
                memory_budget=None, lane_bits: int = 32) -> list:
    """Train ``models`` (one per rank) with the luwu strategy, each rank in a thread
    with ``transport(rank)``; per rank (full parameters, or None when streamed, step
    metrics, memory)."""
    world = len(models)

    def body(comm):
        strategy = luwu_strategy(comm, transport(comm.rank), slots, streamed, memory_budget,
                                 lane_bits)
        try:
            strategy.setup(models[comm.rank])
            metrics = [strategy.step(data(s, comm.rank, world)) for s in range(steps)]
            return (None if streamed else strategy.full_parameters(), metrics,
                    strategy.memory())
        finally:
            strategy.close()

    return run_ranks(world, body, timeout_s=30, gloo=False)
