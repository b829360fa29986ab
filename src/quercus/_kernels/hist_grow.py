"""A histogram CART subtree grown whole in compiled code.

The Python builder (``growing/builders.py``) spends about 65 us of bookkeeping per node
around the histogram kernels; a tree of depth 12 on a million rows has thousands of nodes
below 100,000 rows each. ``grow_subtree`` grows such a segment depth first in one call,
with the same kernels and the same arithmetic as the Python builder over ``HistSplitter``
(numeric features, weights per class, no feature sampling or monotonic constraints), so
the nodes it returns are the ones the Python builder would record; ``grow_sum_subtree``
does the same over ``RegressionHistSplitter``'s exact sums. Nodes of fewer than
``SMALL_NODE`` rows are searched in compact histograms of the bins they hold.
docs/architecture.md ("Subtrees grown whole") has the rules and the measurements.
"""

from __future__ import annotations

import numpy as np

from ._jit import njit
from .exact_sums import _fill_ordered, partition_ordered, round_sums
from .histogram import _count_features, partition_by_bin, scan_histograms
from .histogram_regression import scan_sum_histograms
from .impurity import impurity_of
from .split_regression import squared_error

EPSILON = np.finfo(np.float64).eps
#: Below this many rows a node's histograms hold only the bins its rows are in (one slot
#: each, in bin order, the missing bin's slot last), built from its rows: the same cuts
#: and sums, without filling, subtracting and scanning every bin of every feature.
SMALL_NODE = 64


@njit(cache=True)
def _is_leaf(n, depth, weight, impurity, limits, min_weight_leaf):
    """The builder's stopping rules; ``limits``: max_depth, min_samples_split and
    min_samples_leaf."""
    return (depth >= limits[0] or n < limits[1] or n < 2 * limits[2]
            or weight < 2 * min_weight_leaf or impurity <= EPSILON)


@njit(cache=True)
def _weights_of(counts, factor, out):
    """Class weights of class counts (counts x factor) and their sum, in class order."""
    weight = 0.0
    for k in range(counts.shape[0]):
        out[k] = counts[k] * factor[k]
        weight += out[k]
    return weight


@njit(cache=True)
def _grown(buffer, size):
    """A copy of the flat ``buffer`` with room for at least ``size`` entries."""
    bigger = np.empty(max(size, 2 * buffer.shape[0]), dtype=buffer.dtype)
    _put(bigger, buffer)
    return bigger


@njit(cache=True)
def _flat(buffer, level, branch, size):
    """The histograms of the node at ``level`` below the segment's root and ``branch``, in
    the flat ``buffer`` of two slots of ``size`` entries per level."""
    at = (2 * level + branch) * size
    return buffer[at : at + size]


@njit(cache=True)
def _slot(buffer, level, branch, shape):
    """``_flat``'s slot in the histograms' shape."""
    size = 1
    for extent in shape:
        size *= extent
    return _flat(buffer, level, branch, size).reshape(shape)


@njit(cache=True)
def _put(out, values):
    """out[i] = values[i] (loops over 1-d arrays compile quicker than array expressions)."""
    for i in range(values.shape[0]):
        out[i] = values[i]


@njit(cache=True)
def _subtract(out, whole, part):
    for i in range(out.shape[0]):
        out[i] = whole[i] - part[i]


@njit(cache=True)
def _larger_child(buffer, level, branch, small, size):
    """The histograms of the larger child of the node at (``level``, ``branch``): the
    node's minus the smaller child's, into the children's other slot (``_flat``)."""
    _subtract(_flat(buffer, level + 1, 1 - small, size), _flat(buffer, level, branch, size),
              _flat(buffer, level + 1, small, size))


@njit(cache=True)
def _zero(out):
    for i in range(out.shape[0]):
        out[i] = 0


#: Entries the depth-first stack starts with: it holds up to one more per level below the
#: root and doubles when a tree needs more (a small start, so that every deep test grows it).
STACK_START = 4


@njit(cache=True)
def _row(buffer, i, width):
    """Entry i of a flat buffer of entries of ``width`` values."""
    return buffer[i * width : (i + 1) * width]


