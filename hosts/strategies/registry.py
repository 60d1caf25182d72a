"""The one registry of training strategies: everything else asks it.

Each strategy is one module of this package that ends with a :func:`register` call
declaring, in one place, its name and description, its real and shadow implementations,
its communication pattern per step (:mod:`hosts.collectives.pattern`), its memory per
worker, the options it accepts and what it needs on the fabric besides its workers (a
switch job, a service on a host of its own, a gloo process group). The worker, the
shadow model, the experiment spec, the launcher, the runner and the comparison tables
read these declarations; none of them names a strategy.

Strategies outside this package register the same way: name their modules in
``TRAINET_STRATEGY_MODULES`` (import paths, separated by ``:``), which the launched
workers inherit.
"""
from __future__ import annotations

import importlib
import inspect
import ipaddress
import os
import pkgutil
import threading
from dataclasses import dataclass, field
from typing import Annotated, Callable, Literal

from pydantic import BeforeValidator, Field, ValidationError

from hosts.collectives.pattern import Collective, busiest_link, per_worker
from hosts.collectives.timing import Timing, default_timing
from hosts.compute import RECOMPUTE
from hosts.strategies.base import Memory, micro_batch_count
from testbed.errors import TrainetError
from testbed.proto import ina
from testbed.topology.specfile import Spec
from testbed.units import parse_size

MODULES_ENV = "TRAINET_STRATEGY_MODULES"

Size = Annotated[int, BeforeValidator(parse_size)]


class Options(Spec):
    """The options a strategy accepts (none by default): a pydantic model whose fields
    have defaults and a ``description``; experiment files and the worker's command line
    give them by field name."""


class AccumulationOptions(Options):
    """Gradient accumulation of the data-parallel strategies: each step's batch in
    micro-batches of ``micro_batch_size`` sequences (DeepSpeed's
    train_micro_batch_size_per_gpu; the count is its gradient_accumulation_steps), their
    gradients added up and the optimizer stepped once; an experiment's
    ``workload.micro_batch_size`` fills it in."""

    micro_batch_size: int | None = Field(
        default=None, ge=1, description="sequences per micro-batch; the step accumulates "
        "the gradients of per-replica batch / micro_batch_size micro-batches (DeepSpeed's "
        "gradient_accumulation_steps) and steps the optimizer once (default: the whole "
        "per-replica batch, one micro-batch)")

    def accumulation_steps(self, batch: int, strategy: str) -> int:
        """Micro-batches per step of a ``batch`` of sequences per replica, checked."""
        return micro_batch_count(batch, self.micro_batch_size, strategy)


class JobSpec(Spec):
    """An aggregation job on a switch, as an experiment file gives it: before each run
    of a strategy that needs one, the runner sets it up on ``switch`` with the workers
    in rank order and tears it down after, so every run starts from clean slots."""

    switch: str | None = Field(default=None, description="default: the topology's only switch")
    aggregator: ipaddress.IPv4Address = Field(default=ipaddress.IPv4Address("10.0.255.1"),
                                              description="the switch's aggregator address")
    job: int = Field(default=1, ge=0, le=255, description="job id")
    slots: int = Field(default=32, ge=1, le=1024, description="aggregation slots")
    lane_bits: Literal[16, 32] | None = Field(
        default=None, description="the narrowest lanes the workers send: 16 (bf16/fp16 "
        "gradients in 16-bit lanes, where the program has them) or 32; default: the "
        "strategy's")
    lanes: int | None = Field(
        default=None, ge=ina.GROUP_WORDS, le=ina.MAX_LANES, multiple_of=ina.GROUP_WORDS,
        description="32-bit lane words per full packet, the switch program's, in whole "
        "32-word groups (python -m testbed.proto.ina_p4 --mtu M renders p4/ina.p4 for a "
        "link's MTU; a tensor's last packet carries only the groups it needs); default: "
        "p4/ina.p4's 256")


