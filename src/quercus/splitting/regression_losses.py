"""The splitters of the regression criteria beyond squared error: absolute error and Poisson.

Both keep ``RegressionSplitter``'s sorted orders, candidate cuts, learned missing side and
tie rule; what changes is what a node is summarised by (three numbers the builders read
through ``node_weight``, ``node_value`` and ``impurity``) and how cuts are ranked.
``splitter_class`` maps each criterion name to its splitter.
"""

from __future__ import annotations

import numpy as np

from .._kernels._regression import (
    POISSON,
    best_absolute_splits,
    best_absolute_splits_serial,
    best_absolute_subset_split,
    best_poisson_subset_split,
    best_regression_splits,
    best_regression_splits_serial,
    node_absolute_stats,
    node_poisson_stats,
    node_ranks,
)
from ..errors import DataError
from ..tree import CATEGORICAL
from .cart import Split, threaded
from .regression import RegressionSplitter


class AbsoluteErrorSplitter(RegressionSplitter):
    """Splits minimising the children's summed weighted absolute deviation from their
    medians; a node is summarised by ``(W, median, deviation)`` and predicts the median,
    its impurity ``deviation / W`` (scikit-learn's). A categorical feature is split by the
    best of all subsets of its groups when there are few (``best_absolute_subset_split``).
    """

    def __init__(self, X, y, sample_weight, **options):
        super().__init__(X, y, sample_weight, **options)
        self._rank = np.zeros(self.n_rows, dtype=np.int64)

    def class_weights(self, start: int, end: int) -> np.ndarray:
        out = np.empty(3)
        node_absolute_stats(self.y, self.sample_weight, self.rows(start, end), out)
        return out

    @staticmethod
    def node_value(sums: np.ndarray) -> np.ndarray:
        return np.array([sums[1]])

    def impurity(self, sums: np.ndarray) -> float:
        return float(sums[2] / sums[0]) if sums[0] > 0 else 0.0

    def _numeric(self, start: int, end: int, features: np.ndarray) -> None:
        sorted_y = node_ranks(self.y, self.rows(start, end), self._rank)
        sweep = (best_absolute_splits if threaded(start, end, len(features))
                 else best_absolute_splits_serial)
        sweep(self.X, self.y, self.sample_weight, self.order, start, end, features, self._rank,
              sorted_y, self.min_samples_leaf, self.min_weight_leaf, self._proxy,
              self._threshold, self._missing_left)

    def _categorical(self, feature: int, start: int, end: int) -> Split | None:
        if not self.may_split_categorical(feature):
            return None
        n_codes = int(self.n_categories[feature])
        branch = np.empty(n_codes, dtype=np.int32)
        proxy, missing_left = best_absolute_subset_split(
            self.X, self.y, self.sample_weight, self.order[feature, start:end], feature,
            n_codes, self.min_samples_leaf, self.min_weight_leaf, branch)
        if proxy == -np.inf:
            return None
        return Split(feature, CATEGORICAL, np.nan, branch, 0 if missing_left else 1, float(proxy))


class PoissonSplitter(RegressionSplitter):
    """Splits minimising the children's half Poisson deviance; a node is summarised by
    ``(W, S, deviance)`` and predicts its mean. Refuses a negative target or one whose
    sum is not positive, as scikit-learn does. A categorical feature is split by the best
    valid subset (``best_poisson_subset_split``)."""

    _subset_split = staticmethod(best_poisson_subset_split)

    def __init__(self, X, y, sample_weight, **options):
        targets = np.asarray(y, dtype=np.float64)
        if np.any(targets < 0):
            raise DataError("Some value(s) of y are negative which is not allowed for Poisson "
                            "regression.")
        if np.sum(targets) <= 0:
            raise DataError("Sum of y is not positive which is necessary for Poisson "
                            "regression.")
        super().__init__(X, y, sample_weight, **options)

    def class_weights(self, start: int, end: int) -> np.ndarray:
        out = np.empty(3)
        node_poisson_stats(self.y, self.sample_weight, self.rows(start, end), out)
        return out

    def impurity(self, sums: np.ndarray) -> float:
        return float(sums[2] / sums[0]) if sums[0] > 0 else 0.0

    def _numeric(self, start: int, end: int, features: np.ndarray) -> None:
        sweep = (best_regression_splits if threaded(start, end, len(features))
                 else best_regression_splits_serial)
        sweep(self.X, self.y, self.sample_weight, self.order, start, end, features,
              self.min_samples_leaf, self.min_weight_leaf, self._proxy, self._threshold,
              self._missing_left, POISSON)


_SPLITTERS = {"squared_error": RegressionSplitter, "friedman_mse": RegressionSplitter,
              "absolute_error": AbsoluteErrorSplitter, "poisson": PoissonSplitter}


def splitter_class(criterion: str) -> type[RegressionSplitter]:
    """The exact splitter of a regression criterion (one of ``REGRESSION_CRITERIA``)."""
    return _SPLITTERS[criterion]
