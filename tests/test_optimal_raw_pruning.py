"""The depth-2 solver on raw numeric nodes against a plain reference that follows its tie
rules, written here in Python: every root cut in scan order, each child's best single cut
(features in order, cuts increasing, the first strictly better kept), the per-budget
bests as ``solve_depth2`` documents them. The kernel skips most root cuts (the interval
pruning from the evaluated cuts around them, per child and per feature), stops its
sweeps early, and bounds its first trees from a few features; the problems here are small,
tie-heavy and noisy, so that a pruning that skipped a cut whose bound only equals the best
(one error too bold) picks another tree among the ties and fails."""

import numpy as np
import pytest

from quercus._kernels import _optimal as K
from quercus.splitting.optimal_codes import encode_rows


def _leaf(counts):
    return counts.sum() - counts.max()


def _best_single(codes, y, w, rows, k):
    """(leaf error, best error, (feature, cut code) or None) of a node, first strictly
    better kept."""
    counts = np.bincount(y[rows], weights=w[rows], minlength=k)
    leaf = _leaf(counts)
    best, test = leaf, None
    for g in range(codes.shape[1]):
        col = codes[rows, g]
        order = np.argsort(col, kind="stable")
        sorted_codes = col[order]
        onehot = np.zeros((rows.size, k))
        onehot[np.arange(rows.size), y[rows][order]] = w[rows][order]
        prefix = np.cumsum(onehot, axis=0)
        for q in range(rows.size - 1):
            if sorted_codes[q] == sorted_codes[q + 1]:
                continue
            e = _leaf(prefix[q]) + _leaf(counts - prefix[q])
            if e < best:
                best, test = e, (g, int(sorted_codes[q]))
    return leaf, best, test


def reference(codes, y, w, k):
    """out_error (budgets 0-3) and the (feature, cut) of each tree's root, left and right
    child (None: a leaf), by the rules of ``solve_depth2``."""
    rows = np.arange(y.size)
    leaf, best1, test1 = _best_single(codes, y, w, rows, k)
    error = [leaf] + [best1 if test1 is not None else leaf] * 3
    trees = [(None, None, None)] + [(test1, None, None)] * 3
    for g in range(codes.shape[1]):
        for c in np.unique(codes[:, g])[:-1]:
            goes = codes[:, g] <= c
            leaf_l, d1_l, t_l = _best_single(codes, y, w, rows[goes], k)
            leaf_r, d1_r, t_r = _best_single(codes, y, w, rows[~goes], k)
            root = (g, int(c))
            own, side = leaf_l + d1_r, (1 if t_r is not None else 0)
            if t_l is not None and (side == 0 or d1_l + leaf_r < own):
                own, side = d1_l + leaf_r, 2
            if side > 0 and own < error[2]:
                error[2] = own
                trees[2] = (root, None, t_r) if side == 1 else (root, t_l, None)
            if t_l is not None and t_r is not None and d1_l + d1_r < error[3]:
                error[3] = d1_l + d1_r
                trees[3] = (root, t_l, t_r)
    for b in range(1, 4):
        if error[b - 1] <= error[b]:
            error[b], trees[b] = error[b - 1], trees[b - 1]
    return error, trees


def _problem(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 70))
    n_features = int(rng.integers(1, 4))
    k = 2 if seed % 3 else 3
    cols = []
    for f in range(n_features):
        if f == 0 or rng.random() < 0.5:  # distinct values: long blocks of cuts
            cols.append(rng.permutation(n).astype(float))
        else:  # few values: ties between rows
            cols.append(rng.integers(0, int(rng.integers(3, 12)), n).astype(float))
    X = np.column_stack(cols)
    t0, t1 = rng.integers(0, n), rng.integers(0, n)
    y = ((X[:, 0] > t0) ^ (X[:, -1] > np.median(X[:, -1]))).astype(np.int32)
    y = np.where(rng.random(n) < 0.2, rng.integers(0, k, n), y).astype(np.int32) % k
    if rng.random() < 0.3:  # a second signal: depth-2 trees tie with one another
        y = np.where(X[:, 0] > t1, y, 1 - y % 2).astype(np.int32) % k
    w = np.ones(n, np.int64) if rng.random() < 0.6 else rng.integers(1, 4, n).astype(np.int64)
    fc = encode_rows(X, np.zeros(n_features, dtype=bool), None, "exact", 255)
    return np.ascontiguousarray(fc.codes), y, w, fc, k


