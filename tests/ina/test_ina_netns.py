"""All-reduce through p4/ina.p4 on an emulated star (Mininet hosts, software switch)."""
import time
from contextlib import ExitStack

import pytest

from controllers import ina as ctl
from controllers.jobs import connected
from emulated_fabric import (add_reordering, two_level_commands, two_level_jobs,
                             two_level_topology)
from testbed.bench import allreduce as bench
from testbed.experiment.jobs import job_on
from testbed.net.host_programs import run_json
from testbed.proto import ina
from testbed.topology.routing import route_entry

pytestmark = [pytest.mark.root, pytest.mark.slow]

WORKERS = 3
ELEMENTS = 12000           # 47 packets of 256 lanes per worker and round
SLOTS = 16


def teardown_over_p4runtime(net, job):
    """Counters, then teardown, through the switch's P4Runtime server."""
    node = net.net[bench.SWITCH]
    with connected(node.grpc_address, node.device_id) as device:
        handled = ctl.handled_counts(device)
        drops = ctl.drop_counts(device)
        ctl.teardown(device, job)
        assert device.entries(ctl.JOB_TABLE) == [] == device.entries(ctl.WORKER_TABLE)
    return handled, drops


def run_star(tmp_path, loss_pct, reorder, client, dtype="fp32", mtu=1500):
    """The star's links at ``mtu``, the switch's program and the job in packets of as many
    lanes as it carries."""
    from testbed.net.network import Network
    from testbed.net.topology import blueprint_from_topology
    lanes = ina.lanes_for_mtu(mtu)
    topo = bench.star_topology(WORKERS, "100Mbit", 1.0, loss_pct=loss_pct, delay="1ms",
                               mtu=mtu, program=bench.ina_program(lanes, tmp_path / "build"))
    with Network(blueprint_from_topology(topo, topo.name), tmp_path / f"loss{loss_pct}",
                 log=lambda *a: None) as net:
        if reorder:
            add_reordering(net, bench.SWITCH, reorder)
        hosts = [h.name for h in topo.hosts]
        job = bench.star_job(net.blueprint, SLOTS, lanes=lanes)
        node = net.net[bench.SWITCH]
        # as a topology spec's switch controller would: controllers.ina:install
        ctl.install(node.grpc_address, node.device_id, {"jobs": [{
            "job_id": job.job_id, "aggregator_ip": job.aggregator_ip, "slot_count": SLOTS,
            "lanes": lanes, "workers": [vars(w) for w in job.workers]}]})
        start = time.monotonic()
        results = run_json(net, bench.ina_commands(
            job, hosts, ELEMENTS, rounds=2, seed=5, check=True, client=client, dtype=dtype),
            timeout_s=240)
        elapsed = time.monotonic() - start
        handled, drops = teardown_over_p4runtime(net, job)
        return results, elapsed, handled, drops


def test_all_reduce_is_exact_to_the_bound_and_identical_under_loss(tmp_path):
    """The same sums with and without loss, from the C client and the Python one."""
    digests = {}
    for loss_pct, reorder, client in ((0.0, 0.0, "auto"), (1.0, 0.05, "python"),
                                      (5.0, 0.05, "auto")):
        results, elapsed, handled, drops = run_star(tmp_path, loss_pct, reorder, client)
        # 2 rounds x (1 exponent chunk for the first window's 16 blocks + 47 data chunks)
        # + the closing barrier's chunk
        assert handled["multicast"] == 2 * (1 + -(-ELEMENTS // ina.LANES)) + 1
        assert drops["bad_length"] == drops["unknown_job"] == drops["bad_worker"] == 0
        assert elapsed < 120, f"{loss_pct}% loss: all-reduce took {elapsed:.0f} s"
        for r in results.values():
            assert all(e <= b for e, b in zip(r["max_error"], r["error_bound"])), r
            assert r["matches_reference"] == [True, True], r
        assert len({r["result_sha256"] for r in results.values()}) == 1
        digests[loss_pct] = next(iter(results.values()))["result_sha256"]
        retx = sum(r["retransmissions"] for r in results.values())
        if loss_pct:
            assert retx > 0
    assert len(set(digests.values())) == 1, digests


@pytest.mark.parametrize("mtu", [1500, 4096])
def test_bf16_sums_in_16_bit_lanes_equal_the_host_reference_under_loss_and_reordering(
        tmp_path, mtu):
    """bf16 gradients in 16-bit lanes under 5 % loss and 10 % reordering: every worker's
    sum is the switch's arithmetic done on the host, bit for bit, in half the packets;
    on 4096 B links in packets of twice the lanes (a program rendered for 512 words)."""
    results, _, handled, drops = run_star(tmp_path, 5.0, 0.10, "auto", dtype="bf16",
                                          mtu=mtu)
    # 2 rounds x (1 exponent chunk + 24 chunks of 512 lanes (12 of 1024 at 4096 B), the
    # last 8 with the exponents agreed in the round before in their slot) + the closing
    # barrier's chunk
    per = ina.lanes_per_packet(16, ina.lanes_for_mtu(mtu))
    assert handled["multicast"] == 2 * (1 + -(-ELEMENTS // per)) + 1
    assert drops["bad_type"] == drops["bad_length"] == 0
    for r in results.values():
        assert r["lane_bits"] == 16 and r["matches_reference"] == [True, True], r
        assert all(e <= b for e, b in zip(r["max_error"], r["error_bound"])), r
    assert len({r["result_sha256"] for r in results.values()}) == 1
    assert sum(r["retransmissions"] for r in results.values()) > 0


def test_two_level_aggregation_racks_then_spine(tmp_path):
    from testbed.net.network import Network
    from testbed.net.topology import blueprint_from_topology
    topo = two_level_topology(2, 2, "100Mbit", 1.0, loss_pct=1.0, delay="1ms")
    jobs = two_level_jobs(topo, SLOTS)
    with Network(blueprint_from_topology(topo, topo.name), tmp_path, log=lambda *a: None) as net, \
            ExitStack() as installed:
        for switch, (job, routes) in jobs.items():
            device = installed.enter_context(job_on(net, switch, ctl, job))
            for ip, mac, port in routes:
                device.insert(route_entry(ip, mac, port))
        results = run_json(net, two_level_commands(
            topo, jobs, ELEMENTS, rounds=2, seed=5, check=True), timeout_s=240)
    assert sorted(results) == ["h10", "h11", "h20", "h21"]
    for r in results.values():
        assert all(e <= b for e, b in zip(r["max_error"], r["error_bound"])), r
    assert len({r["result_sha256"] for r in results.values()}) == 1
