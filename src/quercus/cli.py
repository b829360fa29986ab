"""The ``quercus`` command line: argument parsing, calls into the library, printing.

Every user mistake prints one line ``quercus: error: <message>`` to stderr and exits with
status 2.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time
import warnings
from collections.abc import Sequence
from typing import Self

import numpy as np
import pandas as pd

from . import __version__, datasets
from . import cli_regression as R
from .cli_auto import categorical_option as _categorical
from .cli_auto import learner_of as _learner_of
from .cli_auto import print_comparison as _print_comparison
from .cli_auto import resolve_algorithm as _resolve_algorithm
from .cli_auto import tuned as _tuned
from .cli_output import (
    EXPORT_FORMATS,
    PICTURE_FORMATS,
    SHOW_FORMATS,
    cmd_cp,
    cmd_export,
    cmd_plot,
    cmd_report,
    cmd_rules,
    cmd_show,
    emit,
)
from .cli_reading import cmd_inspect, labelled_rows, read_file, reading_options
from .data.csv_stream import read_csv_binned
from .data.raw_text import read_text_columns
from .data.sources import compression_of, data_format
from .errors import DataError, QuercusError
from .estimator import DecisionTreeClassifier
from .evaluation import accuracy, cross_validate, format_confusion
from .export.atomic import write_atomically
from .export.conditions import format_value
from .export.model_file import load_model, save_model
from .export.rules import rules_to_text
from .export.text import tree_to_text
from .learners import ALGORITHMS, CRITERIA, DEFAULT_CRITERION, DEFAULT_MIN_SAMPLES_LEAF
from .progress import ProgressBar
from .pruning import c45_cv
from .splitting.regression import REGRESSION_CRITERIA
from .tree import LEAF

__all__ = ["build_parser", "main"]

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
STREAM_MIN_BYTES = 256 * 2**20  # train streams a CSV file this large (CART with histograms)


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line: ``quercus: error: <message>``."""

    def error(self, message: str):
        self.exit(EXIT_USAGE, f"quercus: error: {message} (see '{self.prog} --help')\n")


# -- helpers -------------------------------------------------------------------------------
class _GivenStore(argparse.Action):
    """Store the value and record that the option was given (``args.<dest>_given``), for
    options whose default depends on others (``--splitter`` on a cluster)."""

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)
        setattr(namespace, f"{self.dest}_given", True)


def _count(text: str) -> int | float:
    """A row count (int) or a fraction of the rows (float)."""
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None


def _confidence(text: str) -> float:
    """C4.5's confidence factor: a number strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1 (exclusive): {text!r}")
    return value


def _estimator(args: argparse.Namespace) -> DecisionTreeClassifier:
    """The estimator described by the learner options."""
    categorical = _categorical(args)
    if args.algorithm == "auto":  # it chooses the learner and its settings
        if _tuned(args):
            raise QuercusError("--algorithm auto chooses the learner and its settings; leave "
                               "out the learner options or pick another --algorithm")
        return DecisionTreeClassifier(algorithm="auto", categorical_features=categorical)
    return DecisionTreeClassifier(
        algorithm=args.algorithm, criterion=args.criterion, max_depth=args.max_depth,
        min_samples_split=args.min_samples_split, min_samples_leaf=args.min_samples_leaf,
        max_leaf_nodes=args.max_leaf_nodes, ccp_alpha=args.ccp_alpha,
        categorical_features=categorical, confidence=args.confidence, pruning=args.pruning,
        subtree_raising=args.subtree_raising, laplace=args.laplace, lookahead=args.lookahead,
        binary_categorical_splits=args.binary_splits,
        reduced_error_pruning=args.reduced_error_pruning, n_folds=args.folds,
        random_state=args.seed_folds, splitter=args.splitter, max_bins=args.max_bins,
        prune=args.prune, xval=args.xval, priors=args.priors, loss=args.loss,
        **_optimal_options(args), **_rpart_options(args))


def _rpart_options(args: argparse.Namespace) -> dict:
    """The options of ``--algorithm rpart``."""
    return {"cp": args.cp, "max_competitors": args.max_competitors,
            "max_surrogates": args.max_surrogates, "use_surrogates": args.use_surrogates,
            "surrogate_style": args.surrogate_style}


def _numbers(text: str, what: str) -> list[float]:
    try:
        return [float(v) for v in text.replace(",", " ").split()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what} must be numbers separated by commas; "
                                         f"got {text!r}") from None


def _priors(text: str) -> list[float]:
    """``--priors 0.3,0.7``: one probability per class, in the order of the class labels."""
    values = _numbers(text, "priors")
    if not values:
        raise argparse.ArgumentTypeError("give one probability per class, e.g. 0.3,0.7")
    return values


def _loss(text: str) -> list[list[float]]:
    """``--loss "0,5;1,0"`` (rows ``;``-separated) or a file with one row per line."""
    if os.path.isfile(text):
        try:
            with open(text, encoding="utf-8") as handle:
                text = ";".join(line for line in handle.read().splitlines() if line.strip())
        except (OSError, UnicodeDecodeError) as error:
            raise argparse.ArgumentTypeError(f"cannot read {text}: {error}") from None
    rows = [_numbers(row, "loss rows") for row in text.split(";") if row.strip()]
    if not rows or any(len(row) != len(rows) for row in rows):
        raise argparse.ArgumentTypeError(f"loss must be a square matrix, rows separated by "
                                         f"';' (e.g. \"0,5;1,0\"); got {text!r}")
    return rows


def _optimal_options(args: argparse.Namespace) -> dict:
    """The options of ``--algorithm optimal``."""
    return {"max_splits": args.max_splits, "split_penalty": args.split_penalty,
            "numeric": args.numeric_splits, "categorical": args.categorical_splits,
            "max_subset_categories": args.max_subset_categories, "missing": args.missing_side,
            "time_limit": args.time_limit, "max_gap": args.max_gap}


def _optimal_summary(model: DecisionTreeClassifier) -> str:
    """Objective, lower bound and status of an optimal tree's search."""
    status = "optimal" if model.optimal_ else (
        "time limit" if model.time_limit is not None else "gap reached")
    return f"Objective: {model.objective_}, lower bound: {model.lower_bound_} ({status})"


