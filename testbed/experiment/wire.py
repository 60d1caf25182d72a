"""Bytes on the wire per step and tier of the fabric, measured from the switch interfaces'
counters (links.csv), and the cross-node volume a strategy's pattern predicts.

Tiers follow the switch tree: a switch with hosts is at level 0, a switch one hop above
the nearest level-L switch at level L+1. A frame delivered to a host leaves exactly one
switch of each level between its path's top and the host, downwards, so the bytes that
level-L switches send down (to hosts or lower switches), minus those level L+1 switches
send down, are the bytes whose path turns at level L: traffic that stayed inside one
level-L switch's hosts. A level is named after the host group whose members are exactly
the hosts under each of its switches (``intra_gpu``: the two GCDs of a package,
``intra_node``; a group kind names one level only), or, for the level above the last named one, ``inter_`` that group
(``inter_node``). Columns: ``wire_<tier>_B``, emulated bytes per step over the whole
fabric, headers included; ``theory_inter_node_B``, the pattern's bytes leaving the nodes
per step, co-scaled (shadow mode, nodes of equal size).
"""
from __future__ import annotations

import bisect
import statistics
from collections import defaultdict
from pathlib import Path

from testbed.errors import TrainetError
from testbed.experiment.batch import recorded_replica_batch
from testbed.topology.spec import GroupKind, Topology


def switch_levels(topology: Topology) -> tuple[dict, dict]:
    """(switch -> level, switch -> [(port, peer node, peer is host)])."""
    hosts = {h.name for h in topology.hosts}
    ports = defaultdict(list)
    for link in topology.links:
        a, b = topology.endpoints(link)
        for me, peer in ((a, b), (b, a)):
            if me.port is not None:
                ports[me.node].append((me.port, peer.node, peer.node in hosts))
    level = {s: 0 for s, ps in ports.items() if any(is_host for _, _, is_host in ps)}
    frontier = list(level)
    while frontier:
        nxt = []
        for s in frontier:
            for _, peer, is_host in ports[s]:
                if not is_host and peer not in level:
                    level[peer] = level[s] + 1
                    nxt.append(peer)
        frontier = nxt
    return level, ports


def down_ports(topology: Topology) -> dict[str, int]:
    """Switch interface -> level, for the ports that face the hosts."""
    level, ports = switch_levels(topology)
    return {f"{s}-eth{port}": level[s] for s, ps in ports.items() if s in level
            for port, peer, is_host in ps if is_host or level.get(peer, level[s]) < level[s]}


def tier_names(topology: Topology) -> dict[int, str]:
    level, ports = switch_levels(topology)

    def under(s: str) -> frozenset:
        out = set()
        for _, peer, is_host in ports[s]:
            if is_host:
                out.add(peer)
            elif level.get(peer, level[s]) < level[s]:
                out |= under(peer)
        return frozenset(out)

    names, last_kind = {}, None
    for lv in sorted(set(level.values())):
        covered = {under(s) for s, v in level.items() if v == lv}
        kind = next((k for k in GroupKind.__args__ if f"intra_{k}" not in names.values()
                     and covered == {frozenset(m) for m in topology.groups(k).values()}), None)
        if kind:
            names[lv], last_kind = f"intra_{kind}", kind
        elif last_kind and len(covered) == 1:
            names[lv] = f"inter_{last_kind}"
        else:
            names[lv] = f"level{lv}"
    return names


def counter_at(samples: list[tuple[float, int]], t: float) -> float:
    """A cumulative counter at time ``t``, linear between samples."""
    times = [s[0] for s in samples]
    i = bisect.bisect_left(times, t)
    if i == 0:
        return samples[0][1]
    if i == len(samples):
        return samples[-1][1]
    (t0, v0), (t1, v1) = samples[i - 1], samples[i]
    return v0 + (v1 - v0) * (t - t0) / (t1 - t0)


def measure_run(link_samples: list[dict], ranks: dict[int, list[dict]],
                topology: Topology) -> dict[str, float]:
    """``wire_<tier>_B`` of one run: bytes per step between the end of the first step
    (warm-up) and the end of the last, as the ranks' clocks say (their mean)."""
    steps = [sorted(recs, key=lambda r: r.get("step", 0)) for recs in ranks.values() if recs]
    if not steps or len(steps[0]) < 2 or not link_samples or \
            any("time_unix_s" not in s[i] for s in steps for i in (0, -1)):
        return {}
    start = statistics.fmean(s[0]["time_unix_s"] for s in steps)
    end = statistics.fmean(s[-1]["time_unix_s"] for s in steps)
    count = len(steps[0]) - 1
    series = defaultdict(list)
    for s in link_samples:
        series[s["interface"]].append((s["time_s"], s["tx_bytes"]))
    down = defaultdict(float)
    for iface, lv in down_ports(topology).items():
        if iface in series:
            points = sorted(series[iface])
            down[lv] += counter_at(points, end) - counter_at(points, start)
    names = tier_names(topology)
    out = defaultdict(float)
    for lv in down:
        out[f"wire_{names[lv]}_B"] += (down[lv] - down.get(lv + 1, 0.0)) / count
    return dict(out)


