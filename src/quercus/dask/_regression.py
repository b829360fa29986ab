"""Regression trees on a Dask cluster: ``DecisionTreeRegressor(splitter="hist")``.

The classifier's passes (scan, sample, bin, levels, subtrees grown apart, best-first
rounds, checkpoints) with exact target sums in place of class counts: the scan also finds
the range of the targets and their squares, which fixes the fixed-point ``SumLayout``
(``splitting.exact_sums``); each worker adds its rows' limbs per (node, feature, bin), the
driver adds the workers' int64 limbs and rounds each sum to float64 once. The one-machine
hist regressor rounds the same exact sums, so the model file is the same for any
partitioning.
"""

from __future__ import annotations

import numpy as np

from ..pruning.cost_complexity import prune
from ..splitting.exact_sums import SumLayout, layout_for, merge_ranges
from ..splitting.hist_regression import RegressionHistSplitter
from ..splitting.regression import RegressionNodes, class_free_options
from . import _worker
from ._levels import ClusterSplitter

HIST_CRITERIA = ("squared_error", "friedman_mse")


class RegressionClusterSplitter(ClusterSplitter):
    """``RegressionHistSplitter``'s search over limb histograms a cluster summed.

    ``counts[(start, end)]`` holds a node's int64 limbs (n_features, bins, width),
    ``class_counts[(start, end)]`` its totals (width,)."""

    cell_bytes = 8
    node_weight = staticmethod(RegressionNodes.node_weight)
    node_value = staticmethod(RegressionNodes.node_value)
    impurity = RegressionNodes.impurity
    _scan = RegressionHistSplitter._scan
    _categorical = RegressionHistSplitter._categorical

    def __init__(self, binner, layout: SumLayout, *, categorical_mask, n_categories,
                 min_samples_leaf, min_weight_leaf):
        super().__init__(binner, np.ones(1), **class_free_options(
            categorical_mask, n_categories, min_samples_leaf, min_weight_leaf))
        self.layout = layout

    def rows_in(self, totals: np.ndarray) -> int:
        return int(totals[self.layout.count])

    def class_weights(self, start: int, end: int) -> np.ndarray:
        return self.layout.round(self.class_counts[(start, end)])

    def find(self, start: int, end: int):
        hist, counts = self.layout.round_hist(self.counts[(start, end)])
        return self.find_in(hist, counts, end - start)

    def apply(self, start: int, end: int, split) -> int:
        self.count_category_map(split)
        left = self.counts[(start, end)][split.feature][split.left_bins].sum(axis=0)
        mid = start + int(left[self.layout.count])
        self.class_counts[(start, mid)] = left
        self.class_counts[(mid, end)] = self.class_counts[(start, end)] - left
        self.applied[(start, end)] = split
        return mid


def check(estimator, sample_weight) -> None:
    """Refuse, in one line, what a cluster regression fit does not do."""
    if estimator.algorithm != "cart" or estimator.splitter not in ("hist", "auto"):
        raise ValueError("a Dask collection can only be fitted with algorithm='cart' and "
                         "splitter='hist' (or 'auto')")
    if estimator.criterion not in HIST_CRITERIA:
        raise ValueError(f"a Dask regression fit sums targets per bin: criterion "
                         f"{estimator.criterion!r} (a median or a deviance) cannot be found "
                         f"from such sums; use squared_error or fit on one machine")
    if sample_weight is not None:
        raise ValueError("sample_weight is not supported with a Dask X yet")


def _limb_totals(part: dict) -> tuple:
    return part["limbs"].sum(axis=0), part["missing"]


def fit_regression(estimator, X, y, source, names, has_names, client, fit_id,
                   max_bins, sample_rows, seed, local_rows, batch, timeout, on_level,
                   progress, checkpoint, resume):
    """``quercus.dask.fit`` for a ``DecisionTreeRegressor`` (its arguments, checked)."""
    from . import _count_missing, _fingerprint, _gather, _grow, _prepare

    schema, binner, n_known, described, binning = _prepare(
        estimator, X, y, source, names, client, max_bins, sample_rows, seed,
        timeout, regression=True)
    layout = layout_for(merge_ranges([d["ranges"] for d in described]), n_known, True)
    parts = binning(_worker.bin_regression_partition, schema, binner, layout)
    del binning  # kept partitions are released once binned
    root = np.zeros(layout.width, dtype=np.int64)
    any_missing = False
    for totals, missing in _gather(client, client.map(_limb_totals, parts, pure=False),
                                   timeout, "binning"):
        root += totals
        any_missing |= missing
    rules, ccp_alpha = estimator._rules(n_known, n_known)
    options = {"categorical_mask": schema.categorical_mask,
               "n_categories": schema.n_categories,
               "min_samples_leaf": rules.min_samples_leaf,
               "min_weight_leaf": rules.min_weight_leaf}
    splitter = RegressionClusterSplitter(binner, layout, **options)
    total_weight = float(layout.round(root)[0])
    shape = (schema.n_features, binner.missing_bin_ + 1, layout.width)
    apart = (binner, {**options, "layout": layout}, total_weight, None, 1)
    tree = _grow(client, parts, fit_id, splitter, rules, 1, root, total_weight, shape, apart,
                 n_known, local_rows, batch, timeout, on_level, progress, checkpoint, resume,
                 _fingerprint(schema, binner, estimator, repr(layout)))
    estimator.tree_ = prune(tree, ccp_alpha)
    _count_missing(client, parts, estimator.tree_, binner, schema, timeout, any_missing)
    estimator._set_fitted(schema, has_names)
    return estimator
