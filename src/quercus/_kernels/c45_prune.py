"""C4.5's pruning on the grower's node store (docs/c45.md, spec steps 24-28): collapse, then
pessimistic-error pruning with subtree raising, bottom up."""

from __future__ import annotations

import numpy as np

from ._jit import njit
from .c45 import SMALL
from .c45_store import class_table, make_leaf, route, total
from .predict import LEAF


@njit(cache=True)
def _upper_added_errors(n, e, z):
    """``added_errors`` for e >= 1: the normal approximation of the binomial's upper limit."""
    if e + 0.5 >= n:
        return max(n - e, 0.0)
    f = (e + 0.5) / n
    r = (f + z * z / (2 * n) + z * np.sqrt(f / n - f * f / n + z * z / (4 * n * n))) / (
        1 + z * z / n)
    return r * n - e


@njit(cache=True)
def added_errors(n, e, confidence, z):
    """Extra errors expected at ``confidence`` beyond ``e`` observed in ``n`` (the upper
    limit of the binomial error rate, C4.5's ``addErrs``); ``z`` is the standard normal
    quantile of ``1 - confidence``."""
    if e < 1.0:
        base = n * (1.0 - confidence ** (1.0 / n))
        if abs(e) < SMALL:
            return base
        return base + e * (_upper_added_errors(n, 1.0, z) - base)
    return _upper_added_errors(n, e, z)


@njit(cache=True)
def estimated_errors(table, confidence, z):
    """Observed plus added errors of a class table; 0 for an empty table."""
    n = total(table)
    if n < SMALL:
        return 0.0
    e = n - table.max()
    return e + added_errors(n, e, confidence, z)


@njit(cache=True)
def training_errors(table):
    """Weight not in the majority class."""
    if table.shape[0] == 0:
        return 0.0
    return total(table) - table.max()


@njit(cache=True)
def collapse(nodes, root):
    """Top down: a subtree whose leaves err as much as the node itself becomes a leaf."""
    kind, first_child, n_branches, children, tables = (nodes[0], nodes[4], nodes[5], nodes[6],
                                                       nodes[9])
    stack = [root]
    while len(stack) > 0:
        node = stack.pop()
        if kind[node] == LEAF:
            continue
        leaf_errors = 0.0
        inner = [node]
        while len(inner) > 0:  # the leaves, last branch first (the order J48's sum takes)
            current = inner.pop()
            if kind[current] == LEAF:
                leaf_errors += training_errors(tables[current])
            else:
                for j in range(n_branches[current]):
                    inner.append(children[first_child[current] + j])
        if leaf_errors >= training_errors(tables[node]) - 1e-3:
            make_leaf(nodes, node)
        else:
            for j in range(n_branches[node]):
                stack.append(children[first_child[node] + j])


@njit(cache=True)
def branch_errors(X, y, nodes, node, rows, weights, n_values, n_classes, confidence, z):
    """Estimated errors if these rows were classified by the subtree ``node``."""
    kind, first_child, children = nodes[0], nodes[4], nodes[6]
    if kind[node] == LEAF:
        return estimated_errors(class_table(y, rows, weights, n_classes), confidence, z)
    positions, child_weights, ptr = route(X, nodes, node, rows, weights, n_values)[:3]
    out = 0.0
    for j in range(ptr.shape[0] - 1):
        out += branch_errors(X, y, nodes, children[first_child[node] + j],
                             rows[positions[ptr[j]:ptr[j + 1]]], child_weights[ptr[j]:ptr[j + 1]],
                             n_values, n_classes, confidence, z)
    return out


@njit(cache=True)
def redistribute(X, y, nodes, node, rows, weights, n_values, n_classes):
    """Rebuild every table of the subtree from these rows (after subtree raising)."""
    kind, first_child, children, empty = nodes[0], nodes[4], nodes[6], nodes[7]
    tables, node_rows, node_weights = nodes[9], nodes[10], nodes[11]
    node_rows[node] = rows
    node_weights[node] = weights
    tables[node] = class_table(y, rows, weights, n_classes)
    if kind[node] == LEAF:
        if total(tables[node]) >= SMALL:
            empty[node] = False
        return
    positions, child_weights, ptr = route(X, nodes, node, rows, weights, n_values)[:3]
    for j in range(ptr.shape[0] - 1):
        redistribute(X, y, nodes, children[first_child[node] + j],
                     rows[positions[ptr[j]:ptr[j + 1]]], child_weights[ptr[j]:ptr[j + 1]].copy(),
                     n_values, n_classes)


@njit(cache=True)
def prune(X, y, nodes, node, n_values, n_classes, confidence, z, subtree_raising):
    """Prune the subtree in place; returns its estimated errors (sum over its leaves)."""
    (kind, feature, threshold, category, first_child, n_branches, children, _, _,
     tables, node_rows, node_weights) = nodes
    if kind[node] == LEAF:
        return estimated_errors(tables[node], confidence, z)
    tree = 0.0
    for j in range(n_branches[node]):
        tree += prune(X, y, nodes, children[first_child[node] + j], n_values, n_classes,
                      confidence, z, subtree_raising)
    largest, heaviest = 0, -np.inf
    for j in range(n_branches[node]):
        w = total(tables[children[first_child[node] + j]])
        if w >= heaviest:  # ties go to the last branch
            largest, heaviest = j, w
    leaf = estimated_errors(tables[node], confidence, z)
    raised = children[first_child[node] + largest]
    branch = np.inf
    if subtree_raising:
        branch = branch_errors(X, y, nodes, raised, node_rows[node], node_weights[node],
                               n_values, n_classes, confidence, z)
    if leaf - (tree + 0.1) < SMALL and leaf - (branch + 0.1) < SMALL:
        make_leaf(nodes, node)
        return leaf
    if branch - (tree + 0.1) < SMALL:
        kind[node], feature[node], threshold[node] = kind[raised], feature[raised], threshold[
            raised]
        category[node], first_child[node] = category[raised], first_child[raised]
        n_branches[node] = n_branches[raised]
        redistribute(X, y, nodes, node, node_rows[node], node_weights[node], n_values,
                     n_classes)
        return prune(X, y, nodes, node, n_values, n_classes, confidence, z, subtree_raising)
    return tree
