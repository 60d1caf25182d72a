"""One step: overlap as declared, pipeline bubbles, the structure traces read."""
import pytest

from hosts import shadow
from testbed.errors import TrainetError
from testbed.model import pipeline
from testbed.model.calibration import Calibration
from testbed.model.fabric import fabric
from testbed.model.step import Workload, predict

A100 = shadow.device("a100-80gb")
NO_INTERFERENCE = Calibration(interference=0.0)


def workload(model="gpt-1.3b", batch=8):
    return Workload(shadow.PRESETS[model], A100, batch)


def test_ddp_hides_all_but_the_last_bucket_behind_backward():
    """8 buckets, each all-reduced after its share of backward: with communication
    faster than compute only the last bucket's all-reduce is exposed."""
    p = predict("ddp", workload(batch=64), fabric("star:roce-200g", 8), 8,
                calibration=NO_INTERFERENCE)
    role = p.roles[0]
    buckets = role.collectives()
    assert len(buckets) == 8 and buckets[0].duration_s < p.compute_s * 2 / 3 / 8
    assert p.exposed_s == pytest.approx(buckets[-1].duration_s)
    assert p.step_s == pytest.approx(p.compute_s + p.exposed_s)
    assert sum(e.exposed_s for e in buckets) == pytest.approx(p.exposed_s)


def test_slower_links_expose_more_and_interference_slows_overlapped_compute():
    fast = predict("zero3", workload(), fabric("star:roce-200g", 8), 8)
    slow = predict("zero3", workload(), fabric("star:eth-25g-tcp", 8), 8)
    assert slow.exposed_s > fast.exposed_s
    assert fast.interference_s > 0
    assert predict("ina", workload(), fabric("star:roce-200g", 8), 8).interference_s == 0


def test_ideal_pipeline_bubble():
    """Equal stages, free transfers: a flushed 1F1B pipeline idles (p - 1) / (m + p - 1)."""
    p, m, f = 4, 8, 1.0
    steps = pipeline.simulate(pipeline.StageTimes([f] * p, [2 * f] * p, [0.0] * p,
                                                  [0.0] * (p - 1), 0.0, m))
    step = max(s.end_s for s in steps)
    assert step == pytest.approx((m + p - 1) * 3 * f)
    assert 1 - m * 3 * f / step == pytest.approx((p - 1) / (m + p - 1))


def test_pipeline_roles_list_stages_with_their_transfers_and_dependencies():
    p = predict("megatron", workload(batch=16), fabric("dgx-a100", 16), 16,
                {"tp": 2, "pp": 4, "dp": 2, "micro_batches": 4})
    assert [r.name for r in p.roles] == [f"stage {s}" for s in range(4)]
    assert p.members(p.roles[1]) == [4, 5, 6, 7]
    assert p.group_ranks("dp", 5) == [5, 7] and p.group_ranks("tp", 5) == [4, 5]
    middle = p.roles[1]
    ops = {e.op for e in middle.collectives()}
    assert {"send", "recv", "all-reduce"} <= ops
    for i, e in enumerate(middle.events):
        assert all(j < i for j in e.after)
    assert p.bubble_s > 0 and p.step_s > p.compute_s


def test_events_come_after_what_they_wait_for_and_groups_have_their_events_size():
    """zero-hier: on DGX A100 nodes (packages of one GPU) its package gathers take no
    time and start with the compute that waits for them; on Frontier its node
    reduce-scatter joins the node's 4 packages, 4 of the node's 8 ranks."""
    for name in ("dgx-a100", "frontier"):
        p = predict("zero-hier", workload(batch=16), fabric(name, 16), 16)
        for i, e in enumerate(p.roles[0].events):
            assert all(j < i for j in e.after)
    reduce = next(e for e in p.roles[0].events if e.op == "reduce-scatter" and
                  e.group == "node")
    assert reduce.group_size == 4 and p.group_ranks("node", 5, reduce.group_size) == [4, 5, 6, 7]
    assert p.group_ranks("node", 5) == list(range(8))


def test_a_long_pipeline_keeps_its_passes_in_order():
    """Beyond pipeline.SIMULATED passes each stage is its forwards, then its backwards,
    then its data-parallel all-reduce, one after another; overlapped as Megatron-LM
    overlaps it, the all-reduce runs during the last backward, hidden up to its length."""
    options = {"tp": 2, "pp": 4, "dp": 2, "micro_batches": 4096}
    after = predict("megatron", workload(batch=2 * 4096), fabric("dgx-a100", 16), 16,
                    {**options, "overlap_grad_reduce": False})
    for role in after.roles:
        assert [(e.name, e.after) for e in role.events] == [
            ("forward x4096", ()), ("backward x4096", (0,)), ("all-reduce dp", (1,))]
    hidden = predict("megatron", workload(batch=2 * 4096), fabric("dgx-a100", 16), 16, options)
    for role in hidden.roles:
        assert [(e.name, e.after) for e in role.events] == [
            ("forward x4096", ()), ("backward x4096", (0,)), ("all-reduce dp", (0,))]
    reduce_s = next(e for e in after.roles[0].events if e.name == "all-reduce dp").duration_s
    assert after.step_s - hidden.step_s == pytest.approx(reduce_s, rel=1e-6)


