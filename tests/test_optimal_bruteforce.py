"""algorithm="optimal" against an exhaustive search written here in plain Python.

The brute force enumerates, at every node, every test of the split family as
docs/optimal.md defines it (written from that text, not from the kernels): numeric cuts
between the node's distinct values or at fixed quantile thresholds, categorical subsets or
single categories, missing values on a learned side or always on the "false" side, and with
``missing="learn"`` the test "known left, missing right". It memoises by row set only.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
import pytest

from quercus import DecisionTreeClassifier


def _tests(X, kinds, rows, family):
    """Every (left rows, right rows) partition the family allows at this node."""
    out = []
    learn = family["missing"] == "learn"
    for f, kind in enumerate(kinds):
        col = X[rows, f]
        miss = np.isnan(col)
        known_vals = np.unique(col[~miss])
        lefts = []  # known-value masks that go left
        if kind == "num" and family["numeric"] == "exact":
            for v in known_vals[:-1]:
                lefts.append(~miss & (col <= v))
        elif kind == "num":
            for t in family["thresholds"][f]:
                mask = ~miss & (col <= t)
                if mask.any() and (~miss & ~mask).any():
                    lefts.append(mask)
        elif family["categorical"] == "subset" and len(known_vals) <= family["max_subset"]:
            for size in range(1, len(known_vals)):
                for subset in combinations(known_vals, size):
                    lefts.append(np.isin(col, subset))
        else:
            for v in known_vals:
                lefts.append(col == v)
        for mask in lefts:
            out.append(mask)  # missing right
            if learn and miss.any():
                out.append(mask | miss)
        if learn and miss.any() and (~miss).any():
            out.append(~miss)
    return [(rows[m], rows[~m]) for m in out]


def _leaf(y, w, rows, K):
    counts = np.bincount(y[rows], weights=w[rows], minlength=K)
    return counts.sum() - counts.max()


def brute_force(X, y, w, kinds, K, depth, family, max_splits=None, alpha=0.0, min_leaf=1):
    memo = {}

    def opt(rows, d, budget):
        key = (rows.tobytes(), d, budget)
        if key in memo:
            return memo[key]
        best = _leaf(y, w, rows, K)
        if d > 0 and budget > 0:
            for left, right in _tests(X, kinds, rows, family):
                if len(left) < min_leaf or len(right) < min_leaf:
                    continue
                for b_left in range(budget):
                    cost = opt(left, d - 1, b_left) + opt(right, d - 1, budget - 1 - b_left)
                    best = min(best, cost + alpha)
        memo[key] = best
        return best

    full = 2**depth - 1
    return opt(np.arange(len(y)), depth, full if max_splits is None else min(max_splits, full))


def _problem(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(8, 41))
    n_features = int(rng.integers(1, 5))
    K = int(rng.integers(2, 4))
    kinds, cols = [], []
    for _ in range(n_features):
        kind = rng.choice(["bin", "num", "cat"])
        if kind == "bin":
            col = rng.integers(0, 2, n).astype(float)
            kinds.append("num")
        elif kind == "num":
            col = rng.integers(0, int(rng.integers(3, 9)), n) * 0.5  # ties
            kinds.append("num")
        else:
            col = rng.integers(0, int(rng.integers(3, 5)), n).astype(float)
            kinds.append("cat")
        col[rng.random(n) < 0.1] = np.nan
        cols.append(col)
    X = np.column_stack(cols)
    y = rng.integers(0, K, n)
    # a little signal, so trees are not all leaves
    y = np.where(rng.random(n) < 0.5, (np.nan_to_num(X[:, 0]) > 1).astype(int) % K, y)
    w = rng.integers(1, 3, n).astype(float) if rng.random() < 0.5 else np.ones(n)
    depth = int(rng.integers(1, 4))
    family = {"numeric": str(rng.choice(["exact", "bins"])),
              "categorical": str(rng.choice(["subset", "one_vs_rest"])),
              "missing": str(rng.choice(["learn", "false"])), "max_subset": 8,
              "max_bins": int(rng.integers(2, 5))}
    options = {}
    r = rng.random()
    if r < 0.15:
        options["max_splits"] = int(rng.integers(1, 4))
    elif r < 0.25:
        options["split_penalty"] = float(rng.integers(1, 3))
    elif r < 0.35:
        options["min_samples_leaf"] = int(rng.integers(2, 5))
    return X, y, w, kinds, K, depth, family, options


def _frame(X, kinds):
    data = {}
    for f, kind in enumerate(kinds):
        if kind == "cat":
            data[f"c{f}"] = pd.Series([None if np.isnan(v) else f"v{int(v)}" for v in X[:, f]],
                                      dtype=object)
        else:
            data[f"c{f}"] = X[:, f]
    return pd.DataFrame(data)


def _thresholds(X, kinds, max_bins):
    out = {}
    for f, kind in enumerate(kinds):
        known = X[~np.isnan(X[:, f]), f]
        levels = [k / (max_bins + 1) for k in range(1, max_bins + 1)]
        out[f] = sorted({float(t) for t in np.quantile(known, levels)}) if known.size else []
    return out


@pytest.mark.parametrize("seed", range(200))
def test_equal_to_brute_force(seed):
    X, y, w, kinds, K, depth, family, options = _problem(seed)
    family["thresholds"] = _thresholds(X, kinds, family["max_bins"])
    # categories are coded in order of appearance by the estimator; the brute force only
    # needs the partitions, which do not depend on the coding
    frame = _frame(X, kinds)
    labels = np.array([f"k{v}" for v in y], dtype=object)
    model = DecisionTreeClassifier(
        algorithm="optimal", max_depth=depth, numeric=family["numeric"],
        max_bins=family["max_bins"], categorical=family["categorical"],
        missing=family["missing"], categorical_features=[f"c{f}" for f, k in
                                                         enumerate(kinds) if k == "cat"],
        min_samples_leaf=options.get("min_samples_leaf", 1),
        max_splits=options.get("max_splits"), split_penalty=options.get("split_penalty", 0.0))
    model.fit(frame, labels, sample_weight=w)
    expected = brute_force(X, y, w, kinds, K, depth, family,
                           max_splits=options.get("max_splits"),
                           alpha=options.get("split_penalty", 0.0),
                           min_leaf=options.get("min_samples_leaf", 1))
    assert model.optimal_ and model.lower_bound_ == model.objective_
    assert model.objective_ == expected
    # the flat tree itself: its predictions make the errors it claims, within the limits
    wrong = (model.predict(frame) != labels) * w
    splits = model.tree_.n_nodes - model.tree_.n_leaves
    assert wrong.sum() + options.get("split_penalty", 0.0) * splits == expected
    assert model.get_depth() <= depth
    if "max_splits" in options:
        assert splits <= options["max_splits"]
    if "min_samples_leaf" in options:
        leaves = model.tree_.kind == 0
        assert model.tree_.n_node_samples[leaves].min() >= options["min_samples_leaf"]


@pytest.mark.parametrize("seed", range(40))
def test_equal_to_brute_force_when_cuts_are_pruned(seed):
    """60 rows of distinct values at depth 2: the kernel skips the cuts next to a costly
    one (neighbourhood pruning), which the small problems above hardly exercise; skipping
    one row too many fails several of these seeds."""
    rng = np.random.default_rng(seed)
    n = 60
    X = rng.permutation(2 * n).reshape(n, 2).astype(float)
    y = ((X[:, 0] > rng.integers(20, 100)) ^ (X[:, 1] > rng.integers(20, 100))).astype(int)
    y = np.where(rng.random(n) < 0.1, 1 - y, y)
    w = np.ones(n) if seed % 2 == 0 else rng.integers(1, 3, n).astype(float)
    family = {"numeric": "exact", "categorical": "subset", "missing": "learn",
              "max_subset": 8, "thresholds": {}}
    model = DecisionTreeClassifier(algorithm="optimal", max_depth=2).fit(X, y, sample_weight=w)
    assert model.objective_ == brute_force(X, y, w, ["num", "num"], 2, 2, family)
    assert (model.predict(X) != y) @ w == model.objective_


@pytest.mark.parametrize("seed", range(12))
def test_equal_to_brute_force_at_depth_3_on_distinct_values(seed):
    """Depth 3 on distinct numeric values: the children of neighbouring cuts differ by one
    row, where the similarity bound prunes most; a bound one error too strong fails here."""
    rng = np.random.default_rng(500 + seed)
    n = 18
    X = rng.permutation(2 * n).reshape(n, 2).astype(float)
    y = rng.integers(0, 2 + seed % 2, n)
    family = {"numeric": "exact", "categorical": "subset", "missing": "learn",
              "max_subset": 8, "thresholds": {}}
    model = DecisionTreeClassifier(algorithm="optimal", max_depth=3).fit(X, y)
    assert model.objective_ == brute_force(X, y, np.ones(n), ["num", "num"], 3, 3, family)
    assert np.count_nonzero(model.predict(X) != y) == model.objective_
