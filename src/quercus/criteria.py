"""Disorder measures and split scoring.

Gini impurity and Shannon entropy of class-count vectors, the weighted mean impurity of a
set of branches, Quinlan's information gain, split information and gain ratio, and the
exhaustive numeric split search of McCaffrey's ``GetSplitInfo`` (seed article 000),
vectorised per column.

Every measure is computed from class *counts* (optionally weighted), so the functions on
labels accept any hashable label values (ints, strings, ...).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

__all__ = [
    "CRITERIA",
    "SplitInfo",
    "best_split",
    "class_counts",
    "entropy_from_counts",
    "gain_ratio",
    "get_criterion",
    "gini_from_counts",
    "impurity",
    "information_gain",
    "mean_impurity",
    "split_information",
]


# ---------------------------------------------------------------------------------------
# Label encoding and counting
# ---------------------------------------------------------------------------------------


def _as_label_array(labels: Any) -> np.ndarray:
    """Return ``labels`` as a 1-D array, one element per label."""
    arr = np.asarray(labels)
    if arr.ndim == 1:
        return arr
    if arr.ndim == 0:
        raise ValueError("labels must be a 1-D sequence, got a scalar")
    # Tuple-like labels turned into a 2-D array: keep one object per label.
    seq = list(labels)
    out = np.empty(len(seq), dtype=object)
    out[:] = seq
    return out


def _encode(values: np.ndarray) -> tuple[np.ndarray, int]:
    """Encode a 1-D array of hashable values as int codes; return ``(codes, n_distinct)``.

    Codes follow the sorted order of the values (``np.unique``); values that cannot be
    ordered against each other (e.g. ints mixed with strings) fall back to first-seen order.
    """
    if values.size == 0:
        return np.zeros(0, dtype=np.intp), 0
    try:
        uniques, codes = np.unique(values, return_inverse=True)
    except TypeError:
        codes, uniques = pd.factorize(values, use_na_sentinel=False)
    return np.asarray(codes, dtype=np.intp).reshape(-1), len(uniques)


def _check_weights(sample_weight: Any, n: int) -> np.ndarray | None:
    """Validate ``sample_weight`` against ``n`` labels; return it as float64 or None."""
    if sample_weight is None:
        return None
    w = np.asarray(sample_weight, dtype=np.float64)
    if w.ndim != 1 or w.shape[0] != n:
        raise ValueError(f"sample_weight must be 1-D with {n} entries; got shape {w.shape}")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("sample_weight must be finite and non-negative")
    return w


def class_counts(
    labels: Any, sample_weight: Any = None, n_classes: int | None = None
) -> np.ndarray:
    """Count (or sum the weights of) each class in ``labels``.

    Parameters
    ----------
    labels : array-like of shape (n,)
        Class labels of any hashable type. With ``n_classes`` given they must be int
        codes ``0 .. n_classes - 1``.
    sample_weight : array-like of shape (n,), optional
        Non-negative weight of each label; 1 each by default.
    n_classes : int, optional
        Length of the result when the labels are codes.

    Returns
    -------
    numpy.ndarray of float64
        Without ``n_classes``: one entry per distinct label, in ``np.unique`` order.
        With ``n_classes``: entry ``c`` is the count of code ``c``.
    """
    arr = _as_label_array(labels)
    w = _check_weights(sample_weight, arr.shape[0])
    if n_classes is None:
        codes, k = _encode(arr)
    else:
        k = int(n_classes)
        if k < 0:
            raise ValueError(f"n_classes must be >= 0; got {n_classes}")
        if arr.size == 0:
            codes = np.zeros(0, dtype=np.intp)
        else:
            if not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.bool_)):
                raise ValueError("with n_classes given, labels must be integer codes")
            codes = arr.astype(np.intp)
            if codes.min() < 0 or codes.max() >= k:
                raise ValueError(f"label codes must lie in 0 .. {k - 1}")
    return np.bincount(codes, weights=w, minlength=k).astype(np.float64)


# ---------------------------------------------------------------------------------------
# Measures on count vectors
# ---------------------------------------------------------------------------------------


def _check_counts(counts: Any) -> np.ndarray:
    c = np.asarray(counts, dtype=np.float64)
    if c.ndim == 0:
        raise ValueError("counts must be a vector (or a stack of vectors), got a scalar")
    if not np.all(np.isfinite(c)) or np.any(c < 0):
        raise ValueError("counts must be finite and non-negative")
    return c


def _proportions(c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Class proportions along the last axis (0 where the total is 0) and the totals."""
    total = c.sum(axis=-1, keepdims=True)
    p = np.divide(c, total, out=np.zeros_like(c), where=total > 0)
    return p, total[..., 0]


