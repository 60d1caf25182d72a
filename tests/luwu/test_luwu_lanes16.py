"""LuWu with bf16 workers: gradients in 16-bit lanes, one exponent per packet's block,
fp32 parameters and AdamW on the optimizer node, parameters back as bf16 copies.

The reference is one process with the same rounding: the model holds bf16 values, each
rank's gradient is computed in turn, the ranks' gradients are summed by INA's host-side
rule (:func:`hosts.ina_allreduce.reference_sum`: each block quantized into 16-bit lanes at
the largest of the ranks' exponents, added as integers), averaged, stepped by the node's
AdamW on fp32 parameters, and the model gets their bf16 copies. Training through
p4/luwu.p4 must equal it bit for bit, also when every seventh frame of each leg is lost.
"""
import numpy as np
import pytest
import torch

from controllers import luwu
from controllers.jobs import TargetDevice
from hosts.ina_allreduce import reference_sum
from hosts.luwu_layout import Layout, shadow_layout
from hosts.optimizer_node import AdamW, OptimizerNode
from hosts.strategies.luwu import as_worker_holds
from hub import luwu_hub
from luwu_setup import (AGG, OPT_IP, SWITCH_MAC, luwu_job, tiny_batch, tiny_model,
                        train_ranks, worker_ip, worker_mac)
from testbed.errors import TrainetError
from testbed.proto import ina

WORLD, STEPS, LR, BATCH = 3, 5, 0.05, 4
VALUES = ina.lanes_per_packet(16)        # 512 values a chunk, in every direction


def data(step, rank, world):
    return tiny_batch(step, rank, world, WORLD * BATCH)


def layout_of(model, streamed: bool) -> Layout:
    params = list(model.parameters())
    if streamed:
        return Layout.of_units(params, model.units, chunk_values=VALUES)
    return Layout.of(params, bucket_bytes=256, chunk_values=VALUES)


def reference(streamed: bool, quantized: bool = True):
    """Per step rank 0's loss, and the final bf16 parameters and fp32 master of one
    process with the same rounding (without ``quantized``: the exact average)."""
    model = tiny_model(7)
    params = list(model.parameters())
    layout = layout_of(model, streamed)
    master = torch.from_numpy(layout.flatten(params))
    opt = AdamW(master, lr=LR, weight_decay=0.01)
    as_worker_holds(params, 16)
    losses = []
    for s in range(STEPS):
        grads = []
        for r in range(WORLD):
            model.zero_grad()
            x, y = data(s, r, WORLD)
            loss = model.loss(model(x), y)
            loss.backward()
            if r == 0:
                losses.append(loss.item())
            grads.append(torch.from_numpy(
                layout.flatten([p.grad for p in params]).astype(np.float64)))
        total = (reference_sum(grads, WORLD, 16) if quantized
                 else torch.stack(grads).sum(0)).numpy()
        grad = torch.from_numpy((total / WORLD).astype(np.float32))
        for c in range(layout.chunks_per_step):       # chunk by chunk, as the node does
            opt.update(c * VALUES, (c + 1) * VALUES, grad[c * VALUES:(c + 1) * VALUES], s + 1)
        copies = master.to(torch.bfloat16).float().numpy()
        for b in range(len(layout.buckets)):
            lo, hi = layout.first_chunk[b] * VALUES, layout.first_chunk[b + 1] * VALUES
            layout.scatter(b, copies[lo:hi], params)
    return losses, [p.detach().clone() for p in params], master


def train(streamed: bool, drop: int):
    models = [tiny_model(7) for _ in range(WORLD)]
    layout = layout_of(models[0], streamed)
    node = OptimizerNode(1, WORLD, layout, layout.flatten(list(models[0].parameters())),
                         "adamw", lr=LR, weight_decay=0.01, pull_job=3 if streamed else None,
                         lane_bits=16)
    hub = luwu_hub(node, WORLD, drop)
    results = train_ranks(models, hub.transport, data, STEPS, 4, streamed=streamed,
                          lane_bits=16)
    return results, node, layout, hub


