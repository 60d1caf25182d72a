"""SGD job descriptions, the switch's fixed point and factors, and bulk register access
over P4Runtime."""
import numpy as np
import pytest

from controllers import ina as ctl
from controllers import luwu_sgd
from controllers.jobs import JobError, P4RuntimeDevice
from controllers.jobs import TargetDevice
from luwu_sgd_setup import REPO, sgd_job
from testbed.proto import luwu_sgd as sfx

WORKERS = [{"worker_id": w, "port": w + 1, "mac": f"08:00:00:00:01:{w + 1:02x}",
            "ip": f"10.0.1.{w + 1}"} for w in range(2)]


def job(**over):
    data = {"job_id": 3, "aggregator_ip": "10.0.255.1", "workers": WORKERS, "lr": 0.01}
    data.update(over)
    return {k: v for k, v in data.items() if v is not None}


def test_job_from_dict_builds_both_jobs_and_the_switch_factors():
    j = luwu_sgd.job_from_dict(job(momentum=0.5, slot_count=16, model_base=100))
    assert (j.job_id, j.lr, j.momentum, j.model_base) == (3, 0.01, 0.5, 100)
    e = j.exponent_job()
    assert (e.job_id, e.slot_base, e.slot_count) == (4, 16, 2)
    params = luwu_sgd.gradient_entries(j, 7)[0].action.params
    assert (params["model_base"], params["model_chunks"], params["n_workers"]) == (100, 7, 2)
    assert params["mu_mul"] / 2 ** params["mu_shift"] == 0.5
    assert abs(params["lr_mul"] / 2 ** params["lr_shift"] - 0.01) <= 0.01 * 2 ** -31


@pytest.mark.parametrize("over, where", [
    ({"lr": None}, "job.lr: missing"),
    ({"lr": 1.5}, "job.lr: 1.5 is outside (0, 1]"),
    ({"lr": 0}, "job.lr: 0 is outside (0, 1]"),
    ({"lr": "fast"}, "job.lr: 'fast' is not a number"),
    ({"momentum": 1.0}, "job.momentum: 1.0 is outside [0, 1)"),
    ({"model_base": -1}, "job.model_base: -1 is negative"),
    ({"exponent_job_id": 3}, "job.exponent_job_id: must differ"),
    ({"mcast_group": 9}, "job.mcast_group: not for SGD jobs"),
    ({"upstream": {"aggregator_ip": "10.0.0.1", "job_id": 9, "worker_id": 0}},
     "job.upstream: not for SGD jobs"),
    ({"optimizer": {"ip": "10.0.1.9"}}, "job.optimizer: unknown field"),
])
def test_bad_jobs_name_the_field(over, where):
    with pytest.raises(JobError) as err:
        luwu_sgd.job_from_dict(job(**over))
    assert str(err.value).startswith(where)


@pytest.mark.parametrize("x", [0.9, 1.0, 0.05, 3e-3, 1e-6, 0.5 - 1e-12])
def test_factors_carry_31_significant_bits(x):
    mul, shift = sfx.multiplier(x, "lr")
    assert 2 ** 30 <= mul < 2 ** 31 and 1 <= shift <= 62
    assert abs(mul / 2 ** shift - x) <= x * 2 ** -31


def test_fixed_point_rounds_to_24_fraction_bits_and_refuses_what_does_not_fit():
    x = np.array([0.0, 1.0, -1.5, 2 ** -25 * 1.01, 127.99999, -128.0])
    q = sfx.to_fixed(x)
    assert q.tolist() == [0, 2**24, -3 * 2**23, 1, round(127.99999 * 2**24), -2**31]
    assert np.abs(sfx.from_fixed(q) - x).max() <= sfx.LSB / 2
    with pytest.raises(ValueError, match=r"w\[1\] = 128.0 does not fit .*\[-128, 128\)"):
        sfx.to_fixed([0.0, 128.0], "w")
    with pytest.raises(ValueError, match=r"w\[0\] = nan"):
        sfx.to_fixed([float("nan")], "w")


def test_gradient_shift_follows_the_block_exponent():
    assert [sfx.grad_shift(e) for e in (7, 0, -3, -33, -126)] == [0, 7, 10, 40, 40]
    with pytest.raises(ValueError, match="exponent 8 exceeds 7"):
        sfx.grad_shift(8)


def test_the_error_bound_grows_with_steps_and_learning_rate():
    one = sfx.error_bound(1, 0.05, 0.9, 3, 0, 1.0)
    assert sfx.LSB < one < 2 * sfx.LSB
    assert sfx.error_bound(5, 0.05, 0.9, 3, 0, 1.0) > one + 4 * sfx.LSB / 2    # roundings add
    assert sfx.error_bound(5, 0.5, 0.9, 3, 0, 1.0) > sfx.error_bound(5, 0.05, 0.9, 3, 0, 1.0)


