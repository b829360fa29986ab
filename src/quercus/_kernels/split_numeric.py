"""Exact best split of one node on every numeric feature (sorted sweep, in parallel)."""

from __future__ import annotations

import numpy as np
from numba import prange

from ._jit import njit
from .impurity import monotone_ok, split_proxy

# Consecutive sorted values closer than this are treated as equal (no cut between them),
# as scikit-learn's FEATURE_THRESHOLD does.
FEATURE_THRESHOLD = 1e-7


@njit(cache=True)
def _midpoint(low, high):
    mid = low / 2.0 + high / 2.0
    if mid >= high or np.isinf(mid):
        mid = low
    return mid


@njit(cache=True)
def trailing_missing(X, order, f, start, end):
    """How many rows at the end of the node's sorted segment ``order[f, start:end]`` have a
    missing value of feature ``f`` (the presort puts NaN last)."""
    n_missing = 0
    while n_missing < end - start and np.isnan(X[order[f, end - 1 - n_missing], f]):
        n_missing += 1
    return n_missing


@njit(cache=True)
def _numeric_split(i, X, y, sample_weight, order, start, end, features, n_classes, criterion,
                   min_samples_leaf, min_weight_leaf, monotonic, lower, upper, out_proxy,
                   out_threshold, out_missing_left, n):
    """Item ``i`` of ``best_numeric_splits``."""
    f = features[i]
    out_proxy[i] = -np.inf
    out_threshold[i] = np.nan
    out_missing_left[i] = False
    n_missing = trailing_missing(X, order, f, start, end)
    n_known = n - n_missing
    if n_known == 0:
        return
    first_value = X[order[f, start], f]
    last_value = X[order[f, start + n_known - 1], f]
    if n_missing == 0 and last_value <= first_value + FEATURE_THRESHOLD:
        return
    total = np.zeros(n_classes)
    missing = np.zeros(n_classes)
    for p in range(start, end):
        r = order[f, p]
        total[y[r]] += sample_weight[r]
        if p >= start + n_known:
            missing[y[r]] += sample_weight[r]
    left = np.empty(n_classes)
    right = np.empty(n_classes)
    best = -np.inf
    n_passes = 2 if n_missing > 0 else 1
    for pass_index in range(n_passes):
        missing_left = pass_index == 1
        if missing_left:
            left[:] = missing
            n_left = n_missing
        else:
            left[:] = 0.0
            n_left = 0
        for p in range(n_known):
            r = order[f, start + p]
            left[y[r]] += sample_weight[r]
            n_left += 1
            q = p + 1
            if q < n_known:
                value = X[r, f]
                next_value = X[order[f, start + q], f]
                if next_value <= value + FEATURE_THRESHOLD:
                    continue
            elif missing_left or n_missing == 0:
                continue  # nothing would go right
            n_right = n - n_left
            if n_left < min_samples_leaf or n_right < min_samples_leaf:
                continue
            weight_left = 0.0
            for k in range(n_classes):
                right[k] = total[k] - left[k]
                weight_left += left[k]
            weight_right = 0.0
            for k in range(n_classes):
                weight_right += right[k]
            if weight_left < min_weight_leaf or weight_right < min_weight_leaf:
                continue
            if weight_left <= 0.0 or weight_right <= 0.0:
                continue
            if monotonic[f] != 0 and not monotone_ok(left, right, weight_left, weight_right,
                                                     monotonic[f], lower, upper):
                continue
            proxy = split_proxy(left, right, weight_left, weight_right, criterion)
            if proxy > best:
                best = proxy
                if q == n_known:
                    out_threshold[i] = np.inf
                else:
                    out_threshold[i] = _midpoint(X[r, f], X[order[f, start + q], f])
                if n_missing == 0:
                    out_missing_left[i] = n_left > n_right
                else:
                    out_missing_left[i] = missing_left
    out_proxy[i] = best


@njit(parallel=True, cache=True)
def best_numeric_splits(
    X, y, sample_weight, order, start, end, features, n_classes, criterion,
    min_samples_leaf, min_weight_leaf, monotonic, lower, upper, out_proxy, out_threshold,
    out_missing_left,
):
    """Best cut of ``order[f, start:end]`` for each feature ``f`` in ``features``.

    ``order[f]`` lists the node's rows sorted by feature ``f`` with missing values last.
    For each feature the sweep tries every cut between distinct consecutive values, with
    the missing rows sent right and then left, plus the cut that sends exactly the missing
    rows right. The first cut (in that order) with the largest proxy wins. Results go to
    ``out_proxy[i]`` (-inf when the feature has no valid cut), ``out_threshold[i]`` (value
    <= threshold goes left; +inf means "known left, missing right") and
    ``out_missing_left[i]``. A feature with ``monotonic[f]`` -1 or 1 only takes cuts
    that respect the constraint with both children's class-1 shares in [lower, upper]
    (``impurity.monotone_ok``).
    """
    n = end - start
    for i in prange(features.shape[0]):
        _numeric_split(i, X, y, sample_weight, order, start, end, features, n_classes,
                       criterion, min_samples_leaf, min_weight_leaf, monotonic, lower, upper,
                       out_proxy, out_threshold, out_missing_left, n)


@njit(cache=True)
def best_numeric_splits_serial(
    X, y, sample_weight, order, start, end, features, n_classes, criterion,
    min_samples_leaf, min_weight_leaf, monotonic, lower, upper, out_proxy, out_threshold,
    out_missing_left,
):
    """``best_numeric_splits`` on one thread (nodes below ``PARALLEL_MIN_WORK``)."""
    n = end - start
    for i in range(features.shape[0]):
        _numeric_split(i, X, y, sample_weight, order, start, end, features, n_classes,
                       criterion, min_samples_leaf, min_weight_leaf, monotonic, lower, upper,
                       out_proxy, out_threshold, out_missing_left, n)
