"""Pipeline, tensor and 3D parallelism: ranks as threads over gloo on loopback train the
small GPT and reproduce single-process training step by step.

Tolerance: 2e-5 on the loss, in float32. A pipeline runs the same arithmetic as one
process except that the gradient is summed over micro-batches, and tensor parallelism sums
each row-parallel layer's partial products over the group before adding the rest; both
only reorder float32 additions (about 1e-7 relative each). AdamW divides every update by
the gradient's running RMS, so such relative errors stay relative, and over 20 steps the
losses agree to better than 1e-6 (measured: at most 7e-7 for PP, TP and 2x2x2)."""
import pytest
import torch

from hosts import shadow
from hosts.models import SyntheticCorpus, build_model
from hosts.parallelism.layout import ParallelLayout, split_units
from hosts.parallelism.pipeline import ideal_bubble, in_flight, schedule
from hosts.strategies import holmes, registry
from hosts.strategies.parallel import ParallelOptions, ParallelTraining, layout_of
from ranks import run_ranks, shadow_steps, single_process
from testbed.errors import TrainetError

CORPUS = SyntheticCorpus(0)
STEPS, LR, BATCH = 20, 1e-3, 4
TOLERANCE = 2e-5


def train(world: int, rest: str = "dp", **options):
    """Each replica's losses per step (from its last stage) and each rank's last metrics."""
    opts = ParallelOptions(**options)
    models = [build_model("gpt", 1) for _ in range(world)]

    def body(comm):
        s = ParallelTraining(comm, layout_of(opts, world, rest, "test"), opts, lr=LR)
        s.setup(models[comm.rank])
        metrics = [s.step(CORPUS.batch(k, *s.data_shard(), BATCH, 32)) for k in range(STEPS)]
        return s.data_shard(), [m.loss for m in metrics], metrics[-1], s.memory()

    results = run_ranks(world, body, timeout_s=60)
    replicas = {}
    for (replica, _), losses, _, _ in results:
        if losses[0] is not None:
            replicas.setdefault(replica, losses)
            assert replicas[replica] == losses        # a stage's tensor-parallel ranks agree
    return [replicas[r] for r in sorted(replicas)], results


def assert_matches_single_process(replicas: list[list[float]]):
    reference, _ = single_process("gpt", STEPS, LR, batch=BATCH * len(replicas))
    mean = [sum(step) / len(replicas) for step in zip(*replicas)]
    assert max(abs(a - b) for a, b in zip(mean, reference)) < TOLERANCE
    assert reference[-1] < reference[0] - 1.0        # it trained


@pytest.mark.parametrize("kind", ["1f1b", "gpipe"])
def test_pipeline_equals_single_process(kind):
    replicas, results = train(3, rest="pp", micro_batches=2, schedule=kind)
    assert_matches_single_process(replicas)
    first = results[0][2]
    assert first.loss is None and results[2][2].loss is not None
    assert 0 < first.bubble_s <= first.exposed_comm_s
    # stage 0 sends each micro-batch's activation (2 x 32 x 64 floats) once
    assert first.logical_sent_bytes == 2 * 2 * 32 * 64 * 4


def test_tensor_parallel_equals_single_process():
    replicas, results = train(2, rest="tp")
    assert_matches_single_process(replicas)
    whole = sum(p.numel() for p in build_model("gpt", 1).parameters()) * 4
    assert results[0][3].params_bytes < 0.7 * whole         # the blocks are split in two
    assert results[0][2].logical_sent_bytes > 0


def test_3d_layout_equals_single_process():
    replicas, results = train(8, dp=2, pp=2, tp=2, micro_batches=2)
    assert len(replicas) == 2
    assert_matches_single_process(replicas)


def test_the_check_can_tell_a_wrong_layout_apart():
    """Training each replica on the whole batch instead of its slice is caught."""
    reference, _ = single_process("gpt", STEPS, LR, batch=BATCH * 2)
    alone, _ = single_process("gpt", STEPS, LR, batch=BATCH)
    assert max(abs(a - b) for a, b in zip(alone, reference)) > 100 * TOLERANCE


def test_megatron_order_places_tensor_ranks_next_to_each_other():
    layout = ParallelLayout(dp=2, pp=2, tp=2)
    assert layout.groups("tp") == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert layout.groups("dp") == [[0, 2], [1, 3], [4, 6], [5, 7]]
    assert layout.groups("pp") == [[0, 4], [1, 5], [2, 6], [3, 7]]
    placed = layout.placed([7, 6, 5, 4, 3, 2, 1, 0])
    assert placed.tp_group(7) == [7, 6] and placed.pp_group(7) == [7, 3]