@njit(cache=True)
def _compact(node_bins, missing_bin, slot, present):
    """Number the known bins among ``node_bins`` in ascending order: ``slot[p]`` gets the
    compact index of row p's bin (its count of rows, n, for the missing bin),
    ``present[c]`` the bin of compact index c. Returns how many bins are present."""
    n = node_bins.shape[0]
    order = np.empty(n, dtype=np.int64)
    for i in range(n):  # insertion sort by bin: few rows (and quick to compile)
        b = node_bins[i]
        j = i
        while j > 0 and node_bins[order[j - 1]] > b:
            order[j] = order[j - 1]
            j -= 1
        order[j] = i
    m = 0
    previous = -1
    for i in range(n):
        p = order[i]
        b = np.int64(node_bins[p])
        if b == missing_bin:
            slot[p] = n
            continue
        if b != previous:
            present[m] = b
            m += 1
            previous = b
        slot[p] = m - 1
    return m


@njit(cache=True)
def _is_small(n, n_slots_bins):
    """Whether a node of n rows is searched in compact histograms (``SMALL_NODE``)."""
    return n < SMALL_NODE and n + 1 < n_slots_bins


@njit(cache=True)
def _actual_cut(compact, present, n_present, n_bins, cut, next_cut):
    """The bins of a cut found in compact histograms: (last bin on the left, next bin)."""
    if not compact:
        return cut, next_cut
    return present[cut], present[next_cut] if next_cut < n_present else n_bins


@njit(cache=True)
def _first_best(proxy):
    """The index of the largest proxy, the first among equals (``np.argmax``)."""
    best = 0
    for j in range(1, proxy.shape[0]):
        if proxy[j] > proxy[best]:
            best = j
    return best


@njit(cache=True)
def _record(node, parent, branch, impurity, n, weight, out_parent, out_branch, out_feature,
            out_impurity, out_n, out_weight):
    """Write a node's fields as a leaf (a split sets its feature later)."""
    out_parent[node], out_branch[node], out_feature[node] = parent, branch, -1
    out_impurity[node], out_n[node], out_weight[node] = impurity, n, weight


@njit(cache=True)
def _push_children(stack, top, lo, mid, hi, level, node):
    """Put a split's children on the flat stack (start, end, level, parent, branch per
    entry), the right one first so that the left is visited first; returns the new top."""
    for c in (1, 0):
        entry = _row(stack, top, 5)
        entry[0] = lo if c == 0 else mid
        entry[1] = mid if c == 0 else hi
        entry[2], entry[3], entry[4] = level + 1, node, c
        top += 1
    return top


@njit(cache=True)
def _popped(stack, top):
    """(start, end, level, parent, branch) of the stack's entry ``top``."""
    entry = _row(stack, top, 5)
    return entry[0], entry[1], entry[2], entry[3], entry[4]


