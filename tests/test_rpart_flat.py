"""The flat tree of an rpart fit routes every row as R's rpart 4.1.19 does.

Each stored R fit (tests/data/rpart) is turned into a model straight from R's records
(``rpart_records_from_json``), so these tests check the layout, the surrogate kernel and
``use_surrogates`` against R's ``predict(newdata)`` with usesurrogate 0, 1 and 2.
"""

from __future__ import annotations

import numpy as np
import pytest
from rpart_records_from_json import all_fits, frame_and_target, load_json, model_from_fixture

from quercus.rpart_routing import cut_of, rpart_node_numbers, threshold_of
from quercus.tree import LEAF

FITS = all_fits()


@pytest.mark.parametrize(("dataset", "fit"), FITS, ids=[f"{d}-{f}" for d, f in FITS])
def test_predictions_match_r(dataset, fit):
    d = load_json(dataset, fit)
    model = model_from_fixture(dataset, fit)  # routes with the fit's usesurrogate
    X, _ = frame_and_target(dataset)
    numbers = rpart_node_numbers(model.tree_)
    assert sorted(numbers.tolist()) == sorted(d["frame"]["node"])
    predictions = d["predictions"]
    np.testing.assert_array_equal(numbers[model.apply(X)], predictions["where_newdata"])
    assert model.predict(X).astype(str).tolist() == predictions["class_newdata"]
    np.testing.assert_allclose(model.predict_proba(X), predictions["prob_newdata"],
                               rtol=1e-12, atol=1e-15)
    tree = model.tree_
    stored = d.get("predict_time_usesurrogate")  # stored for each data set's default fit
    assert (stored is not None) == (fit == "default")
    for use in (0, 1, 2) if stored else ():
        tree.rpart = tree.rpart.with_use_surrogates(use)
        where = numbers[model.apply(X)]
        np.testing.assert_array_equal(where, stored[f"where_{use}"],
                                      err_msg=f"usesurrogate={use}")
        # decision_path ends where apply stops
        path = model.decision_path(X)
        last = [row.indices.max() for row in path]
        np.testing.assert_array_equal(numbers[last], where)


