"""Per-node kernels run on one thread below ``PARALLEL_MIN_WORK`` and on threads above it;
both give the same results, so trees do not depend on the size threshold."""

import numpy as np
import pytest
from quercus._kernels._regression import POISSON, node_ranks

from quercus import DecisionTreeClassifier, DecisionTreeRegressor
from quercus._kernels import _regression as split_absolute
from quercus._kernels import _regression as split_regression
from quercus._kernels import _splits as partition
from quercus._kernels import _splits as split_numeric
from quercus.export.model_writer import model_to_dict
from quercus.splitting import cart


def _node(seed, n=300, m=6):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, m))
    X[:, 1] = rng.integers(0, 5, size=n)  # ties
    X[rng.random((n, m)) < 0.1] = np.nan
    order = np.ascontiguousarray(np.argsort(X, axis=0, kind="stable").T.astype(np.int32))
    w = rng.integers(1, 4, size=n).astype(float)
    return rng, X, w, order


def _outputs(m):
    return np.empty(m), np.empty(m), np.empty(m, dtype=np.bool_)


def _same(a, b):
    for x, z in zip(a, b):
        np.testing.assert_array_equal(x, z)


@pytest.mark.parametrize("seed", range(4))
def test_numeric_sweep_twins_agree(seed):
    rng, X, w, order = _node(seed)
    n, m = X.shape
    y = rng.integers(0, 3, size=n).astype(np.int32)
    start, end = 17, n - 5  # a segment, as for a node
    outs = []
    for sweep in (split_numeric.best_numeric_splits, split_numeric.best_numeric_splits_serial):
        out = _outputs(m)
        sweep(X, y, w, order, start, end, np.arange(m, dtype=np.int64), 3, 0, 1 + seed, 0.0,
              np.zeros(m, dtype=np.int8), 0.0, 1.0, *out)
        outs.append(out)
    assert np.isfinite(outs[0][0]).any()  # some feature found a cut
    _same(*outs)


@pytest.mark.parametrize("seed", range(4))
def test_regression_sweep_twins_agree(seed):
    rng, X, w, order = _node(seed)
    n, m = X.shape
    y = rng.poisson(2.0, size=n).astype(float)
    features = np.arange(m, dtype=np.int64)
    for criterion in (0, POISSON):
        outs = []
        for sweep in (split_regression.best_regression_splits,
                      split_regression.best_regression_splits_serial):
            out = _outputs(m)
            sweep(X, y, w, order, 0, n, features, 1 + seed, 0.0, *out, criterion)
            outs.append(out)
        assert np.isfinite(outs[0][0]).any()
        _same(*outs)
    rank = np.zeros(n, dtype=np.int64)
    sorted_y = node_ranks(y, order[0], rank)
    outs = []
    for sweep in (split_absolute.best_absolute_splits,
                  split_absolute.best_absolute_splits_serial):
        out = _outputs(m)
        sweep(X, y, w, order, 0, n, features, rank, sorted_y, 1 + seed, 0.0, *out)
        outs.append(out)
    assert np.isfinite(outs[0][0]).any()
    _same(*outs)


def test_partition_twins_agree():
    rng, X, _, order = _node(5)
    n = X.shape[0]
    segment_rows = np.sort(rng.choice(n, 240, replace=False))  # a node's rows at 10:250
    others = np.setdiff1d(np.arange(n), segment_rows)
    for f in range(X.shape[1]):
        ranked = segment_rows[np.argsort(X[segment_rows, f], kind="stable")]
        order[f] = np.concatenate([others[:10], ranked, others[10:]])
    goes_left = rng.random(n) < 0.4
    results = []
    for kernel in (partition.partition_orders, partition.partition_orders_serial):
        copy = order.copy()
        n_left = kernel(copy, 10, 250, goes_left, np.empty_like(copy))
        results.append((n_left, copy))
    assert results[0][0] == results[1][0] == goes_left[segment_rows].sum()
    np.testing.assert_array_equal(results[0][1], results[1][1])
    n_left = results[0][0]
    for f in range(X.shape[1]):  # stable: each side keeps the feature's sorted order
        left, right = results[0][1][f, 10:10 + n_left], results[0][1][f, 10 + n_left:250]
        assert goes_left[left].all() and not goes_left[right].any()
        for side in (left, right):
            values = X[side, f]
            known = values[~np.isnan(values)]
            assert np.all(np.diff(known) >= 0)


@pytest.mark.parametrize("make", [
    lambda: DecisionTreeClassifier(max_depth=6),
    lambda: DecisionTreeClassifier(criterion="entropy", min_samples_leaf=3),
    lambda: DecisionTreeRegressor(max_depth=6),
    lambda: DecisionTreeRegressor(criterion="absolute_error", max_depth=4),
    lambda: DecisionTreeRegressor(criterion="poisson", max_depth=5),
])
def test_trees_do_not_depend_on_the_threshold(monkeypatch, make):
    rng, X, w, _ = _node(7, n=2000, m=5)
    y = rng.poisson(np.exp(np.nan_to_num(X[:, 0]) / 2)).astype(float)
    if isinstance(make(), DecisionTreeClassifier):
        y = (y > 1).astype(int) + (y > 3)
    files = []
    for threshold in (0, 10**18):  # every node threaded, then none
        monkeypatch.setattr(cart, "PARALLEL_MIN_WORK", threshold)
        files.append(model_to_dict(make().fit(X, y, sample_weight=w)))
    assert files[0] == files[1]
    assert len(files[0]["tree"]["feature"]) > 15  # a tree with small and big nodes
