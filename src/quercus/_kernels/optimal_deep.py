"""The depth-3 level of the optimal-tree search on binary data, compiled (docs/optimal.md).

``solve_depth3_binary`` runs the loop that ``Search.solve`` runs at a node of depth 3 with a
full split budget when every feature is binary, without going back to Python per test: the
node's tests in the given order, for each the larger child solved first by the pair-count
depth-2 solver and the other one only while the split can still beat the best tree so far,
a child skipped when the similarity bound from the last two solved children proves that it
cannot. Only strictly better trees are taken, so the tree found is the one of the Python
loop.
"""

from __future__ import annotations

import numpy as np

from ._jit import njit
from .optimal import NO_FEATURE, TEST_WIDTH, split_rows, weight_outside
from .optimal_pairs import solve_depth2_binary

SIMILAR_KEPT = 2  # solved children kept for the similarity bound


@njit(cache=True)
def _penalised(error, tests, alpha, budget):
    """The best of the depth-2 solver's trees within ``budget`` splits when each split
    costs ``alpha``: ``(cost, its budget)``, the smaller budget on a tie."""
    best = error[0]
    best_b = 0
    for b in range(1, min(budget, 3) + 1):
        splits = 0
        if tests[b, 0, 0] != NO_FEATURE:
            for j in range(3):
                splits += tests[b, j, 0] != NO_FEATURE
        cost = error[b] + alpha * splits
        if cost < best:
            best = cost
            best_b = b
    return best, best_b


_FNV_BASIS = np.uint64(14695981039346656037)
_FNV_PRIME = np.uint64(1099511628211)


@njit(cache=True)
def _hash(rows):
    """FNV-1a hash of a row set."""
    h = _FNV_BASIS
    for i in range(rows.shape[0]):
        h = (h ^ np.uint64(rows[i])) * _FNV_PRIME
    return h


@njit(cache=True)
def _slot(memo, rows, h):
    """The slot of ``rows`` in the memo's table: its entry (``entry_of[slot]`` >= 0) or
    the empty slot where it goes (linear probing, entries checked row by row)."""
    slot_hash, entry_of, start, length = memo[0], memo[1], memo[2], memo[3]
    pool = memo[6]
    mask = np.uint64(slot_hash.shape[0] - 1)
    i = np.int64(h & mask)
    n = rows.shape[0]
    while entry_of[i] >= 0:
        e = entry_of[i]
        if slot_hash[i] == h and length[e] == n:
            s = start[e]
            same = True
            for j in range(n):
                if pool[s + j] != rows[j]:
                    same = False
                    break
            if same:
                return i
        i = np.int64((np.uint64(i) + np.uint64(1)) & mask)
    return i


@njit(cache=True)
def _store(memo, rows, h, i, value, exact):
    """Record ``value`` (the optimum when ``exact``, else a lower bound) for ``rows`` at
    slot ``i`` from ``_slot``."""
    slot_hash, entry_of, start, length = memo[0], memo[1], memo[2], memo[3]
    values, exacts, pool, used = memo[4], memo[5], memo[6], memo[7]
    e = entry_of[i]
    if e < 0:
        e = used[0]
        used[0] += 1
        entry_of[i] = e
        slot_hash[i] = h
        start[e] = used[1]
        length[e] = rows.shape[0]
        pool[used[1]:used[1] + rows.shape[0]] = rows
        used[1] += rows.shape[0]
    values[e] = value
    exacts[e] = exact


@njit(cache=True)
def rehash(slot_hash, entry_of, start, length, pool, n_entries, size):
    """The table of ``size`` slots (a power of two) for the first ``n_entries`` entries."""
    new_hash = np.zeros(size, dtype=np.uint64)
    new_entry = np.full(size, -1, dtype=np.int64)
    mask = np.uint64(size - 1)
    for e in range(n_entries):
        h = _hash(pool[start[e]:start[e] + length[e]])
        i = np.int64(h & mask)
        while new_entry[i] >= 0:
            i = np.int64((np.uint64(i) + np.uint64(1)) & mask)
        new_entry[i] = e
        new_hash[i] = h
    return new_hash, new_entry


@njit(cache=True)
def _solve_child(codes, y, w, rows, low, high, categorical, n_classes, min_leaf, alpha,
                 error, tests):
    """The optimum of a depth-2 child with a full budget; its tree in ``tests[b]``."""
    solve_depth2_binary(codes, y, w, rows, low, high, categorical, n_classes, np.int64(2), min_leaf,
                        error, tests)
    return _penalised(error, tests, alpha, 3)


