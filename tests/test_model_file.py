"""JSON model files: round trips, atomic writes and malformed files."""

from __future__ import annotations

import json
import os

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import quercus.export
from quercus import datasets
from quercus.errors import ModelFileError, NotFittedError
from quercus.estimator import DecisionTreeClassifier
from quercus.export import atomic, model_file
from quercus.export.model_file import load_model, save_model
from quercus.tree import _ARRAY_FIELDS


def assert_same_model(a, b, X) -> None:
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    np.testing.assert_array_equal(a.apply(X), b.apply(X))
    for name in _ARRAY_FIELDS:
        np.testing.assert_array_equal(getattr(a.tree_, name), getattr(b.tree_, name))
        assert getattr(a.tree_, name).dtype == getattr(b.tree_, name).dtype
    assert a.schema_ == b.schema_
    np.testing.assert_array_equal(a.classes_, b.classes_)
    assert a.n_features_in_ == b.n_features_in_
    assert hasattr(a, "feature_names_in_") == hasattr(b, "feature_names_in_")


def round_trip(model, tmp_path):
    path = tmp_path / "model.json"
    save_model(model, path)
    return load_model(path)


def raw_rows(data) -> pd.DataFrame:
    """The data set's rows as plain strings and floats, as a user would pass them."""
    return data.X.astype(object).where(data.X.notna(), None)


@pytest.mark.parametrize("name, params", [
    ("play_tennis", {"criterion": "entropy"}),
    ("iris", {}),
    ("iris", {"max_leaf_nodes": 4, "class_weight": "balanced"}),
    ("xor", {}),
])
def test_round_trip_bundled(tmp_path, name, params):
    data = datasets.load(name)
    model = DecisionTreeClassifier(**params).fit(data.X, data.y)
    loaded = round_trip(model, tmp_path)
    assert_same_model(model, loaded, data.X)
    assert_same_model(model, loaded, raw_rows(data))
    assert loaded.get_params() == model.get_params()
    assert loaded.score(data.X, data.y) == model.score(data.X, data.y)


def test_round_trip_string_categories_and_labels(tmp_path):
    data = datasets.load("play_tennis")
    model = DecisionTreeClassifier().fit(data.X, data.y)
    loaded = round_trip(model, tmp_path)
    rows = [["Sunny", "Cool", "High", "Strong"], ["Overcast", "Hot", "Normal", "Weak"]]
    frame = pd.DataFrame(rows, columns=["Outlook", "Temperature", "Humidity", "Wind"])
    assert list(loaded.predict(frame)) == list(model.predict(frame)) == ["No", "Yes"]


def test_round_trip_missing_values_and_inf_threshold(tmp_path):
    X = pd.DataFrame({
        "a": [1.0, 2.0, np.nan, 4.0, np.nan, 6.0, 7.0, np.nan],
        "b": [1.0, 2.0, 3.0, np.nan, np.nan, np.nan, 7.0, 8.0],
        "c": ["u", None, "v", "w", "u", "v", None, "w"],
    })
    y = ["p", "q", "p", "q", "q", "p", "q", "p"]
    model = DecisionTreeClassifier().fit(X, y)
    loaded = round_trip(model, tmp_path)
    assert_same_model(model, loaded, X)

    inf_model = DecisionTreeClassifier().fit(pd.DataFrame({"a": [1, 2, 3, None, None]},
                                                          dtype=float), [0, 0, 0, 1, 1])
    assert inf_model.tree_.threshold[0] == np.inf
    path = tmp_path / "inf.json"
    save_model(inf_model, path)

    def strict(token):
        raise AssertionError(f"non-standard JSON constant {token}")

    json.loads(path.read_text(), parse_constant=strict)  # strict JSON: no Infinity / NaN
    loaded = load_model(path)
    assert loaded.tree_.threshold[0] == np.inf
    test = pd.DataFrame({"a": [np.nan, 5.0, 1.0]})
    np.testing.assert_array_equal(loaded.predict(test), [1, 0, 0])


def test_document_layout(tmp_path):
    data = datasets.load("iris")
    model = DecisionTreeClassifier(max_depth=2, class_weight={"setosa": 2.0}).fit(data.X, data.y)
    path = tmp_path / "m.json"
    model.save(path)
    doc = json.loads(path.read_text())
    assert doc["format"] == "quercus-model"
    assert doc["format_version"] == 1
    assert doc["estimator"] == "DecisionTreeClassifier"
    assert isinstance(doc["quercus_version"], str)
    assert doc["has_feature_names"] is True
    assert doc["params"]["max_depth"] == 2
    assert doc["schema"] == model.schema_.to_json()
    assert doc["tree"]["n_classes"] == 3
    assert load_model(path).get_params() == model.get_params()


def test_params_keep_their_types(tmp_path):
    X = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [0.0, 0.0]])
    model = DecisionTreeClassifier(class_weight={0: 1.0, 1: 3.0}, categorical_features=(0,),
                                   min_samples_split=0.5).fit(X, [0, 1, 1, 0])
    loaded = round_trip(model, tmp_path)
    params = loaded.get_params()
    assert params["class_weight"] == {0: 1.0, 1: 3.0}
    assert params["categorical_features"] == [0]
    assert params["min_samples_split"] == 0.5
    assert not hasattr(loaded, "feature_names_in_")
    assert_same_model(model, loaded, X)


def test_unfitted_model_cannot_be_saved(tmp_path):
    with pytest.raises(NotFittedError):
        save_model(DecisionTreeClassifier(), tmp_path / "m.json")
    assert list(tmp_path.iterdir()) == []


@pytest.fixture()
def fitted():
    data = datasets.load("play_tennis")
    return DecisionTreeClassifier().fit(data.X, data.y)