def test_schedules():
    assert schedule("gpipe", 0, 2, 3) == [("F", 0), ("F", 1), ("F", 2),
                                          ("B", 0), ("B", 1), ("B", 2)]
    assert schedule("1f1b", 0, 3, 4) == [("F", 0), ("F", 1), ("F", 2), ("B", 0), ("F", 3),
                                         ("B", 1), ("B", 2), ("B", 3)]
    assert schedule("1f1b", 2, 3, 4)[:4] == [("F", 0), ("B", 0), ("F", 1), ("B", 1)]
    assert in_flight("1f1b", 0, 4, 8) == 4 and in_flight("gpipe", 0, 4, 8) == 8
    assert ideal_bubble(4, 8) == pytest.approx(3 / 11)


@pytest.mark.parametrize("options, world, message", [
    ({"pp": 3}, 8, "does not divide the 8 workers"),
    ({"dp": 2, "pp": 2, "tp": 3}, 8, "product is 8"),
])
def test_a_layout_must_fill_the_world(options, world, message):
    with pytest.raises(TrainetError, match=message):
        layout_of(ParallelOptions(**options), world, "dp", "megatron")


def test_more_stages_than_units_and_a_tp_that_does_not_divide_the_heads():
    with pytest.raises(TrainetError, match="pp=5 stages for a model of 4 units"):
        split_units(4, 5, "pp")
    with pytest.raises(TrainetError, match="tp=3 does not divide the model's 4 attention"):
        train(3, rest="tp")


def test_options_reach_the_registered_strategies():
    info = registry.get("megatron")
    with pytest.raises(TrainetError, match="schedule"):
        info.parse_options({"schedule": "zigzag"})
    pattern = info.collectives(2.6e9, 8, 24, options=info.parse_options(
        {"dp": 2, "pp": 2, "tp": 2, "micro_batches": 4}), batch=8,
        model=shadow.PRESETS["gpt-1.3b"])
    by_group = {c.group: c for c in pattern}
    act = 2 * 2048 * 2048 * 2              # micro-batch 2 x seq 2048 x d 2048, bf16
    assert by_group["tp"].nbytes == 4 * 12 * act * 4
    assert by_group["pp"].nbytes == act * 4
    assert by_group["dp"].nbytes == 2.6e9 / 4


def test_shadow_3d_moves_the_declared_volume_and_shows_the_bubble():
    """8 shadow ranks of a 2x2x2 layout: their mean logical bytes per step are the
    declared pattern's, co-scaled; the first stage waits for the second's gradients, and
    its metrics show that wait as its bubble."""
    world, scale, batch = 8, 1e-4, 4
    target = shadow.shadow_model("custom:2e8", layers=8)
    dev = shadow.Device("slow", 6 * 2e8 * 2048 * batch / 0.2, "a 200 ms step")
    info = registry.get("megatron")
    options = info.parse_options({"dp": 2, "pp": 2, "tp": 2, "micro_batches": 2})

    metrics = [m for _, m in shadow_steps(world, info, options, target=target, device=dev,
                                           batch=batch, scale=scale, timeout_s=60)]
    sent = sum(m.logical_sent_bytes for m in metrics) / world
    declared = info.volume_bytes(shadow.model_bytes(target.params), world, target.layers,
                                 options=options, model=target, batch=batch)[0]
    assert sent == pytest.approx(declared * scale, rel=0.02)
    # a stage sleeps a quarter of the 200 ms step (half the layers, half of each layer)
    assert all(m.compute_s >= 0.05 for m in metrics)
    assert all(m.bubble_s > 0 for m in metrics[:4])          # stage 0 waits for stage 1


def test_holmes_keeps_tensor_and_data_groups_inside_the_fastest_clusters():
    # ranks launched round-robin over three clusters: Ethernet, RoCE, InfiniBand
    clusters = ["C", "B", "A"] * 4
    nics = ["eth-25g-tcp", "roce-100g", "ib-hdr200"] * 4
    order = holmes.cluster_order(clusters, nics)
    assert [clusters[r] for r in order] == ["A"] * 4 + ["B"] * 4 + ["C"] * 4
    layout = ParallelLayout(dp=2, pp=3, tp=2).placed(order)
    for group in layout.groups("tp") + layout.groups("dp"):
        assert len({clusters[r] for r in group}) == 1
    megatron = ParallelLayout(dp=2, pp=3, tp=2)
    assert any(len({clusters[r] for r in g}) > 1 for g in megatron.groups("tp"))


def test_holmes_partition_gives_slow_stages_fewer_layers():
    # stage 1 all-reduces 4x slower per byte: it gets fewer of the 12 equal layers
    rate = [1.0, 4.0, 1.0]
    counts = holmes.balance(12, 3, lambda s, units: sum(1.0 + rate[s] for _ in units))
    assert sum(counts) == 12 and counts[1] < counts[0] == counts[2]
    assert holmes.balance(12, 3, lambda s, units: float(len(units))) == [4, 4, 4]


