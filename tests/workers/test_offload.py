"""ZeRO-Offload and ZeRO-Infinity: the footprint moves to the host or NVMe, and the step
pays the transfers and the CPU optimizer."""

import time

import pytest
import torch

from hosts import devices, offload, shadow
from hosts.devices import GIB
from hosts.models import MLP, SyntheticCorpus
from hosts.strategies import registry
from hosts.strategies.zero3 import Offload, Zero3
from ranks import run_ranks
from testbed.errors import TrainetError

DGX = devices.HOSTS["dgx-a100-640gb"]


def test_offloaded_state_leaves_the_device():
    zero3 = registry.get("zero3")
    p, n = 175e9, 8

    def memory(**options):
        return zero3.nominal_memory(p, n, 96, options=zero3.parse_options(options))

    cpu = memory(offload_optimizer="cpu")
    assert (cpu.optimizer_bytes, cpu.grads_bytes, cpu.params_bytes) == (0, 0, 2 * p / n)
    assert cpu.host_bytes == 16 * p / n and cpu.nvme_bytes == 0
    nvme = memory(offload_optimizer="nvme", offload_param="nvme")
    assert nvme.nvme_bytes == 14 * p / n and nvme.host_bytes == 4 * p / n
    assert nvme.params_bytes == round(2 * 2 * p / 96)            # two layers gathered


def test_offload_cost_by_part():
    p = 175e9 / 8
    rate = devices.cpu_adam_rate(DGX, 1e8, share=1)
    assert rate == min(1e8 * 128, 2 * 204.8e9 / 28)
    cpu = offload.cost(p, DGX, 1, rate, "cpu")
    assert cpu.link_s == pytest.approx(2 * 2 * p / 25e9)        # gradients down, params up
    assert cpu.nvme_s == 0 and cpu.cpu_optimizer_s == pytest.approx(p / rate)
    nvme = offload.cost(p, DGX, 8, rate, "nvme", "nvme")
    assert nvme.nvme_s == pytest.approx(12 * p / 7e9 + 12 * p / 3.8e9 + 2 * 2 * p / 7e9)
    assert nvme.link_s == pytest.approx(3 * 2 * p / 25e9)       # down, and before 2 gathers
    diskless = devices.Host("diskless", 8, 25e9, 1024 * GIB, 0, 0, 0, 64, 1e11, "no NVMe")
    with pytest.raises(TrainetError, match="offload_optimizer nvme: host diskless has no "
                       "NVMe; offload to cpu"):
        offload.cost(p, diskless, 8, rate, "nvme")


def test_shadow_offload_sleeps_its_modeled_cost():
    target = shadow.shadow_model("custom:6e8")
    dev = devices.Device("quick", 6 * 6e8 * 2048 / 0.02, "a step of compute in 20 ms",
                         80 * GIB, "dgx-a100-640gb")
    info = registry.get("zero3")
    options = info.parse_options({"offload_optimizer": "cpu"})

    def body(comm):
        s = info.build("shadow", registry.Context(
            comm, info, options, target=target, device=dev, batch=1, scale=1e-4, mfu=1.0,
            cpu_adam_rate=1e8, interference=0))
        s.setup()
        return s.offload_cost, [s.step(None) for _ in range(2)][-1]

    for cost, m in run_ranks(2, body):
        assert cost.total_s == pytest.approx(
            2 * 2 * 3e8 / 25e9 + 3e8 / devices.cpu_adam_rate(DGX, 1e8))
        assert m.offload_s == pytest.approx(cost.total_s, rel=0.05)
        assert m.step_s == pytest.approx(m.compute_s + m.exposed_comm_s + m.offload_s)


def test_a_real_offloaded_step_holds_its_modeled_parts():
    """A small model (2.5 M parameters) trained with its AdamW state "on NVMe" behind a
    slow host link: the offloaded part of a step is the modeled link and NVMe time,
    slept, plus a real AdamW step of the rank's shards on the CPU.

    Two-sided, against a baseline timed in the same run after every step: the same
    sleep and an AdamW step of tensors shaped as the shards, alone, and that step's
    thread CPU time. Below: a sleep never ends early and a step's wall time is at least
    its CPU time, so every offloaded part is at least the slept time plus the fastest
    CPU time of the baseline's optimizer step, less that CPU time's own spread; one that
    skipped the sleep falls below it, one that skipped the optimizer too unless its sleep
    overran by the optimizer's few milliseconds. Above: the steps' median is at most the baseline's median plus the spread
    (max - min) of each, what the machine's load did to them in this run; one that
    slept twice (the slept part is 150 ms, the rest a few ms unloaded) lies above."""
    slow = devices.Host("slow", 1, 267e6, 64 * GIB, 0.8e9, 0.8e9, 64 * GIB, 1, 1e11,
                        "a host link and NVMe slow enough to time")
    where = Offload("nvme", "none", slow, 1)

    def baseline(strategy):
        params = [torch.nn.Parameter(u.shard.detach().clone()) for u in strategy.units]
        for p in params:
            p.grad = torch.full_like(p, 1e-3)
        optimizer = strategy.optimizer_for(params)
        optimizer.step()                          # allocates the moments

        def once():
            start = time.perf_counter()
            time.sleep(strategy.transfers().total_s)
            optimizer.step()
            wall = time.perf_counter() - start
            cpu = time.thread_time()
            optimizer.step()
            return wall, time.thread_time() - cpu
        return once

    def body(comm):
        torch.manual_seed(1)
        strategy = Zero3(comm, lr=1e-3, offload=where)
        strategy.setup(MLP(hidden=1024, layers=3))
        corpus = SyntheticCorpus(0)
        metrics, timed = [], []
        for s in range(6):
            metrics.append(strategy.step(corpus.batch(s, 0, 1, 4, 4)))
            if s == 0:
                alone = baseline(strategy)
            timed.append(alone())
        return strategy, metrics, timed

    shard = sum(p.numel() for p in MLP(hidden=1024, layers=3).parameters())   # one rank
    [(strategy, metrics, timed)] = run_ranks(1, body, timeout_s=60)
    assert shard == sum(u.shard.numel() for u in strategy.units)
    assert strategy.transfers().link_s == pytest.approx(2 * shard * 4 / 267e6)
    slept = strategy.transfers().total_s
    walls, cpus = sorted(w for w, _ in timed), [c for _, c in timed]
    parts = sorted(m.offload_s for m in metrics[1:])

    def median(xs):
        return xs[len(xs) // 2]

    spread = (walls[-1] - walls[0]) + (parts[-1] - parts[0])
    print(f"\noffloaded part {parts[0] * 1e3:.1f}-{parts[-1] * 1e3:.1f} ms per step "
          f"(median {median(parts) * 1e3:.1f}); baseline {walls[0] * 1e3:.1f}-"
          f"{walls[-1] * 1e3:.1f} ms (median {median(walls) * 1e3:.1f}), its optimizer "
          f"{min(cpus) * 1e3:.1f} ms of CPU; slept {slept * 1e3:.1f} ms")
    cpu = min(cpus) - (max(cpus) - min(cpus))
    assert all(part >= slept + cpu for part in parts)
    assert median(parts) <= median(walls) + spread
    for m in metrics:
        assert m.step_s == pytest.approx(m.compute_s + m.exposed_comm_s + m.offload_s)
