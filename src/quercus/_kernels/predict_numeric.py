"""A faster traversal for trees whose splits are all numeric thresholds (CART, hist).

Each node is one 16-byte record, packed by ``Tree.numeric_layout``: the threshold as a
float64, then two int32: the right child, and ``feature << 2 | SPLIT | MISSING_LEFT`` (the
left child of a split is always the next node, as ids are in pre-order). The kernel reads
the records through two views of one buffer: ``thresholds`` (float64, the threshold of node
``i`` at ``2 * i``) and ``fields`` (int32, right child at ``4 * i + 2``, flags at
``4 * i + 3``). A leaf has threshold NaN (no value is ``<= NaN``, so every row goes right)
and itself as right child: its next node is itself.

So a step needs no branch, and eight rows descend side by side until all eight sit in
leaves. ``value <= threshold`` casts a float32 value to float64 first, so float32 input
takes the same branches as its float64 copy would.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ._jit import njit

MISSING_LEFT = 1  # a missing value takes branch 0
SPLIT = 2  # the node is a split (a leaf is not)
FEATURE_SHIFT = 2
LANES = 8  # rows that descend side by side


@njit(cache=True, inline="always")
def _at(i):
    """An index numba need not check for negative values (it is never negative here)."""
    return np.uint64(i)


@njit(cache=True, inline="always")
def _step(X, row, thresholds, fields, node):
    """The node that row ``row`` moves to from ``node`` (``node`` itself at a leaf)."""
    flags = fields[_at(4 * node + 3)]
    v = X[_at(row), _at(flags >> FEATURE_SHIFT)]
    right = 1 - ((v <= thresholds[_at(2 * node)]) | (np.isnan(v) & (flags & MISSING_LEFT)))
    return node + 1 + right * (fields[_at(4 * node + 2)] - node - 1)


@njit(cache=True, inline="always")
def _step_lanes(X, r, thresholds, fields, a):
    """One step of the eight rows ``r .. r + 7``, whose nodes are the tuple ``a``."""
    return (_step(X, r, thresholds, fields, a[0]), _step(X, r + 1, thresholds, fields, a[1]),
            _step(X, r + 2, thresholds, fields, a[2]), _step(X, r + 3, thresholds, fields, a[3]),
            _step(X, r + 4, thresholds, fields, a[4]), _step(X, r + 5, thresholds, fields, a[5]),
            _step(X, r + 6, thresholds, fields, a[6]), _step(X, r + 7, thresholds, fields, a[7]))


@njit(cache=True, inline="always")
def _is_split(fields, node):
    return fields[_at(4 * node + 3)] & SPLIT


@njit(cache=True, inline="always")
def _any_split(fields, a):
    return (_is_split(fields, a[0]) | _is_split(fields, a[1]) | _is_split(fields, a[2])
            | _is_split(fields, a[3]) | _is_split(fields, a[4]) | _is_split(fields, a[5])
            | _is_split(fields, a[6]) | _is_split(fields, a[7]))


@njit(parallel=True, cache=True)
def numeric_leaf_lookup(X, thresholds, fields, min_depth, lookup, out):
    """Write ``lookup[leaf]`` for the leaf each row of X reaches into ``out``.

    ``lookup`` maps node ids to what the caller wants per row: the id itself (apply) or the
    leaf's class code (predict), or its mean target (float64: a regressor's predict).
    ``min_depth`` (the depth of the shallowest leaf) steps are
    taken before checking whether the rows have all arrived.
    """
    n_blocks = X.shape[0] // LANES
    for block in prange(n_blocks):
        r = block * LANES
        a = (0, 0, 0, 0, 0, 0, 0, 0)
        for _ in range(min_depth):
            a = _step_lanes(X, r, thresholds, fields, a)
        while _any_split(fields, a):
            a = _step_lanes(X, r, thresholds, fields, a)
        for lane in range(LANES):
            out[_at(r + lane)] = lookup[_at(a[lane])]
    for row in range(n_blocks * LANES, X.shape[0]):
        node = 0
        while _is_split(fields, node):
            node = _step(X, row, thresholds, fields, node)
        out[row] = lookup[node]
