"""The ``quercus`` command's regression trees: choosing the task from the target, the
regressor the learner options describe, and what ``train`` and ``eval`` print for one."""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from .errors import QuercusError
from .names import MAX_CLASS_VALUES
from .regressor import DecisionTreeRegressor


def numeric_values(y) -> np.ndarray | None:
    """The target as float64 (NaN where missing), or None when it is not numeric."""
    series = pd.Series(y)
    if series.dtype == object:
        converted = pd.to_numeric(series, errors="coerce")
        if converted.isna().sum() > series.isna().sum():
            return None
        series = converted
    if not pd.api.types.is_numeric_dtype(series.dtype) or pd.api.types.is_bool_dtype(series):
        return None
    return series.to_numpy(dtype=np.float64)


def regression_reason(args: argparse.Namespace, y) -> str | None:
    """Why the target is a regression target (None: train a classifier).

    ``--task`` decides when given; otherwise a numeric target with fractional values or
    more than MAX_CLASS_VALUES distinct values is one.
    """
    task = getattr(args, "task", None)
    if task == "classification":
        return None
    values = numeric_values(y)
    if values is None:
        if task == "regression":
            raise QuercusError(f"{args.data}: --task regression needs a numeric target; "
                               f"'{args.target}' holds values that are not numbers")
        return None
    known = values[~np.isnan(values)]
    distinct = len(np.unique(known))
    if task == "regression":
        return "--task regression"
    if (known != np.round(known)).any():
        return f"target '{args.target}' is numeric with fractional values"
    if distinct > MAX_CLASS_VALUES:
        return f"target '{args.target}' is numeric with {distinct} distinct values"
    return None


def regressor(args: argparse.Namespace) -> DecisionTreeRegressor:
    """The regressor the learner options describe (CART's options, or rpart's)."""
    if args.algorithm not in ("cart", "rpart"):
        raise QuercusError(f"regression trees are CART or rpart trees; --algorithm "
                           f"{args.algorithm} is for classification (use --task "
                           "classification for classes)")
    if args.algorithm == "rpart":
        return _rpart_regressor(args)
    return DecisionTreeRegressor(
        criterion=args.criterion or "squared_error", splitter=args.splitter,
        max_bins=args.max_bins, max_depth=args.max_depth,
        min_samples_split=2 if args.min_samples_split is None else args.min_samples_split,
        min_samples_leaf=1 if args.min_samples_leaf is None else args.min_samples_leaf,
        max_leaf_nodes=args.max_leaf_nodes, ccp_alpha=args.ccp_alpha)


def _rpart_regressor(args: argparse.Namespace) -> DecisionTreeRegressor:
    """R's rpart(method = "anova") with the rpart options (minsplit, minbucket, cp...)."""
    for option, value in (("--priors", args.priors), ("--loss", args.loss)):
        if value is not None:
            raise QuercusError(f"{option} is for class targets; a regression tree has none")
    if args.criterion not in (None, "squared_error"):
        raise QuercusError(f"rpart's regression trees split by squared error (method "
                           f"\"anova\"); --criterion {args.criterion} is not one of them")
    if args.prune not in (None, "min", "1se"):
        raise QuercusError(f"--prune for rpart is min or 1se; got {args.prune!r}")
    return DecisionTreeRegressor(
        algorithm="rpart", max_depth=args.max_depth, min_samples_split=args.min_samples_split,
        min_samples_leaf=args.min_samples_leaf, cp=args.cp,
        max_competitors=args.max_competitors, max_surrogates=args.max_surrogates,
        use_surrogates=args.use_surrogates, surrogate_style=args.surrogate_style,
        xval=args.xval, prune=args.prune, random_state=args.seed_folds)


def errors(truth: np.ndarray, predicted: np.ndarray) -> tuple[float, float, float]:
    """(RMSE, MAE, R²) of predictions (R² is 0 for a constant truth not matched exactly)."""
    residual = truth - predicted
    rmse = float(np.sqrt(np.mean(residual ** 2)))
    mae = float(np.mean(np.abs(residual)))
    spread = float(np.sum((truth - truth.mean()) ** 2))
    sse = float(np.sum(residual ** 2))
    r2 = (1.0 if sse == 0.0 else 0.0) if spread == 0.0 else 1.0 - sse / spread
    return rmse, mae, r2


def cross_validate_regressor(model: DecisionTreeRegressor, X: pd.DataFrame, y: np.ndarray,
                             n_folds: int, seed: int | None) -> list[tuple[float, float, float]]:
    """K-fold cross-validation (rows shuffled with ``seed``): (RMSE, MAE, R²) per fold."""
    known = np.flatnonzero(~np.isnan(y))
    if n_folds < 2 or n_folds > len(known):
        raise QuercusError(f"--cv must be between 2 and the {len(known)} rows with a known "
                           f"target; got {n_folds}")
    shuffled = np.random.RandomState(seed).permutation(known)
    folds = np.array_split(shuffled, n_folds)
    out = []
    for k, test in enumerate(folds):
        train = np.concatenate([f for j, f in enumerate(folds) if j != k])
        fold = type(model)(**model.get_params())
        fold.fit(X.iloc[train], y[train])
        out.append(errors(y[test], fold.predict(X.iloc[test])))
    return out


def print_eval(results: list[tuple[float, float, float]], n_rows: int, n_folds: int,
               seed) -> None:
    """``quercus eval``'s table for a regression tree: one line per fold, then the mean."""
    print(f"{n_folds}-fold cross-validation on {n_rows} rows (seed {seed}), regression tree")
    print(f"{'fold':>6} {'RMSE':>10} {'MAE':>10} {'R2':>8}")
    for k, (rmse, mae, r2) in enumerate(results, start=1):
        print(f"{k:>6} {rmse:>10.4f} {mae:>10.4f} {r2:>8.4f}")
    rmse, mae, r2 = np.mean(np.array(results), axis=0)
    print(f"{'mean':>6} {rmse:>10.4f} {mae:>10.4f} {r2:>8.4f}")