def _solve(codes, y, w, fc, k, pieces=None):
    rows = np.arange(y.size, dtype=np.int64)
    error = np.zeros(4, dtype=w.dtype)
    tests = np.zeros((4, 3, K.TEST_WIDTH), dtype=np.int64)
    if pieces is None:
        K.solve_depth2(codes, y, w, rows, fc.n_codes, fc.categorical, k, 2, True, 8, 1, 0,
                       1 << 20, error, tests)
        return error, tests
    # the per-node part once, the root tests in pieces, as the search does under a limit
    no_cap = w.sum()
    node = K.depth2_node(codes, y, w, rows, fc.n_codes, fc.categorical, k, 2, True, 8, 1,
                         True, no_cap, no_cap, error, tests)
    first = 0
    while True:
        n_tests, first = K.depth2_tests(node, codes, y, w, rows, fc.categorical, k, True, 8,
                                        1, first, first + pieces, np.int64(1), error, tests)
        if first >= n_tests:
            return error, tests


def _as_trees(tests):
    out = []
    for b in range(4):
        tree = []
        for j in range(3):
            t = tests[b, j]
            tree.append(None if t[0] == K.NO_FEATURE else (int(t[0]), int(t[2])))
        out.append(tuple(tree))
    return out


@pytest.mark.parametrize("seed", range(60))
def test_depth2_equals_plain_reference(seed):
    codes, y, w, fc, k = _problem(seed)
    expected_error, expected_trees = reference(codes, y, w, k)
    error, tests = _solve(codes, y, w, fc, k)
    assert [int(e) for e in error] == [int(e) for e in expected_error]
    assert _as_trees(tests) == expected_trees


@pytest.mark.parametrize("seed", range(0, 60, 4))
def test_depth2_in_pieces_equals_one_call(seed):
    """depth2_node once, then depth2_tests over pieces of root tests: the same trees as
    solve_depth2 (a feature's cuts are never cut in two)."""
    codes, y, w, fc, k = _problem(seed)
    error, tests = _solve(codes, y, w, fc, k)
    for pieces in (1, 7, 50):
        error_p, tests_p = _solve(codes, y, w, fc, k, pieces)
        assert error_p.tolist() == error.tolist()
        assert tests_p.tolist() == tests.tolist()


@pytest.mark.parametrize("seed", range(30))
def test_capped_sweep_is_exact_below_its_limit(seed):
    """A sweep capped at ``limit`` returns a feature's exact best when that is below the
    limit (or equal, with ties), else a lower bound on it with no cut."""
    rng = np.random.default_rng(seed)
    codes, y, w, fc, k = _problem(seed)
    rows = np.arange(y.size, dtype=np.int64)
    _table, offsets, glob, local = K.node_table(codes, y, w, rows, fc.n_codes, k)
    n, f = rows.size, codes.shape[1]
    orders = tuple(np.zeros((f, n), dtype=t) for t in (np.int64, np.int64, np.int64, w.dtype))
    K._feature_orders(local, offsets, glob, y, w, rows, orders)
    goes = rng.random(n) < rng.random()
    sides = np.zeros((2, k + 1), dtype=w.dtype)
    for i in range(n):
        sides[0 if goes[i] else 1, y[i]] += w[i]
        sides[0 if goes[i] else 1, k] += 1
    leaves = np.array([K.leaf_error(sides[0], k), K.leaf_error(sides[1], k)], dtype=w.dtype)
    packed = np.empty((2, n), dtype=np.int64)  # the sweep's scratch
    for g in range(f):
        exact, cut = leaves.copy(), np.full(2, -1)
        K._sweep_feature(g, goes, orders, sides, k, 1, exact, cut, leaves.copy(),
                         np.ones(2, dtype=bool), packed)
        for _ in range(4):
            limit = np.maximum(exact + rng.integers(-3, 2, 2), 0).astype(w.dtype)
            ties = rng.random(2) < 0.5
            e, c = leaves.copy(), np.full(2, -1)
            K._sweep_feature(g, goes, orders, sides, k, 1, e, c, limit, ties, packed)
            for s in range(2):
                if exact[s] < limit[s] or (exact[s] == limit[s] and ties[s]):
                    assert (e[s], c[s]) == (exact[s], cut[s])
                else:
                    assert e[s] <= exact[s]
                    assert c[s] == -1 or (e[s], c[s]) == (exact[s], cut[s])


