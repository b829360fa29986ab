"""Best binary split of one node on one categorical feature: a subset of categories goes left.

With few categories present at the node every subset is tried; with more, the categories
are ordered by the proportion of one class and only the prefixes of that order are tried
(Breiman's method: exact for two classes; for more classes each class's order is tried in
turn, a heuristic).
"""

from __future__ import annotations

import numpy as np

from ._jit import njit
from .impurity import split_proxy

# Up to this many categories present at a node, every subset is evaluated (2**(m-1) splits).
MAX_EXHAUSTIVE_CATEGORIES = 10


@njit(cache=True)
def present_codes(counts, n_codes):
    """The category codes among the first ``n_codes`` with rows at the node, ascending."""
    present = np.empty(n_codes, dtype=np.int64)
    m = 0
    for c in range(n_codes):
        if counts[c] > 0:
            present[m] = c
            m += 1
    return present[:m]


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
    present = present_codes(counts, n_codes)
    m = present.shape[0]
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
        best, best_missing_left, best_n_left, best_n_right = _best_ordered_prefix(
            present, weights, counts, n_missing, passes, criterion, min_samples_leaf,
            min_weight_leaf, best_left)
    absent_branch = 0 if best_n_left > best_n_right else 1
    out_branch[:] = absent_branch
    for j in range(m):
        out_branch[present[j]] = 0 if best_left[j] else 1
    if n_missing == 0:
        best_missing_left = best_n_left > best_n_right
    return best, best_missing_left


@njit(cache=True)
def _best_ordered_prefix(present, weights, counts, n_missing, passes, criterion,
                         min_samples_leaf, min_weight_leaf, out_best_left):
    """Breiman's ordered search: for each class, sort the present categories by its share
    and try every prefix of that order as the left side.

    Left and right weights come from prefix and suffix sums (no subtraction, so an empty
    side weighs exactly 0), which makes the scan O(m log m) per class instead of O(m^2).
    Returns ``(proxy, missing_left, n_left, n_right)`` and flags the best prefix's
    categories in ``out_best_left``.
    """
    m = present.shape[0]
    n_classes = weights.shape[1]
    n_missing_code = counts.shape[0] - 1
    share = np.empty(m)
    suffix = np.zeros((m + 1, n_classes))
    suffix_count = np.zeros(m + 1, dtype=np.int64)
    left = np.empty(n_classes)
    side_l = np.empty(n_classes)
    side_r = np.empty(n_classes)
    best = -np.inf
    best_missing_left = False
    best_n_left = 0
    best_n_right = 0
    best_order = np.arange(m)
    best_prefix = 0
    for k in range(1 if n_classes == 2 else n_classes):
        target = 1 if n_classes == 2 else k
        for j in range(m):
            c = present[j]
            total = weights[c].sum()
            share[j] = weights[c, target] / total if total > 0 else 0.0
        order = np.argsort(share, kind="mergesort")
        for j in range(m - 1, -1, -1):
            c = present[order[j]]
            suffix[j] = suffix[j + 1] + weights[c]
            suffix_count[j] = suffix_count[j + 1] + counts[c]
        found = False
        for pass_index in range(passes):
            missing_left = pass_index == 1
            last_prefix = m if (n_missing > 0 and not missing_left) else m - 1
            left[:] = 0.0
            n_left = 0
            for prefix in range(1, last_prefix + 1):
                c = present[order[prefix - 1]]
                left += weights[c]
                n_left += counts[c]
                n_right = suffix_count[prefix]
                proxy = _proxy_with_missing(left, suffix[prefix], n_left, n_right,
                                            weights[n_missing_code], counts[n_missing_code],
                                            missing_left, criterion, min_samples_leaf,
                                            min_weight_leaf, side_l, side_r)
                if proxy > best:
                    best = proxy
                    best_missing_left = missing_left
                    best_n_left = n_left + (counts[n_missing_code] if missing_left else 0)
                    best_n_right = n_right + (0 if missing_left else counts[n_missing_code])
                    best_prefix = prefix
                    found = True
        if found:
            best_order[:] = order
    out_best_left[:] = False
    for j in range(best_prefix):
        out_best_left[best_order[j]] = True
    return best, best_missing_left, best_n_left, best_n_right


@njit(cache=True)
def _proxy_with_missing(left, right, n_left, n_right, missing_weights, n_missing,
                        missing_left, criterion, min_samples_leaf, min_weight_leaf,
                        side_l, side_r):
    """Proxy of a split given its present-category sides, adding the missing rows to one
    (``side_l`` and ``side_r`` are scratch buffers)."""
    for c in range(left.shape[0]):
        side_l[c] = left[c] + missing_weights[c] if missing_left else left[c]
        side_r[c] = right[c] if missing_left else right[c] + missing_weights[c]
    if missing_left:
        n_left += n_missing
    else:
        n_right += n_missing
    if n_left < min_samples_leaf or n_right < min_samples_leaf:
        return -np.inf
    weight_left = side_l.sum()
    weight_right = side_r.sum()
    if weight_left < min_weight_leaf or weight_right < min_weight_leaf:
        return -np.inf
    if weight_left <= 0.0 or weight_right <= 0.0:
        return -np.inf
    return split_proxy(side_l, side_r, weight_left, weight_right, criterion)
