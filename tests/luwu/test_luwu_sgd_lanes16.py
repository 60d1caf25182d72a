"""The optimizer in the switch with bf16 workers: gradients in 16-bit lanes, LANES values
a packet in half the words, one exponent per packet's block agreed in FLAG_MAX rounds;
the switch keeps int32 fixed-point parameters and applies the 32-bit rounds' SGD step to
the 16-bit sums (each value times 2^16 in its accumulator).

The reference is one process with the same rounding: the model holds the bf16 copies of
the switch's parameters, each rank's gradient is computed in turn, each block quantized
into 16-bit lanes at the largest of the ranks' exponents (INA's reference_sum rule) and
added as integers, and the switch's fixed-point SGD arithmetic is applied to those sums.
Training through p4/luwu_sgd.p4 must equal it bit for bit, also when every seventh frame
of each leg is lost.
"""
import numpy as np
import pytest
import torch

from controllers import ina as ctl
from controllers import luwu_sgd
from controllers.jobs import JobError, TargetDevice
from hosts import ina_fixedpoint as qfx
from hosts.luwu_layout import Layout
from hosts.luwu_session import PushPull, round_to_bf16
from hosts.strategies.luwu import Luwu
from luwu_sgd_setup import push, reference_step, sgd_hub, sgd_job
from luwu_setup import AGG, tiny_batch, tiny_model, worker_ip, worker_mac
from tests.ina.ina_fabric import decoded
from tests.workers.ranks import run_ranks
from testbed.errors import TrainetError
from testbed.proto import ina, luwu_sgd_p4
from testbed.proto import luwu_sgd as sfx

N, CHUNKS, LR, MU = 3, 2, 0.1, 0.9
NARROW = ina.FLAG_GRADIENT | ina.FLAG_LANES16
HALF = ina.LANES // 2                   # words of a 16-bit packet


def initial_params():
    return np.random.default_rng(3).normal(0, 0.5, CHUNKS * ina.LANES)


@pytest.fixture
def device(sgd_device):
    """The switch with a fresh 16-bit SGD job of CHUNKS chunks and zeroed counters."""
    return sgd_device(initial_params(), 16, LR, MU)


def gradients(step):
    """Every worker's float gradients of one step, (N, CHUNKS, LANES)."""
    grads = np.random.default_rng(200 + step).normal(0, 0.05, (N, CHUNKS, ina.LANES))
    grads[:, 1] *= 40                                   # blocks of different exponents
    return grads


def quantized_step(step):
    """Every worker's int16 lanes of one step, (N, CHUNKS, LANES), each chunk's block at
    the largest of the workers' exponents for it, and those exponents."""
    grads = gradients(step)
    exponents = np.max([qfx.block_exponents(g) for g in grads], axis=0)
    q = np.stack([qfx.quantize_blocks(g, exponents, N, 16)[0] for g in grads])
    return q, exponents


def push16(target, worker, chunk, values, exponent, flags=NARROW, job_id=1):
    return push(target, worker, chunk, ina.pack16(values), exponent, flags=flags,
                job_id=job_id)


def narrow_sums(q):
    """The slot sums a 16-bit round leaves in the 32-bit accumulators."""
    return q.astype(np.int64).sum(axis=0) << sfx.NARROW_SHIFT


def test_16_bit_gradients_take_the_32_bit_rounds_sgd_step_and_answer(device):
    """Each round's sum is the int16 sum times 2^16, shifted by the chunk's own exponent:
    the parameters equal the reference arithmetic bit for bit over two steps, the
    answers are full-size 32-bit fixed-point packets, and the result is within the
    16-bit error bound of float SGD."""
    target = device.target
    w = sfx.to_fixed(initial_params()).reshape(CHUNKS, ina.LANES)
    v = np.zeros_like(w)
    p = torch.tensor(initial_params(), requires_grad=True)
    opt = torch.optim.SGD([p], lr=LR, momentum=MU)
    v_max, largest = 0.0, -200
    for step in range(2):
        q, exponents = quantized_step(step)
        for c in range(CHUNKS):
            for worker in range(N):
                out = push16(target, worker, step * CHUNKS + c, q[worker, c], exponents[c])
            w[c], v[c] = reference_step(w[c], v[c], narrow_sums(q[:, c]), int(exponents[c]),
                                        LR, MU)
            got = decoded(out)
            assert sorted(port for port, *_ in got) == [1, 2, 3]
            for _, _, _, header, values in got:
                assert header.flags == ina.FLAG_PARAMS | ina.FLAG_FIXED
                assert header.exponent == -sfx.FRAC_BITS and len(values) == ina.LANES
                assert np.array_equal(values, w[c])
        p.grad = torch.tensor(gradients(step).mean(axis=0).reshape(-1))
        opt.step()
        v_max = max(v_max, opt.state[p]["momentum_buffer"].abs().max().item())
        largest = max(largest, int(exponents.max()))
    held = luwu_sgd.read_fixed(device, sgd_job())
    assert np.array_equal(held, w.reshape(-1))
    bound = sfx.error_bound(2, LR, MU, N, largest, v_max, lane_bits=16)
    diff = np.abs(sfx.from_fixed(held) - p.detach().numpy()).max()
    print(f"\n16-bit lanes, 2 steps: |switch - float SGD| {diff:.2e} <= bound {bound:.2e}")
    assert diff <= bound
    handled = luwu_sgd.handled_counts(device)
    assert handled["params_multicast"] == 2 * CHUNKS and handled["absorbed"] == 2 * CHUNKS * 2


