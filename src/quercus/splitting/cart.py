"""CART's exact split search: binary numeric thresholds and categorical subsets.

The rows of every node are kept, per feature, in sorted order (one presort, then a stable
partition at each split), so a node is a segment ``start:end`` of each feature's order.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from .._kernels._splits import (
    ENTROPY,
    FEATURE_THRESHOLD,
    GINI,
    PARALLEL_MIN_WORK,
    argsort_columns,
    best_numeric_splits,
    best_numeric_splits_serial,
    best_subset_split,
    category_class_weights,
    impurity_of,
    node_class_weights,
    partition_orders,
    partition_orders_serial,
    random_numeric_splits,
    route_categorical,
    route_numeric,
)
from ..tree import CATEGORICAL, NUMERIC


def threaded(start: int, end: int, n_features: int) -> bool:
    """Whether a node's per-feature kernels take threads: nodes of at least
    ``PARALLEL_MIN_WORK`` rows x features (``_kernels/_splits.pyx``)."""
    return (end - start) * n_features >= PARALLEL_MIN_WORK


CRITERION_CODES = {"gini": GINI, "entropy": ENTROPY, "log_loss": ENTROPY}

#: Most category-map entries (one per category of the feature, per categorical split) a
#: CART tree may hold: 2**25 int32 entries, 128 MiB. A categorical split whose map would
#: go beyond is not considered (see ``SplitterBase.may_split_categorical``).
MAX_CATEGORY_MAP_ENTRIES = 1 << 25


@dataclass
class Split:
    """A chosen binary split: branch 0 is the left child."""

    feature: int
    kind: int
    threshold: float
    category_map: np.ndarray | None
    missing_branch: int
    proxy: float
    left_bins: np.ndarray | None = None  # histogram splitter: which bins go left


class SplitterBase:
    """What every CART splitter shares: the rows' classes and weights, the stopping limits
    a split must respect, and the rule that picks the winner among features.

    Subclasses provide ``rows(start, end)`` (the rows of a node segment), ``find`` and
    ``apply``.

    With ``max_features`` (an int below the feature count) each node searches that many
    features that are not constant in it, drawn at random with ``rng`` (a numpy
    RandomState) as scikit-learn draws them: features in a random order, constant ones
    passed over. ``monotonic_cst`` (int8 per feature) constrains the share of class 1;
    the grower sets ``bounds`` (lower, upper) of that share before each ``find``.
    """

    def __init__(self, y, sample_weight, *, categorical_mask, n_categories, n_classes,
                 criterion, min_samples_leaf, min_weight_leaf, max_features=None, rng=None,
                 monotonic_cst=None):
        self.y = np.ascontiguousarray(y, dtype=np.int32)
        self.sample_weight = np.ascontiguousarray(sample_weight, dtype=np.float64)
        self.n_classes = int(n_classes)
        self.criterion = CRITERION_CODES[criterion]
        self.min_samples_leaf = int(min_samples_leaf)
        self.min_weight_leaf = float(min_weight_leaf)
        self.categorical_mask = np.asarray(categorical_mask, dtype=bool)
        self.n_categories = np.asarray(n_categories, dtype=np.int64)
        self.category_map_entries = 0  # held by the categorical splits applied so far
        n_features = self.categorical_mask.shape[0]
        self.max_features = max_features
        self.rng = rng
        self.monotonic_cst = monotonic_cst
        self.monotonic = (np.zeros(n_features, dtype=np.int8) if monotonic_cst is None
                          else np.ascontiguousarray(monotonic_cst, dtype=np.int8))
        self.bounds = (0.0, 1.0)

    def sample_features(self, nonconstant: np.ndarray) -> np.ndarray:
        """The features a node searches (sorted): all of them, or ``max_features`` of the
        non-constant ones (``nonconstant``: bool per feature) in a random order."""
        n_features = nonconstant.shape[0]
        if self.max_features is None or self.max_features >= n_features:
            return np.arange(n_features)
        drawn = self.rng.permutation(n_features)
        return np.sort(drawn[nonconstant[drawn]][: self.max_features])

    def may_split_categorical(self, feature: int) -> bool:
        """False once a split on this feature would take the tree's category maps beyond
        MAX_CATEGORY_MAP_ENTRIES (a feature with 100,000 categories: after 335 such splits),
        which bounds the memory of a tree on a feature with very many categories."""
        n_codes = int(self.n_categories[feature])
        if self.category_map_entries + n_codes <= MAX_CATEGORY_MAP_ENTRIES:
            return True
        if not getattr(self, "_warned_map_limit", False):
            self._warned_map_limit = True
            warnings.warn(f"the category maps of this tree reached {MAX_CATEGORY_MAP_ENTRIES:,} "
                          f"entries; feature {feature} ({n_codes:,} categories) is not split "
                          "on further", UserWarning, stacklevel=2)
        return False

    def count_category_map(self, split: Split) -> None:
        """Add an applied split's category map to the running total."""
        if split.kind == CATEGORICAL:
            self.category_map_entries += int(split.category_map.shape[0])

    def class_weights(self, start: int, end: int) -> np.ndarray:
        out = np.empty(self.n_classes)
        node_class_weights(self.y, self.sample_weight, self.rows(start, end), out)
        return out

    def impurity(self, class_weights: np.ndarray) -> float:
        return float(impurity_of(class_weights, self.criterion))

    @staticmethod
    def best_candidate(candidates: dict) -> Split | None:
        """The split with the largest proxy; the lowest feature index wins exact ties."""
        best = None
        for f in sorted(candidates):
            if best is None or candidates[f].proxy > best.proxy:
                best = candidates[f]
        return best


