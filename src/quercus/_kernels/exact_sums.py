"""Exact sums of float64 values in fixed point, and their rounding to float64 once.

A value v whose lowest set bit is at least 2**scale is the integer v / 2**scale; that
integer is stored as base-2**digit digits (``n_limbs`` int64 limbs, the value's sign on
every digit, so a limb need not lie in [0, 2**digit)). Limbs add up exactly in any order
(the caller picks ``digit`` so that a limb of the sum of all its rows stays below 2**62),
so sums over any partitioning of the rows are the same integers; ``round_sums`` rounds such
a sum to the nearest float64 (ties to even), carrying what outgrew the top limb.
``splitting/exact_sums.py`` chooses the scales, digit and limb counts from the data.
"""

from __future__ import annotations

import math

import numpy as np
from numba import prange

from ._jit import njit

#: Bits per limb at most (``_bit_length`` is exact below 2**53).
MAX_DIGIT = 52
TWO_53 = 1 << 53


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
def to_limbs(values, scale, offset, n_limbs, digit, out):
    """out[r, offset + k] += digit k (base 2**digit, signed) of values[r] / 2**scale, for
    every row r; the columns offset .. offset + n_limbs - 1 must be wide enough for every
    value (the caller sized them from ``value_range``: a digit past them is 0)."""
    mask = (1 << digit) - 1
    for r in range(values.shape[0]):
        v = values[r]
        if v == 0.0:
            continue
        m, e = math.frexp(abs(v))
        mantissa, shift = _odd_part(np.int64(m * 9007199254740992.0))
        s = e - 53 + shift - scale  # >= 0: the integer is mantissa << s
        k = s // digit
        shift = s % digit
        sign = 1 if v > 0.0 else -1
        # digit k: the mantissa's low digit - shift bits, shifted up (below 2**digit)
        out[r, offset + k] += sign * ((mantissa & ((1 << (digit - shift)) - 1)) << shift)
        rest = mantissa >> (digit - shift)
        while rest > 0 and k + 1 < n_limbs:
            k += 1
            out[r, offset + k] += sign * (rest & mask)
            rest >>= digit


@njit(cache=True)
def _fill_ordered(bins, limbs, start, end, n_sums, hist, low, high):
    """hist[low:high] zeroed, then rows start:end added (the first n_sums limbs and a count;
    the common widths spelt out, so each row's limbs stay in registers)."""
    count = hist.shape[2] - 1
    hist[low:high, :, :] = 0
    if n_sums == 1:
        for p in range(start, end):
            a0 = limbs[p, 0]
            for i in range(low, high):
                b = bins[p, i]
                hist[i, b, 0] += a0
                hist[i, b, count] += 1
    elif n_sums == 2:
        for p in range(start, end):
            a0 = limbs[p, 0]
            a1 = limbs[p, 1]
            for i in range(low, high):
                b = bins[p, i]
                hist[i, b, 0] += a0
                hist[i, b, 1] += a1
                hist[i, b, count] += 1
    elif n_sums == 3:
        for p in range(start, end):
            a0 = limbs[p, 0]
            a1 = limbs[p, 1]
            a2 = limbs[p, 2]
            for i in range(low, high):
                b = bins[p, i]
                hist[i, b, 0] += a0
                hist[i, b, 1] += a1
                hist[i, b, 2] += a2
                hist[i, b, count] += 1
    elif n_sums == 4:
        for p in range(start, end):
            a0 = limbs[p, 0]
            a1 = limbs[p, 1]
            a2 = limbs[p, 2]
            a3 = limbs[p, 3]
            for i in range(low, high):
                b = bins[p, i]
                hist[i, b, 0] += a0
                hist[i, b, 1] += a1
                hist[i, b, 2] += a2
                hist[i, b, 3] += a3
                hist[i, b, count] += 1
    else:
        for p in range(start, end):
            for i in range(low, high):
                b = bins[p, i]
                for c in range(n_sums):
                    hist[i, b, c] += limbs[p, c]
                hist[i, b, count] += 1


