"""ZeRO++ and the 3-level partitioning, ranks as threads over gloo, 4 ranks faked as 2
nodes of 2 (and GPU packages of 1 or 2). The exact ones (hpz, zero-hier) train as one
process would, under plain SGD on parameters: tests/workers/test_equivalence.py. Where
the quantizers enter, one SGD step shows it: qwZ's is one process's step at the int8
weights (within float32 reordering), qgZ's within lr times the int4 reduction's derived
bound; over many steps the quantized options converge within 2 % of ZeRO-3."""
import pytest
import torch

from hosts import shadow
from hosts.collectives.pattern import cross_node
from hosts.models import SyntheticCorpus, build_model
from hosts.strategies import registry
from ranks import run_ranks, single_process_losses
from testbed.errors import TrainetError

CORPUS = SyntheticCorpus(0)
BATCH, LR = 2, 1e-3
NODES_OF_TWO = {"node": ["n1", "n1", "n2", "n2"], "gpu": ["p0", "p0", "p1", "p1"]}


def build(name: str, comm, options: dict, tiers=NODES_OF_TWO, mode="real", **extra):
    info = registry.get(name)
    context = registry.Context(comm, info, info.parse_options(options), lr=LR, tiers=tiers,
                               **extra)
    return info.build(mode, context)


THREE_LEVELS = {"node": ["n1"] * 4 + ["n2"] * 4,
                "gpu": ["p0", "p0", "p1", "p1", "p2", "p2", "p3", "p3"]}


def train(name: str, options: dict, steps: int, world: int = 4, tiers=NODES_OF_TWO):
    models = [build_model("gpt", 1) for _ in range(world)]

    def body(comm):
        strategy = build(name, comm, options, tiers=tiers)
        strategy.setup(models[comm.rank])
        metrics = [strategy.step(CORPUS.batch(s, comm.rank, world, BATCH, 32))
                   for s in range(steps)]
        return strategy.full_parameters(), metrics, strategy.memory()

    return run_ranks(world, body, timeout_s=20)


def max_diff(a, b) -> float:
    return max((p - q).abs().max().item() for p, q in zip(a, b))


@pytest.mark.parametrize("name,options", [("zeropp", {"hpz": 2}), ("zero-hier", {})])
def test_unquantized_partitions_hold_their_secondary_shards(name, options):
    results = train(name, options, 2)
    zero3 = train("zeropp", {}, 1)[0][2]
    total = sum(p.numel() for p in build_model("gpt", 1).parameters()) * 4
    for params, metrics, memory in results:
        assert memory.params_bytes > zero3.params_bytes + total / 4     # the secondary shards


@pytest.mark.parametrize("options", [{"qwz": True, "block": 64}, {"qgz": True, "block": 64},
                                     {"qwz": True, "hpz": 2, "qgz": True, "block": 64}])
def test_quantized_options_stay_close_to_single_process(options):
    steps = 10
    ref = single_process_losses("gpt", steps, LR, batch=BATCH * 4, seed=1)
    results = train("zeropp", options, steps)
    losses = [sum(r[1][s].loss for r in results) / 4 for s in range(steps)]
    assert losses[-1] == pytest.approx(ref[-1], rel=0.02)
    assert losses[-1] < losses[0] * 0.9                        # it trains
    params = [r[0] for r in results]
    assert max_diff(params[0], params[3]) == 0                 # one model on every rank


@pytest.mark.parametrize("options", [{"qwz": True, "block": 64}, {"qgz": True, "block": 64},
                                     {"qwz": True, "qgz": True, "block": 64}])
def test_three_levels_with_zeropp_quantizers_stay_close_to_single_process(options):
    """zero-hier over 2 nodes of 2 packages of 2 ranks, with ZeRO++'s quantized
    collectives: qwZ's int8 shards cross the nodes and the node once, qgZ's int4 pieces
    each of the three reduction hops."""
    steps = 10
    ref = single_process_losses("gpt", steps, LR, batch=BATCH * 8, seed=1)
    results = train("zero-hier", options, steps, world=8, tiers=THREE_LEVELS)
    losses = [sum(r[1][s].loss for r in results) / 8 for s in range(steps)]
    assert losses[-1] == pytest.approx(ref[-1], rel=0.02)
    assert losses[-1] < losses[0] * 0.9                        # it trains
    exact = train("zero-hier", {}, steps, world=8, tiers=THREE_LEVELS)
    drift = max_diff(results[0][0], exact[0][0])
    assert 0 < drift < 0.05                  # the quantizers act, and stay small
    params = [r[0] for r in results]
    assert max_diff(params[0], params[7]) == 0                 # one model on every rank


