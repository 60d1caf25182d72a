"""Megatron's distributed optimizer (ZeRO stage 1) in the model: the optimizer state
(fp32 master weights and Adam's two moments, 12 bytes per parameter) sharded over the
data-parallel group, the gradients reduce-scattered and the updated parameters
all-gathered instead of one all-reduce, the optimizer step on the rank's shard."""
import pytest

from hosts import compute as kernels, footprint, shadow
from hosts.strategies import registry
from hosts.strategies.registry import Context
from testbed.errors import TrainetError
from testbed.model import fabric as fabrics
from testbed.model.step import Workload, predict

SHAPE = "custom:layers=4,hidden=256,heads=4,vocab=1000,seq=128"
LAYOUT = {"tp": 2, "pp": 2, "dp": 2, "micro_batch_size": 1, "overlap_grad_reduce": False}


def _footprint(**options):
    info = registry.get("megatron")
    return footprint.footprint(info, shadow.shadow_model(SHAPE), 8, 4, "none",
                               info.parse_options({**LAYOUT, **options}))


def test_the_optimizer_state_is_the_hand_computed_share_of_one_rank():
    """4 layers of h 256 with a 1000-token vocabulary and 128 positions:
    P = 12 * 4 * 256^2 + 13 * 4 * 256 + (1000 + 128) * 256 = 3,447,808 parameters. A
    rank of tp 2 x pp 2 holds a quarter (861,952): bf16 weights 1,723,904 B and
    gradients 1,723,904 B; the optimizer state is 12 B each, 10,343,424 B, or with the
    distributed optimizer over dp 2 half of it, 5,171,712 B. Nothing else moves."""
    assert shadow.shadow_model(SHAPE).params == 3_447_808
    whole, sharded = _footprint(), _footprint(distributed_optimizer=True)
    assert (whole.params, whole.grads, whole.optimizer) == (1_723_904, 1_723_904, 10_343_424)
    assert (sharded.params, sharded.grads, sharded.optimizer) == (1_723_904, 1_723_904,
                                                                  5_171_712)
    assert whole.device - sharded.device == 5_171_712
    assert (whole.activations, whole.buffers) == (sharded.activations, sharded.buffers)


def _predict(**options):
    workload = Workload(shadow.shadow_model(SHAPE), shadow.device("a100-80gb"), 4, mfu=None)
    return predict("megatron", workload, fabrics.fabric("dgx-a100", 8), 8,
                   {**LAYOUT, **options})


def test_reduce_scatter_and_all_gather_move_the_all_reduces_bytes_and_the_step_shrinks():
    """The pattern's data-parallel all-reduce becomes a reduce-scatter and an
    all-gather of the same stage share each (a ring moves (n-1)/n of it in each, 2
    (n-1)/n in the all-reduce); the optimizer step runs on 1/dp of the stage's
    parameters; and predict reports the smaller footprint."""
    info = registry.get("megatron")
    model = shadow.shadow_model(SHAPE)
    size = shadow.model_bytes(model.params)

    def dp_ops(**options):
        pattern = info.collectives(size, 8, model.layers, model=model, batch=2,
                                   options=info.parse_options({**LAYOUT, **options}))
        return [(c.op, c.nbytes) for c in pattern if c.group == "dp"]

    assert dp_ops() == [("all-reduce", size / 4)]
    assert dp_ops(distributed_optimizer=True) == [("reduce-scatter", size / 4),
                                                  ("all-gather", size / 4)]
    plain, sharded = _predict(), _predict(distributed_optimizer=True)
    stage_params = model.params / 4
    device = shadow.device("a100-80gb")
    assert plain.compute_s - sharded.compute_s == pytest.approx(
        kernels.optimizer_s(stage_params, device) - kernels.optimizer_s(stage_params / 2,
                                                                         device))
    assert plain.memory_per_gpu_B - sharded.memory_per_gpu_B == 5_171_712
    assert "distributed optimizer" in sharded.layout and "distributed" not in plain.layout
    ops = [e.op for e in sharded.roles[0].collectives() if e.group == "dp"]
    assert ops == ["reduce-scatter", "all-gather"]


def test_the_all_gather_follows_the_optimizer_step_and_is_never_hidden():
    """With the gradient reduction overlapped with the last backward (Megatron-LM's
    --overlap-grad-reduce), the reduce-scatter may hide behind it; the all-gather of
    the updated parameters cannot, whatever the overlap."""
    p = _predict(distributed_optimizer=True, overlap_grad_reduce=True)
    for role in p.roles:
        rs, ag = [e for e in role.collectives() if e.group == "dp"]
        assert rs.exposed_s < rs.duration_s
        assert ag.exposed_s == pytest.approx(ag.duration_s) and ag.duration_s > 0
        assert ag.start_s >= rs.start_s + rs.duration_s - 1e-12


@pytest.mark.parametrize("option", [{"distributed_optimizer": True},
                                    {"partition": "embeddings"}])
def test_the_workers_refuse_what_only_the_model_has(option):
    """The ranks keep the whole optimizer state and split the layers evenly: asking
    them for either is an error that names the option, not a run that ignores it."""
    info = registry.get("megatron")

    class Comm:
        world, rank = 8, 0

    context = Context(Comm(), info, info.parse_options({**LAYOUT, **option}),
                      target=shadow.shadow_model(SHAPE), batch=4)
    key = next(iter(option))
    for build in (info.shadow, info.real):
        with pytest.raises(TrainetError, match=f"{key}=.* is modelled .*give {key}="):
            build(context)
