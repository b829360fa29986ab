"""C4.5 growth (release 8, as Weka's J48), one node after another inside numba.

The grower keeps its nodes in a ``C45Nodes`` store of typed lists (one entry per node) and
its depth-first frontier in a ``C45Frontier``; ``grow_nodes`` expands up to ``budget``
nodes and returns, so the caller can report progress and call again. The split choice is
that of docs/c45.md (spec steps 7-23): the MDL-corrected numeric scan of ``c45.scan_one``,
multiway or binary (J48 -B) nominal splits, the best gain ratio among the candidates with
at least average gain, the threshold moved onto a training value, and rows with a missing
value sent down every branch with a fractional weight.
"""

from __future__ import annotations

import numpy as np

from ._jit import njit
from .c45 import (
    PARALLEL_MIN_WORK,
    SMALL,
    largest_value_at_most,
    scan_one,
    scan_parallel,
    split_one,
    split_parallel,
    split_rows,
    xlog2x,
)
from .c45_store import add_node, category_map, class_table, total
from .predict import CATEGORICAL, NUMERIC


@njit(cache=True)
def gain_and_ratio(table, node_weight):
    """Information gain and gain ratio of a (bags x classes) table of known rows; the
    missing weight is ``node_weight`` minus the table's total (spec steps 13-15)."""
    n_bags, n_classes = table.shape
    bags = np.zeros(n_bags)
    for b in range(n_bags):
        bags[b] = total(table[b])
    known = total(bags)
    if known <= SMALL:
        return 0.0, 0.0
    old = xlog2x(known)
    for c in range(n_classes):
        column = 0.0
        for b in range(n_bags):
            column += table[b, c]
        old -= xlog2x(column)
    new = 0.0
    for b in range(n_bags):
        bag = xlog2x(bags[b])
        for c in range(n_classes):
            bag -= xlog2x(table[b, c])
        new += bag
    numerator = (1.0 - (node_weight - known) / node_weight) * (old - new)
    gain = 0.0 if abs(numerator) < SMALL else numerator / known
    split_info = xlog2x(node_weight)
    for b in range(n_bags):
        split_info -= xlog2x(bags[b])
    split_info -= xlog2x(node_weight - known)
    ratio = 0.0 if abs(split_info) < SMALL else gain / (split_info / node_weight)
    return gain, ratio


@njit(cache=True)
def nominal_class_table(X, y, rows, weights, feature, n_values, n_classes):
    """Class weights per category code of the rows whose value is known."""
    table = np.zeros((n_values, n_classes))
    for q in range(rows.shape[0]):
        v = X[rows[q], feature]
        if not np.isnan(v):
            table[int(v), y[rows[q]]] += weights[q]
    return table


@njit(cache=True)
def multiway_candidate(table, min_leaf, node_weight):
    """(valid, gain, ratio) of one branch per category."""
    n_big = 0
    for b in range(table.shape[0]):
        if min_leaf - total(table[b]) < SMALL:
            n_big += 1
    if n_big < 2:
        return False, 0.0, 0.0
    gain, ratio = gain_and_ratio(table, node_weight)
    return True, gain, ratio


@njit(cache=True)
def binary_candidate(table, min_leaf, node_weight):
    """(valid, gain, ratio, category) of the best ``feature = value`` split (J48 -B): a
    later value replaces the current one only if its ratio is larger by more than 1e-6."""
    n_values, n_classes = table.shape
    bags = np.zeros(n_values)
    for v in range(n_values):
        bags[v] = total(table[v])
    known = total(bags)
    pair = np.zeros((2, n_classes))
    found, best_gain, best_ratio, best_value = False, 0.0, 0.0, -1
    for v in range(n_values):
        if min_leaf - bags[v] >= SMALL or min_leaf - (known - bags[v]) >= SMALL:
            continue
        pair[:, :] = 0.0
        for c in range(n_classes):
            pair[0, c] = table[v, c]
        for other in range(n_values):
            if other != v:
                for c in range(n_classes):
                    pair[1, c] += table[other, c]
        gain, ratio = gain_and_ratio(pair, node_weight)
        if not found or ratio - best_ratio > SMALL:
            found, best_gain, best_ratio, best_value = True, gain, ratio, v
    return found, best_gain, best_ratio, best_value


