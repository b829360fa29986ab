"""Algorithm presets: each turns encoded rows into a fitted flat tree.

``LEARNERS`` maps the estimator's ``algorithm`` parameter to a function
``fit(X, y, sample_weight, schema, n_classes, settings) -> Tree``. ``X`` holds every input
row and ``y`` is -1 where the class is missing: C4.5 uses those rows for two whole-data
rules; the others drop them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ._kernels._c45 import xlogx_table
from ._kernels._openmp import limited
from .growing.builders import StoppingRules, grow
from .growing.c45 import grow_c45, store_to_nodes, store_to_tree, to_flat_tree
from .growing.id3 import check_id3_data, grow_id3
from .growing.interval import IntervalGrower, interval_to_flat_tree
from .growing.optimal_fit import fit_optimal_tree
from .names import ALGORITHMS, CRITERIA, DEFAULT_CRITERION, DEFAULT_MIN_SAMPLES_LEAF  # noqa: F401
from .pruning import pessimistic
from .pruning.cost_complexity import prune
from .pruning.reduced_error import ReducedErrorPruner, holdout_split
from .splitting.c45 import AttributeInfo
from .splitting.cart import CartSplitter
from .splitting.hist import HistSplitter
from .tree import Tree

LOOKAHEAD_DEFAULT_MAX_DEPTH = 10  # the seed's MAXRECURSIONS
AUTO_HIST_CELLS = 2_000_000  # splitter="auto" bins features from this many rows x features


@dataclass
class Settings:
    """Resolved hyper-parameters, ready for a learner."""

    criterion: str
    rules: StoppingRules
    ccp_alpha: float = 0.0
    confidence: float = 0.25
    pruning: bool = True
    subtree_raising: bool = True
    binary_categorical_splits: bool = False  # C4.5: J48's -B
    reduced_error_pruning: bool = False  # C4.5: J48's -R, with n_folds (-N) and seed (-Q)
    n_folds: int = 3
    seed: int = 1
    lookahead: bool | str = False  # interval: False, True or "listing"
    progress: object = None  # called with the share of the work done (rows settled in leaves)
    splitter: str = "exact"  # CART: "exact", "random" or "hist"
    max_bins: int = 255
    max_features: int | None = None  # CART: features searched per node (None: all)
    rng: object = None  # CART: numpy RandomState of max_features and random thresholds
    monotonic_cst: np.ndarray | None = None  # CART: -1/0/1 per feature, or None
    optimal: object = None  # optimal trees: growing.optimal.OptimalOptions
    result: object = None  # optimal trees: set by the learner (growing.optimal_fit.OptimalResult)
    class_costs: object = None  # CART: class_costs.ClassCosts with priors or loss or prune
    prune: str | None = None  # CART: "min" or "1se" (pruning.cv_prune)
    folds: np.ndarray | None = None  # CART with prune: fold id per row (-1: class unknown)
    pruning_result: object = None  # CART with prune: set by the learner (cv_prune)


def _cart_options(schema, n_classes: int, settings: Settings) -> dict:
    return {"categorical_mask": schema.categorical_mask, "n_categories": schema.n_categories,
            "n_classes": n_classes, "criterion": settings.criterion,
            "min_samples_leaf": settings.rules.min_samples_leaf,
            "min_weight_leaf": settings.rules.min_weight_leaf,
            "max_features": settings.max_features, "rng": settings.rng,
            "monotonic_cst": settings.monotonic_cst}


def fit_cart(X, y, sample_weight, schema, n_classes: int, settings: Settings) -> Tree:
    """CART: binary splits, numeric thresholds and categorical subsets, then ccp pruning
    (or, with priors, a loss or ``prune``, ``pruning.cv_prune``)."""
    if settings.class_costs is not None:
        from .pruning.cv_prune import fit_costed_cart

        return fit_costed_cart(_grow_cart, X, y, sample_weight, schema, n_classes, settings)
    return prune(_grow_cart(X, y, sample_weight, schema, n_classes, settings),
                 settings.ccp_alpha)


def _grow_cart(X, y, sample_weight, schema, n_classes: int, settings: Settings) -> Tree:
    """CART's tree, unpruned."""
    known = y >= 0
    X_known = X if known.all() else X[known]
    options = _cart_options(schema, n_classes, settings)
    use_hist = settings.splitter == "hist" or (
        settings.splitter == "auto" and X_known.shape[0] * X_known.shape[1] >= AUTO_HIST_CELLS)
    if use_hist:
        splitter = HistSplitter(X_known, y[known], sample_weight[known],
                                max_bins=settings.max_bins, **options)
    else:
        splitter = CartSplitter(X_known, y[known], sample_weight[known],
                                random_thresholds=settings.splitter == "random", **options)
    return grow(splitter, settings.rules, n_classes, progress=settings.progress)


