"""ONNX of rpart trees (onnxruntime): rows with every split's value present predict as the
model, cut values included; rows missing a value take the heavier child, as announced."""

from __future__ import annotations

import numpy as np
import pytest
from rpart_records_from_json import frame_and_target, model_from_fixture

from quercus.rpart_routing import SurrogatesDropped

ort = pytest.importorskip("onnxruntime", reason="onnxruntime is not installed")
pytest.importorskip("onnx", reason="onnx is not installed")

from quercus.export.onnx import to_onnx


def _run(model, X):
    with pytest.warns(SurrogatesDropped):
        onnx_model = to_onnx(model, inputs="encoded")
    session = ort.InferenceSession(onnx_model.SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    return session.run(None, {"X": model.schema_.encode(X)})


@pytest.mark.parametrize(("dataset", "fit"), [("kyphosis", "cp0"), ("iris", "default"),
                                              ("credit-g", "default")])
def test_complete_rows_and_cut_values_predict_as_the_model(dataset, fit):
    model = model_from_fixture(dataset, fit)
    X, _ = frame_and_target(dataset)
    rows = X.copy()
    numeric = [c for c in X.columns if X[c].dtype.kind == "f" or X[c].dtype.kind == "i"]
    if numeric:  # put some values exactly on the tree's cuts
        from quercus.rpart_routing import cut_of

        tree = model.tree_
        for node in np.flatnonzero(tree.kind == 1):
            column = model.schema_.feature_names[int(tree.feature[node])]
            rows = rows.astype({column: float})
            rows.loc[rows.index[node % len(rows)], column] = cut_of(tree.threshold[node])
    label, proba = _run(model, rows)
    assert label.tolist() == model.predict(rows).tolist()
    np.testing.assert_allclose(proba, model.predict_proba(rows), atol=1e-6)


def test_missing_values_take_the_heavier_child():
    model = model_from_fixture("vote", "default")
    X, _ = frame_and_target("vote")
    missing = X["physician-fee-freeze"].isna().to_numpy()
    label, _ = _run(model, X)
    assert label[~missing].tolist() == model.predict(X)[~missing].tolist()
    assert set(label[missing].tolist()) == {"democrat"}  # root: 256 rows left vs 178 right
