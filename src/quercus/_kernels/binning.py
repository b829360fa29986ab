"""Quantising features into small integer bins (one byte per value with <= 256 bins)."""

from __future__ import annotations

import numpy as np
from numba import prange

from ._jit import njit

ROWS_PER_BLOCK = 4096
GRID_CELLS = 1024


def edge_grid(edges: np.ndarray, cells: int = GRID_CELLS):
    """A uniform grid over [edges[0], edges[-1]] for locating a value among the edges:
    ``start[c]`` counts the edges below the grid point ``low + c / scale``."""
    if edges.size < 2 or not edges[-1] > edges[0]:
        return float(edges[0]) if edges.size else 0.0, 0.0, np.zeros(cells, dtype=np.int32)
    low, scale = float(edges[0]), cells / float(edges[-1] - edges[0])
    points = low + np.arange(cells) / scale
    return low, scale, np.searchsorted(edges, points, side="left").astype(np.int32)


@njit(cache=True, inline="always")
def _bin_of(v, edges, lo, hi, grid_low, grid_scale, grid_start, categorical, missing_bin):
    if np.isnan(v):
        return missing_bin
    if categorical:
        return int(v)
    if lo == hi:  # a numeric feature of one value: one bin
        return 0
    cells = grid_start.shape[0]
    c = int((v - grid_low) * grid_scale) - 1  # one cell back: safe against rounding
    if c < 0:
        c = 0
    elif c >= cells:
        c = cells - 1
    b = lo + grid_start[c]
    while b < hi and edges[b] < v:
        b += 1
    return b - lo


@njit(parallel=True, cache=True)
def bin_columns(X, features, edges, edge_ptr, grid_low, grid_scale, grid_start, categorical,
                missing_bin, out):
    """out[i, r] = bin of X[r, features[i]]: the number of edges below the value
    (value <= edges[j] falls in bin j), or ``missing_bin`` for NaN. Categorical features
    (``categorical[i]``) have no edges; their code is their bin. A grid per
    feature (``edge_grid``) finds the value's neighbourhood, a short scan the bin.

    Rows are taken in blocks (one thread each) small enough to stay in cache, and a block
    is binned one feature at a time, that feature's edges and grid at hand.
    """
    n_rows = X.shape[0]
    n_blocks = (n_rows + ROWS_PER_BLOCK - 1) // ROWS_PER_BLOCK
    for block in prange(n_blocks):
        start = block * ROWS_PER_BLOCK
        end = min(start + ROWS_PER_BLOCK, n_rows)
        for i in range(features.shape[0]):
            f = features[i]
            lo, hi = edge_ptr[i], edge_ptr[i + 1]
            low, scale = grid_low[i], grid_scale[i]
            grid = grid_start[i]
            is_categorical = categorical[i]
            for r in range(start, end):
                out[i, r] = _bin_of(X[r, f], edges, lo, hi, low, scale, grid, is_categorical,
                                    missing_bin)
