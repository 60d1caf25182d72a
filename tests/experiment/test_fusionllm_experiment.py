"""The FusionLLM experiments (a reconstruction of arXiv 2410.12707) load, their sites'
devices reach every strategy's compute model, and OP-Fence plans them on their geo
fabric from the topology's nominal links: no Mininet needed."""
from pathlib import Path

import pytest

from hosts import shadow, worker
from hosts.collectives.comm import Comm
from hosts.compression import adatopk
from hosts.opdag import opfence
from hosts.strategies import fusionllm
from hosts.strategies.parallel import BF16
from testbed.errors import TrainetError
from testbed.experiment.launch import _flags
from testbed.experiment.runner import worker_args
from testbed.experiment.spec import Variant, load_experiment

EXPERIMENTS = Path(__file__).parents[2] / "experiments"


@pytest.mark.parametrize("name,labels", [
    ("fusionllm.yaml", ["fusionllm", "same-partition", "uniform-topk", "pp"]),
    ("fusionllm-convergence.yaml", ["fusionllm", "same-partition", "uniform-topk"])])
def test_the_experiments_compare_fusionllm_with_its_baselines(name, labels):
    plan = load_experiment(EXPERIMENTS / name)
    assert [s.label for s in plan.strategies] == labels
    assert plan.workers == ["eu1", "eu2", "us1", "us2", "as1", "as2"]
    options = {s.label: s.info.parse_options(s.options) for s in plan.strategies}
    assert options["same-partition"].compression == "none"
    assert options["uniform-topk"].compression == "uniform"
    if plan.spec.workload.mode == "real":
        assert plan.spec.workload.steps >= 200


def test_the_sites_devices_reach_every_strategys_compute_model():
    """Each rank, built as the runner launches it, sleeps its own site's device's
    compute: H100s in eu, A100s in us, MI250X GCDs in as."""
    plan = load_experiment(EXPERIMENTS / "fusionllm.yaml")
    expected = {"eu": "h100-80gb", "us": "a100-80gb", "as": "mi250x-gcd"}
    assert plan.devices_of(Variant("base")) == [expected[w[:2]] for w in plan.workers]
    target = shadow.PRESETS[plan.spec.workload.shadow_model]
    world = len(plan.workers)
    for strategy in plan.strategies:
        flags = _flags(worker_args(plan, strategy, Variant("base")))
        for rank, host in enumerate(plan.workers):
            args = worker.parse_args(["--rank", str(rank), "--world-size", str(world),
                                      "--master", "10.0.1.1:1", "--strategy",
                                      strategy.info.name, "--metrics-out", "-"] + flags)
            built = worker.make_strategy(args, Comm(None, rank, world))
            device = shadow.device(expected[host[:2]])
            assert built.compute_s == pytest.approx(shadow.step_compute_s(
                target, plan.batch_of(strategy).replica_batch, device)), (strategy.label, host)


def test_op_fence_plans_the_geo_fabric_around_its_slowest_link():
    plan = load_experiment(EXPERIMENTS / "fusionllm.yaml")
    fabric = opfence.fabric_of(plan.topology, plan.workers)
    assert fabric.bandwidth[2][4] == pytest.approx(8e6 / 8)       # us-as: wan-8m
    assert fabric.latency[2][4] == pytest.approx(0.05, abs=1e-4)     # and two host links
    batch = plan.batch_of(plan.strategy("fusionllm"))
    options = plan.strategy("fusionllm").info.parse_options(batch.options)
    workload = plan.spec.workload
    target = shadow.PRESETS[workload.shadow_model]
    dag = fusionllm.nominal_dag(target, batch.replica_batch // options.micro_batches)
    tokens = batch.replica_batch * target.seq   # each device's speed as its ranks take it
    speed = {d: shadow.step_flops(target.params, tokens)
             / shadow.step_compute_s(target, batch.replica_batch, shadow.device(d))
             for d in plan.devices_of(Variant("base"))}
    seconds = [[3 * n.flops / speed[d] for n in dag.nodes]
               for d in plan.devices_of(Variant("base"))]
    cut_bytes = {c.position: c.elements * BF16 for c in dag.cuts}
    fence = opfence.schedule(opfence.Workload(seconds, cut_bytes), fabric,
                             options.cluster_gap)
    assert fence.clusters == [[0, 1], [2, 3], [4, 5]]               # the three sites
    sites = [plan.workers[d][:2] for d in fence.order]
    assert sites in (["us", "us", "eu", "eu", "as", "as"], ["as", "as", "eu", "eu", "us", "us"])
    residual = min(cut_bytes.values())
    eu_as = next(b for b in range(5) if {sites[b], sites[b + 1]} == {"eu", "as"})
    assert cut_bytes[fence.cuts[eu_as]] == residual     # the slowest link used: the residual
    flops = {}                                          # each site's stages, by its devices
    for (start, end), site in zip(fence.segments(len(dag.nodes)), sites):
        flops.setdefault(site, []).append(sum(n.flops for n in dag.nodes[start:end]))
    assert min(flops["eu"]) > 2 * max(flops["us"]) and min(flops["us"]) > max(flops["as"])
    kept = adatopk.adaptive_fractions(fence, fabric, [cut_bytes[c] for c in fence.cuts],
                                      BF16, options.ratio)
    wan = [b for b in range(5) if sites[b] != sites[b + 1]]
    assert all(kept[b] == 1.0 for b in range(5) if b not in wan)  # inside a site: dense
    assert min(kept[b] for b in wan) < 0.1                        # the 100 Mb/s link


def test_a_device_list_gives_one_profile_per_rank():
    args = worker.parse_args("--rank 1 --world-size 3 --master 10.0.1.1:1 --strategy pp "
                             "--metrics-out - --device h100,a100".split())
    with pytest.raises(TrainetError, match="--device h100,a100: 2 profiles for 3 ranks; "
                       "give one, or one per rank"):
        worker.rank_device(args)
