"""C4.5 with ``prune="cv"``: J48's confidence factor and ``min_samples_leaf`` chosen from a
small grid by internal stratified cross-validation (docs/c45.md, "Choosing the pruning by
cross-validation").

Per fold and per ``min_samples_leaf`` one tree is grown and collapsed; each confidence
factor prunes a copy of it (C4.5 grows, then prunes, and the confidence only enters the
pruning), so the grid costs folds x leaf sizes growths, not folds x grid size.
"""

from __future__ import annotations

import dataclasses
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._kernels._c45 import PARALLEL_MIN_WORK, copy_store
from .._kernels._openmp import limited, max_threads
from ..learners import Settings, grow_c45_collapsed, prune_c45
from ..tree import Tree

__all__ = ["CONFIDENCE_GRID", "MIN_SAMPLES_LEAF_GRID", "N_FOLDS", "C45Selection",
           "chosen_settings", "search_for", "select_c45_pruning", "stratified_folds"]

#: Confidence factors tried: J48's 0.25 with three steps below (more pruning) and two above.
CONFIDENCE_GRID = (0.05, 0.1, 0.15, 0.25, 0.35, 0.5)
#: Leaf sizes tried when ``min_samples_leaf`` is None: J48's 2, then 5 and 10.
MIN_SAMPLES_LEAF_GRID = (2, 5, 10)
DEFAULT_CONFIDENCE = 0.25
N_FOLDS = 5
TIE = 1e-12  # mean accuracies this close are equal
PREDICT_MIN_ROWS = 20_000  # a smaller test fold is predicted on one thread
SEARCH_SHARE = 0.9  # of the progress bar: the search; the final fit takes the rest


@dataclass
class C45Selection:
    """The outcome of the search: every setting's scores and the one chosen."""

    table: pd.DataFrame  # confidence, min_samples_leaf, accuracy, std_error, leaves, chosen
    best_params: dict  # {"confidence": ..., "min_samples_leaf": ...}


def stratified_folds(y: np.ndarray, n_folds: int, rng: np.random.RandomState) -> np.ndarray:
    """Fold id (0 .. n_folds - 1) of every row with a known label (-1 where y < 0).

    Each class's rows, shuffled by ``rng``, are dealt to the folds in turn, continuing
    where the previous class stopped, so fold sizes differ by at most one row and every
    fold holds each class in proportion (up to one row).
    """
    folds = np.full(y.shape[0], -1, dtype=np.int64)
    dealt = 0
    for c in np.unique(y[y >= 0]):
        rows = np.flatnonzero(y == c)
        rows = rows[rng.permutation(rows.size)]
        folds[rows] = (dealt + np.arange(rows.size)) % n_folds
        dealt += rows.size
    return folds


def _default_rank(confidences, leaf_sizes, default_leaf: int) -> np.ndarray:
    """Grid steps from J48's setting (confidence 0.25 and ``default_leaf``), per cell."""
    c0 = int(np.argmin(np.abs(np.asarray(confidences) - DEFAULT_CONFIDENCE)))
    m0 = int(np.argmin(np.abs(np.asarray(leaf_sizes) - default_leaf)))
    m, c = np.meshgrid(np.arange(len(leaf_sizes)), np.arange(len(confidences)), indexing="ij")
    return np.abs(m - m0) + np.abs(c - c0)


def _choose(accuracy: np.ndarray, leaves: np.ndarray, rank: np.ndarray) -> int:
    """Flat index of the best cell: highest mean accuracy, then fewest mean leaves, then
    fewest grid steps from J48's default, then the first in table order."""
    best = accuracy.max()
    tied = np.flatnonzero(accuracy.ravel() >= best - TIE)
    fewest = leaves.ravel()[tied].min()
    tied = tied[leaves.ravel()[tied] <= fewest]
    return int(tied[np.argmin(rank.ravel()[tied])])  # argmin: the first of equal ranks


@contextmanager
def _threads(n_threads: int):
    """Run the block on at most ``n_threads`` of OpenMP's threads (waking threads for a small
    kernel call costs more than the call: ~10 ms against 0.05 ms for 200 rows)."""
    with limited(n_threads):
        yield


def _accuracy(tree: Tree, X, y, weights, tie_rtol: float) -> float:
    with _threads(1 if X.shape[0] < PREDICT_MIN_ROWS else max_threads()):
        correct = tree.predict_codes(X, tie_rtol) == y
    total = weights.sum()
    return float(np.dot(correct, weights) / total) if total > 0 else float(correct.mean())


