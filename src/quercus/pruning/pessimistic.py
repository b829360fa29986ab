"""C4.5's pruning (docs/c45.md, spec steps 24-28): collapse, then pessimistic-error pruning
with subtree raising, on the grower's node objects."""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

from .._kernels.c45 import SMALL
from ..growing.c45 import C45Node, class_table, distribute


def training_errors(table: np.ndarray) -> float:
    """Weight not in the majority class."""
    weights = table.tolist()
    return sum(weights) - max(weights) if weights else 0.0


def added_errors(n: float, e: float, confidence: float) -> float:
    """Extra errors expected at confidence ``confidence`` beyond ``e`` observed in ``n``
    (the upper limit of the binomial error rate, C4.5's ``addErrs``)."""
    if e < 1.0:
        base = n * (1.0 - confidence ** (1.0 / n))
        if abs(e) < SMALL:
            return base
        return base + e * (added_errors(n, 1.0, confidence) - base)
    if e + 0.5 >= n:
        return max(n - e, 0.0)
    z = NormalDist().inv_cdf(1.0 - confidence)
    f = (e + 0.5) / n
    r = (f + z * z / (2 * n) + z * math.sqrt(f / n - f * f / n + z * z / (4 * n * n))) / (
        1 + z * z / n)
    return r * n - e


def estimated_errors(table: np.ndarray, confidence: float) -> float:
    """Observed plus added errors of a class table; 0 for an empty table."""
    weights = table.tolist()
    n = sum(weights)
    if n < SMALL:
        return 0.0
    e = n - max(weights)
    return e + added_errors(n, e, confidence)


def collapse(node: C45Node) -> None:
    """Top down: a subtree whose leaves err as much as the node itself becomes a leaf."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.is_leaf:
            continue
        leaf_errors = sum(training_errors(leaf.table) for leaf in current.leaves())
        if leaf_errors >= training_errors(current.table) - 1e-3:
            current.make_leaf()
        else:
            stack.extend(current.children)


class Pruner:
    """Pessimistic-error pruning with optional subtree raising, bottom up."""

    def __init__(self, X, y, n_classes: int, confidence: float, subtree_raising: bool):
        self.X, self.y, self.n_classes = X, y, n_classes
        self.confidence = confidence
        self.subtree_raising = subtree_raising

    def branch_errors(self, node: C45Node, rows, weights) -> float:
        """Estimated errors if these rows were classified by the subtree ``node``."""
        if node.is_leaf:
            return estimated_errors(class_table(self.y, rows, weights, self.n_classes),
                                    self.confidence)
        total = 0.0
        for j, (take, w) in enumerate(distribute(self.X, self.y, node, rows, weights,
                                                 self.n_classes)):
            total += self.branch_errors(node.children[j], rows[take], w)
        return total

    def redistribute(self, node: C45Node, rows, weights) -> None:
        """Rebuild every table of the subtree from these rows (after subtree raising)."""
        node.rows, node.weights = rows, weights
        node.table = class_table(self.y, rows, weights, self.n_classes)
        if node.is_leaf:
            if node.table.sum() >= SMALL:
                node.empty = False
            return
        for j, (take, w) in enumerate(distribute(self.X, self.y, node, rows, weights,
                                                 self.n_classes)):
            self.redistribute(node.children[j], rows[take], w)

    def prune(self, node: C45Node) -> float:
        """Prune the subtree in place; returns its estimated errors (sum over its leaves)."""
        if node.is_leaf:
            return estimated_errors(node.table, self.confidence)
        tree = sum(self.prune(child) for child in node.children)
        branch_weights = [child.table.sum() for child in node.children]
        largest = max(range(len(branch_weights)), key=lambda j: (branch_weights[j], j))
        leaf = estimated_errors(node.table, self.confidence)
        branch = (self.branch_errors(node.children[largest], node.rows, node.weights)
                  if self.subtree_raising else math.inf)
        if leaf - (tree + 0.1) < SMALL and leaf - (branch + 0.1) < SMALL:
            node.make_leaf()
            return leaf
        if branch - (tree + 0.1) < SMALL:
            raised = node.children[largest]
            node.kind, node.feature = raised.kind, raised.feature
            node.threshold, node.children = raised.threshold, raised.children
            node.category_map = raised.category_map
            self.redistribute(node, node.rows, node.weights)
            return self.prune(node)
        return tree
