"""Stratified k-fold cross-validation, accuracy and confusion matrices (numpy only)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .data.frames import MISSING_STRINGS, as_1d, to_python
from .data.schema import infer_schema
from .export.conditions import format_value

__all__ = [
    "CVResult",
    "accuracy",
    "confusion_matrix",
    "cross_validate",
    "format_confusion",
    "stratified_folds",
]


@dataclass
class CVResult:
    """Outcome of ``cross_validate``.

    Attributes
    ----------
    accuracies : ndarray of float, shape (n_folds,)
        Accuracy on each test fold.
    confusion : ndarray of int, shape (n_labels, n_labels)
        Summed over the test folds; rows are true labels, columns predicted labels.
    labels : list
        The class labels, in the order of the confusion matrix.
    """

    accuracies: np.ndarray
    confusion: np.ndarray
    labels: list

    @property
    def mean(self) -> float:
        return float(np.mean(self.accuracies))

    @property
    def std(self) -> float:
        return float(np.std(self.accuracies))


def _label_codes(y) -> tuple[np.ndarray, list]:
    """Integer codes of the labels (first-appearance order) and the distinct labels."""
    index: dict = {}
    codes = np.empty(len(y), dtype=np.int64)
    for i, label in enumerate(y):
        codes[i] = index.setdefault(to_python(label), len(index))
    return codes, list(index)


def stratified_folds(y, n_folds: int, seed: int | None = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    """Split row indices into ``n_folds`` folds that keep the class proportions.

    Each class's rows are shuffled (``numpy.random.default_rng(seed)``) and dealt round-robin,
    continuing from class to class, so per class and in total the fold sizes differ by at
    most one.

    Parameters
    ----------
    y : array-like
        Class labels, one per row.
    n_folds : int
        Between 2 and the number of rows.
    seed : int or None

    Returns
    -------
    list of (train_idx, test_idx)
        Sorted int64 index arrays; the test folds partition the rows.
    """
    labels = as_1d(y)
    n_rows = len(labels)
    if isinstance(n_folds, bool) or not isinstance(n_folds, (int, np.integer)) or n_folds < 2:
        raise ValueError(f"the number of folds must be an int >= 2; got {n_folds!r}")
    if n_folds > n_rows:
        raise ValueError(f"cannot make {n_folds} folds from {n_rows} rows")
    codes, _ = _label_codes(labels)
    rng = np.random.default_rng(seed)
    order = np.concatenate([rng.permutation(np.flatnonzero(codes == c))
                            for c in range(int(codes.max()) + 1)])
    fold_of = np.empty(n_rows, dtype=np.int64)
    fold_of[order] = np.arange(n_rows) % n_folds
    everything = np.arange(n_rows)
    return [(everything[fold_of != k], everything[fold_of == k]) for k in range(n_folds)]


def accuracy(y_true, y_pred) -> float:
    """Share of rows whose prediction equals the true label."""
    truth = [to_python(v) for v in as_1d(y_true)]
    predicted = [to_python(v) for v in as_1d(y_pred)]
    if len(truth) != len(predicted):
        raise ValueError(f"{len(truth)} labels but {len(predicted)} predictions")
    if not truth:
        raise ValueError("accuracy of zero rows")
    return sum(a == b for a, b in zip(truth, predicted)) / len(truth)


def confusion_matrix(y_true, y_pred, labels) -> np.ndarray:
    """Counts of (true label, predicted label) pairs.

    Parameters
    ----------
    y_true, y_pred : array-like
    labels : sequence
        Row and column order; pairs involving other labels are not counted.

    Returns
    -------
    ndarray of int64, shape (len(labels), len(labels))
        ``out[i, j]``: rows of label ``labels[i]`` predicted as ``labels[j]``.
    """
    position = {to_python(label): i for i, label in enumerate(labels)}
    out = np.zeros((len(position), len(position)), dtype=np.int64)
    truth, predicted = as_1d(y_true), as_1d(y_pred)
    if len(truth) != len(predicted):
        raise ValueError(f"{len(truth)} labels but {len(predicted)} predictions")
    for a, b in zip(truth, predicted):
        i, j = position.get(to_python(a)), position.get(to_python(b))
        if i is not None and j is not None:
            out[i, j] += 1
    return out


def format_confusion(confusion: np.ndarray, labels) -> str:
    """The confusion matrix as an aligned table: rows true labels, columns predictions."""
    names = [format_value(label) for label in labels]
    cells = [[str(int(v)) for v in row] for row in np.asarray(confusion)]
    head = "true \\ predicted"
    width0 = max([len(head)] + [len(n) for n in names])
    widths = [max([len(names[j])] + [len(row[j]) for row in cells]) for j in range(len(names))]
    lines = [head.ljust(width0) + "".join("  " + n.rjust(w) for n, w in zip(names, widths))]
    for name, row in zip(names, cells):
        lines.append(name.ljust(width0) + "".join("  " + c.rjust(w) for c, w in zip(row, widths)))
    return "\n".join(lines)


def _missing_labels(labels, tokens=MISSING_STRINGS) -> np.ndarray:
    """Mask of the missing labels (None, NaN, pd.NA and the missing-value strings)."""
    values = np.asarray(labels, dtype=object)
    mask = np.array(pd.isna(values), dtype=bool)
    return mask | pd.Series(values, dtype=object).isin(list(tokens)).to_numpy()


def _take(X, idx: np.ndarray):
    if hasattr(X, "iloc"):
        return X.iloc[idx]
    if isinstance(X, np.ndarray):
        return X[idx]
    return [X[i] for i in idx]


def _canonical_frame(X, y, categorical_features) -> tuple[pd.DataFrame, pd.Series]:
    """X and y re-encoded with one schema for all folds: categorical columns become pandas
    categoricals holding every category, so no test fold meets an unseen category."""
    schema = infer_schema(X, y, categorical_features=categorical_features)
    encoded = schema.encode(X)
    columns = {}
    for j, spec in enumerate(schema.features):
        if spec.codebook is None:
            columns[spec.name] = encoded[:, j]
        else:
            codes = np.where(np.isnan(encoded[:, j]), -1, encoded[:, j]).astype(np.int64)
            columns[spec.name] = pd.Categorical.from_codes(codes, categories=list(
                spec.codebook.values))
    frame = pd.DataFrame(columns)
    labels = pd.Series(pd.Categorical.from_codes(schema.encode_labels(y),
                                                 categories=list(schema.classes.values)),
                       name=schema.target)
    return frame, labels


def cross_validate(model, X, y, n_folds: int = 10, seed: int | None = 0) -> CVResult:
    """Stratified k-fold cross-validation of unfitted copies of ``model``.

    Each fold fits ``type(model)(**model.get_params())`` on the other folds and predicts
    its own rows. Rows without a label are left out. The features are encoded once with a
    schema inferred from all rows, so every fold sees every category.

    Parameters
    ----------
    model : estimator
        Anything with ``get_params``, ``fit`` and ``predict``.
    X : DataFrame, ndarray or list of rows
    y : array-like
    n_folds : int, default=10
    seed : int or None, default=0
        Seed of the fold shuffle.

    Returns
    -------
    CVResult
    """
    labels_col = as_1d(y)
    if len(labels_col) != len(X):
        raise ValueError(f"X has {len(X)} rows but y has {len(labels_col)} labels")
    tokens = getattr(X, "attrs", {}).get("na_tokens", MISSING_STRINGS)  # a reader's choice
    known = np.flatnonzero(~_missing_labels(labels_col, tokens))
    X, y = _take(X, known), _take(labels_col, known)
    params = model.get_params()
    frame, labels = _canonical_frame(X, y, params.get("categorical_features", "auto"))
    classes = list(labels.cat.categories)
    accuracies, confusion = [], np.zeros((len(classes), len(classes)), dtype=np.int64)
    for train, test in stratified_folds(labels, n_folds, seed):
        clone = type(model)(**params)
        clone.fit(frame.iloc[train], labels.iloc[train])
        predicted = clone.predict(frame.iloc[test])
        truth = labels.iloc[test]
        accuracies.append(accuracy(truth, predicted))
        confusion += confusion_matrix(truth, predicted, classes)
    return CVResult(np.array(accuracies), confusion, [to_python(c) for c in classes])
