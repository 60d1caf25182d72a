"""Float <-> fixed point for in-network aggregation (block floating point).

Every worker quantizes with the same exponent ``e`` (2^e >= max|v| over the values the
exponent covers) and the scale ``K / 2^e`` with ``K = floor((2^(b-1) - 1) / n)`` for lanes
of ``b`` bits (32, or 16 for bf16/fp16 gradients), so each quantized value has |q| <= K
and the switch's b-bit sum of ``n`` workers cannot overflow.

Error bound: each worker rounds to the nearest integer, so each contribution is off by at
most 0.5 / scale and the dequantized sum by at most ``n * 0.5 * 2^e / K`` (about
``n^2 * 2^(e - b)``) per element, plus float rounding of the final conversion.
"""
from __future__ import annotations

import math

import numpy as np

INT32_MAX = 2**31 - 1
EXPONENT_MIN = -126          # 2^-126: below it float32 is subnormal; zeros use this too
EXPONENT_MAX = 127           # int8 field; float32 max < 2^128 is covered by clamping below


def exponent_for(max_abs: float) -> int:
    """Smallest e with 2^e >= max_abs, within the int8 header field."""
    if not math.isfinite(max_abs):
        raise ValueError(f"cannot aggregate non-finite values (max |v| = {max_abs})")
    if max_abs <= 0.0:
        return EXPONENT_MIN
    mantissa, e = math.frexp(max_abs)        # max_abs = mantissa * 2^e, 0.5 <= mantissa < 1
    if mantissa == 0.5:
        e -= 1
    if e > EXPONENT_MAX:
        raise ValueError(f"values up to {max_abs} exceed 2^{EXPONENT_MAX}; scale them down")
    return max(e, EXPONENT_MIN)


def largest(n_workers: int, lane_bits: int = 32) -> int:
    """K: the largest magnitude one of ``n_workers`` contributions may have in a lane of
    ``lane_bits`` bits so that their sum fits it."""
    return (2 ** (lane_bits - 1) - 1) // n_workers


def scale(exponent: int, n_workers: int, lane_bits: int = 32) -> float:
    return largest(n_workers, lane_bits) / math.ldexp(1.0, exponent)


def quantize(values: np.ndarray, exponent: int, n_workers: int,
             lane_bits: int = 32) -> np.ndarray:
    """Fixed point of ``values`` (|values| <= 2^exponent) in lanes of ``lane_bits`` bits:
    int32 or int16."""
    k = largest(n_workers, lane_bits)
    q = np.rint(np.asarray(values, dtype=np.float64) * scale(exponent, n_workers, lane_bits))
    return np.clip(q, -k, k).astype(np.int32 if lane_bits == 32 else np.int16)


def quantize_checked(values: np.ndarray, exponent: int, n_workers: int,
                     lane_bits: int = 32) -> tuple[np.ndarray, bool]:
    """:func:`quantize` without clipping: the lanes, and whether every value fits
    (|q| <= K, so that the sum of ``n_workers`` such lanes cannot overflow)."""
    k = largest(n_workers, lane_bits)
    q = np.rint(np.asarray(values, dtype=np.float64) * scale(exponent, n_workers, lane_bits))
    fits = bool(np.all(np.abs(q) <= k))
    return np.clip(q, -k, k).astype(np.int32 if lane_bits == 32 else np.int16), fits


def block_exponents(values: np.ndarray) -> np.ndarray:
    """:func:`exponent_for` of each row of ``values`` (one row per block), as int8."""
    max_abs = np.max(np.abs(values), axis=1).astype(np.float64)   # exact in any float
    if not np.all(np.isfinite(max_abs)):
        raise ValueError("cannot aggregate non-finite values")
    mantissa, e = np.frexp(max_abs)
    e = e - (mantissa == 0.5)
    if np.any(e > EXPONENT_MAX):
        raise ValueError(f"values up to {float(max_abs.max())} exceed 2^{EXPONENT_MAX}; "
                         "scale them down")
    return np.where(max_abs <= 0.0, EXPONENT_MIN, np.maximum(e, EXPONENT_MIN)).astype(np.int8)


def block_scales(exponents: np.ndarray, n_workers: int, lane_bits: int) -> np.ndarray:
    """:func:`scale` of each block's exponent, as a column (float64)."""
    e = np.asarray(exponents, dtype=np.int64)
    return (largest(n_workers, lane_bits) / np.ldexp(1.0, e))[:, None]


def dequantize(sums: np.ndarray, exponent: int, n_workers: int,
               lane_bits: int = 32) -> np.ndarray:
    return np.asarray(sums, dtype=np.float64) / scale(exponent, n_workers, lane_bits)


def error_bound(exponent: int, n_workers: int, lane_bits: int = 32) -> float:
    """Largest absolute error of one element of the dequantized sum."""
    return n_workers * 0.5 / scale(exponent, n_workers, lane_bits)


def quantize_blocks(blocks: np.ndarray, exponents: np.ndarray, n_workers: int,
                    lane_bits: int) -> tuple[np.ndarray, bool]:
    """:func:`quantize_checked` of each row of ``blocks`` at its own exponent (one per
    row, :func:`block_scales`): the lanes, int32 or int16, and whether every value fits.
    In place on one float64 copy, clipped only when something does not fit: a third of
    the time of a fresh array per step (it runs on every push of a bf16 worker)."""
    k = largest(n_workers, lane_bits)
    q = np.asarray(blocks, dtype=np.float64) * block_scales(exponents, n_workers, lane_bits)
    np.rint(q, out=q)
    fits = bool(q.size == 0 or (-k <= q.min() and q.max() <= k))
    if not fits:
        np.clip(q, -k, k, out=q)
    return q.astype(np.int32 if lane_bits == 32 else np.int16), fits
