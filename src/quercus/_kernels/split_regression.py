"""Regression trees: node statistics and the exact best numeric split under squared error.

A node's statistics are three weighted sums over its rows: the weight ``W``, the sum of
targets ``S`` and the sum of squared targets ``Q``; its mean is ``S / W`` and its squared
error impurity (the weighted variance) ``Q / W - (S / W) ** 2``. A cut is ranked by the
proxy ``S_left**2 / W_left + S_right**2 / W_right``, which orders cuts of one node as the
decrease of the weighted squared error does. The same sweep ranks cuts by the half Poisson
deviance (``criterion=POISSON``): ``S_left * log(S_left / W_left) + S_right * log(S_right /
W_right)``, a side whose target sum is at most machine epsilon making no valid cut (its
mean, the prediction, must be positive), as in scikit-learn.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ._jit import njit
from .split_categorical import present_codes
from .split_numeric import FEATURE_THRESHOLD, _midpoint, trailing_missing

SQUARED_ERROR = 0
POISSON = 1
EPSILON = np.finfo(np.float64).eps


@njit(cache=True)
def node_sums(y, sample_weight, rows, out):
    """``out[:] = (W, S, Q)`` of ``rows``."""
    w_sum = 0.0
    s_sum = 0.0
    q_sum = 0.0
    for p in range(rows.shape[0]):
        r = rows[p]
        w = sample_weight[r]
        w_sum += w
        s_sum += w * y[r]
        q_sum += w * y[r] * y[r]
    out[0] = w_sum
    out[1] = s_sum
    out[2] = q_sum


@njit(cache=True)
def missing_if_splittable(X, order, f, start, end):
    """How many rows of the node's segment ``order[f, start:end]`` miss feature ``f``, or
    -1 when ``f`` cannot split the node (every value missing, or the known values all
    within FEATURE_THRESHOLD of each other and none missing)."""
    n_missing = trailing_missing(X, order, f, start, end)
    n_known = end - start - n_missing
    if n_known == 0:
        return -1
    first_value = X[order[f, start], f]
    last_value = X[order[f, start + n_known - 1], f]
    if n_missing == 0 and last_value <= first_value + FEATURE_THRESHOLD:
        return -1
    return n_missing


@njit(cache=True)
def cut_is_valid(X, f, r, next_row, q, n_known, n_missing, missing_left, n_left, n, w_left,
                 w_total, min_samples_leaf, min_weight_leaf):
    """Whether the cut after sorted position ``q - 1`` (row ``r``; ``next_row``: the row
    at position ``q``, ignored when ``q == n_known``) is a valid split of a sweep: between
    distinct values (or exactly the missing rows right), both sides within the limits."""
    if q < n_known:
        if X[next_row, f] <= X[r, f] + FEATURE_THRESHOLD:
            return False
    elif missing_left or n_missing == 0:
        return False  # nothing would go right
    n_right = n - n_left
    if n_left < min_samples_leaf or n_right < min_samples_leaf:
        return False
    w_right = w_total - w_left
    if w_left < min_weight_leaf or w_right < min_weight_leaf:
        return False
    return w_left > 0.0 and w_right > 0.0


@njit(cache=True)
def cut_threshold(X, f, r, next_row, q, n_known):
    """The threshold of that cut: the midpoint, or inf when only the missing rows go right."""
    return np.inf if q == n_known else _midpoint(X[r, f], X[next_row, f])


@njit(cache=True)
def node_groups(counts, n_codes):
    """The groups of a categorical split: the codes present (``counts[c] > 0``), then
    ``n_codes`` (the missing rows, ``counts[n_codes]``) if any."""
    present = present_codes(counts, n_codes)
    m = present.shape[0] + (1 if counts[n_codes] > 0 else 0)
    groups = np.empty(m, dtype=np.int64)
    groups[: present.shape[0]] = present
    if m > present.shape[0]:
        groups[m - 1] = n_codes
    return groups


@njit(cache=True)
def group_branches(left, groups, counts, n_codes, out_branch):
    """Write a split of the groups (``left[j]``: group j goes left) as the category map
    ``out_branch`` (0 left, 1 right; absent categories follow the side with more rows);
    returns whether missing values go left (with no missing rows: the larger side)."""
    n_left = 0
    n_total = 0
    for j in range(groups.shape[0]):
        n_total += counts[groups[j]]
        if left[j]:
            n_left += counts[groups[j]]
    larger = 0 if n_left > n_total - n_left else 1
    out_branch[:] = larger
    missing_left = larger == 0
    for j in range(groups.shape[0]):
        if groups[j] == n_codes:
            missing_left = left[j]
        else:
            out_branch[groups[j]] = 0 if left[j] else 1
    return missing_left


@njit(cache=True)
def squared_error(w_sum, s_sum, q_sum):
    """Weighted variance of a node from its sums (0 for an empty node)."""
    if w_sum <= 0.0:
        return 0.0
    mean = s_sum / w_sum
    return q_sum / w_sum - mean * mean


@njit(cache=True)
def _regression_split(i, X, y, sample_weight, order, start, end, features, min_samples_leaf,
                      min_weight_leaf, out_proxy, out_threshold, out_missing_left, criterion,
                      n):
    """Item ``i`` of ``best_regression_splits``."""
    f = features[i]
    out_proxy[i] = -np.inf
    out_threshold[i] = np.nan
    out_missing_left[i] = False
    n_missing = missing_if_splittable(X, order, f, start, end)
    if n_missing < 0:
        return
    n_known = n - n_missing
    w_total = 0.0
    s_total = 0.0
    w_missing = 0.0
    s_missing = 0.0
    for p in range(start, end):
        r = order[f, p]
        w_total += sample_weight[r]
        s_total += sample_weight[r] * y[r]
        if p >= start + n_known:
            w_missing += sample_weight[r]
            s_missing += sample_weight[r] * y[r]
    best = -np.inf
    n_passes = 2 if n_missing > 0 else 1
    for pass_index in range(n_passes):
        missing_left = pass_index == 1
        if missing_left:
            w_left = w_missing
            s_left = s_missing
            n_left = n_missing
        else:
            w_left = 0.0
            s_left = 0.0
            n_left = 0
        for p in range(n_known):
            r = order[f, start + p]
            w_left += sample_weight[r]
            s_left += sample_weight[r] * y[r]
            n_left += 1
            q = p + 1
            next_row = order[f, start + q] if q < n_known else r
            if not cut_is_valid(X, f, r, next_row, q, n_known, n_missing, missing_left,
                                n_left, n, w_left, w_total, min_samples_leaf,
                                min_weight_leaf):
                continue
            w_right = w_total - w_left
            s_right = s_total - s_left
            if criterion == POISSON:
                if s_left <= EPSILON or s_right <= EPSILON:
                    continue
                proxy = (s_left * np.log(s_left / w_left)
                         + s_right * np.log(s_right / w_right))
            else:
                proxy = s_left * s_left / w_left + s_right * s_right / w_right
            if proxy > best:
                best = proxy
                out_threshold[i] = cut_threshold(X, f, r, next_row, q, n_known)
                out_missing_left[i] = n_left > n - n_left if n_missing == 0 else missing_left
    out_proxy[i] = best


@njit(parallel=True, cache=True)
def best_regression_splits(
    X, y, sample_weight, order, start, end, features, min_samples_leaf, min_weight_leaf,
    out_proxy, out_threshold, out_missing_left, criterion=SQUARED_ERROR,
):
    """Best squared-error (or Poisson, ``criterion=POISSON``) cut of ``order[f, start:end]``
    for each feature in ``features``.

    The same sweep as ``split_numeric.best_numeric_splits`` with running sums of weight and
    weighted target instead of class weights: every cut between distinct consecutive
    values (missing rows sent right, then left), plus the cut that sends exactly the
    missing rows right; the first cut with the largest proxy wins. Outputs as there.
    """
    n = end - start
    for i in prange(features.shape[0]):
        _regression_split(i, X, y, sample_weight, order, start, end, features, min_samples_leaf,
                          min_weight_leaf, out_proxy, out_threshold, out_missing_left,
                          criterion, n)


@njit(cache=True)
def best_regression_splits_serial(
    X, y, sample_weight, order, start, end, features, min_samples_leaf, min_weight_leaf,
    out_proxy, out_threshold, out_missing_left, criterion=SQUARED_ERROR,
):
    """``best_regression_splits`` on one thread (nodes below ``PARALLEL_MIN_WORK``)."""
    n = end - start
    for i in range(features.shape[0]):
        _regression_split(i, X, y, sample_weight, order, start, end, features, min_samples_leaf,
                          min_weight_leaf, out_proxy, out_threshold, out_missing_left,
                          criterion, n)


@njit(cache=True)
def category_sums(X, y, sample_weight, rows, feature, out_weight, out_sum, out_counts):
    """Weight, weighted target sum and row count per category code of ``feature`` over
    ``rows``; the last entry holds the rows whose value is missing."""
    out_weight[:] = 0.0
    out_sum[:] = 0.0
    out_counts[:] = 0
    missing = out_counts.shape[0] - 1
    for i in range(rows.shape[0]):
        r = rows[i]
        v = X[r, feature]
        code = missing if np.isnan(v) else int(v)
        out_weight[code] += sample_weight[r]
        out_sum[code] += sample_weight[r] * y[r]
        out_counts[code] += 1


@njit(cache=True)
def best_mean_ordered_split(weight, target_sum, counts, min_samples_leaf, min_weight_leaf,
                            out_branch):
    """Best binary subset split of one categorical feature under squared error.

    The categories present at the node are ordered by their mean target (ties: lower code
    first) and every prefix of that order is tried as the left side, the missing rows
    (last entry of the arrays) sent right and then left; for squared error the best
    subset of categories is such a prefix (Fisher 1958; Breiman et al. 1984, 9.4), and
    with the missing rows as one more group every cut of the full order is such a prefix
    with the missing rows on one side, so the search stays exact. Sides
    are summed from both ends (no subtraction). Writes 0 (left) or 1 (right) per code into
    ``out_branch``, absent categories following the larger side; returns
    ``(proxy, missing_left)``, proxy -inf when no valid split exists.
    """
    n_codes = counts.shape[0] - 1
    n_missing = counts[n_codes]
    present = present_codes(counts, n_codes)
    m = present.shape[0]
    means = np.empty(m)
    for j in range(m):
        c = present[j]
        means[j] = target_sum[c] / weight[c] if weight[c] > 0 else 0.0
    order = np.argsort(means, kind="mergesort")
    suffix_w = np.zeros(m + 1)
    suffix_s = np.zeros(m + 1)
    suffix_n = np.zeros(m + 1, dtype=np.int64)
    for j in range(m - 1, -1, -1):
        c = present[order[j]]
        suffix_w[j] = suffix_w[j + 1] + weight[c]
        suffix_s[j] = suffix_s[j + 1] + target_sum[c]
        suffix_n[j] = suffix_n[j + 1] + counts[c]
    best = -np.inf
    best_prefix = 0
    best_missing_left = False
    best_n_left = 0
    best_n_right = 0
    passes = 2 if n_missing > 0 else 1
    for pass_index in range(passes):
        missing_left = pass_index == 1
        last_prefix = m if (n_missing > 0 and not missing_left) else m - 1
        w_left = 0.0
        s_left = 0.0
        n_left = 0
        for prefix in range(1, last_prefix + 1):
            c = present[order[prefix - 1]]
            w_left += weight[c]
            s_left += target_sum[c]
            n_left += counts[c]
            wl, sl, nl = w_left, s_left, n_left
            wr, sr, nr = suffix_w[prefix], suffix_s[prefix], suffix_n[prefix]
            if missing_left:
                wl += weight[n_codes]
                sl += target_sum[n_codes]
                nl += n_missing
            else:
                wr += weight[n_codes]
                sr += target_sum[n_codes]
                nr += n_missing
            if nl < min_samples_leaf or nr < min_samples_leaf:
                continue
            if wl < min_weight_leaf or wr < min_weight_leaf or wl <= 0.0 or wr <= 0.0:
                continue
            proxy = sl * sl / wl + sr * sr / wr
            if proxy > best:
                best = proxy
                best_prefix = prefix
                best_missing_left = missing_left
                best_n_left = nl
                best_n_right = nr
    out_branch[:] = 0 if best_n_left > best_n_right else 1
    for j in range(m):
        out_branch[present[order[j]]] = 0 if j < best_prefix else 1
    if n_missing == 0:
        best_missing_left = best_n_left > best_n_right
    return best, best_missing_left
