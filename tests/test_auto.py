"""``algorithm="auto"`` (quercus.selection): the best small tree by inner stratified CV,
``quercus train`` without --algorithm, and ``quercus eval --compare``.

The candidates not on this branch (rpart, CART and C4.5 with ``prune``) are left out by
``selection.candidate_available``; the tests use the ones every Quercus with ``auto`` has
(C4.5 and the optimal trees) and pin the candidate list where a figure depends on it.
"""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import quercus
from quercus import DecisionTreeClassifier, cli, selection
from quercus.data import read_arff
from quercus.errors import DataError
from quercus.evaluation import cross_validate, stratified_folds

ROOT = Path(__file__).resolve().parent
ARFF = ROOT / "data" / "arff"
BUNDLED = Path(quercus.__file__).parent / "data" / "bundled"


def _arff(name: str):
    data = read_arff(ARFF / f"{name}.arff")
    return data.X, data.y


def _pin(monkeypatch, *names: str) -> None:
    """Restrict the candidates to these (figures then do not change when more land)."""
    monkeypatch.setattr(selection, "CANDIDATES",
                        tuple(c for c in selection.CANDIDATES if c.name in names))


def _tree_arrays(model) -> dict:
    return {k: v for k, v in model.tree_.to_dict().items()}


# -- the library ---------------------------------------------------------------------------
def test_gate_leaves_out_what_this_quercus_lacks():
    from quercus.learners import ALGORITHMS

    c45 = selection.Candidate("x", "x", {"algorithm": "c45"})
    assert selection.candidate_available(c45, DecisionTreeClassifier)
    assert not selection.candidate_available(
        selection.Candidate("x", "x", {"algorithm": "no-such-learner"}), DecisionTreeClassifier)
    assert not selection.candidate_available(
        selection.Candidate("x", "x", {"algorithm": "c45", "no_such_parameter": 1}),
        DecisionTreeClassifier)
    names = DecisionTreeClassifier._param_names()
    for candidate in selection.CANDIDATES:
        expected = (candidate.params["algorithm"] in ALGORITHMS
                    and all(p in names for p in candidate.params))
        assert selection.candidate_available(candidate, DecisionTreeClassifier) == expected
        assert expected, f"{candidate.name} is not available"  # every issue-12 candidate

    def available(n_rows, n_features):
        return {c.name for c in selection.available_candidates(DecisionTreeClassifier, n_rows,
                                                                n_features)}

    assert {"c45", "optimal-d2", "optimal-d3", "optimal-d4"} <= available(150, 4)
    # the size gates: optimal depth 4 only on small data, depth 3 on mid-sized data
    assert "optimal-d4" not in available(1000, 20)
    assert "optimal-d3" in available(1000, 20)
    assert "optimal-d3" not in available(20000, 20)


def test_selection_table_matches_an_independent_cross_validation(monkeypatch):
    _pin(monkeypatch, "c45", "optimal-d2", "optimal-d3")
    X, y = _arff("labor")
    model = DecisionTreeClassifier(algorithm="auto", random_state=3).fit(X, y)
    table = model.selection_
    assert list(table.columns) == ["name", "learner", "accuracy", "std_error", "leaves",
                                   "fit_seconds", "chosen", "error"]
    assert list(table["name"]) == ["c45", "optimal-d2", "optimal-d3"]
    assert table["chosen"].sum() == 1
    # the same folds through evaluation.cross_validate, a different code path
    for name, params in (("c45", {"algorithm": "c45"}),
                         ("optimal-d2", selection.CANDIDATES[1].params)):
        cv = cross_validate(DecisionTreeClassifier(**params, random_state=3), X, y,
                            n_folds=selection.INNER_FOLDS, seed=3)
        row = table.set_index("name").loc[name]
        assert row["accuracy"] == pytest.approx(np.trace(cv.confusion) / cv.confusion.sum())
        assert row["std_error"] == pytest.approx(np.std(cv.accuracies, ddof=1) / np.sqrt(5))
    best = table["accuracy"].max()
    chosen = table[table["chosen"]].iloc[0]
    assert chosen["accuracy"] >= best - 1 / len(X) - 1e-12
    assert model.chosen_["name"] == chosen["name"]
    assert model.selection_summary_.startswith(f"{chosen['learner']}: ")


