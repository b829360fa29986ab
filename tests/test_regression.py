"""Regression trees: scikit-learn's DecisionTreeRegressor trees, the squared-error kernel
against brute force, and the estimator's interface."""

import itertools

import numpy as np
import pandas as pd
import pytest
from quercus._kernels._regression import best_mean_ordered_split, best_regression_splits
from sklearn import datasets
from sklearn.tree import DecisionTreeRegressor as SkRegressor

from quercus import DataError, DecisionTreeRegressor
from quercus.tree import LEAF


def _sse(y, w, mask):
    if not mask.any():
        return 0.0
    mean = np.average(y[mask], weights=w[mask])
    return float(np.sum(w[mask] * (y[mask] - mean) ** 2))


def compare_trees(ours, sk, X, y, w, loss=_sse):
    """Walk both trees over the training rows; returns the subtrees excused by exact ties
    (both splits leave the same loss, squared error by default, scikit-learn having taken
    another feature or cut)."""
    tree, skt = ours.tree_, sk.tree_
    excused = 0
    stack = [(0, 0, np.arange(X.shape[0]))]
    while stack:
        a, b, rows = stack.pop()
        a_leaf, b_leaf = tree.kind[a] == LEAF, skt.children_left[b] == -1
        assert a_leaf == b_leaf, f"node {a}: one tree splits, the other does not"
        if a_leaf:
            np.testing.assert_allclose(tree.value[a, 0], skt.value[b, 0, 0], rtol=1e-9)
            continue
        ours_left = _goes_left(X[rows, tree.feature[a]], tree.threshold[a],
                               tree.missing_branch[a] == 0)
        sk_left = _goes_left(X[rows, skt.feature[b]].astype(np.float32), skt.threshold[b],
                             bool(skt.missing_go_to_left[b]))
        children = tree.children(a)
        if np.array_equal(ours_left, ~sk_left):  # the same partition, sides swapped
            stack.append((children[0], skt.children_right[b], rows[ours_left]))
            stack.append((children[1], skt.children_left[b], rows[~ours_left]))
            continue
        if not np.array_equal(ours_left, sk_left):
            ys, ws = y[rows], w[rows]
            ours_score = loss(ys, ws, ours_left) + loss(ys, ws, ~ours_left)
            sk_score = loss(ys, ws, sk_left) + loss(ys, ws, ~sk_left)
            assert ours_score == pytest.approx(sk_score, rel=1e-9), f"node {a}: worse split"
            excused += 1
            continue
        stack.append((children[0], skt.children_left[b], rows[ours_left]))
        stack.append((children[1], skt.children_right[b], rows[~ours_left]))
    return excused


def _goes_left(values, threshold, missing_left):
    with np.errstate(invalid="ignore"):
        return np.where(np.isnan(values), missing_left, values <= threshold)


def _diabetes():
    return datasets.load_diabetes(return_X_y=True)


def _friedman():  # california-like: 2,000 rows, rounded values (many ties)
    X, y = datasets.make_friedman1(2000, 8, noise=1.0, random_state=0)
    return np.round(X, 2), y


def _with_missing():
    X, y = _diabetes()
    X = X.copy()
    X[np.random.RandomState(0).rand(*X.shape) < 0.1] = np.nan
    return X, y


DATA = {"diabetes": _diabetes, "friedman": _friedman, "missing": _with_missing}
PARAMS = [
    {},
    {"max_depth": 3},
    {"min_samples_leaf": 5},
    {"min_samples_split": 10, "max_depth": 6},
    {"max_leaf_nodes": 12},
    {"min_impurity_decrease": 10.0},
    {"ccp_alpha": 20.0},
    {"min_weight_fraction_leaf": 0.02},
]


@pytest.mark.parametrize("params", PARAMS, ids=str)
@pytest.mark.parametrize("data", list(DATA))
def test_same_tree_as_sklearn(data, params):
    X, y = DATA[data]()
    ours = DecisionTreeRegressor(**params).fit(X, y)
    sk = SkRegressor(random_state=0, **params).fit(X, y)
    excused = compare_trees(ours, sk, X, y, np.ones_like(y))
    if excused == 0:
        assert ours.tree_.n_nodes == sk.tree_.node_count
        np.testing.assert_allclose(ours.predict(X), sk.predict(X), rtol=1e-9)
        assert ours.score(X, y) == pytest.approx(sk.score(X, y), rel=1e-12)


