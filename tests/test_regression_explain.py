"""Explanations of regression trees: each row's path with every node's rows and mean, and
the leaf's mean as the prediction (checked by hand on a small tree and against predict)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import quercus
from quercus import DecisionTreeRegressor, cli

BUNDLED = Path(quercus.__file__).parent / "data" / "bundled"


def test_hand_checked_small_tree():
    # y = 1, 3 | 10, 14: the cut x <= 2.5 leaves means 2 (sd 1) and 12 (sd 2); root mean 7
    X = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
    model = DecisionTreeRegressor(max_depth=1).fit(X, [1.0, 3.0, 10.0, 14.0])
    left, right = model.explain(pd.DataFrame({"x": [0.5, 3.7]}))
    assert str(left) == ("Row 1: target = 2  (mean of leaf 1)\n"
                         "  node 0 (7, n = 4): x = 0.5, so x <= 2.5\n"
                         "  leaf 1: 2 (n = 2, sd 1)")
    assert str(right) == ("Row 2: target = 12  (mean of leaf 2)\n"
                          "  node 0 (7, n = 4): x = 3.7, so x > 2.5\n"
                          "  leaf 2: 12 (n = 2, sd 2)")
    assert right.to_dict() == {
        "row": 1, "prediction": 12.0, "leaf": 2,
        "path": {"steps": [{"node": 0, "feature": "x", "test": "x <= 2.5", "value": 3.7,
                            "outcome": "no", "branch": 1,
                            "condition": {"feature": "x", "op": ">", "value": 2.5},
                            "missing": False, "branches": [], "node_rows": 4,
                            "node_value": 7.0}],
                 "leaf": 2, "value": 12.0, "sd": 2.0, "training_rows": 2}}


@pytest.fixture(scope="module")
def airquality():
    frame = pd.read_csv(BUNDLED / "airquality.csv")
    frame["Month"] = frame["Month"].map({5: "May", 6: "Jun", 7: "Jul", 8: "Aug", 9: "Sep"})
    y = frame.pop("Ozone")
    return frame, y


def test_airquality_paths_agree_with_predict_and_apply(airquality):
    X, y = airquality  # NAs in Solar.R and Ozone; Month categorical
    model = DecisionTreeRegressor(max_depth=4, min_samples_leaf=3).fit(X, y)
    explanations = model.explain(X)
    np.testing.assert_array_equal([e.prediction for e in explanations], model.predict(X))
    np.testing.assert_array_equal([e.leaf for e in explanations], model.apply(X))
    tree = model.tree_
    paths = model.decision_path(X).toarray()
    for e in explanations:
        nodes = [s.node for s in e.path.steps] + [e.leaf]
        assert nodes == list(np.flatnonzero(paths[e.row]))
        for step in e.path.steps:
            assert step.node_value == tree.value[step.node, 0]
            assert step.node_rows == tree.n_node_samples[step.node]
    # R: mean(airquality$Ozone, na.rm = TRUE) = 42.12931, over 116 rows
    assert explanations[0].path.steps[0].node_value == pytest.approx(42.12931, abs=1e-5)
    assert explanations[0].path.steps[0].node_rows == 116
    missing = [e for e in explanations if any(s.missing for s in e.path.steps)]
    assert missing, "some row should meet a split on its missing Solar.R"
    assert "is missing, so it follows the branch for missing values" in str(missing[0])


def test_cli_predict_explain_json(tmp_path, capsys):
    model_file = tmp_path / "ozone.json"
    data = str(BUNDLED / "airquality.csv")
    assert cli.main(["train", data, "--target", "Ozone", "--max-depth", "2",
                     "--out", str(model_file)]) == 0
    capsys.readouterr()
    assert cli.main(["predict", str(model_file), data, "--explain", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    model = quercus.load_model(model_file)
    frame = pd.read_csv(data).drop(columns="Ozone")
    np.testing.assert_array_equal([r["prediction"] for r in rows], model.predict(frame))
    assert rows[0]["path"]["leaf"] == rows[0]["leaf"]
