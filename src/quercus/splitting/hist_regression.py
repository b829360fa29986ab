"""The histogram splitter of regression trees: ``HistSplitter`` with per-bin sums
``(W, S, Q)`` (weight, weighted target, weighted squared target) instead of class weights.

The sums are exact: held in fixed point (``exact_sums.SumLayout``) and rounded to float64
once per bin and node, so they do not depend on the order of the rows (a Dask cluster's
partitions give the same tree, ``quercus.dask``); the larger child's histograms are its
parent's minus its sibling's, exactly.

Everything else is the classifier's: the bins (``binning.BinMapper``, a missing bin of its
own), the smaller child's histograms filled and the larger's obtained by subtraction, the
stable partition by bin, thresholds at bin edges (or midpoints between the values when a
feature has a bin per value, so its cuts are the exact splitter's).
"""

from __future__ import annotations

import numpy as np

from .._kernel_path import kernels
from .exact_sums import SumLayout, layout_of
from .hist import HistSplitter
from .regression import RegressionNodes, class_free_options

scan_sum_histograms = kernels("histogram_regression", "scan_sum_histograms")
fill_limb_histograms, sum_rows = kernels("exact_sums", "fill_limb_histograms", "sum_rows")
best_mean_ordered_split = kernels("split_regression", "best_mean_ordered_split")

# From this many (rows x features) a node's histograms are filled on every thread, a block
# of features each (a parallel region costs more than a smaller node's whole fill).
PARALLEL_MIN_CELLS = 2_000_000


class RegressionHistSplitter(RegressionNodes, HistSplitter):
    """Finds and applies the best squared-error split of a node segment, on binned features.

    Parameters as ``RegressionSplitter``'s, plus ``HistSplitter``'s ``max_bins``, ``binner``
    and ``binned`` (rows binned beforehand, X unused) and the ``layout`` of the exact sums
    (default: the one of these rows). A categorical feature's cut is the best prefix of its
    present categories ordered by mean target, as in the exact splitter.
    """

    def __init__(self, X, y, sample_weight, *, categorical_mask, n_categories,
                 min_samples_leaf, min_weight_leaf, max_bins=255, binner=None, binned=None,
                 layout: SumLayout | None = None):
        n_rows = binned.shape[1] if binned is not None else X.shape[0]
        super().__init__(X, np.zeros(n_rows, dtype=np.int32), sample_weight,
                         max_bins=max_bins, binner=binner, binned=binned,
                         **class_free_options(categorical_mask, n_categories,
                                              min_samples_leaf, min_weight_leaf))
        self.y = np.ascontiguousarray(y, dtype=np.float64)
        self.class_factor = None  # sums, not class counts: no per-class factors
        self._ones = None
        # the bins row by row too (one more byte per value): one cache line per row
        self._binned_rows = np.ascontiguousarray(self.binned.T)
        self.layout = layout or layout_of(self.y, self.sample_weight)
        self._row_limbs = self.layout.row_limbs(self.y, self.sample_weight)
        self._totals: dict[tuple, np.ndarray] = {}  # (start, end) -> its sums' limbs

    @property
    def total_weight(self) -> float:
        return self.node_weight(self.class_weights(0, self.n_rows))

    def class_weights(self, start: int, end: int) -> np.ndarray:
        """The segment's (W, S, Q), exact sums rounded once (a split's children's from
        their parent's histograms, as on a cluster)."""
        totals = self._totals.get((start, end))
        if totals is None:
            totals = np.empty(self.layout.width, dtype=np.int64)
            sum_rows(self.rows(start, end), self._row_limbs, totals)
        return self.layout.round(totals)

    def apply(self, start: int, end: int, split) -> int:
        node_start, node_end, limbs, _ = self._node
        mid = super().apply(start, end, split)
        if (node_start, node_end) == (start, end):
            left = limbs[split.feature][split.left_bins].sum(axis=0)
            parent = self._totals.pop((start, end), None)
            if parent is None:
                parent = limbs[split.feature].sum(axis=0)
            self._totals[(start, mid)] = left
            self._totals[(mid, end)] = parent - left
        return mid

    def _fill(self, start, end):
        """The segment's limb histograms (n_features, bins, width) and row counts."""
        shape = (self.binned.shape[0], self.missing_bin + 1)
        limbs = np.empty(shape + (self.layout.width,), dtype=np.int64)
        parallel = (end - start) * shape[0] >= PARALLEL_MIN_CELLS
        if parallel:
            import numba  # only nodes big enough for threads, which run compiled

            n_blocks = min(numba.get_num_threads(), shape[0])
        else:
            n_blocks = 1
        fill_limb_histograms(self._binned_rows, self.rows(start, end), self._row_limbs,
                             limbs, n_blocks)
        return limbs, limbs[..., self.layout.count]

    def find(self, start: int, end: int):
        limbs, counts = self._histograms(start, end)
        self._node = (start, end, limbs, counts)
        hist, counts = self.layout.round_hist(limbs)
        return self.find_in(hist, counts, end - start)

    def _scan(self, hist, counts, numeric, n_total) -> tuple:
        out = self._scan_outputs(numeric.shape[0])
        w_total, s_total, _ = hist[0].sum(axis=0)
        scan_sum_histograms(hist, counts, numeric, self.n_bins, self.missing_bin,
                            self.min_samples_leaf, self.min_weight_leaf, w_total, s_total,
                            n_total, *out)
        return out

    def _categorical(self, f, hist, counts):
        if not self.may_split_categorical(f):
            return None
        sums, codes = self.category_bins(f, hist, counts)
        branch = np.empty(int(self.n_categories[f]), dtype=np.int32)
        proxy, missing_left = best_mean_ordered_split(
            np.ascontiguousarray(sums[:, 0]), np.ascontiguousarray(sums[:, 1]), codes,
            self.min_samples_leaf, self.min_weight_leaf, branch)
        return self.categorical_split(f, branch, proxy, missing_left)
