"""Every registered strategy declares how its step spends time, so the model needs no
strategy's name."""
import pytest

from hosts import shadow
from hosts.collectives.timing import Overlap, default_timing
from hosts.strategies import registry

MODEL = shadow.PRESETS["gpt-1.3b"]
SIZES = {"gpu": 2, "node": 4}


@pytest.mark.parametrize("name", registry.names())
def test_every_strategy_declares_its_timing(name):
    info = registry.get(name)
    assert info.timing is not default_timing, f"{name} declares no timing"
    options = info.parse_options({})
    pattern = info.collectives(shadow.model_bytes(MODEL.params), 8, MODEL.layers,
                               options=options, sizes=SIZES, model=MODEL, batch=8)
    timing = info.step_timing(8, options=options, sizes=SIZES, model=MODEL)
    overlaps = timing.overlap(pattern)
    assert len(overlaps) == len(pattern) and all(isinstance(o, Overlap) for o in overlaps)
    assert {c.group for c in pattern} <= set(timing.groups)
    assert 8 % timing.replicas == 0
    assert (timing.pipeline is not None) == any(o.mode == "pipeline" for o in overlaps) \
        or timing.pipeline.stages == 1
    assert isinstance(info.candidate_options(8, model=MODEL, batch=16, sizes=SIZES), list)


def test_the_strategies_listing_still_works(capsys):
    from testbed import cli
    assert cli.main(["strategies"]) == 0
    assert "megatron" in capsys.readouterr().out