def _finish(values: np.ndarray) -> float | np.ndarray:
    values = np.maximum(values, 0.0) + 0.0  # clip rounding below 0; turn -0.0 into 0.0
    return float(values) if values.ndim == 0 else values


def gini_from_counts(counts: Any) -> float | np.ndarray:
    """Gini impurity ``1 - sum_c p_c**2`` of class counts.

    Parameters
    ----------
    counts : array-like of shape (..., n_classes)
        Non-negative (weighted) class counts; the last axis runs over classes.

    Returns
    -------
    float or numpy.ndarray
        A float for one count vector, an array of shape ``counts.shape[:-1]`` for a stack.
        An empty vector (total 0) has impurity 0.0.
    """
    c = _check_counts(counts)
    p, total = _proportions(c)
    return _finish(np.where(total > 0, 1.0 - np.sum(p * p, axis=-1), 0.0))


def entropy_from_counts(counts: Any) -> float | np.ndarray:
    """Shannon entropy ``-sum_c p_c log2 p_c`` of class counts, in bits (``0 log 0 = 0``).

    Parameters
    ----------
    counts : array-like of shape (..., n_classes)
        Non-negative (weighted) class counts; the last axis runs over classes.

    Returns
    -------
    float or numpy.ndarray
        A float for one count vector, an array of shape ``counts.shape[:-1]`` for a stack.
        An empty vector (total 0) has entropy 0.0.
    """
    c = _check_counts(counts)
    p, _ = _proportions(c)
    logp = np.log2(p, out=np.zeros_like(p), where=p > 0)
    return _finish(-np.sum(p * logp, axis=-1))


CRITERIA: dict[str, Callable[[Any], float | np.ndarray]] = {
    "gini": gini_from_counts,
    "entropy": entropy_from_counts,
}


def get_criterion(criterion: str) -> Callable[[Any], float | np.ndarray]:
    """Return the count-vector function registered under ``criterion`` in `CRITERIA`.

    Raises
    ------
    ValueError
        If ``criterion`` is not a registered name.
    """
    try:
        return CRITERIA[criterion]
    except (KeyError, TypeError):
        names = ", ".join(repr(name) for name in CRITERIA)
        raise ValueError(f"criterion must be one of {names}; got {criterion!r}") from None


# ---------------------------------------------------------------------------------------
# Measures on labels
# ---------------------------------------------------------------------------------------


def impurity(labels: Any, criterion: str = "gini", sample_weight: Any = None) -> float:
    """Impurity of a set of labels.

    Parameters
    ----------
    labels : array-like of shape (n,)
        Class labels of any hashable type.
    criterion : {"gini", "entropy"}
        Disorder measure.
    sample_weight : array-like of shape (n,), optional
        Non-negative weight of each label.

    Returns
    -------
    float
        0.0 for an empty or pure set.

    Examples
    --------
    >>> round(impurity([0, 0, 2, 2, 1]), 4)
    0.64
    >>> round(impurity([0, 0, 2, 2, 1], "entropy"), 4)
    1.5219
    """
    func = get_criterion(criterion)
    return float(func(class_counts(labels, sample_weight)))


def mean_impurity(*groups: Any, criterion: str = "gini") -> float:
    """Size-weighted mean impurity ``sum_g |g| / N * impurity(g)`` of groups of labels.

    Parameters
    ----------
    *groups : array-like
        One sequence of labels per group; groups may be empty.
    criterion : {"gini", "entropy"}
        Disorder measure.

    Returns
    -------
    float
        0.0 when there are no labels at all.

    Examples
    --------
    >>> round(mean_impurity([0, 0, 0, 1, 1, 2], [0, 0, 1, 2]), 4)
    0.6167
    """
    func = get_criterion(criterion)
    sizes = np.zeros(len(groups))
    values = np.zeros(len(groups))
    for g, labels in enumerate(groups):
        counts = class_counts(labels)
        sizes[g] = counts.sum()
        values[g] = func(counts)
    total = sizes.sum()
    if total == 0:
        return 0.0
    return float(np.dot(sizes / total, values))


