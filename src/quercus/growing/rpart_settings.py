"""From the estimator's parameters to what the rpart learner takes (the classifier's, and the
regressor's for the anova method): its control values, the cross-validation folds, the
priors and the loss matrix (names as in the issue; rpart's defaults: minsplit 20, minbucket
round(minsplit / 3), cp 0.01, maxdepth 30)."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np

from .. import params as P

RPART_MAX_DEPTH = 30  # rpart numbers nodes 2k, 2k + 1 in 31 bits
PRUNE_RULES = (None, "min", "1se")


def _int_choice(name: str, value, choices) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral) or value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(str, choices))}; got {value!r}")
    return int(value)


def _count(name: str, value, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral) or value < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}; got {value!r}")
    return int(value)


def rpart_control(model, n_rows: int, criterion: str):
    """``RpartControl`` from a ``DecisionTreeClassifier``'s parameters.

    Only ``min_samples_leaf`` given: ``min_samples_split`` = 3 x it; only
    ``min_samples_split`` (or neither): ``min_samples_leaf`` = round(split / 3), as
    rpart.control does. Floats are fractions of the training rows.
    """
    from .rpart_grow import RpartControl

    split, leaf = model.min_samples_split, model.min_samples_leaf
    if split is not None:
        split = P.resolve_count("min_samples_split", split, n_rows, minimum=1)
    if leaf is not None:
        leaf = P.resolve_count("min_samples_leaf", leaf, n_rows, minimum=1)
    if split is None:
        split = 20 if leaf is None else 3 * leaf
    if leaf is None:
        leaf = max(1, round(split / 3))
    depth = RPART_MAX_DEPTH if model.max_depth is None else model.max_depth
    if isinstance(depth, bool) or not isinstance(depth, Integral) \
            or not 1 <= depth <= RPART_MAX_DEPTH:
        raise ValueError(f"max_depth must be None or an int in [1, {RPART_MAX_DEPTH}] for "
                         f"algorithm='rpart' (rpart's node numbers); got {model.max_depth!r}")
    cp = model.cp
    if isinstance(cp, bool) or not isinstance(cp, Real) or not 0.0 <= cp <= 1.0:
        raise ValueError(f"cp must be a float in [0, 1]; got {cp!r}")
    return RpartControl(
        min_split=int(split), min_bucket=int(leaf), cp=float(cp),
        max_competitors=_count("max_competitors", model.max_competitors, 0),
        max_surrogates=_count("max_surrogates", model.max_surrogates, 0),
        use_surrogates=_int_choice("use_surrogates", model.use_surrogates, (0, 1, 2)),
        surrogate_style=_int_choice("surrogate_style", model.surrogate_style, (0, 1)),
        max_depth=int(depth), criterion="entropy" if criterion == "information" else criterion)


def resolve_folds(xval, n_rows: int, random_state) -> np.ndarray | None:
    """Fold ids 1..K per row, or None for ``xval=0`` (no cross-validation).

    An int K draws a random permutation of 1..K repeated over the rows (what rpart does,
    with numpy's generator seeded by ``random_state``); an array gives the ids itself.
    """
    if isinstance(xval, bool):
        raise ValueError(  # noqa: TRY004 - a bad parameter value, as scikit-learn says it
            f"xval must be an int >= 0 or an array of fold ids; got {xval!r}")
    if isinstance(xval, Integral):
        if xval < 0 or xval == 1:
            raise ValueError(f"xval must be 0 (no cross-validation) or an int >= 2; "
                             f"got {xval!r}")
        if xval == 0:
            return None
        k = min(int(xval), n_rows)
        rng = P.check_random_state(random_state)
        return (rng.permutation(np.arange(n_rows) % k) + 1).astype(np.int64)
    folds = np.asarray(xval)
    if folds.ndim != 1 or folds.shape[0] != n_rows:
        raise ValueError(f"xval as fold ids needs one id per training row ({n_rows}); got "
                         f"shape {folds.shape}")
    if folds.dtype.kind not in "iu" and not (folds.dtype.kind == "f"
                                             and np.all(folds == np.round(folds))):
        raise ValueError("xval fold ids must be integers 1..K")
    folds = folds.astype(np.int64)
    k = int(folds.max()) if n_rows else 0
    if folds.min() < 1 or set(np.unique(folds).tolist()) != set(range(1, k + 1)) or k < 2:
        raise ValueError(f"xval fold ids must use every integer 1..K (K >= 2); got "
                         f"{sorted(set(np.unique(folds).tolist()))[:10]}")
    return folds


def resolve_priors(priors, n_classes: int) -> np.ndarray | None:
    """Class probabilities in ``classes_`` order: positive, summing to 1 (None: observed)."""
    if priors is None:
        return None
    values = np.asarray(priors, dtype=np.float64)
    if values.shape != (n_classes,):
        raise ValueError(f"priors must hold one probability per class ({n_classes}); got "
                         f"shape {values.shape}")
    if not np.all(np.isfinite(values)) or np.any(values <= 0) \
            or abs(values.sum() - 1.0) > 1e-8:
        raise ValueError(f"priors must be positive and sum to 1; got {values.tolist()}")
    return values / values.sum()


def resolve_loss(loss, n_classes: int) -> np.ndarray | None:
    """The K x K loss matrix (rows = true class, columns = predicted, ``classes_`` order):
    finite, non-negative, zero on the diagonal and positive off it (None: 0/1 loss)."""
    if loss is None:
        return None
    values = np.asarray(loss, dtype=np.float64)
    if values.shape != (n_classes, n_classes):
        raise ValueError(f"loss must be a {n_classes} x {n_classes} matrix (rows = true "
                         f"class, columns = predicted); got shape {values.shape}")
    off = ~np.eye(n_classes, dtype=bool)
    if not np.all(np.isfinite(values)) or np.any(np.diag(values) != 0) \
            or np.any(values[off] <= 0):
        raise ValueError("loss must be zero on the diagonal and positive elsewhere")
    return values


def fit_rpart_model(model, X, y, weights, schema, has_names: bool, criterion: str):
    """Fit ``model`` (a DecisionTreeClassifier with ``algorithm="rpart"``) on encoded rows.

    Rows whose class is missing are left out (rpart's na.rpart; the learner drops rows
    with every feature missing itself); ``xval`` fold ids, when given, are those of all
    input rows. With ``prune``, the tree is pruned at the cp-table row the rule picks.
    """
    from .rpart import fit_rpart, prune_rpart

    if model.prune not in PRUNE_RULES:
        raise ValueError(f"prune must be None, 'min' or '1se' for algorithm='rpart'; got "
                         f"{model.prune!r}")
    known = y >= 0
    n_known = int(np.count_nonzero(known))
    if isinstance(model.xval, Integral) and not isinstance(model.xval, bool):
        folds = resolve_folds(model.xval, n_known, model.random_state)
    else:
        folds = resolve_folds(model.xval, y.shape[0], model.random_state)[known]
        if len(np.unique(folds)) < 2:
            raise ValueError("xval fold ids: the rows with a known class use fewer than "
                             "two folds")
    if model.prune is not None and folds is None:
        raise ValueError(f"prune={model.prune!r} needs cross-validation; set xval >= 2")
    n_classes = len(schema.classes)
    fit = fit_rpart(np.ascontiguousarray(X[known], dtype=np.float64),
                    y[known].astype(np.int64), np.ascontiguousarray(weights[known]),
                    categorical=schema.categorical_mask, n_levels=schema.n_categories,
                    control=rpart_control(model, n_known, criterion),
                    priors=resolve_priors(model.priors, n_classes),
                    loss=resolve_loss(model.loss, n_classes), folds=folds,
                    n_classes=n_classes)
    return _attach_pruned(model, fit, schema, has_names, prune_rpart)


def fit_rpart_regressor(model, X, y, weights, schema, has_names: bool):
    """Fit ``model`` (a DecisionTreeRegressor with ``algorithm="rpart"``: rpart's anova
    method) on encoded rows; ``y`` is the float target, NaN where missing.

    Rows with a missing target or every feature missing are left out (na.rpart); an int
    ``xval`` draws the folds over the rows used, fold ids given are those of all input rows.
    """
    from .rpart_anova import fit_rpart_anova, prune_rpart_anova

    if model.criterion not in ("squared_error", "friedman_mse"):
        raise ValueError(f"algorithm='rpart' grows rpart's anova trees (squared error); "
                         f"criterion {model.criterion!r} is for CART")
    if model.prune not in PRUNE_RULES:
        raise ValueError(f"prune must be None, 'min' or '1se' for algorithm='rpart'; got "
                         f"{model.prune!r}")
    used = ~np.isnan(y)
    if X.shape[1]:
        used &= ~np.isnan(X).all(axis=1)
    n_used = int(np.count_nonzero(used))
    if n_used == 1 and not (isinstance(model.xval, Integral) and model.xval == 0):
        raise ValueError("cross-validation (xval) needs at least 2 rows with a known target; "
                         "got n_samples = 1 (set xval=0 to fit one row)")
    if isinstance(model.xval, Integral) and not isinstance(model.xval, bool):
        drawn = resolve_folds(model.xval, n_used, model.random_state)
        folds = None
        if drawn is not None:
            folds = np.ones(len(y), dtype=np.int64)
            folds[used] = drawn
    else:
        folds = resolve_folds(model.xval, len(y), model.random_state)
        if len(np.unique(folds[used])) < 2:
            raise ValueError("xval fold ids: the rows used (known target) fall in fewer than "
                             "two folds")
    if model.prune is not None and folds is None:
        raise ValueError(f"prune={model.prune!r} needs cross-validation; set xval >= 2")
    fit = fit_rpart_anova(np.ascontiguousarray(X, dtype=np.float64), y,
                          np.ascontiguousarray(weights, dtype=np.float64),
                          categorical=schema.categorical_mask, n_levels=schema.n_categories,
                          control=rpart_control(model, n_used, "gini"), folds=folds)
    return _attach_pruned(model, fit, schema, has_names, prune_rpart_anova)


def _attach_pruned(model, fit, schema, has_names, prune):
    """The fit (pruned at the cp-table row ``model.prune`` picks, by ``prune``) as the
    model's fitted attributes, with ``chosen_cp_`` and ``unpruned_nsplit_`` when pruned."""
    from ..pruning.cp_table import choose_row
    from .rpart_flat import attach_rpart_fit

    chosen = None
    if model.prune is not None:
        row = choose_row(fit.cp_table, model.prune)
        chosen, unpruned = float(fit.cp_table["CP"].iloc[row]), fit.cp_table["nsplit"].iloc[-1]
        fit = prune(fit, chosen)
    attach_rpart_fit(model, fit, schema, has_feature_names=has_names)
    for name in ("chosen_cp_", "unpruned_nsplit_"):  # left from an earlier fit
        model.__dict__.pop(name, None)
    if chosen is not None:
        model.chosen_cp_, model.unpruned_nsplit_ = chosen, int(unpruned)
    return model


def pruned_regressor(model, cp: float):
    """A copy of an rpart regression model pruned at complexity ``cp`` (R's
    ``prune(fit, cp)``); the model itself is unchanged."""
    from copy import deepcopy

    from .rpart_anova import prune_rpart_anova
    from .rpart_flat import attach_rpart_fit

    fit = getattr(model, "rpart_fit_", None)
    if fit is None:
        model._check_fitted()
        raise ValueError(f"pruned(cp) needs a model fitted with algorithm='rpart'; this one "
                         f"is {model.algorithm!r}")
    cp = P.check_non_negative("cp", cp)
    return attach_rpart_fit(deepcopy(model), prune_rpart_anova(fit, cp), model.schema_,
                            has_feature_names=hasattr(model, "feature_names_in_"),
                            use_surrogates=model.tree_.rpart.use_surrogates)
