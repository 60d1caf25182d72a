"""``trainet plan``: rank every valid layout of a model on a fabric by predicted step time.

The candidates are every valid layout of the strategies whose options choose one
(``StrategyInfo.layout``; their ``layouts`` asked for ``every`` one: AxoNN's grids
G_r x G_c x G_d x G_data, Megatron-LM's TP x DP), those without a pipeline (the strategy's
declared timing has one stage), all at the same global batch, walked as the model's
layout search walks them (testbed/model/search.py).
Each layout's step is its strategy's declared pattern (hosts/collectives/pattern.py)
timed on the fabric:

* **placement**: rank ``i`` runs on the fabric's ``i``-th GPU (the topology's workers in
  file order, or GPU ``i % g`` of node ``i // g`` of a nominal fabric);
* **bandwidth per group placement**: every group of a kind (all the row groups, say) runs
  its ring at once; each ring hop takes the fabric's path between its two ranks, and a
  link shared by ``k`` of the kind's hops gives each ``1/k`` of its bandwidth. A group's
  bandwidth is its slowest hop's share, the kind's the slowest group's, so groups that
  stay inside a node get the node's bandwidth and groups spread over nodes share NICs.
  With ``--bandwidth-table`` (``trainet model measure``, testbed/model/measured.py) a
  placement the table has takes its measured latency and bandwidth instead;
* **time and step**: the analytical model's (testbed/model): each collective's
  alpha-beta cost over its kind's bandwidth with a latency per ring step of its slowest
  hop's path, placed against the compute model (``hosts/shadow.py``) as the strategy
  declares its overlap (hosts/collectives/timing.py: AxoNN's depth gathers prefetched
  and its reduce-scatters left running, the row and column collectives after each layer
  group), without interference, so layouts are ranked by their communication;
* **memory**: each layout's footprint per GPU (hosts/footprint.py, the function the
  experiment's fit check uses: activations per pipeline stage and tensor rank) against
  the device; layouts that do not fit are dropped and listed with what they need. The
  devices are the topology's hosts' where it names them (the smallest capacity holds
  every layout), else ``--device``.

A layout's name and the form of its strategy's names (``4x1x1x4``, G_r x G_c x G_d x
G_data) are the strategy's (``StrategyInfo.layout``).

A nominal fabric is ``gpus`` GPUs in nodes of ``gpus_per_node``: inside a node every GPU
reaches the node's switch at ``intra`` (NVLink-like), and has a NIC of ``inter`` into one
non-blocking core. A topology file is read as it is: its links' bandwidths and delays.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from hosts import shadow
from hosts.strategies import registry
from testbed.errors import TrainetError
from testbed.model import measured, search
from testbed.model.calibration import DEFAULT
from testbed.model.fabric import GraphFabric, NominalFabric, fabric_topology, topology_fabric
from testbed.model.prediction import StepPrediction
from testbed.model.step import Workload, predict as model_predict

Fabric = GraphFabric


@dataclass(frozen=True)
class Prediction:
    strategy: str
    layout: str
    options: dict
    compute_s: float
    comm_s: float              # every collective, one after another
    exposed_s: float           # what the compute does not hide
    step_s: float
    tflops_per_gpu: float
    bandwidths: dict           # group -> bit/s
    memory_B: float = 0.0      # footprint per GPU
    fits: bool = True
    memory_verdict: str = ""
    form: str = ""             # how the strategy's layouts are named


def candidates(workload: Workload, world: int, sizes: dict) -> list[tuple[str, dict]]:
    """(strategy, options) of every layout without a pipeline that splits the model and
    the global batch evenly, of the strategies whose options choose a layout."""
    return [(name, options)
            for name, options in search.candidates(world, workload, sizes, every=True)
            if registry.get(name).layout is not None and not pipelined(name, options, world)]


def pipelined(name: str, options: dict, world: int) -> bool:
    """Whether the strategy's declared timing runs the layout in pipeline stages."""
    info = registry.get(name)
    pipeline = info.step_timing(world, options=info.parse_options(options)).pipeline
    return pipeline is not None and pipeline.stages > 1


