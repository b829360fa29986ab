"""The histogram splitter: binning and kernels against numpy, trees against the exact ones."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from quercus._kernels._hist import fill_histograms, scan_histograms
from quercus._kernels._splits import GINI, impurity_of
from sklearn.datasets import load_digits, make_classification

from quercus import DecisionTreeClassifier
from quercus.binning import BinMapper
from quercus.tree import LEAF


def test_few_values_get_one_bin_each_with_midpoint_edges():
    X = np.array([[1.0], [3.0], [3.0], [np.nan], [7.0]])
    mapper = BinMapper(max_bins=255).fit(X, [False], [0])
    np.testing.assert_array_equal(mapper.edges_[0], [2.0, 5.0])
    binned = mapper.transform(X)
    assert binned.dtype == np.uint8
    assert binned[0].tolist() == [0, 1, 1, mapper.missing_bin_, 2]


def test_many_values_get_quantile_bins_matching_searchsorted():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(5000, 2))
    X[::17, 1] = np.nan
    mapper = BinMapper(max_bins=32).fit(X, [False, False], [0, 0])
    binned = mapper.transform(X)
    for f in range(2):
        edges = mapper.edges_[f]
        assert edges.size <= 31 and np.all(np.diff(edges) > 0)
        known = ~np.isnan(X[:, f])
        expected = np.searchsorted(edges, X[known, f], side="left")
        np.testing.assert_array_equal(binned[f][known], expected)
        assert np.all(binned[f][~known] == mapper.missing_bin_)
        counts = np.bincount(binned[f][known], minlength=edges.size + 1)
        assert counts.max() < 3 * counts.mean()  # quantiles: roughly equal bins


def test_thresholds_of_many_cuts_are_each_cuts_threshold():
    rng = np.random.default_rng(2)
    X = np.column_stack([rng.integers(0, 9, 3000) * 0.3, rng.normal(size=3000),
                         np.where(rng.random(3000) < 0.5, -np.inf, 1e308), np.full(3000, 2.0)])
    mapper = BinMapper(max_bins=64).fit(X, [False] * 4, [0] * 4)
    assert 0 in mapper.bin_values_ and 1 not in mapper.bin_values_
    features, last, following = [], [], []
    for f in range(3):
        for b in range(int(mapper.n_bins_[f]) - 1):
            for nb in range(b + 1, int(mapper.n_bins_[f])):
                features.append(f)
                last.append(b)
                following.append(nb)
    features, last, following = (np.array(a) for a in (features, last, following))
    order = rng.permutation(features.size)
    features, last, following = features[order], last[order], following[order]
    expected = [mapper.threshold(int(f), int(b), int(nb))
                for f, b, nb in zip(features, last, following)]
    np.testing.assert_array_equal(mapper.thresholds(features, last, following), expected)


def test_categorical_codes_are_bins():
    X = np.array([[0.0], [2.0], [np.nan], [1.0]])
    mapper = BinMapper().fit(X, [True], [3])
    assert mapper.transform(X)[0].tolist() == [0, 2, mapper.missing_bin_, 1]


def test_fill_histograms_equals_bincount():
    rng = np.random.default_rng(1)
    binned = rng.integers(0, 6, size=(3, 200)).astype(np.uint8)
    binned_rows = np.ascontiguousarray(binned.T)
    y = rng.integers(0, 2, 200).astype(np.int32)
    w = rng.random(200)
    rows = rng.permutation(200)[:120]
    hist = np.empty((3, 6, 2))
    counts = np.empty((3, 6), dtype=np.int64)
    no_tally = np.empty((0, 0, 0), dtype=np.int32)
    # per-row weights summed as floats; unit weights tallied as integers
    for weights, tally in ((w, no_tally), (np.zeros(0), np.empty((3, 6, 2), np.int32))):
        unit = np.ones(200) if weights.shape[0] == 0 else weights
        for n_blocks in (1, 2, 3):
            hist[:] = np.nan
            fill_histograms(binned_rows, rows, y, weights, tally, hist, counts, n_blocks)
            for f in range(3):
                for k in range(2):
                    mine = rows[y[rows] == k]
                    np.testing.assert_allclose(hist[f, :, k], np.bincount(
                        binned[f, mine], weights=unit[mine], minlength=6), rtol=1e-15)
                np.testing.assert_array_equal(counts[f],
                                              np.bincount(binned[f, rows], minlength=6))


def test_threads_and_bin_layouts_write_the_same_model(monkeypatch, tmp_path):
    """Every node's histograms filled by thread blocks (threshold 1) or on one thread
    (threshold never reached), from row-major bins or a transposed view of the
    feature-major ones: the same model file, with unit and with per-row weights.
    tests/test_determinism.py's large case is too small for the production threshold."""
    from quercus._kernels._openmp import max_threads

    from quercus.splitting import hist as hist_module

    if max_threads() < 2:
        pytest.skip("one thread: there is no parallel path to compare with")
    X, y = make_classification(6000, 8, n_informative=4, n_classes=3, random_state=3)
    X[::13, 2] = np.nan
    weights = np.random.default_rng(3).random(6000) + 0.5
    for sample_weight in (None, weights):
        files = []
        # threads or not; bins copied row by row, or read through a transposed view
        for threshold, row_major_max in ((10**15, 10**15), (1, 10**15), (1, 0), (10**15, 0)):
            monkeypatch.setattr(hist_module, "PARALLEL_MIN_WORK", threshold)
            monkeypatch.setattr(hist_module, "ROW_MAJOR_MAX_BYTES", row_major_max)
            path = tmp_path / f"{threshold}_{row_major_max}.json"
            DecisionTreeClassifier(splitter="hist", max_depth=10).fit(
                X, y, sample_weight=sample_weight).save(path)
            files.append(path.read_bytes())
        assert files[1:] == files[:1] * 3


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 2)), min_size=2, max_size=40),
       st.integers(1, 3))
