"""CART's split search on binned features: histograms per node, the larger child's by
subtraction, the best cut by a scan over bins (the approach of LightGBM and scikit-learn's
histogram gradient boosting, for a single classification tree)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .._kernels._hist import fill_histograms, grow_subtree, partition_by_bin, scan_histograms
from .._kernels._openmp import max_threads
from .._kernels._splits import best_subset_split
from ..binning import BinMapper
from ..tree import CATEGORICAL, LEAF, NUMERIC, Tree
from .cart import Split, SplitterBase

# From this many (rows x features) a node's histograms are filled on every thread, a block
# of features each (a parallel region costs more than a smaller node's whole fill).
PARALLEL_MIN_WORK = 2_000_000
# Up to this many bytes of bins, a row-major copy is made for filling histograms; above it
# the fills read the (n_features, n_rows) bins through a transposed view (no copy, the
# memory of large fits as documented in docs/large_files.md).
ROW_MAJOR_MAX_BYTES = 256 * 2**20


@dataclass
class _Siblings:
    """Two children of one split: the parent's histograms until both have theirs."""

    parent: tuple
    small: tuple  # (start, end) of the child with fewer rows
    small_hist: tuple | None = None


def per_class_factors(y: np.ndarray, weights: np.ndarray, n_classes: int) -> np.ndarray | None:
    """The weight of each class when every row's weight is its class's (unit weights and
    ``class_weight`` alone), else None (per-row ``sample_weight``)."""
    factor = np.ones(n_classes)
    factor[y] = weights  # any row's weight; the check below sees whether they all agree
    return factor if np.array_equal(weights, factor[y]) else None


