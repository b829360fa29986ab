"""C4.5 (release 8, as Weka's J48 builds it) kernels: numeric cut scan, nominal tables.

Conventions of docs/c45.md: F(x) = x log2 x (0 below 1e-6), comparisons with tolerance 1e-6.
A node holds positions 0..n-1 into its own ``rows`` and ``weights``; ``sorted_pos[i]`` lists
the positions sorted by numeric feature ``features[i]``, missing values last.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

SMALL = 1e-6


@njit(cache=True)
def xlog2x(x):
    """F(x) = x log2 x, taken as 0 below 1e-6."""
    if x < SMALL:
        return 0.0
    return x * np.log2(x)


@njit(cache=True)
def _table_entropy_sum(table_row_total, class_weights):
    """F(n) - sum_c F(n_c) for one bag."""
    out = xlog2x(table_row_total)
    for c in range(class_weights.shape[0]):
        out -= xlog2x(class_weights[c])
    return out


@njit(cache=True)
def _f(x, xlogx_of_int):
    """F(x), read from a table of F(0..n) when the node's weights are all whole numbers."""
    if xlogx_of_int.shape[0] > 0:
        return xlogx_of_int[int(x + 0.5)]
    return xlog2x(x)


@njit(cache=True)
def _bag_entropy_sum(total, class_weights, xlogx_of_int):
    out = _f(total, xlogx_of_int)
    for c in range(class_weights.shape[0]):
        out -= _f(class_weights[c], xlogx_of_int)
    return out


def xlogx_table(n: int) -> np.ndarray:
    """F(k) for k = 0..n, computed exactly as ``xlog2x`` computes it."""
    k = np.arange(n + 1, dtype=np.float64)
    out = np.zeros(n + 1)
    out[1:] = k[1:] * np.log2(k[1:])
    return out


@njit(cache=True)
def _scan_one(values, classes, weights, n_classes, min_leaf, node_weight, out_left, out_right,
              xlogx_of_int):
    """Scan one feature's sorted (values, classes, weights), missing values last.

    Returns (valid, gain, split_info, threshold, known weight) and fills out_left/out_right
    with the known rows' class weights on each side of the chosen cut.
    """
    n_known = values.shape[0]
    while n_known > 0 and np.isnan(values[n_known - 1]):
        n_known -= 1
    known_classes = np.zeros(n_classes)
    for p in range(n_known):
        known_classes[classes[p]] += weights[p]
    known = known_classes.sum()
    min_split = 0.1 * known / n_classes
    if min_split <= min_leaf:
        min_split = min_leaf
    elif min_split > 25.0:
        min_split = 25.0
    if n_known < 2.0 * min_split:
        return False, 0.0, 0.0, 0.0, known
    old = _bag_entropy_sum(known, known_classes, xlogx_of_int)
    unknown_factor = 1.0 - (node_weight - known) / node_weight
    left = np.zeros(n_classes)
    right = known_classes.copy()
    weight_left = 0.0
    weight_right = known
    best = 0.0
    split_index = -1
    n_candidates = 0
    last = 0
    for nxt in range(1, n_known):
        if not values[nxt - 1] + 1e-5 < values[nxt]:
            continue
        for p in range(last, nxt):
            c = classes[p]
            left[c] += weights[p]
            right[c] -= weights[p]
            weight_left += weights[p]
            weight_right -= weights[p]
        last = nxt
        if min_split - weight_left < SMALL and min_split - weight_right < SMALL:
            new = (_bag_entropy_sum(weight_left, left, xlogx_of_int)
                   + _bag_entropy_sum(weight_right, right, xlogx_of_int))
            numerator = unknown_factor * (old - new)
            gain = 0.0 if abs(numerator) < SMALL else numerator / known
            if gain - best > SMALL:
                best = gain
                split_index = nxt - 1
            n_candidates += 1
    if n_candidates == 0:
        return False, 0.0, 0.0, 0.0, known
    gain = best - np.log2(n_candidates) / node_weight
    if gain < SMALL:
        return False, 0.0, 0.0, 0.0, known
    low = values[split_index]
    high = values[split_index + 1]
    threshold = (low + high) / 2.0
    if threshold == high:
        threshold = low
    out_left[:] = 0.0
    for p in range(split_index + 1):
        out_left[classes[p]] += weights[p]
    for c in range(n_classes):
        out_right[c] = known_classes[c] - out_left[c]
    w_left = out_left.sum()
    w_right = known - w_left
    split_info = (xlog2x(node_weight) - xlog2x(w_left) - xlog2x(w_right)
                  - xlog2x(node_weight - known))
    return True, gain, (split_info if known > SMALL else 0.0), threshold, known


