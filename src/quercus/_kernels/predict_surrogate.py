"""Routing rows through an rpart tree: primary split, surrogates, majority, or stop.

A row missing the primary's value (or holding a level absent at the node) tries the node's
surrogates in order (``use_surrogates`` >= 1; a categorical surrogate whose level is absent
is skipped), then (``use_surrogates`` == 2) the child with more training rows; on a tie, or
when nothing applies, the row stops at the internal node (spec 6.2/6.3, rpart's
``predict(newdata)``). Only trees with ``Tree.rpart`` set take these kernels.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ._jit import njit

LEAF = 0
NUMERIC = 1
STOP = -1


@njit(cache=True, inline="always")
def _primary_branch(kind, feature, threshold, category_ptr, category_branch, category_absent,
                    node, x):
    """Branch of the primary split, or STOP when its value is missing or absent."""
    v = x[feature[node]]
    if np.isnan(v):
        return STOP
    if kind[node] == NUMERIC:
        return 0 if v <= threshold[node] else 1
    code = int(v)
    pos = category_ptr[node] + code
    if code < 0 or pos >= category_ptr[node + 1] or category_absent[pos]:
        return STOP
    return category_branch[pos]


@njit(cache=True, inline="always")
def _surrogate_branch(sur_ptr, sur_feature, sur_cut, sur_below, sur_cat_ptr, sur_cat_branch,
                      node, x):
    """Branch given by the first surrogate that applies, or STOP."""
    for s in range(sur_ptr[node], sur_ptr[node + 1]):
        u = x[sur_feature[s]]
        if np.isnan(u):
            continue
        below = sur_below[s]
        if below >= 0:
            return below if u < sur_cut[s] else 1 - below
        code = int(u)
        pos = sur_cat_ptr[s] + code
        if code < 0 or pos >= sur_cat_ptr[s + 1]:
            continue
        side = sur_cat_branch[pos]
        if side >= 0:
            return side
    return STOP


@njit(cache=True, inline="always")
def next_node(kind, feature, threshold, child_ptr, child_ids, category_ptr, category_branch,
              n_rows, category_absent, sur_ptr, sur_feature, sur_cut, sur_below,
              sur_cat_ptr, sur_cat_branch, use_surrogates, node, x):
    """The child a row moves to from a split node, or STOP (it stays at the node)."""
    b = _primary_branch(kind, feature, threshold, category_ptr, category_branch,
                        category_absent, node, x)
    if b == STOP and use_surrogates >= 1:
        b = _surrogate_branch(sur_ptr, sur_feature, sur_cut, sur_below, sur_cat_ptr,
                              sur_cat_branch, node, x)
    if b == STOP and use_surrogates == 2:
        n0 = n_rows[child_ids[child_ptr[node]]]
        n1 = n_rows[child_ids[child_ptr[node] + 1]]
        if n0 > n1:
            b = 0
        elif n1 > n0:
            b = 1
    if b == STOP:
        return STOP
    return child_ids[child_ptr[node] + b]


@njit(parallel=True, cache=True)
def apply_surrogate_rows(X, kind, feature, threshold, child_ptr, child_ids, category_ptr,
                         category_branch, n_rows, category_absent, sur_ptr, sur_feature,
                         sur_cut, sur_below, sur_cat_ptr, sur_cat_branch, use_surrogates,
                         out_node):
    """Write the node (a leaf, or the internal node where it stopped) each row reaches."""
    for i in prange(X.shape[0]):
        node = 0
        while kind[node] != LEAF:
            child = next_node(kind, feature, threshold, child_ptr, child_ids, category_ptr,
                              category_branch, n_rows, category_absent, sur_ptr, sur_feature,
                              sur_cut, sur_below, sur_cat_ptr, sur_cat_branch, use_surrogates,
                              node, X[i])
            if child == STOP:
                break
            node = child
        out_node[i] = node


@njit(cache=True)
def surrogate_paths(X, kind, feature, threshold, child_ptr, child_ids, category_ptr,
                    category_branch, n_rows, category_absent, sur_ptr, sur_feature, sur_cut,
                    sur_below, sur_cat_ptr, sur_cat_branch, use_surrogates, out_nodes,
                    out_ptr):
    """Nodes visited by each row in CSR form (``out_nodes`` holds n_rows * (depth + 1));
    returns the count used."""
    pos = 0
    for i in range(X.shape[0]):
        out_ptr[i] = pos
        node = 0
        out_nodes[pos] = node
        pos += 1
        while kind[node] != LEAF:
            child = next_node(kind, feature, threshold, child_ptr, child_ids, category_ptr,
                              category_branch, n_rows, category_absent, sur_ptr, sur_feature,
                              sur_cut, sur_below, sur_cat_ptr, sur_cat_branch, use_surrogates,
                              node, X[i])
            if child == STOP:
                break
            node = child
            out_nodes[pos] = node
            pos += 1
    out_ptr[X.shape[0]] = pos
    return pos
