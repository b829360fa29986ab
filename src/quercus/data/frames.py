"""Column helpers shared by the schema and the readers.

Turns arrays, lists of rows and data frames into named columns, recognises missing values,
converts columns to ``float64`` and sorts category values. Everything here is vectorised
over rows; Python loops run over columns or over distinct values only.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from quercus.errors import DataError

#: Strings that stand for a missing value by default, besides None, NaN and pd.NA: the
#: set pandas' ``read_csv`` treats as missing (R writes ``NA``, Excel ``#N/A``, pandas an
#: empty cell) plus ``?`` (ARFF and UCI files). Compared after stripping spaces.
MISSING_STRINGS: tuple[str, ...] = (
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND",
    "1.#QNAN", "<NA>", "?", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
)

#: Tokens that cannot be kept as values (an empty cell; ARFF's ``?``).
ALWAYS_MISSING: frozenset[str] = frozenset({"", "?"})

#: The default tokens as a set (what ``na_tokens()`` returns without options).
DEFAULT_NA_TOKENS: frozenset[str] = frozenset(MISSING_STRINGS)


def na_tokens(na_values: Any = None, keep_na: Any = None,
              base: frozenset[str] | None = None) -> frozenset[str]:
    """The strings read as missing: ``base`` (default: :data:`MISSING_STRINGS`) plus
    ``na_values``, minus ``keep_na``.

    Parameters
    ----------
    na_values, keep_na : str or sequence of str, optional
        Tokens to add, and tokens to keep as real values (e.g. a category called ``NA``;
        an empty cell and ``?`` are always missing).
    base : frozenset of str, optional

    Returns
    -------
    frozenset of str

    Raises
    ------
    DataError
        If a token is not a string.
    """
    tokens = set(DEFAULT_NA_TOKENS if base is None else base)
    tokens |= _token_list(na_values, "na_values")
    kept = _token_list(keep_na, "keep_na")
    for token in sorted(kept & ALWAYS_MISSING):
        raise DataError(f"keep_na: {token!r} always stands for a missing value")
    return frozenset(tokens - kept)


def _token_list(values: Any, what: str) -> set[str]:
    if values is None:
        return set()
    if isinstance(values, str):
        values = [values]
    out = set()
    for v in values:
        if not isinstance(v, str):
            raise DataError(f"{what}: {show(v)} is not a string")
        out.add(v.strip())
    return out

Column = Any  # a pandas Series, a numpy array or a list: one column of values


def show(value: Any, limit: int = 60) -> str:
    """Quote a value for a one-line error message.

    Parameters
    ----------
    value : object
        The offending value.
    limit : int
        Longer representations are cut and end with ``...``.

    Returns
    -------
    str
    """
    value = to_python(value)
    text = repr(value) if isinstance(value, str) else str(value)
    if len(text) > limit:
        text = text[: limit - 4] + ("...'" if isinstance(value, str) else "...")
    return text


def to_python(value: Any) -> Any:
    """Return ``value`` as a plain Python scalar (numpy scalars become int/float/bool/str)."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, str) and type(value) is not str:
        return str(value)
    return value


def is_number(value: Any) -> bool:
    """True for an int or float (Python or numpy), False for bools and everything else."""
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
        value, (bool, np.bool_)
    )


def is_missing_scalar(value: Any, tokens: frozenset[str] = DEFAULT_NA_TOKENS) -> bool:
    """True for None, NaN, pd.NA, NaT and the missing-value strings ``tokens``."""
    if isinstance(value, str):
        return value in tokens
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def as_1d(values: Column) -> np.ndarray | pd.Series:
    """Return a one-dimensional array or Series for ``values`` (lists become object arrays).

    Parameters
    ----------
    values : Series, Categorical, ndarray or sequence

    Returns
    -------
    ndarray or Series
    """
    if isinstance(values, pd.Series):
        return values
    if isinstance(values, (pd.Categorical, pd.Index)):
        return pd.Series(values)
    if isinstance(values, np.ndarray):
        if values.ndim != 1:
            raise DataError(
                f"expected a 1-D column of values, got an array of shape {values.shape}"
            )
        if values.dtype.kind in "US":
            return values.astype(object)
        return values
    seq = list(values)
    out = np.empty(len(seq), dtype=object)
    out[:] = seq
    return out


