"""Regression histograms: per feature and bin, the sums ``(W, S, Q)`` of a node's rows
(weight, weighted target, weighted squared target; ``split_regression.py``) and the best
squared-error cut in them. The classifier's kernels (``histogram.py``) hold class weights
instead; the scan visits the same cuts in the same order."""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True)
def _fill_features(binned_rows, rows, row_sums, hist, counts, low, high):
    """Histograms of features ``low:high``, zeroed first."""
    hist[low:high, :, :] = 0.0
    counts[low:high, :] = 0
    for p in range(rows.shape[0]):
        r = rows[p]
        w = row_sums[r, 0]
        s = row_sums[r, 1]
        q = row_sums[r, 2]
        for i in range(low, high):
            b = binned_rows[r, i]
            hist[i, b, 0] += w
            hist[i, b, 1] += s
            hist[i, b, 2] += q
            counts[i, b] += 1


@njit(parallel=True, cache=True)
def _fill_blocks(binned_rows, rows, row_sums, hist, counts, n_blocks):
    n_features = binned_rows.shape[1]
    for k in prange(n_blocks):
        _fill_features(binned_rows, rows, row_sums, hist, counts, k * n_features // n_blocks,
                       (k + 1) * n_features // n_blocks)


def fill_sum_histograms(binned_rows, rows, row_sums, hist, counts, n_blocks):
    """hist[i, b] = (W, S, Q) of ``rows`` in bin b of feature i; counts[i, b]: their number.

    ``binned_rows`` (n_rows, n_features) holds the bins row by row: a row's bins share a
    cache line, so a node whose rows lie far apart costs one memory access per row rather
    than one per row and feature. ``row_sums`` (n_rows, 3) holds each row's
    ``(w, w * y, w * y * y)``. With ``n_blocks`` > 1 the features are cut into that many
    blocks, one thread each (a parallel region costs more than a small node's fill); every
    bin adds its rows in the order of ``rows`` whatever the blocks, so the histograms do
    not depend on the thread count."""
    if n_blocks > 1:
        _fill_blocks(binned_rows, rows, row_sums, hist, counts, n_blocks)
    else:
        _fill_features(binned_rows, rows, row_sums, hist, counts, 0, binned_rows.shape[1])


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
