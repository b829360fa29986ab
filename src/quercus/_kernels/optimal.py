"""Kernels of the optimal-tree search (docs/optimal.md): candidate tests and the exact
solver of subproblems of depth <= 2.

Rows carry one integer code per feature (``codes``, shape (n_rows, n_features), -1 for a
missing value): the rank of the value among the feature's distinct values (numeric
"exact"), its bin (numeric "bins") or its category. A node's class table holds, for every
feature and every code present at the node (plus one slot for missing values), the class
weights of its rows and, in the last column, their number of rows.

A test is one row of ``TEST_WIDTH`` int64: ``feature, type, param, missing_left, n_codes,
code...``. ``type`` ORDERED sends known codes ``<= param`` left; SUBSET sends the listed
codes left; KNOWN sends every known value left and the missing ones right. Missing values
go left when ``missing_left`` is 1. Codes in tests are the global codes of ``codes``.

Weights are int64 (unit or whole weights: exact integer arithmetic) or float64; every
kernel is compiled for the dtype it is given.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ._jit import njit

ORDERED, SUBSET, KNOWN = 0, 1, 2
MAX_SUBSET = 16  # most categories a SUBSET test lists
TEST_WIDTH = 5 + MAX_SUBSET
NO_FEATURE = -1
BOUND_FEATURES = 4  # features whose best single cut gives the first upper bounds
# a node whose interval blocks hold at least this many rows x cuts runs them on all threads
# (each block then takes tens of microseconds: smaller ones lose more to the threads'
# hand-offs than they gain, worse on a busy machine)
PARALLEL_WORK = 1 << 20
# an interval of more cuts than this bounds them feature by feature in steps
# (``_feature_steps``: a sort of the features, then O(1) a cut), fewer one by one
STEPPED_CUTS = 8


@njit(cache=True)
def leaf_error(vec, n_classes):
    """Weight of a leaf's rows outside its majority class."""
    total = vec[0]
    top = vec[0]
    for k in range(1, n_classes):
        total += vec[k]
        top = max(top, vec[k])
    return total - top


@njit(cache=True)
def goes_left(test, code):
    """Whether a row with this code (-1: missing) takes the test's left branch."""
    if code < 0:
        return test[3] == 1
    kind = test[1]
    if kind == ORDERED:
        return code <= test[2]
    if kind == KNOWN:
        return True
    for i in range(test[4]):
        if test[5 + i] == code:
            return True
    return False


@njit(cache=True)
def node_table(codes, y, w, rows, n_codes, n_classes):
    """The class table of a node over the codes present at it.

    Returns ``(table, offsets, glob)``: feature g owns slots ``offsets[g]`` to
    ``offsets[g + 1] - 1``, its present codes in increasing order, then its missing slot;
    ``glob[slot]`` is the global code of a slot (-1 for the missing slot).
    """
    n_features = codes.shape[1]
    n = rows.shape[0]
    offsets = np.zeros(n_features + 1, dtype=np.int64)
    largest = 1
    for g in range(n_features):
        largest = max(largest, n_codes[g])
    seen = np.full(largest, -1, dtype=np.int64)
    found = np.empty(n, dtype=np.int64)
    local = np.empty((n, n_features), dtype=np.int64)
    glob_parts = np.empty(n_features * (n + 1), dtype=np.int64)
    for g in range(n_features):
        m = 0
        low = largest
        high = -1
        for i in range(n):
            c = codes[rows[i], g]
            if c >= 0 and seen[c] < 0:
                seen[c] = 0
                found[m] = c
                m += 1
                low = min(low, c)
                high = max(high, c)
        if high - low < 4 * m:  # the present codes in increasing order: by their range
            present = found[:m]
            j = 0
            for c in range(low, high + 1):
                if seen[c] == 0:
                    present[j] = c
                    j += 1
        else:  # or sorted, when they are few in a wide range
            present = np.sort(found[:m])
        for j in range(m):
            seen[present[j]] = j
        base = offsets[g]
        for j in range(m):
            glob_parts[base + j] = present[j]
        glob_parts[base + m] = -1
        for i in range(n):
            c = codes[rows[i], g]
            local[i, g] = base + (seen[c] if c >= 0 else m)
        for j in range(m):
            seen[present[j]] = -1
        offsets[g + 1] = base + m + 1
    size = offsets[n_features]
    table = np.zeros((size, n_classes + 1), dtype=w.dtype)
    for i in range(n):
        r = rows[i]
        for g in range(n_features):
            s = local[i, g]
            table[s, y[r]] += w[r]
            table[s, n_classes] += 1
    return table, offsets, glob_parts[:size].copy(), local


@njit(cache=True)
def _write_test(out, g, kind, param, missing_left, glob, present, mask, n_present, single):
    out[:] = 0
    out[0] = g
    out[1] = kind
    out[2] = param
    out[3] = 1 if missing_left else 0
    if kind == SUBSET and single >= 0:
        out[4] = 1
        out[5] = glob[present[single]]
    elif kind == SUBSET:
        m = 0
        for i in range(n_present):
            if (mask >> i) & 1:
                out[5 + m] = glob[present[i]]
                m += 1
        out[4] = m


@njit(cache=True)
def _add_slot(dst, tab, slot):
    for k in range(dst.shape[0]):
        dst[k] += tab[slot, k]


@njit(cache=True)
def _difference(dst, a, b):
    for k in range(dst.shape[0]):
        dst[k] = a[k] - b[k]


@njit(cache=True)
def _add_vec(dst, a, sign):
    for k in range(dst.shape[0]):
        dst[k] += sign * a[k]


@njit(cache=True)
def scan_tests(tab, offsets, glob, categorical, n_classes, learn, max_subset, min_leaf,
               best, best_test, emit, emit_error):
    """Every candidate test of a node, from its class table.

    Returns ``(best, n_tests)``. Without ``emit`` (``emit.shape[0] == 0``): ``best`` is
    the lowest ``leaf(left) + leaf(right)`` below the given ``best`` (or that value), its
    test written to ``best_test[0]`` (``best_test[0, 0]`` is left alone when nothing beats
    ``best``). With ``emit``: writes up to ``emit.shape[0]`` valid tests to ``emit`` and
    their two-leaf errors to ``emit_error``; ``n_tests`` counts them all.
    Both sides of a valid test hold at least ``min_leaf`` rows.
    """
    K = n_classes
    n_features = offsets.shape[0] - 1
    total = np.zeros(K + 1, dtype=tab.dtype)
    for s in range(offsets[0], offsets[1]):
        _add_slot(total, tab, s)
    left = np.zeros(K + 1, dtype=tab.dtype)
    right = np.zeros(K + 1, dtype=tab.dtype)
    known = np.zeros(K + 1, dtype=tab.dtype)
    present = np.empty(tab.shape[0], dtype=np.int64)
    n_emit = 0
    capacity = emit.shape[0]
    for g in range(n_features):
        ms = offsets[g + 1] - 1
        miss = tab[ms]
        has_missing = miss[K] > 0
        n_present = 0
        for s in range(offsets[g], ms):
            if tab[s, K] > 0:
                present[n_present] = s
                n_present += 1
        if n_present == 0:
            continue
        _difference(known, total, miss)
        both = learn and has_missing
        subsets = categorical[g] and n_present <= max_subset
        step = 2 if learn else 1
        if subsets:
            n_masks = (1 << n_present) - 1
            n_candidates = (n_masks - 1) // step if learn else n_masks - 1
        else:
            n_candidates = n_present - 1 if not categorical[g] else n_present
        for j in range(n_candidates):
            mask = 0
            single = -1
            if subsets:
                mask = 1 + step * j if learn else 1 + j
                left[:] = 0
                for i in range(n_present):
                    if (mask >> i) & 1:
                        _add_slot(left, tab, present[i])
            elif categorical[g]:
                left[:] = 0
                _add_slot(left, tab, present[j])
                single = j
            else:
                if j == 0:
                    left[:] = 0
                _add_slot(left, tab, present[j])
            for variant in range(2 if both else 1):
                missing_left = variant == 1
                if missing_left:
                    _add_vec(left, miss, np.int64(1))
                _difference(right, total, left)
                if left[K] >= min_leaf and right[K] >= min_leaf:
                    e = leaf_error(left, K) + leaf_error(right, K)
                    if capacity > 0:
                        if n_emit < capacity:
                            kind = SUBSET if categorical[g] else ORDERED
                            param = glob[present[j]] if not categorical[g] else 0
                            _write_test(emit[n_emit], g, kind, param, missing_left, glob,
                                        present, mask, np.int64(n_present), single)
                            emit_error[n_emit] = e
                        n_emit += 1
                    elif e < best:
                        best = e
                        kind = SUBSET if categorical[g] else ORDERED
                        param = glob[present[j]] if not categorical[g] else 0
                        _write_test(best_test[0], g, kind, param, missing_left, glob,
                                    present, mask, np.int64(n_present), single)
                if missing_left:
                    _add_vec(left, miss, np.int64(-1))
        # known values left, missing right
        if both and known[K] >= min_leaf and miss[K] >= min_leaf:
            e = leaf_error(known, K) + leaf_error(miss, K)
            if capacity > 0:
                if n_emit < capacity:
                    _write_test(emit[n_emit], g, np.int64(KNOWN), np.int64(0), np.bool_(False),
                                glob, present, np.int64(0), np.int64(n_present), np.int64(-1))
                    emit_error[n_emit] = e
                n_emit += 1
            elif e < best:
                best = e
                _write_test(best_test[0], g, np.int64(KNOWN), np.int64(0), np.bool_(False), glob,
                            present, np.int64(0), np.int64(n_present), np.int64(-1))
    return best, n_emit


