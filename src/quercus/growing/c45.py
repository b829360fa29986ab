"""Growing C4.5 trees (release 8, as J48): multiway nominal splits, numeric thresholds,
fractional rows for missing values. Nodes are Python objects until pruning is done; then
``to_flat_tree`` lays them out as the flat arrays every algorithm shares."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._kernels.c45 import SMALL, filter_sorted, largest_value_at_most
from ..splitting.c45 import AttributeInfo, choose, nominal_candidate, numeric_candidates
from ..tree import CATEGORICAL, LEAF, NUMERIC, TreeRecorder

WEIGHTED = -1  # missing_branch of a node whose missing values go down every branch


@dataclass
class C45Node:
    """A node with the training rows (and their possibly fractional weights) it received."""

    rows: np.ndarray
    weights: np.ndarray
    table: np.ndarray  # class weights of the rows
    kind: int = LEAF
    feature: int = -1
    threshold: float = np.nan
    children: list = field(default_factory=list)
    empty: bool = False

    @property
    def is_leaf(self) -> bool:
        return self.kind == LEAF

    def make_leaf(self) -> None:
        self.kind, self.feature, self.threshold, self.children = LEAF, -1, np.nan, []

    def leaves(self):
        stack = [self]
        while stack:
            node = stack.pop()
            if node.is_leaf:
                yield node
            else:
                stack.extend(node.children)


def class_table(y, rows, weights, n_classes) -> np.ndarray:
    return np.bincount(y[rows], weights=weights, minlength=n_classes).astype(np.float64)


def route(X, node: C45Node, rows: np.ndarray) -> np.ndarray:
    """Branch of each row at a split node; -1 where the value is missing."""
    values = X[rows, node.feature]
    missing = np.isnan(values)
    if node.kind == NUMERIC:
        branch = np.where(values - node.threshold < SMALL, 0, 1)
    else:
        branch = np.where(missing, 0, np.nan_to_num(values)).astype(np.int64)
    return np.where(missing, -1, branch)


def distribute(X, y, node: C45Node, rows, weights, n_classes):
    """Send rows to the children: known values to their branch, missing ones to every branch
    whose share of the known weight exceeds 1e-6, with the weight times that share."""
    branch = route(X, node, rows)
    n_branches = len(node.children)
    known = branch >= 0
    bag_weights = np.bincount(branch[known], weights=weights[known], minlength=n_branches)
    total_known = bag_weights.sum()
    shares = bag_weights / total_known if total_known > 0 else np.zeros(n_branches)
    missing = np.flatnonzero(~known)
    parts = []
    for j in range(n_branches):
        take = np.flatnonzero(branch == j)
        w = weights[take]
        if shares[j] > SMALL and missing.size:
            take = np.concatenate([take, missing])
            w = np.concatenate([w, weights[missing] * shares[j]])
        parts.append((take, w))
    return parts


def grow_c45(X, y, weights, X_full, info: AttributeInfo, *, max_depth=None) -> C45Node:
    """Grow the unpruned tree (spec steps 7-23) depth first, children in branch order."""
    n_classes = info.n_classes
    numeric_features = np.flatnonzero(~info.categorical).astype(np.int64)
    nominal_features = np.flatnonzero(info.categorical)
    rows = np.arange(X.shape[0])
    root = C45Node(rows, weights.astype(np.float64), class_table(y, rows, weights, n_classes))
    sorted_pos = np.ascontiguousarray(
        np.argsort(X[:, numeric_features], axis=0, kind="stable").T.astype(np.int32))
    stack = [(root, sorted_pos, 0)]
    while stack:
        node, sorted_pos, depth = stack.pop()
        weight = node.table.sum()
        if (2 * info.min_leaf - weight > SMALL or abs(weight - node.table.max()) < SMALL
                or (max_depth is not None and depth >= max_depth)):
            continue
        candidates = numeric_candidates(X, y, node.rows, node.weights, sorted_pos,
                                        numeric_features, info, weight)
        for f in nominal_features:
            c = nominal_candidate(X, y, node.rows, node.weights, int(f), info, weight)
            if c is not None:
                candidates[int(f)] = c
        winner = choose([candidates[f] for f in sorted(candidates)])
        if winner is None:
            continue
        node.feature = winner.feature
        if winner.numeric:
            node.kind = NUMERIC
            node.threshold = float(largest_value_at_most(X_full[:, winner.feature],
                                                         winner.threshold))
            n_branches = 2
        else:
            node.kind = CATEGORICAL
            n_branches = int(info.n_values[winner.feature])
        node.children = [None] * n_branches
        parts = distribute(X, y, node, node.rows, node.weights, n_classes)
        if sum(w.sum() >= SMALL for _, w in parts) < 2:
            # a moved threshold can send every row one way (values closer than the
            # tolerances); such a split separates nothing, so the node stays a leaf
            node.make_leaf()
            continue
        new_children = []
        for j, (take, w) in enumerate(parts):
            child_rows = node.rows[take]
            child = C45Node(child_rows, w, class_table(y, child_rows, w, n_classes))
            if child.table.sum() < SMALL:
                child.empty = True
            node.children[j] = child
            if child.empty:
                continue
            new_position = np.full(node.rows.size, -1, dtype=np.int64)
            new_position[take] = np.arange(take.size)
            child_sorted = np.empty((sorted_pos.shape[0], take.size), dtype=np.int32)
            filter_sorted(sorted_pos, new_position, take.size, child_sorted)
            new_children.append((child, child_sorted, depth + 1))
        stack.extend(reversed(new_children))
    return root


def _entropy(table: np.ndarray) -> float:
    total = table.sum()
    if total <= 0:
        return 0.0
    p = table[table > 0] / total
    return float(-(p * np.log2(p)).sum())


def to_flat_tree(root: C45Node, n_classes: int):
    """Lay out the node objects as a flat Tree in pre-order (impurity: entropy)."""
    recorder = TreeRecorder(n_classes)
    stack = [(root, -1, 0)]
    while stack:
        node, parent, branch = stack.pop()
        new = recorder.add(value=node.table, impurity=_entropy(node.table),
                           n_samples=node.rows.size, weight=node.table.sum(), empty=node.empty)
        if parent >= 0:
            recorder.nodes[parent]["children"][branch] = new
        if node.is_leaf:
            continue
        k = len(node.children)
        cmap = np.arange(k) if node.kind == CATEGORICAL else None
        recorder.make_split(new, kind=node.kind, feature=node.feature, children=[-1] * k,
                            missing_branch=WEIGHTED, threshold=node.threshold,
                            category_map=cmap)
        for j in reversed(range(k)):
            stack.append((node.children[j], new, j))
    return recorder.to_tree()