@njit(parallel=True, cache=True)
def _scan_parallel(values, classes, weights, n_classes, min_leaf, node_weight, out_valid,
                   out_gain, out_split_info, out_threshold, out_left, out_right, out_known,
                   xlogx_of_int):
    for i in prange(values.shape[0]):
        r = _scan_one(values[i], classes[i], weights[i], n_classes, min_leaf, node_weight,
                      out_left[i], out_right[i], xlogx_of_int)
        out_valid[i], out_gain[i], out_split_info[i], out_threshold[i], out_known[i] = r


@njit(cache=True)
def _scan_serial(values, classes, weights, n_classes, min_leaf, node_weight, out_valid,
                 out_gain, out_split_info, out_threshold, out_left, out_right, out_known,
                 xlogx_of_int):
    for i in range(values.shape[0]):
        r = _scan_one(values[i], classes[i], weights[i], n_classes, min_leaf, node_weight,
                      out_left[i], out_right[i], xlogx_of_int)
        out_valid[i], out_gain[i], out_split_info[i], out_threshold[i], out_known[i] = r


# Below this many (rows x features) a node is scanned on one thread: starting threads costs
# more than it saves.
PARALLEL_MIN_WORK = 50_000


def scan_numeric(columns, n_classes, min_leaf, node_weight, out_valid, out_gain,
                 out_split_info, out_threshold, out_left, out_right, out_known, xlogx_of_int):
    """C4.5's best threshold per numeric feature, with the MDL correction (spec steps 17-19).

    ``columns`` is a node's SortedColumns. Per feature ``i``: ``out_valid[i]``; the
    corrected gain; the split information (missing rows as one more branch); the
    provisional threshold; the class weights of the known rows left and right of it; and
    the known weight K. ``xlogx_of_int`` is ``xlogx_table(n)`` when every weight at the node
    is a whole number (then F is looked up), else empty.
    """
    values = columns.values
    big = values.shape[0] * values.shape[1] >= PARALLEL_MIN_WORK
    kernel = _scan_parallel if big else _scan_serial
    kernel(values, columns.classes, columns.weights, n_classes, float(min_leaf),
           float(node_weight), out_valid, out_gain, out_split_info, out_threshold, out_left,
           out_right, out_known, xlogx_of_int)


@njit(cache=True)
def nominal_table(X, y, rows, weights, feature, out_table):
    """Class weights per category code of the known rows (out_table zeroed first)."""
    out_table[:, :] = 0.0
    for q in range(rows.shape[0]):
        v = X[rows[q], feature]
        if not np.isnan(v):
            out_table[int(v), y[rows[q]]] += weights[q]


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
def _split_one(values, classes, positions, branch, rank, known, ptr, child_weights,
               out_values, out_classes, out_weights, out_positions):
    fill = ptr[:-1].copy()
    for p in range(positions.shape[0]):
        parent_pos = positions[p]
        b = branch[parent_pos]
        if b >= 0:
            q = rank[parent_pos]
            k = fill[b]
            out_values[k] = values[p]
            out_classes[k] = classes[p]
            out_weights[k] = child_weights[ptr[b] + q]
            out_positions[k] = q
            fill[b] += 1
            continue
        for j in range(known.shape[0]):
            if known[j] >= 0:
                q = known[j] + rank[parent_pos]
                k = fill[j]
                out_values[k] = values[p]
                out_classes[k] = classes[p]
                out_weights[k] = child_weights[ptr[j] + q]
                out_positions[k] = q
                fill[j] += 1