def select_c45_pruning(X, y, weights, schema, n_classes: int, settings: Settings, *,
                       leaf_sizes=MIN_SAMPLES_LEAF_GRID, confidences=CONFIDENCE_GRID,
                       n_folds: int = N_FOLDS, rng: np.random.RandomState,
                       tie_rtol: float = 0.0, progress=None) -> C45Selection:
    """Score every (``min_samples_leaf``, confidence) pair by stratified K-fold CV.

    X, y, weights are the estimator's encoded rows (y -1 where the class is missing: such
    rows train in every fold and are never tested). Accuracy is weighted by ``weights``;
    a fold's tree predicts as ``DecisionTreeClassifier.predict`` does (``tie_rtol``).
    ``progress``, if given, gets the share of the growths done.
    """
    n_known = int(np.count_nonzero(y >= 0))
    if n_known < n_folds:
        raise ValueError(f"prune='cv' needs at least {n_folds} rows with a known class "
                         f"(one per fold); got {n_known}")
    folds = stratified_folds(y, n_folds, rng)
    small = X.shape[0] * max(X.shape[1], 1) < PARALLEL_MIN_WORK  # one thread throughout
    with _threads(1 if small else max_threads()):
        table, best_params = _search(X, y, weights, schema, n_classes, settings, folds,
                                     leaf_sizes, confidences, n_folds, tie_rtol, progress)
    return C45Selection(table, best_params)


def _search(X, y, weights, schema, n_classes, settings, folds, leaf_sizes, confidences,
            n_folds, tie_rtol, progress):
    """``select_c45_pruning``'s loops: (the table, the chosen parameters)."""
    shape = (len(leaf_sizes), len(confidences), n_folds)
    accuracy, leaves = np.zeros(shape), np.zeros(shape)
    n_growths = n_folds * len(leaf_sizes)
    for k in range(n_folds):
        train, test = folds != k, folds == k
        X_train, y_train, w_train = X[train], y[train], weights[train]
        X_test = np.ascontiguousarray(X[test])
        for i, leaf in enumerate(leaf_sizes):
            rules = dataclasses.replace(settings.rules, min_samples_leaf=int(leaf))
            grown = grow_c45_collapsed(X_train, y_train, w_train, schema, n_classes,
                                       dataclasses.replace(settings, rules=rules,
                                                           progress=None))
            for j, confidence in enumerate(confidences):
                last = j == len(confidences) - 1  # the last one may prune the grown tree
                pruned = grown if last else (copy_store(grown[0]),) + grown[1:]
                tree = prune_c45(pruned, n_classes, confidence, settings.subtree_raising)
                accuracy[i, j, k] = _accuracy(tree, X_test, y[test], weights[test], tie_rtol)
                leaves[i, j, k] = tree.n_leaves
            if progress is not None:
                progress((k * len(leaf_sizes) + i + 1) / n_growths)
    mean = accuracy.mean(axis=2)
    std_error = accuracy.std(axis=2, ddof=1) / np.sqrt(n_folds)
    mean_leaves = leaves.mean(axis=2)
    rank = _default_rank(confidences, leaf_sizes, settings.rules.min_samples_leaf
                         if len(leaf_sizes) == 1 else MIN_SAMPLES_LEAF_GRID[0])
    chosen = _choose(mean, mean_leaves, rank)
    m_index, c_index = np.unravel_index(np.arange(mean.size), mean.shape)
    table = pd.DataFrame({
        "confidence": np.asarray(confidences, dtype=float)[c_index],
        "min_samples_leaf": np.asarray(leaf_sizes, dtype=np.int64)[m_index],
        "accuracy": mean.ravel(), "std_error": std_error.ravel(),
        "leaves": mean_leaves.ravel(), "chosen": np.arange(mean.size) == chosen})
    best = table.iloc[chosen]
    return table, {"confidence": float(best["confidence"]),
                   "min_samples_leaf": int(best["min_samples_leaf"])}


def chosen_settings(settings: Settings, best_params: dict) -> Settings:
    """``settings`` with the chosen confidence and ``min_samples_leaf``."""
    rules = dataclasses.replace(settings.rules,
                                min_samples_leaf=best_params["min_samples_leaf"])
    return dataclasses.replace(settings, rules=rules, confidence=best_params["confidence"])


def search_for(model, X, y, weights, schema, settings: Settings) -> Settings:
    """Run the search for ``DecisionTreeClassifier.fit`` with ``prune="cv"``: sets the
    model's ``cv_results_`` and ``best_params_`` and returns the settings of the final fit
    (whose progress, if any, continues the search's)."""
    from ..params import check_random_state

    leaf_sizes = (MIN_SAMPLES_LEAF_GRID if model.min_samples_leaf is None
                  else (settings.rules.min_samples_leaf,))
    progress = settings.progress
    selection = select_c45_pruning(
        X, y, weights, schema, len(schema.classes), settings, leaf_sizes=leaf_sizes,
        rng=check_random_state(model.random_state), tie_rtol=model._tie_rtol,
        progress=None if progress is None else (lambda done: progress(SEARCH_SHARE * done)))
    model.cv_results_, model.best_params_ = selection.table, selection.best_params
    chosen = chosen_settings(settings, selection.best_params)
    if progress is not None:  # the final fit reports the rest of the way
        chosen.progress = lambda done: progress(
            1.0 if done >= 1.0 else SEARCH_SHARE + (1.0 - SEARCH_SHARE) * done)
    return chosen