def fit_cart_binned(binned, binner, y, sample_weight, schema, n_classes: int,
                    settings: Settings) -> Tree:
    """CART with the histogram splitter on rows binned beforehand: ``binned`` is
    ``binner.transform`` of the rows, shape (n_features, n_rows), every label known. The
    tree is ``fit_cart``'s with ``splitter="hist"`` when its bins have the same edges."""
    splitter = HistSplitter(None, y, sample_weight, binner=binner, binned=binned,
                            **_cart_options(schema, n_classes, settings))
    tree = grow(splitter, settings.rules, n_classes, progress=settings.progress)
    return prune(tree, settings.ccp_alpha)


def _depth_limit(rules: StoppingRules):
    return None if rules.max_depth >= np.iinfo(np.int32).max else rules.max_depth


def _c45_attributes(X, schema, n_classes, settings, grow_weights) -> AttributeInfo:
    """What C4.5's split choice needs to know, from the whole input and the growing rows."""
    info = AttributeInfo(categorical=schema.categorical_mask,
                         n_values=schema.n_categories, n_classes=n_classes,
                         min_leaf=float(settings.rules.min_samples_leaf),
                         n_all_rows=X.shape[0])
    total = float(grow_weights.sum())
    if np.all(grow_weights == np.round(grow_weights)) and total < 50_000_000:
        info.xlogx_of_int = xlogx_table(int(total) + 1)
        info.all_weights_whole = not np.isnan(X).any()  # no fractional rows can appear
    return info


def _grow_c45(X, X_grow, grow, y, sample_weight, info, settings):
    """Grow on the rows ``grow`` (None: all) of the column-major X, given as ``X_grow``;
    the whole X serves the global rules."""
    rows = slice(None) if grow is None else grow
    return grow_c45(X_grow, y[rows], sample_weight[rows], X, info,
                    max_depth=_depth_limit(settings.rules),
                    binary_categorical=settings.binary_categorical_splits,
                    progress=settings.progress)


def _rows_of(X, rows):
    """The rows of the column-major X (X itself for None), column-major."""
    return X if rows is None else np.asfortranarray(X[rows])


def grow_c45_collapsed(X, y, sample_weight, schema, n_classes: int, settings: Settings):
    """C4.5's grown and collapsed tree, before pessimistic pruning: returns the node store
    and what ``prune_c45`` needs (the growing rows, column-major, their labels, and the
    attribute info). ``pruning.c45_cv`` prunes one grown tree at several confidences."""
    known = y >= 0
    info = _c45_attributes(X, schema, n_classes, settings, sample_weight[known])
    X = np.asfortranarray(X, dtype=np.float64)  # column-major: kernels read one feature
    grow = None if known.all() else np.flatnonzero(known)
    X_grow = _rows_of(X, grow)
    nodes = _grow_c45(X, X_grow, grow, y, sample_weight, info, settings)
    pessimistic.collapse(nodes)
    return nodes, X_grow, y[slice(None) if grow is None else grow], info


def prune_c45(grown, n_classes: int, confidence: float, subtree_raising: bool) -> Tree:
    """Pessimistic pruning of ``grow_c45_collapsed``'s result (in place), as a flat Tree."""
    nodes, X_grow, y_grow, info = grown
    pessimistic.prune(nodes, X_grow, y_grow, info.n_values, n_classes, confidence,
                      subtree_raising)
    return store_to_tree(nodes, n_classes, info.n_values)