# ---------------------------------------------------------------------------------------
# Information gain, split information, gain ratio
# ---------------------------------------------------------------------------------------


def _is_group(obj: Any) -> bool:
    """Whether ``obj`` is a sequence of labels (as opposed to one scalar key)."""
    if isinstance(obj, (str, bytes)):
        return False
    return isinstance(obj, (Sequence, np.ndarray, pd.Series, pd.Index, range))


def _as_groups(groups_or_keys: Any) -> list[np.ndarray] | None:
    """Split the two call forms: return the list of groups, or None for the keys form."""
    if isinstance(groups_or_keys, (str, bytes)):
        raise TypeError("groups must be a sequence of label arrays or an array of keys")
    if isinstance(groups_or_keys, (np.ndarray, pd.Series, pd.Index)):
        arr = np.asarray(groups_or_keys)
        if arr.ndim == 2:
            return [_as_label_array(row) for row in arr]
        if arr.ndim != 1:
            raise ValueError(f"keys must be 1-D; got shape {arr.shape}")
        if arr.dtype == object and arr.size > 0 and _is_group(arr[0]):
            return [_as_label_array(g) for g in arr]
        return None
    seq = groups_or_keys if isinstance(groups_or_keys, Sequence) else list(groups_or_keys)
    if len(seq) == 0 or _is_group(seq[0]):
        if not all(_is_group(g) for g in seq):
            raise ValueError("groups must all be sequences of labels (or all scalar keys)")
        return [_as_label_array(g) for g in seq]
    return None


def _branch_counts(labels: Any, groups: Any, sample_weight: Any) -> tuple[np.ndarray, np.ndarray]:
    """Parent class counts (n_classes,) and branch class counts (n_branches, n_classes)."""
    parent = _as_label_array(labels)
    group_list = _as_groups(groups)
    if group_list is None:  # keys form: one branch key per label
        keys = _as_label_array(groups)
        if keys.shape[0] != parent.shape[0]:
            raise ValueError(
                f"keys must have one entry per label: {keys.shape[0]} keys, "
                f"{parent.shape[0]} labels"
            )
        w = _check_weights(sample_weight, parent.shape[0])
        y, k = _encode(parent)
        b, n_branches = _encode(keys)
        flat = np.bincount(b * k + y, weights=w, minlength=n_branches * k)
        branches = flat.astype(np.float64).reshape(n_branches, k)
        return branches.sum(axis=0), branches
    if sample_weight is not None:
        raise ValueError(
            "sample_weight needs the keys form (one branch key per label), not a list of groups"
        )
    sizes = np.array([g.shape[0] for g in group_list], dtype=np.intp)
    parts = [parent] + [g for g in group_list if g.shape[0] > 0]
    codes, k = _encode(np.concatenate(parts) if len(parts) > 1 else parent)
    parent_counts = np.bincount(codes[: parent.shape[0]], minlength=k).astype(np.float64)
    branch_id = np.repeat(np.arange(len(group_list)), sizes)
    flat = np.bincount(branch_id * k + codes[parent.shape[0] :], minlength=len(group_list) * k)
    branches = flat.astype(np.float64).reshape(len(group_list), k)
    if not np.array_equal(branches.sum(axis=0), parent_counts):
        raise ValueError(
            "groups must partition labels: their class counts differ from the parent's"
        )
    return parent_counts, branches


def _gain_from_counts(parent: np.ndarray, branches: np.ndarray, criterion: str) -> float:
    func = get_criterion(criterion)
    total = parent.sum()
    if total == 0:
        return 0.0
    sizes = branches.sum(axis=1)
    children = float(np.dot(sizes / total, np.atleast_1d(func(branches)))) if len(sizes) else 0.0
    # Gain is >= 0 by concavity of the measures; clip floating-point rounding below 0.
    return max(float(func(parent)) - children, 0.0)


