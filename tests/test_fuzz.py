"""Fuzz tests: readers, model files and the learners on generated input.

Every input either gives a result or raises a ``QuercusError`` (``DataError`` or
``ModelFileError``); any other exception, a hang or a crash is a bug. For fitted models the
results are checked too: probability rows sum to 1 (0 for a class-interval row that fits no
branch), predictions are classes, and a saved and loaded model predicts identically.

The default hypothesis profile (``fuzz-ci``, tests/conftest.py) runs 25 examples per test;
``QUERCUS_FUZZ=long .venv/bin/python -m pytest -q tests/test_fuzz.py`` runs 2,000.
Crashes the long run found are kept as ``@example`` cases (named in the comments).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import quercus
from quercus import DecisionTreeClassifier, QuercusError
from quercus.data import read_arff, read_csv
from quercus.export.interval_xml import tree_to_xml
from quercus.export.model_file import model_to_dict

FUZZ = settings(parent=settings.get_profile(
    "fuzz-long" if os.environ.get("QUERCUS_FUZZ") == "long" else "fuzz-ci"))
ALGORITHMS = ["cart", "id3", "c45", "interval"]
ARFF = Path(__file__).parent / "data" / "arff"


def _file(text: str | bytes, suffix: str) -> Path:
    """Write text (UTF-8) or bytes to a fresh temporary file."""
    folder = Path(tempfile.mkdtemp(prefix="quercus-fuzz-"))
    path = folder / f"input{suffix}"
    if isinstance(text, str):
        path.write_text(text, encoding="utf-8", newline="")
    else:
        path.write_bytes(text)
    return path


def _outcome(call):
    """The call's result, or None when it raised a QuercusError (anything else propagates)."""
    try:
        return call()
    except QuercusError:
        return None


# -- CSV ------------------------------------------------------------------------------------
_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
_CELL = st.one_of(
    st.sampled_from(["", "?", "nan", "NaN", "inf", "-inf", "1e400", " ", "a", "b", "é", "東京"]),
    st.integers(-5, 5).map(str),
    st.floats(allow_nan=False, allow_infinity=False, width=32).map(repr),
    _TEXT,
)


@st.composite
def csv_texts(draw):
    """CSV text: random delimiter, header, quoting, ragged rows, missing markers, BOM."""
    delimiter = draw(st.sampled_from([",", ";", "\t", "|"]))
    n_cols = draw(st.integers(1, 4))
    names = draw(st.lists(st.one_of(st.sampled_from(["a", "b", "y", "größe"]), _TEXT),
                          min_size=n_cols, max_size=n_cols))
    rows = draw(st.lists(st.lists(_CELL, min_size=max(n_cols - 1, 0), max_size=n_cols + 1),
                         max_size=8))

    def field(text: str) -> str:
        if draw(st.booleans()) or any(c in text for c in f'"\n\r{delimiter}'):
            return '"' + text.replace('"', '""') + '"'
        return text

    lines = [delimiter.join(field(t) for t in row) for row in [names, *rows]]
    bom = "\ufeff" if draw(st.booleans()) else ""
    return bom + "\n".join(lines) + draw(st.sampled_from(["", "\n", "\r\n"]))


def _check_dataset(data) -> None:
    X, y, schema = data
    assert list(X.columns) == schema.feature_names
    assert not any(name.startswith("\ufeff") for name in schema.feature_names)
    for spec in schema.features:
        if not spec.is_categorical:
            assert not np.isinf(X[spec.name].to_numpy(dtype=float)).any()
    if y is not None and len(schema.classes) > 0 and len(X.columns):
        model = _outcome(lambda: DecisionTreeClassifier(max_depth=3).fit(X, y))
        if model is not None:
            assert set(model.predict(X)) <= set(model.classes_)


@FUZZ
@given(text=csv_texts(), target=st.sampled_from([None, "y", "a"]))
@example(text="a,y\ninf,x\n1,z\n", target="y")  # infinity hung CART: now a DataError
@example(text="a;b;y\n1;2;x\n", target="y")  # semicolons: detected
def test_csv_reader_gives_a_dataset_or_a_data_error(text, target):
    path = _file(text, ".csv")
    data = _outcome(lambda: read_csv(path, target))
    if data is not None:
        _check_dataset(data)


