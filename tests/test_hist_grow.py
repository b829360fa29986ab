"""Segments grown whole in compiled code (``grow_subtree``, ``_kernels/_hist.pyx``) give
the Python builder's tree, node for node, in every setting where the splitter takes that path."""

import dataclasses

import numpy as np
import pytest
from sklearn.datasets import make_classification

from quercus import DecisionTreeClassifier
from quercus.splitting import hist as hist_module
from quercus.splitting.hist import HistSplitter


def _fit(X, y, *, native, monkeypatch, sample_weight=None, **params):
    """A hist fit with segments grown whole (``native``) or node by node in Python; returns
    the model and how many segments grew whole."""
    grown = []
    real = HistSplitter.grow_segment
    monkeypatch.setattr(HistSplitter, "grow_segment",
                        lambda self, *args: grown.append(args) or real(self, *args))
    if not native:
        monkeypatch.setattr(HistSplitter, "grows_whole", lambda self, start, end: False)
    model = DecisionTreeClassifier(splitter="hist", **params).fit(X, y,
                                                                  sample_weight=sample_weight)
    monkeypatch.undo()
    return model, len(grown)


def _assert_same_tree(a, b):
    for field in dataclasses.fields(a.tree_):
        left, right = getattr(a.tree_, field.name), getattr(b.tree_, field.name)
        if isinstance(left, np.ndarray):
            assert left.dtype == right.dtype, field.name
            np.testing.assert_array_equal(left, right, err_msg=field.name)


def _problem(seed):
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(30, 2500)), int(rng.integers(2, 7))
    X, y = make_classification(n, 7, n_informative=4, n_classes=k, n_clusters_per_class=1,
                               random_state=seed)
    X[rng.random(X.shape) < 0.06] = np.nan
    if seed % 3 == 0:
        X = np.round(X, 1)  # ties, and bins of one value each (midpoint thresholds)
    if seed % 4 == 1:
        X[:, 2] = np.where(np.isnan(X[:, 2]), np.nan, 1.0)  # one value and missing ones
    return X, y


SETTINGS = [
    {},
    {"max_depth": 4},
    {"max_depth": 9, "min_samples_leaf": 3},
    {"min_samples_split": 11, "criterion": "entropy"},
    {"min_impurity_decrease": 0.002},
    {"class_weight": "balanced", "max_depth": 7},
    {"class_weight": "balanced", "criterion": "entropy", "min_weight_fraction_leaf": 0.01},
    {"min_weight_fraction_leaf": 0.02, "max_bins": 16},
    {"max_bins": 8, "max_depth": 12, "ccp_alpha": 0.001},
]


@pytest.mark.parametrize("index", range(len(SETTINGS)))
def test_segments_grown_whole_are_the_python_builders_trees(index, monkeypatch):
    params = SETTINGS[index]
    for seed in range(index * 5, index * 5 + 5):
        X, y = _problem(seed)
        native, segments = _fit(X, y, native=True, monkeypatch=monkeypatch, **params)
        python, none = _fit(X, y, native=False, monkeypatch=monkeypatch, **params)
        assert none == 0
        if native.tree_.kind.shape[0] > 1:
            assert segments == 1  # the whole tree, from its root
        _assert_same_tree(native, python)


def test_big_nodes_stay_in_python_and_small_segments_grow_whole(monkeypatch):
    """Segments of PARALLEL_MIN_WORK rows x features and more are searched node by node (their
    fills take threads); each of the rest grows whole, and the tree is the same."""
    monkeypatch.setattr(hist_module, "PARALLEL_MIN_WORK", 4 * 400)
    X, y = make_classification(3000, 4, n_informative=3, n_redundant=0, n_classes=3,
                               random_state=5)
    native, segments = _fit(X, y, native=True, monkeypatch=monkeypatch, max_depth=10)
    monkeypatch.setattr(hist_module, "PARALLEL_MIN_WORK", 4 * 400)
    python, _ = _fit(X, y, native=False, monkeypatch=monkeypatch, max_depth=10)
    assert segments > 4
    _assert_same_tree(native, python)


def test_a_deep_chain_outgrows_the_first_histogram_levels(monkeypatch):
    """A tree far deeper than the 16 levels of histograms and the 4 stack entries the
    kernel starts with."""
    x = np.arange(400, dtype=float)
    y = (np.arange(400) % 2 == 0).astype(int)
    y[200:] = np.arange(200) % 3 == 0
    X = np.column_stack([x, x[::-1] * 0.5])
    native, segments = _fit(X, y, native=True, monkeypatch=monkeypatch)
    python, _ = _fit(X, y, native=False, monkeypatch=monkeypatch)
    assert segments == 1 and native.get_depth() > 40
    _assert_same_tree(native, python)


@pytest.mark.parametrize("case", ["sample_weight", "categorical", "max_features",
                                  "monotonic", "many_classes_weighted", "max_leaf_nodes"])
def test_settings_the_kernel_does_not_cover_take_the_python_builder(case, monkeypatch):
    rng = np.random.default_rng(3)
    X, y = make_classification(600, 5, n_informative=4, n_redundant=0, random_state=3)
    params, weight = {}, None
    if case == "sample_weight":
        weight = rng.random(600)
    elif case == "categorical":
        X[:, 0] = rng.integers(0, 4, 600)
        params["categorical_features"] = [0]
    elif case == "max_features":
        params["max_features"] = 3
    elif case == "monotonic":
        params["monotonic_cst"] = [1, 0, 0, 0, 0]
    elif case == "many_classes_weighted":  # class weights summed in numpy's order
        y = rng.integers(0, 9, 600)
        params["class_weight"] = "balanced"
    else:
        params["max_leaf_nodes"] = 12
    model, segments = _fit(X, y, native=True, monkeypatch=monkeypatch, sample_weight=weight,
                           **params)
    assert segments == 0 and model.tree_.kind.shape[0] > 1


