"""ONNX export (quercus.export.onnx): onnxruntime, running the exported file, gives the
model's labels and probabilities on every row, for every algorithm, including rows whose
missing values send them down every branch of C4.5 nodes."""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from export_cases import CASES, load

import quercus
from quercus import DecisionTreeClassifier
from quercus.errors import NotFittedError

onnx = pytest.importorskip("onnx", reason="the onnx package is not installed")
ort = pytest.importorskip("onnxruntime", reason="onnxruntime is not installed")

from quercus.export.onnx import to_onnx

COMMAND = Path(sys.executable).parent / "quercus"
ATOL = 1e-6  # probabilities come out as float32


def session(onnx_model):
    return ort.InferenceSession(onnx_model.SerializeToString(),
                                providers=["CPUExecutionProvider"])


def run(model, X, **options):
    rows = model.schema_.encode(X)
    if options.get("dtype") == "float":
        rows = rows.astype(np.float32)
    label, proba = session(to_onnx(model, inputs="encoded", **options)).run(None, {"X": rows})
    return label, proba


def expected_labels(model, X) -> list:
    """model.predict, with the ONNX stand-in for an unclassified row (see docs/export.md)."""
    predicted = model.predict(X).tolist()
    lost = model.predict_proba(X).sum(axis=1) == 0.0
    if model.algorithm != "interval":
        return predicted
    marker = -1 if isinstance(model.classes_[0], (int, np.integer)) else "unclassified"
    return [marker if gone else p for p, gone in zip(predicted, lost)]


def assert_matches(model, X, **options):
    label, proba = run(model, X, **options)
    assert label.tolist() == expected_labels(model, X)
    np.testing.assert_allclose(proba, model.predict_proba(X), rtol=0, atol=ATOL)




@pytest.mark.parametrize(("name", "algorithm"), CASES)
def test_onnxruntime_matches_the_model_on_held_out_rows(name, algorithm):
    X, y = load(name)
    rng = np.random.default_rng(0)
    test = rng.random(len(X)) < 0.3
    if name == "play_tennis":
        test[:] = True  # 14 rows: train and check on all of them
    train = ~test if test.sum() < len(X) else test
    model = DecisionTreeClassifier(algorithm=algorithm).fit(X[train], y[train])
    assert_matches(model, X[test])
    if name in ("vote", "soybean", "labor", "breast-cancer"):
        assert X[test].isna().to_numpy().any()  # the rows exercise missing values


@pytest.mark.parametrize("algorithm", ["id3", "c45", "cart"])
def test_every_combination_of_categories_and_missing_values(algorithm):
    """play_tennis: every row of categories or missing values (4 x 4 x 3 x 3), so that every
    node sees missing values, alone and nested (ID3 trains without them but predicts
    with them by C4.5's weighted descent)."""
    X, y = load("play_tennis")
    model = DecisionTreeClassifier(algorithm=algorithm).fit(X, y)
    books = [list(f.codebook.values) + [None] for f in model.schema_.features]
    rows = pd.DataFrame(list(itertools.product(*books)), columns=model.schema_.feature_names)
    assert_matches(model, rows)


def test_laplace_probabilities_and_uncorrected_labels():
    X, y = load("vote")
    model = DecisionTreeClassifier(algorithm="c45", laplace=True).fit(X, y)
    assert_matches(model, X)
    rows, reference, _ = damage(model, X)
    assert_raw_matches(model, rows, reference)  # two ensembles read the coded columns


def test_float_input_is_exact_for_float32_rows():
    X, y = load("iris")
    model = DecisionTreeClassifier(algorithm="cart").fit(X, y)
    rows = model.schema_.encode(X).astype(np.float32)
    rng = np.random.default_rng(1)
    near = np.float32(model.tree_.threshold[0]) + rng.integers(-3, 4, size=(60, 1)).astype(
        np.float32) * np.float32(1e-6)  # values around the root threshold, in float32
    rows = np.vstack([rows, np.repeat(rows[:60], 1, axis=0)])
    rows[-60:, model.tree_.feature[0]] = near[:, 0]
    label, proba = session(to_onnx(model, inputs="encoded", dtype="float")).run(
        None, {"X": rows})
    expected = model.tree_.predict_proba(rows)  # the model on the same float32 values
    np.testing.assert_allclose(proba, expected, rtol=0, atol=ATOL)
    assert label.tolist() == model.classes_[np.argmax(expected, axis=1)].tolist()


