"""The passes before growing: check the collections, learn the schema, sample rows for the
bin edges.

The sample is a bottom-k sample: each row with a known class gets a key from a counter-based
hash of (seed, global row index) and the ``sample_rows`` smallest keys win. Global row
indices come from the partition lengths, so the sample, and the bin edges, do not depend on
how the data is partitioned.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..binning import BinMapper
from ..data.frames import feature_mask, unique_present
from ..data.schema import Schema, infer_schema
from ..errors import DataError

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def row_keys(seed: int, start: int, n: int) -> np.ndarray:
    """splitmix64 of (seed, row index) for rows ``start .. start + n - 1``: uint64 keys."""
    with np.errstate(over="ignore"):
        z = np.arange(start, start + n, dtype=np.uint64) * _GOLDEN
        z += np.uint64(seed & 0xFFFFFFFFFFFFFFFF) * np.uint64(0xD1B54A32D192ED03) + _GOLDEN
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def partitions(X, y) -> tuple[list, list, list[str], bool]:
    """Delayed partitions of X and y, the feature names, and whether X has names.

    Raises ``ValueError`` (one line) for shapes the cluster fit cannot take."""
    import dask.array as da
    import dask.dataframe as dd

    if isinstance(X, da.Array):
        if X.ndim != 2:
            raise ValueError(f"X must be a 2-D Dask array; got {X.ndim} dimension(s)")
        if X.numblocks[1] != 1:
            raise ValueError(f"X is chunked along its columns ({X.numblocks[1]} column "
                             f"chunks); rechunk it with X.rechunk({{1: -1}})")
        if X.dtype.kind not in "fiub":
            raise ValueError(f"a Dask array X must hold numbers (dtype {X.dtype}); use a "
                             f"Dask DataFrame for text columns")
        x_parts = list(X.to_delayed()[:, 0])
        names, has_names = [f"x{j}" for j in range(X.shape[1])], False
    elif isinstance(X, dd.DataFrame):
        x_parts = list(X.to_delayed(optimize_graph=False))
        names, has_names = [str(c) for c in X.columns], True
    else:
        raise ValueError(f"X must be a Dask DataFrame or Array; got "  # noqa: TRY004
                         f"{type(X).__name__}")
    if isinstance(y, da.Array):
        if y.ndim != 1:
            raise ValueError(f"y must be a 1-D Dask array; got {y.ndim} dimensions")
        y_parts = list(y.to_delayed())
        if isinstance(X, da.Array) and not any(np.isnan(c) for c in X.chunks[0] + y.chunks[0]) \
                and X.chunks[0] != y.chunks[0]:
            raise ValueError(f"y's chunks {y.chunks[0]} do not line up with X's row chunks "
                             f"{X.chunks[0]}")
    elif isinstance(y, dd.Series):
        # unoptimised: the optimiser may fuse X's and y's partitions differently (a Parquet
        # read of few columns); the scan then checks that their lengths agree
        y_parts = list(y.to_delayed(optimize_graph=False))
    else:
        raise ValueError(  # noqa: TRY004 - a user's mistake: one line from the CLI
            f"with a Dask X, y must be a Dask Series or 1-D Array partitioned like X; got "
            f"{type(y).__name__}")
    if len(x_parts) != len(y_parts):
        raise ValueError(f"y has {len(y_parts)} partitions but X has {len(x_parts)}; they "
                         f"must line up")
    return x_parts, y_parts, names, has_names


def _column(X_part, j: int):
    return X_part.iloc[:, j] if isinstance(X_part, pd.DataFrame) else X_part[:, j]


def describe(X_part, y_part, value_columns: list[int]) -> dict:
    """Scan task: row counts, distinct values of the columns that need them, labels."""
    labels = y_part.cat.categories if isinstance(getattr(y_part, "dtype", None),
                                                 pd.CategoricalDtype) else y_part
    return {"rows": len(X_part), "labels_rows": len(y_part),
            "values": {j: unique_present(_column(X_part, j)) for j in value_columns},
            "labels": unique_present(pd.Series(np.asarray(labels, dtype=object)))}


def float_targets(y_part) -> np.ndarray:
    """A partition's regression targets as float64 (NaN: missing), refusing what is not a
    finite number with a one-line ValueError."""
    series = pd.Series(np.asarray(y_part, dtype=object) if not isinstance(y_part, pd.Series)
                       else y_part)
    if isinstance(series.dtype, pd.CategoricalDtype) \
            or not pd.api.types.is_numeric_dtype(series.dtype):
        converted = pd.to_numeric(series.astype(object), errors="coerce")
        if converted.isna().sum() > series.isna().sum():
            raise ValueError("y holds values that are not numbers; a regression tree needs a "
                             "numeric target (use DecisionTreeClassifier for class labels)")
        series = converted
    if pd.api.types.is_bool_dtype(series.dtype):
        raise ValueError("y is boolean; a regression tree needs a numeric target")
    values = series.to_numpy(dtype=np.float64, na_value=np.nan)
    if np.isinf(values).any():
        raise ValueError("Input y contains infinity; a regression target must be finite")
    return values


def describe_regression(X_part, y_part, value_columns: list[int]) -> dict:
    """Scan task of a regression fit: row counts, distinct values of the columns that need
    them, and the range of the known targets' sums (``exact_sums.ranges``)."""
    from ..splitting.exact_sums import ranges

    y = float_targets(y_part)
    y = y[~np.isnan(y)]
    return {"rows": len(X_part), "labels_rows": len(y_part),
            "values": {j: unique_present(_column(X_part, j)) for j in value_columns},
            "known": int(y.shape[0]), "ranges": ranges(y, np.ones(y.shape[0]))}


