"""Progress reports of long fits: the estimator's callback and the command line's bar."""

import io
import itertools

import numpy as np

from quercus import DecisionTreeClassifier, datasets
from quercus.progress import ProgressBar
from quercus.tree import LEAF


def test_cart_reports_the_share_of_rows_settled_in_leaves(monkeypatch):
    from quercus.splitting import hist

    X, y, _ = datasets.load("iris")
    for params in ({}, {"max_leaf_nodes": 5}, {"splitter": "hist"}):
        shares = []
        DecisionTreeClassifier(**params).fit(X, y, progress=shares.append)
        assert shares and shares[-1] == 1.0
        assert all(a <= b for a, b in itertools.pairwise(shares))
        if params.get("splitter") == "hist":  # all of iris grows whole, in one call
            assert shares == [1.0, 1.0]
            # segments under 40 rows grow whole: a share after each, as after a leaf
            monkeypatch.setattr(hist, "PARALLEL_MIN_WORK", 40 * X.shape[1])
            shares = []
            DecisionTreeClassifier(**params).fit(X, y, progress=shares.append)
            assert len(shares) > 3 and all(a <= b for a, b in itertools.pairwise(shares))
        assert 0.0 < shares[0] < 1.0


def settled_shares(model, X, y):
    shares = []
    model.fit(X, y, progress=shares.append)
    assert shares and shares[-1] == 1.0
    assert all(a <= b for a, b in itertools.pairwise(shares))
    return shares


def leaf_sizes(model):
    """Training rows of each leaf, in the order a depth-first grower settles them."""
    tree = model.tree_
    return [tree.n_node_samples[n] for n in range(tree.n_nodes) if tree.kind[n] == LEAF]


def test_id3_reports_the_share_of_rows_settled_in_leaves():
    X, y, _ = datasets.load("play_tennis")
    for params in ({}, {"max_depth": 1}, {"criterion": "gain_ratio"}):
        model = DecisionTreeClassifier(algorithm="id3", **params)
        shares = settled_shares(model, X, y)
        # one report per leaf with rows (pre-order is the order they settle), then 1.0
        expected = np.cumsum([n for n in leaf_sizes(model) if n > 0]) / len(y)
        np.testing.assert_allclose(shares[:-1], expected)


def test_interval_reports_the_share_of_rows_settled_in_leaves():
    X, y, _ = datasets.load("iris")
    for params in ({}, {"max_depth": 2}):
        model = DecisionTreeClassifier(algorithm="interval", **params)
        shares = settled_shares(model, X, y)
        assert 0.0 < shares[0] < 1.0
        # a pure branch settles its rows at once (its inside leaf; the outside one is empty)
        expected = np.cumsum([n for n in leaf_sizes(model) if n > 0]) / len(y)
        np.testing.assert_allclose(shares[:-1], expected)


def test_interval_lookahead_reports_its_search_of_the_root():
    X, y, _ = datasets.load("iris")
    shares = settled_shares(DecisionTreeClassifier(algorithm="interval", lookahead=True,
                                                   max_depth=2), X, y)
    assert len(shares) >= 2 and 0.0 < shares[0] < 1.0


def test_bar_stays_quiet_for_short_fits_then_draws_and_ends_the_line():
    now = [0.0]
    out = io.StringIO()
    bar = ProgressBar(out, width=10, delay=0.5, interval=0.2, clock=lambda: now[0])
    bar(0.1)
    assert out.getvalue() == ""  # before the delay
    now[0] = 1.0
    bar(0.5)
    now[0] = 1.05
    bar(0.6)  # too soon after the last drawing
    now[0] = 1.1
    bar(1.0)  # the end is always drawn
    bar.close()
    assert out.getvalue() == "\rfitting [#####.....]  50%\rfitting [##########] 100%\n"


def test_quiet_bar_writes_nothing_on_close():
    out = io.StringIO()
    bar = ProgressBar(out)
    bar(np.float64(0.5))
    bar.close()
    assert out.getvalue() == ""
