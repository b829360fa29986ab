"""PMML export (quercus.export.pmml): the document is valid PMML 4.4, and scoring it, by a
small scorer written here from the PMML 4.4 TreeModel specification and by the independent
PMML evaluators that can be installed (pypmml and jpmml-evaluator, both on Java), gives the
model's predictions and probabilities."""

from __future__ import annotations

import functools
import math
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from export_cases import CASES, load

from quercus import DecisionTreeClassifier
from quercus.errors import NotFittedError
from quercus.export.pmml import NAMESPACE, to_pmml
from quercus.tree import LEAF

DATA = Path(__file__).parent / "data"
XSD = DATA / "pmml" / "pmml-4-4.xsd"
COMMAND = Path(sys.executable).parent / "quercus"
NS = {"p": NAMESPACE}
JAVA = shutil.which("java")



def fitted(name: str, algorithm: str, **params):
    X, y = load(name)
    return DecisionTreeClassifier(algorithm=algorithm, **params).fit(X, y), X


# -- a scorer written from the PMML 4.4 TreeModel specification ---------------------------
def _array_values(text: str) -> list[str]:
    out, i = [], 0
    while i < len(text):
        if text[i] == '"':
            j, value = i + 1, []
            while text[j] != '"':
                if text[j] == "\\":
                    j += 1
                value.append(text[j])
                j += 1
            out.append("".join(value))
            i = j + 1
        elif text[i].isspace():
            i += 1
        else:
            j = i
            while j < len(text) and not text[j].isspace():
                j += 1
            out.append(text[i:j])
            i = j
    return out


def _predicate(element, row, continuous) -> bool | None:
    """True, False or None (UNKNOWN), by the spec's three-valued logic."""
    tag = element.tag.split("}")[1]
    if tag in ("True", "False"):
        return tag == "True"
    if tag == "CompoundPredicate":
        results = [_predicate(child, row, continuous) for child in element]
        if element.get("booleanOperator") == "surrogate":  # the first known result
            return next((r for r in results if r is not None), None)
        if element.get("booleanOperator") == "and":
            return False if False in results else (None if None in results else True)
        return True if True in results else (None if None in results else False)
    field = element.get("field")
    value = row.get(field)
    op = element.get("operator") or element.get("booleanOperator")
    if op in ("isMissing", "isNotMissing"):
        return (value is None) == (op == "isMissing")
    if value is None:
        return None
    if tag == "SimpleSetPredicate":
        inside = value in _array_values(element.find("p:Array", NS).text)
        return inside if op == "isIn" else not inside
    if field in continuous:
        a, b = float(value), float(element.get("value"))
        return {"equal": a == b, "lessThan": a < b, "lessOrEqual": a <= b,
                "greaterThan": a > b, "greaterOrEqual": a >= b}[op]
    return {"equal": value == element.get("value"),
            "notEqual": value != element.get("value")}[op]


def _children(node):
    return [child for child in node if child.tag.endswith("}Node")]


def _distribution(node) -> dict:
    return {s.get("value"): float(s.get("probability"))
            for s in node.findall("p:ScoreDistribution", NS)}


@functools.lru_cache(maxsize=8)
def _parsed(document: str) -> ET.Element:
    return ET.fromstring(document)


@functools.lru_cache(maxsize=1)
def _xsd():
    xmlschema = pytest.importorskip("xmlschema", reason="xmlschema is not installed")
    return xmlschema.XMLSchema(XSD)