def _c45_cv_summary(model: DecisionTreeClassifier) -> str:
    """The setting ``prune="cv"`` chose, with its CV accuracy and J48's default's."""
    table = model.cv_results_
    best = table[table["chosen"]].iloc[0]
    line = (f"Pruning chosen by {c45_cv.N_FOLDS}-fold CV: confidence {best['confidence']:g}, "
            f"min_samples_leaf {best['min_samples_leaf']} (CV accuracy "
            f"{best['accuracy']:.3f} \u00b1 {best['std_error']:.3f}, {best['leaves']:g} leaves "
            f"per fold)")
    default = table[(table["confidence"] == c45_cv.DEFAULT_CONFIDENCE)
                    & (table["min_samples_leaf"] == table["min_samples_leaf"].iloc[0])]
    if len(default) and not bool(default["chosen"].iloc[0]):
        row = default.iloc[0]
        line += (f"; J48's confidence 0.25, min_samples_leaf {row['min_samples_leaf']}: "
                 f"{row['accuracy']:.3f}, {row['leaves']:g} leaves")
    return line


def _criterion_used(model: DecisionTreeClassifier) -> str:
    """The criterion a fitted model used (its algorithm's default when left as None)."""
    model = _learner_of(model)
    return model.criterion if model.criterion is not None else DEFAULT_CRITERION[model.algorithm]


def _label_text(label) -> str:
    return label if isinstance(label, str) else format_value(label)


def _message(error: BaseException) -> str:
    """The error as one line of text."""
    if isinstance(error, OSError) and error.strerror and error.filename:
        return f"{error.filename}: {error.strerror}"
    return " ".join(str(error).split()) or type(error).__name__


# -- commands ------------------------------------------------------------------------------
def _streams(args: argparse.Namespace) -> bool:
    """Whether ``train`` reads DATA in chunks, binning as it reads: with ``--stream``, or
    for CART with histograms on a CSV file of at least STREAM_MIN_BYTES."""
    cart_on_csv = args.algorithm == "cart" and data_format(args.data) == "csv"
    if args.stream is None and (args.prune or args.priors or args.loss):
        return False  # cross-validation and class costs need the rows in memory
    if args.stream is None:  # a compressed file streams only when asked
        return (cart_on_csv and args.splitter in ("hist", "auto")
                and compression_of(args.data) is None
                and os.path.isfile(args.data) and os.path.getsize(args.data) >= STREAM_MIN_BYTES)
    if args.stream and not (cart_on_csv and args.splitter == "hist"):
        raise QuercusError("--stream needs a .csv file (plain or compressed), --algorithm "
                           "cart and --splitter hist")
    return args.stream


def _read_progress(path: str):
    """On a terminal, a progress callback for the streaming reader's two passes."""
    if not sys.stderr.isatty():
        return None

    def show(stage: str, rows: int, total: int | None) -> None:
        of = f" of {total:,}" if total else ""
        sys.stderr.write(f"\r{'scanning' if stage == 'scan' else 'binning'} {path}: "
                         f"{rows:,}{of} rows")
        sys.stderr.flush()

    return show


def _train_streaming(args: argparse.Namespace) -> int:
    """``train`` on a CSV read in two chunked passes and binned as it is read (the float
    matrix of the file never exists), then CART with histograms on the bins: a classifier,
    or a regressor for a numeric target (``regression_reason``'s rule, applied by the
    reader's scan)."""
    task = args.task or "auto"
    model = R.regressor(args) if task == "regression" else _estimator(args)
    if task != "regression" and args.criterion not in (None, *CRITERIA["cart"],
                                                       *REGRESSION_CRITERIA):
        raise QuercusError(f"criterion must be one of {', '.join(CRITERIA['cart'])}; "
                           f"got {args.criterion!r}")  # fail before reading a big file
    start = time.perf_counter()
    progress = _read_progress(args.data)
    try:
        data = read_csv_binned(args.data, args.target, categorical=args.categorical or None,
                               numeric=args.numeric or None, max_bins=args.max_bins,
                               progress=progress, na_values=args.na_values or None,
                               keep_na=args.keep_na or None, task=task,
                               max_class_values=R.MAX_CLASS_VALUES)
    finally:
        if progress is not None:
            sys.stderr.write("\n")
    read_seconds = time.perf_counter() - start
    if data.task == "regression":
        regressor = model if task == "regression" else R.regressor(args)
        return _train_streamed_regressor(args, regressor, data, start, read_seconds)
    criterion = _criterion_used(model)
    if criterion not in CRITERIA["cart"]:
        raise QuercusError(f"criterion must be one of {', '.join(CRITERIA['cart'])}; "
                           f"got {criterion!r}")
    used = len(data.y)
    _warn_missing_targets(args, data, used)
    bar = ProgressBar(sys.stderr) if sys.stderr.isatty() else None
    try:
        model.fit_binned(data.binned, data.y, data.schema, data.binner, progress=bar)
    except DataError as error:  # e.g. no known class label: name the file
        raise DataError(f"{args.data}: {error}") from error
    finally:
        if bar is not None:
            bar.close()
    seconds = time.perf_counter() - start - read_seconds
    save_model(model, args.out)
    tree = model.tree_  # each training row is counted at its leaf, where it is predicted
    correct = tree.value[tree.kind == LEAF].max(axis=1).sum()
    print(f"Trained on {used} rows, {model.n_features_in_} features, "
          f"{model.n_classes_} classes ({model.algorithm}, {criterion})")
    print(f"Depth: {model.get_depth()}, leaves: {model.get_n_leaves()}")
    print(f"Training accuracy: {correct / max(used, 1):.4f}")
    _print_streamed(args, data, read_seconds, seconds)
    return 0


