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


@njit(parallel=True, cache=True)
def scan_numeric(X, y, rows, weights, sorted_pos, features, n_classes, min_leaf, node_weight,
                 out_valid, out_gain, out_split_info, out_threshold, out_left, out_right,
                 out_known):
    """C4.5's best threshold per numeric feature, with the MDL correction (spec steps 17-19).

    Per feature ``i``: ``out_valid[i]``; the corrected gain; the split information (missing
    rows as one more branch); the provisional threshold; the class weights of the known rows
    left and right of it; and the known weight K.
    """
    for i in prange(features.shape[0]):
        f = features[i]
        pos = sorted_pos[i]
        n = pos.shape[0]
        out_valid[i] = False
        n_known = n
        while n_known > 0 and np.isnan(X[rows[pos[n_known - 1]], f]):
            n_known -= 1
        known_classes = np.zeros(n_classes)
        for p in range(n_known):
            q = pos[p]
            known_classes[y[rows[q]]] += weights[q]
        known = known_classes.sum()
        out_known[i] = known
        min_split = 0.1 * known / n_classes
        if min_split <= min_leaf:
            min_split = min_leaf
        elif min_split > 25.0:
            min_split = 25.0
        if n_known < 2.0 * min_split:
            continue
        old = _table_entropy_sum(known, known_classes)
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
            v_prev = X[rows[pos[nxt - 1]], f]
            v_next = X[rows[pos[nxt]], f]
            if not v_prev + 1e-5 < v_next:
                continue
            for p in range(last, nxt):
                q = pos[p]
                c = y[rows[q]]
                left[c] += weights[q]
                right[c] -= weights[q]
                weight_left += weights[q]
                weight_right -= weights[q]
            last = nxt
            if min_split - weight_left < SMALL and min_split - weight_right < SMALL:
                new = _table_entropy_sum(weight_left, left) + _table_entropy_sum(weight_right,
                                                                                   right)
                numerator = unknown_factor * (old - new)
                gain = 0.0 if abs(numerator) < SMALL else numerator / known
                if gain - best > SMALL:
                    best = gain
                    split_index = nxt - 1
                n_candidates += 1
        if n_candidates == 0:
            continue
        gain = best - np.log2(n_candidates) / node_weight
        if gain < SMALL:
            continue
        low = X[rows[pos[split_index]], f]
        high = X[rows[pos[split_index + 1]], f]
        threshold = (low + high) / 2.0
        if threshold == high:
            threshold = low
        out_left[i, :] = 0.0
        for p in range(split_index + 1):
            q = pos[p]
            out_left[i, y[rows[q]]] += weights[q]
        for c in range(n_classes):
            out_right[i, c] = known_classes[c] - out_left[i, c]
        w_left = out_left[i].sum()
        w_right = known - w_left
        split_info = (xlog2x(node_weight) - xlog2x(w_left) - xlog2x(w_right)
                      - xlog2x(node_weight - known))
        out_valid[i] = True
        out_gain[i] = gain
        out_split_info[i] = split_info if known > SMALL else 0.0
        out_threshold[i] = threshold


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


@njit(parallel=True, cache=True)
def filter_sorted(sorted_pos, new_position, n_child, out):
    """Keep, in order, the positions that belong to a child, renumbered for the child.

    ``new_position[p]`` is the child's position of parent position p, or -1.
    """
    for i in prange(sorted_pos.shape[0]):
        k = 0
        for p in sorted_pos[i]:
            q = new_position[p]
            if q >= 0:
                out[i, k] = q
                k += 1
