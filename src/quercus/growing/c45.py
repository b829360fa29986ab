"""Growing C4.5 trees (release 8, as J48): multiway nominal splits, numeric thresholds,
fractional rows for missing values.

The growing loop is compiled (``_kernels/_c45.pyx``) and works on a node store of its own;
pessimistic pruning works on that store too, and ``store_to_tree`` lays the result out as
the flat arrays every algorithm shares. ``C45Node`` objects remain for ID3 and J48's
reduced-error pruning (``store_to_nodes``), which are Python."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from .._kernels._c45 import (
    PARALLEL_MIN_WORK,
    SortedColumns,
    add_node,
    attach,
    detach,
    entry_sizes,
    flatten,
    frontier_size,
    grow_largest_first,
    grow_nodes,
    new_frontier,
    new_store,
    node_arrays,
    push,
    set_empty,
    split_rows,
    store_scalars,
)
from .._kernels._openmp import max_threads
from ..splitting.c45 import AttributeInfo
from ..splitting.c45_binary import binary_category_map
from ..tree import CATEGORICAL, LEAF, NUMERIC, Tree, TreeRecorder

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


def _distinct_values(X, X_full, columns, numeric_features):
    """Sorted distinct known values of every numeric feature of X_full, concatenated."""
    parts = []
    for i, f in enumerate(numeric_features):
        if X_full is X:  # no row was dropped: reuse the sorted root column
            values = columns.values[i][~np.isnan(columns.values[i])]
            keep = np.ones(values.size, dtype=bool)
            keep[1:] = values[1:] != values[:-1]
            parts.append(values[keep])
        else:
            parts.append(np.unique(X_full[~np.isnan(X_full[:, f]), f]))
    ptr = np.zeros(len(parts) + 1, dtype=np.int64)
    ptr[1:] = np.cumsum([p.size for p in parts])
    return (np.concatenate(parts) if parts else np.zeros(0)), ptr


GROW_BUDGET = 256  # nodes expanded between progress reports


class _Progress:
    """Adds up the weight settled in leaves and reports its share (thread safe)."""

    def __init__(self, callback, total_weight: float):
        self.callback, self.total, self.settled = callback, total_weight, 0.0
        self.lock = threading.Lock()

    def add(self, settled: float) -> None:
        if self.callback is None:
            return
        with self.lock:
            self.settled += settled
            share = min(self.settled / self.total, 1.0) if self.total > 0 else 1.0
            self.callback(share)


def _balanced_groups(sizes: np.ndarray, n_groups: int) -> list[np.ndarray]:
    """Frontier entries in ``n_groups`` groups of similar total size (largest first, each
    to the lightest group)."""
    loads = [0] * n_groups
    groups: list[list[int]] = [[] for _ in range(n_groups)]
    for i in np.argsort(-sizes, kind="stable"):
        g = loads.index(min(loads))
        groups[g].append(int(i))
        loads[g] += int(sizes[i])
    return [np.array(g, dtype=np.int64) for g in groups if g]


def grow_c45(X, y, weights, X_full, info: AttributeInfo, *, max_depth=None,
             binary_categorical=False, progress=None):
    """Grow the unpruned tree (spec steps 7-23); returns the node store, whose node 0 is
    the root.

    Nodes big enough are expanded one at a time, each scanned and split on every thread;
    then the subtrees of the remaining frontier grow in parallel, one group per thread
    (a node's expansion depends only on its own rows, so the order changes nothing).
    ``binary_categorical``: categorical features split ``value`` against the rest (J48 -B)
    instead of one branch per category. ``progress``, if given, is called with the share of
    the training weight that has settled in leaves.
    """
    y = np.ascontiguousarray(y, dtype=np.int32)
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    numeric_features = np.flatnonzero(~info.categorical).astype(np.int64)
    nominal_features = np.flatnonzero(info.categorical).astype(np.int64)
    numeric_index = np.full(X.shape[1], -1, dtype=np.int64)
    numeric_index[numeric_features] = np.arange(numeric_features.size)
    n_values = np.asarray(info.n_values, dtype=np.int64)
    rows = np.arange(X.shape[0], dtype=np.int64)
    columns = SortedColumns.sort(X, y, weights, numeric_features)
    distinct, distinct_ptr = _distinct_values(X, X_full, columns, numeric_features)
    nodes, frontier = new_store(), new_frontier()
    root_table = class_table(y, rows, weights, info.n_classes)
    add_node(nodes, rows, weights.copy(), root_table, 0)
    set_empty(nodes, 0, False)  # the root is never an empty leaf
    push(frontier, 0, columns.values, columns.classes, columns.weights, columns.positions)
    reporter = _Progress(progress, float(root_table.sum()))
    budget = GROW_BUDGET if progress is not None else np.iinfo(np.int64).max
    widest = max(2, int(n_values.max(initial=0)))
    scratch_type = np.int8 if widest < 127 else np.int64

    def arguments(store, front):
        return (X, y, X_full, distinct, distinct_ptr, numeric_features, numeric_index,
                nominal_features, n_values, info.n_classes, float(info.min_leaf),
                info.n_all_rows, info.multi_valued, info.xlogx_of_int, info.all_weights_whole,
                -1 if max_depth is None else int(max_depth), binary_categorical, store, front,
                np.empty(X.shape[0], dtype=scratch_type))

    def expand(store, front, n_nodes, parallel):
        """Expand up to n_nodes frontier nodes; returns False once the frontier is empty."""
        reporter.add(grow_nodes(*arguments(store, front), n_nodes, parallel))
        return frontier_size(front) > 0

    # below PARALLEL_MIN_WORK the root is grown on one thread as in the parallel path (which
    # would expand nothing first and grow the root as a single task), without loading or
    # compiling the parallel path's kernels
    n_threads = 1
    if columns.values.shape[1] * max(numeric_features.size, 1) >= PARALLEL_MIN_WORK:
        n_threads = max_threads()
    if n_threads > 1:
        reporter.add(grow_largest_first(*arguments(nodes, frontier), PARALLEL_MIN_WORK))
    if n_threads == 1:
        while expand(nodes, frontier, budget, None):
            pass
    elif frontier_size(frontier):
        tasks = []
        for take in _balanced_groups(entry_sizes(frontier), n_threads):
            task_nodes, task_frontier = new_store(), new_frontier()
            origin = detach(nodes, frontier, take, task_nodes, task_frontier)
            tasks.append((task_nodes, task_frontier, origin))
        frontier = None

        def run(task):
            while expand(task[0], task[1], budget, False):
                pass

        with ThreadPoolExecutor(max_workers=len(tasks)) as pool:
            list(pool.map(run, tasks))
        for task_nodes, _, origin in tasks:
            attach(nodes, task_nodes, origin)
    return nodes


def store_to_nodes(nodes, n_values) -> C45Node:
    """The store as C45Node objects (for the Python pruners), root first."""
    kind, feature, threshold, category, first_child, n_branches, empty, children = \
        store_scalars(nodes)
    objects = []
    for i in range(kind.size):
        rows, weights, table = node_arrays(nodes, i)
        objects.append(C45Node(rows, weights, table, kind=int(kind[i]), feature=int(feature[i]),
                               threshold=float(threshold[i]), empty=bool(empty[i])))
    for i, node in enumerate(objects):
        k = int(n_branches[i])
        node.children = [objects[children[first_child[i] + j]] for j in range(k)]
        if category[i] >= 0:
            node.category_map = binary_category_map(n_values[node.feature], category[i])
    return objects[0]


def store_to_tree(nodes, n_classes: int, n_values) -> Tree:
    """The store's tree (from node 0) as a flat Tree."""
    arrays = flatten(nodes, 0, n_classes, np.asarray(n_values, dtype=np.int64))
    names = ("kind", "feature", "threshold", "child_ptr", "child_ids", "missing_branch",
             "category_ptr", "category_branch", "value", "impurity", "n_node_samples",
             "weighted_n_node_samples", "empty")
    return Tree(**dict(zip(names, arrays)))


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
