"""scikit-learn's own estimator checks, for every algorithm, plus the API promises that
those checks cannot reach (ID3 needs categorical data, which they never generate)."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone, is_classifier
from sklearn.exceptions import NotFittedError as SklearnNotFittedError
from sklearn.utils.estimator_checks import parametrize_with_checks

import quercus
from quercus import DecisionTreeClassifier, datasets

ESTIMATORS = [
    DecisionTreeClassifier(algorithm="cart"),
    DecisionTreeClassifier(algorithm="cart", splitter="hist"),
    DecisionTreeClassifier(algorithm="id3"),
    DecisionTreeClassifier(algorithm="c45"),
    DecisionTreeClassifier(algorithm="interval"),
]

_ID3_NUMERIC = ("ID3 refuses numeric features (it splits one branch per category and "
                "suggests c45); every data set of this check is numeric")
# Checks that fit ID3 on the numeric data they generate (they pass the refusal on to the
# check as an error); the checks that only test refusals (no y, sparse, complex, empty
# data, unfitted, continuous y, NaN in y) still run and pass.
_ID3_FITS_NUMERIC = [
    "check_classifier_data_not_an_array", "check_classifiers_classes",
    "check_classifiers_one_label", "check_classifiers_one_label_sample_weights",
    "check_classifiers_train", "check_class_weight_classifiers", "check_dict_unchanged",
    "check_dont_overwrite_parameters", "check_dtype_object", "check_estimators_dtypes",
    "check_estimators_fit_returns_self", "check_estimators_overwrite_params",
    "check_estimators_pickle", "check_f_contiguous_array_estimator", "check_fit2d_1feature",
    "check_fit2d_1sample", "check_fit2d_predict1d", "check_fit_check_is_fitted",
    "check_fit_idempotent", "check_fit_score_takes_y", "check_methods_sample_order_invariance",
    "check_methods_subset_invariance", "check_n_features_in",
    "check_n_features_in_after_fitting", "check_pipeline_consistency",
    "check_positive_only_tag_during_fit", "check_readonly_memmap_input",
    "check_sample_weight_equivalence_on_dense_data", "check_sample_weights_list",
    "check_sample_weights_not_an_array", "check_sample_weights_not_overwritten",
    "check_sample_weights_pandas_series", "check_sample_weights_shape",
    "check_supervised_y_2d",
    # sparse X is densified (every algorithm takes it), but these checks' sparse data is numeric
    "check_estimator_sparse_array", "check_estimator_sparse_matrix",
    "check_estimator_sparse_tag", "check_sample_weight_equivalence_on_sparse_data",
]

_INTERVAL_FAILS = {
    "check_classifiers_train": (
        "the check rounds X to integers (Quercus declares categorical input), leaving 5-6 "
        "distinct values per feature; class [min, max] ranges of overlapping blobs cannot "
        "separate them: training accuracy 0.78 < 0.83 (CART reaches 1.0)"),
    "check_class_weight_classifiers": (
        "the class-interval tree follows seed 001's stopping rule (split until pure), not "
        "min_weight_fraction_leaf, and on noisy held-out rows about 24% fall outside every "
        "range and are unclassified (-1), so class 0 is never 87% of the predictions"),
}


def expected_failures(estimator) -> dict[str, str]:
    """Checks that fail on purpose, each with its reason (strict: they must fail)."""
    if estimator.algorithm == "id3":
        return dict.fromkeys(_ID3_FITS_NUMERIC, _ID3_NUMERIC)
    if estimator.algorithm == "interval":
        return dict(_INTERVAL_FAILS)
    return {}


with warnings.catch_warnings():  # Quercus does not inherit from scikit-learn on purpose
    warnings.filterwarnings("ignore", message=".*does not inherit from `sklearn.base")
    _CHECKS = parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failures,
                                      xfail_strict=True)


@_CHECKS
def test_sklearn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*does not inherit from `sklearn.base")
        check(estimator)


# -- what the checks cannot reach: ID3 on categorical data, and every algorithm on data
#    with strings and missing values ------------------------------------------------------

def _data(algorithm: str):
    name = "play_tennis" if algorithm == "id3" else "iris"
    X, y, _ = datasets.load(name)
    return X, y


@pytest.mark.parametrize("algorithm", ["cart", "id3", "c45", "interval"])
def test_pickle_clone_and_refit_give_the_same_model(algorithm):
    X, y = _data(algorithm)
    model = DecisionTreeClassifier(algorithm=algorithm).fit(X, y)
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again.predict_proba(X), model.predict_proba(X))
    np.testing.assert_array_equal(again.predict(X), model.predict(X))
    twin = clone(model)
    assert not hasattr(twin, "tree_") and twin.get_params() == model.get_params()
    np.testing.assert_array_equal(twin.fit(X, y).predict_proba(X), model.predict_proba(X))
    assert is_classifier(model)
    assert list(model.feature_names_in_) == list(X.columns)
    assert model.n_features_in_ == X.shape[1]
    assert sorted(model.classes_) == sorted(set(y))


@pytest.mark.parametrize("algorithm", ["cart", "id3", "c45", "interval"])
def test_fit_does_not_change_its_input(algorithm):
    X, y = _data(algorithm)
    X = X.copy()
    X.iloc[::5, 0] = None if algorithm != "id3" else X.iloc[::5, 0]  # ID3: no missing values
    weights = np.linspace(0.5, 2.0, len(y))
    X_before, y_before, w_before = X.copy(), y.copy(), weights.copy()
    DecisionTreeClassifier(algorithm=algorithm).fit(X, y, sample_weight=weights)
    pd.testing.assert_frame_equal(X, X_before)
    pd.testing.assert_series_equal(pd.Series(y), pd.Series(y_before))
    np.testing.assert_array_equal(weights, w_before)


def test_numeric_array_is_not_changed_by_fit_or_predict():
    X, y, _ = datasets.load("iris")
    array = X.to_numpy(dtype=float, copy=True)
    array[::7, 1] = np.nan
    before = array.copy()
    for algorithm in ("cart", "c45", "interval"):
        DecisionTreeClassifier(algorithm=algorithm).fit(array, y).predict_proba(array)
        np.testing.assert_array_equal(array, before)


@pytest.mark.parametrize("algorithm", ["cart", "id3", "c45", "interval"])
def test_unfitted_model_raises_both_not_fitted_errors(algorithm):
    X, _ = _data(algorithm)
    model = DecisionTreeClassifier(algorithm=algorithm)
    for method in (model.predict, model.predict_proba, model.apply, model.decision_path):
        with pytest.raises(quercus.NotFittedError) as caught:
            method(X)
        assert isinstance(caught.value, SklearnNotFittedError)
        assert isinstance(caught.value, AttributeError)


def test_zero_weight_rows_are_as_good_as_absent():
    """sample_weight 0 removes a row (its value does not even move a threshold), and an
    integer weight repeats it, for CART and the class-interval tree."""
    rng = np.random.default_rng(5)
    X = rng.random((40, 3))
    y = rng.integers(0, 2, 40)
    weights = rng.integers(0, 3, 40)
    for params in ({"algorithm": "cart"}, {"algorithm": "cart", "splitter": "hist"},
                   {"algorithm": "interval"}):
        weighted = DecisionTreeClassifier(**params).fit(X, y, sample_weight=weights)
        repeated = DecisionTreeClassifier(**params).fit(np.repeat(X, weights, axis=0),
                                                        np.repeat(y, weights))
        np.testing.assert_array_equal(weighted.tree_.threshold, repeated.tree_.threshold)
        np.testing.assert_array_equal(weighted.predict_proba(X), repeated.predict_proba(X))


@pytest.mark.parametrize("y, message", [
    ([0.5, 1.5, 2.5, 0.5], "Unknown label type: continuous"),
    ([0.0, 1.0, np.inf, 0.0], "y contains infinity"),
    (None, "requires y to be passed"),
])
def test_bad_targets_are_refused(y, message):
    X = [[1.0], [2.0], [3.0], [4.0]]
    for labels in ([y] if y is None else [y, np.array(y), pd.Series(y)]):
        with pytest.raises(ValueError, match=message):
            DecisionTreeClassifier().fit(X, labels)


def test_whole_number_float_labels_and_missing_labels_still_work():
    X = np.array([[1.0], [2.0], [3.0], [4.0], [5.0]])
    model = DecisionTreeClassifier().fit(X, np.array([1.0, 1.0, 2.0, 2.0, np.nan]))
    assert model.classes_.tolist() == [1.0, 2.0]
    assert model.predict([[1.5], [3.5]]).tolist() == [1.0, 2.0]


def test_input_refusals_name_the_problem():
    from scipy.sparse import csr_matrix

    X = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    model = DecisionTreeClassifier().fit(X, [0, 1, 1])
    with pytest.raises(ValueError, match="X has 1 features, but DecisionTreeClassifier is "
                                         "expecting 2 features as input"):
        model.predict(X[:, :1])
    with pytest.raises(ValueError, match="Reshape your data"):
        model.predict(X[0])
    with pytest.raises(TypeError, match="y is a sparse matrix"):
        model.fit(X, csr_matrix(np.array([[0], [1], [1]])))
    with pytest.raises(ValueError, match="0 sample"):
        model.fit(np.empty((0, 2)), [])
    with pytest.raises(ValueError, match="weight.*zero"):
        model.fit(X, [0, 1, 1], sample_weight=[0, 0, 0])