def test_integer_labels_and_zipmap():
    X, y = load("iris")
    codes = pd.Series(pd.factorize(y)[0] * 10 + 5)  # classes 5, 15, 25
    model = DecisionTreeClassifier(algorithm="c45").fit(X, codes)
    label, maps = session(to_onnx(model, inputs="encoded", zipmap=True)).run(
        None, {"X": model.schema_.encode(X)})
    assert label.dtype == np.int64
    assert label.tolist() == model.predict(X).tolist()
    expected = model.predict_proba(X)
    assert [sorted(m) for m in maps[:1]] == [[5, 15, 25]]
    got = np.array([[m[c] for c in (5, 15, 25)] for m in maps])
    np.testing.assert_allclose(got, expected, rtol=0, atol=ATOL)


def test_unclassified_rows_get_the_model_marker():
    X, y = load("iris")
    model = DecisionTreeClassifier(algorithm="interval").fit(X, y)
    rows = pd.concat([X, X * 100.0 + 1000.0], ignore_index=True)  # outside every interval
    lost = model.predict_proba(rows).sum(axis=1) == 0.0
    assert lost[len(X):].all() and not lost[:len(X)].any()
    label, _ = run(model, rows)
    assert set(label[len(X):].tolist()) == {"unclassified"}
    assert_matches(model, rows)
    numbered = DecisionTreeClassifier(algorithm="interval").fit(X, pd.factorize(y)[0])
    label, proba = run(numbered, rows)
    assert label[len(X):].tolist() == [-1] * len(X) == numbered.predict(rows)[len(X):].tolist()
    assert not proba[len(X):].any()


# -- raw rows: one input per column, categories as strings ---------------------------------
UNSEEN = "never seen in training"
RAW_CASES = CASES + [(name, "cart-hist") for name, algorithm in CASES if algorithm == "cart"]


def fit(algorithm: str, X, y):
    if algorithm == "cart-hist":
        return DecisionTreeClassifier(algorithm="cart", splitter="hist").fit(X, y)
    return DecisionTreeClassifier(algorithm=algorithm).fit(X, y)


def raw_feeds(model, X: pd.DataFrame, number=np.float64) -> dict:
    """The rows as a service in another language would send them: one [N, 1] tensor per
    feature, categories as their text ('' when missing), numbers with NaN when missing."""
    feeds = {}
    for spec in model.schema_.features:
        values = X[spec.name].astype(object).tolist()
        if spec.is_categorical:
            text = ["" if pd.isna(v) else str(v) for v in values]
            feeds[spec.name] = np.array(text, dtype=object).reshape(-1, 1)
        else:
            numbers = [np.nan if pd.isna(v) else float(v) for v in values]
            feeds[spec.name] = np.array(numbers, dtype=number).reshape(-1, 1)
    return feeds


def damage(model, X: pd.DataFrame, seed: int = 0):
    """(rows, reference): X with about 15% of its cells missing and 10% of its categorical
    cells a category the model never saw; the reference holds a missing value instead of
    each unseen category, and the cells where they are."""
    rng = np.random.default_rng(seed)
    raw, ref, unseen = {}, {}, {}
    for spec in model.schema_.features:
        column = X[spec.name].astype(object).to_numpy().copy()
        column[rng.random(len(X)) < 0.15] = None
        raw[spec.name], ref[spec.name] = column.copy(), column.copy()
        if spec.is_categorical:
            unseen[spec.name] = (rng.random(len(X)) < 0.1) & ~pd.isna(column)
            raw[spec.name][unseen[spec.name]] = UNSEEN
            ref[spec.name][unseen[spec.name]] = None
    return pd.DataFrame(raw), pd.DataFrame(ref), unseen


def assert_raw_matches(model, rows, reference, **options):
    label, proba = session(to_onnx(model, **options)).run(None, raw_feeds(model, rows))
    assert label.tolist() == expected_labels(model, reference)
    np.testing.assert_allclose(proba, model.predict_proba(reference), rtol=0, atol=ATOL)


@pytest.mark.parametrize(("name", "algorithm"), RAW_CASES)
def test_raw_rows_with_missing_values_and_unseen_categories(name, algorithm):
    X, y = load(name)
    train = np.random.default_rng(0).random(len(X)) >= 0.3
    if name == "play_tennis":
        train[:] = True
    model = fit(algorithm, X[train], y[train])
    rows, reference, unseen = damage(model, X)
    assert rows.isna().to_numpy().any()
    if model.schema_.categorical_mask.any():
        assert any(mask.any() for mask in unseen.values())
        with pytest.raises(quercus.DataError, match="unseen category"):
            model.predict(rows)  # the Python API refuses an unseen category ...
        # ... the tree sends a code outside a node's categories as it sends a missing value
        codes = model.schema_.encode(reference)
        for j, spec in enumerate(model.schema_.features):
            if spec.is_categorical:
                codes[unseen[spec.name], j] = spec.n_categories
        np.testing.assert_array_equal(model.tree_.predict_proba(codes, laplace=model.laplace),
                                      model.predict_proba(reference))
    assert_raw_matches(model, rows, reference)
    assert_raw_matches(model, X, X)  # the rows as they are


