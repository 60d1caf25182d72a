"""The batch as Megatron-LM and DeepSpeed spell it (global_batch, micro_batch_size),
mapped onto each strategy's replicas and micro-batches; the earlier keys refused by
`trainet check` naming the new ones, results folders of earlier versions still read."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from testbed.cli import main
from testbed.experiment.runner import worker_args
from testbed.experiment.spec import load_experiment

ROOT = Path(__file__).resolve().parents[2]


def check(tmp_path, capsys, text: str) -> tuple[int, str]:
    path = tmp_path / "exp.yaml"
    path.write_text(textwrap.dedent(text))
    code = main(["check", str(path)])
    out, err = capsys.readouterr()
    return code, (out + err).replace(str(path), "exp.yaml")


STAR = textwrap.dedent("""\
    name: vocab
    topology:
      generator: {{name: star, workers: {workers}, nic: roce-100g}}
    workload:
      mode: shadow
      {batch}
    strategies: {strategies}
    """)


@pytest.mark.parametrize("batch, strategies, workers, message", [
    ("batch: 2", "[ddp]", 3,
     "exp.yaml:6:3: workload.batch: an earlier key (sequences per worker): give "
     "global_batch = batch x replicas"),
    ("gpus_per_host: 4", "[ddp]", 3,
     "exp.yaml:6:3: workload.gpus_per_host: an earlier key: give gpus_per_node"),
    ("global_batch: 7", "[ddp]", 3,
     "exp.yaml:6:17: workload.global_batch: global_batch=7 does not split over the 3 "
     "data-parallel replicas of strategy ddp on 3 workers; accepted: a multiple of 3 "
     "(3, 6, 9, 12, ...)"),
    ("global_batch: 4\n  micro_batch_size: 3", "[pp]", 2,
     "exp.yaml:7:21: workload.micro_batch_size: micro_batch_size=3 does not divide "
     "strategy pp's 4 sequences per replica (global_batch 4 / 1 replicas); accepted: 1, 2, 4"),
    ("global_batch: 6\n  micro_batch_size: 1", "[axonn]", 3,
     "workload.micro_batch_size: micro_batch_size=1: strategy axonn runs each replica's "
     "batch as one micro-batch (it accumulates no gradients over micro-batches); "
     "accepted: 2"),
    ("global_batch: 12\n  micro_batch_size: 3", "[zero3]", 3,
     "exp.yaml:7:21: workload.micro_batch_size: micro_batch_size=3 does not divide "
     "strategy zero3's 4 sequences per replica (global_batch 12 / 3 replicas); accepted: "
     "1, 2, 4"),
    ("global_batch: 12", "[{strategy: ddp, options: {micro_batch_size: 3}}]", 3,
     "exp.yaml:7:58: strategies[0].options.micro_batch_size: micro_batch_size=3 does not "
     "divide strategy ddp's 4 sequences per replica (global_batch 12 / 3 replicas); "
     "accepted: 1, 2, 4"),
    ("global_batch: 12", "[{strategy: zeropp, options: {micro_batch_size: 0}}]", 3,
     "exp.yaml:7:14: strategies[0]: strategy zeropp: micro_batch_size: Input should be "
     "greater than or equal to 1"),
    ("global_batch: 4", "[{strategy: pp, options: {micro_batches: 2}}]", 2,
     "strategies[0].options: micro_batches (a count) is now workload.micro_batch_size"),
])
def test_check_refuses_earlier_keys_and_batches_that_do_not_split(tmp_path, capsys, batch,
                                                                   strategies, workers,
                                                                   message):
    code, text = check(tmp_path, capsys, STAR.format(batch=batch, strategies=strategies,
                                                     workers=workers))
    assert code == 2
    assert message in text
    assert "Traceback" not in text


def test_each_strategy_takes_its_replicas_share_and_micro_batches(tmp_path):
    """DDP on 4 workers: 4 replicas of 2; a pipeline over the 4: one replica of 8 in
    micro-batches of 2 (4 of them); fusionllm takes the count; megatron's own option wins."""
    path = tmp_path / "exp.yaml"
    path.write_text(textwrap.dedent("""\
        name: mapping
        topology: {generator: {name: star, workers: 4, nic: roce-100g}}
        workload: {mode: shadow, global_batch: 8, micro_batch_size: 2}
        strategies:
          - zero3
          - pp
          - fusionllm
          - {strategy: megatron, options: {tp: 2, dp: 2, micro_batch_size: 4}}
        """))
    experiment = load_experiment(path)
    got = {s.label: (experiment.batch_of(s).replicas, worker_args(experiment, s)["batch"],
                     {k: v for k, v in worker_args(experiment, s).items()
                      if k.startswith("micro")})
           for s in experiment.strategies}
    assert got == {"zero3": (4, 2, {"micro_batch_size": 2}), "pp": (1, 8, {"micro_batch_size": 2}),
                   "fusionllm": (1, 8, {"micro_batches": 4}),
                   "megatron": (2, 4, {"micro_batch_size": 4})}


def test_micro_batch_size_alone_keeps_each_replicas_work_over_a_node_sweep():
    experiment = load_experiment(ROOT / "experiments" / "zeropp-frontier.yaml")
    zero3 = experiment.strategy("zero3")
    per_variant = [(len(experiment.workers_of(v)), experiment.batch_of(zero3, v).global_batch,
                    worker_args(experiment, zero3, v)["batch"]) for v in experiment.variants()]
    assert per_variant == [(4, 4, 1), (8, 8, 1), (12, 12, 1)]