def predict(fabric: Fabric, model: shadow.ShadowModel, strategy: str, options: dict,
            batch: int, device: shadow.Device, mfu: float,
            interference: float = 0.0, recompute: str = "full") -> Prediction:
    """The layout's step as the analytical model (testbed/model) times it: its
    strategy's declared pattern and overlap on the fabric, with the bandwidth its group
    placement gets; by default no interference, so the plan compares the layouts'
    communication (``--check`` gives the run's, as its shadow workers slept it), and
    full recompute for a strategy without a recompute option (``--check``: the run's)."""
    world = len(fabric.gpus)
    p = model_predict(strategy, Workload(model, device, batch, mfu=mfu, recompute=recompute),
                      fabric, world, options, replace(DEFAULT, interference=interference))
    return with_bandwidths(fabric, p, world)


def with_bandwidths(fabric: Fabric, p: StepPrediction, world: int) -> Prediction:
    """The model's prediction with the layout (every degree filled in, its name) and the
    bandwidth each of its group kinds gets on the fabric."""
    bandwidths = {kind: _bandwidth(fabric, _placement(p, kind), world)
                  for kind, (size, _) in p.placement.items()
                  if size > 1 and kind not in ("world", "gpu", "node", "inter-node")}
    info = registry.get(p.strategy)
    layout = info.layout_of(world, info.parse_options(p.options))
    return Prediction(p.strategy, layout.text, layout.options, p.compute_s, p.comm_s,
                      p.exposed_s, p.step_s, p.tflops_per_gpu, bandwidths,
                      p.memory_per_gpu_B, p.fits, p.memory_verdict, layout.form)


def _bandwidth(fabric: Fabric, kind, world: int) -> float:
    """bit/s of a rank's ring hop in groups placed as ``kind``: the measured all-reduce's
    bus bandwidth where the fabric has a table entry, else its links'."""
    entry = fabric.table.entry("all-reduce", kind, world) if fabric.table else None
    return entry.bandwidth_Bps * 8 if entry else fabric.route(kind, world).bps


def _placement(p, kind: str):
    from hosts.collectives.timing import Placement
    return Placement(*p.placement[kind])


def plan(fabric: Fabric, model: shadow.ShadowModel, world: int, batch: int,
         device: shadow.Device, mfu: float | None) -> list[Prediction]:
    """Every valid layout that fits ``device``, fastest step first."""
    return ranked(fabric, model, world, batch, device, mfu)[0]


def ranked(fabric: Fabric, model: shadow.ShadowModel, world: int, batch: int,
           device: shadow.Device, mfu: float | None
           ) -> tuple[list[Prediction], list[Prediction]]:
    """(the layouts that fit, fastest first; those that do not)."""
    if len(fabric.gpus) < world:
        raise TrainetError(f"fabric {fabric.name} has {len(fabric.gpus)} worker hosts for "
                           f"{world} ranks; choose a world of at most {len(fabric.gpus)} "
                           "or a fabric with more workers")
    fabric = fabric.first(world)
    workload = Workload(model, device, batch, mfu=mfu)
    layouts = candidates(workload, world, fabric.tier_sizes(world))
    if not layouts:
        raise TrainetError(f"no layout of {world} ranks splits a global batch of {batch} "
                           f"sequences; give a batch that is a multiple of {world}")
    found, skipped = search.search(workload, fabric, world,
                                   replace(DEFAULT, interference=0.0), layouts)
    if skipped:
        raise TrainetError("; ".join(skipped))
    out = sorted((with_bandwidths(fabric, p, world) for p in found), key=lambda p: p.step_s)
    fitting = [p for p in out if p.fits]
    if not fitting:
        least = min(out, key=lambda p: p.memory_B)
        raise TrainetError(f"no layout of {model.name} on {world} ranks fits {device.name}: "
                           f"the smallest, {least.strategy} {least.layout}, "
                           f"{least.memory_verdict}; give more ranks or a smaller batch")
    return fitting, [p for p in out if not p.fits]


