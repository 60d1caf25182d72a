"""DDP, ZeRO-3 and the parameter server on gloo over loopback, ranks as threads: what they
send, hold and time per step, and the comm layer's collectives. That they train as one
process would is tests/workers/test_equivalence.py's (plain SGD, on parameters, with a
control that fails)."""
import threading
import time

import pytest
import torch

from hosts.collectives.comm import Comm, CommError, name_peer
from hosts.models import SyntheticCorpus, build_model
from hosts.param_server import ParameterServer as Server
from hosts.strategies.ddp import DDP
from hosts.strategies.ps import ParameterServer
from hosts.strategies.zero3 import Zero3
from ranks import run_ranks

CORPUS = SyntheticCorpus(0)
BATCH, STEPS, LR = 2, 20, 1e-3


def train_ranks(make, name: str, world: int):
    models = [build_model(name, 1) for _ in range(world)]   # seeding is process-global

    def body(comm):
        strategy = make(comm)
        strategy.setup(models[comm.rank])
        metrics = [strategy.step(CORPUS.batch(s, comm.rank, world, BATCH, 32))
                   for s in range(STEPS)]
        return strategy.full_parameters(), metrics, strategy.memory()

    return run_ranks(world, body)


def model_bytes(name: str) -> int:
    return sum(p.numel() for p in build_model(name, 1).parameters()) * 4


@pytest.mark.parametrize("name", ["gpt", "mlp"])
def test_ddp_sends_a_ring_all_reduce_and_times_it(name):
    world = 2
    results = train_ranks(lambda c: DDP(c, lr=LR, bucket_bytes=64 * 1024), name, world)
    p0 = results[0][0]
    assert all(torch.equal(a, b) for r in results for a, b in zip(r[0], p0))  # one model
    flat_bytes = sum(p.numel() for p in p0) * 4
    m = results[0][1][-1]
    assert m.logical_sent_bytes == pytest.approx(2 * (world - 1) / world * flat_bytes, abs=16)
    assert m.step_s == pytest.approx(m.compute_s + m.exposed_comm_s)
    assert 0 < m.exposed_comm_s <= m.comm_s


def test_zero3_holds_a_shard_and_sends_two_gathers_and_a_reduce_scatter():
    world = 3
    results = train_ranks(lambda c: Zero3(c, lr=LR), "gpt", world)
    total = model_bytes("gpt")
    for params, metrics, memory in results:
        assert memory.grads_bytes == pytest.approx(total / world, rel=0.01)
        assert memory.optimizer_bytes == pytest.approx(2 * total / world, rel=0.01)
        assert memory.params_bytes < total          # shards plus at most two gathered units
    sent = results[0][1][-1].logical_sent_bytes
    # two all-gathers (the head's only once) and a reduce-scatter of (N-1)/N each
    assert 2 * total * (world - 1) / world < sent <= 3 * total * (world - 1) / world * 1.01


def test_parameter_server_moves_the_model_each_way_and_keeps_no_optimizer_state():
    world = 3
    server = Server(0, world, timeout_s=20, bind="127.0.0.1")
    port = server.listener.getsockname()[1]
    served = []
    thread = threading.Thread(target=lambda: served.append(server.serve()))
    thread.start()
    try:
        models = [build_model("gpt", 1) for _ in range(world)]
        out = [None] * world

        def worker(r):
            s = ParameterServer(Comm(None, r, world), f"127.0.0.1:{port}", 20, lr=LR)
            s.setup(models[r])
            for k in range(STEPS):
                m = s.step(CORPUS.batch(k, r, world, BATCH, 32))
            out[r] = (s.full_parameters(), m, s.memory())
            s.close()

        threads = [threading.Thread(target=worker, args=(r,)) for r in range(world)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        thread.join(20)
    finally:
        server.close()
    assert served == [STEPS]
    total = model_bytes("gpt")
    for params, m, memory in out:
        assert m.logical_sent_bytes == m.logical_recv_bytes == total
        assert m.exposed_comm_s == pytest.approx(m.comm_s)
        assert memory.optimizer_bytes == 0


def test_reduce_scatter_ring_equals_all_reduce_then_slice():
    world = 4
    inputs = [torch.randn(4 * 1000, generator=torch.Generator().manual_seed(r))
              for r in range(world)]
    total = sum(inputs)

    def body(comm):
        shard = comm.wait(comm.reduce_scatter(inputs[comm.rank]))
        return shard, comm.sent_bytes, torch.equal(inputs[comm.rank], inputs[comm.rank].clone())

    for rank, (shard, sent, _) in enumerate(run_ranks(world, body)):
        assert torch.allclose(shard, total[rank * 1000:(rank + 1) * 1000], atol=1e-5)
        assert sent == 3 * 1000 * 4            # (N-1)/N of the tensor, not 2(N-1)/N


def test_reduce_scatter_needs_a_padded_tensor():
    with pytest.raises(CommError, match="pad to a multiple of the group size"):
        run_ranks(2, lambda comm: comm.wait(comm.reduce_scatter(torch.ones(5))))


def test_all_gather_concatenates_in_rank_order():
    got = run_ranks(3, lambda comm: comm.wait(comm.all_gather(torch.full((2,), float(comm.rank)))))
    assert all(torch.equal(g, torch.tensor([0., 0., 1., 1., 2., 2.])) for g in got)


def test_silent_peer_fails_the_collective_at_the_timeout():
    def body(comm):
        if comm.rank == 1:
            time.sleep(0.6)                    # alive, but never joins the collective
            return None
        return comm.wait(comm.all_reduce(torch.ones(4)))

    start = time.monotonic()
    with pytest.raises(CommError, match="rank 0: all-reduce failed"):
        run_ranks(2, body, timeout_s=0.2)
    assert time.monotonic() - start < 2


def test_gloo_error_names_the_dead_rank():
    message = "Connection closed by peer [10.0.1.2]:46215. This is typically caused by"
    assert name_peer(message, {"10.0.1.1": 0, "10.0.1.2": 1}) == "rank 1 (10.0.1.2)"
    assert name_peer(message, {"10.0.1.1": 0}) is None
