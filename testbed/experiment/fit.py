"""Before anything starts: does each strategy of each variant fit its workers' device?

A shadow experiment's workers stand for devices with a memory capacity
(hosts/devices.py); each strategy's whole footprint per worker (hosts/footprint.py) is
held against it, and against the worker's share of host memory and NVMe when it
offloads. Activations are counted for the recompute the workers run (the strategy's
``recompute`` option, else the workload's: ``StrategyInfo.recompute_of``), the one the
shadow workers sleep. Workers on different devices (the topology's hosts name them) are each held
against their own; the check reports the tightest. A strategy that does not fit is
reported ("needs X GiB of Y GiB device memory") and not run, unless the experiment or
its entry says ``run_not_fitting``; it then runs marked as not fitting. Real runs train
a small model on this machine: nothing to check.
"""
from __future__ import annotations

from dataclasses import dataclass

from testbed.errors import TrainetError
from testbed.experiment.spec import ResolvedExperiment, ResolvedStrategy, Variant
from testbed.topology.specfile import Issue, TopologyError

DEFAULT_MODEL = "gpt-1.3b"     # hosts.worker's default


@dataclass(frozen=True)
class MemoryCheck:
    variant: str
    label: str
    fit: object                  # hosts.footprint.Fit
    forced: bool                 # does not fit, run anyway (run_not_fitting)

    @property
    def runs(self) -> bool:
        return self.fit.fits or self.forced

    @property
    def status(self) -> str:
        return "fits" if self.fit.fits else ("run anyway" if self.forced else "not run")

    def record(self) -> dict:
        """What config.yaml keeps (summary.csv and the report read it)."""
        f = self.fit.footprint
        return {"status": self.status, "verdict": self.fit.verdict(),
                "device_need_B": f.device, "device_capacity_B": self.fit.device_bytes,
                "params_B": f.params, "grads_B": f.grads, "optimizer_B": f.optimizer,
                "activations_B": f.activations, "buffers_B": f.buffers,
                "reserve_B": f.reserve, "host_B": f.host, "nvme_B": f.nvme}


def _fail(experiment: ResolvedExperiment, path: tuple, message: str):
    raise TopologyError([Issue(path, message)]).located(experiment.source,
                                                        experiment.marks) from None


def memory_checks(experiment: ResolvedExperiment) -> list[MemoryCheck]:
    """One check per variant and strategy of a shadow experiment (none for real runs)."""
    w = experiment.spec.workload
    if w.mode != "shadow":
        return []
    from hosts import devices, footprint, shadow
    from hosts.collectives.hierarchy import Layout
    target = shadow.shadow_model(w.shadow_model or DEFAULT_MODEL)
    checks, used = [], {}
    for variant in experiment.variants():
        workers = experiment.workers_of(variant)
        devs = [used.setdefault(name, devices.device(name, w.device_memory))
                for name in dict.fromkeys(experiment.devices_of(variant))]
        for i, strategy in enumerate(experiment.strategies):
            tiers = experiment.tiers_of(strategy, variant)
            sizes = (Layout.of(0, len(workers), tiers, strategy.info.tiers,
                               strategy.info.name).sizes if tiers else None)
            batch = experiment.batch_of(strategy, variant)
            options = strategy.info.parse_options(batch.options)
            try:
                recompute = strategy.info.recompute_of(options, w.recompute)
                fp = footprint.footprint(strategy.info, target, len(workers),
                                         batch.replica_batch, recompute, options=options,
                                         sizes=sizes)
                per_node = experiment.gpus_per_node_of(variant)
                fit = min((footprint.check(fp, dev, per_node) for dev in devs),
                          key=_headroom)
            except TrainetError as e:
                _fail(experiment, ("strategies", i, "options"), f"strategy {strategy.label}: {e}")
            checks.append(MemoryCheck(variant.name, strategy.label, fit,
                                      not fit.fits and strategy.run_not_fitting))
    _check_capacity(experiment, min(used.values(), key=lambda d: d.memory_bytes or float("inf")),
                    checks)
    return checks


def _headroom(fit) -> tuple:
    """Orders fits tightest first: those that do not fit, then by free device bytes."""
    free = fit.device_bytes - fit.footprint.device if fit.device_bytes else float("inf")
    return fit.fits, free


def _check_capacity(experiment: ResolvedExperiment, dev, checks: list[MemoryCheck]) -> None:
    """A capacity below every strategy's parameter shard is a slip of the unit."""
    if not checks or not dev.memory_bytes:
        return
    from hosts.footprint import gib
    smallest = min(c.fit.footprint.params for c in checks)
    if dev.memory_bytes < smallest:
        field = "device_memory" if experiment.spec.workload.device_memory else "device"
        _fail(experiment, ("workload", field), f"{gib(dev.memory_bytes)} holds not even the "
              f"smallest parameter shard of the strategies ({gib(smallest)}); give the "
              "device's capacity with its unit, e.g. 80GiB")


def check_of(checks: list[MemoryCheck], variant: Variant, strategy: ResolvedStrategy):
    return next((c for c in checks if c.variant == variant.name and c.label == strategy.label),
                None)


def table(checks: list[MemoryCheck]):
    """The variants and strategies that do not fit, as a rich table (None: all fit)."""
    short = [c for c in checks if not c.fit.fits]
    if not short:
        return None
    from rich.table import Table
    out = Table(title="memory: strategies whose footprint does not fit")
    for header in ("variant", "strategy", "footprint", ""):
        out.add_column(header)
    for c in short:
        out.add_row(c.variant, c.label, c.fit.verdict(), c.status)
    return out
