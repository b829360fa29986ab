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
def _pair_counts_rows(codes, y, w, rows, active, high, K, depth):
    """Node totals, per-feature and per-pair class weights (last column: rows), by one
    pass over the rows (any weights)."""
    p = active.shape[0]
    total = np.zeros(K + 1, dtype=w.dtype)
    up = np.zeros((p, K + 1), dtype=w.dtype)  # rows at the upper code, per feature
    pair = np.zeros((p, p, K + 1), dtype=w.dtype)  # both up, a < b
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
            up[a, c] += wr
            up[a, K] += 1
            if depth >= 2:
                for t in range(s + 1, m):
                    b = ups[t]
                    pair[a, b, c] += wr
                    pair[a, b, K] += 1
    return total, up, pair


@njit(cache=True)
def _pair_counts_bits(codes, y, w, rows, active, high, K):
    """The same counts for unit weights: per class and feature a bitset of the rows at the
    upper code; a pair's count is the popcount of the AND (exact integers)."""
    p = active.shape[0]
    n = rows.shape[0]
    total = np.zeros(K + 1, dtype=w.dtype)
    for i in range(n):
        total[y[rows[i]]] += 1
    total[K] = n
    start = np.zeros(K + 1, dtype=np.int64)  # first word of each class
    for c in range(K):
        start[c + 1] = start[c] + (total[c] + 63) // 64
    n_words = start[K]
    bits = np.zeros((p, n_words), dtype=np.uint64)
    fill = np.zeros(K, dtype=np.int64)
    up = np.zeros((p, K + 1), dtype=w.dtype)
    one = np.uint64(1)
    for i in range(n):
        r = rows[i]
        c = y[r]
        pos = fill[c]
        fill[c] += 1
        word = start[c] + pos // 64
        bit = one << np.uint64(pos % 64)
        for a in range(p):
            if codes[r, active[a]] == high[active[a]]:
                bits[a, word] |= bit
                up[a, c] += 1
                up[a, K] += 1
    pair = np.zeros((p, p, K + 1), dtype=w.dtype)
    for a in range(p):
        for b in range(a + 1, p):
            both = np.uint64(0)
            for c in range(K):
                count = np.uint64(0)
                for q in range(start[c], start[c + 1]):
                    count += _popcount(bits[a, q] & bits[b, q])
                pair[a, b, c] = count
                both += count
            pair[a, b, K] = both
    return total, up, pair


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
        total, up, pair = _pair_counts_bits(codes, y, w, rows, active[:p], high, K)
    else:
        total, up, pair = _pair_counts_rows(codes, y, w, rows, active[:p], high, K, depth)
    least = max(min_leaf, 1)
    leaf = leaf_error(total, K)
    out_tests[:, :, :] = 0
    out_tests[:, :, 0] = NO_FEATURE
    for b in range(4):
        out_error[b] = leaf
    side = np.zeros(K + 1, dtype=w.dtype)
    # single splits: feature a, lower code left
    best1 = leaf
    best1_g = -1
    valid = np.zeros(p, dtype=np.bool_)
    leaf_low = np.zeros(p, dtype=w.dtype)
    leaf_up = np.zeros(p, dtype=w.dtype)
    for a in range(p):
        for k in range(K + 1):
            side[k] = total[k] - up[a, k]
        valid[a] = side[K] >= least and up[a, K] >= least
        leaf_low[a] = leaf_error(side, K)
        leaf_up[a] = leaf_error(up[a], K)
        if valid[a] and leaf_low[a] + leaf_up[a] < best1:
            best1 = leaf_low[a] + leaf_up[a]
            best1_g = a
    if best1_g >= 0:
        for b in range(1, 4):
            out_error[b] = best1
            _set_test(out_tests[b, 0], active[best1_g], low[active[best1_g]], categorical)
    if depth < 2:
        return p
    zero = total[0] - total[0]
    d1 = np.empty(2, dtype=w.dtype)
    pick = np.empty(2, dtype=np.int64)
    for a in range(p):
        if not valid[a]:
            continue
        # each child's best split: the first feature b (in order) strictly below its leaf
        pick[:] = -1
        d1[0] = leaf_low[a]
        d1[1] = leaf_up[a]
        for b in range(p):
            if b == a:
                continue
            lo_ = min(a, b)
            hi_ = max(a, b)
            # the four cells (a down/up, b down/up): their weights, largest class, rows
            s00 = s01 = s10 = s11 = zero
            m00 = m01 = m10 = m11 = zero
            for k in range(K):
                both = pair[lo_, hi_, k]
                v10 = up[a, k] - both
                v01 = up[b, k] - both
                v00 = total[k] - up[a, k] - up[b, k] + both
                s00 += v00
                s01 += v01
                s10 += v10
                s11 += both
                m00 = max(m00, v00)
                m01 = max(m01, v01)
                m10 = max(m10, v10)
                m11 = max(m11, both)
            both = pair[lo_, hi_, K]
            n10 = up[a, K] - both
            n01 = up[b, K] - both
            n00 = total[K] - up[a, K] - up[b, K] + both
            if n00 >= least and n01 >= least:
                e = (s00 - m00) + (s01 - m01)
                if e < d1[0]:
                    d1[0] = e
                    pick[0] = b
            if n10 >= least and both >= least:
                e = (s10 - m10) + (s11 - m11)
                if e < d1[1]:
                    d1[1] = e
                    pick[1] = b
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
