"""ID3 (seed 002's pseudocode): the textbook trees and hand-computed gains."""

import numpy as np
import pandas as pd
import pytest

from quercus import DataError, DecisionTreeClassifier, datasets
from quercus.tree import CATEGORICAL, LEAF


def branch(model, node, feature_value):
    """Child of ``node`` for a category value of the node's feature."""
    spec = model.schema_.features[model.tree_.feature[node]]
    code = spec.codebook.index(feature_value)
    return model.tree_.children(node)[model.tree_.category_map(node)[code]]


def feature_name(model, node):
    return model.schema_.features[model.tree_.feature[node]].name


def leaf_class(model, node):
    assert model.tree_.kind[node] == LEAF
    return model.classes_[np.argmax(model.tree_.value[node])]


def test_play_tennis_textbook_tree():
    """Mitchell (1997): Outlook at the root; Sunny -> Humidity, Overcast -> Yes, Rain -> Wind."""
    X, y, _ = datasets.load("play_tennis")
    model = DecisionTreeClassifier(algorithm="id3").fit(X, y)
    tree = model.tree_
    assert tree.kind[0] == CATEGORICAL and feature_name(model, 0) == "Outlook"
    assert len(tree.children(0)) == 3  # one branch per category
    sunny, overcast, rain = (branch(model, 0, v) for v in ("Sunny", "Overcast", "Rain"))
    assert feature_name(model, sunny) == "Humidity"
    assert leaf_class(model, branch(model, sunny, "High")) == "No"
    assert leaf_class(model, branch(model, sunny, "Normal")) == "Yes"
    assert leaf_class(model, overcast) == "Yes"
    assert feature_name(model, rain) == "Wind"
    assert leaf_class(model, branch(model, rain, "Strong")) == "No"
    assert leaf_class(model, branch(model, rain, "Weak")) == "Yes"
    assert model.get_n_leaves() == 5 and model.score(X, y) == 1.0


def test_xor_root_is_the_irrelevant_a4():
    """Seed 002 (Esmeir & Markovitch): ID3 puts the irrelevant A4 at the root.

    By hand, with 4 '+' and 3 '-': H = -(4/7 log2 4/7 + 3/7 log2 3/7) = 0.9852.
    A4 = 1 holds rows 1, 5, 6, 7 (+ + - +: H = 0.8113), A4 = 0 rows 2, 3, 4 (+ - -: 0.9183):
    gain = 0.9852 - (4/7 * 0.8113 + 3/7 * 0.9183) = 0.1281.
    A1 = 1 holds rows 1, 4, 7 (+ - +: 0.9183), A1 = 0 rows 2, 3, 5, 6 (+ - + -: 1.0):
    gain = 0.9852 - (3/7 * 0.9183 + 4/7 * 1.0) = 0.0202; A2 and A3 split 3/4 the same way
    (0.0202 each). So A4 wins.
    """
    X, y, _ = datasets.load("xor")
    model = DecisionTreeClassifier(algorithm="id3").fit(X, y)
    assert feature_name(model, 0) == "A4"
    assert model.score(X, y) == 1.0


def test_gain_ratio_option_and_depth_limit():
    X, y, _ = datasets.load("play_tennis")
    ratio = DecisionTreeClassifier(algorithm="id3", criterion="gain_ratio").fit(X, y)
    assert ratio.score(X, y) == 1.0
    stump = DecisionTreeClassifier(algorithm="id3", max_depth=1).fit(X, y)
    assert stump.get_depth() == 1 and stump.get_n_leaves() == 3


def test_attribute_is_not_reused_below_itself():
    X, y, _ = datasets.load("play_tennis")
    model = DecisionTreeClassifier(algorithm="id3").fit(X, y)
    tree = model.tree_
    for node in range(tree.n_nodes):
        for child in tree.children(node):
            if tree.kind[child] != LEAF:
                assert tree.feature[child] != tree.feature[node]


def test_empty_branch_predicts_parent_majority():
    X = pd.DataFrame({
        "colour": pd.Categorical(["red", "red", "red", "blue", "blue"],
                                 categories=["red", "blue", "green"]),
        "size": pd.Categorical(["s", "l", "s", "s", "l"]),
    })
    y = ["a", "b", "a", "b", "b"]
    model = DecisionTreeClassifier(algorithm="id3").fit(X, y)
    # "green" never occurs: its branch is an empty leaf predicting the root's majority "b"
    green = branch(model, 0, "green")
    assert model.tree_.empty[green]
    assert model.predict(pd.DataFrame({"colour": ["green"], "size": ["s"]}))[0] == "b"


def test_numeric_feature_is_a_clear_error():
    X, y, _ = datasets.load("iris")
    with pytest.raises(DataError, match="c45"):
        DecisionTreeClassifier(algorithm="id3").fit(X, y)


def test_missing_values_are_a_clear_error():
    X, y, _ = datasets.load("play_tennis")
    X = X.astype(object)
    X.loc[0, "Wind"] = None
    with pytest.raises(DataError, match="Wind"):
        DecisionTreeClassifier(algorithm="id3").fit(X, y)