@njit(cache=True)
def _max_tests(tab, offsets, categorical, n_classes, learn, max_subset):
    """The number of candidate tests ``scan_tests`` looks at (valid or not): room for the
    tests it emits."""
    K = n_classes
    room = 0
    for g in range(offsets.shape[0] - 1):
        ms = offsets[g + 1] - 1
        n_present = 0
        for s in range(offsets[g], ms):
            if tab[s, K] > 0:
                n_present += 1
        if n_present == 0:
            continue
        both = learn and tab[ms, K] > 0
        if categorical[g] and n_present <= max_subset:
            n_masks = (1 << n_present) - 1
            n_candidates = (n_masks - 1) // 2 if learn else n_masks - 1
        else:
            n_candidates = n_present - 1 if not categorical[g] else n_present
        room += n_candidates * (2 if both else 1) + (1 if both else 0)
    return room


@njit(cache=True)
def count_tests(tab, offsets, glob, categorical, n_classes, learn, max_subset, min_leaf):
    """How many valid tests ``scan_tests`` emits for this table."""
    dummy = np.zeros((1, TEST_WIDTH), dtype=np.int64)
    sink = np.zeros((1, TEST_WIDTH), dtype=np.int64)
    err = np.zeros(1, dtype=tab.dtype)
    # emit into a one-slot buffer: n_tests still counts every valid test
    _best, n = scan_tests(tab, offsets, glob, categorical, n_classes, learn, max_subset,
                          min_leaf, err[0], dummy, sink, err)
    return n


@njit(cache=True)
def _add_row(dst, local, i, y, w, rows, n_classes):
    """Add row ``rows[i]`` to a class table (every feature's slot)."""
    r = rows[i]
    for g in range(local.shape[1]):
        s = local[i, g]
        dst[s, y[r]] += w[r]
        dst[s, n_classes] += 1


@njit(cache=True)
def _rows_by_slot(local, g, offsets, n, out, start):
    """Positions 0..n-1 of the node's rows ordered by their slot of feature g (counting
    sort): the rows of slot s are ``out[start[s]:start[s + 1]]``, missing ones last."""
    first_slot, end_slot = offsets[g], offsets[g + 1]
    for s in range(first_slot, end_slot + 1):
        start[s] = 0
    for i in range(n):
        start[local[i, g] + 1] += 1
    for s in range(first_slot + 1, end_slot + 1):
        start[s] += start[s - 1]
    fill = start[first_slot:end_slot + 1].copy()
    for i in range(n):
        s = local[i, g] - first_slot
        out[fill[s]] = i
        fill[s] += 1


@njit(cache=True)
def _side_tables(table, local, rows_left, n_rows, n_classes, y, w, rows, left, right):
    """Left and right class tables of a node split (rows_left flags rows of ``rows``)."""
    left[:, :] = 0
    n_features = local.shape[1]
    for i in range(n_rows):
        if rows_left[i]:
            r = rows[i]
            for g in range(n_features):
                s = local[i, g]
                left[s, y[r]] += w[r]
                left[s, n_classes] += 1
    for s in range(table.shape[0]):
        for k in range(table.shape[1]):
            right[s, k] = table[s, k] - left[s, k]


@njit(cache=True)
def _child_bests(left, right, total, offsets, glob, categorical, K, learn, max_subset,
                 min_leaf, work):
    """(leaf, best single split) errors of both children of a root test, from their class
    tables; the children's best tests go to ``work``'s test_l / test_r (feature -1: none)."""
    lvec, rvec, test_l, test_r, empty, empty_err = work
    lvec[:] = 0
    for s in range(offsets[0], offsets[1]):
        _add_slot(lvec, left, s)
    leaf_l = leaf_error(lvec, K)
    _difference(rvec, total, lvec)
    leaf_r = leaf_error(rvec, K)
    test_l[0, 0] = NO_FEATURE
    test_r[0, 0] = NO_FEATURE
    d1_l, _n = scan_tests(left, offsets, glob, categorical, K, learn, max_subset, min_leaf,
                          leaf_l, test_l, empty, empty_err)
    d1_r, _n = scan_tests(right, offsets, glob, categorical, K, learn, max_subset, min_leaf,
                          leaf_r, test_r, empty, empty_err)
    return leaf_l, d1_l, leaf_r, d1_r


@njit(cache=True)
def _record_root(test, t, leaf_l, d1_l, leaf_r, d1_r, test_l, test_r, out_error, out_tests,
                 first_index):
    """Keep root test number ``t``'s trees where they beat the per-budget bests, or tie
    with a best found at a later test (``first_index[b]``; -1: found before)."""
    has_l = test_l[0, 0] != NO_FEATURE
    has_r = test_r[0, 0] != NO_FEATURE
    # budget 2: the right child's split first, the left one's only when strictly better
    own = leaf_l + d1_r
    side = 1 if has_r else 0
    if has_l and (side == 0 or d1_l + leaf_r < own):
        own = d1_l + leaf_r
        side = 2
    if side > 0 and (own < out_error[2] or (own == out_error[2] and t < first_index[2])):
        out_error[2] = own
        first_index[2] = t
        out_tests[2, 0] = test
        out_tests[2, 1, 0] = NO_FEATURE
        out_tests[2, 2, 0] = NO_FEATURE
        if side == 1:
            out_tests[2, 2] = test_r[0]
        else:
            out_tests[2, 1] = test_l[0]
    own = d1_l + d1_r
    if has_l and has_r and (own < out_error[3] or (own == out_error[3]
                                                    and t < first_index[3])):
        out_error[3] = own
        first_index[3] = t
        out_tests[3, 0] = test
        out_tests[3, 1] = test_l[0]
        out_tests[3, 2] = test_r[0]


@njit(cache=True)
def _evaluate_root(test, left, right, total, offsets, glob, categorical, K, learn,
                   max_subset, min_leaf, out_error, out_tests, work):
    """Best depth-2 trees under one root test, given its children's class tables: updates
    the per-budget bests; returns (cost with <= 2 splits, cost with <= 3 splits)."""
    leaf_l, d1_l, leaf_r, d1_r = _child_bests(left, right, total, offsets, glob, categorical,
                                              K, learn, max_subset, min_leaf, work)
    before = np.full(4, -1, dtype=np.int64)
    _record_root(test, np.int64(0), leaf_l, d1_l, leaf_r, d1_r, work[2], work[3], out_error,
                 out_tests, before)
    return min(leaf_l + d1_r, d1_l + leaf_r), d1_l + d1_r


@njit(cache=True)
def _cut_bound(j, i, k, cw, ends, leaf_l, best_l, leaf_r, best_r):
    """Lower bounds ``(with <= 2 splits, with 3)`` on the trees under cut j between the
    evaluated cuts i < k: the left child at j holds the rows at i plus W(i, j) more (its
    optimum is at least that at i, and at least that at k minus W(j, k)), the right child
    likewise the other way; the leaves' errors (``leaf_*``) are known at every cut."""
    gain = cw[ends[j]] - cw[ends[i]]  # rows moved from right to left between i and j
    loss = cw[ends[k]] - cw[ends[j]]
    ll = leaf_l[j]
    bl = max(best_l[i], best_l[k] - loss)
    lr = leaf_r[j]
    br = max(best_r[k], best_r[i] - gain)
    return min(ll + br, bl + lr), bl + br


