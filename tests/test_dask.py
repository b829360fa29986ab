"""Fitting on a Dask cluster (quercus.dask): the same model file as one machine, for any
partitioning, through a killed worker; clear refusals; Dask predict.

One LocalCluster of 2 worker processes (``client``, tests/conftest.py) serves these tests.
The reference is always the single-machine fit on the same rows (``fit(X, y,
splitter="hist")``, or ``fit_binned`` with the same bin edges when the bins come from a
sample).
"""

from __future__ import annotations

import os
import signal
import time

import numpy as np
import pandas as pd
import pytest

distributed = pytest.importorskip("distributed")
dd = pytest.importorskip("dask.dataframe")
da = pytest.importorskip("dask.array")
pytest.importorskip("pyarrow")

import itertools

from quercus import DecisionTreeClassifier
from quercus.binning import BinMapper
from quercus.dask import ClusterError
from quercus.dask._scan import row_keys
from quercus.errors import DataError


def _data(n=1500, n_classes=3, seed=0):
    """Numeric with NaN, a feature with repeated values, a text column with missing cells,
    and a label with some missing values."""
    rng = np.random.default_rng(seed)
    a = rng.normal(size=n)
    b = np.round(rng.normal(size=n), 1)
    c = rng.choice(["red", "green", "blue", "grey", None], n)
    score = a + 0.8 * (c == "red") - 0.5 * (c == "blue") + 0.3 * b + rng.normal(0, 0.6, n)
    cuts = np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1])
    labels = np.array([f"k{i}" for i in range(n_classes)], dtype=object)[np.digitize(score, cuts)]
    a[rng.random(n) < 0.05] = np.nan
    labels[rng.random(n) < 0.02] = None
    X = pd.DataFrame({"a": a, "b": b, "c": pd.Series(c, dtype=object)})
    return X, pd.Series(labels, name="label")


def _model_bytes(est, tmp_path, name):
    path = tmp_path / f"{name}.json"
    est.save(path)
    return path.read_bytes()


def _split(X, y, sizes):
    """Dask collections with partitions of the given sizes (0 allowed)."""
    bounds = np.concatenate([[0], np.cumsum(sizes)])
    xs = [X.iloc[s:e] for s, e in itertools.pairwise(bounds)]
    ys = [y.iloc[s:e] for s, e in itertools.pairwise(bounds)]
    return (dd.concat([dd.from_pandas(p, npartitions=1) for p in xs]),
            dd.concat([dd.from_pandas(p, npartitions=1) for p in ys]))


@pytest.mark.parametrize("params", [
    {"max_depth": 5},
    {"max_depth": None, "min_samples_leaf": 5},
    {"max_depth": 8, "min_impurity_decrease": 0.002, "criterion": "entropy"},
    {"max_depth": 6, "ccp_alpha": 0.004},
    {"max_depth": 6, "class_weight": "balanced"},
    {"max_depth": 4, "class_weight": {"k0": 0.3, "k2": 3.0}, "min_weight_fraction_leaf": 0.05},
])
def test_same_model_file_as_one_machine(client, tmp_path, params):
    X, y = _data()
    local = DecisionTreeClassifier(splitter="hist", **params).fit(X, y)
    est = DecisionTreeClassifier(splitter="hist", **params).fit(
        dd.from_pandas(X, npartitions=3), dd.from_pandas(y, npartitions=3))
    assert _model_bytes(est, tmp_path, "dask") == _model_bytes(local, tmp_path, "local")
    assert est.tree_.n_nodes > 7
    assert est.tree_.n_missing is not None  # rows with a missing value, counted on the workers


@pytest.mark.parametrize("n_classes", [2, 5])
def test_class_counts_and_a_dask_array(client, tmp_path, n_classes):
    X, y = _data(n=1200, n_classes=n_classes, seed=3)
    Xn = X[["a", "b"]].to_numpy()
    codes = pd.Series(y).map({f"k{i}": i for i in range(n_classes)}).fillna(-1).to_numpy()
    yn = np.where(codes < 0, np.nan, codes)
    local = DecisionTreeClassifier(splitter="hist", max_depth=7).fit(Xn, yn)
    est = DecisionTreeClassifier(splitter="auto", max_depth=7).fit(  # auto: hist on Dask
        da.from_array(Xn, chunks=(500, 2)), da.from_array(yn, chunks=500))
    assert list(est.classes_) == list(local.classes_) and len(est.classes_) == n_classes
    est.set_params(splitter="hist")  # the model file records the parameter; the tree is hist's
    assert _model_bytes(est, tmp_path, "dask") == _model_bytes(local, tmp_path, "local")


