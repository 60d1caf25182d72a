"""Pipeline depths that do not divide the layers: the layers split as evenly as
possible (or as DeepSpeed's partition methods split them), the first stage carrying the
embedding and the last the head; each stage's passes are its own layers' (the slowest
sets the pace); the search tries such depths."""
import pytest

from hosts import shadow
from hosts.parallelism.partition import min_max_split, stage_layers
from testbed.errors import TrainetError
from testbed.model import fabric as fabrics
from testbed.model.search import candidates, search
from testbed.model.step import Workload, predict


def test_bloom_splits_as_its_readme_prints_it():
    """BLOOM-176B's 70 layers on 12 stages: as even as possible, 6 on ten stages and 5
    on the last two (the last also runs the head); with the embedding and the head
    counted as layers (its 'type:transformer|embedding'), the README's 5 + 6 x 10 + 5;
    balanced on parameters (embedding (V + s) h, layer 12 h^2 + 13 h, head V h) too."""
    assert stage_layers(70, 12) == (6,) * 10 + (5, 5)
    assert stage_layers(70, 12, "embeddings") == (5,) + (6,) * 10 + (5,)
    assert stage_layers(70, 12, "parameters", 14336, 250880, 2048) == (5,) + (6,) * 10 + (5,)
    assert stage_layers(44, 4, "embeddings") == (11, 12, 12, 9)
    assert stage_layers(96, 8, "parameters", 12288, 51200, 2048) == (12,) * 8


def test_the_heaviest_run_is_as_light_as_it_can_be():
    assert min_max_split([1, 1, 1, 1, 1, 1, 1], 3) == [3, 3, 1]
    assert min_max_split([5, 1, 1, 1, 1, 5], 3) == [1, 4, 1]
    assert min_max_split([2, 2, 2, 3], 2) == [2, 2]
    assert min_max_split([1, 1, 1], 3) == [1, 1, 1]
    with pytest.raises(TrainetError, match="pp=5 stages for a model of 4 layers"):
        stage_layers(4, 5)
    with pytest.raises(TrainetError, match="partition='bytes'; accepted: layers, "
                                           "embeddings, parameters"):
        stage_layers(8, 2, "bytes")



def _workload(layers: int = 5, heads: int = 4, batch: int = 4) -> Workload:
    model = shadow.shadow_model(f"custom:layers={layers},hidden=256,heads={heads},"
                                "vocab=1000,seq=128")
    return Workload(model, shadow.device("a100-80gb"), batch, mfu=None)


def test_each_stage_computes_its_own_layers_and_the_last_the_head():
    """5 layers on 2 stages, 4 micro-batches of one sequence: stage 0 runs 3 layers,
    stage 1 runs 2 and the head, every micro-batch forward and backward; the step is no
    shorter than the slower stage's 4 passes."""
    w = _workload()
    p = predict("megatron", w, fabrics.fabric("dgx-a100", 2), 2,
                {"tp": 1, "pp": 2, "dp": 1, "micro_batch_size": 1, "partition": "layers"})
    layer, head = w.layer(1), w.head(1)
    first, last = p.roles
    assert sum(e.duration_s for e in first.compute()) == pytest.approx(4 * 3 * layer.seconds)
    assert sum(e.duration_s for e in last.compute()) == pytest.approx(
        4 * (2 * layer.seconds + head.seconds))
    slowest = max(3 * layer.seconds, 2 * layer.seconds + head.seconds)
    assert p.step_s >= 4 * slowest
    assert "layers 3/2" in p.layout          # a partition given is named


def test_a_partition_moves_layers_off_the_embedding_and_head_stages():
    """6 layers on 4 stages: as even as possible 2, 2, 1, 1; with the embedding and the
    head counted, 1, 2, 2, 1: the first stage's compute falls by one layer per pass."""
    w = _workload(layers=6)
    fabric = fabrics.fabric("dgx-a100", 4)
    layer = w.layer(1)
    times = {}
    for partition in ("layers", "embeddings"):
        p = predict("megatron", w, fabric, 4, {"tp": 1, "pp": 4, "dp": 1,
                                                "micro_batch_size": 1, "partition": partition})
        times[partition] = [sum(e.duration_s for e in r.compute()) for r in p.roles]
    assert times["layers"][0] == pytest.approx(4 * 2 * layer.seconds)
    assert times["embeddings"][0] == pytest.approx(4 * 1 * layer.seconds)
    assert times["embeddings"][1] == pytest.approx(4 * 2 * layer.seconds)


def test_the_search_finds_a_layout_when_no_depth_divides_the_layers():
    """4 layers, one head (no tensor parallelism), 4 sequences on 6 GPUs: the data
    sizes must divide the 4 sequences, so only 3 stages of 2 replicas remain, and 3
    does not divide 4 layers: the search now offers 2 + 1 + 1."""
    w = _workload(layers=4, heads=1)
    fabric = fabrics.fabric("dgx-a100", 6)
    tried = [c for c in candidates(6, w, fabric.tier_sizes(6)) if c[0] == "megatron"]
    assert tried and {(o["pp"], o["partition"]) for _, o in tried} == {(3, "layers")}
    # the exhaustive listing (plan, reproduce) keeps Megatron-LM's dividing depths
    assert not [c for c in candidates(6, w, fabric.tier_sizes(6), every=True)
                if c[0] == "megatron"]
    found, _ = search(w, fabric, 6, strategies=tried)
    assert "pp3" in found[0].layout and "layers 2/1x2" in found[0].layout
    assert found[0].fits and found[0].step_s > 0