@njit(cache=True)
def _cut_bound_by_features(j, i, k, cw, ends, leaf_l, feat_l, leaf_r, feat_r):
    """``_cut_bound`` feature by feature: a child's best at cut j is its best over the
    features, each feature's best (with the leaf) bounded from cuts i and k as the
    child's is, so the child's is at least the least of those bounds (``feat_*[c, g]``:
    lower bounds at the evaluated cut c)."""
    gain = cw[ends[j]] - cw[ends[i]]
    loss = cw[ends[k]] - cw[ends[j]]
    bl = leaf_l[j]
    br = leaf_r[j]
    for g in range(feat_l.shape[1]):
        bl = min(bl, max(feat_l[i, g], feat_l[k, g] - loss))
        br = min(br, max(feat_r[k, g], feat_r[i, g] - gain))
    return min(leaf_l[j] + br, bl + leaf_r[j]), bl + br


@njit(cache=True)
def _feature_steps(a, b, out, big):
    """``min over g of max(a[g], b[g] - x)`` for every x at once (the bound of a child's
    best over the features in ``_cut_bound_by_features``, x the weight moved): feature g
    gives a[g] while x >= b[g] - a[g], else b[g] - x. With the features by that step
    (``out[0, :F]``, increasing), the p features of steps <= x give the least a among
    them, ``out[1, p]``, and the others the least b among them, ``out[2, p]``, less x
    (``big`` where there is none): the bound is ``min(out[1, p], out[2, p] - x)``.
    Exact for whole weights (the sweeps' nodes)."""
    n_features = a.shape[0]
    steps = out[0]
    for g in range(n_features):  # insertion sort of the steps (a node's few features)
        key = b[g] - a[g]
        at = g
        while at > 0 and steps[at - 1] > key:
            steps[at] = steps[at - 1]
            out[1, at] = out[1, at - 1]
            out[2, at] = out[2, at - 1]
            at -= 1
        steps[at] = key
        out[1, at] = a[g]
        out[2, at] = b[g]
    # prefix minima of a (out[1, p]: over the first p), suffix minima of b (from p on)
    low = big
    for p in range(n_features):
        value = out[1, p]
        out[1, p] = low
        low = min(low, value)
    out[1, n_features] = low
    low = big
    for p in range(n_features - 1, -1, -1):
        low = min(low, out[2, p])
        out[2, p] = low
    out[2, n_features] = big


@njit(cache=True)
def _feature_orders(local, offsets, glob, y, w, rows, orders):
    """For each feature g, the positions 0..n-1 of the node's rows ordered by its code
    (``orders[0][g]``), and in that order their codes, classes and weights."""
    by_feature, codes_sorted, classes_sorted, weights_sorted = orders
    n = rows.shape[0]
    start = np.zeros(offsets[offsets.shape[0] - 1] + 1, dtype=np.int64)
    for g in range(offsets.shape[0] - 1):
        _rows_by_slot(local, g, offsets, n, by_feature[g], start)
        for q in range(n):
            i = by_feature[g, q]
            codes_sorted[g, q] = glob[local[i, g]]
            classes_sorted[g, q] = y[rows[i]]
            weights_sorted[g, q] = w[rows[i]]


@njit(cache=True)
def _sweep_feature(g, goes, orders, tot, K, min_leaf, e_out, c_out, limit, ties, packed):
    """Both children's best cut of feature g by one sweep of its sorted rows: ``e_out[s]``
    the least error of child s (0 left, 1 right) below its leaf's (else the leaf's),
    ``c_out[s]`` the first cut code reaching it (-1: none).

    A capped sweep: the rows before a cut are misclassified at least as much as they are
    in a leaf of their own, and that error only grows as the cut moves right, so a side
    is no longer swept once it reaches the best cut of the feature so far or ``limit[s]``
    (a tie with ``limit[s]`` counts when ``ties[s]``): ``e_out[s]`` is then that error
    when it is lower, a lower bound on the feature's best with no cut (``c_out[s]`` -1).
    A ``limit`` above every error gives each feature's exact best."""
    if K == 2:
        _sweep_feature_two(g, goes, orders, tot, min_leaf, e_out, c_out, limit, ties, packed)
        return
    by_feature, codes_sorted, classes_sorted, weights_sorted = orders
    n = by_feature.shape[1]
    cum = np.zeros((2, K + 1), dtype=tot.dtype)
    last = np.zeros(2, dtype=np.int64)
    swept = np.zeros(2, dtype=np.bool_)
    n_open = 0
    for side in range(2):
        swept[side] = tot[side, K] > 0 and limit[side] >= 0
        n_open += swept[side]
    for q in range(n):
        if n_open == 0:
            break
        side = 0 if goes[by_feature[g, q]] else 1
        if not swept[side]:
            continue
        c = codes_sorted[g, q]
        # the cut "code <= last" of that child, when both its sides are large enough
        if cum[side, K] > 0 and c != last[side] and cum[side, K] >= min_leaf \
                and tot[side, K] - cum[side, K] >= min_leaf:
            a_top = cum[side, 0]
            a_sum = a_top
            b_top = tot[side, 0] - a_top
            b_sum = b_top
            for k in range(1, K):
                a = cum[side, k]
                b = tot[side, k] - a
                a_sum += a
                b_sum += b
                a_top = max(a_top, a)
                b_top = max(b_top, b)
            before = a_sum - a_top
            e = before + (b_sum - b_top)
            if e < e_out[side]:
                e_out[side] = e
                c_out[side] = last[side]
            if _capped(before, e_out[side], limit[side], ties[side]):
                swept[side] = False
                n_open -= 1
                if before < e_out[side]:
                    e_out[side] = before
                    c_out[side] = -1
                continue
        cum[side, classes_sorted[g, q]] += weights_sorted[g, q]
        cum[side, K] += 1
        last[side] = c


@njit(cache=True)
def _capped(before, best, limit, ties):
    """Whether no cut further right can give a better best: the error ``before`` of the
    rows left of the cut reaches the feature's best so far, or passes ``limit``."""
    return before >= best or before > limit or (before == limit and not ties)


@njit(cache=True)
def _sweep_feature_two(g, goes, orders, tot, min_leaf, e_out, c_out, limit, ties, packed):
    """``_sweep_feature`` for two classes: the rows of the sides to sweep first dealt to
    their child in code order (``packed[s]``: code * 2 + class, without a branch), then
    each child's rows swept alone, its running sums in scalars. ``packed``: scratch of
    shape (2, rows)."""
    by_feature, codes_sorted, classes_sorted, weights_sorted = orders
    n = by_feature.shape[1]
    order = by_feature[g]
    codes_g = codes_sorted[g]
    classes_g = classes_sorted[g]
    # weights of at least 1 (whole, positive) that sum to the number of rows are all 1
    unit = tot[0, 0] + tot[0, 1] == tot[0, 2] and tot[1, 0] + tot[1, 1] == tot[1, 2]
    open_l = tot[0, 2] > 0 and limit[0] >= 0
    open_r = tot[1, 2] > 0 and limit[1] >= 0
    if not open_l and not open_r:
        return
    left = packed[0]
    right = packed[1]
    if not unit:
        weights = np.empty((2, n), dtype=weights_sorted.dtype)
        weights_g = weights_sorted[g]
        m0 = np.int64(0)
        m1 = np.int64(0)
        for q in range(n):
            v = 2 * codes_g[q] + classes_g[q]
            if goes[order[q]]:
                left[m0] = v
                weights[0, m0] = weights_g[q]
                m0 += 1
            else:
                right[m1] = v
                weights[1, m1] = weights_g[q]
                m1 += 1
        if open_l:
            _sweep_side_two(left, weights[0], m0, tot[0, 0], tot[0, 1], min_leaf, e_out, c_out,
                            limit, ties, np.int64(0), np.bool_(False))
        if open_r:
            _sweep_side_two(right, weights[1], m1, tot[1, 0], tot[1, 1], min_leaf, e_out,
                            c_out, limit, ties, np.int64(1), np.bool_(False))
        return
    # unit weights: every row written to both sides' next slots, the counts moved on by
    # its side (no branch); a side not swept is not dealt
    m0 = np.int64(0)
    m1 = np.int64(0)
    if open_l and open_r:
        for q in range(n):
            v = 2 * codes_g[q] + classes_g[q]
            s = np.int64(goes[order[q]])
            left[m0] = v
            right[m1] = v
            m0 += s
            m1 += 1 - s
    elif open_l:
        for q in range(n):
            left[m0] = 2 * codes_g[q] + classes_g[q]
            m0 += np.int64(goes[order[q]])
    else:
        for q in range(n):
            right[m1] = 2 * codes_g[q] + classes_g[q]
            m1 += 1 - np.int64(goes[order[q]])
    if open_l:
        _sweep_side_two(left, left, m0, tot[0, 0], tot[0, 1], min_leaf, e_out, c_out, limit,
                        ties, np.int64(0), np.bool_(True))
    if open_r:
        _sweep_side_two(right, right, m1, tot[1, 0], tot[1, 1], min_leaf, e_out, c_out, limit,
                        ties, np.int64(1), np.bool_(True))


