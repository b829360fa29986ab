"""Exact sums of float64 values in fixed point, and their rounding to float64 once.

A value v whose lowest set bit is at least 2**scale is the integer v / 2**scale; that
integer is stored as base-2**32 digits (``n_limbs`` int64 limbs, the value's sign on every
digit, so a limb need not lie in [0, 2**32)). Limbs add up exactly in any order (a limb
stays below 2**63 for fewer than 2**30 rows), so sums over any partitioning of the rows are
the same integers; ``round_sums`` rounds such a sum to the nearest float64 (ties to even).
``splitting/exact_sums.py`` chooses the scales and limb counts from the data's range.
"""

from __future__ import annotations

import math

import numpy as np
from numba import prange

from ._jit import njit

DIGIT = 32
MASK = (1 << 32) - 1


@njit(cache=True)
def _bit_length(d):
    """Bits of 0 <= d < 2**53 (0 for 0): frexp of the float d, which is exact."""
    if d == 0:
        return 0
    return math.frexp(float(d))[1]


@njit(cache=True)
def _odd_part(mantissa):
    """(mantissa without its trailing zero bits, their number), for 0 < mantissa < 2**53."""
    shift = _bit_length(mantissa & -mantissa) - 1
    return mantissa >> shift, shift


@njit(cache=True)
def value_range(values, out):
    """out[:] = (lowest set bit exponent, highest exponent e with |v| < 2**e, number of
    nonzero values) over the nonzero values; the first two are 0 when there are none."""
    low = 1 << 30
    high = -(1 << 30)
    nonzero = 0
    for i in range(values.shape[0]):
        v = values[i]
        if v == 0.0:
            continue
        m, e = math.frexp(abs(v))
        mantissa = np.int64(m * 9007199254740992.0)  # m * 2**53, an integer below 2**53
        shift = _odd_part(mantissa)[1]
        low = min(low, e - 53 + shift)
        high = max(high, e)
        nonzero += 1
    if nonzero == 0:
        low = 0
        high = 0
    out[0] = low
    out[1] = high
    out[2] = nonzero


@njit(cache=True)
def to_limbs(values, scale, offset, n_limbs, out):
    """out[r, offset + k] = digit k of values[r] / 2**scale (signed), for every row r; the
    columns offset .. offset + n_limbs - 1 must be zero and wide enough for every value
    (the caller sized them from ``value_range``: a digit past them is 0)."""
    end = offset + n_limbs
    for r in range(values.shape[0]):
        v = values[r]
        if v == 0.0:
            continue
        m, e = math.frexp(abs(v))
        mantissa, shift = _odd_part(np.int64(m * 9007199254740992.0))
        s = e - 53 + shift - scale  # >= 0: the integer is mantissa << s
        k = offset + s // DIGIT
        shift = s % DIGIT
        sign = 1 if v > 0.0 else -1
        a = (mantissa & MASK) << shift  # below 2**63
        b = (mantissa >> DIGIT) << shift  # below 2**52
        out[r, k] += sign * (a & MASK)
        if k + 1 < end:
            out[r, k + 1] += sign * ((a >> DIGIT) + (b & MASK))
        if k + 2 < end:
            out[r, k + 2] += sign * (b >> DIGIT)


@njit(cache=True)
def _fill_features(binned_rows, rows, row_limbs, hist, low, high):
    width = row_limbs.shape[1]
    hist[low:high, :, :] = 0
    for p in range(rows.shape[0]):
        r = rows[p]
        for i in range(low, high):
            b = binned_rows[r, i]
            for c in range(width):
                hist[i, b, c] += row_limbs[r, c]