@pytest.fixture
def p4runtime_device(tmp_path):
    """A P4Runtime server with an 8-lane p4/luwu_sgd.p4 (5000 cells per parameter
    register), and a connected device adapter."""
    from controllers.p4runtime_client import P4RuntimeClient
    from testbed.p4 import p4info
    from testbed.p4.lowering.program import load_source
    from testbed.proto import luwu_sgd_p4
    from testbed.bench.p4runtime import PortlessDevice
    from testbed.switch.p4runtime_server import P4RuntimeServer
    source = tmp_path / "sgd8.p4"
    source.write_text(luwu_sgd_p4.render(lanes=8, model_chunks=5000))
    server = P4RuntimeServer(PortlessDevice(), "127.0.0.1:0").start()
    try:
        with P4RuntimeClient(f"127.0.0.1:{server.port}", 1, election_id=(0, 1)) as client:
            client.set_pipeline(p4info.build(load_source(source.read_text(), str(source))),
                                source)
            yield P4RuntimeDevice(client)
    finally:
        server.stop()


def test_registers_are_written_and_read_in_bulk_over_p4runtime(p4runtime_device):
    dev = p4runtime_device
    assert dev.register_size(luwu_sgd.PARAM_REGISTERS[0]) == 5000
    values = np.random.default_rng(0).integers(0, 2**32, 1200).tolist()
    dev.write_registers(luwu_sgd.PARAM_REGISTERS[3], 3800, values, batch=500)  # 3 requests
    assert dev.read_registers(luwu_sgd.PARAM_REGISTERS[3], 3800, 1200, batch=500) == values
    assert dev.read_registers(luwu_sgd.PARAM_REGISTERS[3], 3798, 3) == [0, 0, values[0]]
    with pytest.raises(JobError, match="no register MyIngress.par_v99"):
        dev.write_registers("MyIngress.par_v99", 0, [1])


def test_counters_are_reset_over_p4runtime_in_one_write(p4runtime_device):
    dev, pb = p4runtime_device, p4runtime_device.pb
    for index, packets in ((0, 7), (5, 3)):
        entry = pb.CounterEntry(counter_id=dev._id("counters", ctl.DROP_COUNTER),
                                index=pb.Index(index=index),
                                data=pb.CounterData(packet_count=packets, byte_count=9))
        dev.client.write([pb.Entity(counter_entry=entry)], pb.Update.MODIFY)
    assert dev.read_counter(ctl.DROP_COUNTER, 5) == (3, 9)
    dev.reset_counter(ctl.DROP_COUNTER)
    assert {dev.read_counter(ctl.DROP_COUNTER, i) for i in range(9)} == {(0, 0)}


def test_a_switch_without_parameter_registers_is_named():
    from testbed.p4.lowering.program import load_program
    from testbed.p4.python.target import Target
    device = TargetDevice(Target(load_program(str(REPO / "p4" / "basic.p4"))))
    with pytest.raises(JobError, match=r"job: the switch has no parameter registers "
                                           r"\(MyIngress.par_v00\); load p4/luwu_sgd.p4"):
        luwu_sgd.setup(device, sgd_job(), np.zeros(256))


def test_the_command_line_reports_counters_and_names_a_missing_job(p4runtime_device, tmp_path,
                                                                  capsys):
    address = p4runtime_device.client.address
    assert luwu_sgd.main(["counters", "--switch", address, "--device-id", "1"]) == 0
    out = capsys.readouterr().out
    assert "dropped: bad_length 0 packets" in out and "beyond_model 0 packets" in out
    jobs = tmp_path / "jobs.yaml"
    jobs.write_text("job_id: 3\naggregator_ip: 10.0.255.1\nlr: 0.01\nworkers:\n"
                    "  - {worker_id: 0, port: 1, mac: '08:00:00:00:01:01', ip: 10.0.1.1}\n")
    with pytest.raises(JobError, match=r"job\[0\]: no SGD job 3 at 10.0.255.1 on this "
                                           r"switch; set it up first"):
        luwu_sgd.main(["checkpoint", str(jobs), "--out", str(tmp_path / "w.npy"),
                       "--switch", address, "--device-id", "1"])
    with pytest.raises(SystemExit):
        luwu_sgd.main(["checkpoint", str(jobs)])
    assert "checkpoint needs --out FILE.npy" in capsys.readouterr().err


def test_a_set_up_that_fails_half_way_leaves_no_entries(p4runtime_device):
    # 8 lanes: the exponent job's 256-lane packets do not fit it, which its set-up (the
    # first step) refuses; nothing is left of it
    dev = p4runtime_device
    with pytest.raises(JobError, match=r"workers send 256 lanes per packet; the switch's "
                                       r"program takes 8 .*; set lanes: 8 or run "
                                       r"p4/luwu_sgd.p4 rendered for the job's \(python -m "
                                       r"testbed.proto.luwu_sgd_p4"):
        luwu_sgd.setup(dev, sgd_job(), np.zeros(256))
    assert dev.entries(ctl.JOB_TABLE) == [] and dev.entries(ctl.AGGREGATOR_TABLE) == []
    assert dev.entries(ctl.WORKER_TABLE) == []