@njit(cache=True)
def _cut_step(a0, a1, t0, t1, best, cut, last, limit, ties):
    """One cut of a two-class sweep, below code ``last`` with class weights ``a0``, ``a1``
    on its left: ``(best, cut, stop)``, the child's best error and cut after it, and
    whether no cut further right can do better (the best then at most the left's error,
    with cut -1 when that is lower)."""
    before = min(a0, a1)
    e = before + min(t0 - a0, t1 - a1)
    if e < best:
        best = e
        cut = last
    if _capped(before, best, limit, ties):
        if before < best:
            best = before
            cut = -1
        return best, cut, True
    return best, cut, False


@njit(cache=True)
def _sweep_side_two(packed, weights, m, t0, t1, min_leaf, e_out, c_out, limit, ties, side,
                    unit):
    """One child's sweep of ``_sweep_feature_two``: its ``m`` rows ``packed`` (code * 2 +
    class, in code order; ``weights`` theirs unless ``unit``), its class totals ``t0``,
    ``t1``; updates ``e_out[side]``, ``c_out[side]``."""
    zero = t0 - t0
    best = e_out[side]
    cut = c_out[side]
    lim = limit[side]
    tie = ties[side]
    last = np.int64(-1)  # typed: a literal -1 would compile _cut_step a second time
    if unit:  # the class-1 rows counted without a branch, the class-0 ones from j
        ones = np.int64(0)
        for j in range(m):
            v = packed[j]
            c = v >> 1
            if j > 0 and c != last and j >= min_leaf and m - j >= min_leaf:
                best, cut, stop = _cut_step(zero + (j - ones), zero + ones, t0, t1, best,
                                            cut, last, lim, tie)
                if stop:
                    break
            ones += v & 1
            last = c
    else:
        a0 = zero
        a1 = zero
        for j in range(m):
            v = packed[j]
            c = v >> 1
            if j > 0 and c != last and j >= min_leaf and m - j >= min_leaf:
                best, cut, stop = _cut_step(a0, a1, t0, t1, best, cut, last, lim, tie)
                if stop:
                    break
            if v & 1:
                a1 += weights[j]
            else:
                a0 += weights[j]
            last = c
    e_out[side] = best
    c_out[side] = cut


@njit(cache=True)
def _closed(bound, best, best_g, g):
    """Whether feature g cannot give a child's best: its bound is above the best so far,
    or that best is 0 (no error is below it) and was not found at a later feature."""
    return bound > best or (best <= 0 and best_g < g)


@njit(cache=True)
def _stable_order(a, b, out):
    """The positions of ``a + b`` from the lowest up, ties in position order (a stable
    argsort; insertion sort, for the few features of a node)."""
    for i in range(out.shape[0]):
        key = a[i] + b[i]
        j = i
        while j > 0 and a[out[j - 1]] + b[out[j - 1]] > key:
            out[j] = out[j - 1]
            j -= 1
        out[j] = i


@njit(cache=True)
def _sweep_child_bests(goes, orders, y, w, rows, K, min_leaf, work, lb, first, feat_best):
    """``_child_bests`` of a root test on a node of numeric features without missing
    values, by sweeps of each feature's sorted rows (``goes[i]``: row ``rows[i]`` is in
    the left child) instead of the children's class tables: the same errors and tests
    (features in order, cuts in increasing code, the first strictly better kept).

    ``lb[s, g]``: a lower bound on child s's best with feature g (its leaf included);
    a feature whose bounds on both sides are above the best found so far (or where that
    best is 0) is not swept (``first[s]``, a likely best feature, is swept first). ``feat_best[s, g]`` receives
    each feature's best (its bound where it was skipped), for the bounds of later cuts."""
    lvec, rvec, test_l, test_r, _empty, _empty_err = work
    n_features = lb.shape[1]
    n = rows.shape[0]
    tot = np.zeros((2, K + 1), dtype=lvec.dtype)  # row 0: the left child, 1: the right
    for i in range(n):
        r = rows[i]
        side = 0 if goes[i] else 1
        tot[side, y[r]] += w[r]
        tot[side, K] += 1
    for k in range(K + 1):
        lvec[k] = tot[0, k]
        rvec[k] = tot[1, k]
    # the small per-side values in two arrays (fewer allocations per evaluated cut)
    sides = np.empty((4, 2), dtype=lvec.dtype)
    leaf, best, e, limit = sides[0], sides[1], sides[2], sides[3]
    leaf[0] = leaf_error(lvec, K)
    leaf[1] = leaf_error(rvec, K)
    best[0] = leaf[0]
    best[1] = leaf[1]
    where = np.empty((3, 2), dtype=np.int64)
    best_g, best_c, c = where[0], where[1], where[2]
    best_g[:] = -1
    best_c[:] = 0
    ties = np.empty(2, dtype=np.bool_)
    # the other features from the lowest bounds up (likely the best first: the bests
    # found early rule out more features); ties keep the first feature whatever the order
    by_bound = np.empty(n_features, dtype=np.int64)
    done = np.zeros(n_features, dtype=np.bool_)
    _stable_order(lb[0], lb[1], by_bound)
    packed = np.empty((2, n), dtype=np.int64)  # the sweeps' scratch
    for step in range(2 + n_features):
        if step < 2:
            g = first[step]
            if g < 0 or done[g]:
                continue
        else:
            g = by_bound[step - 2]
            # a side is closed when its bound is above its best, or its best is 0 (no
            # error is below it) and found at the leaf or an earlier feature (ties go to
            # the first feature)
            if done[g] or (_closed(lb[0, g], best[0], best_g[0], g)
                           and _closed(lb[1, g], best[1], best_g[1], g)):
                continue
        done[g] = True
        for side in range(2):
            e[side] = leaf[side]
            c[side] = -1
            # a side's sweep stops once it cannot improve on this feature's best (a
            # cap at the child's best so far would stop it sooner, but leave weaker
            # per-feature bounds for the next cuts: more sweeps in all); -1: the side's
            # bound rules the feature out
            ties[side] = True
            limit[side] = leaf[side]
            if step >= 2 and _closed(lb[side, g], best[side], best_g[side], g):
                limit[side] = -1
        _sweep_feature(g, goes, orders, tot, K, min_leaf, e, c, limit, ties, packed)
        for side in range(2):
            # the sweep's bound where it was capped; the given bound where it is higher
            feat_best[side, g] = max(e[side], lb[side, g]) if limit[side] >= 0 \
                else lb[side, g]
            # the first feature (in order) with the least error wins, as in a plain scan
            if c[side] >= 0 and (e[side] < best[side] or (e[side] == best[side]
                                                         and g < best_g[side])):
                best[side] = e[side]
                best_g[side] = g
                best_c[side] = c[side]
    for g in range(n_features):
        if not done[g]:
            feat_best[0, g] = lb[0, g]
            feat_best[1, g] = lb[1, g]
    test_l[0, 0] = NO_FEATURE
    test_r[0, 0] = NO_FEATURE
    for side in range(2):
        out = test_l if side == 0 else test_r
        if best_g[side] >= 0:
            out[0, :] = 0
            out[0, 0] = best_g[side]
            out[0, 1] = ORDERED
            out[0, 2] = best_c[side]
    return leaf[0], best[0], leaf[1], best[1]


@njit(cache=True)
def _sweep_wanted(codes, w, rows, n_codes, categorical, table, K):
    """Whether the sweep of ``_sweep_child_bests`` applies to the node and costs less
    than the class tables: only numeric features, no missing value, whole weights (the
    sums are then exact in any order), and fewer row visits than table slots to fill."""
    n = rows.shape[0]
    n_features = codes.shape[1]
    for g in range(n_features):
        if categorical[g]:
            return False
    total = 0.0
    for i in range(n):
        r = rows[i]
        v = float(w[r])
        if v != np.floor(v):
            return False
        total += v
        for g in range(n_features):
            if codes[r, g] < 0:
                return False
    if total >= 2.0**52:
        return False
    return n * n_features < 2 * table.shape[0] * (K + 1)