@FUZZ
@given(raw=st.binary(max_size=200))
def test_csv_reader_on_random_bytes(raw):
    path = _file(raw, ".csv")
    data = _outcome(lambda: read_csv(path))
    if data is not None:
        _check_dataset(data)


# -- ARFF -----------------------------------------------------------------------------------
_ARFF_LINES = st.sampled_from([
    "@relation r", "@attribute a numeric", "@attribute b {x, y, 'z w'}", "@attribute s string",
    "@attribute c {x,", "@attribute d date", "@attribute", "@data", "% comment",
    "1, x, 'q', x", "?, ?, ?, ?", "{0 1, 1 y}", "{9 1}", "'unterminated, x", "1,2", "inf, x, s, y",
    "1, 'x', \"s\\\"\", x, {2}", "@attribute 'q\\'n' real", "@ATTRIBUTE e INTEGER",
])


@st.composite
def arff_texts(draw):
    """A valid ARFF file with random lines inserted, deleted or replaced."""
    lines = ["@relation fuzz", "@attribute a numeric", "@attribute b {x, y}",
             "@attribute s string", "@attribute class {p, q}", "@data",
             *draw(st.lists(st.tuples(st.sampled_from(["1", "-2.5", "?", "inf", "1e3", "x"]),
                                      st.sampled_from(["x", "y", "?", "'x'", "z"]),
                                      st.sampled_from(["'s t'", "u", "?", "\"v\""]),
                                      st.sampled_from(["p", "q", "?"])).map(", ".join),
                            max_size=8))]
    for _ in range(draw(st.integers(0, 3))):
        where = draw(st.integers(0, len(lines)))
        action = draw(st.sampled_from(["insert", "delete", "replace", "cut"]))
        new = draw(st.one_of(_ARFF_LINES, _TEXT))
        if action == "insert":
            lines.insert(where, new)
        elif lines and where < len(lines):
            if action == "delete":
                del lines[where]
            elif action == "replace":
                lines[where] = new
            else:
                lines[where] = lines[where][: draw(st.integers(0, len(lines[where])))]
    return "\n".join(lines) + "\n"


@FUZZ
@given(text=arff_texts())
@example(text="@relation r\n@attribute a numeric\n@attribute c {p,q}\n@data\ninf,p\n1,q\n")
def test_arff_reader_gives_a_dataset_or_a_data_error(text):
    path = _file(text, ".arff")
    data = _outcome(lambda: read_arff(path))
    if data is not None:
        _check_dataset(data)


@FUZZ
@given(raw=st.binary(max_size=300))
def test_arff_reader_on_random_bytes(raw):
    path = _file(b"@relation r\n@attribute a numeric\n@attribute c {p,q}\n@data\n" + raw,
                 ".arff")
    data = _outcome(lambda: read_arff(path))
    if data is not None:
        _check_dataset(data)


# -- model files ------------------------------------------------------------------------------
def _fitted(algorithm: str):
    if algorithm == "interval":
        X, y, _ = quercus.datasets.load("iris")
        return DecisionTreeClassifier(algorithm="interval").fit(X, y), X
    data = read_arff(ARFF / ("labor.arff" if algorithm != "id3" else "contact-lenses.arff"))
    return DecisionTreeClassifier(algorithm=algorithm).fit(data.X, data.y), data.X


_MODELS: dict[str, tuple] = {}


def model_and_rows(algorithm: str):
    if algorithm not in _MODELS:
        _MODELS[algorithm] = _fitted(algorithm)
    return _MODELS[algorithm]


_JSON_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-3, 10**6), st.floats(),
                         st.text(max_size=5), st.just([]), st.just({}), st.just([1, "x"]),
                         st.just([[0.5]]), st.just("inf"), st.just(-1))


