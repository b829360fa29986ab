"""Progress reports of long fits: the estimator's callback and the command line's bar."""

import io

import numpy as np

from quercus import DecisionTreeClassifier, datasets
from quercus.progress import ProgressBar


def test_cart_reports_the_share_of_rows_settled_in_leaves():
    X, y, _ = datasets.load("iris")
    for params in ({}, {"max_leaf_nodes": 5}, {"splitter": "hist"}):
        shares = []
        DecisionTreeClassifier(**params).fit(X, y, progress=shares.append)
        assert shares and shares[-1] == 1.0
        assert all(a <= b for a, b in zip(shares, shares[1:]))
        assert 0.0 < shares[0] < 1.0


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