def _warn_missing_targets(args, data, used: int) -> None:
    """A warning when rows were left out for a missing target."""
    if 0 < used < data.n_rows:
        print(f"quercus: warning: {args.data}: left out {data.n_rows - used} of {data.n_rows} "
              f"rows whose target '{args.target}' is missing; counts below are of the {used} "
              "rows used", file=sys.stderr)


def _print_streamed(args, data, read_seconds: float, seconds: float) -> None:
    print(f"Read and binned in {read_seconds:.3f} s (2 passes, {data.binned.nbytes:,} bytes "
          f"of bins)")
    print(f"Fit time: {seconds:.3f} s")
    print(f"Model written to {args.out}")


def _train_streamed_regressor(args, model, data, start: float, read_seconds: float) -> int:
    """The regression tree of a streamed CSV file (``_streams`` admits CART on histograms
    only); training RMSE and R2 from the leaves' sums of squares (the rows themselves were
    never kept)."""
    reason = R.regression_reason(args, data.y)
    used = len(data.y)
    _warn_missing_targets(args, data, used)
    try:
        model.fit_binned(data.binned, data.y, data.schema, data.binner)
    except (DataError, ValueError) as error:
        raise DataError(f"{args.data}: {error}") from error
    seconds = time.perf_counter() - start - read_seconds
    save_model(model, args.out)
    tree = model.tree_
    leaves = tree.kind == LEAF
    sse = float(np.dot(tree.impurity[leaves], tree.weighted_n_node_samples[leaves]))
    sst = float(tree.impurity[0] * tree.weighted_n_node_samples[0])
    print(f"Regression tree: {reason} (--task classification to force classes)")
    print(f"Trained on {used} rows, {model.n_features_in_} features "
          f"({model.algorithm}, {model.criterion})")
    print(f"Depth: {model.get_depth()}, leaves: {model.get_n_leaves()}")
    r2 = 1.0 - sse / sst if sst > 0 else 1.0
    print(f"Training RMSE: {np.sqrt(sse / max(used, 1)):.4f}, R2: {r2:.4f}")
    _print_streamed(args, data, read_seconds, seconds)
    return 0


def _train_regressor(args: argparse.Namespace, model, data, reason: str) -> int:
    """``train`` on a numeric target: a regression tree, and a line saying why."""
    y = R.numeric_values(data.y)
    start = time.perf_counter()
    try:
        model.fit(data.X, pd.Series(y, name=args.target))
    except DataError as error:
        raise DataError(f"{args.data}: {error}") from error
    seconds = time.perf_counter() - start
    save_model(model, args.out)
    rmse, mae, r2 = R.errors(y, model.predict(data.X))
    print(f"Regression tree: {reason} (--task classification to force classes)")
    method = "anova" if model.algorithm == "rpart" else model.criterion
    print(f"Trained on {len(y)} rows, {model.n_features_in_} features "
          f"({model.algorithm}, {method})")
    print(f"Depth: {model.get_depth()}, leaves: {model.get_n_leaves()}")
    print(f"Training RMSE: {rmse:.4f}, MAE: {mae:.4f}, R2: {r2:.4f}")
    if hasattr(model, "chosen_cp_"):  # rpart with --prune
        from .pruning.cv_prune import pruning_note

        print(pruning_note(model))
    print(f"Fit time: {seconds:.3f} s")
    print(f"Model written to {args.out}")
    return 0


def cmd_train(args: argparse.Namespace) -> int:
    _resolve_algorithm(args, "auto")
    if args.scheduler is None and (args.checkpoint or args.resume):
        raise QuercusError("--checkpoint and --resume work with --scheduler (a fit on a Dask "
                           "cluster) only")
    if args.scheduler is not None:  # Parquet or CSV files fitted on a Dask cluster
        from .dask.command import train_on_cluster

        return train_on_cluster(args, _estimator(args))
    if _streams(args):
        return _train_streaming(args)
    raw = read_file(args.data, args.target, args=args, warn=True)
    reason = R.regression_reason(args, raw.y)
    if reason is not None and args.algorithm == "auto" and args.given_algorithm is None:
        args.algorithm = "cart"  # auto is for classes; a numeric target keeps CART
    regressor = None if reason is None else R.regressor(args)  # refuse options first
    data = labelled_rows(args.data, raw)
    if regressor is not None:
        return _train_regressor(args, regressor, data, reason)
    model = _estimator(args)
    start = time.perf_counter()
    bar = ProgressBar(sys.stderr) if sys.stderr.isatty() else None
    try:
        with warnings.catch_warnings(record=model.algorithm == "auto") as caught:
            model.fit(data.X, data.y, progress=bar)
    except DataError as error:  # e.g. no known class label: name the file
        raise DataError(f"{args.data}: {error}") from error
    finally:
        if bar is not None:
            bar.close()
    for warning in caught or ():  # auto's big-data fallback says so
        print(f"quercus: warning: {warning.message}", file=sys.stderr)
    seconds = time.perf_counter() - start
    save_model(model, args.out)
    learner = _learner_of(model)
    auto = "auto: " if model.algorithm == "auto" else ""
    print(f"Trained on {len(data.X)} rows, {model.n_features_in_} features, "
          f"{model.n_classes_} classes ({auto}{learner.algorithm}, {_criterion_used(model)})")
    if auto:
        print(f"Chose {model.selection_summary_}")
    print(f"Depth: {model.get_depth()}, leaves: {model.get_n_leaves()}")
    print(f"Training accuracy: {model.score(data.X, data.y):.4f}")
    if learner.algorithm == "optimal":
        print(_optimal_summary(learner))
    if getattr(learner, "best_params_", None) is not None:
        print(_c45_cv_summary(learner))
    if hasattr(learner, "chosen_cp_"):
        from .pruning.cv_prune import pruning_note

        print(pruning_note(learner))
    print(f"Fit time: {seconds:.3f} s")
    print(f"Model written to {args.out}")
    return 0


