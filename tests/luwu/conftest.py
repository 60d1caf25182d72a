"""Fixtures the LuWu-SGD switch tests share, at either lane width."""
import pytest

from controllers import ina as ctl
from controllers import luwu_sgd
from controllers.jobs import TargetDevice
from luwu_sgd_setup import add_routes, load_sgd_program, sgd_job

SGD_WORKERS = 3


@pytest.fixture(scope="module", params=["python", "native"])
def sgd_target(request):
    """p4/luwu_sgd.p4 on either backend, routes to SGD_WORKERS workers."""
    from testbed.p4.targets import make_target
    target = make_target(load_sgd_program(), request.param)
    add_routes(target, SGD_WORKERS)
    return target


@pytest.fixture
def sgd_device(sgd_target):
    """``make(initial, lane_bits, lr, momentum)``: the switch with a fresh SGD job of
    ``initial`` parameters whose workers push ``lane_bits``-bit lanes, and zeroed
    counters (its set-up on the idle switch zeroes them); torn down after the test,
    leaving nothing of the job."""
    made = []

    def make(initial, lane_bits: int, lr: float, momentum: float) -> TargetDevice:
        device = TargetDevice(sgd_target)
        job = sgd_job(n_workers=SGD_WORKERS, lr=lr, momentum=momentum, lane_bits=lane_bits)
        luwu_sgd.setup(device, job, initial)
        made.append((device, job))
        return device

    yield make
    for device, job in made:
        luwu_sgd.teardown(device, job)
    assert sgd_target.table_entries(ctl.JOB_TABLE) == []
    assert sgd_target.table_entries(ctl.WORKER_TABLE) == []
    assert sgd_target.table_entries(ctl.AGGREGATOR_TABLE) == [] and sgd_target.mc_groups() == {}
