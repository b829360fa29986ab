"""Compiled kernels against brute-force numpy references."""

from itertools import product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from quercus._kernels._splits import (
    ENTROPY,
    GINI,
    best_numeric_splits,
    best_subset_split,
    category_class_weights,
    impurity_of,
    partition_orders,
)

NO_CONSTRAINT = np.zeros(1, dtype=np.int8)  # monotonic_cst of the one feature


def weighted_child_impurity(y, w, left_mask, n_classes, criterion):
    """Brute force: weighted mean impurity of the two sides of a split."""
    total = 0.0
    for mask in (left_mask, ~left_mask):
        counts = np.bincount(y[mask], weights=w[mask], minlength=n_classes)
        total += counts.sum() * impurity_of(counts, criterion)
    return total / w.sum()


def brute_force_numeric(x, y, w, n_classes, criterion, min_leaf):
    """Every midpoint between distinct values, missing rows tried on both sides."""
    known = ~np.isnan(x)
    values = np.unique(x[known])
    best = (np.inf, None)
    thresholds = list((values[:-1] + values[1:]) / 2)
    if (~known).any():
        thresholds.append(np.inf)
    for missing_left in [False, True] if (~known).any() else [False]:
        for t in thresholds:
            left = np.where(known, x <= t, missing_left)
            if left.sum() < min_leaf or (~left).sum() < min_leaf:
                continue
            score = weighted_child_impurity(y, w, left, n_classes, criterion)
            if score < best[0] - 1e-12:
                best = (score, left)
    return best


def kernel_numeric(x, y, w, n_classes, criterion, min_leaf):
    X = x.reshape(-1, 1).astype(np.float64)
    order = np.argsort(X, axis=0, kind="stable").T.astype(np.int32).copy()
    proxy, threshold, missing_left = np.empty(1), np.empty(1), np.empty(1, dtype=np.bool_)
    best_numeric_splits(
        X,
        y,
        w,
        order,
        0,
        len(y),
        np.array([0]),
        n_classes,
        criterion,
        min_leaf,
        0.0,
        NO_CONSTRAINT,
        0.0,
        1.0,
        proxy,
        threshold,
        missing_left,
    )
    if proxy[0] == -np.inf:
        return None
    left = np.where(np.isnan(x), missing_left[0], x <= threshold[0])
    return left


@settings(max_examples=200, deadline=None)
@given(
    data=st.lists(
        st.tuples(
            st.one_of(st.integers(0, 6), st.none()),
            st.integers(0, 2),
            st.sampled_from([0.5, 1.0, 2.0]),
        ),
        min_size=2,
        max_size=30,
    ),
    criterion=st.sampled_from([GINI, ENTROPY]),
    min_leaf=st.integers(1, 3),
)
def test_numeric_split_is_optimal(data, criterion, min_leaf):
    x = np.array([np.nan if v is None else float(v) for v, _, _ in data])
    y = np.array([c for _, c, _ in data], dtype=np.int32)
    w = np.array([wt for _, _, wt in data])
    expected_score, _ = brute_force_numeric(x, y, w, 3, criterion, min_leaf)
    left = kernel_numeric(x, y, w, 3, criterion, min_leaf)
    if left is None:
        assert expected_score == np.inf
        return
    score = weighted_child_impurity(y, w, left, 3, criterion)
    assert score == pytest.approx(expected_score, abs=1e-9)


def test_numeric_threshold_is_midpoint_and_first_of_ties():
    x = np.array([1.0, 2.0, 3.0, 4.0])
    y = np.array([0, 1, 0, 1], dtype=np.int32)  # cuts after 1 and after 3 tie
    X = x.reshape(-1, 1)
    order = np.arange(4, dtype=np.int32).reshape(1, -1)
    proxy, threshold, ml = np.empty(1), np.empty(1), np.empty(1, dtype=np.bool_)
    best_numeric_splits(
        X, y, np.ones(4), order, 0, 4, np.array([0]), 2, GINI, 1, 0.0, NO_CONSTRAINT, 0.0,
        1.0, proxy, threshold, ml
    )
    assert threshold[0] == 1.5


