"""A stable argsort of float64 values by radix sort (LSD, 11-bit digits).

Equal values keep their input order, -0.0 equals 0.0, and missing values (NaN) come last
in input order: the order ``np.argsort(values, kind="stable")`` gives, found in a few passes
over the data instead of n log n comparisons. The pure copy sorts the same keys with
numpy's stable sort, which gives the same order (a stable order of given keys is unique).
"""

from __future__ import annotations

import numpy as np

from ._jit import njit, pure_twin

_SIGN = np.uint64(1 << 63)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_BITS = 11
_N_DIGITS = 6  # 6 x 11 bits cover 64
_BUCKETS = 1 << _BITS


def _numpy_sort_keys(values):
    """``sort_keys`` in numpy (the pure copy's)."""
    values = np.asarray(values, dtype=np.float64)
    bits = np.ascontiguousarray(values).view(np.uint64)
    keys = np.where(bits < _SIGN, bits ^ _SIGN, ~bits)
    keys[values == 0.0] = _SIGN
    keys[np.isnan(values)] = _ALL
    return keys


def _numpy_stable_argsort(values):
    """``stable_argsort`` in numpy (the pure copy's)."""
    return np.argsort(_numpy_sort_keys(values), kind="stable").astype(np.int64, copy=False)


@pure_twin(_numpy_sort_keys)
@njit(cache=True)
def sort_keys(values):
    """Unsigned keys in the order of the values: NaN largest, -0.0 as 0.0."""
    bits = values.copy().view(np.uint64)
    keys = np.empty(values.shape[0], dtype=np.uint64)
    for i in range(values.shape[0]):
        v = values[i]
        if np.isnan(v):
            keys[i] = _ALL
        elif v == 0.0:
            keys[i] = _SIGN
        elif bits[i] < _SIGN:
            keys[i] = bits[i] ^ _SIGN
        else:
            keys[i] = ~bits[i]
    return keys


@njit(cache=True)
def lsd_sort(keys, order):
    """Sort ``keys`` by LSD radix (11-bit digits, a digit every key shares skipped), and
    ``order`` alongside when it has their length (empty: the keys alone, half the moves).
    The inputs are scratch; returns the sorted ``(keys, order)``."""
    n = keys.shape[0]
    carry = order.shape[0] == n
    counts = np.zeros((_N_DIGITS, _BUCKETS), dtype=np.int64)
    mask = np.uint64(_BUCKETS - 1)
    for i in range(n):
        k = keys[i]
        for d in range(_N_DIGITS):
            counts[d, np.int64((k >> np.uint64(_BITS * d)) & mask)] += 1
    next_keys = np.empty(n, dtype=np.uint64)
    next_order = np.empty(order.shape[0], dtype=np.int64)
    for d in range(_N_DIGITS):
        shift = np.uint64(_BITS * d)
        if n == 0 or counts[d, np.int64((keys[0] >> shift) & mask)] == n:
            continue  # every key has the same digit here
        offsets = np.empty(_BUCKETS, dtype=np.int64)
        start = 0
        for b in range(_BUCKETS):
            offsets[b] = start
            start += counts[d, b]
        for i in range(n):
            b = np.int64((keys[i] >> shift) & mask)
            position = offsets[b]
            offsets[b] = position + 1
            next_keys[position] = keys[i]
            if carry:
                next_order[position] = order[i]
        keys, next_keys = next_keys, keys
        order, next_order = next_order, order
    return keys, order


@pure_twin(_numpy_stable_argsort)
@njit(cache=True)
def stable_argsort(values):
    """Positions of ``values`` in stable sorted order (missing values last)."""
    return lsd_sort(sort_keys(values), np.arange(values.shape[0]))[1]
