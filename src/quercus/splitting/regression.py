"""Exact split search of regression trees (squared error), over CART's sorted orders.

``RegressionSplitter`` keeps ``CartSplitter``'s presorted orders, stable partition and
tie rule (the lowest feature index wins exact ties); only what a node is summarised by
changes: instead of class weights, the three sums ``(W, S, Q)`` of
``_kernels/split_regression.py``. The builders ask it for ``node_weight`` and
``node_value`` (the weighted mean target, the tree's one ``value`` column).
"""

from __future__ import annotations

import numpy as np

from .._kernels.split_regression import best_regression_splits, node_sums, squared_error
from ..tree import NUMERIC
from .cart import CartSplitter, Split

REGRESSION_CRITERIA = ("squared_error",)


class RegressionSplitter(CartSplitter):
    """Finds and applies the best squared-error split of a node segment.

    Parameters
    ----------
    X : ndarray of float64, shape (n_rows, n_features)
        Encoded numeric features (NaN for missing).
    y : ndarray of float64
        Targets.
    sample_weight : ndarray of float64
    min_samples_leaf, min_weight_leaf : the stopping limits a split must respect.
    """

    def __init__(self, X, y, sample_weight, *, min_samples_leaf, min_weight_leaf):
        n_features = X.shape[1]
        super().__init__(X, np.zeros(X.shape[0], dtype=np.int32), sample_weight,
                         categorical_mask=np.zeros(n_features, dtype=bool),
                         n_categories=np.zeros(n_features, dtype=np.int64), n_classes=1,
                         criterion="gini", min_samples_leaf=min_samples_leaf,
                         min_weight_leaf=min_weight_leaf)
        self.y = np.ascontiguousarray(y, dtype=np.float64)  # the class codes above unused

    # what the builders read of a node: its sums, weight, value and impurity
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

    def find(self, start: int, end: int) -> Split | None:
        """Best split of the segment, the lowest feature index winning exact ties."""
        features = self.numeric_features
        best_regression_splits(self.X, self.y, self.sample_weight, self.order, start, end,
                               features, self.min_samples_leaf, self.min_weight_leaf,
                               self._proxy, self._threshold, self._missing_left)
        candidates = {
            int(f): Split(int(f), NUMERIC, float(self._threshold[i]), None,
                          0 if self._missing_left[i] else 1, float(self._proxy[i]))
            for i, f in enumerate(features) if self._proxy[i] > -np.inf}
        return self.best_candidate(candidates)