@njit(cache=True)
def _interval_block(tests, t0, t1, g, table, local, offsets, glob, categorical, K, learn,
                    max_subset, min_leaf, total, y, w, rows, by_slot, slot_start,
                    out_error, out_tests, work, left, right, bounds, sweep, orders, goes,
                    node_feat):
    """The ORDERED root tests ``t0`` to ``t1 - 1`` of feature g (no missing value of g at
    the node, min_leaf 1), by ConTree's interval pruning: moving the cut right only adds
    rows to the left child and removes rows from the right one, so neither child's optimum
    at depth <= 1 falls on the left or rises on the right, and moving rows of weight W
    changes each by at most W. Between two evaluated cuts i < k this bounds every cut
    (``_cut_bound``, ``_cut_bound_by_features``); the cuts whose bound is above the bests
    (strictly: ties are still visited) or the caps ``bounds[0]``, ``bounds[1]`` are
    skipped, and the middle one of the rest is evaluated. Ties go to the first test in
    scan order, as in the plain scan. The bisection starts from two virtual cuts, before
    the first (left child empty) and after the last (left child the whole node), so no
    end cut is evaluated only to start it. The least bound of the cuts skipped goes to
    ``bounds[2]``, ``bounds[3]`` (2 and 3 splits). Returns the number of cuts evaluated."""
    n = rows.shape[0]
    m = t1 - t0
    _rows_by_slot(local, g, offsets, n, by_slot, slot_start)
    # positions 1..m are the cuts, 0 and m + 1 virtual ones before the first (the left
    # child empty) and after the last (the right child the whole node)
    virtual = m + 1
    ends = np.empty(m + 2, dtype=np.int64)  # rows left of each cut (in by_slot order)
    ends[0] = 0
    ends[virtual] = n
    s = offsets[g]
    for j in range(1, virtual):
        while glob[s] != tests[t0 + j - 1, 2]:
            s += 1
        ends[j] = slot_start[s + 1]
    leaf_l = np.zeros(m + 2, dtype=total.dtype)
    best_l = np.zeros(m + 2, dtype=total.dtype)
    leaf_r = np.zeros(m + 2, dtype=total.dtype)
    best_r = np.zeros(m + 2, dtype=total.dtype)
    first_index = np.full(4, -1, dtype=np.int64)
    stack = np.empty((2 * m + 4, 2), dtype=np.int64)
    cw = np.zeros(n + 1, dtype=total.dtype)  # weight of the first q rows in by_slot order
    for q in range(n):
        cw[q + 1] = cw[q] + w[rows[by_slot[q]]]
    n_features = offsets.shape[0] - 1 if sweep else 0
    # each feature's bests at the evaluated cuts (only those are read: no zeroing)
    feat = (np.empty((m + 2, n_features), dtype=total.dtype),
            np.empty((m + 2, n_features), dtype=total.dtype),
            np.full((m + 2, 2), -1, dtype=np.int64),
            np.zeros((2, n_features), dtype=total.dtype), np.full(2, -1, dtype=np.int64),
            np.zeros((2, n_features), dtype=total.dtype), node_feat)
    feat_l, feat_r = feat[0], feat[1]
    near = np.full(2, -1, dtype=np.int64)
    steps_l = np.empty((3, n_features + 1), dtype=total.dtype)  # _feature_steps's
    steps_r = np.empty((3, n_features + 1), dtype=total.dtype)
    big = 2 * cw[n] + 1  # above every bound: a child errs at most the node's weight
    low2 = np.empty(m + 2, dtype=total.dtype)  # the cuts' bounds at their last look
    low3 = np.empty(m + 2, dtype=total.dtype)
    # every cut's two leaves, exactly: the class weights of the rows left of each cut
    exact_l = np.empty(m + 2, dtype=total.dtype)
    exact_r = np.empty(m + 2, dtype=total.dtype)
    running = np.zeros(K + 1, dtype=total.dtype)
    rest = np.zeros(K + 1, dtype=total.dtype)
    q = 0
    for j in range(virtual + 1):
        while q < ends[j]:
            r = rows[by_slot[q]]
            running[y[r]] += w[r]
            q += 1
        exact_l[j] = leaf_error(running, K)
        _difference(rest, total, running)
        exact_r[j] = leaf_error(rest, K)
    # the virtual cuts: an empty child errs 0, the whole node as the node does at depth 1
    # (``out_error[1]``, and ``node_feat`` per feature)
    best_r[0] = best_l[virtual] = out_error[1]
    for f in range(n_features):
        feat_l[0, f] = feat_r[virtual, f] = 0
        feat_r[0, f] = feat_l[virtual, f] = node_feat[f]
    evaluated = 0
    stack[0, 0] = 0
    stack[0, 1] = virtual
    top = 1
    while top > 0:
        top -= 1
        i, k = stack[top, 0], stack[top, 1]
        if k - i <= 1:
            continue
        # strict: bounds[0] / [1] are trees at later tests (or caps), ties must be visited
        best2 = min(out_error[1], out_error[2], bounds[0])
        best3 = min(best2, out_error[3], bounds[1])
        # narrow (i, k) to the cuts whose bound does not exceed the bests
        lo = k
        hi = i
        stepped = n_features > 0 and k - i > STEPPED_CUTS
        if stepped:  # the per-feature bounds of the cuts by steps (_feature_steps)
            _feature_steps(feat_l[i], feat_l[k], steps_l, big)
            _feature_steps(feat_r[k], feat_r[i], steps_r, big)
            p_l = n_features  # features whose left bound is at cut i's best, at this j
            p_r = 0  # features whose right bound is at cut k's best
        for j in range(i + 1, k):
            c2, c3 = _cut_bound(j, i, k, cw, ends, exact_l, best_l, exact_r, best_r)
            if stepped:
                loss = cw[ends[k]] - cw[ends[j]]  # falls as j rises
                gain = cw[ends[j]] - cw[ends[i]]  # rises
                while p_l > 0 and steps_l[0, p_l - 1] > loss:
                    p_l -= 1
                while p_r < n_features and steps_r[0, p_r] <= gain:
                    p_r += 1
                bl = min(exact_l[j], steps_l[1, p_l], steps_l[2, p_l] - loss)
                br = min(exact_r[j], steps_r[1, p_r], steps_r[2, p_r] - gain)
                c2 = max(c2, min(exact_l[j] + br, bl + exact_r[j]))
                c3 = max(c3, bl + br)
            elif n_features > 0:
                f2, f3 = _cut_bound_by_features(j, i, k, cw, ends, exact_l, feat_l,
                                                exact_r, feat_r)
                c2 = max(c2, f2)
                c3 = max(c3, f3)
            low2[j] = c2
            low3[j] = c3
            if c2 <= best2 or c3 <= best3:
                lo = min(lo, j)
                hi = j
        if lo > hi:  # every cut between i and k is skipped for good: keep their bounds
            for j in range(i + 1, k):
                bounds[2] = min(bounds[2], low2[j])
                bounds[3] = min(bounds[3], low3[j])
            continue
        mid = (lo + hi) // 2  # the middle of the cuts still open
        near[0] = i
        near[1] = k
        _evaluate_cut(tests, t0 + mid - 1, mid, ends[mid], table, local, offsets, glob,
                      categorical, K, learn, max_subset, min_leaf, total, y, w, rows,
                      by_slot, out_error, out_tests, work, left, right, first_index, leaf_l,
                      best_l, leaf_r, best_r, sweep, orders, goes, near, cw, ends, feat)
        evaluated += 1
        stack[top, 0] = mid
        stack[top, 1] = k
        stack[top + 1, 0] = i
        stack[top + 1, 1] = mid
        top += 2
    return evaluated


@njit(cache=True)
def _node_bounds(node_feat, w_left, w_right, lb):
    """Bounds on the children's best per feature from the node's (``node_feat``): a
    child is the node without the other child's rows, of weight W, and removing rows of
    weight W lowers a best by at most W (and none is below 0)."""
    zero = w_left - w_left
    for g in range(lb.shape[1]):
        lb[0, g] = max(zero, node_feat[g] - w_right)
        lb[1, g] = max(zero, node_feat[g] - w_left)