def test_any_partitioning_gives_the_same_bytes(client, tmp_path):
    X, y = _data(n=1800, seed=1)
    reference = _model_bytes(
        DecisionTreeClassifier(splitter="hist", max_depth=7).fit(X, y), tmp_path, "local")
    for sizes in ([1800], [600, 600, 600], [225] * 8, [10, 1500, 0, 290], [0, 1799, 1]):
        Xd, yd = _split(X, y, sizes)
        est = DecisionTreeClassifier(splitter="hist", max_depth=7).fit(Xd, yd)
        assert _model_bytes(est, tmp_path, "dask") == reference, sizes


def _recorded(tasks, passes):
    """``Source.tasks`` that also lists the functions of the passes over the source."""
    def recording(source, function, *args, **kw):
        passes.append(function.__name__)
        return tasks(source, function, *args, **kw)
    return recording


def test_every_way_through_the_passes_gives_the_same_bytes(client, tmp_path, monkeypatch):
    # X and y selected from one frame: one joined source. Lengths known (pandas): one pass
    # scans and samples, and binning uses the kept partitions unless they are too big for
    # the workers' memory; the sample's rows come back with the scan, or in a round of
    # their own when the early key falls short; lengths unknown: a scan, then a sample
    # pass, unless the frame is persisted: then its rows are counted and one pass follows
    import quercus.dask as qd
    from quercus.dask import _scan

    X, y = _data(n=1800, seed=4)
    frame = dd.from_pandas(X.assign(label=y), npartitions=4)
    Xd, yd = frame.drop(columns="label"), frame["label"]
    kept = frame.persist()
    reference = _model_bytes(DecisionTreeClassifier(splitter="hist", max_depth=7).fit(X, y),
                             tmp_path, "local")
    tasks = _scan.Source.tasks
    ways = {"kept": ["scan_sample"], "read again": ["scan_sample", "bin_partition"],
            "early key short": ["scan_sample"],
            "lengths unknown": ["describe", "sample", "bin_partition"],
            "persisted": ["row_count", "scan_sample"]}
    sampled = set()
    for way, expected in ways.items():
        with monkeypatch.context() as patch:
            if way == "read again":
                patch.setattr(qd, "KEEP_SHARE", 0.0)
            if way == "early key short":  # the k-th key is above the early one
                patch.setattr(_scan, "EARLY_MARGIN", -40.0)
            if way in ("lengths unknown", "persisted"):
                patch.setattr(_scan, "_lengths", lambda collection: None)
            early: list = []  # the driver's calls to take the sample from the scan
            patch.setattr(_scan, "early_rows", _counted(_scan.early_rows, early))
            passes: list = []
            patch.setattr(_scan.Source, "tasks", _recorded(tasks, passes))
            Xw, yw = (kept.drop(columns="label"), kept["label"]) if way == "persisted" \
                else (Xd, yd)
            # bins from a 300-row bottom-k sample of the 1800 rows
            small = qd.fit(DecisionTreeClassifier(splitter="hist", max_depth=7), Xw, yw,
                           sample_rows=300)
            sampled.add(_model_bytes(small, tmp_path, "sampled"))
            assert bool(early) == (way not in ("early key short", "lengths unknown")), way
            passes.clear()
            est = DecisionTreeClassifier(splitter="hist", max_depth=7).fit(Xw, yw)
            assert _model_bytes(est, tmp_path, "dask") == reference, way
            assert passes == expected, way
    assert len(sampled) == 1 and reference not in sampled


def test_early_key_is_above_the_kth_smallest_key():
    """The early key lies a few standard deviations above the k-th smallest of n row keys
    (so the sample comes back with the scan), and is None when every row is sampled."""
    from quercus.dask._scan import early_key

    assert early_key(300, 300) is None and early_key(300, 200) is None
    for seed, n, k in ((0, 1_000_000, 200_000), (1, 50_000, 700), (2, 5_000, 4_990)):
        keys = np.sort(row_keys(seed, 0, n))
        early = early_key(k, n)
        assert early is None or keys[k - 1] <= early
        if early is not None:  # not far above: about 8 standard deviations of rows
            assert np.searchsorted(keys, early, side="right") - k <= 10 * np.sqrt(k)


