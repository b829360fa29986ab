"""Pieces of the depth-2 solver that compute a known quantity a faster way, each against
the plain computation: the per-feature cut bounds by steps (``_feature_steps``, and the
interval pruning that walks them) against ``_cut_bound_by_features``, the node's tests
written in one scan against ``node_tests``, the node's present codes ordered by their
range or by a sort against ``np.unique``, the features by their bounds against a stable
argsort."""

import numpy as np
import pytest

from quercus._kernels import _optimal as K
from quercus.splitting.optimal_codes import encode_rows


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("dtype", [np.int64, np.float64])
def test_feature_steps_give_the_least_bound_over_the_features(seed, dtype):
    """min over g of max(a[g], b[g] - x), for every weight x moved, from the steps."""
    rng = np.random.default_rng(seed)
    f = int(rng.integers(1, 12))
    a = rng.integers(0, 9, f).astype(dtype)
    b = (a + rng.integers(-3, 12, f)).astype(dtype)  # steps of every sign, ties
    big = dtype(1000)
    out = np.empty((3, f + 1), dtype=dtype)
    K._feature_steps(a, b, out, big)
    assert np.all(np.diff(out[0, :f]) >= 0)
    for x in range(20):
        p = int(np.sum(out[0, :f] <= x))
        plain = np.min(np.maximum(a, b - x))
        assert min(out[1, p], out[2, p] - x) == plain


def _numeric_node(seed):
    """A node of numeric features without missing values (the sweeps' nodes), long
    chains of cuts (distinct values) and ties, 2-3 classes, unit or whole weights."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(30, 90))
    f = int(rng.integers(2, 5))
    cols = [rng.permutation(n).astype(float) if g == 0 or rng.random() < 0.6
            else rng.integers(0, int(rng.integers(4, 20)), n).astype(float) for g in range(f)]
    X = np.column_stack(cols)
    k = 2 if seed % 3 else 3
    y = ((X[:, 0] > rng.integers(0, n)) ^ (X[:, -1] > np.median(X[:, -1]))).astype(np.int32)
    y = np.where(rng.random(n) < 0.25, rng.integers(0, k, n), y).astype(np.int32) % k
    w = np.ones(n, np.int64) if rng.random() < 0.6 else rng.integers(1, 4, n).astype(np.int64)
    fc = encode_rows(X, np.zeros(f, dtype=bool), None, "exact", 255)
    return np.ascontiguousarray(fc.codes), y, w, fc, k, rng


def _solve(codes, y, w, fc, k, cap):
    """The depth-2 solve's errors, trees and cut bounds."""
    rows = np.arange(y.size, dtype=np.int64)
    error = np.zeros(4, dtype=w.dtype)
    tests = np.zeros((4, 3, K.TEST_WIDTH), dtype=np.int64)
    node = K.depth2_node(codes, y, w, rows, fc.n_codes, fc.categorical, k, 2, True, 8,
                         1, True, cap, cap, error, tests)
    assert node[10][2] == 1  # a node of sweeps: the per-feature bounds are used
    K.depth2_tests(node, codes, y, w, rows, fc.categorical, k, True, 8, 1, 0, 1 << 20,
                   np.int64(1), error, tests)
    return error.tolist(), tests.tolist(), node[9].tolist()


@pytest.mark.parametrize("seed", range(16))
def test_stepped_cut_bounds_equal_the_feature_by_feature_ones(seed):
    """The interval pruning with every interval bounded by steps and with none: the same
    trees, errors and bounds of the cuts skipped."""
    codes, y, w, fc, k, rng = _numeric_node(seed)
    for cap in (w.sum(), int(rng.integers(0, 6))):
        runs = []
        for stepped_from in (0, 1 << 30):  # every interval by steps / none
            old = K._set_stepped_cuts(stepped_from)
            try:
                runs.append(_solve(codes, y, w, fc, k, w.dtype.type(cap)))
            finally:
                K._set_stepped_cuts(old)
        assert runs[0] == runs[1]
    assert K._set_stepped_cuts(K.STEPPED_CUTS) == K.STEPPED_CUTS  # restored


