"""Streaming CSV training (``quercus.data.csv_stream``, ``quercus train --stream``): the
streamed model is the in-memory ``splitter="hist"`` model, byte for byte; the float matrix
of the file is never built."""

from __future__ import annotations

import importlib.util
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import quercus
from quercus import cli, cli_commands
from quercus.data.csv_stream import read_csv_binned
from quercus.errors import DataError
from quercus.splitting import hist

ROOT = Path(__file__).parent.parent


def _make_big_csv():
    spec = importlib.util.spec_from_file_location("make_big_csv",
                                                  ROOT / "tools" / "make_big_csv.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.make_big_csv


def _mixed_frame(n: int, seed: int = 0) -> pd.DataFrame:
    """Numeric (some missing, some few-valued), categorical (padded, '?'), a column that
    looks numeric in its first half, True/False, and string classes, some missing."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({
        "a": rng.normal(size=n).round(3),
        "b": rng.integers(0, 6, n),
        "c": rng.choice(["red", " green", "blue ", "?", ""], n),
        "late_text": rng.integers(0, 4, n).astype(object),
        "flag": rng.choice(["True", "False"], n),
        "d": rng.exponential(size=n),
    })
    frame.loc[rng.random(n) < 0.1, "a"] = np.nan
    frame.loc[rng.integers(n // 2, n, 5), "late_text"] = "many"
    score = frame["a"].fillna(0) + (frame["c"] == "red") + 0.3 * frame["b"]
    frame["kind"] = np.where(score > 1.0, "high", np.where(score > 0, "mid", "low"))
    frame.loc[rng.random(n) < 0.03, "kind"] = "?"
    return frame


def _model_file(model, path: Path) -> str:
    model.save(path)
    return path.read_text()


def test_streamed_model_is_the_in_memory_hist_model(tmp_path: Path) -> None:
    path = tmp_path / "mixed.csv"
    _mixed_frame(3000).to_csv(path, index=False)
    streamed = read_csv_binned(path, "kind", chunk_rows=400)  # 8 chunks, a late retype
    data = quercus.read_csv(path, "kind")
    assert streamed.schema.features == data.schema.features  # same types and codebooks
    assert streamed.n_rows == 3000 and streamed.binned.dtype == np.uint8
    for params in ({"max_depth": 6}, {"max_leaf_nodes": 20, "criterion": "entropy"},
                   {"min_samples_leaf": 30, "ccp_alpha": 0.002}):
        model = quercus.DecisionTreeClassifier(splitter="hist", **params)
        on_bins = model.fit_binned(streamed.binned, streamed.y, streamed.schema,
                                   streamed.binner)
        in_memory = quercus.DecisionTreeClassifier(splitter="hist", **params).fit(data.X,
                                                                                  data.y)
        assert on_bins.get_n_leaves() > 3
        assert _model_file(on_bins, tmp_path / "a.json") == _model_file(in_memory,
                                                                        tmp_path / "b.json")


def test_sampled_edges_give_the_tree_of_the_same_edges_in_memory(tmp_path, monkeypatch):
    path = tmp_path / "sorted.csv"
    n = 4000
    rng = np.random.default_rng(3)
    x = np.sort(rng.random(n))  # sorted: a sample of the first rows would be biased
    frame = pd.DataFrame({"x": x, "z": rng.normal(size=n).round(4), "c": rng.choice(list("pq"), n),
                          "y": (x + 0.2 * rng.random(n) > 0.6).astype(int)})
    frame.to_csv(path, index=False)
    streamed = read_csv_binned(path, "y", sample_rows=500, chunk_rows=700, max_bins=16)
    data = quercus.read_csv(path, "y")
    # the edges are 15 quantiles of a uniform sample of 500 rows: near those of the file
    edges = streamed.binner.edges_[0]
    assert edges.size == 15
    assert np.abs(edges - np.quantile(x, np.arange(1, 16) / 16)).max() < 0.08
    # bins of the stream = the same edges applied to the whole file in memory
    encoded = data.schema.encode(data.X)
    assert np.array_equal(streamed.binned, streamed.binner.transform(encoded))
    assert np.array_equal(streamed.y, data.schema.encode_labels(data.y))

    class SameEdges:  # the in-memory hist fit gets the streamed edges
        def __init__(self, max_bins):
            pass

        def fit(self, *args, **kwargs):
            return streamed.binner

    monkeypatch.setattr(hist, "BinMapper", SameEdges)
    model = quercus.DecisionTreeClassifier(splitter="hist", max_depth=5, max_bins=16)
    in_memory = model.fit(data.X, data.y)
    on_bins = quercus.DecisionTreeClassifier(splitter="hist", max_depth=5, max_bins=16)
    on_bins.fit_binned(streamed.binned, streamed.y, streamed.schema, streamed.binner)
    assert _model_file(on_bins, tmp_path / "a.json") == _model_file(in_memory,
                                                                    tmp_path / "b.json")
    assert (on_bins.predict(data.X) == in_memory.predict(data.X)).all()


def test_numeric_and_integer_labels(tmp_path: Path) -> None:
    path = tmp_path / "labels.csv"
    path.write_text("x,y,w\n1,3,0.5\n2,10,1.5\n3,3,2.5\n4,,1.5\n5,-1,0.5\n")
    streamed = read_csv_binned(path, "y", chunk_rows=2)
    assert streamed.schema.classes.values == (-1, 3, 10)
    assert streamed.y.tolist() == [1, 2, 1, 0]  # the row with a missing class is left out
    assert streamed.n_rows == 5
    floats = read_csv_binned(path, "w")
    assert floats.schema.classes.values == (0.5, 1.5, 2.5)
    assert floats.y.tolist() == [0, 1, 2, 1, 0]


def test_the_float_matrix_is_never_built(tmp_path: Path) -> None:
    path = tmp_path / "wide.csv"
    _make_big_csv()(str(path), 200_000, 20)
    (tmp_path / "small.csv").write_text("x,y\n1,a\n")
    read_csv_binned(tmp_path / "small.csv", "y")  # load what a first call loads
    floats = 200_000 * 20 * 8  # 32 MB: what reading into memory would hold at least
    tracemalloc.start()
    try:
        streamed = read_csv_binned(path, "y", chunk_rows=10_000, sample_rows=5_000)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert streamed.binned.shape == (20, 200_000)
    assert peak < floats / 2, peak  # bins 4 MB, a chunk of 10,000 rows, the sample


@pytest.mark.parametrize("text, line", [
    ("x,y\n" + "1,a\n" * 50 + "2,b,7\n" + "3,a\n" * 10, 52),   # a long row
    ("x,y\n" + "1,a\n" * 50 + "2\n" + "3,b\n" * 10, 52),       # a short row
])
def test_ragged_rows_in_a_late_chunk_name_the_line(tmp_path, text, line) -> None:
    path = tmp_path / "ragged.csv"
    path.write_text(text)
    with pytest.raises(DataError, match=rf"ragged.csv: line {line} has \d fields, expected 2"):
        read_csv_binned(path, "y", chunk_rows=8)


def test_missing_last_values_are_not_ragged(tmp_path: Path) -> None:
    path = tmp_path / "holes.csv"
    path.write_text("y,x\n" + "a,1\nb,\n" * 20)
    streamed = read_csv_binned(path, "y", chunk_rows=7)
    assert streamed.n_rows == 40
    assert (streamed.binned[0, 1::2] == streamed.binner.missing_bin_).all()


def test_reader_errors(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_text("x,y\n")
    with pytest.raises(DataError, match="no data rows after the header"):
        read_csv_binned(path, "y")
    with pytest.raises(DataError, match="unknown target column 'z'"):
        read_csv_binned(path, "z")
    with pytest.raises(DataError, match="no such file"):
        read_csv_binned(tmp_path / "absent.csv", "y")


def _run(argv, capsys):
    status = cli.main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def test_cli_stream_prints_and_writes_what_the_in_memory_run_does(tmp_path, capsys):
    path = tmp_path / "mixed.csv"
    _mixed_frame(2000, seed=5).to_csv(path, index=False)
    common = [str(path), "--target", "kind", "--splitter", "hist", "--max-depth", "5",
              "--categorical", "b"]
    status, streamed, err = _run(["train", *common, "--stream", "--out",
                                  str(tmp_path / "s.json")], capsys)
    assert status == 0, err
    status, in_memory, err = _run(["train", *common, "--out", str(tmp_path / "m.json")],
                                  capsys)
    assert status == 0, err
    assert "Read and binned in" in streamed and "Read and binned" not in in_memory

    def lines(out):
        return [line for line in out.splitlines() if "time" not in line and "binned" not in line]

    assert lines(streamed) == [line.replace("m.json", "s.json") for line in lines(in_memory)]
    assert (tmp_path / "s.json").read_text() == (tmp_path / "m.json").read_text()


def test_cli_streams_big_files_automatically(tmp_path, capsys, monkeypatch) -> None:
    path = tmp_path / "mixed.csv"
    _mixed_frame(500).to_csv(path, index=False)
    monkeypatch.setattr(cli_commands, "STREAM_MIN_BYTES", path.stat().st_size)
    base = ["train", str(path), "--target", "kind", "--out", str(tmp_path / "m.json")]
    for extra, streams in ([["--splitter", "hist"], True], [["--splitter", "auto"], True],
                           [["--splitter", "hist", "--no-stream"], False],
                           [[], False], [["--algorithm", "c45"], False]):
        status, out, err = _run(base + extra, capsys)
        assert status == 0, err
        assert ("Read and binned" in out) == streams, extra


@pytest.mark.parametrize("extra", [["--splitter", "exact"], ["--algorithm", "c45"],
                                   ["--splitter", "auto"]])
def test_cli_stream_refuses_what_cannot_stream(tmp_path, capsys, extra) -> None:
    path = tmp_path / "mixed.csv"
    _mixed_frame(100).to_csv(path, index=False)
    status, _, err = _run(["train", str(path), "--target", "kind", "--stream", "--out",
                             str(tmp_path / "m.json"), *extra], capsys)
    assert status == 2
    assert err == ("quercus: error: --stream needs a .csv file (plain or compressed), "
                   "--algorithm cart and --splitter hist\n")
    assert not (tmp_path / "m.json").exists()


def test_cli_stream_errors_are_one_line(tmp_path, capsys) -> None:
    path = tmp_path / "ragged.csv"
    path.write_text("x,y\n1,a\n2,b,3\n")
    status, _, err = _run(["train", str(path), "--target", "y", "--splitter", "hist",
                           "--stream", "--out", str(tmp_path / "m.json")], capsys)
    assert status == 2
    assert err == f"quercus: error: {path}: line 3 has 3 fields, expected 2\n"
    status, _, err = _run(["train", str(path), "--target", "y", "--splitter", "hist",
                           "--stream", "--criterion", "gain_ratio", "--out",
                           str(tmp_path / "m.json")], capsys)
    assert status == 2 and err.count("\n") == 1 and "criterion" in err
    assert list(tmp_path.iterdir()) == [path]


def test_cli_stream_without_known_classes_names_the_file(tmp_path, capsys) -> None:
    path = tmp_path / "unlabelled.csv"
    path.write_text("x,y\n1,?\n2,\n")
    status, _, err = _run(["train", str(path), "--target", "y", "--splitter", "hist",
                           "--stream", "--out", str(tmp_path / "m.json")], capsys)
    assert status == 2
    assert err == f"quercus: error: {path}: no training rows with a known class label\n"


def test_streaming_refuses_infinity_as_the_in_memory_reader_does(tmp_path):
    path = tmp_path / "inf.csv"
    path.write_text("a,b,y\n1,2,x\n2,3,y\n-inf,4,x\n3,5,y\n")
    message = r"line 4, column 'a': -inf is not allowed"
    with pytest.raises(quercus.DataError, match=message):
        read_csv_binned(path, "y")
    with pytest.raises(quercus.DataError, match=message):
        quercus.read_csv(path, "y")


# -- regression targets -----------------------------------------------------------------------
@pytest.mark.filterwarnings("ignore:.*was read as categorical")  # _mixed_frame's late_text
def test_regression_target_streams_the_in_memory_regression_tree(tmp_path: Path) -> None:
    path = tmp_path / "prices.csv"
    frame = _mixed_frame(3000)
    rng = np.random.default_rng(5)
    frame["price"] = np.round(rng.normal(size=3000) * 10 + frame["kind"].astype("category")
                              .cat.codes * 3, 2)
    frame.loc[[3, 1700], "price"] = np.nan
    frame = frame.drop(columns="kind")
    frame.to_csv(path, index=False)
    data = quercus.read_csv(path, "price")
    for task in ("regression", "auto"):
        streamed = read_csv_binned(path, "price", chunk_rows=400, task=task)
        assert streamed.task == "regression" and streamed.y.dtype == np.float64
        assert streamed.schema.features == data.schema.features
        assert streamed.schema.classes is None and streamed.y.size == 2998
        np.testing.assert_array_equal(streamed.y, data.y.dropna().to_numpy())
        for params in ({"max_depth": 5}, {"max_leaf_nodes": 12, "min_samples_leaf": 20}):
            on_bins = quercus.DecisionTreeRegressor(splitter="hist", **params).fit_binned(
                streamed.binned, streamed.y, streamed.schema, streamed.binner)
            in_memory = quercus.DecisionTreeRegressor(splitter="hist", **params).fit(
                data.X, data.y)
            assert on_bins.get_n_leaves() > 3
            assert _model_file(on_bins, tmp_path / "a.json") == _model_file(
                in_memory, tmp_path / "b.json")
    assert read_csv_binned(path, "price", chunk_rows=400).task == "classification"


def test_auto_reads_what_train_reads_as_classes_or_numbers(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    n = 900
    x = np.arange(n) % 7
    few = x % 3  # 3 whole numbers: classes
    many = np.arange(n) % 40  # 40 whole numbers: a regression target
    late_text = np.arange(n).astype(object)  # numbers, then a word in the last chunk
    late_text[850] = "unknown"
    pd.DataFrame({"x": x, "few": few, "many": many, "late": late_text}).to_csv(path,
                                                                             index=False)
    assert read_csv_binned(path, "few", task="auto", chunk_rows=100).task == "classification"
    streamed = read_csv_binned(path, "many", task="auto", chunk_rows=100)
    assert streamed.task == "regression" and streamed.y.tolist() == many.tolist()
    late = read_csv_binned(path, "late", task="auto", chunk_rows=100)
    assert late.task == "classification" and len(late.schema.classes.values) == n
    with pytest.raises(DataError, match=r"t\.csv, line 852, column 'late': 'unknown' is not a "
                                        "number"):
        read_csv_binned(path, "late", task="regression", chunk_rows=100)
    with pytest.raises(DataError, match="forced categorical"):
        read_csv_binned(path, "many", task="regression", categorical=["many"])
    with pytest.raises(ValueError, match="task must be one of"):
        read_csv_binned(path, "many", task="numbers")
    (tmp_path / "inf.csv").write_text("x,y\n1,2.5\n2,inf\n")
    with pytest.raises(DataError, match="line 3, column 'y': inf is not allowed"):
        read_csv_binned(tmp_path / "inf.csv", "y", task="regression")