def _counted(function, calls: list):
    """``function`` (called on the driver), noting each call in ``calls``."""
    def counted(*args, **kw):
        calls.append(args)
        return function(*args, **kw)
    return counted


def test_sampled_bins_equal_fit_binned_and_ignore_partitioning(client, tmp_path):
    # 6000 known rows, bins from a 700-row sample: quantile edges. The sample is the 700 rows
    # with the smallest keys of (seed, global row index), so it is rebuilt here from the keys.
    rng = np.random.default_rng(7)
    n = 6000
    Xn = rng.normal(size=(n, 4))
    Xn[rng.random((n, 4)) < 0.03] = np.nan
    yn = (np.nan_to_num(Xn[:, 0]) + 0.5 * np.nan_to_num(Xn[:, 1]) ** 2
          + rng.normal(0, 0.7, n) > 0.4).astype(float)
    keys = row_keys(0, 0, n)
    sample = Xn[np.sort(np.argsort(keys, kind="stable")[:700])]
    binner = BinMapper(32, sample_rows=700).fit(sample, [False] * 4, [0] * 4, complete=False)
    assert len(binner.edges_[2]) == 31  # quantile bins, not one per value
    from quercus.data.schema import infer_schema

    schema = infer_schema(Xn, yn)
    local = DecisionTreeClassifier(splitter="hist", max_depth=8, max_bins=32).fit_binned(
        binner.transform(Xn), yn.astype(np.int32), schema, binner)
    local._set_fitted(schema, False)
    reference = _model_bytes(local, tmp_path, "local")
    for chunks in (6000, 1000, (100, 4000, 1900)):
        est = DecisionTreeClassifier(splitter="hist", max_depth=8, max_bins=32)
        from quercus.dask import fit as dask_fit

        dask_fit(est, da.from_array(Xn, chunks=(chunks, 4)), da.from_array(yn, chunks=chunks),
                 sample_rows=700)
        assert _model_bytes(est, tmp_path, "dask") == reference, chunks


@pytest.mark.parametrize("when", ["level 3", "subtrees apart"])
def test_a_worker_killed_mid_fit_changes_nothing(client, tmp_path, when):
    X, y = _data(n=3000, seed=5)
    reference = _model_bytes(
        DecisionTreeClassifier(splitter="hist", max_depth=9).fit(X, y), tmp_path, "local")
    before = set(client.run(os.getpid).values())
    killed = []

    def kill_at_level_3(stats):
        due = stats.level == 3 if when == "level 3" else stats.apart > 0
        if due and not killed:
            pids = client.run(os.getpid)
            worker = min(pids)
            os.kill(pids[worker], signal.SIGKILL)
            killed.append(worker)

    from quercus.dask import fit as dask_fit

    est = DecisionTreeClassifier(splitter="hist", max_depth=9)
    dask_fit(est, dd.from_pandas(X, npartitions=6), dd.from_pandas(y, npartitions=6),
             on_level=kill_at_level_3)
    assert killed
    assert _model_bytes(est, tmp_path, "dask") == reference
    client.wait_for_workers(2, timeout=60)
    assert set(client.run(os.getpid).values()) != before  # a new worker process replaced it


def test_a_vanished_cluster_raises_within_the_timeout(tmp_path):
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
    own = distributed.Client(cluster, set_as_default=False)
    X, y = _data(n=800, seed=2)

    def close_at_level_1(stats):
        if stats.level == 1:
            cluster.close()

    from quercus.dask import fit as dask_fit

    began = time.monotonic()
    with pytest.raises(ClusterError, match="Dask cluster"):
        dask_fit(DecisionTreeClassifier(splitter="hist", max_depth=6),
                 dd.from_pandas(X, npartitions=2), dd.from_pandas(y, npartitions=2),
                 client=own, level_timeout=20, on_level=close_at_level_1)
    assert time.monotonic() - began < 45
    own.close()


