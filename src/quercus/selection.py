"""``algorithm="auto"``: the best small tree, chosen by inner stratified cross-validation.

The candidates (``CANDIDATES``) are fitted on the same stratified folds of the training rows
(seeded by ``random_state``); the one of highest cross-validated accuracy wins, and a
candidate whose accuracy is within one tested row of the best (``TIE_ROWS``) ties with it:
ties go to the tree with fewer leaves (mean over the folds), then to the earlier candidate.
The winner is then refitted on every row. ``compare`` gives the same table for any list of
learners (``quercus eval --compare``). See docs/auto.md.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from . import validation as V
from .data.frames import as_1d
from .errors import DataError

__all__ = ["CANDIDATES", "Candidate", "Selection", "available_candidates", "candidate_available",
           "compare", "fit_auto", "format_table", "select", "summary_line"]

INNER_FOLDS = 5  # folds of the inner cross-validation
SELECT_ROWS = 20_000  # above this many labelled rows, select on a random subsample this big
BIG_INNER_FOLDS = 3  # ... with this many folds (benchmarks/bench_auto_cost.py, docs/auto.md)
BIG_DATA_ROWS = 1_000_000  # above this, no selection: the fallback learner on a subsample
FALLBACK_ROWS = 200_000  # rows of that subsample
TIE_ROWS = 1  # accuracies within this many tested rows of each other tie
# no time limit: the size gates keep each search to about a second, and a limit would make
# the choice depend on the machine's speed and load
OPTIMAL_TIME_LIMIT = None


@dataclass(frozen=True)
class Candidate:
    """One learner ``auto`` may choose: an id, a label for people, the estimator parameters,
    and the largest data (labelled rows x features) it is tried on (None: any)."""

    name: str
    label: str
    params: dict = field(hash=False)
    max_cells: int | None = None


def _optimal(depth: int, max_bins: int, categorical: str, max_cells: int) -> Candidate:
    return Candidate(f"optimal-d{depth}", f"optimal, depth {depth}",
                     {"algorithm": "optimal", "max_depth": depth, "numeric": "bins",
                      "max_bins": max_bins, "categorical": categorical,
                      "time_limit": OPTIMAL_TIME_LIMIT}, max_cells)


#: Every candidate, in order of preference when two tie on accuracy and leaves.
CANDIDATES = (
    Candidate("rpart-1se", "rpart, 1-SE", {"algorithm": "rpart", "prune": "1se"}),
    Candidate("cart-1se", "CART, 1-SE", {"algorithm": "cart", "prune": "1se"}),
    Candidate("c45", "C4.5 (J48)", {"algorithm": "c45"}),
    Candidate("c45-cv", "C4.5, CV-pruned", {"algorithm": "c45", "prune": "cv"}),
    _optimal(2, 32, "subset", 500_000),
    _optimal(3, 8, "one_vs_rest", 30_000),
    _optimal(4, 8, "one_vs_rest", 2_500),
)
#: Learners for data above BIG_DATA_ROWS rows: the first available one is fitted.
FALLBACK = ("cart-1se", "c45")
#: The reference row of ``compare``: the unpruned CART tree (scikit-learn's default).
BASELINE = Candidate("cart", "CART, unpruned", {"algorithm": "cart"})


def candidate_available(candidate: Candidate, estimator) -> bool:
    """Whether this Quercus has the candidate's learner and parameters.

    A candidate whose ``algorithm`` is not a learner or that needs a parameter the estimator
    class ``estimator`` (``DecisionTreeClassifier``; passed in, as this module does not
    import it) lacks is left out; every listed candidate is available in this Quercus
    (tests/test_auto.py checks it), so this only guards a subclass or a trimmed build.
    """
    from .learners import ALGORITHMS

    names = estimator._param_names()
    return candidate.params["algorithm"] in ALGORITHMS and all(p in names
                                                              for p in candidate.params)


def available_candidates(estimator, n_rows: int, n_features: int) -> list[Candidate]:
    """The candidates this Quercus has, among those tried on data of this size."""
    cells = n_rows * max(n_features, 1)
    return [c for c in CANDIDATES if candidate_available(c, estimator)
            and (c.max_cells is None or cells <= c.max_cells)]


def _by_name(name: str) -> Candidate:
    return next(c for c in (*CANDIDATES, BASELINE) if c.name == name)


@dataclass
class Selection:
    """What ``select`` found: the table, the winner and a one-line account."""

    table: pd.DataFrame
    chosen: Candidate
    summary: str
    fallback: bool = False


def _seed(random_state) -> int:
    """An int seed for the folds from the estimator's ``random_state``."""
    if random_state is None:
        return int(np.random.randint(0, 2**31 - 1))
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**31 - 1))
    return int(random_state)


