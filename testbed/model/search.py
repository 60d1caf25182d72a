"""The best layout: every registered strategy's candidate options
(``StrategyInfo.layouts``) predicted, the fastest that fits its device first; a
candidate that does not fit is tried with its optimizer state sharded over its
data-parallel replicas (a strategy with a ``distributed_optimizer`` option and more
than one replica), then, if it asked for selective recompute, with full recompute
(with and without that sharding); the first of these that fits is kept, else the
last."""
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
            tries = _fallbacks(name, options)
            chosen = next((o for o in tries[:-1]
                           if fits(name, workload, fabric, world, o, sizes)), tries[-1])
            out.append(predict(name, workload, fabric, world, chosen, calibration,
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


def _fallbacks(name: str, options: dict) -> list[dict]:
    """``options``, then the variants tried when it does not fit, in that order."""
    shard = "distributed_optimizer" in registry.get(name).options.model_fields \
        and options.get("dp", 1) > 1 and not options.get("distributed_optimizer")
    out = [options] + ([{**options, "distributed_optimizer": True}] if shard else [])
    if options.get("recompute") == "selective":
        out += [{**o, "recompute": "full"} for o in list(out)]
    return out
