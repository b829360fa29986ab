"""Prediction kernels: the compact numeric traversal against the generic one and against a
brute-force numpy traversal, on random trees and data with missing values and ties."""

import numpy as np
import pandas as pd
import pytest
from quercus._kernels._predict import apply_rows

from quercus import DecisionTreeClassifier, datasets, numeric_layout
from quercus.tree import CATEGORICAL, INTERVAL, LEAF, NUMERIC, TreeRecorder

GRID = np.array([-2.5, -1.0, 0.0, 0.1, 0.3, 1.0, 2.0 / 3.0, 7.0])  # 0.1, 0.3, 2/3: not float32


def random_tree(rng, n_features, max_depth, kinds=(NUMERIC,), missing=(0, 1)):
    """A random tree whose split values come from GRID (so data rows hit them exactly)."""
    recorder = TreeRecorder(3)

    def grow(depth):
        node = recorder.add(value=rng.integers(0, 5, 3), impurity=0.0, n_samples=1,
                            weight=float(rng.integers(1, 9)))
        if depth >= max_depth or rng.random() < 0.2:
            return node
        kind = int(rng.choice(kinds))
        feature = int(rng.integers(n_features))
        options = {"threshold": float(rng.choice(GRID))}
        if kind == CATEGORICAL:
            options = {"category_map": rng.integers(0, 2, 4)}
        elif kind == INTERVAL:
            options["interval_high"] = options["threshold"] + 1.0
        left, right = grow(depth + 1), grow(depth + 1)
        recorder.make_split(node, kind=kind, feature=feature, children=[left, right],
                            missing_branch=int(rng.choice(missing)), **options)
        return node

    grow(0)
    return recorder.to_tree()


def random_rows(rng, n_rows, n_features, dtype=np.float64):
    """Values from GRID (exact ties with thresholds), nearby values, NaN and infinities."""
    X = rng.choice(GRID, size=(n_rows, n_features))
    X += rng.choice([0.0, 0.0, 1e-9, -1e-9, 0.05], size=X.shape)
    X[rng.random(X.shape) < 0.1] = np.nan
    X[rng.random(X.shape) < 0.02] = np.inf
    X[rng.random(X.shape) < 0.02] = -np.inf
    return X.astype(dtype)


def reference_leaves(tree, X):
    """Brute force, level by level in numpy: numeric splits only."""
    X = np.asarray(X, dtype=np.float64)
    node = np.zeros(X.shape[0], dtype=np.int64)
    while True:
        rows = np.flatnonzero(tree.kind[node] != LEAF)
        if rows.size == 0:
            return node
        at = node[rows]
        value = X[rows, tree.feature[at]]
        branch = np.where(np.isnan(value), tree.missing_branch[at], value > tree.threshold[at])
        node[rows] = tree.child_ids[tree.child_ptr[at] + branch]


def generic_leaves(tree, X):
    out = np.empty(X.shape[0], dtype=np.int64)
    apply_rows(np.ascontiguousarray(X), *tree._kernel_args(), out)
    return out


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_compact_kernel_matches_generic_and_brute_force_on_random_trees(dtype):
    rng = np.random.default_rng(0)
    for trial in range(60):
        n_features = int(rng.integers(1, 6))
        tree = random_tree(rng, n_features, max_depth=int(rng.integers(0, 9)))
        assert tree.numeric_layout() is not None
        X = random_rows(rng, int(rng.choice([0, 1, 7, 8, 9, 333])), n_features, dtype)
        expected = reference_leaves(tree, X)
        np.testing.assert_array_equal(tree.apply(X), expected)
        np.testing.assert_array_equal(generic_leaves(tree, X), expected)


def test_float32_rows_take_the_branches_of_their_float64_copies():
    rng = np.random.default_rng(1)
    tree = random_tree(rng, 3, max_depth=8)
    X32 = random_rows(rng, 2000, 3, np.float32)
    np.testing.assert_array_equal(tree.apply(X32), tree.apply(X32.astype(np.float64)))
    # 0.1 as float32 is a little above the float64 threshold 0.1: it goes right
    recorder = TreeRecorder(2)
    root = recorder.add(value=[1, 1], impurity=0.5, n_samples=2, weight=2.0)
    left = recorder.add(value=[1, 0], impurity=0.0, n_samples=1, weight=1.0)
    right = recorder.add(value=[0, 1], impurity=0.0, n_samples=1, weight=1.0)
    recorder.make_split(root, kind=NUMERIC, feature=0, children=[left, right],
                        missing_branch=0, threshold=0.1)
    stump = recorder.to_tree()
    rows = np.array([[0.1], [np.nextafter(np.float32(0.1), np.float32(0))]], dtype=np.float32)
    assert stump.apply(rows).tolist() == [2, 1]
    assert stump.apply(rows.astype(np.float64)).tolist() == [2, 1]