@njit(parallel=True, cache=True)
def _fill_ordered_blocks(bins, limbs, start, end, n_sums, hist, n_blocks):
    n_features = hist.shape[0]
    for k in prange(n_blocks):
        _fill_ordered(bins, limbs, start, end, n_sums, hist, k * n_features // n_blocks,
                      (k + 1) * n_features // n_blocks)


def fill_ordered_histograms(bins, limbs, start, end, n_sums, hist, n_blocks):
    """hist[i, b, :n_sums] = the sum of ``limbs[p, :n_sums]`` over the rows p in
    start:end whose bin of feature i is b, hist[i, b, n_sums] their number.

    ``bins`` (rows, >= n_features) and ``limbs`` hold the rows in node order (each node's
    rows side by side, ``partition_ordered``), so a node's fill reads memory in sequence.
    With ``n_blocks`` > 1 the features are cut into that many blocks, one thread each
    (integer sums: the same histograms)."""
    if n_blocks > 1:
        _fill_ordered_blocks(bins, limbs, start, end, n_sums, hist, n_blocks)
    else:
        _fill_ordered(bins, limbs, start, end, n_sums, hist, 0, hist.shape[0])


@njit(cache=True)
def partition_ordered(bins, words, limbs, out_words, out_limbs, start, end, feature,
                      goes_left_bin, n_left, left_sums):
    """Stable partition of the rows start:end of a node-order copy into another: the rows
    whose bin of ``feature`` is flagged in ``goes_left_bin`` to out[start:start + n_left]
    in order, the others after them. ``words`` is ``bins`` seen as 64-bit words (a row's
    bins copied a word at a time), ``out_words`` the other copy's. left_sums[:m] gets the
    sum of the left rows' m limbs, left_sums[m] their number. ``n_left`` < 0: counted
    first. Returns n_left."""
    n_words = words.shape[1]
    m = limbs.shape[1]
    if n_left < 0:
        n_left = 0
        for p in range(start, end):
            if goes_left_bin[bins[p, feature]]:
                n_left += 1
    left_sums[:] = 0
    q_left = start
    q_right = start + n_left
    for p in range(start, end):
        if goes_left_bin[bins[p, feature]]:
            q = q_left
            q_left += 1
            for c in range(m):
                left_sums[c] += limbs[p, c]
        else:
            q = q_right
            q_right += 1
        for k in range(n_words):
            out_words[q, k] = words[p, k]
        for c in range(m):
            out_limbs[q, c] = limbs[p, c]
    left_sums[m] = q_left - start
    return q_left - start


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
def _round_one(limbs, i, offset, n_limbs, scale, digit, digits):
    """The float64 nearest to sum_k limbs[i, offset + k] * 2**(digit k + scale)."""
    mask = (1 << digit) - 1
    carry = 0
    for k in range(n_limbs):
        t = limbs[i, offset + k] + carry
        digits[k] = t & mask
        carry = t >> digit
    n = n_limbs
    while carry != 0 and carry != -1:  # a sum can outgrow its rows' digits
        digits[n] = carry & mask
        carry >>= digit
        n += 1
    negative = carry < 0
    if negative:  # two's complement: the magnitude's digits
        add = 1
        for k in range(n):
            t = (~digits[k] & mask) + add
            digits[k] = t & mask
            add = t >> digit
    top = n - 1
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
        if have + digit <= 62:
            acc = (acc << digit) | digits[k]
            have += digit
        elif have < 62:
            need = 62 - have
            acc = (acc << need) | (digits[k] >> (digit - need))
            sticky = sticky or (digits[k] & ((1 << (digit - need)) - 1)) != 0
            have = 62
        else:
            sticky = sticky or digits[k] != 0
        k -= 1
    low_exponent = digit * top + bits - 62  # exponent of acc's lowest bit (bit units)
    if have < 62:
        acc <<= 62 - have
    mantissa = acc >> 9
    rest = acc & 511
    if rest > 256 or (rest == 256 and (sticky or (mantissa & 1) == 1)):
        mantissa += 1
    value = math.ldexp(float(mantissa), low_exponent + 9 + scale)
    return -value if negative else value


@njit(cache=True)
def round_sums(limbs, offsets, sizes, scales, digit, count, unit_weights, n_quantities,
               out, counts):
    """out[i, q] for the first ``n_quantities`` quantities q of (W, S, Q): the float64
    nearest to the sum at ``scales[q]`` in ``limbs[i, offsets[q]:offsets[q] + sizes[q]]``
    (base 2**digit); a quantity without limbs is the row count (W with unit weights) or 0;
    a sum of no rows (``limbs[i, count]`` 0) is 0; the other quantities NaN. ``counts``,
    unless empty, gets each row count ``limbs[i, count]``.

    A sum of at most two limbs is high * 2**digit + low with 0 <= low < 2**digit; when
    |high| < 2**53 both terms are doubles, so their one float addition is the sum
    correctly rounded (ties to even, as ``_round_one``), and the product by 2.0**scale
    (a double from 2**-1074 to 2**1023) one correctly rounded scaling, as its ldexp: the
    same float, several times quicker."""
    digits = np.empty(sizes.max() + 3, dtype=np.int64)
    mask = (1 << digit) - 1
    base = float(1 << digit)
    n = limbs.shape[0]
    if counts.shape[0] > 0:
        for i in range(n):
            counts[i] = limbs[i, count]
    for q in range(n_quantities, 3):
        for i in range(n):
            out[i, q] = np.nan
    for q in range(n_quantities):
        size = sizes[q]
        offset = offsets[q]
        scale = scales[q]
        if size == 0:
            for i in range(n):
                out[i, q] = float(limbs[i, count]) if q == 0 and unit_weights else 0.0
            continue
        quick = size <= 2 and -1074 <= scale <= 1023
        factor = math.ldexp(1.0, scale) if quick else 0.0
        for i in range(n):
            if limbs[i, count] == 0:
                out[i, q] = 0.0
                continue
            if quick:
                low = limbs[i, offset]
                high = low >> digit
                low &= mask
                if size == 2:
                    high += limbs[i, offset + 1]
                if -TWO_53 < high < TWO_53:
                    out[i, q] = (float(high) * base + float(low)) * factor
                    continue
            out[i, q] = _round_one(limbs, i, offset, size, scale, digit, digits)
