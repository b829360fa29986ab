"""The interval pruning of ordered tests at depth >= 3 (``Search.interval_splits``) against
the plain loop over every test (``Search.INTERVALS`` off): the same proven objective on
small numeric problems with many cuts, ties, missing values on both sides, weights, several
classes, split penalties, and the fallbacks (``min_samples_leaf`` > 1, ``max_splits``).
The problems are small and noisy so that many cuts tie with the best: a bound one error
(or one row's weight) too bold skips the only cut of the optimum on some of them."""

import numpy as np
import pytest

from quercus import DecisionTreeClassifier
from quercus.growing.optimal import Search


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