def sample(X_part, y_part, schema: Schema, start: int, seed: int, k: int,
           regression: bool = False):
    """Sample task: keys and encoded rows of the partition's k known rows with the smallest
    keys, and its number of known rows (known: a class label, or a target not NaN)."""
    X = schema.encode(X_part)
    known = ~np.isnan(float_targets(y_part)) if regression \
        else schema.encode_labels(y_part) >= 0
    keys = row_keys(seed, start, X.shape[0])[known]
    X = X[known]
    if keys.shape[0] > k:
        keep = np.argpartition(keys, k - 1)[:k]
        keys, X = keys[keep], X[keep]
    return keys, X, int(known.sum())


def _proxy_column(meta: pd.Series | None, values: list | None, length: int,
                  float_array: bool) -> pd.Series:
    """A short column that ``infer_schema`` reads as it would read the whole column."""
    if values is not None:
        pad = [np.nan if float_array else None] * (length - len(values))
        return pd.Series(values + pad, dtype=np.float64 if float_array else object)
    if isinstance(meta.dtype, pd.CategoricalDtype):
        return pd.Series(pd.Categorical([None] * length, categories=meta.dtype.categories))
    return pd.Series(np.zeros(length, dtype=meta.dtype))


def value_columns(X, names: list[str], categorical_features) -> list[int]:
    """Columns whose distinct values decide their kind and categories."""
    forced = feature_mask(categorical_features, names)
    if not hasattr(X, "dtypes"):  # a numeric array: only the forced columns
        return [j for j in range(len(names)) if forced[j]]
    out = []
    for j, dtype in enumerate(X.dtypes):
        if isinstance(dtype, pd.CategoricalDtype):
            if "__UNKNOWN_CATEGORIES__" in map(str, dtype.categories):
                raise ValueError(f"categorical column '{names[j]}' has unknown categories; "
                                 f"call X.categorize() first")
            continue
        if pd.api.types.is_bool_dtype(dtype):
            continue
        if forced[j] or not pd.api.types.is_numeric_dtype(dtype):
            out.append(j)
    return out


def infer(X, y, names: list[str], described: list[dict], columns: list[int],
          categorical_features, regression: bool = False) -> Schema:
    """The schema ``infer_schema`` would give the whole data, from the scan's summaries
    (a regression fit's: no class labels, the target's name)."""
    values = {j: [] for j in columns}
    labels = []
    for d in described:
        for j in columns:
            values[j].extend(d["values"][j])
        labels.extend(d.get("labels", []))
    values = {j: unique_present(pd.Series(v, dtype=object)) for j, v in values.items()}
    labels = unique_present(pd.Series(labels, dtype=object))
    length = max([len(v) for v in values.values()] + [len(labels), 1])
    is_array = not hasattr(X, "dtypes")
    frame = {}
    for j, name in enumerate(names):
        meta = None if is_array else X._meta.iloc[:, j]
        frame[name] = _proxy_column(meta, values.get(j), length, is_array) \
            if (j in values or not is_array) else pd.Series(np.zeros(length))
    if regression:
        target = None if hasattr(y, "chunks") else y.name
        return infer_schema(pd.DataFrame(frame), categorical_features=categorical_features,
                            target=target)
    y_meta = getattr(y, "_meta", None)
    if isinstance(getattr(y_meta, "dtype", None), pd.CategoricalDtype):
        y_proxy = pd.Series(pd.Categorical([None] * length, categories=y_meta.dtype.categories))
    else:
        y_proxy = pd.Series(labels + [None] * (length - len(labels)), dtype=object)
    y_proxy.name = None if hasattr(y, "chunks") else y.name  # a dask array's name: a token
    schema = infer_schema(pd.DataFrame(frame), y_proxy,
                          categorical_features=categorical_features)
    if not schema.classes or len(schema.classes) == 0:
        raise DataError("no training rows with a known class label")
    return schema


def keys_of(sampled: tuple) -> np.ndarray:
    return sampled[0]


def rows_at_most(sampled: tuple, threshold) -> np.ndarray:
    """The sampled rows whose key is at most ``threshold`` (None: all)."""
    keys, rows, _ = sampled
    return rows if threshold is None else rows[keys <= threshold]


def threshold(keys: list, k: int):
    """The k-th smallest of all keys (None when there are at most k)."""
    every = np.concatenate(keys) if keys else np.zeros(0, dtype=np.uint64)
    return None if every.shape[0] <= k else np.partition(every, k - 1)[k - 1]


def fit_binner(rows: np.ndarray, n_known: int, schema: Schema, max_bins: int,
               sample_rows: int, seed: int) -> BinMapper:
    """Bin edges from the bottom-k sample, as ``read_csv_binned`` learns them."""
    return BinMapper(max_bins, sample_rows=max(sample_rows, 1), seed=seed).fit(
        rows, schema.categorical_mask, schema.n_categories, complete=n_known <= sample_rows)
