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
    label, proba = session(to_onnx(model, **options)).run(None, {"X": rows})
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


def test_float_input_is_exact_for_float32_rows():
    X, y = load("iris")
    model = DecisionTreeClassifier(algorithm="cart").fit(X, y)
    rows = model.schema_.encode(X).astype(np.float32)
    rng = np.random.default_rng(1)
    near = np.float32(model.tree_.threshold[0]) + rng.integers(-3, 4, size=(60, 1)).astype(
        np.float32) * np.float32(1e-6)  # values around the root threshold, in float32
    rows = np.vstack([rows, np.repeat(rows[:60], 1, axis=0)])
    rows[-60:, model.tree_.feature[0]] = near[:, 0]
    label, proba = session(to_onnx(model, dtype="float")).run(None, {"X": rows})
    expected = model.tree_.predict_proba(rows)  # the model on the same float32 values
    np.testing.assert_allclose(proba, expected, rtol=0, atol=ATOL)
    assert label.tolist() == model.classes_[np.argmax(expected, axis=1)].tolist()


def test_integer_labels_and_zipmap():
    X, y = load("iris")
    codes = pd.Series(pd.factorize(y)[0] * 10 + 5)  # classes 5, 15, 25
    model = DecisionTreeClassifier(algorithm="c45").fit(X, codes)
    label, maps = session(to_onnx(model, zipmap=True)).run(None, {"X": model.schema_.encode(X)})
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


def test_cli_export_onnx(tmp_path):
    X, y = load("vote")
    model = DecisionTreeClassifier(algorithm="c45").fit(X, y)
    model_file, out = tmp_path / "vote.json", tmp_path / "vote.onnx"
    model.save(model_file)
    result = subprocess.run([str(COMMAND), "export", str(model_file), "--format", "onnx",
                             "--out", str(out)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    loaded = ort.InferenceSession(out.read_bytes(), providers=["CPUExecutionProvider"])
    label, proba = loaded.run(None, {"X": model.schema_.encode(X)})
    assert label.tolist() == model.predict(X).tolist()
    np.testing.assert_allclose(proba, model.predict_proba(X), rtol=0, atol=ATOL)
    for extra, message in ((["--out", str(tmp_path / "big.onnx"), "--max-nodes", "10"],
                            "max_nodes=10"), ([], "give --out FILE")):
        result = subprocess.run([str(COMMAND), "export", str(model_file), "--format", "onnx",
                                 *extra], capture_output=True, text=True, check=False)
        assert result.returncode == 2
        assert result.stderr.startswith("quercus: error: ") and message in result.stderr
        assert result.stderr.count("\n") == 1
    assert not (tmp_path / "big.onnx").exists()
    assert quercus.load_model(model_file).predict(X[:3]).tolist() == model.predict(X[:3]).tolist()