def test_unit_weights_with_many_classes_grow_whole(monkeypatch):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(900, 3))
    y = (np.floor((X[:, 0] + 3) * 2).clip(0, 10)).astype(int)
    native, segments = _fit(X, y, native=True, monkeypatch=monkeypatch)
    python, _ = _fit(X, y, native=False, monkeypatch=monkeypatch)
    assert segments == 1 and np.unique(y).size > 8
    _assert_same_tree(native, python)


def _fit_regressor(X, y, *, native, monkeypatch, sample_weight=None, **params):
    """``_fit`` for the regression splitter's exact sums."""
    from quercus import DecisionTreeRegressor
    from quercus.splitting.hist_regression import RegressionHistSplitter

    grown = []
    real = RegressionHistSplitter.grow_segment
    monkeypatch.setattr(RegressionHistSplitter, "grow_segment",
                        lambda self, *args: grown.append(args) or real(self, *args))
    if not native:
        monkeypatch.setattr(RegressionHistSplitter, "grows_whole",
                            lambda self, start, end: False)
    model = DecisionTreeRegressor(splitter="hist", **params).fit(X, y,
                                                                 sample_weight=sample_weight)
    monkeypatch.undo()
    return model, len(grown)


REGRESSION_SETTINGS = [
    {},
    {"max_depth": 5, "min_samples_leaf": 4},
    {"min_impurity_decrease": 0.01, "max_bins": 16},
    {"min_weight_fraction_leaf": 0.01, "max_depth": 9},
    {"max_depth": 7, "weights": True},
]


@pytest.mark.parametrize("index", range(len(REGRESSION_SETTINGS)))
def test_regression_segments_grown_whole_are_the_python_builders_trees(index, monkeypatch):
    params = dict(REGRESSION_SETTINGS[index])
    weighted = params.pop("weights", False)
    for seed in range(index * 4, index * 4 + 4):
        rng = np.random.default_rng(seed)
        X, _ = _problem(seed)
        y = np.nan_to_num(X[:, 0]) * 3 + np.sin(np.nan_to_num(X[:, 1])) + rng.normal(
            size=X.shape[0])
        if seed % 2:
            y = np.round(y, 1)  # ties among the targets' sums
        weight = rng.random(X.shape[0]) * 4 if weighted else None
        native, segments = _fit_regressor(X, y, native=True, monkeypatch=monkeypatch,
                                          sample_weight=weight, **params)
        python, none = _fit_regressor(X, y, native=False, monkeypatch=monkeypatch,
                                      sample_weight=weight, **params)
        assert none == 0
        if native.tree_.kind.shape[0] > 1:
            assert segments == 1
        _assert_same_tree(native, python)


def test_regression_big_nodes_in_python_and_a_deep_chain(monkeypatch):
    """Segments grow whole below the Python builder's big nodes, and a tree deeper than
    the kernel's first 16 levels of histograms, as node by node."""
    monkeypatch.setattr(hist_module, "PARALLEL_MIN_WORK", 3 * 300)
    rng = np.random.default_rng(8)
    X = rng.normal(size=(2000, 3))
    y = X[:, 0] ** 2 + rng.normal(size=2000)
    native, segments = _fit_regressor(X, y, native=True, monkeypatch=monkeypatch)
    monkeypatch.setattr(hist_module, "PARALLEL_MIN_WORK", 3 * 300)
    python, _ = _fit_regressor(X, y, native=False, monkeypatch=monkeypatch)
    assert segments > 4 and native.get_depth() > 16
    _assert_same_tree(native, python)


def test_a_categorical_feature_keeps_regression_on_the_python_builder(monkeypatch):
    rng = np.random.default_rng(9)
    X = np.column_stack([rng.integers(0, 5, 500), rng.normal(size=500)])
    y = X[:, 0] + rng.normal(size=500)
    model, segments = _fit_regressor(X, y, native=True, monkeypatch=monkeypatch,
                                     categorical_features=[0])
    assert segments == 0 and model.tree_.kind.shape[0] > 1


def test_depths_by_pointer_jumping_equal_a_walk_from_the_root(monkeypatch):
    """``Tree.depths`` on trees of recorded nodes and subtrees mixed, shallow and deep."""
    monkeypatch.setattr(hist_module, "PARALLEL_MIN_WORK", 2 * 50)
    x = np.arange(300, dtype=float)
    deepest = []
    for y in ((np.arange(300) % 2 == 0).astype(int), (x > 150).astype(int)):
        X = np.column_stack([x, np.sin(x)])
        tree = DecisionTreeClassifier(splitter="hist").fit(X, y).tree_
        walked = np.zeros(tree.n_nodes, dtype=np.int64)
        for node in range(tree.n_nodes):
            walked[tree.children(node)] = walked[node] + 1
        np.testing.assert_array_equal(tree.depths(), walked)
        deepest.append(walked.max())
    assert deepest[0] > 10 and deepest[1] == 1