def test_scan_finds_the_best_bin_cut(rows, min_leaf):
    """Bins 0..3 are values, bin 4 is missing; compare with every cut by brute force."""
    bins = np.array([b for b, _ in rows])
    y = np.array([c for _, c in rows])
    hist = np.zeros((1, 5, 3))
    np.add.at(hist, (0, bins, y), 1.0)
    counts = np.bincount(bins, minlength=5).reshape(1, 5).astype(np.int64)
    proxy, last, missing_left = np.empty(1), np.empty(1, dtype=np.int64), np.empty(1, bool)
    next_bin = np.empty(1, dtype=np.int64)
    total = hist[0].sum(axis=0)
    scan_histograms(hist, counts, np.array([0]), np.array([4]), 4, GINI, min_leaf, 0.0, total,
                    len(rows), np.zeros(1, dtype=np.int8), 0.0, 1.0, proxy, last,
                    missing_left, next_bin)

    def score(left):
        out = 0.0
        for side in (left, ~left):
            c = np.bincount(y[side], minlength=3).astype(float)
            out += c.sum() * impurity_of(c, GINI)
        return out

    best = np.inf
    for cut in range(4):
        for ml in (False, True):
            left = np.where(bins == 4, ml, bins <= cut)
            if left.sum() >= min_leaf and (~left).sum() >= min_leaf:
                best = min(best, score(left))
    if proxy[0] == -np.inf:
        assert best == np.inf
    else:
        left = np.where(bins == 4, missing_left[0], bins <= last[0])
        assert score(left) == pytest.approx(best, abs=1e-9)


def test_same_tree_as_exact_when_every_value_has_its_bin():
    X, y = load_digits(return_X_y=True)  # pixel values 0..16
    exact = DecisionTreeClassifier().fit(X, y)
    hist = DecisionTreeClassifier(splitter="hist").fit(X, y)
    assert hist.tree_.n_nodes == exact.tree_.n_nodes
    np.testing.assert_array_equal(hist.tree_.feature, exact.tree_.feature)
    np.testing.assert_allclose(hist.tree_.threshold, exact.tree_.threshold)
    np.testing.assert_array_equal(hist.predict(X), exact.predict(X))


@pytest.mark.parametrize("value", [1.0, 7.5, 255.0, -1.0, 1e6])
def test_a_numeric_column_of_one_value_is_one_bin_and_splits_on_missing(value):
    """A numeric column of one value has no edges: its known rows are bin 0 (not the value
    read as a category code, which put -1.0 and 255.0 in the missing bin and 1.0 past the
    column's bins), so a hist tree splits it into known and missing rows as the exact one
    does."""
    rng = np.random.default_rng(5)
    X = np.column_stack([np.full(400, value), rng.normal(size=400)])
    missing = rng.random(400) < 0.3
    X[missing, 0] = np.nan
    y = (missing ^ (rng.random(400) < 0.05)).astype(int)
    mapper = BinMapper().fit(X, [False, False], [0, 0])
    binned = mapper.transform(X)
    assert mapper.n_bins_[0] == 1
    np.testing.assert_array_equal(binned[0], np.where(missing, mapper.missing_bin_, 0))
    exact = DecisionTreeClassifier(max_depth=1).fit(X, y)
    hist = DecisionTreeClassifier(max_depth=1, splitter="hist").fit(X, y)
    assert exact.tree_.feature[0] == hist.tree_.feature[0] == 0
    np.testing.assert_array_equal(hist.predict(X), exact.predict(X))


def test_held_out_accuracy_close_to_exact():
    X, y = make_classification(60_000, 20, n_informative=10, random_state=0)
    train, test = slice(0, 40_000), slice(40_000, None)
    for depth in (6, 10):
        exact = DecisionTreeClassifier(max_depth=depth).fit(X[train], y[train])
        hist = DecisionTreeClassifier(max_depth=depth, splitter="hist").fit(X[train], y[train])
        assert abs(hist.score(X[test], y[test]) - exact.score(X[test], y[test])) < 0.01