@pytest.mark.parametrize("seed", range(0, 60, 2))
def test_capped_solve_is_exact_below_its_caps_and_bounds_above(seed):
    """``depth2_node``'s caps (the search's bound on a child): a tree of b splits erring
    at most cap_b is found exactly as without caps; above, the kernel's trees and the
    least bound of the cuts it skipped bound the optimum from below, above the cap."""
    rng = np.random.default_rng(seed)
    codes, y, w, fc, k = _problem(seed)
    expected_error, expected_trees = reference(codes, y, w, k)
    rows = np.arange(y.size, dtype=np.int64)
    for _ in range(6):
        cap3 = w.dtype.type(max(0, expected_error[3] + rng.integers(-4, 3)))
        cap2 = w.dtype.type(cap3 + rng.integers(0, 3))  # 2 splits cost less than 3
        error = np.zeros(4, dtype=w.dtype)
        tests = np.zeros((4, 3, K.TEST_WIDTH), dtype=np.int64)
        node = K.depth2_node(codes, y, w, rows, fc.n_codes, fc.categorical, k, 2, True, 8,
                             1, True, cap2, cap3, error, tests)
        K.depth2_tests(node, codes, y, w, rows, fc.categorical, k, True, 8, 1, 0, 1 << 20,
                       np.int64(1), error, tests)
        skipped = node[9]
        trees = _as_trees(tests)
        for b, cap in ((2, cap2), (3, cap3)):
            if expected_error[b] <= cap:
                assert error[b] == expected_error[b]
                assert trees[b] == expected_trees[b]
            else:
                assert cap < min(error[b], skipped[b]) <= expected_error[b]


def _large_problem(seed):
    """A node large enough for the threads to share its features' interval blocks."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1100, 1300))
    X = rng.normal(size=(n, int(rng.integers(3, 5))))
    X[:, -1] = np.round(X[:, -1] * 20)  # ties
    k = 2 if seed % 2 else 3
    y = ((X[:, 0] > 0.3) ^ (X[:, 1] < -0.2)).astype(np.int32)
    y = np.where(rng.random(n) < 0.15, rng.integers(0, k, n), y).astype(np.int32) % k
    w = np.ones(n, np.int64) if seed % 3 else rng.integers(1, 4, n).astype(np.int64)
    fc = encode_rows(X, np.zeros(X.shape[1], dtype=bool), None, "exact", 255)
    cuts = int(sum(fc.n_codes - 1))
    assert n * cuts >= K.PARALLEL_WORK  # the blocks are shared among the threads
    return np.ascontiguousarray(fc.codes), y, w, fc, k


def _capped_solve(codes, y, w, fc, k, cap, threads):
    rows = np.arange(y.size, dtype=np.int64)
    error = np.zeros(4, dtype=w.dtype)
    tests = np.zeros((4, 3, K.TEST_WIDTH), dtype=np.int64)
    node = K.depth2_node(codes, y, w, rows, fc.n_codes, fc.categorical, k, 2, True, 8, 1,
                         True, cap, cap, error, tests)
    K.depth2_tests(node, codes, y, w, rows, fc.categorical, k, True, 8, 1, 0, 1 << 20,
                   np.int64(threads), error, tests)
    return error, tests, node[9]


@pytest.mark.parametrize("seed", range(6))
def test_blocks_shared_among_threads_give_the_same_trees(seed):
    """With threads, each feature's interval block runs alone from the bests before the
    blocks and the results merge in scan order: the trees of the blocks taken in turn
    (which equal the plain reference above), capped or not; the bounds of the cuts
    skipped still bound the optimum."""
    codes, y, w, fc, k = _large_problem(seed)
    serial, serial_tests, _ = _capped_solve(codes, y, w, fc, k, w.sum(), 1)
    for cap in (w.sum(), serial[3] + 1, serial[3], serial[3] - 2):
        cap = w.dtype.type(cap)
        error, tests, skipped = _capped_solve(codes, y, w, fc, k, cap, 2)
        one, one_tests, _ = _capped_solve(codes, y, w, fc, k, cap, 1)
        assert error.tolist() == one.tolist()
        assert _as_trees(tests) == _as_trees(one_tests)
        for b in (2, 3):
            if serial[b] <= cap:
                assert error[b] == serial[b]
                assert _as_trees(tests)[b] == _as_trees(serial_tests)[b]
            else:
                assert cap < min(error[b], skipped[b]) <= serial[b]