def bits_equal(a, b) -> bool:
    return all(torch.equal(p.view(torch.int32), q.view(torch.int32)) for p, q in zip(a, b))


@pytest.mark.slow
@pytest.mark.parametrize("drop", [0, 7])
def test_bf16_luwu_equals_one_process_with_the_same_rounding_bit_for_bit(drop):
    losses, ref, master = reference(streamed=False)
    results, node, layout, hub = train(streamed=False, drop=drop)
    assert layout.chunks_per_step >= 2 and len(layout.buckets) >= 2
    for params, metrics, _ in results:
        assert bits_equal(params, ref)
        assert all(p.to(torch.bfloat16).float().equal(p) for p in params)   # bf16 values
        # one packet of LANES words per chunk each way: 512 bf16 values in 16-bit lanes
        assert all(m.logical_sent_bytes == m.logical_recv_bytes
                   == layout.chunks_per_step * ina.LANES * 4 for m in metrics)
    assert [m.loss for m in results[0][1]] == losses
    assert torch.equal(node.params.view(torch.int32), master.view(torch.int32))
    assert node.applied == STEPS * layout.chunks_per_step
    # the control: the same training with the exact average ends elsewhere
    assert not bits_equal(results[0][0], reference(streamed=False, quantized=False)[1])
    if drop:
        handled = luwu.handled_counts(TargetDevice(hub.target))
        assert node.repeats > 0 and handled["reforwarded"] > 0
        assert handled["params_unicast"] > 0
    assert luwu.drop_counts(TargetDevice(hub.target))["bad_type"] == 0


@pytest.mark.slow
@pytest.mark.parametrize("drop", [0, 7])
def test_streamed_bf16_luwu_pulls_bf16_copies_and_equals_one_process(drop):
    losses, ref, master = reference(streamed=True)
    results, node, layout, hub = train(streamed=True, drop=drop)
    assert [m.loss for m in results[0][1]] == losses
    assert torch.equal(node.params.view(torch.int32), master.view(torch.int32))
    assert node.pulls == STEPS * layout.pull_chunks_per_step
    for _, metrics, _ in results:
        assert all(m.logical_recv_bytes == layout.pull_chunks_per_step * ina.LANES * 4
                   for m in metrics)


def test_the_switch_never_adds_lanes_of_two_widths():
    """Worker 0 opens a slot's round with 16-bit lanes, worker 1 sends 32-bit ones to
    it: dropped as a bad type, and the round completes only with worker 1's 16-bit
    contribution, whose sum goes to the optimizer node flagged FLAG_LANES16."""
    from luwu_setup import load_luwu_program, setup_job
    from testbed.p4.python.target import Target
    target = Target(load_luwu_program())
    setup_job(target, n_workers=2, slot_count=4)
    lanes16 = np.arange(2 * ina.LANES, dtype=np.int16) - 256

    def send(w, flags, words):
        payload = ina.encode(1, w, ina.FLAG_GRADIENT | flags, ina.slot_field(0, 0), -3, 0,
                             words)
        return target.process(ina.frame(worker_mac(w), SWITCH_MAC, worker_ip(w), AGG,
                                        payload), w + 1)

    assert send(0, ina.FLAG_LANES16, ina.pack16(lanes16)) == []
    assert send(1, 0, np.ones(ina.LANES, np.int32)) == []
    assert luwu.drop_counts(TargetDevice(target))["bad_type"] == 1
    [(port, frame)] = send(1, ina.FLAG_LANES16, ina.pack16(lanes16))
    header, words = ina.decode(frame[ina.FRAME_OFFSET:])
    assert port == 9 and header.flags == ina.FLAG_RESULT | ina.FLAG_LANES16
    assert np.array_equal(ina.unpack16(words), 2 * lanes16)


