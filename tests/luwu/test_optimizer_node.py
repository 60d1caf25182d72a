"""The optimizer node's update math against torch.optim, through the packets it sees."""
import numpy as np
import pytest
import torch

from hosts import ina_fixedpoint as fx
from hosts.luwu_layout import Layout
from hosts.optimizer_node import OptimizerNode
from testbed.proto import ina

N = 3


def model_params():
    torch.manual_seed(0)
    return [torch.nn.Parameter(torch.randn(shape)) for shape in ((40, 7), (7,), (300,), (5, 3))]


def worker_grads(params, step):
    g = torch.Generator().manual_seed(100 + step)
    return [[torch.randn(p.shape, generator=g) * 0.1 for p in params] for _ in range(N)]


def switch_sums(layout, grads, step):
    """The gradient-sum payloads the switch hands the optimizer for one step: every
    worker quantizes its padded flat gradient with the agreed exponent; int32 sums."""
    flats = [layout.flatten(g) for g in grads]
    e = fx.exponent_for(max(float(np.abs(f).max()) for f in flats))
    total = sum(fx.quantize(f, e, N).astype(np.int64) for f in flats).astype(np.int32)
    payloads, exact = [], fx.dequantize(total, e, N) / N
    for pos in range(layout.chunks_per_step):
        chunk = step * layout.chunks_per_step + pos
        payloads.append(ina.encode(1, 0, ina.FLAG_RESULT, ina.slot_field(chunk % 4, (chunk // 4) % 2),
                                   e, chunk, total[pos * ina.LANES:(pos + 1) * ina.LANES],
                                   n_workers=N))
    return payloads, exact


def unflatten(layout, flat, params):
    out = [torch.empty_like(p) for p in params]
    for b in range(len(layout.buckets)):
        lo, hi = layout.first_chunk[b] * ina.LANES, layout.first_chunk[b + 1] * ina.LANES
        layout.scatter(b, flat[lo:hi], out)
    return out


@pytest.mark.parametrize("kind", ["adamw", "sgd"])
def test_updates_match_torch_optimizers_on_the_same_gradients(kind):
    params = model_params()
    layout = Layout.of(params, bucket_bytes=1024)
    assert len(layout.buckets) > 1
    node = OptimizerNode(1, N, layout, layout.flatten(params), kind, lr=0.01,
                         weight_decay=0.05, momentum=0.8)
    reference = [p.detach().clone().requires_grad_(True) for p in params]
    opt = (torch.optim.AdamW(reference, lr=0.01, weight_decay=0.05) if kind == "adamw"
           else torch.optim.SGD(reference, lr=0.01, momentum=0.8, weight_decay=0.05))
    for step in range(5):
        payloads, averaged = switch_sums(layout, worker_grads(params, step), step)
        answers = [node.handle(p) for p in reversed(payloads)]      # any order
        for p, g in zip(reference, unflatten(layout, averaged.astype(np.float32), params)):
            p.grad = g
        opt.step()
    got = unflatten(layout, np.concatenate([ina.decode(a)[1] for a in reversed(answers)])
                    .view(np.float32), params)
    for mine, theirs in zip(got, reference):
        torch.testing.assert_close(mine, theirs.detach(), rtol=1e-5, atol=1e-6)
    assert node.memory()["optimizer_bytes"] == (2 if kind == "adamw" else 1) * \
        layout.chunks_per_step * ina.LANES * 4


def test_each_chunk_is_applied_once_and_a_repeat_gets_the_same_answer():
    params = model_params()
    layout = Layout.of(params)
    node = OptimizerNode(1, N, layout, layout.flatten(params), "sgd", lr=0.1)
    payloads, _ = switch_sums(layout, worker_grads(params, 0), 0)
    first = node.handle(payloads[0])
    header, _ = ina.decode(first)
    assert header.flags == ina.FLAG_PARAMS and header.chunk == 0 and header.job_id == 1
    repeat = bytearray(payloads[0])
    repeat[2] |= ina.FLAG_RETRANSMIT
    assert node.handle(bytes(repeat)) == first
    assert (node.applied, node.repeats) == (1, 1)


def test_foreign_and_malformed_packets_are_ignored():
    params = model_params()
    layout = Layout.of(params)
    node = OptimizerNode(1, N, layout, layout.flatten(params))
    payloads, _ = switch_sums(layout, worker_grads(params, 0), 0)
    other_job = bytes([2]) + payloads[0][1:]
    gradient = payloads[0][:2] + bytes([ina.FLAG_GRADIENT]) + payloads[0][3:]
    assert [node.handle(p) for p in (other_job, gradient, payloads[0][:-1])] == [None] * 3
    assert node.applied == 0 and node.ignored == 3


def pull_request(chunk: int, flags=ina.FLAG_RESULT | ina.FLAG_PULL, job=3) -> bytes:
    return ina.encode(job, 0, flags, ina.slot_field(chunk % 4, (chunk // 4) % 2), 0, chunk,
                      None, n_workers=N)


def test_streamed_workers_get_acknowledgements_and_pull_parameters_once_updated():
    params = model_params()
    units = [torch.nn.ParameterList(params[:2]), torch.nn.ParameterList(params[2:])]
    layout = Layout.of_units(params, units)
    node = OptimizerNode(1, N, layout, layout.flatten(params), "sgd", lr=0.1,
                         weight_decay=0.0, pull_job=3)
    per_step = layout.pull_chunks_per_step
    # step 0's pulls: the initial parameters, in the layout's pull order
    answers = [node.handle(pull_request(c)) for c in range(per_step)]
    positions = layout.pull_positions()
    for answer, position in zip(answers, positions):
        header, lanes = ina.decode(answer)
        assert header.flags == ina.FLAG_PARAMS and header.job_id == 3
        initial = layout.flatten(params)[position * ina.LANES:(position + 1) * ina.LANES]
        assert np.array_equal(lanes.view(np.float32), initial)
    # step 1's first pull comes before step 0's update of its chunk: ignored, asked again
    assert node.handle(pull_request(per_step)) is None and node.early == 1
    payloads, exact = switch_sums(layout, worker_grads(params, 0), 0)
    for p in payloads:
        acknowledgement = node.handle(p)
        assert len(acknowledgement) == ina.HEADER_BYTES       # header only: no parameters
        assert ina.decode_any(acknowledgement)[0].flags == ina.FLAG_PARAMS
    header, lanes = ina.decode(node.handle(pull_request(per_step)))
    position = positions[0]
    updated = (layout.flatten(params) - 0.1 * exact)[position * ina.LANES:
                                                      (position + 1) * ina.LANES]
    assert np.allclose(lanes.view(np.float32), updated, atol=1e-6)
    # a pull of the gradient job, or a pull carrying lanes, is not a pull
    assert node.handle(pull_request(per_step + 1, job=1)) is None
    assert node.handle(payloads[0][:2] + bytes([ina.FLAG_RESULT | ina.FLAG_PULL])
                       + payloads[0][3:]) is None
    assert node.ignored == 2 and node.pulls == per_step + 1
