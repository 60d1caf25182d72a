"""``trainet bench allreduce``: in-network all-reduce (p4/ina.p4) against gloo's ring.

Two measurements:

* the switch's aggregation rate on the P4 target alone (no network, no hosts): how many
  tensor elements per second ``Target.process`` reduces for 2, 4, 8 workers, and the
  time per frame and per lane word, in packets as the fabric part would send them
  (``mtu``'s lane count, ``dtype``'s lane width), on each backend beside the python one;
* all-reduce on an emulated star (one ina.p4 switch, ``n`` Mininet hosts, links at the
  nominal bandwidth times the co-scaling factor ``scale``): the INA all-reduce of
  hosts/ina_allreduce.py against torch.distributed's gloo ring all-reduce, for tensors
  of 1-64 MB nominal (``scale`` times that emulated). Times are wall-clock on the
  emulated fabric, which with co-scaling stand for nominal times as long as the link,
  not the CPU, is the bottleneck: the report gives both so the reader can judge. INA
  runs with each worker client (``--ina-clients``: the window loop in C, the Python
  reference). Both sides are timed by one rule (hosts/round_timing.py): the same
  warm-up round, a synchronisation, then the rounds back to back; a round's time is the
  slowest worker's time for all of them divided by their number. Both programs end with
  an untimed barrier, since eight torch interpreters exiting on two cores while others
  still time their last round added 5-30 ms to it. Each worker counts the bytes its
  interface carried per direction during the timed rounds and its own CPU time (the
  table gives all workers' together per round: eight workers share the machine's cores
  with the switch, so it is CPU the links' pace competes with); the switch's own counters,
  asked for before and after each run (testbed/switch/stats.py), give its frames,
  wake-ups, native calls and its loop thread's CPU per frame, beside the whole machine's
  CPU per frame (/proc/stat), since what the loop hands to other threads is not in its
  own time.
  ``dtype`` is the gradient's element type (bf16 or fp32): gloo's ring moves it as it is,
  INA quantizes bf16 into 16-bit lanes, fp32 into 32-bit ones. With ``background_load``
  every size is measured twice in the same network: on the machine as it is, then with
  one more process burning a core (:func:`background_load`) for both sides' runs.
  ``mtu`` is every link's MTU, the same for both sides: gloo's TCP segments fill it, and
  INA's packets carry as many lanes as it holds (``ina.lanes_for_mtu``: 256 at 1500 B,
  512 at 4096 B, 2048 at 9000 B), the switch running p4/ina.p4 rendered for that count.

The star, the host commands and running them on the emulated hosts also serve the
emulated-fabric tests.
"""
from __future__ import annotations

import contextlib
import functools
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from controllers import ina as ctl
from controllers.jobs import TargetDevice
from testbed.bench.ina_client import client_cost
from testbed.errors import TrainetError
from testbed.net.host_programs import run_json
from testbed.proto import ina
from testbed.topology.profiles import PROFILES
from testbed.topology.routing import switch_mac

REPO = Path(__file__).resolve().parents[2]
INA_P4 = REPO / "p4" / "ina.p4"
SWITCH = "s1"
GATEWAY = "10.0.0.254"                # the star's own address plan
AGGREGATOR = "10.0.255.1"             # outside the hosts' subnet: reached via the gateway
INA_JOB = 1
# what the experiments' 100 Gb/s links use: the roce-100g NIC profile's MTU (4096 B)
DEFAULT_MTU = PROFILES["roce-100g"].mtu
ETHERNET_HEADER_BYTES = 14
TCP_IP_HEADER_BYTES = 20 + 20 + 12           # IPv4, TCP with timestamps


def ina_program(lanes: int, build_dir: str | Path) -> Path:
    """p4/ina.p4, or for another lane count the program rendered for it, written to
    ``build_dir`` (the switch loads it like any P4 source)."""
    if lanes == ina.LANES:
        return INA_P4
    from testbed.proto import ina_p4
    path = Path(build_dir) / f"ina-{lanes}-lanes.p4"
    path.parent.mkdir(parents=True, exist_ok=True)
    text = ina_p4.render(lanes)
    if not path.is_file() or path.read_text() != text:
        path.write_text(text)
    return path