@pytest.mark.parametrize("algorithm", ["id3", "c45", "cart", "interval"])
def test_raw_rows_every_combination_of_categories(algorithm):
    """play_tennis: every row of categories, missing values and an unseen category
    (5 x 5 x 4 x 4); the unseen category gets the answer of a missing value."""
    X, y = load("play_tennis")
    model = DecisionTreeClassifier(algorithm=algorithm).fit(X, y)
    books = [[*f.codebook.values, None, UNSEEN] for f in model.schema_.features]
    rows = pd.DataFrame(list(itertools.product(*books)), columns=model.schema_.feature_names)
    assert_raw_matches(model, rows, rows.replace(UNSEEN, None))


def test_raw_inputs_are_named_and_typed_per_column():
    X, y = load("labor")
    model = DecisionTreeClassifier(algorithm="c45").fit(X, y)
    inputs = session(to_onnx(model)).get_inputs()
    assert [i.name for i in inputs] == model.schema_.feature_names
    assert [i.type for i in inputs] == ["tensor(string)" if spec.is_categorical
                                        else "tensor(double)" for spec in model.schema_.features]
    assert {tuple(i.shape) for i in inputs} == {("N", 1)}
    floats = session(to_onnx(model, dtype="float"))
    assert {i.type for i in floats.get_inputs()} == {"tensor(string)", "tensor(float)"}
    rounded = X.copy()  # the model on the float32 values the float graph receives
    for spec in model.schema_.features:
        if not spec.is_categorical:
            rounded[spec.name] = X[spec.name].astype(np.float32).astype(np.float64)
    label, proba = floats.run(None, raw_feeds(model, X, np.float32))
    assert label.tolist() == model.predict(rounded).tolist()
    np.testing.assert_allclose(proba, model.predict_proba(rounded), rtol=0, atol=ATOL)


def test_raw_float_inputs_and_zipmap():
    X, y = load("iris")
    model = DecisionTreeClassifier(algorithm="cart").fit(X, y)
    label, _ = session(to_onnx(model, dtype="float")).run(None, raw_feeds(model, X, np.float32))
    rounded = X.astype(np.float32).astype(np.float64)  # the model on the same float32 values
    assert label.tolist() == model.predict(rounded).tolist()
    label, maps = session(to_onnx(model, zipmap=True)).run(None, raw_feeds(model, X))
    assert label.tolist() == model.predict(X).tolist()
    got = np.array([[m[c] for c in model.classes_] for m in maps])
    np.testing.assert_allclose(got, model.predict_proba(X), rtol=0, atol=ATOL)


def test_integer_categories_are_strings():
    """A categorical column of integers is a string input: '7' and '7.0' are category 7,
    '8' (never seen) and '' are missing; bools are 'True'/'False' ('true' is unseen, as
    for predict), floats '2.5' and '3' or '3.0'."""
    X = pd.DataFrame({"code": [7, 7, 10, 10, 12, 12, 7, 10, 12, 12] * 3,
                      "size": np.arange(30.0)})
    y = np.array(["a", "a", "b", "b", "c", "c", "a", "b", "c", "a"] * 3)
    model = DecisionTreeClassifier(algorithm="c45", categorical_features=["code"],
                                   min_samples_leaf=1).fit(X, y)
    assert model.schema_.features[0].codebook.values == (7, 10, 12)
    feeds = {"code": np.array([["7"], ["7.0"], ["10"], ["12"], ["8"], [""]], dtype=object),
             "size": np.array([[0.0], [0.0], [5.0], [5.0], [5.0], [np.nan]])}
    reference = pd.DataFrame({"code": [7, 7, 10, 12, None, None],
                              "size": [0.0, 0.0, 5.0, 5.0, 5.0, np.nan]})
    label, proba = session(to_onnx(model)).run(None, feeds)
    assert label.tolist() == model.predict(reference).tolist()
    np.testing.assert_allclose(proba, model.predict_proba(reference), rtol=0, atol=ATOL)
    X = pd.DataFrame({"flag": [True, False] * 15, "rate": [2.5, 3.0, 4.0] * 10})
    y = np.where(X["flag"], "a", "b")
    y[::7] = "c"
    model = DecisionTreeClassifier(algorithm="c45", categorical_features=["rate"],
                                   min_samples_leaf=1).fit(X, y)
    assert [f.codebook.values for f in model.schema_.features] == [(False, True),
                                                                   (2.5, 3.0, 4.0)]
    feeds = {"flag": np.array([["True"], ["False"], ["true"], [""]], dtype=object),
             "rate": np.array([["2.5"], ["3"], ["3.0"], ["4"]], dtype=object)}
    reference = pd.DataFrame({"flag": [True, False, None, None], "rate": [2.5, 3.0, 3.0, 4.0]})
    label, proba = session(to_onnx(model)).run(None, feeds)
    assert label.tolist() == model.predict(reference).tolist()
    np.testing.assert_allclose(proba, model.predict_proba(reference), rtol=0, atol=ATOL)