def test_the_optimizer_node_refuses_a_sum_of_the_other_width():
    model = tiny_model(7)
    layout = layout_of(model, streamed=False)
    node = OptimizerNode(1, WORLD, layout, layout.flatten(list(model.parameters())),
                         lane_bits=16)
    payload = ina.encode(1, 0, ina.FLAG_RESULT, 0, 0, 0, np.zeros(ina.LANES, np.int32))
    with pytest.raises(TrainetError, match="sent 32-bit lanes, the node expects 16-bit "
                       "ones: give it the job's --lane-bits"):
        node.handle(payload)
    with pytest.raises(ValueError, match="256 values per chunk does not fit 16-bit"):
        OptimizerNode(1, WORLD, Layout.of(list(model.parameters())), np.zeros(512), lane_bits=16)


def test_luwu_jobs_and_the_in_switch_optimizer_s_take_16_bit_lanes():
    from controllers import luwu_sgd
    data = {"job_id": 1, "aggregator_ip": AGG, "lane_bits": 16,
            "workers": [{"worker_id": 0, "port": 1, "mac": worker_mac(0), "ip": worker_ip(0)}]}
    job = luwu.job_from_dict({**data, "optimizer": {"ip": OPT_IP}})
    assert job.lane_bits == 16 and job.gradient_job().lane_bits == 16
    from luwu_setup import load_luwu_program
    from testbed.p4.python.target import Target
    target = Target(load_luwu_program())
    luwu.setup(TargetDevice(target), job)             # luwu.p4 has 16-bit lanes
    assert len(target.table_entries("MyIngress.ina_job")) == 3
    # a luwu.p4 without 16-bit rounds refuses the job, naming luwu.p4 and its renderer
    from testbed.p4.lowering.program import load_source
    from testbed.proto import luwu_p4
    old = Target(load_source(luwu_p4.render().replace("slot_lanes", "slot_width"),
                             filename="luwu_32_only.p4"))
    with pytest.raises(TrainetError, match=r"^job.lane_bits: the job asks for 16-bit lanes; "
                       r"the switch's program luwu_32_only.p4 has only 32-bit ones .*; run "
                       r"p4/luwu.p4 as rendered now \(python -m testbed.proto.luwu_p4 "):
        luwu.setup(TargetDevice(old), job)
    assert old.table_entries("MyIngress.ina_job") == []
    # so has luwu_sgd.p4 (tests/luwu/test_luwu_sgd_lanes16.py sets such jobs up)
    assert luwu_sgd.job_from_dict({**data, "lr": 0.1}).gradient_job().lane_bits == 16
    assert luwu_job().lane_bits == 32


def test_shadow_bf16_layouts_carry_the_model_s_own_values_in_as_many_packets():
    """Shadow LuWu in 16-bit lanes: twice the elements (bf16, as the target model has
    them), 512 a chunk, so the same packets carry the same nominal bytes."""
    from hosts import shadow
    target = shadow.shadow_model("gpt-1.3b")
    for streamed in (False, True):
        wide = shadow_layout(target, 1e-4, streamed)
        narrow = shadow_layout(target, 1e-4, streamed, lane_bits=16)
        assert narrow.chunk_values == VALUES and wide.chunk_values == ina.LANES
        assert sum(narrow.sizes) * 2 >= 2.6e9 * 1e-4
        assert abs(narrow.chunks_per_step - wide.chunks_per_step) <= len(wide.buckets)


def test_a_block_above_its_agreed_exponent_is_an_error_never_clipped():
    """The exponents are the largest of the workers' own, so a block cannot exceed its
    one unless a worker announced less than it sends: then nothing is sent."""
    from hosts.luwu_session import PushPull
    sent = []

    class Transport:
        def send(self, payload):
            sent.append(payload)

    push_pull = PushPull(Transport(), 1, 2, 0, WORLD, slots=4, lane_bits=16)
    push_pull.exponents.agree_block_exponents = lambda local: local - 1
    with pytest.raises(TrainetError, match="a gradient block exceeds the exponent the "
                       "workers agreed on for it"):
        push_pull(np.full(2 * VALUES, 0.75, np.float32))
    assert sent == []
