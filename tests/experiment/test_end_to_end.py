"""On emulated networks: ``trainet run experiments/demo.yaml``, ``trainet report`` and
``trainet trace export``, a run stopped by SIGTERM, and ``trainet inspect`` on captures
of a real INA all-reduce."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from testbed.cli import main
from testbed.experiment import results
from testbed.experiment.inspect import read_capture, summarize
from testbed.experiment.spec import load_experiment
from testbed.net.host_programs import run_json
from testbed.trace import chakra
from testbed.trace.schema import et_def_pb2 as et

pytestmark = [pytest.mark.root, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "experiments" / "demo.yaml"
INA_VS_RING = REPO / "experiments" / "ina-vs-ring.yaml"


def renamed_copy(tmp_path, source: Path = DEMO) -> Path:
    """An experiment with its generated topology written out and the switch renamed s8
    (own gRPC port): the same experiment, runnable next to a network of s1."""
    data = yaml.safe_load(source.read_text())
    topo = load_experiment(source).topology.model_dump(mode="json")
    topo["switches"][0].update(name="s8", grpc_port=50598, device_id=8)
    topo["links"] = [{**link, "b": link["b"].replace("s1-", "s8-")} for link in topo["links"]]
    data["topology"] = topo
    path = tmp_path / source.name
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def leftover_interfaces() -> list[str]:
    """Interfaces of the tests' switch s8 (other networks may come and go meanwhile)."""
    return [name for name in os.listdir("/sys/class/net") if name.startswith("s8-")]


def processes_mentioning(text: str) -> list[int]:
    pids = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        if text.encode() in cmdline and int(pid) != os.getpid():
            pids.append(int(pid))
    return pids


def test_demo_runs_and_reports(tmp_path):
    out = tmp_path / "demo"
    start = time.monotonic()
    assert main(["run", str(renamed_copy(tmp_path)), "-o", str(out)]) == 0
    elapsed = time.monotonic() - start
    assert elapsed < 180, f"the demo took {elapsed:.0f} s"
    assert results.read_status(out)["status"] == "completed"
    rows = {(r["variant"], r["strategy"]): r for r in results.read_summary(out)}
    assert len(rows) == 4
    for strategy in ("ddp", "zero3"):
        slow, fast = rows[("bandwidth-100Gbit", strategy)], rows[("bandwidth-200Gbit", strategy)]
        assert fast["exposed_comm_s"] < slow["exposed_comm_s"]
        assert fast["step_time_s"] < slow["step_time_s"]
        assert fast["sent_per_step_nominal_B"] == slow["sent_per_step_nominal_B"]
    # ZeRO-3 moves 3 (N-1)/N of the model per step, DDP 2 (N-1)/N
    ratio = rows[("bandwidth-100Gbit", "zero3")]["sent_per_step_nominal_B"] / \
        rows[("bandwidth-100Gbit", "ddp")]["sent_per_step_nominal_B"]
    assert ratio == pytest.approx(1.5, rel=0.01)
    links = results.read_links(out / "runs" / "bandwidth-100Gbit" / "ddp" / "rep0")
    assert {s["interface"] for s in links} == {"s8-eth1", "s8-eth2", "s8-eth3"}
    assert leftover_interfaces() == []
    assert processes_mentioning(str(out)) == []
    assert main(["report", str(out)]) == 0
    md = (out / "report.md").read_text()
    assert "Status: **completed**" in md and "| bandwidth-200Gbit | zero3 |" in md
    for name in ("step_breakdown", "speedup_bandwidth", "links_bandwidth-100Gbit"):
        assert (out / "plots" / f"{name}.png").stat().st_size > 10_000
    # the workers' timelines as Chakra traces: ZeRO-3 gathers 2 M and reduce-scatters M
    # per step, and its compute nodes add up to the compute it measured
    assert main(["trace", "export", str(out), "-o", str(tmp_path / "traces")]) == 0
    assert len(list((tmp_path / "traces").rglob("*.et"))) == 4 * 3
    records = results.measured_steps(results.read_metrics(
        out / "runs" / "bandwidth-100Gbit" / "zero3" / "rep0")[0])
    _, nodes = chakra.read(tmp_path / "traces" / "bandwidth-100Gbit" / "zero3-rep0.0.et")
    sizes = {}
    for n in nodes:
        if n.type == et.COMM_COLL_NODE:
            kind = chakra.attribute(n, "comm_type")
            sizes[kind] = sizes.get(kind, 0) + chakra.attribute(n, "comm_size")
    m = 2 * 1.3e9 * len(records)
    assert sizes == {et.ALL_GATHER: pytest.approx(2 * m, rel=0.01),
                     et.REDUCE_SCATTER: pytest.approx(m, rel=0.01)}
    compute = sum(n.duration_micros for n in nodes if n.type == et.COMP_NODE) / 1e6
    assert compute == pytest.approx(sum(r["compute_s"] + r["interference_s"]
                                        for r in records), abs=0.01)


