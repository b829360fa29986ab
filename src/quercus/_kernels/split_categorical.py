"""Best binary split of one node on one categorical feature: a subset of categories goes left.

With few categories present at the node every subset is tried; with more, the categories
are ordered by the proportion of one class and only the prefixes of that order are tried
(Breiman's method: exact for two classes; for more classes each class's order is tried in
turn, a heuristic).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .impurity import split_proxy

# Up to this many categories present at a node, every subset is evaluated (2**(m-1) splits).
MAX_EXHAUSTIVE_CATEGORIES = 10


@njit(cache=True)
def category_class_weights(X, y, sample_weight, rows, feature, out_weights, out_counts):
    """Class weights and row counts per category code; the last row holds missing values."""
    out_weights[:, :] = 0.0
    out_counts[:] = 0
    missing = out_counts.shape[0] - 1
    for i in range(rows.shape[0]):
        r = rows[i]
        v = X[r, feature]
        code = missing if np.isnan(v) else int(v)
        out_weights[code, y[r]] += sample_weight[r]
        out_counts[code] += 1


@njit(cache=True)
def _evaluate(goes_left, present, weights, counts, missing_left, criterion,
              min_samples_leaf, min_weight_leaf, left, right):
    """Proxy of the split that sends the present categories flagged in goes_left left."""
    n_missing_code = counts.shape[0] - 1
    left[:] = 0.0
    right[:] = 0.0
    n_left = 0
    n_right = 0
    for j in range(present.shape[0]):
        c = present[j]
        if goes_left[j]:
            left += weights[c]
            n_left += counts[c]
        else:
            right += weights[c]
            n_right += counts[c]
    if missing_left:
        left += weights[n_missing_code]
        n_left += counts[n_missing_code]
    else:
        right += weights[n_missing_code]
        n_right += counts[n_missing_code]
    if n_left < min_samples_leaf or n_right < min_samples_leaf:
        return -np.inf, n_left, n_right
    weight_left = left.sum()
    weight_right = right.sum()
    if weight_left < min_weight_leaf or weight_right < min_weight_leaf:
        return -np.inf, n_left, n_right
    if weight_left <= 0.0 or weight_right <= 0.0:
        return -np.inf, n_left, n_right
    return split_proxy(left, right, weight_left, weight_right, criterion), n_left, n_right


@njit(cache=True)
def best_subset_split(weights, counts, criterion, min_samples_leaf, min_weight_leaf,
                      out_branch):
    """Best subset split from per-category class weights (see ``category_class_weights``).

    Writes, for every category code, 0 (left) or 1 (right) into ``out_branch``; categories
    absent from the node follow the larger side. Returns ``(proxy, missing_left)``;
    proxy is -inf when no valid split exists.
    """
    n_codes = counts.shape[0] - 1
    n_classes = weights.shape[1]
    n_missing = counts[n_codes]
    present = np.empty(n_codes, dtype=np.int64)
    m = 0
    for c in range(n_codes):
        if counts[c] > 0:
            present[m] = c
            m += 1
    present = present[:m]
    left = np.empty(n_classes)
    right = np.empty(n_classes)
    goes_left = np.zeros(m, dtype=np.bool_)
    best_left = np.zeros(m, dtype=np.bool_)
    best = -np.inf
    best_missing_left = False
    best_n_left = 0
    best_n_right = 0
    passes = 2 if n_missing > 0 else 1
    if m <= MAX_EXHAUSTIVE_CATEGORIES:
        # The last present category stays right, so each partition is met once; with
        # missing rows, "every present category left" is one more split.
        n_masks = 1 << max(m - 1, 0)
        for pass_index in range(passes):
            missing_left = pass_index == 1
            last_mask = n_masks if (n_missing > 0 and not missing_left) else n_masks - 1
            for mask in range(1, last_mask + 1):
                if mask == n_masks:
                    goes_left[:] = True
                else:
                    for j in range(m):
                        goes_left[j] = (mask >> j) & 1 == 1
                proxy, n_left, n_right = _evaluate(
                    goes_left, present, weights, counts, missing_left, criterion,
                    min_samples_leaf, min_weight_leaf, left, right)
                if proxy > best:
                    best = proxy
                    best_left[:] = goes_left
                    best_missing_left = missing_left
                    best_n_left = n_left
                    best_n_right = n_right
    else:
        share = np.empty(m)
        ordered_classes = 1 if n_classes == 2 else n_classes
        for k in range(ordered_classes):
            target = 1 if n_classes == 2 else k
            for j in range(m):
                c = present[j]
                total = weights[c].sum()
                share[j] = weights[c, target] / total if total > 0 else 0.0
            order = np.argsort(share, kind="mergesort")
            for pass_index in range(passes):
                missing_left = pass_index == 1
                last_prefix = m if (n_missing > 0 and not missing_left) else m - 1
                for prefix in range(1, last_prefix + 1):
                    goes_left[:] = False
                    for j in range(prefix):
                        goes_left[order[j]] = True
                    proxy, n_left, n_right = _evaluate(
                        goes_left, present, weights, counts, missing_left, criterion,
                        min_samples_leaf, min_weight_leaf, left, right)
                    if proxy > best:
                        best = proxy
                        best_left[:] = goes_left
                        best_missing_left = missing_left
                        best_n_left = n_left
                        best_n_right = n_right
    absent_branch = 0 if best_n_left > best_n_right else 1
    out_branch[:] = absent_branch
    for j in range(m):
        out_branch[present[j]] = 0 if best_left[j] else 1
    if n_missing == 0:
        best_missing_left = best_n_left > best_n_right
    return best, best_missing_left
