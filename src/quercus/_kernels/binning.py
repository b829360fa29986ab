"""Quantising features into small integer bins (one byte per value with <= 256 bins), and
the sorted distinct values of the sampled columns that the bin edges are learned from."""

from __future__ import annotations

import numpy as np
from numba import prange

from ._jit import njit, pure_twin
from .radix_sort import lsd_sort, sort_keys

ROWS_PER_BLOCK = 4096
_NEGATIVE_ZERO = np.uint64(1 << 63)  # the bits of -0.0 (and the sign bit)
_NAN_KEY = np.uint64(0xFFFFFFFFFFFFFFFF)  # ``radix_sort.sort_keys``'s key of NaN


# -- rows to bins ----------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _bin_of(v, edges, lo, n_edges, low, scale, top, grid, steps):
    """The number of edges ``edges[lo:lo + n_edges]`` below v (v not NaN); ``edges[lo +
    n_edges]`` is +inf. With ``steps`` > 0 the value's grid cell, one back (safe against
    rounding), gives the edges below it, and ``steps`` comparisons without branches finish
    (``binning.bin_layout`` makes sure they are enough); else a binary search."""
    if steps > 0:
        x = (v - low) * scale  # NaN for an infinite v on a grid of no width: cell 0
        x = min(x, top) if x > 0.0 else 0.0
        b = lo + grid[max(int(x) - 1, 0)]
        for _ in range(steps):
            b += edges[b] < v
        return b - lo
    first, count = lo, n_edges
    while count > 0:
        half = count >> 1
        if edges[first + half] < v:
            first += half + 1
            count -= half + 1
        else:
            count = half
    return first - lo


@njit(cache=True, inline="always")
def _bin_run(column, start, end, edges, lo, n_edges, low, scale, grid, steps, categorical,
             missing_bin, out):
    """Bins of ``column[start:end]`` (a row of a column-major matrix, or a column of a
    row-major one) into ``out[start:end]``."""
    top = grid.shape[0] - 1.0
    if categorical:
        for r in range(start, end):
            v = column[r]
            out[r] = missing_bin if np.isnan(v) else int(v)
        return
    for r in range(start, end):
        v = column[r]
        if np.isnan(v):
            out[r] = missing_bin
        else:
            out[r] = _bin_of(v, edges, lo, n_edges, low, scale, top, grid, steps)


def _numpy_bins(columns, edges, edge_start, n_edges, categorical, missing_bin, out):
    """Bins of ``columns`` (feature f's values in ``columns[f]``) by ``np.searchsorted``."""
    for f in range(out.shape[0]):
        values = columns[f]
        missing = np.isnan(values)
        if categorical[f]:
            found = np.where(missing, 0, values).astype(np.int64)
        else:
            lo = edge_start[f]
            found = np.searchsorted(edges[lo:lo + n_edges[f]], values, side="left")
        out[f] = np.where(missing, missing_bin, found)


def _numpy_bin_columns(X, edges, edge_start, n_edges, grid_low, grid_scale, grid_start,
                       steps, categorical, missing_bin, out):
    """``bin_columns`` in numpy (the pure copy's)."""
    _numpy_bins(X.T, edges, edge_start, n_edges, categorical, missing_bin, out)


def _numpy_bin_columns_t(Xt, edges, edge_start, n_edges, grid_low, grid_scale, grid_start,
                         steps, categorical, missing_bin, out):
    """``bin_columns_t`` in numpy (the pure copy's)."""
    _numpy_bins(Xt, edges, edge_start, n_edges, categorical, missing_bin, out)


@pure_twin(_numpy_bin_columns)
@njit(parallel=True, cache=True)
def bin_columns(X, edges, edge_start, n_edges, grid_low, grid_scale, grid_start, steps,
                categorical, missing_bin, out):
    """out[f, r] = bin of X[r, f]: the number of edges below the value (value <= edges[j]
    falls in bin j), or ``missing_bin`` for NaN. Feature f's edges are ``edges[edge_start[f]:
    edge_start[f] + n_edges[f]]``, followed by +inf; its grid (``binning.bin_layout``)
    finds a value's neighbourhood. Categorical features have no edges: their code is their
    bin. X is row-major; rows are taken in blocks (one thread each) small enough to stay in
    cache, a block binned one feature at a time."""
    n_rows = X.shape[0]
    n_blocks = (n_rows + ROWS_PER_BLOCK - 1) // ROWS_PER_BLOCK
    for block in prange(n_blocks):
        start = block * ROWS_PER_BLOCK
        end = min(start + ROWS_PER_BLOCK, n_rows)
        for f in range(X.shape[1]):
            _bin_run(X[:, f], start, end, edges, edge_start[f], n_edges[f], grid_low[f],
                     grid_scale[f], grid_start[f], steps[f], categorical[f], missing_bin,
                     out[f])