def _paths(value, prefix=()):
    """Every (path to a value) in a JSON document, lists sampled to keep it small."""
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index in sorted({0, len(value) // 2, len(value) - 1}):
            if 0 <= index < len(value):
                yield from _paths(value[index], (*prefix, index))


_DELETE = "<delete>"


def _edited(algorithm: str, edits) -> dict:
    """The model document of ``model_and_rows(algorithm)`` with the edits applied in order:
    each ``(path, value)`` replaces the value at ``path`` (``_DELETE`` deletes it)."""
    document = json.loads(json.dumps(model_to_dict(model_and_rows(algorithm)[0])))
    for path, value in edits:
        parent = document
        for step in path[:-1]:
            parent = parent[step]
        if value == _DELETE:
            del parent[path[-1]]
        else:
            parent[path[-1]] = json.loads(json.dumps(value))  # a fresh copy
    return document


@st.composite
def mutated_documents(draw):
    """Edits of a valid model document: 1-3 mutations, a key or item deleted or a value
    replaced, as ``(algorithm, [(path, value or _DELETE), ...])``."""
    algorithm = draw(st.sampled_from(ALGORITHMS))
    edits = []
    for _ in range(draw(st.integers(1, 3))):
        document = _edited(algorithm, edits)
        path = draw(st.sampled_from(list(_paths(document))[1:]))
        edits.append((path, _DELETE if draw(st.booleans()) else draw(_JSON_VALUES)))
    return algorithm, edits


def _check_loaded(model, rows) -> None:
    """A loaded (possibly edited) model predicts or raises a QuercusError."""
    proba = _outcome(lambda: model.predict_proba(rows))
    if proba is not None:
        assert proba.shape == (len(rows), len(model.classes_))
    _outcome(lambda: model.predict(rows))


@FUZZ
@given(case=mutated_documents())
# found by the long run (issue 17): a CART leaf naming feature 16 of a 16-feature model
# loaded, then predict raised a bare ValueError; now the loader refuses it
@example(case=("cart", [(("tree", "feature", 8), 16)]))
def test_edited_model_files_load_or_raise_model_file_error(case):
    algorithm, edits = case
    path = _file(json.dumps(_edited(algorithm, edits)), ".json")
    model = _outcome(lambda: quercus.load_model(path))
    if model is not None:
        _check_loaded(model, model_and_rows(algorithm)[1])


@FUZZ
@given(algorithm=st.sampled_from(ALGORITHMS), cut=st.floats(0, 1), junk=st.binary(max_size=8))
# found by the long run: the whole file plus a tab is the same JSON document, and loads
@example(algorithm="cart", cut=1.0, junk=b"\t")
def test_truncated_model_files_raise_model_file_error(algorithm, cut, junk):
    text = json.dumps(model_to_dict(model_and_rows(algorithm)[0]))
    data = text.encode()[: int(len(text) * cut)] + junk
    path = _file(data, ".json")
    model = _outcome(lambda: quercus.load_model(path))
    if model is not None:  # only the untouched document (give or take whitespace) may load
        assert json.loads(data) == json.loads(text)
        rows = model_and_rows(algorithm)[1]
        np.testing.assert_array_equal(model.predict_proba(rows),
                                      model_and_rows(algorithm)[0].predict_proba(rows))


@st.composite
def xml_texts(draw):
    """A seed-format XML tree, with attribute values, text and cuts mutated."""
    model, _ = model_and_rows("interval")
    text = tree_to_xml(model)
    for _ in range(draw(st.integers(1, 3))):
        action = draw(st.sampled_from(["value", "cut", "insert"]))
        if action == "value":
            key = draw(st.sampled_from(['Class="', 'Min="', 'Max="', 'Property="', 'Gini="']))
            at = text.find(key, draw(st.integers(0, len(text))))
            end = text.find('"', at + len(key)) if at >= 0 else -1
            if end >= 0:
                value = draw(st.one_of(st.sampled_from(["inf", "nan", "-1", "1e9", "", "0.5",
                                                        "1,5", "x", "999999"]), _TEXT))
                text = text[: at + len(key)] + value.replace('"', "") + text[end:]
        elif action == "cut":
            text = text[: draw(st.integers(0, len(text)))]
        else:
            at = draw(st.integers(0, len(text)))
            text = text[:at] + draw(st.sampled_from(["<Branch>", "</Branch>", "&amp;", "<!--x-->",
                                                     "<!DOCTYPE x>", "<Branch Class='0'/>",
                                                     "&lol;", "]]>"])) + text[at:]
    return text


@FUZZ
@given(text=xml_texts())
def test_edited_xml_model_files_load_or_raise_model_file_error(text):
    path = _file(text, ".xml")
    model = _outcome(lambda: quercus.load_model(path))
    if model is not None:
        rows = np.asarray(model_and_rows("interval")[1])[:, :1].repeat(model.n_features_in_, 1)
        _check_loaded(model, rows)


# -- fit / predict on random small data sets -------------------------------------------------
@st.composite
def datasets(draw):
    """A small frame of numeric and categorical columns with missing values, labels of 1-4
    classes (some missing) and optional weights."""
    n_rows = draw(st.integers(1, 30))
    n_cols = draw(st.integers(1, 4))
    columns = {}
    for j in range(n_cols):
        if draw(st.booleans()):
            values = draw(st.lists(st.one_of(st.floats(-5, 5, width=32), st.integers(-3, 3),
                                             st.just(np.nan)), min_size=n_rows, max_size=n_rows))
            columns[f"n{j}"] = np.array(values, dtype=float)
        else:
            values = draw(st.lists(st.sampled_from(["a", "b", "c", "東", None]),
                                   min_size=n_rows, max_size=n_rows))
            columns[f"c{j}"] = pd.Categorical(values)
    X = pd.DataFrame(columns)
    n_classes = draw(st.integers(1, 4))
    y = draw(st.lists(st.one_of(st.integers(0, n_classes - 1).map("k{}".format), st.none()),
                      min_size=n_rows, max_size=n_rows))
    weights = draw(st.one_of(st.none(), st.lists(st.floats(0, 5), min_size=n_rows,
                                                 max_size=n_rows)))
    return X, pd.Series(y, dtype=object), None if weights is None else np.array(weights)


def _check_model(model, X) -> None:
    proba = model.predict_proba(X)
    sums = proba.sum(axis=1)
    if model.algorithm == "interval":
        assert np.all(np.isclose(sums, 1.0) | (sums == 0.0))
    else:
        assert np.allclose(sums, 1.0)
    predicted = model.predict(X)
    known = [p for p, s in zip(predicted, sums) if s > 0]
    assert set(known) <= set(model.classes_)
    path = _file("", ".json")
    model.save(path)
    again = quercus.load_model(path)
    np.testing.assert_array_equal(again.predict_proba(X), proba)
    np.testing.assert_array_equal(again.predict(X), predicted)


@FUZZ
@given(data=datasets(), algorithm=st.sampled_from(ALGORITHMS),
       max_depth=st.sampled_from([None, 1, 3]))
@example(  # found by the long run: a subnormal total weight made CART's Gini divide by 0
    data=(pd.DataFrame({"c0": pd.Categorical(["a", "b"])}), pd.Series([None, "k0"]),
          np.array([0.0, 5e-324])), algorithm="cart", max_depth=None)
def test_fit_predict_and_round_trip_on_random_data(data, algorithm, max_depth):
    X, y, weights = data
    model = DecisionTreeClassifier(algorithm=algorithm, max_depth=max_depth)
    fitted = _outcome(lambda: model.fit(X, y, sample_weight=weights))
    if fitted is not None:
        _check_model(fitted, X)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_fuzz_profile_runs_fit_on_every_algorithm(algorithm):
    """The strategies do reach fitting (a guard against a fuzz test that checks nothing)."""
    X = pd.DataFrame({"c": pd.Categorical(["a", "b", "a", "b"])})
    model = DecisionTreeClassifier(algorithm=algorithm).fit(X, ["p", "q", "p", "q"])
    _check_model(model, X)