def test_deterministic_for_a_seed():
    X, y = _arff("breast-cancer")
    first = DecisionTreeClassifier(algorithm="auto", random_state=7).fit(X, y)
    second = DecisionTreeClassifier(algorithm="auto", random_state=7).fit(X, y)
    columns = ["name", "accuracy", "std_error", "leaves", "chosen"]
    pd.testing.assert_frame_equal(first.selection_[columns], second.selection_[columns])
    assert _tree_arrays(first) == _tree_arrays(second)
    assert first.selection_summary_ == second.selection_summary_


def test_winner_is_a_direct_fit_of_the_chosen_learner():
    X, y = _arff("iris")
    model = DecisionTreeClassifier(algorithm="auto").fit(X, y)
    direct = DecisionTreeClassifier(**model.chosen_["params"], random_state=1).fit(X, y)
    assert _tree_arrays(model) == _tree_arrays(direct)
    assert model.best_estimator_.get_params() == direct.get_params()
    np.testing.assert_array_equal(model.predict(X), direct.predict(X))
    np.testing.assert_array_equal(model.predict_proba(X), direct.predict_proba(X))
    assert model.get_n_leaves() == direct.get_n_leaves()
    assert list(model.classes_) == list(direct.classes_)
    assert model.get_params()["algorithm"] == "auto"  # fit does not change the parameters


def test_ties_go_to_the_smaller_tree():
    table = pd.DataFrame({"name": ["a", "b", "c"], "learner": ["A", "B", "C"],
                          "accuracy": [0.900, 0.899, 0.880], "std_error": [0.01] * 3,
                          "leaves": [40.0, 6.0, 3.0], "fit_seconds": [0.1] * 3,
                          "chosen": [False] * 3, "error": [None] * 3})
    assert selection.choose(table, 1000) == 1  # one row of 1000 apart: a tie, fewer leaves
    assert selection.choose(table, 2000) == 0  # two rows of 2000 apart: a, more accurate
    table.loc[1, "leaves"] = 40.0
    assert selection.choose(table, 1000) == 0  # same accuracy and leaves: the earlier one
    table.loc[:, "accuracy"] = np.nan
    with pytest.raises(DataError, match="no candidate learner could be fitted"):
        selection.choose(table, 1000)


def test_tie_on_real_data_goes_to_the_smaller_tree(monkeypatch):
    # credit-g: J48 gets one row of 1000 more right than the depth-2 optimal tree (4 leaves)
    _pin(monkeypatch, "c45", "optimal-d2")
    X, y = _arff("credit-g")
    model = DecisionTreeClassifier(algorithm="auto").fit(X, y)
    table = model.selection_.set_index("name")
    assert table.loc["c45", "accuracy"] - table.loc["optimal-d2", "accuracy"] \
        == pytest.approx(1 / 1000)
    assert table.loc["c45", "leaves"] > table.loc["optimal-d2", "leaves"]
    assert model.chosen_["name"] == "optimal-d2" and model.get_n_leaves() <= 4
    assert "(tie: fewer leaves)" in model.selection_summary_


def _record_folds(monkeypatch) -> list:
    """The inner folds of every ``selection.evaluate`` call, recorded into the list returned."""
    seen = []
    evaluate = selection.evaluate

    def spy(estimator, candidates, frame, labels, weights, folds, *args, **kwargs):
        seen.append(folds)
        return evaluate(estimator, candidates, frame, labels, weights, folds, *args, **kwargs)

    monkeypatch.setattr(selection, "evaluate", spy)
    return seen