class CartSplitter(SplitterBase):
    """Finds and applies the best binary split of a node segment.

    Parameters
    ----------
    X : ndarray of float64, shape (n_rows, n_features)
        Encoded features (categorical codes as floats, NaN for missing).
    y : ndarray of int32
        Class codes.
    sample_weight : ndarray of float64
    categorical_mask, n_categories : per-feature arrays from the schema.
    """

    def __init__(self, X, y, sample_weight, *, random_thresholds=False, **options):
        super().__init__(y, sample_weight, **options)
        self.random_thresholds = bool(random_thresholds)
        self.X = np.ascontiguousarray(X, dtype=np.float64)
        n_rows, _n_features = self.X.shape
        index_type = np.int32 if n_rows < 2**31 - 1 else np.int64
        self.order = np.empty(self.X.shape[::-1], dtype=index_type)
        argsort_columns(self.X, self.order)  # each column's stable order, NaN last
        self._buffer = np.empty_like(self.order)
        self._goes_left = np.zeros(n_rows, dtype=np.bool_)
        self.numeric_features = np.flatnonzero(~self.categorical_mask).astype(np.int64)
        self.categorical_features = np.flatnonzero(self.categorical_mask).astype(np.int64)
        m = len(self.numeric_features)
        self._proxy = np.empty(m)
        self._threshold = np.empty(m)
        self._missing_left = np.empty(m, dtype=np.bool_)

    @property
    def n_rows(self) -> int:
        return self.X.shape[0]

    def rows(self, start: int, end: int) -> np.ndarray:
        return self.order[0, start:end]

    def find(self, start: int, end: int) -> Split | None:
        """Best split of the segment, the lowest feature index winning exact ties."""
        candidates: dict[int, Split] = {}
        numeric, categorical = self.numeric_features, self.categorical_features
        if self.max_features is not None:
            searched = self.sample_features(self._nonconstant(start, end))
            numeric = searched[~self.categorical_mask[searched]].astype(np.int64)
            categorical = searched[self.categorical_mask[searched]]
        if len(numeric):
            lower, upper = self.bounds
            if self.random_thresholds:
                random_numeric_splits(
                    self.X, self.y, self.sample_weight, self.order, start, end, numeric,
                    self.rng.uniform(size=len(numeric)), self.n_classes, self.criterion,
                    self.min_samples_leaf, self.min_weight_leaf, self.monotonic, lower, upper,
                    self._proxy, self._threshold, self._missing_left)
            else:
                sweep = (best_numeric_splits if threaded(start, end, len(numeric))
                         else best_numeric_splits_serial)
                sweep(
                    self.X, self.y, self.sample_weight, self.order, start, end, numeric,
                    self.n_classes, self.criterion, self.min_samples_leaf,
                    self.min_weight_leaf, self.monotonic, lower, upper, self._proxy,
                    self._threshold, self._missing_left)
            for i, f in enumerate(numeric):
                if self._proxy[i] > -np.inf:
                    candidates[int(f)] = Split(int(f), NUMERIC, float(self._threshold[i]), None,
                                               0 if self._missing_left[i] else 1,
                                               float(self._proxy[i]))
        for f in categorical:
            split = self._categorical(int(f), start, end)
            if split is not None:
                candidates[int(f)] = split
        return self.best_candidate(candidates)

    def _nonconstant(self, start: int, end: int) -> np.ndarray:
        """Per feature, whether the segment holds two known values further apart than
        FEATURE_THRESHOLD (or known and missing ones): the smallest and largest come
        first and last in the feature's order, missing values after them."""
        features = np.arange(self.X.shape[1])
        first = self.X[self.order[:, start], features]
        last = self.X[self.order[:, end - 1], features]
        with np.errstate(invalid="ignore"):
            spread = last > first + FEATURE_THRESHOLD
        return spread | (np.isnan(last) & ~np.isnan(first))

    def _categorical(self, feature: int, start: int, end: int) -> Split | None:
        if not self.may_split_categorical(feature):
            return None
        n_codes = int(self.n_categories[feature])
        weights = np.empty((n_codes + 1, self.n_classes))
        counts = np.empty(n_codes + 1, dtype=np.int64)
        category_class_weights(self.X, self.y, self.sample_weight, self.order[feature, start:end],
                               feature, weights, counts)
        branch = np.empty(n_codes, dtype=np.int32)
        proxy, missing_left = best_subset_split(weights, counts, self.criterion,
                                                self.min_samples_leaf, self.min_weight_leaf,
                                                branch)
        if proxy == -np.inf:
            return None
        return Split(feature, CATEGORICAL, np.nan, branch, 0 if missing_left else 1, float(proxy))

    def apply(self, start: int, end: int, split: Split) -> int:
        """Partition the segment (left rows first in every order); returns the cut position."""
        rows = self.rows(start, end)
        self.count_category_map(split)
        if split.kind == NUMERIC:
            route_numeric(self.X, rows, split.feature, split.threshold, split.missing_branch == 0,
                          self._goes_left)
        else:
            route_categorical(self.X, rows, split.feature, split.category_map,
                              split.missing_branch, self._goes_left)
        partition = (partition_orders if threaded(start, end, self.order.shape[0])
                     else partition_orders_serial)
        n_left = partition(self.order, start, end, self._goes_left, self._buffer)
        return start + int(n_left)
