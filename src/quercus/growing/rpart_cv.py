"""rpart's cross-validated cp table: regrow per fold, walk the held-out rows (spec section 5).

Each fold's tree is grown on the other folds' rows with the full data's class weights and
the complexity threshold scaled by the training weight share. Held-out rows walk it once per
cp-table threshold. Unlike rpart 4.1.19, the error charged is the textbook loss
L(true, predicted), and a row that cannot move down (usesurrogate 0/1) gets the class of the
node where it stopped (rpart's ``xpred.rpart`` does the same; its xerror does not).
"""

from __future__ import annotations

import numpy as np

from quercus._kernels.rpart_split import cv_walk
from quercus.growing.rpart_grow import Grower, cap_complexities, preorder


def thresholds(cps):
    """The betas: 10 c_1, then the geometric means of consecutive cp values."""
    cps = np.asarray(cps, dtype=np.float64)
    betas = np.empty(len(cps))
    betas[0] = 10.0 * cps[0]
    betas[1:] = np.sqrt(cps[:-1] * cps[1:])
    return betas


def flatten_for_walk(root, use_surrogates, lmax):
    """A grown fold tree as the parallel arrays ``cv_walk`` reads."""
    nodes = preorder(root)
    index = {id(node): i for i, node in enumerate(nodes)}
    m = len(nodes)
    spec0 = np.zeros(m, dtype=np.int64)
    nspec = np.zeros(m, dtype=np.int64)
    major = np.zeros(m, dtype=np.int8)
    left = np.full(m, -1, dtype=np.int64)
    right = np.full(m, -1, dtype=np.int64)
    cp = np.array([node.c for node in nodes])
    yval = np.array([node.yval for node in nodes], dtype=np.int64)
    recs = []
    for i, node in enumerate(nodes):
        if node.left is None:
            continue
        left[i], right[i] = index[id(node.left)], index[id(node.right)]
        chain = [node.primary] + (node.surrogates if use_surrogates >= 1 else [])
        spec0[i], nspec[i] = len(recs), len(chain)
        recs.extend(chain)
        major[i] = node.cv_majority if use_surrogates == 2 else 0
    n = max(1, len(recs))
    feat = np.zeros(n, dtype=np.int64)
    cat = np.zeros(n, dtype=np.bool_)
    cut = np.zeros(n)
    lt = np.zeros(n, dtype=np.bool_)
    sides = np.zeros((n, lmax), dtype=np.int8)
    for s, r in enumerate(recs):
        feat[s] = r.feature
        if r.sides is not None:
            cat[s] = True
            sides[s, :len(r.sides)] = r.sides
        else:
            cut[s] = r.cut
            lt[s] = r.left == "<"
    return (spec0, nspec, major, left, right, cp, yval, feat, cat, cut, lt, sides)


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
    scratch_where = np.full(n, -1, dtype=np.int64)
    for g in np.unique(folds):
        held = folds == g
        train = ~held
        keep = train[full_order[0]]
        order = np.ascontiguousarray(
            np.stack([full_order[j][train[full_order[j]]] for j in range(full_order.shape[0])]))
        del keep
        scale = float(w[train].sum()) / W
        grower = Grower(X, y, w, costs, control, is_cat, n_levels, order, alpha * scale,
                        state, where=scratch_where)
        root = grower.grow()
        cap_complexities(root, -np.inf)
        arrays = flatten_for_walk(root, control.use_surrogates, lmax)
        rows = np.flatnonzero(held)
        out = np.zeros((len(rows), len(cps)), dtype=np.int64)
        cv_walk(X, rows, betas * scale, *arrays, out)
        pred[rows] = out
    return pred


def cv_errors(pred, y, w, costs):
    """Summed held-out risk per threshold and its standard error (textbook loss)."""
    e = costs.q[y][:, None] * costs.loss[y[:, None], pred]
    sw = (w[:, None] * e).sum(axis=0)
    sw2 = (w[:, None] * e * e).sum(axis=0)
    var = np.maximum(sw2 - sw * sw / costs.total_weight, 0.0)
    return sw, np.sqrt(var)