@njit(cache=True)
def _evaluate_cut(tests, t, j, end, table, local, offsets, glob, categorical, K, learn,
                  max_subset, min_leaf, total, y, w, rows, by_slot, out_error, out_tests,
                  work, left, right, first_index, leaf_l, best_l, leaf_r, best_r, sweep,
                  orders, goes, near, cw, ends, feat):
    """Children's bests of the root test ``t``, at position ``j`` of an interval block (by
    the sweep, or from their tables, the smaller side built row by row), recorded in the
    block's arrays and the per-budget bests. ``near``: the evaluated (or virtual) cuts
    i < j < k around it, whose per-feature bests (``feat``) bound the sweep's features as
    ``_cut_bound`` bounds the children."""
    n = rows.shape[0]
    if sweep:
        for q in range(n):
            goes[by_slot[q]] = q < end
        feat_l, feat_r, winner, lb, first, scratch, node_feat = feat
        i, k = near[0], near[1]
        first[0] = -1
        first[1] = -1
        _node_bounds(node_feat, cw[ends[j]], cw[n] - cw[ends[j]], lb)
        if i >= 0:
            gain = cw[ends[j]] - cw[ends[i]]  # rows moved from right to left between i and j
            loss = cw[ends[k]] - cw[ends[j]]
            for g in range(lb.shape[1]):
                lb[0, g] = max(lb[0, g], feat_l[i, g], feat_l[k, g] - loss)
                lb[1, g] = max(lb[1, g], feat_r[k, g], feat_r[i, g] - gain)
            first[0] = winner[i, 0]
            first[1] = winner[k, 1]
        a, b, c, d = _sweep_child_bests(goes, orders, y, w, rows, K, min_leaf, work, lb,
                                        first, scratch)
        for g in range(lb.shape[1]):
            feat_l[j, g] = scratch[0, g]
            feat_r[j, g] = scratch[1, g]
        winner[j, 0] = work[2][0, 0]
        winner[j, 1] = work[3][0, 0]
    else:
        small, big = (left, right) if end <= n - end else (right, left)
        small[:, :] = 0
        lo, hi = (0, end) if end <= n - end else (end, n)
        for q in range(lo, hi):
            _add_row(small, local, by_slot[q], y, w, rows, K)
        for s in range(table.shape[0]):
            for k in range(K + 1):
                big[s, k] = table[s, k] - small[s, k]
        a, b, c, d = _child_bests(left, right, total, offsets, glob, categorical, K, learn,
                                  max_subset, min_leaf, work)
    leaf_l[j], best_l[j], leaf_r[j], best_r[j] = a, b, c, d
    _record_root(tests[t], t, a, b, c, d, work[2], work[3], out_error, out_tests,
                 first_index)


@njit(cache=True)
def _cut_bounds(tests, errors, first, last, n_tests, table, local, offsets, glob,
                categorical, K, learn, max_subset, min_leaf, total, codes, y, w, rows,
                can_skip, out_error, work, sweep, orders, node_feat):
    """(cost with <= 2 splits, with <= 3) of the best tree found under the best single cut
    of each numeric feature (without missing values here) among the root tests
    ``first`` to ``last - 1``; the leaf's error and single splits count too."""
    ub2 = min(out_error[0], out_error[1])
    ub3 = ub2
    if not can_skip:
        return ub2, ub3
    n = rows.shape[0]
    n_features = offsets.shape[0] - 1
    pick = np.full(n_features, -1, dtype=np.int64)
    for t in range(first, min(last, n_tests)):
        g = tests[t, 0]
        numeric = tests[t, 1] == ORDERED and table[offsets[g + 1] - 1, K] == 0 \
            and offsets[g + 1] - offsets[g] > 3
        if numeric and (pick[g] < 0 or errors[t] < errors[pick[g]]):
            pick[g] = t
    # only the BOUND_FEATURES features whose best cut errs least: the bounds need good
    # trees, not every feature's (each one costs a sweep of every feature)
    chosen = np.zeros(n_features, dtype=np.bool_)
    for _ in range(BOUND_FEATURES):
        best_g = -1
        for g in range(n_features):
            if pick[g] >= 0 and not chosen[g] and (
                    best_g < 0 or errors[pick[g]] < errors[pick[best_g]]):
                best_g = g
        if best_g >= 0:
            chosen[best_g] = True
    for g in range(n_features):
        if not chosen[g]:
            pick[g] = -1
    tables = (0 if sweep else table.shape[0], K + 1)
    left = np.zeros(tables, dtype=table.dtype)
    right = np.zeros(tables, dtype=table.dtype)
    flags = np.zeros(n, dtype=np.bool_)
    scratch_error = out_error.copy()
    scratch_tests = np.zeros((4, 3, TEST_WIDTH), dtype=np.int64)
    no_bound = np.zeros((2, n_features), dtype=total.dtype)
    no_first = np.full(2, -1, dtype=np.int64)
    scratch_feat = np.zeros((2, n_features), dtype=total.dtype)
    for g in range(n_features):
        t = pick[g]
        if t < 0:
            continue
        for i in range(n):
            flags[i] = goes_left(tests[t], codes[rows[i], g])
        if sweep:
            w_left = total[0] - total[0]
            w_right = w_left
            for i in range(n):
                if flags[i]:
                    w_left += w[rows[i]]
                else:
                    w_right += w[rows[i]]
            _node_bounds(node_feat, w_left, w_right, no_bound)
            leaf_l, d1_l, leaf_r, d1_r = _sweep_child_bests(flags, orders, y, w, rows, K,
                                                            min_leaf, work, no_bound,
                                                            no_first, scratch_feat)
            c2, c3 = min(leaf_l + d1_r, d1_l + leaf_r), d1_l + d1_r
        else:
            _side_tables(table, local, flags, n, K, y, w, rows, left, right)
            c2, c3 = _evaluate_root(tests[t], left, right, total, offsets, glob,
                                    categorical, K, learn, max_subset, min_leaf,
                                    scratch_error, scratch_tests, work)
        ub2 = min(ub2, c2)
        ub3 = min(ub3, c3, ub2)
    return ub2, ub3


