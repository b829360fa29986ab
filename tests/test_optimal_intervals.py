"""The interval pruning of ordered tests at depth >= 3 (``Search.interval_splits``) against
the plain loop over every test (``Search.INTERVALS`` off): the same proven objective on
small numeric problems with many cuts, ties, missing values on both sides, weights, several
classes, split penalties, and the fallbacks (``min_samples_leaf`` > 1, ``max_splits``).
The problems are small and noisy so that many cuts tie with the best: a bound one error
(or one row's weight) too bold skips the only cut of the optimum on some of them."""

import numpy as np
import pytest
from quercus._kernels._optimal import node_tests, split_rows

from quercus import DecisionTreeClassifier
from quercus.growing import optimal
from quercus.growing.optimal import OptimalOptions, Search
from quercus.splitting.optimal_codes import encode_rows


def _problem(seed):
    rng = np.random.default_rng(1000 + seed)
    n = int(rng.integers(24, 60))
    n_features = int(rng.integers(1, 4))
    k = 2 if seed % 3 else 3
    cols = []
    for f in range(n_features):
        if f == 0 or rng.random() < 0.5:  # distinct values: long chains of cuts
            col = rng.permutation(n).astype(float)
        else:  # few values: ties between rows
            col = rng.integers(0, int(rng.integers(3, 10)), n).astype(float)
        cols.append(col)
    X = np.column_stack(cols)
    signal = (X[:, 0] > rng.integers(0, n)) ^ (X[:, -1] > np.median(X[:, -1]))
    y = np.where(rng.random(n) < 0.3, rng.integers(0, k, n), signal.astype(int)) % k
    if seed % 4 == 1:  # missing values: the chains with missing rows left and right
        X[rng.random(X.shape) < 0.12] = np.nan
    w = None if seed % 5 < 3 else rng.integers(1, 4, n).astype(float)
    params = {"max_depth": 3 if seed % 7 else 4}
    extra = seed % 6
    if extra == 2:
        params["split_penalty"] = 1.0
    elif extra == 3:
        params["split_penalty"] = 0.5
    elif extra == 4:
        params["min_samples_leaf"] = 3  # the plain loop: the bounds need 1
    elif extra == 5 and seed % 2:
        params["max_splits"] = 4  # several budget pairs: the plain loop
    return X, y, w, params


def _fit(X, y, w, params):
    model = DecisionTreeClassifier(algorithm="optimal", **params).fit(X, y, sample_weight=w)
    weights = np.ones(y.size) if w is None else w
    wrong = (model.predict(X) != y) @ weights
    splits = model.tree_.n_nodes - model.tree_.n_leaves
    # the tree makes the errors it claims
    assert wrong + params.get("split_penalty", 0.0) * splits == pytest.approx(model.objective_)
    assert model.optimal_ and model.lower_bound_ == model.objective_
    return model.objective_


@pytest.mark.parametrize("seed", range(90))
def test_interval_pruning_finds_the_plain_loops_optimum(seed, monkeypatch):
    X, y, w, params = _problem(seed)
    found = _fit(X, y, w, params)
    monkeypatch.setattr(Search, "INTERVALS", False)
    assert found == _fit(X, y, w, params)


@pytest.mark.parametrize("probe_solves", [(0, 1), (0, 3), (2, 4), (64, 0)])
@pytest.mark.parametrize("seed", range(0, 90, 3))
def test_probes_at_depth_4_keep_the_plain_loops_optimum(seed, probe_solves, monkeypatch):
    """The probes for a tree at a depth-4 node's lower bound (``Search.probe``), cut short
    after 1 or 3 depth-2 solves, or with room to spare, leave the optimum unchanged."""
    X, y, w, params = _problem(seed)
    params = dict(params, max_depth=4)
    monkeypatch.setattr(optimal, "PROBE_SOLVES", probe_solves)
    found = _fit(X, y, w, params)
    monkeypatch.setattr(Search, "INTERVALS", False)
    assert found == _fit(X, y, w, params)


