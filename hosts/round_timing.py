"""One rule for timing all-reduce rounds, shared by every program that benchmarks one.

Both sides of a comparison (``hosts.ina_allreduce``, ``hosts.gloo_allreduce``) run
:func:`timed_rounds`, so they are timed the same way: the inputs exist before the clock
starts; ``warmup`` untimed rounds, then, if there were any, the program's own
synchronisation (a gloo barrier, an INA exchange that completes once every worker sent
its part), then the timed rounds back to back, no synchronisation between them. Each
rank records when each round ended, counted from its own start; a benchmark takes the
slowest rank's. The bytes and frames its interfaces carried during the timed rounds
(every interface but loopback, from the host's own /proc/net/dev: the emulated host's
network namespace) are counted too, per direction, and so is the machine's busy CPU time
(/proc/stat, which no namespace narrows: every process on the machine and the kernel's
work), for the CPU an all-reduce costs wherever it runs, and the rank's own CPU time (all
its threads), for the part the rank itself spends.
"""
from __future__ import annotations

import os
import time
from typing import Callable, Sequence

import torch

# the gradient element types a benchmark can ask for
DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}


def interface_counters(text: str | None = None) -> dict:
    """{rx_bytes, tx_bytes, rx_frames, tx_frames} summed over every interface but loopback,
    from ``text`` (the contents of /proc/net/dev; read when not given)."""
    if text is None:
        with open("/proc/net/dev") as f:
            text = f.read()
    total = {"rx_bytes": 0, "tx_bytes": 0, "rx_frames": 0, "tx_frames": 0}
    for line in text.splitlines()[2:]:
        name, sep, rest = line.partition(":")
        fields = rest.split()
        if not sep or name.strip() == "lo" or len(fields) < 10:
            continue
        total["rx_bytes"] += int(fields[0])
        total["rx_frames"] += int(fields[1])
        total["tx_bytes"] += int(fields[8])
        total["tx_frames"] += int(fields[9])
    return total


def machine_busy_s(text: str | None = None) -> float:
    """CPU seconds the machine's cores have been busy since boot, from ``text`` (the
    contents of /proc/stat; read when not given): every state but idle and iowait."""
    if text is None:
        with open("/proc/stat") as f:
            text = f.read()
    values = [int(v) for v in text.split("\n", 1)[0].split()[1:9]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = values
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def timed_rounds(all_reduce: Callable, tensors: Sequence, sync: Callable[[], None],
                 warmup: int = 0, clock: Callable[[], float] = time.perf_counter,
                 counters: Callable[[], dict] = interface_counters,
                 busy: Callable[[], float] = machine_busy_s,
                 own_cpu: Callable[[], float] = time.process_time) -> dict:
    """Run ``all_reduce`` on ``warmup`` copies of ``tensors[0]`` untimed, ``sync()`` if
    there were any, then on each of ``tensors`` back to back. Returns ``round_ends_s``
    (when each timed round ended, from the start of the first), ``times_s`` (each round's
    own time), the interfaces' bytes and frames per direction over the timed rounds and
    ``machine_busy_s``, the machine's busy CPU seconds meanwhile, and ``process_cpu_s``,
    this process's."""
    for _ in range(warmup):
        all_reduce(tensors[0].clone())
    if warmup:
        sync()
    before = counters()
    busy_before = busy()
    own_before = own_cpu()
    start = clock()
    ends = []
    for t in tensors:
        all_reduce(t)
        ends.append(clock() - start)
    own_after = own_cpu()
    busy_after = busy()
    after = counters()
    times = [b - a for a, b in zip([0.0] + ends[:-1], ends)]
    return {"round_ends_s": ends, "times_s": times,
            "machine_busy_s": busy_after - busy_before,
            "process_cpu_s": own_after - own_before,
            **{k: after[k] - before[k] for k in before}}
