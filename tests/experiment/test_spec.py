"""Experiment files: topology forms, sweeps, and errors with file:line:col and field path."""
import textwrap
from pathlib import Path

import pytest

from hosts.strategies import registry
from testbed.experiment.spec import load_experiment
from testbed.topology.specfile import TopologyError

REPO = Path(__file__).resolve().parents[2]


def write(tmp_path, text, name="exp.yaml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def error_of(path) -> str:
    with pytest.raises(TopologyError) as info:
        load_experiment(path)
    return str(info.value)


def test_generator_topology_and_sweep_variants(tmp_path):
    plan = load_experiment(write(tmp_path, """\
        name: bw
        topology:
          generator: {name: star, workers: 3, nic: roce-100g}
        workload: {model: gpt, mode: shadow, shadow_model: gpt-1.3b, device: a100-80gb, steps: 5}
        strategies: [ddp, zero3]
        sweep:
          bandwidth: [100Gbit, 200Gbit]
          loss: [0, 0.5]
        scale: 1e-4
        """))
    assert plan.workers == ["w1", "w2", "w3"]
    assert plan.scale == 1e-4
    names = [v.name for v in plan.variants()]
    assert names == ["bandwidth-100Gbit_loss-0pct", "bandwidth-100Gbit_loss-0.5pct",
                     "bandwidth-200Gbit_loss-0pct", "bandwidth-200Gbit_loss-0.5pct"]
    topo = plan.variants()[3].apply(plan.topology)
    params = [topo.link_params(link) for link in topo.links]
    assert {p.bw_bps for p in params} == {200e9}
    assert {p.loss_pct for p in params} == {0.5}
    assert [p.emulated(topo.scale).bw_bps for p in params] == pytest.approx([20e6] * 3)
    # the base topology is untouched: 100 Gb/s from the NIC profile, no loss
    assert {plan.topology.link_params(link).bw_bps for link in plan.topology.links} == {100e9}


def test_nic_sweep_replaces_every_hosts_nic(tmp_path):
    plan = load_experiment(write(tmp_path, """\
        name: nic
        topology: {generator: {name: star, workers: 2}}
        strategies: [ddp]
        sweep: {nic: [eth-25g-tcp, roce-200g]}
        """))
    variant = plan.variants()[1]
    assert variant.name == "nic-roce-200g"
    topo = variant.apply(plan.topology)
    assert {h.nic for h in topo.hosts} == {"roce-200g"}
    assert {topo.link_params(link).bw_bps for link in topo.links} == {200e9}


def test_topology_file_inline_and_explicit_workers(tmp_path):
    plan = load_experiment(write(tmp_path, f"""\
        name: file
        topology: {REPO}/experiments/topologies/star-8.yaml
        workers: [w1, w2]
        strategies: [ddp]
        """))
    assert plan.workers == ["w1", "w2"] and len(plan.topology.hosts) == 8
    assert [v.name for v in plan.variants()] == ["base"]
    inline = load_experiment(write(tmp_path, """\
        name: inline
        topology:
          hosts:
            - {name: a, ip: 10.0.0.1/24, mac: "08:00:00:00:00:01"}
            - {name: b, ip: 10.0.0.2/24, mac: "08:00:00:00:00:02"}
          switches: [{name: s1}]
          links: [[a, s1-p1], [b, s1-p2]]
        strategies: [ddp]
        """, "inline.yaml"))
    assert inline.workers == ["a", "b"]


def test_errors_name_file_line_and_field(tmp_path):
    path = write(tmp_path, """\
        name: bad
        topology: {generator: {name: star, workers: 2}}
        strategies: [ddp, zero4]
        sweep:
          bandwidth: [100Gbit, 200Gbt]
        """)
    text = error_of(path)
    assert (f"{path}:3:19: strategies[1]: unknown strategy 'zero4'; registered: "
            f"{', '.join(registry.names())}") in text
    assert f"{path}:5:24: sweep.bandwidth[1]: '200Gbt' is not a bit rate" in text


def test_errors_inside_the_topology_are_located_in_the_experiment(tmp_path):
    path = write(tmp_path, """\
        name: bad
        topology:
          generator: {name: star, workers: 0}
        strategies: [ddp]
        """)
    assert f"{path}:3:36: topology.generator.workers: Input should be greater than or " \
           "equal to 1 (got 0)" in error_of(path)
    path = write(tmp_path, """\
        name: bad
        topology:
          hosts:
            - {name: a, ip: 10.0.0.1}
          switches: [{name: s1}]
          links: [[a, s1-p1]]
        strategies: [ddp]
        """)
    assert f"{path}:4:21: topology.hosts[0].ip: '10.0.0.1' is not address/prefix" \
        in error_of(path)


def test_unknown_keys_workers_and_missing_files(tmp_path):
    path = write(tmp_path, """\
        name: bad
        topology: {generator: {name: star, workers: 2}}
        strategies: [ddp]
        workload: {steps: 3, stepz: 4}
        """)
    assert f"{path}:4:22: workload.stepz: unknown field 'stepz'" in error_of(path)
    path = write(tmp_path, """\
        name: bad
        topology: {generator: {name: star, workers: 2}}
        workers: [w1, w9]
        strategies: [ddp]
        """)
    assert f"{path}:3:15: workers[1]: 'w9' is not a host of the topology" in error_of(path)
    path = write(tmp_path, """\
        name: bad
        topology: nowhere.yaml
        strategies: [ddp]
        """)
    assert f"{path}:2:11: topology: topology file 'nowhere.yaml' not found" in error_of(path)
    path = write(tmp_path, """\
        name: bad
        topology: {generator: {name: star}}
        workload: {mode: real, shadow_model: gpt-1.3b}
        strategies: [ddp]
        """)
    assert f"{path}:3:11: workload: shadow_model, device, device_memory, interference and " \
        "mfu describe a shadow run" \
        in error_of(path)


def test_errors_in_a_topology_file_point_into_that_file(tmp_path):
    topo = write(tmp_path, """\
        name: t
        generator: {name: star, workers: 2, nic: warp-drive}
        """, "topo.yaml")
    path = write(tmp_path, """\
        name: e
        topology: topo.yaml
        strategies: [ddp]
        """)
    assert error_of(path).startswith(f"{topo}:")


def test_parameter_server_needs_a_server_host(tmp_path):
    path = write(tmp_path, """\
        name: ps
        topology: {generator: {name: star, workers: 2}}
        strategies: [ddp, ps]
        """)
    assert f"{path}:3:19: strategies[1]: strategy ps needs a host of role server" \
        in error_of(path)
    plan = load_experiment(write(tmp_path, """\
        name: ps
        topology: {generator: {name: star, workers: 2, servers: 1}}
        strategies: [ddp, ps]
        """))
    assert plan.workers == ["w1", "w2"]
    assert [(s.label, s.service_host) for s in plan.strategies] == [("ddp", None), ("ps", "srv1")]


@pytest.mark.slow
def test_unknown_presets_are_located_before_a_run(tmp_path, capsys):
    from testbed.cli import main
    path = write(tmp_path, """\
        name: presets
        topology: {generator: {name: star, workers: 2}}
        workload: {mode: shadow, shadow_model: gpt-9b, device: a100-80gb}
        strategies: [ddp]
        """)
    assert main(["run", str(path), "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert f"{path}:3:40: workload.shadow_model: 'gpt-9b' is unknown; choose gpt-125m" in err
    assert not (tmp_path / "out").exists()


def test_ina_job_lists_the_workers_in_rank_order_on_their_switch_ports(tmp_path):
    plan = load_experiment(write(tmp_path, f"""\
        name: ina
        topology:
          generator: {{name: star, workers: 3, servers: 1}}
          program: {REPO}/p4/ina.p4
        workers: [w3, w1]
        strategies: [ina, ddp]
        ina: {{aggregator: 10.0.255.9, job: 4, slots: 16}}
        """))
    assert plan.strategy("ina").job == {
        "switch": "s1", "job_id": 4, "aggregator_ip": "10.0.255.9", "slot_count": 16,
        "workers": [{"worker_id": 0, "port": 3, "mac": "08:00:00:00:01:03", "ip": "10.0.1.3"},
                    {"worker_id": 1, "port": 1, "mac": "08:00:00:00:01:01", "ip": "10.0.1.1"}],
        "lane_bits": 16}                # ina's own default: bf16 values in 16-bit lanes
    from testbed.experiment.runner import worker_args
    assert worker_args(plan, plan.strategy("ina"))["ina_aggregator"] == "10.0.255.9"
    assert worker_args(plan, plan.strategy("ina"))["ina_lane_bits"] == 16
    assert "ina_lanes" not in worker_args(plan, plan.strategy("ina"))  # the workers' default
    assert "ina_job" not in worker_args(plan, plan.strategy("ddp"))


def test_ina_job_passes_a_program_s_lane_count_to_the_job_and_the_workers(tmp_path):
    plan = load_experiment(write(tmp_path, f"""\
        name: ina
        topology:
          generator: {{name: star, workers: 2}}
          program: {REPO}/p4/ina.p4
        strategies: [ina]
        ina: {{lanes: 512}}
        """))
    from testbed.experiment.runner import worker_args
    assert plan.strategy("ina").job["lanes"] == 512
    assert worker_args(plan, plan.strategy("ina"))["ina_lanes"] == 512
    path = write(tmp_path, f"""\
        name: ina
        topology:
          generator: {{name: star, workers: 2}}
          program: {REPO}/p4/ina.p4
        strategies: [ina]
        ina: {{lanes: 8192}}
        """)
    assert "ina.lanes: Input should be less than or equal to 8160" in error_of(path)
    path.write_text(path.read_text().replace("lanes: 8192", "lanes: 500"))
    assert "ina.lanes: Input should be a multiple of 32 (got 500)" in error_of(path)


def test_ina_needs_one_switch_all_workers_hang_off(tmp_path):
    path = write(tmp_path, """\
        name: ina
        topology: {generator: {name: leaf-spine, leaves: 2, spines: 1, hosts_per_leaf: 1}}
        strategies: [ina]
        """)
    assert f"{path}:1:1: ina: the topology has several switches; name the one" \
        in error_of(path)
    path = write(tmp_path, """\
        name: ina
        topology: {generator: {name: leaf-spine, leaves: 2, spines: 1, hosts_per_leaf: 1}}
        strategies: [ina]
        ina: {switch: leaf1}
        """)
    assert f"{path}:4:15: ina.switch: worker h2 is not linked to leaf1" in error_of(path)


def test_tiered_strategies_take_their_groups_from_the_topology(tmp_path):
    path = tmp_path / "exp.yaml"
    path.write_text(textwrap.dedent("""\
        name: tiers
        topology: {generator: {name: frontier, nodes: 1, gpus: 2}}
        workload: {mode: shadow, shadow_model: gpt-20b, device: mi250x-gcd}
        strategies: [zero-hier, {strategy: zeropp, options: {hpz: 2}}]
        sweep: {nodes: [1, 2]}
        """))
    plan = load_experiment(path)
    assert plan.strategies[0].tiers == {"gpu": ["n1p0", "n1p0", "n1p1", "n1p1"],
                                        "node": ["n1"] * 4}
    two = plan.variants()[1]
    assert two.name == "nodes-2" and len(plan.workers_of(two)) == 8
    assert plan.tiers_of(plan.strategies[1], two)["node"] == ["n1"] * 4 + ["n2"] * 4
    path.write_text(textwrap.dedent("""\
        name: tiers
        topology: {generator: {name: frontier, nodes: 2, gpus: 2}}
        strategies: [{strategy: zeropp, options: {hpz: 3}}]
        """))
    assert "strategies[0]: zeropp: hpz 3 does not divide the node's 4 ranks" in error_of(path)
    path.write_text(textwrap.dedent("""\
        name: tiers
        topology: {generator: {name: star, workers: 4}}
        strategies: [zeropp]
        """))
    assert "places its partitions by host group node; worker w1 has none" in error_of(path)
    path.write_text(textwrap.dedent("""\
        name: tiers
        topology: {generator: {name: star, workers: 4}}
        strategies: [ddp]
        sweep: {nodes: [1, 2]}
        """))
    assert "a node sweep regenerates the topology" in error_of(path)


def test_the_holmes_experiment_sweeps_nics_and_keeps_the_built_ones():
    plan = load_experiment(Path(__file__).parents[2] / "experiments" / "holmes.yaml")
    variants = {v.name: v for v in plan.variants()}
    assert list(variants) == ["nic-ib-hdr200", "nic-roce-100g", "nic-eth-25g-tcp",
                              "nic-as-built"]
    holmes = plan.strategy("holmes")
    built = plan.tiers_of(holmes, variants["nic-as-built"])
    assert built["nic"] == ["ib-hdr200"] * 4 + ["roce-100g"] * 4 + ["eth-25g-tcp"] * 4
    assert plan.tiers_of(holmes, variants["nic-roce-100g"])["nic"] == ["roce-100g"] * 12
    assert built["cluster"] == ["A"] * 4 + ["B"] * 4 + ["C"] * 4


def test_a_nic_sweep_names_its_values(tmp_path):
    path = write(tmp_path, """\
        name: bad
        topology: {generator: {name: star, workers: 2}}
        strategies: [ddp]
        sweep: {nic: [roce-100g, as-bilt]}
        """)
    assert "unknown NIC profile 'as-bilt'; allowed: as-built (each host's own)" in error_of(path)


GEO_DEVICES = """\
    name: devices
    topology:
      generator:
        name: geo
        sites: [{name: a, hosts: 2, device: h100-80gb}, {name: b, hosts: 1, device: DEVICE}]
        wan: [wan-10g]
    workload: {mode: MODE, device: a100-40gb}
    strategies: [ddp]
    """


def test_hosts_name_their_devices_and_the_workers_get_one_per_rank(tmp_path):
    from testbed.experiment.report import render_markdown
    from testbed.experiment.runner import variant_config, worker_args
    from testbed.experiment.spec import Variant
    plan = load_experiment(write(tmp_path, GEO_DEVICES.replace("DEVICE", "mi250x-gcd")
                                 .replace("MODE", "shadow")))
    assert plan.devices_of(Variant("base")) == ["h100-80gb", "h100-80gb", "mi250x-gcd"]
    assert worker_args(plan, plan.strategy("ddp"), Variant("base"))["device"] == \
        "h100-80gb,h100-80gb,mi250x-gcd"
    recorded = variant_config(plan, Variant("base"), plan.topology)["devices"]
    assert recorded == {"a1": "h100-80gb", "a2": "h100-80gb", "b1": "mi250x-gcd"}
    report = render_markdown(tmp_path, {"variants": [{"name": "base", "devices": recorded}]},
                             [], [])
    assert "- devices: a1 h100-80gb, a2 h100-80gb, b1 mi250x-gcd" in report
    same = load_experiment(write(tmp_path, GEO_DEVICES.replace(", device: DEVICE", "")
                                 .replace(", device: h100-80gb", "").replace("MODE", "shadow")))
    assert worker_args(same, same.strategy("ddp"), Variant("base"))["device"] == "a100-40gb"


@pytest.mark.parametrize("device,mode,message", [
    ("b200", "shadow", "topology: worker host b1: device 'b200' is unknown; choose one of "
     "a100-40gb"),
    ("a100-80gb", "real", "topology: worker host a1 names device 'h100-80gb', but a real run "
     "computes on this machine"),
    ("a100", "shadow", "topology: worker host b1: device 'a100' is now called 'a100-80gb'"),
])
def test_a_hosts_device_is_a_known_profile_in_shadow_mode(tmp_path, device, mode, message):
    text = GEO_DEVICES.replace("DEVICE", device).replace("MODE", mode)
    if mode == "real":
        text = text.replace(", device: a100-40gb", "")
    path = write(tmp_path, text)
    assert f"{path}:2:" in error_of(path) and message in error_of(path)


def test_gpus_per_node_sweep_shares_each_hosts_memory_per_variant(tmp_path):
    """One DGX A100 (2 TiB) per worker, or its 8 GPUs sharing it: ZeRO-Offload's host
    state of a 175B model fits the first and not the second; the workers get each
    variant's value."""
    from testbed.experiment.fit import memory_checks
    from testbed.experiment.runner import worker_args
    path = tmp_path / "exp.yaml"
    path.write_text(textwrap.dedent("""\
        name: per-host
        topology: {generator: {name: star, workers: 8}}
        workload: {mode: shadow, shadow_model: gpt-175b, device: a100-80gb, global_batch: 8,
                   gpus_per_node: 2, recompute: full}
        strategies: [{strategy: zero3, label: offload, options: {offload_optimizer: cpu}}]
        sweep: {bandwidth: [100Gbit], gpus_per_node: [1, 8]}
        """))
    plan = load_experiment(path)
    one, eight = plan.variants()
    assert (one.name, eight.name) == ("bandwidth-100Gbit_gpus-per-node-1",
                                      "bandwidth-100Gbit_gpus-per-node-8")
    assert eight.overrides()["gpus_per_node"] == 8
    assert worker_args(plan, plan.strategies[0], eight)["gpus_per_node"] == 8
    assert worker_args(plan, plan.strategies[0], None)["gpus_per_node"] == 2
    fits = {c.variant: c.fit for c in memory_checks(plan)}
    assert fits[one.name].fits
    assert not fits[eight.name].fits and "host memory" in fits[eight.name].verdict()
    path.write_text(path.read_text().replace("[1, 8]", "[0]"))
    assert "sweep.gpus_per_node" in error_of(path)


@pytest.mark.parametrize("workload, strategies, message", [
    ("{mode: shadow, recompute: partial}", "[ddp]",
     "3:37: workload.recompute: Input should be 'none', 'selective' or 'full' (got 'partial')"),
    ("{mode: shadow, recompute: full}", "[fusionllm]",
     "3:37: workload.recompute: strategy fusionllm: the workload's recompute is 'full', "
     "which its shadow-mode ranks do not run; they run recompute none"),
    ("{mode: real, recompute: full}", "[ddp]",
     "3:35: workload.recompute: strategy ddp: the workload's recompute is 'full', which its "
     "real-mode ranks do not run; they run recompute none (a shadow run sleeps any)"),
    ("{mode: real}", "[{strategy: pp, options: {recompute: selective}}]",
     "4:50: strategies[0].options.recompute: strategy pp: its option recompute is "
     "'selective', which its real-mode ranks do not run; they run recompute none or full"),
])
def test_a_recompute_the_ranks_cannot_run_is_named_where_it_is_given(tmp_path, workload,
                                                                      strategies, message):
    path = write(tmp_path, f"""\
        name: bad-recompute
        topology: {{generator: {{name: star, workers: 2}}}}
        workload: {workload}
        strategies: {strategies}
        """)
    assert f"{path}:{message}" in error_of(path)


def test_an_earlier_recompute_flag_reads_as_a_mode(tmp_path):
    for flag, mode in (("true", "full"), ("false", "none")):
        path = write(tmp_path, f"""\
            name: flag
            topology: {{generator: {{name: star, workers: 2}}}}
            workload: {{mode: shadow, recompute: {flag}}}
            strategies: [ddp]
            """)
        assert load_experiment(path).spec.workload.recompute == mode
