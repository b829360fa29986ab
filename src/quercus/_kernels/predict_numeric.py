"""A faster traversal for trees whose splits are all numeric thresholds (CART, hist).

The top ``top_depth`` levels (at most ``numeric_layout.TOP_MAX_DEPTH``) are laid out as a
complete binary tree, breadth first: slot ``s`` has its children at ``2 s + 1`` and
``2 s + 2``, so a step reads one threshold and one field and needs no child pointer. A
field is ``feature << 1 | NAN_RIGHT``; a leaf above the bottom of the top fills its slots
below with itself (threshold +inf, so every value goes left). The thresholds are of X's
own dtype: for float32 input each is the largest float32 at most the float64 threshold, so
``value <= threshold`` is decided exactly as for the float64 copy of the value. After
``top_depth`` steps, ``top_nodes`` maps the bottom slot to a node of the tree.

Below the top (trees deeper than it), each node is one 16-byte record, packed by
``numeric_layout.pack``: the threshold as a float64, then two int32: the right child, and
``feature << 2 | SPLIT | MISSING_LEFT`` (the left child of a split is always the next node,
as ids are in pre-order). The kernel reads the records through two views of one buffer:
``thresholds`` (float64, the threshold of node ``i`` at ``2 * i``) and ``fields`` (int32,
right child at ``4 * i + 2``, flags at ``4 * i + 3``). A leaf has threshold NaN (no value is
``<= NaN``, so every row goes right) and itself as right child: its next node is itself.

So no step branches, and eight rows descend side by side: the top for a fixed number of
steps, then the records until all eight sit in leaves.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ._jit import njit

MISSING_LEFT = 1  # a missing value takes branch 0
SPLIT = 2  # the node is a split (a leaf is not)
FEATURE_SHIFT = 2
NAN_RIGHT = 1  # in a top field: a missing value goes right
LANES = 8  # rows that descend side by side


@njit(cache=True, inline="always")
def _at(i):
    """An index numba need not check for negative values (it is never negative here)."""
    return np.uint64(i)


@njit(cache=True, inline="always")
def _top_step(X, row, top_thresholds, top_fields, slot):
    """The slot that row ``row`` moves to from ``slot`` in the complete top."""
    field = top_fields[_at(slot)]
    v = X[_at(row), _at(field >> 1)]
    right = (v > top_thresholds[_at(slot)]) | (np.isnan(v) & (field & NAN_RIGHT))
    return 2 * slot + 1 + right


@njit(cache=True, inline="always")
def _known_step(X, row, top_thresholds, top_fields, slot):
    """``_top_step`` for rows without missing values."""
    v = X[_at(row), _at(top_fields[_at(slot)] >> 1)]
    return 2 * slot + 1 + (v > top_thresholds[_at(slot)])


@njit(cache=True, inline="always")
def _step(X, row, thresholds, fields, node):
    """The node that row ``row`` moves to from ``node`` (``node`` itself at a leaf)."""
    flags = fields[_at(4 * node + 3)]
    v = X[_at(row), _at(flags >> FEATURE_SHIFT)]
    right = 1 - ((v <= thresholds[_at(2 * node)]) | (np.isnan(v) & (flags & MISSING_LEFT)))
    return node + 1 + right * (fields[_at(4 * node + 2)] - node - 1)


@njit(cache=True, inline="always")
def _eight(step, X, r, thresholds, fields, a):
    """One ``step`` of the eight rows ``r .. r + 7``, whose nodes (or slots) are the tuple
    ``a``."""
    t, f = thresholds, fields
    return (step(X, r, t, f, a[0]), step(X, r + 1, t, f, a[1]), step(X, r + 2, t, f, a[2]),
            step(X, r + 3, t, f, a[3]), step(X, r + 4, t, f, a[4]), step(X, r + 5, t, f, a[5]),
            step(X, r + 6, t, f, a[6]), step(X, r + 7, t, f, a[7]))


@njit(cache=True, inline="always")
def _is_split(fields, node):
    return fields[_at(4 * node + 3)] & SPLIT


@njit(cache=True, inline="always")
def _any_split(fields, a):
    return (_is_split(fields, a[0]) | _is_split(fields, a[1]) | _is_split(fields, a[2])
            | _is_split(fields, a[3]) | _is_split(fields, a[4]) | _is_split(fields, a[5])
            | _is_split(fields, a[6]) | _is_split(fields, a[7]))


@njit(cache=True, inline="always")
def _top_nodes(top_nodes, base, a):
    """The tree nodes of the eight bottom slots ``a``."""
    return (top_nodes[_at(a[0] - base)], top_nodes[_at(a[1] - base)],
            top_nodes[_at(a[2] - base)], top_nodes[_at(a[3] - base)],
            top_nodes[_at(a[4] - base)], top_nodes[_at(a[5] - base)],
            top_nodes[_at(a[6] - base)], top_nodes[_at(a[7] - base)])


@njit(parallel=True, cache=True)
def numeric_leaf_lookup(X, top_thresholds, top_fields, top_depth, top_nodes, thresholds,
                        fields, missing, lookup, out):
    """Write ``lookup[leaf]`` for the leaf each row of X reaches into ``out``.

    ``lookup`` maps node ids to what the caller wants per row: the id itself (apply) or the
    leaf's class code (predict), or its mean target (float64: a regressor's predict).
    ``missing``: whether X may hold NaN; False (none does) lets the top's steps compare
    without looking for it.
    """
    n_blocks = X.shape[0] // LANES
    base = (1 << top_depth) - 1  # the first slot of the top's bottom level
    for block in prange(n_blocks):
        r = block * LANES
        a = (0, 0, 0, 0, 0, 0, 0, 0)
        if missing:
            for _ in range(top_depth):
                a = _eight(_top_step, X, r, top_thresholds, top_fields, a)
        else:
            for _ in range(top_depth):
                a = _eight(_known_step, X, r, top_thresholds, top_fields, a)
        a = _top_nodes(top_nodes, base, a)
        while _any_split(fields, a):
            a = _eight(_step, X, r, thresholds, fields, a)
        for lane in range(LANES):
            out[_at(r + lane)] = lookup[_at(a[lane])]
    for row in range(n_blocks * LANES, X.shape[0]):
        slot = 0
        for _ in range(top_depth):
            slot = _top_step(X, row, top_thresholds, top_fields, slot)
        node = top_nodes[slot - base]
        while _is_split(fields, node):
            node = _step(X, row, thresholds, fields, node)
        out[row] = lookup[node]
