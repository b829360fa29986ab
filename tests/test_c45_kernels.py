"""C4.5's compiled kernels against brute-force numpy references."""

import numpy as np
import pytest
from quercus._kernels._c45 import SortedColumns, scan_one, xlogx_table
from quercus._kernels._splits import stable_argsort

SPECIAL = [0.0, -0.0, 1.5, -2.25, np.nan, np.inf, -np.inf, 1e-300, -1e-300, 5e300, 7.0]


@pytest.mark.parametrize("seed", range(40))
def test_radix_argsort_is_numpys_stable_argsort(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 400))
    if seed % 2:
        values = rng.choice(SPECIAL, n)
    else:
        values = np.round(rng.normal(size=n) * 10.0 ** rng.integers(-3, 4), 1)
        values[rng.random(n) < 0.1] = np.nan
    assert np.array_equal(stable_argsort(values), np.argsort(values, kind="stable"))


def test_radix_argsort_keeps_zero_and_negative_zero_in_input_order():
    values = np.array([0.0, -0.0, 0.0, -1.0, -0.0])
    assert stable_argsort(values).tolist() == [3, 0, 1, 2, 4]


@pytest.mark.parametrize("seed", range(30))
def test_whole_weight_scan_equals_the_fractional_scan(seed):
    # integer class counts with F looked up must give the fractional scan's very numbers
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 300))
    X = np.asfortranarray(np.round(rng.normal(size=(n, 1)), int(rng.integers(0, 3))))
    X[rng.random(n) < 0.1, 0] = np.nan
    y = rng.integers(0, 3, n).astype(np.int32)
    weights = rng.integers(1, 4, n).astype(np.float64)
    columns = SortedColumns.sort(X, y, weights, np.array([0]))
    node_weight = float(weights.sum())
    args = (columns.values[0], columns.classes[0], columns.weights[0], 3, 2.0, node_weight)
    whole = scan_one(*args, xlogx_table(int(node_weight) + 1))
    fractional = scan_one(*args, np.zeros(0))
    assert whole == fractional


def test_sorted_columns_hold_each_feature_in_stable_order_with_row_ids():
    rng = np.random.default_rng(3)
    X = np.asfortranarray(np.round(rng.normal(size=(50, 3)), 1))
    X[5, 1] = np.nan
    y = rng.integers(0, 2, 50).astype(np.int32)
    weights = rng.random(50)
    columns = SortedColumns.sort(X, y, weights, np.array([2, 1]))
    for i, f in enumerate([2, 1]):
        order = np.argsort(X[:, f], kind="stable")
        assert np.array_equal(columns.positions[i], order)
        assert np.array_equal(columns.values[i], X[order, f], equal_nan=True)
        assert np.array_equal(columns.classes[i], y[order])
        assert np.array_equal(columns.weights[i], weights[order])


def _mixed_data(n_rows, seed):
    rng = np.random.default_rng(seed)
    numeric = np.round(rng.normal(size=(n_rows, 6)), 2)
    numeric[rng.random(numeric.shape) < 0.05] = np.nan
    nominal = rng.integers(0, 4, (n_rows, 2)).astype(float)
    nominal[rng.random(nominal.shape) < 0.05] = np.nan
    score = np.nan_to_num(numeric[:, 0]) + np.nan_to_num(numeric[:, 1]) * (nominal[:, 0] == 1)
    y = (score + rng.normal(scale=0.5, size=n_rows) > 0.2).astype(int)
    return np.hstack([numeric, nominal]), y


@pytest.mark.parametrize("options", [{}, {"binary_categorical_splits": True},
                                     {"pruning": False}])
def test_c45_tree_does_not_depend_on_the_thread_count(options):
    # 12,000 rows x 6 numeric features: the root is split on both threads, then the
    # frontier's subtrees grow as separate tasks and are attached back
    from quercus._kernels._openmp import limited, max_threads

    from quercus import DecisionTreeClassifier

    X, y = _mixed_data(12_000, 5)
    trees = []
    for threads in (1, max_threads()):
        with limited(threads):
            model = DecisionTreeClassifier(algorithm="c45", categorical_features=[6, 7],
                                           **options).fit(X, y)
        trees.append(model.tree_)
    one, many = trees
    assert one.n_nodes > 50
    for name in ("kind", "feature", "child_ptr", "child_ids", "category_branch", "empty",
                 "n_node_samples"):
        assert np.array_equal(getattr(one, name), getattr(many, name)), name
    assert np.array_equal(one.threshold, many.threshold, equal_nan=True)
    assert np.array_equal(one.value, many.value)
    assert np.array_equal(one.weighted_n_node_samples, many.weighted_n_node_samples)


def test_c45_reports_progress_up_to_the_whole_weight():
    from quercus import DecisionTreeClassifier

    X, y = _mixed_data(12_000, 6)
    shares = []
    DecisionTreeClassifier(algorithm="c45", categorical_features=[6, 7],
                           pruning=False).fit(X, y, progress=shares.append)
    assert len(shares) > 2
    assert all(0.0 <= s <= 1.0 for s in shares)
    assert shares == sorted(shares)
    assert shares[-1] == pytest.approx(1.0)