@pytest.mark.filterwarnings("ignore:Value `\"friedman_mse\"`:FutureWarning")
@pytest.mark.parametrize("params", [{}, {"max_leaf_nodes": 12}, {"min_impurity_decrease": 10.0}],
                         ids=str)
def test_friedman_mse_is_sklearns(params):
    X, y = _with_missing()
    ours = DecisionTreeRegressor(criterion="friedman_mse", **params).fit(X, y)
    sk = SkRegressor(criterion="friedman_mse", random_state=0, **params).fit(X, y)
    if compare_trees(ours, sk, X, y, np.ones_like(y)) == 0:  # else: ties, checked equal
        np.testing.assert_allclose(ours.predict(X), sk.predict(X), rtol=1e-9)


@pytest.mark.parametrize("data", ["diabetes", "missing"])
def test_same_tree_with_sample_weight(data):
    X, y = DATA[data]()
    w = np.random.RandomState(1).randint(1, 4, size=y.shape[0]).astype(float)
    for params in ({}, {"max_depth": 4, "min_samples_leaf": 3}, {"max_leaf_nodes": 20}):
        ours = DecisionTreeRegressor(**params).fit(X, y, sample_weight=w)
        sk = SkRegressor(random_state=0, **params).fit(X, y, sample_weight=w)
        # integer targets of equal weight make exact ties that scikit-learn breaks by its
        # random feature order: the trees may differ there, every other split is equal
        compare_trees(ours, sk, X, y, w)
        if params:
            np.testing.assert_allclose(ours.predict(X), sk.predict(X), rtol=1e-9)


def test_integer_weights_equal_repeated_rows():
    X, y = _diabetes()
    w = np.random.RandomState(2).randint(1, 4, size=y.shape[0])
    weighted = DecisionTreeRegressor(max_depth=5).fit(X, y, sample_weight=w.astype(float))
    repeated = DecisionTreeRegressor(max_depth=5).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_allclose(weighted.predict(X), repeated.predict(X), rtol=1e-9)


def _brute_force(X, y, w, rows, f, min_leaf):
    """Best proxy of feature f over every cut and missing side, by direct sums."""
    values = X[rows, f]
    known = np.unique(values[~np.isnan(values)])
    cuts = [(lo + hi) / 2 for lo, hi in itertools.pairwise(known)] + [np.inf]
    best = -np.inf
    for cut in cuts:
        for missing_left in (False, True):
            left = np.where(np.isnan(values), missing_left, values <= cut)
            if min(left.sum(), (~left).sum()) < min_leaf:
                continue
            wl, wr = w[rows][left], w[rows][~left]
            sl, sr = (wl * y[rows][left]).sum(), (wr * y[rows][~left]).sum()
            best = max(best, sl * sl / wl.sum() + sr * sr / wr.sum())
    return best


@pytest.mark.parametrize("seed", range(6))
def test_kernel_against_brute_force(seed):
    rng = np.random.RandomState(seed)
    n, m = 40, 3
    X = rng.randint(0, 6, size=(n, m)).astype(float)
    X[rng.rand(n, m) < 0.15 * (seed % 2)] = np.nan
    y = rng.normal(size=n) * 10
    w = rng.uniform(0.5, 2.0, size=n)
    order = np.ascontiguousarray(np.argsort(X, axis=0, kind="stable").T.astype(np.int32))
    min_leaf = 1 + seed % 3
    proxy, threshold = np.empty(m), np.empty(m)
    missing_left = np.empty(m, dtype=np.bool_)
    best_regression_splits(X, y, w, order, 0, n, np.arange(m, dtype=np.int64), min_leaf, 0.0,
                           proxy, threshold, missing_left)
    for f in range(m):
        expected = _brute_force(X, y, w, np.arange(n), f, min_leaf)
        assert proxy[f] == pytest.approx(expected, rel=1e-12)


def test_interface():
    X, y = _diabetes()
    model = DecisionTreeRegressor(max_depth=2)
    assert model.get_params()["max_depth"] == 2
    assert repr(model) == "DecisionTreeRegressor(max_depth=2)"
    model.fit(X, y)
    leaves = model.apply(X)
    assert set(leaves) == set(np.flatnonzero(model.tree_.kind == LEAF))
    # each leaf predicts the mean target of its rows (hand check, not the tree's value)
    for leaf in set(leaves):
        assert model.predict(X[leaves == leaf][:1])[0] == pytest.approx(y[leaves == leaf].mean())
    assert model.get_depth() == 2 and model.get_n_leaves() == 4
    assert model.feature_importances_.sum() == pytest.approx(1.0)