class HistSplitter(SplitterBase):
    """Finds and applies the best binary split of a node segment, on binned features.

    Same interface as ``CartSplitter``; thresholds are bin edges, so fitted trees predict
    from raw values with the usual kernels. Rows binned elsewhere (a CSV binned while it
    is read, ``quercus.data.csv_stream``) come in as ``binned`` with their ``binner``.
    """

    def __init__(self, X, y, sample_weight, *, max_bins=255, binner=None, binned=None,
                 **options):
        super().__init__(y, sample_weight, **options)
        self.binner = binner or BinMapper(max_bins).fit(X, self.categorical_mask,
                                                        self.n_categories)
        # binned: the rows already binned by ``binner``, (n_features, n_rows); X is unused
        self.binned = self.binner.transform(X) if binned is None else binned
        self.n_bins = self.binner.n_bins_
        self.missing_bin = self.binner.missing_bin_
        n_rows = self.binned.shape[1]
        self.all_rows = np.arange(n_rows, dtype=np.int64)
        self._buffer = np.empty(n_rows, dtype=np.int64)
        self.numeric = np.flatnonzero(~self.categorical_mask).astype(np.int64)
        self.class_factor = per_class_factors(self.y, self.sample_weight, self.n_classes)
        # unit weights (class factors apply after the sums): integer class tallies
        self._no_weights = np.zeros(0)
        self._rows_major = None  # the bins row by row, made at the first fill
        self._pending: dict[tuple, _Siblings] = {}
        self._class_counts: dict[tuple, np.ndarray] = {}  # children's, read off at a split
        self._node = None  # (start, end, hist, counts) of the node last searched

    @cached_property
    def _unit_factors(self) -> bool:
        """Whether the class factors leave the class counts as they are (read once the
        splitter is set up: subclasses set ``class_factor`` after this class's init)."""
        return self.class_factor is None or bool(np.all(self.class_factor == 1.0))

    @cached_property
    def categorical(self) -> np.ndarray:
        """The categorical features' indices."""
        return np.flatnonzero(self.categorical_mask)

    @property
    def n_rows(self) -> int:
        return self.all_rows.shape[0]

    def rows(self, start: int, end: int) -> np.ndarray:
        return self.all_rows[start:end]

    @property
    def binned_rows(self) -> np.ndarray:
        """The bins indexed (row, feature): a row-major copy up to ``ROW_MAJOR_MAX_BYTES``
        (so a deep node's scattered rows cost one memory access each in
        ``fill_histograms``), else a transposed view of ``binned``. Same histograms."""
        if self._rows_major is None:
            self._rows_major = (np.ascontiguousarray(self.binned.T)
                                if self.binned.nbytes <= ROW_MAJOR_MAX_BYTES
                                else self.binned.T)
        return self._rows_major

    def _fill(self, start, end):
        shape = (self.binned.shape[0], self.missing_bin + 1)
        hist = np.empty(shape + (self.n_classes,))
        counts = np.empty(shape, dtype=np.int64)
        n_blocks = 1
        if (end - start) * shape[0] >= PARALLEL_MIN_WORK:
            n_blocks = min(max_threads(), shape[0])
        # weights that depend only on the class: hist holds class counts (exact, order-free)
        if self.class_factor is None:
            weights, tally = self.sample_weight, np.empty((0, 0, 0), dtype=np.int32)
        else:
            weights = self._no_weights
            tally = np.empty(shape + (self.n_classes,),
                             dtype=np.int32 if self.n_rows < 2**31 else np.int64)
        fill_histograms(self.binned_rows, self.rows(start, end), self.y, weights, tally, hist,
                        counts, n_blocks)
        return hist, counts

    @property
    def total_weight(self) -> float:
        """The training weight: class counts times class factors when weights are per class."""
        if self.class_factor is None:
            return float(self.sample_weight.sum())
        return float((np.bincount(self.y, minlength=self.n_classes) * self.class_factor).sum())

    def class_weights(self, start: int, end: int) -> np.ndarray:
        if self.class_factor is None:
            return super().class_weights(start, end)
        counts = self._class_counts.pop((start, end), None)
        if counts is None:
            counts = np.bincount(self.y[self.rows(start, end)], minlength=self.n_classes)
        return counts * self.class_factor

    def weighted(self, hist: np.ndarray) -> np.ndarray:
        """Class-weight histograms from what ``_histograms`` keeps (class counts when the
        weights are per class: one multiplication after the sums, as on a cluster)."""
        if self._unit_factors:
            return hist
        return hist * self.class_factor

    def _histograms(self, start, end):
        """The segment's histograms: filled, or its parent's minus its sibling's."""
        siblings = self._pending.pop((start, end), None)
        if siblings is None:
            return self._fill(start, end)
        if (start, end) == siblings.small:
            if siblings.small_hist is None:
                siblings.small_hist = self._fill(start, end)
            return siblings.small_hist
        if siblings.small_hist is None:
            siblings.small_hist = self._fill(*siblings.small)
        parent_hist, parent_counts = siblings.parent
        small_hist, small_counts = siblings.small_hist
        return parent_hist - small_hist, parent_counts - small_counts

    @cached_property
    def grows_natively(self) -> bool:
        """Whether segments may grow whole in compiled code (``grow_segment``): this class
        itself, weights per class (summed in class order: unit factors or fewer than 8
        classes), numeric features only, no feature sampling, no monotonic constraints."""
        return (type(self) is HistSplitter and self.class_factor is not None
                and (self._unit_factors or self.n_classes < 8)
                and self.max_features is None and self.monotonic_cst is None
                and not self.categorical_mask.any())

    def grows_whole(self, start: int, end: int) -> bool:
        """Whether the segment grows whole in one compiled call: ``grows_natively`` and
        small enough for one thread (``PARALLEL_MIN_WORK``)."""
        return self.grows_natively and (end - start) * self.binned.shape[0] < PARALLEL_MIN_WORK

    def grow_segment(self, start: int, end: int, depth: int, weights: np.ndarray, rules,
                     total_weight: float) -> Tree:
        """Grow the segment ``start:end`` at ``depth``, with class weights ``weights``, into
        the subtree the builder of ``growing/builders.py`` would grow (``rules``: its
        ``StoppingRules``), in one compiled call (``_kernels/_hist.pyx``)."""
        hist, counts = self._histograms(start, end)
        out = self._subtree_outputs(start, end, depth, rules, self.n_classes)
        size = grow_subtree(
            self.binned_rows, self.binned, self.all_rows, self._buffer, self.y,
            np.asarray(self.class_factor, dtype=np.float64),
            self._unit_factors, np.ascontiguousarray(hist), np.ascontiguousarray(counts),
            np.asarray(weights, dtype=np.float64), start, end, depth, self.n_bins,
            self.missing_bin, self._limits(rules), self._float_rules(rules),
            float(total_weight), self.criterion, *out)
        return self._subtree_nodes(size, out)

    @staticmethod
    def _limits(rules, *more: int) -> np.ndarray:
        """The kernel's integer stopping rules (max_depth, min_samples_split,
        min_samples_leaf), then ``more``."""
        return np.array([min(rules.max_depth, np.iinfo(np.int64).max), rules.min_samples_split,
                         rules.min_samples_leaf, *more], dtype=np.int64)

    @staticmethod
    def _float_rules(rules) -> np.ndarray:
        return np.array([rules.min_weight_leaf, rules.min_impurity_decrease])

    @staticmethod
    def _subtree_outputs(start: int, end: int, depth: int, rules, n_values: int) -> tuple:
        """Empty node fields for a segment's subtree: as many nodes as it may have."""
        levels = min(rules.max_depth - depth, 62)
        capacity = max(1, min(2 * (end - start) - 1, 2 ** (levels + 1) - 1))
        ints = tuple(np.empty(capacity, dtype=np.int64) for _ in range(5))
        return ints + (np.empty(capacity, dtype=np.bool_), np.empty((capacity, n_values)),
                       np.empty(capacity), np.empty(capacity, dtype=np.int64),
                       np.empty(capacity))

    def _subtree_nodes(self, size: int, out: tuple) -> Tree:
        """The subtree of the first ``size`` nodes a kernel wrote into ``_subtree_outputs``
        (pre-order: a split's left child follows it), with the thresholds of its cuts."""
        (parent, branch, feature, last_bin, next_bin, missing_left, value, impurity,
         n_samples, weight) = (array[:size] for array in out)
        split = feature >= 0
        threshold = np.full(size, np.nan)
        at = np.flatnonzero(split)
        known_right = next_bin[at] < self.n_bins[feature[at]]  # else missing rows alone
        threshold[at] = np.inf
        cuts = at[known_right]
        threshold[cuts] = self.binner.thresholds(feature[cuts], last_bin[cuts], next_bin[cuts])
        children = np.full((size, 2), -1, dtype=np.int64)
        below = parent >= 0
        children[parent[below], branch[below]] = np.flatnonzero(below)
        return Tree(kind=np.where(split, NUMERIC, LEAF).astype(np.int8),
                    feature=feature.astype(np.int32), threshold=threshold,
                    child_ptr=np.concatenate([[0], np.cumsum(split * 2)]).astype(np.int64),
                    child_ids=children[split].ravel().astype(np.int32),
                    missing_branch=np.where(split & ~missing_left, 1, 0).astype(np.int32),
                    category_ptr=np.zeros(size + 1, dtype=np.int64),
                    category_branch=np.zeros(0, dtype=np.int32), value=value,
                    impurity=impurity, n_node_samples=n_samples,
                    weighted_n_node_samples=weight)

    def release(self, start: int, end: int) -> None:
        """Forget a segment that became a leaf without a split search."""
        self._pending.pop((start, end), None)

    def find(self, start: int, end: int) -> Split | None:
        hist, counts = self._histograms(start, end)
        self._node = (start, end, hist, counts)
        return self.find_in(self.weighted(hist), counts, end - start)

    def find_in(self, hist: np.ndarray, counts: np.ndarray, n_total: int) -> Split | None:
        """Best split given a node's class-weight histograms (n_features, bins, classes),
        its row counts per bin and its number of rows (``quercus.dask`` calls this with
        histograms summed over a cluster)."""
        candidates = {}
        numeric, categorical = self.numeric, self.categorical
        if self.max_features is not None:
            searched = self.sample_features(np.count_nonzero(counts, axis=1) >= 2)
            numeric = searched[~self.categorical_mask[searched]].astype(np.int64)
            categorical = searched[self.categorical_mask[searched]]
        if numeric.shape[0]:
            proxy, last_bin, missing_left, next_bin = self._scan(hist, counts, numeric,
                                                                 n_total)
            j = int(np.argmax(proxy))  # the first best: the lowest feature index
            if proxy[j] > -np.inf:  # only the winner among numeric features is built
                candidates[int(numeric[j])] = self.numeric_split(
                    int(numeric[j]), proxy[j], last_bin[j], missing_left[j], next_bin[j])
        for f in categorical:
            split = self._categorical(int(f), hist, counts)
            if split is not None:
                candidates[int(f)] = split
        return self.best_candidate(candidates)

    @staticmethod
    def _scan_outputs(m: int) -> tuple:
        """Empty (proxy, last bin, missing_left, next bin) arrays for m features' scans."""
        return (np.empty(m), np.empty(m, dtype=np.int64), np.empty(m, dtype=np.bool_),
                np.empty(m, dtype=np.int64))

    def _scan(self, hist, counts, numeric, n_total) -> tuple:
        """Each numeric feature's best cut: (proxy, last bin, missing_left, next bin)."""
        out = self._scan_outputs(numeric.shape[0])
        lower, upper = self.bounds
        scan_histograms(hist, counts, numeric, self.n_bins, self.missing_bin, self.criterion,
                        self.min_samples_leaf, self.min_weight_leaf, hist[0].sum(axis=0),
                        n_total, self.monotonic, lower, upper, *out)
        return out

    def _categorical(self, f, hist, counts):
        if not self.may_split_categorical(f):
            return None
        weights, codes = self.category_bins(f, hist, counts)
        branch = np.empty(int(self.n_categories[f]), dtype=np.int32)
        proxy, missing_left = best_subset_split(weights, codes, self.criterion,
                                                self.min_samples_leaf, self.min_weight_leaf,
                                                branch)
        return self.categorical_split(f, branch, proxy, missing_left)

    def category_bins(self, f: int, hist, counts) -> tuple:
        """A categorical feature's histogram and counts, one entry per code, then the
        missing rows' (the layout of the subset searches)."""
        n_codes = int(self.n_categories[f])
        missing = self.missing_bin
        return (np.concatenate([hist[f, :n_codes], hist[f, missing : missing + 1]]),
                np.concatenate([counts[f, :n_codes], counts[f, missing : missing + 1]]))

    def numeric_split(self, f: int, proxy, last_bin, missing_left, next_bin) -> Split:
        """The split of a scan's best cut: bins up to ``last_bin`` (and the missing bin if
        ``missing_left``) go left, the threshold lies before ``next_bin``."""
        b = int(last_bin)
        left_bins = np.zeros(self.missing_bin + 1, dtype=np.bool_)
        left_bins[: b + 1] = True
        left_bins[self.missing_bin] = bool(missing_left)
        nb = int(next_bin)
        threshold = (self.binner.threshold(f, b, nb) if nb < self.n_bins[f]
                     else np.inf)  # known rows left, missing rows right
        return Split(f, NUMERIC, threshold, None, 0 if missing_left else 1, float(proxy),
                     left_bins)

    def categorical_split(self, f: int, branch, proxy, missing_left) -> Split | None:
        """The split of a subset search's result (None when it found no valid split)."""
        if proxy == -np.inf:
            return None
        left_bins = np.zeros(self.missing_bin + 1, dtype=np.bool_)
        left_bins[: branch.shape[0]] = branch == 0
        left_bins[self.missing_bin] = bool(missing_left)
        return Split(f, CATEGORICAL, np.nan, branch, 0 if missing_left else 1, float(proxy),
                     left_bins)

    def apply(self, start: int, end: int, split: Split) -> int:
        """Partition the segment's rows (left first); children's histograms come later."""
        self.count_category_map(split)
        n_left = partition_by_bin(self.binned[split.feature], self.all_rows, start, end,
                                  split.left_bins, self._buffer)
        mid = start + int(n_left)
        node_start, node_end, hist, counts = self._node
        if (node_start, node_end) == (start, end) and self.class_factor is not None:
            # class counts of the children from the split feature's histogram (whole
            # numbers: exact, so the same as counting the rows)
            column = hist[split.feature]
            left = column[split.left_bins].sum(axis=0)
            self._class_counts[(start, mid)] = left
            self._class_counts[(mid, end)] = column.sum(axis=0) - left
        if (node_start, node_end) == (start, end) and start < mid < end:
            small = (start, mid) if mid - start <= end - mid else (mid, end)
            siblings = _Siblings((hist, counts), small)
            self._pending[(start, mid)] = siblings
            self._pending[(mid, end)] = siblings
        self._node = None
        return mid
