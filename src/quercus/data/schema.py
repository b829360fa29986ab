"""Codebooks, feature specifications and the data schema.

A :class:`Schema` says, for each feature, whether it is numeric or categorical and, for a
categorical feature, which :class:`Codebook` maps its values to codes. ``Schema.encode``
turns a data frame, an array or a list of rows into the ``float64`` matrix every learner
works on (see ``docs/architecture.md``); ``infer_schema`` builds a schema from data.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from quercus._kernels._splits import count_nonfinite_rows
from quercus.data.frames import (
    ALWAYS_MISSING,
    DEFAULT_NA_TOKENS,
    all_numbers,
    as_1d,
    as_rows,
    canonical,
    feature_mask,
    is_missing_scalar,
    label_column,
    parse_number,
    show,
    sorted_categories,
    to_float,
    to_python,
    unique_present,
)
from quercus.errors import DataError, ModelFileError

PARALLEL_CHECK_VALUES = 1 << 18  # values from which the infinity check runs in parallel


def _finite_or_missing(values: np.ndarray) -> tuple[bool, bool]:
    """Whether no value is infinite (NaN is missing), and whether some value may be NaN:
    one sum when it is finite (then every value is), else the smallest and largest values
    ignoring NaN."""
    with np.errstate(all="ignore"):
        if np.isfinite(np.add.reduce(values, axis=None)):
            return True, False
    with np.errstate(invalid="ignore"):
        low, high = np.fmin.reduce(values, axis=None), np.fmax.reduce(values, axis=None)
    finite = (np.isfinite(low) or np.isnan(low)) and (np.isfinite(high) or np.isnan(high))
    return bool(finite), True


NUMERIC = "numeric"
CATEGORICAL = "categorical"
_KINDS = (NUMERIC, CATEGORICAL)
_NUMBERS = ("floating", "integer", "mixed-integer-float")  # pandas.api.types.infer_dtype


@dataclass(frozen=True)
class Codebook:
    """Category values in code order: ``values[k]`` has code ``k``.

    Parameters
    ----------
    values : tuple
        Distinct, non-missing str, int, float or bool values (numpy scalars are converted
        to plain Python values).
    """

    values: tuple

    def __post_init__(self) -> None:
        vals = tuple(to_python(v) for v in self.values)
        for v in vals:
            if not isinstance(v, (str, int, float, bool)):
                raise DataError(f"codebook value {show(v)} is not a str, int, float or bool")
            if is_missing_scalar(v, ALWAYS_MISSING):  # "NA" may be a kept category
                raise DataError(f"codebook value {show(v)} stands for a missing value")
        seen: dict[Any, Any] = {}
        for v in vals:
            if v in seen:
                raise DataError(f"codebook values {show(seen[v])} and {show(v)} are equal")
            seen[v] = v
        object.__setattr__(self, "values", vals)

    def __len__(self) -> int:
        return len(self.values)

    def __contains__(self, value: Any) -> bool:
        return self._lookup(value) >= 0

    @cached_property
    def _exact(self) -> dict[Any, int]:
        return {v: i for i, v in enumerate(self.values)}

    @cached_property
    def _loose(self) -> dict[str, int]:
        table: dict[str, int] = {}
        for i, v in enumerate(self.values):
            table.setdefault(canonical(v), i)
        return table

    @cached_property
    def _numeric(self) -> bool:
        return bool(self.values) and all_numbers(self.values)

    def _lookup(self, value: Any) -> int:
        """Code of ``value`` (exact match, then by string form), -1 if unseen."""
        try:
            code = self._exact.get(value)
        except TypeError:
            return -1
        if code is None:
            code = self._loose.get(canonical(value))
        if code is None and isinstance(value, str) and self._numeric:
            number = parse_number(value)
            if number is not None:
                code = self._loose.get(canonical(number))
        return -1 if code is None else code

    def encode(self, values: Any, *, column: str, rows_offset: int = 1,
               tokens: frozenset[str] = DEFAULT_NA_TOKENS) -> np.ndarray:
        """Codes of ``values`` as floats, NaN for a missing value.

        Parameters
        ----------
        values : Series, Categorical, ndarray or sequence
            One column; a pandas categorical is mapped by its values.
        column : str
            Column name for error messages.
        rows_offset : int
            Row number reported for the first value (default 1: rows count from 1).
        tokens : frozenset of str
            Strings that stand for a missing value.

        Returns
        -------
        ndarray of float64

        Raises
        ------
        DataError
            On a value that is not in the codebook.
        """
        return self._encode(values, column, rows_offset, "category", tokens)

    def _encode(self, values: Any, column: str, rows_offset: int, noun: str,
                tokens: frozenset[str] = DEFAULT_NA_TOKENS) -> np.ndarray:
        col = as_1d(values)
        if isinstance(col, pd.Series) and isinstance(col.dtype, pd.CategoricalDtype):
            codes = col.cat.codes.to_numpy()
            uniques: Sequence[Any] = col.cat.categories
        else:
            try:
                codes, uniques = pd.factorize(col)
            except TypeError as exc:
                raise DataError(f"column '{column}': values must be scalars ({exc})") from None
        table = np.array(
            [np.nan if is_missing_scalar(u, tokens) else self._lookup(u) for u in uniques]
            + [np.nan],
            dtype=np.float64,
        )
        out = table[codes]
        unseen = out < 0
        if unseen.any():
            pos = int(np.flatnonzero(unseen)[0])
            value = uniques[int(codes[pos])]
            raise DataError(
                f"column '{column}': unseen {noun} {show(value)} at row {pos + rows_offset}"
            )
        return out

    def decode(self, codes: Any) -> np.ndarray:
        """Values for ``codes``; code -1 or NaN decodes to None.

        Parameters
        ----------
        codes : array-like of int or float

        Returns
        -------
        ndarray of object
        """
        c = np.asarray(codes, dtype=np.float64).ravel()
        missing = np.isnan(c) | (c == -1)
        ok = c[~missing]
        if ok.size and ((ok < 0).any() or (ok >= len(self)).any() or (ok != np.floor(ok)).any()):
            bad = ok[(ok < 0) | (ok >= len(self)) | (ok != np.floor(ok))][0]
            raise DataError(f"code {bad:g} is not valid for a codebook of {len(self)} values")
        lut = np.empty(len(self) + 1, dtype=object)
        lut[:-1] = self.values
        lut[-1] = None
        return lut[np.where(missing, len(self), np.nan_to_num(c)).astype(np.int64)]

    def index(self, value: Any) -> int:
        """Code of one value; DataError if the value is not in the codebook."""
        code = self._lookup(value)
        if code < 0:
            listed = ", ".join(show(v) for v in self.values[:20])
            raise DataError(f"unknown category {show(value)}; categories are: {listed}")
        return code

    def to_json(self) -> list:
        """The values as a JSON-ready list (types preserved by JSON: str, int, float, bool)."""
        return list(self.values)

    @classmethod
    def from_json(cls, data: list) -> Codebook:
        """Inverse of :meth:`to_json`."""
        if not isinstance(data, (list, tuple)):
            raise DataError(f"a codebook must be a list of values, got {type(data).__name__}")
        return cls(tuple(data))


@dataclass(frozen=True)
class FeatureSpec:
    """One feature: its name, its kind and (categorical features) its codebook."""

    name: str
    kind: str = NUMERIC
    codebook: Codebook | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise DataError(f"feature name {show(self.name)} is not a string")
        if self.kind not in _KINDS:
            raise DataError(f"feature '{self.name}': unknown kind {show(self.kind)}")
        book = self.codebook
        if book is not None and not isinstance(book, Codebook):
            object.__setattr__(self, "codebook", book := Codebook(tuple(book)))
        if (self.kind == CATEGORICAL) != (book is not None):
            need = "needs" if self.kind == CATEGORICAL else "cannot have"
            raise DataError(f"feature '{self.name}': a {self.kind} feature {need} a codebook")

    @property
    def is_categorical(self) -> bool:
        """True for a categorical feature."""
        return self.kind == CATEGORICAL

    @property
    def n_categories(self) -> int:
        """Number of categories (0 for a numeric feature)."""
        return len(self.codebook) if self.codebook is not None else 0


@dataclass(frozen=True)
class Schema:
    """Features, the name of the class column and the class codebook.

    Parameters
    ----------
    features : tuple of FeatureSpec
    target : str or None
        Name of the class column.
    classes : Codebook or None
        Codebook of the class labels.
    na_tokens : frozenset of str or None
        The strings read as missing in raw data for this schema (``read_csv``'s
        ``na_values``/``keep_na``); None for the default set ``MISSING_STRINGS``.
    """

    features: tuple[FeatureSpec, ...]
    target: str | None = None
    classes: Codebook | None = None
    na_tokens: frozenset[str] | None = None

    def __post_init__(self) -> None:
        if self.na_tokens is not None:
            tokens = frozenset(self.na_tokens)
            if not all(isinstance(t, str) for t in tokens):
                raise DataError("na_tokens must be strings")
            object.__setattr__(self, "na_tokens",
                               None if tokens == DEFAULT_NA_TOKENS else tokens)
        feats = tuple(self.features)
        if not all(isinstance(f, FeatureSpec) for f in feats):
            raise DataError("Schema.features must hold FeatureSpec objects")
        object.__setattr__(self, "features", feats)
        if self.classes is not None and not isinstance(self.classes, Codebook):
            object.__setattr__(self, "classes", Codebook(tuple(self.classes)))
        seen: set[str] = set()
        for f in feats:
            if f.name in seen:
                raise DataError(f"duplicate feature name '{f.name}'")
            seen.add(f.name)
        if self.target is not None and self.target in seen:
            raise DataError(f"the target '{self.target}' is also a feature")

    @property
    def missing_tokens(self) -> frozenset[str]:
        """The strings read as missing: ``na_tokens``, or the default set."""
        return DEFAULT_NA_TOKENS if self.na_tokens is None else self.na_tokens

    def with_na_tokens(self, tokens: frozenset[str] | None) -> Schema:
        """A copy reading ``tokens`` as missing (None: the default set)."""
        return dataclasses.replace(self, na_tokens=tokens)

    @property
    def feature_names(self) -> list[str]:
        """Feature names in column order."""
        return [f.name for f in self.features]

    @property
    def n_features(self) -> int:
        """Number of features."""
        return len(self.features)

    @property
    def categorical_mask(self) -> np.ndarray:
        """Boolean mask of the categorical features."""
        return np.array([f.is_categorical for f in self.features], dtype=bool)

    @property
    def n_categories(self) -> np.ndarray:
        """Number of categories of each feature (0 for numeric features), int64."""
        return np.array([f.n_categories for f in self.features], dtype=np.int64)

    @cached_property
    def _positions(self) -> dict[str, int]:
        return {f.name: i for i, f in enumerate(self.features)}

    def feature(self, name_or_index: str | int) -> FeatureSpec:
        """The feature with this name or position."""
        if isinstance(name_or_index, str):
            pos = self._positions.get(name_or_index)
            if pos is None:
                names = ", ".join(self.feature_names[:30])
                raise DataError(f"unknown feature '{name_or_index}'; features are: {names}")
            return self.features[pos]
        index = int(name_or_index)
        if not -self.n_features <= index < self.n_features:
            raise DataError(f"feature index {index} out of range for {self.n_features} features")
        return self.features[index]

    def with_target(self, name: str | None, classes: Codebook | Sequence | None) -> Schema:
        """A copy with another target name and class codebook."""
        return dataclasses.replace(self, target=name, classes=classes)

    def encode(self, X: Any) -> np.ndarray:
        """Encode a table into the ``float64`` matrix of ``docs/architecture.md``
        (``encode_rows`` without its second value).

        Parameters
        ----------
        X : DataFrame, ndarray or list of rows
            A data frame's columns are selected by name (extra columns are ignored); an
            array's or a list's columns are taken by position.

        Returns
        -------
        ndarray of float64, shape (n_rows, n_features)
            Numeric features hold their value, categorical features their code, and a
            missing value is NaN. A float32 or float64 array of numeric features is
            returned as it is (other floats, such as float16, are converted to float64).

        Raises
        ------
        DataError
            On a missing column, a wrong number of columns, a value that is not a number
            (numeric features) or an unseen category (categorical features).
        """
        return self.encode_rows(X)[0]

    def encode_rows(self, X: Any) -> tuple[np.ndarray, bool]:
        """``encode``, and whether a value of the result may be missing (False: none is
        NaN, found by the same pass that looks for infinities; prediction then skips its
        checks for missing values)."""
        if (isinstance(X, np.ndarray) and X.ndim == 2 and X.dtype in (np.float32, np.float64)
                and X.shape[1] == self.n_features and not self.categorical_mask.any()):
            # fast path: numbers already (float32 stays float32: kernels take both)
            return X, self._reject_infinity(X)
        columns = self._columns_of(X)
        n_rows = len(columns[0]) if columns else len(X)
        out = np.empty((n_rows, self.n_features), dtype=np.float64)
        tokens = self.missing_tokens
        for j, (spec, col) in enumerate(zip(self.features, columns)):
            if spec.codebook is not None:
                out[:, j] = spec.codebook.encode(col, column=spec.name, tokens=tokens)
            else:
                out[:, j] = to_float(col, column=spec.name, tokens=tokens)
        return out, self._reject_infinity(out)

    def _reject_infinity(self, encoded: np.ndarray) -> bool:
        """DataError naming the column and row of the first infinite value (NaN is missing;
        infinity has no place between thresholds). A C-ordered float32 or float64 matrix of
        at least ``PARALLEL_CHECK_VALUES`` values is checked by a parallel kernel
        (``_kernels/_splits.pyx``); a smaller one by one sum when it is finite (then every value
        is), else two reductions; no temporary arrays. Returns whether a value may be NaN
        (False: none is)."""
        if encoded.size == 0:
            return False
        if (encoded.size >= PARALLEL_CHECK_VALUES and encoded.ndim == 2
                and encoded.dtype in (np.float32, np.float64) and encoded.flags.c_contiguous):
            n_infinite, n_missing = count_nonfinite_rows(encoded)
            if n_infinite == 0:
                return bool(n_missing)
        else:
            finite, missing = _finite_or_missing(encoded)
            if finite:
                return missing
        row, col = (int(i[0]) for i in np.nonzero(np.isinf(encoded)))
        raise DataError(f"column '{self.features[col].name}', row {row + 1}: "
                        f"{encoded[row, col]} is not allowed (numeric values must be finite; "
                        "a missing value is NaN or empty)")

    def _columns_of(self, X: Any) -> list[Any]:
        if isinstance(X, pd.DataFrame):
            by_name = {str(c): c for c in X.columns}
            absent = [name for name in self.feature_names if name not in by_name]
            if absent:
                listed = ", ".join(f"'{name}'" for name in absent[:20])
                more = f" and {len(absent) - 20} more" if len(absent) > 20 else ""
                noun = "column" if len(absent) == 1 else "columns"
                raise DataError(f"missing {noun} {listed}{more}")
            cols = []
            for name in self.feature_names:
                col = X[by_name[name]]
                if isinstance(col, pd.DataFrame):
                    raise DataError(f"duplicate column '{name}'")
                cols.append(col)
            return cols
        if isinstance(X, (pd.Series, str, bytes)) or not hasattr(X, "__len__"):
            raise DataError(
                f"expected a table (DataFrame, 2-D array or list of rows), got {type(X).__name__}"
            )
        arr = as_rows(X, expected=self.n_features)
        return [arr[:, j] for j in range(self.n_features)]

    def encode_labels(self, y: Any) -> np.ndarray:
        """Class codes (int32) of the labels ``y``; a missing label gets -1.

        An unseen label raises DataError naming it and its row.
        """
        if self.classes is None:
            raise DataError("the schema has no class codebook")
        codes = self.classes._encode(label_column(y), self.target or "y", 1, "class",
                                     self.missing_tokens)
        return np.where(np.isnan(codes), -1, codes).astype(np.int32)

    def decode_labels(self, codes: Any) -> np.ndarray:
        """Labels for class codes.

        Returns an int64 (float64) array when every class value is an int (a float),
        otherwise an object array; code -1 gives None (NaN in a float array; an int
        array with a missing code falls back to object).
        """
        if self.classes is None:
            raise DataError("the schema has no class codebook")
        labels = self.classes.decode(codes)
        vals = self.classes.values
        c = np.asarray(codes, dtype=np.float64).ravel()
        missing = np.isnan(c) | (c == -1)
        if vals and all(type(v) is float for v in vals):
            labels[missing] = np.nan
            return labels.astype(np.float64)
        if vals and all(type(v) is int for v in vals) and not missing.any():
            return labels.astype(np.int64)
        return labels

    def to_json(self) -> dict:
        """A JSON-ready dict; :meth:`from_json` restores the schema exactly."""
        feats = []
        for f in self.features:
            entry: dict[str, Any] = {"name": f.name, "kind": f.kind}
            if f.codebook is not None:
                entry["categories"] = f.codebook.to_json()
            feats.append(entry)
        out = {
            "features": feats,
            "target": self.target,
            "classes": None if self.classes is None else self.classes.to_json(),
        }
        if self.na_tokens is not None:  # only when not the default: old files stay as they are
            out["na_tokens"] = sorted(self.na_tokens)
        return out

    @classmethod
    def from_json(cls, data: dict) -> Schema:
        """Inverse of :meth:`to_json`; ModelFileError if ``data`` is not such a dict."""
        try:
            feats = tuple(
                FeatureSpec(
                    name=f["name"],
                    kind=f["kind"],
                    codebook=None
                    if f.get("categories") is None
                    else Codebook.from_json(f["categories"]),
                )
                for f in data["features"]
            )
            classes = data.get("classes")
            tokens = data.get("na_tokens")
            if tokens is not None and not isinstance(tokens, list):
                raise TypeError("na_tokens must be a list of strings")
            return cls(
                feats, data.get("target"), None if classes is None else Codebook.from_json(classes),
                None if tokens is None else frozenset(tokens),
            )
        except (KeyError, TypeError, AttributeError, DataError) as exc:
            raise ModelFileError(f"malformed schema: {exc!s}".replace("\n", " ")) from None


def _feature_spec(name: str, col: pd.Series, forced: bool,
                  tokens: frozenset[str] = DEFAULT_NA_TOKENS) -> FeatureSpec:
    dtype = col.dtype
    if isinstance(dtype, pd.CategoricalDtype):  # category order kept (it decides ties)
        return FeatureSpec(name, CATEGORICAL, Codebook(tuple(
            to_python(v) for v in dtype.categories if not is_missing_scalar(v, tokens))))
    if pd.api.types.is_bool_dtype(dtype):
        return FeatureSpec(name, CATEGORICAL, Codebook((False, True)))
    numeric = pd.api.types.is_numeric_dtype(dtype)
    if not (numeric or dtype == object or pd.api.types.is_string_dtype(dtype)):
        raise DataError(f"column '{name}' has unsupported dtype {dtype}")
    if not forced and (numeric or pd.api.types.infer_dtype(col, skipna=True) in _NUMBERS):
        return FeatureSpec(name, NUMERIC)
    uniq = unique_present(col, tokens)
    if not forced and all_numbers(uniq):
        return FeatureSpec(name, NUMERIC)
    return FeatureSpec(name, CATEGORICAL, Codebook(tuple(sorted_categories(uniq))))


def classes_of(y: Any, tokens: frozenset[str] = DEFAULT_NA_TOKENS) -> Codebook:
    """Class codebook of labels: a categorical's categories, else sorted distinct labels."""
    col = as_1d(label_column(y))
    if isinstance(col, pd.Series) and isinstance(col.dtype, pd.CategoricalDtype):
        return Codebook(tuple(to_python(v) for v in col.dtype.categories
                              if not is_missing_scalar(v, tokens)))
    return Codebook(tuple(sorted_categories(unique_present(col, tokens))))