@pytest.mark.parametrize(("dataset", "fit"), FITS, ids=[f"{d}-{f}" for d, f in FITS])
def test_frame_facts(dataset, fit):
    """n, wt, class probabilities, yval and dev of every node, by rpart node number."""
    d = load_json(dataset, fit)
    tree = model_from_fixture(dataset, fit).tree_
    numbers = rpart_node_numbers(tree).tolist()
    frame = d["frame"]
    row = [frame["node"].index(n) for n in numbers]
    np.testing.assert_array_equal(tree.n_node_samples, np.asarray(frame["n"])[row])
    np.testing.assert_allclose(tree.node_probabilities(),
                               np.asarray(frame["class_probs"])[row], rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(tree.node_classes() + 1, np.asarray(frame["yval"])[row])
    np.testing.assert_array_equal(tree.rpart.node_risk, np.asarray(frame["dev"])[row])


def test_value_equal_to_the_cut_goes_to_the_ge_side():
    """kyphosis: root Start >= 8.5 goes left (node 2); Start == 8.5 exactly must go left,
    Age == 55 at node 5 (Age < 55 left) must go right (node 11), as rpart sends a new
    value equal to the cut to the '>=' side."""
    model = model_from_fixture("kyphosis", "default")
    numbers = rpart_node_numbers(model.tree_)
    X, _ = frame_and_target("kyphosis")
    rows = X.iloc[:3].astype(float)
    rows["Start"] = [8.5, np.nextafter(8.5, 0), 13.0]
    rows["Age"] = [200.0, 200.0, 55.0]
    # Start 8.5 -> node 2 -> Start < 14.5 -> 5 -> Age >= 55 -> 11 -> Age >= 111 -> 22
    # Start just below 8.5 -> node 3; Start 13, Age 55 -> 5 -> 11 -> Age < 111 -> 23
    assert numbers[model.apply(rows)].tolist() == [22, 3, 23]
    tree = model.tree_
    assert cut_of(tree.threshold[0]) == 8.5 and threshold_of(8.5) < 8.5


def test_missing_primary_stops_on_a_majority_tie():
    """A row with every feature missing stops at the root only when its children tie;
    otherwise (use_surrogates=2) it follows the child with more rows."""
    model = model_from_fixture("kyphosis", "default")
    X, _ = frame_and_target("kyphosis")
    rows = X.iloc[:1].astype(float)
    rows.loc[:, :] = np.nan
    tree = model.tree_
    numbers = rpart_node_numbers(tree)
    # root: 62 rows left (Start >= 8.5), 19 right -> left; node 2: 29 vs 33 -> node 5 ...
    assert numbers[model.apply(rows)][0] == 22  # 5: 12 vs 21 -> 11: 14 vs 7 -> 22
    tree.rpart = tree.rpart.with_use_surrogates(1)
    assert model.apply(rows)[0] == 0  # stays at the root
    assert model.predict(rows)[0] == "absent"
    np.testing.assert_allclose(model.predict_proba(rows)[0], [64 / 81, 17 / 81])
    children = tree.children(0)
    tree.n_node_samples[children[1]] = tree.n_node_samples[children[0]]  # a tie
    tree.rpart = tree.rpart.with_use_surrogates(2)
    assert model.apply(rows)[0] == 0
    assert tree.kind[0] != LEAF


def test_importance_in_r_order_and_normalised():
    d = load_json("kyphosis", "default")
    model = model_from_fixture("kyphosis", "default")
    expected = {e["var"]: e["importance"] for e in d["variable_importance"]}
    assert list(model.variable_importance_.index) == ["Start", "Age", "Number"]
    np.testing.assert_allclose(model.variable_importance_.to_numpy(),
                               [expected[k] for k in ("Start", "Age", "Number")])
    total = sum(expected.values())
    np.testing.assert_allclose(model.feature_importances_,
                               [expected["Age"] / total, expected["Number"] / total,
                                expected["Start"] / total])
    # summary(fit) prints them scaled to 100: Start 64, Age 24, Number 12
    assert np.round(100 * model.feature_importances_).tolist() == [24, 12, 64]


@pytest.mark.parametrize("dataset", ["credit-g", "vote", "soybean", "breast-cancer"])
def test_collapsed_tree_routes_as_rs_pruned_fit(dataset):
    """``tree.collapse`` (pruning) keeps the surrogates of the nodes it keeps: collapsing the
    default fit to the 1-SE fit's leaves predicts as R's pruned fit."""
    from quercus.tree import collapse

    full = model_from_fixture(dataset, "default")
    pruned = load_json(dataset, "default_1se")
    numbers = rpart_node_numbers(full.tree_)
    leaves_1se = {n for n, v in zip(pruned["frame"]["node"], pruned["frame"]["var"])
                  if v == "<leaf>"}
    to_leaves = [i for i, n in enumerate(numbers) if n in leaves_1se]
    full.tree_ = collapse(full.tree_, to_leaves)
    X, _ = frame_and_target(dataset)
    numbers = rpart_node_numbers(full.tree_)
    assert sorted(numbers.tolist()) == sorted(pruned["frame"]["node"])
    np.testing.assert_array_equal(numbers[full.apply(X)],
                                  pruned["predictions"]["where_newdata"])


@pytest.mark.parametrize("use", [0, 1, 2])
def test_explanations_end_where_apply_stops(use):
    """Explanations follow the surrogates (or stop) exactly as ``apply`` does."""
    model = model_from_fixture("breast-cancer", "cp0")
    tree = model.tree_
    tree.rpart = tree.rpart.with_use_surrogates(use)
    X, _ = frame_and_target("breast-cancer")
    rows = X.sample(120, random_state=2, replace=True).reset_index(drop=True)
    rng = np.random.default_rng(5)
    for column in rows.columns:
        rows.loc[rng.random(len(rows)) < 0.4, column] = np.nan
    explanations = model.explain(rows)
    nodes = model.apply(rows)
    assert [e.leaf for e in explanations] == nodes.tolist()
    assert [str(e.prediction) for e in explanations] == model.predict(rows).astype(str).tolist()
    stopped = [e for e in explanations if tree.kind[e.leaf] != LEAF]
    if use < 2:  # rows missing the primary with no surrogate to go on stop somewhere
        assert stopped
    for e in stopped:
        assert "the row stops at this node" in str(e)
