"""The commands of ``quercus``: ``cmd_<COMMAND>(args)`` runs COMMAND on the parsed arguments
(``cli_parser.build_parser``) and returns the exit status.

``quercus.cli.main`` imports this module only once the arguments parse, so that the help
and argument errors need neither numpy, pandas nor the library (issue 39, "Start-up").
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import numpy as np
import pandas as pd

from . import cli_regression as R
from . import datasets
from .cli_auto import categorical_option as _categorical
from .cli_auto import learner_of as _learner_of
from .cli_auto import print_comparison as _print_comparison
from .cli_auto import resolve_algorithm as _resolve_algorithm
from .cli_auto import tuned as _tuned
from .cli_output import cmd_cp, cmd_export, cmd_plot, cmd_report, cmd_rules, cmd_show, emit
from .cli_reading import cmd_inspect, labelled_rows, read_file
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
from .names import CRITERIA, DEFAULT_CRITERION, STREAM_MIN_BYTES
from .progress import ProgressBar
from .pruning import c45_cv
from .splitting.regression import REGRESSION_CRITERIA
from .tree import LEAF

# quercus.cli.main runs cmd_<COMMAND>: the parser's command names
__all__ = ["cmd_cp", "cmd_demo", "cmd_eval", "cmd_export", "cmd_inspect", "cmd_plot",
           "cmd_predict", "cmd_report", "cmd_rules", "cmd_show", "cmd_train"]


# -- helpers -------------------------------------------------------------------------------
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
