"""Rules of regression trees as JSON: each leaf's conditions, mean, rows and sd."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

import quercus
from quercus import DecisionTreeRegressor, cli
from quercus.export.rules import rules_to_dict

BUNDLED = Path(quercus.__file__).parent / "data" / "bundled"


def test_hand_checked_small_tree():
    X = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
    model = DecisionTreeRegressor(max_depth=1).fit(X, pd.Series([1.0, 3, 10, 14], name="y"))
    document = rules_to_dict(model)
    assert {k: document[k] for k in ("format", "format_version", "kind", "target")} == {
        "format": "quercus-rules", "format_version": 1, "kind": "regression tree",
        "target": "y"}
    assert document["rules"] == [
        {"conditions": [{"feature": "x", "op": "<=", "value": 2.5}], "value": 2.0, "n": 2,
         "sd": 1.0, "leaf": 1},
        {"conditions": [{"feature": "x", "op": ">", "value": 2.5}], "value": 12.0, "n": 2,
         "sd": 2.0, "leaf": 2}]


def _holds(condition: dict, value: float) -> bool:
    if np.isnan(value):
        return False  # a rule tests known values only
    op, bound = condition["op"], condition["value"]
    if op == "between":  # low < x <= high
        return bound[0] < value <= bound[1]
    return value <= bound if op == "<=" else value > bound


def test_cli_rules_json_agree_with_predict(tmp_path, capsys):
    data = str(BUNDLED / "airquality.csv")
    model_file = tmp_path / "ozone.json"
    assert cli.main(["train", data, "--target", "Ozone", "--max-depth", "3",
                     "--out", str(model_file)]) == 0
    capsys.readouterr()
    assert cli.main(["rules", str(model_file), "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    X = pd.read_csv(data).drop(columns="Ozone")
    predicted = quercus.load_model(model_file).predict(X)
    matched = 0
    for i, row in X.iterrows():
        hits = [r for r in document["rules"]
                if all(_holds(c, row[c["feature"]]) for c in r["conditions"])]
        assert len(hits) <= 1
        if hits:
            matched += 1
            assert hits[0]["value"] == predicted[i]
    assert matched >= len(X) - 7  # only rows with a missing Solar.R (7 in R) may match none
    assert sum(r["n"] for r in document["rules"]) == 116  # rows with a known Ozone