def test_a_round_never_mixes_widths(device):
    """A 32-bit contribution to a round a 16-bit one opened is dropped as a bad type, and
    the other way round; the rounds complete with contributions of their own width."""
    target = device.target
    q, exponents = quantized_step(0)
    e = int(exponents[0])
    wide = qfx.quantize(np.full(ina.LANES, 0.01), e, N)
    assert push16(target, 0, 0, q[0, 0], e) == []
    assert push(target, 1, 0, wide, e) == []                              # 32 into 16
    assert push(target, 2, 1, wide, e) == []
    assert push16(target, 0, 1, q[0, 0], e) == []                         # 16 into 32
    assert luwu_sgd.drop_counts(device)["bad_type"] == 2
    assert [target.register_read("MyIngress.slot_count", c) for c in (0, 1)] == [1, 1]
    for worker in (1, 2):
        out = push16(target, worker, 0, q[worker, 0], e)
    assert len(out) == N
    w0 = sfx.to_fixed(initial_params()).reshape(CHUNKS, ina.LANES)
    want, _ = reference_step(w0[0], 0 * w0[0], narrow_sums(q[:, 0]), e, LR, MU)
    assert np.array_equal(decoded(out)[0][4], want)


def test_packets_of_no_width_or_for_other_jobs_are_refused(device):
    """A flagged packet of the 32-bit size, an unflagged one of the 16-bit size, both
    widths' flags at once, and 16-bit lanes to the exponent job touch nothing."""
    target = device.target
    words = np.zeros(ina.LANES, np.int32)
    assert push(target, 0, 0, words, 0, flags=NARROW) == []
    assert push(target, 0, 0, words[:HALF], 0) == []
    assert push(target, 0, 0, words[:HALF], 0, flags=NARROW | ina.FLAG_MAX) == []
    assert push(target, 0, 0, words[:HALF], 0, flags=NARROW, job_id=2) == []
    drops = luwu_sgd.drop_counts(device)
    assert (drops["bad_length"], drops["bad_type"]) == (2, 2)
    assert target.register_read("MyIngress.slot_count", 0) == 0


def test_a_contribution_at_another_exponent_than_its_round_s_is_refused(device):
    """The workers agreed one exponent per block: a contribution above (or below) the
    round's is dropped as bad_exponent, never summed at another scale; the round then
    completes with the agreed one, and one above EXPONENT_MAX never opens a round."""
    target = device.target
    q, exponents = quantized_step(0)
    e = int(exponents[0])
    assert push16(target, 0, 0, q[0, 0], e) == []
    assert push16(target, 1, 0, q[1, 0], e + 1) == []
    assert push16(target, 2, 0, q[2, 0], e - 1) == []
    assert push16(target, 0, 1, q[0, 1], sfx.EXPONENT_MAX + 1) == []
    assert luwu_sgd.drop_counts(device)["bad_exponent"] == 3
    assert target.register_read("MyIngress.slot_count", 0) == 1
    assert target.register_read("MyIngress.slot_count", 1) == 0
    push16(target, 1, 0, q[1, 0], e)
    assert len(push16(target, 2, 0, q[2, 0], e)) == N


def test_a_16_bit_retransmission_after_the_update_gets_the_parameters_once(device):
    target = device.target
    q, exponents = quantized_step(0)
    for worker in range(N):
        out = push16(target, worker, 0, q[worker, 0], exponents[0])
    multicast = decoded(out)[0][4]
    before = luwu_sgd.read_fixed(device, sgd_job())
    [(port, _, _, header, values)] = decoded(push16(
        target, 1, 0, q[1, 0], exponents[0], flags=NARROW | ina.FLAG_RETRANSMIT))
    assert port == 2 and header.flags == ina.FLAG_PARAMS | ina.FLAG_FIXED
    assert np.array_equal(values, multicast)
    assert np.array_equal(luwu_sgd.read_fixed(device, sgd_job()), before)
    assert luwu_sgd.handled_counts(device)["params_unicast"] == 1


