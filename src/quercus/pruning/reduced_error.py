"""Reduced-error pruning for C4.5, as Weka's J48 does it with -R (docs/c45.md,
"Reduced-error pruning").

The rows with a known class are split into ``n_folds`` stratified folds; the tree grows on
all folds but the last and is pruned, bottom up, on the last one: a node becomes a leaf when
its own class makes no more errors on the pruning rows that reach it than its subtree does.
The fold split reproduces J48's (``holdout_split``), so the same rows are held out.
"""

from __future__ import annotations

import numpy as np

from .._kernels._c45 import SMALL
from ..data.java_random import JavaRandom, shuffle
from ..growing.c45 import C45Node, route


def group_by_class(y: np.ndarray) -> list[int]:
    """Positions 0..n-1 reordered so that each class's rows are contiguous, the classes in
    the order of their first row (J48's stratification order).

    The grouping is done in place, as a selection pass: after the group of position i's
    class has been gathered behind it, the scan goes on from the first position not yet
    gathered. Gathering swaps a matching row into the next free place, so the rows it
    passes over move back; within a class the order is therefore not the file order.
    """
    order = list(range(len(y)))
    n = len(order)
    i = 1
    while i < n:
        current = y[order[i - 1]]
        for j in range(i, n):
            if y[order[j]] == current:
                order[i], order[j] = order[j], order[i]
                i += 1
        i += 1
    return order


def holdout_split(y: np.ndarray, n_folds: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """J48's grow and prune rows for reduced-error pruning: (grow positions, prune positions)
    into ``y`` (class codes, all known).

    The class-grouped order (``group_by_class``) is dealt round robin into ``n_folds``
    folds: the k-th row goes to fold k mod n_folds. The last fold is the pruning set. The
    growing set is the other folds, fold by fold, shuffled with ``java.util.Random(seed)``
    (``java_random.shuffle``). Only the growing rows' order depends on the seed.
    """
    n = len(y)
    if n_folds < 2:
        raise ValueError(f"n_folds must be at least 2; got {n_folds!r}")
    if n_folds > n:
        raise ValueError(f"n_folds={n_folds} is more than the {n} rows with a known class")
    order = group_by_class(y)
    prune = order[n_folds - 1::n_folds]
    grow = [p for fold in range(n_folds - 1) for p in order[fold::n_folds]]
    shuffle(grow, JavaRandom(seed))
    return np.asarray(grow, dtype=np.int64), np.asarray(prune, dtype=np.int64)


def _majority(table: np.ndarray) -> int:
    """First class whose weight beats the running maximum by more than 1e-6 (0 if none)."""
    best, best_weight = 0, 0.0
    for c, w in enumerate(table.tolist()):
        if w - best_weight > SMALL:
            best, best_weight = c, w
    return best


class ReducedErrorPruner:
    """Prunes a grown tree (node objects) with held-out rows ``X``, ``y``, ``weights``."""

    def __init__(self, X, y, weights, n_classes: int):
        self.X, self.y, self.weights, self.n_classes = X, y, weights, n_classes

    def _send(self, node: C45Node, rows, weights):
        """The pruning rows that reach each child: a known value follows its branch; a
        missing one goes down every branch, weighted by the branch's share of the node's
        training weight (the shares of the grown tree, not of the pruning rows)."""
        positions, _, ptr, destination = route(self.X, node, rows, weights)[:4]
        branch = destination[:, 0]
        totals = np.array([child.table.sum() for child in node.children])
        shares = totals / totals.sum() if totals.sum() > 0 else np.zeros_like(totals)
        missing = branch < 0
        out = []
        for j in range(len(node.children)):
            take = positions[ptr[j]:ptr[j + 1]]
            keep = branch[take] >= 0
            known_part = take[keep]
            if np.any(missing):
                missing_rows = np.flatnonzero(missing)
                part = (np.concatenate([known_part, missing_rows]),
                        np.concatenate([weights[known_part], weights[missing_rows] * shares[j]]))
            else:
                part = (known_part, weights[known_part])
            out.append(part)
        return out

    def prune(self, root: C45Node) -> None:
        """Bottom up: a node becomes a leaf when the pruning rows that reach it are classified
        at least as well by its own majority class (of its training rows) as by its subtree."""
        rows = np.arange(self.X.shape[0])
        # pre-order pass: the pruning rows (positions, weights) that reach every node
        # and the class each node predicts: its majority class, or, if no training row
        # reached it (an empty leaf), its parent's class
        visits = []
        stack = [(root, rows, self.weights.astype(np.float64), _majority(root.table))]
        while stack:
            node, r, w, cls = stack.pop()
            visits.append((node, r, w, cls))
            if not node.is_leaf:
                for child, (take, cw) in zip(node.children, self._send(node, r, w)):
                    child_cls = _majority(child.table) if child.table.sum() >= SMALL else cls
                    stack.append((child, r[take], cw, child_cls))
        # children are visited after their parent, so reversed order is bottom up
        errors = {}
        for node, r, w, cls in reversed(visits):
            table = np.bincount(self.y[r], weights=w, minlength=self.n_classes)
            leaf_errors = float(w.sum() - table[cls])
            if node.is_leaf:
                errors[id(node)] = leaf_errors
                continue
            tree_errors = sum(errors[id(child)] for child in node.children)
            if leaf_errors - tree_errors < SMALL:
                node.make_leaf()
                errors[id(node)] = leaf_errors
            else:
                errors[id(node)] = tree_errors