@pytest.mark.parametrize("target, error", [
    ("model_writer.dumps_indented", RuntimeError("disk full")),
    ("atomic.os.replace", OSError(28, "No space left")),
])
def test_failed_write_leaves_old_file_and_no_temp(tmp_path, monkeypatch, fitted, target, error):
    path = tmp_path / "model.json"
    path.write_text("old contents")

    def fail(*args, **kwargs):
        raise error

    *owners, name = target.split(".")
    owner = quercus.export
    for part in owners:
        owner = getattr(owner, part)
    monkeypatch.setattr(owner, name, fail)
    with pytest.raises((RuntimeError, ModelFileError)):
        save_model(fitted, path)
    assert path.read_text() == "old contents"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.json"]


def test_failed_first_write_leaves_nothing(tmp_path, monkeypatch, fitted):
    monkeypatch.setattr(atomic.os, "fsync", lambda fd: (_ for _ in ()).throw(OSError(5, "I/O")))
    with pytest.raises(ModelFileError, match="model.json"):
        save_model(fitted, tmp_path / "model.json")
    assert list(tmp_path.iterdir()) == []


def test_write_into_missing_directory(tmp_path, fitted):
    with pytest.raises(ModelFileError, match="nowhere"):
        save_model(fitted, tmp_path / "nowhere" / "m.json")


def test_overwrite_replaces_file(tmp_path, fitted):
    path = tmp_path / "m.json"
    path.write_text("junk")
    save_model(fitted, path)
    assert load_model(path).get_n_leaves() == fitted.get_n_leaves()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.json"]


def _document(model) -> dict:
    return model_file.model_to_dict(model)


def _break(doc: dict, how: str) -> object:
    if how == "format":
        doc["format"] = "pickle"
    elif how == "version":
        doc["format_version"] = 2
    elif how == "no_tree":
        del doc["tree"]
    elif how == "short_kind":
        doc["tree"]["kind"] = doc["tree"]["kind"][:-1]
    elif how == "bad_child":
        doc["tree"]["child_ids"][0] = 0
    elif how == "n_classes":
        doc["tree"]["n_classes"] = 3
    elif how == "feature":
        doc["tree"]["feature"][0] = 17
    elif how == "schema":
        doc["schema"] = {"nonsense": True}
    elif how == "params":
        doc["params"]["colour"] = "green"
    elif how == "estimator":
        doc["estimator"] = "RandomForest"
    elif how == "list":
        return [doc]
    elif how == "string_array":
        doc["tree"]["value"][0] = "many"
    return doc


@pytest.mark.parametrize("how", ["format", "version", "no_tree", "short_kind", "bad_child",
                                 "n_classes", "feature", "schema", "params", "estimator",
                                 "list", "string_array"])
def test_malformed_documents(tmp_path, fitted, how):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(_break(_document(fitted), how)))
    with pytest.raises(ModelFileError) as info:
        load_model(path)
    message = str(info.value)
    assert "bad.json" in message and "\n" not in message


@pytest.mark.parametrize("content", ["", "{not json", "\xff\xfe garbage", "[1, 2"])
def test_invalid_json(tmp_path, content):
    path = tmp_path / "bad.json"
    path.write_bytes(content.encode("latin-1"))
    with pytest.raises(ModelFileError, match="bad.json"):
        load_model(path)


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(ModelFileError, match="absent.json"):
        load_model(tmp_path / "absent.json")
    with pytest.raises(ModelFileError):
        load_model(tmp_path)


# -- random data sets ----------------------------------------------------------------------
@st.composite
def small_data(draw):
    n = draw(st.integers(2, 30))
    numbers = st.one_of(st.none(), st.floats(-5, 5, allow_nan=False).map(lambda v: round(v, 1)))
    columns = {
        "x": draw(st.lists(numbers, min_size=n, max_size=n)),
        "z": draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)),
        "c": draw(st.lists(st.sampled_from(["red", "green", "blue", None]), min_size=n,
                           max_size=n)),
    }
    X = pd.DataFrame(columns).astype({"x": float, "z": float})
    if X["c"].isna().all():
        X.loc[0, "c"] = "red"
    y = draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n))
    params = draw(st.fixed_dictionaries({
        "criterion": st.sampled_from(["gini", "entropy"]),
        "max_depth": st.one_of(st.none(), st.integers(1, 4)),
        "min_samples_leaf": st.integers(1, 3),
    }))
    return X, y, params


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=small_data())
def test_round_trip_random(tmp_path, data):
    X, y, params = data
    model = DecisionTreeClassifier(**params).fit(X, y)
    path = tmp_path / "random.json"
    save_model(model, path)
    loaded = load_model(path)
    assert_same_model(model, loaded, X)
    assert loaded.get_params() == model.get_params()
    leftover = [p for p in os.listdir(tmp_path) if p != "random.json"]
    assert leftover == []


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=small_data(), laplace=st.booleans(), leaf=st.sampled_from([None, 1, 3]))
def test_round_trip_random_c45(tmp_path, data, laplace, leaf):
    """C4.5 trees: weighted missing-value routes (missing_branch -1) and empty leaves."""
    X, y, params = data
    model = DecisionTreeClassifier(algorithm="c45", max_depth=params["max_depth"],
                                   min_samples_leaf=leaf, laplace=laplace).fit(X, y)
    path = tmp_path / "random_c45.json"
    save_model(model, path)
    loaded = load_model(path)
    blank = pd.DataFrame({"x": [np.nan], "z": [np.nan], "c": [None]})
    rows = pd.concat([X, blank], ignore_index=True)
    assert_same_model(model, loaded, rows)
    assert loaded.get_params() == model.get_params()
