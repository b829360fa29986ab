"""The schema's check of numeric input for infinite values (and whether any is missing, so
that prediction can skip its checks for NaN), in one parallel pass over the rows (numpy's
reduction over a whole matrix runs on one thread: 4.6 ms for 1M x 20 float32, against 1.8 ms
here on 2 cores)."""

from __future__ import annotations

import numpy as np
from numba import prange

from ._jit import njit


@njit(parallel=True, cache=True)
def count_nonfinite_rows(X):
    """The numbers of rows of the matrix X holding an infinite value, and holding NaN."""
    n_inf = 0
    n_nan = 0
    for i in prange(X.shape[0]):
        inf = False
        nan = False
        for j in range(X.shape[1]):
            inf |= np.isinf(X[i, j])
            nan |= np.isnan(X[i, j])
        n_inf += inf
        n_nan += nan
    return n_inf, n_nan