def _fold_score(model, X, y, weights) -> float:
    """Weighted number of rows ``model`` gets right."""
    right = np.asarray(model.predict(X) == np.asarray(y, dtype=object), dtype=float)
    return float(right @ weights)


def evaluate(estimator, candidates, frame, labels, weights, folds, base: dict,
             progress=None) -> pd.DataFrame:
    """Fit every candidate (an ``estimator`` of its parameters) on every fold; the table
    of ``Selection.table`` (no choice yet).

    ``frame``/``labels`` are encoded once for all folds (``evaluation._canonical_frame``),
    ``weights`` the rows' sample weights and ``base`` the parameters every fit shares.
    A candidate that fails on a fold (e.g. ID3-style data it refuses) gets NaN figures.
    """
    return _evaluate(estimator, candidates, frame, labels, weights, folds, base, progress)


def _evaluate(estimator, candidates, frame, labels, weights, folds, base, progress):
    rows, total, done = [], len(candidates) * len(folds), 0
    for candidate in candidates:
        right = tested = 0.0
        accuracies, leaves, seconds, error = [], [], [], None
        for train, test in folds:
            model = estimator(**{**base, **candidate.params})
            start = time.perf_counter()
            try:
                model.fit(frame.iloc[train], labels.iloc[train], sample_weight=weights[train])
                score = _fold_score(model, frame.iloc[test], labels.iloc[test], weights[test])
            except (DataError, ValueError) as failure:
                error = " ".join(str(failure).split())
                break
            finally:
                done += 1
                if progress is not None:
                    progress(min(done / max(total, 1), 0.99))
            seconds.append(time.perf_counter() - start)
            right += score
            tested += float(weights[test].sum())
            accuracies.append(score / max(float(weights[test].sum()), 1e-300))
            leaves.append(model.get_n_leaves())
        ok = error is None and tested > 0
        k = len(accuracies)
        rows.append({
            "name": candidate.name, "learner": candidate.label,
            "accuracy": right / tested if ok else np.nan,
            "std_error": float(np.std(accuracies, ddof=1) / np.sqrt(k)) if ok and k > 1 else np.nan,
            "leaves": float(np.mean(leaves)) if ok else np.nan,
            "fit_seconds": float(np.mean(seconds)) if ok else np.nan,
            "chosen": False, "error": error})
    return pd.DataFrame(rows)


def choose(table: pd.DataFrame, n_tested: int) -> int:
    """Index of the winning row: highest accuracy; rows within ``TIE_ROWS / n_tested`` of
    it tie, and the tie goes to fewer mean leaves, then to the earlier row."""
    scored = table[table["accuracy"].notna()]
    if scored.empty:
        raise DataError("algorithm='auto': no candidate learner could be fitted: "
                        + "; ".join(f"{n}: {e}" for n, e in zip(table["name"], table["error"])))
    tolerance = TIE_ROWS / max(n_tested, 1) + 1e-12
    best = scored["accuracy"].max()
    tied = scored[scored["accuracy"] >= best - tolerance]
    return int(tied.sort_values("leaves", kind="stable").index[0])


def _known_rows(X, y, categorical_features):
    """The labelled rows, encoded with one schema for all folds."""
    from .data.schema import infer_schema
    from .evaluation import _canonical_frame, _take

    schema = infer_schema(X, y, categorical_features=categorical_features)
    known = np.flatnonzero(schema.encode_labels(y) >= 0)
    if known.size == 0:
        raise DataError("no training rows with a known class label")
    frame, labels = _canonical_frame(_take(X, known), _take(as_1d(y), known),
                                     categorical_features)
    return known, frame, labels


def _subsample(n: int, size: int, seed: int) -> np.ndarray:
    """``size`` of ``range(n)``, drawn at random, in order."""
    return np.sort(np.random.default_rng(seed).choice(n, size, replace=False))


def summary_line(table: pd.DataFrame, chosen: int, note: str = "") -> str:
    """One line: the chosen learner and its figures, then the runner-up's (why it won)."""
    def figures(row) -> str:
        se = "" if np.isnan(row["std_error"]) else f" ± {row['std_error']:.3f}"
        return f"{row['leaves']:.3g} leaves, CV accuracy {row['accuracy']:.3f}{se}"

    win = table.loc[chosen]
    text = f"{win['learner']}: {figures(win)}"
    others = table[(table.index != chosen) & table["accuracy"].notna()]
    if not others.empty:
        runner = others.sort_values(["accuracy", "leaves"], ascending=[False, True],
                                    kind="stable").iloc[0]
        tie = ""
        if runner["accuracy"] >= win["accuracy"]:  # won a tie (within one row)
            tie = " (tie: fewer leaves)" if runner["leaves"] > win["leaves"] else \
                " (tie: listed first)"
        text += f"; runner-up {runner['learner']}: {figures(runner)}{tie}"
    return text + note


