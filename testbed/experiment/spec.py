"""Experiment files: a fabric, a training workload, the strategies to compare and the
link variations to sweep.

::

    name: demo
    topology:                       # a topology file (relative to this file), a
      generator: {name: star, workers: 3, nic: roce-100g}    # generator, or an inline
      program: ../p4/basic.p4       # spec (hosts, switches, links)
    workers: [w1, w2, w3]           # default: the topology's hosts of role worker; the
                                    # strategy ps runs its server on a host of role server
    workload: {model: gpt, mode: shadow, shadow_model: gpt-1.3b, device: a100-80gb, steps: 5,
               # device: the workers' accelerator, unless their topology host names one
               global_batch: 24,          # sequences per step, every replica together
               micro_batch_size: 8,       # sequences per micro-batch of one replica
               device_memory: 40GiB,      # instead of the device profile's capacity
               recompute: full,           # none, selective or full (default none)
               gpus_per_node: 8,          # sharing a node's memory, CPU and NVMe
               interference: 0.189,       # compute slowdown under GPU collectives
               mfu: 0.4}                  # one utilisation of the peak instead of the
                                          # compute model by shapes (hosts/compute.py)
    strategies:                     # registered strategies (`trainet strategies`), by name
      - ddp                         # or with options and a label of their own
      - {strategy: ddp, label: ddp-4mb, options: {bucket_cap_mb: 4}, run_not_fitting: true}
      - zero3
    run_not_fitting: false          # a strategy whose footprint does not fit its device is
                                    # reported and skipped, unless this (or its own) is true
    sweep:                          # every combination becomes one variant
      bandwidth: [100Gbit, 200Gbit] # nominal rate of every link
      nic: [roce-100g]              # NIC profile of every host (as-built: each its own)
      loss: [0, 0.1]                # percent, every link
      delay: [0s, 1ms]              # one-way, every link
      nodes: [1, 2]                 # a generated topology's nodes (generator frontier),
                                    # workers: every worker host of each
      gpus_per_node: [1, 8]         # the workload's gpus_per_node, per variant
    repetitions: 1
    scale: 1e-4                     # co-scaling factor; default: the topology's
    pcap: false                     # switch captures (read by trainet inspect / report)
    ina: {aggregator: 10.0.255.1, job: 1, slots: 32}    # the switch job of strategies
    luwu: {aggregator: 10.0.255.1, job: 1, slots: 32}   # that need one, per section
    timeouts: {bring_up: 120s, run: 600s}
    cluster:                        # spread the network over servers (README, Cluster
      servers: [localhost, 10.0.0.2]    # mode); --servers/--placement override these
      placement: switch-bin         # or round-robin, or {s1: localhost, s2: 10.0.0.2}
      link: ssh                     # tunnels between servers: ssh or gre
      python: /opt/trainet/.venv/bin/python   # trainet on the servers (default: the
      root: /opt/trainet                      # same paths as here)

What a strategy needs besides its workers comes from its registration
(hosts/strategies/registry.py): its switch job's section (``ina``, ``luwu``: switch,
aggregator, job, slots), a host of the role its service runs on (``ps``: a host of role
server; ``luwu``: of role optimizer, linked to the job's switch), the host groups it
places partitions by (``zeropp``: node; ``zero-hier``: gpu and node), which every worker
host must have.

A worker host's ``device`` (topology, or a geo site's ``device``) is the accelerator its
shadow worker stands for, in every strategy; hosts without one take the workload's
``device``. Heterogeneous devices reach each rank as ``--device`` with one profile per
rank, so every strategy's compute model sleeps its own device's time.

Every error names the file, line and column and the field path (``sweep.bandwidth[1]``),
including errors inside an inline or generated topology.
"""
from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Literal

from pydantic import (BeforeValidator, Field, PrivateAttr, ValidationError, create_model,
                      field_validator, model_validator)

from hosts import devices
from hosts.strategies import registry
from hosts.strategies.registry import Size
from testbed.errors import TrainetError
from testbed.experiment.batch import Batch, BatchError
from testbed.experiment.batch import resolve as resolve_batch
from testbed.topology import profiles
from testbed.topology.generators import expand_generator
from testbed.topology.load import load_topology
from testbed.topology.spec import Duration, Percent, Rate, Topology
from testbed.topology.specfile import (Issue, Spec, TopologyError, UnknownKey, from_validation,
                                      read_spec)
from testbed.units import duration_text, rate_text


# an earlier version's workload keys -> what they are now
RENAMED = {
    "batch": "an earlier key (sequences per worker): give global_batch = batch x replicas, "
             "sequences per optimizer step across every data-parallel replica as "
             "Megatron-LM's --global-batch-size (the replicas: every worker for ddp, zero3 "
             "and the other data-parallel strategies, dp for megatron), or "
             "micro_batch_size: batch alone, one micro-batch per replica",
    "gpus_per_host": "an earlier key: give gpus_per_node, the same value (as torchrun's "
                     "--nproc-per-node and trainet model predict's --gpus-per-node say it)",
}


