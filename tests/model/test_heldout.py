"""The held-out published runs (testbed/model/data/heldout_a100.csv): each row cites its
source and runs with a layout the model accepts; the rows are reported, and no error
size is asserted on them."""
import re

import pytest

from testbed import cli
from testbed.errors import TrainetError
from testbed.model import heldout, published

CITED = re.compile(r"@[0-9a-f]{8}|arXiv \d{4}\.\d{5}")


def test_every_held_out_row_loads_and_cites_its_source():
    table = heldout.rows()
    assert [h.row.model for h in table] == [
        "custom:layers=70,hidden=14336,heads=112,vocab=250880,seq=2048", "gpt-20b",
        "megatron-175b"]
    for h in table:
        assert h.row.source.strip() and CITED.search(h.citation), h.citation
    assert len({h.row.source for h in table}) == len(table)
    # none of them is among the rows the papers' check averages
    assert not {h.row.source for h in table} & {r.source for r in published.rows()}


def test_a_published_throughput_becomes_the_step_its_source_states():
    """Eq. 3 over BLOOM's logged 104.70 s is the 149.77 TFLOP/s its log prints; the
    GPT-3 example's 138 TFLOP/s is the "around 32 seconds" its README gives."""
    bloom, neox, gpt3 = (h.row for h in heldout.rows())
    assert bloom.flops / (bloom.measured_s * bloom.gpus) == pytest.approx(149.77e12, rel=1e-3)
    assert gpt3.measured_s == pytest.approx(32, rel=0.01)
    assert neox.flops / (neox.measured_s * neox.gpus) == pytest.approx(117e12)
    assert (neox.device, neox.batch, neox.micro_batch_size) == ("a100-40gb", 1536, 4)


def test_each_held_out_layout_is_one_predict_accepts():
    for h in heldout.rows():
        r = h.row
        p = published.prediction(r)
        assert p.step_s > 0 and p.world == r.gpus
        for part in (f"tp{r.tp}", f"pp{r.pp}", f"dp{r.gpus // (r.tp * r.pp)}"):
            assert part in p.layout, (part, p.layout)


def test_a_bad_held_out_row_is_named_by_file_line_and_field(tmp_path):
    good = heldout.HELD_OUT.read_text().splitlines()
    header = next(i for i, line in enumerate(good) if line.startswith("source,"))
    uncited = tmp_path / "uncited.csv"
    uncited.write_text("\n".join(good[:header + 2] + [good[header + 2].rsplit(",", 1)[0] + ","])
                       + "\n")
    with pytest.raises(TrainetError, match=rf"uncited.csv, line {header + 3}: field citation"):
        heldout.rows(uncited)
    both = tmp_path / "both.csv"
    row = good[header + 1].replace(",104.70,,", ",104.70,150,")
    both.write_text("\n".join(good[:header + 1] + [row]) + "\n")
    with pytest.raises(TrainetError, match="exactly one of measured_step_s"):
        heldout.rows(both)


@pytest.mark.slow
def test_held_out_rows_are_printed_with_their_own_and_the_searchs_layout(capsys):
    assert cli.main(["model", "published", "--held-out"]) == 0
    out = capsys.readouterr().out
    assert out.count("search: ") == 3 and "mean |error|" not in out
    for h in heldout.rows():
        assert h.row.source[:40] in out and h.citation in out


def test_the_runs_configs_shard_the_optimizer_and_bloom_counts_its_embeddings():
    """BLOOM's bf16 optimizer is its own ZeRO-1 and its stages count the tied
    embeddings as layers (tr11-176B-ml.slurm); GPT-NeoX-20B's config asks for ZeRO stage
    1; Megatron-LM's 2021 example has neither. Its own layout fits the 40 GB A100 only
    with the optimizer state sharded."""
    bloom, neox, gpt3 = (h.row for h in heldout.rows())
    assert (bloom.distributed_optimizer, bloom.partition) == (True, "embeddings")
    assert (neox.distributed_optimizer, neox.partition) == (True, "layers")
    assert (gpt3.distributed_optimizer, gpt3.partition) == (False, "layers")
    assert published.prediction(neox).fits
    from dataclasses import replace
    assert not published.prediction(replace(neox, distributed_optimizer=False)).fits


def test_a_bad_partition_is_named_by_file_line_and_field(tmp_path):
    good = heldout.HELD_OUT.read_text().splitlines()
    header = next(i for i, line in enumerate(good) if line.startswith("source,"))
    bad = tmp_path / "bad.csv"
    bad.write_text("\n".join(good[:header + 1] + [good[header + 1].replace(",embeddings,",
                                                                          ",stages,")])
                   + "\n")
    with pytest.raises(TrainetError, match=rf"bad.csv, line {header + 2}: partition='stages'; "
                                           "accepted: layers, embeddings, parameters"):
        heldout.rows(bad)
