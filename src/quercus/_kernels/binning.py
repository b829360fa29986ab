"""Quantising features into small integer bins (one byte per value with <= 256 bins)."""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(parallel=True, cache=True)
def bin_columns(X, features, edges, edge_ptr, missing_bin, out):
    """out[i, r] = bin of X[r, features[i]]: the number of edges below the value
    (value <= edges[j] falls in bin j), or ``missing_bin`` for NaN. Categorical features
    have no edges (edge_ptr[i] == edge_ptr[i+1]); their code is their bin."""
    for i in prange(features.shape[0]):
        f = features[i]
        lo = edge_ptr[i]
        hi = edge_ptr[i + 1]
        for r in range(X.shape[0]):
            v = X[r, f]
            if np.isnan(v):
                out[i, r] = missing_bin
            elif lo == hi:
                out[i, r] = int(v)
            else:
                # binary search: first edge >= v
                a = lo
                b = hi
                while a < b:
                    m = (a + b) >> 1
                    if edges[m] < v:
                        a = m + 1
                    else:
                        b = m
                out[i, r] = a - lo
