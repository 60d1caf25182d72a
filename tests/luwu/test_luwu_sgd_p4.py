"""p4/luwu_sgd.p4 on the software target: the switch applies SGD with momentum in fixed
point to its own parameter registers and multicasts the parameters."""
import dataclasses

import numpy as np
import pytest
import torch

from controllers import ina as ctl
from controllers import luwu_sgd
from controllers.jobs import JobError
from controllers.jobs import TargetDevice
from hosts import ina_fixedpoint as qfx
from luwu_sgd_setup import push, reference_step, sgd_job
from luwu_setup import AGG, SWITCH_MAC, worker_ip, worker_mac
from tests.ina.ina_fabric import decoded
from testbed.proto import ina, luwu_sgd_p4
from testbed.proto import luwu_sgd as sfx

N, CHUNKS, LR, MU = 3, 2, 0.05, 0.9
RETRANSMIT = ina.FLAG_GRADIENT | ina.FLAG_RETRANSMIT


@pytest.fixture
def target(sgd_target):
    return sgd_target


def initial_params(seed=0):
    return np.random.default_rng(seed).normal(0, 0.5, CHUNKS * ina.LANES)


@pytest.fixture
def device(sgd_device):
    """The switch with a fresh 32-bit SGD job of CHUNKS chunks and zeroed counters."""
    return sgd_device(initial_params(), 32, LR, MU)


def gradients(step):
    """Every worker's float gradients of one step, (N, CHUNKS * LANES)."""
    return np.random.default_rng(100 + step).normal(0, 0.05, (N, CHUNKS * ina.LANES))


def push_step(target, step, grads):
    """Workers push one step (chunk c of the step is chunk step * CHUNKS + c of the stream);
    return the frames out of each completing packet, the exponent and the slot sums."""
    e = qfx.exponent_for(float(np.abs(grads).max()))
    q = np.stack([qfx.quantize(g, e, N) for g in grads]).reshape(N, CHUNKS, ina.LANES)
    outs = []
    for c in range(CHUNKS):
        for w in range(N):
            out = push(target, w, step * CHUNKS + c, q[w, c], e)
        outs.append(out)
    return outs, e, q.astype(np.int64).sum(axis=0)


