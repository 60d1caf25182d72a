"""Strategy luwu in experiments: the spec's job and optimizer host, shadow volumes and
memory, the optimizer node standing for a shadow model."""
import textwrap
from pathlib import Path

import numpy as np
import pytest

from hosts import shadow
from hosts.luwu_layout import layers_resident, shadow_layout
from hosts.optimizer_node import OptimizerNode, _parameters, main as optimizer_main
from hosts.strategies import registry
from testbed.experiment.runner import worker_args
from testbed.experiment.spec import load_experiment
from testbed.errors import TrainetError
from testbed.proto import ina
from testbed.topology.specfile import TopologyError

REPO = Path(__file__).resolve().parents[2]


def write(tmp_path, text):
    path = tmp_path / "exp.yaml"
    path.write_text(textwrap.dedent(text))
    return path


def error_of(path) -> str:
    with pytest.raises(TopologyError) as info:
        load_experiment(path)
    return str(info.value)


def test_luwu_job_has_the_workers_in_rank_order_and_the_optimizer_host(tmp_path):
    plan = load_experiment(write(tmp_path, f"""\
        name: luwu
        topology:
          generator: {{name: star, workers: 2, optimizers: 1}}
          program: {REPO}/p4/luwu.p4
        workers: [w2, w1]
        strategies: [luwu, zero3]
        luwu: {{aggregator: 10.0.255.7, job: 3, slots: 16}}
        """))
    assert plan.strategy("luwu").service_host == "opt1"
    assert plan.strategy("luwu").job == {
        "switch": "s1", "job_id": 3, "aggregator_ip": "10.0.255.7", "slot_count": 16,
        "workers": [{"worker_id": 0, "port": 2, "mac": "08:00:00:00:01:02", "ip": "10.0.1.2"},
                    {"worker_id": 1, "port": 1, "mac": "08:00:00:00:01:01", "ip": "10.0.1.1"}],
        "optimizer": {"ip": str(next(h.ip.ip for h in plan.topology.hosts
                                     if h.name == "opt1"))},
        "lane_bits": 32}
    from controllers import luwu
    job = luwu.job_from_dict({k: v for k, v in plan.strategy("luwu").job.items()
                              if k != "switch"})
    assert (job.job_id, job.exponent_job().job_id, job.optimizer.port) == (3, 4, None)
    args = worker_args(plan, plan.strategy("luwu"))
    assert (args["ina_aggregator"], args["ina_job"], args["ina_slots"]) == ("10.0.255.7", 3, 16)
    assert "ina_job" not in worker_args(plan, plan.strategy("zero3"))


def test_luwu_needs_an_optimizer_host(tmp_path):
    path = write(tmp_path, """\
        name: luwu
        topology: {generator: {name: star, workers: 2}}
        strategies: [ddp, luwu]
        """)
    assert (f"{path}:3:19: strategies[1]: strategy luwu needs a host of role optimizer "
            "that is not a worker") in error_of(path)


def test_luwu_needs_one_switch_all_workers_hang_off(tmp_path):
    path = write(tmp_path, """\
        name: luwu
        topology: {generator: {name: leaf-spine, leaves: 2, spines: 1, hosts_per_leaf: 1}}
        strategies: [luwu]
        luwu: {switch: leaf1}
        """)
    assert f"{path}:4:16: luwu.switch: worker h2 is not linked to leaf1; strategy luwu" \
        in error_of(path)


def total(m) -> float:
    return m.params_bytes + m.grads_bytes + m.optimizer_bytes


def test_memory_per_worker_of_luwu_streamed_and_resident_against_zero3_and_ddp():
    p, world, layers = 175e9, 8, 96
    luwu = registry.get("luwu").memory(p, world, layers)
    resident = registry.get("luwu-resident").memory(p, world, None)
    zero3 = registry.get("zero3").memory(p, world, None)
    ddp = registry.get("ddp").memory(p, world, None)
    # streamed: three layers of parameters (two prefetched), two of gradients, no more
    assert (luwu.params_bytes, luwu.grads_bytes, luwu.optimizer_bytes) == \
        (round(6 * p / layers), round(4 * p / layers), 0)
    assert total(zero3) == 16 * p / world == 350e9
    assert total(luwu) / total(zero3) == pytest.approx(10 / 192)  # the <= 1/4 target
    # resident: the working copy and one group of gradients: more than ZeRO-3 at N = 8
    assert (resident.params_bytes, resident.grads_bytes, resident.optimizer_bytes) == \
        (2 * p, 2 * p / shadow.CHUNKS, 0)
    assert total(resident) / total(zero3) == pytest.approx(2.25 / 2)
    assert total(ddp) == 16 * p
    with pytest.raises(TrainetError, match="give the model's layers"):
        registry.get("luwu").memory(p, world, None)


