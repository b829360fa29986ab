"""The ``quercus`` command's side of ``algorithm="auto"`` (docs/auto.md): which learner
``train`` and ``eval`` use when ``--algorithm`` is not given, the learner behind an auto
model, and ``eval --compare``."""

from __future__ import annotations

import argparse

from .data.sources import data_format
from .errors import DataError
from .estimator import DecisionTreeClassifier


def categorical_option(args: argparse.Namespace):
    """``categorical_features``: the --categorical columns of an ARFF file (CSV, Parquet:
    the reader types the columns)."""
    if args.categorical and data_format(args.data) == "arff":
        return list(args.categorical)
    return "auto"


def tuned(args: argparse.Namespace) -> bool:
    """Whether a learner option (not --algorithm) differs from its default."""
    return any(getattr(args, dest) != value for dest, value in args.tuning_defaults.items())


def resolve_algorithm(args: argparse.Namespace, default: str) -> None:
    """Set ``--algorithm`` when it is not given: ``default`` (``auto`` for train), unless a
    learner option, --stream or --scheduler is given: then CART, as before ``auto``.
    ``args.given_algorithm`` keeps what the user gave (None)."""
    args.given_algorithm = args.algorithm
    if args.algorithm is not None:
        return
    explicit = getattr(args, "stream", None) or getattr(args, "scheduler", None)
    args.algorithm = "cart" if tuned(args) or explicit else default


def learner_of(model):
    """The model whose tree it is: the chosen learner of an ``auto`` model."""
    return model.best_estimator_ if model.algorithm == "auto" else model


def print_comparison(args: argparse.Namespace, data) -> int:
    """``eval --compare``: every learner on the same folds, as ``auto`` compares them."""
    from .selection import compare, format_table

    try:
        table = compare(DecisionTreeClassifier, data.X, data.y, n_folds=args.cv, seed=args.seed,
                        categorical_features=categorical_option(args))
    except DataError as error:
        raise DataError(f"{args.data}: {error}") from error
    print(f"{args.cv}-fold cross-validation on {len(data.X)} rows (seed {args.seed}), the "
          "same folds for every learner")
    print(format_table(table))
    return 0