@dataclass(frozen=True)
class SwitchJob:
    """The strategy's workers talk to a job on a switch. ``section`` is the experiment
    file's key for the job (strategies that share a program share it); ``controller`` is
    the module that sets jobs up and tears them down (``setup``, ``teardown``,
    ``job_from_dict``); ``program`` the P4 program the switch must run; ``lane_bits``
    the narrowest lanes its workers send unless the experiment file says. ``setup``,
    where the controller needs more than the job's section gives, is called with the
    section's job fields (a dict), the strategy's parsed options and the workers'
    ``hosts.worker`` options, and returns the job's fields with the rest filled in and
    the arguments the controller's ``setup`` takes after the job."""

    section: str
    controller: str
    program: str
    lane_bits: int = 32
    setup: Callable[[dict, Options, dict], tuple[dict, tuple]] | None = None


@dataclass(frozen=True)
class Service:
    """A program the strategy needs on a host of role ``role`` besides the workers:
    ``python -m MODULE`` with the options ``options(context)`` returns (see
    :class:`ServiceContext`). With ``job_key`` the host must be linked to the switch of
    the strategy's job, and the job names its address under that key; with
    ``port_offset`` it listens on the launch's port plus that offset and the workers get
    its ADDR:PORT as ``--service``."""

    role: str
    label: str
    module: str
    options: Callable[["ServiceContext"], dict]
    job_key: str | None = None
    port_offset: int | None = None


@dataclass(frozen=True)
class ServiceContext:
    info: "StrategyInfo"
    workers: int
    worker_args: dict           # the workers' hosts.worker options ({"model": "gpt", ...})
    address: str                # the service host's address
    port: int | None            # where it listens (Service.port_offset)
    out_dir: object             # the run's results directory
    timeout_s: float


@dataclass(frozen=True)
class JobRef:
    """The switch job a worker talks to."""

    aggregator: str
    job: int
    slots: int
    lane_bits: int = 32
    lanes: int = 256              # 32-bit lane words per packet (testbed.proto.ina.LANES)


@dataclass
class Context:
    """What a strategy is built from on one rank."""

    comm: object
    info: "StrategyInfo"
    options: Options
    lr: float = 1e-3
    timeout_s: float = 30.0
    job: JobRef | None = None           # strategies with a switch job
    service: str | None = None          # ADDR:PORT of the strategy's service
    target: object = None               # shadow mode: the ShadowModel a rank stands for
    device: object = None               # shadow mode: the Device whose compute is modeled
    batch: int = 8
    scale: float = 1.0
    mfu: float | None = None            # None: hosts/compute.py's shape-aware model
    tiers: dict | None = None           # group kind -> each rank's label (StrategyInfo.tiers)
    gpus_per_host: int | None = None    # GPUs sharing a host (default: the host profile's)
    cpu_adam_rate: float | None = None  # Adam parameters/s of one core here (measured)
    interference: float | None = None   # compute slowdown under GPU collectives (shadow)
    recompute: str = "none"             # activation recompute the rank runs (recompute_of)


@dataclass(frozen=True)
class LayoutChoice:
    """One layout of a strategy: its options with every degree filled in (as
    ``layouts`` lists them), its name in tables (``4x1x1x4``, ``tp4 x dp2``) and the form
    such names take (``G_r x G_c x G_d x G_data``, ``TP x DP``)."""

    options: dict
    text: str
    form: str


