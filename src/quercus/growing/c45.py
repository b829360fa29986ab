"""Growing C4.5 trees (release 8, as J48): multiway nominal splits, numeric thresholds,
fractional rows for missing values. Nodes are Python objects until pruning is done; then
``to_flat_tree`` lays them out as the flat arrays every algorithm shares."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._kernels.c45 import SMALL, SortedColumns, largest_value_at_most, split_rows
from ..splitting.c45 import AttributeInfo, choose, nominal_candidate, numeric_candidates
from ..splitting.c45_binary import binary_category_map, binary_nominal_candidate
from ..tree import CATEGORICAL, LEAF, NUMERIC, TreeRecorder

WEIGHTED = -1  # missing_branch of a node whose missing values go down every branch
NO_MAP = np.zeros(0, dtype=np.int64)  # split_rows: a multiway split's branch is the code


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
    # a binary categorical split (J48 -B): branch per category code; None for multiway
    category_map: np.ndarray | None = None

    @property
    def is_leaf(self) -> bool:
        return self.kind == LEAF

    def make_leaf(self) -> None:
        self.kind, self.feature, self.threshold, self.children = LEAF, -1, np.nan, []
        self.category_map = None

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


def route(X, node: C45Node, rows, weights):
    """``split_rows`` for a split node (see there)."""
    cmap = NO_MAP if node.category_map is None else node.category_map
    return split_rows(X, rows, weights, node.feature, node.kind == NUMERIC, node.threshold,
                      len(node.children), cmap)


def distribute(X, y, node: C45Node, rows, weights, n_classes):
    """Send rows to the children: known values to their branch, missing ones to every branch
    whose share of the known weight exceeds 1e-6, with the weight times that share.
    Returns one (positions into ``rows``, weights) pair per branch."""
    positions, w, ptr = route(X, node, rows, weights)[:3]
    return [(positions[ptr[j]:ptr[j + 1]], w[ptr[j]:ptr[j + 1]])
            for j in range(len(node.children))]


def move_threshold(distinct: np.ndarray, column: np.ndarray, threshold: float) -> float:
    """Spec step 20: the largest value of the full column that is <= threshold (within
    1e-6), scanning in file order and replacing only by a value larger by more than 1e-6.

    ``distinct`` holds the column's sorted distinct values; the file-order scan is needed
    only when values closer than 1e-6 crowd the answer, or to tell 0.0 from -0.0 (equal
    values that J48 -B prints differently).
    """
    end = int(np.searchsorted(distinct, threshold, side="right"))
    while end < distinct.size and distinct[end] - threshold < SMALL:
        end += 1
    if end == 0:
        return float(threshold)
    if (end >= 2 and distinct[end - 1] - distinct[end - 2] <= SMALL) or distinct[end - 1] == 0:
        return float(largest_value_at_most(column, threshold))
    return float(distinct[end - 1])


def grow_c45(X, y, weights, X_full, info: AttributeInfo, *, max_depth=None,
             binary_categorical=False) -> C45Node:
    """Grow the unpruned tree (spec steps 7-23) depth first, children in branch order.

    ``binary_categorical``: categorical features split ``value`` against the rest (J48 -B,
    ``splitting.c45_binary``) instead of one branch per category.
    """
    n_classes = info.n_classes
    numeric_features = np.flatnonzero(~info.categorical).astype(np.int64)
    nominal_features = np.flatnonzero(info.categorical)
    rows = np.arange(X.shape[0])
    root = C45Node(rows, weights.astype(np.float64), class_table(y, rows, weights, n_classes))
    columns = SortedColumns.sort(X, y, root.weights, numeric_features)
    distinct_values = {}
    for i, f in enumerate(numeric_features):
        if X_full is X:  # no row was dropped: reuse the sorted root column
            values = columns.values[i][~np.isnan(columns.values[i])]
            keep = np.ones(values.size, dtype=bool)
            keep[1:] = values[1:] != values[:-1]
            distinct_values[int(f)] = values[keep]
        else:
            distinct_values[int(f)] = np.unique(X_full[~np.isnan(X_full[:, f]), f])
    stack = [(root, columns, 0)]
    while stack:
        node, columns, depth = stack.pop()
        weight = node.table.sum()
        if (2 * info.min_leaf - weight > SMALL or abs(weight - node.table.max()) < SMALL
                or (max_depth is not None and depth >= max_depth)):
            continue
        candidates = numeric_candidates(columns, numeric_features, node.weights, info, weight)
        nominal = binary_nominal_candidate if binary_categorical else nominal_candidate
        for f in nominal_features:
            c = nominal(X, y, node.rows, node.weights, int(f), info, weight)
            if c is not None:
                candidates[int(f)] = c
        winner = choose([candidates[f] for f in sorted(candidates)])
        if winner is None:
            continue
        node.feature = winner.feature
        if winner.numeric:
            node.kind = NUMERIC
            node.threshold = move_threshold(distinct_values[winner.feature],
                                            X_full[:, winner.feature], winner.threshold)
            n_branches = 2
        elif binary_categorical:
            node.kind = CATEGORICAL
            node.category_map = binary_category_map(info.n_values[winner.feature],
                                                    winner.category)
            n_branches = 2
        else:
            node.kind = CATEGORICAL
            n_branches = int(info.n_values[winner.feature])
        node.children = [None] * n_branches
        routing = route(X, node, node.rows, node.weights)
        positions, child_weights, ptr = routing[:3]
        parts = [(positions[ptr[j]:ptr[j + 1]], child_weights[ptr[j]:ptr[j + 1]])
                 for j in range(n_branches)]
        if sum(w.sum() >= SMALL for _, w in parts) < 2:
            # a moved threshold can send every row one way (values closer than the
            # tolerances); such a split separates nothing, so the node stays a leaf
            node.make_leaf()
            continue
        child_columns = columns.split(routing)
        new_children = []
        for j, (take, w) in enumerate(parts):
            child_rows = node.rows[take]
            child = C45Node(child_rows, w, class_table(y, child_rows, w, n_classes))
            child.empty = bool(child.table.sum() < SMALL)
            node.children[j] = child
            if not child.empty:
                new_children.append((child, child_columns[j], depth + 1))
        stack.extend(reversed(new_children))
    return root


def node_weight(node: C45Node) -> float:
    """The node's weight as J48 totals it: the rows' weights added one by one in row order
    (J48 prints a branch's weight and errors rounded from this total; summing the class
    weights instead can differ in the last bit and round the other way). A whole total
    is taken as it is: then no fractional row weights were involved, in practice."""
    total = float(node.table.sum())
    if total.is_integer() or node.weights.size == 0:
        return total
    return float(np.cumsum(node.weights)[-1])


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
                           n_samples=node.rows.size, weight=node_weight(node), empty=node.empty)
        if parent >= 0:
            recorder.nodes[parent]["children"][branch] = new
        if node.is_leaf:
            continue
        k = len(node.children)
        cmap = None
        if node.kind == CATEGORICAL:
            cmap = np.arange(k) if node.category_map is None else node.category_map
        recorder.make_split(new, kind=node.kind, feature=node.feature, children=[-1] * k,
                            missing_branch=WEIGHTED, threshold=node.threshold,
                            category_map=cmap)
        for j in reversed(range(k)):
            stack.append((node.children[j], new, j))
    return recorder.to_tree()