@njit(parallel=True, cache=True)
def _fill_blocks(binned_rows, rows, row_limbs, hist, n_blocks):
    n_features = binned_rows.shape[1]
    for k in prange(n_blocks):
        _fill_features(binned_rows, rows, row_limbs, hist, k * n_features // n_blocks,
                       (k + 1) * n_features // n_blocks)


def fill_limb_histograms(binned_rows, rows, row_limbs, hist, n_blocks):
    """hist[i, b, :] = the sum of ``row_limbs[r]`` over ``rows`` r in bin b of feature i.

    ``binned_rows`` is (n_rows, n_features); with ``n_blocks`` > 1 the features are cut
    into that many blocks, one thread each (integer sums: the result is the same)."""
    if n_blocks > 1:
        _fill_blocks(binned_rows, rows, row_limbs, hist, n_blocks)
    else:
        _fill_features(binned_rows, rows, row_limbs, hist, 0, binned_rows.shape[1])


@njit(cache=True)
def add_limb_counts(binned, row_limbs, hist_index, out):
    """out[h, f, b, :] += row_limbs[r] for every row r with h = hist_index[r] >= 0 and
    b = binned[f, r]; ``binned`` is (n_features, n_rows) (the cluster's layout)."""
    n_features, n_rows = binned.shape
    width = row_limbs.shape[1]
    for f in range(n_features):
        row = binned[f]
        for r in range(n_rows):
            h = hist_index[r]
            if h >= 0:
                for c in range(width):
                    out[h, f, row[r], c] += row_limbs[r, c]


@njit(cache=True)
def sum_rows(rows, row_limbs, out):
    """out[:] = the sum of ``row_limbs[r]`` over ``rows``."""
    out[:] = 0
    for p in range(rows.shape[0]):
        r = rows[p]
        for c in range(row_limbs.shape[1]):
            out[c] += row_limbs[r, c]


@njit(cache=True, inline="always")
def _round_one(limbs, i, offset, n_limbs, scale, digits):
    """The float64 nearest to sum_k limbs[i, offset + k] * 2**(32 k + scale)."""
    carry = 0
    for k in range(n_limbs):
        t = limbs[i, offset + k] + carry
        digits[k] = t & MASK
        carry = t >> DIGIT
    negative = carry < 0
    if negative:  # two's complement: the magnitude's digits
        add = 1
        for k in range(n_limbs):
            t = (~digits[k] & MASK) + add
            digits[k] = t & MASK
            add = t >> DIGIT
    top = n_limbs - 1
    while top >= 0 and digits[top] == 0:
        top -= 1
    if top < 0:
        return 0.0
    bits = _bit_length(digits[top])
    # the 62 highest bits of the magnitude in acc, whether any lower bit is set in sticky
    acc = digits[top]
    have = bits
    sticky = False
    k = top - 1
    while k >= 0:
        if have + DIGIT <= 62:
            acc = (acc << DIGIT) | digits[k]
            have += DIGIT
        elif have < 62:
            need = 62 - have
            acc = (acc << need) | (digits[k] >> (DIGIT - need))
            sticky = sticky or (digits[k] & ((1 << (DIGIT - need)) - 1)) != 0
            have = 62
        else:
            sticky = sticky or digits[k] != 0
        k -= 1
    low_exponent = DIGIT * top + bits - 62  # exponent of acc's lowest bit (bit units)
    if have < 62:
        acc <<= 62 - have
    mantissa = acc >> 9
    rest = acc & 511
    if rest > 256 or (rest == 256 and (sticky or (mantissa & 1) == 1)):
        mantissa += 1
    value = math.ldexp(float(mantissa), low_exponent + 9 + scale)
    return -value if negative else value


@njit(cache=True)
def round_sums(limbs, offsets, sizes, scales, count, unit_weights, n_quantities, out):
    """out[i, q] for the first ``n_quantities`` quantities q of (W, S, Q): the float64
    nearest to the sum at ``scales[q]`` in ``limbs[i, offsets[q]:offsets[q] + sizes[q]]``;
    a quantity without limbs is the row count (W with unit weights) or 0; a sum of no rows
    (``limbs[i, count]`` 0) is 0."""
    digits = np.empty(max(sizes.max(), 1), dtype=np.int64)
    for i in range(limbs.shape[0]):
        empty = limbs[i, count] == 0
        for q in range(n_quantities):
            if sizes[q] == 0:
                out[i, q] = float(limbs[i, count]) if q == 0 and unit_weights else 0.0
            elif empty:
                out[i, q] = 0.0
            else:
                out[i, q] = _round_one(limbs, i, offsets[q], sizes[q], scales[q], digits)
