"""ID3 and C4.5 models through the exporters and model files.

The text tree and the rules on multiway categorical nodes, fractional C4.5 weights, empty
leaves and C4.5's weighted missing-value route; model files that keep every prediction,
including rows with missing values that descend several branches.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import quercus
from quercus import datasets
from quercus.errors import ModelFileError
from quercus.estimator import DecisionTreeClassifier
from quercus.export import branch_conditions, model_file, rules_to_text, tree_to_rules, tree_to_text
from quercus.export.conditions import format_value, format_weight, node_summaries
from quercus.export.model_file import load_model, save_model
from quercus.tree import _ARRAY_FIELDS, CATEGORICAL, LEAF, NUMERIC

DATA = Path(__file__).parent / "data"
ARFF_FILES = sorted((DATA / "arff").glob("*.arff"))
ID3_SETS = ["weather.nominal", "contact-lenses"]
J48_SETS = ["iris", "weather.nominal", "weather.numeric", "contact-lenses", "labor", "vote",
            "breast-cancer", "diabetes", "glass", "ionosphere", "soybean", "credit-g",
            "segment-challenge"]


def read(name):
    X, y, _ = quercus.read_arff(DATA / "arff" / f"{name}.arff")
    return X, y


_FITTED: dict = {}


def fitted(name, algorithm="c45", **params):
    """A fitted model (cached: C4.5 on the larger sets takes a moment)."""
    key = (name, algorithm, tuple(sorted(params.items())))
    if key not in _FITTED:
        X, y = read(name)
        model = DecisionTreeClassifier(algorithm=algorithm, **params).fit(X, y)
        _FITTED[key] = (model, X, y)
    return _FITTED[key]


# Three categorical features, and a branch (b = q, a = z) that no training row reaches.
EMPTY_ROWS = [("p", "x", "k"), ("p", "z", "k"), ("p", "y", "k"), ("q", "x", "k"),
              ("q", "y", "m"), ("q", "x", "k"), ("q", "y", "m"), ("p", "y", "k")]


def empty_leaf_data():
    X = pd.DataFrame([r[:2] for r in EMPTY_ROWS], columns=["b", "a"]).astype("category")
    return X, [r[2] for r in EMPTY_ROWS]


# -- text tree -----------------------------------------------------------------------------
WEATHER_TEXT = """\
outlook = sunny
|   humidity = high: no (3)
|   humidity = normal: yes (2)
outlook = overcast: yes (4)
outlook = rainy
|   windy = TRUE: no (2)
|   windy = FALSE: yes (3)
Depth: 2, leaves: 5"""

# J48 prints these leaves as 253.41/3.75, 145.71/4.0, 22.61/3.32, 5.04/0.02, 2.21, 6.03/1.03
VOTE_TEXT = """\
physician-fee-freeze = n: democrat (253.41, 98.5%)
physician-fee-freeze = y
|   synfuels-corporation-cutback = n: republican (145.71, 97.3%)
|   synfuels-corporation-cutback = y
|   |   mx-missile = n
|   |   |   adoption-of-the-budget-resolution = n: republican (22.61, 85.3%)
|   |   |   adoption-of-the-budget-resolution = y
|   |   |   |   anti-satellite-test-ban = n: democrat (5.04, 99.5%)
|   |   |   |   anti-satellite-test-ban = y: republican (2.21)
|   |   mx-missile = y: democrat (6.03, 82.9%)
Depth: 5, leaves: 6"""

LABOR_RULES = [
    "IF wage-increase-first-year <= 2.5 THEN class = bad  (support 15.27, accuracy 85.1%)",
    ("IF wage-increase-first-year > 2.5 AND statutory-holidays <= 10 THEN class = bad  "
     "(support 10.77, accuracy 55.7%)"),
    ("IF wage-increase-first-year > 2.5 AND statutory-holidays > 10 THEN class = good  "
     "(support 30.96, accuracy 96.8%)"),
]


def test_multiway_categorical_text_and_rules():
    model, _, _ = fitted("weather.nominal")
    assert tree_to_text(model) == WEATHER_TEXT
    assert rules_to_text(model).splitlines()[0] == (
        "IF outlook = sunny AND humidity = high THEN play = no  (support 3, accuracy 100%)")
    conds = branch_conditions(model.tree_, 0, model.schema_)
    assert [str(c) for _, c in conds] == ["outlook = sunny", "outlook = overcast",
                                          "outlook = rainy"]


def test_id3_text_is_multiway():
    model, _, _ = fitted("weather.nominal", "id3")
    assert tree_to_text(model) == WEATHER_TEXT  # ID3 and C4.5 agree here, as in Weka


def test_fractional_supports():
    model, _, _ = fitted("vote")
    assert tree_to_text(model) == VOTE_TEXT
    rules = tree_to_rules(model)
    assert rules[0].support == pytest.approx(253.41, abs=0.005)
    assert "(support 253.41, accuracy 98.5%)" in str(rules[0])
    labor, _, _ = fitted("labor")
    assert rules_to_text(labor).splitlines() == LABOR_RULES


@pytest.mark.parametrize("value, text", [(21, "21"), (21.0, "21"), (3.2345, "3.23"),
                                         (7.25, "7.25"), (4.999, "5"), (0.0, "0"),
                                         (1.005000001, "1.01"), (0.5, "0.5")])
def test_format_weight(value, text):
    assert format_weight(value) == text


def test_cart_supports_stay_row_counts():
    data = datasets.load("iris")
    model = DecisionTreeClassifier(max_depth=1, class_weight={"setosa": 3.0}).fit(data.X,
                                                                                   data.y)
    assert tree_to_text(model).splitlines()[0] == "petal_length <= 2.45: setosa (50)"
    assert tree_to_rules(model)[0].support == 50


_LEAF_LINE = re.compile(r": (.+) \(([0-9.]+)(?:/[0-9.]+)?\)$")
_OUR_LEAF = re.compile(r": (.+) \(([0-9.]+)(?:, [0-9.]+%)?\)$")


@pytest.mark.parametrize("name", J48_SETS)
def test_text_leaves_agree_with_j48(name):
    """Line by line, our text tree has J48's branches, leaf classes and leaf weights
    (J48 prints the weight at an empty leaf as 0.0 and its parent's majority class)."""
    model, _, _ = fitted(name)
    j48 = (DATA / "j48" / f"{name}.J48.txt").read_text().splitlines()
    j48 = [line for line in j48[3:] if line and not line.startswith(("Number", "Size"))]
    ours = tree_to_text(model).splitlines()[:-1]
    assert len(ours) == len(j48)
    for mine, theirs in zip(ours, j48):
        assert mine.count("|   ") == theirs.count("|   ")
        a, b = _OUR_LEAF.search(mine), _LEAF_LINE.search(theirs)
        assert (a is None) == (b is None), (mine, theirs)
        if a is not None:
            assert a.group(1) == format_value(b.group(1)), (mine, theirs)
            assert float(a.group(2)) == pytest.approx(float(b.group(2)), abs=1e-9)


def test_empty_leaves_show_parent_majority_with_support_zero():
    model, _, _ = fitted("soybean")
    tree = model.tree_
    empty = np.flatnonzero(tree.empty)
    assert empty.size == 12
    summaries = node_summaries(model)
    parent = tree.parents()
    for leaf in empty:
        assert summaries[leaf].support == 0 and summaries[leaf].empty
        assert summaries[leaf].label == model.classes_[np.argmax(tree.value[parent[leaf]])]
    text = tree_to_text(model)
    assert "|   |   leafspots-marg = dna: bacterial-blight (0)" in text
    assert "|   canker-lesion = brown: bacterial-blight (0)" in text
    assert "(0," not in text  # no share printed for an empty leaf


def test_empty_leaf_label_is_what_predict_gives():
    X, y = empty_leaf_data()
    model = DecisionTreeClassifier(algorithm="id3").fit(X, y)
    assert model.tree_.empty.sum() == 1
    assert tree_to_text(model).splitlines() == [
        "b = p: k (4)", "b = q", "|   a = x: k (2)", "|   a = y: m (2)", "|   a = z: k (0)",
        "Depth: 2, leaves: 4"]
    # the parent (b = q) holds k and m equally: predict takes the first class, k
    row = pd.DataFrame([["q", "z"]], columns=["b", "a"])
    assert list(model.predict(row)) == ["k"]


def test_c45_text_never_claims_a_missing_branch():
    for name in ("vote", "soybean", "breast-cancer", "labor"):
        model, _, _ = fitted(name)
        assert set(model.tree_.missing_branch[model.tree_.kind != LEAF]) == {-1}
        assert "missing" not in tree_to_text(model)
        assert "missing" not in rules_to_text(model)


def test_infinite_threshold_means_missing_only_for_a_single_missing_branch():
    X = pd.DataFrame({"a": [1.0, 2.0, 3.0, np.nan, np.nan, np.nan]})
    model = DecisionTreeClassifier().fit(X, ["n", "n", "n", "y", "y", "y"])
    assert model.tree_.missing_branch[0] == 1
    model.tree_.missing_branch[0] = -1  # as a C4.5 node would send missing values
    conds = [str(c) for _, c in branch_conditions(model.tree_, 0, model.schema_)]
    assert conds == ["a <= inf", "a > inf"]


# -- rules ---------------------------------------------------------------------------------
def _decision(model, row: np.ndarray):
    """The leaf a row reaches by known values, or None if it meets a missing tested value."""
    tree, node = model.tree_, 0
    while tree.kind[node] != LEAF:
        v = row[tree.feature[node]]
        if np.isnan(v):
            return None
        if tree.kind[node] == NUMERIC:
            branch = 0 if v <= tree.threshold[node] else 1
        else:
            branch = tree.category_map(node)[int(v)]
        node = int(tree.children(node)[branch])
    return node


def _holds(condition, value) -> bool:
    missing = value is None or (isinstance(value, float) and math.isnan(value))
    if missing:
        return False
    op, bound = condition.op, condition.value
    return {"<=": lambda: value <= bound, ">": lambda: value > bound,
            "between": lambda: bound[0] < value <= bound[1], "=": lambda: value == bound,
            "in": lambda: value in bound}[op]()


@pytest.mark.parametrize("name, algorithm", [*((n, "c45") for n in J48_SETS),
                                             *((n, "id3") for n in ID3_SETS)])
def test_rules_one_per_non_empty_leaf_and_cover_rows(name, algorithm):
    model, X, _ = fitted(name, algorithm)
    tree = model.tree_
    rules = tree_to_rules(model)
    leaves = np.flatnonzero((tree.kind == LEAF) & ~tree.empty)
    assert [r.leaf for r in rules] == sorted(leaves.tolist())
    encoded = model.schema_.encode(X)
    predicted = model.predict(X)
    raw = X.astype(object).where(X.notna(), None)
    for i, row in enumerate(raw.itertuples(index=False)):
        values = dict(zip(X.columns, row))
        matching = [r for r in rules if all(_holds(c, values[c.feature_name])
                                            for c in r.conditions)]
        leaf = _decision(model, encoded[i])
        if leaf is None or tree.empty[leaf]:
            assert matching == [], i  # a missing tested value, or an empty leaf
        else:
            assert [r.leaf for r in matching] == [leaf], i
            assert matching[0].label == predicted[i]


def test_soybean_rules_skip_empty_leaves():
    model, _, _ = fitted("soybean")
    rules = tree_to_rules(model)
    assert len(rules) == model.get_n_leaves() - 12 == 49
    assert all(r.support > 0 for r in rules)
    text = rules_to_text(model)
    assert "(support 0," not in text
    assert ("IF leafspot-size = lt-1/8 AND canker-lesion = dna AND leafspots-marg = w-s-marg "
            "AND seed-size = lt-norm THEN class = bacterial-pustule  (support 3.23, "
            "accuracy 61.9%)") in text.splitlines()


# -- model files ---------------------------------------------------------------------------
def assert_same(a, b, X) -> None:
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    np.testing.assert_array_equal(a.apply(X), b.apply(X))
    for name in _ARRAY_FIELDS:
        np.testing.assert_array_equal(getattr(a.tree_, name), getattr(b.tree_, name))
        assert getattr(a.tree_, name).dtype == getattr(b.tree_, name).dtype
    assert a.schema_ == b.schema_
    assert a.get_params() == b.get_params()
    assert tree_to_text(a) == tree_to_text(b)


def round_trip(model, tmp_path):
    path = tmp_path / "model.json"
    save_model(model, path)
    return load_model(path)


def with_missing_rows(X: pd.DataFrame) -> pd.DataFrame:
    """X, plus a copy of its first rows with every other feature blanked, and an all-missing
    row: these descend several branches of a C4.5 node."""
    blanked = X.head(20).copy()
    for j, column in enumerate(blanked.columns):
        if j % 2 == 0:
            blanked[column] = None if blanked[column].dtype == object else np.nan
    blank = X.head(1).copy()
    for column in blank.columns:
        blank[column] = None if blank[column].dtype == object else np.nan
    return pd.concat([X, blanked, blank], ignore_index=True)


def several_branches(model, X) -> int:
    """Rows whose probabilities are not those of the single leaf ``apply`` picks."""
    proba = model.predict_proba(X)
    single = model.tree_.node_probabilities(bool(model.laplace))[model.apply(X)]
    return int(np.count_nonzero(np.any(np.abs(proba - single) > 1e-12, axis=1)))


@pytest.mark.parametrize("path", ARFF_FILES, ids=lambda p: p.stem)
def test_c45_round_trip_every_arff(tmp_path, path):
    model, X, _ = fitted(path.stem)
    loaded = round_trip(model, tmp_path)
    rows = with_missing_rows(X)
    assert_same(model, loaded, rows)
    if model.tree_.n_leaves > 1:
        assert several_branches(model, rows) > 0
    assert (loaded.tree_.empty == model.tree_.empty).all()
    if path.stem == "soybean":
        assert loaded.tree_.empty.sum() == 12


@pytest.mark.parametrize("params", [{"laplace": True}, {"pruning": False},
                                    {"subtree_raising": False, "confidence": 0.1},
                                    {"min_samples_leaf": 5}])
@pytest.mark.parametrize("name", ["soybean", "breast-cancer", "labor"])
def test_c45_round_trip_options(tmp_path, name, params):
    model, X, _ = fitted(name, **params)
    loaded = round_trip(model, tmp_path)
    assert_same(model, loaded, with_missing_rows(X))


@pytest.mark.parametrize("name", ID3_SETS)
def test_id3_round_trip(tmp_path, name):
    model, X, _ = fitted(name, "id3")
    loaded = round_trip(model, tmp_path)
    assert_same(model, loaded, with_missing_rows(X))


@pytest.mark.parametrize("algorithm", ["id3", "c45"])
def test_round_trip_play_tennis(tmp_path, algorithm):
    data = datasets.load("play_tennis")
    model = DecisionTreeClassifier(algorithm=algorithm).fit(data.X, data.y)
    assert CATEGORICAL in model.tree_.kind
    loaded = round_trip(model, tmp_path)
    assert_same(model, loaded, with_missing_rows(data.X))
    rows = [["Sunny", "Cool", "High", "Strong"], ["Overcast", None, None, None],
            [None, None, None, None]]
    frame = pd.DataFrame(rows, columns=list(data.X.columns))
    np.testing.assert_array_equal(loaded.predict_proba(frame), model.predict_proba(frame))


def test_round_trip_empty_leaves_and_missing(tmp_path):
    X, y = empty_leaf_data()
    for algorithm in ("id3", "c45"):
        model = DecisionTreeClassifier(algorithm=algorithm, min_samples_leaf=1).fit(X, y)
        rows = pd.DataFrame([["q", "z"], ["q", None], [None, None], [None, "z"]],
                            columns=["b", "a"])
        loaded = round_trip(model, tmp_path)
        assert_same(model, loaded, rows)
        assert_same(model, loaded, X)


def test_document_stores_weighted_route_and_empty_flags():
    model, _, _ = fitted("soybean")
    doc = model_file.model_to_dict(model)
    assert doc["params"]["algorithm"] == "c45"
    assert -1 in doc["tree"]["missing_branch"]
    assert doc["tree"]["empty"].count(True) == 12
    assert all(isinstance(v, bool) for v in doc["tree"]["empty"])


@pytest.mark.parametrize("name, algorithm", [("vote", "c45"), ("iris", "cart")])
def test_file_without_empty_array_loads(tmp_path, name, algorithm):
    """Files written before the ``empty`` array existed: every node counts as non-empty."""
    X, y = read(name)
    model = DecisionTreeClassifier(algorithm=algorithm).fit(X, y)
    doc = model_file.model_to_dict(model)
    del doc["tree"]["empty"]
    path = tmp_path / "old.json"
    path.write_text(json.dumps(doc))
    loaded = load_model(path)
    assert loaded.tree_.empty.dtype == np.bool_
    assert not loaded.tree_.empty.any() and loaded.tree_.empty.shape == (model.tree_.n_nodes,)
    rows = with_missing_rows(X)
    np.testing.assert_array_equal(loaded.predict_proba(rows), model.predict_proba(rows))


def _break(doc, how):
    tree = doc["tree"]
    if how == "empty_string":
        tree["empty"][0] = "many"
    elif how == "empty_number":
        tree["empty"][0] = 1
    elif how == "empty_short":
        tree["empty"] = tree["empty"][:-1]
    elif how == "empty_not_list":
        tree["empty"] = True
    elif how == "missing_branch_low":
        inner = tree["kind"].index(CATEGORICAL)
        tree["missing_branch"][inner] = -2
    elif how == "missing_branch_high":
        inner = tree["kind"].index(CATEGORICAL)
        tree["missing_branch"][inner] = 99
    return doc


@pytest.mark.parametrize("how", ["empty_string", "empty_number", "empty_short",
                                 "empty_not_list", "missing_branch_low",
                                 "missing_branch_high"])
def test_malformed_c45_documents(tmp_path, how):
    model, _, _ = fitted("soybean")
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(_break(model_file.model_to_dict(model), how)))
    with pytest.raises(ModelFileError) as info:
        load_model(path)
    assert "bad.json" in str(info.value) and "\n" not in str(info.value)