@njit(cache=True)
def depth2_node(codes, y, w, rows, n_codes, categorical, n_classes, depth, learn,
                max_subset, min_leaf, reset, cap2, cap3, out_error, out_tests):
    """The per-node part of ``solve_depth2``: the node's class table, its root tests, the
    sorted rows of its sweeps, the bounds of its interval pruning and the scratch tables,
    computed once for every piece of root tests that ``depth2_tests`` evaluates. With
    ``reset`` the outputs are set to the leaf and the best single split.

    ``cap2``, ``cap3`` (the weights' dtype): trees of 2 or 3 splits erring more are of no
    use to the caller, so the interval pruning skips the numeric cuts whose bound is above
    them; ``node[9][2]``, ``[3]`` then hold the least bound of the cuts it skipped (2 and 3
    splits), below which no tree under them errs. A cap at the leaf's error or above
    changes nothing."""
    K = n_classes
    table, offsets, glob, local = node_table(codes, y, w, rows, n_codes, K)
    n = rows.shape[0]
    total = np.zeros(K + 1, dtype=table.dtype)
    for s in range(offsets[0], offsets[1]):
        _add_slot(total, table, s)
    empty = np.zeros((0, TEST_WIDTH), dtype=np.int64)
    empty_err = np.zeros(0, dtype=table.dtype)
    one = np.zeros((1, TEST_WIDTH), dtype=np.int64)
    one[0, 0] = NO_FEATURE
    leaf = leaf_error(total, K)
    # every valid test, written once into room for every candidate (``_max_tests``)
    n_tests = 0
    room = _max_tests(table, offsets, categorical, K, learn, max_subset) \
        if depth >= 2 and n > 0 else 0
    tests = np.empty((room, TEST_WIDTH), dtype=np.int64)
    errors = np.empty(room, dtype=table.dtype)
    if room > 0:
        _best, n_tests = scan_tests(table, offsets, glob, categorical, K, learn, max_subset,
                                    min_leaf, leaf, one, tests, errors)
    tests = tests[:n_tests]
    errors = errors[:n_tests]
    if reset:
        out_tests[:, :, :] = 0
        out_tests[:, :, 0] = NO_FEATURE
        for b in range(4):
            out_error[b] = leaf
        if n > 0 and room > 0:
            # the best single split: the first test (in scan order) of least error, when
            # below the leaf's, as scan_tests finds it
            best1 = leaf
            for t in range(n_tests):
                if errors[t] < best1:
                    best1 = errors[t]
                    one[0] = tests[t]
        elif n > 0:
            best1, _n = scan_tests(table, offsets, glob, categorical, K, learn, max_subset,
                                   min_leaf, leaf, one, empty, empty_err)
        if n > 0 and one[0, 0] != NO_FEATURE:
            for b in range(1, 4):
                out_error[b] = best1
                out_tests[b, 0] = one[0]
    # ConTree's interval pruning of a numeric feature's cuts (``_interval_block``) needs
    # min_leaf == 1 and every test at a node to stay a test on more rows
    can_skip = min_leaf == 1
    for g in range(n_codes.shape[0]):
        if categorical[g] and max_subset > 0 and n_codes[g] > max_subset:
            can_skip = False
    # numeric nodes without missing values: children's bests by sweeps of sorted rows
    sorted_rows = n_tests > 0 and can_skip and _sweep_wanted(codes, w, rows, n_codes,
                                                            categorical, table, K)
    shape = (codes.shape[1], n if sorted_rows else 0)
    orders = (np.zeros(shape, dtype=np.int64), np.zeros(shape, dtype=np.int64),
              np.zeros(shape, dtype=np.int64), np.zeros(shape, dtype=w.dtype))
    node_feat = np.zeros(codes.shape[1] if sorted_rows else 0, dtype=table.dtype)
    if sorted_rows:
        _feature_orders(local, offsets, glob, y, w, rows, orders)
        # each feature's best single cut of the node: bounds for its children's
        everything = np.ones(n, dtype=np.bool_)
        node_tot = np.zeros((2, K + 1), dtype=table.dtype)
        node_tot[0, :] = total
        e = np.empty(2, dtype=table.dtype)
        c = np.empty(2, dtype=np.int64)
        no_cap = np.full(2, leaf, dtype=table.dtype)  # no error is above the leaf's
        every_tie = np.ones(2, dtype=np.bool_)
        packed = np.empty((2, n), dtype=np.int64)
        for g in range(codes.shape[1]):
            e[0] = leaf
            e[1] = 0
            _sweep_feature(g, everything, orders, node_tot, K, min_leaf, e, c, no_cap,
                           every_tie, packed)
            node_feat[g] = e[0]
    test_l = np.zeros((1, TEST_WIDTH), dtype=np.int64)
    test_r = np.zeros((1, TEST_WIDTH), dtype=np.int64)
    lvec = np.zeros(K + 1, dtype=table.dtype)
    rvec = np.zeros(K + 1, dtype=table.dtype)
    work = (lvec, rvec, test_l, test_r, empty, empty_err)
    # upper bounds before the scan (ConTree evaluates promising cuts first), from every
    # numeric feature's best single cut
    # [0], [1]: the least error of a tree of 2 / 3 splits found or wanted (``cap2``, ``cap3``:
    # a tree above them is of no use); [2], [3]: the least bound of the cuts skipped
    bounds = np.zeros(4, dtype=table.dtype)
    bounds[0], bounds[1] = _cut_bounds(tests, errors, 0, n_tests, n_tests, table, local, offsets,
                               glob, categorical, K, learn, max_subset, min_leaf, total,
                               codes, y, w, rows, can_skip and n_tests > 0, out_error, work,
                               sorted_rows, orders, node_feat)
    bounds[0] = min(bounds[0], cap2)
    bounds[1] = min(bounds[1], cap3)
    bounds[2] = leaf  # no tree is worse than the leaf: no bound above it is needed
    bounds[3] = leaf
    flags = np.zeros(3, dtype=np.int64)
    flags[0] = n_tests
    flags[1] = can_skip
    flags[2] = sorted_rows
    # scratch: the children's tables, the sweep's (none on a node of sweeps: depth2_tests
    # makes them if a test needs them), the rows by slot, their starts
    tables = (0 if sorted_rows else table.shape[0], K + 1)
    scratch = (np.zeros(tables, dtype=table.dtype), np.zeros(tables, dtype=table.dtype),
               np.zeros(tables, dtype=table.dtype), np.zeros(tables, dtype=table.dtype),
               np.empty(n, dtype=np.int64),
               np.zeros(table.shape[0] + 1, dtype=np.int64), np.zeros(n, dtype=np.bool_),
               np.zeros(n, dtype=np.bool_))
    return (table, offsets, glob, local, total, tests, errors, orders, node_feat, bounds,
            flags, work, scratch)


@njit(cache=True)
def _interval_feature(tests, t, end, offsets, table, K, can_skip):
    """The end of the interval block of ORDERED root tests starting at ``t`` (one numeric
    feature's cuts, no missing value of it at the node: ``_interval_block``), else -1."""
    test = tests[t]
    g = test[0]
    known_only = table[offsets[g + 1] - 1, K] == 0
    two_codes = offsets[g + 1] - offsets[g] == 3 and known_only
    if test[1] != ORDERED or two_codes or not can_skip or not known_only:
        return -1
    t1 = t + 1
    while t1 < end and tests[t1, 0] == g and tests[t1, 1] == ORDERED:
        t1 += 1
    return t1


@njit(cache=True)
def _block_alone(b, starts, stops, tests, table, local, offsets, glob, categorical, K, learn,
                 max_subset, min_leaf, total, y, w, rows, sweep, orders, node_feat,
                 out_error, out_tests, bounds, block_error, block_tests, block_bounds):
    """Interval block ``b`` on scratch of its own, from the bests and bounds before the
    blocks: its bests to ``block_error[b]``, ``block_tests[b]``, ``block_bounds[b]``."""
    n = rows.shape[0]
    table_rows = 0 if sweep else table.shape[0]  # the sweep builds no class tables
    work = (np.zeros(K + 1, dtype=table.dtype), np.zeros(K + 1, dtype=table.dtype),
            np.zeros((1, TEST_WIDTH), dtype=np.int64),
            np.zeros((1, TEST_WIDTH), dtype=np.int64),
            np.zeros((0, TEST_WIDTH), dtype=np.int64), np.zeros(0, dtype=table.dtype))
    error = block_error[b]
    error[:] = out_error
    trees = block_tests[b]
    trees[:, :, :] = out_tests
    own_bounds = block_bounds[b]
    own_bounds[:] = bounds
    _interval_block(tests, starts[b], stops[b], tests[starts[b], 0], table, local, offsets,
                    glob, categorical, K, learn, max_subset, min_leaf, total, y, w, rows,
                    np.empty(n, dtype=np.int64),
                    np.zeros(table.shape[0] + 1, dtype=np.int64), error, trees, work,
                    np.zeros((table_rows, K + 1), dtype=table.dtype),
                    np.zeros((table_rows, K + 1), dtype=table.dtype), own_bounds, sweep,
                    orders, np.zeros(n, dtype=np.bool_), node_feat)


@njit(parallel=True, cache=True)
def _blocks_in_parallel(starts, stops, tests, table, local, offsets, glob, categorical, K,
                        learn, max_subset, min_leaf, total, y, w, rows, sweep, orders,
                        node_feat, out_error, out_tests, bounds, block_error, block_tests,
                        block_bounds):
    """Every interval block alone (``_block_alone``), the blocks shared among the
    threads."""
    for b in prange(starts.shape[0]):
        _block_alone(b, starts, stops, tests, table, local, offsets, glob, categorical, K,
                     learn, max_subset, min_leaf, total, y, w, rows, sweep, orders,
                     node_feat, out_error, out_tests, bounds, block_error, block_tests,
                     block_bounds)