def test_large_data_is_selected_on_a_subsample(monkeypatch):
    monkeypatch.setattr(selection, "SELECT_ROWS", 100)
    seen = _record_folds(monkeypatch)
    X, y = _arff("iris")
    model = DecisionTreeClassifier(algorithm="auto").fit(X, y)
    assert model.selection_summary_.endswith("(selected on 100 of 150 rows)")
    assert model.tree_.n_node_samples[0] == 150  # the winner is refitted on every row
    # fewer inner folds on large data (docs/auto.md, "Cost and big data"), on the subsample
    (folds,) = seen
    assert len(folds) == selection.BIG_INNER_FOLDS < selection.INNER_FOLDS
    assert sum(len(test) for _, test in folds) == 100


def test_small_data_keeps_five_inner_folds(monkeypatch):
    seen = _record_folds(monkeypatch)
    X, y = _arff("iris")
    DecisionTreeClassifier(algorithm="auto").fit(X, y)
    assert [len(folds) for folds in seen] == [selection.INNER_FOLDS]


def test_big_data_falls_back_on_a_subsample(monkeypatch):
    monkeypatch.setattr(selection, "BIG_DATA_ROWS", 100)
    monkeypatch.setattr(selection, "FALLBACK_ROWS", 80)
    X, y = _arff("iris")
    with pytest.warns(UserWarning, match="does not cross-validate"):
        model = DecisionTreeClassifier(algorithm="auto", random_state=5).fit(X, y)
    fallback = next(name for name in selection.FALLBACK if selection.candidate_available(
        selection._by_name(name), DecisionTreeClassifier))
    assert list(model.selection_["name"]) == [fallback] and model.selection_["chosen"].all()
    assert model.chosen_["name"] == fallback
    assert "80 of 150 rows" in model.selection_summary_
    rows = np.sort(np.random.default_rng(5).choice(150, 80, replace=False))
    direct = DecisionTreeClassifier(**model.chosen_["params"], random_state=5)
    direct.fit(X.iloc[rows], y.iloc[rows])
    assert _tree_arrays(model) == _tree_arrays(direct)


def test_progress_rises_to_one():
    X, y = _arff("labor")
    seen = []
    DecisionTreeClassifier(algorithm="auto").fit(X, y, progress=seen.append)
    assert seen and seen[-1] == 1.0 and seen == sorted(seen)


def test_model_file_holds_the_chosen_learner(tmp_path):
    X, y = _arff("iris")
    model = DecisionTreeClassifier(algorithm="auto").fit(X, y)
    model.save(tmp_path / "m.json")
    document = json.loads((tmp_path / "m.json").read_text())
    assert document["params"]["algorithm"] == model.chosen_["params"]["algorithm"]
    assert document["selection"]["summary"] == model.selection_summary_
    assert [c["name"] for c in document["selection"]["candidates"]] == \
        list(model.selection_["name"])
    loaded = quercus.load_model(tmp_path / "m.json")
    assert loaded.algorithm == model.chosen_["params"]["algorithm"]
    assert loaded.selection_summary_ == model.selection_summary_
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    # the file is the one the chosen learner writes, plus the selection entry
    model.best_estimator_.save(tmp_path / "direct.json")
    direct = json.loads((tmp_path / "direct.json").read_text())
    del document["selection"]
    assert document == direct


@pytest.mark.parametrize("params, message", [
    ({"max_depth": 3}, "leave max_depth at the default"),
    ({"criterion": "entropy", "ccp_alpha": 0.1}, "leave criterion, ccp_alpha"),
])
def test_auto_refuses_learner_settings(params, message):
    X, y = _arff("iris")
    with pytest.raises(ValueError, match=message):
        DecisionTreeClassifier(algorithm="auto", **params).fit(X, y)


def test_auto_refuses_bad_input():
    X, y = _arff("iris")
    with pytest.raises(DataError, match="no training rows with a known class label"):
        DecisionTreeClassifier(algorithm="auto").fit(X, pd.Series([None] * len(X)))
    with pytest.raises(ValueError, match="one label column"):
        DecisionTreeClassifier(algorithm="auto").fit(X, np.c_[y, y])
    with pytest.raises(DataError, match="rows"):
        DecisionTreeClassifier(algorithm="auto").fit(X, y[:10])
    with pytest.raises(ValueError, match="algorithm must be one of"):
        DecisionTreeClassifier(algorithm="best").fit(X, y)