# Each shipped experiment's per-worker batch and micro-batches before the keys were
# renamed (experiment files said batch: N per worker, options micro_batches: M).
BEFORE = {
    "demo.yaml": {"ddp": (2, None), "zero3": (2, None)},
    "ina-vs-ring.yaml": {"ina": (2, None), "ddp": (2, None)},
    "bandwidth-100-vs-200.yaml": {s: (2, None) for s in ("ina", "ddp", "zero3", "ps")},
    "cluster-2sites.yaml": {"ddp": (1, None)},
    "luwu-convergence.yaml": {"luwu": (4, None), "ddp": (4, None)},
    "luwu-vs-offload.yaml": {s: (1, None) for s in ("luwu", "zero3-offload", "ddp")},
    "luwu-vs-zero3.yaml": {s: (1, None) for s in ("luwu", "luwu-resident", "zero3", "ddp")},
    "zeropp-dgx2.yaml": {"zero3": (1, None), "zeropp-all": (1, None)},
    "axonn.yaml": {"megatron-tp4-dp2": (8, 1), "axonn-4x1x1x2": (8, None)},
    "holmes.yaml": {"megatron": (8, 4), "holmes": (8, 4)},
    "fusionllm.yaml": {"fusionllm": (4, 4), "same-partition": (4, 4), "pp": (4, 4)},
    "fusionllm-convergence.yaml": {"fusionllm": (4, 2), "uniform-topk": (4, 2)},
}


@pytest.mark.parametrize("name", sorted(BEFORE))
def test_shipped_experiments_give_every_worker_the_same_work_as_before(name):
    from hosts.strategies.parallel import resolve
    experiment = load_experiment(ROOT / "experiments" / name)
    for label, (batch, micro_batches) in BEFORE[name].items():
        s = experiment.strategy(label)
        args = worker_args(experiment, s)
        assert args["batch"] == batch, label
        if micro_batches is None:
            assert not {"micro_batches", "micro_batch_size"} & args.keys(), label
        elif "micro_batches" in args:
            assert args["micro_batches"] == micro_batches, label
        else:
            options = s.info.parse_options({k: v for k, v in args.items()
                                            if k in s.info.options.model_fields})
            layout_pp = options.pp or (len(experiment.workers) if s.info.name == "pp" else 1)
            assert resolve(options, batch, layout_pp, label).micro_batches == micro_batches


def test_a_results_folder_of_an_earlier_version_still_reads(tmp_path):
    """A results folder's experiment.yaml may say batch (per worker), gpus_per_host and
    micro_batches: plan --check and the model read it, a new file is refused."""
    recorded = tmp_path / "experiment.yaml"
    recorded.write_text(textwrap.dedent("""\
        name: old
        topology: {generator: {name: star, workers: 2, nic: roce-100g}}
        workload: {mode: shadow, batch: 3, gpus_per_host: 4}
        strategies: [ddp, {strategy: pp, options: {micro_batches: 3}}]
        """))
    experiment = load_experiment(recorded, recorded=True)
    assert experiment.spec.workload.gpus_per_node == 4
    assert [(experiment.batch_of(s).global_batch, worker_args(experiment, s)["batch"])
            for s in experiment.strategies] == [(6, 3), (3, 3)]


@pytest.mark.parametrize("flags, expected", [
    ([], (4, 1)),                                     # one sequence per worker
    (["--global-batch-size", "8"], (8, 2)),
    (["--micro-batch-size", "3"], (12, 3)),
    (["--global-batch-size", "6"], "--global-batch-size=6 does not split over the 4 "
     "data-parallel replicas of strategy ddp"),
    (["--global-batch-size", "8", "--micro-batch-size", "1"], (8, 2)),    # 2 accumulated
    (["--global-batch-size", "8", "--micro-batch-size", "3"], "--micro-batch-size=3 "
     "does not divide strategy ddp's 2 sequences per replica"),
])
def test_bench_train_takes_the_global_batch(flags, expected):
    from testbed.bench import train
    from testbed.cli import build_parser
    from testbed.errors import TrainetError
    args = build_parser().parse_args(["bench", "train", "--workers", "4", "--strategies",
                                      "ddp", "zero3"] + flags)
    if isinstance(expected, str):
        with pytest.raises(TrainetError, match=expected.replace("(", r"\(")):
            train.replica_batch(args)
        return
    assert train.replica_batch(args) == expected[1]
    assert args.global_batch == expected[0]
    if args.micro_batch_size:           # the workers accumulate micro-batches of that size
        assert args.micro_options == {s: {"micro_batch_size": args.micro_batch_size}
                                      for s in ("ddp", "zero3")}


def test_check_shows_each_strategys_share_of_the_global_batch(capsys):
    code = main(["check", str(ROOT / "experiments" / "holmes.yaml"),
                 str(ROOT / "experiments" / "zeropp-frontier.yaml")])
    out = capsys.readouterr().out
    assert code == 0
    # 32 layers on 3 stages: the first holds 11 of them
    assert "megatron: memory fits: 37.1 GiB of 80 GiB (fits); global batch 16 = 2 replicas " \
        "x 8 sequences, 4 micro-batches of 2" in out
    nodes = out.split("variant nodes-3:")[1]
    assert "zero3: memory fits" in nodes
    assert "global batch 12 = 12 replicas x 1 sequence, 1 micro-batch of 1" in nodes
