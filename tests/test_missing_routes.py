"""Where training rows with a missing value went: ``Tree.n_missing`` and the ``or missing``
of the text tree and the rules, so that a leaf's support is the rows its rule matches."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from quercus import DecisionTreeClassifier, DecisionTreeRegressor, load_model
from quercus.binning import BinMapper
from quercus.export.conditions import Condition
from quercus.export.dot import tree_to_dot
from quercus.export.rule_match import condition_from_json, condition_mask, condition_to_json
from quercus.export.rules import tree_to_rules
from quercus.export.text import tree_to_text
from quercus.missing_counts import binned_missing_counts, missing_counts
from quercus.tree import LEAF, Tree

DATA = Path(__file__).parent / "data"
LABOR = DATA / "rpart" / "data" / "labor.csv"


def _labor():
    frame = pd.read_csv(LABOR)
    return frame.drop(columns="class"), frame["class"]


def _holds(condition: Condition, column: pd.Series) -> np.ndarray:
    """The condition on raw values, written independently of quercus's matcher."""
    missing = column.isna().to_numpy()
    op, value = condition.op, condition.value
    if op == "missing":
        return missing
    if op == "not missing":
        return ~missing
    if op in ("=", "in"):
        allowed = {value} if op == "=" else set(value)
        held = np.array([(not m) and v in allowed for v, m in zip(column, missing)])
    else:
        numbers = pd.to_numeric(column).to_numpy(dtype=float)
        with np.errstate(invalid="ignore"):
            if op == "<=":
                held = numbers <= value
            elif op == ">":
                held = numbers > value
            else:
                low, high = value
                held = (numbers > low) & (numbers <= high)
        held &= ~missing
    return held | missing if condition.or_missing else held


def _matched(rule, X: pd.DataFrame) -> int:
    mask = np.ones(len(X), dtype=bool)
    for condition in rule.conditions:
        mask &= _holds(condition, X[condition.feature_name])
    return int(mask.sum())


@pytest.mark.parametrize("params", [
    {"algorithm": "cart"},
    {"algorithm": "cart", "splitter": "hist"},
    {"algorithm": "cart", "max_depth": 2},
    {"algorithm": "optimal", "max_depth": 2},
])
def test_every_rule_matches_as_many_training_rows_as_its_support(params):
    X, y = _labor()
    model = DecisionTreeClassifier(**params).fit(X, y)
    rules = tree_to_rules(model)
    assert sum(rule.support for rule in rules) == len(X)
    for rule in rules:
        assert _matched(rule, X) == rule.support, str(rule)
    assert model.tree_.n_missing is not None


def test_labor_shows_where_the_missing_values_went():
    X, y = _labor()
    model = DecisionTreeClassifier(algorithm="cart").fit(X, y)
    text = tree_to_text(model)
    # 46 rows have a pension other than "none" or none recorded (30 of them)
    assert "pension in {empl_contr, ret_allw} or missing\n" in text
    assert X["pension"].isna().sum() == 30
    tree = model.tree_
    root_missing = int(tree.n_missing[0])
    assert root_missing == X["pension"].isna().sum()
    right = int(tree.children(0)[tree.missing_branch[0]])
    assert tree.n_node_samples[right] == (X["pension"] != "none").sum()
    rule = next(r for r in tree_to_rules(model) if r.support == 34)
    assert str(rule).startswith("IF (pension in {empl_contr, ret_allw} or missing) AND ")


def _walk_counts(tree: Tree, X: np.ndarray) -> np.ndarray:
    """Rows reaching each node with the node's feature missing, row by row (no kernels)."""
    counts = np.zeros(tree.n_nodes, dtype=np.int64)
    for row in X:
        node = 0
        while tree.kind[node] != LEAF:
            value = row[tree.feature[node]]
            children = tree.children(node)
            if math.isnan(value):
                counts[node] += 1
                node = int(children[tree.missing_branch[node]])
            else:
                node = int(children[0] if value <= tree.threshold[node] else children[1])
    return counts


def _numeric_with_gaps(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(0, 0.5, n) > 0).astype(int)
    X[rng.random((n, 4)) < 0.1] = np.nan
    return X, y


@pytest.mark.parametrize("splitter", ["best", "hist"])
def test_counts_equal_a_row_by_row_walk(splitter):
    X, y = _numeric_with_gaps()
    model = DecisionTreeClassifier(splitter=splitter, max_depth=6, max_bins=31).fit(X, y)
    expected = _walk_counts(model.tree_, X)
    assert expected.sum() > 100
    np.testing.assert_array_equal(model.tree_.n_missing, expected)


def test_counts_from_bins_equal_counts_from_values():
    X, y = _numeric_with_gaps(seed=1)
    model = DecisionTreeClassifier(splitter="hist", max_depth=7, max_bins=15).fit(X, y)
    binner = BinMapper(max_bins=15, sample_rows=500).fit(X, np.zeros(4, bool), np.zeros(4, int))
    assert not binner.bin_values_  # quantile edges: bins are ranges, not values
    # the tree's thresholds are those edges only when it was grown on them; a tree grown on
    # these bins routes a bin's upper edge as every value in the bin
    grown = DecisionTreeClassifier(splitter="hist", max_depth=7).fit_binned(
        binner.transform(X), y.astype(np.int32), model.schema_, binner)
    from_bins = binned_missing_counts(grown.tree_, binner, binner.transform(X),
                                      np.zeros(4, bool))
    np.testing.assert_array_equal(from_bins, missing_counts(grown.tree_, X))
    np.testing.assert_array_equal(grown.tree_.n_missing, from_bins)


