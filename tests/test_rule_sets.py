"""C4.5rules-style rule sets (quercus.export.rule_sets) and the ``quercus rules`` command.

Predictions, coverages, the default class and every dropped condition are checked with an
independent matcher that reads the rules' JSON form and the raw (unencoded) rows.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import beta, norm

import quercus
from quercus import DecisionTreeClassifier, cli, datasets, read_arff
from quercus.errors import ModelFileError
from quercus.export.rule_match import condition_from_json
from quercus.export.rule_sets import RuleSet, pessimistic_rate, simplify_rules
from quercus.export.rules import rules_to_dict, tree_to_rules

ARFF = Path(__file__).parent / "data" / "arff"
BUNDLED = Path(quercus.__file__).parent / "data" / "bundled"


# -- an independent matcher on raw values --------------------------------------------------
def is_missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def holds(condition: dict, value) -> bool:
    """Whether a JSON condition holds for one raw value (missing: only 'outside',
    'missing' and a condition marked 'or_missing' hold)."""
    op, bound = condition["op"], condition["value"]
    if op == "missing":
        return is_missing(value)
    if is_missing(value):
        return op == "outside" or condition.get("or_missing", False)
    if op == "not missing":
        return True
    if op == "=":
        return value == bound
    if op == "in":
        return value in bound
    if op == "<=":
        return float(value) <= float(bound)
    if op == ">":
        return float(value) > float(bound)
    low, high = (float(b) for b in bound)
    if op == "between":
        return low < float(value) <= high
    inside = low <= float(value) <= high
    return inside if op == "within" else not inside


def raw_rows(X: pd.DataFrame) -> list[dict]:
    frame = X.astype(object).where(X.notna(), None)
    return frame.to_dict(orient="records")


def matches(conditions: list[dict], row: dict) -> bool:
    return all(holds(c, row[c["feature"]]) for c in conditions)


def brute_force_predict(document: dict, rows: list[dict]) -> list:
    out = []
    for row in rows:
        fired = [r["class"] for r in document["rules"] if matches(r["conditions"], row)]
        out.append(fired[0] if fired else document["default_class"])
    return out


def c45_rate(n: int, errors: int, confidence: float) -> float:
    """C4.5's U_CF(E, N) written out: the exact binomial limit for E = 0 (scipy's beta),
    the normal approximation with continuity correction otherwise (C4.5's addErrs)."""
    if n == 0:
        return 1.0
    if errors == 0:
        return float(beta.ppf(1.0 - confidence, 1, n))
    if errors + 0.5 >= n:
        return 1.0
    z = norm.ppf(1.0 - confidence)
    f = (errors + 0.5) / n
    upper = (f + z * z / (2 * n) + z * math.sqrt(f / n - f * f / n + z * z / (4 * n * n))) \
        / (1 + z * z / n)
    return (upper * n) / n


# -- data ----------------------------------------------------------------------------------
def mixed_with_missing(n: int = 300, seed: int = 1):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.integers(0, 6, size=n).astype(float),
                      "colour": rng.choice(["red", "green", "blue"], size=n).astype(object)})
    y = np.where((X["a"] > 0.3) & (X["colour"] != "blue"), "p",
                 np.where(X["b"] > 3, "q", "r")).astype(object)
    flip = rng.random(n) < 0.08
    y[flip] = rng.choice(["p", "q", "r"], size=int(flip.sum()))
    for column in X.columns:
        X.loc[rng.random(n) < 0.1, column] = None
    return X, y


def load(name: str):
    if name == "mixed":
        return mixed_with_missing()
    if name.endswith(".arff"):
        data = read_arff(ARFF / name)
    else:
        data = datasets.load(name)
    return data.X, data.y


CASES = [  # (data, algorithm, extra parameters)
    ("play_tennis", "cart", {}),
    ("play_tennis", "id3", {}),
    ("iris", "cart", {}),
    ("iris", "c45", {}),
    ("iris", "interval", {}),
    ("flowers", "interval", {}),
    ("vote.arff", "c45", {}),
    ("vote.arff", "cart", {}),
    ("labor.arff", "c45", {}),
    ("breast-cancer.arff", "c45", {"pruning": False}),
    ("mixed", "cart", {"max_depth": 5}),
    ("mixed", "c45", {}),
    ("mixed", "interval", {"max_depth": 4}),
]