def test_holmes_trains_like_single_process_on_a_heterogeneous_layout():
    """The placement and the measured partition change where the units run, not the
    result: 2x2x2 with clusters given per rank still matches single-process training."""
    world = 8
    info = registry.get("holmes")
    options = info.parse_options({"dp": 2, "pp": 2, "tp": 2, "micro_batches": 2})
    tiers = {"cluster": ["B", "A"] * 4, "nic": ["roce-100g", "ib-hdr200"] * 4}
    models = [build_model("gpt", 1) for _ in range(world)]

    def body(comm):
        s = info.build("real", registry.Context(comm, info, options, lr=LR, batch=BATCH,
                                                tiers=tiers))
        s.setup(models[comm.rank])
        losses = [s.step(CORPUS.batch(k, *s.data_shard(), BATCH, 32)).loss
                  for k in range(STEPS)]
        return s.data_shard(), losses, s.at

    results = run_ranks(world, body, timeout_s=60)
    assert all(tiers["cluster"][r] == ("A" if at.pp == 0 else "B")
               for r, (_, _, at) in enumerate(results))
    replicas = {}
    for (replica, _), losses, _ in results:
        if losses[0] is not None:
            replicas[replica] = losses
    assert_matches_single_process([replicas[r] for r in sorted(replicas)])


def test_shadow_stages_sleep_the_compute_model_of_their_layers():
    """Shadow megatron ranks (DP 1 x PP 2 x TP 2, one sequence per micro-batch, selective
    recompute with sequence parallelism) sleep per pass what hosts/compute.py gives
    their stage's layers (and the logits on the last stage), the analytical model's
    figure; they step, and the gradient all-reduce waits for nothing (one replica)."""
    from hosts import compute
    target = shadow.shadow_model("custom:layers=4,hidden=512,heads=8,seq=256,vocab=1024")
    a100 = shadow.device("a100-80gb")
    info = registry.get("megatron")
    options = info.parse_options({"pp": 2, "tp": 2, "micro_batch_size": 1,
                                  "recompute": "selective", "sequence_parallel": True})

    def body(comm):
        s = info.build("shadow", registry.Context(comm, info, options, target=target,
                                                  device=a100, batch=4, scale=1e-3))
        s.setup()
        return s.at.pp, s.forward_s, s.backward_s, s.options.micro_batches, s.step(None)

    x = shadow.shape_of(target)
    layer = compute.layer_pass(x, a100, 1, 2, True, "selective")
    head = compute.head_pass(x, a100, 1, 2)
    for stage, forward, backward, m, metrics in run_ranks(4, body, timeout_s=60):
        assert m == 4
        expected = layer * 2 + (head if stage == 1 else compute.Pass(0.0, 0.0))
        assert (forward, backward) == pytest.approx((expected.forward_s, expected.backward_s))
        assert metrics.compute_s > 0


@pytest.mark.parametrize("recompute, runs", [("none", 1), ("full", 2)])
def test_real_full_recompute_runs_each_forward_again_in_the_backward(recompute, runs):
    """A real rank under full recompute keeps each unit's input only and runs the unit's
    forward a second time in its backward (its equivalence with single-process training
    is in tests/workers/test_equivalence.py)."""
    opts = ParallelOptions(pp=2, micro_batches=2, recompute=recompute)
    models = [build_model("gpt", 1) for _ in range(2)]
    calls = [0, 0]

    def counted(rank: int, forward):
        def run(*args):
            if torch.is_grad_enabled():         # not the stage boundaries' shape probe
                calls[rank] += 1
            return forward(*args)
        return run

    def body(comm):
        for unit in models[comm.rank].units:    # module hooks miss checkpoint's re-run
            unit.forward = counted(comm.rank, unit.forward)
        s = ParallelTraining(comm, layout_of(opts, 2, "pp", "test"), opts, lr=LR)
        s.setup(models[comm.rank])
        s.step(CORPUS.batch(0, *s.data_shard(), BATCH, 32))
        return len(s.model)

    units = run_ranks(2, body, timeout_s=60)
    assert calls == [runs * n * 2 for n in units]        # 2 micro-batches


def test_real_ranks_refuse_a_recompute_they_do_not_run():
    with pytest.raises(TrainetError, match="selective.*real-mode ranks do not run"):
        registry.get("megatron").recompute_of(ParallelOptions(recompute="selective"),
                                              mode="real")
    with pytest.raises(TrainetError, match="workload's recompute is 'full'.*none"):
        registry.get("ddp").recompute_of(None, "full", "real")
    assert registry.get("ddp").recompute_of(None, "full") == "full"         # shadow: sleeps it
    with pytest.raises(TrainetError, match="recompute 'some': choose one of none, selective"):
        registry.get("ddp").recompute_of(None, "some")