def torch_sgd(initial, grads_per_step):
    """float64 torch.optim.SGD(momentum) from ``initial`` over the workers' mean
    gradients; the parameters and the largest |momentum| seen."""
    p = torch.tensor(initial, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.SGD([p], lr=LR, momentum=MU)
    v_max = 0.0
    for grads in grads_per_step:
        p.grad = torch.tensor(grads.mean(axis=0))
        opt.step()
        v_max = max(v_max, opt.state[p]["momentum_buffer"].abs().max().item())
    return p.detach().numpy(), v_max


def test_checked_in_program_is_the_rendered_template():
    assert luwu_sgd_p4.TEMPLATE.with_name("luwu_sgd.p4").read_text() == luwu_sgd_p4.render(), \
        "p4/luwu_sgd.p4 is stale: python -m testbed.proto.luwu_sgd_p4 > p4/luwu_sgd.p4"


def test_a_complete_slot_is_one_fixed_point_sgd_step_multicast_to_the_workers(device):
    target = device.target
    for lane in range(ina.LANES):                 # an earlier job's momentum: ignored
        device.write_registers(luwu_sgd.MOMENTUM_REGISTERS[lane], 0, [12345] * CHUNKS)
    w0 = sfx.to_fixed(initial_params()).reshape(CHUNKS, ina.LANES)
    grads = gradients(0)
    outs, e, sums = push_step(target, 0, grads)
    want_w, want_v = reference_step(w0, np.zeros_like(w0), sums, e, LR, MU)
    for c, out in enumerate(outs):
        got = decoded(out)
        assert sorted((p, ip, mac) for p, ip, mac, _, _ in got) == [
            (w + 1, worker_ip(w), worker_mac(w)) for w in range(N)]
        for _, _, _, header, values in got:
            assert header.flags == ina.FLAG_PARAMS | ina.FLAG_FIXED
            assert (header.chunk, header.exponent, header.n_workers) == (c, -sfx.FRAC_BITS, N)
            assert np.array_equal(values, want_w[c])
    assert np.array_equal(luwu_sgd.read_fixed(device, sgd_job()), want_w.reshape(-1))
    assert np.array_equal(luwu_sgd.read_fixed(device, sgd_job(), luwu_sgd.MOMENTUM_REGISTERS),
                          want_v.reshape(-1))
    ref, v_max = torch_sgd(initial_params(), [grads])
    bound = sfx.error_bound(1, LR, MU, N, e, v_max)
    assert bound < 1e-7
    assert np.abs(luwu_sgd.read_params(device, sgd_job()) - ref).max() <= bound
    assert luwu_sgd.handled_counts(device)["params_multicast"] == CHUNKS


def test_momentum_carries_across_steps(device):
    target = device.target
    w = sfx.to_fixed(initial_params()).reshape(CHUNKS, ina.LANES)
    v = np.zeros_like(w)
    steps, exponents = [gradients(s) for s in range(4)], []
    for s, grads in enumerate(steps):
        _, e, sums = push_step(target, s, grads)
        w, v = reference_step(w, v, sums, e, LR, MU)
        exponents.append(e)
    got = luwu_sgd.read_fixed(device, sgd_job())
    assert np.array_equal(got, w.reshape(-1))
    ref, v_max = torch_sgd(initial_params(), steps)
    bound = sfx.error_bound(len(steps), LR, MU, N, max(exponents), v_max)
    assert np.abs(sfx.from_fixed(got) - ref).max() <= bound
    # without momentum the fourth step would differ by far more than the bound
    plain, _ = torch_sgd(initial_params(), steps[:3])
    plain -= LR * steps[3].mean(axis=0)
    assert np.abs(plain - ref).max() > 100 * bound


def test_a_retransmission_after_the_update_gets_the_same_parameters_once(device):
    target = device.target
    outs, e, _ = push_step(target, 0, gradients(0))
    multicast = decoded(outs[0])[0][4]
    before = luwu_sgd.read_fixed(device, sgd_job())
    quantized = qfx.quantize(gradients(0)[1], e, N)[:ina.LANES]
    for _ in range(2):
        got = decoded(push(target, 1, 0, quantized, e, flags=RETRANSMIT))
        assert len(got) == 1
        port, ip, mac, header, values = got[0]
        assert (port, ip, mac) == (2, worker_ip(1), worker_mac(1))
        assert header.flags == ina.FLAG_PARAMS | ina.FLAG_FIXED and header.chunk == 0
        assert np.array_equal(values, multicast)
    assert np.array_equal(luwu_sgd.read_fixed(device, sgd_job()), before)     # no update
    handled = luwu_sgd.handled_counts(device)
    assert (handled["params_multicast"], handled["params_unicast"]) == (CHUNKS, 2)


def test_chunks_beyond_the_parameter_registers_are_dropped_and_counted(target):
    """A job entry written by hand past the registers' end (the controller refuses one):
    chunks that map beyond MODEL_CHUNKS touch nothing."""
    size = TargetDevice(target).register_size(luwu_sgd.PARAM_REGISTERS[0])
    assert size == luwu_sgd_p4.MODEL_CHUNKS
    job = sgd_job(job_id=5)
    entry = luwu_sgd.gradient_entries(job, 4)[0]
    entry.action.params["model_base"] = size - 2
    for cell in ctl.slot_cells(job.gradient_job()):
        target.register_write("MyIngress.slot_count", cell, 0)
    target.table_insert(ctl.aggregator_entry(job.gradient_job()))
    target.table_insert(entry)
    try:
        zeros = np.zeros(ina.LANES, np.int32)
        before = target.counter_read(ctl.DROP_COUNTER, 8)[0]
        for chunk in (2, 3, 6):                       # positions 2, 3, 2: cells size, size + 1
            assert push(target, 0, chunk, zeros, 0, job_id=5) == []
        assert push(target, 0, 1, zeros, 0, job_id=5) == []            # cell size - 1: absorbed
        assert target.counter_read(ctl.DROP_COUNTER, 8)[0] - before == 3
        assert [target.register_read("MyIngress.slot_count", c) for c in (2, 3, 6)] == [0] * 3
        assert target.register_read("MyIngress.slot_count", 1) == 1
    finally:
        target.table_delete(entry)
        target.table_clear(ctl.AGGREGATOR_TABLE)


def test_the_controller_refuses_a_model_the_registers_cannot_hold(target):
    dev = TargetDevice(target)
    with pytest.raises(JobError, match=r"cells \[1000, 1030\) .* holds 1024; render a "
                                           r"bigger program .*--model-chunks 1030"):
        luwu_sgd.setup(dev, sgd_job(model_base=1000), np.zeros(30 * ina.LANES))
    with pytest.raises(JobError, match=r"initial parameter\[7\] = 200.0 does not fit"):
        luwu_sgd.setup(dev, sgd_job(), np.where(np.arange(ina.LANES) == 7, 200.0, 0.0))
    assert target.table_entries(ctl.JOB_TABLE) == []                   # nothing installed


def test_gradients_the_fixed_point_cannot_hold_are_dropped_and_counted(device):
    target = device.target
    lanes = np.ones(ina.LANES, np.int32)
    assert push(target, 0, 0, lanes, sfx.EXPONENT_MAX + 1) == []
    assert luwu_sgd.drop_counts(device)["bad_exponent"] == 1
    assert target.register_read("MyIngress.slot_count", 0) == 0
    assert push(target, 0, 0, lanes, sfx.EXPONENT_MAX) == []           # fits: absorbed
    assert luwu_sgd.handled_counts(device)["absorbed"] == 1


def test_the_exponent_job_multicasts_its_result(device):
    zeros = np.zeros(ina.LANES, np.int32)
    out = []
    for w in range(N):
        out = push(device.target, w, 0, zeros, w - 5, job_id=2)
    got = decoded(out)
    assert sorted(p for p, *_ in got) == [1, 2, 3]
    assert all(h.flags == ina.FLAG_RESULT and h.exponent == -3 for *_, h, _ in got)
    assert ina.frame_addresses(out[0][1])[0] == AGG


def test_the_register_size_is_a_render_time_parameter():
    from testbed.p4.lowering.program import load_source
    program = load_source(luwu_sgd_p4.render(lanes=8, model_chunks=40), filename="sgd8.p4")
    ingress = program.controls[program.blocks["ingress"]]
    sizes = {i.local_name: i.args[0].value for i in ingress.instances if i.extern == "register"}
    assert sizes["par_v07"] == sizes["mom_v00"] == 40 and sizes["lane_v00"] == 2 * ina.POOL
    assert "holds MODEL_CHUNKS = 40 chunks of 8 lanes, 320 parameters" in \
        luwu_sgd_p4.render(lanes=8, model_chunks=40)
    checked_in = luwu_sgd_p4.TEMPLATE.with_name("luwu_sgd.p4").read_text()
    assert "MODEL_CHUNKS = 1024 chunks of 256 lanes, 262144 parameters" in checked_in
    with pytest.raises(ValueError, match="model_chunks = 0"):
        luwu_sgd_p4.render(model_chunks=0)


def test_a_second_job_may_not_share_parameter_cells_slots_or_the_id(device):
    target = device.target
    before = target.table_entries(ctl.JOB_TABLE)
    with pytest.raises(JobError, match=r"cells \[1, 3\) overlap job 1's \[0, 2\); pick a "
                                           "model_base at or above 2"):
        luwu_sgd.setup(device, luwu_sgd.SgdJob(7, AGG, sgd_job().workers, 0.1, model_base=1,
                                               slot_base=100), initial_params())
    with pytest.raises(JobError, match="job 1 already exists on this switch"):
        luwu_sgd.setup(device, sgd_job(model_base=2), initial_params())
    assert target.table_entries(ctl.JOB_TABLE) == before               # nothing installed
    second = luwu_sgd.SgdJob(7, AGG, sgd_job().workers, 0.1, model_base=2, slot_base=100)
    luwu_sgd.setup(device, second, initial_params(seed=1))
    assert np.array_equal(luwu_sgd.read_fixed(device, second),
                          sfx.to_fixed(initial_params(seed=1)))
    assert np.array_equal(luwu_sgd.read_fixed(device, sgd_job()),
                          sfx.to_fixed(initial_params()))              # the first one's intact
    luwu_sgd.teardown(device, second)
    assert target.table_entries(ctl.JOB_TABLE) == before


def test_parameters_from_a_host_and_bad_gradients_touch_nothing(device):
    target = device.target
    lanes = np.ones(ina.LANES, np.int32)
    assert push(target, 0, 0, lanes, 0, flags=ina.FLAG_PARAMS | ina.FLAG_FIXED) == []
    assert push(target, 0, 0, lanes, 0, flags=ina.FLAG_GRADIENT | ina.FLAG_PARAMS) == []
    assert push(target, 0, 0, lanes, 0, job_id=9) == []
    bad_worker = ina.encode(1, 7, ina.FLAG_GRADIENT, 0, 0, 0, lanes)
    assert target.process(ina.frame(worker_mac(0), SWITCH_MAC, worker_ip(0), AGG,
                                    bad_worker), 1) == []
    assert push(target, 0, 9, lanes, 0, slots=16) == []               # slot 9 of 8
    drops = luwu_sgd.drop_counts(device)
    assert (drops["bad_type"], drops["unknown_job"], drops["bad_worker"],
            drops["bad_slot"]) == (2, 1, 1, 1)
    assert target.register_read("MyIngress.slot_count", 0) == 0
    assert np.array_equal(luwu_sgd.read_fixed(device, sgd_job()), sfx.to_fixed(initial_params()))


def test_set_up_zeroes_the_counters_of_an_idle_switch_only(target):
    """The counters are the switch's: the first job of an idle switch starts them at 0,
    a job set up beside another leaves that job's counts alone."""
    dev = TargetDevice(target)
    first = sgd_job(lr=LR, momentum=MU)
    second = dataclasses.replace(sgd_job(job_id=5, lr=LR, momentum=MU, model_base=CHUNKS),
                                 slot_base=16)
    lanes = np.zeros(ina.LANES, dtype=np.int64)
    for round_ in range(2):
        luwu_sgd.setup(dev, first, initial_params())
        assert set(luwu_sgd.drop_counts(dev).values()) == {0}
        assert set(luwu_sgd.handled_counts(dev).values()) == {0}
        # a max round to the SGD job: dropped as bad_type
        assert push(target, 0, 0, lanes, 0, flags=ina.FLAG_GRADIENT | ina.FLAG_MAX) == []
        luwu_sgd.setup(dev, second, initial_params(1))
        assert luwu_sgd.drop_counts(dev)["bad_type"] == 1
        luwu_sgd.teardown(dev, second)
        luwu_sgd.teardown(dev, first)
    assert luwu_sgd.drop_counts(dev)["bad_type"] == 1      # kept until the next set-up
