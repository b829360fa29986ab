"""Regression trees in text, rules and model files; the exporters that refuse them."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import quercus
from quercus import DecisionTreeRegressor, ModelFileError
from quercus.export.rules import rules_to_text, tree_to_rules
from quercus.export.text import tree_to_text

BUNDLED = Path(quercus.__file__).parent / "data" / "bundled"


@pytest.fixture(scope="module")
def airquality():
    frame = pd.read_csv(BUNDLED / "airquality.csv")
    y = frame.pop("Ozone")
    return frame, y


@pytest.fixture(scope="module")
def model(airquality):
    X, y = airquality
    return DecisionTreeRegressor(max_depth=2).fit(X, y)


# scikit-learn 1.9's DecisionTreeRegressor(max_depth=2) on the 116 rows with a known Ozone
# (missing feature values included): leaf values 141.5, 23.558, 62.95, 90.059, rows 2, 77,
# 20, 17, and sqrt(impurity) 26.5, 13.49, 24.54, 14.66 -- printed to 3 and 2 digits.
EXPECTED_RULES = """\
IF Temp <= 82.5 AND Wind <= 6 THEN Ozone = 142 (n = 2, sd 26)
IF Temp <= 82.5 AND Wind > 6 THEN Ozone = 23.6 (n = 77, sd 13)
IF 82.5 < Temp <= 87.5 THEN Ozone = 63 (n = 20, sd 25)
IF Temp > 87.5 THEN Ozone = 90.1 (n = 17, sd 15)"""

EXPECTED_TEXT = """\
Temp <= 82.5
|   Wind <= 6: 142 (n = 2, sd 26)
|   Wind > 6: 23.6 (n = 77, sd 13)
Temp > 82.5
|   Temp <= 87.5: 63 (n = 20, sd 25)
|   Temp > 87.5: 90.1 (n = 17, sd 15)
Depth: 2, leaves: 4"""


def test_rules_and_text(model):
    assert rules_to_text(model) == EXPECTED_RULES
    assert tree_to_text(model) == EXPECTED_TEXT
    rule = tree_to_rules(model)[1]
    assert rule.target == "Ozone" and rule.support == 77
    assert rule.label == pytest.approx(23.558441558, rel=1e-9)


def test_save_load_round_trip(model, airquality, tmp_path):
    X, _ = airquality
    path = tmp_path / "ozone.json"
    model.save(path)
    document = json.loads(path.read_text())
    assert document["estimator"] == "DecisionTreeRegressor"
    assert document["format_version"] == 1
    loaded = quercus.load_model(path)
    assert isinstance(loaded, DecisionTreeRegressor)
    assert loaded.get_params() == model.get_params()
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    assert tree_to_text(loaded) == EXPECTED_TEXT
    model.save(tmp_path / "again.json")  # same model, same bytes
    assert (tmp_path / "again.json").read_bytes() == path.read_bytes()


def test_regression_file_with_classes_refused(model, tmp_path):
    path = tmp_path / "bad.json"
    model.save(path)
    document = json.loads(path.read_text())
    document["schema"]["classes"] = [1, 2]
    path.write_text(json.dumps(document))
    with pytest.raises(ModelFileError, match="regression tree"):
        quercus.load_model(path)


def test_negative_means_load(tmp_path):
    X = np.arange(20.0).reshape(-1, 1)
    model = DecisionTreeRegressor(max_depth=1).fit(X, -X[:, 0])
    model.save(tmp_path / "negative.json")
    loaded = quercus.load_model(tmp_path / "negative.json")
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))


def test_class_only_exporters_refuse_regressors_with_the_reason(model):
    from quercus.export.j48 import tree_to_id3, tree_to_j48
    from quercus.export.rule_sets import simplify_rules

    with pytest.raises(ValueError, match="^rule-set simplification is not available for "
                                         "regression trees: .*pessimistic error rate"):
        simplify_rules(model, [[1.0] * 5], [1.0])
    for exporter in (tree_to_j48, tree_to_id3):
        with pytest.raises(ValueError, match="not available for regression trees: Weka's J48 "
                                             "and Id3 are classifiers"):
            exporter(model)


def test_categorical_split_text_and_round_trip(tmp_path):
    X = pd.DataFrame({"shop": ["north", "south", "east", "west"] * 10,
                      "price": np.arange(40.0)})
    y = np.where(X["shop"].isin(["north", "east"]), 10.0, 2.0)
    model = DecisionTreeRegressor(max_depth=1).fit(X, y)
    assert tree_to_text(model).splitlines() == [  # lower means go left
        "shop in {south, west}: 2 (n = 20, sd 0)",
        "shop in {east, north}: 10 (n = 20, sd 0)",
        "Depth: 1, leaves: 2"]
    model.save(tmp_path / "shops.json")
    loaded = quercus.load_model(tmp_path / "shops.json")
    np.testing.assert_array_equal(loaded.predict(X), y)
