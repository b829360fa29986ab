"""Class-weight histograms of a node's rows per feature and bin, and the best cut in them."""

from __future__ import annotations

import numpy as np
from numba import prange

from ._jit import njit
from .impurity import GINI, monotone_ok, split_proxy


@njit(cache=True)
def _weigh_features(binned_rows, rows, y, weights, hist, counts, low, high):
    """Class-weight histograms of features ``low:high``, zeroed first."""
    hist[low:high, :, :] = 0.0
    counts[low:high, :] = 0
    for p in range(rows.shape[0]):
        r = rows[p]
        k = y[r]
        w = weights[r]
        for i in range(low, high):
            b = binned_rows[r, i]
            hist[i, b, k] += w
            counts[i, b] += 1


@njit(cache=True)
def _count_features(binned_rows, rows, y, tally, hist, counts, low, high):
    """Class-count histograms of features ``low:high``: integer tallies (one increment per
    row and feature), then written out as the weight histograms of unit weights."""
    tally[low:high, :, :] = 0
    for p in range(rows.shape[0]):
        r = rows[p]
        k = y[r]
        for i in range(low, high):
            tally[i, binned_rows[r, i], k] += 1
    n_bins, n_classes = tally.shape[1], tally.shape[2]
    for i in range(low, high):
        for b in range(n_bins):
            total = 0
            for c in range(n_classes):
                n = tally[i, b, c]
                hist[i, b, c] = n
                total += n
            counts[i, b] = total


@njit(cache=True)
def _fill_features(binned_rows, rows, y, weights, tally, hist, counts, low, high):
    if weights.shape[0] == 0:
        _count_features(binned_rows, rows, y, tally, hist, counts, low, high)
    else:
        _weigh_features(binned_rows, rows, y, weights, hist, counts, low, high)