class Workload(Spec):
    """What every worker trains (``workload:``)."""

    _recorded_batch: int | None = PrivateAttr(default=None)

    model: Literal["gpt", "mlp"] = Field(default="gpt", description="the model a real run "
                                         "trains on this machine's CPU (shadow runs: gpt)")
    mode: Literal["shadow", "real"] = Field(default="shadow", description="shadow: the "
                                            "compute of `shadow_model` on `device` is slept "
                                            "and its tensors sent at their real volume times "
                                            "`scale`; real: a small model trained for real")
    shadow_model: str | None = Field(default=None, description="the model a shadow run "
                                     "stands for: gpt-125m .. gpt-175b, gpt-20b, "
                                     "megatron-1.7b .. megatron-1t or custom:PARAMS "
                                     "(default gpt-1.3b)")
    device: str | None = Field(default=None, description="the accelerator whose compute a "
                               "shadow worker sleeps, unless its topology host names one: "
                               f"{', '.join(devices.DEVICES)} (default {devices.DEFAULT})")
    steps: int = Field(default=5, ge=1, description="training steps per run; the first is "
                       "warm-up and not counted")
    global_batch: int | None = Field(default=None, ge=1, description="sequences per "
                                     "optimizer step across every data-parallel replica "
                                     "(Megatron-LM's --global-batch-size, DeepSpeed's "
                                     "train_batch_size); each replica takes global_batch / "
                                     "its strategy's replicas (default: micro_batch_size x "
                                     "replicas, else 8 per replica)")
    micro_batch_size: int | None = Field(default=None, ge=1, description="sequences per "
                                         "micro-batch on one replica (Megatron-LM's "
                                         "--micro-batch-size); pipelines run per-replica "
                                         "batch / micro_batch_size micro-batches, ddp, zero3, "
                                         "zeropp and zero-hier accumulate that many "
                                         "micro-batches' gradients per optimizer step; "
                                         "strategies without micro-batches take their "
                                         "per-replica batch (default: each strategy's own)")
    device_memory: Size | None = Field(default=None, description="the device's memory "
                                       "instead of its profile's, for the footprint check")
    recompute: Literal["none", "selective", "full"] = Field(
        default="none", description="activation recompute: none, selective (attention's "
        "core re-run before its backward) or full (each layer's forward re-run); the "
        "memory check counts what it keeps and the shadow workers sleep what it re-runs; "
        "a strategy's own recompute option overrides it; true and false read as full and "
        "none")
    gpus_per_node: int | None = Field(default=None, ge=1, description="GPUs sharing one "
                                      "node's host memory, CPU and NVMe (offloading; "
                                      "torchrun's --nproc-per-node; default: the device "
                                      "profile's host)")
    interference: float | None = Field(default=None, ge=0, description="compute slowdown "
                                       "while GPU collectives run, 0: none (default 0.189, "
                                       "Lee et al. 2025)")
    mfu: float | None = Field(default=None, gt=0, le=1, description="one model FLOPs "
                              "utilisation of the device's peak (default: the compute model "
                              "by the model's shapes, hosts/compute.py)")
    script: str | None = Field(default=None, description="one's own torch.distributed "
                               "training script instead of the strategies, run on every "
                               "worker host as torchrun would (relative to this file)")
    args: list[str] = Field(default_factory=list, description="the script's arguments")
    env: dict[str, str] = Field(default_factory=dict, description="environment variables "
                                "of the script's ranks, besides torchrun's")

    @model_validator(mode="wrap")
    @classmethod
    def _renamed_keys(cls, data, handler, info):
        """An earlier version's keys: refused in a file given to trainet, read in a
        results folder's copy (``batch`` was sequences per replica)."""
        if not isinstance(data, dict) or not RENAMED.keys() & data.keys():
            return handler(data)
        data = dict(data)
        if not (info.context or {}).get("recorded"):
            for old in RENAMED.keys() & data.keys():
                data[old] = UnknownKey(old, "", RENAMED[old])
            return handler(data)
        replica_batch = data.pop("batch", None)
        if "gpus_per_host" in data:
            data.setdefault("gpus_per_node", data.pop("gpus_per_host"))
        workload = handler(data)
        workload._recorded_batch = replica_batch
        return workload

    @property
    def recorded_batch(self) -> int | None:
        """A results folder's copy of an earlier version: its sequences per replica."""
        return self._recorded_batch

    @field_validator("device")
    @classmethod
    def _current_name(cls, value, info):
        recorded = (info.context or {}).get("recorded")     # a results directory's copy
        if value is not None and devices.renamed(value) and not recorded:
            raise ValueError(devices.renamed(value))
        return value

    @field_validator("recompute", mode="before")
    @classmethod
    def _recompute_flag(cls, value):
        """An earlier version's ``recompute: true/false``: full or none."""
        if isinstance(value, bool):
            return "full" if value else "none"
        return value

    @field_validator("device_memory")
    @classmethod
    def _positive(cls, value):
        if value is not None and value <= 0:
            raise ValueError("a device's capacity is a positive size, e.g. 80GiB")
        return value

    @field_validator("args", mode="before")
    @classmethod
    def _texts(cls, value):
        return [str(v) for v in value] if isinstance(value, list) else value

    @field_validator("env", mode="before")
    @classmethod
    def _env_texts(cls, value):
        return {k: str(v) for k, v in value.items()} if isinstance(value, dict) else value

    @model_validator(mode="after")
    def _script_runs_real(self):
        if self.script is None:
            if self.args or self.env:
                raise ValueError("args and env are a script's; give workload.script too")
            return self
        if "mode" in self.model_fields_set and self.mode == "shadow":
            raise ValueError("a script computes for real on this machine: drop mode: shadow")
        fixed = sorted(self.model_fields_set & {"model", "steps", "global_batch",
                                                 "micro_batch_size", "device_memory",
                                                 "gpus_per_node", "recompute"})
        if fixed:
            raise ValueError(f"{', '.join(fixed)}: the script decides these (pass them in "
                             "its args); a script workload takes script, args and env")
        self.mode = "real"
        return self

    @model_validator(mode="after")
    def _shadow_only(self):
        if self.mode == "real" and (self.shadow_model or self.device or self.device_memory
                                    or self.interference is not None
                                    or self.mfu is not None):
            raise ValueError("shadow_model, device, device_memory, interference and mfu "
                             "describe a shadow run; drop them or set mode: shadow")
        return self


