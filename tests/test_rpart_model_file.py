"""rpart models in model files: surrogates, node risks, cp table and importance saved and
read back, predictions and R printouts unchanged; damaged entries refused in one line."""

from __future__ import annotations

import json

import numpy as np
import pytest
from rpart_records_from_json import all_fits, frame_and_target, model_from_fixture

from quercus.errors import ModelFileError
from quercus.export.model_file import load_model, model_to_dict
from quercus.export.rpart_text import print_cp, print_rpart

FITS = all_fits()


@pytest.mark.parametrize(("dataset", "fit"), FITS, ids=[f"{d}-{f}" for d, f in FITS])
def test_round_trip(tmp_path, dataset, fit):
    model = model_from_fixture(dataset, fit)
    path = tmp_path / "m.json"
    model.save(path)
    loaded = load_model(path)
    X, _ = frame_and_target(dataset)
    np.testing.assert_array_equal(loaded.apply(X), model.apply(X))
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    assert loaded.tree_.rpart.use_surrogates == model.tree_.rpart.use_surrogates
    assert print_rpart(loaded) == print_rpart(model)
    assert print_cp(loaded, "C") == print_cp(model, "C")
    assert loaded.cp_table_.equals(model.cp_table_)
    assert loaded.variable_importance_.equals(model.variable_importance_)
    np.testing.assert_array_equal(loaded.feature_importances_, model.feature_importances_)
    # saving the loaded model gives the same file
    loaded.save(tmp_path / "again.json")
    assert (tmp_path / "again.json").read_bytes() == path.read_bytes()


def test_other_models_have_no_rpart_entries():
    from quercus import DecisionTreeClassifier

    X, y = frame_and_target("kyphosis")
    document = model_to_dict(DecisionTreeClassifier(max_depth=2).fit(X, y))
    assert "rpart" not in document["tree"]
    assert "cp_table" not in document and "rpart" not in document


def _damaged(tmp_path, edit):
    model = model_from_fixture("vote", "default")
    document = model_to_dict(model)
    edit(document)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(document))
    with pytest.raises(ModelFileError) as caught:
        load_model(path)
    message = str(caught.value)
    assert "\n" not in message and str(path) in message
    return message


@pytest.mark.parametrize(("edit", "named"), [
    (lambda d: d["tree"]["rpart"]["surrogate_feature"].__setitem__(0, 99), "99"),
    (lambda d: d["tree"]["rpart"]["surrogate_ptr"].__setitem__(1, 1000), "surrogate_ptr"),
    (lambda d: d["tree"]["rpart"].__setitem__("use_surrogates", 3), "use_surrogates"),
    (lambda d: d["tree"]["rpart"]["left_branch"].__setitem__(0, 2), "left_branch"),
    (lambda d: d["tree"]["rpart"]["node_risk"].__setitem__(0, -1.0), "node_risk"),
    (lambda d: d["tree"]["rpart"]["category_absent"].pop(), "category_absent"),
    (lambda d: d["tree"]["rpart"]["surrogate_category_branch"].__setitem__(0, 5),
     "surrogate_category_branch"),
    (lambda d: d["tree"]["rpart"].pop("surrogate_cut"), "surrogate_cut"),
    (lambda d: d["cp_table"]["CP"].pop(), "cp_table"),
    (lambda d: d["cp_table"]["nsplit"].__setitem__(0, 0.5), "cp_table"),
    (lambda d: d["rpart"]["variable_importance"].__setitem__(0, ["nope", 1.0]), "rpart"),
    (lambda d: d["rpart"].__setitem__("n_dropped", -1), "rpart"),
])
def test_damaged_entries_are_refused_in_one_line(tmp_path, edit, named):
    assert named in _damaged(tmp_path, edit)


def test_random_damage_never_crashes(tmp_path):
    """Random edits of the rpart arrays: the file is refused in one line, or loads and
    predicts (never an out-of-bounds read or a traceback of another kind)."""
    rng = np.random.default_rng(7)
    model = model_from_fixture("breast-cancer", "cp0")
    X, _ = frame_and_target("breast-cancer")
    base = model_to_dict(model)
    names = [k for k, v in base["tree"]["rpart"].items() if isinstance(v, list)]
    path = tmp_path / "f.json"
    for _ in range(150):
        document = json.loads(json.dumps(base))
        array = document["tree"]["rpart"][rng.choice(names)]
        if not array:
            continue
        position = int(rng.integers(len(array)))
        array[position] = [None, True, -1, 0, 1, 2, 7, 10**6, -3.5, 0.5][int(rng.integers(10))]
        path.write_text(json.dumps(document))
        try:
            loaded = load_model(path)
        except ModelFileError as error:
            assert "\n" not in str(error)
            continue
        loaded.predict_proba(X)
        loaded.decision_path(X)