def _mixed_node(seed):
    """Numeric columns with ties and missing values, categorical ones, a subset of rows."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 80))
    cols, categorical = [], []
    for _ in range(int(rng.integers(1, 5))):
        if rng.random() < 0.35:
            col = rng.integers(0, int(rng.integers(2, 7)), n).astype(float)
            categorical.append(True)
        else:
            col = np.round(rng.normal(size=n) * 4, int(rng.integers(0, 2)))
            categorical.append(False)
        if rng.random() < 0.4:
            col[rng.random(n) < 0.15] = np.nan
        cols.append(col)
    X = np.column_stack(cols)
    categorical = np.array(categorical)
    n_categories = np.where(categorical, np.nanmax(np.nan_to_num(X, nan=0), axis=0) + 1,
                            0).astype(np.int64)
    fc = encode_rows(X, categorical, n_categories, "exact", 255)
    k = int(rng.integers(2, 4))
    y = rng.integers(0, k, n).astype(np.int32)
    w = np.ones(n, np.int64) if rng.random() < 0.5 else rng.integers(1, 4, n).astype(np.int64)
    rows = np.sort(rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False))
    return np.ascontiguousarray(fc.codes), y, w, rows.astype(np.int64), fc, k, rng


@pytest.mark.parametrize("seed", range(60))
def test_node_tests_written_in_one_scan(seed):
    """``depth2_node`` writes the node's tests and their errors once, into room for every
    candidate: the tests ``node_tests`` lists (counted, then written), and as the best
    single split the first of least error below the leaf's, as ``scan_tests`` finds it."""
    codes, y, w, rows, fc, k, rng = _mixed_node(seed)
    for learn in (True, False):
        max_subset = int(rng.choice([0, 3, 8]))
        min_leaf = int(rng.choice([1, 1, 2, 4]))
        tests, errors = K.node_tests(codes, y, w, rows, fc.n_codes, fc.categorical, k, learn,
                                     max_subset, min_leaf)
        error = np.zeros(4, dtype=w.dtype)
        trees = np.zeros((4, 3, K.TEST_WIDTH), dtype=np.int64)
        node = K.depth2_node(codes, y, w, rows, fc.n_codes, fc.categorical, k, 2, learn,
                             max_subset, min_leaf, True, w.sum(), w.sum(), error, trees)
        assert node[5].tolist() == tests.tolist()
        assert node[6].tolist() == errors.tolist()
        table, offsets, glob, _local = K.node_table(codes, y, w, rows, fc.n_codes, k)
        assert K._max_tests(table, offsets, fc.categorical, k, learn, max_subset) >= len(tests)
        one = np.zeros((1, K.TEST_WIDTH), dtype=np.int64)
        one[0, 0] = K.NO_FEATURE
        leaf = K.leaf_error(table[offsets[0]:offsets[1]].sum(axis=0), k)
        best, _n = K.scan_tests(table, offsets, glob, fc.categorical, k, learn, max_subset,
                                min_leaf, leaf, one, np.zeros((0, K.TEST_WIDTH), np.int64),
                                np.zeros(0, dtype=w.dtype))
        assert error[1] == best and trees[1, 0].tolist() == one[0].tolist()
        assert error[0] == leaf


@pytest.mark.parametrize("seed", range(30))
def test_node_table_orders_present_codes(seed):
    """The node's slots: each feature's present codes in increasing order (found by
    their range when dense, by a sort when few in a wide range), then the missing slot;
    every row's slot and the class weights in the table."""
    rng = np.random.default_rng(seed)
    n_all, f = int(rng.integers(5, 300)), int(rng.integers(1, 5))
    n_codes = rng.integers(2, 5000, f)
    codes = np.column_stack([rng.integers(-1, c, n_all) for c in n_codes]).astype(np.int64)
    if rng.random() < 0.5:  # dense codes
        codes = np.minimum(codes, rng.integers(1, 30))
    k = int(rng.integers(2, 4))
    y = rng.integers(0, k, n_all).astype(np.int32)
    w = rng.integers(1, 4, n_all).astype(np.int64)
    rows = np.sort(rng.choice(n_all, size=int(rng.integers(1, n_all + 1)), replace=False))
    kernel_codes = np.ascontiguousarray(codes, dtype=np.int32)  # the kernels' int32 codes
    table, offsets, glob, local = K.node_table(kernel_codes, y, w, rows,
                                               n_codes.astype(np.int64), k)
    for g in range(f):
        col = codes[rows, g]
        present = np.unique(col[col >= 0])
        slots = glob[offsets[g]:offsets[g + 1]]
        assert slots.tolist() == present.tolist() + [-1]
        expect = np.where(col >= 0, offsets[g] + np.searchsorted(present, col),
                          offsets[g + 1] - 1)
        assert local[:, g].tolist() == expect.tolist()
        for s in range(offsets[g], offsets[g + 1]):
            mine = local[:, g] == s
            weights = np.bincount(y[rows][mine], weights=w[rows][mine], minlength=k)
            assert table[s, :k].tolist() == weights.tolist()
            assert table[s, k] == mine.sum()


@pytest.mark.parametrize("seed", range(20))
def test_features_by_bound_in_a_stable_order(seed):
    rng = np.random.default_rng(seed)
    f = int(rng.integers(1, 40))
    a = rng.integers(0, 5, f).astype(np.int64)
    b = rng.integers(0, 5, f).astype(np.int64)
    out = np.empty(f, dtype=np.int64)
    K._stable_order(a, b, out)
    assert out.tolist() == np.argsort(a + b, kind="mergesort").tolist()