def format_table(table: pd.DataFrame) -> str:
    """The table as aligned text: learner, accuracy ± standard error, mean leaves, mean
    seconds per fit, and an arrow at the row ``auto`` chooses."""
    head = ["learner", "accuracy", "± s.e.", "leaves", "seconds"]
    rows = []
    for row in table.to_dict(orient="records"):
        if row["error"] is not None and np.isnan(row["accuracy"]):
            rows.append([row["learner"], "failed", "", "", "", f"  ({row['error']})"])
            continue
        se = "" if np.isnan(row["std_error"]) else f"{row['std_error']:.4f}"
        rows.append([row["learner"], f"{row['accuracy']:.4f}", se, f"{row['leaves']:.1f}",
                     f"{row['fit_seconds']:.3f}", "  <- auto's choice" if row["chosen"] else ""])
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]

    def line(cells, mark=""):
        return "  ".join([cells[0].ljust(widths[0])]
                         + [c.rjust(w) for c, w in zip(cells[1:], widths[1:])]) + mark

    return "\n".join([line(head)] + [line(r[:5], r[5]) for r in rows])


def select(model, X, y, sample_weight=None, progress=None) -> Selection:
    """Choose among the available candidates for the estimator ``model`` (its
    ``random_state``, ``class_weight`` and ``categorical_features`` are shared by every fit).
    X and y are the caller's checked input; returns the table and the winner (not refitted).
    """
    seed = _seed(model.random_state)
    known, frame, labels = _known_rows(X, y, model.categorical_features)
    weights = np.ones(len(X)) if sample_weight is None else np.asarray(sample_weight, float)
    weights = weights[known]
    base = {"random_state": seed, "class_weight": model.class_weight,
            "categorical_features": model.categorical_features}
    n, n_features = len(known), frame.shape[1]
    if n > BIG_DATA_ROWS:
        return _fallback(n, type(model))
    big = n > SELECT_ROWS
    rows = _subsample(n, SELECT_ROWS, seed) if big else np.arange(n)
    note = f" (selected on {SELECT_ROWS:,} of {n:,} rows)" if big else ""
    candidates = available_candidates(type(model), len(rows), n_features)
    if len(rows) < 2 or not candidates:  # nothing to cross-validate: the first learner
        first = candidates[0] if candidates else _by_name("c45")
        table = pd.DataFrame([{"name": first.name, "learner": first.label, "accuracy": np.nan,
                               "std_error": np.nan, "leaves": np.nan, "fit_seconds": np.nan,
                               "chosen": True, "error": "too few rows to cross-validate"}])
        return Selection(table, first, f"{first.label}: too few rows to cross-validate")
    from .evaluation import stratified_folds

    folds = [(rows[a], rows[b]) for a, b in stratified_folds(
        labels.iloc[rows].to_numpy(), min(BIG_INNER_FOLDS if big else INNER_FOLDS, len(rows)),
        seed)]
    table = evaluate(type(model), candidates, frame, labels, weights, folds, base, progress)
    chosen = choose(table, len(rows))
    table.loc[chosen, "chosen"] = True
    return Selection(table, candidates[chosen], summary_line(table, chosen, note))


def _fallback(n: int, estimator) -> Selection:
    """Big data: no selection; the first available fallback learner, fitted on a subsample."""
    fallback = next((_by_name(name) for name in FALLBACK
                     if candidate_available(_by_name(name), estimator)), _by_name("c45"))
    text = (f"{fallback.label} on a random {FALLBACK_ROWS:,} of {n:,} rows: above "
            f"{BIG_DATA_ROWS:,} rows 'auto' does not cross-validate its candidates")
    warnings.warn(f"algorithm='auto': {text}", UserWarning, stacklevel=4)
    table = pd.DataFrame([{"name": fallback.name, "learner": fallback.label, "accuracy": np.nan,
                           "std_error": np.nan, "leaves": np.nan, "fit_seconds": np.nan,
                           "chosen": True, "error": None}])
    return Selection(table, fallback, text, fallback=True)


