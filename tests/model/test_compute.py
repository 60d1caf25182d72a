"""The shape-aware compute model (hosts/compute.py) and Megatron's vocabulary in predict."""
import dataclasses

import pytest

from hosts import compute, devices, footprint, shadow
from hosts.strategies import registry
from testbed import cli
from testbed.errors import TrainetError
from testbed.model.fabric import fabric
from testbed.model.step import Workload, predict

A100 = devices.device("a100-80gb")
GPT175 = shadow.shadow_model("gpt-175b")


def test_a_large_product_runs_at_the_ceiling_and_a_ragged_one_below_it():
    # 8192^3: 2048 tiles of 256 x 128 fill 19 waves of 108 SMs almost exactly
    big = compute.matmul_s(8192, 8192, 8192, A100)
    assert 2 * 8192 ** 3 / big == pytest.approx(
        312e12 * compute.matmul_ceiling(A100) * 8192 / (8192 + compute.K_HALF), rel=0.01)
    # 109 tiles of 64 x 64 on 108 SMs: the last wave runs one tile (wave quantization)
    assert compute.tile_use(64 * 109, 64, 1, 108) == pytest.approx(109 / 216, rel=0.01)
    # a thin product is memory-bound: its time follows the bandwidth, not the peak
    thin = compute.matmul_s(1, 8192, 8192, A100)
    assert thin == pytest.approx(2 * 8192 * 8192 / (A100.memory_bw_bps
                                                     * compute.MEMORY_EFFICIENCY), rel=0.01)


def test_tensor_parallelism_recompute_and_sequence_parallelism_cost_what_they_should():
    x = shadow.shape_of(GPT175)
    one = compute.layer_pass(x, A100, 1)
    split = compute.layer_pass(x, A100, 1, tp=8)
    assert one.seconds / 8 < split.seconds < one.seconds / 6     # smaller products, less use
    none, sel, full = (compute.layer_pass(x, A100, 1, 8, True, r)
                       for r in ("none", "selective", "full"))
    assert none.forward_s == sel.forward_s == full.forward_s
    assert none.backward_s < sel.backward_s < full.backward_s
    assert full.backward_s == pytest.approx(none.backward_s + none.forward_s)
    assert compute.layer_pass(x, A100, 1, 8, True).seconds < split.seconds
    assert 1.8 < none.backward_s / none.forward_s < 2.2
    with pytest.raises(TrainetError, match="recompute 'some'.*none, selective, full"):
        compute.layer_pass(x, A100, 1, recompute="some")


def test_the_mfu_override_is_six_flops_per_parameter_and_token():
    flat = shadow.step_compute_s(GPT175, 1, A100, mfu=0.5)
    assert flat == pytest.approx(6 * 175e9 * 2048 / (312e12 * 0.5))
    assert shadow.step_compute_s(GPT175, 1, A100) != flat


def test_a_faster_memory_speeds_the_memory_bound_work_only():
    h200 = devices.device("h200-141gb")
    h100 = devices.device("h100-80gb")
    x = shadow.shape_of(shadow.shadow_model("gpt-1.3b"))
    assert compute.layer_pass(x, h200, 1).seconds < compute.layer_pass(x, h100, 1).seconds
    assert compute.matmul_s(8192, 8192, 8192, h200) == compute.matmul_s(8192, 8192, 8192, h100)
    assert A100.peak("tf32") == 156e12
    with pytest.raises(TrainetError, match="precision 'fp8'"):
        A100.peak("fp8")


def test_a_custom_shape_derives_its_parameters():
    m = shadow.shadow_model("custom:layers=48,hidden=6144,heads=64")
    assert (m.layers, m.hidden, m.heads, m.vocab, m.seq) == (48, 6144, 64, 51200, 2048)
    assert m.params == pytest.approx(22e9, rel=0.02)       # Korthikanti et al.'s 22B
    for bad, message in (("custom:layers=48,hidden=6144", "give heads"),
                         ("custom:layers=48,hidden=6144,heads=50", "divisible by the heads"),
                         ("custom:layers=x,hidden=6144,heads=64", "not a whole number"),
                         ("custom:depth=4", "KEY one of layers")):
        with pytest.raises(TrainetError, match=message):
            shadow.shadow_model(bad)


def megatron(options, batch=64, gpus=64, model=GPT175):
    return predict("megatron", Workload(model, A100, batch), fabric("dgx-a100", gpus), gpus,
                   options)