@dataclass(frozen=True)
class StrategyInfo:
    """A strategy's declaration. ``pattern(model_bytes, world, layers)`` lists its
    collectives per step and ``memory(params, world, layers)`` its training state per
    worker, both for a target model in nominal bytes (``layers`` may be None; a
    strategy that needs it says so); either may take keywords ``options`` (the parsed
    options) and ``sizes`` (ranks per group of each kind in ``tiers``), the pattern also
    ``model`` (the shadow target) and ``batch`` (samples per worker or replica, for
    activation volumes), and gets them when they are known. ``real(context)`` and ``shadow(context)`` build the rank's
    :class:`~hosts.strategies.base.Strategy`. ``tiers`` are the host group kinds
    (``gpu``, ``node``) the strategy places its partitions by: the runner passes each
    rank's (hosts/collectives/hierarchy.py). ``timing(world)`` says how a step spends
    its time (hosts/collectives/timing.py: replicas, group placement, overlap, pipeline),
    for the analytical model; it takes the same keywords as the pattern and ``device``.
    ``layouts(world)`` lists the options worth trying when the model searches for the
    best layout (keywords ``model``, ``batch``: the global batch, ``sizes``, and
    ``every``: every valid layout, not only those the strategy's own search tries); None:
    the default options only, an empty list: leave the strategy out of searches.
    ``layout(world, options)`` is the :class:`LayoutChoice` the options give on ``world``
    ranks, for strategies whose options choose a layout.

    A declared function takes the positional arguments above and any of its keywords;
    one that takes another parameter (a misspelt keyword would never be given) is an
    error at registration."""

    name: str
    description: str
    real: Callable[[Context], object] | None
    shadow: Callable[[Context], object] | None
    pattern: Callable[[float, int, int | None], list[Collective]]
    memory: Callable[[float, int, int | None], Memory]
    options: type[Options] = Options
    gloo: bool = True
    switch_job: SwitchJob | None = None
    service: Service | None = None
    tiers: tuple[str, ...] = ()
    timing: Callable[..., Timing] = default_timing
    layouts: Callable[..., list[dict]] | None = None
    layout: Callable[[int, Options], LayoutChoice] | None = None
    # the activation recomputes its ranks run, per mode: a shadow rank sleeps its
    # recompute (hosts/compute.py), a real one must really rebuild the activations
    recomputes: dict = field(default_factory=lambda: {"shadow": RECOMPUTE, "real": ("none",)})

    @property
    def modes(self) -> tuple[str, ...]:
        return tuple(m for m, f in (("real", self.real), ("shadow", self.shadow)) if f)

    def parse_options(self, values: dict | None, where: str = "options") -> Options:
        try:
            return self.options.model_validate(values or {})
        except ValidationError as err:
            first = err.errors()[0]
            at = ".".join(str(p) for p in first["loc"])
            message = first["msg"].removeprefix("Value error, ")
            if first["type"] == "literal_error":        # the value given beside the choices
                message += f" (got {first['input']!r})"
            if first["type"] == "extra_forbidden":
                message = f"it takes no option {first['loc'][-1]!r}"
                at = ""
            raise TrainetError(f"{where}: strategy {self.name}: "
                               f"{at + ': ' if at else ''}{message}; its options: "
                               f"{option_text(self) or 'none'}") from None

    def recompute_of(self, options: Options | None, workload: str = "none",
                     mode: str = "shadow") -> str:
        """The activation recompute the strategy's ranks run, for their compute and their
        memory alike: its own ``recompute`` option when given, else the workload's;
        an error where its ranks in ``mode`` cannot run it."""
        own = options is not None and "recompute" in options.model_fields_set
        chosen = options.recompute if own else workload
        if chosen not in RECOMPUTE:
            raise TrainetError(f"recompute {chosen!r}: choose one of {', '.join(RECOMPUTE)}")
        runs = self.recomputes.get(mode, ("none",))
        if chosen not in runs:
            where = "its option recompute" if own else "the workload's recompute"
            raise TrainetError(f"strategy {self.name}: {where} is {chosen!r}, which its "
                               f"{mode}-mode ranks do not run; they run recompute "
                               f"{' or '.join(runs)}" + (" (a shadow run sleeps any)"
                                                        if mode == "real" else ""))
        return chosen

    def build(self, mode: str, context: Context):
        factory = self.real if mode == "real" else self.shadow
        if factory is None:
            raise TrainetError(f"strategy {self.name} has no {mode} mode; it runs in "
                               f"{' and '.join(self.modes)} mode")
        return factory(context)

    def collectives(self, model_bytes: float, world: int, layers: int | None = None,
                    options: Options | None = None, sizes: dict | None = None,
                    model=None, batch: int | None = None) -> list[Collective]:
        return _call(self.pattern, "pattern", model_bytes, world, layers, options=options,
                     sizes=sizes, model=model, batch=batch)

    def step_timing(self, world: int, options: Options | None = None,
                    sizes: dict | None = None, model=None, batch: int | None = None,
                    device=None) -> Timing:
        return _call(self.timing, "timing", world, options=options, sizes=sizes, model=model,
                     batch=batch, device=device)

    def candidate_options(self, world: int, model=None, batch: int | None = None,
                          sizes: dict | None = None, every: bool = False) -> list[dict]:
        """The layouts a search tries; ``every``: every valid layout the strategy
        declares (none when it declares no layouts)."""
        if self.layouts is None:
            return [] if every else [{}]
        return _call(self.layouts, "layouts", world, model=model, batch=batch, sizes=sizes,
                     every=every)

    def layout_of(self, world: int, options: Options) -> LayoutChoice:
        if self.layout is None:
            with_layouts = [s.name for s in strategies() if s.layout is not None]
            raise TrainetError(f"strategy {self.name}: its options choose no layout; those "
                               f"of {', '.join(with_layouts)} do")
        return _call(self.layout, "layout", world, options)

    def nominal_memory(self, params: float, world: int, layers: int | None = None,
                       options: Options | None = None, sizes: dict | None = None,
                       model=None) -> Memory:
        return _call(self.memory, "memory", params, world, layers, options=options,
                     sizes=sizes, model=model)

    def volume_bytes(self, model_bytes: float, world: int, layers: int | None = None,
                     **given) -> tuple[float, float]:
        """(sent, received) nominal bytes per worker and step."""
        return per_worker(self.collectives(model_bytes, world, layers, **given), world)

    def busiest_link_bytes(self, model_bytes: float, world: int,
                           layers: int | None = None, **given) -> float:
        return busiest_link(self.collectives(model_bytes, world, layers, **given), world)


