"""rpart's regression trees (``method = "anova"``), at the level of records.

The classification learner's growth, node complexities, surrogates, routing and pruning
(``growing/rpart_grow``, ``growing/rpart``) with the sum of squares in place of the risk: a
node's ``dev`` is its weighted sum of squares around its mean ``yval``, a split's improve is
the between-groups sum of squares (rows with the feature present) over the node's ``dev``
(``_kernels/rpart_anova``), complexities and the cp table are relative to the root's ``dev``,
and the cross-validated error is the held-out squared error (docs/rpart.md, "Regression
trees").
"""

from __future__ import annotations

import dataclasses

import numpy as np

from quercus._kernels._rpart import anova_best_splits, cv_walk
from quercus.growing.rpart import prune_rpart, sorted_orders
from quercus.growing.rpart_cv import thresholds
from quercus.growing.rpart_grow import (
    TIE_TOLERANCE,
    Grower,
    RpartControl,
    _Node,
    cap_complexities,
    cp_values,
    preorder,
    subtree_sizes,
    tree_records,
)
from quercus.pruning.cp_table import make_cp_table
from quercus.rpart_records import RpartFit

__all__ = ["fit_rpart_anova", "prune_rpart_anova"]


@dataclasses.dataclass
class _AnovaCosts:
    """What the grower reads from the classification costs: one "class" (the categorical
    scratch then holds one sum per level) and the tie tolerance for ranking improves."""

    q: np.ndarray = dataclasses.field(default_factory=lambda: np.ones(1))
    tie: float = TIE_TOLERANCE


class AnovaGrower(Grower):
    """The rpart grower with the anova node summary and split rule."""

    def _summary(self, number, start, nn):
        rows = self.order[0, start:start + nn]
        w, y = self.w[rows], self.y[rows]
        wt = float(w.sum())
        mean = float((w * y).sum() / wt) if wt > 0 else 0.0
        dev = float((w * (y - mean) ** 2).sum())
        return _Node(number, nn, np.array([wt]), dev, mean)

    def _best_splits(self, node, start, nn, out, sides):
        cat = self.cat
        anova_best_splits(self.vals, cat.XC, cat.cols, cat.pos, self.y, self.w, self.order,
                          start, nn, self.is_cat, self.n_levels, self.ctl.min_bucket,
                          node.yval, node.dev, out, sides, cat.C, cat.T, cat.ROWS, cat.COUNT)


def fit_rpart_anova(X, y, weights=None, *, categorical, n_levels, control=None,
                    folds=None) -> RpartFit:
    """Grow rpart's regression tree and its cp table.

    X, categorical, n_levels, control and folds as for ``growing.rpart.fit_rpart``; y is the
    (n,) float64 target. Rows with a missing target or every feature missing are left out
    (rpart's na.rpart; ``dropped``). ``frame["yval"]`` holds node means and ``dev`` sums of
    squares; ``class_counts`` and ``class_probs`` are empty.
    """
    control = RpartControl() if control is None else control
    X = np.asfortranarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    n, p = X.shape
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    if len(y) != n or len(w) != n:
        raise ValueError(f"X has {n} rows but y has {len(y)} and weights {len(w)}")
    if (w < 0).any() or not np.isfinite(w).all():
        raise ValueError("case weights must be finite and non-negative")
    if np.isinf(y).any():
        raise ValueError("the target must be finite (NaN: missing)")
    is_cat = np.asarray(categorical, dtype=np.bool_)
    levels = np.where(is_cat, np.asarray(n_levels, dtype=np.int64), 0)
    keep = ~np.isnan(y)
    if p:
        keep &= ~np.isnan(X).all(axis=1)
    used = np.flatnonzero(keep)
    if not len(used) or w[used].sum() <= 0:
        raise ValueError("no rows with a known target (and some feature) to grow a tree on")
    Xu, yu, wu = np.asfortranarray(X[used]), y[used], w[used]
    folds_u = None if folds is None else np.asarray(folds)[used]
    if folds_u is not None and len(np.unique(folds_u)) < 2:
        raise ValueError("the rows used fall in fewer than two cross-validation folds")
    state = [0.0]  # rpart's running maximum improve, shared by the fit and its folds
    grower = _grower(Xu, yu, wu, control, is_cat, levels, np.arange(len(yu)), 0.0, state)
    grower.order0 = grower.order.copy()  # the sorted orders, before growth partitions them
    R0 = grower._summary(1, 0, len(yu)).dev
    alpha = grower.alpha = control.cp * R0
    root = grower.grow()
    scale = R0 if R0 > 0 else 1.0
    cap_complexities(root, alpha)
    cps = cp_values(root, alpha)
    nsplit, risk = subtree_sizes(root, cps)
    xerror = xstd = None
    if folds_u is not None:
        if root.left is None:
            xerror, xstd = np.zeros(len(cps)), np.zeros(len(cps))
        else:
            pred = _cross_validate(Xu, yu, wu, control, is_cat, levels, folds_u, cps, alpha,
                                   state, grower.order0)
            e = (yu[:, None] - pred) ** 2
            sw = (wu[:, None] * e).sum(axis=0)
            sw2 = (wu[:, None] * e * e).sum(axis=0)
            var = np.maximum(sw2 - sw * sw / wu.sum(), 0.0)
            xerror, xstd = sw / scale, np.sqrt(var) / scale
    table = make_cp_table(np.asarray(cps) / scale, nsplit, np.asarray(risk) / scale, xerror,
                          xstd)
    total = float(wu.sum())
    frame, splits = tree_records(root, scale, lambda node: ([], [], node.wt / total))
    where = np.full(n, -1, dtype=np.int64)
    where[used] = grower.where
    return RpartFit(frame=frame, splits=splits, importance=anova_importance(frame, splits, p),
                    where=where, cp_table=table, root_risk=R0, n_classes=0, priors=None,
                    loss=None, control=control, dropped=np.flatnonzero(~keep).astype(np.int64),
                    method="anova")