def test_missing_targets_are_left_out():
    X, y = _diabetes()
    y_missing = y.copy()
    y_missing[::7] = np.nan
    keep = ~np.isnan(y_missing)
    a = DecisionTreeRegressor(max_depth=4).fit(X, y_missing)
    b = DecisionTreeRegressor(max_depth=4).fit(X[keep], y[keep])
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


@pytest.mark.parametrize("y, message", [
    (["a", "b"] * 5, "not numbers"),
    ([1.0, np.inf] * 5, "infinity"),
])
def test_bad_targets(y, message):
    with pytest.raises(DataError, match=message):
        DecisionTreeRegressor().fit(np.arange(10.0).reshape(-1, 1), y)


def _best_subset_by_brute_force(codes, y, w, n_codes, min_leaf):
    """Largest proxy over every subset of categories sent left (missing code -1 tried on
    both sides)."""
    best = -np.inf
    has_missing = (codes < 0).any()
    for mask in range(1, 1 << n_codes):
        for missing_left in ((False, True) if has_missing else (False,)):
            left = np.array([(mask >> c) & 1 == 1 if c >= 0 else missing_left for c in codes])
            if min(left.sum(), (~left).sum()) < min_leaf:
                continue
            sl, sr = (w * y)[left].sum(), (w * y)[~left].sum()
            best = max(best, sl * sl / w[left].sum() + sr * sr / w[~left].sum())
    return best


@pytest.mark.parametrize("seed", range(8))
def test_categorical_kernel_finds_the_best_subset(seed):
    rng = np.random.RandomState(seed)
    n_codes, n = 6, 60
    codes = rng.randint(-1 if seed % 2 else 0, n_codes, size=n)  # -1: missing
    y = rng.normal(size=n) * 5 + codes * rng.normal()
    w = rng.uniform(0.5, 2.0, size=n)
    slot = np.where(codes < 0, n_codes, codes)  # the kernel's last entry: missing rows
    weight = np.bincount(slot, weights=w, minlength=n_codes + 1).astype(float)
    target_sum = np.bincount(slot, weights=w * y, minlength=n_codes + 1).astype(float)
    counts = np.bincount(slot, minlength=n_codes + 1).astype(np.int64)
    branch = np.empty(n_codes, dtype=np.int32)
    min_leaf = 1 + seed % 4
    proxy, missing_left = best_mean_ordered_split(weight, target_sum, counts, min_leaf, 0.0,
                                                  branch)
    assert proxy == pytest.approx(_best_subset_by_brute_force(codes, y, w, n_codes, min_leaf),
                                  rel=1e-12)
    left = np.where(codes < 0, missing_left, branch[codes] == 0)  # the map gives that proxy
    sl, sr = (w * y)[left].sum(), (w * y)[~left].sum()
    assert proxy == pytest.approx(sl * sl / w[left].sum() + sr * sr / w[~left].sum(), rel=1e-12)


def test_categorical_feature_tree():
    rng = np.random.RandomState(3)
    colour = rng.choice(["red", "green", "blue", "grey", "pink"], size=200)
    size = rng.uniform(0, 10, size=200)
    effect = {"red": 3.0, "green": -1.0, "blue": 2.5, "grey": -1.5, "pink": 0.0}
    y = np.array([effect[c] for c in colour]) + 0.1 * size
    X = pd.DataFrame({"colour": colour, "size": size})
    model = DecisionTreeRegressor(max_depth=1).fit(X, y)
    tree = model.tree_
    assert tree.feature[0] == 0  # colour: {red, blue} against the rest
    left = {c for c in effect
            if model.predict(pd.DataFrame({"colour": [c], "size": [5.0]}))[0] > 1.5}
    assert left == {"red", "blue"}
    codes = pd.Categorical(colour, categories=sorted(effect)).codes
    best = _best_subset_by_brute_force(codes, y, np.ones_like(y), len(effect), 1)
    goes_left = np.array([c in ("blue", "red") for c in colour])
    sl, sr = y[goes_left].sum(), y[~goes_left].sum()
    assert best == pytest.approx(sl * sl / goes_left.sum() + sr * sr / (~goes_left).sum())


def _sklearn_checks():
    from sklearn.utils.estimator_checks import parametrize_with_checks

    return parametrize_with_checks([DecisionTreeRegressor()])


@_sklearn_checks()
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)