def test_refusals_are_one_line(client):
    X, y = _data(n=300)
    Xd, yd = dd.from_pandas(X, npartitions=2), dd.from_pandas(y, npartitions=2)
    for est in (DecisionTreeClassifier(splitter="exact"),
                DecisionTreeClassifier(algorithm="c45")):
        with pytest.raises(ValueError, match="algorithm='cart' and splitter='hist'"):
            est.fit(Xd, yd)
    Xn = X[["a", "b"]].to_numpy()
    with pytest.raises(ValueError, match="chunked along its columns"):
        DecisionTreeClassifier(splitter="hist").fit(da.from_array(Xn, chunks=(100, 1)),
                                                    da.from_array(np.ones(300), chunks=100))
    with pytest.raises(ValueError, match="partitions but X has"):
        DecisionTreeClassifier(splitter="hist").fit(Xd, dd.from_pandas(y, npartitions=3))
    shifted = dd.concat([dd.from_pandas(y.iloc[:100], npartitions=1),
                         dd.from_pandas(y.iloc[100:], npartitions=1)])
    with pytest.raises(DataError, match="partition 0 of X has 150 rows but y's has 100"):
        DecisionTreeClassifier(splitter="hist").fit(Xd, shifted)
    with pytest.raises(ValueError, match="y must be a Dask Series"):
        DecisionTreeClassifier(splitter="hist").fit(Xd, y)
    for extra in ({"max_features": 1}, {"monotonic_cst": [1, 0, 0]}):
        with pytest.raises(ValueError, match="not supported on a Dask cluster yet"):
            DecisionTreeClassifier(splitter="hist", **extra).fit(Xd, yd)
    for message in ("chunked along its columns", "partitions but X has"):
        assert "\n" not in message


def test_predict_on_dask_input_returns_dask_collections(client):
    X, y = _data(n=900, seed=4)
    est = DecisionTreeClassifier(splitter="hist", max_depth=5).fit(X, y)
    Xd = dd.from_pandas(X, npartitions=3)
    predicted, proba, leaves = est.predict(Xd), est.predict_proba(Xd), est.apply(Xd)
    assert isinstance(predicted, dd.Series) and isinstance(leaves, dd.Series)
    assert isinstance(proba, da.Array)
    np.testing.assert_array_equal(predicted.compute().to_numpy(), est.predict(X))
    np.testing.assert_array_equal(proba.compute(), est.predict_proba(X))
    np.testing.assert_array_equal(leaves.compute().to_numpy(), est.apply(X))
    Xn = X[["a", "b"]].to_numpy()
    numeric = DecisionTreeClassifier(splitter="hist", max_depth=4).fit(Xn, y.fillna("k0"))
    Xa = da.from_array(Xn, chunks=(400, 1))  # column chunks are fine for predict
    np.testing.assert_array_equal(numeric.predict(Xa).compute(), numeric.predict(Xn))
    np.testing.assert_array_equal(numeric.predict_proba(Xa).compute(),
                                  numeric.predict_proba(Xn))


# -- the command line ----------------------------------------------------------------------
def _cli(*argv):
    from quercus.cli import main

    return main([str(a) for a in argv])


def test_cli_csv_on_a_cluster_equals_the_in_memory_train(client, tmp_path, capsys):
    # A messy CSV: a numeric column with empty cells and '?', a text column with spaces
    # and missing cells, integer class labels with one missing.
    rng = np.random.default_rng(9)
    n = 700
    a = np.round(rng.normal(size=n), 3).astype(object)
    a[rng.random(n) < 0.05] = ""
    a[rng.random(n) < 0.02] = "?"
    c = rng.choice([" red", "green ", "blue", ""], n)
    label = (rng.random(n) < 0.5).astype(int).astype(object)
    label[5] = ""
    path = tmp_path / "messy.csv"
    pd.DataFrame({"a": a, "c": c, "label": label}).to_csv(path, index=False)
    assert _cli("train", path, "--target", "label", "--splitter", "hist", "--max-depth", 6,
                "--out", tmp_path / "memory.json") == 0
    address = client.scheduler.address
    assert _cli("train", path, "--target", "label", "--max-depth", 6,  # hist by default
                "--scheduler", address, "--out", tmp_path / "dask.json") == 0
    err = capsys.readouterr().err
    assert "level 0: 1 nodes, 1 histograms" in err
    assert (tmp_path / "dask.json").read_bytes() == (tmp_path / "memory.json").read_bytes()


def test_cli_parquet_glob_equals_the_library_fit(client, tmp_path):
    X, y = _data(n=1000, seed=8)
    frame = X.assign(label=y)
    (tmp_path / "data").mkdir()
    for i, (s, e) in enumerate([(0, 300), (300, 650), (650, 1000)]):
        frame.iloc[s:e].to_parquet(tmp_path / "data" / f"part-{i}.parquet")
    assert _cli("train", tmp_path / "data" / "*.parquet", "--target", "label", "--splitter",
                "hist", "--max-depth", 5, "--scheduler", client.scheduler.address,
                "--out", tmp_path / "dask.json") == 0
    local = DecisionTreeClassifier(splitter="hist", max_depth=5).fit(X, y)
    # the library fit with the CLI's parameters (its defaults differ only in ones unused)
    from quercus.export.model_file import load_model

    model = load_model(tmp_path / "dask.json")
    np.testing.assert_array_equal(model.tree_.threshold, local.tree_.threshold)
    np.testing.assert_array_equal(model.tree_.value, local.tree_.value)
    assert list(model.feature_names_in_) == ["a", "b", "c"]


