"""The class-interval tree of seed 001: scores by hand, unclassifiable rows, XML files."""

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import quercus
from quercus import DecisionTreeClassifier, ModelFileError, datasets
from quercus.export.interval_xml import csharp_double, tree_to_xml
from quercus.export.model_file import load_xml
from quercus.export.rules import rules_to_text
from quercus.growing.interval import USELESS, IntervalGrower, candidate_scores

DATA = Path(__file__).parent / "data" / "interval"


def flowers():
    X, y, schema = datasets.load("flowers")
    return X, y, schema, schema.encode(X), schema.encode_labels(y)


def test_seed_scores_of_the_first_branch():
    """Seed 001: separating the Alpine Gentian by its colour scores
    1 - (1/8)^2 - (1/8)^2 - (1/8)^2 - (2/8)^2 - (2/8)^2 - (1/8)^2 = 1 - 12/64 = 0.8125
    (it, and every other flower outside); by flower type 'calycinal' only the Silver
    Thistle and the Edelweiss fall outside: 1 - 3 * (1/8)^2 = 0.953125."""
    _, _, schema, X, y = flowers()
    scores, lows, highs = candidate_scores(X, y, np.ones(8), np.arange(8), 6, "gini")
    gentian = schema.classes.index("Alpine Gentian")
    colour = schema.feature_names.index("colour")
    kind = schema.feature_names.index("flower_type")
    assert scores[gentian, colour] == pytest.approx(0.8125)
    assert scores[gentian, kind] == pytest.approx(0.953125)
    blue = schema.features[colour].codebook.index("blue")
    assert lows[gentian, colour] == highs[gentian, colour] == blue


def test_entropy_score_by_hand():
    """Classes a, a, b, c on one feature: a's range [1, 2] leaves b (3) and c (4) outside.
    Entropy: -(2/4) log2(2/4) - 2 * (1/4) log2(1/4) = 0.5 + 1.0 = 1.5."""
    X = np.array([[1.0], [2.0], [3.0], [4.0]])
    y = np.array([0, 0, 1, 2])
    scores, _, _ = candidate_scores(X, y, np.ones(4), np.arange(4), 3, "entropy")
    assert scores[0, 0] == pytest.approx(1.5)
    gini, _, _ = candidate_scores(X, y, np.ones(4), np.arange(4), 3, "gini")
    assert gini[0, 0] == pytest.approx(1 - 0.25 - 1 / 16 - 1 / 16)


def test_a_range_that_separates_nothing_is_useless():
    X = np.array([[1.0], [3.0], [2.0]])
    y = np.array([0, 0, 1])  # class 0 spans [1, 3], class 1's 2 lies inside
    scores, _, _ = candidate_scores(X, y, np.ones(3), np.arange(3), 2, "gini")
    assert scores[0, 0] == USELESS
    assert scores[1, 0] < USELESS  # class 1's range [2, 2] leaves both 0s outside


def test_flowers_tree_follows_the_seed():
    """Blue separates the Alpine Gentian; then flower type 'composite' separates Silver
    Thistle and Edelweiss, which thorns tell apart."""
    X, y, schema, _, _ = flowers()
    model = DecisionTreeClassifier(algorithm="interval").fit(X, y)
    tree = model.tree_

    def name(node):
        return schema.features[tree.feature[node]].name

    def cls(node):
        return model.classes_[tree.interval_class[node]]

    assert (name(0), cls(0)) == ("colour", "Alpine Gentian")
    outside = tree.children(0)[1]
    assert (name(outside), cls(outside)) == ("flower_type", "Edelweiss")
    composite = tree.children(outside)[0]
    assert name(composite) == "thorns"
    assert set(np.flatnonzero(tree.value[composite])) == {
        schema.classes.index("Edelweiss"), schema.classes.index("Silver Thistle")}
    assert model.score(X, y) == 1.0


def test_unclassifiable_rows():
    X, y, schema, _, _ = flowers()
    model = DecisionTreeClassifier(algorithm="interval").fit(X, y)
    # blue but composite: the Alpine Gentian's pure branch tests flower type: no branch fits
    odd = X.iloc[[0]].astype(object).copy()
    odd.loc[odd.index[0], "flower_type"] = "composite"
    assert model.predict(odd)[0] is None
    assert model.predict_proba(odd).sum() == 0.0
    both = X.iloc[[0, 0]].astype(object).copy()
    both.iloc[1, 0] = "composite"
    assert model.score(both, [y.iloc[0], y.iloc[0]]) == 0.5  # unclassified counts as wrong
    custom = DecisionTreeClassifier(algorithm="interval", unclassified="?").fit(X, y)
    assert custom.predict(odd)[0] == "?"
    codes = y.map({c: i for i, c in enumerate(schema.classes.values)}).to_numpy()
    ints = DecisionTreeClassifier(algorithm="interval").fit(X, codes)
    assert ints.predict(odd)[0] == -1
    assert "unclassified" not in rules_to_text(model)