@njit(cache=True)
def grow_subtree(binned_rows, binned, rows, buffer, y, factor, unit, root_hist, root_counts,
                 root_weights, start, end, depth, n_bins, missing_bin, limits, rules,
                 total_weight, criterion, out_parent, out_branch, out_feature, out_last_bin,
                 out_next_bin, out_missing_left, out_value, out_impurity, out_n, out_weight):
    """Grow the segment ``rows[start:end]`` (at ``depth``) into a subtree, depth first.

    ``root_hist``/``root_counts``: the segment's class-count histograms (features, bins,
    classes) and row counts; ``root_weights``: its class weights. Children's histograms
    come as in ``HistSplitter``: the smaller child's filled, the larger's the parent's
    minus it, each only for a child that may split. ``limits``: max_depth,
    min_samples_split, min_samples_leaf; ``rules``: min_weight_leaf and
    min_impurity_decrease; ``total_weight``: the training weight the impurity decreases
    are relative to. ``factor``: the class weights per row of each class (``unit``: all 1).

    Writes the nodes in the order the Python builder creates them (pre-order): parent
    (-1 for the segment's root), branch, split feature (-1: leaf), the cut's last bin on
    the left and next non-empty bin, missing_left, value (class weights), impurity, rows
    and weight. ``rows[start:end]`` is partitioned as the splits go. Returns the number of
    nodes.
    """
    n_features, n_slots_bins, n_classes = root_hist.shape
    min_samples_leaf = limits[2]
    min_weight_leaf, min_decrease = rules[0], rules[1]
    features = np.arange(n_features)
    monotonic = np.zeros(n_features, dtype=np.int8)
    proxy = np.empty(n_features)
    last_bin = np.empty(n_features, dtype=np.int64)
    missing_left = np.empty(n_features, dtype=np.bool_)
    next_bin = np.empty(n_features, dtype=np.int64)
    tally = np.empty((n_features, n_slots_bins, n_classes), dtype=np.int32)
    # compact histograms of small nodes (SMALL_NODE), and the class weights' histograms
    node_bins = np.empty(SMALL_NODE, dtype=binned.dtype)
    slot = np.empty(SMALL_NODE, dtype=np.int64)
    present = np.empty((n_features, SMALL_NODE + 1), dtype=np.int64)
    present_bins = np.empty_like(n_bins)
    compact_hist = np.empty(n_features * (SMALL_NODE + 1) * n_classes)
    compact_count = np.empty(n_features * (SMALL_NODE + 1), dtype=np.int64)
    weighted = np.empty(max(root_hist.size, compact_hist.size))  # (unit: unused)
    total = np.empty(n_classes)
    goes_left = np.zeros(n_slots_bins, dtype=np.bool_)
    child_counts = np.empty((2, n_classes))
    child_weights = np.empty((2, n_classes))
    child_weight = np.empty(2)
    child_impurity = np.empty(2)
    # the histograms of the nodes waiting or searched, by depth below the root and branch
    hist_shape = (n_features, n_slots_bins, n_classes)
    count_shape = (n_features, n_slots_bins)
    hists = np.empty(32 * root_hist.size)  # 16 levels of two slots, grown when needed
    counts = np.empty(32 * root_counts.size, dtype=np.int64)
    _put(hists, root_hist.ravel())
    _put(counts, root_counts.ravel())
    # the stack of nodes to visit: start, end, depth below the root, parent, branch
    stack = np.empty(5 * STACK_START, dtype=np.int64)
    stack_weights = np.empty(n_classes * STACK_START)
    root = _row(stack, 0, 5)  # the segment's root: start, end, level 0, no parent
    root[0], root[1], root[2], root[3], root[4] = start, end, 0, -1, 0
    _put(_row(stack_weights, 0, n_classes), root_weights)
    top = 1
    n_nodes = 0
    while top > 0:
        top -= 1
        lo, hi, level, parent, branch = _popped(stack, top)
        value = _row(stack_weights, top, n_classes)
        weight = 0.0
        for k in range(n_classes):
            weight += value[k]
        impurity = impurity_of(value, criterion)
        node = n_nodes
        n_nodes += 1
        _record(node, parent, branch, impurity, hi - lo, weight, out_parent, out_branch,
                out_feature, out_impurity, out_n, out_weight)
        _put(out_value[node], value)
        n = hi - lo
        if _is_leaf(n, depth + level, weight, impurity, limits, min_weight_leaf):
            continue
        compact = _is_small(n, n_slots_bins)
        if compact:
            slots, searched_bins, searched_missing = n + 1, present_bins, n
            hist = compact_hist[: n_features * slots * n_classes].reshape(
                n_features, slots, n_classes)
            count = compact_count[: n_features * slots].reshape(n_features, slots)
            _zero(compact_hist[: n_features * slots * n_classes])
            _zero(compact_count[: n_features * slots])
            for f in range(n_features):
                for i in range(n):
                    node_bins[i] = binned[f, rows[lo + i]]
                present_bins[f] = _compact(node_bins[:n], missing_bin, slot, present[f])
                for i in range(n):
                    hist[f, slot[i], y[rows[lo + i]]] += 1.0
                    count[f, slot[i]] += 1
        else:
            slots, searched_bins, searched_missing = n_slots_bins, n_bins, missing_bin
            hist = _slot(hists, level, branch, hist_shape)
            count = _slot(counts, level, branch, count_shape)
        searched = hist
        if not unit:
            searched = weighted[: hist.size].reshape(hist.shape)
            for f in range(n_features):
                for b in range(slots):
                    for k in range(n_classes):
                        searched[f, b, k] = hist[f, b, k] * factor[k]
        _zero(total)
        for b in range(slots):
            for k in range(n_classes):
                total[k] += searched[0, b, k]
        scan_histograms(searched, count, features, searched_bins, searched_missing, criterion,
                        min_samples_leaf, min_weight_leaf, total, n, monotonic, 0.0, 1.0,
                        proxy, last_bin, missing_left, next_bin)
        best = _first_best(proxy)
        if proxy[best] == -np.inf:
            continue
        f, to_left = best, missing_left[best]
        # the children's class counts, weights and impurities, from the split's histogram
        for k in range(n_classes):
            left = 0.0
            whole = 0.0
            for b in range(slots):
                whole += hist[f, b, k]
                if b <= last_bin[f] or (b == searched_missing and to_left):
                    left += hist[f, b, k]
            child_counts[0, k] = left
            child_counts[1, k] = whole - left
        cut, cut_next = _actual_cut(compact, present[f], present_bins[f], n_bins[f],
                                    last_bin[f], next_bin[f])
        for c in range(2):
            child_weight[c] = _weights_of(child_counts[c], factor, child_weights[c])
            child_impurity[c] = impurity_of(child_weights[c], criterion)
        improvement = (weight / total_weight) * (
            impurity - child_weight[1] / weight * child_impurity[1]
            - child_weight[0] / weight * child_impurity[0])
        if improvement + EPSILON < min_decrease:
            continue
        for b in range(n_slots_bins):
            goes_left[b] = b <= cut or (b == missing_bin and to_left)
        mid = lo + partition_by_bin(binned[f], rows, lo, hi, goes_left, buffer)
        out_feature[node], out_last_bin[node] = f, cut
        out_next_bin[node], out_missing_left[node] = cut_next, to_left
        # the full histograms of the children that may split and are not small
        sizes = (mid - lo, hi - mid)
        needed = (not _is_leaf(sizes[0], depth + level + 1, child_weight[0], child_impurity[0],
                               limits, min_weight_leaf)
                  and not _is_small(sizes[0], n_slots_bins),
                  not _is_leaf(sizes[1], depth + level + 1, child_weight[1], child_impurity[1],
                               limits, min_weight_leaf)
                  and not _is_small(sizes[1], n_slots_bins))
        if needed[0] or needed[1]:
            if 2 * (level + 2) * root_hist.size > hists.shape[0]:
                hists = _grown(hists, 2 * (level + 2) * root_hist.size)
                counts = _grown(counts, 2 * (level + 2) * root_counts.size)
                hist = _slot(hists, level, branch, hist_shape)
                count = _slot(counts, level, branch, count_shape)
            small = 0 if sizes[0] <= sizes[1] else 1
            small_lo, small_hi = (lo, mid) if small == 0 else (mid, hi)
            small_hist = _slot(hists, level + 1, small, hist_shape)
            small_count = _slot(counts, level + 1, small, count_shape)
            _count_features(binned_rows, rows[small_lo:small_hi], y, tally, small_hist,
                            small_count, 0, n_features)
            if needed[1 - small]:
                _larger_child(hists, level, branch, small, root_hist.size)
                _larger_child(counts, level, branch, small, root_counts.size)
        if 5 * (top + 2) > stack.shape[0]:
            stack = _grown(stack, 5 * (top + 2))
            stack_weights = _grown(stack_weights, n_classes * (top + 2))
        _put(_row(stack_weights, top, n_classes), child_weights[1])
        _put(_row(stack_weights, top + 1, n_classes), child_weights[0])
        top = _push_children(stack, top, lo, mid, hi, level, node)
    return n_nodes


