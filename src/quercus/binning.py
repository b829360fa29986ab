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

from ._kernel_path import kernels
from .errors import DataError

bin_columns, edge_grid = kernels("binning", "bin_columns", "edge_grid")

SAMPLE_ROWS = 200_000
COLUMNS_PER_BLOCK = 16  # sampled columns copied at a time, side by side in memory
PARALLEL_MIN_ROWS = 20_000  # sampled rows from which columns' edges are found on threads


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
                # the sample's block of columns, each column's values side by side
                columns = np.ascontiguousarray(X[np.ix_(rows, block)].T)
                found = each(self._column_edges, columns, [exact] * len(block))
                for f, (cut, values) in zip(block, found):
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

    def _column_edges(self, column: np.ndarray, exact: bool) -> tuple:
        """A numeric column's cuts, and its distinct values when each has its own bin
        (else None)."""
        values = np.unique(column[~np.isnan(column)])
        if values.size <= self.max_bins and exact:
            return (values[:-1] / 2.0 + values[1:] / 2.0).astype(np.float64), values
        # quantiles of the distinct values; when every value is distinct these are the
        # column's, found quicker in the sorted copy
        quantiles = np.linspace(0, 100, self.max_bins + 1)[1:-1]
        cut = np.unique(np.percentile(values, quantiles, method="midpoint"))
        return cut.astype(np.float64), None

    def transform(self, X: np.ndarray) -> np.ndarray:
        """Bins as an (n_features, n_rows) array: each feature's bins side by side."""
        n_features = X.shape[1]
        edge_ptr = np.zeros(n_features + 1, dtype=np.int64)
        edge_ptr[1:] = np.cumsum([e.size for e in self.edges_])
        all_edges = np.concatenate(self.edges_) if n_features else np.zeros(0)
        grids = [edge_grid(e) for e in self.edges_]
        grid_low = np.array([g[0] for g in grids], dtype=np.float64)
        grid_scale = np.array([g[1] for g in grids], dtype=np.float64)
        grid_start = np.array([g[2] for g in grids], dtype=np.int32).reshape(n_features, -1)
        out = np.empty((n_features, X.shape[0]), dtype=self.dtype_)
        bin_columns(X, np.arange(n_features, dtype=np.int64), all_edges, edge_ptr, grid_low,
                    grid_scale, grid_start, self.categorical_, self.missing_bin_, out)
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