def score(document: str, row: dict) -> tuple[object, dict]:
    """(predicted value or None, {class: probability}) of one row (None: missing)."""
    root = _parsed(document)
    continuous = {f.get("name") for f in root.iter(f"{{{NAMESPACE}}}DataField")
                  if f.get("optype") == "continuous"}
    model = root.find("p:TreeModel", NS)
    strategy = model.get("missingValueStrategy")
    assert model.get("noTrueChildStrategy") == "returnLastPrediction"

    def walk(node) -> tuple[object, dict]:
        children = _children(node)
        if not children:
            return node.get("score"), _distribution(node)
        results = [_predicate(child.find("*"), row, continuous) for child in children]
        for child, result in zip(children, results):
            if result is True:
                return walk(child)
            if result is None and strategy == "defaultChild":
                chosen = [c for c in children if c.get("id") == node.get("defaultChild")]
                return walk(chosen[0])
            if result is None and strategy == "weightedConfidence":
                scored = [c for c, r in zip(children, results) if r is not False]
                total = sum(float(c.get("recordCount")) for c in scored)
                mixed: dict = {}
                for c in scored:
                    share = float(c.get("recordCount")) / total
                    for label, p in walk(c)[1].items():
                        mixed[label] = mixed.get(label, 0.0) + share * p
                best = max(mixed.values())
                return next(k for k, v in mixed.items() if v == best), mixed
        return node.get("score"), _distribution(node)  # returnLastPrediction

    return walk(model.find("p:Node", NS))


def frame_rows(X: pd.DataFrame) -> list[dict]:
    return [{k: (None if v is None or (isinstance(v, float) and math.isnan(v)) else
                 (v if isinstance(v, float) else str(v))) for k, v in row.items()}
            for row in X.astype(object).to_dict("records")]


def weighted_rows(model, X) -> np.ndarray:
    """Rows with a missing value at a node that sends it down every branch."""
    tree = model.tree_
    encoded = model.schema_.encode(X)
    nodes, ptr = tree.decision_paths(encoded)
    out = np.zeros(len(X), dtype=bool)
    for i in range(len(X)):
        for node in nodes[ptr[i]:ptr[i + 1]]:
            if (tree.kind[node] != LEAF and tree.missing_branch[node] == -1
                    and np.isnan(encoded[i, tree.feature[node]])):
                out[i] = True
    return out


# -- tests ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("name", "algorithm"), CASES)
def test_valid_pmml_4_4(name, algorithm):
    model, _ = fitted(name, algorithm)
    document = to_pmml(model)
    _xsd().validate(document)
    root = ET.fromstring(document)
    assert root.get("version") == "4.4"
    names = [a for e in root.iter() for a in e.attrib]
    assert not [a for a in names if a.startswith("x-")]  # no JPMML vendor extensions
    fields = root.findall("p:DataDictionary/p:DataField", NS)
    assert [f.get("name") for f in fields[:-1]] == model.schema_.feature_names
    for field, spec in zip(fields, model.schema_.features):
        assert field.get("optype") == ("categorical" if spec.is_categorical else "continuous")
        if spec.is_categorical:
            assert [v.get("value") for v in field] == [str(v) for v in spec.codebook.values]
    strategy = root.find("p:TreeModel", NS).get("missingValueStrategy")
    assert strategy == ("weightedConfidence" if algorithm in ("c45", "id3") else "defaultChild")


@pytest.mark.parametrize(("name", "algorithm"), CASES)
def test_spec_scorer_gives_the_models_predictions(name, algorithm):
    model, X = fitted(name, algorithm)
    document = to_pmml(model)
    expected = model.predict_proba(X)
    predicted = model.predict(X)
    for i, row in enumerate(frame_rows(X)):
        label, proba = score(document, row)
        got = [proba[str(c)] for c in model.classes_]
        np.testing.assert_allclose(got, expected[i], rtol=0, atol=1e-9)
        if expected[i].sum() == 0.0:  # an unclassified row: no score
            assert label is None and predicted[i] is None
        else:
            assert label == str(predicted[i])


def test_spec_scorer_with_laplace_probabilities():
    model, X = fitted("vote", "c45", laplace=True)
    document = to_pmml(model)
    expected = model.predict_proba(X)
    for i, row in enumerate(frame_rows(X)):
        _, proba = score(document, row)
        np.testing.assert_allclose([proba[c] for c in model.classes_], expected[i], atol=1e-9)


def test_values_that_need_escaping():
    X = pd.DataFrame({"colour": ['say "hi"', "back\\slash", "a b", "plain"] * 5,
                      "size": [1.0, 2.0, 3.0, 4.0, 5.0] * 4})
    y = ["yes", "no", "no", "yes"] * 5
    model = DecisionTreeClassifier().fit(X, y)
    document = to_pmml(model)
    for i, row in enumerate(frame_rows(X)):
        assert score(document, row)[0] == model.predict(X)[i]


