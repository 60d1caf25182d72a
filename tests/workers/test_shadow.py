"""Shadow mode: the volume and compute models, and shadow strategies moving the
co-scaled volume through the real collectives."""
import pytest

from hosts import shadow
from hosts.collectives.comm import Comm
from hosts.strategies import registry
from ranks import run_ranks, shadow_steps
from testbed.errors import TrainetError


def test_volumes_per_worker_follow_the_collectives():
    m = shadow.model_bytes(1.3e9)
    assert m == 2.6e9                                          # bf16
    def volume(name):
        return registry.get(name).volume_bytes(m, 4)

    assert volume("ddp") == (3.9e9, 3.9e9)                              # 2 (N-1)/N M
    assert volume("zero3") == pytest.approx((5.85e9, 5.85e9))           # 3 (N-1)/N M
    assert volume("ps") == (2.6e9, 2.6e9)                      # push M, pull M
    assert volume("ina") == (2.6e9, 2.6e9)                     # 16-bit lanes, out and back
    assert registry.get("ps").busiest_link_bytes(m, 4) == 4 * m          # the server's link
    assert registry.get("ddp").busiest_link_bytes(m, 4) == 3.9e9
    with pytest.raises(TrainetError, match="unknown strategy 'ring'; registered: axonn, ddp, "):
        registry.get("ring")


def test_compute_model():
    a100 = shadow.device("a100")
    # 6 x 1.3e9 params x 2048 tokens / (312e12 FLOP/s x 0.4)
    assert shadow.compute_time_s(1.3e9, 2048, a100, 0.4) == pytest.approx(0.128, rel=1e-3)
    h100 = shadow.device("h100")
    assert shadow.compute_time_s(175e9, 2048, h100, 0.5) == pytest.approx(4.348, rel=1e-3)
    assert shadow.device("mi250x-gcd").peak_flops == 191.5e12
    with pytest.raises(TrainetError, match="in \\(0, 1\\]"):
        shadow.compute_time_s(1e9, 1, a100, 1.5)
    with pytest.raises(TrainetError, match="choose one of a100-40gb, a100-80gb, h100-80gb, "
                       "h200-141gb, v100-32gb, mi250x-gcd$"):
        shadow.device("v100")


def test_model_presets_and_custom_counts():
    assert shadow.shadow_model("gpt-20b").params == 20e9
    assert shadow.shadow_model("gpt-175b").params == 175e9
    assert shadow.shadow_model("custom:6.7B").params == 6.7e9
    assert shadow.shadow_model("custom:3e8").params == 3e8
    with pytest.raises(TrainetError, match="custom:PARAMS"):
        shadow.shadow_model("gpt-7b")


def test_nominal_memory_per_worker():
    ddp = registry.get("ddp").memory(1e9, 4, None)
    zero3 = registry.get("zero3").memory(1e9, 4, None)
    assert (ddp.params_bytes, ddp.grads_bytes, ddp.optimizer_bytes) == (2e9, 2e9, 12e9)
    assert (zero3.params_bytes, zero3.grads_bytes, zero3.optimizer_bytes) == (5e8, 5e8, 3e9)
    assert registry.get("ps").memory(1e9, 4, None).optimizer_bytes == 0


@pytest.mark.parametrize("strategy,factor", [("ddp", 2), ("zero3", 3)])
def test_shadow_step_moves_the_scaled_volume_and_sleeps_the_compute(strategy, factor):
    world, scale = 2, 1e-3
    target = shadow.shadow_model("custom:2e7")                 # M = 40 MB nominal
    dev = shadow.Device("slow", 6 * 2e7 * 2048 / 0.08, "a device computing a step in 80 ms")

    info = registry.get(strategy)
    for _, m in shadow_steps(world, info, info.parse_options({}), target=target, device=dev,
                             batch=1, scale=scale):
        nominal = registry.get(strategy).volume_bytes(shadow.model_bytes(target.params),
                                                      world)[0]
        assert m.logical_sent_bytes == pytest.approx(nominal * scale, rel=0.01)
        assert factor * 0.5 * 40e6 * scale == pytest.approx(m.logical_sent_bytes, rel=0.01)
        assert m.compute_s >= 0.08
        assert m.loss is None


def test_collectives_on_the_gpu_slow_the_compute_they_overlap():
    target = shadow.shadow_model("custom:2e7")
    dev = shadow.Device("slow", 6 * 2e7 * 2048 / 0.08, "a device computing a step in 80 ms")

    def context(comm, name, interference):
        info = registry.get(name)
        return registry.Context(comm, info, info.parse_options({}), target=target, device=dev,
                                batch=1, scale=1e-3, mfu=1.0, interference=interference)

    def body(comm):
        s = registry.get("ddp").build("shadow", context(comm, "ddp", 0.5))
        s.setup()
        return s.compute_s, [s.step(None) for _ in range(2)][-1]

    for modeled_compute_s, m in run_ranks(2, body):
        overlapped = min(m.comm_s - m.exposed_comm_s, modeled_compute_s)
        assert m.interference_s > 0
        assert m.interference_s == pytest.approx(0.5 * overlapped, rel=0.05, abs=1e-3)
        assert m.step_s == pytest.approx(m.compute_s + m.exposed_comm_s + m.interference_s)
    comm = Comm(None, 0, 8)
    assert shadow.interference_of(context(comm, "zero3", None), 1e9) == 0.189
    assert shadow.interference_of(context(comm, "zero3", 0), 1e9) == 0
    for offloaded in ("luwu", "luwu-resident", "ina"):            # the network reduces
        assert shadow.interference_of(context(comm, offloaded, 0.3), 1e9) == 0
    with pytest.raises(TrainetError, match="--interference -1: a slowdown is 0 or more"):
        shadow.interference_of(context(comm, "ddp", -1), 1e9)