def information_gain(
    labels: Any, groups: Any, criterion: str = "entropy", sample_weight: Any = None
) -> float:
    """Information gain of splitting ``labels`` into branches.

    ``impurity(parent) - sum_v |S_v| / |S| * impurity(S_v)`` (Quinlan 1986 with the default
    entropy; with ``criterion="gini"`` the Gini decrease of CART).

    Parameters
    ----------
    labels : array-like of shape (n,)
        Class labels of the parent set ``S``, any hashable type.
    groups : sequence of array-likes, or array-like of shape (n,)
        The branches, in one of two forms:

        * **groups form** -- a sequence of label arrays, one per branch, e.g.
          ``[["yes", "no"], ["yes"]]``; together they must hold exactly the parent's
          labels (a partition). Empty branches are allowed. A 2-D array is read as one
          group per row.
        * **keys form** -- one scalar branch key per label, aligned with ``labels``,
          e.g. the attribute's value in each row: ``outlook_column``. Rows with equal
          keys form a branch (NaN keys form one branch).

        The form is chosen by the first element: a sequence means the groups form, a
        scalar the keys form (so keys must be scalars, not tuples).
    criterion : {"entropy", "gini"}
        Disorder measure.
    sample_weight : array-like of shape (n,), optional
        Weight of each label; keys form only.

    Returns
    -------
    float
        The gain, >= 0; 0.0 for an empty parent.

    Examples
    --------
    >>> labels = ["+", "+", "-", "-"]
    >>> information_gain(labels, [["+", "+"], ["-", "-"]])  # groups form
    1.0
    >>> information_gain(labels, ["a", "a", "b", "b"])  # keys form
    1.0
    """
    parent, branches = _branch_counts(labels, groups, sample_weight)
    return _gain_from_counts(parent, branches, criterion)


def split_information(groups_or_keys: Any, sample_weight: Any = None) -> float:
    """Quinlan's split information ``-sum_v |S_v| / |S| log2(|S_v| / |S|)``.

    The entropy of the branch sizes, ignoring the class labels.

    Parameters
    ----------
    groups_or_keys : sequence of array-likes, or array-like of shape (n,)
        The branches as a sequence of groups, or one scalar branch key per row (see
        `information_gain`).
    sample_weight : array-like of shape (n,), optional
        Weight of each row; keys form only.

    Returns
    -------
    float
        0.0 when all rows fall in one branch (or there are none).
    """
    group_list = _as_groups(groups_or_keys)
    if group_list is None:
        return float(entropy_from_counts(class_counts(groups_or_keys, sample_weight)))
    if sample_weight is not None:
        raise ValueError(
            "sample_weight needs the keys form (one branch key per row), not a list of groups"
        )
    sizes = np.array([g.shape[0] for g in group_list], dtype=np.float64)
    return float(entropy_from_counts(sizes)) if sizes.size else 0.0


def gain_ratio(labels: Any, groups: Any, sample_weight: Any = None) -> float:
    """Quinlan's gain ratio: entropy information gain / split information.

    Parameters
    ----------
    labels : array-like of shape (n,)
        Class labels of the parent set.
    groups : sequence of array-likes, or array-like of shape (n,)
        The branches, as groups or as keys aligned with ``labels`` (see
        `information_gain`).
    sample_weight : array-like of shape (n,), optional
        Weight of each label; keys form only.

    Returns
    -------
    float
        0.0 when the split information is 0 (a single non-empty branch).
    """
    parent, branches = _branch_counts(labels, groups, sample_weight)
    split_info = float(entropy_from_counts(branches.sum(axis=1))) if len(branches) else 0.0
    if split_info <= 0.0:
        return 0.0
    return _gain_from_counts(parent, branches, "entropy") / split_info


# ---------------------------------------------------------------------------------------
# Seed 000's exhaustive binary split search
# ---------------------------------------------------------------------------------------


class SplitInfo(NamedTuple):
    """Result of `best_split`.

    Attributes
    ----------
    column : int
        Column of the split.
    value : float
        Split value: rows with ``X[row, column] < value`` go left, the others right.
    left_rows, right_rows : numpy.ndarray of intp
        Row indices of each side, in the order of the searched ``rows``.
    mean_impurity : float
        Size-weighted mean impurity of the two sides.
    """

    column: int
    value: float
    left_rows: np.ndarray
    right_rows: np.ndarray
    mean_impurity: float