@pytest.mark.parametrize("kinds, missing", [((NUMERIC, CATEGORICAL), (0, 1)),
                                            ((NUMERIC,), (0, 1, -1)),
                                            ((NUMERIC, INTERVAL), (0, 1))])
def test_other_node_kinds_take_the_generic_traversal(kinds, missing):
    rng = np.random.default_rng(2)
    for _ in range(20):
        tree = random_tree(rng, 4, max_depth=6, kinds=kinds, missing=missing)
        splits = tree.kind != LEAF
        plain = np.all(tree.kind[splits] == NUMERIC) and np.all(tree.missing_branch[splits] >= 0)
        assert (tree.numeric_layout() is not None) == plain
        X = random_rows(rng, 100, 4)
        np.testing.assert_array_equal(tree.apply(X), generic_leaves(tree, X))


def brute_force_codes(tree, X):
    """Argmax of the class shares of each row's leaf, -1 where they are all zero."""
    value = tree.value[reference_leaves(tree, X)]
    return np.where(value.sum(axis=1) > 0, np.argmax(value, axis=1), -1)


def test_predict_codes_and_proba_follow_the_leaves():
    rng = np.random.default_rng(3)
    for _ in range(30):
        tree = random_tree(rng, 3, max_depth=7)
        tree.value[rng.random(tree.n_nodes) < 0.1] = 0.0  # some leaves without weight
        X = random_rows(rng, 257, 3, rng.choice([np.float32, np.float64]))
        np.testing.assert_array_equal(tree.predict_codes(X), brute_force_codes(tree, X))
        totals = tree.value.sum(axis=1, keepdims=True)
        shares = np.divide(tree.value, totals, out=np.zeros_like(tree.value), where=totals > 0)
        np.testing.assert_allclose(tree.predict_proba(X), shares[reference_leaves(tree, X)])


def test_estimator_predicts_the_same_from_float32_float64_and_fortran_rows():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(3000, 6)).astype(np.float32)
    X[rng.random(X.shape) < 0.05] = np.nan
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) > 0).astype(int) + (X[:, 2] > 1)
    for splitter in ("exact", "hist"):
        model = DecisionTreeClassifier(splitter=splitter, max_depth=9).fit(X, y)
        assert model.tree_.numeric_layout() is not None
        expected = brute_force_codes(model.tree_, X)
        assert (model.predict(X) == model.classes_[expected]).all()
        assert (model.predict(X.astype(np.float64)) == model.classes_[expected]).all()
        assert (model.predict(np.asfortranarray(X)) == model.classes_[expected]).all()


@pytest.mark.parametrize("top_max", [0, 1, 3, numeric_layout.TOP_MAX_DEPTH])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_deep_trees_go_on_below_the_complete_top(monkeypatch, top_max, dtype):
    """Trees deeper than the complete top descend it, then the node records."""
    monkeypatch.setattr(numeric_layout, "TOP_MAX_DEPTH", top_max)
    rng = np.random.default_rng(12)
    for _ in range(25):
        n_features = int(rng.integers(1, 5))
        tree = random_tree(rng, n_features, max_depth=int(rng.integers(0, 16)))
        layout = tree.numeric_layout()
        depth = tree.depths()
        assert layout.top_depth == min(depth.max(), top_max)
        assert layout.top_nodes.size == 2**layout.top_depth
        X = random_rows(rng, int(rng.choice([5, 8, 77, 400])), n_features, dtype)
        np.testing.assert_array_equal(tree.apply(X), reference_leaves(tree, X))


def test_complete_top_of_a_stump_and_of_a_single_leaf():
    X, y, _ = datasets.load("iris")
    tree = DecisionTreeClassifier(max_depth=1).fit(X, y).tree_
    layout = tree.numeric_layout()
    assert layout.top_depth == 1 and layout.top_nodes.tolist() == [1, 2]
    leaf = random_tree(np.random.default_rng(5), 1, max_depth=0)
    assert leaf.n_nodes == 1 and leaf.numeric_layout().top_depth == 0
    assert leaf.apply(np.zeros((9, 1))).tolist() == [0] * 9