def test_one_sgd_step_with_qgz_is_off_by_at_most_the_int4_bound():
    """qgZ's gradients against one process's, through one step of plain SGD, which
    moves each parameter by lr times its averaged gradient, so the parameters show the
    reduction's error times lr.

    Bound (hosts/compression/quantize.py: an int4 block is off by at most its largest
    magnitude / 14 per element): inside the node each of the 4 ranks' pieces is
    quantized, off by at most G / 14 with G the largest gradient element of any rank;
    across nodes each of the 2 node sums, at most 2 G (1 + 1/14) in magnitude, is
    quantized again, off by at most 2 G (15/14) / 14. The sum is off by at most
    4 G / 14 + 4 G (15/14) / 14, the average by a quarter of it: (29 / 196) G, times lr
    on the parameters (plus float32 rounding, 1e-6 of it). Control: the last rank's
    gradient doubled moves the average by a quarter of that rank's gradient, beyond the
    bound."""
    from tests.workers.equivalence import (CORPUS as DATA, LR as SGD_LR, SEQ, located,
                                           new_model, train_sgd)

    world, batch = 4, 4
    largest = 0.0
    for r in range(world):
        model = new_model()
        x, y = DATA.batch(0, r, world, batch, SEQ)
        model.loss(model(x), y).backward()
        largest = max(largest, max(p.grad.abs().max().item() for p in model.parameters()))
    bound = SGD_LR * largest * (29 / 196) * (1 + 1e-6)
    info = registry.get("zeropp")
    options = info.parse_options({"qgz": True, "block": 64})

    def deviation(control: bool) -> float:
        results = train_sgd(lambda comm: info.build("real", registry.Context(
            comm, info, options, lr=SGD_LR, tiers=NODES_OF_TWO)), world, batch, control,
            steps=1)
        return max((end - reference).abs().max().item()
                   for end, reference, _ in located(results, batch, steps=1))

    exact, doubled = deviation(False), deviation(True)
    print(f"\nqgZ, one SGD step: {exact:.3g} from one process, bound {bound:.3g}; "
          f"last rank's gradient doubled: {doubled:.3g}")
    assert 0 < exact <= bound
    assert doubled > bound


@pytest.mark.slow
def test_one_sgd_step_with_qwz_is_one_process_stepping_at_the_int8_weights():
    """qwZ gathers every unit's weights as int8 blocks for forward and backward, and
    applies the update to the fp32 shards: one SGD step is w - lr grad L(Q(w)), Q the
    block quantization of each rank's shard. So where the quantizer enters is known
    exactly: one process whose model holds Q(w), from the ranks' own shards, computes
    the same gradient, and the parameters agree within float32 reordering (1e-5 of
    their movement, tests/workers/equivalence.py); with the last rank's gradient
    doubled they do not."""
    from hosts.collectives.threads import run_ranks as threads
    from hosts.compression.quantize import dequantize, quantize
    from tests.workers.equivalence import (CONTROL, CORPUS as DATA, EXACT, LR as SGD_LR,
                                           SEQ, doubled_gradient, flat, movement_error,
                                           new_model)

    world, batch, block = 4, 4, 64
    info = registry.get("zeropp")
    options = info.parse_options({"qwz": True, "block": block})

    def run(control: bool) -> list:
        models = [new_model() for _ in range(world)]

        def body(comm):
            s = info.build("real", registry.Context(comm, info, options, lr=SGD_LR,
                                                    tiers=NODES_OF_TWO))
            s.update = "sgd"
            if control:
                doubled_gradient(models[comm.rank], s)
            s.setup(models[comm.rank])
            seen = torch.cat([comm.wait(comm.all_gather(dequantize(
                quantize(u.shard.detach(), 8, block), u.chunk, 8, block)))[:u.numel]
                for u in s.units])
            initial = flat(s.full_parameters())
            s.step(DATA.batch(0, *s.data_shard(), batch, SEQ))
            final = flat(s.full_parameters())
            s.close()
            return seen, initial, final

        return threads(world, body, timeout_s=60)

    def stepped_at(weights: torch.Tensor, initial: torch.Tensor) -> torch.Tensor:
        """One process's SGD step from ``initial`` with the gradient at ``weights``."""
        model = new_model()
        params = list(model.parameters())
        assert torch.equal(flat(params), initial)
        with torch.no_grad():
            start = 0
            for p in params:
                p.copy_(weights[start:start + p.numel()].view_as(p))
                start += p.numel()
        x, y = DATA.batch(0, 0, 1, batch * world, SEQ)
        model.loss(model(x), y).backward()
        return initial - SGD_LR * flat(p.grad for p in params)

    def errors(results) -> list[float]:
        seen, initial, _ = results[0]
        reference = stepped_at(seen, initial)
        # the quantizer shows: at the fp32 weights the step is another
        unquantized = movement_error(stepped_at(initial, initial), reference, initial)
        print(f"\nthe step at the fp32 weights is {unquantized:.2e} off the one at int8")
        assert unquantized > 100 * EXACT
        return [movement_error(final, reference, initial) for _, _, final in results]

    exact, doubled = max(errors(run(False))), max(errors(run(True)))
    print(f"\nqwZ, one SGD step at the int8 weights: {exact:.2e}; last rank's gradient "
          f"doubled: {doubled:.2e}")
    assert exact < EXACT
    assert doubled > CONTROL