def test_ina_against_the_ring(tmp_path):
    out = tmp_path / "ina"
    assert main(["run", str(renamed_copy(tmp_path, INA_VS_RING)), "-o", str(out)]) == 0
    rows = {r["strategy"]: r for r in results.read_summary(out)}
    assert set(rows) == {"ina", "ddp"}
    # ina: every worker sends each bf16 gradient once, in 16-bit lanes; the ring sends
    # 2 (N-1)/N of the bf16 model
    ratio = rows["ina"]["sent_per_step_nominal_B"] / rows["ddp"]["sent_per_step_nominal_B"]
    assert ratio == pytest.approx(1 / (2 * 2 / 3), rel=0.01)
    assert leftover_interfaces() == []
    assert main(["report", str(out)]) == 0
    md = (out / "report.md").read_text()
    section = md.split("## In-network aggregation (switch captures)")[1].split("##")[0]
    (row,) = [line for line in section.splitlines() if line.startswith("| base | 1 | 3 |")]
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert int(cells[3]) > 0 and cells[4] == "0"          # rounds, none without result


def test_sigterm_stops_a_run_and_leaves_a_clean_system(tmp_path):
    out = tmp_path / "stopped"
    cmd = [sys.executable, "-m", "testbed.cli", "run", str(renamed_copy(tmp_path)), "-o",
           str(out)]
    proc = subprocess.Popen(cmd, cwd=str(REPO), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        metrics = out / "runs" / "bandwidth-100Gbit" / "ddp" / "rep0" / "metrics"
        while not any(metrics.glob("*.jsonl")):
            assert proc.poll() is None, proc.stdout.read().decode()
            assert time.monotonic() < deadline, "the workers never started"
            time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)
        output = proc.communicate(timeout=60)[0].decode()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, output
    status = results.read_status(out)
    assert status["status"] == "interrupted" and "SIGTERM" in status["error"]
    assert leftover_interfaces() == []
    assert processes_mentioning(str(out)) == []
    assert main(["report", str(out)]) == 0
    assert "Status: **interrupted**" in (out / "report.md").read_text()


def test_inspect_captures_of_an_ina_all_reduce(tmp_path):
    from controllers import ina as ctl
    from testbed.bench import allreduce as bench
    from testbed.net.network import Network
    from testbed.net.topology import blueprint_from_topology
    from testbed.proto import ina
    from testbed.topology.spec import Topology

    workers, elements, slots, rounds = 3, 3000, 8, 2
    topo = bench.star_topology(workers, "50Mbit", 1.0, loss_pct=2.0)
    # switch s8 on its own gRPC port, so that a network of s1 elsewhere is no obstacle
    data = topo.model_dump(mode="json")
    data["switches"][0].update(name="s8", grpc_port=50598, device_id=8)
    data["links"] = [{**link, "b": link["b"].replace("s1-", "s8-")} for link in data["links"]]
    topo = Topology.from_data(data)
    with Network(blueprint_from_topology(topo, topo.name), tmp_path, pcap=True,
                 log=lambda *a: None) as net:
        job = bench.star_job(net.blueprint, slots, switch="s8")
        s8 = net.net["s8"]
        ctl.install(s8.grpc_address, s8.device_id, {"jobs": [{
            "job_id": job.job_id, "aggregator_ip": job.aggregator_ip, "slot_count": slots,
            "workers": [vars(w) for w in job.workers]}]})
        reports = run_json(net, bench.ina_commands(
            job, [h.name for h in topo.hosts], elements, rounds=rounds, seed=3), timeout_s=240)
    captures = [read_capture(p) for p in sorted((tmp_path / "pcaps").glob("s8-*.pcap"))]
    summary = summarize(captures)
    (job_summary,) = summary["jobs"]
    # an exponent chunk per round, and the closing barrier's chunk
    chunks = rounds * (1 + -(-elements // ina.LANES)) + 1
    assert job_summary["job"] == bench.INA_JOB and job_summary["workers"] == [0, 1, 2]
    assert (job_summary["rounds"], job_summary["incomplete_rounds"]) == (chunks, 0)
    assert job_summary["retransmissions"] == sum(r["retransmissions"] for r in reports.values())
    assert job_summary["gradients"] == workers * chunks + job_summary["retransmissions"]
    assert job_summary["results"] >= workers * chunks
    assert len(job_summary["slots"]) == slots
    assert 0 < job_summary["latency_s"]["p50"] < 1.0
    ports = {(c["interface"], c["direction"]): c for c in summary["captures"]}
    assert ports[("s8-eth1", "in")]["ina_frames"] >= chunks
    mine = summarize(captures, worker=2)["jobs"][0]
    assert mine["gradients"] == chunks + reports["h3"]["retransmissions"]
    print(json.dumps({k: job_summary[k] for k in ("rounds", "gradients", "results",
                                                  "retransmissions", "duplicates",
                                                  "latency_s")}))