class _FoldGrower(AnovaGrower):
    """A cross-validation fold's grower: the same tree, without searching surrogates where
    no row (grown or held out) can miss the primary split (as ``_kernels/rpart_fold``)."""

    def _surrogates(self, node, start, nn, w_l, w_r):
        f = node.primary.feature
        sides = node.primary.sides
        if not self.col_nan[f] and (sides is None
                                    or not (self.level_seen[f][:len(sides)]
                                            & (sides == 0)).any()):
            return []
        return super()._surrogates(node, start, nn, w_l, w_r)


def _grower(X, y, w, control, is_cat, levels, rows, alpha, state):
    order = sorted_orders(X, rows, is_cat)
    return AnovaGrower(X, y, w, _AnovaCosts(), control, is_cat, levels, order, alpha, state)


def _fold_grower(X, y, w, control, is_cat, levels, full_order, train, alpha, state):
    """A grower on the rows with ``train``, their sorted orders cut from the full data's."""
    keep = train[full_order]
    order = full_order[keep].reshape(full_order.shape[0], -1)
    grower = _FoldGrower(X, y, w, _AnovaCosts(), control, is_cat, levels, order, alpha, state)
    grower.col_nan = np.isnan(X).any(axis=0)
    lmax = max(1, int(levels.max()) if len(levels) else 1)
    grower.level_seen = np.zeros((X.shape[1], lmax), dtype=np.bool_)
    for j in np.flatnonzero(is_cat):
        codes = X[:, j][~np.isnan(X[:, j])].astype(np.int64)
        grower.level_seen[j, np.unique(codes)] = True
    return grower


def _cross_validate(X, y, w, control, is_cat, levels, folds, cps, alpha, state, full_order):
    """Held-out prediction (the mean of the node reached) of every row at every cp-table
    threshold: each fold's tree is grown on the other folds with the threshold scaled by
    their weight share, and walked as the classification folds are."""
    betas = thresholds(cps)
    total = w.sum()
    pred = np.zeros((len(y), len(cps)))
    lmax = max(1, int(levels.max()) if len(levels) else 1)
    for g in np.unique(folds):
        held = folds == g
        scale = float(w[~held].sum()) / total
        grower = _fold_grower(X, y, w, control, is_cat, levels, full_order, ~held,
                              alpha * scale, state)
        root = grower.grow()
        cap_complexities(root, -np.inf)
        arrays, means = _walk_arrays(root, grower, lmax, control.use_surrogates)
        rows = np.flatnonzero(held)
        out = np.zeros((len(rows), len(cps)), dtype=np.int64)
        cv_walk(X, rows, betas * scale, *arrays, out)
        pred[rows] = means[out]
    return pred


def _walk_arrays(root, grower, lmax, use_surrogates):
    """A grown tree as ``cv_walk``'s node and split arrays, with node indices as the
    'classes' it returns, and each node's mean."""
    nodes = preorder(root)
    index = {id(node): i for i, node in enumerate(nodes)}
    m = len(nodes)
    left = np.full(m, -1, dtype=np.int64)
    right = np.full(m, -1, dtype=np.int64)
    cp = np.array([node.c for node in nodes])
    spec0 = np.zeros(m, dtype=np.int64)
    nspec = np.zeros(m, dtype=np.int64)
    major = np.zeros(m, dtype=np.int8)
    recs = []
    for i, node in enumerate(nodes):
        if node.left is None:
            continue
        left[i], right[i] = index[id(node.left)], index[id(node.right)]
        spec0[i] = len(recs)
        recs.append(node.primary)
        if use_surrogates >= 1:
            recs.extend(node.surrogates)
        nspec[i] = len(recs) - spec0[i]
        major[i] = node.cv_majority if use_surrogates == 2 else 0
    feat, cat, cut, lt, sides = grower._specs(recs)
    if sides.shape[1] < lmax:
        sides = np.pad(sides, ((0, 0), (0, lmax - sides.shape[1])))
    arrays = (spec0, nspec, major, left, right, cp, np.arange(m, dtype=np.int64), feat, cat,
              cut, lt, sides)
    return arrays, np.array([node.yval for node in nodes])


def anova_importance(frame, splits, n_features):
    """rpart's variable importance of a regression tree: each primary split's reduction of
    the sum of squares (improve x the node's dev), plus adj x that reduction for each
    surrogate."""
    dev = dict(zip(frame["node"], frame["dev"]))
    importance = np.zeros(n_features)
    gain = {}
    for s in splits:
        if s.role == "primary":
            gain[s.node] = s.improve * dev[s.node]
            importance[s.feature] += gain[s.node]
    for s in splits:
        if s.role == "surrogate":
            importance[s.feature] += s.adj * gain[s.node]
    return importance


def prune_rpart_anova(fit: RpartFit, cp: float) -> RpartFit:
    """rpart's ``prune(fit, cp)`` of a regression tree (``growing.rpart.prune_rpart`` with
    the importance of the sum of squares)."""
    pruned = prune_rpart(fit, cp)
    return dataclasses.replace(pruned, method=fit.method,
                               importance=anova_importance(pruned.frame, pruned.splits,
                                                           len(fit.importance)))