@njit(parallel=True, cache=True)
def _split_parallel(values, classes, positions, branch, rank, known, ptr, child_weights,
                    out_values, out_classes, out_weights, out_positions):
    for i in prange(values.shape[0]):
        _split_one(values[i], classes[i], positions[i], branch, rank, known, ptr,
                   child_weights, out_values[i], out_classes[i], out_weights[i],
                   out_positions[i])


@njit(cache=True)
def _split_serial(values, classes, positions, branch, rank, known, ptr, child_weights,
                  out_values, out_classes, out_weights, out_positions):
    for i in range(values.shape[0]):
        _split_one(values[i], classes[i], positions[i], branch, rank, known, ptr,
                   child_weights, out_values[i], out_classes[i], out_weights[i],
                   out_positions[i])


@njit(parallel=True, cache=True)
def _sort_columns(X, y, weights, features, out_values, out_classes, out_weights,
                  out_positions):
    """Sort every feature's rows by value (stable, missing values last), in parallel."""
    for i in prange(features.shape[0]):
        column = X[:, features[i]].copy()
        order = np.argsort(column, kind="mergesort")
        for p in range(order.shape[0]):
            r = order[p]
            out_values[i, p] = column[r]
            out_classes[i, p] = y[r]
            out_weights[i, p] = weights[r]
            out_positions[i, p] = r


class SortedColumns:
    """A node's numeric features, each sorted (missing values last), stored contiguously:
    values, class codes and weights side by side, and the node position of each entry.
    A child's columns are filtered from its parent's, so nothing is sorted twice."""

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

    def split(self, routing) -> list[SortedColumns]:
        """The children's columns in one pass: ``routing`` is what ``split_rows`` returned.

        Each child's columns are a view into one shared buffer, in the parent's order.
        """
        _, child_weights, ptr, branch, rank, known = routing
        shape = (self.values.shape[0], int(ptr[-1]))
        out = SortedColumns(np.empty(shape), np.empty(shape, dtype=self.classes.dtype),
                            np.empty(shape), np.empty(shape, dtype=np.int32))
        big = shape[0] * self.values.shape[1] >= PARALLEL_MIN_WORK
        (_split_parallel if big else _split_serial)(
            self.values, self.classes, self.positions, branch, rank, known, ptr,
            child_weights, out.values, out.classes, out.weights, out.positions)
        return [SortedColumns(*(a[:, ptr[j]:ptr[j + 1]] for a in
                                (out.values, out.classes, out.weights, out.positions)))
                for j in range(len(ptr) - 1)]


@njit(cache=True)
def split_rows(X, rows, weights, feature, numeric, threshold, n_branches, category_map):
    """Send a node's rows to its branches (spec step 22).

    A known value goes to its branch (numeric: value <= threshold within 1e-6 goes to 0;
    categorical: ``category_map[code]``, or the code itself when ``category_map`` is empty);
    a missing one to every branch whose share of the known weight exceeds 1e-6, with its
    weight times that share. Returns (positions, weights, ptr, branch, rank, known):
    branch j holds ``positions[ptr[j]:ptr[j+1]]`` (indices into ``rows``), known rows first,
    in order; ``branch``/``rank`` give each row's branch (-1: missing) and its place there
    (or among the missing rows); ``known[j]`` counts branch j's known rows, encoded as
    ``-1 - count`` when the branch takes no missing rows.
    """
    n = rows.shape[0]
    branch = np.empty(n, dtype=np.int64)
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
    rank = np.empty(n, dtype=np.int64)  # position in its branch, or among the missing rows
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
    return out_pos, out_w, ptr, branch, rank, counts
