"""FusionLLM (a reconstruction of arXiv 2410.12707): the operator DAG, OP-Fence, AdaTopK,
and training over them with ranks as threads over gloo on loopback.

Tolerances. Uncompressed, the DAG's segments run the single process's arithmetic, the
gradient summed over micro-batches: 2e-5 on the loss, as the pipeline tests
(tests/workers/test_parallel.py) argue. Compressed, the loss follows a different
trajectory; over 60 steps with a tenth of the elements kept on both boundaries and
error feedback on the gradients, the mean loss of the last 10 steps stayed within 0.4 of
uncompressed training: measured 0.18 (0.17 without error feedback, 0.44 with it on the
activations too, whose next message is another micro-batch's), while uncompressed
training fell by 2.86."""
import pytest
import torch
from torch import nn

from hosts import shadow
from hosts.compression import adatopk
from hosts.models import SyntheticCorpus, build_model
from hosts.opdag import opfence
from hosts.opdag.graph import Segment, trace
from hosts.strategies import fusionllm, registry
from ranks import run_ranks, shadow_steps, single_process
from testbed.errors import TrainetError

CORPUS = SyntheticCorpus(0)
LR, BATCH = 1e-3, 4
INFO = registry.get("fusionllm")


def gpt_dag(micro: int = 2):
    return trace(build_model("gpt", 1), torch.zeros(micro, 32, dtype=torch.long))


def test_the_gpt_becomes_an_operator_dag():
    model = build_model("gpt", 1)
    dag = gpt_dag()
    params = sum(p.numel() * p.element_size() for p in model.parameters())
    assert sum(n.param_bytes for n in dag.nodes) == params
    by_name = {n.name: n for n in dag.nodes}
    # a Linear of the first block: 2 x tokens x in x out FLOPs forward
    assert by_name["units_1_qkv"].flops == 2 * 2 * 32 * 64 * 192
    assert by_name["units_1_qkv"].out_bytes == 2 * 32 * 192 * 4
    # between blocks only the residual stream crosses; inside one, more
    sizes = {c.position: c.elements for c in dag.cuts}
    assert min(sizes.values()) == 2 * 32 * 64
    assert max(sizes.values()) > 2 * 2 * 32 * 64
    # no cut inside a module's uses or where the integer positions are live
    assert all(dag.nodes[c.position - 1].name != "arange" for c in dag.cuts)


def test_segments_chained_compute_the_model():
    model = build_model("gpt", 1)
    dag = gpt_dag()
    x = CORPUS.batch(0, 0, 1, 2, 32)[0]
    cuts = [dag.cuts[5].position, dag.cuts[30].position]
    bounds = [0, *cuts, len(dag.nodes)]
    tensors = []
    for start, end in zip(bounds, bounds[1:]):
        tensors = Segment(dag, start, end).run({"x": x}, tensors)
    assert torch.equal(tensors[0], model(x))