def _explanations(args: argparse.Namespace, model, data, kept: pd.DataFrame | None) -> str:
    """``predict --explain``: every row's prediction and path, as text or JSON; with
    ``--keep``, the kept values name the row (``Row 3 [id=007]:``, JSON ``"kept"``)."""
    import json

    try:
        explanations = model.explain(data.X)
    except DataError as error:
        raise DataError(f"{args.data}: {error}") from error
    rows = [{} if kept is None else kept.iloc[e.row].to_dict() for e in explanations]
    if args.format == "json":
        return json.dumps([{**e.to_dict(), **({"kept": row} if kept is not None else {})}
                           for e, row in zip(explanations, rows)], indent=1) + "\n"
    texts = []
    for e, row in zip(explanations, rows):
        text, head = str(e), f"Row {e.row + 1}"
        if row:
            named = ", ".join(f"{column}={value}" for column, value in row.items())
            text = f"{head} [{named}]{text[len(head):]}"
        texts.append(f"{text}\n\n")
    return "".join(texts)


def _kept_columns(args: argparse.Namespace, n_rows: int) -> pd.DataFrame | None:
    """``predict --keep``: the named columns of DATA as the file wrote them."""
    if not args.keep:
        return None
    kept = read_text_columns(args.data, args.keep)
    if len(kept) != n_rows:
        raise DataError(f"{args.data}: read {len(kept)} rows of the kept columns but "
                        f"{n_rows} rows of features")
    return kept


def _with_kept(table: pd.DataFrame, kept: pd.DataFrame | None, data: str) -> pd.DataFrame:
    """The kept columns, then the predictions; a kept column may not reuse their names."""
    if kept is None:
        return table
    clash = [c for c in kept.columns if c in table.columns]
    if clash:
        raise DataError(f"{data}: kept column '{clash[0]}' has the name of a prediction "
                        "column; rename it in the file or leave it out of --keep")
    return pd.concat([kept, table], axis=1)


def cmd_predict(args: argparse.Namespace) -> int:
    model = load_model(args.model)
    if args.format is not None and not args.explain:
        raise QuercusError("--format is used only with --explain (predictions are CSV)")
    data = read_file(args.data, schema=model.schema_, args=args)
    kept = _kept_columns(args, len(data.X))
    if args.explain:
        emit(_explanations(args, model, data, kept), args.out, "Explanations")
        return 0
    if args.proba and getattr(model, "_estimator_type", None) == "regressor":
        raise QuercusError("--proba is for classifiers; a regression tree predicts numbers")
    try:
        predicted = model.predict(data.X)
        if getattr(model, "algorithm", None) == "interval":  # rows that fit no branch
            lost = model.predict_proba(data.X).sum(axis=1) == 0.0
            predicted = np.where(lost, "unclassified", predicted.astype(object))
        table = pd.DataFrame({"prediction": predicted})
        proba = model.predict_proba(data.X) if args.proba else None
    except DataError as error:
        raise DataError(f"{args.data}: {error}") from error
    if proba is not None:
        for j, label in enumerate(model.classes_):
            table[f"proba_{_label_text(label)}"] = proba[:, j]
    table = _with_kept(table, kept, args.data)
    if args.out is None:
        table.to_csv(sys.stdout, index=False, lineterminator="\n")
    else:
        write_atomically(args.out, lambda handle: table.to_csv(handle, index=False,
                                                               lineterminator="\n"))
        print(f"{len(table)} predictions written to {args.out}")
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    if args.compare and args.algorithm is not None:
        raise QuercusError("--compare cross-validates every learner; leave out --algorithm")
    if args.compare and _tuned(args):
        raise QuercusError("--compare cross-validates every learner with its own settings; "
                           "leave out the learner options")
    _resolve_algorithm(args, "cart")
    raw = read_file(args.data, args.target, args=args, warn=True)
    reason = R.regression_reason(args, raw.y)
    if reason is not None and args.compare:
        raise QuercusError(f"--compare is for classification ({reason}; use --task "
                           "classification for classes)")
    if reason is not None:
        y = R.numeric_values(raw.y)
        results = R.cross_validate_regressor(R.regressor(args), raw.X, y, args.cv, args.seed)
        print(f"Regression tree: {reason}")
        R.print_eval(results, int((~np.isnan(y)).sum()), args.cv, args.seed)
        return 0
    data = labelled_rows(args.data, raw)
    if args.compare:
        return _print_comparison(args, data)
    result = cross_validate(_estimator(args), data.X, data.y, n_folds=args.cv, seed=args.seed)
    print(f"{args.cv}-fold cross-validation on {len(data.X)} rows (seed {args.seed})")
    print(f"Accuracy: mean {result.mean:.4f}, std {result.std:.4f}")
    print("Confusion matrix (rows: true class, columns: predicted class):")
    print(format_confusion(result.confusion, result.labels))
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    tennis = datasets.load("play_tennis")
    model = DecisionTreeClassifier(algorithm="cart", criterion="entropy")
    model.fit(tennis.X, tennis.y)
    print("== play_tennis: CART with entropy, all 14 rows ==")
    print(tree_to_text(model))
    print()
    print(rules_to_text(model))
    print()

    iris = datasets.load("iris")
    held_out = np.arange(len(iris.X)) % 5 == 4
    model = DecisionTreeClassifier(algorithm="cart")
    model.fit(iris.X[~held_out], iris.y[~held_out])
    score = accuracy(iris.y[held_out], model.predict(iris.X[held_out]))
    print(f"== iris: CART with gini, trained on {int((~held_out).sum())} rows, "
          f"every 5th row held out ==")
    print(tree_to_text(model))
    print()
    print(rules_to_text(model))
    print()
    print(f"Held-out accuracy: {score:.4f} on {int(held_out.sum())} rows")
    return 0