class _LazyColumn:
    """A numeric array's column, turned into a Series only if it must be inspected."""

    def __init__(self, array: np.ndarray, j: int) -> None:
        self.array, self.j = array, j

    def __len__(self) -> int:
        return self.array.shape[0]

    def series(self) -> pd.Series:
        return pd.Series(self.array[:, self.j])


def infer_schema(
    X: Any,
    y: Any = None,
    *,
    categorical_features: Any = "auto",
    feature_names: Sequence[str] | None = None,
    target: str | None = None,
    na_tokens: frozenset[str] | None = None,
) -> Schema:
    """Build a schema from data.

    Parameters
    ----------
    X : DataFrame, ndarray or list of rows
        Category, bool, object and string columns are categorical (an object column whose
        values are all numbers is numeric); numeric columns are numeric.
    y : array-like, optional
        Class labels: the class codebook lists a categorical's categories in order, else
        the sorted distinct non-missing labels.
    categorical_features : "auto", None, list of names or indices, or boolean mask
        Features forced categorical (categories: sorted distinct non-missing values).
    feature_names : sequence of str, optional
        Names for the columns (default: a frame's column names, else ``x0, x1, ...``).
    target : str, optional
        Name of the class column (default: the name of a named Series ``y``).
    na_tokens : frozenset of str, optional
        Strings read as missing in object columns (default: those a reader stored in
        ``X.attrs["na_tokens"]``, else ``MISSING_STRINGS``).

    Returns
    -------
    Schema
    """
    if na_tokens is None and isinstance(X, pd.DataFrame):
        na_tokens = X.attrs.get("na_tokens")
    tokens = DEFAULT_NA_TOKENS if na_tokens is None else frozenset(na_tokens)
    if isinstance(X, pd.DataFrame):
        names = [str(c) for c in X.columns]
        columns = [X.iloc[:, j] for j in range(X.shape[1])]
    elif isinstance(X, (pd.Series, str, bytes)) or not hasattr(X, "__len__"):
        raise DataError(
            f"expected a table (DataFrame, 2-D array or list of rows), got {type(X).__name__}"
        )
    else:
        arr = as_rows(X)
        names = [f"x{j}" for j in range(arr.shape[1])]
        if arr.dtype.kind in "fiu":  # numbers: no need to look at the values (no copies)
            columns = [_LazyColumn(arr, j) for j in range(arr.shape[1])]
        else:
            columns = [pd.Series(arr[:, j]) for j in range(arr.shape[1])]
    if feature_names is not None:
        feature_names = [str(n) for n in feature_names]
        if len(feature_names) != len(names):
            raise DataError(f"got {len(feature_names)} feature names for {len(names)} columns")
        names = feature_names
    forced = feature_mask(categorical_features, names)
    features = tuple(
        FeatureSpec(n, "numeric", None) if isinstance(c, _LazyColumn) and not f
        else _feature_spec(n, c.series() if isinstance(c, _LazyColumn) else c, bool(f), tokens)
        for n, c, f in zip(names, columns, forced))
    classes = None
    if y is not None:
        n_labels = len(label_column(y))
        n_rows = len(columns[0]) if columns else len(X)
        if columns and n_labels != n_rows:
            raise DataError(f"y has {n_labels} labels but X has {n_rows} rows")
        classes = classes_of(y, tokens)
        if target is None and isinstance(y, pd.Series) and isinstance(y.name, str):
            target = y.name if y.name not in names else None
    return Schema(features, target, classes, tokens)


class Dataset(NamedTuple):
    """What the readers return: ``X, y, schema = read_csv(...)``.

    ``X`` holds the feature columns (numeric: float64; categorical: pandas categoricals
    with the codebook's values, or raw values when the reader was given a schema), ``y``
    the class labels (None without a target column).
    """

    X: pd.DataFrame
    y: pd.Series | None
    schema: Schema