def theory_inter_node(info, options: dict, topology: Topology, workers: list[str],
                      model_bytes: float, scale: float) -> float | None:
    """The pattern's emulated bytes leaving all nodes per step, or None without nodes
    of equal size."""
    from hosts.collectives.hierarchy import group_size
    from hosts.collectives.pattern import cross_node
    hosts = {h.name: h for h in topology.hosts}
    labels = [hosts[w].groups.get("node") for w in workers]
    if None in labels:
        return None
    try:
        node = group_size(labels, "node")
    except TrainetError:
        return None
    sizes = {"node": node}
    if all("gpu" in hosts[w].groups for w in workers):
        sizes["gpu"] = group_size([hosts[w].groups["gpu"] for w in workers], "gpu")
    parsed = info.parse_options({k: v for k, v in options.items()
                                 if k in info.options.model_fields})
    pattern = info.collectives(model_bytes, len(workers), None, options=parsed, sizes=sizes)
    return len(workers) // node * cross_node(pattern, len(workers), node) * scale


def variant_links(path: Path):
    """A variant's resolved topology (``variants/V/topology.yaml``), hosts and links
    only: the switches' programs and tables are not what the results are read for, and
    may have moved with the results directory since the run."""
    from testbed.topology.specfile import Issue, TopologyError, read_spec
    data, marks = read_spec(path, "topology")
    if not isinstance(data, dict):
        raise TopologyError([Issue((), "not the topology `trainet run` writes")], str(path))
    data.pop("program", None)
    for sw in data.get("switches") or []:
        if isinstance(sw, dict):
            sw.pop("program", None)
            sw.pop("runtime", None)
    try:
        return Topology.from_data(data, source=str(path), base_dir=path.parent)
    except TopologyError as e:
        raise e.located(str(path), marks) from None


def columns(root: Path, config: dict, variant: str, strategy: str,
            runs: list[tuple[list[dict], dict]]) -> dict:
    """The measured tiers (mean over ``runs``: (link samples, rank -> records)), the
    theory of the inter-node tier and, in shadow mode, TFLOPS per GPU are added by
    :func:`add_throughput`."""
    path = Path(root) / "variants" / variant / "topology.yaml"
    if not path.exists():
        return {}
    topology = variant_links(path)
    measured = [m for m in (measure_run(links, ranks, topology) for links, ranks in runs) if m]
    out = {key: statistics.fmean(m.get(key, 0.0) for m in measured)
           for key in sorted({k for m in measured for k in m})}
    workload = config["experiment"].get("workload", {})
    if workload.get("mode") == "shadow" and workload.get("shadow_model"):
        from hosts import shadow
        from hosts.strategies import registry
        workers = config["experiment"].get("workers") or \
            [h.name for h in topology.hosts if h.role == "worker"]
        info = registry.get(config["strategy_names"][strategy])
        theory = theory_inter_node(
            info, config["worker_args"][strategy], topology, workers,
            shadow.model_bytes(shadow.shadow_model(workload["shadow_model"]).params),
            config["scale"])
        if theory is not None:
            out["theory_inter_node_B"] = theory
    return out


def add_throughput(rows: list[dict], config: dict) -> None:
    """Shadow mode: ``tflops_per_gpu`` (6 x parameters x tokens per worker and step over
    the step time; the ranks of one model replica, its pipeline stages and
    tensor-parallel ranks, share its tokens) and ``scaling_efficiency``: against the
    same strategy's row with the fewest workers among the rows whose links are the same
    (bandwidth, NIC, loss, delay), only where a node sweep varies the worker count; rows
    that differ in their links are not a scaling series."""
    workload = config["experiment"].get("workload", {})
    if workload.get("mode") != "shadow" or not workload.get("shadow_model"):
        return
    from hosts import shadow
    target = shadow.shadow_model(workload["shadow_model"])
    for row in rows:
        if row.get("step_time_s"):
            tokens = recorded_replica_batch(workload, row.get("replicas") or row["workers"]) \
                * target.seq
            share = (row.get("replicas") or row["workers"]) / row["workers"]
            row["tflops_per_gpu"] = shadow.step_flops(target.params, tokens * share) / \
                row["step_time_s"] / 1e12
    def links(r):
        return tuple(r.get(k) for k in ("strategy", "bottleneck_nominal_bps", "nic", "loss_pct",
                                        "delay_s"))
    for row in rows:
        same = [r for r in rows if links(r) == links(row) and r.get("tflops_per_gpu")]
        if row.get("tflops_per_gpu") and len({r["workers"] for r in same}) > 1:
            base = min(same, key=lambda r: r["workers"])
            row["scaling_efficiency"] = row["tflops_per_gpu"] / base["tflops_per_gpu"]
