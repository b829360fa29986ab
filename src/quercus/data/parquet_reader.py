"""Read a Parquet file (through pyarrow, ``pip install 'quercus[parquet]'``).

Columns keep the types the file stores: numbers are numeric; a dictionary (pandas
categorical) column is categorical with its categories in the stored order, which breaks
ties between equally good splits, even when its values look like numbers; booleans are
categorical (False, True); string columns are typed as ``read_csv`` types a CSV column
(missing-value tokens, then numeric when every value is a number).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from quercus.data.csv_reader import _classes, _override_set, _Strings
from quercus.data.frames import is_integral, na_tokens, to_float, to_python
from quercus.data.inference import type_warnings
from quercus.data.schema import CATEGORICAL, NUMERIC, Codebook, Dataset, FeatureSpec, Schema
from quercus.errors import DataError


def _frame(name: str) -> pd.DataFrame:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise DataError(f"{name}: reading Parquet needs pyarrow: pip install "
                        "'quercus[parquet]'") from None
    if not os.path.exists(name):
        raise DataError(f"{name}: no such file")
    if os.path.isdir(name):
        raise DataError(f"{name}: is a directory, not a Parquet file")
    try:
        frame = pq.read_table(name).to_pandas()
    except (OSError, ValueError, pa.lib.ArrowException) as exc:
        text = " ".join(str(exc).split()) or type(exc).__name__
        raise DataError(f"{name}: cannot read the Parquet file ({text})") from None
    frame.columns = [str(c) for c in frame.columns]
    if len(frame) == 0:
        raise DataError(f"{name}: no data rows")
    return frame.reset_index(drop=True)


class _Column:
    """One column of the frame, typed; errors name the file, the row and the column."""

    def __init__(self, name: str, col: str, series: pd.Series, tokens: frozenset[str]):
        if series.dtype == object:  # booleans with nulls come back as objects
            present = series.dropna()
            if len(present) and all(isinstance(v, (bool, np.bool_)) for v in present):
                series = series.astype("boolean")
        self.name, self.col, self.series, self.tokens = name, col, series, tokens

    def is_categorical_dtype(self) -> bool:
        return isinstance(self.series.dtype, pd.CategoricalDtype)

    def floats(self, strict: bool) -> np.ndarray | None:
        series, dtype = self.series, self.series.dtype
        if self.is_categorical_dtype() and not strict:
            return None
        if pd.api.types.is_bool_dtype(dtype) and not strict:
            return None
        if pd.api.types.is_numeric_dtype(dtype) and not self.is_categorical_dtype():
            return series.to_numpy(dtype=np.float64, na_value=np.nan)
        if self.is_categorical_dtype() or pd.api.types.is_bool_dtype(dtype):
            series = series.astype(object)
        if strict:
            try:
                return to_float(series, column=self.col, rows_offset=1, tokens=self.tokens)
            except DataError as exc:
                raise DataError(f"{self.name}, {exc}") from None
        strings = _Strings(series, self.tokens)
        nums, bad = strings.numbers()
        return strings.as_floats(nums) if bad < 0 else None

    def finite(self, nums: np.ndarray) -> np.ndarray:
        infinite = np.flatnonzero(np.isinf(nums))
        if infinite.size:
            row = int(infinite[0])
            raise DataError(f"{self.name}, row {row + 1}, column '{self.col}': {nums[row]} is "
                            "not allowed (numeric values must be finite; a missing value is "
                            "null)")
        return nums

    def categorical(self) -> tuple[pd.Categorical, Codebook]:
        series, dtype = self.series, self.series.dtype
        if isinstance(dtype, pd.CategoricalDtype):  # stored order kept
            kept = [c for c in dtype.categories if not (isinstance(c, str) and c in self.tokens)]
            dropped = [c for c in dtype.categories if c not in kept]
            values = pd.Categorical(series.cat.remove_categories(dropped))
            return values, Codebook(tuple(to_python(v) for v in kept))
        if pd.api.types.is_bool_dtype(dtype):
            values = pd.Categorical(series.astype(object), categories=[False, True])
            return values, Codebook((False, True))
        if not (dtype == object or pd.api.types.is_string_dtype(dtype)
                or pd.api.types.is_numeric_dtype(dtype)):
            raise DataError(f"{self.name}: column '{self.col}' has unsupported type {dtype}")
        return _Strings(series.astype(object), self.tokens).as_categorical()

    def raw(self) -> pd.Series:
        """Values for a model's categorical feature: objects, missing tokens as None."""
        values = self.series.astype(object)
        mask = values.isna() | values.isin(list(self.tokens))
        return values.where(~mask, None)


