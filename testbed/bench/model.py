"""``trainet bench model``: how fast the analytical model predicts a step, from 8 to
100,000 GPUs.

Each GPU count is predicted for ZeRO-3 and, where 64 divides it, for Megatron-LM's TP 8
x PP 8 x DP layout of GPT-175B (one sequence per GPU and step) on the ``dgx-a100`` tiered
fabric (groups mapped onto tiers in closed form);
the baseline is the same prediction on the same nodes described link by link
(``trainet plan``'s nominal fabric: every ring hop routed and every link's load
counted), measured in the same run up to the counts it finishes in reasonable time.
"""
from __future__ import annotations

import time

from hosts import shadow
from testbed.model.calibration import DEFAULT
from testbed.model.fabric import NominalFabric, fabric
from testbed.model.step import Workload, predict

COUNTS = (1, 8, 64, 512, 4096, 32768, 100000)
BASELINE_UP_TO = 4096
STRATEGIES = (("zero3", {}), ("megatron", {"tp": 8, "pp": 8, "micro_batches": 16}))


def _time(fab, gpus: int, repeat: int) -> tuple[float, float]:
    """(seconds per prediction, ZeRO-3's step time)."""
    workload = Workload(shadow.shadow_model("gpt-175b"), shadow.device("a100-80gb"), gpus)
    strategies = [(n, o) for n, o in STRATEGIES if n != "megatron" or gpus % 64 == 0]
    start = time.perf_counter()
    for _ in range(repeat):
        steps = [predict(n, workload, fab, gpus, o, DEFAULT).step_s for n, o in strategies]
    return (time.perf_counter() - start) / (repeat * len(strategies)), steps[0]


def main(args) -> int:
    title = ("GPT-175B, ZeRO-3 and Megatron TP8 x PP8 on DGX A100 nodes (8 A100 on NVLink, "
             "8 HDR NICs); seconds per prediction")
    _time(fabric("dgx-a100", 8), 8, 1)            # imports and the registry, once
    rows = []
    for gpus in COUNTS:
        tiered, step = _time(fabric("dgx-a100", gpus), gpus, args.repeat)
        slow = None
        if gpus <= BASELINE_UP_TO:
            slow, _ = _time(NominalFabric(gpus, min(8, gpus), 2400e9, 200e9, 1e-6), gpus, 1)
        rows.append({"gpus": gpus, "tiered_s": tiered, "points_per_s": 1 / tiered,
                     "link_by_link_s": slow, "ratio": slow / tiered if slow else None,
                     "zero3_step_s": step})
        if not args.json:
            if len(rows) == 1:
                print(title)
                print(f"{'GPUs':>8}{'tiered':>12}{'points/s':>10}{'link by link':>15}"
                      f"{'ratio':>8}{'step (zero3)':>14}")
            graph = f"{slow * 1e3:.1f} ms" if slow else ""
            ratio = f"{slow / tiered:.0f}x" if slow else ""
            print(f"{gpus:>8}{tiered * 1e3:>9.2f} ms{1 / tiered:>10.0f}{graph:>15}{ratio:>8}"
                  f"{step:>12.2f} s", flush=True)
    if args.json:
        import json
        print(json.dumps({"what": title, "rows": rows}, indent=1))
    return 0
