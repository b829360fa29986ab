"""One traversal of the flat tree for every node kind, in parallel over rows."""

from __future__ import annotations

import numpy as np
from numba import prange

from ._jit import njit

LEAF = 0
NUMERIC = 1
CATEGORICAL = 2
INTERVAL = 3  # threshold <= value <= interval_high -> branch 0 (inside), else branch 1
WEIGHTED = -1  # missing_branch of a node that sends missing values down every branch


@njit(cache=True, inline="always")
def _branch_of(
    kind, feature, threshold, interval_high, missing_branch, category_ptr, category_branch, node, x
):
    """Branch index a row takes at a split node; WEIGHTED for a missing value at a C4.5 node."""
    v = x[feature[node]]
    if np.isnan(v):
        return missing_branch[node]
    if kind[node] == NUMERIC:
        return 0 if v <= threshold[node] else 1
    if kind[node] == INTERVAL:
        return 0 if threshold[node] <= v <= interval_high[node] else 1
    code = int(v)
    lo = category_ptr[node]
    if code < 0 or lo + code >= category_ptr[node + 1]:
        return missing_branch[node]
    return category_branch[lo + code]


@njit(cache=True, inline="always")
def _heaviest_branch(child_ptr, child_ids, node_weight, node):
    best = 0
    for b in range(child_ptr[node + 1] - child_ptr[node]):
        if (
            node_weight[child_ids[child_ptr[node] + b]]
            > node_weight[child_ids[child_ptr[node] + best]]
        ):
            best = b
    return best


@njit(cache=True, inline="always")
def _next_node(
    kind,
    feature,
    threshold,
    interval_high,
    child_ptr,
    child_ids,
    missing_branch,
    category_ptr,
    category_branch,
    node_weight,
    node,
    x,
):
    b = _branch_of(
        kind,
        feature,
        threshold,
        interval_high,
        missing_branch,
        category_ptr,
        category_branch,
        node,
        x,
    )
    if b == WEIGHTED:
        b = _heaviest_branch(child_ptr, child_ids, node_weight, node)
    return child_ids[child_ptr[node] + b]


@njit(parallel=True, cache=True)
def apply_rows(
    X,
    kind,
    feature,
    threshold,
    interval_high,
    child_ptr,
    child_ids,
    missing_branch,
    category_ptr,
    category_branch,
    node_weight,
    out_leaf,
):
    """Write the id of the leaf that each row of X reaches into ``out_leaf``."""
    for i in prange(X.shape[0]):
        node = 0
        while kind[node] != LEAF:
            node = _next_node(
                kind,
                feature,
                threshold,
                interval_high,
                child_ptr,
                child_ids,
                missing_branch,
                category_ptr,
                category_branch,
                node_weight,
                node,
                X[i],
            )
        out_leaf[i] = node


@njit(cache=True)
def path_lengths(
    X,
    kind,
    feature,
    threshold,
    interval_high,
    child_ptr,
    child_ids,
    missing_branch,
    category_ptr,
    category_branch,
    node_weight,
    out_nodes,
    out_ptr,
):
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
            node = _next_node(
                kind,
                feature,
                threshold,
                interval_high,
                child_ptr,
                child_ids,
                missing_branch,
                category_ptr,
                category_branch,
                node_weight,
                node,
                X[i],
            )
            out_nodes[pos] = node
            pos += 1
    out_ptr[X.shape[0]] = pos
    return pos


@njit(parallel=True, cache=True)
def proba_rows(
    X,
    kind,
    feature,
    threshold,
    interval_high,
    child_ptr,
    child_ids,
    missing_branch,
    category_ptr,
    category_branch,
    node_weight,
    node_proba,
    out,
):
    """Class probabilities per row. A missing value at a WEIGHTED node descends every branch
    with the branch's share of the node's training weight, and the results are summed."""
    for i in prange(X.shape[0]):
        node = 0
        while kind[node] != LEAF:
            b = _branch_of(
                kind,
                feature,
                threshold,
                interval_high,
                missing_branch,
                category_ptr,
                category_branch,
                node,
                X[i],
            )
            if b == WEIGHTED:
                break
            node = child_ids[child_ptr[node] + b]
        if kind[node] == LEAF:
            out[i, :] = node_proba[node]
        else:
            _weighted_descent(
                X[i],
                kind,
                feature,
                threshold,
                interval_high,
                child_ptr,
                child_ids,
                missing_branch,
                category_ptr,
                category_branch,
                node_weight,
                node_proba,
                node,
                out[i],
            )


@njit(cache=True)
def _weighted_descent(
    x,
    kind,
    feature,
    threshold,
    interval_high,
    child_ptr,
    child_ids,
    missing_branch,
    category_ptr,
    category_branch,
    node_weight,
    node_proba,
    start,
    out,
):
    """Slow path of proba_rows: an explicit stack of (node, share) from ``start``."""
    stack_node = np.empty(kind.shape[0], dtype=np.int64)
    stack_share = np.empty(kind.shape[0])
    stack_node[0] = start
    stack_share[0] = 1.0
    top = 1
    while top > 0:
        top -= 1
        node = stack_node[top]
        share = stack_share[top]
        if kind[node] == LEAF:
            for c in range(out.shape[0]):
                out[c] += share * node_proba[node, c]
            continue
        b = _branch_of(
            kind,
            feature,
            threshold,
            interval_high,
            missing_branch,
            category_ptr,
            category_branch,
            node,
            x,
        )
        if b != WEIGHTED:
            stack_node[top] = child_ids[child_ptr[node] + b]
            stack_share[top] = share
            top += 1
            continue
        total = node_weight[node]
        for k in range(child_ptr[node], child_ptr[node + 1]):
            child = child_ids[k]
            if node_weight[child] > 0.0 and total > 0.0:
                stack_node[top] = child
                stack_share[top] = share * node_weight[child] / total
                top += 1
