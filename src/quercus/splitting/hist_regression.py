"""The histogram splitter of regression trees: ``HistSplitter`` with per-bin sums
``(W, S)`` (weight, weighted target) and row counts instead of class weights.

The sums are exact: held in fixed point (``exact_sums.SumLayout``) and rounded to float64
once per bin and node, so they do not depend on the order of the rows (a Dask cluster's
partitions give the same tree, ``quercus.dask``); the larger child's histograms are its
parent's minus its sibling's, exactly. A node's squared targets ``Q`` (for its impurity)
are summed over its rows, not per bin: the partition that makes a split's children adds
up the left child's limbs as it moves them (the right child's are the parent's minus
those), and the split search reads no per-bin Q.

The rows are kept in node order: a copy of their bins (row by row) and limbs in which each
node's rows lie side by side, the partition of a split writing its children into a second
copy (and the next split back), so a node's fill reads memory in sequence rather than one
scattered row at a time.

Everything else is the classifier's: the bins (``binning.BinMapper``, a missing bin of its
own), the smaller child's histograms filled and the larger's obtained by subtraction, the
stable partition by bin, thresholds at bin edges (or midpoints between the values when a
feature has a bin per value, so its cuts are the exact splitter's).
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from .._kernels._hist import (
    fill_ordered_histograms,
    grow_sum_subtree,
    partition_ordered,
    scan_sum_histograms,
)
from .._kernels._openmp import max_threads
from .._kernels._regression import best_mean_ordered_split
from .exact_sums import SumLayout, layout_of
from .hist import HistSplitter, _Siblings
from .regression import RegressionNodes, class_free_options

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
        self._buffer = None  # the partition writes into the other node-order copy
        self.layout = layout or layout_of(self.y, self.sample_weight)
        # the histograms hold W's and S's limbs and the count (Q's limbs are per node)
        self._n_sums = self.layout.quantities[2][0]
        self.hist_layout = self.layout.without_squares()
        row_limbs = self.layout.row_limbs(self.y, self.sample_weight)
        n_features = self.binned.shape[0]
        # two node-order copies of the bins, row by row, each row padded to whole 64-bit
        # words (the partition moves a row's bins a word at a time), and of the limbs
        per_word = 8 // self.binned.dtype.itemsize
        bins = np.zeros((n_rows, -(-n_features // per_word) * per_word),
                        dtype=self.binned.dtype)
        bins[:, :n_features] = self.binned.T
        self._bins = (bins, np.empty_like(bins))
        self._words = tuple(b.view(np.uint64) for b in self._bins)
        m = self.layout.count
        self._limbs = (np.ascontiguousarray(row_limbs[:, :m]), np.empty((n_rows, m), np.int64))
        self._totals = {(0, n_rows): row_limbs.sum(axis=0)}  # (start, end) -> its limbs
        self._copy = {(0, n_rows): 0}  # (start, end) -> the node-order copy holding it
        self._rounded: dict[tuple, np.ndarray] = {}  # split children's (W, S, Q)

    def rows(self, start: int, end: int) -> np.ndarray:
        raise NotImplementedError("the hist regression splitter keeps its rows in node "
                                  "order, not as row indices")

    @property
    def total_weight(self) -> float:
        return self.node_weight(self.class_weights(0, self.n_rows))

    def class_weights(self, start: int, end: int) -> np.ndarray:
        """The segment's (W, S, Q), exact sums rounded once (a split's children's from
        the partition that made them)."""
        sums = self._rounded.pop((start, end), None)
        return self.layout.round(self._totals[(start, end)]) if sums is None else sums

    @staticmethod
    def impurity(sums) -> float:
        """``squared_error`` of the sums, in Python floats (the same IEEE operations as
        the kernel: no kernel call for each of a fit's nodes and children)."""
        w, s, q = float(sums[0]), float(sums[1]), float(sums[2])
        if w <= 0.0:
            return 0.0
        mean = s / w
        return q / w - mean * mean

    def release(self, start: int, end: int) -> None:
        super().release(start, end)
        self._totals.pop((start, end), None)  # its rows stay: a sibling may fill from them

    @cached_property
    def grows_natively(self) -> bool:
        """Whether segments may grow whole in compiled code (``grow_segment``): this class
        itself, numeric features only."""
        return type(self) is RegressionHistSplitter and not self.categorical_mask.any()

    def grow_segment(self, start: int, end: int, depth: int, weights: np.ndarray, rules,
                     total_weight: float):
        """``HistSplitter.grow_segment`` over the exact sums: the segment's sums
        ``weights`` (W, S, Q)."""
        hist = self._histograms(start, end)
        totals = self._totals.pop((start, end))
        copy = self._copy.pop((start, end))
        out = self._subtree_outputs(start, end, depth, rules, 1)
        layout, hist_layout = self.layout, self.hist_layout
        limits = self._limits(rules, layout.digit, layout.count, hist_layout.count,
                              int(layout.unit_weights))
        size = grow_sum_subtree(
            self._bins, self._words, self._limbs, copy, np.ascontiguousarray(hist), totals,
            np.asarray(weights, dtype=np.float64), start, end, depth, layout._arrays,
            hist_layout._arrays, self.n_bins, self.missing_bin, limits,
            self._float_rules(rules), float(total_weight), *out)
        return self._subtree_nodes(size, out)

    def _fill(self, start, end):
        """The segment's limb histograms (n_features, bins, W and S limbs, count)."""
        k = self._copy[(start, end)]
        n_features = self.binned.shape[0]
        hist = np.empty((n_features, self.missing_bin + 1, self._n_sums + 1), dtype=np.int64)
        n_blocks = 1
        if (end - start) * n_features >= PARALLEL_MIN_CELLS:
            n_blocks = min(max_threads(), n_features)
        fill_ordered_histograms(self._bins[k], self._limbs[k], start, end, self._n_sums,
                                hist, n_blocks)
        return hist

    def _histograms(self, start, end):
        """The segment's limb histograms: filled, or its parent's minus its sibling's."""
        siblings = self._pending.pop((start, end), None)
        if siblings is None:
            return self._fill(start, end)
        if siblings.small_hist is None:
            siblings.small_hist = self._fill(*siblings.small)
        if (start, end) == siblings.small:
            return siblings.small_hist
        return siblings.parent - siblings.small_hist

    def find(self, start: int, end: int):
        limbs = self._histograms(start, end)
        hist, counts = self.hist_layout.round_hist(limbs)
        self._node = (start, end, limbs, counts)
        return self.find_in(hist, counts, end - start)

    def apply(self, start: int, end: int, split) -> int:
        """Partition the segment's rows (left first) into the other node-order copy,
        summing the left child's limbs on the way; children's histograms come later."""
        self.count_category_map(split)
        searched = self._node is not None and self._node[:2] == (start, end)
        n_left = (int(self._node[3][split.feature][split.left_bins].sum()) if searched
                  else -1)
        k = self._copy.pop((start, end))
        children = np.empty((2, self.layout.width), dtype=np.int64)
        left, right = children
        n_left = int(partition_ordered(self._bins[k], self._words[k], self._limbs[k],
                                       self._words[1 - k], self._limbs[1 - k], start, end,
                                       split.feature, split.left_bins, n_left, left))
        mid = start + n_left
        np.subtract(self._totals.pop((start, end)), left, out=right)
        rounded = self.layout.round(children)
        for segment, totals, sums in (((start, mid), left, rounded[0]),
                                      ((mid, end), right, rounded[1])):
            self._totals[segment] = totals
            self._rounded[segment] = sums
            self._copy[segment] = 1 - k
        if searched and start < mid < end:
            small = (start, mid) if mid - start <= end - mid else (mid, end)
            siblings = _Siblings(self._node[2], small)
            self._pending[(start, mid)] = siblings
            self._pending[(mid, end)] = siblings
        self._node = None
        return mid

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