def test_xml_fixture_written_by_hand_loads_and_classifies():
    model = load_xml(DATA / "flowers_seed.xml")
    assert list(model.classes_) == [1, 2, 3, 4, 5, 6]
    # the flowers coded as in the fixture's comment; expected classes worked out by hand
    rows = np.array([[0, 0, 0, 1], [1, 2, 1, 1], [1, 2, 0, 1], [0, 1, 1, 2], [0, 1, 0, 0],
                     [0, 3, 0, 1], [0, 3, 0, 2], [1, 0, 0, 1]], dtype=float)
    assert list(model.predict(rows)) == [1, 5, 2, 4, 6, 6, 3, -1]
    # and a tree learned by Quercus on the same data predicts the same way
    _, y, schema, X, _ = flowers()
    learned = DecisionTreeClassifier(algorithm="interval").fit(X, y)
    seed_numbers = {c: i + 1 for i, c in enumerate(schema.classes.values)}
    assert [seed_numbers[c] for c in learned.predict(X)] == list(model.predict(X))


def test_xml_round_trip_is_exact(tmp_path):
    text = (DATA / "compact_seed.xml").read_text()
    model = load_xml(DATA / "compact_seed.xml")
    assert tree_to_xml(model) == text
    _, y, _, X, _ = flowers()
    learned = DecisionTreeClassifier(algorithm="interval", lookahead=True).fit(X, y)
    learned.save(tmp_path / "tree.xml")
    again = quercus.load_model(tmp_path / "tree.xml")
    # string labels are written as class codes: the format holds no names
    codes = [list(learned.classes_).index(c) for c in learned.predict(X)]
    np.testing.assert_array_equal(again.predict(X), codes)
    assert tree_to_xml(again) == (tmp_path / "tree.xml").read_text()


@pytest.mark.parametrize("content, message", [
    ("<Treesetting><Branch Class='1'", "malformed"),
    ("<other/>", "Treesetting"),
    ("<Treesetting><Branch Class='1' Gini='0' Min='0' Max='1'>0</Branch></Treesetting>",
     "Property"),
    (("<Treesetting><Branch Class='x' Gini='0' Min='0' Max='1' Property='0'>0</Branch>"
      "</Treesetting>"), "Class"),
    ('<?xml version="1.0"?><!DOCTYPE t [<!ENTITY a "aaaa">]><Treesetting>&a;</Treesetting>',
     "DOCTYPE"),
])
def test_bad_xml_files_are_clear_errors(tmp_path, content, message):
    path = tmp_path / "bad.xml"
    path.write_text(content)
    with pytest.raises(ModelFileError, match=message) as info:
        load_xml(path)
    assert "\n" not in str(info.value)


def test_csharp_number_format():
    assert [csharp_double(v) for v in (1.0, 0.8125, 1e50, 1e-05, -2.5)] == [
        "1", "0.8125", "1E+50", "1E-05", "-2.5"]


def greedy_and_lookahead(X, y, n_classes, criterion):
    w = np.ones(len(y))
    greedy = IntervalGrower(X, y, w, n_classes, criterion=criterion).grow()
    ahead = IntervalGrower(X, y, w, n_classes, criterion=criterion, lookahead=True,
                           max_depth=64).grow()
    return greedy, ahead


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_lookahead_never_worse_than_greedy_on_iris(criterion):
    X, y, schema = datasets.load("iris")
    greedy, ahead = greedy_and_lookahead(schema.encode(X), schema.encode_labels(y), 3,
                                         criterion)
    assert ahead.total <= greedy.total + 1e-12


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4), st.integers(0, 2)),
                min_size=2, max_size=14, unique_by=lambda r: r[:2]),
       st.sampled_from(["gini", "entropy"]))
def test_lookahead_never_worse_than_greedy(rows, criterion):
    X = np.array([[a, b] for a, b, _ in rows], dtype=float)
    y = np.array([c for _, _, c in rows])
    greedy, ahead = greedy_and_lookahead(X, y, 3, criterion)
    if greedy.total < USELESS:
        assert ahead.total <= greedy.total + 1e-12


def test_iris_protocol_runs_at_the_seeds_depths():
    X, y, _ = datasets.load("iris")
    test = np.arange(9, 150, 10)
    train = np.setdiff1d(np.arange(150), test)
    assert len(test) == 15 and len(train) == 135
    for lookahead, depth in [(False, None), (True, 10), (True, 6), (True, 5)]:
        model = DecisionTreeClassifier(algorithm="interval", lookahead=lookahead,
                                       max_depth=depth).fit(X.iloc[train], y.iloc[train])
        assert model.get_depth() <= (depth or 64)
        predicted = model.predict(X.iloc[test])
        assert len(predicted) == 15


def test_greedy_gini_on_iris_matches_the_seeds_account():
    """Seed 001, greedy with gini on the 135/15 split: a tree 10 branches deep; of the 15
    test samples one is unclassified (-1) and the last one is wrongly classified as
    Iris-versicolor, the rest are right. (The seed's unclassified sample is its fourth
    versicolor; here it is the fourth virginica, row 119: docs/interval.md.)"""
    X, y, _ = datasets.load("iris")
    test = np.arange(9, 150, 10)
    train = np.setdiff1d(np.arange(150), test)
    model = DecisionTreeClassifier(algorithm="interval").fit(X.iloc[train], y.iloc[train])
    predicted = model.predict(X.iloc[test])
    truth = y.iloc[test].to_numpy()
    lost = np.array([p is None for p in predicted])
    assert model.get_depth() == 10
    assert lost.sum() == 1
    assert ((predicted == truth) & ~lost).sum() == 13
    assert predicted[-1] == "versicolor" and truth[-1] == "virginica"
