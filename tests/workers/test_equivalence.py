"""Every strategy against single-process training under plain SGD, on parameters, with a
control run in which one data shard's gradient counts twice and the comparison must fail
(tests/workers/equivalence.py says why SGD, how parameters are compared and where the
tolerance comes from; INA's fixed point is in tests/ina/test_ina_allreduce.py, LuWu's in
tests/luwu; qgZ's int4 bound through one SGD step in tests/workers/test_zeropp.py).
Measured relative errors: 1e-7 to 3e-7 for every case here, controls 0.25 to 1.5."""
import threading
from contextlib import contextmanager

import pytest

from hosts.param_server import ParameterServer as Server
from hosts.strategies import registry
from tests.workers.equivalence import LR, assert_equivalent, ranks, train_sgd

NODES_OF_TWO = {"node": ["n1", "n1", "n2", "n2"], "gpu": ["p0", "p0", "p1", "p1"]}
BATCH = 4


def registered(name: str, options: dict, **extra):
    info = registry.get(name)
    parsed = info.parse_options(options)
    return lambda comm: info.build("real", registry.Context(comm, info, parsed, lr=LR,
                                                            batch=BATCH, **extra))


@pytest.mark.parametrize("name, options, world, extra", [
    ("ddp", {"bucket_cap_mb": 0.0625}, 2, {}),
    ("zero3", {}, 3, {}),
    ("zeropp", {}, 4, {"tiers": NODES_OF_TWO}),
    ("zeropp", {"hpz": 2}, 4, {"tiers": NODES_OF_TWO}),
    ("zero-hier", {}, 4, {"tiers": NODES_OF_TWO}),
    # gradient accumulation: BATCH sequences per rank in 2 or 4 micro-batches
    pytest.param("ddp", {"bucket_cap_mb": 0.0625, "micro_batch_size": 2}, 2, {},
                 id="ddp-accumulate-2"),
    pytest.param("ddp", {"micro_batch_size": 1}, 3, {}, id="ddp-accumulate-4"),
    pytest.param("zero3", {"micro_batch_size": 2}, 3, {}, id="zero3-accumulate-2"),
    pytest.param("zeropp", {"hpz": 2, "micro_batch_size": 2}, 4, {"tiers": NODES_OF_TWO},
                 id="zeropp-accumulate-2"),
    pytest.param("zero-hier", {"micro_batch_size": 2}, 4, {"tiers": NODES_OF_TWO},
                 id="zero-hier-accumulate-2"),
    ("pp", {"micro_batches": 2, "schedule": "1f1b"}, 3, {}),
    ("pp", {"micro_batches": 2, "schedule": "gpipe"}, 3, {}),
    ("pp", {"micro_batches": 2, "recompute": "full"}, 3, {}),
    ("tp", {}, 2, {}),
    ("megatron", {"dp": 2, "pp": 2, "tp": 2, "micro_batches": 2, "recompute": "full"}, 8, {}),
    ("megatron", {"dp": 2, "pp": 2, "tp": 2, "micro_batches": 2}, 8, {}),
    ("holmes", {"dp": 2, "pp": 2, "tp": 2, "micro_batches": 2}, 8,
     {"tiers": {"cluster": ["B", "A"] * 4, "nic": ["roce-100g", "ib-hdr200"] * 4}}),
    ("axonn", {"g_r": 2, "g_c": 2, "g_d": 2, "g_data": 1}, 8, {}),
    ("axonn", {"g_r": 1, "g_c": 2, "g_d": 2, "g_data": 2}, 8, {}),
    ("fusionllm", {"compression": "none", "micro_batches": 2}, 3, {}),
])
def test_strategy_equals_single_process_sgd(name, options, world, extra):
    assert_equivalent(ranks(registered(name, options, **extra), world, BATCH), BATCH)


@contextmanager
def parameter_server(world: int):
    """A parameter server on loopback for one run; its address."""
    server = Server(0, world, timeout_s=20, bind="127.0.0.1")
    served = []
    thread = threading.Thread(target=lambda: served.append(server.serve()))
    thread.start()
    try:
        yield f"127.0.0.1:{server.listener.getsockname()[1]}"
    finally:
        thread.join(20)
        server.close()
    assert served, "the parameter server did not finish"


def test_parameter_server_equals_single_process_sgd():
    """The server averages the pushed gradients and applies the update itself."""
    world = 3

    def train(control):
        with parameter_server(world) as address:
            return train_sgd(registered("ps", {}, service=address, timeout_s=20), world,
                             BATCH, control, gloo=False)

    assert_equivalent(train, BATCH)