def test_missing_labels_and_weights_are_used():
    X, y = _arff("labor")
    y = y.astype(object).copy()
    y.iloc[:5] = None
    weights = np.where(np.arange(len(X)) % 2 == 0, 1.0, 2.0)
    model = DecisionTreeClassifier(algorithm="auto").fit(X, y, sample_weight=weights)
    direct = DecisionTreeClassifier(**model.chosen_["params"]).fit(X, y, sample_weight=weights)
    assert _tree_arrays(model) == _tree_arrays(direct)
    assert model.tree_.weighted_n_node_samples[0] == pytest.approx(weights[5:].sum())


# -- the command line ----------------------------------------------------------------------
@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    for name in ("iris.csv", "airquality.csv"):
        shutil.copy(BUNDLED / name, tmp_path / name)
    shutil.copy(ARFF / "labor.arff", tmp_path / "labor.arff")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_train_without_algorithm_chooses_and_says_why(data_dir, capsys):
    assert cli.main(["train", "iris.csv", "--target", "species", "--out", "m.json"]) == 0
    out = capsys.readouterr().out.splitlines()
    data = quercus.read_csv(data_dir / "iris.csv", "species")
    expected = DecisionTreeClassifier(algorithm="auto").fit(data.X, data.y)
    chosen = expected.chosen_["params"]["algorithm"]
    assert out[0].endswith(f"(auto: {chosen}, {'gain_ratio' if chosen == 'c45' else 'gini'})")
    assert out[1] == f"Chose {expected.selection_summary_}"
    assert "; runner-up " in out[1] and "CV accuracy" in out[1]
    assert out[2] == (f"Depth: {expected.get_depth()}, leaves: {expected.get_n_leaves()}")
    assert quercus.load_model(data_dir / "m.json").algorithm == chosen


def test_train_with_an_algorithm_or_learner_option_is_unchanged(data_dir, capsys):
    for extra in (["--algorithm", "cart"], ["--max-depth", "3"], ["--criterion", "entropy"]):
        assert cli.main(["train", "iris.csv", "--target", "species", "--out", "m.json",
                         *extra]) == 0
        out = capsys.readouterr().out
        assert "(cart, " in out and "Chose" not in out
        assert quercus.load_model(data_dir / "m.json").algorithm == "cart"


