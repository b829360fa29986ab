"""Text tree and IF-THEN rules: hand-checked trees and rule/prediction agreement."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from quercus import datasets
from quercus.estimator import DecisionTreeClassifier
from quercus.export import Condition, branch_conditions, rules_to_text, tree_to_rules, tree_to_text
from quercus.export.conditions import format_number, format_percent
from quercus.export.rules import simplify

# Worked out by hand (entropy, binary subset splits; the Wind = Strong node ties between
# Outlook and Temperature and goes to the lower feature index, Outlook).
PLAY_TENNIS_TEXT = """\
Outlook = Overcast: Yes (4)
Outlook in {Rain, Sunny}
|   Humidity = High
|   |   Outlook = Rain
|   |   |   Wind = Strong: No (1)
|   |   |   Wind = Weak: Yes (1)
|   |   Outlook = Sunny: No (3)
|   Humidity = Normal
|   |   Wind = Strong
|   |   |   Outlook = Rain: No (1)
|   |   |   Outlook = Sunny: Yes (1)
|   |   Wind = Weak: Yes (3)
Depth: 4, leaves: 7"""

PLAY_TENNIS_RULES = [
    "IF Outlook = Overcast THEN PlayTennis = Yes  (support 4, accuracy 100%)",
    ("IF Outlook = Rain AND Humidity = High AND Wind = Strong THEN PlayTennis = No  "
     "(support 1, accuracy 100%)"),
    ("IF Outlook = Rain AND Humidity = High AND Wind = Weak THEN PlayTennis = Yes  "
     "(support 1, accuracy 100%)"),
    "IF Outlook = Sunny AND Humidity = High THEN PlayTennis = No  (support 3, accuracy 100%)",
    ("IF Outlook = Rain AND Humidity = Normal AND Wind = Strong THEN PlayTennis = No  "
     "(support 1, accuracy 100%)"),
    ("IF Outlook = Sunny AND Humidity = Normal AND Wind = Strong THEN PlayTennis = Yes  "
     "(support 1, accuracy 100%)"),
    ("IF Outlook in {Rain, Sunny} AND Humidity = Normal AND Wind = Weak THEN PlayTennis = Yes  "
     "(support 3, accuracy 100%)"),
]


@pytest.fixture(scope="module")
def tennis():
    data = datasets.load("play_tennis")
    model = DecisionTreeClassifier(criterion="entropy").fit(data.X, data.y)
    return data, model


@pytest.fixture(scope="module")
def iris():
    return datasets.load("iris")


def holds(condition: Condition, value) -> bool:
    """Evaluate one condition on a raw value, independently of the library."""
    missing = value is None or (isinstance(value, float) and math.isnan(value))
    op, bound = condition.op, condition.value
    if op == "missing":
        return missing
    if op == "not missing":
        return not missing
    if missing:
        return False
    if op == "<=":
        return value <= bound
    if op == ">":
        return value > bound
    if op == "between":
        return bound[0] < value <= bound[1]
    if op == "=":
        return value == bound
    if op == "in":
        return value in bound
    raise AssertionError(op)


def check_rules_cover(model, X: pd.DataFrame) -> None:
    rules = tree_to_rules(model)
    assert len(rules) == model.get_n_leaves()
    predicted = model.predict(X)
    for i, row in enumerate(X.astype(object).itertuples(index=False)):
        values = dict(zip(X.columns, row))
        matching = [r for r in rules if all(holds(c, values[c.feature_name])
                                            for c in r.conditions)]
        assert len(matching) == 1, (i, values)
        assert matching[0].label == predicted[i]


def test_play_tennis_text_matches_hand_built_tree(tennis):
    _, model = tennis
    assert tree_to_text(model) == PLAY_TENNIS_TEXT


def test_play_tennis_rules(tennis):
    _, model = tennis
    assert rules_to_text(model).splitlines() == PLAY_TENNIS_RULES


def test_play_tennis_rules_cover_every_row(tennis):
    data, model = tennis
    check_rules_cover(model, data.X)


def test_iris_stump(iris):
    model = DecisionTreeClassifier(max_depth=1).fit(iris.X, iris.y)
    assert tree_to_text(model) == ("petal_length <= 2.45: setosa (50)\n"
                                   "petal_length > 2.45: versicolor (100, 50%)\n"
                                   "Depth: 1, leaves: 2")
    assert rules_to_text(model).splitlines() == [
        "IF petal_length <= 2.45 THEN species = setosa  (support 50, accuracy 100%)",
        "IF petal_length > 2.45 THEN species = versicolor  (support 100, accuracy 50%)",
    ]
    first = tree_to_rules(model)[0]
    assert first.conditions == (Condition("petal_length", "<=", pytest.approx(2.45)),)
    assert (first.label, first.support, first.accuracy) == ("setosa", 50, 1.0)


@pytest.mark.parametrize("params", [{}, {"max_depth": 3}, {"criterion": "entropy"},
                                    {"max_leaf_nodes": 5}])
def test_iris_rules_cover_every_row(iris, params):
    model = DecisionTreeClassifier(**params).fit(iris.X, iris.y)
    check_rules_cover(model, iris.X)


def test_rules_merge_bounds_on_one_feature(iris):
    model = DecisionTreeClassifier().fit(iris.X, iris.y)
    rules = tree_to_rules(model)
    assert any(c.op == "between" for r in rules for c in r.conditions)
    for rule in rules:
        names = [c.feature_name for c in rule.conditions]
        assert len(names) == len(set(names)), str(rule)
    assert "2.45 < petal_length <= 4.95" in rules_to_text(model)


def test_text_tree_shows_share_below_100_percent(iris):
    model = DecisionTreeClassifier(max_depth=2).fit(iris.X, iris.y)
    lines = tree_to_text(model).splitlines()
    assert lines == ["petal_length <= 2.45: setosa (50)",
                     "petal_length > 2.45",
                     "|   petal_width <= 1.75: versicolor (54, 90.7%)",
                     "|   petal_width > 1.75: virginica (46, 97.8%)",
                     "Depth: 2, leaves: 3"]


def test_root_only_tree():
    X = pd.DataFrame({"a": [1.0, 2.0, 3.0]})
    model = DecisionTreeClassifier().fit(X, ["k", "k", "k"])
    assert tree_to_text(model) == ": k (3)\nDepth: 0, leaves: 1"
    assert rules_to_text(model) == "IF TRUE THEN class = k  (support 3, accuracy 100%)"


def test_missing_split_with_infinite_threshold():
    X = pd.DataFrame({"a": [1.0, 2.0, 3.0, np.nan, np.nan, np.nan]})
    model = DecisionTreeClassifier().fit(X, ["n", "n", "n", "y", "y", "y"])
    assert model.tree_.threshold[0] == np.inf
    conds = branch_conditions(model.tree_, 0, model.schema_)
    assert [str(c) for _, c in conds] == ["a is not missing", "a is missing"]
    assert tree_to_text(model).splitlines()[:2] == ["a is not missing: n (3)",
                                                   "a is missing: y (3)"]
    check_rules_cover(model, X)


def test_branch_conditions_of_categorical_node(tennis):
    _, model = tennis
    conds = branch_conditions(model.tree_, 0, model.schema_)
    children = model.tree_.children(0).tolist()
    assert [child for child, _ in conds] == children
    assert conds[0][1] == Condition("Outlook", "=", "Overcast")
    assert conds[1][1] == Condition("Outlook", "in", ("Rain", "Sunny"))
    assert branch_conditions(model.tree_, children[0], model.schema_) == []


def test_numeric_categories_and_labels_print_plainly():
    X = pd.DataFrame({"c": pd.Categorical([1, 2, 3, 1, 2, 3])})
    model = DecisionTreeClassifier().fit(X, [0, 0, 1, 0, 0, 1])
    assert rules_to_text(model).splitlines() == [
        "IF c in {1, 2} THEN class = 0  (support 4, accuracy 100%)",
        "IF c = 3 THEN class = 1  (support 2, accuracy 100%)",
    ]


@pytest.mark.parametrize("value, text", [
    (2.4500000476837, "2.45"), (3.0, "3"), (-0.5, "-0.5"), (1234567.5, "1234567.5"),
    (0.000123456789, "0.000123457"), (1.75, "1.75"), (float("inf"), "inf"), (0.0, "0"),
])
def test_format_number(value, text):
    assert format_number(value) == text


def test_format_percent():
    assert format_percent(1.0) == "100%"
    assert format_percent(49 / 54) == "90.7%"
    assert format_percent(0.9999) == "99.9%"


def test_condition_str():
    assert str(Condition("x", "<=", 2.5)) == "x <= 2.5"
    assert str(Condition("x", ">", 2.0)) == "x > 2"
    assert str(Condition("x", "=", "a")) == "x = a"
    assert str(Condition("x", "in", ("a", "b c"))) == "x in {a, 'b c'}"
    assert str(Condition("x", "missing")) == "x is missing"
    assert str(Condition("x", "not missing")) == "x is not missing"
    assert str(Condition("x", "between", (1.0, 2.5))) == "1 < x <= 2.5"
    with pytest.raises(ValueError):
        Condition("x", "<")


def test_simplify_keeps_tightest_bounds_and_intersects_sets():
    path = (Condition("a", ">", 1.0), Condition("b", "in", ("x", "y", "z")),
            Condition("a", "<=", 5.0), Condition("a", ">", 2.0), Condition("a", "<=", 4.0),
            Condition("b", "in", ("y", "z", "w")), Condition("b", "=", "z"),
            Condition("c", "not missing"), Condition("c", "<=", 0.5))
    assert simplify(path) == (Condition("a", "between", (2.0, 4.0)), Condition("b", "=", "z"),
                              Condition("c", "<=", 0.5))
