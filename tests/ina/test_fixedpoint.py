"""Block floating point: exponents, no overflow of the int32 sum, the error bound."""
import math

import numpy as np
import pytest

from hosts import ina_fixedpoint as fx


@pytest.mark.parametrize("value,expected", [
    (1.0, 0), (0.75, 0), (0.5, -1), (3.0, 2), (4.0, 2), (4.0001, 3), (0.0, fx.EXPONENT_MIN),
    (1e-45, fx.EXPONENT_MIN)])
def test_exponent_is_smallest_power_of_two_covering(value, expected):
    assert fx.exponent_for(value) == expected


def test_exponent_rejects_non_finite():
    with pytest.raises(ValueError, match="non-finite"):
        fx.exponent_for(math.inf)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 8, 32])
def test_sum_of_extremes_fits_int32_and_meets_bound(n):
    rng = np.random.default_rng(n)
    workers = [rng.uniform(-6.0, 6.0, 4096) for _ in range(n)]
    workers[0][:2] = [8.0, -8.0]                      # exactly 2^e at both signs
    e = fx.exponent_for(max(np.max(np.abs(w)) for w in workers))
    assert e == 3
    qs = [fx.quantize(w, e, n).astype(np.int64) for w in workers]
    total = np.sum(qs, axis=0)
    assert np.all(np.abs(total) <= 2**31 - 1)        # the switch's int32 add cannot wrap
    err = np.max(np.abs(fx.dequantize(total, e, n) - np.sum(workers, axis=0)))
    assert err <= fx.error_bound(e, n)
    assert fx.error_bound(e, n) < n * n * 2.0 ** (e - 31)


def test_all_workers_at_max_do_not_overflow():
    n, e = 4, 0
    q = fx.quantize(np.full(8, 1.0), e, n).astype(np.int64)
    assert np.all(q * n <= 2**31 - 1)
    assert np.allclose(fx.dequantize(q * n, e, n), 4.0)


@pytest.mark.parametrize("n", [1, 2, 8, 32])
def test_16_bit_lanes_hold_the_sum_of_n_extremes(n):
    rng = np.random.default_rng(n)
    workers = [rng.uniform(-1.0, 1.0, 4096) for _ in range(n)]
    for w in workers:
        w[:2] = [1.0, -1.0]                           # every worker at 2^e, both signs
    q = [fx.quantize(w, 0, n, 16) for w in workers]
    assert all(x.dtype == np.int16 for x in q)
    total = np.sum([x.astype(np.int64) for x in q], axis=0)
    assert np.all(np.abs(total) <= 2**15 - 1)        # the switch's 16-bit add cannot wrap
    assert total[0] == n * fx.largest(n, 16) and total[1] == -total[0]
    err = np.max(np.abs(fx.dequantize(total, 0, n, 16) - np.sum(workers, axis=0)))
    assert err <= fx.error_bound(0, n, 16)


def test_block_exponents_keep_small_layers_precise_where_one_per_tensor_does_not():
    """8 workers' bf16 gradient of 16 layers whose scales span 2^-14 .. 2^0, summed in
    16-bit lanes as the switch does (hosts.ina_allreduce.reference_sum): with an exponent
    per block every layer is within bf16's own rounding of its exact sum (relative to
    the layer's largest sum, at most 2^-7); with one exponent per tensor the small
    layers lose everything."""
    import torch
    from hosts.ina_allreduce import reference_sum

    n, layers, per_layer = 8, 16, 2048
    gen = torch.Generator().manual_seed(1)
    scales = torch.pow(2.0, -torch.linspace(0, 14, layers)).repeat_interleave(per_layer)
    inputs = [(torch.randn(layers * per_layer, generator=gen) * scales).to(torch.bfloat16)
              for _ in range(n)]
    exact = sum(x.double() for x in inputs).view(layers, -1)

    def worst_layer_error(result):
        err = (result.double().view(layers, -1) - exact).abs().max(1).values
        return float((err / exact.abs().max(1).values).max())

    e = fx.exponent_for(float(max(x.abs().max() for x in inputs)))
    total = sum(fx.quantize(x.double().numpy(), e, n, 16).astype(np.int64) for x in inputs)
    per_tensor = torch.from_numpy(fx.dequantize(total, e, n, 16)).to(torch.bfloat16)
    assert worst_layer_error(reference_sum(inputs, n, 16)) <= 2.0 ** -7
    assert worst_layer_error(per_tensor) > 0.5


def test_block_exponents_are_exponent_for_each_row():
    rows = np.array([[0.0, 0.0], [0.5, -0.25], [-3.0, 1.0], [1e-45, 0.0]])
    assert fx.block_exponents(rows).tolist() == [fx.exponent_for(float(np.abs(r).max()))
                                                 for r in rows]
    with pytest.raises(ValueError, match="non-finite"):
        fx.block_exponents(np.array([[np.inf, 1.0]]))