def test_a_probe_finds_the_perfect_tree_early(monkeypatch):
    """A perfect depth-4 tree whose root is not the first cut the search takes: the
    probes find it with fewer subproblems than the search without them."""
    rng = np.random.default_rng(27)
    X = rng.normal(size=(240, 6))
    y = ((X[:, 0] > 0.2) & (X[:, 1] > -0.3) | (X[:, 2] > 0.4) & (X[:, 3] < 0.5)
         | (X[:, 4] > 1.2)).astype(int)
    probed = DecisionTreeClassifier(algorithm="optimal", max_depth=4).fit(X, y)
    monkeypatch.setattr(optimal, "PROBE_CUTS", 0)
    plain = DecisionTreeClassifier(algorithm="optimal", max_depth=4).fit(X, y)
    assert probed.objective_ == plain.objective_ == 0
    assert probed.n_subproblems_ < plain.n_subproblems_ / 2


def test_interval_pruning_skips_cuts():
    """The pruning is used: on distinct values at depth 3 it solves fewer subproblems than
    the plain loop, with the same optimum."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=(120, 3))
    y = ((X[:, 0] > 0.3) ^ (X[:, 1] > -0.2) ^ (rng.random(120) < 0.15)).astype(int)
    pruned = DecisionTreeClassifier(algorithm="optimal", max_depth=3).fit(X, y)
    Search.INTERVALS = False
    try:
        plain = DecisionTreeClassifier(algorithm="optimal", max_depth=3).fit(X, y)
    finally:
        Search.INTERVALS = True
    assert pruned.objective_ == plain.objective_
    assert pruned.n_subproblems_ < plain.n_subproblems_ / 2


def _bound_problem(seed):
    rng = np.random.default_rng(3000 + seed)
    n = int(rng.integers(12, 40))
    X = np.column_stack([rng.permutation(n), rng.integers(0, 6, n)]).astype(float)
    if seed % 2:
        X[rng.random(X.shape) < 0.15] = np.nan
    y = np.where(rng.random(n) < 0.25, rng.integers(0, 2, n), X[:, 0] > n // 2).astype(np.int32)
    w = np.ones(n, np.int64) if seed % 3 else rng.integers(1, 3, n).astype(np.int64)
    return X, y, w


def test_chain_bounds_hold_and_are_tight():
    """Along every chain of a depth-3 node, the bounds from the virtual end cuts and from
    one evaluated cut never exceed the children's depth-2 optima (computed here for every
    cut), and equal them at some cuts: a bound one error (or one row) stronger fails."""
    tight = {"virtual left": 0, "virtual right": 0, "evaluated": 0}
    for seed in range(40):
        X, y, w = _bound_problem(seed)
        fc = encode_rows(X, np.zeros(2, dtype=bool), None, "exact", 255)
        search = Search(fc, y, w, 2, OptimalOptions(max_depth=3))
        rows = np.arange(y.size, dtype=np.int64)
        tests, errors = node_tests(search.codes, y, w, rows, fc.n_codes, fc.categorical, 2,
                                   True, 8, 1)
        plans, _others = search._chains(tests, errors, np.argsort(errors, kind="stable"))
        whole = search.solve(rows, 2, 3, np.inf)[0]
        for chain, p in plans:
            exact = np.array([[search.solve(side, 2, 3, np.inf)[0] for side in
                               split_rows(search.codes, rows, tests[t])] for t in chain])
            line = search._chain_line(rows, tests, chain, whole)
            _chain, _moved, low_l, low_r = line
            m = len(chain)
            for i, k in ((0, m + 1), (0, p + 1), (p + 1, m + 1)):
                if k == p + 1 or i == p + 1:
                    low_l[p + 1], low_r[p + 1] = exact[p]
                left, right = search._between(line, i, k)
                assert np.all(left <= exact[i:k - 1, 0])
                assert np.all(right <= exact[i:k - 1, 1])
                source = "evaluated" if p + 1 in (i, k) else None
                left_tight = np.any((left == exact[i:k - 1, 0]) & (left > 0))
                right_tight = np.any((right == exact[i:k - 1, 1]) & (right > 0))
                if source is None:  # only the virtual cuts: the right child's bound is
                    # the left one's (whole - left weight), and the other way round
                    tight["virtual left"] += int(right_tight)
                    tight["virtual right"] += int(left_tight)
                else:
                    tight["evaluated"] += int(left_tight) + int(right_tight)
    assert min(tight.values()) > 0, tight
