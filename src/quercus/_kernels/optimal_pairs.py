"""The depth-2 solver for nodes where every feature is binary (docs/optimal.md).

When each feature takes at most two codes at a node and no value is missing there, every
feature gives one test (its lower code left), and one pass over the rows counts, for every
pair of features (a, b), the class weights of the rows with both at their upper code.
With the single-feature counts and the node's totals these give the four cells of every
depth-2 tree in O(K), so no child table is ever built (STreeD's specialised solver).
Tests, budgets and ties follow ``solve_depth2`` exactly: root tests in feature order, the
first strictly better child split wins, the right child's split is tried first for a
budget of 2 and a smaller tree is kept on a tie.
"""

from __future__ import annotations

import numpy as np

from ._jit import njit
from .optimal import NO_FEATURE, ORDERED, SUBSET, leaf_error


@njit(cache=True)
def binary_features(codes, rows, n_features):
    """``(ok, low, high)``: ok when no feature has a missing value or a third code among
    ``rows``; ``low[g] < high[g]`` are the two codes of feature g (high -1: one code)."""
    low = np.full(n_features, -1, dtype=np.int64)
    high = np.full(n_features, -1, dtype=np.int64)
    for i in range(rows.shape[0]):
        r = rows[i]
        for g in range(n_features):
            c = codes[r, g]
            if c < 0:
                return False, low, high
            if low[g] < 0:
                low[g] = c
            elif c != low[g]:
                if high[g] < 0:
                    high[g] = c
                elif c != high[g]:
                    return False, low, high
    for g in range(n_features):
        if high[g] >= 0 and high[g] < low[g]:
            low[g], high[g] = high[g], low[g]
    return True, low, high


_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)
_S1, _S2, _S4, _S56 = np.uint64(1), np.uint64(2), np.uint64(4), np.uint64(56)


@njit(cache=True)
def _popcount(x):
    x = x - ((x >> _S1) & _M1)
    x = (x & _M2) + ((x >> _S2) & _M2)
    x = (x + (x >> _S4)) & _M4
    return (x * _H01) >> _S56


@njit(cache=True)
def _symmetric(pair, K):
    """Copy the upper triangle of every layer of ``pair`` to the lower one."""
    p = pair.shape[1]
    for k in range(K + 1):
        for a in range(p):
            for b in range(a):
                pair[k, a, b] = pair[k, b, a]


@njit(cache=True)
def _pair_counts_rows(codes, y, w, rows, active, high, K, depth):
    """Node totals and ``pair[k, a, b]``: the class-k weight (k = K: the number) of the
    rows with features a and b at their upper code (a = b: feature a alone), by one pass
    over the rows (any weights)."""
    p = active.shape[0]
    total = np.zeros(K + 1, dtype=w.dtype)
    pair = np.zeros((K + 1, p, p), dtype=w.dtype)
    ups = np.empty(p, dtype=np.int64)
    for i in range(rows.shape[0]):
        r = rows[i]
        c = y[r]
        wr = w[r]
        total[c] += wr
        total[K] += 1
        m = 0
        for a in range(p):
            if codes[r, active[a]] == high[active[a]]:
                ups[m] = a
                m += 1
        for s in range(m):
            a = ups[s]
            pair[c, a, a] += wr
            pair[K, a, a] += 1
            if depth >= 2:
                for t in range(s + 1, m):
                    b = ups[t]
                    pair[c, a, b] += wr
                    pair[K, a, b] += 1
    _symmetric(pair, K)
    return total, pair


