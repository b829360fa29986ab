"""One random cut per numeric feature (``splitter="random"``, scikit-learn's extra trees)."""

from __future__ import annotations

import numpy as np

from ._jit import njit
from .impurity import monotone_ok, split_proxy
from .split_numeric import FEATURE_THRESHOLD, trailing_missing


@njit(cache=True)
def random_numeric_splits(
    X, y, sample_weight, order, start, end, features, uniforms, n_classes, criterion,
    min_samples_leaf, min_weight_leaf, monotonic, lower, upper, out_proxy, out_threshold,
    out_missing_left,
):
    """Score one cut per feature of ``order[f, start:end]`` (rows sorted, missing last).

    The cut of feature ``features[i]`` is ``low + uniforms[i] * (high - low)`` between the
    smallest and largest known value of the node (``low`` if that lands on ``high``), as
    scikit-learn draws it; a feature whose known values span at most FEATURE_THRESHOLD has
    no cut. Missing values are tried on the right, then on the left. Outputs as in
    ``split_numeric.best_numeric_splits``: proxy (-inf when no valid cut), threshold and
    whether missing values go left.
    """
    n = end - start
    left = np.empty(n_classes)
    right = np.empty(n_classes)
    total = np.empty(n_classes)
    missing = np.empty(n_classes)
    known_left = np.empty(n_classes)
    for i in range(features.shape[0]):
        f = features[i]
        out_proxy[i] = -np.inf
        out_threshold[i] = np.nan
        out_missing_left[i] = False
        n_missing = trailing_missing(X, order, f, start, end)
        n_known = n - n_missing
        if n_known == 0:
            continue
        low = X[order[f, start], f]
        high = X[order[f, start + n_known - 1], f]
        if high <= low + FEATURE_THRESHOLD:
            continue
        threshold = low + uniforms[i] * (high - low)
        if threshold >= high:
            threshold = low
        total[:] = 0.0
        missing[:] = 0.0
        known_left[:] = 0.0
        n_known_left = 0
        for p in range(start, end):
            r = order[f, p]
            total[y[r]] += sample_weight[r]
            if p >= start + n_known:
                missing[y[r]] += sample_weight[r]
            elif X[r, f] <= threshold:
                known_left[y[r]] += sample_weight[r]
                n_known_left += 1
        best = -np.inf
        n_passes = 2 if n_missing > 0 else 1
        for pass_index in range(n_passes):
            missing_left = pass_index == 1
            n_left = n_known_left + (n_missing if missing_left else 0)
            n_right = n - n_left
            if n_left < min_samples_leaf or n_right < min_samples_leaf:
                continue
            weight_left = 0.0
            weight_right = 0.0
            for k in range(n_classes):
                left[k] = known_left[k] + (missing[k] if missing_left else 0.0)
                right[k] = total[k] - left[k]
                weight_left += left[k]
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
                out_threshold[i] = threshold
                out_missing_left[i] = missing_left if n_missing > 0 else n_left > n_right
        out_proxy[i] = best
