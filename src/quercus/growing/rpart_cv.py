"""rpart's cross-validated cp table: regrow per fold, walk the held-out rows (spec section 5).

Each fold's tree is grown on the other folds' rows with the full data's class weights and
the complexity threshold scaled by the training weight share, in one numba call
(``_kernels/rpart_fold.py``, the same growth as ``growing/rpart_grow.Grower``). Held-out rows walk it once per
cp-table threshold. Unlike rpart 4.1.19, the error charged is the textbook loss
L(true, predicted), and a row that cannot move down (usesurrogate 0/1) gets the class of the
node where it stopped (rpart's ``xpred.rpart`` does the same; its xerror does not).
"""

from __future__ import annotations

import numpy as np

from quercus._kernels.rpart_fold import fold_segments, grow_fold
from quercus._kernels.rpart_split import cv_walk
from quercus.growing.rpart_grow import CRITERIA, CategoricalScratch


def thresholds(cps):
    """The betas: 10 c_1, then the geometric means of consecutive cp values."""
    cps = np.asarray(cps, dtype=np.float64)
    betas = np.empty(len(cps))
    betas[0] = 10.0 * cps[0]
    betas[1:] = np.sqrt(cps[:-1] * cps[1:])
    return betas


def cross_validate(X, y, w, costs, control, is_cat, n_levels, full_order, folds, cps, alpha,
                   state):
    """Held-out class of every row at every cp-table threshold, and xerror / xstd.

    Parameters
    ----------
    full_order : (p, n) array of every row sorted by each feature (NaN last).
    folds : int array of fold ids 1..G per row.
    cps : the cp list (unscaled, descending).

    Returns
    -------
    pred : (n, m) int64, xerror : (m,), xstd : (m,) (both divided by the root risk later).
    """
    n = X.shape[0]
    betas = thresholds(cps)
    W = costs.total_weight
    pred = np.zeros((n, len(cps)), dtype=np.int64)
    lmax = max(1, int(n_levels.max()) if len(n_levels) else 1)
    K = len(costs.q)
    crit = CRITERIA[control.criterion]
    dirs = np.zeros(n, dtype=np.int8)
    state = np.array([state[0]])
    cat = CategoricalScratch(X, is_cat, lmax, K)
    col_nan = np.isnan(X).any(axis=0)
    level_seen = np.zeros((X.shape[1], lmax), dtype=np.bool_)
    for j in np.flatnonzero(is_cat):
        codes = X[:, j][~np.isnan(X[:, j])].astype(np.int64)
        seen = np.flatnonzero(np.bincount(codes, minlength=lmax))
        level_seen[j, seen[seen < lmax]] = True
    for g in np.unique(folds):
        held = folds == g
        train = ~held
        n_train = int(train.sum())
        order = np.empty((full_order.shape[0], n_train), dtype=np.int64)
        vals = np.empty(order.shape)
        fold_segments(full_order, X, train, cat.keep, order, vals)
        cap = 2 * n_train + 1
        n_spec = (n_train + 1) * (1 + control.max_surrogates)
        tree = (np.full(cap, -1, dtype=np.int64), np.full(cap, -1, dtype=np.int64),
                np.zeros(cap), np.zeros(cap, dtype=np.int64), np.zeros(cap, dtype=np.int64),
                np.zeros(cap, dtype=np.int64), np.zeros(cap, dtype=np.int8))
        specs = (np.zeros(n_spec, dtype=np.int64), np.zeros(n_spec, dtype=np.bool_),
                 np.zeros(n_spec), np.zeros(n_spec, dtype=np.bool_),
                 np.zeros((n_spec, lmax), dtype=np.int8))
        scale = float(w[train].sum()) / W
        grow_fold(X, vals, order, np.empty_like(order), np.empty_like(vals), cat.XC, cat.cols,
                  cat.pos, cat.keep, cat.C, cat.T, cat.ROWS, cat.COUNT, cat.WL, cat.WR,
                  cat.NL, cat.NR, y, w, costs.a,
                  costs.q, costs.loss, is_cat, n_levels, K, crit, control.min_split,
                  control.min_bucket, 2 ** control.max_depth - 1, control.max_surrogates,
                  control.use_surrogates, control.surrogate_style, alpha * scale, state,
                  col_nan, level_seen, dirs,
                  *tree, *specs)
        left, right, cp, yval, spec0, nspec, major = tree
        rows = np.flatnonzero(held)
        out = np.zeros((len(rows), len(cps)), dtype=np.int64)
        cv_walk(X, rows, betas * scale, spec0, nspec, major, left, right, cp, yval, *specs,
                out)
        pred[rows] = out
    return pred


def cv_errors(pred, y, w, costs):
    """Summed held-out risk per threshold and its standard error (textbook loss)."""
    e = costs.q[y][:, None] * costs.loss[y[:, None], pred]
    sw = (w[:, None] * e).sum(axis=0)
    sw2 = (w[:, None] * e * e).sum(axis=0)
    var = np.maximum(sw2 - sw * sw / costs.total_weight, 0.0)
    return sw, np.sqrt(var)
