"""The passes before growing: check the collections, learn the schema, sample rows for the
bin edges.

The sample is a bottom-k sample: each row with a known class gets a key from a counter-based
hash of (seed, global row index) and the ``sample_rows`` smallest keys win. Global row
indices come from the partition lengths, so the sample, and the bin edges, do not depend on
how the data is partitioned.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..binning import BinMapper
from ..data.frames import (
    DEFAULT_NA_TOKENS,
    as_1d,
    feature_mask,
    is_missing_scalar,
    label_column,
    unique_present,
)
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


@dataclass
class Source:
    """The partitions the passes read: ``parts`` are delayed partitions of X and y joined
    into one frame (``joined``: X's columns, then y's) or delayed (X, y) pairs.
    ``lengths``: the rows of each partition when known without reading it (Parquet
    metadata, an array's chunks, pandas), else None. ``in_memory``: every partition is
    held by the cluster already (persisted), so a pass over it costs no reading."""

    parts: list
    joined: bool
    lengths: tuple | None
    in_memory: bool = False

    def tasks(self, function, *args, each=None) -> list:
        """Delayed ``function(X_part, y_part, *args, *each[i])`` per partition i."""
        from dask import delayed

        each = each or [()] * len(self.parts)
        if self.joined:
            return [delayed(_on_joined)(part, function, *args, *extra)
                    for part, extra in zip(self.parts, each)]
        return [delayed(function)(xp, yp, *args, *extra)
                for (xp, yp), extra in zip(self.parts, each)]


def _on_joined(part, function, *args):
    return function(part.iloc[:, :-1], part.iloc[:, -1], *args)


def partitions(X, y) -> tuple[Source, list[str], bool]:
    """The partitions of X and y, the feature names, and whether X has names.

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
        names, has_names = [f"x{j}" for j in range(X.shape[1])], False
    elif isinstance(X, dd.DataFrame):
        names, has_names = [str(c) for c in X.columns], True
    else:
        raise ValueError(f"X must be a Dask DataFrame or Array; got "  # noqa: TRY004
                         f"{type(X).__name__}")
    if isinstance(y, da.Array):
        if y.ndim != 1:
            raise ValueError(f"y must be a 1-D Dask array; got {y.ndim} dimensions")
        if isinstance(X, da.Array) and not any(np.isnan(c) for c in X.chunks[0] + y.chunks[0]) \
                and X.chunks[0] != y.chunks[0]:
            raise ValueError(f"y's chunks {y.chunks[0]} do not line up with X's row chunks "
                             f"{X.chunks[0]}")
    elif not isinstance(y, dd.Series):
        raise ValueError(  # noqa: TRY004 - a user's mistake: one line from the CLI
            f"with a Dask X, y must be a Dask Series or 1-D Array partitioned like X; got "
            f"{type(y).__name__}")
    n_x, n_y = _n_partitions(X), _n_partitions(y)
    if n_x != n_y:
        raise ValueError(f"y has {n_y} partitions but X has {n_x}; they must line up")
    joined = _joined(X, y)
    if joined is not None:
        return Source(joined.to_delayed(optimize_graph=False), True, _lengths(joined),
                      _in_memory(joined)), names, has_names
    x_parts, y_parts = _delayed(X), _delayed(y)
    x_lengths, y_lengths = _lengths(X), _lengths(y)
    lengths = x_lengths if x_lengths is not None and x_lengths == y_lengths else None
    return Source(list(zip(x_parts, y_parts)), False, lengths,
                  _in_memory(X) and _in_memory(y)), names, has_names


def _n_partitions(collection) -> int:
    return collection.numblocks[0] if hasattr(collection, "chunks") \
        else collection.npartitions


def _optimized(frame):
    """``frame`` optimised (columns pushed to the reader) without the tuning that fuses
    partitions, or None when the optimiser changed the partitioning anyway."""
    import dask

    try:
        with dask.config.set({"optimization.tune.active": False}):
            out = frame.optimize()
    except Exception:  # noqa: BLE001 - an expression the optimiser cannot take: as it is
        return None
    return out if out.npartitions == frame.npartitions else None


def _joined(X, y):
    """One optimised frame of X's columns then y when both are column selections of the same
    frame (``frame.drop(columns=t)``, ``frame[t]``): each partition is read once, only the
    columns needed. None otherwise."""
    try:
        from dask.dataframe.dask_expr._expr import Drop, Projection
    except ImportError:
        return None
    x_expr, y_expr = getattr(X, "expr", None), getattr(y, "expr", None)
    if not (isinstance(x_expr, (Drop, Projection)) and isinstance(y_expr, Projection)) \
            or x_expr.frame._name != y_expr.frame._name:
        return None
    target = y_expr.operand("columns")
    if isinstance(target, list) or target in list(X.columns):
        return None
    from dask.dataframe.dask_expr import new_collection

    return _optimized(new_collection(x_expr.frame)[[*X.columns, target]])


def _delayed(collection) -> list:
    """Delayed partitions (or row blocks) of one collection, optimised when that keeps its
    partitioning."""
    if hasattr(collection, "chunks"):  # a dask array
        return list(collection.to_delayed()[:, 0] if collection.ndim == 2
                    else collection.to_delayed())
    optimized = _optimized(collection)
    # unoptimised otherwise: the optimiser may fuse X's and y's partitions differently (a
    # Parquet read of few columns); the scan then checks that their lengths agree
    return (optimized if optimized is not None else collection).to_delayed(
        optimize_graph=False)


def _lengths(collection) -> tuple | None:
    """Rows per partition when they are known without reading the data, else None."""
    if hasattr(collection, "chunks"):
        rows = collection.chunks[0]
        return None if any(np.isnan(r) for r in rows) else tuple(int(r) for r in rows)
    try:
        from dask.dataframe.dask_expr._expr import Lengths, Literal

        expr = Lengths(collection.expr).simplify()
        if not isinstance(expr, Literal):
            return None
        lengths = tuple(int(n) for n in expr.value)
    except Exception:  # noqa: BLE001 - private API moved: read the lengths in the scan
        return None
    return lengths if len(lengths) == collection.npartitions else None


def _in_memory(collection) -> bool:
    """Whether every partition of a Dask DataFrame or Series is a result the cluster holds
    (``persist``): its expression's leaves are all computed graphs, none a reader."""
    try:
        from dask.dataframe.dask_expr.io.io import FromGraph

        leaves = [e for e in collection.expr.walk() if not e.dependencies()]
    except Exception:  # noqa: BLE001 - an array, or private API moved: count on reading
        return False
    return bool(leaves) and all(isinstance(e, FromGraph) for e in leaves)


def row_count(X_part, y_part) -> int:
    """Rows of a partition (a partition of y that does not line up is the scan's to
    report)."""
    return len(X_part)


def _column(X_part, j: int):
    return X_part.iloc[:, j] if isinstance(X_part, pd.DataFrame) else X_part[:, j]


def describe(X_part, y_part, value_columns: list[int]) -> dict:
    """Scan task: row counts, distinct values of the columns that need them, labels."""
    labels = y_part.cat.categories if isinstance(getattr(y_part, "dtype", None),
                                                 pd.CategoricalDtype) else y_part
    if isinstance(getattr(labels, "dtype", None), np.dtype) and labels.dtype.kind in "biuf":
        labels = pd.unique(np.asarray(labels))  # the same values, in the same order
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
    X = encode(schema, X_part)
    known = ~np.isnan(float_targets(y_part)) if regression \
        else schema.encode_labels(y_part) >= 0
    keys = row_keys(seed, start, X.shape[0])[known]
    X = X[known]
    if keys.shape[0] > k:
        keep = np.argpartition(keys, k - 1)[:k]
        keys, X = keys[keep], X[keep]
    return keys, X, int(known.sum())


def known_labels(y_part) -> np.ndarray:
    """Rows whose class label is present: those ``Schema.encode_labels`` gives a code >= 0,
    found without the classes (a label is missing by itself, as NaN, None or a token)."""
    col = as_1d(label_column(y_part))
    if isinstance(col, pd.Series) and isinstance(col.dtype, pd.CategoricalDtype):
        codes, uniques = col.cat.codes.to_numpy(), col.cat.categories
    else:
        codes, uniques = pd.factorize(col)
    missing = np.array([is_missing_scalar(u, DEFAULT_NA_TOKENS) for u in uniques] + [True])
    return ~missing[codes]


def scan_sample(X_part, y_part, value_columns: list[int], regression: bool, seed: int, k: int,
                keep: bool, early, start: int) -> dict:
    """The scan and the sample in one task, for partitions whose lengths were known before
    reading them (so ``start`` is the global index of the first row): the scan's
    ``summary``, the ``keys`` of the partition's k known rows with the smallest keys, those
    ``rows`` as read (encoded once the schema is known), the number of ``known`` rows and,
    with ``keep``, the partition itself (``source``: X and y) for binning. ``early``
    (``early_key``): the keys at most that go back with the scan's summary, with their
    rows (all of them when it is None), so that the sample rarely needs a round of its
    own."""
    summary = (describe_regression if regression else describe)(X_part, y_part, value_columns)
    known = ~np.isnan(float_targets(y_part)) if regression else known_labels(y_part)
    index = np.flatnonzero(known)
    keys = row_keys(seed, start, known.shape[0])[index]
    if keys.shape[0] > k:
        smallest = np.sort(np.argpartition(keys, k - 1)[:k])
        keys, index = keys[smallest], index[smallest]
    if isinstance(X_part, pd.DataFrame) and not value_columns and all(
            isinstance(d, np.dtype) and d.kind in "iuf" for d in X_part.dtypes):
        # numbers only, none to be read as categories: as ``encode`` will see them (a
        # float array, whose check for infinities is all that is left to do)
        rows = X_part.to_numpy(dtype=np.float64)[index]
    elif isinstance(X_part, pd.DataFrame):
        rows = X_part.iloc[index]
    else:
        rows = X_part[index]
    chosen = slice(None) if early is None else keys <= early
    return {"summary": summary, "keys": keys, "rows": rows, "known": int(known.sum()),
            "source": (X_part, y_part) if keep else None,
            "early": (keys[chosen], rows.iloc[chosen] if isinstance(rows, pd.DataFrame)
                      else rows[chosen])}


#: standard deviations of the k-th smallest key above its mean that ``early_key`` allows
EARLY_MARGIN = 8.0


def early_key(k: int, n_rows: int):
    """A key that the k-th smallest of ``n_rows`` uniform 64-bit keys is almost surely
    below (its mean k / n x 2^64, plus ``EARLY_MARGIN`` standard deviations, about
    sqrt(k) / n x 2^64), or None when every row is in the sample: the rows at most this
    key come back with the scan. Rows with a missing label raise the k-th smallest of the
    known rows' keys, and an unlucky draw may pass it: then the sample takes a round of
    its own (``_prepare``)."""
    if n_rows <= k:
        return None
    share = max(k + EARLY_MARGIN * np.sqrt(k), 0.0) / n_rows
    return None if share >= 1.0 else np.uint64(min(share * 2.0**64, 2.0**64 - 2.0**11))


def on_kept(sampled: dict, function, args: tuple):
    """``function(X_part, y_part, *args)`` on the partition a scan task kept."""
    return function(*sampled["source"], *args)


def summary_and_keys(sampled: dict) -> tuple:
    return sampled["summary"], sampled["keys"], sampled["known"], sampled["early"]


def early_rows(early: tuple, schema: Schema, threshold) -> np.ndarray:
    """The rows that came back with the scan (``scan_sample``'s ``early``) whose key is at
    most ``threshold`` (None: all), encoded: ``encoded_at_most``'s, without its round."""
    return _encoded_at_most(*early, schema, threshold)


def encoded_at_most(sampled: dict, schema: Schema, threshold) -> np.ndarray:
    """The sampled rows whose key is at most ``threshold`` (None: all), encoded."""
    return _encoded_at_most(sampled["keys"], sampled["rows"], schema, threshold)


def _encoded_at_most(keys: np.ndarray, rows, schema: Schema, threshold) -> np.ndarray:
    if threshold is not None:
        chosen = keys <= threshold
        rows = rows.iloc[chosen] if isinstance(rows, pd.DataFrame) else rows[chosen]
    return encode(schema, rows)


def encode(schema: Schema, X_part) -> np.ndarray:
    """``schema.encode(X_part)``; a frame of numeric columns only goes through one
    ``to_numpy`` (the same float64 values) instead of a conversion per column: the frame's
    block seen column by column, without a copy when it is one float64 block (binning
    reads that layout as it is)."""
    if isinstance(X_part, pd.DataFrame) and not schema.categorical_mask.any() \
            and [str(c) for c in X_part.columns] == schema.feature_names \
            and all(isinstance(d, np.dtype) and d.kind in "biuf" for d in X_part.dtypes):
        return schema.encode(X_part.to_numpy(dtype=np.float64))
    return schema.encode(X_part)


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


def infer(X, y, names: list[str], *, described: list[dict], columns: list[int],
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