class Sweep(Spec):
    """The link variations (``sweep:``): every combination of the lists is one variant,
    run with every strategy on a network brought up for it."""

    bandwidth: list[Rate] | None = Field(default=None, min_length=1, description="nominal "
                                         "rate of every link")
    nic: list[str] | None = Field(default=None, min_length=1, description="NIC profile of "
                                  "every host (`trainet topo profiles`), or as-built: each "
                                  "host its own")
    loss: list[Percent] | None = Field(default=None, min_length=1, description="packet "
                                       "loss of every link, each direction")
    delay: list[Duration] | None = Field(default=None, min_length=1, description="one-way "
                                         "delay of every link")
    nodes: list[Annotated[int, Field(ge=1)]] | None = Field(
        default=None, min_length=1, description="node count of a generated topology "
        "(generator frontier); the workers are every worker host of each")
    gpus_per_node: list[Annotated[int, Field(ge=1)]] | None = Field(
        default=None, min_length=1, description="GPUs sharing one host's memory, CPU and "
        "NVMe: the workload's gpus_per_node, one value per variant")

    @field_validator("nic")
    @classmethod
    def _known_nics(cls, value):
        for name in value or []:
            if name != AS_BUILT and name not in profiles.NIC_PROFILES:
                raise ValueError(f"unknown NIC profile {name!r}; allowed: {AS_BUILT} (each "
                                 f"host's own), {', '.join(profiles.NIC_PROFILES)}")
        return value


class Timeouts(Spec):
    """How long a run may take before it is stopped (``timeouts:``)."""

    bring_up: Duration = Field(default=120.0, description="bringing one variant's network "
                               "up")
    run: Duration = Field(default=600.0, description="one strategy on one variant, every "
                          "repetition")
    start: Duration = Field(default=120.0, description="a script's ranks, until each has "
                            "initialised torch.distributed")


class ClusterSection(Spec):
    """Servers to spread the network over (testbed/net/cluster.py)."""

    servers: list[str] = Field(min_length=1, description="SSH hosts; localhost is this "
                               "machine")
    placement: Literal["switch-bin", "round-robin"] | dict[str, str] = Field(
        default="switch-bin", description="or nodes pinned by name, {s1: localhost, "
        "s2: 10.0.0.2}")
    link: Literal["ssh", "gre"] = Field(default="ssh", description="tunnels between servers")
    user: str | None = Field(default=None, description="SSH login (default: this user)")
    python: str | None = Field(default=None, description="trainet's python on the servers "
                               "(default: the same path as here)")
    root: str | None = Field(default=None, description="trainet's folder on the servers "
                            "(default: the same as here)")


