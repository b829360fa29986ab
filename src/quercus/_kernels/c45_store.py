"""The C4.5 grower's node store: one entry per node in typed lists, kept apart from the flat
``Tree`` until pruning is done (pruning raises subtrees and re-sends rows, which needs each
node's rows and weights).

A store is the tuple ``(kind, feature, threshold, category, first_child, n_branches,
children, empty, depth, tables, rows, weights)``: a node's branches are the node ids
``children[first_child : first_child + n_branches]``; ``category`` is the code that J48 -B
sends to branch 0 (-1 for a numeric or multiway split); ``rows`` indexes the grower's X,
``weights`` are the rows' (possibly fractional) weights and ``tables`` their class weights.
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.typed import List

from ._jit import njit
from .c45 import SMALL, split_rows
from .predict import CATEGORICAL, LEAF, NUMERIC

WEIGHTED = -1  # missing_branch of a node whose missing values go down every branch

# Item types of the store's and frontier's lists. The lists are made and read in numba only
# (``new_store``, ``new_frontier``, ``frontier_size``, ``node_arrays``): a typed list used
# from Python compiles numba's list helpers again in every process (seconds), while these
# cached kernels load in milliseconds.
_INT = types.int64
_FLOAT = types.float64
_BOOL = types.boolean
_FLOATS = types.float64[::1]
_INTS = types.int64[::1]
_COLUMNS = types.float64[:, :]
_CODES = types.int32[:, :]


@njit(cache=True)
def new_store():
    """An empty node store (see the module docstring)."""
    return (List.empty_list(_INT), List.empty_list(_INT), List.empty_list(_FLOAT),
            List.empty_list(_INT), List.empty_list(_INT), List.empty_list(_INT),
            List.empty_list(_INT), List.empty_list(_BOOL), List.empty_list(_INT),
            List.empty_list(_FLOATS), List.empty_list(_INTS), List.empty_list(_FLOATS))


@njit(cache=True)
def new_frontier():
    """An empty frontier: node ids and their sorted numeric columns (values, classes,
    weights, row ids; ``c45.SortedColumns``)."""
    return (List.empty_list(_INT), List.empty_list(_COLUMNS), List.empty_list(_CODES),
            List.empty_list(_COLUMNS), List.empty_list(_CODES))


@njit(cache=True)
def frontier_size(frontier):
    """Number of nodes waiting on the frontier."""
    return len(frontier[0])


@njit(cache=True)
def set_empty(nodes, node, value):
    """Mark node ``node`` an empty leaf (or not)."""
    nodes[7][node] = value


@njit(cache=True)
def store_scalars(nodes):
    """The store's per-node numbers as arrays: kind, feature, threshold, category,
    first_child, n_branches, empty; and the children list."""
    n = len(nodes[0])
    kind = np.empty(n, dtype=np.int64)
    feature = np.empty(n, dtype=np.int64)
    threshold = np.empty(n)
    category = np.empty(n, dtype=np.int64)
    first_child = np.empty(n, dtype=np.int64)
    n_branches = np.empty(n, dtype=np.int64)
    empty = np.empty(n, dtype=np.bool_)
    for i in range(n):
        kind[i], feature[i], threshold[i] = nodes[0][i], nodes[1][i], nodes[2][i]
        category[i], first_child[i], n_branches[i] = nodes[3][i], nodes[4][i], nodes[5][i]
        empty[i] = nodes[7][i]
    children = np.empty(len(nodes[6]), dtype=np.int64)
    for i in range(children.shape[0]):
        children[i] = nodes[6][i]
    return kind, feature, threshold, category, first_child, n_branches, empty, children


@njit(cache=True)
def node_arrays(nodes, node):
    """(rows, weights, class table) of node ``node``."""
    return nodes[10][node], nodes[11][node], nodes[9][node]


@njit(cache=True)
def class_table(y, rows, weights, n_classes):
    """Class weights of the rows, added in row order."""
    table = np.zeros(n_classes)
    for q in range(rows.shape[0]):
        table[y[rows[q]]] += weights[q]
    return table



@njit(cache=True)
def total(values):
    """Sum in order (as J48 adds)."""
    out = 0.0
    for v in values:
        out += v
    return out



@njit(cache=True)
def add_node(nodes, rows, weights, table, depth):
    """Append a leaf holding these rows to the node store; returns its id."""
    (kind, feature, threshold, category, first_child, n_branches, _children, empty,
     node_depth, tables, node_rows, node_weights) = nodes
    kind.append(LEAF)
    feature.append(-1)
    threshold.append(np.nan)
    category.append(-1)
    first_child.append(-1)
    n_branches.append(0)
    empty.append(total(table) < SMALL)
    node_depth.append(depth)
    tables.append(table)
    node_rows.append(rows)
    node_weights.append(weights)
    return len(kind) - 1



@njit(cache=True)
def category_map(n_values, category):
    """Branch per category code: J48 -B sends ``category`` to branch 0, the rest to 1; a
    multiway split (category -1) uses the code itself (empty map)."""
    if category < 0:
        return np.zeros(0, dtype=np.int64)
    cmap = np.ones(n_values, dtype=np.int64)
    cmap[category] = 0
    return cmap


@njit(cache=True)
def route(X, nodes, node, rows, weights, n_values):
    """``split_rows`` for split node ``node`` of the store."""
    kind, feature, threshold, category, n_branches = (nodes[0], nodes[1], nodes[2], nodes[3],
                                                       nodes[5])
    f = feature[node]
    cmap = np.zeros(0, dtype=np.int64)
    if kind[node] == CATEGORICAL:
        cmap = category_map(n_values[f], category[node])
    return split_rows(X, rows, weights, f, kind[node] == NUMERIC, threshold[node],
                      n_branches[node], cmap)


@njit(cache=True)
def make_leaf(nodes, node):
    kind, feature, threshold, category, first_child, n_branches = nodes[:6]
    kind[node], feature[node], threshold[node] = LEAF, -1, np.nan
    category[node], first_child[node], n_branches[node] = -1, -1, 0


@njit(cache=True)
def _entropy(table):
    n = total(table)
    out = 0.0
    if n > 0:
        for w in table:
            if w > 0:
                p = w / n
                out -= p * np.log2(p)
    return out


@njit(cache=True)
def flatten(nodes, root, n_classes, n_values):
    """The subtree of ``root`` as flat-tree arrays in pre-order (see ``tree.Tree``)."""
    (kind, feature, threshold, category, first_child, n_branches, children, empty, _,
     tables, rows, weights) = nodes
    order = np.empty(len(kind), dtype=np.int64)
    n = 0
    stack = [root]
    while len(stack) > 0:
        node = stack.pop()
        order[n] = node
        n += 1
        for j in range(n_branches[node] - 1, -1, -1):
            stack.append(children[first_child[node] + j])
    new_id = np.full(len(kind), -1, dtype=np.int64)
    n_children = 0
    n_categories = 0
    for i in range(n):
        new_id[order[i]] = i
        n_children += n_branches[order[i]]
        if kind[order[i]] == CATEGORICAL:
            n_categories += n_values[feature[order[i]]]
    out_kind = np.empty(n, dtype=np.int8)
    out_feature = np.empty(n, dtype=np.int32)
    out_threshold = np.empty(n)
    child_ptr = np.zeros(n + 1, dtype=np.int64)
    child_ids = np.empty(n_children, dtype=np.int32)
    missing_branch = np.zeros(n, dtype=np.int32)
    category_ptr = np.zeros(n + 1, dtype=np.int64)
    category_branch = np.empty(n_categories, dtype=np.int32)
    value = np.empty((n, n_classes))
    impurity = np.empty(n)
    n_samples = np.empty(n, dtype=np.int64)
    node_weight = np.empty(n)
    out_empty = np.empty(n, dtype=np.bool_)
    for i in range(n):
        node = order[i]
        table = tables[node]
        out_kind[i], out_feature[i], out_threshold[i] = kind[node], feature[node], threshold[node]
        for c in range(n_classes):  # a loop, not value[i] = table: see c45._scan_fractional
            value[i, c] = table[c]
        impurity[i] = _entropy(table)
        n_samples[i] = rows[node].shape[0]
        out_empty[i] = empty[node]
        # the weight as J48 totals it: the rows' weights one by one in row order (summing the
        # class weights can differ in the last bit and print rounded the other way)
        w = total(table)
        if w != np.floor(w) and weights[node].shape[0] > 0:
            w = total(weights[node])
        node_weight[i] = w
        k = n_branches[node]
        child_ptr[i + 1] = child_ptr[i] + k
        for j in range(k):
            child_ids[child_ptr[i] + j] = new_id[children[first_child[node] + j]]
        category_ptr[i + 1] = category_ptr[i]
        if kind[node] != LEAF:
            missing_branch[i] = WEIGHTED
        if kind[node] == CATEGORICAL:
            cmap = category_map(n_values[feature[node]], category[node])
            start = category_ptr[i]
            for code in range(n_values[feature[node]]):
                category_branch[start + code] = cmap[code] if cmap.shape[0] > 0 else code
            category_ptr[i + 1] = start + n_values[feature[node]]
    return (out_kind, out_feature, out_threshold, child_ptr, child_ids, missing_branch,
            category_ptr, category_branch, value, impurity, n_samples, node_weight, out_empty)


@njit(cache=True)
def detach(nodes, frontier, take, task_nodes, task_frontier):
    """Copy the frontier entries ``take`` (and their nodes) into an empty store and frontier
    of their own, so that another thread can grow them; returns each copied node's id in
    ``nodes`` (the task's node i is ``nodes``' node ``origin[i]``)."""
    origin = np.empty(take.shape[0], dtype=np.int64)
    empty, depth, tables, rows, weights = nodes[7], nodes[8], nodes[9], nodes[10], nodes[11]
    for t in range(take.shape[0]):
        i = take[t]
        node = frontier[0][i]
        origin[t] = node
        add_node(task_nodes, rows[node], weights[node], tables[node], depth[node])
        task_nodes[7][t] = empty[node]
        task_frontier[0].append(t)
        task_frontier[1].append(frontier[1][i])
        task_frontier[2].append(frontier[2][i])
        task_frontier[3].append(frontier[3][i])
        task_frontier[4].append(frontier[4][i])
    return origin


@njit(cache=True)
def attach(nodes, task_nodes, origin):
    """Bring a grown task store back: its first ``len(origin)`` nodes are ``nodes``' nodes
    ``origin``, the rest are appended (children renumbered)."""
    (kind, feature, threshold, category, first_child, n_branches, children, empty, _,
     _, _, _) = nodes
    (t_kind, t_feature, t_threshold, t_category, t_first_child, t_n_branches, t_children,
     t_empty, t_depth, t_tables, t_rows, t_weights) = task_nodes
    k = origin.shape[0]
    n_task = len(t_kind)
    new_id = np.empty(n_task, dtype=np.int64)
    base = len(kind)
    for local in range(n_task):
        new_id[local] = origin[local] if local < k else base + local - k
    for local in range(n_task):
        if local >= k:
            add_node(nodes, t_rows[local], t_weights[local], t_tables[local], t_depth[local])
        target = new_id[local]
        kind[target], feature[target] = t_kind[local], t_feature[local]
        threshold[target], category[target] = t_threshold[local], t_category[local]
        empty[target] = t_empty[local]
        n_branches[target] = t_n_branches[local]
        if t_n_branches[local] > 0:
            first_child[target] = len(children)
            for j in range(t_n_branches[local]):
                children.append(new_id[t_children[t_first_child[local] + j]])


@njit(cache=True)
def copy_store(nodes):
    """A copy of the store that pruning can change without touching ``nodes``: new lists
    holding the same row, weight and table arrays (pruning replaces those arrays, never
    writes into them), so trees pruned at several confidence factors share one grown tree."""
    out = new_store()
    for i in range(len(nodes[0])):
        out[0].append(nodes[0][i])
        out[1].append(nodes[1][i])
        out[2].append(nodes[2][i])
        out[3].append(nodes[3][i])
        out[4].append(nodes[4][i])
        out[5].append(nodes[5][i])
        out[7].append(nodes[7][i])
        out[8].append(nodes[8][i])
        out[9].append(nodes[9][i])
        out[10].append(nodes[10][i])
        out[11].append(nodes[11][i])
    for i in range(len(nodes[6])):
        out[6].append(nodes[6][i])
    return out
