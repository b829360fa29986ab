"""The sweep of sorted rows that finds the children's best single splits of a numeric
node (``_sweep_child_bests``) gives what the children's class tables give
(``_side_tables`` + ``_child_bests``): the same leaf and split errors and the same tests,
also when it skips the features that lower bounds rule out."""

import numpy as np
import pytest

from quercus._kernels import _optimal as K
from quercus.splitting.optimal_codes import encode_rows


def _node(seed):
    rng = np.random.default_rng(seed)
    n, f, k = int(rng.integers(2, 120)), int(rng.integers(1, 6)), int(rng.integers(2, 4))
    X = rng.integers(0, int(rng.integers(2, 40)), (n, f)).astype(np.float64)
    y = rng.integers(0, k, n).astype(np.int32)
    if rng.random() < 0.4:  # labels that follow a feature: splits with few errors
        y = ((X[:, 0] > np.median(X[:, 0])) ^ (rng.random(n) < 0.1)).astype(np.int32) % k
    w = rng.integers(1, 4, n).astype(np.int64) if rng.random() < 0.5 else np.ones(n, np.int64)
    fc = encode_rows(X, np.zeros(f, dtype=bool), None, "exact", 255)
    rows = np.sort(rng.choice(n, size=int(rng.integers(2, n + 1)), replace=False))
    return np.ascontiguousarray(fc.codes), y, w, rows.astype(np.int64), fc, k, rng


def _work(k, dtype):
    return (np.zeros(k + 1, dtype=dtype), np.zeros(k + 1, dtype=dtype),
            np.zeros((1, K.TEST_WIDTH), dtype=np.int64),
            np.zeros((1, K.TEST_WIDTH), dtype=np.int64),
            np.zeros((0, K.TEST_WIDTH), dtype=np.int64), np.zeros(0, dtype=dtype))


@pytest.mark.parametrize("seed", range(40))
def test_sweep_equals_class_tables(seed):
    codes, y, w, rows, fc, k, rng = _node(seed)
    table, offsets, glob, local = K.node_table(codes, y, w, rows, fc.n_codes, k)
    n, f = rows.size, codes.shape[1]
    orders = tuple(np.zeros((f, n), dtype=t) for t in (np.int64, np.int64, np.int64, w.dtype))
    K._feature_orders(local, offsets, glob, y, w, rows, orders)
    total = np.zeros(k + 1, dtype=w.dtype)
    for s in range(offsets[0], offsets[1]):
        total += table[s]
    for _ in range(5):
        goes = rng.random(n) < rng.random()
        min_leaf = int(rng.choice([1, 1, 2, 5]))
        by_sweep = _work(k, w.dtype)
        a = K._sweep_child_bests(goes, orders, y, w, rows, k, min_leaf, by_sweep,
                                 np.zeros((2, f), dtype=w.dtype), np.full(2, -1),
                                 np.zeros((2, f), dtype=w.dtype))
        # each feature's best in each child (its leaf's error when no cut is better)
        sides = np.zeros((2, k + 1), dtype=w.dtype)
        for i in range(n):
            sides[0 if goes[i] else 1, y[rows[i]]] += w[rows[i]]
            sides[0 if goes[i] else 1, k] += 1
        exact = np.zeros((2, f), dtype=w.dtype)
        for g in range(f):
            e = np.array([K.leaf_error(sides[0], k), K.leaf_error(sides[1], k)], dtype=w.dtype)
            K._sweep_feature(g, goes, orders, sides, k, min_leaf, e, np.full(2, -1), e.copy(),
                             np.ones(2, dtype=bool), np.empty((2, n), dtype=np.int64))
            exact[:, g] = e
        # valid lower bounds (each feature's best, minus a slack of 0-2) and a feature
        # swept first: some features are skipped, the answer stays the same
        bound = exact - rng.integers(0, 3, (2, f)).astype(w.dtype)
        first = rng.integers(-1, f, 2)
        pruned = _work(k, w.dtype)
        seen = np.zeros((2, f), dtype=w.dtype)
        c = K._sweep_child_bests(goes, orders, y, w, rows, k, min_leaf, pruned, bound,
                                 first, seen)
        assert [int(v) for v in c] == [int(v) for v in a]
        assert np.all(seen <= exact) and np.all(seen >= bound)
        for j in (2, 3):
            assert pruned[j][0].tolist() == by_sweep[j][0].tolist() or (
                pruned[j][0, 0] == by_sweep[j][0, 0] == K.NO_FEATURE)
        left, right = np.zeros_like(table), np.zeros_like(table)
        K._side_tables(table, local, goes, n, k, y, w, rows, left, right)
        by_tables = _work(k, w.dtype)
        b = K._child_bests(left, right, total, offsets, glob, fc.categorical, k, True, 8,
                           min_leaf, by_tables)
        assert [int(v) for v in a] == [int(v) for v in b]
        for j in (2, 3):  # the left and the right child's best test
            assert by_sweep[j][0, 0] == by_tables[j][0, 0]
            if by_tables[j][0, 0] != K.NO_FEATURE:
                assert by_sweep[j][0].tolist() == by_tables[j][0].tolist()
