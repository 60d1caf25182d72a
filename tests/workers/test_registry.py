"""The strategy registry: a strategy added as one module of its own is listed, accepted
by experiment files, and trains through the worker's command line like the built-ins."""
import importlib
import json
import os
import random
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hosts.collectives.pattern import Collective, busiest_link, per_worker
from hosts.strategies import registry
from ranks import single_process_losses
from testbed.errors import TrainetError

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent


@pytest.fixture
def plugin(monkeypatch):
    """The fixture strategy registered for one test, and forgotten after it."""
    registry.names()
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    sys.modules.pop("bigbucket_strategy", None)
    yield importlib.import_module("bigbucket_strategy").INFO
    sys.modules.pop("bigbucket_strategy", None)


def env_with_plugin() -> dict:
    return {**os.environ, registry.MODULES_ENV: "bigbucket_strategy",
            "PYTHONPATH": f"{REPO}{os.pathsep}{HERE}"}


def test_every_builtin_declares_what_the_others_ask():
    for info in registry.strategies():
        assert info.description and info.modes
        sent, recv = info.volume_bytes(1e9, 4, 24)
        assert sent > 0 and recv > 0
        assert info.memory(1e6, 4, 24).params_bytes > 0
        if info.switch_job:
            assert (REPO / info.switch_job.program).is_file()
            importlib.import_module(info.switch_job.controller)
        if info.service:
            importlib.import_module(info.service.module)