@njit(cache=True)
def _pair_counts_bits(codes, y, w, rows, active, high, K):
    """The same counts for unit weights: per feature a bitset of the rows at the upper
    code, each class in its own words (set for all features in one vectorised pass per
    row, then gathered for the active ones); a pair's count is the popcount of the AND."""
    p = active.shape[0]
    n = rows.shape[0]
    total = np.zeros(K + 1, dtype=w.dtype)
    for i in range(n):
        total[y[rows[i]]] += 1
    total[K] = n
    start = np.zeros(K + 1, dtype=np.int64)  # first word of each class
    for c in range(K):
        start[c + 1] = start[c] + (total[c] + 63) // 64
    n_features = codes.shape[1]
    every = np.zeros((start[K], n_features), dtype=np.uint64)
    fill = np.zeros(K, dtype=np.int64)
    for i in range(n):
        r = rows[i]
        c = y[r]
        pos = fill[c]
        fill[c] += 1
        word = every[start[c] + pos // 64]
        shift = np.uint64(pos % 64)
        code = codes[r]
        for g in range(n_features):
            word[g] |= np.uint64(code[g] == high[g]) << shift
    bits = np.empty((start[K], p), dtype=np.uint64)
    for q in range(start[K]):
        for a in range(p):
            bits[q, a] = every[q, active[a]]
    pair = np.zeros((K + 1, p, p), dtype=w.dtype)
    for c in range(K):
        layer = pair[c]
        for q in range(start[c], start[c + 1]):
            word = bits[q]
            for a in range(p):
                wa = word[a]
                if wa == 0:
                    continue
                row = layer[a]
                for b in range(a, p):
                    row[b] += np.int64(_popcount(wa & word[b]))
    _symmetric(pair, K)
    for c in range(K):
        for a in range(p):
            for b in range(p):
                pair[K, a, b] += pair[c, a, b]
    return total, pair


@njit(cache=True)
def _set_test(out, g, low, categorical):
    out[:] = 0
    out[0] = g
    if categorical[g]:
        out[1] = SUBSET
        out[4] = 1
        out[5] = low
    else:
        out[1] = ORDERED
        out[2] = low


@njit(cache=True)
def _first_below(e, bound):
    """``(b, e[b])`` for the first smallest entry of ``e`` when it is below ``bound``,
    else ``(-1, bound)``."""
    least = bound
    for b in range(e.shape[0]):
        least = min(least, e[b])
    if least < bound:
        for b in range(e.shape[0]):
            if e[b] == least:
                return b, least
    return -1, bound


@njit(cache=True)
def solve_depth2_binary(codes, y, w, rows, low, high, categorical, n_classes, depth,
                        min_leaf, out_error, out_tests):
    """``solve_depth2`` on a node that ``binary_features`` accepted (same outputs).
    Returns the number of root tests."""
    K = n_classes
    n_features = low.shape[0]
    active = np.empty(n_features, dtype=np.int64)
    p = 0
    for g in range(n_features):
        if high[g] >= 0:
            active[p] = g
            p += 1
    unit = True
    for i in range(rows.shape[0]):
        if w[rows[i]] != 1:
            unit = False
            break
    if unit and depth >= 2:
        total, pair = _pair_counts_bits(codes, y, w, rows, active[:p], high, K)
    else:
        total, pair = _pair_counts_rows(codes, y, w, rows, active[:p], high, K, depth)
    least = max(min_leaf, 1)
    leaf = leaf_error(total, K)
    out_tests[:, :, :] = 0
    out_tests[:, :, 0] = NO_FEATURE
    for b in range(4):
        out_error[b] = leaf
    up = np.empty((K + 1, p), dtype=w.dtype)  # rows at the upper code, per feature
    for k in range(K + 1):
        for a in range(p):
            up[k, a] = pair[k, a, a]
    side = np.zeros(K + 1, dtype=w.dtype)
    mine = np.zeros(K + 1, dtype=w.dtype)
    # single splits: feature a, lower code left
    best1 = leaf
    best1_g = -1
    valid = np.zeros(p, dtype=np.bool_)
    leaf_low = np.zeros(p, dtype=w.dtype)
    leaf_up = np.zeros(p, dtype=w.dtype)
    for a in range(p):
        for k in range(K + 1):
            mine[k] = up[k, a]
            side[k] = total[k] - up[k, a]
        valid[a] = side[K] >= least and mine[K] >= least
        leaf_low[a] = leaf_error(side, K)
        leaf_up[a] = leaf_error(mine, K)
        if valid[a] and leaf_low[a] + leaf_up[a] < best1:
            best1 = leaf_low[a] + leaf_up[a]
            best1_g = a
    if best1_g >= 0:
        for b in range(1, 4):
            out_error[b] = best1
            _set_test(out_tests[b, 0], active[best1_g], low[active[best1_g]], categorical)
    if depth < 2:
        return p
    # per root feature a, the four cells (a low/up, b low/up) for every b at once: their
    # weights s and largest class m, then each child's error when split by b (a pass over
    # b per class, which the compiler vectorises)
    cells = np.empty((10, p), dtype=w.dtype)
    s00, s01, s10, s11 = cells[0], cells[1], cells[2], cells[3]
    m00, m01, m10, m11 = cells[4], cells[5], cells[6], cells[7]
    e_low, e_up = cells[8], cells[9]
    up_rows = up[K]
    d1 = np.empty(2, dtype=w.dtype)
    pick = np.empty(2, dtype=np.int64)
    for a in range(p):
        if not valid[a]:
            continue
        cells[:8] = 0
        for k in range(K):
            both_k = pair[k, a]
            up_k = up[k]
            ua = up_k[a]
            tk = total[k]
            for b in range(p):
                both = both_k[b]
                v10 = ua - both
                v01 = up_k[b] - both
                v00 = tk - ua - up_k[b] + both
                s00[b] += v00
                s01[b] += v01
                s10[b] += v10
                s11[b] += both
                m00[b] = max(m00[b], v00)
                m01[b] = max(m01[b], v01)
                m10[b] = max(m10[b], v10)
                m11[b] = max(m11[b], both)
        rows_a = pair[K, a]
        n_a = up_rows[a]
        for b in range(p):  # a split leaving a cell under min_leaf rows is no better
            both = rows_a[b]
            e = (s00[b] - m00[b]) + (s01[b] - m01[b])
            ok = total[K] - n_a - up_rows[b] + both >= least and up_rows[b] - both >= least
            e_low[b] = e if ok else leaf_low[a]
            e = (s10[b] - m10[b]) + (s11[b] - m11[b])
            e_up[b] = e if n_a - both >= least and both >= least else leaf_up[a]
        e_low[a] = leaf_low[a]
        e_up[a] = leaf_up[a]
        # each child's best split: the first feature b (in order) strictly below its leaf
        pick[0], d1[0] = _first_below(e_low, leaf_low[a])
        pick[1], d1[1] = _first_below(e_up, leaf_up[a])
        g = active[a]
        if pick[1] >= 0 and leaf_low[a] + d1[1] < out_error[2]:
            out_error[2] = leaf_low[a] + d1[1]
            _set_test(out_tests[2, 0], g, low[g], categorical)
            out_tests[2, 1, :] = 0
            out_tests[2, 1, 0] = NO_FEATURE
            _set_test(out_tests[2, 2], active[pick[1]], low[active[pick[1]]], categorical)
        if pick[0] >= 0 and d1[0] + leaf_up[a] < out_error[2]:
            out_error[2] = d1[0] + leaf_up[a]
            _set_test(out_tests[2, 0], g, low[g], categorical)
            _set_test(out_tests[2, 1], active[pick[0]], low[active[pick[0]]], categorical)
            out_tests[2, 2, :] = 0
            out_tests[2, 2, 0] = NO_FEATURE
        if pick[0] >= 0 and pick[1] >= 0 and d1[0] + d1[1] < out_error[3]:
            out_error[3] = d1[0] + d1[1]
            _set_test(out_tests[3, 0], g, low[g], categorical)
            _set_test(out_tests[3, 1], active[pick[0]], low[active[pick[0]]], categorical)
            _set_test(out_tests[3, 2], active[pick[1]], low[active[pick[1]]], categorical)
    for b in range(1, 4):
        if out_error[b - 1] <= out_error[b]:
            out_error[b] = out_error[b - 1]
            out_tests[b] = out_tests[b - 1]
    return p
