"""CART with a multi-output y (one label column per output), against scikit-learn."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeClassifier as SkTree

from quercus import DecisionTreeClassifier


def two_outputs(seed: int = 0, n: int = 300):
    """Continuous features (no ties), a two-class and a four-class output."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    first = (X[:, 0] + rng.normal(size=n) > 0).astype(int)
    second = 2 * (X[:, 1] - X[:, 2] + rng.normal(size=n) > 0) + (X[:, 3] > 0)
    return X, np.column_stack([first, second])


@pytest.mark.parametrize("criterion", ["gini", "log_loss"])
@pytest.mark.parametrize("params", [{"max_depth": 3}, {"max_depth": 4, "min_samples_leaf": 5},
                                    {"max_leaf_nodes": 8}])
def test_same_tree_as_scikit_learn(criterion, params):
    X, Y = two_outputs()
    ours = DecisionTreeClassifier(criterion=criterion, **params).fit(X, Y)
    theirs = SkTree(criterion=criterion, random_state=0, **params).fit(X, Y)
    view, sk = ours.tree_.sklearn_view, theirs.tree_
    if "max_leaf_nodes" not in params:  # best first, scikit-learn numbers nodes as created
        np.testing.assert_array_equal(view.feature, sk.feature)
        np.testing.assert_array_equal(view.children_left, sk.children_left)
        np.testing.assert_allclose(view.impurity, sk.impurity, atol=1e-12)
        np.testing.assert_allclose(view.value, sk.value, atol=1e-12)
    assert ours.tree_.node_count == sk.node_count
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    for mine, its in zip(ours.predict_proba(X), theirs.predict_proba(X), strict=True):
        np.testing.assert_allclose(mine, its, atol=1e-12)
    np.testing.assert_allclose(ours.feature_importances_, theirs.feature_importances_,
                               atol=1e-12)


def test_shapes_and_attributes():
    X, Y = two_outputs()
    labels = np.empty(Y.shape, dtype=object)  # a string output and an integer one
    labels[:, 0] = np.where(Y[:, 0] == 1, "yes", "no")
    labels[:, 1] = Y[:, 1].tolist()
    Y = labels
    model = DecisionTreeClassifier(max_depth=3).fit(X, Y)
    assert model.n_outputs_ == 2 and list(model.n_classes_) == [2, 4]
    assert list(model.classes_[0]) == ["no", "yes"] and list(model.classes_[1]) == [0, 1, 2, 3]
    assert model.predict(X[:7]).shape == (7, 2)
    proba = model.predict_proba(X[:7])
    assert [p.shape for p in proba] == [(7, 2), (7, 4)]
    log_proba = model.predict_log_proba(X[:7])
    with np.errstate(divide="ignore"):
        np.testing.assert_array_equal(log_proba[1], np.log(proba[1]))
    assert model.tree_.sklearn_view.value.shape == (model.tree_.node_count, 2, 4)
    truth = model.predict(X)
    assert model.score(X, truth) == 1.0


def test_class_weights_multiply_over_outputs():
    """A list of per-output class weights equals the product of the weights as
    sample_weight (scikit-learn's compute_sample_weight rule)."""
    X, Y = two_outputs(1)
    class_weight = [{0: 1.0, 1: 3.0}, {0: 2.0, 1: 1.0, 2: 1.0, 3: 0.5}]
    weighted = DecisionTreeClassifier(class_weight=class_weight, max_depth=4).fit(X, Y)
    factors = np.array([class_weight[0][a] * class_weight[1][b] for a, b in Y])
    by_rows = DecisionTreeClassifier(max_depth=4).fit(X, Y, sample_weight=factors)
    np.testing.assert_array_equal(weighted.tree_.threshold, by_rows.tree_.threshold)
    theirs = SkTree(class_weight=class_weight, max_depth=4, random_state=0).fit(X, Y)
    np.testing.assert_array_equal(weighted.predict(X), theirs.predict(X))
    with pytest.raises(ValueError, match="number of elements in class_weight"):
        DecisionTreeClassifier(class_weight=class_weight[:1]).fit(X, Y)


def test_random_splitter_is_deterministic_for_an_int_seed():
    X, Y = two_outputs(2)
    a = DecisionTreeClassifier(splitter="random", max_features=2, random_state=3).fit(X, Y)
    b = DecisionTreeClassifier(splitter="random", max_features=2, random_state=3).fit(X, Y)
    np.testing.assert_array_equal(a.tree_.threshold, b.tree_.threshold)
    assert a.score(X, Y) == 1.0  # grown until pure


@pytest.mark.parametrize("params, X_change, message", [
    ({"algorithm": "c45"}, None, "CART only"),
    ({"splitter": "hist"}, None, "splitter"),
    ({"monotonic_cst": [0, 0, 0, 0, 0]}, None, "Monotonicity"),
    ({}, "nan", "missing values"),
    ({}, "categorical", "categorical"),
])
def test_refusals(params, X_change, message):
    X, Y = two_outputs()
    if X_change == "nan":
        X = X.copy()
        X[0, 0] = np.nan
    if X_change == "categorical":
        X = pd.DataFrame(X).assign(colour=["red", "blue"] * (len(X) // 2))
    with pytest.raises(ValueError, match=message):
        DecisionTreeClassifier(**params).fit(X, Y)


def test_saving_is_refused(tmp_path):
    X, Y = two_outputs()
    model = DecisionTreeClassifier(max_depth=2).fit(X, Y)
    with pytest.raises(ValueError, match="multi-output"):
        model.save(tmp_path / "m.json")
    assert not (tmp_path / "m.json").exists()
