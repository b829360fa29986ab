"""The rpart learner, at the level of records: ``fit_rpart`` and ``prune_rpart``.

Grows rpart 4.1.19's classification tree (docs/rpart.md, "How the rpart learner grows and
cross-validates") and hands it over as an :class:`quercus.rpart_records.RpartFit`: the frame,
the split table (primary, competitors, surrogates), variable importance, every row's node
and the cp table, cross-validated on given folds.
"""

from __future__ import annotations

import copy

import numpy as np

from quercus.growing.rpart_cv import FastGrower, cross_validate, cv_errors
from quercus.growing.rpart_grow import (
    Grower,
    RpartControl,
    build_records,
    cap_complexities,
    cp_values,
    importance_of,
    make_costs,
    subtree_sizes,
)
from quercus.pruning.cp_table import make_cp_table
from quercus.rpart_records import FRAME_COLUMNS, RpartFit

__all__ = ["RpartControl", "fit_rpart", "prune_rpart"]

#: With more than two classes a categorical split tries 2^(levels-1) subsets (rpart's own
#: exhaustive search); beyond this many declared levels that is refused.
MAX_GRAY_LEVELS = 24


def sorted_orders(X, rows, is_cat):
    """(p, len(rows)) int64: ``rows`` sorted by each numeric feature, stable, NaN last.

    Categorical features keep ``rows`` as they are (their segments only list a node's rows;
    their values are tallied from a row-major copy)."""
    order = np.empty((X.shape[1], len(rows)), dtype=np.int64)
    for j in range(X.shape[1]):
        order[j] = rows if is_cat[j] else rows[np.argsort(X[rows, j], kind="stable")]
    return order


def fit_rpart(X, y, weights=None, *, categorical, n_levels, control=None, priors=None,
              loss=None, folds=None, n_classes=None) -> RpartFit:
    """Grow rpart's classification tree and its cp table.

    Parameters
    ----------
    X : (n, p) float64; categorical columns hold level codes 0..n_levels[j]-1 in declared
        level order; NaN is missing.
    y : (n,) int64 class codes 0..K-1 in the target's level order.
    weights : (n,) case weights (None: all 1).
    categorical : (p,) bool, which columns are categorical.
    n_levels : (p,) int, declared levels per categorical column (ignored for numeric).
    control : RpartControl (None: rpart's defaults).
    priors : None (observed shares) or K class probabilities.
    loss : None (0/1) or K x K, rows = true class, columns = predicted.
    folds : None (no cross-validation: xerror/xstd NaN) or fold ids 1..G per row.
    n_classes : K (default: highest class code + 1).
    """
    control = RpartControl() if control is None else control
    X = np.asfortranarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.int64)
    n, p = X.shape
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    is_cat = np.asarray(categorical, dtype=np.bool_)
    levels = np.where(is_cat, np.asarray(n_levels, dtype=np.int64), 0)
    K = int(y.max()) + 1 if n_classes is None else int(n_classes)
    _check_inputs(X, y, w, is_cat, n_levels, K, priors, loss, folds)
    dropped = np.flatnonzero(np.isnan(X).all(axis=1)) if p else np.zeros(0, dtype=np.int64)
    keep = np.ones(n, dtype=np.bool_)
    keep[dropped] = False
    used = np.flatnonzero(keep)
    if len(dropped):
        Xu, yu, wu = np.asfortranarray(X[used]), y[used], w[used]
        folds_u = None if folds is None else np.asarray(folds)[used]
    else:
        Xu, yu, wu = X, y, w
        folds_u = None if folds is None else np.asarray(folds)
    costs = make_costs(yu, wu, K, priors, loss)
    order = sorted_orders(Xu, np.arange(len(yu)), is_cat)
    state = [0.0]  # rpart's running maximum improve, never reset (not even in the folds)
    root_counts = costs.class_totals
    R0 = float(((root_counts * costs.q) @ costs.loss).min())
    alpha = control.cp * R0
    # the cp table and complexities are scaled by the root's risk; a root without risk
    # (one class) is a single leaf whose table is all zeros (R's rpart stops with an error)
    scale = R0 if R0 > 0 else 1.0
    fast = FastGrower(Xu, yu, wu, costs, control, is_cat, levels, order, state)
    tree, _, numbers = fast.grow(np.ones(len(yu), dtype=np.bool_), alpha, cap=False)
    left, cp = tree[0], tree[2]
    guide = {int(numbers[i]): (bool(left[i] >= 0), float(cp[i])) for i in range(len(numbers))}
    grower = Grower(Xu, yu, wu, costs, control, is_cat, levels, order.copy(), alpha,
                    fast.state, guide=guide)
    root = grower.grow()
    cap_complexities(root, alpha)
    cps = cp_values(root, alpha)
    nsplit, risk = subtree_sizes(root, cps)
    xerror = xstd = None
    if folds_u is not None:
        if root.left is None:
            xerror = np.zeros(len(cps))
            xstd = np.zeros(len(cps))
        else:
            pred = cross_validate(fast, folds_u, cps, alpha)
            sw, sd = cv_errors(pred, yu, wu, costs)
            xerror, xstd = sw / scale, sd / scale
    table = make_cp_table(np.asarray(cps) / scale, nsplit, np.asarray(risk) / scale, xerror,
                          xstd)
    frame, splits, importance = build_records(root, costs, p, scale)
    where = np.full(n, -1, dtype=np.int64)
    where[used] = grower.where
    return RpartFit(frame=frame, splits=splits, importance=importance, where=where,
                    cp_table=table, root_risk=R0, n_classes=K, priors=costs.priors,
                    loss=costs.loss, control=control, dropped=dropped.astype(np.int64))


