"""The fixed point of p4/luwu_sgd.p4, the switch that runs SGD with momentum itself.

Parameters ``w``, momentum ``v`` and the gradient ``g`` the switch derives from a slot's
sum are int32 with :data:`FRAC_BITS` = 24 fraction bits: one unit in the last place (LSB)
is 2^-24 (about 6e-8) and values lie in [-128, 128). Parameter packets from the switch
carry flags ``PARAMS | FIXED`` and exponent ``-FRAC_BITS``: value = lane * 2^exponent.

Gradients: workers push exactly as to p4/luwu.p4, quantized with the block exponent
``e`` they agreed on (:mod:`hosts.ina_fixedpoint`: ``q = round(x * K / 2^e)``,
``K = floor((2^31 - 1) / n)``). The slot's sum ``S`` is ``n * K / 2^e`` times the mean
gradient and ``n * K`` is ``2^31`` less at most ``n``, so the switch takes
``g = round(S * 2^(e + FRAC_BITS - 31))``: a right shift by ``d = 7 - e`` with rounding,
one shift amount per packet. Exponents above :data:`EXPONENT_MAX` = 7 (|mean gradient| of
128 or more) do not fit: the switch drops such gradients before touching a register
(counter ``bad_exponent``), so the job stalls visibly instead of saturating silently.

16-bit lanes (bf16/fp16 workers): each packet's block quantized at its agreed exponent
``e`` with ``K16 = floor((2^15 - 1) / n)`` (INA's rule, |sum| < 2^15), and each int16
value enters the 32-bit accumulator times :data:`NARROW_SHIFT` (2^16): the slot's sum
``S = 2^16 * sum q`` is ``n * K16 * 2^16 / 2^e`` times the mean gradient, where
``n * K16 * 2^16`` is ``2^31`` less at most ``n * 2^16``, and the same shift by
``7 - e`` takes it to the gradient: the update and the parameters are those of 32-bit
lanes, at a coarser quantization (the ``lane_bits`` of :func:`error_bound`).

The update, per lane, with ``mu`` and ``lr`` as (multiplier, shift) pairs written by the
controller (:func:`multiplier`: about 31 significant bits)::

    v = sat32(round(v * mu_mul / 2^mu_shift) + g)
    w = sat32(w - round(v * lr_mul / 2^lr_shift))

which is torch.optim.SGD with momentum (no dampening, not Nesterov; its first buffer is
the gradient, the same as ``v`` starting at 0: in the job's first step the switch takes
``v = 0`` whatever its register holds). sat32 saturates at the int32 range (v or w
leaving [-128, 128)); the products are 64 bits wide.

Error bound against float SGD with the exact mean gradient, per element and step ``t``
(LSB = 2^-24, V = the largest |v| of the run)::

    eg   = LSB/2 + 1.5 * n * 2^(e - b + 1)              gradient: shift, quantization, K*n
                                                        (b: lane bits, 32 or 16)
    dv_t = mu * dv_(t-1) + eg + LSB/2 + V * mu * 2^-31  momentum product rounding, mu's error
    dw_t = dw_(t-1) + lr * dv_t + LSB/2 + V * lr * 2^-31
    dw_0 = LSB/2                                        initial parameters rounded

(:func:`error_bound`). Workers turn parameters into float32, which adds |w| * 2^-24 to
what they hold (not to the switch's registers).
"""
from __future__ import annotations

import math

import numpy as np

FRAC_BITS = 24
LSB = 2.0 ** -FRAC_BITS
RANGE = 2.0 ** (31 - FRAC_BITS)            # |value| < 128
EXPONENT_MAX = 31 - FRAC_BITS              # largest block exponent of a gradient
SHIFT_CAP = 40                             # shifting |S| < 2^31 by 33 or more rounds to 0
MULTIPLIER_BITS = 31                       # multipliers are below 2^31
NARROW_SHIFT = 16                          # a 16-bit lane's value enters its sum times 2^16


def to_fixed(values, where: str = "parameters") -> np.ndarray:
    """int32 fixed point of ``values`` (rounded to nearest); ValueError naming the first
    value outside [-128, 128)."""
    x = np.asarray(values, dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(x) | (x < -RANGE) | (x >= RANGE))
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"{where}[{i}] = {x.reshape(-1)[i]} does not fit the switch's fixed "
                         f"point ({FRAC_BITS} fraction bits: [-{RANGE:g}, {RANGE:g})); "
                         "scale the model or train it off the switch (p4/luwu.p4)")
    return np.clip(np.rint(x * 2.0 ** FRAC_BITS), -2**31, 2**31 - 1).astype(np.int32)


def from_fixed(values) -> np.ndarray:
    """float64 values of int32 fixed-point lanes (exact)."""
    return np.asarray(values, dtype=np.float64) * LSB


def multiplier(x: float, what: str) -> tuple[int, int]:
    """(mul, shift) with mul / 2^shift closest to ``x`` (0 <= x <= 1) and mul < 2^31:
    relative error at most 2^-31."""
    if not (math.isfinite(x) and 0.0 <= x <= 1.0):
        raise ValueError(f"{what} = {x}: the switch multiplies by factors in [0, 1]")
    if x == 0.0:
        return 0, 1
    shift = min(62, MULTIPLIER_BITS - 1 - math.floor(math.log2(x)))
    mul = round(x * 2.0 ** shift)
    if mul >= 2 ** MULTIPLIER_BITS:
        shift -= 1
        mul = round(x * 2.0 ** shift)
    return mul, shift


def grad_shift(exponent: int) -> int:
    """Right shift from a slot sum with block exponent ``exponent`` to FRAC_BITS."""
    if exponent > EXPONENT_MAX:
        raise ValueError(f"block exponent {exponent} exceeds {EXPONENT_MAX}: gradients "
                         f"of {RANGE:g} or more do not fit the switch's fixed point")
    return min(EXPONENT_MAX - exponent, SHIFT_CAP)


def error_bound(steps: int, lr: float, momentum: float, n_workers: int, exponent: int,
                v_max: float, lane_bits: int = 32) -> float:
    """Largest |w_switch - w_float| after ``steps`` updates of gradients pushed in lanes
    of ``lane_bits`` bits (module docstring)."""
    eg = LSB / 2 + 1.5 * n_workers * 2.0 ** (exponent - lane_bits + 1)
    dv, dw = 0.0, LSB / 2
    for _ in range(steps):
        dv = momentum * dv + eg + LSB / 2 + v_max * momentum * 2.0 ** -31
        dw += lr * dv + LSB / 2 + v_max * lr * 2.0 ** -31
    return dw
