"""Exact split search of regression trees (squared error), over CART's sorted orders.

``RegressionSplitter`` keeps ``CartSplitter``'s presorted orders, stable partition and
tie rule (the lowest feature index wins exact ties); only what a node is summarised by
changes: instead of class weights, the three sums ``(W, S, Q)`` of
``_kernels/_regression.pyx``. The builders ask it for ``node_weight`` and
``node_value`` (the weighted mean target, the tree's one ``value`` column).
"""

from __future__ import annotations

import numpy as np

from .._kernels._regression import (
    best_mean_ordered_split,
    best_regression_splits,
    best_regression_splits_serial,
    category_sums,
    node_sums,
    squared_error,
)
from ..tree import CATEGORICAL, NUMERIC
from .cart import CartSplitter, Split, threaded

#: friedman_mse is another name of squared_error, as in scikit-learn 1.9: Friedman's
#: improvement w_l * w_r / (w_l + w_r) * (mean_l - mean_r)**2 is a cut's decrease of the
#: node's squared error, so it orders cuts alike. absolute_error and poisson have their own
#: splitters (``splitting/regression_losses.py``, which maps each criterion to its splitter).
REGRESSION_CRITERIA = ("squared_error", "friedman_mse", "absolute_error", "poisson")


class RegressionNodes:
    """What the builders read of a regression node, for any splitter with ``y`` (float
    targets), ``sample_weight`` and ``rows``: its sums ``(W, S, Q)``, weight, value (the
    weighted mean target) and impurity (the weighted variance)."""

    def class_weights(self, start: int, end: int) -> np.ndarray:
        out = np.empty(3)
        node_sums(self.y, self.sample_weight, self.rows(start, end), out)
        return out

    @staticmethod
    def node_weight(sums: np.ndarray) -> float:
        return float(sums[0])

    @staticmethod
    def node_value(sums: np.ndarray) -> np.ndarray:
        return np.array([sums[1] / sums[0] if sums[0] > 0 else 0.0])

    def impurity(self, sums: np.ndarray) -> float:
        return float(squared_error(sums[0], sums[1], sums[2]))


def class_free_options(categorical_mask, n_categories, min_samples_leaf,
                       min_weight_leaf) -> dict:
    """``SplitterBase``'s options for a regression splitter (one dummy class, whose codes
    and criterion its regression methods never read)."""
    return {"categorical_mask": categorical_mask, "n_categories": n_categories,
            "n_classes": 1, "criterion": "gini", "min_samples_leaf": min_samples_leaf,
            "min_weight_leaf": min_weight_leaf}


class RegressionSplitter(RegressionNodes, CartSplitter):
    """Finds and applies the best squared-error split of a node segment.

    Parameters
    ----------
    X : ndarray of float64, shape (n_rows, n_features)
        Encoded features (categorical codes as floats, NaN for missing).
    y : ndarray of float64
        Targets.
    sample_weight : ndarray of float64
    categorical_mask, n_categories : per-feature arrays from the schema.
    min_samples_leaf, min_weight_leaf : the stopping limits a split must respect.

    A categorical feature is split by a subset of its categories: the best prefix of the
    categories ordered by mean target (``best_mean_ordered_split``).
    """

    #: the categorical kernel, from the categories' weights, target sums and counts
    _subset_split = staticmethod(best_mean_ordered_split)

    def __init__(self, X, y, sample_weight, *, categorical_mask, n_categories,
                 min_samples_leaf, min_weight_leaf):
        super().__init__(X, np.zeros(X.shape[0], dtype=np.int32), sample_weight,
                         **class_free_options(categorical_mask, n_categories,
                                              min_samples_leaf, min_weight_leaf))
        self.y = np.ascontiguousarray(y, dtype=np.float64)  # the class codes above unused

    def find(self, start: int, end: int) -> Split | None:
        """Best split of the segment, the lowest feature index winning exact ties."""
        features = self.numeric_features
        self._numeric(start, end, features)
        candidates = {
            int(f): Split(int(f), NUMERIC, float(self._threshold[i]), None,
                          0 if self._missing_left[i] else 1, float(self._proxy[i]))
            for i, f in enumerate(features) if self._proxy[i] > -np.inf}
        for f in self.categorical_features:
            split = self._categorical(int(f), start, end)
            if split is not None:
                candidates[int(f)] = split
        return self.best_candidate(candidates)

    def _numeric(self, start: int, end: int, features: np.ndarray) -> None:
        """Fill ``_proxy``, ``_threshold``, ``_missing_left`` with each feature's best cut."""
        sweep = (best_regression_splits if threaded(start, end, len(features))
                 else best_regression_splits_serial)
        sweep(self.X, self.y, self.sample_weight, self.order, start, end, features,
              self.min_samples_leaf, self.min_weight_leaf, self._proxy, self._threshold,
              self._missing_left)

    def _categorical(self, feature: int, start: int, end: int) -> Split | None:
        if not self.may_split_categorical(feature):
            return None
        n_codes = int(self.n_categories[feature])
        weight, target_sum = np.empty(n_codes + 1), np.empty(n_codes + 1)
        counts = np.empty(n_codes + 1, dtype=np.int64)
        category_sums(self.X, self.y, self.sample_weight, self.order[feature, start:end],
                      feature, weight, target_sum, counts)
        branch = np.empty(n_codes, dtype=np.int32)
        proxy, missing_left = self._subset_split(weight, target_sum, counts,
                                                 self.min_samples_leaf, self.min_weight_leaf,
                                                 branch)
        if proxy == -np.inf:
            return None
        return Split(feature, CATEGORICAL, np.nan, branch, 0 if missing_left else 1, float(proxy))