def compare(estimator, X, y, n_folds: int = 10, seed: int = 0, categorical_features="auto",
            candidates=None) -> pd.DataFrame:
    """Every learner ``auto`` has (or ``candidates``) plus the unpruned CART tree, on the
    same stratified folds: the table of ``selection_`` with the row ``auto`` would choose
    flagged. ``estimator`` is the class (``DecisionTreeClassifier``). ``quercus eval
    --compare`` prints it."""
    from .evaluation import stratified_folds

    known, frame, labels = _known_rows(X, y, categorical_features)
    if candidates is None:
        candidates = available_candidates(estimator, len(known), frame.shape[1])
    folds = stratified_folds(labels.to_numpy(), n_folds, seed)
    base = {"random_state": seed, "categorical_features": categorical_features}
    table = evaluate(estimator, candidates, frame, labels, np.ones(len(known)), folds, base)
    chosen = choose(table, len(known))
    table.loc[chosen, "chosen"] = True
    baseline = evaluate(estimator, [BASELINE], frame, labels, np.ones(len(known)), folds, base)
    return pd.concat([table, baseline], ignore_index=True)


# -- the estimator's fit with algorithm="auto" --------------------------------------------
#: Parameters ``auto`` uses itself; every other one must keep its default (the candidates
#: set their own).
SHARED_PARAMS = ("algorithm", "random_state", "class_weight", "categorical_features")


def _check_params(model) -> None:
    defaults = type(model)().get_params()
    changed = [name for name, value in model.get_params().items()
               if name not in SHARED_PARAMS and not _same(value, defaults[name])]
    if changed:
        raise ValueError(f"algorithm='auto' chooses the learner and its settings itself; "
                         f"leave {', '.join(changed)} at the default or pick an algorithm")


def _same(a, b) -> bool:
    try:
        return bool(a == b) and type(a) is type(b)
    except (TypeError, ValueError):
        return a is b


def fit_auto(model, X, y, sample_weight=None, progress=None):
    """``DecisionTreeClassifier(algorithm="auto").fit``: select, then refit the winner on
    every row (big data: the fallback learner on a subsample) and take over its fitted
    attributes; ``selection_``, ``chosen_``, ``best_estimator_`` and ``selection_summary_``
    record the choice."""
    _check_params(model)
    if hasattr(X, "__dask_graph__") or hasattr(y, "__dask_graph__"):
        raise ValueError("algorithm='auto' needs data in memory; pick an algorithm for a "
                         "Dask fit (docs/distributed.md)")
    X = V.check_features(X, fitting=True)
    if V._is_sparse(X):
        X = V.densify(X)
    y = V.check_target(y, type(model).__name__)
    if np.ndim(y) == 2 and np.shape(y)[1] > 1:
        raise ValueError("algorithm='auto' learns one label column; pick an algorithm for "
                         "a multi-output y")
    if hasattr(y, "ndim") and y.ndim == 2:
        y = np.asarray(y).ravel()
    if len(as_1d(y)) != len(X):
        raise DataError(f"X has {len(X)} rows but y has {len(as_1d(y))}")
    if sample_weight is not None:
        sample_weight = np.asarray(sample_weight, dtype=np.float64)
        if sample_weight.shape != (len(X),):
            raise DataError(f"sample_weight has shape {sample_weight.shape} for {len(X)} rows")
    selection = select(model, X, y, sample_weight, progress)
    params = {**model.get_params(), **selection.chosen.params}
    params["random_state"] = _seed(model.random_state) if model.random_state is None \
        or isinstance(model.random_state, np.random.RandomState) else model.random_state
    best = type(model)(**params)
    if selection.fallback:
        rows = _subsample(len(X), min(FALLBACK_ROWS, len(X)), params["random_state"])
        X, y = _take(X, rows), _take(as_1d(y), rows)
        sample_weight = None if sample_weight is None else sample_weight[rows]
    best.fit(X, y, sample_weight=sample_weight)
    for name in [n for n in vars(model) if n.endswith("_") and not n.startswith("_")]:
        delattr(model, name)  # a previous fit's attributes
    for name, value in vars(best).items():  # the fitted attributes: tree_, schema_ ...
        if name.endswith("_") and not name.startswith("_"):
            setattr(model, name, value)
    model.best_estimator_ = best
    model.chosen_ = {"name": selection.chosen.name, "learner": selection.chosen.label,
                     "params": dict(selection.chosen.params)}
    model.selection_ = selection.table
    model.selection_summary_ = selection.summary
    if progress is not None:
        progress(1.0)
    return model


def _take(X, rows):
    from .evaluation import _take as take

    return take(X, rows)
