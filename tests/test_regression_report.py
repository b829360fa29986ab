"""The HTML report of a regression tree: node details with means, and given rows RMSE, MAE,
R² (checked against scikit-learn's metrics) and a predicted-vs-actual plot."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import quercus
from quercus import DecisionTreeRegressor, cli
from quercus.report import report_html

BUNDLED = Path(quercus.__file__).parent / "data" / "bundled"


@pytest.fixture(scope="module")
def fitted():
    X = pd.read_csv(BUNDLED / "airquality.csv")
    y = X.pop("Ozone")
    return DecisionTreeRegressor(max_depth=2).fit(X, y), X, y


def test_tree_and_node_details_without_data(fitted):
    model, _, _ = fitted
    page = report_html(model)
    assert "No data was given, so the report shows the tree and the node details only" in page
    assert 'id="rmse"' not in page and "<svg" not in page
    root = re.search(r'<div class="row" id="node-0"[^>]*>', page).group(0)
    # R: mean(airquality$Ozone, na.rm = TRUE) = 42.12931 over 116 rows
    assert 'data-class="42.1"' in root and 'data-samples="116"' in root
    assert 'data-distribution="mean 42.1293, sd ' in root
    leaves = re.findall(r'<span class="leaf-class">&rarr; ([^<]+)</span>', page)
    assert leaves == ["142", "23.6", "63", "90.1"]  # docs/regression.md's text tree
    assert '"Predicted value (mean)"' in page and '"Predicted class"' not in page


def test_evaluation_and_plot(fitted):
    metrics = pytest.importorskip("sklearn.metrics")
    model, X, y = fitted
    page = report_html(model, X, y, data_name="airquality.csv")
    known = y.notna().to_numpy()
    predicted = model.predict(X[known])
    rmse = np.sqrt(metrics.mean_squared_error(y[known], predicted))
    mae = metrics.mean_absolute_error(y[known], predicted)
    r2 = metrics.r2_score(y[known], predicted)
    assert float(re.search(r'id="rmse">([^<]+)<', page).group(1)) == pytest.approx(rmse, 1e-3)
    assert float(re.search(r'id="mae">([^<]+)<', page).group(1)) == pytest.approx(mae, 1e-3)
    assert re.search(r'id="r2">([^<]+)<', page).group(1) == f"{r2:.4f}" == "0.7514"
    assert "116 rows with a known target" in page
    plot = re.search(r'<svg[^>]*id="predicted-vs-actual".*?</svg>', page).group(0)
    assert plot.count("<circle") == 116


def test_cli_report(tmp_path, capsys):
    data = str(BUNDLED / "airquality.csv")
    model_file, out = tmp_path / "ozone.json", tmp_path / "ozone.html"
    assert cli.main(["train", data, "--target", "Ozone", "--max-depth", "3",
                     "--out", str(model_file)]) == 0
    assert cli.main(["report", str(model_file), data, "--out", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert 'id="predicted-vs-actual"' in page and 'id="r2"' in page