def test_rows_left_out_of_the_fit_are_not_counted():
    X, y = _numeric_with_gaps(seed=2)
    labels = np.where(np.arange(len(y)) % 7 == 0, None, y.astype(object))
    model = DecisionTreeClassifier(max_depth=4).fit(X, labels)
    kept = np.array([v is not None for v in labels])
    np.testing.assert_array_equal(model.tree_.n_missing, _walk_counts(model.tree_, X[kept]))
    assert model.tree_.n_node_samples[0] == kept.sum()


def test_a_regressor_counts_and_shows_them_too():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(800, 2))
    target = 3 * (X[:, 0] > 0) + rng.normal(0, 0.3, 800)
    X[rng.random(800) < 0.2, 0] = np.nan
    model = DecisionTreeRegressor(max_depth=2).fit(X, target)
    np.testing.assert_array_equal(model.tree_.n_missing, _walk_counts(model.tree_, X))
    assert "or missing" in tree_to_text(model)


def test_data_without_missing_values_records_nothing_and_prints_as_before():
    X, y = _numeric_with_gaps(seed=3)
    X = np.nan_to_num(X)
    model = DecisionTreeClassifier(max_depth=3).fit(X, y)
    assert model.tree_.n_missing is None
    assert "n_missing" not in model.tree_.to_dict()
    assert "missing" not in tree_to_text(model)


def test_c45_and_rpart_trees_record_nothing():
    X, y = _labor()
    for algorithm in ("c45", "rpart"):
        assert DecisionTreeClassifier(algorithm=algorithm).fit(X, y).tree_.n_missing is None


def test_model_files_keep_the_counts_and_refuse_bad_ones(tmp_path):
    X, y = _labor()
    model = DecisionTreeClassifier().fit(X, y)
    path = tmp_path / "labor.json"
    model.save(path)
    loaded = load_model(path)
    np.testing.assert_array_equal(loaded.tree_.n_missing, model.tree_.n_missing)
    assert tree_to_text(loaded) == tree_to_text(model)
    document = json.loads(path.read_text())
    document["tree"]["n_missing"][0] = int(document["tree"]["n_node_samples"][0]) + 1
    path.write_text(json.dumps(document))
    with pytest.raises(Exception, match="n_missing' of node 0"):
        load_model(path)


def test_a_pruned_copy_keeps_the_counts_of_its_nodes():
    X, y = _labor()
    full = DecisionTreeClassifier(prune="1se", random_state=0).fit(X, y)
    small = DecisionTreeClassifier(ccp_alpha=0.02).fit(X, y)
    for model in (full, small):
        tree = model.tree_
        if tree.n_missing is not None:
            assert np.all(tree.n_missing[tree.kind == LEAF] == 0)
            for rule in tree_to_rules(model):
                assert _matched(rule, X) == rule.support, str(rule)


def test_conditions_match_keep_and_draw_missing_values():
    schema = DecisionTreeClassifier().fit(np.array([[1.0], [np.nan], [3.0]]),
                                          [0, 1, 1]).schema_
    encoded = np.array([[1.0], [np.nan], [3.0]])
    condition = Condition("x0", "<=", 2.0, or_missing=True)
    assert str(condition) == "x0 <= 2 or missing"
    np.testing.assert_array_equal(condition_mask(condition, encoded, schema), [True, True, False])
    assert condition_from_json(condition_to_json(condition)) == condition
    assert "or_missing" not in condition_to_json(Condition("x0", "<=", 2.0))
    with pytest.raises(ValueError, match="already says"):
        Condition("x0", "missing", or_missing=True)
    X, y = _labor()
    dot = tree_to_dot(DecisionTreeClassifier(max_depth=1).fit(X, y))
    assert dot.count("or missing") == 1


@pytest.mark.parametrize("where", ["tested", "untested", "nowhere"])
def test_a_fit_counts_missing_routes_only_when_the_input_check_saw_nan(where, monkeypatch):
    """The encode pass that looks for infinities also counts rows with NaN; a fit without
    any skips the walk for missing routes. The counts are the row-by-row walk's, and None
    without a NaN in a tested column."""
    from quercus import estimator

    rng = np.random.default_rng(7)
    X = rng.normal(size=(40_000, 8))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    model = DecisionTreeClassifier(max_depth=3).fit(X, y)
    tested = np.unique(model.tree_.feature[model.tree_.kind != LEAF])
    untested = np.setdiff1d(np.arange(8), tested)
    assert untested.size
    if where == "tested":
        X[rng.random(X.shape[0]) < 0.01, tested[0]] = np.nan
    elif where == "untested":
        X[::3, untested[0]] = np.nan
    counts = missing_counts(model.tree_, X)
    expected = _walk_counts(model.tree_, X)
    if where == "tested":
        assert expected.sum() > 100
        np.testing.assert_array_equal(counts, expected)
    else:
        assert counts is None and not expected.any()
    walks = []
    monkeypatch.setattr(estimator, "missing_counts",
                        lambda *args: walks.append(1) or missing_counts(*args))
    refit = DecisionTreeClassifier(max_depth=3).fit(X, y)
    assert len(walks) == (0 if where == "nowhere" else 1)
    walked = _walk_counts(refit.tree_, X)
    if walked.any():
        np.testing.assert_array_equal(refit.tree_.n_missing, walked)
    else:
        assert refit.tree_.n_missing is None
    assert walked.any() == (where == "tested")