def test_micro_batch_size_sets_the_count_and_bad_values_are_named():
    p = megatron({"tp": 8, "pp": 8})                     # default: one sequence each
    assert p.options["micro_batches"] == 64 and "micro-batch 1" in p.layout
    assert megatron({"tp": 8, "pp": 8, "micro_batch_size": 2}).options["micro_batches"] == 32
    for options, message in (
            ({"tp": 8, "pp": 8, "micro_batch_size": 3}, "micro_batch_size=3 does not divide "
             "the 64 sequences per replica; accepted: 1, 2, 4, 8"),
            ({"tp": 8, "pp": 8, "virtual_stages": 5}, "virtual_stages=5 with pp=8 cuts 96 "
             "layers into 40 chunks unevenly; accepted virtual_stages: 1, 2, 3, 4, 6, 12"),
            ({"tp": 8, "pp": 1, "dp": 8, "virtual_stages": 2}, "give pp of 2 or more"),
            ({"tp": 8, "pp": 8, "recompute": "most"}, "recompute")):
        with pytest.raises(TrainetError, match=message.replace("(", r"\(")):
            megatron(options)


def test_interleaving_and_selective_recompute_shorten_megatrons_step():
    base = {"tp": 8, "pp": 8, "recompute": "full"}
    full = megatron(base)
    selective = megatron({**base, "recompute": "selective", "sequence_parallel": True})
    interleaved = megatron({**base, "recompute": "selective", "sequence_parallel": True,
                            "virtual_stages": 2})
    assert interleaved.step_s < selective.step_s < full.step_s
    assert interleaved.bubble_s < selective.bubble_s
    assert selective.memory_per_gpu_B > full.memory_per_gpu_B


def test_the_fit_check_and_predict_count_the_same_footprint():
    """GPT-175B as Megatron ran it on 64 A100: the experiment's check (hosts/footprint.py
    with the strategy's layout) and predict hold the same bytes per GPU."""
    info = registry.get("megatron")
    options = info.parse_options({"tp": 8, "pp": 8, "recompute": "selective",
                                  "sequence_parallel": True})
    fp = footprint.footprint(info, GPT175, 64, 64, True, options=options)
    p = megatron({"tp": 8, "pp": 8, "recompute": "selective", "sequence_parallel": True})
    assert fp.device == pytest.approx(p.memory_per_gpu_B)
    assert fp.device < A100.memory_bytes
    # Korthikanti et al. 2022, table 2: sbh 34 / t per layer with SP and selective
    layer = 2048 * 12288 * 34 / 8
    assert fp.activations == pytest.approx(layer * 96)   # 12 layers x 8 micro-batches


def test_predict_takes_megatrons_batch_flags(capsys):
    assert cli.main(["model", "predict", "--model", "custom:layers=48,hidden=6144,heads=64",
                     "--gpus", "8", "--global-batch-size", "4", "--micro-batch-size", "1",
                     "--strategy", "megatron:tp=8,pp=1", "--json"]) == 0
    assert '"micro_batch_size": 1' in capsys.readouterr().out
    assert cli.main(["model", "predict", "--model", "gpt-1.3b", "--gpus", "8",
                     "--global-batch-size", "32", "--micro-batch-size", "2", "--strategy",
                     "zero3", "--json"]) == 0               # 2 micro-batches accumulated
    assert '"micro_batch_size": 2' in capsys.readouterr().out
    assert cli.main(["model", "predict", "--model", "gpt-1.3b", "--gpus", "8",
                     "--micro-batch-size", "2", "--strategy", "ps"]) == 2
    assert "strategy ps has no micro-batches" in capsys.readouterr().err


def test_a_layout_that_does_not_fit_says_what_it_needs(capsys):
    assert cli.main(["model", "predict", "--model", "gpt-175b", "--gpus", "64",
                     "--global-batch-size", "64", "--strategy", "megatron:tp=8,pp=8",
                     "--plot", ""]) == 0
    err = capsys.readouterr().err
    assert "megatron:tp=8,pp=8 on 64 GPUs does not fit: needs" in err
    assert "of 80 GiB device memory" in err and "recompute=selective" in err


def test_the_matmul_ceilings_reproduce_their_measurements():
    """The A100 profile's ceiling is the 230 TFLOP/s an A100 80GB sustained at large
    square FP16 products with CUDA 11.7: the model gives it within 1 % at 8192^3 and
    exceeds it at no shape. A device without a measured share takes MATMUL_CEILING, the
    best A100 product with CUDA 12.1 (267.9 TFLOP/s at 6912 x 16384 x 2048): within 4 %
    at that shape."""
    big = 2 * 8192 ** 3 / compute.matmul_s(8192, 8192, 8192, A100)
    assert big == pytest.approx(230e12, rel=0.01) and big < 230e12
    for shape in ((2048, 4608, 12288), (65536, 65536, 65536), compute.MAMF_SHAPE):
        assert 2 * shape[0] * shape[1] * shape[2] / compute.matmul_s(*shape, A100) < 230e12
    newer = dataclasses.replace(A100, matmul_share=0.0)
    m, n, k = compute.MAMF_SHAPE
    assert 2 * m * n * k / compute.matmul_s(m, n, k, newer) == pytest.approx(267.9e12,
                                                                             rel=0.04)
    assert compute.matmul_ceiling(devices.device("h100-80gb")) == compute.MATMUL_CEILING