def missing_mask(values: np.ndarray | pd.Series,
                 tokens: frozenset[str] = DEFAULT_NA_TOKENS) -> np.ndarray:
    """Boolean mask of the missing entries (None, NaN, pd.NA and the strings ``tokens``).

    Parameters
    ----------
    values : ndarray or Series, one-dimensional
    tokens : frozenset of str
        Missing-value strings (default: :data:`MISSING_STRINGS`).

    Returns
    -------
    ndarray of bool
    """
    mask = np.asarray(pd.isna(values), dtype=bool).copy()  # pandas may hand out read-only views
    arr = values.to_numpy() if isinstance(values, pd.Series) else values
    if arr.dtype.kind in "OUST" or pd.api.types.is_string_dtype(getattr(values, "dtype", None)):
        present = ~mask
        if present.any():
            sub = pd.Series(np.asarray(arr, dtype=object)[present], dtype=object)
            uniq = pd.unique(sub)
            gone = [u for u in uniq if isinstance(u, str) and is_missing_scalar(u, tokens)]
            if gone:
                mask[present] = sub.isin(gone).to_numpy()
    return mask


def to_float(values: Column, *, column: str, rows_offset: int = 1,
             tokens: frozenset[str] = DEFAULT_NA_TOKENS) -> np.ndarray:
    """Convert one column to ``float64``; missing values become NaN.

    Parameters
    ----------
    values : Series, ndarray or sequence
    column : str
        Column name used in error messages.
    rows_offset : int
        Row number reported for the first element (1 = 1-based rows).
    tokens : frozenset of str
        Missing-value strings.

    Returns
    -------
    ndarray of float64

    Raises
    ------
    DataError
        If a non-missing value is not a number.
    """
    col = as_1d(values)
    dtype = col.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in "biuf":
        return np.asarray(col, dtype=np.float64)
    if (
        isinstance(col, pd.Series)
        and (pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype))
        and not isinstance(dtype, pd.CategoricalDtype)
    ):
        return col.to_numpy(dtype=np.float64, na_value=np.nan)
    arr = np.asarray(col, dtype=object)
    if arr.dtype.kind not in "O":
        raise DataError(f"column '{column}': values of type {dtype} are not numbers")
    missing = missing_mask(arr, tokens)
    out = np.full(arr.shape[0], np.nan)
    present = ~missing
    if not present.any():
        return out
    sub = arr[present]
    num = np.array(
        pd.to_numeric(pd.Series(sub, dtype=object), errors="coerce").to_numpy(
            dtype=np.float64, na_value=np.nan
        )
    )
    failed = np.isnan(num)
    if failed.any():
        _retry_failed(sub, num, failed, column=column, present=present, rows_offset=rows_offset)
    out[present] = num
    return out


def _retry_failed(
    sub: np.ndarray,
    num: np.ndarray,
    failed: np.ndarray,
    *,
    column: str,
    present: np.ndarray,
    rows_offset: int,
) -> None:
    """Parse the values pandas could not with ``float()``; raise on the first real failure."""
    idx = np.flatnonzero(failed)
    vals = pd.Series(sub[idx], dtype=object)
    lookup = {v: _parse_float(v) for v in pd.unique(vals)}
    bad_values = [v for v, f in lookup.items() if f is None]
    if bad_values:
        pos = idx[int(np.flatnonzero(vals.isin(bad_values).to_numpy())[0])]
        row = int(np.flatnonzero(present)[pos]) + rows_offset
        raise DataError(f"column '{column}', row {row}: {show(sub[pos])} is not a number")
    num[idx] = vals.map(lookup).to_numpy(dtype=np.float64)


def _parse_float(value: Any) -> float | None:
    """``float(value)`` for numbers and numeric strings, else None."""
    if isinstance(value, (bool, np.bool_)):
        return float(value)
    if isinstance(value, (str, int, float, np.number)):
        try:
            return float(value)
        except (TypeError, ValueError, OverflowError):
            return None
    return None


def sort_key(value: Any) -> tuple:
    """Sort key putting numbers first (by value), then strings, then anything else."""
    if isinstance(value, bool):
        return (2, "", int(value))
    if is_number(value):
        return (0, float(value), 0)
    if isinstance(value, str):
        return (1, value, 0)
    return (3, str(value), 0)


def sorted_categories(values: Iterable[Any]) -> list[Any]:
    """Sorted distinct values as plain Python scalars.

    Numbers sort numerically (and stay numbers), strings lexicographically; in a mix of
    types the numbers come first, then strings, then bools.
    """
    plain = {to_python(v) for v in values}
    return sorted(plain, key=sort_key)