def test_trainet_strategies_lists_a_plug_in_with_its_options():
    out = subprocess.run([sys.executable, "-m", "testbed.cli", "strategies"], cwd=REPO,
                         env=env_with_plugin(), capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    for name in ("ddp", "zero3", "ps", "ina", "luwu", "luwu-resident", "ddp-4mb"):
        assert f"\n{name} (real and shadow mode)" in "\n" + out.stdout
    assert "DDP with 4 MiB gradient buckets" in out.stdout
    assert "options: bucket_cap_mb=0.25" in out.stdout
    assert "needs: parameter server on a host of role server" in out.stdout


def test_a_missing_plug_in_module_is_named():
    env = {**os.environ, registry.MODULES_ENV: "no_such_strategies"}
    out = subprocess.run([sys.executable, "-m", "testbed.cli", "strategies"], cwd=REPO,
                         env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode != 0
    assert "cannot import strategy module 'no_such_strategies'" in out.stderr


def test_registering_a_name_twice_is_an_error(plugin):
    clash = registry.StrategyInfo("ddp", "another ddp", None, None, plugin.pattern,
                                  plugin.memory)
    with pytest.raises(TrainetError, match="'ddp' is registered twice"):
        registry.register(clash)


def test_a_declared_function_the_registry_cannot_call_as_declared_is_refused(plugin):
    """A misspelt keyword would never be given; a required one is given only when known;
    a missing positional argument fails the first call. Each is refused at registration,
    and the strategy is not registered."""
    def misspelt(model_bytes, world, layers, optons=None):
        return plugin.pattern(model_bytes, world, layers)

    def required(world, options):
        return plugin.timing(world)

    def too_few(params, world):
        return plugin.memory(params, world, None)

    cases = [({"pattern": misspelt}, "its pattern declaration takes 'optons', which it is "
              "never given; it may take options, sizes, model, batch"),
             ({"timing": required}, "its timing declaration requires 'options', which it "
              "is given only when known; give it a default"),
             ({"memory": too_few}, "its memory declaration takes 2 positional arguments; "
              "the registry passes 3 \\(params, world, layers\\)"),
             ({"layouts": lambda world, batch=8, every=False, node=8: []},
              "its layouts declaration takes 'node'")]
    for declared, message in cases:
        info = registry.StrategyInfo(**{"name": "bad", "description": "badly declared",
                                        "real": None, "shadow": None,
                                        "pattern": plugin.pattern, "memory": plugin.memory,
                                        **declared})
        with pytest.raises(TrainetError, match="strategy bad: " + message):
            registry.register(info)
    assert "bad" not in registry.names()
    # every keyword it may take, with defaults, or **keywords: accepted
    registry.register(registry.StrategyInfo(
        "good", "well declared", None, None,
        lambda model_bytes, world, layers, options=None, sizes=None, model=None, batch=8:
        plugin.pattern(model_bytes, world, layers),
        lambda params, world, layers, **given: plugin.memory(params, world, layers)))
    assert registry.get("good").volume_bytes(1e9, 4, 24) == plugin.volume_bytes(1e9, 4, 24)


def test_options_are_validated_with_their_defaults():
    ddp = registry.get("ddp")
    assert ddp.parse_options({}).bucket_bytes == 256 * 1024
    assert ddp.parse_options({"bucket_cap_mb": 4}).bucket_bytes == 4 << 20
    with pytest.raises(TrainetError, match="strategy ddp: bucket_cap_mb: .*its options: "
                       "bucket_cap_mb="):
        ddp.parse_options({"bucket_cap_mb": "lots"})
    with pytest.raises(TrainetError, match="option bucket is now bucket_cap_mb, in MiB"):
        ddp.parse_options({"bucket": "4MiB"})
    with pytest.raises(TrainetError, match="it takes no option 'slots'; its options: bucket"):
        ddp.parse_options({"slots": 3})
    with pytest.raises(TrainetError, match="zero3: it takes no option 'bucket'; its options: "
                       "offload_optimizer=none"):
        registry.get("zero3").parse_options({"bucket": 3})
    with pytest.raises(TrainetError, match="ps: it takes no option 'bucket'; its options: "
                       "none"):
        registry.get("ps").parse_options({"bucket": 3})
    zero3 = registry.get("zero3")
    assert zero3.parse_options({"offload_optimizer": "nvme"}).offload_param == "none"
    with pytest.raises(TrainetError, match="zero3: offload_optimizer: Input should be 'none', "
                       "'cpu' or 'nvme'"):
        zero3.parse_options({"offload_optimizer": "disk"})
    with pytest.raises(TrainetError, match="offload_param: parameters on the host are updated "
                       "there; set offload_optimizer too"):
        zero3.parse_options({"offload_param": "cpu"})


def test_patterns_give_each_collective_its_traffic():
    ring = [Collective("all-reduce", 100.0)]
    assert per_worker(ring, 4) == (150.0, 150.0)
    server = [Collective("push", 100.0, "server"), Collective("pull", 100.0, "server")]
    assert per_worker(server, 4) == (100.0, 100.0) and busiest_link(server, 4) == 400.0
    with pytest.raises(ValueError, match="not around a ring"):
        Collective("push", 1.0)
    with pytest.raises(ValueError, match="operations are all-reduce"):
        Collective("broadcast", 1.0)


def test_experiment_files_take_plug_ins_options_and_labels(plugin, tmp_path):
    from testbed.experiment.runner import worker_args
    from testbed.experiment.spec import load_experiment
    from testbed.topology.specfile import TopologyError
    path = tmp_path / "exp.yaml"
    path.write_text(textwrap.dedent("""\
        name: buckets
        topology: {generator: {name: star, workers: 2}}
        workload: {mode: real, model: mlp, steps: 2}
        strategies:
          - ddp-4mb
          - {strategy: ddp, label: ddp-1mb, options: {bucket_cap_mb: 1}}
        """))
    plan = load_experiment(path)
    assert [(s.label, s.info.name) for s in plan.strategies] == \
        [("ddp-4mb", "ddp-4mb"), ("ddp-1mb", "ddp")]
    assert worker_args(plan, plan.strategy("ddp-1mb"))["bucket_cap_mb"] == 1
    path.write_text(path.read_text().replace("bucket_cap_mb: 1", "bucket_cap_mb: 1 parsec"))
    with pytest.raises(TopologyError, match=r"exp.yaml:6:\d+: strategies\[1\]: .*bucket"):
        load_experiment(path)
    path.write_text(path.read_text().replace("label: ddp-1mb, ", "").replace("1 parsec",
                                                                             "1"))
    path.write_text(path.read_text().replace("ddp-4mb", "ddp"))
    with pytest.raises(TopologyError, match="each strategy once; give a second one a label"):
        load_experiment(path)


def _free_port() -> int:
    """A free port below the ephemeral range (as the launcher picks its rendezvous
    port): an ephemeral one could be handed to rank 1's own outgoing connection before
    rank 0 listens on it."""
    while True:
        port = random.randint(20000, 29999)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port


@pytest.mark.slow
def test_a_plug_in_trains_through_the_worker_command_line(tmp_path):
    """Two worker processes on loopback run the plug-in strategy by name: the mean of
    their losses is the single-process loss on the global batch, step by step."""
    steps, batch, world = 4, 4, 2
    master = f"127.0.0.1:{_free_port()}"
    procs = [subprocess.Popen(
        [sys.executable, "-m", "hosts.worker", "--rank", str(r), "--world-size", str(world),
         "--master", master, "--strategy", "ddp-4mb", "--model", "mlp", "--steps", str(steps),
         "--batch", str(batch), "--metrics-out", str(tmp_path / f"rank{r}.jsonl")],
        cwd=REPO, env=env_with_plugin(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True) for r in range(world)]
    for p in procs:
        out, _ = p.communicate(timeout=180)
        assert p.returncode == 0, out
    rows = [[json.loads(line) for line in (tmp_path / f"rank{r}.jsonl").read_text().splitlines()]
            for r in range(world)]
    mean = [sum(rows[r][s]["loss"] for r in range(world)) / world for s in range(steps)]
    assert mean == pytest.approx(single_process_losses("mlp", steps, 1e-3, batch * world,
                                                       seed=0), rel=1e-4)
    summary = json.loads((tmp_path / "rank0.summary.json").read_text())
    assert summary["strategy"] == "ddp-4mb"