def _seed_mean_impurity(
    left: np.ndarray, n_left: np.ndarray, n: int, criterion: str, total: np.ndarray
) -> np.ndarray:
    """Mean impurity of many candidate splits, with the seed's floating-point operations.

    ``left`` holds the left class counts of each candidate (n_candidates, n_classes),
    ``total`` the class counts of all rows. The per-class sum runs in class order and the
    mean is ``wt1 * imp1 + wt2 * imp2`` as in the seed's ``Impurity``/``MeanImpurity``, so
    candidates tie exactly when the seed's values tie.
    """
    right = total - left
    n_right = n - n_left
    imps = []
    for counts, size in ((left, n_left), (right, n_right)):
        size_col = size[:, None].astype(np.float64)
        p = np.divide(counts, size_col, out=np.zeros_like(counts), where=size_col > 0)
        acc = np.zeros(counts.shape[0])
        for c in range(counts.shape[1]):  # loop over classes, in the seed's order
            pc = p[:, c]
            if criterion == "gini":
                acc = acc + pc * pc
            else:
                acc = acc + pc * np.log2(pc, out=np.zeros_like(pc), where=pc > 0)
        imp = 1.0 - acc if criterion == "gini" else -1.0 * acc
        imps.append(np.where(size > 0, imp, 0.0))  # the seed: empty list -> 0.0
    wt_left = n_left / float(n)
    wt_right = n_right / float(n)
    return wt_left * imps[0] + wt_right * imps[1]


def best_split(X: Any, y: Any, rows: Any = None, criterion: str = "gini") -> SplitInfo:
    """Exhaustive binary split search of seed 000's ``GetSplitInfo``.

    Every value ``X[i, j]`` (``i`` over ``rows`` in the given order, then ``j`` over the
    columns) is tried as split value of column ``j``: rows with ``X[r, j] < X[i, j]`` go
    left, the others right. The first candidate in that traversal with the strictly lowest
    size-weighted mean impurity wins. The search is vectorised per column: the column is
    sorted once and every candidate is scored from cumulative class counts.

    Parameters
    ----------
    X : array-like of shape (n_rows, n_columns)
        Numeric data; a list of lists is accepted. NaN compares as in the seed (never
        ``<``), so NaN values go right.
    y : array-like of shape (n_rows,)
        Class labels of any hashable type.
    rows : array-like of int, optional
        Rows to split, in traversal order; all rows by default.
    criterion : {"gini", "entropy"}
        Disorder measure.

    Returns
    -------
    SplitInfo
        Column, value, left and right rows, mean impurity.

    Raises
    ------
    ValueError
        On mismatched shapes, bad row indices, or nothing to search (no rows or columns).
    """
    get_criterion(criterion)
    data = np.asarray(X, dtype=np.float64)
    if data.ndim != 2:
        raise ValueError(f"X must be 2-D; got shape {data.shape}")
    labels = _as_label_array(y)
    if labels.shape[0] != data.shape[0]:
        raise ValueError(f"y has {labels.shape[0]} labels for {data.shape[0]} rows of X")
    if rows is None:
        row_idx = np.arange(data.shape[0], dtype=np.intp)
    else:
        row_idx = np.asarray(rows)
        if row_idx.ndim != 1:
            raise ValueError("rows must be a 1-D sequence of row indices")
        if row_idx.size and not np.issubdtype(row_idx.dtype, np.integer):
            raise ValueError("rows must hold integer row indices")
        row_idx = row_idx.astype(np.intp)
        if row_idx.size and (row_idx.min() < 0 or row_idx.max() >= data.shape[0]):
            raise ValueError(f"rows must lie in 0 .. {data.shape[0] - 1}")
    m, n_cols = row_idx.shape[0], data.shape[1]
    if m == 0 or n_cols == 0:
        raise ValueError("best_split needs at least one row and one column")

    sub = data[row_idx]
    codes, k = _encode(labels[row_idx])
    onehot = np.zeros((m, k))
    onehot[np.arange(m), codes] = 1.0
    total = onehot.sum(axis=0)

    scores = np.empty((m, n_cols))
    for j in range(n_cols):  # loop over columns; all rows of a column at once
        col = sub[:, j]
        order = np.argsort(col, kind="stable")  # NaN last, as searchsorted expects
        cum = np.vstack([np.zeros((1, k)), np.cumsum(onehot[order], axis=0)])
        n_left = np.searchsorted(col[order], col, side="left")  # count of values < col[i]
        n_left[np.isnan(col)] = 0  # nothing is < NaN
        scores[:, j] = _seed_mean_impurity(cum[n_left], n_left, m, criterion, total)

    best = int(np.argmin(scores))  # first minimum in row-major = seed traversal order
    i, j = divmod(best, n_cols)
    value = float(sub[i, j])
    goes_left = sub[:, j] < value
    return SplitInfo(
        column=int(j),
        value=value,
        left_rows=row_idx[goes_left],
        right_rows=row_idx[~goes_left],
        mean_impurity=float(scores[i, j]),
    )
