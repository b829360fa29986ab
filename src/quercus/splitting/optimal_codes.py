"""Split families of the optimal tree: rows as integer codes, and tests back to Quercus
splits (docs/optimal.md, "Split families").

Numeric "exact": a value's code is its rank among the feature's distinct training values,
so a test ``code <= c`` is any cut between distinct values; the tree gets the midpoint of
the node's values on each side, as CART. Numeric "bins": the code is the number of fixed
thresholds below the value (``numpy.quantile`` of the known values at k/(B+1), k = 1..B,
de-duplicated), so ``code <= c`` is ``value <= thresholds[c]``. Categorical: the code is
the category.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._kernels._optimal import KNOWN, ORDERED
from .._kernels._splits import _midpoint
from ..tree import CATEGORICAL, NUMERIC


@dataclass
class FeatureCodes:
    """The encoded rows and what turns a test back into a threshold or category map."""

    codes: np.ndarray  # (n_rows, n_features) int32, -1 for missing
    n_codes: np.ndarray  # int64 per feature
    categorical: np.ndarray  # bool per feature
    values: list  # per numeric feature: value of each code (exact) or the thresholds (bins)
    binned: bool


def bin_thresholds(column: np.ndarray, max_bins: int) -> np.ndarray:
    """Thresholds at the quantiles k/(B+1), k = 1..B, of the known values, de-duplicated."""
    known = column[~np.isnan(column)]
    if known.size == 0:
        return np.zeros(0)
    levels = [k / (max_bins + 1) for k in range(1, max_bins + 1)]
    return np.unique(np.quantile(known, levels))


class _Present:
    """The distinct values of each column from a table of the whole numbers present
    (computed when a feature's values are asked for)."""

    def __init__(self, low: np.ndarray, present: np.ndarray):
        self.low, self.present = low, present

    def __getitem__(self, f: int) -> np.ndarray:
        return self.low[f] + np.flatnonzero(self.present[f])


def exact_codes(X: np.ndarray):
    """Numeric "exact" codes of every column at once: ``(codes, n_codes, distinct)``, a
    value's code its rank among the column's distinct known values (-1: missing), as
    ``np.searchsorted(np.unique(column), column)`` per column."""
    columns = np.ascontiguousarray(X.T)  # one feature per row
    n_features = columns.shape[0]
    known = ~np.isnan(columns)
    complete = bool(known.all())
    low = (columns if complete else np.where(known, columns, np.inf)).min(axis=1,
                                                                          keepdims=True)
    low[~np.isfinite(low)] = 0.0
    shifted = columns - low if complete else np.where(known, columns - low, 0.0)
    whole = shifted.astype(np.int64)
    span = int(whole.max(initial=0)) + 1
    if np.array_equal(whole, shifted) and n_features * span <= 4 * columns.size:
        # whole numbers in a short range (0/1 indicators, small counts): a table of the
        # values present, its running count is the rank
        if complete and span <= 2:  # 0/1 after the shift: a value is its own rank
            present = np.ones((n_features, span), dtype=bool)
            present[:, -1] = whole.max(axis=1) == span - 1
            codes = whole.astype(np.int32)
        else:
            index = whole + (np.arange(n_features) * span)[:, None]
            present = np.zeros(n_features * span, dtype=bool)
            present[index if complete else index[known]] = True
            present = present.reshape(n_features, span)
            rank = np.cumsum(present, axis=1, dtype=np.int32) - 1
            codes = rank.ravel()[index]
            if not complete:
                codes[~known] = -1
        n_codes = np.maximum(present.sum(axis=1), 1).astype(np.int64)
        return np.ascontiguousarray(codes.T), n_codes, _Present(low[:, 0], present)
    order = np.argsort(columns, axis=1)  # missing values (NaN) sort last
    ordered = np.take_along_axis(columns, order, axis=1)
    known = ~np.isnan(ordered)
    new = np.ones(ordered.shape, dtype=bool)
    new[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    new &= known
    ranks = np.cumsum(new, axis=1, dtype=np.int32) - 1
    ranks[~known] = -1
    codes = np.empty(columns.shape, dtype=np.int32)
    np.put_along_axis(codes, order, ranks, axis=1)
    n_codes = np.maximum(new.sum(axis=1), 1).astype(np.int64)
    distinct = [ordered[f, new[f]] for f in range(n_features)]
    return np.ascontiguousarray(codes.T), n_codes, distinct


def encode_rows(X: np.ndarray, categorical_mask, n_categories, numeric: str,
                max_bins: int) -> FeatureCodes:
    """Codes of every row and feature for the chosen numeric family."""
    n_rows, n_features = X.shape
    categorical_mask = np.asarray(categorical_mask, dtype=bool)
    if numeric != "bins" and not categorical_mask.any() and n_rows > 0:
        codes, n_codes, values = exact_codes(X)
        return FeatureCodes(codes, n_codes, categorical_mask, values, False)
    codes = np.full((n_rows, n_features), -1, dtype=np.int32)
    n_codes = np.zeros(n_features, dtype=np.int64)
    values = []
    for f in range(n_features):
        column = X[:, f]
        known = ~np.isnan(column)
        if categorical_mask[f]:
            codes[known, f] = column[known].astype(np.int32)
            n_codes[f] = max(int(n_categories[f]), 1)
            values.append(None)
        elif numeric == "bins":
            thresholds = bin_thresholds(column, max_bins)
            codes[known, f] = np.searchsorted(thresholds, column[known], side="left")
            n_codes[f] = thresholds.size + 1
            values.append(thresholds)
        else:
            distinct = np.unique(column[known])
            codes[known, f] = np.searchsorted(distinct, column[known])
            n_codes[f] = max(distinct.size, 1)
            values.append(distinct)
    return FeatureCodes(codes, n_codes, categorical_mask, values, numeric == "bins")


@dataclass
class FlatSplit:
    """A test as the flat tree stores it (``missing_branch``: 0 left, 1 right)."""

    kind: int
    feature: int
    threshold: float
    category_map: np.ndarray | None
    missing_branch: int


def to_flat_split(test: np.ndarray, fc: FeatureCodes, rows: np.ndarray, n_left: int,
                  n_right: int, missing: str) -> FlatSplit:
    """The Quercus split of a test at a node holding ``rows``.

    A node that saw no missing value sends them to the side with more rows (right on a
    tie), as CART does, unless ``missing == "false"`` (always right). Categories absent at
    the node follow the larger side too.
    """
    g, kind, param = int(test[0]), int(test[1]), int(test[2])
    node_codes = fc.codes[rows, g]
    has_missing = bool(np.any(node_codes < 0))
    larger = 0 if n_left > n_right else 1
    if missing == "false":
        missing_branch = 1
    elif has_missing:
        missing_branch = 0 if test[3] == 1 else 1
    else:
        missing_branch = larger
    if fc.categorical[g]:
        present = np.unique(node_codes[node_codes >= 0])
        branch = np.full(int(fc.n_codes[g]), larger, dtype=np.int32)
        branch[present] = 1
        if kind == KNOWN:
            branch[present] = 0
        else:
            branch[test[5:5 + int(test[4])]] = 0
        return FlatSplit(CATEGORICAL, g, np.nan, branch, missing_branch)
    if kind == KNOWN:
        return FlatSplit(NUMERIC, g, np.inf, None, 1)
    assert kind == ORDERED
    if fc.binned:
        return FlatSplit(NUMERIC, g, float(fc.values[g][param]), None, missing_branch)
    known = node_codes[node_codes >= 0]
    low = known[known <= param].max()
    high = known[known > param].min()
    values = fc.values[g]
    return FlatSplit(NUMERIC, g, float(_midpoint(values[low], values[high])), None,
                     missing_branch)