def test_luwu_volumes_streamed_and_resident():
    # streamed: gradients out once, each layer in twice but the last, pulled once for
    # its forward and backward; resident: the updated parameters in once
    assert registry.get("luwu").volume_bytes(350e9, 8, 96) == \
        (350e9, pytest.approx(350e9 * 191 / 96))
    assert registry.get("luwu-resident").volume_bytes(350e9, 8) == (350e9, 350e9)


def test_a_memory_budget_keeps_the_last_layers_that_fit():
    """GPT-175B's layers are 3.65 GB of bf16: a 40 GB budget keeps the last ten, which
    come back once with the answer to their gradients instead of being pulled twice."""
    luwu = registry.get("luwu")
    options = luwu.parse_options({"memory_budget": "40GB"})
    layer = 350e9 / 96
    assert luwu.volume_bytes(350e9, 8, 96, options=options) == \
        (350e9, pytest.approx((2 * 86 + 10) * layer))
    memory = luwu.memory(175e9, 8, 96, options=options)
    assert memory.params_bytes == round(13 * layer) and memory.grads_bytes == round(2 * layer)
    everything = luwu.parse_options({"memory_budget": "400GB"})
    assert luwu.volume_bytes(350e9, 8, 96, options=everything)[1] == pytest.approx(350e9)
    assert luwu.memory(175e9, 8, 96, options=everything).params_bytes == round(96 * layer)
    with pytest.raises(TrainetError, match="luwu: memory_budget 1000000000 B is smaller than "
                       "one layer"):
        luwu.memory(175e9, 8, 96, options=luwu.parse_options({"memory_budget": "1GB"}))

    target = shadow.shadow_model("gpt-1.3b")
    args = type("Args", (), {"mode": "shadow", "shadow_model": "gpt-1.3b", "scale": 1e-4,
                             "params": "streamed", "memory_budget": int(2.6e9 / 24 * 5.5),
                             "lane_bits": 32})
    layout, initial = _parameters(args)
    assert layout.resident == 5 == layers_resident(target, args.memory_budget)
    node = OptimizerNode(1, 2, layout, initial, lr=0.1, pull_job=3)
    grads = np.full(ina.LANES, 1000, dtype=np.int32)
    answers = [ina.decode_any(node.handle(ina.encode(
        1, 0, ina.FLAG_RESULT, ina.slot_field(c % 4, 0), 0, c, grads, n_workers=2)))[1]
        for c in range(layout.chunks_per_step)]
    with_params = [c for c, lanes in enumerate(answers) if lanes is not None]
    assert with_params == list(range(layout.first_chunk[5]))     # the last five layers'
    assert len(layout.pull_positions()) == 2 * (layout.chunks_per_step - len(with_params))


def test_custom_models_get_the_layers_of_the_nearest_gpt3():
    assert shadow.shadow_model("gpt-175b").layers == 96
    assert shadow.shadow_model("custom:6B").layers == 32           # GPT-3 6.7B
    assert shadow.shadow_model("custom:1e8").layers == 12          # GPT-3 Small, 125M


@pytest.mark.parametrize("params", ["streamed", "resident"])
def test_shadow_optimizer_node_answers_every_chunk_of_the_workers_buffer(params):
    target = shadow.shadow_model("gpt-1.3b")
    layout = shadow_layout(target, 1e-4, params == "streamed")
    elements = layout.chunks_per_step * ina.LANES        # 2.6 GB x 1e-4 in fp32 elements
    groups = 24 if params == "streamed" else 1
    assert elements * 4 >= 2.6e9 * 1e-4 and len(layout.buckets) == groups
    assert elements % (groups * ina.LANES) == 0
    args = type("Args", (), {"mode": "shadow", "shadow_model": "gpt-1.3b", "scale": 1e-4,
                             "params": params, "memory_budget": None, "lane_bits": 32})
    layout, initial = _parameters(args)
    assert layout.chunks_per_step * ina.LANES == elements and not initial.any()
    node = OptimizerNode(1, 2, layout, initial, lr=0.1)
    grads = np.full(ina.LANES, 1000, dtype=np.int32)
    answers = [node.handle(ina.encode(1, 0, ina.FLAG_RESULT, ina.slot_field(c % 4, 0), 0, c,
                                      grads, n_workers=2))
               for c in range(layout.chunks_per_step)]
    assert node.steps_done() == 1
    for answer in answers:
        header, lanes = ina.decode(answer)
        assert header.flags & ina.FLAG_PARAMS
        assert (lanes.view(np.float32) < 0).all()          # one AdamW step against + grads