def test_train_numeric_target_keeps_the_regression_tree(data_dir, capsys):
    assert cli.main(["train", "airquality.csv", "--target", "Ozone", "--out", "o.json"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Regression tree:") and "Chose" not in out
    assert cli.main(["train", "airquality.csv", "--target", "Ozone", "--out", "o.json",
                     "--algorithm", "auto"]) == 2
    assert "regression trees are CART or rpart trees" in capsys.readouterr().err


def test_eval_compare_prints_every_learner_on_the_same_folds(data_dir, capsys):
    assert cli.main(["eval", "iris.csv", "--target", "species", "--compare"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == ("10-fold cross-validation on 150 rows (seed 0), the same folds for "
                        "every learner")
    assert lines[1].split() == ["learner", "accuracy", "±", "s.e.", "leaves", "seconds"]
    rows = {line[:18].strip(): line[18:].split() for line in lines[2:]}
    names = [c.label for c in selection.available_candidates(DecisionTreeClassifier, 150, 4)]
    names.append("CART, unpruned")
    assert list(rows) == names
    assert sum(line.endswith("<- auto's choice") for line in lines) == 1
    # the baseline row against evaluation.cross_validate (15 rows per fold: mean = pooled)
    data = quercus.read_csv(data_dir / "iris.csv", "species")
    cv = cross_validate(DecisionTreeClassifier(random_state=0), data.X, data.y, 10, seed=0)
    assert rows["CART, unpruned"][0] == f"{cv.mean:.4f}"
    assert rows["CART, unpruned"][1] == f"{np.std(cv.accuracies, ddof=1) / np.sqrt(10):.4f}"
    c45 = cross_validate(DecisionTreeClassifier(algorithm="c45"), data.X, data.y, 10, seed=0)
    assert rows["C4.5 (J48)"][0] == f"{c45.mean:.4f}"


def test_compare_folds_are_the_evaluation_folds(data_dir):
    data = quercus.read_csv(data_dir / "iris.csv", "species")
    table = selection.compare(DecisionTreeClassifier, data.X, data.y, n_folds=5, seed=2,
                              candidates=[selection._by_name("c45")])
    folds = stratified_folds(data.y, 5, seed=2)
    right = 0
    for train, test in folds:
        model = DecisionTreeClassifier(algorithm="c45").fit(data.X.iloc[train],
                                                            data.y.iloc[train])
        right += int((model.predict(data.X.iloc[test]) == data.y.iloc[test]).sum())
    assert table.loc[0, "accuracy"] == pytest.approx(right / 150)
    assert list(table["name"]) == ["c45", "cart"] and table.loc[0, "chosen"]


@pytest.mark.parametrize("argv, message", [
    (["eval", "iris.csv", "--target", "species", "--compare", "--algorithm", "c45"],
     "--compare cross-validates every learner; leave out --algorithm"),
    (["eval", "iris.csv", "--target", "species", "--compare", "--max-depth", "2"],
     "leave out the learner options"),
    (["eval", "airquality.csv", "--target", "Ozone", "--compare"],
     "--compare is for classification"),
    (["train", "iris.csv", "--target", "species", "--algorithm", "auto", "--max-depth", "2",
      "--out", "m.json"], "--algorithm auto chooses the learner and its settings"),
    (["train", "iris.csv", "--target", "nope", "--out", "m.json"], "nope"),
])
def test_cli_mistakes_are_one_line(data_dir, capsys, argv, message):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("quercus: error: ") and message in err
    assert err.count("\n") == 1
    assert not (data_dir / "m.json").exists()


def test_auto_on_credit_g_warns_nothing():
    # its speed (under 5 s) is measured by benchmarks/bench_auto_cost.py, not here
    X, y = _arff("credit-g")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = DecisionTreeClassifier(algorithm="auto").fit(X, y)
    assert model.chosen_["name"] in set(model.selection_["name"])


def test_train_says_when_big_data_falls_back(data_dir, capsys, monkeypatch):
    monkeypatch.setattr(selection, "BIG_DATA_ROWS", 100)
    monkeypatch.setattr(selection, "FALLBACK_ROWS", 80)
    assert cli.main(["train", "iris.csv", "--target", "species", "--out", "m.json"]) == 0
    captured = capsys.readouterr()
    err = captured.err.splitlines()
    assert len(err) == 1 and err[0].startswith("quercus: warning: algorithm='auto': ")
    assert "80 of 150 rows" in err[0] and "does not cross-validate" in err[0]
    assert "\nChose " in captured.out and "80 of 150 rows" in captured.out


def test_an_auto_model_works_with_the_exporters_in_python(tmp_path):
    from quercus.export import rules_to_text, tree_to_text
    from quercus.report import write_report

    X, y = _arff("iris")
    model = DecisionTreeClassifier(algorithm="auto").fit(X, y)
    direct = model.best_estimator_
    assert tree_to_text(model) == tree_to_text(direct)
    assert rules_to_text(model) == rules_to_text(direct)
    write_report(tmp_path / "r.html", model, X, y)
    assert f">{direct.algorithm}<" in (tmp_path / "r.html").read_text()


def test_an_auto_c45_model_prints_weights_as_c45_does(monkeypatch):
    from quercus.export import rules_to_text, tree_to_text

    _pin(monkeypatch, "c45")
    X, y = _arff("iris")
    model = DecisionTreeClassifier(algorithm="auto").fit(X, y)
    assert model.chosen_["name"] == "c45"
    assert tree_to_text(model) == tree_to_text(model.best_estimator_)
    assert rules_to_text(model) == rules_to_text(model.best_estimator_)
