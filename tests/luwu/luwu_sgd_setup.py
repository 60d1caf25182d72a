"""p4/luwu_sgd.p4 on an in-process Target: worker w on port w + 1 (addresses of
luwu_setup), an SGD job set up by the controller, and the arithmetic the switch must do,
written again in numpy as the reference."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from controllers import ina as ctl
from controllers import luwu_sgd
from controllers.jobs import TargetDevice
from luwu_setup import AGG, SWITCH_MAC, worker_ip, worker_mac
from testbed.proto import ina
from testbed.proto import luwu_sgd as sfx
from tests.ina.ina_fabric import route

REPO = Path(__file__).resolve().parents[2]
LUWU_SGD_P4 = REPO / "p4" / "luwu_sgd.p4"


@lru_cache(maxsize=1)
def load_sgd_program():
    from testbed.p4.lowering.program import load_program
    return load_program(str(LUWU_SGD_P4))


def sgd_job(job_id=1, n_workers=3, slot_count=8, lr=0.05, momentum=0.9,
            model_base=0, lane_bits=32) -> luwu_sgd.SgdJob:
    workers = [ctl.Worker(w, w + 1, worker_mac(w), worker_ip(w)) for w in range(n_workers)]
    return luwu_sgd.SgdJob(job_id, AGG, workers, lr, momentum, model_base,
                           slot_count=slot_count, lane_bits=lane_bits)


def add_routes(target, n_workers: int) -> None:
    for w in range(n_workers):
        route(target, worker_ip(w), worker_mac(w), w + 1)


def push(target, worker, chunk, lanes, exponent, slots=8, flags=ina.FLAG_GRADIENT,
         job_id=1):
    """One gradient packet of ``worker`` through the switch; the frames that leave."""
    slot = ina.slot_field(chunk % slots, (chunk // slots) % 2)
    payload = ina.encode(job_id, worker, flags, slot, exponent, chunk, lanes)
    return target.process(ina.frame(worker_mac(worker), SWITCH_MAC, worker_ip(worker), AGG,
                                    payload), worker + 1)


def reference_step(w, v, sums, exponent, lr, momentum):
    """(w, v) after one update of int32 lanes ``w``, ``v`` with the slot sums ``sums``
    of block exponent ``exponent``, in int64 numpy (arithmetic shifts floor)."""
    w, v, s = (np.asarray(a, dtype=np.int64) for a in (w, v, sums))
    d = sfx.grad_shift(exponent)
    g = (s + (1 << (d - 1) if d else 0)) >> d
    mu_mul, mu_shift = sfx.multiplier(momentum, "momentum")
    lr_mul, lr_shift = sfx.multiplier(lr, "lr")
    v = np.clip(((v * mu_mul + (1 << (mu_shift - 1))) >> mu_shift) + g, -2**31, 2**31 - 1)
    step = (v * lr_mul + (1 << (lr_shift - 1))) >> lr_shift
    w = np.clip(w - step, -2**31, 2**31 - 1)
    return w.astype(np.int32), v.astype(np.int32)


def sgd_hub(initial, n_workers: int, slot_count: int, lr: float, momentum: float,
            lane_bits: int = 32, drop: int = 0, lose=()):
    """luwu_sgd.p4 on a Python Target with an SGD job of ``initial`` parameters set up,
    behind the emulated hub of tests/luwu/hub.py (``drop``: every n-th frame of each leg
    to and from the switch; ``lose``: named frames); the hub's ``device`` and ``job``."""
    from hub import Hub
    from testbed.p4.python.target import Target
    target = Target(load_sgd_program())
    add_routes(target, n_workers)
    hub = Hub(target, n_workers, drop=drop, lose=lose,
              lossy=("to_switch", "to_worker", "params_to_worker"))
    hub.device = TargetDevice(target)
    hub.job = sgd_job(n_workers=n_workers, slot_count=slot_count, lr=lr, momentum=momentum,
                      lane_bits=lane_bits)
    luwu_sgd.setup(hub.device, hub.job, initial)
    return hub
