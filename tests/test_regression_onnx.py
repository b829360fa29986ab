"""ONNX export of regression trees: onnxruntime's TreeEnsembleRegressor gives ``predict``'s
numbers (as float32) on rows with missing values and categorical columns."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import quercus
from quercus import DecisionTreeRegressor, cli
from quercus.tree import CATEGORICAL, LEAF

onnx = pytest.importorskip("onnx", reason="the onnx package is not installed")
ort = pytest.importorskip("onnxruntime", reason="onnxruntime is not installed")

from quercus.export.onnx import to_onnx

BUNDLED = Path(quercus.__file__).parent / "data" / "bundled"
MONTHS = {5: "May", 6: "Jun", 7: "Jul", 8: "Aug", 9: "Sep"}


def session(onnx_model):
    return ort.InferenceSession(onnx_model.SerializeToString(),
                                providers=["CPUExecutionProvider"])


def raw_feeds(X: pd.DataFrame, dtype=np.float64) -> dict:
    feeds = {}
    for column in X.columns:
        if X[column].dtype == object:  # a missing category: any unknown string, "" here
            feeds[column] = X[[column]].fillna("").astype(str).to_numpy(object)
        else:
            feeds[column] = X[[column]].to_numpy(dtype)
    return feeds


@pytest.fixture(scope="module")
def airquality():
    frame = pd.read_csv(BUNDLED / "airquality.csv")  # NAs in Ozone and Solar.R
    frame["Month"] = frame["Month"].map(MONTHS).astype(object)
    frame.loc[frame.index % 17 == 3, "Month"] = None  # missing categories too
    y = frame.pop("Ozone")
    return frame, y


@pytest.fixture(scope="module")
def model(airquality):
    X, y = airquality
    model = DecisionTreeRegressor(max_depth=6, min_samples_leaf=2).fit(X, y)
    tree = model.tree_
    inner = tree.kind != LEAF
    assert np.any(tree.kind[inner] == CATEGORICAL), "the test needs a split on Month"
    names = [model.schema_.features[j].name for j in tree.feature[inner]]
    assert "Solar.R" in names, "the test needs a split on Solar.R, which has NAs"
    return model


def test_raw_inputs_equal_predict(model, airquality):
    X, _ = airquality
    graph = to_onnx(model)
    assert [n.op_type for n in graph.graph.node if n.domain == "ai.onnx.ml"].count(
        "TreeEnsembleRegressor") == 1
    (predicted,) = session(graph).run(None, raw_feeds(X))
    assert predicted.shape == (len(X), 1)
    np.testing.assert_array_equal(predicted[:, 0], model.predict(X).astype(np.float32))
    assert X.isna().any(axis=1).sum() >= 10  # R: 7 NAs in Solar.R, and 9 blanked months


@pytest.mark.parametrize("dtype", ["double", "float"])
def test_encoded_inputs_equal_predict(model, airquality, dtype):
    X, _ = airquality
    rows = model.schema_.encode(X)
    rows = rows.astype(np.float32) if dtype == "float" else rows
    (predicted,) = session(to_onnx(model, inputs="encoded", dtype=dtype)).run(None, {"X": rows})
    np.testing.assert_array_equal(predicted[:, 0], model.predict(X).astype(np.float32))


def test_feature_named_like_the_output_is_refused():
    X = pd.DataFrame({"prediction": [1.0, 2.0, 3.0, 4.0]})
    model = DecisionTreeRegressor(max_depth=1).fit(X, [1.0, 2.0, 8.0, 9.0])
    with pytest.raises(ValueError, match="'prediction' cannot be an input"):
        to_onnx(model)
    (predicted,) = session(to_onnx(model, inputs="encoded")).run(None, {"X": X.to_numpy()})
    assert predicted[:, 0].tolist() == [1.5, 1.5, 8.5, 8.5]  # the leaf means, by hand


def test_cli_export_onnx(tmp_path, capsys):
    data = str(BUNDLED / "airquality.csv")
    model_file, out = tmp_path / "ozone.json", tmp_path / "ozone.onnx"
    assert cli.main(["train", data, "--target", "Ozone", "--max-depth", "3",
                     "--out", str(model_file)]) == 0
    assert cli.main(["export", str(model_file), "--format", "onnx", "--out", str(out)]) == 0
    model = quercus.load_model(model_file)
    X = pd.read_csv(data).drop(columns="Ozone")
    sess = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    (predicted,) = sess.run(None, raw_feeds(X))
    np.testing.assert_array_equal(predicted[:, 0], model.predict(X).astype(np.float32))