def test_cli_refusals_exit_2_with_one_line(tmp_path, capsys, monkeypatch):
    from quercus.dask import command

    monkeypatch.setattr(command, "CONNECT_SECONDS", 2)
    data = tmp_path / "d.csv"
    data.write_text("a,y\n1,0\n2,1\n")
    assert _cli("train", data, "--target", "y", "--scheduler", "tcp://127.0.0.1:9",
                "--splitter", "hist", "--out", tmp_path / "m.json") == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("quercus: error: cannot reach the Dask scheduler at tcp://127.0.0.1:9 "
                          "within 2 s")
    assert "\n" not in err
    assert _cli("train", data, "--target", "y", "--scheduler", "local:2", "--splitter",
                "exact", "--out", tmp_path / "m.json") == 2  # exact, asked for explicitly
    assert capsys.readouterr().err.strip() == ("quercus: error: --scheduler needs --algorithm "
                                               "cart and --splitter hist (or auto)")
    assert not (tmp_path / "m.json").exists()


@pytest.mark.parametrize("local_rows", [0, 150, 10**9])
def test_subtrees_grown_apart_change_nothing(client, tmp_path, local_rows):
    # 0: every level on the cluster; 10**9: every node below the root grown on one worker
    X, y = _data(n=1500, seed=6)
    reference = _model_bytes(
        DecisionTreeClassifier(splitter="hist", max_depth=None, min_samples_leaf=2).fit(X, y),
        tmp_path, "local")
    from quercus.dask import fit as dask_fit

    levels = []
    est = DecisionTreeClassifier(splitter="hist", max_depth=None, min_samples_leaf=2)
    dask_fit(est, dd.from_pandas(X, npartitions=4), dd.from_pandas(y, npartitions=4),
             local_rows=local_rows, on_level=levels.append)
    assert _model_bytes(est, tmp_path, "dask") == reference
    apart = sum(stats.apart for stats in levels)
    assert (apart == 0) == (local_rows == 0)
    if local_rows == 10**9:
        assert len(levels) == 2 and apart == 2  # the root's two children


@pytest.mark.parametrize(("max_leaf_nodes", "batch"), [(2, 1), (17, 1), (17, 4), (64, 32)])
def test_best_first_in_batches_equals_one_machine(client, tmp_path, max_leaf_nodes, batch):
    X, y = _data(n=1500, seed=10)
    params = {"max_leaf_nodes": max_leaf_nodes, "class_weight": "balanced"}
    reference = _model_bytes(DecisionTreeClassifier(splitter="hist", **params).fit(X, y),
                             tmp_path, "local")
    from quercus.dask import fit as dask_fit

    est = DecisionTreeClassifier(splitter="hist", **params)
    dask_fit(est, dd.from_pandas(X, npartitions=3), dd.from_pandas(y, npartitions=3),
             best_first_batch=batch)
    assert est.get_n_leaves() == max_leaf_nodes
    assert _model_bytes(est, tmp_path, "dask") == reference


def test_checkpoint_then_resume_after_a_lost_driver(client, tmp_path):
    X, y = _data(n=3000, seed=12)
    params = {"max_depth": 10, "min_samples_leaf": 3}
    reference = _model_bytes(DecisionTreeClassifier(splitter="hist", **params).fit(X, y),
                             tmp_path, "local")
    from quercus.dask import fit as dask_fit

    Xd, yd = dd.from_pandas(X, npartitions=4), dd.from_pandas(y, npartitions=4)
    path = tmp_path / "fit.ckpt"

    def driver_dies_at_level_4(stats):
        if stats.level == 4:
            raise KeyboardInterrupt  # the driver stops after writing level 4's checkpoint

    with pytest.raises(KeyboardInterrupt):
        dask_fit(DecisionTreeClassifier(splitter="hist", **params), Xd, yd, local_rows=300,
                 checkpoint=path, on_level=driver_dies_at_level_4)
    assert path.exists()
    levels = []
    est = DecisionTreeClassifier(splitter="hist", **params)
    dask_fit(est, Xd, yd, local_rows=300, resume=path, on_level=levels.append)
    assert levels[0].level == 5  # growth picked up after the saved level
    assert _model_bytes(est, tmp_path, "dask") == reference
    with pytest.raises(DataError, match="made with other data, bins or parameters"):
        dask_fit(DecisionTreeClassifier(splitter="hist", max_depth=3), Xd, yd, resume=path)


