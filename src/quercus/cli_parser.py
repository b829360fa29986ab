"""The argument parser of the ``quercus`` command: its options, choices and help texts.

It imports argparse and the names it shows (``quercus.names``) only, so that ``quercus
--help``, ``quercus COMMAND --help``, ``--version`` and a mistyped option answer without
importing numpy, pandas or the learners (issue 39, "Start-up"); ``quercus.cli.main`` imports
the command that runs (``quercus.cli_commands.cmd_<COMMAND>``) after parsing.
"""

from __future__ import annotations

import argparse
import os

from . import __version__
from .names import (
    ALGORITHMS,
    CRITERIA,
    DEFAULT_CRITERION,
    DEFAULT_MIN_SAMPLES_LEAF,
    EXPORT_FORMATS,
    MAX_CLASS_VALUES,
    PICTURE_FORMATS,
    SHOW_FORMATS,
    STREAM_MIN_BYTES,
)

__all__ = ["EXIT_USAGE", "build_parser", "reading_options"]

EXIT_USAGE = 2


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line: ``quercus: error: <message>``."""

    def error(self, message: str):
        self.exit(EXIT_USAGE, f"quercus: error: {message} (see '{self.prog} --help')\n")


# -- types and actions of options ---------------------------------------------------------
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


# -- parser --------------------------------------------------------------------------------
def reading_options(parser: argparse.ArgumentParser) -> None:
    """--na-values and --keep-na-token: every command that reads a data file has them."""
    group = parser.add_argument_group("reading options")
    group.add_argument("--na-values", nargs="+", metavar="TOKEN", default=[],
                       help="more strings that mean a missing value, besides the default "
                            "set (empty, ?, NA, N/A, NaN, nan, null, NULL, None, #N/A, ...: "
                            "see README 'Reading your data'); a model remembers them for "
                            "predict")
    group.add_argument("--keep-na-token", dest="keep_na", nargs="+", metavar="TOKEN",
                       default=[], help="read these strings of the default set as real "
                                        "values (e.g. a category called NA)")


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
                            f"{MAX_CLASS_VALUES} distinct values (CART, squared error)")
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

    cp = commands.add_parser("cp", help="print a model's cp table (rpart)",
                             description="Print the complexity-parameter table of an rpart "
                                         "model as R's printcp does (our call line instead "
                                         "of R's).")
    cp.add_argument("model", metavar="MODEL", help="model file (JSON)")
    cp.add_argument("--out", metavar="FILE", help="write to FILE (atomically) instead of stdout")

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

    demo = commands.add_parser("demo", help="a short tour on bundled data sets",
                               description="Train on play_tennis and iris and print the "
                                           "trees, rules and held-out accuracy.")
    return parser