def test_qgz_sends_int4_pieces_inside_then_across_nodes():
    flat = [torch.randn(4 * 64, generator=torch.Generator().manual_seed(r)) for r in range(4)]
    total = sum(flat)

    def body(comm):
        s = build("zeropp", comm, {"qgz": True, "block": 32})
        chunk = comm.wait(s._reduce(0, flat[comm.rank]))
        return chunk, comm.sent_bytes

    for rank, (chunk, sent) in enumerate(run_ranks(4, body)):
        exact = total.view(4, 64)[rank]
        assert (chunk - exact).abs().max() < 4 * max(t.abs().max() for t in flat) / 14
        # in the node: 1 of 2 pieces of 256 values; across: 1 of 2 of 128; int4 + scales
        assert sent == (128 // 2 + 4 * 4) + (64 // 2 + 4 * 2)


def test_bad_options_are_named():
    info = registry.get("zeropp")
    with pytest.raises(TrainetError, match="at least 32"):
        info.parse_options({"block": 16})
    with pytest.raises(TrainetError, match="hpz 3 does not divide the node's 2 ranks"):
        run_ranks(4, lambda comm: build("zeropp", comm, {"hpz": 3}))
    with pytest.raises(TrainetError, match="zero3: it takes no option 'qwz'"):
        registry.get("zero3").parse_options({"qwz": True})
    with pytest.raises(TrainetError, match="places its partitions by node"):
        run_ranks(2, lambda comm: build("zeropp", comm, {}, tiers=None))


@pytest.mark.parametrize("name,options", [
    ("zeropp", {"qwz": True}), ("zeropp", {"hpz": 2}), ("zeropp", {"qgz": True}),
    ("zeropp", {"qwz": True, "hpz": 2, "qgz": True}), ("zero-hier", {}),
    ("zero-hier", {"qwz": True, "qgz": True})])
def test_shadow_moves_the_declared_volume(name, options):
    world, scale = 4, 1e-3
    target = shadow.shadow_model("custom:2e7")
    dev = shadow.Device("fast", 1e18, "a device whose compute takes no time")

    def body(comm):
        s = build(name, comm, options, mode="shadow", target=target, device=dev, batch=1,
                  scale=scale, mfu=1.0)
        s.setup()
        return s.step(None), s.nominal_memory()

    info = registry.get(name)
    sizes = {"node": 2, "gpu": 2}
    m_bytes = shadow.model_bytes(target.params)
    nominal = info.volume_bytes(m_bytes, world, options=info.parse_options(options),
                                sizes=sizes)[0]
    for metrics, memory in run_ranks(world, body):
        assert metrics.logical_sent_bytes == pytest.approx(nominal * scale, rel=0.01)
        assert memory == info.nominal_memory(target.params, world, None,
                                             options=info.parse_options(options), sizes=sizes)


def test_cross_node_theory_zeropp_against_zero3():
    m, world, node = 1.0, 512, 8                      # 64 nodes: (k-1)/k close to 1
    zero3 = cross_node(registry.get("zero3").collectives(m, world), world, node)
    info = registry.get("zeropp")
    every = info.parse_options({"qwz": True, "hpz": 8, "qgz": True})
    zeropp = cross_node(info.collectives(m, world, options=every, sizes={"node": node}),
                        world, node)
    assert zero3 == pytest.approx(3 * 511 / 512)
    assert zeropp == pytest.approx(0.75, rel=0.03)                # the paper's 0.75 M
    hier = registry.get("zero-hier")
    sizes = {"node": node, "gpu": 2}
    plain = cross_node(hier.collectives(m, world, sizes=sizes), world, node)
    quantized = cross_node(hier.collectives(
        m, world, options=hier.parse_options({"qwz": True, "qgz": True}), sizes=sizes),
        world, node)
    # int8 parameters and int4 gradients across nodes: (0.5 + 0.25) of the plain bytes
    assert quantized == pytest.approx(plain * (0.5 + 0.25) / 2, rel=0.05)


@pytest.mark.slow
@pytest.mark.parametrize("options", [{"qwz": True}, {"qgz": True},
                                     {"qwz": True, "hpz": 2, "qgz": True}])
def test_quantized_variants_converge_within_2_percent_of_zero3(options):
    """200 steps of the small GPT, 4 ranks as 2 nodes of 2, default block of 256."""
    steps = 200
    zero3 = train("zeropp", {}, steps)
    quantized = train("zeropp", options, steps)

    def final(results):                 # mean of the last 10 steps' global-batch losses
        return sum(r[1][s].loss for r in results for s in range(steps - 10, steps)) / 40

    print(f"\nzeropp {options}: final loss {final(quantized):.4f}, ZeRO-3 "
          f"{final(zero3):.4f}, ratio {final(quantized) / final(zero3):.4f}")
    assert final(quantized) == pytest.approx(final(zero3), rel=0.02)


def test_the_worker_takes_switches_bare_and_tiers_per_rank():
    from hosts.worker import parse_args, strategy_options
    args = parse_args("--rank 0 --world-size 4 --master 10.0.1.1:29500 --strategy zeropp "
                      "--metrics-out m.jsonl --qwz --hpz 2 --tiers node=a,a,b,b".split())
    options = strategy_options(args, registry.get("zeropp"))
    assert (options.qwz, options.hpz, options.qgz) == (True, 2, False)
    assert args.tiers == "node=a,a,b,b"