@pure_twin(_numpy_bin_columns_t)
@njit(parallel=True, cache=True)
def bin_columns_t(Xt, edges, edge_start, n_edges, grid_low, grid_scale, grid_start, steps,
                  categorical, missing_bin, out):
    """``bin_columns`` of a column-major matrix: ``Xt[f]`` holds feature f's values (the
    layout of a pandas frame's float block, binned without a copy to rows)."""
    n_features, n_rows = Xt.shape
    n_blocks = (n_rows + ROWS_PER_BLOCK - 1) // ROWS_PER_BLOCK
    for task in prange(n_features * n_blocks):
        f = task // n_blocks
        start = (task % n_blocks) * ROWS_PER_BLOCK
        end = min(start + ROWS_PER_BLOCK, n_rows)
        _bin_run(Xt[f], start, end, edges, edge_start[f], n_edges[f], grid_low[f],
                 grid_scale[f], grid_start[f], steps[f], categorical[f], missing_bin, out[f])


# -- the sample's columns and their distinct values -----------------------------------------
def _numpy_sample_columns(X, rows, features, out):
    """``sample_columns`` in numpy (the pure copy's)."""
    out[:, :] = X[np.ix_(rows, features)].T


@pure_twin(_numpy_sample_columns)
@njit(parallel=True, cache=True)
def sample_columns(X, rows, features, out):
    """out[j, i] = X[rows[i], features[j]]: the sampled rows' columns, each contiguous."""
    n = rows.shape[0]
    n_blocks = (n + ROWS_PER_BLOCK - 1) // ROWS_PER_BLOCK
    for block in prange(n_blocks):
        for i in range(block * ROWS_PER_BLOCK, min((block + 1) * ROWS_PER_BLOCK, n)):
            r = rows[i]
            for j in range(features.shape[0]):
                out[j, i] = X[r, features[j]]


def _numpy_sorted_distinct(columns, out, counts):
    """``sorted_distinct`` in numpy (the pure copy's)."""
    for f in range(columns.shape[0]):
        column = columns[f]
        if np.any((column == 0) & np.signbit(column)):
            counts[f] = -1
            continue
        values = np.unique(column[~np.isnan(column)])
        out[f, :values.size] = values
        counts[f] = values.size


@njit(cache=True)
def _sorted_distinct_column(column, out):
    """``sorted_distinct`` of one column: the count, or -1 when it holds -0.0."""
    bits = column.view(np.uint64)
    for i in range(column.shape[0]):
        if bits[i] == _NEGATIVE_ZERO:
            return -1
    keys, _ = lsd_sort(sort_keys(column), np.empty(0, dtype=np.int64))  # NaN last
    values = out.view(np.uint64)
    m = 0
    for i in range(keys.shape[0]):
        key = keys[i]
        if key == _NAN_KEY:
            break
        if m == 0 or key != keys[i - 1]:  # back from the order-keeping key to the float
            values[m] = key ^ _NEGATIVE_ZERO if key >= _NEGATIVE_ZERO else ~key
            m += 1
    return m


@pure_twin(_numpy_sorted_distinct)
@njit(parallel=True, cache=True)
def sorted_distinct(columns, out, counts):
    """For each row f of ``columns``: its distinct values other than NaN, increasing, in
    ``out[f, :counts[f]]`` (``np.unique``'s, by ``radix_sort.lsd_sort``). A column
    holding -0.0 gets ``counts[f] = -1``: which of two equal zeros ``np.unique`` keeps
    depends on numpy's sort, so the caller asks numpy for that column."""
    for f in prange(columns.shape[0]):
        counts[f] = _sorted_distinct_column(columns[f], out[f])
