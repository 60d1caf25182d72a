"""The pipeline's bubble from first principles (Narayanan et al. 2021, sec. 2.2.1 and
2.2.2): ``p`` stages, ``m`` micro-batches of forward ``f`` and backward ``b`` per stage,
``v`` model chunks per stage. Short pipelines are played with an event per pass, long
ones (over pipeline.SIMULATED passes) for their times only: both must give these."""
import pytest

from testbed.model import pipeline

F, B = 1.0, 2.0


def played(p: int, m: int, v: int = 1, x: float = 0.0, extra: tuple = (0.0, 0.0)):
    """The step and the first stage's idle time; the last stage's passes take ``extra``
    (its logits and loss) longer; ``x`` seconds per transfer between neighbours."""
    forward = [F] * (p - 1) + [F + extra[0]]
    backward = [B] * (p - 1) + [B + extra[1]]
    stages = pipeline.simulate(pipeline.StageTimes(forward, backward, [0.0] * p,
                                                   [x] * (p - 1), 0.0, m, "1f1b", v))
    return max(s.end_s for s in stages), stages[0].bubble_s


@pytest.mark.parametrize("p, m, v", [(4, 8, 1), (8, 64, 1), (4, 8, 2), (8, 64, 4),
                                     (32, 320, 1), (16, 320, 2)])
def test_equal_stages_idle_p_minus_one_passes_over_the_chunks(p, m, v):
    """1F1B: the first stage idles (p - 1)(f + b); interleaved over v chunks, a v-th of
    it; the step is m (f + b) plus that. The last two cases are long pipelines."""
    step, idle = played(p, m, v)
    assert 2 * p * m * v > pipeline.SIMULATED or (p, m) < (32, 320)
    assert idle == pytest.approx((p - 1) * (F + B) / v)
    assert step == pytest.approx(m * (F + B) + (p - 1) * (F + B) / v)


@pytest.mark.parametrize("p, m", [(4, 8), (8, 64), (32, 320)])
def test_a_slower_last_stage_holds_back_every_micro_batch_not_the_fill(p, m):
    """The last stage runs the logits and loss too (0.5 s more forward, 1 s more
    backward here): it is the bottleneck every micro-batch, so the step is the first
    micro-batch's forward through the other stages, the last stage's m passes back to
    back, and the last gradient back through the others: (p - 1)(f + b) + m (f + b +
    extra). The closed form long pipelines had charged the fill and drain at the last
    stage's time, (m + p - 1)(f + b + extra)."""
    step, _ = played(p, m, extra=(0.5, 1.0))
    assert step == pytest.approx((p - 1) * (F + B) + m * (F + B + 1.5))


def test_transfers_the_compute_does_not_hide_lengthen_the_steady_state(monkeypatch):
    """The first stage runs p - 1 forwards and p - 1 backwards between the forward of
    micro-batch i and its backward; that backward waits for the gradient, which went
    through the p - 1 links forward and comes back through them, f + b and two transfers
    x per link: every p micro-batches add p (f + b) + 2 (p - 1) x (the closed form long
    pipelines had left the transfers out of this). Played pass by pass and for times
    only alike."""
    x = 0.25
    for p in (2, 4, 8):
        steps = [played(p, m, x=x)[0] for m in (2 * p, 3 * p, 4 * p)]
        for before, after in zip(steps, steps[1:]):
            assert after - before == pytest.approx(p * (F + B) + 2 * (p - 1) * x)
    short = played(8, 64, x=x)
    monkeypatch.setattr(pipeline, "SIMULATED", 0)
    assert played(8, 64, x=x) == pytest.approx(short)