@njit(cache=True)
def depth2_tests(node, codes, y, w, rows, categorical, n_classes, learn, max_subset,
                 min_leaf, first, last, threads, out_error, out_tests):
    """The per-test part of ``solve_depth2``: the root tests ``first`` to ``last - 1`` of
    the node ``depth2_node`` prepared, the interval blocks of a node with at least
    ``PARALLEL_WORK`` rows x cuts in them shared among the threads when ``threads`` > 1
    (the same trees). Returns ``(number of root tests, end)`` as ``solve_depth2``."""
    K = n_classes
    (table, offsets, glob, local, total, tests, _errors, orders, node_feat, bounds, flags,
     work, scratch) = node
    left, right, sweep, sweep_missing, by_slot, slot_start, goes, row_flags = scratch
    n_tests = flags[0]
    can_skip = flags[1] == 1
    sorted_rows = flags[2] == 1
    if n_tests == 0:
        return 0, 0
    n = rows.shape[0]
    end = min(last, n_tests)
    while 0 < end < n_tests and tests[end, 1] == ORDERED and tests[end - 1, 1] == ORDERED \
            and tests[end, 0] == tests[end - 1, 0]:
        end += 1  # the rest of this feature's cuts
    # on a large node with threads, the interval blocks first, all at once, each alone
    # (from the bests so far: less pruning than in turn, the same trees after the merge)
    starts = np.empty(end - first, dtype=np.int64)
    stops = np.empty(end - first, dtype=np.int64)
    n_blocks = 0
    n_cuts = 0
    if threads > 1 and n * (end - first) >= PARALLEL_WORK:
        t = first
        while t < end:  # the blocks, stepping as the scan below does
            t1 = _interval_feature(tests, t, end, offsets, table, K, can_skip)
            if t1 < 0:
                t += 1
                continue
            starts[n_blocks] = t
            stops[n_blocks] = t1
            n_blocks += 1
            n_cuts += t1 - t
            t = t1
    if n * n_cuts < PARALLEL_WORK:
        n_blocks = 0
    if n_blocks < 2:
        n_blocks = 0
    starts = starts[:n_blocks]
    stops = stops[:n_blocks]
    block_error = np.empty((n_blocks, 4), dtype=out_error.dtype)
    block_tests = np.empty((n_blocks, 4, 3, TEST_WIDTH), dtype=np.int64)
    block_bounds = np.empty((n_blocks, bounds.shape[0]), dtype=bounds.dtype)
    if n_blocks > 0:
        _blocks_in_parallel(starts, stops, tests, table, local, offsets, glob, categorical,
                            K, learn, max_subset, min_leaf, total, y, w, rows, sorted_rows,
                            orders, node_feat, out_error, out_tests, bounds, block_error,
                            block_tests, block_bounds)
    block = 0
    # ORDERED tests of one feature come in increasing cuts: their left tables grow by the
    # rows of the next codes (a sweep), instead of being rebuilt row by row
    sweep_g = -1
    sweep_pos = 0
    sweep_end = 0
    t = first
    while t < end:
        test = tests[t]
        g = test[0]
        t += 1
        two_codes = offsets[g + 1] - offsets[g] == 3 and table[offsets[g + 1] - 1, K] == 0
        t1 = _interval_feature(tests, t - 1, end, offsets, table, K, can_skip)
        if t1 >= 0 and n_blocks > 0:  # done alone: merged in scan order, ties to the first
            for bb in range(2, 4):
                if block_error[block, bb] < out_error[bb]:
                    out_error[bb] = block_error[block, bb]
                    out_tests[bb] = block_tests[block, bb]
            bounds[2] = min(bounds[2], block_bounds[block, 2])
            bounds[3] = min(bounds[3], block_bounds[block, 3])
            block += 1
            sweep_g = -1
            t = t1
            continue
        if t1 >= 0:
            _interval_block(tests, t - 1, t1, g, table, local, offsets, glob, categorical, K,
                            learn, max_subset, min_leaf, total, y, w, rows, by_slot,
                            slot_start, out_error, out_tests, work, left, right, bounds,
                            sorted_rows, orders, goes, node_feat)
            sweep_g = -1
            t = t1
            continue
        if left.shape[0] != table.shape[0]:  # a node of sweeps made no class tables
            left = np.zeros_like(table)
            right = np.zeros_like(table)
            sweep = np.zeros_like(table)
            sweep_missing = np.zeros_like(table)
        if test[1] == ORDERED and two_codes:
            # a binary feature without missing values here: one test; build the side with
            # fewer rows and take the other from the node's table
            low, high = offsets[g], offsets[g] + 1
            small_slot = high if table[high, K] < table[low, K] else low
            built = right if small_slot == high else left
            other = left if small_slot == high else right
            built[:, :] = 0
            for i in range(n):
                if local[i, g] == small_slot:
                    _add_row(built, local, i, y, w, rows, K)
            for s in range(table.shape[0]):
                for k in range(K + 1):
                    other[s, k] = table[s, k] - built[s, k]
        elif test[1] == ORDERED:
            if g != sweep_g or (sweep_pos > 0 and glob[local[by_slot[sweep_pos - 1], g]]
                                > test[2]):
                sweep_g = g
                _rows_by_slot(local, g, offsets, n, by_slot, slot_start)
                sweep[:, :] = 0
                sweep_missing[:, :] = 0
                sweep_pos = slot_start[offsets[g]]
                sweep_end = slot_start[offsets[g + 1] - 1]  # the missing rows follow
                for q in range(sweep_end, slot_start[offsets[g + 1]]):
                    _add_row(sweep_missing, local, by_slot[q], y, w, rows, K)
            while sweep_pos < sweep_end and glob[local[by_slot[sweep_pos], g]] <= test[2]:
                _add_row(sweep, local, by_slot[sweep_pos], y, w, rows, K)
                sweep_pos += 1
            for s in range(table.shape[0]):
                for k in range(K + 1):
                    v = sweep[s, k]
                    if test[3] == 1:
                        v += sweep_missing[s, k]
                    left[s, k] = v
                    right[s, k] = table[s, k] - v
        else:
            for i in range(n):
                row_flags[i] = goes_left(test, codes[rows[i], g])
            _side_tables(table, local, row_flags, n, K, y, w, rows, left, right)
        _evaluate_root(test, left, right, total, offsets, glob, categorical, K, learn,
                       max_subset, min_leaf, out_error, out_tests, work)
    for b in range(1, 4):
        if out_error[b - 1] <= out_error[b]:
            out_error[b] = out_error[b - 1]
            out_tests[b] = out_tests[b - 1]
    return n_tests, end


@njit(cache=True)
def solve_depth2(codes, y, w, rows, n_codes, categorical, n_classes, depth, learn,
                 max_subset, min_leaf, first, last, out_error, out_tests):
    """Exact optimum of the node ``rows`` at depth <= ``depth`` (1 or 2), for every split
    budget 0..3, over the root tests ``first`` to ``last - 1`` (in scan order):
    ``depth2_node`` then ``depth2_tests`` (a caller that cuts the work in pieces calls
    them itself, the node's part once).

    ``out_error[b]``: least misclassified weight of a tree with at most b splits;
    ``out_tests[b, j]``: its tests at the root (j=0), left child (1) and right child (2),
    feature -1 where the node is a leaf. With ``first == 0`` the outputs are reset to the
    leaf and the best single split; later calls (the next root tests) only improve them,
    so a caller may cut the work in pieces. Ties keep the first tree found (tests in scan
    order, left child before right). Returns ``(number of root tests, end)``: the call
    evaluated the root tests ``first`` to ``end - 1``, ``end >= last`` when there are that
    many (a numeric feature's cuts are not cut in two: their interval pruning needs them
    all), so the next piece starts at ``end``.
    """
    no_cap = np.sum(w[rows])  # no tree errs more than the node's weight
    node = depth2_node(codes, y, w, rows, n_codes, categorical, n_classes, depth, learn,
                       max_subset, min_leaf, first == 0, no_cap, no_cap, out_error,
                       out_tests)
    return depth2_tests(node, codes, y, w, rows, categorical, n_classes, learn, max_subset,
                        min_leaf, first, last, np.int64(1), out_error, out_tests)


@njit(cache=True)
def node_tests(codes, y, w, rows, n_codes, categorical, n_classes, learn, max_subset,
               min_leaf):
    """Every valid test of a node with its two-leaf error (for the upper levels)."""
    table, offsets, glob, _local = node_table(codes, y, w, rows, n_codes, n_classes)
    n_tests = count_tests(table, offsets, glob, categorical, n_classes, learn, max_subset,
                          min_leaf)
    tests = np.zeros((n_tests, TEST_WIDTH), dtype=np.int64)
    errors = np.zeros(n_tests, dtype=table.dtype)
    one = np.zeros((1, TEST_WIDTH), dtype=np.int64)
    scan_tests(table, offsets, glob, categorical, n_classes, learn, max_subset, min_leaf,
               table[0, 0], one, tests, errors)
    return tests, errors


@njit(cache=True)
def weight_outside(other, rows, w):
    """Weight of the rows of ``other`` that are not in ``rows`` (both sorted)."""
    total = w[0] - w[0]
    j = 0
    m = rows.shape[0]
    for i in range(other.shape[0]):
        r = other[i]
        while j < m and rows[j] < r:
            j += 1
        if j >= m or rows[j] != r:
            total += w[r]
    return total


@njit(cache=True)
def split_rows(codes, rows, test):
    """The node's rows that go left and those that go right (order kept)."""
    g = test[0]
    n = rows.shape[0]
    flags = np.empty(n, dtype=np.bool_)
    n_left = 0
    for i in range(n):
        flags[i] = goes_left(test, codes[rows[i], g])
        n_left += flags[i]
    left = np.empty(n_left, dtype=rows.dtype)
    right = np.empty(n - n_left, dtype=rows.dtype)
    a = 0
    b = 0
    for i in range(n):
        if flags[i]:
            left[a] = rows[i]
            a += 1
        else:
            right[b] = rows[i]
            b += 1
    return left, right