@njit(cache=True)
def _child(codes, y, w, rows, h, i, low, high, categorical, n_classes, min_leaf, alpha,
           bound, similar, memo, error, tests, out, stats):
    """``Search.solve`` for a depth-2 child with a full budget (at slot ``i`` of the memo):
    ``(cost, solved, known)``: the optimum below ``bound`` (its tree in ``out`` unless
    ``known``, when it came from the memo), else a lower bound >= ``bound``."""
    entry_of, values, exacts = memo[1], memo[4], memo[5]
    kept, kept_n, kept_cost, used = memo[8], memo[9], memo[10], memo[7]
    stats[0] += 1
    e = entry_of[i]
    if e >= 0:
        stats[3] += 1
        if exacts[e]:
            return values[e], values[e] < bound, True
        if values[e] >= bound:
            return values[e], False, True
    if similar:
        lower = bound - bound
        for j in range(SIMILAR_KEPT):
            if kept_n[j] >= 0:
                lower = max(lower, kept_cost[j] - weight_outside(kept[j, :kept_n[j]], rows,
                                                                 w))
        if lower >= bound:
            stats[2] += 1
            _store(memo, rows, h, i, lower, np.bool_(False))
            return lower, False, True
    cost, b = _solve_child(codes, y, w, rows, low, high, categorical, n_classes, min_leaf,
                           alpha, error, tests)
    stats[1] += 1
    _store(memo, rows, h, i, cost, np.bool_(True))
    if similar:  # the newest solved set takes the older one's slot
        j = used[2] % SIMILAR_KEPT
        used[2] += 1
        kept[j, :rows.shape[0]] = rows
        kept_n[j] = rows.shape[0]
        kept_cost[j] = cost
    out[:, :] = tests[b]
    return cost, cost < bound, False


@njit(cache=True)
def solve_depth3_binary(codes, y, w, rows, tests, order, first, last, low, high,
                        categorical, n_classes, min_leaf, alpha, similar, best, memo, out,
                        stats):
    """Try the splits ``tests[order[first:last]]`` of a depth-3 node against ``best`` (the
    cost to beat), with the memo of depth-2 children (``Search.memo``: cached optima and
    lower bounds by row set, and the solved sets of the similarity bound).

    Returns ``(best, best_t, stop)``: ``best_t`` >= 0 is the test of the best tree found
    here (its children's depth-2 trees, in the depth-2 solver's layout, in ``out[0]`` and
    ``out[1]``), -1 when none beat ``best``; ``stop`` < ``last`` when no split can beat
    ``best`` any more. ``stats`` adds the children visited, solved, pruned by similarity
    and found in the memo.
    """
    error = np.zeros(4, dtype=w.dtype)
    work = np.zeros((4, 3, TEST_WIDTH), dtype=np.int64)
    trees = np.zeros((2, 3, TEST_WIDTH), dtype=np.int64)
    entry_of, values = memo[1], memo[4]
    lower = np.zeros(2, dtype=w.dtype)  # the children's lower bounds from the memo
    best_t = -1
    for i in range(first, last):
        if best <= alpha:  # no split can beat a perfect tree
            return best, best_t, i
        t = order[i]
        sides = split_rows(codes, rows, tests[t])
        h = (_hash(sides[0]), _hash(sides[1]))
        slots = (_slot(memo, sides[0], h[0]), _slot(memo, sides[1], h[1]))
        for s in range(2):
            e = entry_of[slots[s]]
            lower[s] = values[e] if e >= 0 else 0
        if lower[0] + lower[1] + alpha >= best:
            continue
        a = 1 if sides[1].shape[0] > sides[0].shape[0] else 0  # the larger child first
        cost_a, ok, known_a = _child(codes, y, w, sides[a], h[a], slots[a], low, high,
                                     categorical, n_classes, min_leaf, alpha,
                                     best - alpha - lower[1 - a], similar, memo, error,
                                     work, trees[a], stats)
        if not ok:
            continue
        b = 1 - a  # its slot again: the first child may have taken it
        cost_b, ok, known_b = _child(codes, y, w, sides[b], h[b],
                                     _slot(memo, sides[b], h[b]), low, high,
                                     categorical, n_classes, min_leaf, alpha,
                                     best - alpha - cost_a, similar, memo, error, work,
                                     trees[b], stats)
        if not ok:
            continue
        best = cost_a + cost_b + alpha
        best_t = t
        for s in range(2):
            if known_a if s == a else known_b:  # from the memo: solve again for its tree
                _, k = _solve_child(codes, y, w, sides[s], low, high, categorical,
                                    n_classes, min_leaf, alpha, error, work)
                trees[s] = work[k]
        out[:, :, :] = trees
    return best, best_t, last
