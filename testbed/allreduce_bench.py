"""``trainet bench allreduce``: in-network all-reduce (p4/ina.p4) against gloo's ring.

Two measurements:

* the switch's aggregation rate on the P4 target alone (no network, no hosts): how many
  tensor elements per second ``Target.process`` reduces for 2, 4, 8 workers;
* all-reduce on an emulated star (one ina.p4 switch, ``n`` Mininet hosts, links at the
  nominal bandwidth times the co-scaling factor ``scale``): the INA all-reduce of
  hosts/ina_allreduce.py against torch.distributed's gloo ring all-reduce, for tensors
  of 1-64 MB nominal (``scale`` times that emulated). Times are wall-clock on the
  emulated fabric, which with co-scaling stand for nominal times as long as the link,
  not the CPU, is the bottleneck: the report gives both so the reader can judge.

The fabric helpers here (star and two-level topologies, job set-up over P4Runtime,
running programs on the emulated hosts) also serve the emulated-fabric tests.
"""
from __future__ import annotations

import functools
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from controllers import ina as ctl
from testbed.errors import TrainetError
from testbed.proto import ina

REPO = Path(__file__).resolve().parent.parent
INA_P4 = REPO / "p4" / "ina.p4"
AGGREGATOR = "10.0.255.1"
GATEWAY = "10.0.0.254"
GATEWAY_MAC = "08:00:00:ff:00:01"     # testbed.topology.routing.switch_mac(0)
INA_JOB = 1


# ------------------------------------------------------------------ target only
@functools.lru_cache(maxsize=1)
def _ina_program():
    from testbed.p4.frontend import load_program
    return load_program(str(INA_P4))