# ------------------------------------------------------------------ target only
@functools.lru_cache(maxsize=1)
def _ina_program(lanes: int):
    """ina.p4 for ``lanes`` words, lowered (the last one asked for is kept: a 2048-lane
    program takes seconds to lower)."""
    from testbed.p4.lowering.program import load_program, load_source
    if lanes == ina.LANES:
        return load_program(str(INA_P4))
    from testbed.proto import ina_p4
    return load_source(ina_p4.render(lanes), f"ina-{lanes}-lanes.p4")


def target_rate(n_workers: int, chunks: int = 400, slots: int = 64, repeats: int = 3,
                backend: str = "python", lanes: int = ina.LANES, lane_bits: int = 32) -> dict:
    """Aggregation rate of ina.p4 rendered for ``lanes`` words per packet on the software
    target's ``backend``: ``chunks`` slots completed by ``n_workers`` packets each, in
    lanes of ``lane_bits`` bits, results multicast. The python backend runs the frames
    one ``process`` call each, the native one in one batched call over frames packed
    beforehand (as the switch runs a receive ring's frames where they lie). Each of
    ``repeats`` runs takes a fresh target, runs as many earlier chunks untimed (the
    registers' memory touched, as in a switch that runs), then times its frames; the
    best is kept: the machine's other load only ever slows a run down. Per frame in and
    per lane word, the time is the pipeline's whole work for it: parse, the lanes'
    register read-add-write, and its share of the result's replicas (egress and
    deparse)."""
    from testbed.net.topology import blueprint_from_topology
    from testbed.p4.targets import make_target
    # the star's addresses and ports; its links play no part here
    job = star_job(blueprint_from_topology(star_topology(n_workers, "1Gbit", 1.0)), slots,
                   lanes=lanes)
    rng = np.random.default_rng(0)
    flags = ina.FLAG_GRADIENT | ina.lane_flag(lane_bits)
    bound = 2**20 if lane_bits == 32 else 2**11      # n workers' sum fits a lane
    values = rng.integers(-bound, bound, (n_workers, lanes * 32 // lane_bits))
    words = values.astype(np.int32) if lane_bits == 32 else ina.pack16(values)

    def frames(first: int) -> list:
        return [(w.port, ina.frame(w.mac, switch_mac(0), w.ip, AGGREGATOR, ina.encode(
                    INA_JOB, w.worker_id, flags, ina.slot_field(c % slots, (c // slots) % 2),
                    0, c, words[w.worker_id])))
                for c in range(first, first + chunks) for w in job.workers]

    warm, timed = frames(0), frames(chunks)
    program = _ina_program(lanes)
    elapsed = []
    for _ in range(repeats):
        target = make_target(program, backend)
        ctl.setup(TargetDevice(target), job)
        if backend == "native":
            batches, run = [target.pack(warm), target.pack(timed)], target.process_packed
        else:
            batches = [warm, timed]

            def run(batch, process=target.process):
                return sum(len(process(frame, port)) for port, frame in batch)
        for timing in (False, True):
            start = time.perf_counter()
            out = run(batches[timing])
            if timing:
                elapsed.append(time.perf_counter() - start)
            if out != chunks * n_workers:
                raise TrainetError(f"target benchmark: expected {chunks * n_workers} result "
                                   f"packets, got {out}; p4/ina.p4 and controllers/ina.py "
                                   "disagree")
    best = min(elapsed)
    return {"workers": n_workers, "backend": backend, "chunks": chunks, "seconds": best,
            "repeats": repeats, "lanes": lanes, "lane_bits": lane_bits,
            "packets_in_per_s": len(timed) / best,
            "ns_per_frame_in": best / len(timed) * 1e9,
            "ns_per_lane_word": best / len(timed) / lanes * 1e9,
            "elements_per_s": chunks * values.shape[1] / best,
            "input_elements_per_s": len(timed) * values.shape[1] / best}


def _backends() -> list[str]:
    """python, and native where this machine can compile it."""
    from testbed.p4.native.build import NoCompiler, compiler
    try:
        compiler()
    except NoCompiler:
        return ["python"]
    return ["python", "native"]


# ------------------------------------------------------------------ emulated fabric
def star_topology(n_workers: int, bw: str, scale: float, loss_pct: float = 0.0,
                  delay: str | None = None, mtu: int = 1500, program: Path = INA_P4):
    """One ina.p4 switch s1 (``program``: p4/ina.p4 or one rendered for another lane
    count), hosts h1..hN on ports 1..N in 10.0.0.0/24, links of ``mtu`` bytes, routed by
    shortest path; the aggregator address lies outside the subnet, behind the gateway
    (the switch, whose MAC is ``switch_mac(0)``)."""
    from testbed.topology.spec import Topology
    link = {"bw": bw, "mtu": mtu}
    if loss_pct:
        link["loss"] = loss_pct
    if delay:
        link["delay"] = delay
    return Topology.from_data({
        "name": f"ina-star-{n_workers}", "scale": scale, "program": str(program),
        "routing": "shortest-path",
        "hosts": [{"name": f"h{i}", "ip": f"10.0.0.{i}/24", "mac": f"08:00:00:00:00:{i:02x}",
                   "gateway": GATEWAY, "gateway_mac": switch_mac(0)}
                  for i in range(1, n_workers + 1)],
        "switches": [{"name": SWITCH}],
        "links": [{"a": f"h{i}", "b": f"{SWITCH}-p{i}", **link}
                  for i in range(1, n_workers + 1)],
    })


def star_job(blueprint, slots: int, switch: str = SWITCH, lanes: int = ina.LANES) -> ctl.Job:
    """The INA job of every host of a star's network ``blueprint`` (worker w: the w-th
    host), in packets of ``lanes`` words."""
    from testbed.experiment.jobs import job_workers
    hosts = [h.name for h in blueprint.hosts]
    return ctl.Job(INA_JOB, AGGREGATOR, job_workers(blueprint, switch, hosts), 0, slots,
                   lanes=lanes)


def ina_commands(job: ctl.Job, hosts: list[str], elements: int, rounds: int, seed: int = 0,
                 check: bool = False, client: str = "auto", dtype: str = "fp32",
                 warmup: int = 0) -> dict:
    """The INA all-reduce of ``job`` on ``hosts`` (host ``hosts[w]`` is worker ``w``);
    ``client``: who runs the workers' window loop (hosts/ina_native.py)."""
    py = sys.executable
    return {h: [py, "-m", "hosts.ina_allreduce", "--job", str(job.job_id), "--worker",
                str(w), "--workers", str(len(hosts)), "--aggregator", job.aggregator_ip,
                "--elements", str(elements), "--rounds", str(rounds), "--slots",
                str(job.slot_count), "--seed", str(seed), "--client", client,
                "--dtype", dtype, "--warmup", str(warmup), "--lanes", str(job.lanes)]
            + (["--check"] if check else [])
            for w, h in enumerate(hosts)}


def gloo_commands(net, hosts: list[str], elements: int, rounds: int, port: int,
                  dtype: str = "fp32", warmup: int = 0) -> dict:
    """gloo's ring all-reduce on ``hosts``, rank 0 (``hosts[0]``) the rendezvous."""
    py = sys.executable
    master = net.net[hosts[0]].IP()
    return {h: [py, "-m", "hosts.gloo_allreduce", "--rank", str(rank), "--world",
                str(len(hosts)), "--master", master, "--port", str(port),
                "--elements", str(elements), "--rounds", str(rounds), "--dtype", dtype,
                "--warmup", str(warmup)]
            for rank, h in enumerate(hosts)}


def round_time(results: dict) -> float:
    """The slowest worker's time for its back-to-back timed rounds, per round."""
    return max(r["round_ends_s"][-1] / len(r["round_ends_s"]) for r in results.values())


def bytes_per_worker(results: dict) -> dict:
    """Mean over workers of the bytes per round their interfaces sent (tx) and received
    (rx) during the timed rounds."""
    n = len(results)
    return {d: sum(r[f"{d}_bytes"] / len(r["round_ends_s"]) for r in results.values()) / n
            for d in ("tx", "rx")}


def workers_cpu_per_round(results: dict) -> float:
    """The CPU seconds all workers' processes together spent per timed round (each
    worker's own count over its timed rounds, divided by their number): on a machine
    with fewer cores than workers this is what the workers take from the links' pace."""
    return sum(r["process_cpu_s"] / len(r["round_ends_s"]) for r in results.values())


def packet_thread_cpu_s(pid: int) -> float:
    """CPU time of switch process ``pid``'s packet loop, in seconds: its main thread, which
    runs SoftwareSwitch.run (the P4Runtime server's threads are others), from the
    scheduler's nanosecond count of time on a CPU (/proc/PID/task/PID/schedstat). Kernel
    work done on its behalf (sendmmsg handing frames to the veths) is in it."""
    return int(Path(f"/proc/{pid}/task/{pid}/schedstat").read_text().split()[0]) / 1e9


def switch_counters(net, run) -> tuple:
    """``run()``'s result and what the switch did meanwhile, from its own counters
    (testbed/switch/stats.py, asked for before and after): frames in and out, the packet
    loop's wake-ups, native calls and calls that found every ring empty; the loop
    thread's CPU per frame in the pipeline (per frame in), in sending (per frame the
    native code sent) and in all (per frame in or out); the whole machine's busy CPU per
    frame in or out during the timed rounds (the largest of the workers' counts, each over
    its own timed rounds, over the frames all workers sent and received then). The loop
    waits in poll when no frame is there, so the hosts' start-up costs it nothing."""
    from testbed.switch import stats as switch_stats
    pid, path = net.state.switches[SWITCH], net.net.get(SWITCH).stats_path
    before = switch_stats.request(pid, path)
    result = run()
    after = switch_stats.request(pid, path)
    machine = max(r["machine_busy_s"] for r in result.values())
    timed_frames = sum(r["tx_frames"] + r["rx_frames"] for r in result.values())

    def delta(key):
        return after.get(key, 0) - before.get(key, 0)

    def ports(key):
        return sum(p[key] for p in after["ports"].values()) - sum(
            p[key] for p in before["ports"].values())

    frames_in, frames_out = ports("frames_in"), ports("frames_out")
    frames = frames_in + frames_out

    def per(ns, n):
        return ns / 1e3 / n if n else float("nan")

    return result, {
        "frames_in": frames_in, "frames_out": frames_out, "wakeups": delta("wakeups"),
        "calls": delta("calls"), "empty_calls": delta("empty_calls"),
        "pipeline_us_per_frame_in": per(delta("pipeline_ns"), delta("frames_in")),
        "send_us_per_frame_sent": per(delta("send_ns"), delta("frames_out")),
        "loop_cpu_us_per_frame": per(delta("loop_cpu_ns"), frames),
        "machine_cpu_us_per_frame": per(machine * 1e9, timed_frames)}


def frame_bytes(lanes: int = ina.LANES) -> int:
    """One INA packet of ``lanes`` words on the wire."""
    return ina.FRAME_OFFSET + ina.payload_bytes(lanes)


FRAME_BYTES = frame_bytes()                               # the default program's


def tcp_frame_overhead(mtu: int = 1500) -> float:
    """Bytes on the wire per byte of TCP payload in full segments of links of ``mtu``."""
    return (mtu + ETHERNET_HEADER_BYTES) / (mtu - TCP_IP_HEADER_BYTES)


def ina_wire_bytes(elements: int, lane_bits: int = 32, lanes: int = ina.LANES,
                   slots: int = 32) -> int:
    """Bytes of the frames each worker sends (and receives) in an INA all-reduce: one
    packet of ``lanes`` words per chunk of lanes of ``lane_bits`` bits, the last of the
    lane groups its values need, and the exponent packets of the first window's blocks
    (one lane each, hosts/ina_allreduce.py)."""
    per = ina.lanes_per_packet(lane_bits, lanes)
    chunks = -(-elements // per)
    tail = -(-(elements - (chunks - 1) * per) * lane_bits // 32)
    head = min(slots, chunks)
    exponent_frames = [frame_bytes(lanes)] * (head // lanes) + \
        ([frame_bytes(ina.group_words(head % lanes))] if head % lanes else [])
    return ((chunks - 1) * frame_bytes(lanes) + frame_bytes(ina.group_words(tail))
            + sum(exponent_frames))


def ina_frames(elements: int, lane_bits: int = 32, lanes: int = ina.LANES,
               slots: int = 32) -> int:
    """How many frames :func:`ina_wire_bytes` counts: one per chunk and the exponent
    packets of the first window's blocks."""
    chunks = -(-elements // ina.lanes_per_packet(lane_bits, lanes))
    return chunks + -(-min(slots, chunks) // lanes)


def ina_link_time(elements: int, rate_bps: float, lane_bits: int = 32,
                  lanes: int = ina.LANES, slots: int = 32) -> float:
    """Lower bound of an INA all-reduce on links of ``rate_bps``: every worker sends (and,
    on the other direction of its full-duplex link, receives) :func:`ina_wire_bytes`."""
    return ina_wire_bytes(elements, lane_bits, lanes, slots) * 8 / rate_bps


def ring_link_time(elements: int, n_workers: int, rate_bps: float,
                   element_bytes: int = 4, mtu: int = 1500) -> float:
    """Lower bound of a ring all-reduce: 2 (n - 1) / n of the tensor over each link, in
    TCP segments of links of ``mtu``."""
    return (2 * (n_workers - 1) / n_workers * elements * element_bytes
            * tcp_frame_overhead(mtu) * 8 / rate_bps)


@contextlib.contextmanager
def background_load(on: bool = True):
    """While open, one more process spins on the CPU (a second load on the machine, as
    another job would be); stopped and reaped on exit. Yields that process, or None when
    ``on`` is False and nothing runs."""
    if not on:
        yield None
        return
    burner = subprocess.Popen([sys.executable, "-c", "while True: pass"],
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    try:
        yield burner
    finally:
        burner.kill()
        burner.wait()


def fabric_rows(n_workers: int, sizes_mb: list, bw: str, scale: float, rounds: int,
                slots: int, results_dir: str, log, clients: list, dtype: str = "fp32",
                warmup: int = 1, loads: tuple = (False,), mtu: int = 1500,
                lanes: int | None = None) -> list:
    """One row per tensor size, INA client (``clients``) and load (``loads``: False, the
    machine as it is; True, with :func:`background_load`), each against gloo measured
    once per size and load in the same network (links of ``mtu`` bytes, INA's packets
    as many lanes as they carry, or ``lanes``), both with ``warmup`` untimed rounds and ``rounds``
    timed ones of ``dtype`` tensors."""
    from hosts.round_timing import DTYPES
    from testbed.experiment.jobs import job_on
    from testbed.net.network import Network
    from testbed.net.topology import blueprint_from_topology
    from testbed.units import parse_rate
    lanes = lanes or ina.lanes_for_mtu(mtu)
    program = ina_program(lanes, Path(results_dir) / "build")
    topo = star_topology(n_workers, bw, scale, mtu=mtu, program=program)
    hosts = [h.name for h in topo.hosts]
    rows = []
    with Network(blueprint_from_topology(topo, topo.name), results_dir, log=log) as net:
        job = star_job(net.blueprint, slots, lanes=lanes)
        cases = [(mb, loaded) for mb in sizes_mb for loaded in loads]
        for k, (mb, loaded) in enumerate(cases):
            nominal_bytes = mb * 2**20
            element_bytes = DTYPES[dtype].itemsize
            elements = max(int(nominal_bytes * scale / element_bytes), 1)
            log(f"  {n_workers} workers, {mb} MB nominal {dtype} = "
                f"{elements * element_bytes} B emulated"
                f"{', with a background load' if loaded else ''} ...")
            ina_runs = {}
            with background_load(loaded):
                for client in clients:
                    with job_on(net, SWITCH, ctl, job):    # new workers need clean slots
                        ina_runs[client] = switch_counters(net, lambda: run_json(
                            net, ina_commands(job, hosts, elements, rounds, client=client,
                                              dtype=dtype, warmup=warmup), timeout_s=300))
                gloo_res, gloo_sw = switch_counters(net, lambda: run_json(
                    net, gloo_commands(net, hosts, elements, rounds, 29500 + k, dtype,
                                       warmup), timeout_s=300))
            t_gloo = round_time(gloo_res)
            gloo_bytes = bytes_per_worker(gloo_res)
            rate = parse_rate(bw) * scale
            ring_bound = ring_link_time(elements, n_workers, rate, element_bytes, mtu)
            for client, (ina_res, ina_sw) in ina_runs.items():
                wire = (next(iter(ina_res.values()))["lane_bits"], lanes, slots)
                t_ina = round_time(ina_res)
                ina_bytes = bytes_per_worker(ina_res)
                rows.append({
                    "workers": n_workers, "nominal_MB": mb, "dtype": dtype,
                    "background_load": loaded, "mtu": mtu, "ina_lanes": lanes,
                    "ina_frame_bytes": frame_bytes(lanes),
                    "ina_mean_frame_bytes": ina_wire_bytes(elements, *wire) / ina_frames(
                        elements, *wire),
                    "emulated_bytes": elements * element_bytes, "rounds": rounds,
                    "warmup_rounds": warmup,
                    "ina_client": next(iter(ina_res.values()))["client"],
                    "elements": elements, "link_nominal_bps": parse_rate(bw),
                    "link_emulated_bps": rate,
                    "ina_s": t_ina, "gloo_s": t_gloo,
                    "ina_lane_bits": next(iter(ina_res.values()))["lane_bits"],
                    "ina_link_bound_s": ina_link_time(
                        elements, rate, next(iter(ina_res.values()))["lane_bits"], lanes,
                        slots),
                    "ring_link_bound_s": ring_bound,
                    "gloo_over_ring_bound": t_gloo / ring_bound,
                    "ina_tx_bytes_per_worker": ina_bytes["tx"],
                    "ina_rx_bytes_per_worker": ina_bytes["rx"],
                    "gloo_tx_bytes_per_worker": gloo_bytes["tx"],
                    "gloo_rx_bytes_per_worker": gloo_bytes["rx"],
                    "ina_over_gloo_bytes": max(ina_bytes.values()) / max(gloo_bytes.values()),
                    "ina_workers_cpu_s_per_round": workers_cpu_per_round(ina_res),
                    "gloo_workers_cpu_s_per_round": workers_cpu_per_round(gloo_res),
                    "switch_cpu_us_per_frame_ina": ina_sw["loop_cpu_us_per_frame"],
                    "switch_cpu_us_per_frame_gloo": gloo_sw["loop_cpu_us_per_frame"],
                    "switch_ina": ina_sw, "switch_gloo": gloo_sw,
                    "ina_algbw_nominal_Gbps": nominal_bytes * 8 / t_ina / 1e9,
                    "gloo_algbw_nominal_Gbps": nominal_bytes * 8 / t_gloo / 1e9,
                    "speedup_ina_over_gloo": t_gloo / t_ina,
                    "ina_retransmissions": sum(r["retransmissions"] for r in ina_res.values())})
    return rows


# ------------------------------------------------------------------ command
def _load(row: dict) -> str:
    """'+1' for a row measured with the background load, '-' for one without."""
    return "+1" if row.get("background_load") else "-"


def _render(report: dict) -> str:
    lines = ["switch aggregation rate on the P4 target (one core, no network), per frame "
             "in: parse, the lanes' register read-add-write, its share of the result's "
             "replicas:"]
    python = {r["workers"]: r for r in report["target"] if r["backend"] == "python"}
    for r in report["target"]:
        ratio = python[r["workers"]]["seconds"] / r["seconds"]
        lines.append(f"  {r['backend']:>6} {r['workers']} workers: "
                     f"{r['ns_per_frame_in']:9.0f} ns/frame, {r['ns_per_lane_word']:6.2f} "
                     f"ns/lane word ({r['lanes']} words of {32 // r['lane_bits']} "
                     f"{r['lane_bits']}-bit lanes); "
                     f"{r['elements_per_s'] / 1e6:8.2f} M elements/s aggregated "
                     f"({r['packets_in_per_s']:9.0f} packets/s in; {ratio:5.1f}x python)")
    python = {r["client"]: r for r in report["client"]}.get("python")
    lines.append("worker window loop, CPU time per packet (one worker, a loopback peer that "
                 "answers at once):")
    for r in report["client"]:
        ratio = (f" ({python['cpu_s'] / r['cpu_s']:4.1f}x less than python)"
                 if python and r is not python else "")
        lines.append(f"  {r['client']:>6}: {r['cpu_us_per_packet']:6.1f} us/packet over "
                     f"{r['chunks']} packets{ratio}")
    if report.get("fabric"):
        r0 = report["fabric"][0]
        if any(r.get("background_load") for r in report["fabric"]):
            lines.append("load '+1': measured with one more process spinning on a core for "
                         "both sides' runs; '-': the machine as it was")
        lines.append(f"all-reduce on the emulated star: links {r0['link_nominal_bps'] / 1e9:g} "
                     f"Gb/s nominal = {r0['link_emulated_bps'] / 1e6:g} Mb/s emulated "
                     f"(co-scaling {report['scale']:g}), MTU {r0['mtu']} B on both sides "
                     f"(INA: {r0['ina_lanes']} lane words, full frames of "
                     f"{r0['ina_frame_bytes']} B, a tensor's last and the exponent rounds' "
                     f"shorter: 'B/frame'); {r0['dtype']} tensors; "
                     f"{r0['warmup_rounds']} warm-up and {r0['rounds']} timed rounds back to "
                     "back on both sides, a round = the slowest worker's time / rounds; "
                     "times are wall-clock = nominal; 'bound' is the link-only time")
        lines.append("  workers  tensor(nominal)  load  emulated  client/lanes  INA time (bound)"
                     "     gloo time (bound, x bound)    INA algbw    gloo algbw   gloo/INA")
        for r in report["fabric"]:
            lines.append(
                f"  {r['workers']:7d}  {r['nominal_MB']:9g} MB  {_load(r):>4}  "
                f"{r['emulated_bytes']:8d} B  "
                f"{r['ina_client']:>6}/{r['ina_lane_bits']}b  "
                f"{r['ina_s'] * 1e3:8.1f} ms ({r['ina_link_bound_s'] * 1e3:6.1f} ms)  "
                f"{r['gloo_s'] * 1e3:8.1f} ms ({r['ring_link_bound_s'] * 1e3:6.1f} ms, "
                f"{r['gloo_over_ring_bound']:4.1f}x)  "
                f"{r['ina_algbw_nominal_Gbps']:7.2f} Gb/s  {r['gloo_algbw_nominal_Gbps']:7.2f} "
                f"Gb/s  {r['speedup_ina_over_gloo']:6.2f}x")
        lines.append("  bytes per worker per round on its link, measured (emulated), the "
                     "switch's CPU per frame its ports carried and all workers' processes' "
                     "CPU per round")
        lines.append("  workers  tensor(nominal)  load  client   INA tx / rx            "
                     "gloo tx / rx           INA/gloo  switch CPU/frame INA, gloo  "
                     "workers' CPU/round INA, gloo   INA B/frame sent")
        for r in report["fabric"]:
            lines.append(
                f"  {r['workers']:7d}  {r['nominal_MB']:9g} MB  {_load(r):>4}  "
                f"{r['ina_client']:>6}  "
                f"{r['ina_tx_bytes_per_worker']:9.0f} / {r['ina_rx_bytes_per_worker']:9.0f} B  "
                f"{r['gloo_tx_bytes_per_worker']:9.0f} / {r['gloo_rx_bytes_per_worker']:9.0f} B  "
                f"{r['ina_over_gloo_bytes']:6.2f}x  "
                f"{r['switch_cpu_us_per_frame_ina']:6.2f} us, "
                f"{r['switch_cpu_us_per_frame_gloo']:6.2f} us  "
                f"{r.get('ina_workers_cpu_s_per_round', float('nan')) * 1e3:7.2f} ms, "
                f"{r.get('gloo_workers_cpu_s_per_round', float('nan')) * 1e3:7.2f} ms  "
                f"{r.get('ina_mean_frame_bytes', float('nan')):8.0f} B")
        lines += _switch_lines(report["fabric"])
    elif report.get("fabric_skipped"):
        lines.append(f"emulated fabric: skipped ({report['fabric_skipped']})")
    return "\n".join(lines)


def _switch_lines(rows: list) -> list:
    """The switch's own counters during each INA run; the machine's CPU per frame beside
    its packet loop's, since work the loop hands to other threads is not in the loop's."""
    lines = ["  the switch during INA's run, its own counters: frames in / out, packet-loop "
             "wake-ups, native calls (of them with every ring empty); its loop thread's CPU "
             "per frame in the pipeline (per frame in), sending (per frame sent) and in all "
             "(per frame in or out); the machine's busy CPU per frame the workers sent or "
             "received in the timed rounds",
             "  workers  tensor(nominal)  load  client  frames in / out    wake-ups  "
             "calls (empty)       pipeline    send  loop CPU  machine CPU"]
    for r in rows:
        c = r.get("switch_ina")
        if c is None:
            continue
        lines.append(
            f"  {r['workers']:7d}  {r['nominal_MB']:9g} MB  {_load(r):>4}  "
            f"{r['ina_client']:>6}  {c['frames_in']:7d} / {c['frames_out']:7d}  "
            f"{c['wakeups']:8d}  {c['calls']:7d} {'(%d)' % c['empty_calls']:>9}  "
            f"{c['pipeline_us_per_frame_in']:6.2f} us  {c['send_us_per_frame_sent']:6.2f} us  "
            f"{c['loop_cpu_us_per_frame']:6.2f} us  {c['machine_cpu_us_per_frame']:6.2f} us")
    return lines


def _lanes_arg(text: str | None, mtu: int) -> int | None:
    """``--lanes``: a lane count in whole groups whose frames fit ``mtu``, or ``fill``
    (as many whole groups as fit); None without it."""
    if text is None:
        return None
    try:
        lanes = ina.lanes_for_mtu(mtu, whole_groups=True) if text == "fill" else \
            ina.check_grouped(int(text))
    except ValueError as e:
        raise TrainetError(f"--lanes {text}: {e}; or give fill") from None
    if ina.IP_UDP_BYTES + ina.payload_bytes(lanes) > mtu:
        raise TrainetError(f"--lanes {text}: {ina.payload_bytes(lanes)} B of INA payload do "
                           f"not fit the MTU of {mtu} B; at most "
                           f"{ina.lanes_for_mtu(mtu, whole_groups=True)} lanes (fill)")
    return lanes



def main(args) -> int:
    workers = args.workers or [2, 4, 8]
    # the C window loop builds where the native backend does
    args.ina_clients = getattr(args, "ina_clients", None) or (
        ["native", "python"] if "native" in _backends() else ["python"])
    mtu = getattr(args, "mtu", None) or DEFAULT_MTU
    dtype = getattr(args, "dtype", None) or "bf16"
    try:
        lanes = ina.lanes_for_mtu(mtu)
        if mtu > ina.MAX_MTU:
            raise ValueError(f"MTU {mtu} B: links take at most {ina.MAX_MTU} B")
    except ValueError as e:
        raise TrainetError(f"--mtu: {e}") from None
    lanes = _lanes_arg(getattr(args, "lanes", None), mtu) or lanes
    report = {"lanes_per_packet": lanes, "mtu": mtu, "scale": args.scale, "link": args.bw,
              "target": [target_rate(n, backend=b, lanes=lanes,
                                     lane_bits=16 if dtype == "bf16" else 32)
                         for n in workers for b in _backends()],
              "client": client_cost(args.ina_clients)}
    log = (lambda *a: print(*a, file=sys.stderr)) if args.json else print
    if args.target_only:
        report["fabric_skipped"] = "--target-only"
    elif os.geteuid() != 0:
        report["fabric_skipped"] = "needs root for Mininet; run as root"
    else:
        report["fabric"] = []
        for n in workers:
            report["fabric"] += fabric_rows(n, args.sizes_mb, args.bw, args.scale, args.rounds,
                                            args.slots, args.results, log, args.ina_clients,
                                            dtype, args.warmup,
                                            (False, True) if getattr(
                                                args, "background_load", False) else (False,),
                                            mtu, lanes)
    print(json.dumps(report, indent=2) if args.json else _render(report))
    return 0
