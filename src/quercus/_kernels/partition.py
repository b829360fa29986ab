"""Routing rows to children and keeping every feature's sorted order per node."""

from __future__ import annotations

import numpy as np
from numba import prange

from ._jit import njit

#: Rows x features of a node below which its per-feature kernels run on one thread. On an
#: idle machine threads win even on small nodes (a region starts in ~10 us), but when other
#: processes keep the cores busy each start waits for a time slice (milliseconds): a
#: 286-row CART fit took 1.3-6 s instead of 0.25 s at a load of 3.5. Above this size a
#: node's work pays for such a wait; below it are most of a tree's nodes, which cost a
#: 100,000-row fit about 15% more time on a lightly loaded machine (docs/architecture.md,
#: "Threads for big nodes only").
PARALLEL_MIN_WORK = 30_000


@njit(cache=True)
def route_numeric(X, rows, feature, threshold, missing_left, out_left):
    """Flag the rows that go left at a numeric split (value <= threshold)."""
    for i in range(rows.shape[0]):
        r = rows[i]
        v = X[r, feature]
        out_left[r] = missing_left if np.isnan(v) else v <= threshold


@njit(cache=True)
def route_categorical(X, rows, feature, category_branch, missing_branch, out_left):
    """Flag the rows that go left (branch 0) at a categorical subset split."""
    for i in range(rows.shape[0]):
        r = rows[i]
        v = X[r, feature]
        if np.isnan(v):
            out_left[r] = missing_branch == 0
        else:
            out_left[r] = category_branch[int(v)] == 0


@njit(cache=True)
def _partition_feature(order, f, start, end, goes_left, buffer):
    """Stable partition of ``order[f, start:end]``: left rows first."""
    n_left = start
    n_right = 0
    for p in range(start, end):
        r = order[f, p]
        if goes_left[r]:
            order[f, n_left] = r
            n_left += 1
        else:
            buffer[f, n_right] = r
            n_right += 1
    for k in range(n_right):
        order[f, n_left + k] = buffer[f, k]


@njit(cache=True)
def _count_left(order, start, end, goes_left):
    count = 0
    for p in range(start, end):
        if goes_left[order[0, p]]:
            count += 1
    return count


@njit(parallel=True, cache=True)
def partition_orders(order, start, end, goes_left, buffer):
    """Stable partition of ``order[f, start:end]`` for every f: left rows first.

    Sorted order within each side is kept, so children need no new sort. Returns the
    number of rows that go left. Features spread over threads: for big nodes only
    (``partition_orders_serial`` below ``PARALLEL_MIN_WORK``).
    """
    for f in prange(order.shape[0]):
        _partition_feature(order, f, start, end, goes_left, buffer)
    return _count_left(order, start, end, goes_left)


@njit(cache=True)
def partition_orders_serial(order, start, end, goes_left, buffer):
    """``partition_orders`` on one thread."""
    for f in range(order.shape[0]):
        _partition_feature(order, f, start, end, goes_left, buffer)
    return _count_left(order, start, end, goes_left)
