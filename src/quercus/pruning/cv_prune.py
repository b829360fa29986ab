"""CART with priors, a loss matrix and pruning chosen by cross-validation (rpart's way).

``fit_costed_cart`` grows CART's tree on case weights times the split weights of
``ClassCosts`` (unchanged without priors or loss), gives it prior-weighted counts and
least-loss classes, and with ``prune="min" | "1se"``:

1. builds the cp table of the tree's risk-based weakest-link sequence
   (``risk_complexity``);
2. grows the same CART tree on each fold's training rows (same settings and class
   weights), and walks every held-out row down that tree at each row's threshold
   ``beta_k`` (``beta_1 = 10 alpha_1``, ``beta_k = sqrt(alpha_{k-1} alpha_k)``, times the
   fold's share of the training weight), charging ``q_y L(y, predicted)``;
3. ``xerror_k = sum w e / R(root)``, ``xstd_k = sqrt(sum w e^2 - (sum w e)^2 / W) /
   R(root)`` (the standard error of the summed risk), and picks the row by
   ``cp_table.choose_row``; the tree returned is the full tree pruned at that row.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from numbers import Integral

import numpy as np

from ..class_costs import ClassCosts
from ..tree import Tree
from .cost_complexity import prune as prune_ccp
from .cp_table import choose_row, make_cp_table
from .risk_complexity import node_complexities, prune_at, risk_path

__all__ = ["PruningResult", "fit_costed_cart", "pruning_note", "resolve_folds",
           "stratified_folds"]


@dataclass
class PruningResult:
    """The cp table of a fit and the row its rule chose (0-based)."""

    table: object  # pandas DataFrame (cp_table.CP_COLUMNS)
    row: int
    rule: str
    n_folds: int


def stratified_folds(y: np.ndarray, n_folds: int, rng: np.random.RandomState) -> np.ndarray:
    """Fold ids 0..n_folds-1: each class's rows in a random order, dealt to the folds in
    turn (continuing from class to class), so folds differ by at most one row and keep the
    class shares."""
    folds = np.empty(y.shape[0], dtype=np.int64)
    offset = 0
    for cls in np.unique(y):
        rows = np.flatnonzero(y == cls)
        rows = rows[rng.permutation(rows.size)]
        folds[rows] = (offset + np.arange(rows.size)) % n_folds
        offset += rows.size
    return folds


def resolve_folds(xval, y_codes: np.ndarray, rng) -> np.ndarray:
    """Fold id (0-based) of every row, -1 where the class is unknown: ``xval`` folds drawn
    by ``stratified_folds``, or ``xval`` itself, the fold ids 1..K of every row."""
    known = y_codes >= 0
    n_known = int(np.count_nonzero(known))
    if isinstance(xval, Integral) and not isinstance(xval, bool):
        if not 2 <= xval <= n_known:
            raise ValueError(f"xval must be at least 2 folds and at most the {n_known} "
                             f"training rows (or the fold id of every row); got {xval}")
        folds = np.full(y_codes.shape[0], -1, dtype=np.int64)
        folds[known] = stratified_folds(y_codes[known], int(xval), rng)
        return folds
    ids = np.asarray(xval)
    if ids.ndim != 1 or ids.dtype.kind not in "iuf" or ids.shape[0] != y_codes.shape[0]:
        raise ValueError(f"xval must be an int (folds) or the fold id 1..K of each of the "
                         f"{y_codes.shape[0]} rows; got {_shown(xval)}")
    if ids.dtype.kind == "f" and not np.all(ids == np.round(ids)):
        raise ValueError("xval fold ids must be whole numbers 1..K")
    ids = ids.astype(np.int64)
    n_folds = int(ids.max(initial=0))
    used = np.unique(ids)
    if ids.min(initial=1) < 1 or n_folds < 2 or used.size != n_folds:
        raise ValueError(f"xval fold ids must be 1..K with every id used and K >= 2; got "
                         f"ids {used[:10].tolist()}{' ...' if used.size > 10 else ''}")
    return np.where(known, ids - 1, -1)


def _shown(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def thresholds(levels: np.ndarray) -> np.ndarray:
    """Each cp-table row's threshold: 10 times the first complexity, then the geometric
    means of neighbouring complexities (0 for the last row, whose complexity is 0)."""
    beta = np.empty_like(levels)
    beta[0] = 10.0 * levels[0]
    beta[1:] = np.sqrt(levels[1:] * levels[:-1])
    return beta


def _levels_at_or_above(beta: np.ndarray, values: np.ndarray) -> np.ndarray:
    """For each value, how many thresholds (descending) are >= it."""
    return beta.size - np.searchsorted(beta[::-1], values, side="left")


def _progress_part(progress, lo: float, hi: float):
    if progress is None:
        return None
    return lambda share: progress(lo + (hi - lo) * min(max(share, 0.0), 1.0))


def fit_costed_cart(grow, X, y, sample_weight, schema, n_classes: int, settings) -> Tree:
    """CART with ``settings.class_costs`` and, if ``settings.prune``, CV pruning (see the
    module docstring). ``grow(X, y, w, schema, n_classes, settings)`` grows CART's tree;
    ``settings.folds`` holds ``resolve_folds``'s ids; the cp table and chosen row are left
    in ``settings.pruning_result``."""
    costs: ClassCosts = settings.class_costs
    folds = settings.folds
    n_folds = 0 if settings.prune is None else int(folds.max()) + 1
    steps = n_folds + 1

    def grow_costed(rows, part: int) -> Tree:
        y_rows, w_rows = y[rows], sample_weight[rows]
        if not costs.neutral:
            w_rows = w_rows * costs.split_weight[np.maximum(y_rows, 0)]
        fold_settings = replace(settings, ccp_alpha=0.0, progress=_progress_part(
            settings.progress, part / steps, (part + 1) / steps))
        return costs.adjust_tree(grow(X[rows], y_rows, w_rows, schema, n_classes,
                                      fold_settings))

    known = np.flatnonzero(y >= 0)
    tree = grow_costed(known, 0)
    if settings.prune is None:
        return prune_ccp(tree, settings.ccp_alpha)
    risks = costs.node_risks(tree.value)
    path = risk_path(tree, risks)
    beta = thresholds(path.levels)
    total_weight = float(sample_weight[known].sum())
    sums = np.zeros((2, beta.size + 1))  # difference arrays of sum w e and sum w e^2
    for fold in range(n_folds):
        hold = known[folds[known] == fold]
        train = known[folds[known] != fold]
        if hold.size == 0 or train.size == 0:
            continue
        fold_tree = grow_costed(train, fold + 1)
        scale = float(sample_weight[train].sum()) / total_weight
        _add_fold_errors(sums, fold_tree, costs, beta * scale, X[hold], y[hold],
                         sample_weight[hold])
    s1, s2 = np.cumsum(sums, axis=1)[:, :beta.size]
    scale = path.root_risk if path.root_risk > 0 else 1.0
    xerror = s1 / scale
    xstd = np.sqrt(np.maximum(s2 - s1 * s1 / total_weight, 0.0)) / scale
    table = make_cp_table(path.cp, path.nsplit, path.rel_error, xerror, xstd)
    row = choose_row(table, settings.prune)
    settings.pruning_result = PruningResult(table, row, settings.prune, n_folds)
    if settings.progress is not None:
        settings.progress(1.0)
    return prune_at(tree, path.complexity, path.levels[row])


def _add_fold_errors(sums: np.ndarray, tree: Tree, costs: ClassCosts, beta: np.ndarray,
                     X_hold, y_hold, w_hold) -> None:
    """Add the held-out rows' weighted errors (and squares) at every threshold to the
    difference arrays ``sums``: a row stops at the first node on its path whose complexity
    is at most the threshold (complexities never grow down a path, so for each node of
    the path the thresholds it answers form one run)."""
    alpha = node_complexities(tree, costs.node_risks(tree.value))
    classes = costs.node_classes(tree.value) if costs.has_loss else tree.node_classes()
    nodes, ptr = tree.decision_paths(np.asarray(X_hold, dtype=np.float64))
    stop = _levels_at_or_above(beta, alpha[nodes])  # from this row on, the node is passed
    start = np.empty_like(stop)
    start[1:] = stop[:-1]
    start[ptr[:-1]] = 0
    lengths = np.diff(ptr)
    truth = np.repeat(y_hold, lengths)
    error = costs.risk_weight[truth] * costs.loss[truth, classes[nodes]]
    weight = np.repeat(w_hold, lengths)
    live = start < stop
    for i, amount in enumerate((weight * error, weight * error * error)):
        np.add.at(sums[i], start[live], amount[live])
        np.add.at(sums[i], stop[live], -amount[live])


def pruning_note(model) -> str:
    """One line on how a CART or rpart model was pruned by cross-validation (``prune``);
    rpart's pruned cp table stops at the chosen row, so its full size comes from
    ``unpruned_nsplit_``."""
    table = model.cp_table_
    xval = model.xval
    n_folds = xval if isinstance(xval, Integral) else int(np.max(np.asarray(xval)))
    rule = {"min": "least CV error", "1se": "1-SE rule"}.get(model.prune, str(model.prune))
    row = int(np.argmin(np.abs(table["CP"].to_numpy() - model.chosen_cp_)))
    return (f"Pruned by {n_folds}-fold cross-validation ({rule}): cp {model.chosen_cp_:.4g}, "
            f"{int(table['nsplit'][row])} of "
            f"{int(getattr(model, 'unpruned_nsplit_', table['nsplit'].iloc[-1]))} splits, "
            f"CV error {table['xerror'][row]:.4f} +- {table['xstd'][row]:.4f} (relative)")