# -- parser --------------------------------------------------------------------------------
def _criterion_help() -> str:
    choices = "; ".join(f"{algorithm}: {', '.join(CRITERIA[algorithm])} "
                        f"(default {DEFAULT_CRITERION[algorithm]})" for algorithm in ALGORITHMS)
    return (f"split criterion, by algorithm -- {choices}; regression trees: squared_error, "
            "absolute_error (leaves predict the median), poisson (default squared_error)")


def _learner_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("learner options")
    group.add_argument("--algorithm", default=None, choices=[*ALGORITHMS, "auto"],
                       help="tree learner: cart, id3 (categorical features only), c45 "
                            "(C4.5 as Weka's J48), interval (seed 001), optimal (least "
                            "training errors at the depth), rpart (R's rpart: surrogates, "
                            "cp table) or auto (the best small tree by inner "
                            "cross-validation, docs/auto.md) (default: auto for train and "
                            "cart for eval when no learner option is given, else cart)")
    group.add_argument("--criterion", default=None, metavar="NAME", help=_criterion_help())
    group.add_argument("--max-depth", type=int, metavar="N", help="maximum depth")
    group.add_argument("--min-samples-leaf", type=_count, default=None, metavar="N",
                       help="minimum rows in a leaf, or a fraction of the rows; C4.5 counts "
                            "weight, in at least two branches of a split (J48's -M) "
                            f"(default: {DEFAULT_MIN_SAMPLES_LEAF['cart']} for cart, "
                            f"{DEFAULT_MIN_SAMPLES_LEAF['c45']} for c45; id3 has no minimum)")
    group.add_argument("--min-samples-split", type=_count, default=None, metavar="N",
                       help="minimum rows to split a node, or a fraction (CART and rpart; "
                            "default: 2, rpart 20)")
    group.add_argument("--max-leaf-nodes", type=int, metavar="N",
                       help="grow best first up to N leaves (CART)")
    group.add_argument("--ccp-alpha", type=float, default=0.0, metavar="X",
                       help="cost-complexity pruning parameter (CART; default: 0)")
    group.add_argument("--confidence", type=_confidence, default=0.25, metavar="X",
                       help="confidence factor of C4.5's pessimistic pruning, in (0, 1); "
                            "smaller prunes more (J48's -C; default: 0.25)")
    group.add_argument("--no-pruning", dest="pruning", action="store_false",
                       help="C4.5: do not prune (J48's -U)")
    group.add_argument("--no-subtree-raising", dest="subtree_raising", action="store_false",
                       help="C4.5: prune without subtree raising (J48's -S)")
    group.add_argument("--laplace", action="store_true",
                       help="C4.5 and ID3: Laplace-corrected leaf probabilities (J48's -A)")
    group.add_argument("--binary-splits", action="store_true",
                       help="C4.5: split a categorical feature into one category against the "
                            "rest (J48's -B)")
    group.add_argument("--reduced-error-pruning", action="store_true",
                       help="C4.5: prune on a held-out fold instead of by pessimistic error "
                            "(J48's -R)")
    pruning = parser.add_argument_group("pruning by cross-validation, priors and loss "
                                        "(docs/cart.md, docs/rpart.md, docs/c45.md)")
    pruning.add_argument("--prune", default=None, metavar="RULE",
                         help="cart and rpart: prune by cross-validating the "
                              "misclassification risk: min (least CV error) or 1se (smallest "
                              "tree within one standard error of it); c45: cv chooses the "
                              "confidence factor and the leaf size (unless "
                              "--min-samples-leaf is given) by 5-fold CV (folds drawn with "
                              "--seed-folds)")
    pruning.add_argument("--xval", type=int, default=10, metavar="N",
                         help="cart and rpart: folds of the cross-validated cp table, drawn "
                              "with --seed-folds; rpart: 0 for none (default: 10)")
    pruning.add_argument("--priors", type=_priors, default=None, metavar="P1,P2,...",
                         help="class priors in the order of the class labels, summing to 1 "
                              "(cart and rpart; default: the observed shares)")
    pruning.add_argument("--loss", type=_loss, default=None, metavar="MATRIX",
                         help="loss matrix, rows = true class, columns = predicted, in the "
                              "order of the class labels: \"0,5;1,0\" or a file with one "
                              "row per line (cart and rpart)")
    group.add_argument("--folds", type=int, default=3, metavar="N",
                       help="C4.5 with --reduced-error-pruning: number of folds, one held "
                            "out (J48's -N; default: 3)")
    group.add_argument("--seed-folds", type=int, default=1, metavar="S",
                       help="C4.5 with --reduced-error-pruning: shuffling seed (J48's -Q); "
                            "CART: the seed of --prune's folds (default: 1)")
    group.add_argument("--splitter", choices=["exact", "hist", "auto"], default="exact",
                       action=_GivenStore,
                       help="CART: exact split search, or histograms of binned features "
                            "(much faster on large data); auto picks hist from 2,000,000 "
                            "rows x features (default: exact; with --scheduler: hist)")
    group.add_argument("--max-bins", type=int, default=255, metavar="N",
                       help="CART with --splitter hist: bins per numeric feature "
                            "(default: 255)")
    group.add_argument("--lookahead", action="store_true",
                       help="class-interval tree: choose splits by the best subtrees below "
                            "them (seed 001's look-ahead; max depth 10 unless given)")
    group.add_argument("--lookahead-listing", dest="lookahead", action="store_const",
                       const="listing", default=False,
                       help="class-interval tree: the look-ahead as seed 001's program "
                            "listing computes it (integer-division Gini; reproduces the "
                            "seed's iris figures)")
    group.add_argument("--task", choices=["classification", "regression"], default=None,
                       help="classification or regression; default: regression for a "
                            "numeric target with fractional values or more than "
                            f"{R.MAX_CLASS_VALUES} distinct values (CART, squared error)")
    group.add_argument("--categorical", nargs="+", metavar="COL", default=[],
                       help="treat these columns as categorical")
    group.add_argument("--numeric", nargs="+", metavar="COL", default=[],
                       help="treat these columns as numeric: a value that is not a number "
                            "(nor a missing-value token) is an error naming its line "
                            "(CSV and Parquet)")
    untuned = ("algorithm", "task", "categorical", "numeric")
    tuning = [a for a in group._group_actions if a.dest not in untuned]
    reading_options(parser)
    optimal = parser.add_argument_group("optimal trees (--algorithm optimal; docs/optimal.md)")
    optimal.add_argument("--max-splits", type=int, metavar="N",
                         help="at most N splits (default: no limit but the depth's)")
    optimal.add_argument("--split-penalty", type=float, default=0.0, metavar="X",
                         help="minimise errors + X * splits (default: 0)")
    optimal.add_argument("--numeric-splits", choices=["exact", "bins"], default="exact",
                         help="numeric tests: every cut between values, or --max-bins "
                              "quantile thresholds (default: exact)")
    optimal.add_argument("--categorical-splits", choices=["subset", "one_vs_rest"],
                         default="subset",
                         help="categorical tests: subsets of categories, or one category "
                              "against the rest (default: subset)")
    optimal.add_argument("--max-subset-categories", type=int, default=8, metavar="N",
                         help="try every subset at nodes with up to N categories, one "
                              "category against the rest above (default: 8; at most 16)")
    optimal.add_argument("--missing-side", choices=["learn", "false"], default="learn",
                         help="missing values: to the side that errs least, or always to the "
                              "side of a failed test (default: learn)")
    optimal.add_argument("--time-limit", type=float, metavar="SECONDS",
                         help="stop after this long with the best tree found (default: run "
                              "until the tree is proven optimal)")
    optimal.add_argument("--max-gap", type=float, default=0.0, metavar="X",
                         help="stop once the tree is within X errors of the lower bound "
                              "(default: 0)")
    rpart = parser.add_argument_group("rpart (--algorithm rpart; docs/rpart.md)")
    rpart.add_argument("--cp", type=float, default=0.01, metavar="X",
                       help="complexity parameter: a split must lower the tree's risk by X "
                            "times the root's (default: 0.01)")
    rpart.add_argument("--max-competitors", type=int, default=4, metavar="N",
                       help="competitor splits kept per node, for printing (default: 4)")
    rpart.add_argument("--max-surrogates", type=int, default=5, metavar="N",
                       help="surrogate splits kept per node (default: 5)")
    rpart.add_argument("--use-surrogates", type=int, choices=[0, 1, 2], default=2,
                       help="a row missing the split's feature: 0 stays at the node, 1 "
                            "tries the surrogates, 2 then follows the majority (default: 2)")
    rpart.add_argument("--surrogate-style", type=int, choices=[0, 1], default=0,
                       help="surrogate ranking: 0 counts rows missing the surrogate's "
                            "feature as errors, 1 leaves them out (default: 0)")
    tuning += optimal._group_actions + rpart._group_actions + pruning._group_actions
    # the learner options (not --algorithm): given any, train keeps CART instead of auto
    parser.set_defaults(tuning_defaults={a.dest: a.default for a in tuning})


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``quercus`` command."""
    parser = _Parser(prog="quercus",
                     description="Decision trees that explain themselves: train, inspect, "
                                 "evaluate and apply tree classifiers.")
    parser.add_argument("--version", action="version", version=f"quercus {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    train = commands.add_parser("train", help="learn a tree from a CSV, ARFF or Parquet file",
                                description="Learn a tree and write it to a JSON model file.")
    train.add_argument("data", metavar="DATA", help="training data (.csv, .csv.gz, .arff or .parquet)")
    train.add_argument("--target", required=True, metavar="COL", help="class column")
    train.add_argument("--out", required=True, metavar="MODEL", help="model file to write")
    train.add_argument("--stream", action=argparse.BooleanOptionalAction, default=None,
                       help="read a CSV file in chunks, binning as it reads (needs "
                            "--algorithm cart and --splitter hist; memory: about rows x "
                            "features bytes); default: on for such runs on a CSV file of "
                            f"{STREAM_MIN_BYTES // 2**20} MiB or more, also with --splitter "
                            "auto")
    train.add_argument("--scheduler", metavar="ADDRESS",
                       help="fit on a Dask cluster: a scheduler address (tcp://host:8786) or "
                            "local:N (N local worker processes); DATA may be a glob of "
                            ".parquet or .csv files (needs --splitter hist and quercus[dask])")
    train.add_argument("--checkpoint", metavar="PATH",
                       help="with --scheduler: write the growth state to PATH after every "
                            "tree level, so that a fit whose driver died can go on with "
                            "--resume PATH (a pickle: resume only from files you wrote)")
    train.add_argument("--resume", metavar="PATH",
                       help="with --scheduler: continue a fit from the checkpoint at PATH "
                            "(same data and options); give --checkpoint PATH too to keep "
                            "writing it")
    _learner_options(train)
    train.set_defaults(func=cmd_train)

    predict = commands.add_parser("predict", help="predict the class of every row",
                                  description="Predict with a model file; writes CSV.")
    predict.add_argument("model", metavar="MODEL", help="model file (JSON)")
    predict.add_argument("data", metavar="DATA", help="rows to predict (.csv, .csv.gz, .arff or .parquet)")
    predict.add_argument("--proba", action="store_true",
                         help="add a proba_<class> column per class")
    predict.add_argument("--out", metavar="FILE", help="write CSV here (default: stdout)")
    predict.add_argument("--keep", nargs="+", metavar="COL", default=[],
                         help="copy these columns of DATA (as written there) before the "
                              "predictions, in this order; 'all' copies every column")
    predict.add_argument("--explain", action="store_true",
                         help="instead of CSV, print each row's prediction and its path "
                              "through the tree: every test with the row's value, and the "
                              "leaf's class counts")
    predict.add_argument("--format", choices=["text", "json"], default=None,
                         help="with --explain: text (default) or JSON")
    reading_options(predict)
    predict.set_defaults(func=cmd_predict)

    show = commands.add_parser("show", help="print a model's tree",
                               description="Print the tree of a model file as text, or as "
                                           "Weka's J48 or Id3 prints it.")
    show.add_argument("model", metavar="MODEL", help="model file (JSON)")
    show.add_argument("--format", choices=[*SHOW_FORMATS, *PICTURE_FORMATS], default="text",
                      help="text: Quercus's tree (default); j48: as Weka's J48 prints a C4.5 "
                           "tree; id3: as Weka's Id3 prints an ID3 tree; xml: seed 001's "
                           "XML (class-interval trees); rpart: as R's print(fit) prints an "
                           "rpart tree; dot: a Graphviz graph; svg, png: "
                           "that graph drawn by Graphviz's dot program (png needs --out)")
    show.add_argument("--out", metavar="FILE",
                      help="write to FILE (atomically) instead of stdout")
    show.set_defaults(func=cmd_show)

    cp = commands.add_parser("cp", help="print a model's cp table (rpart)",
                             description="Print the complexity-parameter table of an rpart "
                                         "model as R's printcp does (our call line instead "
                                         "of R's).")
    cp.add_argument("model", metavar="MODEL", help="model file (JSON)")
    cp.add_argument("--out", metavar="FILE", help="write to FILE (atomically) instead of stdout")
    cp.set_defaults(func=cmd_cp)

    plot = commands.add_parser(
        "plot", help="draw the decision surface over two features",
        description="Draw the class a model predicts over a grid of two numeric features, "
                    "with the rows of DATA coloured by class (needs matplotlib: pip install "
                    "'quercus[plot]'). Other features are held at their median (numeric) or "
                    "most frequent category in DATA.")
    plot.add_argument("model", metavar="MODEL", help="model file (JSON)")
    plot.add_argument("data", metavar="DATA", help="rows to draw, e.g. the training data "
                                                   "(.csv, .csv.gz, .arff or .parquet); they also set the range")
    plot.add_argument("--features", nargs=2, metavar=("X", "Y"),
                      help="the horizontal and vertical features (default: the model's two "
                           "features, when it has two)")
    plot.add_argument("--out", required=True, metavar="FILE",
                      help="picture to write: .png, .svg or .pdf")
    plot.add_argument("--resolution", type=int, default=300, metavar="N",
                      help="grid points along each axis (default: 300)")
    reading_options(plot)
    plot.set_defaults(func=cmd_plot)

    report = commands.add_parser(
        "report", help="write a self-contained HTML report of a model",
        description="Write one HTML page (no network needed) with the interactive tree, the "
                    "rules, the feature importances and, with DATA, the accuracy and "
                    "confusion matrix on DATA.")
    report.add_argument("model", metavar="MODEL", help="model file (JSON)")
    report.add_argument("data", metavar="DATA", nargs="?",
                        help="labelled rows to evaluate on (.csv, .csv.gz, .arff or .parquet), optional")
    report.add_argument("--out", required=True, metavar="FILE", help="HTML file to write")
    reading_options(report)
    report.set_defaults(func=cmd_report)

    rules = commands.add_parser(
        "rules", help="print a model's IF-THEN rules",
        description="Print one IF-THEN rule per leaf of a model file, with its support and "
                    "accuracy on the training data; or, with --simplify, a C4.5rules-style "
                    "rule set (generalised rules, ordered, with a default class; see "
                    "docs/rules.md).")
    rules.add_argument("model", metavar="MODEL", help="model file (JSON)")
    rules.add_argument("--simplify", action="store_true",
                       help="generalise the rules on the training data (--data), select and "
                            "order them and choose a default class")
    rules.add_argument("--data", metavar="TRAIN",
                       help="with --simplify: the training data (.csv or .arff, with the "
                            "class column)")
    rules.add_argument("--confidence", type=_confidence, default=None, metavar="X",
                       help="with --simplify: confidence factor of the pessimistic error "
                            "rate, in (0, 1) (default: the model's, 0.25 unless set)")
    rules.add_argument("--format", choices=["text", "json"], default="text",
                       help="text (default) or a JSON document for programs")
    rules.add_argument("--out", metavar="FILE",
                       help="write to FILE (atomically) instead of stdout")
    reading_options(rules)
    rules.set_defaults(func=cmd_rules)

    export = commands.add_parser(
        "export", help="write a model as Python or C source code, ONNX or PMML",
        description="Write a model file as a standalone function of nested if/else: Python "
                    "(predict(row) on raw values, predict_proba(row)) or C (int "
                    "predict(const double *row) on the encoded row, predict_proba). Invalid "
                    "input raises ValueError (Python) or makes predict return -2 (C). Or as "
                    "an ONNX TreeEnsembleClassifier (inputs: one per column, numbers or "
                    "strings; or the encoded rows) or a PMML 4.4 TreeModel; see "
                    "docs/export.md.")
    export.add_argument("model", metavar="MODEL", help="model file (JSON)")
    export.add_argument("--format", choices=list(EXPORT_FORMATS), default="python",
                        help="python or c source code (default: python), onnx or pmml")
    export.add_argument("--out", metavar="FILE",
                        help="write the result here (default: stdout; onnx needs --out)")
    export.add_argument("--max-nodes", type=int, default=2_000_000, metavar="N",
                        help="onnx: refuse a C4.5 tree whose exact ONNX form (one ONNX tree "
                             "per weighted missing-value path) needs more than N nodes "
                             "(default: 2000000)")
    export.add_argument("--onnx-inputs", choices=["raw", "encoded"], default=None,
                        help="onnx: raw (default) takes one input per column, named after it "
                             "(numbers, or strings for a categorical column); encoded takes "
                             "one matrix X of the encoded rows (category codes)")
    export.add_argument("--function-name", default="predict", metavar="NAME",
                        help="name of the predict function; the probabilities function is "
                             "NAME_proba (default: predict)")
    export.add_argument("--ranges", metavar="DATA",
                        help="training data (.csv, .csv.gz, .arff or .parquet): the code also refuses a numeric "
                             "value outside its column's range in DATA")
    reading_options(export)
    export.set_defaults(func=cmd_export)

    evaluate = commands.add_parser("eval", help="stratified k-fold cross-validation",
                                   description="Cross-validate a learner on a data set.")
    evaluate.add_argument("data", metavar="DATA", help="data (.csv, .csv.gz, .arff or .parquet)")
    evaluate.add_argument("--target", required=True, metavar="COL", help="class column")
    evaluate.add_argument("--cv", type=int, default=10, metavar="K",
                          help="number of folds (default: 10)")
    evaluate.add_argument("--seed", type=int, default=0, metavar="S",
                          help="seed of the fold shuffle (default: 0)")
    evaluate.add_argument("--compare", action="store_true",
                          help="cross-validate every learner 'auto' chooses among, and the "
                               "unpruned CART tree, on the same folds: accuracy ± standard "
                               "error, leaves, seconds per fit (docs/auto.md)")
    _learner_options(evaluate)
    evaluate.set_defaults(func=cmd_eval)

    inspect = commands.add_parser(
        "inspect", help="show how a data file is read, column by column",
        description="Print each column's type as read, its missing count, its number of "
                    "distinct values and example values, and the target's classes with "
                    "their counts, so that you can check the reading before training.")
    inspect.add_argument("data", metavar="DATA", help="data (.csv, .csv.gz, .arff, .parquet)")
    inspect.add_argument("--target", metavar="COL", help="class column (default: none)")
    inspect.add_argument("--categorical", nargs="+", metavar="COL", default=[],
                         help="treat these columns as categorical")
    inspect.add_argument("--numeric", nargs="+", metavar="COL", default=[],
                         help="treat these columns as numeric")
    reading_options(inspect)
    inspect.set_defaults(func=cmd_inspect)

    demo = commands.add_parser("demo", help="a short tour on bundled data sets",
                               description="Train on play_tennis and iris and print the "
                                           "trees, rules and held-out accuracy.")
    demo.set_defaults(func=cmd_demo)
    return parser


class _InterruptWatch:
    """Remembers a Ctrl-C (SIGINT) while a command runs, so that an error a library made of
    it (pandas turns a KeyboardInterrupt inside its file reads into a ParserError) still
    ends as an interruption."""

    def __enter__(self) -> Self:
        self.seen = self.installed = False
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGINT, self._on_sigint)
            self.installed = True
        return self

    def _on_sigint(self, signum, frame) -> None:
        self.seen = True
        raise KeyboardInterrupt

    def __exit__(self, kind, error, traceback) -> None:
        if self.installed:
            signal.signal(signal.SIGINT, self.previous or signal.SIG_DFL)
        if self.seen and isinstance(error, Exception):
            raise KeyboardInterrupt from error


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        with _InterruptWatch():
            return args.func(args)
    except KeyboardInterrupt:
        print("quercus: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)  # stop Python's own flush from failing
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except (QuercusError, ValueError, OSError) as error:
        print(f"quercus: error: {_message(error)}", file=sys.stderr)
        return EXIT_USAGE