def test_not_fitted():
    with pytest.raises(NotFittedError):
        to_pmml(DecisionTreeClassifier())


# -- independent evaluators ---------------------------------------------------------------
def _pypmml():
    if JAVA is None:
        pytest.skip("no Java runtime (`java` is not on PATH): pypmml cannot run")
    return pytest.importorskip("pypmml", reason="pypmml is not installed").Model


@pytest.mark.parametrize(("name", "algorithm"), CASES)
def test_pypmml_scores_like_the_model(name, algorithm):
    """pypmml (PMML4S) on every row; for C4.5/ID3 its weightedConfidence returns no
    probabilities for a row that takes several branches (see docs/export.md), so those rows
    are compared only where it returns some."""
    Model = _pypmml()
    model, X = fitted(name, algorithm)
    result = Model.fromString(to_pmml(model)).predict(X.astype(object).where(X.notna(), None))
    got = result[[f"probability({c})" for c in model.classes_]].to_numpy(dtype=float)
    expected = model.predict_proba(X)
    several = weighted_rows(model, X)
    usable = ~np.isnan(got).any(axis=1)
    assert usable[~several].all()
    np.testing.assert_allclose(got[usable], expected[usable], rtol=0, atol=1e-9)
    labels = result[f"predicted({model.schema_.target})"].tolist()
    predicted = model.predict(X).tolist()
    for i in np.flatnonzero(~several):
        if expected[i].sum() == 0.0:
            assert labels[i] is None or labels[i] != labels[i]  # no prediction (None / NaN)
        else:
            assert str(labels[i]) == str(predicted[i])


@pytest.mark.parametrize(("name", "algorithm"), [("vote", "cart"), ("soybean", "cart"),
                                                 ("iris", "interval"), ("labor", "cart")])
def test_jpmml_scores_like_the_model(name, algorithm, tmp_path):
    """jpmml-evaluator on every row of CART and class-interval trees (defaultChild). It
    refuses weightedConfidence and aggregateNodes (UnsupportedAttributeException)."""
    if JAVA is None:
        pytest.skip("no Java runtime (`java` is not on PATH): jpmml-evaluator cannot run")
    jpmml = pytest.importorskip("jpmml_evaluator", reason="jpmml-evaluator is not installed")
    pytest.importorskip("jpype", reason="jpype1 (the Java bridge) is not installed")
    model, X = fitted(name, algorithm)
    path = tmp_path / "model.pmml"
    path.write_text(to_pmml(model), encoding="utf-8")
    evaluator = jpmml.make_evaluator(str(path), backend="jpype").verify()
    result = evaluator.evaluateAll(X.astype(object).where(X.notna(), None))
    got = result[[f"probability({c})" for c in model.classes_]].to_numpy(dtype=float)
    np.testing.assert_allclose(got, model.predict_proba(X), rtol=0, atol=1e-9)
    labels = result[f"predicted({model.schema_.target})"].tolist()
    assert [str(v) for v in labels] == [str(v) for v in model.predict(X)]


def test_cli_export_pmml(tmp_path):
    model, X = fitted("breast-cancer", "c45")
    model_file, out = tmp_path / "bc.json", tmp_path / "bc.pmml"
    model.save(model_file)
    result = subprocess.run([str(COMMAND), "export", str(model_file), "--format", "pmml",
                             "--out", str(out)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    document = out.read_text(encoding="utf-8")
    expected = model.predict_proba(X)
    for i, row in enumerate(frame_rows(X)):
        proba = score(document, row)[1]
        np.testing.assert_allclose([proba[c] for c in model.classes_], expected[i], atol=1e-9)
    result = subprocess.run([str(COMMAND), "export", str(model_file), "--format", "pmml",
                             "--ranges", str(DATA / "arff" / "breast-cancer.arff")],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 2 and result.stderr.startswith("quercus: error: --ranges")
