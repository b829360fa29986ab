"""PMML export of regression trees: a regression TreeModel scoring each node's mean,
checked by the spec scorer of test_pmml, the PMML 4.4 schema, pypmml and jpmml-evaluator
(each skipped cleanly when absent)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from test_pmml import JAVA, NS, _xsd, frame_rows, score

import quercus
from quercus import DecisionTreeRegressor
from quercus.export.pmml import to_pmml
from quercus.tree import CATEGORICAL, LEAF

BUNDLED = Path(quercus.__file__).parent / "data" / "bundled"
MONTHS = {5: "May", 6: "Jun", 7: "Jul", 8: "Aug", 9: "Sep"}


@pytest.fixture(scope="module")
def fitted():
    X = pd.read_csv(BUNDLED / "airquality.csv")  # NAs in Ozone and Solar.R
    X["Month"] = X["Month"].map(MONTHS).astype(object)
    X.loc[X.index % 17 == 3, "Month"] = None
    y = X.pop("Ozone")
    model = DecisionTreeRegressor(max_depth=6, min_samples_leaf=2).fit(X, y)
    inner = model.tree_.kind != LEAF
    assert np.any(model.tree_.kind[inner] == CATEGORICAL), "the test needs a Month split"
    return model, X


def test_regression_tree_model(fitted):
    model, _ = fitted
    document = to_pmml(model)
    _xsd().validate(document)
    root = ET.fromstring(document)
    tree_model = root.find("p:TreeModel", NS)
    assert tree_model.get("functionName") == "regression"
    assert tree_model.get("missingValueStrategy") == "defaultChild"
    target = root.findall("p:DataDictionary/p:DataField", NS)[-1]
    assert (target.get("name"), target.get("optype"), target.get("dataType")) == (
        "Ozone", "continuous", "double")
    assert not root.findall(".//p:ScoreDistribution", NS)
    top = tree_model.find("p:Node", NS)
    # R: mean(airquality$Ozone, na.rm = TRUE) = 42.12931 over 116 rows
    assert float(top.get("score")) == pytest.approx(42.12931, abs=1e-5)
    assert top.get("recordCount") == "116"


def test_spec_scorer_gives_predict(fitted):
    model, X = fitted
    document = to_pmml(model)
    got = [float(score(document, row)[0]) for row in frame_rows(X)]
    assert X.isna().any(axis=1).sum() >= 10
    np.testing.assert_array_equal(got, model.predict(X))


def test_hand_checked_small_tree():
    X = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
    model = DecisionTreeRegressor(max_depth=1).fit(X, pd.Series([1.0, 3, 10, 14], name="y"))
    root = ET.fromstring(to_pmml(model))
    nodes = root.findall(".//p:Node", NS)
    assert [(n.get("id"), n.get("score"), n.get("recordCount")) for n in nodes] == [
        ("0", "7", "4"), ("1", "2", "2"), ("2", "12", "2")]
    left = nodes[1].find("p:SimplePredicate", NS)
    assert (left.get("operator"), left.get("value")) == ("lessOrEqual", "2.5")


def test_pypmml_scores_like_the_model(fitted):
    if JAVA is None:
        pytest.skip("no Java runtime (`java` is not on PATH): pypmml cannot run")
    Model = pytest.importorskip("pypmml", reason="pypmml is not installed").Model
    model, X = fitted
    result = Model.fromString(to_pmml(model)).predict(X.astype(object).where(X.notna(), None))
    np.testing.assert_allclose(result["predicted(Ozone)"].to_numpy(float), model.predict(X),
                               rtol=1e-12, atol=0)


def test_jpmml_scores_like_the_model(fitted, tmp_path):
    if JAVA is None:
        pytest.skip("no Java runtime (`java` is not on PATH): jpmml-evaluator cannot run")
    jpmml = pytest.importorskip("jpmml_evaluator", reason="jpmml-evaluator is not installed")
    pytest.importorskip("jpype", reason="jpype1 (the Java bridge) is not installed")
    model, X = fitted
    path = tmp_path / "ozone.pmml"
    path.write_text(to_pmml(model), encoding="utf-8")
    evaluator = jpmml.make_evaluator(str(path), backend="jpype").verify()
    result = evaluator.evaluateAll(X.astype(object).where(X.notna(), None))
    np.testing.assert_allclose(result["Ozone"].to_numpy(float), model.predict(X),
                               rtol=1e-12, atol=0)