def target_rate(n_workers: int, chunks: int = 400, slots: int = 64, repeats: int = 3) -> dict:
    """Aggregation rate of ina.p4 on the software target: ``chunks`` slots completed by
    ``n_workers`` packets each, results multicast. The best of ``repeats`` runs (each on
    a fresh target) is kept: the machine's other load only ever slows a run down."""
    from testbed.p4.target import Target
    workers = [ctl.Worker(w, w + 1, f"08:00:00:00:00:{w + 1:02x}", f"10.0.0.{w + 1}")
               for w in range(n_workers)]
    job = ctl.Job(INA_JOB, AGGREGATOR, workers, 0, slots)
    rng = np.random.default_rng(0)
    lanes = rng.integers(-2**20, 2**20, (n_workers, ina.LANES)).astype(np.int32)
    frames = []
    for c in range(chunks):
        slot = ina.slot_field(c % slots, (c // slots) % 2)
        for w in workers:
            frames.append((w.port, ina.frame(w.mac, GATEWAY_MAC, w.ip, AGGREGATOR, ina.encode(
                INA_JOB, w.worker_id, ina.FLAG_GRADIENT, slot, 0, c, lanes[w.worker_id]))))
    elapsed = []
    for _ in range(repeats):
        target = Target(_ina_program())
        ctl.setup(ctl.TargetDevice(target), job)
        process = target.process
        start = time.perf_counter()
        out = 0
        for port, frame in frames:
            out += len(process(frame, port))
        elapsed.append(time.perf_counter() - start)
        if out != chunks * n_workers:
            raise TrainetError(f"target benchmark: expected {chunks * n_workers} result "
                               f"packets, got {out}; p4/ina.p4 and controllers/ina.py disagree")
    best = min(elapsed)
    return {"workers": n_workers, "chunks": chunks, "seconds": best, "repeats": repeats,
            "packets_in_per_s": len(frames) / best,
            "elements_per_s": chunks * ina.LANES / best,
            "input_elements_per_s": len(frames) * ina.LANES / best}


# ------------------------------------------------------------------ emulated fabric
def star_topology(n_workers: int, bw: str, scale: float, loss_pct: float = 0.0,
                  delay: str | None = None):
    """One ina.p4 switch s1, hosts h1..hN on ports 1..N in 10.0.0.0/24, routed by
    shortest path; the aggregator address lies outside the subnet, behind the gateway."""
    from testbed.topology.spec import Topology
    link = {"bw": bw}
    if loss_pct:
        link["loss"] = loss_pct
    if delay:
        link["delay"] = delay
    return Topology.from_data({
        "name": f"ina-star-{n_workers}", "scale": scale, "program": str(INA_P4),
        "routing": "shortest-path",
        "hosts": [{"name": f"h{i}", "ip": f"10.0.0.{i}/24", "mac": f"08:00:00:00:00:{i:02x}",
                   "gateway": GATEWAY, "gateway_mac": GATEWAY_MAC}
                  for i in range(1, n_workers + 1)],
        "switches": [{"name": "s1"}],
        "links": [{"a": f"h{i}", "b": f"s1-p{i}", **link} for i in range(1, n_workers + 1)],
    })


def star_job(n_workers: int, slots: int) -> ctl.Job:
    return ctl.Job(INA_JOB, AGGREGATOR, [
        ctl.Worker(i - 1, i, f"08:00:00:00:00:{i:02x}", f"10.0.0.{i}")
        for i in range(1, n_workers + 1)], slot_base=0, slot_count=slots)


SPINE_AGGREGATOR = "10.0.255.1"
SPINE_JOB = 100


def two_level_topology(racks: int, per_rack: int, bw: str, scale: float,
                       loss_pct: float = 0.0, delay: str | None = None):
    """Rack switches r1..rK (hosts hRW on ports 1.., the spine on port 9) under the spine
    s<K+1> (rack r on port r; Mininet wants a digit in every switch name). Hosts of rack
    r live in 10.0.r.0/24; the rack switch's gateway address 10.0.r.254 is also its
    aggregator address."""
    from testbed.topology.routing import switch_mac
    from testbed.topology.spec import Topology
    link = {"bw": bw, **({"loss": loss_pct} if loss_pct else {}),
            **({"delay": delay} if delay else {})}
    hosts, links = [], []
    for r in range(1, racks + 1):
        for w in range(per_rack):
            name = f"h{r}{w}"
            hosts.append({"name": name, "ip": f"10.0.{r}.{w + 1}/24",
                          "mac": f"08:00:00:00:{r:02x}:{w + 1:02x}",
                          "gateway": f"10.0.{r}.254", "gateway_mac": switch_mac(r - 1)})
            links.append({"a": name, "b": f"r{r}-p{w + 1}", **link})
        links.append({"a": f"r{r}-p9", "b": f"s{racks + 1}-p{r}", **link})
    return Topology.from_data({
        "name": f"ina-2level-{racks}x{per_rack}", "scale": scale, "program": str(INA_P4),
        "routing": "shortest-path", "hosts": hosts,
        "switches": [{"name": f"r{r}"} for r in range(1, racks + 1)]
        + [{"name": f"s{racks + 1}"}],
        "links": links})


def two_level_jobs(racks: int, per_rack: int, slots: int) -> dict:
    """Switch name -> (job, extra routes (ip, mac, port)) of the two-level topology."""
    from testbed.topology.routing import switch_mac
    out = {}
    spine_workers = []
    for r in range(1, racks + 1):
        rack_agg = f"10.0.{r}.254"
        workers = [ctl.Worker(w, w + 1, f"08:00:00:00:{r:02x}:{w + 1:02x}", f"10.0.{r}.{w + 1}")
                   for w in range(per_rack)]
        out[f"r{r}"] = (ctl.Job(r, rack_agg, workers, 0, slots,
                                upstream=ctl.Upstream(SPINE_AGGREGATOR, SPINE_JOB, r - 1)),
                        [(SPINE_AGGREGATOR, switch_mac(racks), 9)])
        spine_workers.append(ctl.Worker(r - 1, r, switch_mac(r - 1), rack_agg))
    out[f"s{racks + 1}"] = (ctl.Job(SPINE_JOB, SPINE_AGGREGATOR, spine_workers, 0, slots),
                 [(w.ip, w.mac, w.port) for w in spine_workers])
    return out


def two_level_commands(racks: int, per_rack: int, elements: int, rounds: int, slots: int,
                       seed: int = 0, check: bool = False) -> dict:
    py = sys.executable
    total = racks * per_rack
    return {f"h{r}{w}": [py, "-m", "hosts.ina_allreduce", "--job", str(r), "--worker", str(w),
                         "--rank", str((r - 1) * per_rack + w), "--workers", str(total),
                         "--aggregator", f"10.0.{r}.254", "--elements", str(elements),
                         "--rounds", str(rounds), "--slots", str(slots), "--seed", str(seed)]
            + (["--check"] if check else [])
            for r in range(1, racks + 1) for w in range(per_rack)}


def setup_job(net, job: ctl.Job, switch: str = "s1", routes=(), fresh: bool = False) -> None:
    """Install ``job`` on a running switch of ``net`` over P4Runtime, plus /32 routes
    (ip, mac, port) to addresses that are not hosts (other switches' aggregators). With
    ``fresh``, tear the job down first: new worker processes number their chunks from 0
    again, so they need slots without the previous workers' rounds."""
    from controllers.jobs import connected
    from testbed.topology.routing import route_entry
    node = net.net[switch]
    with connected(node.grpc_address, node.device_id) as device:
        for ip, mac, port in routes:
            device.insert(route_entry(ip, mac, port))
        if fresh:
            ctl.teardown(device, job)
        ctl.setup(device, job)


def add_reordering(net, switch: str, fraction: float) -> None:
    """Make every egress port of ``switch`` reorder ``fraction`` of its packets (they skip
    the delay line, so the ports need a delay). Topology specs have no reordering field,
    so this restarts the switch process with it and reinstalls its runtime config; set
    jobs up afterwards."""
    from controllers.routing import program_switch
    from testbed.net.nodes import READY_TIMEOUT_S
    node = net.net[switch]
    spec = next(s for s in net.plan.switches if s.name == switch)
    for port in node.data_ports():
        shape = node.shapes.get(port, "")
        if "delay=" not in shape:
            raise TrainetError(f"{switch} port {port}: reordering needs a link delay; give "
                               "the links a delay (e.g. delay: 1ms)")
        node.shapes[port] = f"{shape},reorder={fraction * 100:g}%"
    node.stop_process()
    node.start(None)
    node.wait_ready(time.monotonic() + READY_TIMEOUT_S)
    net.state.switches[switch] = node.process.pid
    net.state.save()
    program_switch(node.grpc_address, spec.p4, net.runtime_configs[switch], spec.device_id,
                   p4info=net.p4infos[spec.p4])


def _python_env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env["OMP_NUM_THREADS"] = "1"
    return env


def run_on_hosts(net, commands: dict, timeout_s: float) -> dict:
    """Run one command per host concurrently; return host -> parsed JSON of its stdout."""
    import subprocess
    procs = {h: net.net[h].popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 env=_python_env(), cwd=str(REPO))
             for h, cmd in commands.items()}
    deadline = time.monotonic() + timeout_s
    out = {}
    try:
        for h, p in procs.items():
            try:
                stdout, stderr = p.communicate(timeout=max(deadline - time.monotonic(), 0.1))
            except subprocess.TimeoutExpired:
                raise TrainetError(f"{h}: {' '.join(commands[h][:4])} did not finish within "
                                   f"{timeout_s:.0f} s") from None
            if p.returncode != 0:
                raise TrainetError(f"{h}: {' '.join(commands[h][:4])} failed "
                                   f"(exit {p.returncode}): {stderr.decode()[-800:]}")
            out[h] = json.loads(stdout.decode().strip().splitlines()[-1])
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
                p.wait()
    return out


def ina_commands(n_workers: int, elements: int, rounds: int, slots: int,
                 seed: int = 0, check: bool = False) -> dict:
    py = sys.executable
    return {f"h{i}": [py, "-m", "hosts.ina_allreduce", "--job", str(INA_JOB), "--worker",
                      str(i - 1), "--workers", str(n_workers), "--aggregator", AGGREGATOR,
                      "--elements", str(elements), "--rounds", str(rounds), "--slots",
                      str(slots), "--seed", str(seed)] + (["--check"] if check else [])
            for i in range(1, n_workers + 1)}


def gloo_commands(n_workers: int, elements: int, rounds: int, port: int) -> dict:
    py = sys.executable
    return {f"h{i}": [py, "-m", "hosts.gloo_allreduce", "--rank", str(i - 1), "--world",
                      str(n_workers), "--master", "10.0.0.1", "--port", str(port),
                      "--elements", str(elements), "--rounds", str(rounds)]
            for i in range(1, n_workers + 1)}


def round_time(results: dict) -> float:
    """Median over rounds (first round excluded when there are several) of the slowest
    worker's time."""
    per_round = list(zip(*(r["times_s"] for r in results.values())))
    if len(per_round) > 1:
        per_round = per_round[1:]
    return statistics.median(max(r) for r in per_round)


FRAME_BYTES = ina.FRAME_OFFSET + ina.PAYLOAD_BYTES      # one INA packet on the wire
TCP_FRAME_OVERHEAD = 1514 / 1448                          # Ethernet/IP/TCP per MSS


def ina_link_time(elements: int, rate_bps: float) -> float:
    """Lower bound of an INA all-reduce on links of ``rate_bps``: every worker sends (and,
    on the other direction of its full-duplex link, receives) one packet per chunk plus
    the exponent packet."""
    return (-(-elements // ina.LANES) + 1) * FRAME_BYTES * 8 / rate_bps


def ring_link_time(elements: int, n_workers: int, rate_bps: float) -> float:
    """Lower bound of a ring all-reduce: 2 (n - 1) / n of the tensor over each link."""
    return 2 * (n_workers - 1) / n_workers * elements * 4 * TCP_FRAME_OVERHEAD * 8 / rate_bps


def fabric_rows(n_workers: int, sizes_mb: list, bw: str, scale: float, rounds: int,
                slots: int, results_dir: str, log) -> list:
    from testbed.net.network import Network
    from testbed.net.topology import plan_from_topology
    from testbed.units import parse_rate
    topo = star_topology(n_workers, bw, scale)
    rows = []
    with Network(plan_from_topology(topo, topo.name), results_dir, log=log) as net:
        job = star_job(n_workers, slots)
        setup_job(net, job)
        for k, mb in enumerate(sizes_mb):
            nominal_bytes = mb * 2**20
            elements = max(int(nominal_bytes * scale / 4), 1)
            log(f"  {n_workers} workers, {mb} MB nominal = {elements * 4} B emulated ...")
            if k:
                setup_job(net, job, fresh=True)
            ina_res = run_on_hosts(net, ina_commands(n_workers, elements, rounds, slots),
                                   timeout_s=300)
            gloo_res = run_on_hosts(net, gloo_commands(n_workers, elements, rounds,
                                                       29500 + k), timeout_s=300)
            t_ina, t_gloo = round_time(ina_res), round_time(gloo_res)
            rate = parse_rate(bw) * scale
            rows.append({
                "workers": n_workers, "nominal_MB": mb, "emulated_bytes": elements * 4,
                "elements": elements, "link_nominal_bps": parse_rate(bw),
                "link_emulated_bps": rate,
                "ina_s": t_ina, "gloo_s": t_gloo,
                "ina_link_bound_s": ina_link_time(elements, rate),
                "ring_link_bound_s": ring_link_time(elements, n_workers, rate),
                "ina_algbw_nominal_Gbps": nominal_bytes * 8 / t_ina / 1e9,
                "gloo_algbw_nominal_Gbps": nominal_bytes * 8 / t_gloo / 1e9,
                "speedup_ina_over_gloo": t_gloo / t_ina,
                "ina_retransmissions": sum(r["retransmissions"] for r in ina_res.values())})
    return rows


# ------------------------------------------------------------------ command
def _render(report: dict) -> str:
    lines = ["switch aggregation rate on the P4 target (Target.process, no network):"]
    for r in report["target"]:
        lines.append(f"  {r['workers']} workers: {r['elements_per_s'] / 1e3:8.1f} k "
                     f"elements/s aggregated ({r['packets_in_per_s']:7.0f} packets/s in, "
                     f"{ina.LANES} lanes/packet)")
    if report.get("fabric"):
        r0 = report["fabric"][0]
        lines.append(f"all-reduce on the emulated star: links {r0['link_nominal_bps'] / 1e9:g} "
                     f"Gb/s nominal = {r0['link_emulated_bps'] / 1e6:g} Mb/s emulated "
                     f"(co-scaling {report['scale']:g}); times are wall-clock = nominal; "
                     "'bound' is the link-only time")
        lines.append("  workers  tensor(nominal)  emulated   INA time (bound)       "
                     "gloo time (bound)      INA algbw    gloo algbw   gloo/INA")
        for r in report["fabric"]:
            lines.append(
                f"  {r['workers']:7d}  {r['nominal_MB']:9g} MB  {r['emulated_bytes']:8d} B  "
                f"{r['ina_s'] * 1e3:8.1f} ms ({r['ina_link_bound_s'] * 1e3:6.1f} ms)  "
                f"{r['gloo_s'] * 1e3:8.1f} ms ({r['ring_link_bound_s'] * 1e3:6.1f} ms)  "
                f"{r['ina_algbw_nominal_Gbps']:7.2f} Gb/s  {r['gloo_algbw_nominal_Gbps']:7.2f} "
                f"Gb/s  {r['speedup_ina_over_gloo']:6.2f}x")
    elif report.get("fabric_skipped"):
        lines.append(f"emulated fabric: skipped ({report['fabric_skipped']})")
    return "\n".join(lines)


def main(args) -> int:
    workers = args.workers or [2, 4, 8]
    report = {"lanes_per_packet": ina.LANES, "scale": args.scale, "link": args.bw,
              "target": [target_rate(n) for n in workers]}
    log = (lambda *a: print(*a, file=sys.stderr)) if args.json else print
    if args.target_only:
        report["fabric_skipped"] = "--target-only"
    elif os.geteuid() != 0:
        report["fabric_skipped"] = "needs root for Mininet; run as root"
    else:
        report["fabric"] = []
        for n in workers:
            report["fabric"] += fabric_rows(n, args.sizes_mb, args.bw, args.scale, args.rounds,
                                            args.slots, args.results, log)
    print(json.dumps(report, indent=2) if args.json else _render(report))
    return 0