def test_the_exponent_job_keeps_each_lane_s_largest_in_flag_max_rounds(device):
    local = np.random.default_rng(5).integers(-30, 5, (N, ina.LANES)).astype(np.int32)
    for worker in range(N):
        out = push(device.target, worker, 0, local[worker], qfx.EXPONENT_MIN,
                   flags=ina.FLAG_GRADIENT | ina.FLAG_MAX, job_id=2)
    got = decoded(out)
    assert len(got) == N
    assert all(h.flags == ina.FLAG_RESULT | ina.FLAG_MAX for *_, h, _ in got)
    assert all(np.array_equal(lanes, local.max(axis=0)) for *_, lanes in got)
    # the SGD job takes no max rounds
    assert push(device.target, 0, 0, local[0], 0, flags=ina.FLAG_GRADIENT | ina.FLAG_MAX) == []
    assert luwu_sgd.drop_counts(device)["bad_type"] == 1


def test_16_bit_jobs_are_set_up_and_a_program_without_16_bit_rounds_refuses_them(tmp_path):
    """luwu_sgd.p4 takes 16-bit jobs now (from a jobs file too); a program that has no
    16-bit rounds (no slot_lanes register) refuses one at set-up, before any write."""
    from testbed.p4.lowering.program import load_source
    from testbed.p4.python.target import Target
    data = {"job_id": 1, "aggregator_ip": AGG, "lane_bits": 16, "lr": 0.1,
            "workers": [{"worker_id": 0, "port": 1, "mac": worker_mac(0), "ip": worker_ip(0)}]}
    job = luwu_sgd.job_from_dict(data)
    assert job.lane_bits == 16 and job.gradient_job().lane_bits == 16
    assert job.exponent_job().lane_bits == 32
    source = luwu_sgd_p4.render(lanes=8, model_chunks=4).replace("slot_lanes", "slot_width")
    old = Target(load_source(source, filename="sgd_32_only.p4"))
    with pytest.raises(JobError, match=r"^job.lane_bits: the job asks for 16-bit lanes; the "
                       r"switch's program sgd_32_only.p4 has only 32-bit ones \(no "
                       r"FLAG_LANES16 rounds: it lacks MyIngress.slot_lanes\); run "
                       r"p4/luwu_sgd.p4 as rendered now \(python -m "
                       r"testbed.proto.luwu_sgd_p4 "):
        luwu_sgd.setup(TargetDevice(old), job, np.zeros(ina.LANES))
    assert old.table_entries(ctl.JOB_TABLE) == [] and old.mc_groups() == {}


STEPS, BATCH = 4, 4


def data(step, rank, world):
    return tiny_batch(step, rank, world, N * BATCH)


def layout_of(model) -> Layout:
    return Layout.of(list(model.parameters()), bucket_bytes=256, chunk_values=ina.LANES)


def reference(quantized: bool = True):
    """Rank 0's losses and the switch's fixed-point parameters of one process with the
    same rounding (without ``quantized``: the exact mean gradient, in fixed point)."""
    model = tiny_model(7)
    params = list(model.parameters())
    layout = layout_of(model)
    w = sfx.to_fixed(layout.flatten(params)).reshape(-1, ina.LANES)
    v = np.zeros_like(w)
    for p in params:
        p.data = p.data.to(torch.bfloat16).float()
    losses = []
    for s in range(STEPS):
        blocks = []
        for r in range(N):
            model.zero_grad()
            x, y = data(s, r, N)
            loss = model.loss(model(x), y)
            loss.backward()
            if r == 0:
                losses.append(loss.item())
            blocks.append(layout.flatten([p.grad for p in params]).reshape(-1, ina.LANES))
        exponents = np.max([qfx.block_exponents(b) for b in blocks], axis=0)
        q = np.stack([qfx.quantize_blocks(b, exponents, N, 16)[0] for b in blocks])
        for c in range(layout.chunks_per_step):
            if quantized:
                w[c], v[c] = reference_step(w[c], v[c], narrow_sums(q[:, c]),
                                            int(exponents[c]), LR, MU)
            else:           # the mean as a sum at exponent 7: the shift is 0
                exact = np.mean([b[c].astype(np.float64) for b in blocks], axis=0)
                w[c], v[c] = reference_step(w[c], v[c], np.rint(exact * 2.0 ** sfx.FRAC_BITS),
                                            sfx.EXPONENT_MAX, LR, MU)
        held = round_to_bf16(sfx.from_fixed(w.reshape(-1)).astype(np.float32))
        for b in range(len(layout.buckets)):
            lo, hi = layout.first_chunk[b] * ina.LANES, layout.first_chunk[b + 1] * ina.LANES
            layout.scatter(b, held[lo:hi], params)
    return losses, w.reshape(-1)