# per declared function: (its positional arguments, the keywords it may take)
DECLARED = {
    "pattern": (("model_bytes", "world", "layers"), ("options", "sizes", "model", "batch")),
    "memory": (("params", "world", "layers"), ("options", "sizes", "model")),
    "timing": (("world",), ("options", "sizes", "model", "batch", "device")),
    "layouts": (("world",), ("model", "batch", "sizes", "every")),
    "layout": (("world", "options"), ()),
}


def _call(fn, kind: str, *args, **given):
    """``fn(*args)`` with those of ``given`` that are known and that it takes."""
    assert set(given) <= set(DECLARED[kind][1]), f"{kind} is declared without {set(given)}"
    takes = inspect.signature(fn).parameters
    return fn(*args, **{k: v for k, v in given.items() if v is not None and k in takes})


def _check_declared(info: StrategyInfo) -> None:
    """Each declared function can be called as the registry calls it: its positional
    arguments, then only keywords it may be given, each with a default (it is given
    only when known)."""
    for kind, (positional, keywords) in DECLARED.items():
        fn = getattr(info, kind)
        if fn is None or (kind == "timing" and fn is default_timing):
            continue
        params = list(inspect.signature(fn).parameters.values())
        if any(p.kind is p.VAR_POSITIONAL for p in params):
            continue
        slots = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        where = f"strategy {info.name}: its {kind} declaration"
        if len(slots) < len(positional):
            raise TrainetError(f"{where} takes {len(slots)} positional arguments; the "
                               f"registry passes {len(positional)} ({', '.join(positional)})")
        for p in params[len(positional):]:
            if p.kind is p.VAR_KEYWORD:
                continue
            if p.name not in keywords:
                raise TrainetError(f"{where} takes {p.name!r}, which it is never given; it "
                                   f"may take {', '.join(keywords) or 'no keywords'}")
            if p.default is p.empty:
                raise TrainetError(f"{where} requires {p.name!r}, which it is given only "
                                   "when known; give it a default")