def test_feature_names_that_clash_with_the_graph():
    rng = np.random.default_rng(3)
    X = pd.DataFrame({"X": rng.random(60), "class_index": rng.choice(["u", "v", "w"], 60),
                      "quercus_X": rng.random(60)})
    y = np.where((X["X"] > 0.5) ^ (X["class_index"] == "v"), "p", "q")
    model = DecisionTreeClassifier().fit(X, y)
    label, proba = session(to_onnx(model)).run(None, raw_feeds(model, X))
    assert label.tolist() == model.predict(X).tolist()
    np.testing.assert_allclose(proba, model.predict_proba(X), rtol=0, atol=ATOL)
    named = DecisionTreeClassifier().fit(X.rename(columns={"X": "label"}), y)
    with pytest.raises(ValueError, match="feature 'label' cannot be an input"):
        to_onnx(named)
    to_onnx(named, inputs="encoded")  # the matrix input has no such limit


def test_too_large_an_ensemble_is_refused():
    X, y = load("soybean")
    model = DecisionTreeClassifier(algorithm="c45").fit(X, y)
    with pytest.raises(ValueError, match="max_nodes=1000"):
        to_onnx(model, max_nodes=1000)


def test_bad_arguments():
    with pytest.raises(NotFittedError):
        to_onnx(DecisionTreeClassifier())
    X, y = load("iris")
    model = DecisionTreeClassifier().fit(X, y)
    with pytest.raises(ValueError, match="dtype"):
        to_onnx(model, dtype="int")
    with pytest.raises(ValueError, match="unknown inputs 'rows'"):
        to_onnx(model, inputs="rows")


def test_cli_export_onnx(tmp_path):
    X, y = load("vote")
    model = DecisionTreeClassifier(algorithm="c45").fit(X, y)
    model_file, out = tmp_path / "vote.json", tmp_path / "vote.onnx"
    model.save(model_file)
    result = subprocess.run([str(COMMAND), "export", str(model_file), "--format", "onnx",
                             "--out", str(out)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    loaded = ort.InferenceSession(out.read_bytes(), providers=["CPUExecutionProvider"])
    label, proba = loaded.run(None, raw_feeds(model, X))  # raw rows by default
    assert label.tolist() == model.predict(X).tolist()
    np.testing.assert_allclose(proba, model.predict_proba(X), rtol=0, atol=ATOL)
    encoded = tmp_path / "encoded.onnx"
    result = subprocess.run([str(COMMAND), "export", str(model_file), "--format", "onnx",
                             "--onnx-inputs", "encoded", "--out", str(encoded)],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    loaded = ort.InferenceSession(encoded.read_bytes(), providers=["CPUExecutionProvider"])
    label, proba = loaded.run(None, {"X": model.schema_.encode(X)})
    assert label.tolist() == model.predict(X).tolist()
    np.testing.assert_allclose(proba, model.predict_proba(X), rtol=0, atol=ATOL)
    for extra, message in ((["--out", str(tmp_path / "big.onnx"), "--max-nodes", "10"],
                            "max_nodes=10"), ([], "give --out FILE"),
                           (["--onnx-inputs", "matrix"], "invalid choice: 'matrix'")):
        result = subprocess.run([str(COMMAND), "export", str(model_file), "--format", "onnx",
                                 *extra], capture_output=True, text=True, check=False)
        assert result.returncode == 2
        assert result.stderr.startswith("quercus: error: ") and message in result.stderr
        assert result.stderr.count("\n") == 1
    assert not (tmp_path / "big.onnx").exists()
    result = subprocess.run([str(COMMAND), "export", str(model_file), "--format", "python",
                             "--onnx-inputs", "raw"], capture_output=True, text=True, check=False)
    assert result.returncode == 2
    assert result.stderr == "quercus: error: --onnx-inputs applies to --format onnx, not python\n"
    assert quercus.load_model(model_file).predict(X[:3]).tolist() == model.predict(X[:3]).tolist()
