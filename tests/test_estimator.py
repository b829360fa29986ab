"""DecisionTreeClassifier: the scikit-learn protocol, categorical and missing data, properties."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

from quercus import DecisionTreeClassifier, NotFittedError, datasets
from quercus.tree import CATEGORICAL, LEAF


def test_params_round_trip_and_clone():
    model = DecisionTreeClassifier(max_depth=3, criterion="entropy")
    assert model.get_params()["max_depth"] == 3
    model.set_params(min_samples_leaf=4)
    assert model.min_samples_leaf == 4
    copy = clone(model)
    assert copy.get_params() == model.get_params() and copy is not model
    with pytest.raises(ValueError, match="invalid parameter"):
        model.set_params(depth=2)
    assert "max_depth=3" in repr(model)


def test_pipeline_and_cross_val_score():
    X, y, _ = datasets.load("iris")
    pipe = make_pipeline(FunctionTransformer(), DecisionTreeClassifier(max_depth=3))
    scores = cross_val_score(pipe, X.to_numpy(), y.to_numpy(), cv=5)
    assert scores.shape == (5,) and scores.mean() > 0.9


def test_fitted_attributes_on_data_frame():
    X, y, _ = datasets.load("iris")
    model = DecisionTreeClassifier().fit(X, y)
    assert list(model.classes_) == ["setosa", "versicolor", "virginica"]
    assert model.n_classes_ == 3 and model.n_features_in_ == 4
    assert list(model.feature_names_in_) == list(X.columns)
    assert model.feature_importances_.sum() == pytest.approx(1.0)
    assert model.score(X, y) == 1.0
    leaves = model.apply(X)
    assert np.all(model.tree_.kind[leaves] == LEAF)
    path = model.decision_path(X).toarray()
    assert np.all(path[np.arange(len(X)), leaves] == 1) and np.all(path[:, 0] == 1)
    assert path.sum(axis=1).max() == model.get_depth() + 1
    assert not hasattr(DecisionTreeClassifier().fit(X.to_numpy(), y), "feature_names_in_")


def test_not_fitted():
    with pytest.raises(NotFittedError):
        DecisionTreeClassifier().predict([[1.0]])


@pytest.mark.parametrize(
    "bad",
    [
        {"max_depth": 0},
        {"criterion": "gain"},
        {"algorithm": "x"},
        {"min_samples_leaf": 0},
        {"ccp_alpha": -1.0},
        {"max_leaf_nodes": 1},
        {"class_weight": "auto"},
    ],
)
def test_bad_parameters_raise_one_line_value_errors(bad):
    X, y, _ = datasets.load("iris")
    with pytest.raises(ValueError) as info:
        DecisionTreeClassifier(**bad).fit(X, y)
    assert "\n" not in str(info.value)


def test_play_tennis_categorical_tree_fits_exactly():
    X, y, schema = datasets.load("play_tennis")
    model = DecisionTreeClassifier(criterion="entropy").fit(X, y)
    assert model.score(X, y) == 1.0
    tree = model.tree_
    assert np.all(tree.kind[tree.kind != LEAF] == CATEGORICAL)
    # Outlook = Overcast is pure "Yes": Breiman's ordering puts it alone on one side first.
    root_feature = schema.feature_names[tree.feature[0]]
    assert root_feature == "Outlook"
    overcast = schema.features[tree.feature[0]].codebook.index("Overcast")
    branch = tree.category_map(0)[overcast]
    assert tree.value[tree.children(0)[branch]].tolist() == [0.0, 4.0]
    assert list(model.predict(X)) == list(y)


def test_subset_split_groups_categories_by_class():
    colour = ["red", "blue", "green", "yellow"] * 25
    label = ["a" if c in ("red", "yellow") else "b" for c in colour]
    X = pd.DataFrame({"colour": pd.Categorical(colour)})
    model = DecisionTreeClassifier().fit(X, label)
    assert model.get_n_leaves() == 2 and model.score(X, label) == 1.0
    cmap = model.tree_.category_map(0)
    codes = {v: i for i, v in enumerate(model.schema_.features[0].codebook.values)}
    assert (
        cmap[codes["red"]] == cmap[codes["yellow"]] != cmap[codes["blue"]] == cmap[codes["green"]]
    )


def test_unseen_category_is_a_clear_error():
    X, y, _ = datasets.load("play_tennis")
    model = DecisionTreeClassifier().fit(X, y)
    bad = X.astype(object).copy()
    bad.loc[0, "Outlook"] = "Foggy"
    with pytest.raises(ValueError, match="Foggy"):
        model.predict(bad)


def test_missing_values_learn_their_side():
    rng = np.random.default_rng(0)
    x = rng.random(200)
    y = (x > 0.5).astype(int)
    x_missing = x.copy()
    idx = np.flatnonzero(y == 1)[:30]
    x_missing[idx] = np.nan  # missing values only among class 1
    model = DecisionTreeClassifier(max_depth=1).fit(x_missing.reshape(-1, 1), y)
    assert model.score(x_missing.reshape(-1, 1), y) == 1.0
    assert model.predict([[np.nan]])[0] == 1
    # with no missing values in training, a missing value follows the larger child
    counts = DecisionTreeClassifier(max_depth=1).fit(
        np.r_[x, 0.1, 0.2].reshape(-1, 1), np.r_[y, 0, 0]
    )
    larger = int(np.argmax(counts.tree_.n_node_samples[counts.tree_.children(0)]))
    assert counts.predict([[np.nan]])[0] == larger  # left child is class 0, right class 1


def test_string_labels_and_missing_labels_are_dropped():
    X = np.array([[1.0], [2.0], [3.0], [4.0], [5.0]])
    y = np.array(["lo", "lo", None, "hi", "hi"], dtype=object)
    model = DecisionTreeClassifier().fit(X, y)
    assert model.tree_.n_node_samples[0] == 4
    assert list(model.predict([[1.5], [4.5]])) == ["lo", "hi"]


def test_max_leaf_nodes_is_respected():
    X, y, _ = datasets.load("iris")
    for k in (2, 3, 5, 8):
        assert DecisionTreeClassifier(max_leaf_nodes=k).fit(X, y).get_n_leaves() == k


def test_ccp_alpha_shrinks_tree_monotonically():
    X, y, _ = datasets.load("iris")
    path = DecisionTreeClassifier().cost_complexity_pruning_path(X, y)
    leaves = [DecisionTreeClassifier(ccp_alpha=a).fit(X, y).get_n_leaves() for a in path.ccp_alphas]
    assert leaves == sorted(leaves, reverse=True) and leaves[-1] == 1


rows_strategy = st.lists(
    st.tuples(st.integers(0, 20), st.integers(-5, 5), st.sampled_from("abc"), st.integers(0, 2)),
    min_size=2,
    max_size=60,
)


def _frame(rows):
    X = pd.DataFrame(
        {
            "a": [float(r[0]) for r in rows],
            "b": [float(r[1]) for r in rows],
            "c": pd.Categorical([r[2] for r in rows]),
        }
    )
    return X, np.array([r[3] for r in rows])


@settings(max_examples=60, deadline=None)
@given(rows_strategy)
def test_no_limits_and_no_conflicts_fit_training_data(rows):
    seen = {}
    rows = [r for r in rows if seen.setdefault(r[:3], r[3]) == r[3]]  # drop conflicting rows
    X, y = _frame(rows)
    for criterion in ("gini", "entropy"):
        assert DecisionTreeClassifier(criterion=criterion).fit(X, y).score(X, y) == 1.0


@settings(max_examples=60, deadline=None)
@given(rows_strategy, st.randoms(use_true_random=False))
def test_shuffling_rows_does_not_change_predictions(rows, random):
    X, y = _frame(rows)
    before = DecisionTreeClassifier(max_depth=4).fit(X, y).predict(X)
    perm = list(range(len(rows)))
    random.shuffle(perm)
    after = DecisionTreeClassifier(max_depth=4).fit(X.iloc[perm], y[perm]).predict(X)
    np.testing.assert_array_equal(before, after)


@settings(max_examples=60, deadline=None)
@given(rows_strategy)
def test_increasing_transform_does_not_change_predictions(rows):
    X, y = _frame(rows)
    before = DecisionTreeClassifier(min_samples_leaf=2).fit(X, y).predict(X)
    Xt = X.assign(a=np.exp(X["a"] / 4.0), b=X["b"] ** 3 + 7.0)
    after = DecisionTreeClassifier(min_samples_leaf=2).fit(Xt, y).predict(Xt)
    np.testing.assert_array_equal(before, after)


def test_fits_100k_rows_quickly():
    """Not a timing test: a smoke test that the exact splitter scales (no per-row Python)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100_000, 20))
    y = (X[:, 0] + X[:, 1] ** 2 + rng.normal(scale=0.5, size=100_000) > 1).astype(int)
    model = DecisionTreeClassifier(max_depth=12).fit(X, y)
    assert model.score(X, y) > 0.8