def test_unfused_gradient_accumulation_streams_each_gradient_once_per_micro_batch():
    """Megatron-LM 2021: each micro-batch's weight gradients added into the buffer by a
    kernel of its own, 6 bytes per parameter at the memory bandwidth; fused, nothing."""
    x = shadow.shape_of(GPT175)
    fused = compute.layer_pass(x, A100, 1, 8, recompute="full")
    unfused = compute.layer_pass(x, A100, 1, 8, recompute="full", fused_accumulation=False)
    params = 12 * x.hidden ** 2 / 8
    assert unfused.forward_s == fused.forward_s
    assert unfused.backward_s - fused.backward_s == pytest.approx(
        params * 6 / (A100.memory_bw_bps * compute.MEMORY_EFFICIENCY))
    head = compute.head_pass(x, A100, 1, 8, fused_accumulation=False).backward_s \
        - compute.head_pass(x, A100, 1, 8).backward_s
    assert head == pytest.approx(x.vocab * x.hidden / 8 * 6
                                 / (A100.memory_bw_bps * compute.MEMORY_EFFICIENCY))


def test_full_recompute_repeats_the_tensor_parallel_all_reduces_of_its_forward():
    """Megatron's full recompute re-runs each layer's forward with its two all-reduces:
    six per layer and micro-batch, against four without it or with selective."""
    info = registry.get("megatron")

    def tp_bytes(recompute):
        options = info.parse_options({"tp": 8, "pp": 8, "recompute": recompute})
        pattern = info.collectives(2 * GPT175.params, 64, GPT175.layers, options=options,
                                   model=GPT175, batch=64)
        return next(c.nbytes for c in pattern if c.group == "tp")

    assert tp_bytes("full") == pytest.approx(1.5 * tp_bytes("selective"))
    assert tp_bytes("selective") == tp_bytes("none")


def test_unfused_accumulation_slows_a_megatron_prediction_by_its_bytes():
    workload = Workload(GPT175, A100, 64, mfu=None)
    net = fabric("dgx-a100", 64)
    base = {"tp": 8, "pp": 8, "micro_batch_size": 1, "recompute": "full"}
    fused = predict("megatron", workload, net, 64, base)
    unfused = predict("megatron", workload, net, 64, {**base,
                                                     "gradient_accumulation_fusion": False})
    assert unfused.step_s > fused.step_s
    # 64 micro-batches and 7 fill/drain slots, 12 layers per stage, ~0.8 ms per layer
    assert 0.3 < unfused.step_s - fused.step_s < 1.0


def test_the_loss_moves_the_logits_as_megatrons_cross_entropy_does():
    """Megatron-LM's vocabulary-parallel cross-entropy on fp32 logits: 38 bytes per logit
    forward (cast, max, subtract, exp, sum, divide), 14 backward (scale, cast back)."""
    x = shadow.shape_of(GPT175)
    tokens, per_rank, logits = x.seq, x.vocab // 8, x.seq * x.vocab / 8
    head = compute.head_pass(x, A100, 1, 8)
    bandwidth = A100.memory_bw_bps * compute.MEMORY_EFFICIENCY
    assert head.forward_s - compute.matmul_s(tokens, per_rank, x.hidden, A100) == \
        pytest.approx(38 * logits / bandwidth)
    products = compute.matmul_s(tokens, x.hidden, per_rank, A100) \
        + compute.matmul_s(x.hidden, per_rank, tokens, A100)
    assert head.backward_s - products == pytest.approx(14 * logits / bandwidth)


def test_self_attention_pays_its_layout_copies_in_both_passes():
    """The context permuted back to [s, b, h/t] (forward, and its gradient in backward),
    the query, key and value gradients joined in backward: 4 bytes per element moved."""
    x = shadow.shape_of(GPT175)
    copies = compute.attention_copies(2048, x.hidden, 8, A100)
    bandwidth = A100.memory_bw_bps * compute.MEMORY_EFFICIENCY
    assert copies.forward_s == pytest.approx(4 * 2048 * x.hidden / 8 / bandwidth)
    assert copies.backward_s == pytest.approx(4 * 2048 * 4 * x.hidden / 8 / bandwidth)