class StrategyEntry(Spec):
    """One strategy to compare: a registered name, its options, and the label of its
    runs (directories and tables; default: the name)."""

    strategy: str = Field(description="a registered strategy (`trainet strategies`)")
    label: str | None = Field(default=None, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$",
                              description="its name in folders and tables (default: the "
                              "strategy's)")
    options: dict = Field(default_factory=dict, description="the strategy's options, e.g. "
                          "{bucket_cap_mb: 4} (`trainet strategies` lists them)")
    run_not_fitting: bool = Field(default=False, description="run it even when its memory "
                                  "footprint exceeds the device")

    @field_validator("strategy")
    @classmethod
    def _registered(cls, value):
        return _registered(value)

    @field_validator("options")
    @classmethod
    def _micro_batch_size(cls, value, info):
        if "micro_batches" in value and not (info.context or {}).get("recorded"):
            raise ValueError("micro_batches (a count) is now workload.micro_batch_size, "
                             "sequences per micro-batch as Megatron-LM's --micro-batch-size: "
                             "micro_batch_size = sequences per replica / micro_batches")
        return value

    @model_validator(mode="after")
    def _valid_options(self):
        try:
            registry.get(self.strategy).parse_options(self.options)
        except TrainetError as e:
            raise ValueError(str(e).split(": ", 1)[1]) from None
        return self

    @property
    def name(self) -> str:
        return self.label or self.strategy


def _registered(name: str) -> str:
    try:
        registry.get(name)
    except TrainetError as e:
        raise ValueError(str(e)) from None
    return name


def _entry(value):
    """A strategy given by name alone stands for ``{strategy: NAME}``."""
    return {"strategy": _registered(value)} if isinstance(value, str) else value


class ExperimentBase(Spec):
    """An experiment file."""

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$", description="names the "
                      "results folder (letters, digits, _ . -)")
    description: str = Field(default="", description="one paragraph, into report.md")
    topology: str | dict = Field(description="a topology file (relative to this file), "
                                 "{generator: {name: star, workers: 4, nic: roce-100g}} or "
                                 "an inline spec (hosts, switches, links)")
    workers: list[str] | None = Field(default=None, min_length=1, description="the worker "
                                      "hosts in rank order (default: the topology's hosts "
                                      "of role worker)")
    workload: Workload = Field(default_factory=Workload, description="see workload below")
    strategies: list[Annotated[StrategyEntry, BeforeValidator(_entry)]] | None = Field(
        default=None, min_length=1, description="names, or entries as below: [ddp, zero3, "
        "{strategy: ddp, label: ddp-4mb, options: {bucket_cap_mb: 4}}]; none with a "
        "workload script")
    sweep: Sweep = Field(default_factory=Sweep, description="see sweep below (default: one "
                         "variant, base)")
    repetitions: int = Field(default=1, ge=1, description="runs of each strategy on each "
                             "variant")
    scale: float | None = Field(default=None, gt=0, le=1, description="co-scaling factor of "
                                "every link rate and tensor volume (default: the topology's)")
    pcap: bool = Field(default=False, description="capture every switch port (trainet "
                       "inspect, report)")
    run_not_fitting: bool = Field(default=False, description="run the strategies whose "
                                  "memory footprint does not fit their device, marked")
    timeouts: Timeouts = Field(default_factory=Timeouts, description="see timeouts below")
    cluster: ClusterSection | None = Field(default=None, description="spread the network "
                                           "over servers; see cluster below")

    @model_validator(mode="after")
    def _strategies_or_script(self):
        if self.workload.script is None and self.strategies is None:
            raise ValueError("give the strategies to compare (strategies: [ddp, zero3]) or "
                             "a training script (workload: {script: train.py})")
        if self.workload.script is not None and self.strategies is not None:
            raise ValueError("a script workload runs the script on every worker; drop "
                             "strategies (compare strategies in an experiment of their own)")
        return self

    @field_validator("strategies")
    @classmethod
    def _unique(cls, value):
        if value is None:
            return value
        labels = [e.name for e in value]
        if len(set(labels)) != len(labels):
            raise ValueError(f"{labels}: each strategy once; give a second one a label: "
                             "{strategy: NAME, label: OTHER, options: {...}}")
        return value


# The switch jobs' sections (ina, luwu, ...) are those the registered strategies declare.
Experiment = create_model(
    "Experiment", __base__=ExperimentBase,
    **{section: (registry.JobSpec, Field(default_factory=registry.JobSpec,
                                         description="the switch job of the strategies that "
                                         "need one; see job sections below"))
       for section in sorted(registry.job_sections())})


@dataclass
class ResolvedStrategy:
    """A strategy of the experiment, ready to run: its registration, its options as
    worker flags, its switch job (as its controller reads it, plus ``switch``) and the
    host of its service."""

    label: str
    info: registry.StrategyInfo | None      # None: the workload's script
    options: dict
    job: dict | None = None
    service_host: str | None = None
    tiers: dict | None = None           # group kind -> label per worker (StrategyInfo.tiers)
    run_not_fitting: bool = False
    script: Path | None = None          # a script workload's script, absolute

    @property
    def name(self) -> str:
        """The registered strategy's name, or ``script``."""
        return self.info.name if self.info is not None else "script"


AS_BUILT = "as-built"      # a NIC sweep value: every host keeps the NIC its topology gives


