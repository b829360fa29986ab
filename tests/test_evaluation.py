"""Stratified folds, accuracy, confusion matrices and cross-validation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from quercus import datasets
from quercus.estimator import DecisionTreeClassifier
from quercus.evaluation import (
    CVResult,
    accuracy,
    confusion_matrix,
    cross_validate,
    format_confusion,
    stratified_folds,
)

Y = np.array(["a"] * 13 + ["b"] * 7 + ["c"] * 3 + ["a"] * 4 + ["b"] * 2)


@pytest.mark.parametrize("n_folds", [2, 3, 5, 10])
def test_folds_partition_rows(n_folds):
    folds = stratified_folds(Y, n_folds, seed=1)
    assert len(folds) == n_folds
    tests = np.concatenate([test for _, test in folds])
    np.testing.assert_array_equal(np.sort(tests), np.arange(len(Y)))
    for train, test in folds:
        assert np.intersect1d(train, test).size == 0
        np.testing.assert_array_equal(np.sort(np.concatenate([train, test])), np.arange(len(Y)))
    sizes = [len(test) for _, test in folds]
    assert max(sizes) - min(sizes) <= 1


@pytest.mark.parametrize("n_folds", [2, 3, 5, 10])
def test_each_class_spread_evenly(n_folds):
    folds = stratified_folds(Y, n_folds, seed=7)
    for label in np.unique(Y):
        counts = [int(np.sum(Y[test] == label)) for _, test in folds]
        assert sum(counts) == int(np.sum(Y == label))
        assert max(counts) - min(counts) <= 1, (label, counts)


def test_folds_depend_on_seed_only():
    same = stratified_folds(list(Y), 5, seed=3)
    again = stratified_folds(pd.Series(Y), 5, seed=3)
    for (a_train, a_test), (b_train, b_test) in zip(same, again):
        np.testing.assert_array_equal(a_test, b_test)
        np.testing.assert_array_equal(a_train, b_train)
    other = stratified_folds(Y, 5, seed=4)
    assert any(not np.array_equal(a[1], b[1]) for a, b in zip(same, other))


@pytest.mark.parametrize("n_folds", [0, 1, len(Y) + 1, True, 2.5])
def test_bad_fold_counts(n_folds):
    with pytest.raises(ValueError):
        stratified_folds(Y, n_folds, seed=0)


def test_leave_one_out_is_allowed():
    folds = stratified_folds(["x", "y", "x"], 3, seed=0)
    assert sorted(len(test) for _, test in folds) == [1, 1, 1]


def test_confusion_matrix_hand_example():
    truth = ["cat", "cat", "dog", "dog", "bird", "cat"]
    predicted = ["cat", "dog", "dog", "dog", "cat", "cat"]
    matrix = confusion_matrix(truth, predicted, ["bird", "cat", "dog"])
    np.testing.assert_array_equal(matrix, [[0, 1, 0],
                                           [0, 2, 1],
                                           [0, 0, 2]])
    assert accuracy(truth, predicted) == pytest.approx(4 / 6)
    table = format_confusion(matrix, ["bird", "cat", "dog"]).splitlines()
    assert table[0].split()[-3:] == ["bird", "cat", "dog"]
    assert table[2].split() == ["cat", "0", "2", "1"]


def test_confusion_matrix_numeric_labels_and_unknowns():
    matrix = confusion_matrix(np.array([1, 2, 2, 3]), [1.0, 2.0, 1.0, 1.0], [1, 2])
    np.testing.assert_array_equal(matrix, [[1, 0], [1, 1]])
    with pytest.raises(ValueError):
        confusion_matrix([1, 2], [1], [1, 2])


def test_cross_validate_iris():
    data = datasets.load("iris")
    result = cross_validate(DecisionTreeClassifier(), data.X, data.y, n_folds=10, seed=0)
    assert isinstance(result, CVResult)
    assert result.accuracies.shape == (10,)
    assert result.labels == ["setosa", "versicolor", "virginica"]
    assert result.confusion.sum() == 150
    np.testing.assert_array_equal(result.confusion.sum(axis=1), [50, 50, 50])
    assert result.confusion[0, 0] == 50  # setosa is always separable
    assert 0.88 <= result.mean <= 1.0
    correct = np.trace(result.confusion)
    assert correct / 150 == pytest.approx(result.mean)  # 10 folds of 15 rows each
    again = cross_validate(DecisionTreeClassifier(), data.X.to_numpy(), data.y.to_numpy(),
                           n_folds=10, seed=0)
    np.testing.assert_array_equal(again.accuracies, result.accuracies)


def test_cross_validate_does_not_touch_the_model():
    data = datasets.load("play_tennis")
    model = DecisionTreeClassifier(criterion="entropy")
    result = cross_validate(model, data.X, data.y, n_folds=2, seed=0)
    assert not hasattr(model, "tree_")
    assert result.confusion.sum() == 14


def test_cross_validate_rare_category_and_missing_labels():
    X = pd.DataFrame({"colour": ["red", "blue"] * 6 + ["green"],
                      "size": np.arange(13, dtype=float)})
    y = ["a", "b"] * 6 + ["a"]
    y[3] = None
    result = cross_validate(DecisionTreeClassifier(), X, y, n_folds=3, seed=0)
    assert result.confusion.sum() == 12
    assert result.labels == ["a", "b"]