@pytest.fixture(scope="module", params=CASES, ids=[f"{d}-{a}" for d, a, _ in CASES])
def fitted(request):
    name, algorithm, params = request.param
    X, y = load(name)
    model = DecisionTreeClassifier(algorithm=algorithm, **params).fit(X, y)
    return model, X, y, simplify_rules(model, X, y)


# -- the rule set --------------------------------------------------------------------------
def test_predictions_match_a_brute_force_reading_of_the_rules(fitted):
    _model, X, _y, rule_set = fitted
    document = rule_set.to_dict()
    expected = brute_force_predict(document, raw_rows(X))
    assert rule_set.predict(X).tolist() == expected


def test_coverage_and_accuracy_of_every_rule(fitted):
    _model, X, y, rule_set = fitted
    rows = raw_rows(X)
    labels = list(y)
    for rule in rule_set.to_dict()["rules"]:
        covered = [i for i, row in enumerate(rows) if matches(rule["conditions"], row)]
        correct = sum(labels[i] == rule["class"] for i in covered)
        assert rule["coverage"] == len(covered) > 0
        assert rule["correct"] == correct
        assert rule["accuracy"] == pytest.approx(correct / len(covered))


def test_default_class_is_the_majority_of_uncovered_rows(fitted):
    _model, X, y, rule_set = fitted
    document = rule_set.to_dict()
    labels = pd.Series(list(y))
    uncovered = [not any(matches(r["conditions"], row) for r in document["rules"])
                 for row in raw_rows(X)]
    overall = labels.value_counts()
    counts = labels[uncovered].value_counts() if any(uncovered) else overall
    best = counts[counts == counts.max()].index
    expected = max(best, key=lambda c: overall[c])
    assert overall[document["default_class"]] == overall[expected]
    assert counts[document["default_class"]] == counts.max()


def test_each_class_has_one_contiguous_group(fitted):
    _, _, _, rule_set = fitted
    order = [rule.label for rule in rule_set.rules]
    groups = [label for i, label in enumerate(order) if i == 0 or order[i - 1] != label]
    assert len(groups) == len(set(groups))


def test_every_dropped_condition_keeps_the_pessimistic_rate(fitted):
    """Replay the generalisation: each drop does not raise U_CF, and no kept condition
    could go without raising it."""
    _model, X, y, rule_set = fitted
    rows, labels = raw_rows(X), list(y)
    cf = rule_set.confidence

    def rate(conditions, label):
        covered = [i for i, row in enumerate(rows) if matches(conditions, row)]
        errors = sum(labels[i] != label for i in covered)
        return c45_rate(len(covered), errors, cf)

    for rule in rule_set.to_dict()["rules"]:
        current = rule["conditions"] + rule["dropped"]
        for gone in rule["dropped"]:
            shorter = [c for c in current if c != gone]
            assert rate(shorter, rule["class"]) <= rate(current, rule["class"]) + 1e-9
            current = shorter
        for kept in rule["conditions"]:
            shorter = [c for c in rule["conditions"] if c != kept]
            assert rate(shorter, rule["class"]) > rate(rule["conditions"], rule["class"]) - 1e-9


def test_rules_carry_no_duplicates(fitted):
    _, _, _, rule_set = fitted
    keys = [(frozenset(r.conditions), r.label) for r in rule_set.rules]
    assert len(keys) == len(set(keys))


def test_json_round_trip(fitted):
    _model, X, _y, rule_set = fitted
    text = rule_set.to_json()
    again = RuleSet.from_json(text)
    assert again.to_dict() == json.loads(text) == rule_set.to_dict()
    assert again.rules == rule_set.rules
    assert again.predict(X).tolist() == rule_set.predict(X).tolist()


def test_pessimistic_rate_is_c45s_estimate():
    # Quinlan's book, chapter 4: U_25%(0, 6) = 0.206, U_25%(0, 9) = 0.143, U_25%(0, 1) = 0.75
    assert pessimistic_rate(6, 0, 0.25) == pytest.approx(0.206, abs=5e-4)
    assert pessimistic_rate(9, 0, 0.25) == pytest.approx(0.143, abs=5e-4)
    assert pessimistic_rate(1, 0, 0.25) == pytest.approx(0.75)
    for n in range(1, 40):
        for e in range(n + 1):
            for cf in (0.1, 0.25, 0.5):
                assert pessimistic_rate(n, e, cf) == pytest.approx(c45_rate(n, e, cf), abs=1e-9)
    assert pessimistic_rate(0, 0, 0.25) == 1.0