def fit_c45(X, y, sample_weight, schema, n_classes: int, settings: Settings) -> Tree:
    """C4.5 release 8 as Weka's J48: grow, collapse, then pessimistic pruning."""
    if settings.reduced_error_pruning:
        return fit_c45_reduced_error(X, y, sample_weight, schema, n_classes, settings)
    grown = grow_c45_collapsed(X, y, sample_weight, schema, n_classes, settings)
    if settings.pruning:
        return prune_c45(grown, n_classes, settings.confidence, settings.subtree_raising)
    return store_to_tree(grown[0], n_classes, grown[3].n_values)


def fit_c45_reduced_error(X, y, sample_weight, schema, n_classes: int,
                          settings: Settings) -> Tree:
    """C4.5 with J48's reduced-error pruning: grow on all stratified folds but the last,
    then prune on the last fold (pruning/reduced_error.py); J48 does not collapse here."""
    known_rows = np.flatnonzero(y >= 0)
    grow, hold = holdout_split(y[known_rows], settings.n_folds, settings.seed)
    grow, hold = known_rows[grow], known_rows[hold]
    info = _c45_attributes(X, schema, n_classes, settings, sample_weight[grow])
    X = np.asfortranarray(X, dtype=np.float64)
    nodes = _grow_c45(X, _rows_of(X, grow), grow, y, sample_weight, info, settings)
    root = store_to_nodes(nodes, info.n_values)
    ReducedErrorPruner(X[hold], y[hold], sample_weight[hold], n_classes).prune(root)
    return to_flat_tree(root, n_classes)


def fit_id3(X, y, sample_weight, schema, n_classes: int, settings: Settings) -> Tree:
    """ID3: multiway splits on categorical features by information gain (or gain ratio)."""
    known = y >= 0
    check_id3_data(X[known], schema)
    root = grow_id3(X[known], y[known], schema.n_categories, n_classes,
                    use_gain_ratio=settings.criterion == "gain_ratio",
                    max_depth=_depth_limit(settings.rules), progress=settings.progress)
    return to_flat_tree(root, n_classes)


def fit_interval(X, y, sample_weight, schema, n_classes: int, settings: Settings) -> Tree:
    """Seed 001's class-interval tree, greedy or with look-ahead (docs/interval.md)."""
    known = y >= 0
    max_depth = _depth_limit(settings.rules)
    if settings.lookahead and max_depth is None:
        max_depth = LOOKAHEAD_DEFAULT_MAX_DEPTH
    grower = IntervalGrower(X[known], y[known], sample_weight[known], n_classes,
                            criterion=settings.criterion, max_depth=max_depth,
                            lookahead=settings.lookahead, progress=settings.progress)
    return interval_to_flat_tree(grower.grow(), n_classes)


def fit_optimal(X, y, sample_weight, schema, n_classes: int, settings: Settings) -> Tree:
    """The tree of least training error (plus split penalty) at depth <= max_depth, by
    branch and bound from a greedy incumbent (docs/optimal.md)."""
    started = time.perf_counter()  # the time limit counts everything
    options = settings.optimal
    known = y >= 0
    cart_settings = Settings(criterion="gini", rules=StoppingRules(
        max_depth=options.max_depth, min_samples_split=2 * options.min_samples_leaf,
        min_samples_leaf=options.min_samples_leaf, min_weight_leaf=0.0,
        min_impurity_decrease=0.0,
        max_leaf_nodes=None if options.max_splits is None else options.max_splits + 1))
    cart = None
    # CART's tree is the fallback of an anytime search (time_limit, max_gap), fitted only
    # when the search stops before its proof: a finished search is never worse
    if known.any() and (options.time_limit is not None or options.max_gap > 0):
        def cart():
            # one thread: the greedy tree is little work, and parallel kernels on a busy
            # machine can wait for idle threads longer than the whole time limit
            with limited(1):
                return fit_cart(X[known], y[known], sample_weight[known], schema, n_classes,
                                cart_settings)
    tree, settings.result = fit_optimal_tree(X, y, sample_weight, schema.categorical_mask,
                                             schema.n_categories, n_classes, options, cart=cart,
                                             started=started)
    return tree


LEARNERS = {"cart": fit_cart, "id3": fit_id3, "c45": fit_c45, "interval": fit_interval,
            "optimal": fit_optimal}
# every ``algorithm`` the estimator takes (names.ALGORITHMS) is a key of LEARNERS but rpart:
# its fit returns more than a tree (its cp table and split records), so the estimator calls
# it itself (growing.rpart_settings)
