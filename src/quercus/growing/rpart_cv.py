"""rpart's cross-validated cp table: regrow per fold, walk the held-out rows (spec section 5).

Each fold's tree is grown on the other folds' rows with the full data's class weights and
the complexity threshold scaled by the training weight share, in one compiled call
(``grow_fold`` in ``_kernels/_rpart.pyx``, the same growth as
``growing/rpart_grow.Grower``). Held-out rows walk it once per cp-table threshold. Unlike rpart 4.1.19, the error charged is the textbook loss
L(true, predicted), and a row that cannot move down (usesurrogate 0/1) gets the class of the
node where it stopped (rpart's ``xpred.rpart`` does the same; its xerror does not).
"""

from __future__ import annotations

import numpy as np

from quercus.growing.rpart_grow import CRITERIA, CategoricalScratch

from .._kernels._rpart import cv_walk, fold_segments, grow_fold


def thresholds(cps):
    """The betas: 10 c_1, then the geometric means of consecutive cp values."""
    cps = np.asarray(cps, dtype=np.float64)
    betas = np.empty(len(cps))
    betas[0] = 10.0 * cps[0]
    betas[1:] = np.sqrt(cps[:-1] * cps[1:])
    return betas


class FastGrower:
    """Grows trees with the compiled kernel (``_kernels/_rpart.pyx``'s ``grow_fold``) on subsets of
    the rows: the cross-validation folds, and a first pass over the full data that tells
    the record-keeping Python grower which nodes end up split."""

    def __init__(self, X, y, w, costs, control, is_cat, n_levels, full_order, state):
        self.X, self.y, self.w = X, y, w
        self.costs, self.control = costs, control
        self.is_cat, self.n_levels = is_cat, n_levels
        self.full_order = full_order
        self.state = np.array([state[0]])
        self.lmax = max(1, int(n_levels.max()) if len(n_levels) else 1)
        self.K = len(costs.q)
        self.dirs = np.zeros(X.shape[0], dtype=np.int8)
        self.cat = CategoricalScratch(X, is_cat, self.lmax, self.K)
        self.col_nan = np.isnan(X).any(axis=0)
        self.level_seen = np.zeros((X.shape[1], self.lmax), dtype=np.bool_)
        for j in np.flatnonzero(is_cat):
            codes = X[:, j][~np.isnan(X[:, j])].astype(np.int64)
            seen = np.flatnonzero(np.bincount(codes, minlength=self.lmax))
            self.level_seen[j, seen[seen < self.lmax]] = True

    def grow(self, train, alpha, cap=True):
        """Grow on the rows with ``train``; returns (tree arrays, spec arrays, numbers).

        tree = (left, right, complexity, yval, spec0, nspec, majority) per node (node 0 the
        root); complexities capped top-down unless ``cap`` is False.
        """
        X, control, cat = self.X, self.control, self.cat
        n_train = int(train.sum())
        order = np.empty((self.full_order.shape[0], n_train), dtype=np.int64)
        vals = np.empty(order.shape)
        fold_segments(self.full_order, X, train, cat.keep, order, vals)
        size = 2 * n_train + 1
        n_spec = (n_train + 1) * (1 + control.max_surrogates)
        tree = (np.full(size, -1, dtype=np.int64), np.full(size, -1, dtype=np.int64),
                np.zeros(size), np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.int64),
                np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.int8))
        specs = (np.zeros(n_spec, dtype=np.int64), np.zeros(n_spec, dtype=np.bool_),
                 np.zeros(n_spec), np.zeros(n_spec, dtype=np.bool_),
                 np.zeros((n_spec, self.lmax), dtype=np.int8))
        numbers = np.zeros(size, dtype=np.int64)
        costs = self.costs
        n_nodes = grow_fold(
            X, vals, order, np.empty_like(order), np.empty_like(vals), cat.XC, cat.cols,
            cat.pos, cat.keep, cat.C, cat.T, cat.ROWS, cat.COUNT, cat.WL, cat.WR, cat.NL,
            cat.NR, self.y, self.w, costs.a, costs.q, costs.loss, self.is_cat, self.n_levels,
            self.K, CRITERIA[control.criterion], control.min_split, control.min_bucket,
            2 ** control.max_depth - 1, control.max_surrogates, control.use_surrogates,
            control.surrogate_style, alpha, costs.tie, self.state, self.col_nan, self.level_seen,
            self.dirs, cap, numbers, *tree, *specs)
        return tree, specs, numbers[:n_nodes]


def cross_validate(fast, folds, cps, alpha):
    """Held-out class of every row at every cp-table threshold (rows x thresholds).

    ``fast`` is the fit's :class:`FastGrower`; ``folds`` the fold ids 1..G per row; ``cps``
    the cp list (unscaled, descending); ``alpha`` the full data's cp x root risk.
    """
    n = fast.X.shape[0]
    betas = thresholds(cps)
    W = fast.costs.total_weight
    pred = np.zeros((n, len(cps)), dtype=np.int64)
    for g in np.unique(folds):
        held = folds == g
        train = ~held
        scale = float(fast.w[train].sum()) / W
        tree, specs, _ = fast.grow(train, alpha * scale)
        left, right, cp, yval, spec0, nspec, major = tree
        rows = np.flatnonzero(held)
        out = np.zeros((len(rows), len(cps)), dtype=np.int64)
        cv_walk(fast.X, rows, betas * scale, spec0, nspec, major, left, right, cp, yval,
                *specs, out)
        pred[rows] = out
    return pred


def cv_errors(pred, y, w, costs):
    """Summed held-out risk per threshold and its standard error (textbook loss)."""
    e = costs.q[y][:, None] * costs.loss[y[:, None], pred]
    sw = (w[:, None] * e).sum(axis=0)
    sw2 = (w[:, None] * e * e).sum(axis=0)
    var = np.maximum(sw2 - sw * sw / costs.total_weight, 0.0)
    return sw, np.sqrt(var)