@njit(cache=True)
def moved_threshold(distinct, column, threshold):
    """Spec step 20: the largest training value <= threshold (within 1e-6); ``distinct``
    holds the column's sorted distinct values, the file-order scan of ``column`` is needed
    only when values closer than 1e-6 crowd the answer or to tell 0.0 from -0.0."""
    end = np.searchsorted(distinct, threshold, side="right")
    while end < distinct.shape[0] and distinct[end] - threshold < SMALL:
        end += 1
    if end == 0:
        return threshold
    if (end >= 2 and distinct[end - 1] - distinct[end - 2] <= SMALL) or distinct[end - 1] == 0:
        return largest_value_at_most(column, threshold)
    return distinct[end - 1]


@njit(cache=True)
def all_whole(weights):
    for w in weights:
        if w != np.floor(w):  # floor, not round: the same test, and quicker to compile
            return False
    return True


@njit(cache=True)
def _numeric_candidates(values, classes, weights, n_classes, min_leaf, node_weight, whole,
                        valid, gain, split_info, threshold, parallel):
    work = values.shape[0] * values.shape[1]
    if parallel is not None and parallel and work >= PARALLEL_MIN_WORK:
        scan_parallel(values, classes, weights, n_classes, min_leaf, node_weight, whole, valid,
                      gain, split_info, threshold)
    else:
        for i in range(values.shape[0]):
            r = scan_one(values[i], classes[i], weights[i], n_classes, min_leaf, node_weight,
                         whole)
            valid[i], gain[i], split_info[i], threshold[i] = r


@njit(cache=True)
def _split_columns(values, classes, weights, row_ids, branch_of_row, known, share, ptr,
                   parallel):
    """The children's sorted columns, side by side in one buffer per array."""
    m = values.shape[0]
    size = ptr[-1]
    out_values = np.empty((m, size))
    out_classes = np.empty((m, size), dtype=classes.dtype)
    out_weights = np.empty((m, size))
    out_row_ids = np.empty((m, size), dtype=row_ids.dtype)
    if parallel is not None and parallel and m * values.shape[1] >= PARALLEL_MIN_WORK:
        split_parallel(values, classes, weights, row_ids, branch_of_row, known, share, ptr,
                       out_values, out_classes, out_weights, out_row_ids)
    else:
        for i in range(m):
            split_one(values[i], classes[i], weights[i], row_ids[i], branch_of_row, known,
                      share, ptr, out_values[i], out_classes[i], out_weights[i],
                      out_row_ids[i])
    return out_values, out_classes, out_weights, out_row_ids


