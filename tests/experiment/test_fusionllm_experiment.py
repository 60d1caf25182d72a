"""The FusionLLM experiments (a reconstruction of arXiv 2410.12707) load, and OP-Fence
plans them on their geo fabric from the topology's nominal links: no Mininet needed."""
from pathlib import Path

import pytest

from hosts import shadow
from hosts.strategies import adatopk, fusionllm, opfence
from hosts.strategies.parallel import BF16
from testbed.experiment.spec import load_experiment

EXPERIMENTS = Path(__file__).parents[2] / "experiments"


@pytest.mark.parametrize("name", ["fusionllm.yaml", "fusionllm-convergence.yaml"])
def test_the_experiments_compare_fusionllm_with_its_baselines(name):
    plan = load_experiment(EXPERIMENTS / name)
    assert [s.label for s in plan.strategies] == ["fusionllm", "same-partition",
                                                   "uniform-topk", "pp"]
    assert plan.workers == ["eu1", "eu2", "us1", "us2", "as1", "as2"]
    options = {s.label: s.info.parse_options(s.options) for s in plan.strategies}
    assert options["same-partition"].compression == "none"
    assert options["uniform-topk"].compression == "uniform"
    if plan.spec.workload.mode == "real":
        assert plan.spec.workload.steps >= 200


def test_op_fence_plans_the_geo_fabric_around_its_slowest_link():
    plan = load_experiment(EXPERIMENTS / "fusionllm.yaml")
    fabric = opfence.fabric_of(plan.topology, plan.workers)
    assert fabric.bandwidth[2][4] == pytest.approx(8e6 / 8)       # us-as: wan-8m
    assert fabric.latency[2][4] == pytest.approx(0.05, abs=1e-4)     # and two host links
    options = plan.strategy("fusionllm").info.parse_options(plan.strategy("fusionllm").options)
    workload = plan.spec.workload
    target = shadow.PRESETS[workload.shadow_model]
    dag = fusionllm.nominal_dag(target, workload.batch // options.micro_batches)
    speed = shadow.device(workload.device).peak_flops * shadow.DEFAULT_MFU
    seconds = [3 * n.flops / speed for n in dag.nodes]
    cut_bytes = {c.position: c.elements * BF16 for c in dag.cuts}
    fence = opfence.schedule(opfence.Workload([seconds] * 6, cut_bytes), fabric,
                             options.cluster_gap)
    assert fence.clusters == [[0, 1], [2, 3], [4, 5]]               # the three sites
    sites = [plan.workers[d][:2] for d in fence.order]
    assert sites in (["us", "us", "eu", "eu", "as", "as"], ["as", "as", "eu", "eu", "us", "us"])
    residual = min(cut_bytes.values())
    assert all(cut_bytes[c] == residual for b, c in enumerate(fence.cuts)
               if sites[b] != sites[b + 1])                       # only the residual crosses
    kept = adatopk.adaptive_fractions(fence, fabric, [cut_bytes[c] for c in fence.cuts],
                                      BF16, options.ratio)
    wan = [b for b in range(5) if sites[b] != sites[b + 1]]
    assert all(kept[b] == 1.0 for b in range(5) if b not in wan)  # inside a site: dense
    assert min(kept[b] for b in wan) < 0.1                        # the 100 Mb/s link
