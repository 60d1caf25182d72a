"""The best layout: every registered strategy's candidate options
(``StrategyInfo.layouts``) predicted, the fastest that fits its device first; a
candidate with selective recompute that does not fit is tried with full recompute. The
search keeps each candidate's software as declared: it does not turn on an option such
as megatron's ``distributed_optimizer`` that the runs it is compared with may not have
had (give it in the candidate's options)."""
from __future__ import annotations

from hosts.strategies import registry
from testbed.errors import TrainetError
from testbed.model.calibration import DEFAULT
from testbed.model.step import Workload, fits, predict


def candidates(world: int, workload: Workload, sizes: dict,
               every: bool = False) -> list[tuple[str, dict]]:
    """(strategy, options) a search tries; ``every``: every valid layout the strategies
    declare (StrategyInfo.layouts)."""
    out = []
    for info in registry.strategies():
        for options in info.candidate_options(world, model=workload.model,
                                              batch=workload.global_batch, sizes=sizes,
                                              every=every):
            out.append((info.name, options))
    return out


def search(workload: Workload, fabric, world: int, calibration=DEFAULT,
           strategies: list[tuple[str, dict]] | None = None):
    """(predictions fastest first, fitting ones before the others; reasons candidates
    were left out)."""
    sizes = fabric.tier_sizes(world) if hasattr(fabric, "tier_sizes") else {}
    out, skipped = [], []
    for name, options in strategies or candidates(world, workload, sizes):
        try:
            if options.get("recompute") == "selective" and \
                    not fits(name, workload, fabric, world, options, sizes):
                options = {**options, "recompute": "full"}
            out.append(predict(name, workload, fabric, world, options, calibration,
                               sizes=sizes))
        except TrainetError as err:
            label = name + (":" + ",".join(f"{k}={v}" for k, v in options.items())
                            if options else "")
            skipped.append(f"{label}: {str(err).removeprefix(f'strategy {name}: ')}")
    if not out:
        raise TrainetError(f"no layout of {world} GPUs could be predicted for "
                           f"{workload.model.name}: " + "; ".join(skipped[:3]))
    out.sort(key=lambda p: (not p.fits, p.step_s))
    return out, skipped