def test_optimizer_node_reports_an_unknown_shadow_model(capsys):
    assert optimizer_main(["--job", "1", "--workers", "2", "--mode", "shadow",
                           "--shadow-model", "gpt-9", "--steps", "1"]) == 1
    assert "error: optimizer node: --shadow-model 'gpt-9': choose" in capsys.readouterr().err


def test_luwu_against_offload_plans_the_baselines_that_fit():
    """experiments/luwu-vs-offload.yaml: luwu (streaming every layer, or keeping what
    fits 48 GiB) and the two offloaded ZeRO-3 variants fit an A100-80GB and run; the
    in-memory ones are marked as not fitting."""
    from testbed.experiment.fit import memory_checks
    plan = load_experiment(REPO / "experiments" / "luwu-vs-offload.yaml")
    checks = memory_checks(plan)
    assert [v.name for v in plan.variants()] == ["bandwidth-100Gbit", "bandwidth-200Gbit"]
    status = {(c.variant, c.label): c.status for c in checks}
    for variant in ("bandwidth-100Gbit", "bandwidth-200Gbit"):
        assert [status[variant, s.label] for s in plan.strategies] == \
            ["fits", "fits", "fits", "fits", "not run", "not run", "not run"]
    verdicts = {c.label: c.fit.verdict() for c in checks}
    assert verdicts["zero3"] == "needs 337 GiB of 80 GiB device memory"
    assert verdicts["luwu"] == "fits: 26.1 GiB of 80 GiB"
    assert verdicts["luwu-budget"] == "fits: 73.7 GiB of 80 GiB"      # 14 layers kept
    offloaded = next(c for c in checks if c.label == "zero3-offload").fit.footprint
    assert offloaded.optimizer == 0 and offloaded.host == 16 * 175e9 / 8
    args = worker_args(plan, plan.strategy("zero3-infinity"), cpu_adam_rate=1.5e8)
    assert (args["offload_optimizer"], args["offload_param"], args["gpus_per_node"],
            args["cpu_adam_rate"]) == ("nvme", "nvme", 1, 1.5e8)
    assert "cpu_adam_rate" not in worker_args(plan, plan.strategy("luwu"), cpu_adam_rate=1.5e8)


def test_the_bf16_luwu_experiments_run_their_workers_and_optimizer_node_in_16_bit_lanes(
        tmp_path):
    """The shadow (bf16) experiments ask for 16-bit lanes, and the workers and the
    optimizer node get them; the real GPT, fp32, stays in 32-bit lanes."""
    from hosts.strategies.luwu import optimizer_options
    for name, bits in (("luwu-vs-zero3", 16), ("luwu-vs-offload", 16),
                       ("luwu-per-host", 16), ("luwu-convergence", 32)):
        plan = load_experiment(REPO / "experiments" / f"{name}.yaml")
        strategy = plan.strategy("luwu")
        args = worker_args(plan, strategy)
        assert strategy.job["lane_bits"] == args["ina_lane_bits"] == bits
        context = registry.ServiceContext(strategy.info, 8, args, "10.0.1.9", None,
                                          tmp_path, 30.0)
        assert optimizer_options(context)["lane_bits"] == bits
    args = type("Args", (), {"mode": "shadow", "shadow_model": "gpt-1.3b", "scale": 1e-4,
                             "params": "streamed", "memory_budget": None, "lane_bits": 16})
    layout, initial = _parameters(args)
    assert layout.chunk_values == 2 * ina.LANES
    assert initial.size == layout.chunks_per_step * 2 * ina.LANES >= 2.6e9 * 1e-4 / 2