@njit(cache=True, nogil=True)
def grow_nodes(X, y, X_full, distinct, distinct_ptr, numeric_features, numeric_index,
               nominal_features, n_values, n_classes, min_leaf, n_all_rows, multi_valued, xlogx_of_int,
               all_weights_whole, max_depth, binary_nominal, nodes, frontier, branch_of_row,
               budget, parallel):
    """Expand up to ``budget`` nodes of the frontier (depth first, children in branch order).

    Returns the weight that settled in leaves meanwhile. ``distinct[distinct_ptr[i]:
    distinct_ptr[i+1]]`` are numeric feature ``numeric_features[i]``'s sorted distinct values
    in ``X_full`` (the input with the rows of unknown class); ``numeric_index[f]`` is i
    for such a feature and -1 for a nominal one; ``max_depth < 0``: no limit.
    ``parallel``: scan and split big nodes on every thread; ``None`` (one thread for the
    whole fit) compiles a variant without the parallel kernels (numba prunes the branch on
    a ``None`` argument), so a small fit neither compiles nor loads them.
    """
    (kind, feature, threshold, category, first_child, n_branches, children, empty,
     node_depth, tables, node_rows, node_weights) = nodes
    stack, stack_values, stack_classes, stack_weights, stack_row_ids = frontier
    m = X.shape[1]
    n_numeric = numeric_features.shape[0]
    no_table = np.zeros(0)
    settled = 0.0
    done = 0
    while len(stack) > 0 and done < budget:
        done += 1
        node = stack.pop()
        values, classes = stack_values.pop(), stack_classes.pop()
        col_weights, row_ids = stack_weights.pop(), stack_row_ids.pop()
        table, rows, weights = tables[node], node_rows[node], node_weights[node]
        weight = total(table)
        if (2 * min_leaf - weight > SMALL or abs(weight - table.max()) < SMALL
                or (max_depth >= 0 and node_depth[node] >= max_depth)):
            settled += weight
            continue
        # every attribute's candidate, in feature order
        valid = np.zeros(m, dtype=np.bool_)
        gain = np.zeros(m)
        ratio = np.zeros(m)
        enters = np.ones(m, dtype=np.bool_)
        cut = np.zeros(m)
        chosen_value = np.full(m, -1, dtype=np.int64)
        if n_numeric > 0:
            whole = no_table
            if all_weights_whole or (xlogx_of_int.shape[0] > 0 and all_whole(weights)):
                whole = xlogx_of_int
            num_valid = np.zeros(n_numeric, dtype=np.bool_)
            num_gain = np.zeros(n_numeric)
            num_split_info = np.zeros(n_numeric)
            num_threshold = np.zeros(n_numeric)
            _numeric_candidates(values, classes, col_weights, n_classes, min_leaf, weight,
                                whole, num_valid, num_gain, num_split_info, num_threshold,
                                parallel)
            for i in range(n_numeric):
                if num_valid[i]:
                    f = numeric_features[i]
                    s = num_split_info[i]
                    valid[f], gain[f], cut[f] = True, num_gain[i], num_threshold[i]
                    ratio[f] = 0.0 if abs(s) < SMALL else num_gain[i] / (s / weight)
        for f in nominal_features:
            bag_table = nominal_class_table(X, y, rows, weights, f, n_values[f], n_classes)
            if binary_nominal:
                ok, g, r, v = binary_candidate(bag_table, min_leaf, weight)
                chosen_value[f] = v
            else:
                ok, g, r = multiway_candidate(bag_table, min_leaf, weight)
            if ok:
                valid[f], gain[f], ratio[f] = True, g, r
                enters[f] = multi_valued or n_values[f] < 0.3 * n_all_rows
        # spec steps 10-11: best gain ratio among candidates with at least average gain
        n_entering = 0
        gain_sum = 0.0
        for f in range(m):
            if valid[f] and enters[f]:
                gain_sum += gain[f]
                n_entering += 1
        winner = -1
        if n_entering > 0:
            average = gain_sum / n_entering
            best_ratio = 0.0
            for f in range(m):
                if valid[f] and gain[f] >= average - 1e-3 and ratio[f] - best_ratio > SMALL:
                    winner, best_ratio = f, ratio[f]
        if winner < 0:
            settled += weight
            continue
        i = numeric_index[winner]
        numeric = i >= 0
        if numeric:
            t = moved_threshold(distinct[distinct_ptr[i]:distinct_ptr[i + 1]],
                                X_full[:, winner], cut[winner])
            k = 2
            cmap = np.zeros(0, dtype=np.int64)
        else:
            t = np.nan
            cmap = category_map(n_values[winner], chosen_value[winner])
            k = 2 if binary_nominal else n_values[winner]
        positions_out, child_w, ptr, route, known, share = split_rows(
            X, rows, weights, np.int64(winner), numeric, t, k, cmap)
        n_real = 0
        for j in range(k):
            if total(child_w[ptr[j]:ptr[j + 1]]) >= SMALL:
                n_real += 1
        if n_real < 2:
            # a moved threshold can send every row one way (values closer than the
            # tolerances); such a split separates nothing, so the node stays a leaf
            settled += weight
            continue
        kind[node] = NUMERIC if numeric else CATEGORICAL
        feature[node] = winner
        threshold[node] = t
        category[node] = chosen_value[winner] if binary_nominal and not numeric else -1
        first_child[node] = len(children)
        n_branches[node] = k
        for p in range(rows.shape[0]):
            branch_of_row[rows[p]] = route[p, 0]
        split = _split_columns(values, classes, col_weights, row_ids, branch_of_row, known,
                               share, ptr, parallel)
        ids = np.empty(k, dtype=np.int64)
        for j in range(k):
            take = positions_out[ptr[j]:ptr[j + 1]]
            child_rows = rows[take]
            w = child_w[ptr[j]:ptr[j + 1]].copy()
            ids[j] = add_node(nodes, child_rows, w, class_table(y, child_rows, w, n_classes),
                              node_depth[node] + 1)
            children.append(ids[j])
        for j in range(k - 1, -1, -1):
            if not empty[ids[j]]:
                stack.append(ids[j])
                stack_values.append(split[0][:, ptr[j]:ptr[j + 1]])
                stack_classes.append(split[1][:, ptr[j]:ptr[j + 1]])
                stack_weights.append(split[2][:, ptr[j]:ptr[j + 1]])
                stack_row_ids.append(split[3][:, ptr[j]:ptr[j + 1]])
    return settled


