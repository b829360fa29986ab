"""Regression trees on a Dask cluster (quercus.dask): the model file of the one-machine
``splitter="hist"`` fit for any partitioning, thanks to exact target sums; clear refusals;
Dask predict; the CLI.

One LocalCluster of 2 worker processes (``client``, tests/conftest.py) serves these tests.
The reference is always the single-machine fit on the same rows; the exact sums themselves
are checked against ``fractions.Fraction`` (Python's correctly rounded rational
arithmetic).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

distributed = pytest.importorskip("distributed")
dd = pytest.importorskip("dask.dataframe")
da = pytest.importorskip("dask.array")
pytest.importorskip("pyarrow")

from test_dask import _model_bytes, _split

from quercus import DecisionTreeRegressor, load_model
from quercus.errors import DataError
from quercus.splitting.exact_sums import layout_of


def _data(n=1200, seed=0):
    """Numeric with NaN, a feature of repeated values, a text column with missing cells,
    a target of full-mantissa floats over a wide range with some missing values."""
    rng = np.random.default_rng(seed)
    a = rng.normal(size=n)
    b = np.round(rng.normal(size=n), 1)
    c = rng.choice(["red", "green", "blue", "grey", None], n)
    y = (np.exp(2 * a) + 3.0 * (c == "red") - 2.0 * (c == "blue") + 0.7 * b
         + rng.normal(0, 0.3, n)) * 1e3 / 7.0
    a[rng.random(n) < 0.05] = np.nan
    y[rng.random(n) < 0.02] = np.nan
    X = pd.DataFrame({"a": a, "b": b, "c": pd.Series(c, dtype=object)})
    return X, pd.Series(y, name="y")


def test_exact_sums_are_correctly_rounded():
    """Limb sums rounded once equal the exact rational sum rounded (ties to even too)."""
    rng = np.random.default_rng(3)
    cases = [np.array([2.0 ** 53, 1.0, 1.0]), np.array([2.0 ** 53, 1.0]),  # ties
             np.array([1e16, 1.0, -1e16]), np.array([0.1] * 10), np.zeros(4)]
    for scale in (-8, 0, 5):
        cases.append(rng.normal(size=300) * 10.0 ** scale)
    for y in cases:
        w = np.ones(y.shape[0])
        layout = layout_of(y, w)
        sums = layout.round(layout.row_limbs(y, w).sum(axis=0))
        for got, values in zip(sums, (w, y, y * y)):
            assert got == float(sum(map(Fraction, values)))
        order = rng.permutation(y.shape[0])  # any order, any grouping: the same integers
        limbs = layout.row_limbs(y[order], w)
        halves = limbs[: len(y) // 2].sum(axis=0) + limbs[len(y) // 2:].sum(axis=0)
        np.testing.assert_array_equal(layout.round(halves), sums)
    naive = (2.0 ** 53 + 1.0) + 1.0  # what float addition in this order gives
    assert naive != float(sum(map(Fraction, cases[0])))  # so the first case has teeth


ONE, THREE, EIGHT, EMPTY = [1200], [400, 500, 300], [150] * 8, [700, 0, 500]


@pytest.mark.parametrize(("params", "partitionings"), [
    ({"max_depth": 5}, [ONE, THREE, EIGHT, EMPTY]),
    ({"max_depth": None, "min_samples_leaf": 5}, [EIGHT]),
    ({"max_depth": 7, "criterion": "friedman_mse", "min_impurity_decrease": 50.0}, [THREE]),
    ({"max_depth": 6, "ccp_alpha": 20.0, "min_weight_fraction_leaf": 0.02}, [EMPTY]),
    ({"max_leaf_nodes": 12}, [THREE, EIGHT]),
])
def test_same_model_file_as_one_machine(client, tmp_path, params, partitionings):
    X, y = _data()
    local = DecisionTreeRegressor(splitter="hist", **params).fit(X, y)
    reference = _model_bytes(local, tmp_path, "local")
    for sizes in partitionings:
        est = DecisionTreeRegressor(splitter="hist", **params).fit(*_split(X, y, sizes))
        assert _model_bytes(est, tmp_path, "dask") == reference, sizes


def test_subtrees_grown_apart_and_a_dask_array(client, tmp_path):
    from quercus.dask import fit as dask_fit

    X, y = _data(n=900, seed=4)
    Xn = X[["a", "b"]].to_numpy()
    yn = y.to_numpy()
    local = DecisionTreeRegressor(splitter="hist", max_depth=9).fit(Xn, yn)
    reference = _model_bytes(local, tmp_path, "local")
    levels = []
    for chunks, local_rows in ((300, 0), (200, 150), (900, 10_000)):
        est = DecisionTreeRegressor(splitter="hist", max_depth=9)
        dask_fit(est, da.from_array(Xn, chunks=(chunks, 2)), da.from_array(yn, chunks=chunks),
                 local_rows=local_rows, on_level=levels.append)
        assert _model_bytes(est, tmp_path, "dask") == reference, chunks
    assert any(stats.apart for stats in levels)


def test_checkpoint_and_resume(client, tmp_path):
    from quercus.dask import fit as dask_fit

    X, y = _data(n=800, seed=2)
    local = DecisionTreeRegressor(splitter="hist", max_depth=6).fit(X, y)
    path = tmp_path / "state.pkl"
    first = DecisionTreeRegressor(splitter="hist", max_depth=6)
    dask_fit(first, *_split(X, y, [400, 400]), checkpoint=path, local_rows=0)
    again = DecisionTreeRegressor(splitter="hist", max_depth=6)
    dask_fit(again, *_split(X, y, [300, 500]), resume=path, local_rows=0)
    assert _model_bytes(again, tmp_path, "dask") == _model_bytes(local, tmp_path, "local")


def test_dask_predict_and_apply(client):
    X, y = _data(n=600, seed=1)
    model = DecisionTreeRegressor(splitter="hist", max_depth=5).fit(
        dd.from_pandas(X, npartitions=3), dd.from_pandas(y, npartitions=3))
    predicted = model.predict(dd.from_pandas(X, npartitions=4))
    assert isinstance(predicted, dd.Series)
    np.testing.assert_array_equal(predicted.compute().to_numpy(), model.predict(X))
    leaves = model.apply(dd.from_pandas(X, npartitions=2)).compute().to_numpy()
    np.testing.assert_array_equal(leaves, model.apply(X))
    Xn = X[["a", "b"]].to_numpy()
    on_array = DecisionTreeRegressor(splitter="hist", max_depth=4).fit(
        da.from_array(Xn, chunks=(200, 2)), da.from_array(y.to_numpy(), chunks=200))
    out = on_array.predict(da.from_array(Xn, chunks=(250, 2)))
    assert isinstance(out, da.Array) and out.dtype == np.float64
    np.testing.assert_array_equal(out.compute(), on_array.predict(Xn))


@pytest.mark.parametrize(("params", "weights", "message"), [
    ({"criterion": "absolute_error"}, None, "criterion 'absolute_error'"),
    ({"criterion": "poisson"}, None, "criterion 'poisson'"),
    ({"splitter": "best"}, None, "splitter='hist'"),
    ({"algorithm": "rpart"}, None, "algorithm='cart'"),
    ({}, "w", "sample_weight is not supported"),
])
def test_refusals(client, params, weights, message):
    X, y = _data(n=100)
    kwargs = {"splitter": "hist", **params}
    est = DecisionTreeRegressor(**kwargs)
    Xd, yd = dd.from_pandas(X, npartitions=2), dd.from_pandas(y, npartitions=2)
    sample_weight = None if weights is None else dd.from_pandas(y.abs(), npartitions=2)
    with pytest.raises(ValueError, match=message):
        est.fit(Xd, yd, sample_weight=sample_weight)


def test_refusals_of_data(client):
    X, y = _data(n=200)
    wide = y.copy()
    wide.iloc[:100] = 1e-150
    wide.iloc[100:] = 1e150  # the squares span far more than the fixed point holds
    with pytest.raises(DataError, match="too wide to sum exactly"):
        DecisionTreeRegressor(splitter="hist").fit(*_split(X, wide, [100, 100]))
    text = pd.Series(["a"] * 200, name="y")
    with pytest.raises(DataError, match="not numbers"):
        DecisionTreeRegressor(splitter="hist").fit(*_split(X, text, [100, 100]))
    with pytest.raises(DataError, match="too wide to sum exactly"):  # one machine alike
        DecisionTreeRegressor(splitter="hist").fit(X, wide)


def test_cli_trains_a_regressor_on_dask(client, tmp_path, capsys):
    from quercus.cli import main

    X, y = _data(n=600, seed=5)
    frame = X.assign(y=y)
    folder = tmp_path / "data"
    folder.mkdir()
    for i, part in enumerate(np.array_split(np.arange(600), 3)):
        frame.iloc[part].to_parquet(folder / f"part{i}.parquet")
    out = tmp_path / "model.json"
    assert main(["train", str(folder / "*.parquet"), "--target", "y", "--max-depth", "5",
                 "--scheduler", client.scheduler.address, "--out", str(out)]) == 0
    printed = capsys.readouterr()
    assert printed.out.startswith("Regression tree: target 'y' is numeric with fractional")
    assert "level 0: 1 nodes, 1 histograms" in printed.err
    model = load_model(out)
    local = DecisionTreeRegressor(splitter="hist", max_depth=5, min_samples_split=2,
                                  min_samples_leaf=1).fit(X, y)
    assert model.splitter == "hist"
    np.testing.assert_array_equal(model.tree_.threshold, local.tree_.threshold)
    np.testing.assert_array_equal(model.tree_.value, local.tree_.value)
    np.testing.assert_array_equal(model.predict(X), local.predict(X))
    assert main(["train", str(folder / "*.parquet"), "--target", "y", "--criterion",
                 "poisson", "--scheduler", client.scheduler.address,
                 "--out", str(tmp_path / "p.json")]) == 2
    assert capsys.readouterr().err.strip().startswith(
        "quercus: error: a Dask regression fit sums targets per bin: criterion 'poisson'")
