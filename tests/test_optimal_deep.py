"""The compiled depth-3 level (``_kernels/_optimal.pyx``) finds the tree that the Python
loop over a node's tests finds: the same objective and the same tree, in both kernel copies,
with weights, penalties, leaf minimums, several classes and a time limit."""

import numpy as np
import pytest

from quercus import DecisionTreeClassifier
from quercus.growing.optimal import Search


def _problem(seed):
    rng = np.random.default_rng(seed)
    n, f = int(rng.integers(40, 160)), int(rng.integers(3, 9))
    X = rng.integers(0, 2, (n, f)).astype(float)
    k = int(rng.choice([2, 2, 3]))
    y = (X[:, 0].astype(int) ^ X[:, 1].astype(int) ^ (rng.random(n) < 0.25)) % k
    if k > 2:
        y = np.where(rng.random(n) < 0.3, rng.integers(0, k, n), y)
    w = rng.integers(1, 4, n).astype(float) if rng.random() < 0.4 else None
    options = [{}, {"min_samples_leaf": 4}, {"split_penalty": 0.5}, {"time_limit": 60.0},
               {"max_depth": 5}, {"max_depth": 3}][seed % 6]
    return X, y, w, {"max_depth": 4, **options}


def _fit(X, y, w, params):
    model = DecisionTreeClassifier(algorithm="optimal", **params).fit(X, y, sample_weight=w)
    tree = model.tree_
    return (model.objective_, model.optimal_, tree.feature.tolist(), tree.threshold.tolist(),
            tree.children_left.tolist(), tree.value.tolist())


@pytest.mark.parametrize("seed", range(18))
def test_depth3_kernel_finds_the_python_loops_tree(seed, monkeypatch):
    X, y, w, params = _problem(seed)
    found = _fit(X, y, w, params)
    monkeypatch.setattr(Search, "depth3", lambda self, rows, tests, order, cost, tree, root:
                        self.splits(rows, 3, 7, tests, order, cost, tree, root))
    assert found == _fit(X, y, w, params)
