"""The worker and launcher hooks of the luwu strategy."""
import sys
import pytest

from hosts import worker
from testbed.errors import TrainetError
from hosts.strategies import registry
from testbed.experiment.launch import service_command


@pytest.mark.parametrize("strategy, params", [("luwu", "streamed"),
                                              ("luwu-resident", "resident")])
def test_optimizer_node_gets_the_workers_model_and_job(tmp_path, strategy, params):
    cmd = service_command(registry.get(strategy), 3,
                          {"model": "gpt", "seed": 4, "lr": 0.003, "steps": 7, "ina_job": 5,
                           "batch": 8, "ina_aggregator": "10.0.255.1"},
                          "10.0.1.4", 20000, tmp_path, 60)
    assert cmd[:3] == [sys.executable, "-m", "hosts.optimizer_node"]
    flags = dict(zip(cmd[3::2], cmd[4::2]))
    assert flags == {"--job": "5", "--workers": "3", "--bind": "10.0.1.4", "--timeout": "60",
                     "--params": params,
                     "--summary-out": str(tmp_path / "metrics" / "optimizer.summary.json"),
                     "--params-out": str(tmp_path / "metrics" / "optimizer.params.npy"),
                     "--model": "gpt", "--seed": "4", "--lr": "0.003", "--steps": "7"}


def test_worker_needs_the_aggregator_for_luwu():
    args = worker.parse_args(["--rank", "0", "--world-size", "3", "--master", "10.0.1.1:1",
                              "--strategy", "luwu", "--metrics-out", "m.jsonl"])
    with pytest.raises(TrainetError, match="--strategy luwu needs --ina-aggregator.*luwu.py"):
        worker.make_strategy(args, comm=None)


def test_optimizer_node_reports_a_port_it_cannot_bind(capsys):
    from hosts import optimizer_node
    rc = optimizer_node.main(["--job", "1", "--workers", "2", "--model", "mlp",
                              "--bind", "192.0.2.77", "--steps", "1"])
    assert rc == 1
    assert "error: optimizer node: --bind 192.0.2.77: cannot receive on UDP port 48864" \
        in capsys.readouterr().err