def unique_present(values: Column, tokens: frozenset[str] = DEFAULT_NA_TOKENS) -> list[Any]:
    """Distinct non-missing values of a column, as plain Python scalars (unsorted)."""
    col = as_1d(values)
    if isinstance(col, pd.Series) and isinstance(col.dtype, pd.CategoricalDtype):
        col = col.cat.remove_unused_categories()
        return [to_python(v) for v in col.cat.categories if not is_missing_scalar(v, tokens)]
    uniq = pd.unique(col if isinstance(col, pd.Series) else pd.Series(col, dtype=col.dtype))
    return [to_python(v) for v in uniq if not is_missing_scalar(v, tokens)]


def all_numbers(values: Sequence[Any]) -> bool:
    """True if every value is an int or float (bools excluded)."""
    return all(is_number(v) for v in values)


def is_integral(values: np.ndarray) -> bool:
    """True if every non-NaN value of a float array is a finite whole number."""
    finite = values[~np.isnan(values)]
    return bool(np.all(np.isfinite(finite)) and np.all(finite == np.round(finite)))


def as_rows(X: Any, expected: int | None = None) -> np.ndarray:
    """Return a 2-D array for an array or a list of rows (lists become object arrays).

    Parameters
    ----------
    X : ndarray or sequence of rows
    expected : int, optional
        Number of columns every row must have.

    Raises
    ------
    DataError
        If ``X`` is not two-dimensional or a row has the wrong number of columns.
    """
    if isinstance(X, np.ndarray):
        if X.ndim != 2:
            raise DataError(f"expected a 2-D array (rows x columns), got shape {X.shape}")
        if expected is not None and X.shape[1] != expected:
            raise DataError(f"expected {expected} columns, got {X.shape[1]}")
        return X.astype(object) if X.dtype.kind in "US" else X
    rows = list(X)
    if not rows:
        return np.empty((0, expected or 0), dtype=object)
    lengths = np.fromiter((_row_len(r, i) for i, r in enumerate(rows, 1)), np.int64, len(rows))
    want = int(lengths[0]) if expected is None else expected
    wrong = lengths != want
    if wrong.any():
        pos = int(np.flatnonzero(wrong)[0])
        if expected is not None and (lengths == lengths[0]).all():
            raise DataError(f"expected {expected} columns, got {lengths[0]}")
        raise DataError(f"row {pos + 1}: expected {want} columns, got {lengths[pos]}")
    shape = (len(rows), want)
    try:
        out = np.array(rows, dtype=object)
    except ValueError:
        out = None
    if out is None or out.shape != shape:
        out = np.empty(shape, dtype=object)
        for j in range(shape[1]):
            out[:, j] = [r[j] for r in rows]
    return out


def _row_len(row: Any, number: int) -> int:
    if isinstance(row, (str, bytes)) or not hasattr(row, "__len__"):
        raise DataError(f"row {number} is not a sequence of values: {show(row)}")
    return len(row)


def canonical(value: Any) -> str:
    """String form used to match e.g. the CSV string ``"1"`` with the number 1."""
    value = to_python(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, float):
        return repr(value)
    return str(value)


def parse_number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def label_column(y: Any) -> Any:
    """One column of labels from a Series, a one-column frame, an array or a list."""
    if isinstance(y, pd.DataFrame):
        if y.shape[1] != 1:
            raise DataError(f"expected one column of labels, got {y.shape[1]} columns")
        return y.iloc[:, 0]
    if isinstance(y, np.ndarray) and y.ndim == 2 and y.shape[1] == 1:
        return y[:, 0]
    return y


def feature_mask(spec: Any, names: list[str]) -> np.ndarray:
    """Boolean mask of the features named or indexed by ``spec`` (a list or a mask)."""
    n = len(names)
    mask = np.zeros(n, dtype=bool)
    if spec is None or (isinstance(spec, str) and spec == "auto"):
        return mask
    if isinstance(spec, str) or not hasattr(spec, "__iter__"):
        raise DataError(
            "categorical_features must be 'auto', a list of feature names or indices, "
            f"or a boolean mask; got {show(spec)}"
        )
    items = list(spec)
    if items and all(isinstance(v, (bool, np.bool_)) for v in items):
        if len(items) != n:
            raise DataError(f"categorical_features mask has {len(items)} entries, expected {n}")
        return np.array(items, dtype=bool)
    positions = {name: i for i, name in enumerate(names)}
    for v in items:
        if isinstance(v, str):
            if v not in positions:
                raise DataError(f"categorical_features: unknown feature '{v}'")
            mask[positions[v]] = True
        elif isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
            if not -n <= int(v) < n:
                raise DataError(
                    f"categorical_features: index {int(v)} out of range for {n} features"
                )
            mask[int(v)] = True
        else:
            raise DataError(f"categorical_features: {show(v)} is not a feature name or index")
    return mask