def test_json_shape_has_the_step_and_breakdown():
    d = predict("zero3", workload(), fabric("dgx-a100", 8), 8).as_dict()
    for key in ("step_s", "compute_s", "exposed_s", "exposed_by_tier", "tflops_per_gpu",
                "memory_per_gpu_B", "fits"):
        assert key in d


def test_a_layout_the_gpus_cannot_hold_is_an_error():
    with pytest.raises(TrainetError, match="megatron"):
        predict("megatron", workload(), fabric("dgx-a100", 8), 8, {"tp": 3})
    with pytest.raises(TrainetError, match="does not split over its 8 replicas"):
        predict("ddp", workload(batch=4), fabric("dgx-a100", 8), 8)


def test_interleaving_cuts_the_bubble_to_one_over_the_chunks():
    """Four equal stages, eight micro-batches of forward 1 s and backward 2 s, no
    transfers: the first stage idles (p - 1)(f + b) / v (Narayanan et al. 2021, sec.
    2.2.2), played with an event per pass and for its times only alike."""
    from testbed.model import pipeline
    for v, idle in ((1, 9.0), (2, 4.5), (4, 2.25)):
        played = pipeline.simulate(pipeline.StageTimes([1.0] * 4, [2.0] * 4, [0.0] * 4,
                                                       [0.0] * 3, 0.0, 8, "1f1b", v))
        assert played[0].end_s == pytest.approx(8 * 3 + idle)
        assert played[0].bubble_s == pytest.approx(idle)
        closed = pipeline.simulate(pipeline.StageTimes([1.0] * 4, [2.0] * 4, [0.0] * 4,
                                                       [0.0] * 3, 0.0, 8000, "1f1b", v))
        assert closed[0].end_s == pytest.approx(8000 * 3 + idle)
    from hosts.parallelism.pipeline import interleaved
    assert interleaved(1, 2, 4, 2)[:4] == [("F", 0, 0), ("F", 1, 0), ("F", 0, 1), ("B", 0, 1)]


def test_a_strategy_without_a_recompute_option_pays_for_the_recompute_its_memory_assumes():
    """AxoNN has no recompute option: the workload's recompute sets its compute and its
    footprint alike. Full recompute: one more forward (a third more compute than the
    forward + backward), only layer inputs kept; without: less compute, every
    activation stored. The model's default is full, what such runs need at scale."""
    model = shadow.shadow_model("megatron-175b")
    dgx = fabric("dgx-a100", 64)
    steps = {mode: predict("axonn", Workload(model, A100, 64, recompute=mode), dgx, 64,
                           {"g_d": 64}) for mode in ("none", "full")}
    none, full = steps["none"], steps["full"]
    assert full.compute_s > 1.25 * none.compute_s
    assert full.memory_per_gpu_B < none.memory_per_gpu_B / 2
    assert full.fits and not none.fits
    assert full.layout.endswith("full recompute") and "recompute" not in none.layout
    default = predict("axonn", Workload(model, A100, 64), dgx, 64, {"g_d": 64})
    assert (default.compute_s, default.memory_per_gpu_B) == \
        (full.compute_s, full.memory_per_gpu_B)


def test_the_optimizer_step_moves_megatrons_bytes_per_parameter_and_the_replay_skips_it():
    """After the step each rank updates its parameters: 54 bytes per parameter at the
    HBM bandwidth (gradient copy, unscale, norm, Adam, copy back, zeroing); a replay of
    the shadow workers, which sleep no optimizer step, leaves it out."""
    from hosts import compute
    model = shadow.shadow_model("megatron-175b")
    dgx = fabric("dgx-a100", 64)
    options = {"tp": 8, "pp": 8, "micro_batch_size": 1, "recompute": "full"}
    with_step = predict("megatron", Workload(model, A100, 64), dgx, 64, options)
    replay = predict("megatron", Workload(model, A100, 64, optimizer_step=False), dgx, 64,
                     options)
    per_rank = model.params / 64                        # tp8 x pp8: no replica
    expected = per_rank * 54 / (A100.memory_bw_bps * compute.MEMORY_EFFICIENCY)
    assert compute.OPTIMIZER_BYTES_PER_PARAM == 54
    assert with_step.step_s - replay.step_s == pytest.approx(expected, rel=0.02)


def test_a_recompute_mode_that_does_not_exist_is_named_with_the_choices():
    with pytest.raises(TrainetError) as error:
        predict("megatron", workload(), fabric("dgx-a100", 8), 8,
                {"tp": 8, "recompute": "partial"})
    assert "strategy megatron: recompute: Input should be 'none', 'selective' or 'full' " \
        "(got 'partial')" in str(error.value)
    assert "strategy megatron: strategy megatron" not in str(error.value)
