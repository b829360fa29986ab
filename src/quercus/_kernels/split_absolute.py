"""Absolute-error regression trees: weighted medians and the best split by a sorted sweep.

A node predicts the weighted median of its targets, as scikit-learn defines it: sort the
targets, and take the first whose cumulative weight reaches half the total; when the
cumulative weight equals half the total exactly, the midpoint of that target and the next.
Its impurity is the weighted absolute deviation from that median divided by its weight.

The split search sweeps each feature's sorted rows once forward and once backward, adding
one row at a time to a Fenwick tree indexed by the rank of its target within the node; the
tree's prefix sums of weight and weighted target give the running median by a binary
descent and the absolute deviation by ``sum_{y >= m} w (y - m) + sum_{y < m} w (m - y)``:
O(n log n) per feature and node.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ._jit import njit
from .split_regression import (
    cut_is_valid,
    cut_threshold,
    group_branches,
    missing_if_splittable,
    node_groups,
)

#: A categorical feature whose node holds at most this many groups (categories present,
#: plus the missing rows) is split by the best of all its subsets; beyond, by the best
#: prefix of the groups ordered by weighted median.
MAX_EXHAUSTIVE_GROUPS = 10


@njit(cache=True)
def weighted_median(sorted_y, sorted_w):
    """Weighted median of ascending targets with positive weights (scikit-learn's rule)."""
    n = sorted_y.shape[0]
    half = 0.5 * sorted_w.sum()
    cum = 0.0
    for k in range(n):
        cum += sorted_w[k]
        if cum >= half:
            if cum == half and k + 1 < n:
                return 0.5 * (sorted_y[k] + sorted_y[k + 1])
            return sorted_y[k]
    return sorted_y[n - 1]


@njit(cache=True)
def node_absolute_stats(y, sample_weight, rows, out):
    """``out[:] = (W, median, sum of w * |y - median|)`` of ``rows``."""
    values = y[rows]
    weights = sample_weight[rows]
    idx = np.argsort(values, kind="mergesort")
    median = weighted_median(values[idx], weights[idx])
    deviation = 0.0
    for k in range(values.shape[0]):
        deviation += weights[k] * abs(values[k] - median)
    out[0] = weights.sum()
    out[1] = median
    out[2] = deviation


@njit(cache=True)
def node_ranks(y, rows, out_rank):
    """Rank of each row's target within ``rows`` (``out_rank[row]``, ties by position);
    returns the targets sorted ascending."""
    values = y[rows]
    idx = np.argsort(values, kind="mergesort")
    for k in range(idx.shape[0]):
        out_rank[rows[idx[k]]] = k
    return values[idx]


@njit(cache=True)
def _top_bit(size):
    bit = 1
    while bit * 2 <= size:
        bit *= 2
    return bit


@njit(cache=True)
def prefix_abs_errors(ranks, weights, sorted_y, tree_w, tree_wy, out):
    """``out[k]``: weighted absolute deviation from their median of the first ``k + 1``
    entries of the sweep (``ranks[k]``: rank of the entry's target in ``sorted_y``).

    ``tree_w``, ``tree_wy``: work arrays of ``sorted_y.shape[0] + 1`` entries.
    """
    size = sorted_y.shape[0]
    tree_w[:] = 0.0
    tree_wy[:] = 0.0
    top = _top_bit(size)
    total_w = 0.0
    total_wy = 0.0
    for k in range(ranks.shape[0]):
        w = weights[k]
        wy = w * sorted_y[ranks[k]]
        i = ranks[k] + 1
        while i <= size:
            tree_w[i] += w
            tree_wy[i] += wy
            i += i & -i
        total_w += w
        total_wy += wy
        half = 0.5 * total_w
        # a: how many ranks have a cumulative weight below half (rank a reaches it)
        a = 0
        cum = 0.0
        bit = top
        while bit > 0:
            nxt = a + bit
            if nxt <= size and cum + tree_w[nxt] < half:
                a = nxt
                cum += tree_w[nxt]
            bit //= 2
        # b: how many ranks have a cumulative weight of at most half; b > a exactly when
        # the cumulative weight through rank a is half, and rank b is the next one held
        b = 0
        below_w = 0.0
        below_wy = 0.0
        bit = top
        while bit > 0:
            nxt = b + bit
            if nxt <= size and below_w + tree_w[nxt] <= half:
                b = nxt
                below_w += tree_w[nxt]
                below_wy += tree_wy[nxt]
            bit //= 2
        if b >= size:  # rounding: every rank at or below half
            b = a
        median = sorted_y[a] if a == b else 0.5 * (sorted_y[a] + sorted_y[b])
        # the ranks below b hold targets <= median, the others targets >= median
        out[k] = (median * below_w - below_wy) + ((total_wy - below_wy)
                                                  - median * (total_w - below_w))


@njit(cache=True)
def _absolute_split(i, X, y, sample_weight, order, start, end, features, rank, sorted_y,
                    min_samples_leaf, min_weight_leaf, out_proxy, out_threshold,
                    out_missing_left, n):
    """Item ``i`` of ``best_absolute_splits``."""
    f = features[i]
    out_proxy[i] = -np.inf
    out_threshold[i] = np.nan
    out_missing_left[i] = False
    n_missing = missing_if_splittable(X, order, f, start, end)
    if n_missing < 0:
        return
    n_known = n - n_missing
    seq = order[f, start:end]
    seq_rank = np.empty(n, dtype=np.int64)
    seq_w = np.empty(n)
    for p in range(n):
        seq_rank[p] = rank[seq[p]]
        seq_w[p] = sample_weight[seq[p]]
    w_total = seq_w.sum()
    w_missing = seq_w[n_known:].sum()
    tree_w = np.empty(n + 1)
    tree_wy = np.empty(n + 1)
    left = np.empty(n)
    right = np.empty(n)
    best = -np.inf
    n_passes = 2 if n_missing > 0 else 1
    for pass_index in range(n_passes):
        missing_left = pass_index == 1
        if missing_left:  # left: the missing rows then known[:p + 1]; right: known[p + 1:]
            prefix_abs_errors(np.concatenate((seq_rank[n_known:], seq_rank[:n_known])),
                              np.concatenate((seq_w[n_known:], seq_w[:n_known])),
                              sorted_y, tree_w, tree_wy, left)
            prefix_abs_errors(seq_rank[:n_known][::-1], seq_w[:n_known][::-1], sorted_y,
                              tree_w, tree_wy, right)
            w_left = w_missing
            n_left = n_missing
            offset = n_missing
            n_tail = n_known
        else:  # left: known[:p + 1]; right: the rest, missing rows included
            prefix_abs_errors(seq_rank, seq_w, sorted_y, tree_w, tree_wy, left)
            prefix_abs_errors(seq_rank[::-1], seq_w[::-1], sorted_y, tree_w, tree_wy,
                              right)
            w_left = 0.0
            n_left = 0
            offset = 0
            n_tail = n
        for p in range(n_known):
            r = seq[p]
            w_left += seq_w[p]
            n_left += 1
            q = p + 1
            next_row = seq[q] if q < n_known else r
            if not cut_is_valid(X, f, r, next_row, q, n_known, n_missing, missing_left,
                                n_left, n, w_left, w_total, min_samples_leaf,
                                min_weight_leaf):
                continue
            proxy = -(left[offset + p] + right[n_tail - p - 2])
            if proxy > best:
                best = proxy
                out_threshold[i] = cut_threshold(X, f, r, next_row, q, n_known)
                out_missing_left[i] = n_left > n - n_left if n_missing == 0 else missing_left
    out_proxy[i] = best


@njit(parallel=True, cache=True)
def best_absolute_splits(
    X, y, sample_weight, order, start, end, features, rank, sorted_y, min_samples_leaf,
    min_weight_leaf, out_proxy, out_threshold, out_missing_left,
):
    """Best absolute-error cut of ``order[f, start:end]`` for each feature in ``features``.

    The cuts of ``split_regression.best_regression_splits`` (missing rows sent right, then
    left, plus the cut that sends exactly the missing rows right), ranked by the proxy
    ``-(deviation_left + deviation_right)``; the first cut with the largest proxy wins.
    ``rank``/``sorted_y``: the node's target ranks (``node_ranks``).
    """
    n = end - start
    for i in prange(features.shape[0]):
        _absolute_split(i, X, y, sample_weight, order, start, end, features, rank, sorted_y,
                        min_samples_leaf, min_weight_leaf, out_proxy, out_threshold,
                        out_missing_left, n)


@njit(cache=True)
def best_absolute_splits_serial(
    X, y, sample_weight, order, start, end, features, rank, sorted_y, min_samples_leaf,
    min_weight_leaf, out_proxy, out_threshold, out_missing_left,
):
    """``best_absolute_splits`` on one thread (nodes below ``PARALLEL_MIN_WORK``)."""
    n = end - start
    for i in range(features.shape[0]):
        _absolute_split(i, X, y, sample_weight, order, start, end, features, rank, sorted_y,
                        min_samples_leaf, min_weight_leaf, out_proxy, out_threshold,
                        out_missing_left, n)


@njit(cache=True)
def _sides_abs_error(sorted_y, sorted_w, goes_left, w_left, w_right):
    """Summed absolute deviation of the two sides from their own medians (rows sorted by
    target; ``goes_left`` per row)."""
    medians = np.zeros(2)
    half = np.array([0.5 * w_left, 0.5 * w_right])
    cum = np.zeros(2)
    state = np.zeros(2, dtype=np.int64)  # 0: looking, 1: needs the next target, 2: found
    for k in range(sorted_y.shape[0]):
        s = 0 if goes_left[k] else 1
        if state[s] == 2:
            continue
        if state[s] == 1:
            medians[s] = 0.5 * (medians[s] + sorted_y[k])
            state[s] = 2
            continue
        cum[s] += sorted_w[k]
        if cum[s] >= half[s]:
            medians[s] = sorted_y[k]
            state[s] = 1 if cum[s] == half[s] else 2
    total = 0.0
    for k in range(sorted_y.shape[0]):
        total += sorted_w[k] * abs(sorted_y[k] - medians[0 if goes_left[k] else 1])
    return total


@njit(cache=True)
def best_absolute_subset_split(X, y, sample_weight, rows, feature, n_codes, min_samples_leaf,
                               min_weight_leaf, out_branch):
    """Best binary split of one categorical feature under absolute error.

    The groups are the categories present at the node and, if any, the missing rows. With
    at most MAX_EXHAUSTIVE_GROUPS groups every subset is tried (the last group staying
    right); with more, every prefix of the groups ordered by weighted median (ties: lower
    code, the missing rows last). Writes 0 (left) or 1 (right) per code into
    ``out_branch``, absent categories following the larger side; returns
    ``(proxy, missing_left)`` with proxy ``-(deviation_left + deviation_right)``, -inf
    when no valid split exists.
    """
    n = rows.shape[0]
    slot = np.empty(n, dtype=np.int64)
    counts = np.zeros(n_codes + 1, dtype=np.int64)
    weight = np.zeros(n_codes + 1)
    for k in range(n):
        v = X[rows[k], feature]
        slot[k] = n_codes if np.isnan(v) else int(v)
        counts[slot[k]] += 1
        weight[slot[k]] += sample_weight[rows[k]]
    groups = node_groups(counts, n_codes)  # group j -> code (n_codes: missing)
    has_missing = counts[n_codes] > 0
    m = groups.shape[0]
    group_of = np.full(n_codes + 1, -1, dtype=np.int64)
    for j in range(m):
        group_of[groups[j]] = j
    out_branch[:] = 1
    if m < 2:
        return -np.inf, False
    values = y[rows]
    idx = np.argsort(values, kind="mergesort")
    sorted_y = values[idx]
    sorted_w = sample_weight[rows][idx]
    sorted_g = np.empty(n, dtype=np.int64)
    for k in range(n):
        sorted_g[k] = group_of[slot[idx[k]]]
    best = -np.inf
    best_left = np.zeros(m, dtype=np.bool_)
    if m <= MAX_EXHAUSTIVE_GROUPS:
        goes_left = np.empty(n, dtype=np.bool_)
        for mask in range(1, 1 << (m - 1)):
            n_left = 0
            w_left = 0.0
            w_right = 0.0
            for j in range(m):
                if (mask >> j) & 1:
                    n_left += counts[groups[j]]
                    w_left += weight[groups[j]]
                else:
                    w_right += weight[groups[j]]
            if n_left < min_samples_leaf or n - n_left < min_samples_leaf:
                continue
            if w_left < min_weight_leaf or w_right < min_weight_leaf:
                continue
            for k in range(n):
                goes_left[k] = (mask >> sorted_g[k]) & 1 == 1
            proxy = -_sides_abs_error(sorted_y, sorted_w, goes_left, w_left, w_right)
            if proxy > best:
                best = proxy
                for j in range(m):
                    best_left[j] = (mask >> j) & 1 == 1
    else:
        # rows grouped (stable: each group's rows stay sorted by target)
        by_group = np.argsort(sorted_g, kind="mergesort")
        starts = np.zeros(m + 1, dtype=np.int64)
        for k in range(n):
            starts[sorted_g[k] + 1] += 1
        for j in range(m):
            starts[j + 1] += starts[j]
        medians = np.empty(m)
        for j in range(m):
            part = by_group[starts[j]:starts[j + 1]]
            medians[j] = weighted_median(sorted_y[part], sorted_w[part])
        if has_missing:
            medians[m - 1] = np.inf  # the missing rows come last
        group_order = np.argsort(medians, kind="mergesort")
        seq_rank = np.empty(n, dtype=np.int64)
        seq_w = np.empty(n)
        ends = np.empty(m, dtype=np.int64)  # sweep position after each group
        p = 0
        for jj in range(m):
            j = group_order[jj]
            for k in range(starts[j], starts[j + 1]):
                seq_rank[p] = by_group[k]  # the position in sorted_y is the target's rank
                seq_w[p] = sorted_w[by_group[k]]
                p += 1
            ends[jj] = p
        tree_w = np.empty(n + 1)
        tree_wy = np.empty(n + 1)
        left = np.empty(n)
        right = np.empty(n)
        prefix_abs_errors(seq_rank, seq_w, sorted_y, tree_w, tree_wy, left)
        prefix_abs_errors(seq_rank[::-1], seq_w[::-1], sorted_y, tree_w, tree_wy, right)
        w_left = 0.0
        w_all = seq_w.sum()
        for jj in range(m - 1):
            w_left += weight[groups[group_order[jj]]]
            n_left = ends[jj]
            if n_left < min_samples_leaf or n - n_left < min_samples_leaf:
                continue
            if w_left < min_weight_leaf or w_all - w_left < min_weight_leaf:
                continue
            proxy = -(left[n_left - 1] + right[n - n_left - 1])
            if proxy > best:
                best = proxy
                best_left[:] = False
                for kk in range(jj + 1):
                    best_left[group_order[kk]] = True
    if best == -np.inf:
        return best, False
    return best, group_branches(best_left, groups, counts, n_codes, out_branch)
