"""Explanations (quercus.explain, ``model.explain``, ``quercus predict --explain``): every
row's path agrees with ``apply``, ``decision_path``, ``predict`` and ``predict_proba``, and
every step's branch agrees with the row's raw value (checked by an independent matcher)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from quercus import DecisionTreeClassifier, cli, datasets, read_arff
from quercus.explain import WEIGHTED, Explanation
from quercus.explain import Path as ExplainedPath

ARFF = Path(__file__).parent / "data" / "arff"


def is_missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def holds(condition: dict, value) -> bool:
    """Whether a JSON condition holds for a known raw value."""
    op, bound = condition["op"], condition["value"]
    if op == "not missing":
        return True
    if op == "missing":
        return False
    if op == "=":
        return value == bound
    if op == "in":
        return value in bound
    if op == "<=":
        return float(value) <= float(bound)
    if op == ">":
        return float(value) > float(bound)
    low, high = (float(b) for b in bound)
    inside = low <= float(value) <= high
    return inside if op == "within" else not inside


def mixed_with_missing(n: int = 300, seed: int = 2):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.integers(0, 6, size=n).astype(float),
                      "colour": rng.choice(["red", "green", "blue", "grey"], size=n)
                      .astype(object)})
    y = np.where((X["a"] > 0.3) & (X["colour"] != "blue"), "p",
                 np.where(X["b"] > 3, "q", "r")).astype(object)
    for column in X.columns:
        X.loc[rng.random(n) < 0.1, column] = None
    return X, y


def with_missing_outlook():
    data = datasets.load("play_tennis")
    X = data.X.copy()
    X["Outlook"] = X["Outlook"].astype(object)
    X.loc[[0, 5, 9], "Outlook"] = None
    return X, data.y


def load(name: str):
    if name == "mixed":
        return mixed_with_missing()
    if name == "tennis-missing":
        return with_missing_outlook()
    if name.endswith(".arff"):
        data = read_arff(ARFF / name)
    else:
        data = datasets.load(name)
    return data.X, data.y


CASES = [  # (data, algorithm, parameters)
    ("iris", "cart", {}),
    ("iris", "c45", {}),
    ("iris", "interval", {}),
    ("play_tennis", "id3", {}),
    ("tennis-missing", "c45", {"min_samples_leaf": 1}),
    ("vote.arff", "c45", {}),
    ("vote.arff", "c45", {"laplace": True}),
    ("vote.arff", "cart", {}),
    ("breast-cancer.arff", "c45", {"pruning": False}),
    ("soybean.arff", "c45", {}),
    ("mixed", "cart", {"max_depth": 6}),
    ("mixed", "c45", {}),
    ("mixed", "interval", {"max_depth": 4}),
]


@pytest.fixture(scope="module", params=CASES, ids=[f"{d}-{a}-{len(p)}" for d, a, p in CASES])
def explained(request):
    name, algorithm, params = request.param
    X, y = load(name)
    model = DecisionTreeClassifier(algorithm=algorithm, **params).fit(X, y)
    return model, X, model.explain(X)


def raw_value(X: pd.DataFrame, row: int, feature: str):
    value = X[feature].iloc[row]
    return None if pd.isna(value) else value


def check_path(model, path: ExplainedPath, X: pd.DataFrame, row: int, node: int = 0) -> float:
    """Walk the explained path, checking every step against the tree and the raw row;
    returns the number of weighted splits met."""
    tree = model.tree_
    weighted = 0
    for step in path.steps:
        assert step.node == node
        assert step.feature == model.schema_.feature_names[tree.feature[node]]
        value = raw_value(X, row, step.feature)
        condition = None if step.condition is None else step.to_dict([])["condition"]
        if value is None:
            assert step.missing and step.value is None
            assert step.outcome.startswith("missing")
        else:
            assert not step.missing
            if isinstance(value, (int, float, np.number)):
                assert step.value == pytest.approx(float(value))
            else:
                assert step.value == value
            assert holds(condition, value), (row, step)
            if len(tree.children(node)) == 2:
                assert step.outcome == ("yes" if step.branch == 0 else "no")
        if step.branch == WEIGHTED:
            assert tree.missing_branch[node] == -1 and value is None
            assert sum(b.share for b in step.weighted) == pytest.approx(1.0)
            children = tree.children(node).tolist()
            assert len(step.weighted) == sum(tree.weighted_n_node_samples[c] > 0
                                             for c in children)
            for branch in step.weighted:
                sub = branch.path
                child = sub.steps[0].node if sub.steps else sub.leaf
                assert child in children
                assert branch.share == pytest.approx(tree.weighted_n_node_samples[child]
                                                     / tree.weighted_n_node_samples[node])
                weighted += 1 + check_path(model, branch.path, X, row, child)
            assert path.leaf is None and step is path.steps[-1]
            return weighted
        node = int(tree.children(node)[step.branch])
    assert path.leaf == node and tree.kind[node] == 0
    np.testing.assert_array_equal(path.counts, tree.value[node])
    return weighted


def test_explanations_agree_with_the_model(explained):
    model, X, explanations = explained
    assert [e.row for e in explanations] == list(range(len(X)))
    np.testing.assert_array_equal([e.leaf for e in explanations], model.apply(X))
    np.testing.assert_allclose([e.probabilities for e in explanations],
                               model.predict_proba(X), rtol=0, atol=1e-12)
    predicted = model.predict(X)
    assert [e.prediction for e in explanations] == predicted.tolist()
    lost = model.predict_proba(X).sum(axis=1) == 0
    assert [e.unclassified for e in explanations] == (lost & (model.algorithm == "interval")
                                                      ).tolist()


def test_every_step_agrees_with_the_row(explained):
    model, X, explanations = explained
    weighted_rows = 0
    for e in explanations:
        weighted_rows += check_path(model, e.path, X, e.row) > 0
    has_missing = X.isna().to_numpy().any()
    if model.algorithm == "c45" and has_missing:
        assert weighted_rows > 0  # the weighted descent is exercised
    if not has_missing or model.algorithm != "c45":
        assert weighted_rows == 0


def test_paths_without_weighted_splits_are_the_decision_paths(explained):
    model, X, explanations = explained
    paths = model.decision_path(X)
    for e in explanations:
        if e.path.leaf is not None:
            nodes = [s.node for s in e.path.steps] + [e.path.leaf]
            assert nodes == paths[e.row].indices.tolist()


def test_json_form(explained):
    _model, _X, explanations = explained
    for e in explanations[:40]:
        document = json.loads(json.dumps(e.to_dict(), allow_nan=False))
        assert document["leaf"] == e.leaf and document["row"] == e.row
        assert list(document["probabilities"].values()) == pytest.approx(e.probabilities)
        assert len(document["path"]["steps"]) == len(e.path.steps)


def test_text_of_an_iris_row():
    data = datasets.load("iris")
    model = DecisionTreeClassifier().fit(data.X, data.y)
    explanation = model.explain(data.X.iloc[[0]])[0]
    assert isinstance(explanation, Explanation)
    assert str(explanation) == ("Row 1: species = setosa  (setosa 100%)\n"
                                "  petal_length = 1.4, so petal_length <= 2.45\n"
                                "  leaf 1: setosa 50 (50 training rows)")


def test_text_of_a_weighted_descent():
    """C4.5 on play-tennis splits on Outlook first: 4 Overcast, 5 Rain, 5 Sunny days."""
    data = datasets.load("play_tennis")
    model = DecisionTreeClassifier(algorithm="c45", min_samples_leaf=1).fit(data.X, data.y)
    row = pd.DataFrame([[None, "Cool", "High", "Strong"]], columns=data.X.columns)
    text = str(model.explain(row)[0]).splitlines()
    assert text[1] == ("  Outlook is missing, so the row goes down every branch, weighted by "
                       "the branch's share of the training rows:")
    assert "    28.6%: Outlook = Overcast" in text
    assert text.count("    35.7%: Outlook = Rain") == 1
    assert "      Humidity = High" in text and "      Wind = Strong" in text
    # Overcast -> Yes (4/14); Rain & Strong -> No (5/14); Sunny & High -> No (5/14)
    assert text[0] == "Row 1: PlayTennis = No  (No 71.4%, Yes 28.6%)"


def test_cart_missing_value_follows_the_learned_branch():
    X, y = mixed_with_missing()
    model = DecisionTreeClassifier(max_depth=3).fit(X, y)
    first = model.schema_.feature_names[model.tree_.feature[0]]
    row = X.iloc[[0]].copy()
    row[first] = None
    step = model.explain(row)[0].path.steps[0]
    assert step.missing and step.branch == model.tree_.missing_branch[0]
    assert step.reason().startswith(f"{first} is missing, so it follows the branch for "
                                    "missing values: ")


# -- the command line ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def vote_files(tmp_path_factory):
    directory = tmp_path_factory.mktemp("explain")
    text = (ARFF / "vote.arff").read_text()
    head, body = text.split("@data")
    rows = [line for line in body.splitlines() if line.strip()][:6]
    (directory / "few.arff").write_text(head + "@data\n" + "\n".join(rows) + "\n")
    data = read_arff(ARFF / "vote.arff")
    model = DecisionTreeClassifier(algorithm="c45").fit(data.X, data.y)
    model.save(directory / "vote.json")
    return directory, model, read_arff(directory / "few.arff").X


def run(capsys, *argv):
    try:
        status = cli.main([str(a) for a in argv])
    except SystemExit as stop:
        status = stop.code
    out, err = capsys.readouterr()
    return status, out, err


def test_cli_explain_text_and_json(capsys, vote_files, tmp_path):
    directory, model, X = vote_files
    explanations = model.explain(X)
    status, out, _ = run(capsys, "predict", directory / "vote.json", directory / "few.arff",
                         "--explain")
    assert status == 0 and out == "".join(f"{e}\n\n" for e in explanations)
    assert "goes down every branch" in out  # the first row has a missing value
    status, out, _ = run(capsys, "predict", directory / "vote.json", directory / "few.arff",
                         "--explain", "--format", "json")
    assert status == 0 and json.loads(out) == [e.to_dict() for e in explanations]
    target = tmp_path / "why.txt"
    status, out, _ = run(capsys, "predict", directory / "vote.json", directory / "few.arff",
                         "--explain", "--out", target)
    assert status == 0 and out == f"Explanations written to {target}\n"
    assert target.read_text() == "".join(f"{e}\n\n" for e in explanations)


def test_cli_explain_errors(capsys, vote_files, tmp_path):
    directory = vote_files[0]
    target = tmp_path / "out.txt"
    status, out, err = run(capsys, "predict", directory / "vote.json", directory / "few.arff",
                           "--format", "json", "--out", target)
    assert status == 2 and out == "" and not target.exists()
    assert err == ("quercus: error: --format is used only with --explain (predictions are "
                   "CSV)\n")
    (tmp_path / "bad.csv").write_text("handicapped-infants\nmaybe\n")
    status, out, err = run(capsys, "predict", directory / "vote.json", tmp_path / "bad.csv",
                           "--explain", "--out", target)
    assert status == 2 and not target.exists()
    assert err.startswith("quercus: error: ") and len(err.splitlines()) == 1