def test_float32_thresholds_are_the_largest_float32_at_most_the_threshold():
    t = np.array([0.1, -0.1, 2.0 / 3.0, 1.0, 1e39, -1e39, np.inf, 3.4028234663852886e38])
    t32 = numeric_layout.float32_at_most(t)
    assert t32.dtype == np.float32
    assert np.all(t32.astype(np.float64) <= t)
    above = np.nextafter(t32, np.float32(np.inf))
    assert np.all((above.astype(np.float64) > t) | (t32 == np.float32(np.inf)))


def test_rows_with_too_few_columns_are_refused_not_read_out_of_bounds():
    tree = random_tree(np.random.default_rng(6), 5, max_depth=6)
    narrow = np.zeros((4, int(tree.feature.max())))
    with pytest.raises(ValueError, match="columns"):
        tree.apply(narrow)


def test_kept_layout_follows_edits_in_place():
    """predict keeps the packed nodes and leaf classes between calls; editing the tree's
    arrays in place (thresholds, class counts) must still change the prediction."""
    rng = np.random.default_rng(11)
    tree = random_tree(rng, 4, 6)
    X = rng.choice(GRID, size=(500, 4))
    leaves = tree._leaf_lookup(X, np.arange(tree.n_nodes))
    np.testing.assert_array_equal(leaves, reference_leaves(tree, X))
    first = tree.predict_codes(X)
    split = int(np.flatnonzero(tree.kind != LEAF)[0])
    tree.threshold[split] = 100.0  # every row now goes left at this split
    np.testing.assert_array_equal(tree._leaf_lookup(X, np.arange(tree.n_nodes)),
                                  reference_leaves(tree, X))
    tree.value[:] = 0.0
    tree.value[:, 2] = 1.0  # every node now predicts class 2
    assert (tree.predict_codes(X) == 2).all() and not (first == 2).all()


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_rows_without_missing_values_skip_the_check_and_reach_the_same_leaves(dtype):
    """``missing=False`` (no NaN in X, as the schema's check found) takes the top's
    plain comparisons: the same leaves, infinities included."""
    rng = np.random.default_rng(13)
    for _ in range(30):
        n_features = int(rng.integers(1, 5))
        tree = random_tree(rng, n_features, max_depth=int(rng.integers(0, 15)))
        X = random_rows(rng, int(rng.choice([3, 8, 97, 600])), n_features, dtype)
        X[np.isnan(X)] = 0.3
        every = np.arange(tree.n_nodes)
        expected = reference_leaves(tree, X)
        np.testing.assert_array_equal(tree._leaf_lookup(X, every, missing=False), expected)


@pytest.mark.parametrize("size", ["small", "big"])
def test_the_schema_says_whether_the_rows_may_hold_missing_values(size):
    """The infinity check also tells whether a value is NaN: False lets predict, apply
    and predict_proba skip the traversal's checks for missing values; with a NaN the
    answer is True and they follow the missing-value branches."""
    from quercus.data import schema as schema_module

    rng = np.random.default_rng(14)
    rows = 200 if size == "small" else schema_module.PARALLEL_CHECK_VALUES // 6 + 1
    X = rng.normal(size=(rows, 6))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    X[:300, 0][rng.random(min(rows, 300)) < 0.3] = np.nan
    model = DecisionTreeClassifier(max_depth=6).fit(X[:2000], y[:2000])
    clean = np.nan_to_num(X, nan=0.25)
    for data, may_be_missing in ((clean, False), (X, True)):
        for rows_in in (data, data.astype(np.float32), pd.DataFrame(data, columns=[
                f"x{j}" for j in range(6)])):
            encoded, missing = model._encode_rows(rows_in)
            assert missing is may_be_missing
            expected = model.classes_[brute_force_codes(model.tree_, encoded)]
            np.testing.assert_array_equal(model.predict(rows_in), expected)
            leaves = reference_leaves(model.tree_, encoded)
            np.testing.assert_array_equal(model.apply(rows_in), leaves)
            shares = model.tree_.node_probabilities()[leaves]
            np.testing.assert_array_equal(model.predict_proba(rows_in), shares)