def test_hist_handles_categories_and_missing_values():
    rng = np.random.default_rng(3)
    n = 3000
    colour = rng.choice(["red", "green", "blue", "grey"], n)
    x = rng.normal(size=n)
    y = ((colour == "red") | (x > 0.5)).astype(int)
    x[rng.random(n) < 0.1] = np.nan
    X = pd.DataFrame({"colour": pd.Categorical(colour), "x": x})
    model = DecisionTreeClassifier(splitter="hist", max_depth=6).fit(X, y)
    exact = DecisionTreeClassifier(max_depth=6).fit(X, y)
    assert model.score(X, y) == pytest.approx(exact.score(X, y), abs=0.01)
    assert model.predict(pd.DataFrame({"colour": ["red"], "x": [np.nan]}))[0] == 1


@pytest.mark.parametrize("bad", [1, 70000, 2.5, True])
def test_bad_max_bins(bad):
    with pytest.raises(ValueError, match="max_bins"):
        DecisionTreeClassifier(splitter="hist", max_bins=bad).fit([[0.0], [1.0]], [0, 1])


def test_class_weights_multiply_class_counts_once():
    # Per-class weights are applied to integer class counts (count x factor, one rounding),
    # not summed row by row, so a node's weights are exact and do not depend on row order:
    # the quantities a cluster fit reproduces from summed counts (quercus.dask).
    rng = np.random.default_rng(11)
    X = rng.normal(size=(3000, 3))
    y = np.where(X[:, 0] + rng.normal(0, 0.5, 3000) > 0.8, "rare", "common")
    y[rng.random(3000) < 0.1] = "mid"
    est = DecisionTreeClassifier(splitter="hist", max_depth=5, class_weight="balanced")
    est.fit(X, y)
    counts = np.array([np.count_nonzero(y == c) for c in est.classes_])
    factor = 3000 / (3 * counts.astype(float))  # scikit-learn's "balanced"
    tree = est.tree_
    leaves = est.apply(X)
    for node in np.flatnonzero(tree.kind == LEAF)[:20]:
        in_leaf = y[leaves == node]
        expected = np.array([np.count_nonzero(in_leaf == c) for c in est.classes_]) * factor
        np.testing.assert_array_equal(tree.value[node], expected)
    np.testing.assert_array_equal(tree.value[0], counts * factor)
    order = rng.permutation(3000)
    shuffled = DecisionTreeClassifier(splitter="hist", max_depth=5, class_weight="balanced")
    shuffled.fit(X[order], y[order])
    np.testing.assert_array_equal(shuffled.tree_.value, tree.value)


def test_bin_edges_found_on_threads_equal_those_of_one_thread(monkeypatch):
    """Columns' edges are found side by side on threads for a big sample; the same edges
    and per-value bins as one column after another."""
    from quercus import binning

    rng = np.random.default_rng(8)
    X = rng.normal(size=(30_000, 7)).astype(np.float32)
    X[:, 2] = rng.integers(0, 40, 30_000)  # few values: a bin per value
    X[rng.random(X.shape) < 0.05] = np.nan
    categorical = np.array([False, False, False, True, False, False, False])
    X[:, 3] = rng.integers(0, 5, 30_000)
    n_categories = np.where(categorical, 5, 0)
    fitted = []
    for min_rows in (1, 10**9):  # threads, then one thread
        monkeypatch.setattr(binning, "PARALLEL_MIN_ROWS", min_rows)
        cores = binning._cores()
        assert binning._threads(30_000, 6) == (min(cores, 6) if min_rows == 1 else 1)
        for complete, sample in ((True, 200_000), (True, 10_000), (False, 200_000)):
            binner = BinMapper(sample_rows=sample).fit(X, categorical, n_categories,
                                                       complete=complete)
            fitted.append(binner)
    for threaded, serial in zip(fitted[:3], fitted[3:]):
        assert len(threaded.edges_) == len(serial.edges_) == 7
        for a, b in zip(threaded.edges_, serial.edges_):
            np.testing.assert_array_equal(a, b)
        assert threaded.bin_values_.keys() == serial.bin_values_.keys()
        np.testing.assert_array_equal(threaded.n_bins_, serial.n_bins_)
    assert 2 in fitted[0].bin_values_ and fitted[0].n_bins_[3] == 5


def test_cores_where_the_system_has_no_affinity_call(monkeypatch):
    """macOS and Windows have no ``os.sched_getaffinity``: the machine's cores count."""
    import os

    from quercus import binning

    monkeypatch.delattr(os, "sched_getaffinity", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 3)
    assert binning._cores() == 3
    assert binning._threads(30_000, 20) == 3 and binning._threads(30_000, 2) == 2
    monkeypatch.setattr(os, "cpu_count", lambda: None)
    assert binning._threads(30_000, 20) == 1