def test_constant_feature_has_no_split():
    X = np.ones((5, 1))
    y = np.array([0, 1, 0, 1, 0], dtype=np.int32)
    order = np.arange(5, dtype=np.int32).reshape(1, -1)
    proxy, threshold, ml = np.empty(1), np.empty(1), np.empty(1, dtype=np.bool_)
    best_numeric_splits(
        X, y, np.ones(5), order, 0, 5, np.array([0]), 2, GINI, 1, 0.0, NO_CONSTRAINT, 0.0,
        1.0, proxy, threshold, ml
    )
    assert proxy[0] == -np.inf


def brute_force_subsets(codes, y, w, n_codes, n_classes, criterion, min_leaf):
    present = sorted({int(c) for c in codes[~np.isnan(codes)]})
    has_missing = np.isnan(codes).any()
    best = np.inf
    for assignment in product([True, False], repeat=len(present)):
        for missing_left in [False, True] if has_missing else [False]:
            left_set = {c for c, a in zip(present, assignment) if a}
            left = np.array([missing_left if np.isnan(c) else int(c) in left_set for c in codes])
            if left.sum() < min_leaf or (~left).sum() < min_leaf:
                continue
            best = min(best, weighted_child_impurity(y, w, left, n_classes, criterion))
    return best


@settings(max_examples=150, deadline=None)
@given(
    data=st.lists(
        st.tuples(st.one_of(st.integers(0, 5), st.none()), st.integers(0, 2)),
        min_size=2,
        max_size=25,
    ),
    criterion=st.sampled_from([GINI, ENTROPY]),
    min_leaf=st.integers(1, 2),
)
def test_subset_split_is_optimal_when_exhaustive(data, criterion, min_leaf):
    codes = np.array([np.nan if v is None else float(v) for v, _ in data])
    y = np.array([c for _, c in data], dtype=np.int32)
    w = np.ones(len(y))
    X = codes.reshape(-1, 1)
    weights = np.empty((7, 3))
    counts = np.empty(7, dtype=np.int64)
    category_class_weights(X, y, w, np.arange(len(y)), 0, weights, counts)
    branch = np.empty(6, dtype=np.int32)
    proxy, missing_left = best_subset_split(weights, counts, criterion, min_leaf, 0.0, branch)
    expected = brute_force_subsets(codes, y, w, 6, 3, criterion, min_leaf)
    if proxy == -np.inf:
        assert expected == np.inf
        return
    left = np.array([missing_left if np.isnan(c) else branch[int(c)] == 0 for c in codes])
    assert weighted_child_impurity(y, w, left, 3, criterion) == pytest.approx(expected, abs=1e-9)