def _check_inputs(X, y, w, is_cat, n_levels, K, priors, loss, folds):
    n, p = X.shape
    if len(y) != n or len(w) != n:
        raise ValueError(f"X has {n} rows but y has {len(y)} and weights {len(w)}")
    if len(is_cat) != p or len(n_levels) != p:
        raise ValueError(f"categorical and n_levels need one entry per column ({p})")
    if n == 0 or y.min() < 0 or y.max() >= K:
        raise ValueError(f"class codes must lie in 0..{K - 1}")
    if (w < 0).any() or not np.isfinite(w).all():
        raise ValueError("case weights must be finite and non-negative")
    if priors is not None:
        pr = np.asarray(priors, dtype=np.float64)
        if pr.shape != (K,) or (pr <= 0).any() or abs(pr.sum() - 1.0) > 1e-8:
            raise ValueError(f"priors must be {K} positive probabilities summing to 1")
    if loss is not None:
        L = np.asarray(loss, dtype=np.float64)
        if L.shape != (K, K) or (L < 0).any() or (np.diag(L) != 0).any():
            raise ValueError(f"loss must be a {K}x{K} non-negative matrix with zero diagonal")
    if K > 2 and is_cat.any() and int(np.max(np.where(is_cat, n_levels, 0))) > MAX_GRAY_LEVELS:
        j = int(np.argmax(np.where(is_cat, n_levels, 0)))
        raise ValueError(f"categorical column {j} has {int(n_levels[j])} levels: with more than "
                         f"2 classes rpart tries every subset, which is limited here to "
                         f"{MAX_GRAY_LEVELS} levels")
    if folds is not None:
        f = np.asarray(folds)
        if f.shape != (n,) or f.min() < 1:
            raise ValueError(f"folds must give a fold id 1..G for each of the {n} rows")


def prune_rpart(fit: RpartFit, cp: float) -> RpartFit:
    """rpart's ``prune(fit, cp)``: keep the internal nodes whose complexity exceeds cp.

    The cp table keeps its rows with CP >= cp (the last CP set to cp), importance is
    recomputed from the surviving splits, and each row's node becomes its deepest
    surviving ancestor.
    """
    frame = fit.frame
    numbers = frame["node"]
    internal = {}
    for i, number in enumerate(numbers):
        internal[number] = frame["feature"][i] >= 0
    keep_split = set()
    kept = set()
    for i, number in enumerate(numbers):  # pre-order: parents come first
        if number != 1 and (number // 2) not in keep_split:
            continue
        kept.add(number)
        if internal[number] and frame["complexity"][i] > cp:
            keep_split.add(number)
    new = {name: [] for name in FRAME_COLUMNS}
    for i, number in enumerate(numbers):
        if number not in kept:
            continue
        for name in FRAME_COLUMNS:
            new[name].append(copy.deepcopy(frame[name][i]))
        if number not in keep_split:
            new["feature"][-1] = -1
            new["ncompete"][-1] = 0
            new["nsurrogate"][-1] = 0
    splits = [s for s in fit.splits if s.node in keep_split]
    where = fit.where.copy()
    for number in np.unique(where[where > 0]):
        node = int(number)
        while node not in kept:
            node //= 2
        if node != number:
            where[fit.where == number] = node
    table = fit.cp_table
    table = table[table["CP"] >= cp].reset_index(drop=True).copy()
    if len(table):
        table.loc[len(table) - 1, "CP"] = cp
    return RpartFit(frame=new, splits=splits, importance=importance_of(splits, len(fit.importance)),
                    where=where, cp_table=table, root_risk=fit.root_risk,
                    n_classes=fit.n_classes, priors=fit.priors, loss=fit.loss,
                    control=fit.control, dropped=fit.dropped)