@dataclass(frozen=True)
class Variant:
    """One point of the sweep: a name for directories and tables, and the overrides."""

    name: str
    bandwidth_bps: float | None = None
    nic: str | None = None
    loss_pct: float | None = None
    delay_s: float | None = None
    nodes: int | None = None
    gpus_per_node: int | None = None

    def overrides(self) -> dict:
        return {k: v for k, v in (("bandwidth_bps", self.bandwidth_bps), ("nic", self.nic),
                                  ("loss_pct", self.loss_pct), ("delay_s", self.delay_s),
                                  ("nodes", self.nodes), ("gpus_per_node", self.gpus_per_node))
                if v is not None}

    def apply(self, topology: Topology) -> Topology:
        """The topology with this variant's NIC on every host and its link values on every
        link (they win over profiles and NICs)."""
        data = topology.model_dump(mode="json")
        for host in data["hosts"]:
            if self.nic not in (None, AS_BUILT):
                host["nic"] = self.nic
                host.pop("bw", None)
        for link in data["links"]:
            if self.bandwidth_bps is not None:
                link["bw"] = rate_text(self.bandwidth_bps)
            if self.loss_pct is not None:
                link["loss"] = self.loss_pct
            if self.delay_s is not None:
                link["delay"] = duration_text(self.delay_s)
        return Topology.from_data(data)


@dataclass
class ResolvedExperiment:
    """A validated experiment: its spec, where it came from, the base topology."""

    spec: Experiment
    source: str
    topology: Topology
    workers: list[str]
    strategies: list[ResolvedStrategy]
    marks: dict = field(default_factory=dict)     # field path -> (line, column) in source

    @property
    def scale(self) -> float:
        return self.topology.scale

    def strategy(self, label: str) -> ResolvedStrategy:
        return next(s for s in self.strategies if s.label == label)

    def base_topology(self, variant: Variant) -> Topology:
        """The topology a variant starts from: the generator's again with its node count
        when the sweep varies it."""
        if variant.nodes is None:
            return self.topology
        return _topology(self.spec, Path(self.source).resolve().parent, variant.nodes)

    def workers_of(self, variant: Variant) -> list[str]:
        return self.workers if variant.nodes is None else \
            _workers(self.spec, self.base_topology(variant))

    def devices_of(self, variant: Variant) -> list[str]:
        """Each worker's device profile on the variant's fabric, in rank order: its
        host's, else the workload's, else hosts.worker's default."""
        hosts = {h.name: h for h in self.base_topology(variant).hosts}
        default = self.spec.workload.device or devices.DEFAULT
        return [hosts[w].device or default for w in self.workers_of(variant)]

    def device_flag(self, variant: Variant | None) -> str:
        """hosts.worker's ``--device``: one profile when every worker has the same, else
        one per rank, comma-separated."""
        names = self.devices_of(variant or Variant("base"))
        return names[0] if len(set(names)) == 1 else ",".join(names)

    def gpus_per_node_of(self, variant: Variant | None) -> int | None:
        """GPUs sharing a node in the variant: the sweep's value, else the workload's."""
        if variant is not None and variant.gpus_per_node is not None:
            return variant.gpus_per_node
        return self.spec.workload.gpus_per_node

    def tiers_of(self, strategy: ResolvedStrategy, variant: Variant) -> dict | None:
        """Each worker's tier labels on the variant's fabric (its node count and NICs)."""
        if (variant.nodes is None and variant.nic is None) or strategy.info is None \
                or not strategy.info.tiers:
            return strategy.tiers
        return _tiers(strategy.info, (), variant.apply(self.base_topology(variant)),
                      self.workers_of(variant), strategy.options)

    def batch_of(self, strategy: ResolvedStrategy, variant: Variant | None = None) -> Batch:
        """The strategy's global and per-replica batch on the variant's workers, and its
        options with the workload's micro-batching (testbed/experiment/batch.py)."""
        from hosts.collectives.hierarchy import Layout
        variant = variant or Variant("base")
        workers = len(self.workers_of(variant))
        tiers = self.tiers_of(strategy, variant)
        sizes = Layout.of(0, workers, tiers, strategy.info.tiers,
                          strategy.info.name).sizes if tiers else None
        w = self.spec.workload
        return resolve_batch(strategy.info, strategy.options, workers, w.global_batch,
                             w.micro_batch_size, sizes, w.recorded_batch)

    def variants(self) -> list[Variant]:
        axes = [(key, values) for key, values in (
            ("bandwidth", self.spec.sweep.bandwidth), ("nic", self.spec.sweep.nic),
            ("loss", self.spec.sweep.loss), ("delay", self.spec.sweep.delay),
            ("nodes", self.spec.sweep.nodes), ("gpus_per_node", self.spec.sweep.gpus_per_node))
            if values]
        if not axes:
            return [Variant("base")]
        out = []
        for combo in itertools.product(*(values for _, values in axes)):
            picked = dict(zip((key for key, _ in axes), combo))
            parts = []
            for key, value in picked.items():
                text = {"bandwidth": rate_text, "delay": duration_text}.get(key, str)(value)
                parts.append(f"{key.replace('_', '-')}-{text}" if key != "loss"
                             else f"loss-{value:g}pct")
            out.append(Variant("_".join(parts), bandwidth_bps=picked.get("bandwidth"),
                               nic=picked.get("nic"), loss_pct=picked.get("loss"),
                               delay_s=picked.get("delay"), nodes=picked.get("nodes"),
                               gpus_per_node=picked.get("gpus_per_node")))
        return out