def topology_device(topology, default: str) -> shadow.Device:
    """The device the plan holds layouts against: of the devices the topology's hosts
    name, the one with the least memory; ``default`` when none is named."""
    named = {h.device for h in topology.hosts if getattr(h, "device", None)}
    if not named:
        return shadow.device(default)
    return min((shadow.device(n) for n in sorted(named)),
               key=lambda d: d.memory_bytes or float("inf"))


def main(args) -> int:
    """``trainet plan`` without ``--check`` (that is testbed/experiment/plan_check.py)."""
    if not args.world:
        raise TrainetError("trainet plan: give --gpus N, the ranks to place (or --check "
                           "RESULTS)")
    from rich.console import Console
    from rich.table import Table

    from testbed.units import parse_duration, parse_rate

    model = shadow.shadow_model(args.model, args.layers)
    device = shadow.device(args.device)
    if args.topology:
        topology = fabric_topology(args.topology)
        fabric = topology_fabric(topology)
        device = topology_device(topology, args.device)
    else:
        fabric = NominalFabric(args.world, args.gpus_per_node, parse_rate(args.intra),
                               parse_rate(args.inter), parse_duration(args.latency))
    fabric = measured.attach(fabric, measured.load(args.bandwidth_table))
    batch = args.batch or 2 * args.world
    predictions, dropped = ranked(fabric, model, args.world, batch, device, args.mfu)
    if args.json:
        import json
        from dataclasses import asdict
        print(json.dumps({"model": model.name, "ranks": args.world, "fabric": fabric.name,
                          "global_batch": batch, "device": device.name, "mfu": args.mfu,
                          "layouts": [{**asdict(p), "bandwidths_bps": p.bandwidths}
                                      for p in predictions[:args.top]],
                          "dropped": [asdict(p) for p in dropped]}, indent=1))
        return 0
    console = Console(highlight=False, width=150)
    compute = f"MFU {args.mfu}" if args.mfu is not None else "compute by shapes"
    console.print(f"{model.name}: {model.source}; {args.world} ranks on {fabric.name}; "
                  f"global batch {batch} sequences; {device.name}, {compute}; "
                  f"{len(predictions)} valid layouts that fit"
                  + (f", {len(dropped)} dropped for memory" if dropped else ""))
    forms = {p.strategy: p.form for p in predictions}
    console.print(", ".join(f"{name} layouts are {form}" for name, form in forms.items()))
    console.print("times per step; group bandwidths in Gb/s when every group of the kind "
                  "runs at once")
    table = Table("#", "strategy", "layout", "compute", "comm", "exposed", "step",
                  "TFLOP/s/GPU", "memory/GPU", "group bandwidths (Gb/s)")
    for i, p in enumerate(predictions[:args.top], 1):
        bws = " ".join(f"{k} {v / 1e9:g}" for k, v in p.bandwidths.items())
        table.add_row(str(i), p.strategy, p.layout, f"{p.compute_s:.3f} s",
                      f"{p.comm_s:.3f} s", f"{p.exposed_s:.3f} s",
                      f"{p.step_s:.3f} s", f"{p.tflops_per_gpu:.1f}",
                      f"{p.memory_B / 2**30:.1f} GiB", bws)
    console.print(table)
    for p in dropped[:args.top]:
        console.print(f"dropped: {p.strategy} {p.layout}: {p.memory_verdict}")
    if fabric.table is not None and fabric.table.note():
        console.print(fabric.table.note())
    fastest = predictions[0]
    for name, form in forms.items():
        best = next((p for p in predictions if p.strategy == name), None)
        if best is None:
            continue
        console.print(f"best {name} ({form}): {best.layout}, step "
                      f"{best.step_s:.3f} s; best overall {fastest.strategy} "
                      f"{fastest.layout}, {best.step_s / fastest.step_s:.2f}x faster")
    return 0