class DataDependent(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = nn.ModuleList([Branchy()])

    def forward(self, x):
        return self.inner[0](x.float())


class Branchy(nn.Module):
    def forward(self, h):
        if h.sum() > 0:
            return h * 2
        return h


def test_an_untraceable_operator_is_named():
    with pytest.raises(TrainetError, match=r"module 'inner.0'.*if h.sum\(\) > 0"):
        trace(DataDependent(), torch.zeros(2, 4))


def three_sites(tiers=(1e9, 1e8, 1e6), local=1e10, latency=0.0):
    """Two devices per site, eu (0, 1), us (2, 3), as (4, 5); WAN bandwidths in bytes/s
    for eu-us, eu-as, us-as."""
    site = [0, 0, 1, 1, 2, 2]
    wan = {(0, 1): tiers[0], (0, 2): tiers[1], (1, 2): tiers[2]}
    bw = [[float("inf") if a == b else local if site[a] == site[b]
           else wan[tuple(sorted((site[a], site[b])))] for b in range(6)] for a in range(6)]
    return opfence.Fabric(bw, [[latency] * 6 for _ in range(6)])


def test_op_fence_clusters_sites_and_keeps_big_cuts_off_slow_links():
    fabric = three_sites()
    assert opfence.clusters(fabric, 4.0) == [[0, 1], [2, 3], [4, 5]]
    # 60 equal operators; cuts every position, 10 MB each, but 100 kB every 10th
    cut_bytes = {k: (1e5 if k % 10 == 0 else 1e7) for k in range(1, 60)}
    work = opfence.Workload([[1e-3] * 60] * 6, cut_bytes)
    plan = opfence.schedule(work, fabric)
    # the order avoids the 1 MB/s us-as link: us, eu, as (or reversed)
    sites = [d // 2 for d in plan.order]
    assert sites in ([1, 1, 0, 0, 2, 2], [2, 2, 0, 0, 1, 1])
    for b, cut in enumerate(plan.cuts):
        if sites[b] != sites[b + 1]:
            assert cut % 10 == 0                 # the slow links carry the small cuts
    assert plan.segments(60)[0][0] == 0 and len(plan.segments(60)) == 6


def test_op_fence_rejects_a_missing_route_and_too_few_cuts():
    fabric = three_sites()
    fabric.bandwidth[0][5] = 0.0
    work = opfence.Workload([[1.0] * 10] * 6, {k: 1.0 for k in range(1, 10)})
    with pytest.raises(TrainetError, match="no route from rank 0 to rank 5"):
        opfence.schedule(work, fabric)
    with pytest.raises(TrainetError, match="6 devices need 5 cuts"):
        opfence.schedule(opfence.Workload([[1.0] * 3] * 6, {1: 1.0, 2: 1.0}), three_sites())


def test_adatopk_fits_each_slow_link_and_leaves_fast_ones_dense():
    fabric = three_sites(latency=0.01)
    plan = opfence.Plan([[0, 1], [2, 3], [4, 5]], [2, 3, 0, 1, 4, 5], [10, 20, 30, 40, 50],
                        stage_s=[0.05] * 6, link_s=[0.0] * 5, bottleneck_s=0.05)
    boundary = [4e6] * 5                          # 1M float32 elements each
    kept = adatopk.adaptive_fractions(plan, fabric, boundary, 4, floor=0.001)
    # us-eu at 1 GB/s: 4 MB hold the link 4 ms, within the 50 ms budget, dense; eu-as at
    # 100 MB/s would keep 50 ms x 100 MB/s / (1M x 8 bytes) = 0.625: no gain over dense
    assert kept == [1.0] * 5
    slow = three_sites(tiers=(1e9, 1e7, 1e6), latency=0.01)
    kept = adatopk.adaptive_fractions(plan, slow, boundary, 4, floor=0.001)
    assert kept[3] == pytest.approx(0.05 * 1e7 / 8e6)      # eu-as: 0.0625
    plan_us_as = opfence.Plan(plan.clusters, [0, 1, 2, 3, 4, 5], plan.cuts, plan.stage_s,
                              plan.link_s, 0.05)
    kept = adatopk.adaptive_fractions(plan_us_as, slow, boundary, 4, floor=0.01)
    assert kept[3] == 0.01                        # us-as at 1 MB/s: held at the floor


def test_top_k_packs_the_largest_and_feeds_back_the_rest():
    codec = adatopk.TopK(8, 0.25)
    x = torch.tensor([0.1, -5.0, 0.2, 3.0, 0.0, -0.3, 1.0, 0.4])
    packed = codec.encode(x, slot=("B", 0))
    assert packed.numel() == 4
    sent = codec.decode(packed)
    assert torch.equal(sent, torch.tensor([0, -5.0, 0, 3.0, 0, 0, 0, 0]))
    assert torch.equal(sent + codec.residual[("B", 0)], x)
    # the next message of the slot carries the largest of what was dropped
    again = codec.decode(codec.encode(torch.zeros(8), slot=("B", 0)))
    assert torch.equal(again, torch.tensor([0, 0, 0, 0, 0, 0, 1.0, 0.4]))
    assert torch.equal(codec.decode(codec.encode(x)), sent)  # no slot, no feedback
    assert adatopk.TopK(8, 1.0).encode(x) is x


def train(steps: int, monkeypatch=None, fabric=None, **options):
    """The last stage's losses and every rank's last metrics; ``fabric`` replaces the
    measured links, and the profiled operator times with times in proportion to FLOPs
    (the same on every run, so the cut points do not move with the host's noise)."""
    world = fabric.devices if fabric is not None else 3
    if fabric is not None:
        monkeypatch.setattr(fusionllm, "measure_fabric", lambda comm, scale: fabric)
        flops = [3e-9 * n.flops for n in gpt_dag(BATCH // options.get("micro_batches", 2)).nodes]
        gather = fusionllm._gather          # still a collective: no rank trains while
        monkeypatch.setattr(fusionllm, "_gather",  # another traces (fx patches modules)
                            lambda comm, values: gather(comm, values) and [flops] * comm.world)
    opts = INFO.parse_options({"micro_batches": 2, **options})
    models = [build_model("gpt", 1) for _ in range(world)]

    def body(comm):
        s = INFO.build("real", registry.Context(comm, INFO, opts, lr=LR, batch=BATCH))
        s.setup(models[comm.rank])
        metrics = [s.step(CORPUS.batch(k, *s.data_shard(), BATCH, 32)) for k in range(steps)]
        return [m.loss for m in metrics], metrics[-1], s

    results = run_ranks(world, body, timeout_s=120)
    losses = next(r[0] for r in results if r[0][0] is not None)
    return losses, results


def test_fusionllm_equals_single_process_without_compression():
    losses, results = train(20, compression="none")
    reference, _ = single_process("gpt", 20, LR, batch=BATCH)
    assert max(abs(a - b) for a, b in zip(losses, reference)) < 2e-5
    assert reference[-1] < reference[0] - 1.0
    first = next(s for _, _, s in results if s.at.pp == 0)
    cut = first.segment.leaving_shapes()
    assert results[first.comm.rank][1].logical_sent_bytes == \
        2 * 4 * sum(torch.Size(s).numel() for s in cut)


def slow_triangle():
    """Three devices, each its own site, joined by 100 kB/s links: every boundary is
    slow."""
    bw = [[float("inf") if a == b else 1e5 for b in range(3)] for a in range(3)]
    return opfence.Fabric(bw, [[0.0] * 3 for _ in range(3)])


def test_adatopk_compresses_slow_links_and_still_converges(monkeypatch):
    steps = 60
    losses, results = train(steps, monkeypatch, slow_triangle(), ratio=0.1)
    dense, _ = train(steps, monkeypatch, slow_triangle(), compression="none")
    stages = sorted((s for _, _, s in results), key=lambda s: s.at.pp)
    assert [round(f, 6) for f in stages[0].fractions] == [0.1, 0.1]
    k = stages[0].codec_out.k
    sent = results[stages[0].comm.rank][1].logical_sent_bytes
    assert sent == 2 * 2 * k * 4                 # two micro-batches of k values + indices
    assert k == round(0.1 * stages[0].codec_out.elements)
    tail = sum(losses[-10:]) / 10 - sum(dense[-10:]) / 10
    assert abs(tail) < 0.4
    assert dense[-1] < dense[0] - 2.0


def test_a_shared_plan_is_saved_by_the_first_run_and_replayed_by_the_baselines(
        tmp_path, monkeypatch):
    """fusionllm saves its plan and links; the same partition dense and uniform top-k
    replay them (nothing measured again), so they differ from it in compression only."""
    path = tmp_path / "plan.json"
    _, first = train(2, monkeypatch, slow_triangle(), ratio=0.1, plan_file=str(path))
    assert path.exists()

    def measure(comm, scale):
        raise AssertionError("a replay measures no links")

    monkeypatch.setattr(fusionllm, "measure_fabric", measure)
    dense = train(2, compression="none", plan_file=str(path))[1]
    uniform = train(2, compression="uniform", ratio=0.3, plan_file=str(path))[1]

    def stages(results):
        return {s.comm.rank: (s.at.pp, s.segment_bounds) for _, _, s in results}

    assert stages(dense) == stages(first) == stages(uniform)   # same devices, same cuts
    assert [s.fractions for _, _, s in dense][0] == [1.0, 1.0]
    assert [s.fractions for _, _, s in uniform][0] == [0.3, 0.3]
    operators = len(gpt_dag().nodes)
    with pytest.raises(TrainetError, match="on 3 devices, not .* on 2"):
        opfence.load(path, operators, 2)
    path.write_text("{}")
    with pytest.raises(TrainetError, match="not a saved plan"):
        opfence.load(path, operators, 3)


def geo(factor: float) -> opfence.Fabric:
    """The geo experiment's fabric (experiments/fusionllm.yaml) in bytes/s, its
    bandwidths times ``factor``: 100 Gb/s in a site, WAN 1 Gb/s, 100 Mb/s and 8 Mb/s."""
    fabric = three_sites(tiers=(1e9 / 8 * factor, 1e8 / 8 * factor, 8e6 / 8 * factor),
                         local=100e9 / 8 * factor, latency=0.01)
    return fabric


@pytest.mark.parametrize("factor", [1.0, 0.01])
def test_adatopk_leaves_links_that_keep_up_dense(monkeypatch, factor):
    """Six ranks on the geo fabric: at its nominal rates every boundary of the small GPT
    keeps up with compute, so nothing is compressed and training equals one process; at
    a hundredth of them the boundary on the eu-as WAN link is compressed and the
    boundaries inside a site still are not."""
    losses, results = train(10, monkeypatch, geo(factor))
    stage = next(s for _, _, s in results if s.at.pp == 0)
    sites = [stage.layout.placement[p] // 2 for p in range(6)]
    wan = [b for b in range(5) if sites[b] != sites[b + 1]]
    assert sorted({tuple(sorted((sites[b], sites[b + 1]))) for b in wan}) == [(0, 1), (0, 2)]
    assert all(stage.fractions[b] == 1.0 for b in range(5) if b not in wan)
    if factor == 1.0:
        assert stage.fractions == [1.0] * 5
        reference, _ = single_process("gpt", 10, LR, batch=BATCH)
        assert max(abs(a - b) for a, b in zip(losses, reference)) < 2e-5
    else:
        eu_as = next(b for b in wan if {sites[b], sites[b + 1]} == {0, 2})
        assert stage.fractions[eu_as] < 1.0


def test_shadow_fusionllm_moves_its_boundaries_bytes(monkeypatch):
    """Six shadow ranks on the three-site fabric, eu's devices three times as fast as the
    others: the pipeline avoids the slowest link, AdaTopK compresses the boundary on the
    100 kB/s eu-as link, each stage computes its operators at its own device's speed and
    sends its boundaries' co-scaled wire bytes per micro-batch."""
    scale = 1e-3
    monkeypatch.setattr(fusionllm, "measure_fabric",
                        lambda comm, s: three_sites(tiers=(1e9, 1e5, 1e4)))
    target = shadow.shadow_model("custom:2e7", layers=4)
    slow = shadow.Device("slow", 6 * 2e7 * 2048 * 4 / 0.2, "a 200 ms step")
    fast = shadow.Device("fast", 3 * slow.peak_flops, "a 67 ms step")
    devices = [fast, fast] + [slow] * 4
    options = INFO.parse_options({"micro_batches": 2, "ratio": 0.01})

    results = shadow_steps(6, INFO, options, target=target, device=devices, batch=4,
                           scale=scale, timeout_s=60)
    stages = sorted(results, key=lambda r: r[0].at.pp)
    assert [r[0].comm.rank // 2 for r in stages] in ([1, 1, 0, 0, 2, 2], [2, 2, 0, 0, 1, 1])
    fractions = stages[0][0].fractions
    assert fractions[1] == 1.0 and fractions[3] < 1.0        # us-eu dense, eu-as not
    dag = fusionllm.nominal_dag(target, 2)
    for s, m in stages:          # activations forward, gradients back, per micro-batch
        assert m.logical_sent_bytes == 2 * (s.outbound.numel() + s.inbound.numel()) * 4
        start, end = s.segment_bounds
        flops = sum(n.flops for n in dag.nodes[start:end])
        assert s.forward_s == pytest.approx(flops / devices[s.comm.rank].peak_flops)
    assert all(m.compute_s > 0 for _, m in stages)


def test_options_from_the_command_line_and_their_errors():
    assert INFO.parse_options({"ratio": "0.05"}).ratio == 0.05
    with pytest.raises(TrainetError, match="compression"):
        INFO.parse_options({"compression": "int8"})
    with pytest.raises(TrainetError, match="ratio"):
        INFO.parse_options({"ratio": 0})


def test_the_links_are_measured_once_per_pair_and_shared():
    fabrics = run_ranks(3, lambda comm: fusionllm.measure_fabric(comm, 1e-2))
    assert all(f == fabrics[0] for f in fabrics)             # every rank plans the same
    bw = fabrics[0].bandwidth
    for a in range(3):
        assert bw[a][a] == float("inf")
        for b in range(3):
            if a != b:
                assert 0 < bw[a][b] < float("inf") and bw[a][b] == bw[b][a]
                assert fabrics[0].latency[a][b] > 0