def load_experiment(path: str | Path, recorded: bool = False) -> ResolvedExperiment:
    """``recorded``: a results folder's copy, in which an earlier version's keys are
    read rather than refused."""
    path = Path(path)
    data, marks = read_spec(path, "experiment")
    if not isinstance(data, dict):
        raise TopologyError([Issue((), "an experiment file is a mapping with name, topology, "
                                   "workload and strategies")], str(path))
    try:
        spec = Experiment.model_validate(data, context={"recorded": recorded})
        topology = _topology(spec, path.resolve().parent)
        workers = _workers(spec, topology)
        _check_devices(spec, topology, workers)
        strategies = [_script_strategy(spec, path.resolve().parent)] if spec.workload.script \
            else [_resolved_strategy(spec, i, topology, workers)
                  for i in range(len(spec.strategies))]
        _check_node_sweep(spec, path.resolve().parent, strategies)
        _check_placement(spec, topology)
        experiment = ResolvedExperiment(spec, str(path), topology, workers, strategies, marks)
        _check_batches(experiment)
    except ValidationError as e:
        raise from_validation(e).located(str(path), marks) from None
    except TopologyError as e:
        if e.source:                   # located already, in the topology's own file
            raise
        raise e.located(str(path), marks) from None
    return experiment


def _check_batches(experiment: ResolvedExperiment) -> None:
    """global_batch and micro_batch_size fit every strategy on every worker count."""
    variants = {v.nodes: v for v in experiment.variants()}.values()
    for index, strategy in enumerate(experiment.strategies):
        if strategy.info is None:
            continue
        for variant in variants:
            try:
                experiment.batch_of(strategy, variant)
            except BatchError as e:
                at = ("strategies", index, "options", e.key) if e.option else ("workload", e.key)
                raise TopologyError([Issue(at, str(e))]) from None


def _script_strategy(spec, base_dir: Path) -> ResolvedStrategy:
    """The script workload as the experiment's one "strategy", labelled by its file."""
    given = spec.workload.script
    script = Path(given) if Path(given).is_absolute() else base_dir / given
    if not script.is_file():
        raise TopologyError([Issue(("workload", "script"), f"script {given!r} not found; "
                                   f"give a path relative to {base_dir} or an absolute one")])
    label = re.sub(r"[^A-Za-z0-9_.-]", "-", script.stem) or "script"
    return ResolvedStrategy(label, None, {}, script=script.resolve())


def _topology(spec: Experiment, base_dir: Path, nodes: int | None = None) -> Topology:
    ref = spec.topology
    if nodes is not None:
        ref = {**ref, "generator": {**ref["generator"], "nodes": nodes}}
    if isinstance(ref, str):
        file = Path(ref) if Path(ref).is_absolute() else base_dir / ref
        if not file.is_file():
            raise TopologyError([Issue(("topology",), f"topology file {ref!r} not found; give "
                                       f"a path relative to {base_dir} or an absolute one")])
        topology = load_topology(file)
    else:
        data = dict(ref)
        try:
            if "generator" in data:
                data = expand_generator(data)
            topology = Topology.from_data(data, base_dir=base_dir)
        except TopologyError as e:
            raise TopologyError([Issue(("topology",) + i.path, i.message)
                                 for i in e.issues]) from None
    if spec.scale is not None:
        topology = Topology.from_data({**topology.model_dump(mode="json"), "scale": spec.scale})
    return topology


def _check_devices(spec: Experiment, topology: Topology, workers: list[str]) -> None:
    """The worker hosts' devices are known profiles, and only in shadow mode (a real
    run computes on this machine)."""
    for host in (topology.host(w) for w in workers):
        if host.device is None:
            continue
        if devices.renamed(host.device):
            raise TopologyError([Issue(("topology",), f"worker host {host.name}: "
                                       f"{devices.renamed(host.device)}")])
        if spec.workload.mode == "real":
            raise TopologyError([Issue(("topology",), f"worker host {host.name} names device "
                                       f"{host.device!r}, but a real run computes on this "
                                       "machine; drop the hosts' devices or set workload "
                                       "mode: shadow")])
        try:
            devices.device(host.device)
        except TrainetError as e:
            raise TopologyError([Issue(("topology",), f"worker host {host.name}: device "
                                       f"{host.device!r} is unknown; "
                                       f"{str(e).split(': ', 1)[-1]}")]) from None


