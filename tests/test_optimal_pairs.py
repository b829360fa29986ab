"""The pair-count depth-2 solver gives what the general one gives on binary nodes: the
same errors per split budget and the same tests (ties broken the same way)."""

import numpy as np
import pytest
from quercus._kernels._optimal import (
    NO_FEATURE,
    TEST_WIDTH,
    binary_features,
    solve_depth2,
    solve_depth2_binary,
)


def _problem(seed):
    rng = np.random.default_rng(seed)
    n, f, k = int(rng.integers(1, 150)), int(rng.integers(1, 7)), int(rng.integers(2, 4))
    codes = np.zeros((n, f), dtype=np.int32)
    n_codes = np.zeros(f, dtype=np.int64)
    categorical = rng.random(f) < 0.3
    for g in range(f):
        m = int(rng.integers(1, 4))  # global codes; the node uses two of them (or one)
        pair = np.sort(rng.choice(m + 1, size=min(2, m + 1), replace=False))
        codes[:, g] = rng.choice(pair, size=n, p=None if rng.random() < 0.5 else
                                 [0.8, 0.2][:pair.size] / np.sum([0.8, 0.2][:pair.size]))
        n_codes[g] = m + 1
    y = rng.integers(0, k, n).astype(np.int32)
    if rng.random() < 0.3:
        y = (codes[:, 0] ^ codes[:, -1] ^ (rng.random(n) < 0.1)).astype(np.int32) % k
    w = rng.integers(1, 3, n).astype(np.int64) if rng.random() < 0.5 else np.ones(n, np.int64)
    if rng.random() < 0.2:
        w = w.astype(np.float64)
    rows = np.sort(rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False))
    return codes, y, w, rows.astype(np.int64), n_codes, categorical, k


@pytest.mark.parametrize("seed", range(60))
def test_pairs_equal_general_solver(seed):
    codes, y, w, rows, n_codes, categorical, k = _problem(seed)
    ok, low, high = binary_features(codes, rows, codes.shape[1])
    assert ok
    rng = np.random.default_rng(1000 + seed)
    for depth in (1, 2):
        for learn in (True, False):
            max_subset = int(rng.choice([0, 8]))
            min_leaf = int(rng.choice([1, 1, 3]))
            err_a = np.zeros(4, dtype=w.dtype)
            tests_a = np.zeros((4, 3, TEST_WIDTH), dtype=np.int64)
            solve_depth2(codes, y, w, rows, n_codes, categorical, k, depth, learn, max_subset,
                         min_leaf, 0, 1 << 20, err_a, tests_a)
            err_b = np.zeros(4, dtype=w.dtype)
            tests_b = np.zeros((4, 3, TEST_WIDTH), dtype=np.int64)
            solve_depth2_binary(codes, y, w, rows, low, high, categorical, k, depth, min_leaf,
                                err_b, tests_b)
            assert err_a.tolist() == err_b.tolist()
            for b in range(4):
                for j in range(3):
                    assert tests_a[b, j, 0] == tests_b[b, j, 0]
                    if tests_a[b, j, 0] != NO_FEATURE:
                        assert tests_a[b, j].tolist() == tests_b[b, j].tolist()


def test_binary_features_refuses_missing_and_third_codes():
    rows = np.arange(3, dtype=np.int64)
    assert not binary_features(np.array([[0], [1], [2]], np.int32), rows, 1)[0]
    assert not binary_features(np.array([[0], [-1], [0]], np.int32), rows, 1)[0]
    ok, low, high = binary_features(np.array([[5, 1], [2, 1], [5, 1]], np.int32), rows, 2)
    assert ok and low.tolist() == [2, 1] and high.tolist() == [5, -1]
