"""The optimizer in the switch on an emulated star: three workers (python -m hosts.worker
--strategy luwu-sgd) behind the software P4 switch s9 running p4/luwu_sgd.p4, which
holds the parameters and the momentum; no optimizer node. fp32 workers push 32-bit
lanes; bf16 workers (shadow ones here) 16-bit lanes, against 32-bit ones in the same run
for the bytes and the step time."""
import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest
import torch

from controllers import luwu_sgd
from hosts import shadow
from hosts.luwu_layout import Layout, initial_parameters, shadow_layout
from hosts.models import SyntheticCorpus, build_model
from luwu_sgd_setup import LUWU_SGD_P4
from testbed.experiment.jobs import job_on, job_workers
from testbed.proto import ina
from testbed.proto import luwu_sgd as sfx
from tests.net.helpers import REPO, Snapshot, free_port

pytestmark = [pytest.mark.root, pytest.mark.slow]

WORKERS = ["w1", "w2", "w3"]
STEPS, BATCH, LR, MU = 5, 4, 0.05, 0.9
AGGREGATOR = "10.0.255.1"


@pytest.fixture(scope="module")
def net(tmp_path_factory):
    from testbed.net.network import Network
    from testbed.net.topology import blueprint_from_topology
    from testbed.topology.generators import star
    snap = Snapshot("s9")
    plan = blueprint_from_topology(star(workers=3, nic="roce-100g", scale=1e-2,
                                        program=str(LUWU_SGD_P4)), "star-luwu-sgd")
    switch = plan.switches[0]
    old, switch.name, switch.grpc_port, switch.device_id = switch.name, "s9", free_port(), 9
    for link in plan.links:
        link.a = "s9" if link.a == old else link.a
        link.b = "s9" if link.b == old else link.b
    with Network(plan, tmp_path_factory.mktemp("luwu-sgd")) as network:
        yield network
    assert snap.leftovers() == {}


REAL = ["--model", "gpt", "--steps", str(STEPS), "--batch", str(BATCH), "--seed", "0"]


def run_workers(net, out, timeout_s=120.0, args=REAL):
    """Start the workers on their hosts with ``args``, wait for all; their return codes."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1"}
    master = f"{net.net[WORKERS[0]].IP()}:{free_port()}"
    procs = []
    for rank, host in enumerate(WORKERS):
        cmd = [sys.executable, "-m", "hosts.worker", "--rank", str(rank), "--world-size",
               str(len(WORKERS)), "--master", master, "--strategy", "luwu-sgd",
               *args,
               "--ina-aggregator", AGGREGATOR, "--ina-job", "1", "--ina-slots", "32",
               "--timeout", "60", "--metrics-out", str(out / f"rank{rank}.jsonl")]
        log = (out / f"{host}.log").open("wb")
        procs.append((net.net[host].popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                          stdin=subprocess.DEVNULL, env=env, cwd=str(REPO)),
                      log))
    deadline = time.monotonic() + timeout_s
    try:
        return [p.wait(timeout=max(deadline - time.monotonic(), 0.1)) for p, _ in procs]
    finally:
        for p, log in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
            log.close()


def single_process(world):
    """The same training in one process with torch.optim.SGD(momentum), float32."""
    corpus = SyntheticCorpus(0)
    model = build_model("gpt", 0)
    opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=MU)
    for s in range(STEPS):
        x, y = corpus.batch(s, 0, 1, BATCH * world, 32)
        opt.zero_grad()
        model.loss(model(x), y).backward()
        opt.step()
    return [p.detach() for p in model.parameters()]


def test_workers_train_with_the_optimizer_in_the_switch(net, tmp_path):
    switch = net.blueprint.switches[0].name
    job = luwu_sgd.SgdJob(1, AGGREGATOR, job_workers(net.blueprint, switch, WORKERS),
                          lr=LR, momentum=MU, slot_count=32)
    initial = initial_parameters("gpt", 0)
    started = time.monotonic()
    with job_on(net, switch, luwu_sgd, job, initial) as device:
        setup_s = time.monotonic() - started
        started = time.monotonic()
        written = luwu_sgd.read_fixed(device, job)         # the checkpoint of step 0
        read_s = time.monotonic() - started
        assert np.array_equal(written, sfx.to_fixed(initial))
        codes = run_workers(net, tmp_path)
        final = luwu_sgd.read_params(device, job)
        drops, handled = luwu_sgd.drop_counts(device), luwu_sgd.handled_counts(device)
    logs = "\n".join((tmp_path / f"{h}.log").read_text() for h in WORKERS)
    assert codes == [0, 0, 0], logs
    print(f"over P4Runtime: set-up with {initial.size} parameters {setup_s:.1f} s, reading "
          f"them back {read_s:.1f} s; drops: {drops}; handled: {handled}")
    ref = single_process(len(WORKERS))
    layout = Layout.of(ref)
    assert handled["params_multicast"] == STEPS * layout.chunks_per_step
    assert drops["bad_exponent"] == drops["beyond_model"] == 0
    for rank in range(len(WORKERS)):
        rows = [json.loads(line) for line in
                (tmp_path / f"rank{rank}.jsonl").read_text().splitlines()]
        assert len(rows) == STEPS
        assert all(r["mem_optimizer_bytes"] == 0 and r["mem_grads_bytes"] == 0 for r in rows)
        summary = json.loads((tmp_path / f"rank{rank}.summary.json").read_text())
        print(f"rank {rank}: mean step {summary['mean_step_s']:.3f} s")
    # each update is within ~1e-7 of float SGD (testbed/proto/luwu_sgd.py); the
    # gradients of later steps are taken at those slightly different parameters
    diff = np.abs(final - layout.flatten(ref)).max()
    print(f"largest |switch - torch SGD| after {STEPS} steps: {diff:.2e}")
    assert diff < 1e-5
    assert np.abs(final - initial).max() > 1e-2                      # it did train


SHADOW_MODEL, SHADOW_SCALE, WIDTH_STEPS = "custom:10M", 1e-2, 4
SHADOW = ["--mode", "shadow", "--shadow-model", SHADOW_MODEL, "--scale", str(SHADOW_SCALE),
          "--device", "a100-80gb", "--steps", str(WIDTH_STEPS), "--batch", "1"]


def width_run(net, out, lane_bits: int, mode: str):
    """luwu-sgd workers against a fresh SGD job of ``lane_bits``-bit gradient lanes
    (16: bf16 workers): shadow ones of a bf16 10M-parameter GPT at
    the links' co-scaling, or the real GPT. Each rank's summary, the chunks of a step,
    and the switch's parameters before and after."""
    switch = net.blueprint.switches[0].name
    if mode == "shadow":
        layout = shadow_layout(shadow.shadow_model(SHADOW_MODEL), SHADOW_SCALE,
                               streamed=False, lane_bits=lane_bits, chunk_values=ina.LANES)
        initial, args = np.zeros(layout.chunks_per_step * ina.LANES), SHADOW
    else:
        layout = Layout.of(list(build_model("gpt", 0).parameters()))
        initial = initial_parameters("gpt", 0)
        args = [*REAL[:2], "--steps", str(WIDTH_STEPS), *REAL[4:]]
    job = luwu_sgd.SgdJob(1, AGGREGATOR, job_workers(net.blueprint, switch, WORKERS),
                          lr=LR, momentum=MU, slot_count=32, lane_bits=lane_bits)
    out.mkdir()
    with job_on(net, switch, luwu_sgd, job, initial) as device:
        before = {**luwu_sgd.handled_counts(device), **luwu_sgd.drop_counts(device)}
        codes = run_workers(net, out, args=[*args, "--ina-lane-bits", str(lane_bits)])
        after = {**luwu_sgd.handled_counts(device), **luwu_sgd.drop_counts(device)}
        final = luwu_sgd.read_params(device, job)
    counts = {key: after[key] - before[key] for key in after}      # this run's
    logs = "\n".join((out / f"{h}.log").read_text() for h in WORKERS)
    assert codes == [0, 0, 0], logs
    assert counts["params_multicast"] == WIDTH_STEPS * layout.chunks_per_step
    assert counts["bad_type"] == counts["bad_exponent"] == counts["bad_length"] == 0
    summaries = [json.loads((out / f"rank{r}.summary.json").read_text())
                 for r in range(len(WORKERS))]
    return summaries, layout.chunks_per_step, initial, final