def _check_placement(spec: Experiment, topology: Topology) -> None:
    """A placement by name names nodes of the topology and servers of the cluster."""
    if spec.cluster is None or not isinstance(spec.cluster.placement, dict):
        return
    nodes = [n.name for n in topology.hosts] + [n.name for n in topology.switches]
    for node, server in spec.cluster.placement.items():
        at = ("cluster", "placement", node)
        if node not in nodes:
            raise TopologyError([Issue(at, f"{node!r} is not a node of the topology; its "
                                       f"nodes: {', '.join(nodes)}")])
        if server not in spec.cluster.servers:
            raise TopologyError([Issue(at, f"server {server!r} is not in cluster.servers "
                                       f"({', '.join(spec.cluster.servers)})")])


def _workers(spec: Experiment, topology: Topology) -> list[str]:
    hosts = {h.name: h for h in topology.hosts}
    if spec.workers is None:
        names = [h.name for h in topology.hosts if h.role == "worker"]
        if not names:
            raise TopologyError([Issue(("topology",), "the topology has no host of role "
                                       "worker; give the worker hosts in workers: [...]")])
        return names
    for i, name in enumerate(spec.workers):
        if name not in hosts:
            raise TopologyError([Issue(("workers", i), f"{name!r} is not a host of the "
                                       f"topology; hosts: {', '.join(hosts)}")])
    if len(set(spec.workers)) != len(spec.workers):
        raise TopologyError([Issue(("workers",), "each worker host once")])
    return list(spec.workers)


def _resolved_strategy(spec, index: int, topology: Topology,
                       workers: list[str]) -> ResolvedStrategy:
    entry = spec.strategies[index]
    info = registry.get(entry.strategy)
    at = ("strategies", index)
    if spec.workload.mode not in info.modes:
        raise TopologyError([Issue(at, f"strategy {info.name} has no {spec.workload.mode} "
                                   f"mode; it runs in {' and '.join(info.modes)} mode")])
    parsed = info.parse_options(entry.options)
    try:
        info.recompute_of(parsed, spec.workload.recompute, spec.workload.mode)
    except TrainetError as e:              # at the entry's option, else the workload's
        where = at + ("options", "recompute") if "recompute" in parsed.model_fields_set \
            else ("workload", "recompute")
        raise TopologyError([Issue(where, str(e))]) from None
    options = parsed.model_dump(exclude_unset=True)
    job = host = None
    if info.switch_job:
        section = info.switch_job.section
        job = _aggregation_job(info.name, section, getattr(spec, section), topology, workers)
        job["lane_bits"] = getattr(spec, section).lane_bits or info.switch_job.lane_bits
        if getattr(spec, section).lanes is not None:      # else the controller's default
            job["lanes"] = getattr(spec, section).lanes
    if info.service:
        host = _service_host(info, at, topology, workers, job)
    tiers = _tiers(info, at, topology, workers, options) if info.tiers else None
    return ResolvedStrategy(entry.name, info, options, job, host, tiers,
                            entry.run_not_fitting or spec.run_not_fitting)


_GROUP_GENERATORS = {"gpu": "frontier", "node": "frontier", "cluster": "multi-cluster"}


def _tiers(info, at: tuple, topology: Topology, workers: list[str], options: dict) -> dict:
    """Each worker's label of every group kind the strategy places partitions by, checked
    against the strategy (groups of equal size, consecutive; options that fit them)."""
    from hosts.collectives.hierarchy import Layout
    hosts = {h.name: h for h in topology.hosts}
    tiers = {}
    for kind in info.tiers:
        if kind == "nic":                         # the host's NIC profile, not a group
            bare = [w for w in workers if hosts[w].nic is None]
            if bare:
                raise TopologyError([Issue(at, f"strategy {info.name} places groups by NIC; "
                                           f"worker {bare[0]} has no nic: give every worker "
                                           "a nic profile (trainet profiles lists them)")])
            tiers[kind] = [hosts[w].nic for w in workers]
            continue
        missing = [w for w in workers if kind not in hosts[w].groups]
        if missing:
            raise TopologyError([Issue(at, f"strategy {info.name} places its partitions by "
                                       f"host group {kind}; worker {missing[0]} has none: "
                                       f"use a generator that sets it ({_GROUP_GENERATORS[kind]}) "
                                       f"or give every worker host groups: {{{kind}: NAME}}")])
        tiers[kind] = [hosts[w].groups[kind] for w in workers]
    try:
        layout = Layout.of(0, len(workers), tiers, info.tiers, info.name)
        info.collectives(1.0, len(workers), None, options=info.parse_options(options),
                         sizes=layout.sizes)
    except TrainetError as e:
        raise TopologyError([Issue(at, str(e))]) from None
    return tiers


