"""C4.5 with prune="cv": J48's confidence factor and leaf size chosen by internal CV (issue 12).

The default (prune=None) tree is J48's exactly: tests/test_c45_j48.py checks it against Weka.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import quercus
from quercus import DecisionTreeClassifier
from quercus.errors import ModelFileError
from quercus.pruning.c45_cv import CONFIDENCE_GRID, MIN_SAMPLES_LEAF_GRID, stratified_folds

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def credit():
    X, y, _ = quercus.read_arff(DATA / "arff" / "credit-g.arff")
    return X, y


@pytest.fixture(scope="module")
def credit_cv(credit):
    return DecisionTreeClassifier(algorithm="c45", prune="cv").fit(*credit)


def _same_tree(a, b) -> None:
    for name in ("kind", "feature", "threshold", "child_ids", "value"):
        np.testing.assert_array_equal(getattr(a.tree_, name), getattr(b.tree_, name))


def test_search_table_and_choice(credit_cv):
    table = credit_cv.cv_results_
    assert list(table.columns) == ["confidence", "min_samples_leaf", "accuracy", "std_error",
                                   "leaves", "chosen"]
    assert len(table) == len(CONFIDENCE_GRID) * len(MIN_SAMPLES_LEAF_GRID)
    chosen = table[table["chosen"]]
    assert len(chosen) == 1
    assert chosen["accuracy"].iloc[0] == table["accuracy"].max()
    assert credit_cv.best_params_ == {"confidence": chosen["confidence"].iloc[0],
                                      "min_samples_leaf": chosen["min_samples_leaf"].iloc[0]}


def test_refit_is_j48_with_the_chosen_setting(credit, credit_cv):
    plain = DecisionTreeClassifier(algorithm="c45", **credit_cv.best_params_).fit(*credit)
    _same_tree(credit_cv, plain)


def test_cv_tree_is_smaller_than_j48_on_credit_g(credit_cv):
    # Weka's J48 tree of credit-g has 103 leaves (tests/data/j48/credit-g.J48.txt)
    text = (DATA / "j48" / "credit-g.J48.txt").read_text()
    j48_leaves = int(text.split("Number of Leaves  :")[1].split()[0])
    assert j48_leaves == 103
    assert credit_cv.get_n_leaves() < j48_leaves


def test_cv_accuracies_equal_independent_fits(credit):
    """Each cell of cv_results_ (one grown tree pruned at every confidence) equals plain
    fits on the same folds, fitted and scored through the public API."""
    X, y = credit
    leaf = 5
    model = DecisionTreeClassifier(algorithm="c45", prune="cv", min_samples_leaf=leaf,
                                   random_state=7).fit(X, y)
    table = model.cv_results_
    assert (table["min_samples_leaf"] == leaf).all() and len(table) == len(CONFIDENCE_GRID)
    codes = model.schema_.encode_labels(y)
    folds = stratified_folds(codes, 5, np.random.RandomState(7))
    for confidence in (0.05, 0.25, 0.5):
        scores, leaves = [], []
        for k in range(5):
            fold = DecisionTreeClassifier(algorithm="c45", confidence=confidence,
                                          min_samples_leaf=leaf)
            fold.fit(X[folds != k], y[folds != k])
            scores.append(fold.score(X[folds == k], y[folds == k]))
            leaves.append(fold.get_n_leaves())
        row = table[table["confidence"] == confidence].iloc[0]
        assert row["accuracy"] == pytest.approx(np.mean(scores), abs=1e-12)
        assert row["leaves"] == pytest.approx(np.mean(leaves))
        assert row["std_error"] == pytest.approx(np.std(scores, ddof=1) / np.sqrt(5))


def test_deterministic_and_seeded(credit):
    X, y = credit
    a = DecisionTreeClassifier(algorithm="c45", prune="cv", random_state=3).fit(X, y)
    b = DecisionTreeClassifier(algorithm="c45", prune="cv", random_state=3).fit(X, y)
    assert a.cv_results_.equals(b.cv_results_)
    _same_tree(a, b)
    c = DecisionTreeClassifier(algorithm="c45", prune="cv", random_state=4).fit(X, y)
    assert not a.cv_results_["accuracy"].equals(c.cv_results_["accuracy"])


def test_stratified_folds():
    y = np.array([0] * 7 + [1] * 5 + [2] * 3 + [-1] * 2)
    folds = stratified_folds(y, 5, np.random.RandomState(0))
    assert (folds[y < 0] == -1).all()
    sizes = np.bincount(folds[y >= 0], minlength=5)
    assert sizes.max() - sizes.min() <= 1 and sizes.sum() == 15
    for c in (0, 1, 2):  # each class spread as evenly as it can be
        per_fold = np.bincount(folds[y == c], minlength=5)
        assert per_fold.max() - per_fold.min() <= 1
    again = stratified_folds(y, 5, np.random.RandomState(0))
    np.testing.assert_array_equal(folds, again)


def test_ties_go_to_the_smaller_tree_then_the_default():
    # labor: several settings tie on accuracy; the chosen one has the fewest leaves
    X, y, _ = quercus.read_arff(DATA / "arff" / "labor.arff")
    model = DecisionTreeClassifier(algorithm="c45", prune="cv").fit(X, y)
    table = model.cv_results_
    best = table[table["accuracy"] >= table["accuracy"].max() - 1e-12]
    chosen = table[table["chosen"]].iloc[0]
    assert chosen["leaves"] == best["leaves"].min()
    tied = best[best["leaves"] == best["leaves"].min()]
    if len(tied) > 1 and (tied["confidence"] == 0.25).any():
        assert chosen["confidence"] == 0.25


def test_missing_labels_train_in_every_fold(credit):
    X, y = credit
    y = y.astype(object).copy()
    y.iloc[:50] = None
    model = DecisionTreeClassifier(algorithm="c45", prune="cv").fit(X, y)
    assert model.cv_results_["chosen"].sum() == 1


@pytest.mark.parametrize("params, message", [
    ({"algorithm": "c45", "prune": "1se"}, "prune must be None or 'cv' for algorithm='c45'"),
    ({"algorithm": "cart", "prune": "cv"}, "prune must be None or 'min' or '1se' for algorithm='cart'; got 'cv'"),
    ({"algorithm": "c45", "prune": "cv", "pruning": False}, "needs pruning=True"),
    ({"algorithm": "c45", "prune": "cv", "reduced_error_pruning": True}, "needs pruning=True"),
    ({"algorithm": "c45", "prune": "cv", "confidence": 0.1}, "leave confidence at 0.25"),
])
def test_errors(params, message):
    X = np.arange(20.0).reshape(10, 2)
    y = [0, 1] * 5
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        DecisionTreeClassifier(**params).fit(X, y)


def test_too_few_rows_is_an_error():
    with pytest.raises(ValueError, match="needs at least 5 rows with a known class"):
        DecisionTreeClassifier(algorithm="c45", prune="cv").fit([[0.0], [1.0], [2.0]],
                                                                [0, 1, 0])


def test_progress_reaches_one_and_never_decreases(credit):
    shares = []
    DecisionTreeClassifier(algorithm="c45", prune="cv", min_samples_leaf=10).fit(
        *credit, progress=shares.append)
    assert shares and shares[-1] == 1.0
    assert all(a <= b for a, b in itertools.pairwise(shares))


def test_model_file_keeps_the_choice(tmp_path, credit, credit_cv):
    path = tmp_path / "cv.json"
    credit_cv.save(path)
    document = json.loads(path.read_text())
    assert document["params"]["prune"] == "cv"
    assert document["c45_cv"]["best_params"] == credit_cv.best_params_
    loaded = quercus.load_model(path)
    assert loaded.best_params_ == credit_cv.best_params_
    assert loaded.cv_results_.equals(credit_cv.cv_results_)
    np.testing.assert_array_equal(loaded.predict(credit[0]), credit_cv.predict(credit[0]))
    # a plain fit has no such entry, and loads without the attributes
    plain = DecisionTreeClassifier(algorithm="c45").fit(*credit)
    plain.save(tmp_path / "plain.json")
    assert "c45_cv" not in json.loads((tmp_path / "plain.json").read_text())
    assert not hasattr(quercus.load_model(tmp_path / "plain.json"), "best_params_")


def test_bad_choice_entry_is_one_line(tmp_path, credit_cv):
    path = tmp_path / "bad.json"
    credit_cv.save(path)
    document = json.loads(path.read_text())
    document["c45_cv"]["best_params"]["confidence"] = 2.0
    path.write_text(json.dumps(document))
    with pytest.raises(ModelFileError, match=r"bad 'c45_cv' entry: confidence 2.0"):
        quercus.load_model(path)


def test_refitting_without_cv_forgets_the_search(credit):
    model = DecisionTreeClassifier(algorithm="c45", prune="cv", min_samples_leaf=10)
    model.fit(*credit)
    model.set_params(prune=None).fit(*credit)
    assert not hasattr(model, "cv_results_") and not hasattr(model, "best_params_")


def test_cli_train_prune_cv(tmp_path):
    data = tmp_path / "labor.arff"
    data.write_bytes((DATA / "arff" / "labor.arff").read_bytes())
    base = [sys.executable, "-m", "quercus", "train", str(data), "--target", "class",
            "--algorithm", "c45", "--out", str(tmp_path / "m.json")]
    done = subprocess.run(base + ["--prune", "cv"], check=False, capture_output=True,
                          text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Pruning chosen by 5-fold CV: confidence" in done.stdout
    assert quercus.load_model(tmp_path / "m.json").best_params_["min_samples_leaf"] in (2, 5, 10)
    bad = subprocess.run(base + ["--prune", "1se"], check=False, capture_output=True,
                         text=True, cwd=tmp_path)
    assert bad.returncode == 2
    assert bad.stderr.strip() == ("quercus: error: prune must be None or 'cv' for "
                                  "algorithm='c45'; got '1se'")