def train(drop: int):
    models = [tiny_model(7) for _ in range(N)]
    layout = layout_of(models[0])
    switch = sgd_hub(layout.flatten(list(models[0].parameters())), N, 4, LR, MU,
                     lane_bits=16, drop=drop)

    def body(comm):
        push_pull = PushPull(switch.transport(comm.rank), 1, 2, comm.rank, N, slots=4,
                             give_up_s=10, lane_bits=16, chunk_values=ina.LANES)
        strategy = Luwu(comm, push_pull, bucket_bytes=256)
        try:
            strategy.setup(models[comm.rank])
            metrics = [strategy.step(data(s, comm.rank, N)) for s in range(STEPS)]
            return strategy.full_parameters(), metrics
        finally:
            strategy.close()

    return run_ranks(N, body, timeout_s=60, gloo=False), layout, switch


@pytest.mark.slow
@pytest.mark.parametrize("drop", [0, 7])
def test_bf16_workers_train_the_switch_s_parameters_as_one_process_bit_for_bit(drop):
    losses, want = reference()
    results, layout, switch = train(drop)
    assert layout.chunks_per_step >= 2 and len(layout.buckets) >= 2
    held = luwu_sgd.read_fixed(switch.device, switch.job)
    assert np.array_equal(held, want)                          # the switch's registers
    copies = round_to_bf16(sfx.from_fixed(held).astype(np.float32))
    for params, metrics in results:
        assert np.array_equal(layout.flatten(params), copies)      # bf16 copies of them
        # per chunk: LANES int16 lanes out (half the words), LANES int32 back
        assert all(m.logical_sent_bytes == layout.chunks_per_step * ina.LANES * 2
                   and m.logical_recv_bytes == layout.chunks_per_step * ina.LANES * 4
                   for m in metrics)
    assert [m.loss for m in results[0][1]] == losses
    # the control: the same training with the exact mean gradient ends on other bits
    assert not np.array_equal(held, reference(quantized=False)[1])
    drops, handled = luwu_sgd.drop_counts(switch.device), luwu_sgd.handled_counts(switch.device)
    assert drops["bad_type"] == drops["bad_exponent"] == 0
    assert handled["params_multicast"] == STEPS * layout.chunks_per_step
    if drop:
        assert handled["params_unicast"] > 0 and handled["unicast"] > 0


def test_a_block_above_its_agreed_exponent_is_an_error_never_sent():
    """The exponents are the largest of the workers' own, so a block cannot exceed its
    one unless a worker announced less than it sends: then nothing is sent."""
    sent = []

    class Transport:
        def send(self, payload):
            sent.append(payload)

    push_pull = PushPull(Transport(), 1, 2, 0, N, slots=4, lane_bits=16,
                         chunk_values=ina.LANES)
    push_pull.exponents.agree_block_exponents = lambda local: local - 1
    with pytest.raises(TrainetError, match="a gradient block exceeds the exponent the "
                       "workers agreed on for it"):
        push_pull(np.full(2 * ina.LANES, 0.75, np.float32))
    assert sent == []
    with pytest.raises(ValueError, match="100 values per chunk: 16-bit lanes carry 512"):
        PushPull(Transport(), 1, 2, 0, N, slots=4, lane_bits=16, chunk_values=100)


@pytest.mark.parametrize("lane_bits", [16, 32])
def test_blocks_are_quantized_as_each_row_alone_clipped_only_when_one_does_not_fit(lane_bits):
    """quantize_blocks (in place, clipping only on overflow) equals quantize_checked row
    by row: the lanes and whether they fit, also with a block above its exponent."""
    blocks = np.random.default_rng(9).normal(0, 1e-3, (6, ina.LANES)).astype(np.float32)
    exponents = qfx.block_exponents(blocks)
    for over in (False, True):
        if over:
            blocks[4, 7] = 2.0 ** (int(exponents[4]) + 3)          # announced too low
        q, fits = qfx.quantize_blocks(blocks, exponents, N, lane_bits)
        rows = [qfx.quantize_checked(b, int(e), N, lane_bits) for b, e in zip(blocks, exponents)]
        assert q.dtype == (np.int16 if lane_bits == 16 else np.int32)
        assert np.array_equal(q, np.stack([r for r, _ in rows]))
        assert fits == all(f for _, f in rows) == (not over)
    assert q[4, 7] == qfx.largest(N, lane_bits)                         # clipped