def _check_node_sweep(spec, base_dir: Path, strategies: list[ResolvedStrategy]) -> None:
    """A node sweep needs a generator with nodes and no fixed worker list; every node
    count must suit every strategy."""
    if not spec.sweep.nodes:
        return
    ref = spec.topology
    if not (isinstance(ref, dict) and "generator" in ref
            and "nodes" in _generator_parameters(ref["generator"])):
        raise TopologyError([Issue(("sweep", "nodes"), "a node sweep regenerates the "
                                   "topology: give topology: {generator: {name: frontier, "
                                   "...}}")])
    if spec.workers is not None:
        raise TopologyError([Issue(("workers",), "with a node sweep the workers are every "
                                   "worker host of each node count; drop workers")])
    for n in spec.sweep.nodes:
        topology = _topology(spec, base_dir, n)
        workers = _workers(spec, topology)
        for i, s in enumerate(strategies):
            if s.info is not None and s.info.tiers:
                _tiers(s.info, ("strategies", i), topology, workers, s.options)


def _generator_parameters(generator) -> list[str]:
    import inspect

    from testbed.topology.generators import GENERATORS
    function = GENERATORS.get(generator.get("name")) if isinstance(generator, dict) else None
    return list(inspect.signature(function).parameters) if function else []


def _service_host(info, at: tuple, topology: Topology, workers: list[str],
                  job: dict | None) -> str:
    """The topology's first host of the service's role that is not a worker; when the
    job names the service, it must be linked to the job's switch."""
    role = info.service.role
    hosts = [h for h in topology.hosts if h.role == role and h.name not in workers]
    if not hosts:
        raise TopologyError([Issue(at, f"strategy {info.name} needs a host of role {role} "
                                   f"that is not a worker; e.g. generator: {{name: star, "
                                   f"{role}s: 1}}")])
    host = hosts[0]
    key = info.service.job_key
    if key and job is not None:
        if host.name not in _ports_on(topology, job["switch"]):
            raise TopologyError([Issue((info.switch_job.section, "switch"),
                                       f"{role} host {host.name} is not linked to "
                                       f"{job['switch']}; link it to the switch the workers "
                                       "are attached to")])
        job[key] = {"ip": str(host.ip.ip)}
    return host.name


def _ports_on(topology: Topology, switch: str) -> dict[str, int]:
    """Host name -> its port on ``switch``, for hosts linked to it directly."""
    port_of = {}
    for link in topology.links:
        a, b = topology.endpoints(link)
        for host, sw in ((a, b), (b, a)):
            if host.port is None and sw.node == switch:
                port_of[host.node] = sw.port
    return port_of


def _aggregation_job(strategy: str, section: str, job: registry.JobSpec, topology: Topology,
                     workers: list[str]) -> dict:
    """Worker ``rank`` of the job is the rank-th worker host, on its port of the switch."""
    switches = [s.name for s in topology.switches]
    name = job.switch
    if name is None:
        if len(switches) != 1:
            raise TopologyError([Issue((section,), "the topology has several switches; name "
                                       f"the one that aggregates in {strategy}: "
                                       "{switch: NAME}")])
        name = switches[0]
    elif name not in switches:
        raise TopologyError([Issue((section, "switch"), f"{name!r} is not a switch of the "
                                   f"topology; switches: {', '.join(switches)}")])
    port_of = _ports_on(topology, name)
    job_workers = []
    for rank, host_name in enumerate(workers):
        if host_name not in port_of:
            raise TopologyError([Issue((section, "switch"), f"worker {host_name} is not "
                                       f"linked to {name}; strategy {strategy} aggregates on "
                                       "one switch that every worker is attached to")])
        host = topology.host(host_name)
        if host.mac is None:
            raise TopologyError([Issue(("topology",), f"strategy {strategy} needs the mac of "
                                       f"worker {host_name}; give every worker host a mac")])
        job_workers.append({"worker_id": rank, "port": port_of[host_name], "mac": host.mac,
                            "ip": str(host.ip.ip)})
    return {"switch": name, "job_id": job.job, "aggregator_ip": str(job.aggregator),
            "slot_count": job.slots, "workers": job_workers}


def check_presets(experiment: ResolvedExperiment) -> None:
    """The shadow model and device presets exist (hosts.shadow knows them; it imports
    torch, so this runs before a run rather than on every load)."""
    from hosts import shadow
    from testbed.errors import TrainetError
    w = experiment.spec.workload
    for name, value, check in (("shadow_model", w.shadow_model, shadow.shadow_model),
                               ("device", w.device, shadow.device)):
        if value is None:
            continue
        try:
            check(value)
        except TrainetError as e:
            message = f"{value!r} is unknown; {str(e).split(': ', 1)[-1]}"
            raise TopologyError([Issue(("workload", name), message)]).located(
                experiment.source, experiment.marks) from None