@njit(cache=True)
def grow_sum_subtree(bins, words, limbs, copy, root_hist, root_totals, root_sums, start, end,
                     depth, layout, hist_layout, n_bins, missing_bin, limits, rules,
                     total_weight, out_parent, out_branch, out_feature, out_last_bin,
                     out_next_bin, out_missing_left, out_value, out_impurity, out_n,
                     out_weight):
    """``grow_subtree`` for the regression splitter's exact sums
    (``splitting/hist_regression.py``): the segment's rows lie in node order in copy
    ``copy`` of ``bins``/``words``/``limbs`` (pairs: each split writes its children into
    the other copy); ``root_hist``: its limb histograms (features, bins, W and S limbs,
    count), ``root_totals`` its limbs, ``root_sums`` its (W, S, Q). ``layout`` and
    ``hist_layout``: (offsets, sizes, scales) of the rows' and the histograms' limbs, as
    ``SumLayout._arrays``, with ``limits`` ending in the digit, the count column of each
    and whether weights are unit. Writes the same node fields (value: the mean target)."""
    n_features, n_slots_bins, hist_width = root_hist.shape
    width = root_totals.shape[0]  # of a row's limbs
    n_sums = hist_width - 1
    offsets, sizes, scales = layout
    hist_offsets, hist_sizes, hist_scales = hist_layout
    digit, count_column, hist_count, unit = limits[3], limits[4], limits[5], limits[6] != 0
    min_samples_leaf = limits[2]
    min_weight_leaf, min_decrease = rules[0], rules[1]
    features = np.arange(n_features)
    proxy = np.empty(n_features)
    last_bin = np.empty(n_features, dtype=np.int64)
    missing_left = np.empty(n_features, dtype=np.bool_)
    next_bin = np.empty(n_features, dtype=np.int64)
    # compact histograms of small nodes (SMALL_NODE), and the rounded sums of either kind
    node_bins = np.empty(SMALL_NODE, dtype=bins[0].dtype)
    slot = np.empty(SMALL_NODE, dtype=np.int64)
    present = np.empty((n_features, SMALL_NODE + 1), dtype=np.int64)
    present_bins = np.empty_like(n_bins)
    compact_hist = np.empty(n_features * (SMALL_NODE + 1) * hist_width, dtype=np.int64)
    cells = n_features * max(n_slots_bins, SMALL_NODE + 1)
    sums = np.empty((cells, 3))
    counts = np.empty(cells, dtype=np.int64)
    no_counts = np.zeros(0, dtype=np.int64)
    goes_left = np.zeros(n_slots_bins, dtype=np.bool_)
    children = np.empty((2, width), dtype=np.int64)
    child_sums = np.empty((2, 3))
    child_impurity = np.empty(2)
    hist_shape = (n_features, n_slots_bins, hist_width)
    hists = np.empty(32 * root_hist.size, dtype=np.int64)  # as in grow_subtree
    _put(hists, root_hist.ravel())
    stack = np.empty(5 * STACK_START, dtype=np.int64)
    stack_totals = np.empty(width * STACK_START, dtype=np.int64)
    stack_sums = np.empty(3 * STACK_START)
    root = _row(stack, 0, 5)  # the segment's root: start, end, level 0, no parent
    root[0], root[1], root[2], root[3], root[4] = start, end, 0, -1, 0
    _put(_row(stack_totals, 0, width), root_totals)
    _put(_row(stack_sums, 0, 3), root_sums)
    top = 1
    n_nodes = 0
    while top > 0:
        top -= 1
        lo, hi, level, parent, branch = _popped(stack, top)
        sums_of_node = _row(stack_sums, top, 3)
        w, s, q = sums_of_node[0], sums_of_node[1], sums_of_node[2]
        totals = _row(stack_totals, top, width)
        impurity = squared_error(w, s, q)
        node = n_nodes
        n_nodes += 1
        _record(node, parent, branch, impurity, hi - lo, w, out_parent, out_branch,
                out_feature, out_impurity, out_n, out_weight)
        out_value[node, 0] = s / w if w > 0 else 0.0
        n = hi - lo
        if _is_leaf(n, depth + level, w, impurity, limits, min_weight_leaf):
            continue
        k = (copy + level) % 2
        compact = _is_small(n, n_slots_bins)
        if compact:
            slots, searched_bins, searched_missing = n + 1, present_bins, n
            hist = compact_hist[: n_features * slots * hist_width].reshape(
                n_features, slots, hist_width)
            _zero(compact_hist[: n_features * slots * hist_width])
            node_order, node_limbs = bins[k], limbs[k]
            for f in range(n_features):
                for i in range(n):
                    node_bins[i] = node_order[lo + i, f]
                present_bins[f] = _compact(node_bins[:n], missing_bin, slot, present[f])
                for i in range(n):
                    for j in range(n_sums):
                        hist[f, slot[i], j] += node_limbs[lo + i, j]
                    hist[f, slot[i], n_sums] += 1
        else:
            slots, searched_bins, searched_missing = n_slots_bins, n_bins, missing_bin
            hist = _slot(hists, level, branch, hist_shape)
        used = n_features * slots
        round_sums(hist.reshape(used, hist_width), hist_offsets, hist_sizes, hist_scales,
                   digit, hist_count, unit, 2, sums[:used], counts[:used])
        searched = sums[:used].reshape(n_features, slots, 3)
        count = counts[:used].reshape(n_features, slots)
        w_total = 0.0
        s_total = 0.0
        for b in range(slots):
            w_total += searched[0, b, 0]
            s_total += searched[0, b, 1]
        scan_sum_histograms(searched, count, features, searched_bins, searched_missing,
                            min_samples_leaf, min_weight_leaf, w_total, s_total, n, proxy,
                            last_bin, missing_left, next_bin)
        best = _first_best(proxy)
        if proxy[best] == -np.inf:
            continue
        f, to_left = best, missing_left[best]
        n_left = 0
        for b in range(slots):
            if b <= last_bin[f] or (b == searched_missing and to_left):
                n_left += count[f, b]
        cut, cut_next = _actual_cut(compact, present[f], present_bins[f], n_bins[f],
                                    last_bin[f], next_bin[f])
        for b in range(n_slots_bins):
            goes_left[b] = b <= cut or (b == missing_bin and to_left)
        n_left = partition_ordered(bins[k], words[k], limbs[k], words[1 - k], limbs[1 - k],
                                   lo, hi, f, goes_left, n_left, children[0])
        mid = lo + n_left
        for i in range(width):
            children[1, i] = totals[i] - children[0, i]
        round_sums(children, offsets, sizes, scales, digit, count_column, unit, 3, child_sums,
                   no_counts)
        for c in range(2):
            child_impurity[c] = squared_error(child_sums[c, 0], child_sums[c, 1],
                                               child_sums[c, 2])
        improvement = (w / total_weight) * (
            impurity - child_sums[1, 0] / w * child_impurity[1]
            - child_sums[0, 0] / w * child_impurity[0])
        if improvement + EPSILON < min_decrease:
            continue
        out_feature[node], out_last_bin[node] = f, cut
        out_next_bin[node], out_missing_left[node] = cut_next, to_left
        sizes_ = (mid - lo, hi - mid)
        needed = (not _is_leaf(sizes_[0], depth + level + 1, child_sums[0, 0],
                               child_impurity[0], limits, min_weight_leaf)
                  and not _is_small(sizes_[0], n_slots_bins),
                  not _is_leaf(sizes_[1], depth + level + 1, child_sums[1, 0],
                               child_impurity[1], limits, min_weight_leaf)
                  and not _is_small(sizes_[1], n_slots_bins))
        if needed[0] or needed[1]:
            if 2 * (level + 2) * root_hist.size > hists.shape[0]:
                hists = _grown(hists, 2 * (level + 2) * root_hist.size)
                hist = _slot(hists, level, branch, hist_shape)
            small = 0 if sizes_[0] <= sizes_[1] else 1
            small_lo, small_hi = (lo, mid) if small == 0 else (mid, hi)
            small_hist = _slot(hists, level + 1, small, hist_shape)
            _fill_ordered(bins[1 - k], limbs[1 - k], small_lo, small_hi, n_sums, small_hist,
                          0, n_features)
            if needed[1 - small]:
                _larger_child(hists, level, branch, small, root_hist.size)
        if 5 * (top + 2) > stack.shape[0]:
            stack = _grown(stack, 5 * (top + 2))
            stack_totals = _grown(stack_totals, width * (top + 2))
            stack_sums = _grown(stack_sums, 3 * (top + 2))
        _put(_row(stack_totals, top, width), children[1])
        _put(_row(stack_totals, top + 1, width), children[0])
        _put(_row(stack_sums, top, 3), child_sums[1])
        _put(_row(stack_sums, top + 1, 3), child_sums[0])
        top = _push_children(stack, top, lo, mid, hi, level, node)
    return n_nodes