# -- simplification pays off ---------------------------------------------------------------
SHRINK = [("play_tennis", "cart", {}), ("vote.arff", "c45", {}), ("vote.arff", "cart", {}),
          ("iris", "interval", {}), ("iris", "cart", {}), ("labor.arff", "c45", {}),
          ("soybean.arff", "c45", {})]
ACCURACY_SLACK = 0.03  # the rule set's training accuracy is at most 3 points below the tree's


@pytest.mark.parametrize(("name", "algorithm", "params"), SHRINK,
                         ids=[f"{d}-{a}" for d, a, _ in SHRINK])
def test_fewer_conditions_and_nearly_the_same_training_accuracy(name, algorithm, params):
    X, y = load(name)
    model = DecisionTreeClassifier(algorithm=algorithm, **params).fit(X, y)
    rule_set = simplify_rules(model, X, y)
    tree_conditions = sum(len(r.conditions) for r in tree_to_rules(model))
    assert rule_set.n_conditions < tree_conditions
    truth = np.asarray(y, dtype=object)
    tree_accuracy = np.mean(model.predict(X).astype(object) == truth)
    set_accuracy = np.mean(rule_set.predict(X).astype(object) == truth)
    assert set_accuracy >= tree_accuracy - ACCURACY_SLACK
    assert rule_set.score(X, y) == pytest.approx(set_accuracy)


def test_play_tennis_cart_rules_by_hand():
    """The CART tree tests Outlook twice and Humidity/Wind below both; the rule set says
    what Mitchell's ID3 tree says."""
    X, y = load("play_tennis")
    model = DecisionTreeClassifier(algorithm="cart").fit(X, y)
    rule_set = simplify_rules(model, X, y)
    premises = {(frozenset(str(c) for c in r.conditions), r.label) for r in rule_set.rules}
    assert (frozenset({"Outlook = Overcast"}), "Yes") in premises
    assert (frozenset({"Outlook = Sunny", "Humidity = High"}), "No") in premises
    assert (frozenset({"Outlook = Rain", "Wind = Strong"}), "No") in premises
    assert rule_set.score(X, y) == 1.0


def test_interval_rule_set_classifies_rows_the_tree_leaves_unclassified():
    X, y = load("iris")
    model = DecisionTreeClassifier(algorithm="interval").fit(X, y)
    rule_set = simplify_rules(model, X, y)
    odd = pd.DataFrame([[9.0, 9.0, 9.0, 9.0], [4.0, 2.0, 1.2, 0.1]], columns=X.columns)
    assert (model.predict_proba(odd).sum(axis=1) == 0).any()
    assert set(rule_set.predict(odd)) <= set(model.classes_)


def test_confidence_changes_the_generalisation():
    X, y = load("vote.arff")
    model = DecisionTreeClassifier(algorithm="cart").fit(X, y)
    loose, strict = simplify_rules(model, X, y, 0.9), simplify_rules(model, X, y, 0.01)
    assert loose.confidence == 0.9 and strict.confidence == 0.01
    assert loose.to_dict()["rules"] != strict.to_dict()["rules"]
    with pytest.raises(ValueError, match="confidence"):
        simplify_rules(model, X, y, 1.5)


def test_missing_labels_are_left_out_and_a_single_leaf_works():
    X = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
    model = DecisionTreeClassifier(min_samples_split=10).fit(X, ["a", "a", "b", "a"])
    rule_set = simplify_rules(model, X, ["a", None, "b", "a"])
    assert rule_set.n_rows == 3
    assert [str(r) for r in rule_set.rules] == [
        "IF TRUE THEN class = a  (coverage 3, accuracy 66.7%)"]


def test_malformed_rule_set_documents():
    X, y = load("play_tennis")
    document = simplify_rules(DecisionTreeClassifier().fit(X, y), X, y).to_dict()
    for broken in ({}, {**document, "kind": "tree"}, {**document, "default_class": "Maybe"},
                   {**document, "rules": [{"conditions": [{"feature": "Outlook", "op": "~"}],
                                           "class": "Yes", "coverage": 1, "correct": 1}]},
                   {**document, "rules": [{"conditions": [{"feature": "Nope", "op": "=",
                                                           "value": "x"}],
                                           "class": "Yes", "coverage": 1, "correct": 1}]}):
        with pytest.raises(ModelFileError):
            RuleSet.from_dict(broken)
    with pytest.raises(ModelFileError):
        RuleSet.from_json("{not json")


# -- the tree's own rules as JSON ----------------------------------------------------------
@pytest.mark.parametrize(("name", "algorithm"), [("play_tennis", "cart"), ("iris", "cart"),
                                                 ("iris", "interval"), ("vote.arff", "c45")])