@pytest.mark.parametrize("mode", ["shadow", "real"])
def test_bf16_workers_push_16_bit_lanes_against_32_bit_ones(net, tmp_path, mode):
    """The same workers in 32-bit and in 16-bit gradient lanes, in one run. Every chunk
    goes out as LANES values in lanes of its width and comes back as LANES int32
    fixed-point parameters. Real workers: the same chunks, half the bytes out. Shadow
    bf16 workers: in 32-bit lanes each fp32 element stands for two bf16 values (the
    switch holds one parameter per element, half the model's), in 16-bit lanes they are
    the model's bf16 values, one int32 parameter each: the same bytes out, twice as many
    back."""
    runs = {bits: width_run(net, tmp_path / f"lanes{bits}", bits, mode) for bits in (32, 16)}
    mean = {bits: {key: sum(s[f"mean_{key}"] for s in summaries) / len(summaries)
                   for key in ("step_s", "logical_sent_bytes", "logical_recv_bytes",
                               "wire_tx_bytes", "wire_rx_bytes")}
            for bits, (summaries, *_) in runs.items()}
    for bits, m in mean.items():
        print(f"\n{mode}, {bits}-bit lanes: step {m['step_s'] * 1e3:.1f} ms, per worker "
              f"and step {m['logical_sent_bytes']:.0f} B sent / "
              f"{m['logical_recv_bytes']:.0f} B received logical, "
              f"{m['wire_tx_bytes']:.0f} / {m['wire_rx_bytes']:.0f} B on the wire")
    print("{}: 16 / 32 bits: step {:.3f}x, wire tx {:.3f}x, rx {:.3f}x".format(
        mode, mean[16]["step_s"] / mean[32]["step_s"],
        mean[16]["wire_tx_bytes"] / mean[32]["wire_tx_bytes"],
        mean[16]["wire_rx_bytes"] / mean[32]["wire_rx_bytes"]))
    for bits, (summaries, chunks, initial, final) in runs.items():
        assert all(s["mean_logical_sent_bytes"] == chunks * ina.LANES * bits // 8
                   and s["mean_logical_recv_bytes"] == chunks * ina.LANES * 4
                   for s in summaries)
        assert np.abs(final - initial).max() > (1e-2 if mode == "real" else 1e-4)  # trained
    if mode == "real":
        assert runs[16][1] == runs[32][1]
    else:           # twice the elements, less the padding of each layer group
        assert abs(runs[16][1] - 2 * runs[32][1]) <= shadow.CHUNKS