def read_parquet(
    path: str | os.PathLike,
    target: str | None = None,
    *,
    categorical: Sequence[str] | None = None,
    numeric: Sequence[str] | None = None,
    schema: Schema | None = None,
    na_values: Sequence[str] | str | None = None,
    keep_na: Sequence[str] | str | None = None,
) -> Dataset:
    """Read a Parquet file; the parameters and the result are those of ``read_csv``.

    Raises
    ------
    DataError
        With a one-line message that starts with the file path (also when pyarrow is not
        installed).
    """
    name = os.fspath(path)
    if schema is not None and (categorical or numeric):
        raise DataError(f"{name}: give either schema= or categorical=/numeric=, not both")
    tokens = na_tokens(na_values, keep_na, None if schema is None else schema.missing_tokens)
    frame = _frame(name)
    header = list(frame.columns)
    if schema is not None and target is None and schema.target in header:
        target = schema.target
    if target is not None and target not in header:
        raise DataError(f"{name}: unknown target column '{target}'; columns are: "
                        f"{', '.join(header)}")
    forced_cat = _override_set(name, header, categorical, "categorical")
    forced_num = _override_set(name, header, numeric, "numeric")
    if forced_cat & forced_num:
        raise DataError(f"{name}: column '{min(forced_cat & forced_num)}' is forced both "
                        "categorical and numeric")
    columns = {c: _Column(name, c, frame[c], tokens) for c in header}
    if schema is not None:
        return _with_schema(name, columns, schema, target)
    data: dict[str, Any] = {}
    features = []
    for col in header:
        if col == target:
            continue
        nums = None if col in forced_cat else columns[col].floats(col in forced_num)
        if nums is not None:
            data[col] = columns[col].finite(nums)
            features.append(FeatureSpec(col, NUMERIC))
        else:
            data[col], book = columns[col].categorical()
            features.append(FeatureSpec(col, CATEGORICAL, book))
    X = pd.DataFrame(data, index=pd.RangeIndex(len(frame)))
    y = classes = None
    if target is not None:
        y, classes = _labels(columns[target], target in forced_cat)
    result = Schema(tuple(features), target, classes, tokens)
    if result.na_tokens is not None:
        X.attrs["na_tokens"] = result.na_tokens
    stored = {c for c in header if columns[c].is_categorical_dtype()}  # the file's choice
    for message in type_warnings(name, X, forced_cat | stored):
        warnings.warn(message, UserWarning, stacklevel=2)
    return Dataset(X, y, result)


def _labels(column: _Column, as_strings: bool) -> tuple[pd.Series, Codebook]:
    if column.is_categorical_dtype() or pd.api.types.is_bool_dtype(column.series.dtype):
        values, book = column.categorical()
        return pd.Series(values, name=column.col), book
    nums = None if as_strings else column.floats(strict=False)
    if nums is None:
        y = pd.Series(_Strings(column.series.astype(object), column.tokens).as_objects(),
                      name=column.col, dtype=object)
        return y, _classes(y)
    if is_integral(nums):
        missing = np.isnan(nums)
        ints = np.where(missing, 0, nums).astype(np.int64)
        y = pd.Series(pd.arrays.IntegerArray(ints, missing) if missing.any() else ints,
                      name=column.col)
    else:
        y = pd.Series(nums, name=column.col)
    return y, _classes(y)


def _with_schema(name: str, columns: dict[str, _Column], schema: Schema,
                 target: str | None) -> Dataset:
    absent = [spec.name for spec in schema.features if spec.name not in columns]
    if absent:
        noun = "column" if len(absent) == 1 else "columns"
        listed = ", ".join(f"'{c}'" for c in absent[:20])
        raise DataError(f"{name}: missing {noun} {listed} required by the schema")
    data: dict[str, Any] = {}
    for spec in schema.features:
        column = columns[spec.name]
        if spec.is_categorical:
            data[spec.name] = column.raw()
        else:
            data[spec.name] = column.finite(column.floats(strict=True))
    n_rows = len(next(iter(columns.values())).series)
    X = pd.DataFrame(data, index=pd.RangeIndex(n_rows))
    if target is None:
        return Dataset(X, None, schema)
    y, classes = _labels(columns[target], isinstance(schema.classes, Codebook) and all(
        isinstance(v, str) for v in schema.classes.values))
    if schema.target != target:
        schema = schema.with_target(target, schema.classes or classes)
    return Dataset(X, y, schema)


__all__ = ["read_parquet"]
