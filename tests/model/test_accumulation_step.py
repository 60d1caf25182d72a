"""Gradient accumulation in the model: a data-parallel step of k micro-batches computes
each at the micro-batch size, and runs the collectives as the strategy does (DDP's
all-reduce once per step, in the last micro-batch; the ZeRO family's gathers and
reductions once per micro-batch, zero-hier's cross-node gather once per step)."""
import pytest

from hosts import shadow
from testbed.model.calibration import Calibration
from testbed.model.fabric import fabric
from testbed.model.step import Workload, predict

A100 = shadow.device("a100-80gb")
NO_INTERFERENCE = Calibration(interference=0.0)
WORKLOAD = Workload(shadow.PRESETS["gpt-1.3b"], A100, 64)        # 8 sequences per rank


def step(name: str, micro_batch_size: int | None, world: int = 8, net="star:roce-200g"):
    options = {} if micro_batch_size is None else {"micro_batch_size": micro_batch_size}
    return predict(name, WORKLOAD, fabric(net, world), world, options,
                   calibration=NO_INTERFERENCE)


def moved(p) -> float:
    return sum(e.nbytes for e in p.roles[0].collectives())


def test_ddp_all_reduces_once_per_step_after_the_last_micro_batch():
    one, four = step("ddp", None), step("ddp", 2)
    assert len(four.roles[0].collectives()) == len(one.roles[0].collectives()) == 8
    assert moved(four) == pytest.approx(moved(one))
    micro_s = WORKLOAD.replica_s(2, recompute="full")     # a strategy without the option
    assert four.compute_s - one.compute_s == pytest.approx(
        4 * micro_s - WORKLOAD.replica_s(8, recompute="full"))   # the optimizer step alike
    # the buckets overlap only the last micro-batch's backward
    first = min(e.start_s for e in four.roles[0].collectives())
    assert first >= 3 * micro_s + micro_s / 3
    assert four.step_s == pytest.approx(four.compute_s + four.exposed_s)


@pytest.mark.parametrize("name, world, net", [("zero3", 8, "star:roce-200g"),
                                              ("zeropp", 16, "dgx-a100")])
def test_the_zero_family_gathers_and_reduces_per_micro_batch(name, world, net):
    one, many = step(name, None, world, net), step(name, 2, world, net)
    k = WORKLOAD.global_batch // world // 2
    assert len(many.roles[0].collectives()) == k * len(one.roles[0].collectives())
    assert moved(many) == pytest.approx(k * moved(one))


def test_zero_hier_gathers_across_nodes_once_per_step():
    one, two = step("zero-hier", None, 16, "dgx-a100"), step("zero-hier", 2, 16, "dgx-a100")
    across = [e for e in two.roles[0].collectives() if e.group == "inter-node"
              and e.op == "all-gather"]
    assert len(across) == len([e for e in one.roles[0].collectives()
                               if e.group == "inter-node" and e.op == "all-gather"])
    assert moved(two) < 2 * moved(one)
