"""One traversal of the flat tree for every node kind, in parallel over rows."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

LEAF = 0
NUMERIC = 1
CATEGORICAL = 2


@njit(cache=True)
def _branch_of(kind, feature, threshold, missing_branch, category_ptr, category_branch,
               node, x):
    v = x[feature[node]]
    if np.isnan(v):
        return missing_branch[node]
    if kind[node] == NUMERIC:
        return 0 if v <= threshold[node] else 1
    code = int(v)
    lo = category_ptr[node]
    if code < 0 or lo + code >= category_ptr[node + 1]:
        return missing_branch[node]
    return category_branch[lo + code]


@njit(parallel=True, cache=True)
def apply_rows(X, kind, feature, threshold, child_ptr, child_ids, missing_branch,
               category_ptr, category_branch, out_leaf):
    """Write the id of the leaf that each row of X reaches into ``out_leaf``."""
    for i in prange(X.shape[0]):
        node = 0
        while kind[node] != LEAF:
            b = _branch_of(kind, feature, threshold, missing_branch, category_ptr,
                           category_branch, node, X[i])
            node = child_ids[child_ptr[node] + b]
        out_leaf[i] = node


@njit(cache=True)
def path_lengths(X, kind, feature, threshold, child_ptr, child_ids, missing_branch,
                 category_ptr, category_branch, out_nodes, out_ptr):
    """Nodes visited by each row, in CSR form: ``out_nodes[out_ptr[i]:out_ptr[i+1]]``.

    ``out_nodes`` must hold ``n_rows * (max_depth + 1)`` entries; returns the count used.
    """
    pos = 0
    for i in range(X.shape[0]):
        out_ptr[i] = pos
        node = 0
        out_nodes[pos] = node
        pos += 1
        while kind[node] != LEAF:
            b = _branch_of(kind, feature, threshold, missing_branch, category_ptr,
                           category_branch, node, X[i])
            node = child_ids[child_ptr[node] + b]
            out_nodes[pos] = node
            pos += 1
    out_ptr[X.shape[0]] = pos
    return pos
