"""Holmes (Yang et al., ICPP 2024, "Holmes: Towards Distributed Training Across Clusters
with Heterogeneous NIC Environment", arXiv 2312.03549): DP x PP x TP across clusters whose
NICs differ, with the groups that talk most kept on the fastest NICs.

A reconstruction from the paper's prose (its code is not used here). Its three parts:

* **Automatic NIC Selection.** Tensor-parallel groups exchange activations every layer,
  data-parallel groups a stage's gradients every step, pipeline neighbours one activation
  per micro-batch: so the tensor- and data-parallel groups of a stage go inside one
  cluster, and the clusters are taken RDMA first, fastest first. Launched ranks are
  ordered cluster by cluster that way and the layout's logical ranks (Megatron's order:
  tensor fastest, then data, then pipeline) are placed on them in that order: every stage
  whose ``dp x tp`` ranks fit in what is left of a cluster stays inside it, and only the
  pipeline crosses between clusters (*Cross-cluster Pipeline Parallelism*), over whatever
  joins them, Ethernet included.
* **Self-Adapting Pipeline Partition.** Stages do not cost the same per layer: a stage
  in a cluster with slower NICs spends longer on its tensor-parallel and data-parallel
  all-reduces, a slower device longer on compute. At start every rank measures its
  compute speed (real mode: a matrix product on this host; shadow mode: the device
  model) and the time of an all-reduce over its tensor- and its data-parallel group; the
  ranks share the figures and each computes the same partition: the contiguous split of
  the model's units into stages that minimises the slowest stage's time per step, a unit
  costing its compute and its tensor-parallel all-reduces (both on every micro-batch's
  critical path, so stretched by ``(m + p - 1) / m``, the pipeline's bubble) plus its
  gradient bytes at the stage's data-parallel all-reduce rate.

The baseline is ``megatron``: the same layout in Megatron-LM's order over the ranks as
launched, layers split evenly.
"""
from __future__ import annotations

import time

import torch

from hosts.parallelism.layout import ParallelLayout
from hosts.strategies.parallel import register_layout
from testbed.errors import TrainetError
from testbed.topology import profiles

PROBE_BYTES = 1 << 18          # the all-reduces timed at start (emulated bytes)
PROBES = 3


def nic_speed(name: str) -> tuple[bool, float]:
    """(RDMA?, bit/s) of a NIC profile: what clusters are ordered by, best first."""
    profile = profiles.get_profile(name)
    return profile.transport is profiles.RDMA, profile.bw_bps


def cluster_order(clusters: list[str], nics: list[str]) -> list[int]:
    """The launched ranks, cluster by cluster, RDMA clusters first, then by bandwidth;
    a cluster's ranks and equal clusters keep their launch order."""
    first = {}
    for rank, label in enumerate(clusters):
        first.setdefault(label, rank)
    key = {}
    for label, rank in first.items():
        rdma, bps = nic_speed(nics[rank])
        key[label] = (not rdma, -bps, rank)
    return sorted(range(len(clusters)), key=lambda r: (key[clusters[r]], r))


def place(context, layout: ParallelLayout):
    tiers = context.tiers or {}
    missing = [k for k in ("cluster", "nic") if k not in tiers]
    if missing:
        raise TrainetError(f"strategy holmes places groups by cluster and NIC; give each "
                           f"rank's {missing[0]} (--tiers cluster=A,A,B,...;nic=ib-hdr200,..."
                           "; trainet run takes them from the topology: host groups "
                           "{cluster: NAME} and each host's nic)")
    return layout.placed(cluster_order(tiers["cluster"], tiers["nic"])), self_adapting_partition


def self_adapting_partition(stage, work: list[tuple[float, float, float]]) -> list[int]:
    """Units per stage, from every rank's measured speed and all-reduce rates; ``work``
    holds each unit's (FLOPs, gradient bytes, tensor-parallel all-reduce bytes) per step
    on one rank."""
    comm, layout = stage.comm, stage.layout
    mine = torch.tensor([stage.at.pp, stage.compute_speed(),
                         _all_reduce_rate(stage, stage.dp_ranks),
                         _all_reduce_rate(stage, stage.tp_ranks)], dtype=torch.float64)
    table = comm.wait(comm.all_gather(mine)).view(-1, 4)
    rows = [[r for r in table.tolist() if r[0] == s] for s in range(layout.pp)]
    speed = [min(r[1] for r in rows[s]) for s in range(layout.pp)]
    dp_rate = [max(r[2] for r in rows[s]) for s in range(layout.pp)]
    tp_rate = [max(r[3] for r in rows[s]) for s in range(layout.pp)]
    m, p = stage.options.micro_batches, layout.pp
    stretch = (m + p - 1) / m

    def cost(s: int, units: range) -> float:
        return sum((work[u][0] / speed[s] + work[u][2] * tp_rate[s]) * stretch
                   + work[u][1] * dp_rate[s] for u in units)

    counts = balance(len(work), p, cost)
    if comm.rank == 0:
        print(f"holmes: units per stage {counts}; per stage all-reduce over the data "
              f"group {_rates(dp_rate)}, over the tensor group {_rates(tp_rate)}", flush=True)
    return counts


def _rates(seconds_per_byte: list[float]) -> str:
    return "/".join(f"{8 / r / 1e9:.3g}" if r else "-" for r in seconds_per_byte) + " Gb/s"


def balance(units: int, stages: int, cost) -> list[int]:
    """The contiguous split of ``units`` into ``stages`` (at least one each) minimising
    the largest ``cost(stage, range of units)``, by dynamic programming."""
    if stages > units:
        raise TrainetError(f"holmes: pp={stages} stages for {units} units; choose pp of at "
                           f"most {units}")
    inf = float("inf")
    best = [[inf] * (units + 1) for _ in range(stages + 1)]
    cut = [[0] * (units + 1) for _ in range(stages + 1)]
    best[0][0] = 0.0
    for s in range(1, stages + 1):
        for end in range(s, units - (stages - s) + 1):
            for start in range(s - 1, end):
                value = max(best[s - 1][start], cost(s - 1, range(start, end)))
                if value < best[s][end]:
                    best[s][end], cut[s][end] = value, start
    counts, end = [], units
    for s in range(stages, 0, -1):
        counts.append(end - cut[s][end])
        end = cut[s][end]
    return counts[::-1]


def _all_reduce_rate(stage, ranks: list[int]) -> float:
    """Seconds per byte of an all-reduce over the group ``ranks``: the fastest of
    ``PROBES`` timed after one untimed (connection set-up does not count, and a probe
    slowed by a neighbour's burst does not decide); in shadow mode an emulated byte
    stands for 1/scale nominal ones."""
    if len(ranks) == 1:
        return 0.0
    comm = stage.comm
    probe = torch.zeros(PROBE_BYTES // 4)
    comm.wait(comm.all_reduce(probe.clone(), ranks))
    times = []
    for _ in range(PROBES):
        start = time.perf_counter()
        comm.wait(comm.all_reduce(probe.clone(), ranks))
        times.append(time.perf_counter() - start)
    return min(times) / PROBE_BYTES * getattr(stage, "scale", 1.0)


INFO = register_layout(
    "holmes", "dp", "Holmes: DP x PP x TP across clusters of different NICs; tensor and "
    "data parallel groups inside the fastest clusters, the pipeline across them, layers "
    "per stage balanced from measured speed and bandwidth (a reconstruction)",
    placement=place, tiers=("cluster", "nic"), balanced=True)