_REGISTRY: dict[str, StrategyInfo] = {}
_loaded = False
_loading = threading.RLock()      # ranks run as threads may ask at the same time


def register(info: StrategyInfo) -> StrategyInfo:
    """Add a strategy; a second strategy of the same name, or a declared function the
    registry cannot call as declared, is an error."""
    _check_declared(info)
    old = _REGISTRY.get(info.name)
    if old is not None and old is not info:
        raise TrainetError(f"strategy {info.name!r} is registered twice; rename one")
    _REGISTRY[info.name] = info
    return info


def _load() -> None:
    """Import this package's strategy modules and those named in the environment."""
    global _loaded
    with _loading:
        if _loaded:
            return
        _loaded = True
        package = importlib.import_module("hosts.strategies")
        for module in pkgutil.iter_modules(package.__path__):
            importlib.import_module(f"hosts.strategies.{module.name}")
        for name in filter(None, os.environ.get(MODULES_ENV, "").split(":")):
            try:
                importlib.import_module(name)
            except ImportError as err:
                raise TrainetError(f"{MODULES_ENV}: cannot import strategy module "
                                   f"{name!r}: {err}; give importable module paths "
                                   "separated by ':'") from None


def names() -> list[str]:
    """The registered names, sorted (import order varies with who asked first)."""
    _load()
    return sorted(_REGISTRY)


def strategies() -> list[StrategyInfo]:
    return [_REGISTRY[name] for name in names()]


def get(name: str) -> StrategyInfo:
    _load()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise TrainetError(f"unknown strategy {name!r}; registered: "
                           f"{', '.join(names())}") from None


def job_sections() -> set[str]:
    """The experiment sections of the registered strategies' switch jobs."""
    return {s.switch_job.section for s in strategies() if s.switch_job}


def option_text(info: StrategyInfo) -> str:
    parts = []
    for name, f in info.options.model_fields.items():
        default = "" if f.default is None else f"={f.default}"
        parts.append(f"{name}{default}" + (f" ({f.description})" if f.description else ""))
    return ", ".join(parts)


def needs_text(info: StrategyInfo) -> str:
    needs = []
    if info.switch_job:
        needs.append(f"switch job ({info.switch_job.program}, section "
                     f"{info.switch_job.section})")
    if info.service:
        needs.append(f"{info.service.label} on a host of role {info.service.role}")
    if info.gloo:
        needs.append("gloo between workers")
    return ", ".join(needs)


def as_dict(info: StrategyInfo) -> dict:
    """A strategy's registration as ``trainet strategies --json`` prints it."""
    return {"name": info.name, "description": info.description, "modes": list(info.modes),
            "options": {name: {"default": f.default, "description": f.description}
                        for name, f in info.options.model_fields.items()},
            "switch_job": ({"program": str(info.switch_job.program),
                            "section": info.switch_job.section} if info.switch_job else None),
            "service": ({"label": info.service.label, "role": info.service.role}
                        if info.service else None),
            "gloo": info.gloo, "tiers": list(info.tiers)}


def print_table(args=None) -> int:
    """``trainet strategies``: every registered strategy, its modes, options and needs."""
    if getattr(args, "json", False):
        import json
        print(json.dumps([as_dict(info) for info in strategies()], indent=1, default=str))
        return 0
    from rich.console import Console
    console = Console(highlight=False)
    for info in strategies():
        console.print(f"[bold]{info.name}[/] ({' and '.join(info.modes)} mode)")
        console.print(f"  {info.description}")
        console.print(f"  options: {option_text(info) or 'none'}")
        console.print(f"  needs: {needs_text(info) or 'workers only'}")
    return 0