def test_tree_rules_json(name, algorithm):
    X, y = load(name)
    model = DecisionTreeClassifier(algorithm=algorithm).fit(X, y)
    document = json.loads(json.dumps(rules_to_dict(model), allow_nan=False))
    rules = tree_to_rules(model)
    assert document["default_class"] is None and document["kind"] == "tree"
    assert len(document["rules"]) == len(rules)
    for entry, rule in zip(document["rules"], rules):
        assert tuple(condition_from_json(c) for c in entry["conditions"]) == rule.conditions
        assert (entry["class"], entry["leaf"]) == (rule.label, rule.leaf)
        assert entry["coverage"] == pytest.approx(rule.support)
    if algorithm != "c45":  # no missing values: a rule's support is the rows it matches
        rows, labels = raw_rows(X), list(y)
        for entry in document["rules"]:
            covered = [i for i, row in enumerate(rows) if matches(entry["conditions"], row)]
            assert entry["coverage"] == len(covered)
            assert entry["accuracy"] == pytest.approx(
                sum(labels[i] == entry["class"] for i in covered) / len(covered))


# -- the command line ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def tennis_files(tmp_path_factory):
    directory = tmp_path_factory.mktemp("rules")
    X, y = load("play_tennis")
    model = DecisionTreeClassifier(algorithm="cart").fit(X, y)
    model.save(directory / "t.json")
    (directory / "train.csv").write_text((BUNDLED / "play_tennis.csv").read_text())
    (directory / "nolabel.csv").write_text(pd.DataFrame(X).to_csv(index=False))
    return directory, model, X, y


def run(capsys, *argv):
    try:
        status = cli.main([str(a) for a in argv])
    except SystemExit as stop:  # argparse's own errors
        status = stop.code
    out, err = capsys.readouterr()
    return status, out, err


def test_cli_simplified_rules_text_and_json(capsys, tennis_files):
    directory, model, X, y = tennis_files
    status, out, _ = run(capsys, "rules", directory / "t.json", "--simplify", "--data",
                         directory / "train.csv")
    rule_set = simplify_rules(model, X, y)
    assert status == 0
    assert out.startswith(str(rule_set) + "\n\n")
    assert out.endswith(f"{len(rule_set.rules)} rules, {rule_set.n_conditions} conditions; "
                        "training accuracy 1.0000 on 14 rows\n")
    status, out, _ = run(capsys, "rules", directory / "t.json", "--simplify", "--data",
                         directory / "train.csv", "--format", "json", "--confidence", "0.25")
    assert status == 0 and json.loads(out) == rule_set.to_dict()
    status, out, _ = run(capsys, "rules", directory / "t.json", "--format", "json")
    assert status == 0 and json.loads(out) == rules_to_dict(model)


def test_cli_writes_rules_to_a_file(capsys, tennis_files, tmp_path):
    directory, model, X, y = tennis_files
    target = tmp_path / "rules.json"
    status, out, _ = run(capsys, "rules", directory / "t.json", "--simplify", "--data",
                         directory / "train.csv", "--format", "json", "--out", target)
    assert status == 0 and out == f"Rules written to {target}\n"
    assert RuleSet.from_json(target.read_text()).predict(X).tolist() == \
        simplify_rules(model, X, y).predict(X).tolist()


@pytest.mark.parametrize(("args", "message"), [
    (["--simplify"], "--simplify needs the training data"),
    (["--data", "train.csv"], "--data is used only with --simplify"),
    (["--confidence", "0.3"], "--confidence is used only with --simplify"),
    (["--simplify", "--data", "nolabel.csv"], "nolabel.csv: no class column 'PlayTennis'"),
    (["--simplify", "--data", "absent.csv"], "absent.csv"),
    (["--simplify", "--data", "train.csv", "--confidence", "1.5"], "between 0 and 1"),
    (["--format", "xml"], "invalid choice"),
])
def test_cli_rules_errors(capsys, tennis_files, tmp_path, args, message):
    directory = tennis_files[0]
    argv = [directory / a if a.endswith(".csv") else a for a in args]
    target = tmp_path / "out.txt"
    status, out, err = run(capsys, "rules", directory / "t.json", *argv, "--out", target)
    assert status == 2 and out == ""
    assert err.startswith("quercus: error: ") and message in err
    assert len(err.strip().splitlines()) == 1
    assert not target.exists()
