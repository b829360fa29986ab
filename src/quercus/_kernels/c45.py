"""C4.5 (release 8, as Weka's J48 builds it) kernels: numeric cut scan, nominal tables.

Conventions of docs/c45.md: F(x) = x log2 x (0 below 1e-6), comparisons with tolerance 1e-6.
A node holds positions 0..n-1 into its own ``rows`` and ``weights``; ``sorted_pos[i]`` lists
the positions sorted by numeric feature ``features[i]``, missing values last.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ._jit import njit
from .radix_sort import stable_argsort

SMALL = 1e-6


@njit(cache=True)
def xlog2x(x):
    """F(x) = x log2 x, taken as 0 below 1e-6."""
    if x < SMALL:
        return 0.0
    return x * np.log2(x)


def xlogx_table(n: int) -> np.ndarray:
    """F(k) for k = 0..n, computed exactly as ``xlog2x`` computes it."""
    k = np.arange(n + 1, dtype=np.float64)
    out = np.zeros(n + 1)
    out[1:] = k[1:] * np.log2(k[1:])
    return out


@njit(cache=True)
def _known_count(values):
    """Entries before the trailing missing values."""
    n = values.shape[0]
    while n > 0 and np.isnan(values[n - 1]):
        n -= 1
    return n


@njit(cache=True)
def _min_split(known, n_classes, min_leaf):
    """The least weight on each side of a cut: 10% of the known weight per class, between
    ``min_leaf`` and 25."""
    min_split = 0.1 * known / n_classes
    if min_split <= min_leaf:
        return min_leaf
    if min_split > 25.0:
        return 25.0
    return min_split


@njit(cache=True)
def _finish(values, split_index, best, n_candidates, node_weight, known, weight_left):
    """(valid, corrected gain, split information, provisional threshold) of the best cut."""
    if n_candidates == 0:
        return False, 0.0, 0.0, 0.0
    gain = best - np.log2(n_candidates) / node_weight
    if gain < SMALL:
        return False, 0.0, 0.0, 0.0
    low = values[split_index]
    high = values[split_index + 1]
    threshold = (low + high) / 2.0
    if threshold == high:
        threshold = low
    weight_right = known - weight_left
    split_info = (xlog2x(node_weight) - xlog2x(weight_left) - xlog2x(weight_right)
                  - xlog2x(node_weight - known))
    return True, gain, (split_info if known > SMALL else 0.0), threshold


@njit(cache=True)
def _scan_whole(values, classes, weights, n_classes, min_leaf, node_weight, xlogx_of_int):
    """``scan_one`` when every weight is a whole number: integer class counts, F looked up
    in ``xlogx_of_int`` (the same numbers the fractional scan computes, only faster)."""
    n_known = _known_count(values)
    right = np.zeros(n_classes, dtype=np.int64)
    for p in range(n_known):
        right[classes[p]] += np.int64(weights[p])
    known_count = right.sum()
    known = float(known_count)
    min_split = _min_split(known, n_classes, min_leaf)
    if n_known < 2.0 * min_split:
        return False, 0.0, 0.0, 0.0
    old = xlogx_of_int[known_count]
    for c in range(n_classes):
        old -= xlogx_of_int[right[c]]
    unknown_factor = 1.0 - (node_weight - known) / node_weight
    left = np.zeros(n_classes, dtype=np.int64)
    n_left, n_right = 0, known_count
    best, best_left, split_index, n_candidates = 0.0, 0, -1, 0
    for p in range(n_known - 1):  # a cut between p and p + 1
        c = classes[p]
        w = np.int64(weights[p])
        left[c] += w
        right[c] -= w
        n_left += w
        n_right -= w
        if not values[p] + 1e-5 < values[p + 1]:
            continue
        if min_split - n_left < SMALL and min_split - n_right < SMALL:
            bag_left = xlogx_of_int[n_left]
            for c in range(n_classes):
                bag_left -= xlogx_of_int[left[c]]
            bag_right = xlogx_of_int[n_right]
            for c in range(n_classes):
                bag_right -= xlogx_of_int[right[c]]
            numerator = unknown_factor * (old - (bag_left + bag_right))
            gain = 0.0 if abs(numerator) < SMALL else numerator / known
            if gain - best > SMALL:
                best, best_left, split_index = gain, n_left, p
            n_candidates += 1
    return _finish(values, np.int64(split_index), best, np.int64(n_candidates), node_weight,
                   known, float(best_left))


@njit(cache=True)
def _bag_entropy_sum(total, class_weights):
    """F(total) - sum_c F(class weight c)."""
    out = xlog2x(total)
    for c in range(class_weights.shape[0]):
        out -= xlog2x(class_weights[c])
    return out


@njit(cache=True)
def _scan_fractional(values, classes, weights, n_classes, min_leaf, node_weight):
    """``scan_one`` for any weights, added in sorted order as J48 adds them."""
    n_known = _known_count(values)
    known_classes = np.zeros(n_classes)
    for p in range(n_known):
        known_classes[classes[p]] += weights[p]
    known = 0.0
    for c in range(n_classes):
        known += known_classes[c]
    min_split = _min_split(known, n_classes, min_leaf)
    if n_known < 2.0 * min_split:
        return False, 0.0, 0.0, 0.0
    old = _bag_entropy_sum(known, known_classes)
    unknown_factor = 1.0 - (node_weight - known) / node_weight
    left = np.zeros(n_classes)
    right = known_classes.copy()
    best_left = np.zeros(n_classes)
    weight_left, weight_right = 0.0, known
    best, split_index, n_candidates = 0.0, -1, 0
    for p in range(n_known - 1):  # a cut between p and p + 1
        c = classes[p]
        left[c] += weights[p]
        right[c] -= weights[p]
        weight_left += weights[p]
        weight_right -= weights[p]
        if not values[p] + 1e-5 < values[p + 1]:
            continue
        if min_split - weight_left < SMALL and min_split - weight_right < SMALL:
            new = _bag_entropy_sum(weight_left, left) + _bag_entropy_sum(weight_right, right)
            numerator = unknown_factor * (old - new)
            gain = 0.0 if abs(numerator) < SMALL else numerator / known
            if gain - best > SMALL:
                best, split_index = gain, p
                for c in range(n_classes):  # a loop: a slice copy compiles numba's shape
                    best_left[c] = left[c]  # error path with its string formatting
            n_candidates += 1
    w_left = 0.0
    for c in range(n_classes):
        w_left += best_left[c]
    return _finish(values, np.int64(split_index), best, np.int64(n_candidates), node_weight,
                   known, w_left)


@njit(cache=True)
def scan_one(values, classes, weights, n_classes, min_leaf, node_weight, xlogx_of_int):
    """C4.5's best threshold of one numeric feature, with the MDL correction (spec steps
    17-19), from its sorted (values, classes, weights), missing values last.

    Returns (valid, corrected gain, split information with the missing rows as one more
    branch, provisional threshold). ``xlogx_of_int`` is ``xlogx_table(n)`` when every
    weight at the node is a whole number, else empty.
    """
    if xlogx_of_int.shape[0] > 0:
        return _scan_whole(values, classes, weights, n_classes, min_leaf, node_weight,
                           xlogx_of_int)
    return _scan_fractional(values, classes, weights, n_classes, min_leaf, node_weight)


@njit(parallel=True, cache=True)
def scan_parallel(values, classes, weights, n_classes, min_leaf, node_weight, xlogx_of_int,
                  out_valid, out_gain, out_split_info, out_threshold):
    """``scan_one`` for every feature (row of ``values``), features spread over threads."""
    for i in prange(values.shape[0]):
        r = scan_one(values[i], classes[i], weights[i], n_classes, min_leaf, node_weight,
                     xlogx_of_int)
        out_valid[i], out_gain[i], out_split_info[i], out_threshold[i] = r


# Below this many (rows x features) a node is scanned on one thread: starting threads costs
# more than it saves.
PARALLEL_MIN_WORK = 50_000


@njit(cache=True)
def largest_value_at_most(column, threshold):
    """Largest value of ``column`` (file order, NaN skipped) that is <= threshold + 1e-6.

    A later value replaces the current one only if it is larger by more than 1e-6.
    """
    best = -np.inf
    found = False
    for v in column:
        if np.isnan(v):
            continue
        if v - threshold < SMALL and (not found or v - best > SMALL):
            best = v
            found = True
    return best if found else threshold


@njit(cache=True)
def split_one(values, classes, weights, row_ids, branch_of_row, known, share, ptr,
              out_values, out_classes, out_weights, out_row_ids):
    """Filter one sorted column of a node into its children's columns, keeping the order.

    ``branch_of_row[r]`` is row r's branch (-1: missing); ``known``, ``share`` and ``ptr``
    are what ``split_rows`` returned; a child's entries go to ``out_*[ptr[j]:ptr[j + 1]]``.
    A known row keeps its weight; a missing one enters every branch that takes missing rows
    with its weight times the branch's share (the weight ``split_rows`` gives it).
    """
    fill = ptr[:-1].copy()
    for p in range(row_ids.shape[0]):
        r = row_ids[p]
        b = branch_of_row[r]
        if b >= 0:
            k = fill[b]
            out_values[k] = values[p]
            out_classes[k] = classes[p]
            out_weights[k] = weights[p]
            out_row_ids[k] = r
            fill[b] = k + 1
            continue
        for j in range(known.shape[0]):
            if known[j] >= 0:
                k = fill[j]
                out_values[k] = values[p]
                out_classes[k] = classes[p]
                out_weights[k] = weights[p] * share[j]
                out_row_ids[k] = r
                fill[j] = k + 1


@njit(parallel=True, cache=True)
def split_parallel(values, classes, weights, row_ids, branch_of_row, known, share, ptr,
                   out_values, out_classes, out_weights, out_row_ids):
    """``split_one`` for every feature (row), features spread over threads."""
    for i in prange(values.shape[0]):
        split_one(values[i], classes[i], weights[i], row_ids[i], branch_of_row, known, share,
                  ptr, out_values[i], out_classes[i], out_weights[i], out_row_ids[i])


@njit(parallel=True, cache=True)
def _sort_columns(X, y, weights, features, out_values, out_classes, out_weights,
                  out_positions):
    """Sort every feature's rows by value (stable, missing values last), in parallel."""
    for i in prange(features.shape[0]):
        column = X[:, features[i]].copy()
        order = stable_argsort(column)
        for p in range(order.shape[0]):
            r = order[p]
            out_values[i, p] = column[r]
            out_classes[i, p] = y[r]
            out_weights[i, p] = weights[r]
            out_positions[i, p] = r


