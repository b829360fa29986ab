"""Bin edges per feature, learned from (a sample of) the training rows, and the binned matrix.

A numeric feature with at most ``max_bins`` distinct values gets one bin per value, with
edges at the midpoints between them (so its splits are exactly the exact splitter's); with
more, the edges are quantiles of a sample of rows. A categorical feature's codes are its
bins. Missing values get a bin of their own, after every other bin.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ._kernels._splits import bin_columns, bin_columns_t, sample_columns, sorted_distinct
from .errors import DataError

SAMPLE_ROWS = 200_000
COLUMNS_PER_BLOCK = 16  # sampled columns copied at a time, side by side in memory
PARALLEL_MIN_ROWS = 20_000  # sampled rows from which columns' edges are found on threads
GRID_CELLS = 4096  # cells of a feature's grid over its edges (``bin_layout``)
MAX_STEPS = 8  # most edges a value may step over past its cell; more: binary search


def _threads(n_rows: int, n_columns: int) -> int:
    """Threads for the columns' edges: numpy's sorts release the GIL, so columns of a big
    sample sort side by side (below ``PARALLEL_MIN_ROWS`` a thread costs more than it
    saves)."""
    if n_rows < PARALLEL_MIN_ROWS or n_columns < 2:
        return 1
    return max(1, min(_cores(), n_columns))


def _cores() -> int:
    """The cores this process may run on (all of the machine's where the system does not
    say)."""
    if hasattr(os, "sched_getaffinity"):  # Linux
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


class BinMapper:
    """Learns bin edges with ``fit`` and turns rows into bins with ``transform``."""

    def __init__(self, max_bins: int = 255, sample_rows: int = SAMPLE_ROWS, seed: int = 0):
        if not 2 <= max_bins <= 65535:
            raise ValueError(f"max_bins must be in [2, 65535]; got {max_bins!r}")
        self.max_bins = max_bins
        self.sample_rows = sample_rows
        self.seed = seed

    def fit(self, X: np.ndarray, categorical_mask, n_categories, *,
            complete: bool = True) -> BinMapper:
        """Learn the edges from X. ``complete=False``: X is already a sample of a larger
        data set, so numeric edges are quantiles (as when ``fit`` samples rows itself)."""
        n_rows, n_features = X.shape
        rows = np.arange(n_rows)
        if n_rows > self.sample_rows:
            rows = np.sort(np.random.default_rng(self.seed).choice(n_rows, self.sample_rows,
                                                                   replace=False))
        exact = rows.size == n_rows and complete  # a value per bin where they fit
        edges = [np.zeros(0) for _ in range(n_features)]
        self.bin_values_ = {}  # feature -> its distinct values, when each has its own bin
        numeric = [f for f in range(n_features) if not categorical_mask[f]]
        threads = _threads(rows.size, len(numeric))
        pool = ThreadPoolExecutor(threads) if threads > 1 else None
        each = pool.map if pool is not None else map
        try:
            for at in range(0, len(numeric), COLUMNS_PER_BLOCK):
                block = numeric[at:at + COLUMNS_PER_BLOCK]
                for f, (cut, values) in zip(block, each(self._column_edges,
                                                        _distinct_values(X, rows, block),
                                                        [exact] * len(block))):
                    edges[f] = cut
                    if values is not None:
                        self.bin_values_[f] = values
        finally:
            if pool is not None:
                pool.shutdown()
        n_bins = np.array([max(int(n_categories[f]), 1) if categorical_mask[f]
                           else edges[f].size + 1 for f in range(n_features)], dtype=np.int64)
        self.edges_ = edges
        self.categorical_ = np.asarray(categorical_mask, dtype=np.bool_).copy()
        self.n_bins_ = n_bins
        self.missing_bin_ = int(max(n_bins.max(), self.max_bins)) if n_features else 0
        if np.any(n_bins[np.asarray(categorical_mask, dtype=bool)] > 65535):
            raise DataError("a categorical feature has more than 65535 categories")
        self.dtype_ = np.uint8 if self.missing_bin_ <= 255 else np.uint16
        return self

    def _column_edges(self, values: np.ndarray, exact: bool) -> tuple:
        """A numeric column's cuts from its sampled distinct values (increasing), and those
        values when each has its own bin (else None)."""
        if values.size <= self.max_bins and exact:
            return (values[:-1] / 2.0 + values[1:] / 2.0).astype(np.float64), values
        # quantiles of the distinct values; when every value is distinct these are the
        # column's, found quicker in the sorted copy
        quantiles = np.linspace(0, 100, self.max_bins + 1)[1:-1]
        cut = np.unique(np.percentile(values, quantiles, method="midpoint"))
        return cut.astype(np.float64), None

    def transform(self, X: np.ndarray) -> np.ndarray:
        """Bins as an (n_features, n_rows) array: each feature's bins side by side. X is
        read where it lies: row-major, or column-major (a pandas frame's block) without a
        copy."""
        layout = bin_layout(self.edges_)
        out = np.empty((X.shape[1], X.shape[0]), dtype=self.dtype_)
        args = (*layout, self.categorical_, self.missing_bin_, out)
        if X.dtype not in (np.float32, np.float64):
            X = X.astype(np.float64)
        if not X.flags.c_contiguous and X.T.flags.c_contiguous:
            bin_columns_t(X.T, *args)
        else:
            bin_columns(np.ascontiguousarray(X), *args)
        return out

    def thresholds(self, features: np.ndarray, last_left_bins: np.ndarray,
                   next_bins: np.ndarray) -> np.ndarray:
        """``threshold`` of many cuts at once (the same floats): one pass per feature."""
        out = np.empty(features.shape[0])
        for f in np.unique(features):
            at = np.flatnonzero(features == f)
            low_bin, high_bin = last_left_bins[at], next_bins[at]
            values = self.bin_values_.get(int(f))
            if values is None:
                out[at] = self.edges_[f][low_bin]
                continue
            inside = high_bin < values.size
            low = values[low_bin]
            high = values[np.where(inside, high_bin, low_bin)]
            mid = low / 2.0 + high / 2.0
            between = np.where((mid >= high) | np.isinf(mid), low, mid)
            edges = self.edges_[f]
            outer = edges[np.minimum(low_bin, max(edges.size - 1, 0))] if edges.size else low
            out[at] = np.where(inside, between, outer)
        return out

    def threshold(self, feature: int, last_left_bin: int, next_bin: int) -> float:
        """The threshold of a cut between bins ``last_left_bin`` and ``next_bin`` (the next
        bin holding rows; value <= threshold goes left). With one bin per value it is the
        midpoint of the two values, as the exact splitter's; otherwise the bin's edge."""
        values = self.bin_values_.get(feature)
        if values is None or next_bin >= values.size:
            return float(self.edges_[feature][last_left_bin])
        low, high = values[last_left_bin], values[next_bin]
        mid = low / 2.0 + high / 2.0
        return float(low if mid >= high or np.isinf(mid) else mid)


def _distinct_values(X: np.ndarray, rows: np.ndarray, block: list[int]) -> list[np.ndarray]:
    """The sorted distinct values (no NaN) of each column of ``block`` over ``rows``."""
    features = np.asarray(block, dtype=np.int64)
    if X.dtype not in (np.float32, np.float64):  # numpy's, in X's own dtype
        columns = np.ascontiguousarray(X[np.ix_(rows, features)].T)
        return [np.unique(column[~np.isnan(column)]) for column in columns]
    # float32 values sort as float64 (exactly) and come back to float32, the dtype whose
    # midpoints and quantiles the edges are
    columns = np.empty((len(block), rows.size))
    if X.flags.c_contiguous:
        sample_columns(X, rows, features, columns)
    else:
        columns[:, :] = X[np.ix_(rows, features)].T
    distinct = np.empty_like(columns)
    counts = np.empty(len(block), dtype=np.int64)
    sorted_distinct(columns, distinct, counts)
    values = []
    for j in range(len(block)):
        if counts[j] >= 0:
            values.append(distinct[j, :counts[j]].astype(X.dtype))
        else:  # numpy's choice of zero, on the column in X's dtype (exact: it came from it)
            column = columns[j].astype(X.dtype)
            values.append(np.unique(column[~np.isnan(column)]))
    return values


def bin_layout(edges: list[np.ndarray], cells: int = GRID_CELLS) -> tuple:
    """What the binning kernels read of the edges: ``(edges with +inf after each feature's,
    their starts, their numbers, grid_low, grid_scale, grid_start, steps)``.

    A feature's grid has ``cells`` equal cells from its first edge to its last: a value v
    falls in cell ``c = int((v - grid_low) * grid_scale)``, and ``grid_start[c]`` counts
    the edges below the cell's start. Starting one cell back (safe against rounding), at
    most ``steps`` edges lie between there and v, so that many comparisons find its bin.
    Where that is more than ``MAX_STEPS`` (edges crowded in a few cells) or the cells are
    too fine for the floats' spacing, ``steps`` is 0: a binary search."""
    n_features = len(edges)
    n_edges = np.array([e.size for e in edges], dtype=np.int64)
    edge_start = np.zeros(n_features, dtype=np.int64)
    edge_start[1:] = np.cumsum(n_edges + 1)[:-1]
    padded = np.concatenate([np.append(e, np.inf) for e in edges]) if n_features \
        else np.zeros(0)
    grid_low = np.zeros(n_features)
    grid_scale = np.zeros(n_features)
    grid_start = np.zeros((n_features, cells), dtype=np.int32)
    steps = np.zeros(n_features, dtype=np.int64)
    for f, e in enumerate(edges):
        if e.size == 0:
            steps[f] = 1  # one bin: the +inf after no edges stops every value
            continue
        span = float(e[-1] - e[0])
        finest = 64 * cells * float(np.spacing(max(abs(e[0]), abs(e[-1]))))
        if e.size > 1 and (not np.isfinite(span) or span <= finest):
            continue  # a binary search
        grid_low[f] = float(e[0])
        if e.size > 1:
            grid_scale[f] = cells / span
            points = grid_low[f] + np.arange(cells) / grid_scale[f]
            grid_start[f] = np.searchsorted(e, points, side="left")
        # from cell c (one back from v's), v is below the start of cell c + 3
        reach = np.concatenate([grid_start[f], np.full(3, e.size)])
        most = int((reach[3:] - reach[:-3]).max())
        steps[f] = most if most <= MAX_STEPS else 0
    return padded, edge_start, n_edges, grid_low, grid_scale, grid_start, steps
