"""Bin edges per feature, learned from (a sample of) the training rows, and the binned matrix.

A numeric feature with at most ``max_bins`` distinct values gets one bin per value, with
edges at the midpoints between them (so its splits are exactly the exact splitter's); with
more, the edges are quantiles of a sample of rows. A categorical feature's codes are its
bins. Missing values get a bin of their own, after every other bin.
"""

from __future__ import annotations

import numpy as np

from ._kernel_path import kernels
from .errors import DataError

bin_columns, edge_grid = kernels("binning", "bin_columns", "edge_grid")

SAMPLE_ROWS = 200_000
COLUMNS_PER_BLOCK = 16  # sampled columns copied at a time, side by side in memory


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
        edges, n_bins = [], np.zeros(n_features, dtype=np.int64)
        self.bin_values_ = {}  # feature -> its distinct values, when each has its own bin
        columns, block_start, block_end = None, 0, 0
        for f in range(n_features):
            if categorical_mask[f]:
                edges.append(np.zeros(0))
                n_bins[f] = max(int(n_categories[f]), 1)
                continue
            if f >= block_end:  # the sample's next block of columns
                block_start, block_end = f, min(f + COLUMNS_PER_BLOCK, n_features)
                columns = np.ascontiguousarray(X[rows, block_start:block_end].T)
            column = columns[f - block_start]
            values = np.unique(column[~np.isnan(column)])
            if values.size <= self.max_bins and rows.size == n_rows and complete:
                cut = values[:-1] / 2.0 + values[1:] / 2.0
                self.bin_values_[f] = values
            else:
                # quantiles of the distinct values; when every value is distinct these are
                # the column's, found quicker in the sorted copy
                quantiles = np.linspace(0, 100, self.max_bins + 1)[1:-1]
                cut = np.unique(np.percentile(values, quantiles, method="midpoint"))
            edges.append(cut.astype(np.float64))
            n_bins[f] = cut.size + 1
        self.edges_ = edges
        self.n_bins_ = n_bins
        self.missing_bin_ = int(max(n_bins.max(), self.max_bins)) if n_features else 0
        if np.any(n_bins[np.asarray(categorical_mask, dtype=bool)] > 65535):
            raise DataError("a categorical feature has more than 65535 categories")
        self.dtype_ = np.uint8 if self.missing_bin_ <= 255 else np.uint16
        return self

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
                    grid_scale, grid_start, self.missing_bin_, out)
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
