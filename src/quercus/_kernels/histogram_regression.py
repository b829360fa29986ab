"""The best squared-error cut in regression histograms: per feature and bin, the sums
``(W, S, Q)`` of a node's rows (weight, weighted target, weighted squared target), filled
exactly by ``exact_sums.py``. The classifier's kernels (``histogram.py``) hold class weights
instead; the scan visits the same cuts in the same order."""

from __future__ import annotations

import numpy as np

from ._jit import njit


@njit(cache=True)
def _scan_one(hist, counts, n_bins, missing_bin, min_samples_leaf, min_weight_leaf,
              w_total, s_total, n_total):
    """Best cut of one numeric feature's histogram, as ``histogram._scan_one``: (proxy, last
    bin on the left, missing_left, first non-empty bin on the right or n_bins), the proxy
    ``S_left**2 / W_left + S_right**2 / W_right``."""
    n_missing = counts[missing_bin]
    best = -np.inf
    best_bin = -1
    best_missing_left = False
    last_known = -1
    for b in range(n_bins):
        if counts[b] > 0:
            last_known = b
    if last_known < 0:
        return best, best_bin, best_missing_left, n_bins
    passes = 2 if n_missing > 0 else 1
    for pass_index in range(passes):
        missing_left = pass_index == 1
        w_left = hist[missing_bin, 0] if missing_left else 0.0
        s_left = hist[missing_bin, 1] if missing_left else 0.0
        n_left = n_missing if missing_left else 0
        for b in range(last_known + 1):
            if counts[b] == 0:
                continue
            w_left += hist[b, 0]
            s_left += hist[b, 1]
            n_left += counts[b]
            if b == last_known and (missing_left or n_missing == 0):
                continue  # nothing would go right
            n_right = n_total - n_left
            if n_left < min_samples_leaf or n_right < min_samples_leaf:
                continue
            w_right = w_total - w_left
            if w_left < min_weight_leaf or w_right < min_weight_leaf:
                continue
            if w_left <= 0.0 or w_right <= 0.0:
                continue
            s_right = s_total - s_left
            proxy = s_left * s_left / w_left + s_right * s_right / w_right
            if proxy > best:
                best = proxy
                best_bin = b
                best_missing_left = missing_left if n_missing > 0 else n_left > n_right
    next_bin = best_bin + 1
    while next_bin < n_bins and counts[next_bin] == 0:
        next_bin += 1
    return best, best_bin, best_missing_left, next_bin


@njit(cache=True)
def scan_sum_histograms(hist, counts, features, n_bins, missing_bin, min_samples_leaf,
                        min_weight_leaf, w_total, s_total, n_total, out_proxy, out_bin,
                        out_missing_left, out_next_bin):
    """Best squared-error cut per numeric feature (``features`` index rows of hist), the
    outputs as ``histogram.scan_histograms``'s."""
    for j in range(features.shape[0]):
        i = features[j]
        proxy, b, ml, nb = _scan_one(hist[i], counts[i], n_bins[i], missing_bin,
                                     min_samples_leaf, min_weight_leaf, w_total, s_total,
                                     n_total)
        out_proxy[j] = proxy
        out_bin[j] = b
        out_missing_left[j] = ml
        out_next_bin[j] = nb
