"""PMML of rpart trees: surrogates, usesurrogate and stopping at an internal node expressed
with PMML 4.4's surrogate predicates; scored by the spec-following scorer of test_pmml, every
row gets the class and probabilities the model (checked against R) gives."""

from __future__ import annotations

import numpy as np
import pytest
from rpart_records_from_json import frame_and_target, model_from_fixture
from test_pmml import _xsd, frame_rows, score

from quercus.export.pmml import to_pmml

CASES = [(d, f) for d in ("vote", "breast-cancer", "labor", "soybean", "kyphosis")
         for f in ("default", "cp0", "sur0", "sur1")]


@pytest.mark.parametrize(("dataset", "fit"), CASES, ids=[f"{d}-{f}" for d, f in CASES])
def test_pmml_scores_like_rpart(dataset, fit):
    model = model_from_fixture(dataset, fit)
    X, _ = frame_and_target(dataset)
    document = to_pmml(model)
    assert 'booleanOperator="surrogate"' in document
    expected_class = model.predict(X)
    expected_proba = model.predict_proba(X)
    labels = [str(c) for c in model.classes_]
    for i, row in enumerate(frame_rows(X)):
        predicted, proba = score(document, row)
        assert predicted == str(expected_class[i]), (i, row)
        np.testing.assert_allclose([proba[c] for c in labels], expected_proba[i], rtol=1e-12)


def test_pmml_validates_against_the_schema():
    _xsd().validate(to_pmml(model_from_fixture("breast-cancer", "cp0")))


def test_absent_levels_and_ties_route_as_rpart():
    """Rows made to hit absent levels and missing values everywhere, under each
    use_surrogates: the PMML agrees with the model row by row."""
    model = model_from_fixture("breast-cancer", "cp0")
    X, _ = frame_and_target("breast-cancer")
    rng = np.random.default_rng(3)
    rows = X.sample(200, random_state=1, replace=True).reset_index(drop=True)
    for column in rows.columns:
        rows.loc[rng.random(len(rows)) < 0.4, column] = np.nan
    tree = model.tree_
    for use in (0, 1, 2):
        tree.rpart = tree.rpart.with_use_surrogates(use)
        document = to_pmml(model)
        expected = model.predict(rows)
        for i, row in enumerate(frame_rows(rows)):
            assert score(document, row)[0] == str(expected[i]), (use, i)


@pytest.mark.parametrize(("dataset", "fit"), [("vote", "default"), ("breast-cancer", "sur1"),
                                              ("soybean", "default")])
def test_independent_evaluators_score_like_rpart(dataset, fit, tmp_path):
    """pypmml (PMML4S) and jpmml-evaluator, where installed, on every row."""
    from test_pmml import JAVA

    if JAVA is None:
        pytest.skip("no Java runtime (`java` is not on PATH)")
    model = model_from_fixture(dataset, fit)
    X, _ = frame_and_target(dataset)
    rows = X.astype(object).where(X.notna(), None)
    document = to_pmml(model)
    expected = model.predict_proba(X)
    columns = [f"probability({c})" for c in model.classes_]
    ran = 0
    try:
        from pypmml import Model
    except ImportError:
        Model = None
    if Model is not None:
        result = Model.fromString(document).predict(rows)
        np.testing.assert_allclose(result[columns].to_numpy(dtype=float), expected, atol=1e-9)
        ran += 1
    try:
        import jpmml_evaluator
        import jpype  # noqa: F401
    except ImportError:
        jpmml_evaluator = None
    if jpmml_evaluator is not None:
        path = tmp_path / "model.pmml"
        path.write_text(document, encoding="utf-8")
        evaluator = jpmml_evaluator.make_evaluator(str(path), backend="jpype").verify()
        result = evaluator.evaluateAll(rows)
        np.testing.assert_allclose(result[columns].to_numpy(dtype=float), expected, atol=1e-9)
        ran += 1
    if not ran:
        pytest.skip("neither pypmml nor jpmml-evaluator is installed")