def test_subset_split_two_classes_many_categories_is_exact():
    """Beyond the exhaustive limit, Breiman's ordering is still exact for two classes."""
    rng = np.random.default_rng(0)
    n_codes = 14
    codes = rng.integers(0, n_codes, 300).astype(float)
    y = (rng.random(300) < (codes / n_codes)).astype(np.int32)
    rng.shuffle(y[:40])
    weights = np.empty((n_codes + 1, 2))
    counts = np.empty(n_codes + 1, dtype=np.int64)
    category_class_weights(
        codes.reshape(-1, 1), y, np.ones(300), np.arange(300), 0, weights, counts
    )
    branch = np.empty(n_codes, dtype=np.int32)
    best_subset_split(weights, counts, GINI, 1, 0.0, branch)
    left = branch[codes.astype(int)] == 0
    found = weighted_child_impurity(y, np.ones(300), left, 2, GINI)
    # brute force over all 2**13 partitions of the 14 categories
    best = np.inf
    for mask in range(1, 1 << (n_codes - 1)):
        in_left = np.array([(mask >> c) & 1 for c in range(n_codes)], dtype=bool)
        best = min(
            best, weighted_child_impurity(y, np.ones(300), in_left[codes.astype(int)], 2, GINI)
        )
    assert found == pytest.approx(best, abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(st.floats(-5, 5), st.floats(-5, 5), st.booleans()), min_size=1, max_size=40)
)
def test_partition_keeps_each_side_sorted(rows):
    X = np.array([[a, b] for a, b, _ in rows])
    goes_left = np.array([g for _, _, g in rows])
    order = np.argsort(X, axis=0, kind="stable").T.astype(np.int32).copy()
    buffer = np.empty_like(order)
    n_left = partition_orders(order, 0, len(rows), goes_left, buffer)
    assert n_left == goes_left.sum()
    for f in range(2):
        left, right = order[f, :n_left], order[f, n_left:]
        assert goes_left[left].all() and not goes_left[right].any()
        assert np.all(np.diff(X[left, f]) >= 0) and np.all(np.diff(X[right, f]) >= 0)
        assert sorted(order[f].tolist()) == list(range(len(rows)))


def test_random_split_draws_between_the_node_min_and_max():
    """Threshold low + u * (high - low), by hand: 1 + 0.5 * 3 = 2.5 sends rows 1, 2 left;
    with a missing value, the better side for it (left, with its class) is taken."""
    from quercus._kernels._splits import random_numeric_splits

    X = np.array([[4.0], [1.0], [3.0], [2.0], [np.nan]])
    y = np.array([1, 0, 1, 0, 0], dtype=np.int32)
    order = np.array([[1, 3, 2, 0, 4]], dtype=np.int32)  # sorted, missing last
    proxy, threshold, ml = np.empty(1), np.empty(1), np.empty(1, dtype=np.bool_)
    random_numeric_splits(X, y, np.ones(5), order, 0, 5, np.array([0]), np.array([0.5]), 2,
                          GINI, 1, 0.0, NO_CONSTRAINT, 0.0, 1.0, proxy, threshold, ml)
    assert threshold[0] == 2.5 and ml[0]
    assert proxy[0] == 9 / 3 + 4 / 2  # pure children: sum of squares over weights
    # u = 1 lands on the maximum: scikit-learn then uses the minimum
    random_numeric_splits(X, y, np.ones(5), order, 0, 5, np.array([0]), np.array([1.0]), 2,
                          GINI, 1, 0.0, NO_CONSTRAINT, 0.0, 1.0, proxy, threshold, ml)
    assert threshold[0] == 1.0


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("shape", [(0, 3), (1, 1), (7, 2), (5000, 1), (40_000, 4)])
def test_argsort_columns_is_numpys_stable_argsort(shape, dtype):
    """The exact splitter's presorted orders (radix sort, a column per thread from 30,000
    values): numpy's stable order, NaN last, -0.0 tied with 0.0, ties in row order."""
    from quercus._kernels._splits import argsort_columns

    rng = np.random.default_rng(shape[0])
    X = rng.normal(size=shape)
    X[rng.random(shape) < 0.1] = np.nan
    if shape[0] > 10:
        X[::3, 0] = np.round(X[::3, 0], 1)  # ties
        X[1::7, 0] = -0.0
        X[2::7, 0] = 0.0
        X[3::11, 0] = np.inf
        X[4::11, 0] = -np.inf
    out = np.empty(shape[::-1], dtype=dtype)
    argsort_columns(np.ascontiguousarray(X), out)
    np.testing.assert_array_equal(out, np.argsort(X, axis=0, kind="stable").T)
    with pytest.raises(ValueError, match="shape"):
        argsort_columns(np.ascontiguousarray(X), np.empty(shape, dtype=dtype)
                        if shape[0] != shape[1] else np.empty((1, 2), dtype=dtype))
