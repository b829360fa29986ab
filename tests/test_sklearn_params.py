"""scikit-learn's parameters, methods and tree view on Quercus's estimator (issue 18),
checked against scikit-learn itself or by hand."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import sparse
from sklearn import datasets
from sklearn.tree import DecisionTreeClassifier as SkTree

from quercus import DecisionTreeClassifier, validation
from quercus.tree import LEAF


@pytest.fixture(scope="module")
def cancer():
    return datasets.load_breast_cancer(return_X_y=True)


def same_tree(a, b):
    for name in ("kind", "feature", "threshold", "value", "n_node_samples"):
        np.testing.assert_array_equal(getattr(a.tree_, name), getattr(b.tree_, name))


def test_best_and_log_loss_are_exact_and_entropy(cancer):
    X, y = cancer
    same_tree(DecisionTreeClassifier(splitter="best").fit(X, y),
              DecisionTreeClassifier(splitter="exact").fit(X, y))
    same_tree(DecisionTreeClassifier(criterion="log_loss").fit(X, y),
              DecisionTreeClassifier(criterion="entropy").fit(X, y))


@pytest.mark.parametrize("params", [{"max_features": "sqrt"}, {"splitter": "random"},
                                    {"splitter": "random", "max_features": 0.3},
                                    {"splitter": "hist", "max_features": 5}])
def test_random_choices_are_deterministic_for_an_int_seed(cancer, params):
    X, y = cancer
    first = DecisionTreeClassifier(random_state=7, **params).fit(X, y)
    same_tree(first, DecisionTreeClassifier(random_state=7, **params).fit(X, y))
    same_tree(first, DecisionTreeClassifier(random_state=np.random.RandomState(7),
                                            **params).fit(X, y))
    other = DecisionTreeClassifier(random_state=8, **params).fit(X, y)
    assert not np.array_equal(first.tree_.feature, other.tree_.feature) or \
        not np.array_equal(first.tree_.threshold, other.tree_.threshold)
    DecisionTreeClassifier(random_state=None, **params).fit(X, y)  # numpy's generator


def test_max_features_searches_that_many_features_per_node():
    """With max_features=1 each split uses the one feature drawn: on data where only
    feature 0 separates the classes, the root is not always feature 0 across seeds."""
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(200, 4))
    y = (X[:, 0] > 0.5).astype(int)
    roots = {int(DecisionTreeClassifier(max_features=1, random_state=s).fit(X, y)
                 .tree_.feature[0]) for s in range(12)}
    assert len(roots) > 1
    assert DecisionTreeClassifier(max_features=4).fit(X, y).tree_.feature[0] == 0


def test_random_thresholds_lie_inside_the_node_range():
    rng = np.random.default_rng(1)
    X = rng.uniform(size=(300, 3))
    y = rng.integers(0, 2, size=300)
    model = DecisionTreeClassifier(splitter="random", random_state=0).fit(X, y)
    tree = model.tree_
    # every split sends rows both ways (a threshold strictly inside the node's range)
    paths = model.decision_path(X).toarray().astype(bool)
    for node in np.flatnonzero(tree.kind != LEAF):
        values = X[paths[:, node], tree.feature[node]]
        assert values.min() <= tree.threshold[node] < values.max()


def test_sparse_x_gives_the_dense_tree(cancer):
    X, y = cancer
    X = np.where(X > np.median(X, axis=0), X, 0.0)
    dense = DecisionTreeClassifier().fit(X, y)
    for container in (sparse.csr_matrix, sparse.csc_matrix, sparse.coo_matrix):
        model = DecisionTreeClassifier().fit(container(X), y)
        same_tree(dense, model)
        np.testing.assert_array_equal(model.predict_proba(container(X)),
                                      dense.predict_proba(X))
        np.testing.assert_array_equal(model.apply(container(X)), dense.apply(X))


def test_sparse_x_beyond_the_memory_guard_is_refused(monkeypatch):
    monkeypatch.setattr(validation, "MAX_DENSE_BYTES", 1000)
    X = sparse.random(100, 10, density=0.01, format="csr", random_state=0)
    with pytest.raises(ValueError, match="sparse 100 x 10 matrix.*densifies"):
        DecisionTreeClassifier().fit(X, np.arange(100) % 2)


def test_sparse_y_is_a_type_error():
    with pytest.raises(TypeError, match="sparse"):
        DecisionTreeClassifier().fit([[0.0], [1.0]], sparse.csr_matrix([[0], [1]]))


def test_predict_log_proba_is_the_log_of_predict_proba(cancer):
    X, y = cancer
    model = DecisionTreeClassifier(max_depth=3).fit(X, y)
    with np.errstate(divide="ignore"):
        np.testing.assert_array_equal(model.predict_log_proba(X),
                                      np.log(model.predict_proba(X)))
    assert model.n_outputs_ == 1 and model.max_features_ == X.shape[1]


def test_tree_view_matches_scikit_learn():
    """On data without ties our tree is scikit-learn's, so its view must equal theirs
    (continuous features and nodes of many rows: no two features split them alike)."""
    X, y = datasets.make_classification(n_samples=400, n_features=6, n_informative=4,
                                        n_classes=3, random_state=0)
    ours = DecisionTreeClassifier(max_depth=3).fit(X, y)
    theirs = SkTree(max_depth=3, random_state=0).fit(X, y).tree_
    view = ours.tree_.sklearn_view
    for name in ("node_count", "max_depth", "n_leaves"):
        assert getattr(ours.tree_, name) == getattr(theirs, name)
    for name in ("children_left", "children_right", "feature", "n_node_samples"):
        np.testing.assert_array_equal(getattr(view, name), getattr(theirs, name))
    for name in ("threshold", "impurity", "weighted_n_node_samples", "value"):
        np.testing.assert_allclose(getattr(view, name), getattr(theirs, name))
    np.testing.assert_array_equal(ours.tree_.children_left, theirs.children_left)
    assert not view.value.flags.writeable


def test_children_arrays_refuse_multiway_trees():
    X = [["a"], ["b"], ["c"], ["a"], ["b"], ["c"]]
    model = DecisionTreeClassifier(algorithm="id3").fit(X, [0, 1, 2, 0, 1, 2])
    with pytest.raises(ValueError, match="multiway"):
        _ = model.tree_.children_left


@pytest.mark.parametrize("params, error, message", [
    ({"algorithm": "c45", "max_features": 2}, ValueError, "CART only"),
    ({"algorithm": "c45", "splitter": "random"}, ValueError, "CART only"),
    ({"algorithm": "interval", "monotonic_cst": [0, 0]}, ValueError, "CART only"),
    ({"max_features": 3}, ValueError, r"max_features must be in \(0, n_features\]"),
    ({"max_features": "half"}, ValueError, "max_features"),
    ({"random_state": "seven"}, ValueError, "random_state"),
    ({"random_state": -1, "max_features": 1}, ValueError, r"random_state must be .*2\*\*32"),
    ({"min_samples_split": 1}, ValueError, r"in the range \[2, inf\)"),
    ({"max_leaf_nodes": 2**63 - 1}, MemoryError, "max_leaf_nodes"),
])
def test_refusals(params, error, message):
    with pytest.raises(error, match=message):
        DecisionTreeClassifier(**params).fit([[0.0, 1.0], [1.0, 0.0]], [0, 1])


def test_sample_weight_shapes_are_refused_as_scikit_learn_does():
    X, y = [[0.0], [1.0]], [0, 1]
    with pytest.raises(ValueError, match="1-D"):
        DecisionTreeClassifier().fit(X, y, sample_weight=np.ones((2, 1)))
    with pytest.raises(TypeError, match="at least 1 dimension"):
        DecisionTreeClassifier().fit(X, y, sample_weight=np.array(0))


def test_c45_seed_still_drives_reduced_error_pruning():
    X, y = datasets.load_iris(return_X_y=True)
    params = {"algorithm": "c45", "reduced_error_pruning": True}
    a = DecisionTreeClassifier(random_state=1, **params).fit(X, y)
    same_tree(a, DecisionTreeClassifier(random_state=1, **params).fit(X, y))
    with pytest.raises(ValueError, match="random_state must be an int"):
        DecisionTreeClassifier(random_state=None, **params).fit(X, y)
    DecisionTreeClassifier(algorithm="c45", random_state=None).fit(X, y)  # unused there


def test_random_state_object_is_saved_as_none(tmp_path):
    from quercus import load_model

    X, y = datasets.load_iris(return_X_y=True)
    model = DecisionTreeClassifier(max_features=2,
                                   random_state=np.random.RandomState(0)).fit(X, y)
    model.save(tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    assert loaded.get_params()["random_state"] is None
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))


def test_leaf_threshold_is_minus_two_in_memory_and_null_in_model_files(tmp_path):
    import json

    from quercus import load_model

    X, y = datasets.load_iris(return_X_y=True)
    model = DecisionTreeClassifier(max_depth=3).fit(X, y)
    leaves = model.tree_.kind == LEAF
    assert np.all(model.tree_.threshold[leaves] == -2.0)
    assert np.all(np.isfinite(model.tree_.threshold[~leaves]))
    model.save(tmp_path / "m.json")
    stored = json.loads((tmp_path / "m.json").read_text())["tree"]["threshold"]
    assert all((v is None) == leaf for v, leaf in zip(stored, leaves, strict=True))
    np.testing.assert_array_equal(load_model(tmp_path / "m.json").tree_.threshold,
                                  model.tree_.threshold)