def test_csv_blocks_are_typed_as_read_csv_types_the_file(client, tmp_path):
    # "v" is numeric for 300 rows, then text: categorical, as quercus.read_csv decides
    from quercus import read_csv
    from quercus.dask.command import read

    n = 400
    v = [str(i % 7) for i in range(300)] + ["high", " low"] * 50
    frame = pd.DataFrame({"v": v, "w": np.arange(n) / 4, "y": ["a", "b"] * (n // 2)})
    path = tmp_path / "late_text.csv"
    frame.to_csv(path, index=False)
    X, y = read(str(path), "y", [], blocksize=1000)
    assert X.npartitions > 2
    est = DecisionTreeClassifier(splitter="hist", max_depth=4).fit(X, y)
    memory = read_csv(path, "y")
    assert est.schema_.to_json() == memory.schema.to_json()
    local = DecisionTreeClassifier(splitter="hist", max_depth=4).fit(memory.X, memory.y)
    assert _model_bytes(est, tmp_path, "dask") == _model_bytes(local, tmp_path, "local")


def test_cli_checkpoint_and_resume_after_a_lost_driver(client, tmp_path, monkeypatch, capsys):
    from quercus.dask import command

    X, y = _data(n=2500, seed=14)
    path = tmp_path / "d.csv"
    X.assign(label=y).to_csv(path, index=False)
    options = ["--target", "label", "--splitter", "hist", "--max-depth", 9,
               "--min-samples-leaf", 3]
    assert _cli("train", path, *options, "--out", tmp_path / "memory.json") == 0
    checkpoint = tmp_path / "fit.ckpt"
    real_fit = command.fit

    def driver_dies_at_level_3(*args, on_level, **kwargs):
        def on_level_then_die(stats):
            on_level(stats)
            if stats.level == 3:
                raise KeyboardInterrupt  # after level 3's checkpoint was written
        return real_fit(*args, on_level=on_level_then_die, **kwargs)

    cluster = ["--scheduler", client.scheduler.address]
    monkeypatch.setattr(command, "fit", driver_dies_at_level_3)
    assert _cli("train", path, *options, *cluster, "--checkpoint", checkpoint,
                "--out", tmp_path / "dask.json") == 130
    assert checkpoint.exists() and not (tmp_path / "dask.json").exists()
    monkeypatch.setattr(command, "fit", real_fit)
    capsys.readouterr()
    assert _cli("train", path, *options, *cluster, "--resume", checkpoint,
                "--checkpoint", checkpoint, "--out", tmp_path / "dask.json") == 0
    err = capsys.readouterr().err
    assert err.startswith("level 4: ")  # growth went on after the saved level
    assert (tmp_path / "dask.json").read_bytes() == (tmp_path / "memory.json").read_bytes()

    # the same checkpoint with other options, and the options' own misuse: one line each
    other = ["--target", "label", "--splitter", "hist", "--max-depth", 4]
    assert _cli("train", path, *other, *cluster, "--resume", checkpoint,
                "--out", tmp_path / "other.json") == 2
    err = capsys.readouterr().err.strip()
    assert "the checkpoint was made with other data, bins or parameters" in err
    assert "\n" not in err and not (tmp_path / "other.json").exists()
    cases = [
        ([*options, "--resume", tmp_path / "absent.ckpt", *cluster],
         f"{tmp_path / 'absent.ckpt'}: No such checkpoint file"),
        ([*options, "--checkpoint", checkpoint],
         "--checkpoint and --resume work with --scheduler (a fit on a Dask cluster) only"),
        ([*other, "--max-leaf-nodes", 8, "--checkpoint", checkpoint, *cluster],
         "--checkpoint and --resume work with level-wise growth, not with --max-leaf-nodes"),
    ]
    for argv, message in cases:
        assert _cli("train", path, *argv, "--out", tmp_path / "m.json") == 2
        assert capsys.readouterr().err.strip() == f"quercus: error: {message}"
    assert not (tmp_path / "m.json").exists()