@njit(cache=True)
def push(frontier, node, values, classes, weights, row_ids):
    """Put a node and its sorted numeric columns on the frontier."""
    stack, stack_values, stack_classes, stack_weights, stack_row_ids = frontier
    stack.append(node)
    stack_values.append(values[:, :])
    stack_classes.append(classes[:, :])
    stack_weights.append(weights[:, :])
    stack_row_ids.append(row_ids[:, :])


@njit(cache=True)
def largest_entry(frontier):
    """(index, rows) of the frontier entry with the most column entries."""
    stack_values = frontier[1]
    best, best_size = -1, -1
    for i in range(len(stack_values)):
        size = stack_values[i].shape[1]
        if size > best_size:
            best, best_size = i, size
    return best, best_size


@njit(cache=True)
def move_to_top(frontier, i):
    """Swap entry ``i`` of every frontier list with the last one (expanded next)."""
    ids, values, classes, weights, row_ids = frontier
    last = len(ids) - 1
    ids[i], ids[last] = ids[last], ids[i]
    values[i], values[last] = values[last], values[i]
    classes[i], classes[last] = classes[last], classes[i]
    weights[i], weights[last] = weights[last], weights[i]
    row_ids[i], row_ids[last] = row_ids[last], row_ids[i]


@njit(cache=True)
def entry_sizes(frontier):
    stack_values = frontier[1]
    out = np.empty(len(stack_values), dtype=np.int64)
    for i in range(len(stack_values)):
        out[i] = stack_values[i].shape[1]
    return out


@njit(cache=True)
def grow_largest_first(X, y, X_full, distinct, distinct_ptr, numeric_features, numeric_index,
                       nominal_features, n_values, n_classes, min_leaf, n_all_rows,
                       multi_valued, xlogx_of_int, all_weights_whole, max_depth,
                       binary_nominal, nodes, frontier, branch_of_row, min_work):
    """Expand the frontier's largest node, scanned and split on every thread, while one
    holds at least ``min_work`` column entries; returns the weight settled in leaves."""
    settled = 0.0
    while len(frontier[0]) > 0:
        i, size = largest_entry(frontier)
        if size * max(numeric_features.shape[0], 1) < min_work:
            break
        move_to_top(frontier, i)
        settled += grow_nodes(X, y, X_full, distinct, distinct_ptr, numeric_features,
                              numeric_index, nominal_features, n_values, n_classes, min_leaf,
                              n_all_rows, multi_valued, xlogx_of_int, all_weights_whole,
                              max_depth, binary_nominal, nodes, frontier, branch_of_row,
                              np.int64(1), np.bool_(True))
    return settled