@njit(parallel=True, cache=True)
def _fill_blocks(binned_rows, rows, y, weights, tally, hist, counts, n_blocks):
    n_features = binned_rows.shape[1]
    for k in prange(n_blocks):
        _fill_features(binned_rows, rows, y, weights, tally, hist, counts,
                       k * n_features // n_blocks, (k + 1) * n_features // n_blocks)


def fill_histograms(binned_rows, rows, y, weights, tally, hist, counts, n_blocks):
    """hist[i, b, k]: weight of class k among ``rows`` in bin b of feature i; counts[i, b]:
    their number.

    ``binned_rows`` (n_rows, n_features) holds the bins row by row: a row's bins share a
    cache line, so a deep node whose rows lie far apart costs one memory access per row
    rather than one per row and feature. ``weights`` empty: unit weights, so the
    histograms are class counts, tallied as integers in ``tally`` (n_features, bins,
    classes; exact in any order) and copied into ``hist``. Otherwise every bin adds its
    rows' weights in the order of ``rows``. With ``n_blocks`` > 1 the features are cut into
    that many blocks, one thread each; the histograms do not depend on the block count."""
    if n_blocks > 1:
        _fill_blocks(binned_rows, rows, y, weights, tally, hist, counts, n_blocks)
    else:
        _fill_features(binned_rows, rows, y, weights, tally, hist, counts, 0,
                       binned_rows.shape[1])


@njit(cache=True)
def _scan_one(hist, counts, n_bins, missing_bin, criterion, min_samples_leaf,
              min_weight_leaf, total, n_total, left, right, cst, lower, upper):
    """Best cut of one numeric feature's histogram: (proxy, last bin on the left,
    missing_left, first non-empty bin on the right or n_bins). Cuts lie between non-empty bins; missing rows are tried on both sides,
    plus "every known row left, missing rows right"."""
    n_classes = hist.shape[1]
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
        for k in range(n_classes):
            left[k] = hist[missing_bin, k] if missing_left else 0.0
        n_left = n_missing if missing_left else 0
        for b in range(last_known + 1):
            if counts[b] == 0:
                continue
            for k in range(n_classes):
                left[k] += hist[b, k]
            n_left += counts[b]
            if b == last_known and (missing_left or n_missing == 0):
                continue  # nothing would go right
            n_right = n_total - n_left
            if n_left < min_samples_leaf or n_right < min_samples_leaf:
                continue
            weight_left = 0.0
            weight_right = 0.0
            for k in range(n_classes):
                right[k] = total[k] - left[k]
                weight_left += left[k]
                weight_right += right[k]
            if weight_left < min_weight_leaf or weight_right < min_weight_leaf:
                continue
            if weight_left <= 0.0 or weight_right <= 0.0:
                continue
            if cst != 0 and not monotone_ok(left, right, weight_left, weight_right, cst, lower,
                                            upper):
                continue
            proxy = split_proxy(left, right, weight_left, weight_right, criterion)
            if proxy > best:
                best = proxy
                best_bin = b
                best_missing_left = missing_left if n_missing > 0 else n_left > n_right
    next_bin = best_bin + 1
    while next_bin < n_bins and counts[next_bin] == 0:
        next_bin += 1
    return best, best_bin, best_missing_left, next_bin


@njit(cache=True)
def _scan_gini(hist, counts, n_bins, missing_bin, min_samples_leaf, min_weight_leaf, total,
               n_total, left):
    """``_scan_one`` for Gini without a monotonic constraint, in one pass over the classes
    per bin: the same sums in the same order, so the same cut and proxy, several times
    quicker than the general scan's separate loops and calls."""
    n_classes = hist.shape[1]
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
        for k in range(n_classes):
            left[k] = hist[missing_bin, k] if missing_left else 0.0
        n_left = n_missing if missing_left else 0
        for b in range(last_known + 1):
            if counts[b] == 0:
                continue
            weight_left = 0.0
            weight_right = 0.0
            squares_left = 0.0
            squares_right = 0.0
            for k in range(n_classes):
                class_left = left[k] + hist[b, k]
                left[k] = class_left
                class_right = total[k] - class_left
                weight_left += class_left
                weight_right += class_right
                squares_left += class_left * class_left
                squares_right += class_right * class_right
            n_left += counts[b]
            if b == last_known and (missing_left or n_missing == 0):
                continue  # nothing would go right
            n_right = n_total - n_left
            if n_left < min_samples_leaf or n_right < min_samples_leaf:
                continue
            if weight_left < min_weight_leaf or weight_right < min_weight_leaf:
                continue
            if weight_left <= 0.0 or weight_right <= 0.0:
                continue
            proxy = squares_left / weight_left + squares_right / weight_right
            if proxy > best:
                best = proxy
                best_bin = b
                best_missing_left = missing_left if n_missing > 0 else n_left > n_right
    next_bin = best_bin + 1
    while next_bin < n_bins and counts[next_bin] == 0:
        next_bin += 1
    return best, best_bin, best_missing_left, next_bin


@njit(cache=True)
def scan_histograms(hist, counts, features, n_bins, missing_bin, criterion,
                    min_samples_leaf, min_weight_leaf, total, n_total, monotonic, lower, upper,
                    out_proxy, out_bin, out_missing_left, out_next_bin):
    """Best cut per numeric feature (``features`` index rows of hist). One thread: the work
    is features x bins, too little to pay for starting threads. ``monotonic[i]`` (-1/0/1)
    constrains feature i's cuts as in ``split_numeric.best_numeric_splits``."""
    n_classes = hist.shape[2]
    left = np.empty(n_classes)
    right = np.empty(n_classes)
    for j in range(features.shape[0]):
        i = features[j]
        if criterion == GINI and monotonic[i] == 0:
            proxy, b, ml, nb = _scan_gini(hist[i], counts[i], n_bins[i], missing_bin,
                                          min_samples_leaf, min_weight_leaf, total, n_total,
                                          left)
        else:
            proxy, b, ml, nb = _scan_one(hist[i], counts[i], n_bins[i], missing_bin,
                                         criterion, min_samples_leaf, min_weight_leaf, total,
                                         n_total, left, right, monotonic[i], lower, upper)
        out_proxy[j] = proxy
        out_bin[j] = b
        out_missing_left[j] = ml
        out_next_bin[j] = nb


@njit(cache=True)
def partition_by_bin(binned_row, rows, start, end, goes_left_bin, buffer):
    """Stable in-place partition of rows[start:end]: rows whose bin is flagged in
    ``goes_left_bin`` first. Returns the number that go left."""
    n_left = 0
    n_right = 0
    for p in range(start, end):
        r = rows[p]
        if goes_left_bin[binned_row[r]]:
            rows[start + n_left] = r
            n_left += 1
        else:
            buffer[n_right] = r
            n_right += 1
    for k in range(n_right):
        rows[start + n_left + k] = buffer[k]
    return n_left