class SortedColumns:
    """A node's numeric features, each sorted (missing values last), stored contiguously:
    values, class codes and weights side by side, and the row (of X) of each entry.
    A child's columns are filtered from its parent's (``c45_grow``), so nothing is sorted
    twice."""

    def __init__(self, values, classes, weights, positions):
        self.values, self.classes = values, classes
        self.weights, self.positions = weights, positions

    @classmethod
    def sort(cls, X, y, weights, features) -> SortedColumns:
        shape = (len(features), X.shape[0])
        out = cls(np.empty(shape), np.empty(shape, dtype=y.dtype), np.empty(shape),
                  np.empty(shape, dtype=np.int32))
        _sort_columns(X, y, weights, np.asarray(features, dtype=np.int64), out.values,
                      out.classes, out.weights, out.positions)
        return out


@njit(cache=True)
def split_rows(X, rows, weights, feature, numeric, threshold, n_branches, category_map):
    """Send a node's rows to its branches (spec step 22).

    A known value goes to its branch (numeric: value <= threshold within 1e-6 goes to 0;
    categorical: ``category_map[code]``, or the code itself when ``category_map`` is empty);
    a missing one to every branch whose share of the known weight exceeds 1e-6, with its
    weight times that share. Returns (positions, weights, ptr, route, known, share): branch j
    holds ``positions[ptr[j]:ptr[j+1]]`` (indices into ``rows``), known rows first, in
    order; ``route[p]`` is row p's branch (-1: missing) and its place there (or among the
    missing rows); ``known[j]`` counts branch j's known rows, encoded as ``-1 - count``
    when the branch takes no missing rows.
    """
    n = rows.shape[0]
    route = np.empty((n, 2), dtype=np.int64)
    branch = route[:, 0]
    rank = route[:, 1]  # position in its branch, or among the missing rows
    bag = np.zeros(n_branches)
    n_missing = 0
    for p in range(n):
        v = X[rows[p], feature]
        if np.isnan(v):
            branch[p] = -1
            n_missing += 1
        else:
            if numeric:
                b = 0 if v - threshold < SMALL else 1
            elif category_map.shape[0] > 0:
                b = category_map[int(v)]
            else:
                b = int(v)
            branch[p] = b
            bag[b] += weights[p]
    known = bag.sum()
    counts = np.zeros(n_branches, dtype=np.int64)
    for p in range(n):
        if branch[p] >= 0:
            counts[branch[p]] += 1
    share = np.zeros(n_branches)
    takes_missing = np.zeros(n_branches, dtype=np.bool_)
    if n_missing > 0 and known > 0.0:
        for j in range(n_branches):
            share[j] = bag[j] / known
            takes_missing[j] = share[j] > SMALL
    ptr = np.zeros(n_branches + 1, dtype=np.int64)
    for j in range(n_branches):
        ptr[j + 1] = ptr[j] + counts[j] + (n_missing if takes_missing[j] else 0)
    out_pos = np.empty(ptr[n_branches], dtype=np.int64)
    out_w = np.empty(ptr[n_branches])
    fill = ptr[:-1].copy()
    for p in range(n):
        b = branch[p]
        if b >= 0:
            rank[p] = fill[b] - ptr[b]
            out_pos[fill[b]] = p
            out_w[fill[b]] = weights[p]
            fill[b] += 1
    n_seen_missing = 0
    for p in range(n):
        if branch[p] < 0:
            rank[p] = n_seen_missing
            n_seen_missing += 1
            for j in range(n_branches):
                if takes_missing[j]:
                    out_pos[fill[j]] = p
                    out_w[fill[j]] = weights[p] * share[j]
                    fill[j] += 1
    for j in range(n_branches):
        if not takes_missing[j]:
            counts[j] = -1 - counts[j]  # marks "takes no missing rows" for split_columns
    return out_pos, out_w, ptr, route, counts, share
